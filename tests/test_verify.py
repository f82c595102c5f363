"""``bench verify DIR``: every deal of a run's journal played again and compared with its record.

A forger who edits a play and computes the journal's checks again passes every check of the
journal (and a resume's sampled replay, unless it happens to pick that deal); only a full
replay finds the deal. Bots that cannot be replayed here are reported as such, never as a
difference."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

import jsonschema
import numpy as np
import pytest

from bench.records.check import Run, records_problem
from bench.run.journal import JOURNAL, Journal
from solver import Arrangement, Card, all_splits
from tests.helpers import ENV, ROOT, bench

RUN = ["tournament", "--bots", "greedy,table", "--sessions", "3", "--seed", "3", "--jobs", "1"]
DEALS = 24
HOLD = "VERIFY_TEST_HOLD"  # a folder: HeldBot says it started there, and waits for a file "go" in it


class HeldBot:
    """Plays the first legal split; when ``$VERIFY_TEST_HOLD`` names a folder, it first leaves
    a file ``started`` there and waits until a file ``go`` appears: a replay held in its first
    decision, for as long as a test needs."""

    name: ClassVar[str] = "held"

    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        folder = os.environ.get(HOLD)
        if folder:
            Path(folder, "started").touch()
            while not Path(folder, "go").exists():
                time.sleep(0.01)
        splits = all_splits(cards)
        return splits.arrangement(int(np.flatnonzero(splits.legal)[0]))


def _chained(lines: list[dict]) -> list[dict]:
    """The lines with the checks a forger computes from docs/journal.md: each the sha256 of the
    previous line's check, a newline and the line's canonical JSON without its check."""
    previous = ""
    for line in lines:
        body = json.dumps({k: v for k, v in line.items() if k != "check"}, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False)
        line["check"] = hashlib.sha256(previous.encode() + b"\n" + body.encode()).hexdigest()
        previous = line["check"]
    return lines


def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / JOURNAL).read_text().splitlines()]


def _write(folder: Path, lines: list[dict]) -> None:
    (folder / JOURNAL).write_text("".join(json.dumps(line) + "\n" for line in lines))


def _verify(folder: Path, *flags: str) -> tuple[int, dict, str]:
    """``bench verify DIR --json`` as a user runs it: its status, document and stderr."""
    done = bench("verify", str(folder), "--json", *flags)
    return done.returncode, json.loads(done.stdout) if done.stdout else {}, done.stderr


def _valid(doc: dict) -> dict:
    schema = json.loads((ROOT / "bench" / "records" / "schemas" / "verify.schema.json").read_text())
    assert [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)] == []
    return doc


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("honest") / "run"
    done = bench(*RUN, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def _copy(honest: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    shutil.copy(honest / JOURNAL, out / JOURNAL)
    return out


def _swapped(lines: list[dict], line: int) -> tuple[int, int]:
    """Give greedy, in the first deal of journal line ``line`` where the two bots set a seat's
    hand apart, the table bot's play of it: a legal play of the right hand with its right values,
    that greedy does not make. Returns (deal, seat)."""
    for record in lines[line]["records"]:
        for seat in range(2):
            if record["plays"][0][seat]["arrangement"] != record["plays"][1][seat]["arrangement"]:
                record["plays"][0][seat] = dict(record["plays"][1][seat])
                return record["deal"], seat
    raise AssertionError("no deal where the bots play apart")


def test_a_small_run_verifies_and_an_edited_play_is_found(tmp_path, capsys):
    """The fast tier's share, in this process: one session of greedy and random verifies, and
    greedy's play of one hand, given the random bot's with the checks computed again, is found."""
    from bench.cli import main as bench_main

    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,random", "--sessions", "1", "--seed", "2", "--jobs", "1",
                       "--out", str(out)]) == 0
    capsys.readouterr()
    assert bench_main(["verify", str(out), "--json", "--jobs", "1"]) == 0
    doc = _valid(json.loads(capsys.readouterr().out))
    assert doc["verified"] is True and doc["deal_count"] == doc["matched_deal_count"] == 8
    lines = _lines(out)
    deal, _ = _swapped(lines, 1)
    _write(out, _chained(lines))
    assert bench_main(["verify", str(out), "--json", "--jobs", "1"]) == 1
    doc = _valid(json.loads(capsys.readouterr().out))
    assert doc["verified"] is False and [d["deal"] for d in doc["differences"]] == [deal]


@pytest.mark.slow
def test_an_honest_run_verifies_with_its_counts(honest):
    status, doc, err = _verify(honest, "--jobs", "1")
    assert status == 0, err
    _valid(doc)
    assert doc["verified"] is True and doc["journal_problem"] is None
    assert doc["deal_count"] == doc["replayed_deal_count"] == doc["matched_deal_count"] == DEALS
    assert doc["differing_deal_count"] == 0 and doc["differences"] == [] and doc["unreplayable_bots"] == []
    assert doc["compared_play_count"] == DEALS * 2 * 2  # bots by seats by deals
    assert doc["replayed_bots"] == ["greedy", "table"] and doc["run"] == _lines(honest)[0]["run"]
    assert doc["results_deal_count"] == DEALS and doc["results_problem"] is None
    assert doc["cut_line_dropped"] is False


@pytest.mark.slow
def test_a_hard_linked_journal_is_read_and_left_as_it_was(honest, tmp_path):
    """Verifying only reads: a journal with a second name (which --resume refuses, since it
    appends) verifies, and neither name's contents change."""
    out = _copy(honest, tmp_path)
    os.link(out / JOURNAL, tmp_path / "elsewhere.jsonl")
    before = (out / JOURNAL).read_bytes()
    status, doc, err = _verify(out, "--jobs", "1")
    assert status == 0 and doc["verified"] is True and doc["deal_count"] == DEALS, err
    assert (out / JOURNAL).read_bytes() == (tmp_path / "elsewhere.jsonl").read_bytes() == before
    assert os.stat(out / JOURNAL).st_nlink == 2


@pytest.mark.slow
def test_a_last_line_cut_short_is_left_out_and_said(honest, tmp_path):
    out = _copy(honest, tmp_path)
    text = (out / JOURNAL).read_text()
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    (out / JOURNAL).write_text(text[: len(text) - len(last) // 2 - 1])
    kept = sum(len(line["records"]) for line in _lines(honest)[1:-1])
    status, doc, err = _verify(out, "--jobs", "1")
    assert status == 0, err
    assert _valid(doc)["cut_line_dropped"] is True and doc["deal_count"] == doc["matched_deal_count"] == kept < DEALS
    table = bench("verify", str(out), "--jobs", "1")
    assert "the journal's last line was cut short" in table.stdout


@pytest.mark.slow
def test_the_table_says_what_was_replayed_and_found(honest):
    done = bench("verify", str(honest), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "24 deals replayed, 24 match, 0 differ" in done.stdout and done.stdout.startswith("run ")


@pytest.mark.slow
def test_a_doctored_deal_with_its_checks_computed_again_passes_the_chain_but_not_verify(honest, tmp_path):
    out = _copy(honest, tmp_path)
    lines = _lines(out)
    assert len(lines) >= 4
    deal, seat = _swapped(lines, 3)
    _write(out, _chained(lines))
    contents = Journal.read(out / JOURNAL)  # every check of the chain holds
    assert records_problem(contents.records, Run.of_plan(contents.plan)) is None  # and the records are those of the deals
    status, doc, err = _verify(out, "--jobs", "1")
    assert status == 1, err
    _valid(doc)
    assert doc["verified"] is False and doc["differing_deal_count"] == 1 and doc["matched_deal_count"] == DEALS - 1
    first = doc["differences"][0]
    assert (first["deal"], first["seat"], first["bot"], first["field"]) == (deal, seat, "greedy", "arrangement")
    forged = next(r for r in lines[3]["records"] if r["deal"] == deal)["plays"][0][seat]["arrangement"]
    assert first["recorded"] == " / ".join(forged[row] for row in ("front", "middle", "back")) != first["replayed"]
    table = bench("verify", str(out), "--jobs", "1")
    assert table.returncode == 1
    assert f"deal {deal}, seat {seat}, bot 'greedy': the journal records arrangement" in table.stdout
    assert f"NOT verified: 24 deals replayed, 23 match, 1 differ (first: deal {deal})" in table.stdout


@pytest.mark.slow
def test_the_differences_do_not_depend_on_the_workers(honest, tmp_path):
    """Deals doctored on every line: the same document from one worker and from two threads."""
    out = _copy(honest, tmp_path)
    lines = _lines(out)
    for line in range(1, len(lines)):
        _swapped(lines, line)
    _write(out, _chained(lines))
    one = _verify(out, "--jobs", "1")
    two = _verify(out, "--jobs", "2", "--backend", "threading")
    assert one[0] == two[0] == 1
    assert one[1] == two[1] and one[1]["differing_deal_count"] == len(lines) - 1
    assert [d["deal"] for d in one[1]["differences"]] == sorted(d["deal"] for d in one[1]["differences"])


def _swap_in_results(results: dict) -> None:
    """The journal's own swap (:func:`_swapped`), done to results.json's records."""
    _swapped([{}, {"records": results["records"]}], 1)


@pytest.mark.slow
@pytest.mark.parametrize("doctor, message", [
    (lambda doc: doc["results"]["by_bot"]["greedy"]["units_per_hand"].update(mean=2.5),
     "its results are not those its records give"),
    (_swap_in_results, "its record of deal 0 is not the journal's"),
    (lambda doc: doc["bots"][0].update(spec="heuristic"), "it names other bots than the journal"),
    (lambda doc: doc.pop("records"), "it is not a results.json that bench tournament wrote"),
    (lambda doc: doc.update(on_fault="foul"), "its on_fault is not the journal's"),
    (lambda doc: doc.update(decision_timeout=5.0), "its decision_timeout is not the journal's"),
], ids=["results", "record", "bots", "shape", "fault policy", "time limit"])
def test_a_results_json_that_is_not_the_journals_is_found(honest, tmp_path, doctor, message):
    """The journal is honest; the results.json beside it was edited: its scores, a play of
    its records, its bots, its shape, its fault policy or time limit."""
    out = _copy(honest, tmp_path)
    results = json.loads((honest / "results.json").read_text())
    doctor(results)
    (out / "results.json").write_text(json.dumps(results))
    status, doc, err = _verify(out, "--jobs", "1")
    assert status == 1, err
    assert _valid(doc)["differing_deal_count"] == 0 and doc["verified"] is False
    assert message in doc["results_problem"]


@pytest.mark.slow
def test_a_journal_edited_without_its_checks_is_damaged(honest, tmp_path):
    out = _copy(honest, tmp_path)
    lines = _lines(out)
    _swapped(lines, 2)
    _write(out, lines)
    done = bench("verify", str(out), "--jobs", "1")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"bench verify: {out}: the journal is damaged: {out / JOURNAL} line 3 fails its check: it was changed after "
        "it was written, or comes from elsewhere"]
    status, doc, _ = _verify(out, "--jobs", "1")
    assert status == 1 and _valid(doc)["journal_problem"].endswith("or comes from elsewhere")
    assert doc["verified"] is False and "deal_count" not in doc


@pytest.mark.slow
def test_records_that_are_not_the_runs_deals_are_damage(honest, tmp_path):
    out = _copy(honest, tmp_path)
    lines = _lines(out)
    lines[2]["records"][0]["hands"].reverse()
    _write(out, _chained(lines))
    status, doc, _ = _verify(out, "--jobs", "1")
    assert status == 1 and "holds other hands than seed 3 deals" in _valid(doc)["journal_problem"]


DICE = """import json, random, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "dice", "protocol": 2, "random": True}), flush=True)
    elif message["type"] == "arrange":
        cards = message["hand"].split()
        random.shuffle(cards)
        rows = {"front": cards[:3], "middle": cards[3:8], "back": cards[8:]}
        print(json.dumps({"id": message["id"], **{k: " ".join(v) for k, v in rows.items()}}), flush=True)
    else:
        break
"""


def _protocol_bot(folder: Path, dice: bool = False) -> Path:
    """The example protocol bot that sorts its hand, or (``dice``) one that deals its cards into
    rows at random and says so in its hello (``"random": true``)."""
    folder.mkdir(parents=True)
    if dice:
        (folder / "sorted_bot.py").write_text(DICE)
    else:
        shutil.copy(ROOT / "examples" / "bots" / "sorted_bot.py", folder / "sorted_bot.py")
    toml = folder / "bot.toml"
    toml.write_text(f'name = "sorted-py"\ncommand = ["{sys.executable}", "sorted_bot.py"]\n')
    return toml


@pytest.mark.slow
@pytest.mark.parametrize("dice, change, reason", [
    (False, lambda toml: (toml.parent / "sorted_bot.py").write_text((toml.parent / "sorted_bot.py").read_text()
                                                                     + "\n#\n"), "sorted_bot.py changed (sha256"),
    (False, lambda toml: toml.unlink(), "it cannot be made on this machine"),
    (True, lambda toml: None, "randomness of its own"),
], ids=["changed", "missing", "random"])
def test_a_bot_that_cannot_be_replayed_is_reported_as_such_not_as_a_difference(tmp_path, dice, change, reason):
    toml = _protocol_bot(tmp_path / "bot", dice)
    out = tmp_path / "run"
    done = bench("tournament", "--bots", f"greedy,{toml}", "--sessions", "1", "--seed", "2", "--jobs", "1",
                 "--out", str(out))
    assert done.returncode == 0, done.stderr
    change(toml)
    status, doc, err = _verify(out, "--jobs", "1", "--bots", str(toml))
    assert status == 0, err
    _valid(doc)
    assert doc["replayed_bots"] == ["greedy"] and doc["differing_deal_count"] == 0
    assert doc["replayed_deal_count"] == doc["matched_deal_count"] == 8 and doc["compared_play_count"] == 8 * 2
    [unreplayable] = doc["unreplayable_bots"]
    assert unreplayable["bot"] == str(toml) and reason in unreplayable["reason"] and unreplayable["deal_count"] == 8
    table = bench("verify", str(out), "--jobs", "1", "--bots", str(toml))
    assert table.returncode == 0 and f"not replayable  8 deals  bot {str(toml)!r}: " in table.stdout


@pytest.mark.slow
def test_outside_text_reaches_the_terminal_as_one_printable_line(honest, tmp_path):
    """A header whose package version holds a new line and a line of its own: the note that
    names it stays one line, so a journal cannot print a verdict of its choosing."""
    out = _copy(honest, tmp_path)
    lines = _lines(out)
    lines[0]["identity"]["package"]["version"] = "9\nverified: ok\x1b[2J"
    _write(out, _chained(lines))
    table = bench("verify", str(out), "--jobs", "1")
    assert table.returncode == 0, table.stderr
    assert not [line for line in table.stdout.splitlines() if line.startswith("verified: ok")]
    assert "\x1b" not in table.stdout
    [note] = [line for line in table.stdout.splitlines() if line.startswith("note: the package's version")]
    assert "9\\u000averified: ok\\u001b[2J" in note


@pytest.mark.slow
@pytest.mark.parametrize("where, message", [
    (lambda tmp: tmp / "nothing", "is not a folder"),
    (lambda tmp: tmp, "holds no run: there is no journal.jsonl in it"),
    (lambda tmp: (tmp / "file").write_text("x") and tmp / "file", "is not a folder"),
    (lambda tmp: (tmp / JOURNAL).symlink_to(tmp / "elsewhere.jsonl") or tmp, "it is a link"),
    (lambda tmp: (tmp / JOURNAL).mkdir() or tmp, "folder, not a regular file"),
], ids=["no-folder", "no-run", "a-file", "journal-a-link", "journal-a-folder"])
def test_usage_errors_are_one_line_with_status_2(tmp_path, where, message):
    done = bench("verify", str(where(tmp_path)))
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("bench verify: error: ") and message in line


@pytest.mark.slow
def test_a_journal_of_another_version_is_a_usage_error(honest, tmp_path):
    out = _copy(honest, tmp_path)
    lines = _lines(out)
    lines[0]["schema_version"] = 99
    _write(out, _chained(lines))
    done = bench("verify", str(out))
    assert done.returncode == 2 and "schema_version 99" in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.slow
def test_ctrl_c_stops_at_once_with_one_line_of_what_was_checked(tmp_path):
    """The replay is held in a decision until the test says go; SIGINT there ends the command
    with status 130 and one line, never a traceback, and the bot is never let go."""
    hold = tmp_path / "hold"
    hold.mkdir()
    (hold / "go").touch()
    out = tmp_path / "run"
    env = ENV | {HOLD: str(hold)}
    done = bench("tournament", "--bots", "greedy,tests.test_verify:HeldBot", "--sessions", "1", "--seed", "1",
                 "--jobs", "1", "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    (hold / "go").unlink()
    (hold / "started").unlink()
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", "verify", str(out), "--jobs", "1", "--bots",
                                "tests.test_verify:HeldBot"], cwd=ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300  # a guard against a hang only
    while not (hold / "started").exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert stdout == "" and "Traceback" not in stderr
    assert stderr.strip().splitlines() == ["bench verify: stopped by SIGINT after replaying 0 of 8 deals: 0 match, "
                                           "0 differ"]


@pytest.mark.slow
def test_the_schema_refuses_a_count_given_as_text(honest):
    _, doc, _ = _verify(honest, "--jobs", "1")
    schema = json.loads((ROOT / "bench" / "records" / "schemas" / "verify.schema.json").read_text())
    for wrong in ({"matched_deal_count": "24"}, {"verified": "yes"}, {"differences": [{"deal": 1}]}):
        assert list(jsonschema.Draft202012Validator(schema).iter_errors(doc | wrong))


@pytest.mark.slow
def test_decisions_that_failed_are_counted_not_compared(tmp_path):
    """A bot that raises on every hand with the ace of spades, under --on-fault foul: its faults
    in the journal are neither differences nor matches; every other play is compared."""
    out = tmp_path / "run"
    done = bench("tournament", "--bots", "greedy,tests.plugin_bot:FlakyBot", "--on-fault", "foul", "--sessions", "1",
                 "--seed", "2", "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    faults = sum("fault" in play for line in _lines(out)[1:] for r in line["records"] for row in r["plays"]
                 for play in row)
    status, doc, err = _verify(out, "--jobs", "1", "--bots", "tests.plugin_bot:FlakyBot")
    assert status == 0, err
    assert 0 < _valid(doc)["uncompared_fault_count"] == faults
    assert doc["compared_play_count"] + faults == 8 * 2 * 2 and doc["matched_deal_count"] == 8


@pytest.mark.slow
def test_a_results_json_that_is_a_link_is_not_read_through_it(honest, tmp_path):
    """A run folder's files are its own: a results.json linked from elsewhere (here, the honest
    run's very own) is refused, not read through the link (``solver.files``)."""
    out = _copy(honest, tmp_path)
    (out / "results.json").unlink(missing_ok=True)
    (out / "results.json").symlink_to(honest / "results.json")
    status, doc, err = _verify(out, "--jobs", "1")
    assert status == 1, err
    assert doc["verified"] is False and "is a link" in doc["results_problem"]


def _starter(folder: Path, marker: Path) -> Path:
    """A protocol bot file whose program leaves ``marker`` behind when it is started."""
    folder.mkdir(parents=True, exist_ok=True)
    toml = folder / "starter.toml"
    toml.write_text(f'name = "starter"\ncommand = ["touch", "{marker}"]\nstartup_timeout = 5\n')
    return toml


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["{toml}", "exhaustive:samples=10:opponent={toml}"], ids=["protocol", "opponent"])
def test_a_journal_that_names_a_bot_from_elsewhere_does_not_start_it(honest, tmp_path, spec):
    """A header forged to name a protocol bot, directly or as the opponent of a built-in bot,
    with its checks computed again: verify reports the bot as not replayed and names --bots;
    the program is never started unless --bots names the spec."""
    marker = tmp_path / "started"
    spec = spec.format(toml=_starter(tmp_path / "elsewhere", marker))
    out = _copy(honest, tmp_path)
    lines = _lines(out)
    header = lines[0]
    header["settings"]["bots"][1] = header["identity"]["bots"][1]["spec"] = spec
    _write(out, _chained(lines))
    status, doc, err = _verify(out, "--jobs", "1")
    assert status == 0, err
    assert not marker.exists()
    assert _valid(doc)["replayed_bots"] == ["greedy"]
    [unreplayable] = doc["unreplayable_bots"]
    assert unreplayable["bot"] == spec and "is not a built-in bot, and making it runs its code" in unreplayable["reason"]
    assert unreplayable["reason"].endswith(f"verify with --bots {spec}")
    status, doc, err = _verify(out, "--jobs", "1", "--bots", spec)
    assert marker.exists()  # vouched for: made, and it fails as this program does not answer
    assert "it cannot be made on this machine" in doc["unreplayable_bots"][0]["reason"]


@pytest.mark.slow
def test_a_bot_from_elsewhere_named_with_bots_is_replayed(tmp_path):
    out = tmp_path / "run"
    done = bench("tournament", "--bots", "greedy,tests.test_verify:HeldBot", "--sessions", "1", "--seed", "2",
                 "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    status, doc, err = _verify(out, "--jobs", "1")
    assert status == 0 and _valid(doc)["replayed_bots"] == ["greedy"], err
    status, doc, err = _verify(out, "--jobs", "1", "--bots", "tests.test_verify:HeldBot")
    assert status == 0 and doc["verified"], err
    assert doc["replayed_bots"] == ["greedy", "tests.test_verify:HeldBot"] and doc["unreplayable_bots"] == []
    assert doc["matched_deal_count"] == 8


@pytest.mark.slow
def test_bots_that_name_no_bot_of_the_run_are_refused_and_unproven_plays_are_said(tmp_path):
    toml = _protocol_bot(tmp_path / "bot")
    out = tmp_path / "run"
    done = bench("tournament", "--bots", f"greedy,{toml}", "--sessions", "1", "--seed", "2", "--jobs", "1",
                 "--out", str(out))
    assert done.returncode == 0, done.stderr
    typo = bench("verify", str(out), "--jobs", "1", "--bots", str(toml)[:-1])
    assert typo.returncode == 2 and typo.stdout == "", typo.stderr
    assert typo.stderr.strip().splitlines() == [f"bench verify: error: --bots {str(toml)[:-1]!r} is not a bot of "
                                                f"this run; its bots: greedy,{toml}"]
    table = bench("verify", str(out), "--jobs", "1")
    assert table.returncode == 0 and table.stdout.strip().splitlines()[-1] == (
        "verified: 8 deals replayed, 8 match, 0 differ; the plays of 1 bot not replayed are unproven"), table.stdout
