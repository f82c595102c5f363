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
SCHEMA = ROOT / "bench" / "records" / "schemas" / "perf.schema.json"
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_schema_refuses_what_breaks_the_convention(report):
    document = json.loads((report / "perf.json").read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for broken in ({k: v for k, v in document.items() if k != "seed"},
                   document | {"solves": [document["solves"][0] | {"samples": 250}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


@pytest.mark.slow
def test_the_report_replays_from_its_benchmarks_json(report, tmp_path):
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "bench.cli", "perf", "--from-json", str(report / "benchmarks.json"),
                    "--out", str(tmp_path)], env=env, cwd=ROOT, check=True, capture_output=True)
    first, again = (json.loads((p / "perf.json").read_text(encoding="utf-8")) for p in (report, tmp_path))
    assert again == first
    text = (report / "perf.md").read_text(encoding="utf-8")
    assert "EV SE × √ms" in text and "seed 3" in text


@pytest.mark.slow
def test_versions_are_those_the_run_recorded_not_those_installed_now(report, tmp_path):
    """A report made again from a benchmarks.json names the numpy and numba of the run, and none
    at all for a run that did not record them (whatever is installed when the report is made)."""
    raw = json.loads((report / "benchmarks.json").read_text(encoding="utf-8"))
    assert raw["version_by_package"]["numpy"] == __import__("numpy").__version__
    raw["version_by_package"] = {"numpy": "0.0.1", "numba": "0.0.2"}
    (tmp_path / "recorded.json").write_text(json.dumps(raw), encoding="utf-8")
    del raw["version_by_package"]
    (tmp_path / "unrecorded.json").write_text(json.dumps(raw), encoding="utf-8")
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    for name, expected in (("recorded", ("0.0.1", "0.0.2")), ("unrecorded", (None, None))):
        subprocess.run([sys.executable, "-m", "bench.cli", "perf", "--from-json", str(tmp_path / f"{name}.json"),
                        "--out", str(tmp_path / name)], env=env, cwd=ROOT, check=True, capture_output=True)
        machine = json.loads((tmp_path / name / "perf.json").read_text(encoding="utf-8"))["machine"]
        assert (machine["numpy"], machine["numba"]) == expected


def _from_json(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    (tmp_path / "benchmarks.json").write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "bench.cli", "perf", "--from-json", str(tmp_path / "benchmarks.json"),
                           "--out", str(tmp_path / "out")], env=os.environ | {"PYTHONPATH": str(ROOT)}, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_benchmarks_json_with_a_number_json_does_not_allow_is_refused(tmp_path, number):
    done = _from_json(tmp_path, '{"seed": 1, "benchmarks": [{"name": "test_eval5_one_core", "stats": {"median": 0.001}, '
                      f'"extra_info": {{"per_second": {number}}}}}]}}')
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "is not JSON this program reads" in done.stderr
    assert not (tmp_path / "out" / "perf.md").exists()


@pytest.mark.slow
def test_a_benchmarks_json_nested_too_deep_is_bad_input(tmp_path):
    done = _from_json(tmp_path, '{"benchmarks": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "nested deeper than" in done.stderr


@pytest.mark.slow
def test_perf_md_shows_what_a_benchmarks_json_names_as_text(tmp_path):
    """The machine, the run's date and commit, the -k expression and the bots' names come from
    the benchmarks.json, which may come from anywhere: perf.md shows them, never their markup."""
    raw = {"seed": 1, "datetime": "<img src=x onerror=alert(1)>", "select": "a` <script>alert(2)</script>",
           "commit_info": {"id": "`</code><b>commit</b>"},
           "machine_info": {"cpu": {"brand_raw": "[cpu](javascript:alert(3)) | x", "count": 2},
                            "python_version": "3.11\n# heading"},
           "version_by_package": {"numpy": "<i>np</i>", "numba": "*nb*"},
           "benchmarks": [{"name": "test_one_decision[<b>bot</b>|x]", "stats": {"median": 0.001},
                           "extra_info": {"p95_ms": 1.0}},
                          {"name": "test_four_player_field[[f](javascript:alert(4))]", "stats": {"median": 0.001},
                           "extra_info": {"deals_per_second": 1.0, "hands_per_second": 4.0}}]}
    done = _from_json(tmp_path, json.dumps(raw))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "out" / "perf.md").read_text(encoding="utf-8")
    assert "`` bench perf --seed 1 -k 'a` <script>alert(2)</script>' ``" in text  # a code span: no markup inside
    for markup in ("<img", "<b>", "<i>", "[cpu](javascript:", "[f](javascript:", "\n# heading", " *nb*"):
        assert markup not in text, markup
    for shown in ("alert(3)) \\| x", "bot&lt;/b&gt;\\|x", "\\*nb\\*", "&lt;img src=x onerror=alert(1)&gt;",
                  "\\[cpu\\](javascript:alert(3))", "\\[f\\](javascript:alert(4))"):
        assert shown in text, shown
