"""The run documents (a tournament's results.json and journal, ``bench match --json``; the
exploit document is checked in tests/test_exploit.py) hold the shape their published JSON
Schemas describe, and each schema refuses the plausible wrong documents: a field under its
old name, a count given as a list, a foul given as text."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from bench.cli import main as bench_main
from bench.run.journal import JOURNAL
from tests.helpers import put_at as _put

ROOT = Path(__file__).resolve().parents[1]
RUN_DOCUMENTS = ("results", "match", "journal", "exploit", "verify")


def _schema(document: str) -> dict:
    return json.loads((ROOT / "bench" / "records" / "schemas" / f"{document}.schema.json").read_text())


def _errors(document: str, value, part: str | None = None) -> list[str]:
    """Every complaint of the published schema (a plain draft 2020-12 validator, as a reader
    outside this package would use it) about ``value``."""
    schema = _schema(document)
    if part is not None:
        schema = {"$ref": f"#/$defs/{part}", "$defs": schema["$defs"]}
    return [error.message for error in jsonschema.Draft202012Validator(schema).iter_errors(value)]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A real small tournament: two bots, two sessions, a seed, its folder."""
    out = tmp_path_factory.mktemp("run") / "out"
    assert bench_main(["tournament", "--bots", "greedy,random", "--sessions", "2", "--seed", "5", "--jobs", "1",
                       "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def results(run) -> dict:
    return json.loads((run / "results.json").read_text())


@pytest.fixture(scope="module")
def journal_lines(run) -> list[dict]:
    return [json.loads(line) for line in (run / JOURNAL).read_text().splitlines()]


@pytest.fixture(scope="module")
def fouling_run(tmp_path_factory) -> Path:
    """A real run where one bot (a protocol bot that sorts its hand) fouls about a third of its hands."""
    out = tmp_path_factory.mktemp("fouling") / "out"
    bot = str(ROOT / "examples" / "bots" / "sorted_bot.toml")
    assert bench_main(["tournament", "--bots", f"{bot},random", "--sessions", "1", "--seed", "4", "--jobs", "1",
                       "--out", str(out)]) == 0
    return out


def _fouled(records: list[dict]) -> list[dict]:
    return [p for r in records for row in r["plays"] for p in row if p["foul"]]


@pytest.fixture(scope="module")
def match() -> dict:
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert bench_main(["match", "greedy", "random", "--max-deals", "32", "--seed", "2", "--jobs", "1",
                           "--json"]) == 0
    return json.loads(printed.getvalue())


@pytest.mark.parametrize("document", RUN_DOCUMENTS)
def test_each_schema_is_a_draft_2020_12_schema_and_its_docs_copy_is_identical(document):
    path = ROOT / "bench" / "records" / "schemas" / f"{document}.schema.json"
    jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
    assert (ROOT / "docs" / "schemas" / path.name).read_bytes() == path.read_bytes()


@pytest.mark.slow
def test_a_tournaments_results_json_validates(results):
    assert _errors("results", results) == []
    assert results["schema_version"] == 3 and results["document"] == "results"
    assert results["player_count"] == 2 and results["session_count"] == 2 and results["seed"] == 5
    assert results["results"]["deal_count"] == 16 == len(results["records"])
    play = results["records"][0]["plays"][0][0]
    assert set(play["arrangement"]) == {"front", "middle", "back"} and isinstance(play["foul"], bool)


def test_a_tournaments_journal_lines_validate(journal_lines):
    header, *entries = journal_lines
    assert entries and _errors("journal", header) == [] and _errors("journal", header, "header") == []
    assert all(_errors("journal", entry, "entry") == [] for entry in entries)
    assert header["document"] == "journal-header" and header["settings"]["player_count"] == 2
    assert {entry["document"] for entry in entries} == {"journal-entry"}
    assert {line["schema_version"] for line in journal_lines} == {3}


def test_bench_match_json_validates(match):
    assert _errors("match", match) == []
    assert match["document"] == "match" and match["schema_version"] == 2 and match["seed"] == 2
    assert 0 < match["deal_count"] <= 32 and match["decision"] in ("H0", "H1", "alike", "none")


@pytest.mark.slow
def test_a_fouling_runs_plays_say_why_they_foul_and_validate(fouling_run):
    results = json.loads((fouling_run / "results.json").read_text())
    header, *entries = [json.loads(line) for line in (fouling_run / JOURNAL).read_text().splitlines()]
    assert _errors("results", results) == [] and all(_errors("journal", e, "entry") == [] for e in entries)
    journal_records = [r for e in entries for r in e["records"]]
    for records in (results["records"], journal_records):
        plays = [p for r in records for row in r["plays"] for p in row]
        fouled = _fouled(records)
        assert fouled and all(" beats " in p["foul_reason"] for p in fouled)
        assert all(p["foul_reason"] is None for p in plays if not p["foul"])
    seconds = [p["seconds"] for r in journal_records for row in r["plays"] for p in row]
    assert all(s == round(s, 6) for s in seconds)


def _first_fouled_play(records: list[dict]) -> tuple[int, int, int]:
    return next((i, b, s) for i, r in enumerate(records) for b, row in enumerate(r["plays"])
                for s, p in enumerate(row) if p["foul"])


@pytest.mark.parametrize("change", [
    {"foul": False},  # a reason kept on a play said not to foul
    {"foul_reason": None},
    {"foul_reason": 3},
], ids=["foul flipped", "no reason", "a number for a reason"])  # fmt: skip
def test_the_schemas_refuse_a_fouled_play_without_its_reason(fouling_run, change):
    results = json.loads((fouling_run / "results.json").read_text())
    i, b, s = _first_fouled_play(results["records"])
    results["records"][i]["plays"][b][s] |= change
    assert _errors("results", results)
    entry = next(json.loads(line) for line in (fouling_run / JOURNAL).read_text().splitlines()[1:]
                 if _fouled(json.loads(line)["records"]))
    i, b, s = _first_fouled_play(entry["records"])
    entry["records"][i]["plays"][b][s] |= change
    assert _errors("journal", entry, "entry")


def test_the_schemas_refuse_a_play_without_foul_reason(results, journal_lines):
    results = copy.deepcopy(results)
    del results["records"][0]["plays"][0][0]["foul_reason"]
    assert _errors("results", results)
    entry = copy.deepcopy(journal_lines[1])
    del entry["records"][0]["plays"][0][0]["foul_reason"]
    assert _errors("journal", entry, "entry")


def _rename(path: str, new: str):
    def change(doc):
        *head, last = path.split(".")
        target = doc
        for key in head:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[new] = target.pop(last)
        return doc

    return change




WRONG_RESULTS = [
    ("players", _rename("player_count", "players")),
    ("seed_entropy", _rename("seed", "seed_entropy")),
    ("deals in the results", _rename("results.deal_count", "deals")),
    ("jobs", _rename("timing.job_count", "jobs")),
    ("a count as a list", _put("session_count", [0, 1])),
    ("deal count as a list", _put("results.deal_count", [0, 1])),
    ("foul as text", _put("records.0.plays.0.0.foul", "false")),
    ("arrangement as one line", _put("records.0.plays.0.0.arrangement", "2C 3C 4C / 5C 6C 7C 8C 9C / TC JC QC KC AC")),
    ("an older version", _put("schema_version", 2)),
    ("another document", _put("document", "match")),
]


@pytest.mark.parametrize("change", [c[1] for c in WRONG_RESULTS], ids=[c[0] for c in WRONG_RESULTS])
def test_the_results_schema_rejects_wrong_documents(results, change):
    assert _errors("results", change(copy.deepcopy(results)))


WRONG_JOURNAL = [
    ("players", 0, _rename("settings.player_count", "players")),
    ("kind and version", 0, lambda line: {"kind": "chinese-poker-journal", "version": 2} | line),
    ("a count as a list", 0, _put("settings.session_count", [1, 2])),
    ("foul as text", 1, _put("records.0.plays.0.0.foul", "no")),
    ("arrangement as one line", 1, _put("records.0.plays.0.0.arrangement", "2C 3C 4C / 5C 6C 7C 8C 9C / TC JC QC KC AC")),
    ("an entry without its document", 1, lambda line: {k: v for k, v in line.items() if k != "document"}),
]


@pytest.mark.parametrize("line, change", [c[1:] for c in WRONG_JOURNAL], ids=[c[0] for c in WRONG_JOURNAL])
def test_the_journal_schema_rejects_wrong_lines(journal_lines, line, change):
    assert _errors("journal", change(copy.deepcopy(journal_lines[line])))


WRONG_MATCH = [
    ("deals", _rename("deal_count", "deals")),
    ("a count as a list", _put("deal_count", [1, 2])),
    ("the seed as text", _put("seed", "2")),
    ("a decision that is no hypothesis", _put("decision", "H2")),
    ("no schema_version", lambda doc: {k: v for k, v in doc.items() if k != "schema_version"}),
]


@pytest.mark.parametrize("change", [c[1] for c in WRONG_MATCH], ids=[c[0] for c in WRONG_MATCH])
def test_the_match_schema_rejects_wrong_documents(match, change):
    assert _errors("match", change(copy.deepcopy(match)))


def test_bench_report_reads_with_the_same_schema(results, tmp_path, capsys):
    """The reader refuses, in one line naming the field, what the schema refuses."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_put("records.0.plays.0.0.foul", "false")(copy.deepcopy(results))))
    assert bench_main(["report", str(path), "--out", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "results.records[0].plays[0][0].foul is text, not true or false" in err
