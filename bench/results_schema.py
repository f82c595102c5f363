"""The schema of a tournament's results.json, as ``bench report`` reads it.

Each part of the document is described by a small shape: its type, the range of a number,
the keys of a table. :func:`results_problem` checks a document against the shapes and then
against itself (unique bot names, one deal number per deal and inside the run's sessions,
foul flags that agree with the row values, deal counts that add up), and names the first
thing wrong, or returns None. Everything the report prints is computed from what passes.

>>> results_problem({"schema_version": 2})
"results has no 'command'"
>>> print(Int(0, 10).problem(-1, "records[0].deal"))
records[0].deal is -1, below 0
>>> print(Number().problem(float("nan"), "timing.wall_seconds"))
timing.wall_seconds is nan, not a finite number
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import permutations
from typing import Any

VALUE_LIMIT = 1 << 31  # row values are strength codes below 2^31 (a faulted hand's front is 2^30)
COUNT_LIMIT = 1 << 53  # counts, deal numbers and sessions: whole numbers a float could still hold
MAX_SEATINGS = 100_000  # seatings a deal is replayed in (bots and players): beyond, no tournament made it


class Shape:
    def problem(self, value: Any, where: str) -> str | None:
        raise NotImplementedError


@dataclass(frozen=True)
class Int(Shape):
    """A whole number (not a bool) from ``low`` up to ``high`` (None: no ceiling)."""

    low: int = 0
    high: int | None = COUNT_LIMIT

    def problem(self, value: Any, where: str) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{where} is {_kind(value)}, not a whole number"
        if value < self.low:
            return f"{where} is {value}, below {self.low}"
        if self.high is not None and value > self.high:
            return f"{where} is {_short(value)}, above {self.high:,}"
        return None


@dataclass(frozen=True)
class Number(Shape):
    """A finite number from ``low`` up."""

    low: float = 0.0

    def problem(self, value: Any, where: str) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{where} is {_kind(value)}, not a number"
        if isinstance(value, int) and abs(value) > COUNT_LIMIT:
            return f"{where} is {_short(value)}, too large a number"
        if not math.isfinite(value):
            return f"{where} is {value}, not a finite number"
        if value < self.low:
            return f"{where} is {value:g}, below {self.low:g}"
        return None


@dataclass(frozen=True)
class Text(Shape):
    """A string of at most ``longest`` characters; non-empty unless ``empty``."""

    longest: int = 10_000
    empty: bool = True

    def problem(self, value: Any, where: str) -> str | None:
        if not isinstance(value, str):
            return f"{where} is {_kind(value)}, not text"
        if not value and not self.empty:
            return f"{where} is empty"
        if len(value) > self.longest:
            return f"{where} is {len(value):,} characters long, above {self.longest:,}"
        return None


@dataclass(frozen=True)
class Bool(Shape):
    def problem(self, value: Any, where: str) -> str | None:
        return None if isinstance(value, bool) else f"{where} is {_kind(value)}, not true or false"


@dataclass(frozen=True)
class AnyOf(Shape):
    """The first of ``shapes`` that fits; the last one's complaint otherwise."""

    shapes: tuple[Shape, ...]

    def problem(self, value: Any, where: str) -> str | None:
        problem = None
        for shape in self.shapes:
            problem = shape.problem(value, where)
            if problem is None:
                return None
        return problem


@dataclass(frozen=True)
class Null(Shape):
    def problem(self, value: Any, where: str) -> str | None:
        return None if value is None else f"{where} is {_kind(value)}, not null"


@dataclass(frozen=True)
class ListOf(Shape):
    """A list of ``least`` to ``most`` items of one shape."""

    item: Shape
    least: int = 0
    most: int | None = None

    def problem(self, value: Any, where: str) -> str | None:
        if not isinstance(value, list):
            return f"{where} is {_kind(value)}, not a list"
        if len(value) < self.least:
            return f"{where} has {len(value)} items, fewer than {self.least}"
        if self.most is not None and len(value) > self.most:
            return f"{where} has {len(value):,} items, more than {self.most:,}"
        for i, item in enumerate(value):
            problem = self.item.problem(item, f"{where}[{i}]")
            if problem:
                return problem
        return None


@dataclass(frozen=True)
class Table(Shape):
    """A JSON object with these keys (those in ``optional`` may be missing); others are let be."""

    keys: dict[str, Shape]
    optional: frozenset[str] = frozenset()

    def problem(self, value: Any, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"{where} is {_kind(value)}, not a table"
        for key, shape in self.keys.items():
            if key not in value:
                if key in self.optional:
                    continue
                return f"{where} has no {key!r}"
            problem = shape.problem(value[key], f"{where}.{key}")
            if problem:
                return problem
        return None


@dataclass(frozen=True)
class MapOf(Shape):
    """A JSON object whose every value has one shape."""

    item: Shape

    def problem(self, value: Any, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"{where} is {_kind(value)}, not a table"
        for key, item in value.items():
            problem = self.item.problem(item, f"{where}.{key}")
            if problem:
                return problem
        return None


def _kind(value: Any) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text", list: "a list",
            dict: "a table", type(None): "null"}.get(type(value), type(value).__name__)


def _short(value: int) -> str:
    text = str(value) if value.bit_length() < 200 else f"a number of {len(str(abs(value))):,} digits"
    return text if len(text) <= 40 else text[:20] + "..."


OPTIONAL_NUMBER = AnyOf((Number(), Null()))
PLAY = Table({"arrangement": Text(200), "values": ListOf(Int(0, VALUE_LIMIT - 1), 3, 3), "foul": Bool(),
              "natural": AnyOf((Table({"kind": Text(40), "key": ListOf(Int(0, 64), 0, 13)}), Null())),
              "fault": Text()}, optional=frozenset({"natural", "fault"}))
RECORD = Table({"deal": Int(), "plays": ListOf(ListOf(PLAY, 1, 4), 1), "hands": ListOf(Text(100), 1, 4),
                "dealer": Int(0, 3)}, optional=frozenset({"hands", "dealer"}))
DECISIONS = Table({"median_ms": Number(), "p95_ms": Number(), "decisions": Int()})
DOCUMENT = Table({
    "schema_version": Int(0, None), "command": Text(), "rules": AnyOf((Text(1000), Table({}))),
    "bots": ListOf(Table({"name": Text(200, empty=False), "spec": Text(1000, empty=False)}), 1),
    "players": Int(2, 4), "sessions": Int(1), "hands_per_session": Int(8, 8), "seed_entropy": Int(0, None),
    "versions": MapOf(AnyOf((Text(200), Null()))),
    "git_commit": AnyOf((Text(100), Null())),
    "machine": Table({"platform": Text(1000), "cpus": AnyOf((Int(1, 1 << 20), Null()))}, frozenset({"cpus"})),
    "timing": Table({"backend": Text(40), "jobs": Int(1, 1 << 20), "wall_seconds": Number(),
                     "deals_per_second": Number(), "hands_per_second": Number(),
                     "hands_played_per_second": Number(), "decisions": MapOf(DECISIONS)}),
    "partial": Table({"deals_played": Int(1), "deals_planned": Int(1)}),
    "records": ListOf(RECORD, 1),
}, optional=frozenset({"hands_per_session", "partial"}))  # fmt: skip


def results_problem(doc: Any) -> str | None:
    """What keeps ``doc`` from being a results.json that ``bench report`` can read, or None."""
    from bench.results import READABLE_SCHEMAS

    if not isinstance(doc, dict):
        return f"it is {_kind(doc)}, not a table of results"
    if doc.get("schema_version") not in READABLE_SCHEMAS:
        versions = " or ".join(str(v) for v in READABLE_SCHEMAS)
        return f"its schema_version is {_brief(doc.get('schema_version'))}, not {versions}"
    problem = DOCUMENT.problem(doc, "results")
    if problem:
        return problem
    return _bots_problem(doc) or _records_problem(doc) or _rules_problem(doc) or _plays_problem(doc)


def _brief(value: Any) -> str:
    return _short(value) if isinstance(value, int) and not isinstance(value, bool) else repr(value)[:40]


def _bots_problem(doc: dict[str, Any]) -> str | None:
    names = [b["name"] for b in doc["bots"]]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        return f"bot name {repeated[0]!r} is given to more than one bot: the tables could not tell them apart"
    missing = [n for n in names if n not in doc["timing"]["decisions"]]
    if missing:
        return f"timing.decisions has no entry for bot {missing[0]!r}"
    n_bots, players = len(names), doc["players"]
    seatings = len(set(permutations([i % n_bots for i in range(players)]))) if n_bots < players else \
        math.perm(n_bots, players)
    if seatings > MAX_SEATINGS:
        return f"{n_bots} bots at {players}-player tables make {seatings:,} seatings, more than {MAX_SEATINGS:,}"
    return None


def _records_problem(doc: dict[str, Any]) -> str | None:
    from bench.tournament import dealer_of

    n_bots, players = len(doc["bots"]), doc["players"]
    planned = doc["sessions"] * doc.get("hands_per_session", 8)
    seen: set[int] = set()
    for i, r in enumerate(doc["records"]):
        deal = r["deal"]
        if deal >= planned:
            return f"records[{i}] is deal {deal:,}, outside the {planned:,} deals of {doc['sessions']:,} sessions"
        if deal in seen:
            return f"deal {deal:,} is recorded more than once"
        seen.add(deal)
        if len(r["plays"]) != n_bots or any(len(row) != players for row in r["plays"]):
            return f"deal {deal} does not hold one play per bot and seat ({n_bots} bots, {players} seats)"
        if "hands" in r and len(r["hands"]) != players:
            return f"deal {deal} does not hold one hand per seat ({players} seats)"
        if "dealer" in r and r["dealer"] != dealer_of(deal, players):
            return f"deal {deal} names dealer {r['dealer']}, not {dealer_of(deal, players)}"
        for row in r["plays"]:
            for p in row:
                a, b, c = p["values"]
                if p["foul"] != (not a <= b <= c):
                    return f"deal {deal} has a play marked {'' if p['foul'] else 'not '}fouled whose rows say otherwise"
    partial = doc.get("partial")
    if partial is not None:
        if partial["deals_planned"] != planned or partial["deals_played"] != len(seen):
            return (f"partial says {partial['deals_played']:,} of {partial['deals_planned']:,} deals, but the "
                    f"records hold {len(seen):,} of {planned:,}")
    elif len(seen) != planned:
        return f"the records hold {len(seen):,} of the {planned:,} deals of its sessions, and it is not marked partial"
    return None


def _rules_problem(doc: dict[str, Any]) -> str | None:
    from solver.naturals import NATURALS
    from solver.rules import Rules, RulesError

    rules = doc["rules"]
    try:
        parsed = Rules.parse(rules) if isinstance(rules, str) else Rules.from_dict(rules)
    except RulesError as error:
        return f"its rules are not rules: {error}"
    except (TypeError, ValueError, KeyError) as error:
        return f"its rules are not rules: {type(error).__name__}: {error}"
    for r in doc["records"]:
        for row in r["plays"]:
            for p in row:
                natural = p.get("natural")
                if natural is None:
                    continue
                if not parsed.naturals:
                    return f"deal {r['deal']} declares a natural, but its rules have none"
                if natural["kind"] not in NATURALS:
                    return f"deal {r['deal']} declares {natural['kind'][:40]!r}, not a natural"
    return None


def _plays_problem(doc: dict[str, Any]) -> str | None:
    """Each play's row values are those of its arrangement, whose cards are the hand dealt to
    its seat; a faulted play carries the values of a foul and says why."""
    from bench.tournament import FAULT_VALUES, deal_table
    from solver import format_cards
    from solver.arrangement import Arrangement
    from solver.cards import parse_cards

    names = [b["name"] for b in doc["bots"]]
    known: dict[str, tuple[frozenset[int], list[int]] | None] = {}
    for r in doc["records"]:
        deal = r["deal"]
        try:
            hands = [frozenset(int(c) for c in parse_cards(h, 13)) for h in r["hands"]] if "hands" in r else None
        except ValueError as error:
            return f"deal {deal} holds a hand that is not 13 cards: {error}"
        if "hands" in r and r["hands"] != [format_cards(h) for h in deal_table(doc["seed_entropy"], deal,
                                                                               doc["players"]).tolist()]:
            return f"deal {deal} holds other hands than seed entropy {doc['seed_entropy']} deals"
        for b, row in enumerate(r["plays"]):
            for seat, p in enumerate(row):
                who = f"deal {deal}, {names[b]!r} in seat {seat}"
                if p["arrangement"] == "fault":
                    if p["values"] != list(FAULT_VALUES) or "fault" not in p:
                        return f"{who}: a faulted play without the values of a foul or its reason"
                    continue
                if p["arrangement"] not in known:
                    try:
                        arrangement = Arrangement.parse(p["arrangement"])
                        known[p["arrangement"]] = (frozenset(int(c) for c in arrangement.cards),
                                                   [int(v) for v in arrangement.values()])
                    except ValueError:
                        known[p["arrangement"]] = None
                seen = known[p["arrangement"]]
                if seen is None:
                    return f"{who}: {p['arrangement'][:60]!r} is not an arrangement of 13 cards"
                cards, values = seen
                if hands is not None and cards != hands[seat]:
                    return f"{who}: the arrangement holds cards that were not dealt to that seat"
                if p["values"] != values:
                    return f"{who}: the row values are not those of the arrangement"
    return None
