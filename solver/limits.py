"""Every ceiling the package holds a request, a rule set or a record to, in one place.

Each limit has a range, the unit it counts, and the reason it is where it is. Commands
check their options against these limits before any work starts (``bench.cli.parsing.limited``),
the library checks its arguments against the same limits, and ``bench report`` and a
resumed run refuse a record beyond them: so a run the tournament accepts is one the
report reads, and the other way round. docs/limits.md is the table below, written out.

>>> check("players", 3)
3
>>> check("players", 5, "--players")
Traceback (most recent call last):
...
solver.limits.LimitError: --players is 5, above the limit of 4 (the game is for 2 to 4 players)
>>> check("seed", -1, "--seed")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
solver.limits.LimitError: --seed is -1, below the limit of 0 (numpy takes no negative seed; ...)
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from solver.errors import InputError


class LimitError(InputError, ValueError):
    """A value outside its limit (``LIMITS``); the message names the value, the limit and why."""


@dataclass(frozen=True, slots=True)
class Limit:
    """A value's range, ``low`` to ``high`` inclusive (``high`` per core where ``per_core``)."""

    low: int | float
    high: int | float
    unit: str  # what is counted, for the table in docs/limits.md
    reason: str  # why the limit is where it is, in one line
    per_core: bool = False  # the ceiling is ``high`` for each core this process may run on


LIMITS: dict[str, Limit] = {
    # what a run is made of: the tournament refuses, before it starts, what bench report would refuse
    "bots": Limit(1, 64, "bots", "a crosstable of more bots than this is no longer read"),
    "players": Limit(2, 4, "seats", "the game is for 2 to 4 players"),
    "seatings": Limit(1, 100_000, "seatings",
                      "every deal is replayed in every seating of the bots: more would take days a deal"),
    "sessions": Limit(1, 1_000_000, "sessions", "8 million deals: the most a run's journal and results.json hold"),
    "deals": Limit(1, 8_000_000, "deals", "the deals of the most sessions a run holds"),
    "plays": Limit(1, 20_000_000, "plays", "deals × bots × seats a run records: a report holds them all in memory"),
    "document_bytes": Limit(1, 2**32, "bytes", "a journal, results.json or benchmark JSON, read whole into memory: "
                            "more than the most plays take (about 200 bytes a play); refused before it is read"),
    # the work a command is asked to do
    "jobs": Limit(1, 4, "workers per core", "more workers than this only share the cores and cost memory",
                  per_core=True),
    "samples": Limit(1, 1_000_000_000, "simulated opponents",
                     "more take days a hand; fewer may still not fit in memory (checked apart)"),
    "hands": Limit(1, 100_000_000, "hands", "more take days; fewer may still not fit in memory (checked apart)"),
    "removal_hands": Limit(0, 100_000_000, "hands", "as hands: the hands trained tables set to measure card removal"),
    "rounds": Limit(1, 10_000, "rounds", "a round of training takes minutes: more would take months"),
    "top": Limit(0, 1_000, "plays", "runners-up printed: more is not a table anyone reads"),
    "seed": Limit(0, 2**53 - 1, "", "numpy takes no negative seed; JSON holds whole numbers exactly up to 2^53"),
    "seconds": Limit(0.001, 86_400.0, "seconds", "a time limit: from a millisecond to a day"),
    # rule sets
    "units": Limit(0, 10_000, "units", "a royalty or a natural's payout: sums over millions of hands stay exact"),
    # the web page, and bench serve
    "port": Limit(1, 65_535, "", "a TCP port"),
    "web_workers": Limit(1, 64, "processes", "solver processes of bench serve: each takes a core and memory"),
    "web_queue": Limit(0, 10_000, "requests", "requests that may wait for a solver process; beyond, 429 at once"),
    "web_timeout": Limit(0.1, 3_600.0, "seconds", "what one web request may compute before it is stopped"),
    "web_samples": Limit(1, 20_000, "simulated opponents", "a web request is answered within its time-out"),
    "web_text": Limit(1, 200, "characters", "the longest hand or arrangement text a web request holds"),
    "web_body": Limit(1, 8_192, "bytes", "the longest web request body"),
    # protocol bots
    "bot_line": Limit(1, 1 << 20, "bytes", "a line from a protocol bot longer than this is a bad answer"),
    "bot_batch": Limit(1, 64, "hands", "hands in one arrange_many message: 16 KiB of answer line a hand"),
    "bot_seconds": Limit(0.01, 86_400.0, "seconds", "a protocol bot file's decision_timeout and startup_timeout"),
}


def cores() -> int:
    """Cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def ceiling(name: str) -> int | float:
    """The highest value ``name`` takes (on this machine, for a limit per core).

    >>> ceiling("players"), ceiling("jobs") == 4 * cores()
    (4, True)
    """
    limit = LIMITS[name]
    return limit.high * cores() if limit.per_core else limit.high


def _shown(value: int | float) -> str:
    if isinstance(value, int):
        text = f"{value:,}" if value.bit_length() < 200 else f"a number of {len(str(abs(value))):,} digits"
        return text
    return f"{value:g}"


def problem(name: str, value: int | float, what: str | None = None) -> str | None:
    """What is wrong with ``value`` as ``name`` (called ``what``; ``""`` to start with the
    value), in one line, or None.

    >>> print(problem("units", 10**29, "a royalty"))  # doctest: +ELLIPSIS
    a royalty is 100,000,000,000,000,000,000,000,000,000, above the limit of 10,000 (a royalty or ...)
    """
    limit = LIMITS[name]
    shown = _shown(value)
    said = f"{shown} is" if what == "" else f"{name if what is None else what} is {shown},"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{said} not a finite number from {_shown(limit.low)} to {_shown(ceiling(name))}"
    if value < limit.low:
        return f"{said} below the limit of {_shown(limit.low)} ({limit.reason})"
    high = ceiling(name)
    if value > high:
        per = f": {_shown(limit.high)} per core on {cores()} cores" if limit.per_core else ""
        return f"{said} above the limit of {_shown(high)} ({limit.reason}{per})"
    return None


def check(name: str, value: int | float, what: str | None = None) -> int | float:
    """``value`` when it is within the limit ``name``; else :class:`LimitError`, one line."""
    found = problem(name, value, what)
    if found:
        raise LimitError(found)
    return value


def table() -> list[str]:
    """The limits as a Markdown table (docs/limits.md)."""
    lines = ["| limit | from | to | unit | why |", "|---|---|---|---|---|"]
    for name, limit in LIMITS.items():
        high = f"{_shown(limit.high)} per core" if limit.per_core else _shown(limit.high)
        lines.append(f"| `{name}` | {_shown(limit.low)} | {high} | {limit.unit} | {limit.reason} |")
    return lines
