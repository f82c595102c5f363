"""The run engine: bots play deals into records (``play``), on workers (``runner``), kept in a
journal (``journal``) and played again to verify them (``verify``). It never imports the
command line, the web page or the reports (tests/test_layers.py)."""
