"""Measurements beyond a tournament: the sequential test of ``bench match`` (``sprt``),
exploitability (``exploit``), the rule-set studies (``studies``) and the benchmark report of
``bench perf`` (``perf``, timed against the yardstick kernel, ``_yardstick``)."""
