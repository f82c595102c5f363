"""What docs/journal.md, docs/match.md and docs/protocol.md promise of a run, tested from the
promise itself: journals doctored by the recipe docs/journal.md gives for their checks, a
match's standard error computed again from the deals it played, a protocol bot's answer that
is JSON but not an object."""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.cli import main as bench_main
from bench.records.deals import deal_table
from bots import make_bot
from solver import score_pair

ROOT = Path(__file__).resolve().parents[1]
JOURNAL = "journal.jsonl"  # docs/journal.md: the folder's journal


def _check(line: dict, previous: str) -> str:
    """A line's check, by the recipe of docs/journal.md ("The check")."""
    body = {k: v for k, v in line.items() if k != "check"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(previous.encode() + b"\n" + text.encode()).hexdigest()


def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / JOURNAL).read_text().splitlines()]


def _forge(folder: Path, header: dict, records: list[dict]) -> None:
    """A journal of ``records``, one a line, with every sequence number and check right: what
    anyone who means to forge a journal can write (docs/journal.md: a check is not a signature).
    A line of one record also makes a resume replay every record (it replays one a line)."""
    lines = [header]
    for seq, record in enumerate(records, start=1):
        lines.append({"check": "", "deals": [record["deal"]], "document": "journal-entry", "records": [record],
                      "run": header["run"], "schema_version": header["schema_version"], "seq": seq})
    previous = ""
    for line in lines:
        line["check"] = _check(line, previous)
        previous = line["check"]
    (folder / JOURNAL).write_text("".join(json.dumps(line) + "\n" for line in lines))


def _run(tmp_path: Path, name: str, *flags: str) -> Path:
    out = tmp_path / name
    assert bench_main(["tournament", "--bots", "greedy,heuristic", "--seed", "3", "--jobs", "1", "--backend", "sequential",
                       "--out", str(out),
                       *flags]) == 0
    return out


def _refused(folder: Path, capsys) -> str:
    """The one line a refused --resume prints (exit status 2, nothing written)."""
    capsys.readouterr()
    before = (folder / JOURNAL).read_bytes()
    status = bench_main(["tournament", "--resume", str(folder)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and err[0].startswith("bench tournament: error: "), err
    assert (folder / JOURNAL).read_bytes() == before
    return err[0]


def _alone(finished: Path, tmp_path: Path) -> Path:
    """A folder holding only the finished run's journal, to resume."""
    out = tmp_path / "resumed"
    out.mkdir()
    (out / JOURNAL).write_bytes((finished / JOURNAL).read_bytes())
    return out


# --- the journal ----------------------------------------------------------------------------------


def test_a_journal_record_of_the_deal_just_past_the_run_is_refused(tmp_path, capsys):
    """docs/journal.md: a resume checks "the deal within the run's deals". A run of one session
    plays deals 0 to 7; deal 8, taken from a run of two sessions of the same bots and seed, is
    a true record of that deal (its hands, dealer and plays all right), but not of this run."""
    one, two = _run(tmp_path, "one", "--sessions", "1"), _run(tmp_path, "two", "--sessions", "2")
    header, *entries = _lines(one)
    records = sorted((r for e in entries for r in e["records"]), key=lambda r: r["deal"])
    eighth = next(r for e in _lines(two)[1:] for r in e["records"] if r["deal"] == 8)
    out = _alone(one, tmp_path)
    _forge(out, header, records[:7] + [eighth])
    assert "deal 8 is outside the 8 deals of 1 session" in _refused(out, capsys)
    _forge(out, header, records)  # the same journal with its own last record is taken
    capsys.readouterr()
    assert bench_main(["tournament", "--resume", str(out)]) == 0


def test_a_journal_that_drops_a_declared_natural_is_refused_by_the_replay(tmp_path, capsys):
    """docs/journal.md: a resume plays deals again and compares each play with its record;
    docs/rules.md: every built-in bot but exhaustive declares the natural it holds. Seed 3 deals
    three flushes to seat 1 in deal 7, and both bots declare it; a journal whose record of that
    play says no natural (the same arrangement, values and foul, so every record check passes)
    holds a play these bots do not make."""
    run = _run(tmp_path, "run", "--sessions", "1", "--rules", "naturals")
    header, *entries = _lines(run)
    records = sorted((r for e in entries for r in e["records"]), key=lambda r: r["deal"])
    assert [(p.get("natural") or {}).get("kind") for p in records[7]["plays"][0]] == [None, "three flushes"]
    out = _alone(run, tmp_path)
    del records[7]["plays"][0][1]["natural"]
    _forge(out, header, records)
    refused = _refused(out, capsys)
    assert "deal 7, bot 'greedy' in seat 1: the journal records 'none', the bot plays" in refused
    assert "three flushes" in refused


# --- bench match ------------------------------------------------------------------------------------


def test_a_matchs_mean_and_standard_error_are_those_of_its_deals(capsys):
    """docs/match.md: one observation is A's units on a deal averaged over the two seatings; the
    mean comes with its standard error and 95% interval. Computed again here from the deals
    themselves (each dealt by the seed, each hand set by the bots, each pairing scored): the
    sample standard deviation over the square root of the number of deals."""
    capsys.readouterr()
    status = bench_main(["match", "greedy", "heuristic", "--sprt=-3,3", "--max-deals", "32", "--seed", "4",
                         "--jobs", "1", "--backend", "sequential", "--json", "--estimator", "duplicate"])
    assert status == 0
    doc = json.loads(capsys.readouterr().out)
    n = doc["deal_count"]
    assert n in (16, 32)
    a, b = make_bot("greedy"), make_bot("heuristic")
    rng = np.random.default_rng(0)  # neither bot draws from it
    observed = []
    for deal in range(n):
        first, second = deal_table(4, deal, 2).tolist()
        a_first = score_pair(a.arrange(first, rng), b.arrange(second, rng))  # A in seat 0
        a_second = score_pair(a.arrange(second, rng), b.arrange(first, rng))  # A in seat 1
        observed.append((a_first + a_second) / 2)
    se = statistics.stdev(observed) / n**0.5
    assert se > 0
    assert doc["mean"] == pytest.approx(statistics.fmean(observed), abs=1e-6)
    assert doc["se"] == pytest.approx(se, rel=1e-5)
    assert doc["ci95"] == pytest.approx([statistics.fmean(observed) - 1.959964 * se,
                                         statistics.fmean(observed) + 1.959964 * se], rel=1e-5)


# --- the protocol -----------------------------------------------------------------------------------


def _misbehaving(tmp_path: Path, mode: str) -> Path:
    """A bot file for tests/protocol/misbehaving.py: it misbehaves on hands with the ace of spades."""
    path = tmp_path / f"{mode}.toml"
    command = [sys.executable, str(ROOT / "tests" / "protocol" / "misbehaving.py"), mode, str(tmp_path / "flag")]
    path.write_text(f'name = "misbehaving-{mode}"\ncommand = {json.dumps(command)}\n')
    return path


def test_an_answer_that_is_json_but_not_an_object_is_a_bad_answer(tmp_path):
    """docs/protocol.md: a bad answer is "a line that is not a JSON object"; the process is kept
    and the next request goes to it."""
    from bots import BotFault
    from solver import parse_hand

    rng = np.random.default_rng(0)
    with make_bot(str(_misbehaving(tmp_path, "array"))) as bot:
        with pytest.raises(BotFault, match=r"answered hand AS KS .* with '\[\]', not a JSON object"):
            bot.arrange(parse_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"), rng)
        hand = parse_hand("KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C 3C")
        assert sorted(bot.arrange(hand, rng).cards) == sorted(hand)
        assert bot.faults == {"bad answer": 1} and bot.restarts == 0


def test_a_tournament_under_on_fault_foul_goes_on_past_answers_that_are_not_objects(tmp_path, capsys):
    """docs/protocol.md: under ``--on-fault foul`` a run scores the faulted hand as a foul,
    records the fault and goes on. The bot answers ``[]`` to every hand with the ace of spades:
    exactly those hands are faults, fouled, and the run ends normally."""
    bot = _misbehaving(tmp_path, "array")
    out = tmp_path / "run"
    capsys.readouterr()
    status = bench_main(["tournament", "--bots", f"greedy,{bot}", "--sessions", "1", "--seed", "2", "--jobs", "1",
                         "--backend", "sequential", "--on-fault", "foul", "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    records = json.loads((out / "results.json").read_text())["records"]
    faulted = [(r["deal"], seat) for r in records for seat, p in enumerate(r["plays"][1]) if p.get("fault")]
    aces = [(r["deal"], seat) for r in records for seat, hand in enumerate(r["hands"]) if "AS" in hand.split()]
    assert aces and faulted == aces
    for play in (p for r in records for p in r["plays"][1] if p.get("fault")):
        assert play["foul"] is True and "not a JSON object" in play["fault"], play
