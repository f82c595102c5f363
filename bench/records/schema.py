"""The checks ``bench report`` makes of a results.json before it trusts it.

The shape of the document (every field's type and range) is the JSON Schema
``bench/records/schemas/results.schema.json`` (docs/schemas/ holds a copy), checked with
``jsonschema``; ``results_problem`` names the first field that fails it, in one line,
and then checks the document against itself (unique bot names, one deal number per deal and
inside the run's sessions, foul flags that agree with the row values, deal counts that add
up, and every record by the checks a resumed run makes of its journal, ``bench.records.check``),
and returns the first thing wrong, or None. Everything the report prints is computed from
what passes.

>>> results_problem({"schema_version": 3, "document": "results"})
"results has no 'command'"
>>> results_problem({"schema_version": 2})
'its schema_version is 2: it was written by an older version of bench, which reads it; this one reads version 3'
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np

from bench.records.check import Run, records_problem, size_problem
from bench.records.model import rows_to_records
from solver.rules import Rules, RulesError

if TYPE_CHECKING:  # jsonschema loads when a document is checked (validator)
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

SCHEMA_VERSION: Final = 3  # of results.json; 3: document, counts named as counts, seed, arrangements as rows, maps named by key
DOCUMENT: Final = "results"


@functools.cache
def schema(document: str) -> dict[str, Any]:
    """The JSON Schema of a run document (``results``, ``match``, ``journal``), as shipped in the package."""
    text = resources.files("bench.records").joinpath(f"schemas/{document}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@functools.cache
def validator(document: str, part: str | None = None) -> Validator:
    """A draft 2020-12 validator of a run document (or of one ``$defs`` part of it), where a whole
    number is an int and never a bool or a float such as 1.0."""
    import jsonschema  # noqa: PLC0415  (heavy: a seventh of the commands' start-up, needed only to check a document)

    whole = schema(document)
    strict = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool))
    kind = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=strict)
    return kind(whole if part is None else {"$ref": f"#/$defs/{part}", "$defs": whole["$defs"]})


def rules_of(doc: Mapping[str, object]) -> Rules:
    """The rules a results document names (by name, or in full)."""
    rules = doc.get("rules", "basic")
    return Rules.parse(rules) if isinstance(rules, str) else Rules.from_dict(cast(dict[str, Any], rules))


def _kind(value: Any) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text", list: "a list",
            dict: "a table", type(None): "null"}.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value) if value.bit_length() < 200 else f"a number of {len(str(abs(value))):,} digits"
        return text if len(text) <= 40 else text[:20] + "..."
    if isinstance(value, float):
        return f"{value:g}"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


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


def _what(error: ValidationError) -> str:
    """What is wrong, in the words of the old hand-written checks: ``is text, not a number``."""
    # the stubs leave a field a validator did not set as Unset; a failing validator sets them all
    value, rule, kind = cast(Any, error.instance), cast(Any, error.validator_value), error.validator
    schema_part = cast(Any, error.schema)
    if kind == "type":
        wanted = [rule] if isinstance(rule, str) else list(rule)
        return f"is {_kind(value)}, not {' or '.join(_TYPES.get(t, t) for t in wanted)}"
    if kind == "required":
        missing = next(k for k in rule if k not in value)  # "required" fails only when one is missing
        return f"has no {missing!r}"
    if kind == "additionalProperties":
        extra = sorted(k for k in value if k not in schema_part.get("properties", {}))
        return f"has a field {extra[0]!r} that no results.json has" if extra else error.message[:160]
    if kind in _COMPLAINTS:
        return _COMPLAINTS[kind](value, rule)
    return error.message[:160]  # a keyword the shipped schemas do not use


def _branch(error: ValidationError) -> ValidationError:
    """Of a value that fits no branch of a ``oneOf``: the complaint of the branch it got furthest
    in (of the branches as deep, one of its own type), or one naming every type it could have been."""
    deepest = max(error.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
    if all(e.validator == "type" and e.absolute_path == error.absolute_path for e in error.context):
        types = [t for e in error.context for t in ([e.validator_value] if isinstance(e.validator_value, str)
                                                      else cast(Any, e.validator_value))]
        deepest.validator_value = types
    return deepest


def where(root: str, path: Iterable[str | int]) -> str:
    """A field's place: ``records[0].plays[1][2].values``."""
    return root + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def first_problem(value: Any, document: str, root: str, part: str | None = None) -> str | None:
    """The first field (in document order) of ``value`` that fails the schema of ``document``,
    with what is wrong with it, or None."""
    errors = validator(document, part).iter_errors(value)
    error = min(errors, key=lambda e: [str(p) for p in e.absolute_path], default=None)
    if error is None:
        return None
    if error.context:  # a value that fits no branch of a oneOf (no other keyword of the schemas has branches)
        error = _branch(error)
    return f"{where(root, error.absolute_path)} {_what(error)}"


def results_problem(doc: Any) -> str | None:
    """What keeps ``doc`` from being a results.json that ``bench report`` can read, or None.
    Cheap checks first: its version, then its counts against the limits (``solver.limits``),
    before the schema or any record is looked at."""
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
    problem = _size_problem(doc) or first_problem(doc, "results", "results")
    if problem:
        return problem
    for number in _numbers(doc):
        if not math.isfinite(number):
            return f"it holds {number}, not a finite number"
    return _bots_problem(doc) or _rules_problem(doc) or _records_problem(doc) or _timing_problem(doc)


def _size_problem(doc: dict[str, Any]) -> str | None:
    """The run's size (bots, seats, sessions, seatings, records) against the limits, read from
    the counts alone; a count that is not a whole number is left to the schema."""
    bots, players, sessions, records = (doc.get(k) for k in ("bots", "player_count", "session_count", "records"))
    if not (isinstance(bots, list) and isinstance(players, int) and isinstance(sessions, int)) or \
            isinstance(players, bool) or isinstance(sessions, bool):
        return None
    found = size_problem(len(bots), players, sessions)
    if found:
        return f"its run is too large: {found}"
    if isinstance(records, list) and len(records) > sessions * 8:
        return f"it holds {len(records):,} records, more than the {sessions * 8:,} deals of {sessions:,} sessions"
    return None


def _numbers(value: Any) -> Iterator[float]:
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)


def _bots_problem(doc: dict[str, Any]) -> str | None:
    seen: set[str] = set()
    for bot in doc["bots"]:
        if bot["name"] in seen:
            return f"bot name {bot['name']!r} is given to more than one bot: the tables could not tell them apart"
        seen.add(bot["name"])
    missing = [n for n in (b["name"] for b in doc["bots"]) if n not in doc["timing"]["decision_time_by_bot"]]
    if missing:
        return f"timing.decision_time_by_bot has no entry for bot {missing[0]!r}"
    return None


def _timing_problem(doc: dict[str, Any]) -> str | None:
    """The timing section against the records, as ``bench tournament`` writes it: one decision
    time a play (``timing.seconds`` by deal, bot and seat), each bot's decision count the plays
    it made, its median and 95th percentile those of its own decision times, and no more deals
    timed than recorded. The times themselves are what the run measured: nothing can prove
    them again (docs/security.md)."""
    timing, records = doc["timing"], doc["records"]
    names = [b["name"] for b in doc["bots"]]
    shape = [[len(row) for row in record["plays"]] for record in records]
    seconds = timing["seconds"]
    if [[len(row) for row in deal] for deal in seconds] != shape:
        return (f"timing.seconds holds {len(seconds):,} deals of decision times that are not one a play of the "
                f"{len(records):,} records (by deal, bot and seat); it is not the timing bench tournament wrote")
    if timing["timed_deal_count"] > len(records):
        return f"timing.timed_deal_count is {timing['timed_deal_count']:,}, more than the {len(records):,} records"
    extra = sorted(set(timing["decision_time_by_bot"]) - set(names))
    if extra:
        return f"timing.decision_time_by_bot names {extra[0][:40]!r}, which is not one of its bots"
    for b, name in enumerate(names):
        times = np.array([t for deal in seconds for t in deal[b]], float) * 1e3
        given = timing["decision_time_by_bot"][name]
        if given["decision_count"] != times.size:
            return (f"timing.decision_time_by_bot[{name[:40]!r}].decision_count is {given['decision_count']:,}, "
                    f"but the records hold {times.size:,} of its plays")
        if times.size and not np.allclose([given["median_ms"], given["p95_ms"]],
                                          [np.median(times), np.percentile(times, 95)], rtol=1e-6, atol=1e-3):
            return (f"timing.decision_time_by_bot[{name[:40]!r}] gives a median or 95th percentile that its "
                    f"decision times in timing.seconds do not")
    return None


def _rules_problem(doc: dict[str, Any]) -> str | None:
    rules = doc["rules"]
    try:
        Rules.parse(rules) if isinstance(rules, str) else Rules.from_dict(rules)
    except RulesError as error:  # the only error it raises, for any JSON (tests/test_rules.py)
        return f"its rules are not rules: {error}"
    return None


def _records_problem(doc: dict[str, Any]) -> str | None:
    """The records, by the checks a resumed run makes of its journal (``bench.records.check``), then
    whether they are all the run's deals or it says it is partial."""
    run = Run(tuple(b["name"] for b in doc["bots"]), doc["player_count"], doc["session_count"], doc["seed"],
              rules_of(doc), doc.get("on_fault"))
    found = records_problem(rows_to_records(doc["records"]), run)
    return found or _count_problem(doc, run.deals, len(doc["records"]))


def _count_problem(doc: dict[str, Any], planned: int, played: int) -> str | None:
    partial = doc.get("partial")
    if partial is not None:
        if partial["planned_deal_count"] != planned or partial["played_deal_count"] != played:
            return (f"partial says {partial['played_deal_count']:,} of {partial['planned_deal_count']:,} deals, "
                    f"but the records hold {played:,} of {planned:,}")
    elif played != planned:
        return f"the records hold {played:,} of the {planned:,} deals of its sessions, and it is not marked partial"
    return None
