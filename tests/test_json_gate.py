"""JSON from outside passes one reader (``solver.documents.strict_json``): a number that is
not finite (``NaN``, ``1e999``), a name given twice in one object, or arrays nested 100,000
deep is refused in one line naming what was read, wherever the JSON comes from: a
results.json for ``bench report``, a journal line on ``--resume``, a house rules file, a
protocol bot's answer, a benchmarks JSON for ``bench perf --from-json``.

The sites that read files run the command as a user does, in a child process."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from bench.cli import main as bench_main
from bench.run.journal import JOURNAL
from bots.base import checked_arrangement
from solver.config import JSON_DEPTH
from solver.documents import JSONRefused, strict_json
from solver.errors import BotFault, InputError
from tests.helpers import ROOT, bench
from tests.test_protocol_faults import ACE, PLAIN, RNG, make  # noqa: F401  (make is a fixture)

RUN = ["tournament", "--bots", "greedy,greedy", "--sessions", "1", "--seed", "5", "--jobs", "1"]
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
DEEP = 100_000

POISONS = {  # what goes in front of an object's first member, and what the one line says of it
    "nan": ('"poison": NaN, ', "'NaN' is not a finite number"),
    "overflow": ('"poison": 1e999, ', "'1e999' is too large for a float"),
    "twice": ('"poison": 1, "poison": 2, ', "the name 'poison' is given twice in one object"),
    "deep": ('"poison": ' + "[" * DEEP + "]" * DEEP + ", ", f"arrays and objects are nested deeper than {JSON_DEPTH}"),
}


def _poisoned(text: str, poison: str) -> str:
    """``text`` (a JSON object) with ``poison`` as its first member."""
    start = text.index("{") + 1
    return text[:start] + POISONS[poison][0] + text[start:]


def _one_line(done, what: str) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and f"{what} is not JSON this program reads: " in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """The folder of a finished run of RUN (copy what you change)."""
    out = tmp_path_factory.mktemp("json") / "run"
    assert bench_main([*RUN, "--out", str(out)]) == 0
    return out


# --- each site that reads JSON from outside ----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("poison", POISONS)
def test_a_results_json_for_bench_report(finished, tmp_path, poison):
    path = tmp_path / "results.json"
    path.write_text(_poisoned((finished / "results.json").read_text(), poison))
    line = _one_line(bench("report", str(path), "--out", str(tmp_path / "report")), str(path))
    assert POISONS[poison][1] in line
    assert not (tmp_path / "report" / "report.md").exists()


@pytest.mark.slow
@pytest.mark.parametrize("poison", POISONS)
def test_a_journal_line_on_resume(finished, tmp_path, poison):
    out = tmp_path / "run"
    out.mkdir()
    lines = (finished / JOURNAL).read_text().splitlines(keepends=True)
    assert len(lines) >= 3  # the line poisoned is not the last, which a crash may have cut short
    lines[1] = _poisoned(lines[1], poison)
    (out / JOURNAL).write_text("".join(lines))
    line = _one_line(bench("tournament", "--resume", str(out)), f"{out / JOURNAL} line 2")
    assert POISONS[poison][1] in line and "it is not a journal this program can continue" in line


@pytest.mark.slow
@pytest.mark.parametrize("poison", POISONS)
def test_a_house_rules_file(tmp_path, poison):
    path = tmp_path / "house.json"
    path.write_text(_poisoned('{"name": "house", "scoring": "2-4"}', poison))
    line = _one_line(bench("arrange", "--bot", "greedy", "--rules", str(path), HAND), f"rules file {str(path)!r}")
    assert POISONS[poison][1] in line


@pytest.mark.slow
@pytest.mark.parametrize("poison", POISONS)
def test_a_benchmarks_json_for_bench_perf(tmp_path, poison):
    path = tmp_path / "benchmarks.json"
    path.write_text(_poisoned('{"seed": 1, "benchmarks": [{"name": "test_eval5_one_core", "stats": {"median": 0.001}}]}',
                              poison))
    line = _one_line(bench("perf", "--from-json", str(path), "--out", str(tmp_path / "out")), str(path))
    assert POISONS[poison][1] in line
    assert not (tmp_path / "out" / "perf.md").exists()


@pytest.mark.parametrize("mode, reason", [
    ("json-nan", POISONS["nan"][1]),
    ("json-overflow", POISONS["overflow"][1]),
    ("json-twice", "the name 'front' is given twice in one object"),
    ("json-deep", POISONS["deep"][1]),
    ("json-nested", POISONS["deep"][1]),
])  # fmt: skip
def test_a_protocol_bot_answer_is_a_bad_answer(make, mode, reason):  # noqa: F811
    """Each answer holds a right arrangement (the name given twice is the front, the right
    one last): a parser less strict would take it. It is one bad answer; the next is played."""
    bot = make(mode, decision_timeout=30)
    with pytest.raises(BotFault, match="answered hand AS KS .* with a line that is not JSON: ") as caught:
        checked_arrangement(bot, ACE, RNG)
    message = str(caught.value)
    assert "\n" not in message and reason in message, message
    assert sorted(checked_arrangement(bot, PLAIN, RNG).cards) == sorted(PLAIN)
    assert bot.faults == {"bad answer": 1} and bot.restarts == 0


# --- the reader itself -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["NaN", "-Infinity", "[1, Infinity]", "1e999", "-1e400", '{"a": 1, "a": 1}',
                                  '{"a": {"b": 1, "b": 2}}', "[" * 65 + "]" * 65, "[" * DEEP + "]" * DEEP,
                                  "1" * 4301, '{"a": 1', "", "\ufeff{}"])
def test_strict_json_refuses_in_one_line_naming_what_was_read(text):
    with pytest.raises(JSONRefused) as caught:
        strict_json(text, "the thing")
    assert isinstance(caught.value, InputError) and isinstance(caught.value, ValueError)
    assert str(caught.value).startswith("the thing is not JSON this program reads: ") and "\n" not in str(caught.value)
    assert len(str(caught.value)) < 300
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is JSONRefused and str(again) == str(caught.value) and again.reason == caught.value.reason


def test_strict_json_reads_what_is_json():
    text = '{"a": [1, -2.5e3, null, true, "NaN"], "b": {"a": 1}, "big": ' + "9" * 4300 + "}"
    value = strict_json(text.encode("utf-8"), "x")
    assert value["a"] == [1, -2500.0, None, True, "NaN"] and value["b"] == {"a": 1} and value["big"] == 10**4300 - 1
    assert strict_json("[" * JSON_DEPTH + "]" * JSON_DEPTH, "x") is not None


def test_bytes_that_are_not_utf8_are_one_line():
    with pytest.raises(JSONRefused, match=r"^x is not JSON this program reads: it is not UTF-8 text \(byte 1\)$"):
        strict_json(b'"\xff"', "x")


def test_a_refusal_quotes_outside_text_in_short():
    with pytest.raises(JSONRefused) as caught:
        strict_json('{"' + "\\u001b[2J" * 1000 + '": 1, "' + "\\u001b[2J" * 1000 + '": 2}', "x")
    assert "\x1b" not in str(caught.value) and "(4,000 characters)" in str(caught.value)


# --- every parse of outside JSON goes through the reader -------------------------------------------


RAW = r"\bjson\.(loads?|JSONDecoder)\b|\bfrom json import\b|\.raw_decode\("
ALLOWED = [  # (file, the text on the line, why it does not go through the reader)
    ("bots/identity.py", "json.loads(json.dumps(found", "json.dumps's own text of a value the program made"),
    ("bench/records/schema.py", "return json.loads(text)", "the package's own JSON Schemas, package data"),
    ("bench/report/summary.py", 'json.loads(resources.files("bench.data")', "the package's own example results.json"),
]


def _raw_parses() -> list[tuple[str, int, str]]:
    found = []
    for package in ("solver", "bots", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if name == "solver/documents.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if re.search(RAW, line):
                    found.append((name, number, line.strip()))
    return found


def test_every_parse_of_json_goes_through_the_reader_or_says_why_not():
    found = _raw_parses()
    unexplained = [f"{name}:{number}: {line}" for name, number, line in found
                   if not any(name == file and text in line for file, text, _ in ALLOWED)]
    assert not unexplained, ("JSON parsed outside solver/documents.py; use strict_json, or add the line to ALLOWED "
                             "with the reason:\n" + "\n".join(unexplained))
    unused = [(file, text) for file, text, _ in ALLOWED if not any(name == file and text in line
                                                                   for name, _, line in found)]
    assert not unused, f"ALLOWED names lines that are no longer there: {unused}"


@pytest.mark.parametrize("line", ["json.loads(text)", "json.load(file)", "from json import loads",
                                  "json.JSONDecoder().decode(text)", "decoder.raw_decode(text)"])
def test_the_search_sees_raw_parses(line):
    assert re.search(RAW, line)


@pytest.mark.parametrize("line", ["strict_json(text, what)", "json.dumps(value)", "import json"])
def test_the_search_passes_the_reader(line):
    assert not re.search(RAW, line)

