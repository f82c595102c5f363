"""``bench perf`` on a real, small run: its perf.json is the ``perf`` document its schema describes."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

pytest.importorskip("pytest_benchmark")

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "bench" / "schemas" / "perf.schema.json"
SMALL = "test_yardstick or (test_solve_per_decision and 250) or (test_one_decision and greedy) or canonical"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("perf")
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "bench.cli", "perf", "--out", str(out), "-k", SMALL, "--seed", "3"],
                   env=env, cwd=ROOT, check=True, capture_output=True, text=True)
    return out


def test_the_schema_in_the_docs_is_the_packaged_one():
    assert (ROOT / "docs" / "schemas" / "perf.schema.json").read_bytes() == SCHEMA.read_bytes()


def test_perf_json_is_a_perf_document(report):
    document = json.loads((report / "perf.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert (document["document"], document["schema_version"], document["seed"]) == ("perf", 1, 3)
    assert document["command"] == f"bench perf --seed 3 -k {shlex.quote(SMALL)}"
    [solve] = document["solves"]
    assert (solve["rules"], solve["sample_count"], solve["hand_count"]) == ("basic", 250, 30)
    assert solve["yardsticks"] > 0 and solve["yardstick_ms"] > 0
    assert solve["ev_se_root_ms"] == pytest.approx(solve["ev_se"] * solve["median_ms"] ** 0.5)
    assert solve["diff_se_root_yardsticks"] == pytest.approx(solve["diff_se"] * solve["yardsticks"] ** 0.5)
    assert [b["bot"] for b in document["bots"]] == ["greedy"]
    assert document["yardstick"]["median_ms"] > 0


def test_the_schema_refuses_what_breaks_the_convention(report):
    document = json.loads((report / "perf.json").read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for broken in ({k: v for k, v in document.items() if k != "seed"},
                   document | {"solves": [document["solves"][0] | {"samples": 250}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


def test_the_report_replays_from_its_benchmarks_json(report, tmp_path):
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "bench.cli", "perf", "--from-json", str(report / "benchmarks.json"),
                    "--out", str(tmp_path)], env=env, cwd=ROOT, check=True, capture_output=True)
    first, again = (json.loads((p / "perf.json").read_text(encoding="utf-8")) for p in (report, tmp_path))
    assert again == first
    text = (report / "perf.md").read_text(encoding="utf-8")
    assert "EV SE × √ms" in text and "seed 3" in text
