"""The checks ``bench report`` makes of a results.json before it trusts it.

The shape of the document (every field's type and range) is the JSON Schema
``bench/schemas/results.schema.json`` (docs/schemas/ holds a copy), checked with
``jsonschema``; :func:`results_problem` names the first field that fails it, in one line,
and then checks the document against itself (unique bot names, one deal number per deal and
inside the run's sessions, foul flags that agree with the row values, deal counts that add
up, the hands its seed deals), and returns the first thing wrong, or None. Everything the
report prints is computed from what passes.

>>> results_problem({"schema_version": 3, "document": "results"})
"results has no 'command'"
>>> results_problem({"schema_version": 2})
'its schema_version is 2: it was written by an older version of bench, which reads it; this one reads version 3'
"""

from __future__ import annotations

import functools
import json
import math
from itertools import permutations
from typing import Any

MAX_SEATINGS = 100_000  # seatings a deal is replayed in (bots and players): beyond, no tournament made it


@functools.cache
def schema(document: str) -> dict[str, Any]:
    """The JSON Schema of a run document (``results``, ``match``, ``journal``), as shipped in the package."""
    from importlib import resources

    text = resources.files("bench").joinpath(f"schemas/{document}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@functools.cache
def validator(document: str, part: str | None = None):
    """A draft 2020-12 validator of a run document (or of one ``$defs`` part of it), where a whole
    number is an int and never a bool or a float such as 1.0."""
    import jsonschema

    whole = schema(document)
    strict = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool))
    kind = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=strict)
    return kind(whole if part is None else {"$ref": f"#/$defs/{part}", "$defs": whole["$defs"]})


def _kind(value: Any) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text", list: "a list",
            dict: "a table", type(None): "null"}.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value) if value.bit_length() < 200 else f"a number of {len(str(abs(value))):,} digits"
        return text if len(text) <= 40 else text[:20] + "..."
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)[:40]


_TYPES = {"integer": "a whole number", "number": "a number", "string": "text", "boolean": "true or false",
          "array": "a list", "object": "a table", "null": "null"}


def _limit(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else f"{value:g}"


def _below(value: Any, rule: Any) -> str:
    return f"is {_short(value)}, below {_limit(rule)}"


def _above(value: Any, rule: Any) -> str:
    return f"is {_short(value)}, above {_limit(rule)}"


_COMPLAINTS = {  # a schema keyword: what is wrong with the value that breaks it (value, the keyword's value)
    "minimum": _below, "exclusiveMinimum": _below, "maximum": _above, "exclusiveMaximum": _above,
    "minItems": lambda value, rule: f"has {len(value):,} items, fewer than {rule:,}",
    "maxItems": lambda value, rule: f"has {len(value):,} items, more than {rule:,}",
    "minLength": lambda value, rule: "is empty",
    "maxLength": lambda value, rule: f"is {len(value):,} characters long, above {rule:,}",
    "pattern": lambda value, rule: f"is {_short(value)}, not cards as text such as 'AS KD 9C'",
    "const": lambda value, rule: f"is {_short(value)}, not {rule!r}",
    "enum": lambda value, rule: f"is {_short(value)}, not one of {', '.join(repr(v) for v in rule)}",
}


def _what(error) -> str:
    """What is wrong, in the words of the old hand-written checks: ``is text, not a number``."""
    value, rule, kind = error.instance, error.validator_value, error.validator
    if kind == "type":
        wanted = [rule] if isinstance(rule, str) else list(rule)
        return f"is {_kind(value)}, not {' or '.join(_TYPES.get(t, t) for t in wanted)}"
    if kind == "required":
        missing = next((k for k in rule if k not in value), rule[0])
        return f"has no {missing!r}"
    if kind == "additionalProperties":
        extra = sorted(k for k in value if k not in error.schema.get("properties", {}))
        return f"has a field {extra[0]!r} that no results.json has" if extra else error.message[:160]
    if kind in _COMPLAINTS:
        return _COMPLAINTS[kind](value, rule)
    if kind == "oneOf" and error.context:
        return _what(_branch(error))
    return error.message[:160]


def _branch(error):
    """Of a value that fits no branch of a ``oneOf``: the complaint of the branch it got furthest
    in, or one naming every type it could have been."""
    deepest = max(error.context, key=lambda e: len(e.absolute_path))
    if all(e.validator == "type" and e.absolute_path == error.absolute_path for e in error.context):
        types = [t for e in error.context for t in ([e.validator_value] if isinstance(e.validator_value, str)
                                                      else e.validator_value)]
        deepest.validator_value = types
    return deepest


def where(root: str, path) -> str:
    """A field's place: ``records[0].plays[1][2].values``."""
    return root + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def first_problem(value: Any, document: str, root: str, part: str | None = None) -> str | None:
    """The first field (in document order) of ``value`` that fails the schema of ``document``,
    with what is wrong with it, or None."""
    errors = validator(document, part).iter_errors(value)
    error = min(errors, key=lambda e: [str(p) for p in e.absolute_path], default=None)
    if error is None:
        return None
    if error.validator == "oneOf" and error.context:
        error = _branch(error)
    return f"{where(root, error.absolute_path)} {_what(error)}"


def results_problem(doc: Any) -> str | None:
    """What keeps ``doc`` from being a results.json that ``bench report`` can read, or None."""
    from bench.results import DOCUMENT, SCHEMA_VERSION

    if not isinstance(doc, dict):
        return f"it is {_kind(doc)}, not a table of results"
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        older = isinstance(version, int) and not isinstance(version, bool) and 0 < version < SCHEMA_VERSION
        said = "it was written by an older version of bench, which reads it" if older else \
            "this version of bench cannot read it"
        return f"its schema_version is {_short(version)}: {said}; this one reads version {SCHEMA_VERSION}"
    if doc.get("document", DOCUMENT) != DOCUMENT:
        return f"it is a {_short(doc['document'])} document, not {DOCUMENT}"
    problem = first_problem(doc, "results", "results")
    if problem:
        return problem
    for number in _numbers(doc):
        if not math.isfinite(number):
            return f"it holds {number}, not a finite number"
    return _bots_problem(doc) or _records_problem(doc) or _rules_problem(doc) or _plays_problem(doc)


def _numbers(value: Any):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)


def _bots_problem(doc: dict[str, Any]) -> str | None:
    names = [b["name"] for b in doc["bots"]]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        return f"bot name {repeated[0]!r} is given to more than one bot: the tables could not tell them apart"
    missing = [n for n in names if n not in doc["timing"]["decision_time_by_bot"]]
    if missing:
        return f"timing.decision_time_by_bot has no entry for bot {missing[0]!r}"
    n_bots, players = len(names), doc["player_count"]
    seatings = len(set(permutations([i % n_bots for i in range(players)]))) if n_bots < players else \
        math.perm(n_bots, players)
    if seatings > MAX_SEATINGS:
        return f"{n_bots} bots at {players}-player tables make {seatings:,} seatings, more than {MAX_SEATINGS:,}"
    return None


def _records_problem(doc: dict[str, Any]) -> str | None:
    from bench.tournament import dealer_of

    n_bots, players = len(doc["bots"]), doc["player_count"]
    planned = doc["session_count"] * doc["hands_per_session"]
    seen: set[int] = set()
    for i, r in enumerate(doc["records"]):
        deal = r["deal"]
        if deal >= planned:
            return f"records[{i}] is deal {deal:,}, outside the {planned:,} deals of {doc['session_count']:,} sessions"
        if deal in seen:
            return f"deal {deal:,} is recorded more than once"
        seen.add(deal)
        if len(r["plays"]) != n_bots or any(len(row) != players for row in r["plays"]):
            return f"deal {deal} does not hold one play per bot and seat ({n_bots} bots, {players} seats)"
        if len(r["hands"]) != players:
            return f"deal {deal} does not hold one hand per seat ({players} seats)"
        if r["dealer"] != dealer_of(deal, players):
            return f"deal {deal} names dealer {r['dealer']}, not {dealer_of(deal, players)}"
        for row in r["plays"]:
            for p in row:
                a, b, c = p["values"]
                if p["foul"] != (not a <= b <= c):
                    return f"deal {deal} has a play marked {'' if p['foul'] else 'not '}fouled whose rows say otherwise"
    return _count_problem(doc, planned, len(seen))


def _count_problem(doc: dict[str, Any], planned: int, played: int) -> str | None:
    partial = doc.get("partial")
    if partial is not None:
        if partial["planned_deal_count"] != planned or partial["played_deal_count"] != played:
            return (f"partial says {partial['played_deal_count']:,} of {partial['planned_deal_count']:,} deals, "
                    f"but the records hold {played:,} of {planned:,}")
    elif played != planned:
        return f"the records hold {played:,} of the {planned:,} deals of its sessions, and it is not marked partial"
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


def _dealt(doc: dict[str, Any], r: dict[str, Any]) -> tuple[list[frozenset[int]] | None, str | None]:
    """The cards of each seat's hand of a record, or what is wrong with its hands."""
    from bench.tournament import deal_table
    from solver import format_cards
    from solver.cards import parse_cards

    try:
        hands = [frozenset(int(c) for c in parse_cards(h, 13)) for h in r["hands"]]
    except ValueError as error:
        return None, f"deal {r['deal']} holds a hand that is not 13 cards: {error}"
    if r["hands"] != [format_cards(h) for h in deal_table(doc["seed"], r["deal"], doc["player_count"]).tolist()]:
        return None, f"deal {r['deal']} holds other hands than seed {doc['seed']} deals"
    return hands, None


def _plays_problem(doc: dict[str, Any]) -> str | None:
    """Each play's row values and foul reason are those of its arrangement, whose cards are the
    hand dealt to its seat; a faulted play carries the values of a foul and says why."""
    from bench.results import arrangement_text
    from bench.tournament import FAULT_VALUES
    from solver.arrangement import Arrangement, foul_reason

    names = [b["name"] for b in doc["bots"]]
    known: dict[str, tuple[frozenset[int], list[int], str | None] | None] = {}
    for r in doc["records"]:
        hands, problem = _dealt(doc, r)
        if problem:
            return problem
        for b, row in enumerate(r["plays"]):
            for seat, p in enumerate(row):
                who = f"deal {r['deal']}, {names[b]!r} in seat {seat}"
                if p["arrangement"] is None or "fault" in p:
                    if p["arrangement"] is not None or p["values"] != list(FAULT_VALUES) or "fault" not in p:
                        return f"{who}: a faulted play without the values of a foul or its reason"
                    if p["foul_reason"] != p["fault"]:
                        return f"{who}: a faulted play whose foul_reason is not its fault's text"
                    continue
                text = arrangement_text(p["arrangement"])
                if text not in known:
                    try:
                        arrangement = Arrangement.parse(text)
                        known[text] = (frozenset(int(c) for c in arrangement.cards),
                                       [int(v) for v in arrangement.values()], foul_reason(arrangement))
                    except ValueError:
                        known[text] = None
                seen = known[text]
                if seen is None:
                    return f"{who}: {text[:60]!r} is not an arrangement of 13 cards"
                if hands is not None and seen[0] != hands[seat]:
                    return f"{who}: the arrangement holds cards that were not dealt to that seat"
                if p["values"] != seen[1]:
                    return f"{who}: the row values are not those of the arrangement"
                if p["foul_reason"] != seen[2]:
                    said = "no foul_reason" if p["foul_reason"] is None else f"foul_reason {p['foul_reason'][:60]!r}"
                    return f"{who}: the play gives {said}, but its rows say {seen[2] or 'it does not foul'}"
    return None
