"""The bench: pits bots against each other and measures them.

Its parts: ``bench.run`` plays deals into records (the engine), ``bench.records`` says what
a record is and checks it, ``bench.report`` turns records into results, tables, report.md
and plots, ``bench.analysis`` measures more (SPRT, exploitability, studies, benchmarks),
``bench.cli`` is the command line (``bench``, ``solve``) and ``bench.web`` the web page.

>>> from bench import run_deals, summarise
>>> records = run_deals(["greedy", "random"], 2, entropy=1, n_deals=8)
>>> summarise(records, ["greedy", "random"], 2)["zero_sum"]
True
"""

from bench.records.deals import HANDS_PER_SESSION, deal_table, seatings
from bench.report.summary import summarise
from bench.run.play import play_deals
from bench.run.runner import run_deals

__all__ = ["HANDS_PER_SESSION", "deal_table", "play_deals", "run_deals", "seatings", "summarise"]
