"""The bench: pits bots against each other and measures them.

>>> from bench import run_deals, summarise
>>> records = run_deals(["greedy", "random"], 2, entropy=1, n_deals=8)
>>> summarise(records, ["greedy", "random"], 2)["zero_sum"]
True
"""

from bench.runner import run_deals
from bench.tournament import HANDS_PER_SESSION, deal_table, play_deals, seatings, summarise

__all__ = ["HANDS_PER_SESSION", "deal_table", "play_deals", "run_deals", "seatings", "summarise"]
