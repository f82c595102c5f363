"""The typed record model (bench/records/model.py) and the typed documents (bench/records/documents.py)
mirror the JSON Schemas, which are what every document is checked against when it is read back."""

import json
import sys
import typing
from importlib import resources

import jsonschema
import pytest

from bench import run_deals
from bench.records import documents, generate
from bench.records.model import FAULT, DealRecord, Play, PlayRow, RecordRow, rows_of, rows_to_records
from solver.naturals import Natural

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:
    from typing_extensions import NotRequired


def schema(name: str) -> dict:
    return json.loads(resources.files("bench.records").joinpath(f"schemas/{name}.schema.json").read_text("utf-8"))


def keys(typed: type) -> tuple[set[str], set[str]]:
    """The required and the optional keys of a TypedDict, as mypy reads them (``__required_keys__``
    cannot see ``NotRequired`` in an annotation that is a string)."""
    hints = typing.get_type_hints(typed, include_extras=True)
    optional = {name for name, hint in hints.items() if typing.get_origin(hint) is NotRequired}
    return set(hints) - optional, optional


@pytest.mark.parametrize("document", ["results", "journal"])
def test_play_and_record_rows_have_the_schemas_fields(document):
    """A field the schema adds, drops or makes optional shows here, and so in mypy's view of the code."""
    defs = schema(document)["$defs"]
    for typed, name in ((PlayRow, "play"), (RecordRow, "record")):
        required, optional = keys(typed)
        properties, needed = set(defs[name]["properties"]), set(defs[name]["required"])
        assert required | optional >= properties, (name, properties - required - optional)
        assert needed <= required | ({"seconds"} if name == "play" else set()), (name, needed - required)
        extra = (required | optional) - properties
        assert extra <= {"seconds"}, (name, extra)  # results.json keeps timing apart from its plays


def played(rules: str = "naturals") -> list[DealRecord]:
    return run_deals(["greedy", "heuristic"], 2, entropy=5, n_deals=8, rules=rules)


def test_rows_convert_back_to_the_same_records():
    records = played()
    assert rows_to_records(rows_of(records, seconds=True)) == records
    bare = rows_to_records(rows_of(records, seconds=False))
    assert bare == [record.without_seconds() for record in records]
    assert all(play.seconds == 0.0 for record in bare for row in record.plays for play in row)


def test_rows_are_what_the_schemas_accept():
    records = played()
    results = schema("results")
    journal = schema("journal")
    for row in rows_of(records, seconds=False):
        jsonschema.validate(row, {"$defs": results["$defs"], "$ref": "#/$defs/record"})
    for row in rows_of(records, seconds=True):
        jsonschema.validate(row, {"$defs": journal["$defs"], "$ref": "#/$defs/record"})


def test_a_declared_natural_and_a_fault_survive_the_round_trip():
    natural = Play.made("2C 2D 3C / 3D 4C 4D 5C 5D / 6C 6D 7C 7D AS", (1, 2, 3), foul=False, seconds=0.5,
                        natural=Natural("six pairs", (7, 6, 5, 4, 3, 2, 14)))
    fault = Play.failed("bot 'x' answered [] (not a JSON object)", 0.25)
    record = DealRecord(3, 1, ("2C", "3C"), ((natural, fault),))
    row = record.row(seconds=True)
    assert row["plays"][0][0]["natural"] == {"kind": "six pairs", "key": [7, 6, 5, 4, 3, 2, 14]}
    assert row["plays"][0][1]["arrangement"] is None and row["plays"][0][1]["fault"].startswith("bot 'x'")
    assert DealRecord.of_row(json.loads(json.dumps(row))) == record
    assert fault.arrangement == FAULT and fault.foul and fault.foul_reason == fault.fault
    assert natural.foul_reason is None
    fouled = Play.made("AS AD 3C / 3D 4C 4D 5C 9D / 6C 6D 7C 7D 2D", (1, 2, 3), foul=True, seconds=0.0)
    assert "front" in fouled.foul_reason  # the solver's reason: the front's aces beat the middle's pair


def test_the_typed_documents_are_written_from_the_schemas_as_they_are():
    """``python -m bench.records.generate`` has been run since the last change to a schema."""
    current = resources.files("bench.records").joinpath("documents.py").read_text("utf-8")
    assert current == generate.source(), "a schema changed: run python -m bench.records.generate"


@pytest.mark.parametrize("name", sorted(p.name.removesuffix(".schema.json")
                                        for p in resources.files("bench.records").joinpath("schemas").iterdir()
                                        if p.name.endswith(".schema.json")))
def test_every_document_has_a_typed_shape_with_its_required_fields(name):
    root = schema(name)
    typed = getattr(documents, generate.camel(name) + "Document")
    options = typing.get_args(typed) or (typed,)
    shapes = [root] if "properties" in root else [schema_def for schema_def in
                                                 (root["$defs"][o["$ref"].split("/")[-1]] for o in root["oneOf"])]
    for shape, option in zip(shapes, options):
        required, optional = keys(option)
        assert required == set(shape.get("required", ())), name
        assert required | optional == set(shape["properties"]), name
