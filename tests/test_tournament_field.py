"""``bench tournament --estimator field`` (docs/tournaments.md): the field, its samples and the seed
registered in the journal before the first deal, a resume that would change them refused, the
figures the same however the run was cut, and computed again, never read, by ``bench report``
and ``bench verify``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench.cli import main as bench_main
from bench.records.model import FieldPlan
from bench.report.summary import field_results
from bench.run import journal as journal_module
from bench.run.play import RunSettings, play_deals
from solver.rules import as_rules

ARGS = ["--sessions", "2", "--seed", "11", "--jobs", "1", "--estimator", "field", "--field-samples", "60"]


def _tournament(out, *extra, bots="table,greedy"):
    return bench_main(["tournament", "--bots", bots, *ARGS, "--out", str(out), *extra])


def _lines(path):
    return path.read_text().splitlines()


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A whole field run of table against greedy, heads-up, and its results.json."""
    out = tmp_path_factory.mktemp("field") / "run"
    assert _tournament(out) == 0
    return out


def test_the_field_its_samples_and_the_seed_are_in_the_journals_header(finished):
    settings = json.loads(_lines(finished / "journal.jsonl")[0])["settings"]
    assert settings["field"] == {"bot": "table", "sample_count": 60} and settings["seed"] == 11
    assert "--estimator field --field table --field-samples 60" in settings["command"]
    doc = json.loads((finished / "results.json").read_text())
    assert doc["field"]["bot"] == "table" and doc["field"]["sample_count"] == 60


@pytest.mark.parametrize(("flags", "words"), [
    (["--estimator", "duplicate"],
     "registered with --estimator field --field table --field-samples 60, not --estimator duplicate"),
    (["--field-samples", "61"], "not --field-samples 61"),
    (["--field", "greedy"], "not --field greedy"),
])
def test_a_resume_that_changes_the_registered_estimator_is_refused(finished, capsys, flags, words):
    capsys.readouterr()
    assert bench_main(["tournament", "--resume", str(finished), *flags]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_a_duplicate_run_cannot_be_resumed_with_the_field_estimator(tmp_path, capsys):
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,random", "--sessions", "1", "--seed", "2", "--jobs", "1",
                       "--out", str(out)]) == 0
    assert "field" not in json.loads(_lines(out / "journal.jsonl")[0])["settings"]
    capsys.readouterr()
    assert bench_main(["tournament", "--resume", str(out), "--estimator", "field"]) == 2
    assert "registered with no field estimator, not --estimator field" in capsys.readouterr().err


def test_a_run_cut_short_and_resumed_gives_the_figures_of_a_whole_run(finished, tmp_path, capsys):
    """The journal keeps plays, not field scores: a resume scores its recorded deals again and
    the results are those of the run played at once, number for number."""
    out = tmp_path / "run"
    out.mkdir()
    lines = _lines(finished / "journal.jsonl")
    assert len(lines) >= 3  # a header and at least two chunks: one is cut off
    (out / "journal.jsonl").write_text("\n".join(lines[:2]) + "\n")
    assert bench_main(["tournament", "--resume", str(out)]) == 0
    assert "to play" in capsys.readouterr().err
    whole, resumed = (json.loads((folder / "results.json").read_text()) for folder in (finished, out))
    assert resumed["field"] == whole["field"] and resumed["results"] == whole["results"]


def test_report_and_verify_compute_the_field_figures_again(finished, tmp_path, capsys):
    """A forged figure does not survive ``bench report`` and fails ``bench verify``."""
    out = tmp_path / "run"
    out.mkdir()
    for name in ("journal.jsonl", "results.json"):
        (out / name).write_bytes((finished / name).read_bytes())
    assert bench_main(["verify", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    true = doc["field"]["crosstable"]["greedy"]["table"]["mean"]
    doc["field"]["crosstable"]["greedy"]["table"]["mean"] = 0.5
    doc["field"]["by_bot"]["greedy"]["mean"] = 0.5
    (out / "results.json").write_text(json.dumps(doc))
    capsys.readouterr()
    assert bench_main(["verify", str(out)]) == 1
    assert "field figures are not those its records give" in capsys.readouterr().out
    assert bench_main(["report", str(out / "results.json"), "--out", str(tmp_path / "again")]) == 0
    shown = capsys.readouterr().out
    assert f"{true:+.4f}" in shown and "+0.5000" not in shown
    del doc["field"]
    (out / "results.json").write_text(json.dumps(doc))
    assert bench_main(["verify", str(out)]) == 1
    assert "field estimator is not the one the journal registered" in capsys.readouterr().out


def test_a_journal_whose_registered_field_would_load_other_code_is_refused(finished, tmp_path, capsys):
    """The header's field is checked before any bot is made: only bots of this package."""
    out = tmp_path / "run"
    out.mkdir()
    lines = [json.loads(line) for line in _lines(finished / "journal.jsonl")]
    lines[0]["settings"]["field"]["bot"] = "tests.plugin_bot:FirstLegalBot"
    check = ""
    for line in lines:  # chained again, as a forger would
        line["check"] = check = journal_module.line_check(line, check)
    (out / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    capsys.readouterr()
    assert bench_main(["tournament", "--resume", str(out)]) == 2
    assert "is not a bot of this package" in capsys.readouterr().err


def test_a_journal_of_one_bot_with_a_field_is_refused(tmp_path, capsys):
    """A field run of one bot cannot be made, so a header that claims one is forged."""
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "table", "--sessions", "1", "--seed", "2", "--jobs", "1",
                       "--out", str(out)]) == 0
    lines = [json.loads(line) for line in _lines(out / "journal.jsonl")]
    lines[0]["settings"]["field"] = {"bot": "table", "sample_count": 50}
    check = ""
    for line in lines:
        line["check"] = check = journal_module.line_check(line, check)
    (out / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    capsys.readouterr()
    assert bench_main(["tournament", "--resume", str(out)]) == 2
    assert "needs two bots or more" in capsys.readouterr().err


@pytest.mark.parametrize(("extra", "words"), [
    (["--bots", "table,greedy", "--field", "table:tables=bots/data/table_basic.npz"], "reads the file"),
    (["--bots", "table,greedy", "--field", "table" + ":removal=true" * 90], "above the 1,000 a results.json holds"),
    (["--bots", "table,greedy", "--field-samples", "1000000000"], "memory"),
    (["--bots", "table,greedy", "--field", "cmd:./bot"], "is not a bot of this package"),
    (["--bots", "table,greedy", "--field", "tests.plugin_bot:FirstLegalBot"], "is not a bot of this package"),
    (["--bots", "table,greedy", "--field", "exhaustive"], "cannot set the simulated opponents"),
    (["--bots", "table,greedy", "--field", "exhaustive:opponent=nowhere.toml"],
     "makes 'nowhere.toml', which is not a bot of this package"),
    (["--bots", "table,greedy", "--rules", "naturals"], "under rules with naturals use --estimator duplicate"),
    (["--bots", "table,greedy", "--on-fault", "foul"], "use --on-fault stop"),
    (["--bots", "table"], "give at least two"),
    (["--bots", "exhaustive,cmd:./bot"], "name one with --field"),
])
def test_a_field_estimator_that_cannot_run_is_refused_before_any_deal(tmp_path, capsys, extra, words):
    assert bench_main(["tournament", "--sessions", "1", "--estimator", "field", "--out", str(tmp_path / "r"),
                       *extra]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r" / "journal.jsonl").exists()


def test_field_flags_without_the_field_estimator_are_refused(capsys):
    assert bench_main(["tournament", "--bots", "table,greedy", "--field", "table"]) == 2
    assert "go with --estimator field" in capsys.readouterr().err


def test_the_figures_are_the_records_edges_at_the_table_and_against_one_opponent():
    """``crosstable[a][b]``: the mean over deals of a's scores less b's, averaged over the hands
    (one opponent); ``by_bot[a]``: ``players - 1`` times the mean of those over the others."""
    specs, players = ("table", "heuristic", "greedy"), 3
    plan = FieldPlan("heuristic", 40)
    settings = RunSettings(specs, players, 4, as_rules("basic"), field=plan)
    records = play_deals(specs, players, 4, range(6), settings=settings)
    figures = field_results(records, list(specs), players, plan)
    edge = lambda r, a, b: sum(x - y for x, y in zip(r.field[a], r.field[b])) / players  # noqa: E731
    for a, name_a in enumerate(specs):
        others = [b for b in range(3) if b != a]
        for b in others:
            expected = np.mean([edge(r, a, b) for r in records])
            assert figures["crosstable"][name_a][specs[b]]["mean"] == pytest.approx(expected, abs=1e-12)
        over = [(players - 1) * np.mean([edge(r, a, b) for b in others]) for r in records]
        assert figures["by_bot"][name_a]["mean"] == pytest.approx(np.mean(over), abs=1e-12)
        assert figures["by_bot"][name_a]["se"] == pytest.approx(np.std(over, ddof=1) / np.sqrt(6), rel=1e-9)


def test_with_fewer_bots_than_seats_each_bot_is_measured_against_the_bots_seated_with_it():
    """Two bots at three seats: the seatings are AAB, ABA and BAA, so A meets one B and a copy
    of itself (edge 0) where B meets two As, as the duplicate units per hand count them."""
    specs, players = ("greedy", "table"), 3
    plan = FieldPlan("table", 40)
    records = play_deals(specs, players, 12, range(4), settings=RunSettings(specs, players, 12, as_rules("basic"), field=plan))
    figures = field_results(records, list(specs), players, plan)
    edge = figures["crosstable"]["greedy"]["table"]["mean"]
    assert edge != 0
    assert figures["by_bot"]["greedy"]["mean"] == pytest.approx(edge, abs=1e-12)
    assert figures["by_bot"]["table"]["mean"] == pytest.approx(-2 * edge, abs=1e-12)


@pytest.mark.slow
def test_with_the_other_bot_as_the_field_it_agrees_with_the_duplicate_crosstable(tmp_path):
    """Heads-up with B as the field, A's field edge estimates A's duplicate result against B
    (bench/run/field.py): over the same 20 sessions the two agree within their noise, and the
    field's standard error is the smaller."""
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "heuristic,greedy", "--sessions", "20", "--seed", "5", "--jobs", "2",
                       "--estimator", "field", "--field", "greedy", "--field-samples", "200", "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    field, duplicate = doc["field"]["crosstable"]["heuristic"]["greedy"], doc["results"]["crosstable"]["heuristic"]["greedy"]
    assert abs(field["mean"] - duplicate["mean"]) < 3.5 * np.hypot(field["se"], duplicate["se"])
    assert field["se"] < duplicate["se"]
