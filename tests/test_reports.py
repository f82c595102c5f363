"""``bench report`` reads only a results.json it can trust: every doctored or damaged file is
refused with one line and exit status 2, and every file a tournament writes is read."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from bench.cli import main as bench_main
from bench.report.summary import example_results
from tests.helpers import put_at as _set

ROOT = Path(__file__).resolve().parents[1]




def _drop(path: str):
    def change(doc):
        *head, last = path.split(".")
        target = doc
        for key in head:
            target = target[int(key)] if isinstance(target, list) else target[key]
        del target[last]
        return doc

    return change


def _duplicate_bot_name(doc):
    doc["bots"][1]["name"] = doc["bots"][0]["name"]
    return doc


def _duplicate_deal(doc):
    doc["records"][1]["deal"] = doc["records"][0]["deal"]
    return doc


def _swap_deals(doc):
    doc["records"][0]["deal"], doc["records"][4]["deal"] = doc["records"][4]["deal"], doc["records"][0]["deal"]
    return doc


def _cut_records(doc):
    doc["records"] = doc["records"][:-1]
    return doc


def _flip_foul(doc):
    play = doc["records"][0]["plays"][0][0]
    play["foul"] = not play["foul"]
    play["foul_reason"] = "front (A-high, A K Q) beats middle (A-high, A K J 9 3)" if play["foul"] else None
    return doc


def _natural_in_basic(doc):
    doc["records"][0]["plays"][0][0]["natural"] = {"kind": "six pairs", "key": [12]}
    return doc


def _swap_values(doc):
    """Two bots' row values swapped on a hand: each still a legal play, the table changed."""
    row = doc["records"][0]["plays"]
    row[0][0]["values"], row[1][0]["values"] = row[1][0]["values"], row[0][0]["values"]
    row[0][0]["foul"], row[1][0]["foul"] = row[1][0]["foul"], row[0][0]["foul"]
    return doc


def _swap_seats(doc):
    """A bot's plays of two seats swapped: each play is right, but for the other seat's cards."""
    row = doc["records"][0]["plays"][0]
    row[0], row[1] = row[1], row[0]
    return doc


def _fault_without_reason(doc):
    doc["records"][0]["plays"][0][0] |= {"arrangement": None, "values": [1 << 30, 0, 0], "foul": True,
                                         "foul_reason": "no answer"}
    return doc


def _fault_with_another_reason(doc):
    doc["records"][0]["plays"][0][0] |= {"arrangement": None, "values": [1 << 30, 0, 0], "foul": True,
                                         "foul_reason": "front beats middle", "fault": "bot 'x' crashed"}
    return doc


def _all_faults(doc):
    """Every play of one bot turned into a fault (a foul with the fault's text): a bot shown at
    -3 with every hand fouled, in a run whose policy, ``stop``, records no fault."""
    for record in doc["records"]:
        for play in record["plays"][3]:
            play.clear()
            play.update({"arrangement": None, "values": [1 << 30, 0, 0], "foul": True,
                         "foul_reason": "bot 'random' crashed", "fault": "bot 'random' crashed"})
    return doc


def _cut_timing(doc):
    doc["timing"]["seconds"] = doc["timing"]["seconds"][:3]
    return doc


def _one_time_missing(doc):
    del doc["timing"]["seconds"][5][1][2]
    return doc


def _slower(doc):
    doc["timing"]["decision_time_by_bot"]["table"]["median_ms"] *= 10
    return doc


DOCTORED = [
    ("faults under the stop policy", _all_faults, "a fault that this run cannot have recorded (its fault policy "
                                                  "is 'stop': a run under it ends at its first fault"),
    ("a fault policy that is no policy", _set("on_fault", "ignore"), "on_fault is 'ignore', not one of 'stop', 'foul'"),
    ("decision times cut to 3 deals", _cut_timing, "timing.seconds holds 3 deals of decision times that are not one "
                                                   "a play of the 80 records"),
    ("a decision time missing", _one_time_missing, "timing.seconds holds 80 deals"),
    ("a median its times do not give", _slower, "timing.decision_time_by_bot['table'] gives a median"),
    ("a decision count its plays do not give", _set("timing.decision_time_by_bot.greedy.decision_count", 10),
     "decision_count is 10, but the records hold 320 of its plays"),
    ("more deals timed than recorded", _set("timing.timed_deal_count", 81), "timed_deal_count is 81, more than the 80"),
    ("a negative decision time", _set("timing.seconds.0.0.0", -0.5), "timing.seconds[0][0][0] is -0.5, below 0"),

    ("values of another play", _swap_values, "the row values are not those of the arrangement"),
    ("plays of another seat", _swap_seats, "holds cards that were not dealt to that seat"),
    ("a fault without its reason", _fault_without_reason, "a faulted play without the values of a foul or its reason"),
    ("a fault with another reason", _fault_with_another_reason,
     "a faulted play whose foul_reason is not its fault's text"),
    ("a reason for a play that does not foul", _set("records.0.plays.0.0.foul_reason", "front beats middle"),
     "records[0].plays[0][0].foul_reason is text, not null"),
    ("no foul_reason", _drop("records.0.plays.0.0.foul_reason"), "records[0].plays[0][0] has no 'foul_reason'"),
    ("an arrangement of 12 cards", _set("records.0.plays.0.0.arrangement.front", "AS KS"),
     "records[0].plays[0][0].arrangement.front is 'AS KS', not cards as text"),
    ("an arrangement with a card twice", _set("records.0.plays.0.0.arrangement",
                                              {"front": "AS AS QS", "middle": "JS TS 9S 8S 7S", "back": "6S 5S 4S 3S 2S"}),
     "is not an arrangement of 13 cards"),
    ("an arrangement as text", _set("records.0.plays.0.0.arrangement", "AS KS QS / JS TS 9S 8S 7S / 6S 5S 4S 3S 2S"),
     "records[0].plays[0][0].arrangement is text, not a table or null"),
    ("a hand of 12 cards", _set("records.0.hands.0", "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"),
     "holds a hand that is not 13 cards"),
    ("missing median_ms", _drop("timing.decision_time_by_bot.greedy.median_ms"), "has no 'median_ms'"),
    ("huge row value", _set("records.0.plays.0.0.values.0", 10**400), "a number of 401 digits"),
    ("huge deal number", _set("records.0.deal", 10**30), "above 9,007,199,254,740,992"),
    ("negative deal", _set("records.0.deal", -5), "records[0].deal is -5, below 0"),
    ("negative row value", _set("records.3.plays.1.2.values.2", -1), "below 0"),
    ("duplicate bot names", _duplicate_bot_name, "bot name 'greedy' is given to more than one bot"),
    ("duplicate deal", _duplicate_deal, "is recorded more than once"),
    ("deal outside the run", _set("records.0.deal", 80), "outside the 80 deals of 10 sessions"),
    ("records cut short", _cut_records, "the records hold 79 of the 80 deals"),
    ("another seed's deals", _set("seed", 8), "deal 0 holds other hands than seed 8 deals"),
    ("deal numbers swapped", _swap_deals, "holds other hands than seed 7 deals"),
    ("another dealer", _set("records.0.dealer", 1), "deal 0 names dealer 1, not 0"),
    ("negative median", _set("timing.decision_time_by_bot.random.median_ms", -1.0), "below 0"),
    ("speed as text", _set("timing.deals_per_second", "fast"), "timing.deals_per_second is text, not a number"),
    ("p95 as null", _set("timing.decision_time_by_bot.table.p95_ms", None), "p95_ms is null, not a number"),
    ("decisions as a number", _set("timing.decision_time_by_bot.random.decision_count", 3.5),
     "is a number, not a whole number"),
    ("cpus as text", _set("machine.cpu_count", "two"), "machine.cpu_count is text"),
    ("a version as a number", _set("version_by_package.numpy", 2),
     "version_by_package.numpy is a whole number, not text or null"),
    ("hands per session", _set("hands_per_session", 7), "hands_per_session is 7, below 8"),
    ("hands as a number", _set("records.0.hands", 4), "records[0].hands is a whole number, not a list"),
    ("natural as a list", _set("records.0.plays.0.0.natural", ["six pairs"]), "is a list, not a table or null"),
    ("foul as text", _set("records.0.plays.0.0.foul", "no"), "records[0].plays[0][0].foul is text, not true or false"),
    ("a count as a list", _set("player_count", [0, 1]), "results.player_count is a list, not a whole number"),
    ("a field of the older version", _set("players", 4), "has a field 'players' that no results.json has"),
    ("a count missing", _drop("session_count"), "results has no 'session_count'"),
    ("an older version", _set("schema_version", 2),
     "its schema_version is 2: it was written by an older version of bench"),
    ("a newer version", _set("schema_version", 4), "its schema_version is 4: this version of bench cannot read it"),
    ("another document", _set("document", "match"), "it is a 'match' document, not results"),
    ("foul that the rows deny", _flip_foul, "whose rows say otherwise"),
    ("natural under rules without", _natural_in_basic, "declares a natural, but its rules have none"),
    ("partial that does not add up", _set("partial", {"played_deal_count": 3, "planned_deal_count": 80}),
     "partial says 3 of 80 deals, but the records hold 80 of 80"),
]


@pytest.fixture(scope="module")
def example() -> dict:
    return example_results()


def _report(tmp_path: Path, text: str, capsys) -> tuple[int, str]:
    path = tmp_path / "results.json"
    path.write_text(text)
    status = bench_main(["report", str(path), "--out", str(tmp_path / "report")])
    return status, capsys.readouterr().err


# The fast tier's share of DOCTORED: three refused by their version, one after the whole document is
# checked (as each of the others is: a second or so each).
QUICK = ("an older version", "a newer version", "another document", "an arrangement with a card twice")


@pytest.mark.parametrize("change, message", [
    pytest.param(*c[1:], id=c[0], marks=() if c[0] in QUICK else pytest.mark.slow) for c in DOCTORED])
def test_a_doctored_results_json_is_refused_in_one_line(tmp_path, capsys, example, change, message):
    status, err = _report(tmp_path, json.dumps(change(copy.deepcopy(example))), capsys)
    assert status == 2, err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err and message in err, err
    assert not (tmp_path / "report" / "report.md").exists()


@pytest.mark.parametrize("text, message", [
    ('{"schema_version": NaN}', "'NaN' is not a finite number"),
    ('{"schema_version": 2, "players": Infinity}', "'Infinity' is not a finite number"),
    ('{"schema_version": -Infinity}', "'-Infinity' is not a finite number"),
    ('{"schema_version": ' + "9" * 5000 + "}", "an integer of 5,000 digits"),
    ("[" * 100_000 + "]" * 100_000, "not"),
])  # fmt: skip
def test_json_that_is_no_results_is_refused_in_one_line(tmp_path, capsys, text, message):
    status, err = _report(tmp_path, text, capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1 and message in err, err
    assert "internal error" not in err


@pytest.mark.slow
def test_faults_of_a_file_that_does_not_say_its_fault_policy_are_read_as_unproven(tmp_path, capsys, example):
    """A results.json written before the fault policy was stored is read as before, and the
    report says its faults are unproven: they could be a stop run's, forged."""
    old = _all_faults(copy.deepcopy(example))
    del old["on_fault"], old["decision_timeout"]
    status, err = _report(tmp_path, json.dumps(old), capsys)
    assert status == 0, err
    out = (tmp_path / "report" / "report.md").read_text()
    assert "Faults unproven: the file does not say its run's fault policy (--on-fault), so its 320 faulted plays" in out
    assert "- fault policy: not recorded; decision timeout: not recorded" in out
    status, err = _report(tmp_path, json.dumps(example), capsys)
    assert status == 0 and "unproven" not in (tmp_path / "report" / "report.md").read_text().split("Timings")[0]


@pytest.mark.slow
def test_a_run_whose_bot_faults_under_the_foul_policy_is_read(tmp_path, capsys):
    """An honest run where a bot raises on some hands, under --on-fault foul: results.json says
    its policy and time limit, holds the faults, and bench report reads it."""
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,tests.plugin_bot:FlakyBot", "--on-fault", "foul",
                       "--decision-timeout", "30", "--sessions", "1", "--seed", "2", "--jobs", "1",
                       "--out", str(out)]) == 0
    capsys.readouterr()
    doc = json.loads((out / "results.json").read_text())
    assert (doc["on_fault"], doc["decision_timeout"]) == ("foul", 30.0)
    assert any("fault" in p for r in doc["records"] for row in r["plays"] for p in row)
    status, err = _report(tmp_path, json.dumps(doc), capsys)
    assert status == 0, err
    assert "Faults unproven" not in (tmp_path / "report" / "report.md").read_text()
    doc["on_fault"] = "stop"
    status, err = _report(tmp_path, json.dumps(doc), capsys)
    assert status == 2 and "a fault that this run cannot have recorded" in err, err


def test_nan_in_the_records_is_refused(tmp_path, capsys, example):
    text = json.dumps(example).replace('"wall_seconds": ', '"wall_seconds": NaN, "was": ', 1)
    status, err = _report(tmp_path, text, capsys)
    assert status == 2 and "'NaN' is not a finite number" in err, err


@pytest.mark.slow
@pytest.mark.parametrize("run", [
    ["--bots", "greedy,random,heuristic", "--players", "3", "--sessions", "1", "--rules", "2-4+royalties+naturals"],
    ["--bots", "greedy,random", "--players", "4", "--sessions", "1"],
])  # fmt: skip
def test_what_a_tournament_writes_is_read(tmp_path, capsys, run):
    """Files written by bench tournament (naturals declared, fewer bots than seats) pass the
    checks, and so do the results shipped with the package and the docs."""
    out = tmp_path / "run"
    assert bench_main(["tournament", *run, "--seed", "3", "--jobs", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert bench_main(["report", str(out / "results.json"), "--out", str(tmp_path / "again")]) == 0, capsys.readouterr()
    for shipped in (ROOT / "bench" / "data" / "example_results.json", ROOT / "docs" / "tournament" / "results.json"):
        assert bench_main(["report", str(shipped), "--out", str(tmp_path / "shipped")]) == 0, capsys.readouterr()


SORTED = str(ROOT / "examples" / "bots" / "sorted_bot.toml")  # a protocol bot that fouls about a third of its hands


@pytest.fixture(scope="module")
def fouling(tmp_path_factory) -> dict:
    """The results.json of a real run where one bot fouls."""
    out = tmp_path_factory.mktemp("fouling") / "run"
    assert bench_main(["tournament", "--bots", f"{SORTED},random", "--sessions", "1", "--seed", "4", "--jobs", "1",
                       "--out", str(out)]) == 0
    return json.loads((out / "results.json").read_text())


def _first_foul(doc) -> tuple[int, int, int]:
    """(record, bot, seat) of the first fouled play."""
    return next((i, b, s) for i, r in enumerate(doc["records"]) for b, row in enumerate(r["plays"])
                for s, p in enumerate(row) if p["foul"])


@pytest.mark.slow
def test_a_run_with_a_fouling_bot_says_why_each_play_fouls_and_is_read(fouling, tmp_path, capsys):
    from bench.records.model import arrangement_text
    from solver import foul_reason

    plays = [p for r in fouling["records"] for row in r["plays"] for p in row]
    fouled = [p for p in plays if p["foul"]]
    assert fouled and len(fouled) < len(plays)
    for p in plays:
        assert p["foul_reason"] == foul_reason(arrangement_text(p["arrangement"]))
    assert all(" beats " in p["foul_reason"] for p in fouled)
    status, err = _report(tmp_path, json.dumps(fouling), capsys)
    assert status == 0, err


def _doctor_foul(**change):
    def doctor(doc):
        i, b, s = _first_foul(doc)
        doc["records"][i]["plays"][b][s] |= change
        return doc

    return doctor


@pytest.mark.parametrize("change, message", [
    (_doctor_foul(foul=False, foul_reason=None), "whose rows say otherwise"),
    (_doctor_foul(foul=False), "foul_reason is text, not null"),
    (_doctor_foul(foul_reason="back (high card) beats middle (pair of 2s)"),
     "the play gives foul_reason 'back (high card) beats middle (pair of 2s)', but its rows say "),
    (_doctor_foul(foul_reason=None), "foul_reason is null, not text"),
], ids=["foul flipped", "foul flipped, reason kept", "another reason", "no reason"])  # fmt: skip
def test_a_fouled_play_with_a_wrong_foul_or_reason_is_refused_in_one_line(tmp_path, capsys, fouling, change,
                                                                         message):
    status, err = _report(tmp_path, json.dumps(change(copy.deepcopy(fouling))), capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1 and message in err, err


@pytest.mark.slow
def test_a_natural_the_hand_does_not_hold_is_refused(tmp_path, capsys):
    """A seat without six pairs that declares six pairs moved a bot's mean (from -0.250 to
    +0.000 in the case found) and was read: a declared natural must be the one the seat's
    hand would declare, found again by solver.naturals."""
    from solver.naturals import best_natural
    from solver.rules import Rules

    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,random", "--sessions", "1", "--rules", "naturals",
                       "--seed", "5", "--jobs", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    doc = json.loads((out / "results.json").read_text())
    rules = Rules.from_dict(doc["rules"])
    deal, seat = next((d, s) for d, r in enumerate(doc["records"]) for s, hand in enumerate(r["hands"])
                      if best_natural(hand, rules) is None)
    play = doc["records"][deal]["plays"][0][seat]
    play["natural"] = {"kind": "six pairs", "key": [12, 11, 10, 9, 8, 7]}
    status, err = _report(tmp_path, json.dumps(doc), capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert f"'greedy' in seat {seat}: declares 'six pairs'" in err and "holds no natural" in err, err
    assert not (tmp_path / "report" / "report.md").exists()


def _many_bots(example: dict, count: int) -> dict:
    """The example results, naming ``count`` bots (about 250 bytes of results.json each)."""
    bot = example["bots"][0]
    return example | {"bots": [bot | {"name": f"bot{i}", "spec": f"exhaustive:samples={i}:opponent=tests.plugin_bot:Field"}
                               for i in range(count)]}


@pytest.mark.slow
def test_fifty_thousand_bots_are_refused_before_any_check_of_each(tmp_path, capsys, monkeypatch, example):
    """A 12 MiB results.json naming 50,000 bots kept bench report busy for minutes (a duplicate
    check quadratic in the bots, run before any ceiling): the counts are checked first, and
    neither the schema nor any per-bot check runs."""
    import bench.records.schema as checks

    def not_now(*args, **kwargs):
        raise AssertionError("a check of each item ran before the counts were checked")

    monkeypatch.setattr(checks, "first_problem", not_now)
    monkeypatch.setattr(checks, "_bots_problem", not_now)
    text = json.dumps(_many_bots(example, 50_000))
    assert len(text) > 12_000_000
    status, err = _report(tmp_path, text, capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "its run is too large: the bot count is 50,000, above the limit of 64" in err, err


@pytest.mark.slow
def test_fifty_thousand_bots_are_one_line_as_a_command(tmp_path, example):
    """The same file given to the command: one line, exit 2 (a generous time-out guards against a hang)."""
    import os
    import subprocess
    import sys

    path = tmp_path / "results.json"
    path.write_text(json.dumps(_many_bots(example, 50_000)))
    done = subprocess.run([sys.executable, "-m", "bench.cli", "report", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "the bot count is 50,000, above the limit of 64" in done.stderr


def test_a_file_above_the_byte_limit_is_not_read(tmp_path, capsys, monkeypatch, example):
    """The size is checked on the file, before a byte of it is parsed."""
    import dataclasses

    from solver.limits import LIMITS

    def not_now(*args, **kwargs):
        raise AssertionError("the file was parsed")

    monkeypatch.setitem(LIMITS, "document_bytes", dataclasses.replace(LIMITS["document_bytes"], high=1000))
    monkeypatch.setattr(json, "loads", not_now)
    status, err = _report(tmp_path, json.dumps(example), capsys)
    assert status == 2 and "more than the 1,000 the program reads" in err, err


def test_figures_a_results_json_holds_as_null_are_shown_as_a_dash(tmp_path):
    """A figure that is not finite is null in results.json (a share of no sessions, a foul rate
    of a bot that declared every hand, the spread of one deal); the tables and plots drawn from
    such a document show a dash or leave it out, and never fail on it."""
    from bench.report.plots import write_plots
    from bench.report.render import render_markdown, render_terminal

    doc = example_results()
    greedy = doc["results"]["by_bot"]["greedy"]
    greedy["session_win_share"] = greedy["foul_rate"] = greedy["row_win_rate"]["front"] = None
    greedy["units_per_hand"].update(se=None, ci95=[None, None])
    doc["results"]["crosstable"]["greedy"]["random"].update(mean=None, same_arrangement=None)
    line = next(row for row in render_terminal(doc).splitlines() if row.split()[:2] == ["greedy", "—"])
    assert line.split()[1:5] == ["—", "—", "80", "—"] and line.split()[5:9] == ["—", "55.5%", "77.1%", "—"], line
    assert "greedy / random: —" in render_markdown(doc, plots=False)
    assert len(write_plots(doc, tmp_path)) == 4


def test_the_report_of_a_run_is_the_one_bench_report_draws_from_its_results_json(tmp_path):
    """A decision time of 0.0124995 ms shows as 0.012 in the table, but written to 6 decimals
    it is 0.0125, which shows as 0.013: the tables printed at the end of a run and those
    ``bench report`` draws from its results.json must not differ by such a digit. Every
    measured figure is kept as the file holds it."""
    from dataclasses import replace

    from bench.records.model import RunPlan
    from bench.report.render import render_markdown, render_terminal
    from bench.report.summary import RunTiming, build_document, refresh_results, write_json
    from bench.run.play import play_deals
    from bots import bot_spec, make_bot
    from solver.documents import strict_json
    from solver.rules import Rules

    edge = 0.0124995e-3  # seconds
    records = [replace(r, plays=tuple(tuple(replace(p, seconds=edge) for p in row) for row in r.plays))
               for r in play_deals(["greedy", "random"], 2, 3, range(8))]
    rules = Rules.parse("basic")
    plan = RunPlan(("greedy", "random"), 2, 1, 3, rules.to_dict(), 60.0, "stop", "bench tournament ...")
    specs = [bot_spec(make_bot(name)) | {"identity": None} for name in plan.bots]
    doc = build_document(plan, rules, records, specs, RunTiming("sequential", 1, 0.0124995))
    assert doc["timing"]["decision_time_by_bot"]["greedy"]["median_ms"] == 0.0125
    write_json(doc, tmp_path / "results.json")
    again = refresh_results(strict_json((tmp_path / "results.json").read_text(), "results.json"))
    assert render_terminal(again) == render_terminal(doc)
    assert render_markdown(again, plots=False) == render_markdown(doc, plots=False)


# --- what the tables say of a run's faults, counts of one and figures that cannot be computed ---

FLAKY = "tests.plugin_bot:FlakyBot"  # raises on every hand that holds the ace of spades


def _played(specs: list[str], deals: range, on_fault: str = "stop", sessions: int = 1) -> dict:
    """The results document of ``deals`` of a 2-seat run of ``specs``, built in memory as a
    run builds it (marked partial when deals of its sessions are missing)."""
    from bench.records.model import RunPlan
    from bench.report.summary import RunTiming, build_document
    from bench.run.play import RunSettings, play_deals
    from bots import bot_spec, make_bot
    from solver.rules import Rules

    rules = Rules.parse("basic")
    settings = RunSettings(tuple(specs), 2, 3, rules, on_fault=on_fault)
    records = play_deals(specs, 2, 3, deals, settings=settings)
    plan = RunPlan(tuple(specs), 2, sessions, 3, rules.to_dict(), 60.0, on_fault, "bench tournament ...")
    described = [bot_spec(make_bot(spec)) | {"identity": None} for spec in plan.bots]
    doc = build_document(plan, rules, records, described, RunTiming("sequential", 1, 0.5))
    if len(records) < plan.deals:
        doc["partial"] = {"played_deal_count": len(records), "planned_deal_count": plan.deals}
    return dict(doc)


def test_faults_show_in_the_tables_and_the_report_only_when_there_are_any():
    """Under --on-fault foul a bot's faults are scored as fouls: the tables and report.md say how
    many and the first, beside the fouls they are counted in, and say nothing of faults in a
    run without any."""
    from bench.report.render import _percent, render_markdown, render_terminal

    doc = _played(["greedy", FLAKY], range(8), on_fault="foul")
    flaky = doc["results"]["by_bot"][FLAKY]
    count, first = flaky["fault_count"], flaky["first_faults"][0]
    assert count > 1 and doc["results"]["by_bot"]["greedy"]["fault_count"] == 0
    text = render_terminal(doc).splitlines()
    assert "  fouls  faults  " in text[2], text[2]
    row = next(line for line in text if line.startswith(FLAKY))
    assert row.split()[11:13] == [_percent(flaky["foul_rate"]), str(count)], row  # fouls, then faults
    line = (f"faults: {FLAKY} {count} of 16 plays, each scored as a foul; the first: deal {first['deal']}, "
            f"seat {first['seat']}: {first['error']}")
    assert line in text, text
    report = render_markdown(doc, plots=False)
    header = next(row for row in report.splitlines() if row.startswith("| bot |")).split(" | ")
    cells = next(row for row in report.splitlines() if row.startswith(f"| {FLAKY} |"))
    assert cells.split(" | ")[header.index("faults")] == str(count), cells
    lines = report.splitlines()
    bullet = lines.index(f"- {FLAKY}: {count} of 16 plays, each scored as a foul; the first {count}:")
    assert lines[bullet + 1:bullet + 1 + count] == [f"    - deal {f['deal']}, seat {f['seat']}: {f['error']}"
                                                    for f in flaky["first_faults"]]
    assert count == len(flaky["first_faults"]) and "ValueError: the ace of spades confuses me" in first["error"]
    clean = _played(["greedy", "random"], range(8))
    assert "fault" not in render_terminal(clean) and "fault" not in render_markdown(clean, plots=False).split("## Run")[0]


def test_a_count_of_one_is_singular():
    """One session, one seating, one deal, one job, one faulted play: no "1 sessions"."""
    from bench.report.render import render_markdown, render_terminal

    alone = _played(["greedy"], range(8))  # one bot: one seating of its two seats
    for text in (render_terminal(alone), render_markdown(alone, plots=False)):
        assert "greedy: 2 players, 1 session of 8 hands (8 deals, each replayed in 1 seating), rules basic" in text
        assert "8 deals in 0.5 s on sequential with 1 job: " in text
    stopped = _played(["greedy", "random"], range(1))
    for text in (render_terminal(stopped), render_markdown(stopped, plots=False)):
        assert "PARTIAL (1 of 8 deals; the run was stopped) greedy vs random: 2 players, 1 session of 8 hands " \
               "(1 deal, each replayed in 2 seatings)" in text, text
        assert "1 deal in 0.5 s on sequential with 1 job: " in text
    del alone["on_fault"]
    alone["records"][0]["plays"][0][0]["fault"] = "it raised"
    assert "so its 1 faulted play may not be the run's" in render_terminal(alone)


def test_a_stopped_run_shows_a_dash_for_what_its_deals_cannot_give():
    """Stopped after one deal: no session is complete and one deal has no spread, so the
    table printed at the end shows "—" there (as one drawn from its results.json does), never nan."""
    from bench.report.render import render_markdown, render_terminal

    doc = _played(["greedy", "random"], range(1))
    terminal, markdown = render_terminal(doc), render_markdown(doc, plots=False)
    for text in (terminal, markdown):
        assert "nan" not in text.lower() and "inf" not in text, text
    row = next(line for line in terminal.splitlines() if line.startswith("greedy "))
    assert row.split()[1:5] == ["—", "—", "1", "—"], row  # no spread from one deal, no session complete
    assert "| 1 | — |" in markdown


def test_a_bot_alone_has_no_empty_line_and_no_infinite_ratio():
    """One bot plays itself (docs/tournaments.md: a bot against itself scores exactly 0): no
    pair to set a hand alike, and every deal comes out the same, so the variance that
    duplicate cuts is undefined: said so, not "inf×", and no line without a pair."""
    from bench.report.render import render_markdown, render_terminal

    doc = _played(["greedy"], range(8))
    terminal, markdown = render_terminal(doc), render_markdown(doc, plots=False)
    for text in (terminal, markdown):
        assert "inf" not in text and "same arrangement of the same hand" not in text.lower(), text
        assert "the variance ratio of greedy is undefined: every deal came out the same" in text, text
    pair = _played(["greedy", "random"], range(8))
    assert "same arrangement of the same hand: greedy / random: " in render_terminal(pair)
    assert "duplicate cut the variance of a deal's result by: greedy " in render_terminal(pair)
