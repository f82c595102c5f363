"""What ``bench tournament`` and ``bench match`` say when a run ends in an unusual way: a
count of one, a bot alone, a stop after one deal, a fault under ``--json``."""

from __future__ import annotations

import errno

import pytest

from bench.cli import main as bench_main
from bench.run.play import play_deals

FLAKY = "tests.plugin_bot:FlakyBot"  # raises on every hand that holds the ace of spades
QUICK = ["--seed", "2", "--jobs", "1", "--backend", "sequential"]


def _one_deal(records: list, *rest) -> None:
    """Play deal 0 of greedy against random into ``records``, as a run's workers would."""
    records.extend(play_deals(["greedy", "random"], 2, 2, [0]))


def test_a_tournament_of_one_bot_plays_it_against_itself(capsys):
    """One spec is a bot against itself (docs/tournaments.md): its fouls, faults and times are
    what such a run is for; its tables say nothing empty and nothing infinite."""
    assert bench_main(["tournament", "--bots", "greedy", "--sessions", "1", *QUICK]) == 0
    out = capsys.readouterr().out
    assert "greedy: 2 players, 1 session of 8 hands (8 deals, each replayed in 1 seating)" in out, out
    assert "inf" not in out and not any(line.rstrip().endswith(":") for line in out.splitlines()), out


def test_a_journal_that_fails_after_one_deal_says_deal(tmp_path, capsys, monkeypatch):
    from bench.cli.commands import tournament
    from bench.run.journal import JournalError

    def one_then_full(run_settings, missing, records, *rest) -> None:
        _one_deal(records)
        raise JournalError("cannot write journal.jsonl: no space left on device")

    monkeypatch.setattr(tournament, "_play", one_then_full)
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,random", "--sessions", "1", "--out", str(out), *QUICK]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "; the journal keeps the 1 deal played before it; once there is room, continue with: " in err, err


def test_results_that_cannot_be_written_after_one_deal_say_deal(tmp_path, capsys, monkeypatch):
    from bench.cli.commands import tournament

    def full(doc, path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(tournament, "_play", lambda run_settings, missing, records, *rest: _one_deal(records))
    monkeypatch.setattr(tournament, "write_json", full)
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,random", "--sessions", "1", "--out", str(out), *QUICK]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert ": no space left on device; the journal keeps the 1 deal played; once there is room, write it with: " \
           "bench tournament --resume " in err, err


def test_a_match_stopped_after_one_deal_says_deal(capsys, monkeypatch):
    from bench.cli.commands import match
    from solver.interrupts import Stopped

    def one_then_stop(settings, chunks, finished, **kwargs) -> None:
        finished(play_deals(["greedy", "random"], 2, 2, [0], settings=settings))  # the match's own settings
        raise Stopped()

    monkeypatch.setattr(match, "run_chunks", one_then_stop)
    assert bench_main(["match", "greedy", "random", "--max-deals", "1", *QUICK]) == 130
    out, err = capsys.readouterr()
    assert "stopped by SIGINT after 1 deal looked at" in err and "no decision (stopped) after 1 deal " in out, (out, err)


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["tournament", "--bots", f"greedy,{FLAKY}", "--sessions", "1"],
    ["match", "greedy", FLAKY, "--max-deals", "16"],
])  # fmt: skip
def test_a_fault_under_json_prints_no_document_and_one_line(capsys, argv):
    """--json prints a document only for a run that ends (done, or stopped by a signal, its
    deals so far); a fault that ends it is what every command's error is: nothing on stdout,
    one line on stderr and exit status 1 (docs/tournaments.md, docs/match.md)."""
    assert bench_main([*argv, *QUICK, "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    said = ["seed entropy 2 (replay with --seed 2)"]
    if argv[0] == "match":  # the estimator it chose, and why; and that 16 deals cannot reach its minimum
        said += ["estimator: the field estimator (both plays of each hand against the same 1,000 opponents, set by "
                 "greedy) (A as the field)",
                 "--max-deals 16 is below the 528 deals the test takes before it decides: the match will end "
                 "undecided (docs/match.md)"]
    assert lines[:-1] == said, lines
    assert lines[-1].startswith(f"bench {argv[0]}: error: deal ") and "the ace of spades confuses me" in lines[-1]
