"""``bench match --estimator``: which estimator runs, what is refused, and how a field match ends
(docs/match.md)."""

from __future__ import annotations

import json

import pytest

from bench.cli import main as bench_main
from bench.cli.commands import match

QUICK = ["--seed", "1", "--jobs", "1", "--backend", "sequential"]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        status = bench_main(["match", *argv])
    except SystemExit as exit:  # the argument parser's refusal
        status = int(exit.code or 0)
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize(("argv", "words"), [
    (["table", "greedy", "--estimator", "field", "--rules", "naturals"], "under rules with naturals use --estimator duplicate"),
    (["table", "greedy", "--field", "cmd:./bot"], "runs in another process"),
    (["table", "greedy", "--field", "exhaustive"], "cannot set the simulated opponents"),
    (["table", "greedy", "--estimator", "duplicate", "--field", "table"], "belong to --estimator field"),
    (["random", "exhaustive:samples=10", "--estimator", "field"], "name a bot of this package with --field"),
    (["table", "greedy", "--field-samples", "0"], "--field-samples"),
])
def test_a_field_that_cannot_run_is_refused_in_one_line(capsys, argv, words):
    status, out, err = _run(capsys, *argv, *QUICK)
    assert status == 2 and not out
    assert len(err.strip().splitlines()) == 1 and words in err, err


@pytest.mark.parametrize(("argv", "expected"), [
    (["table", "greedy"], ("field", "greedy")),
    (["greedy", "random"], ("field", "greedy")),  # random sets hands one by one: A is the field
    (["table", "greedy", "--field", "heuristic", "--field-samples", "50"], ("field", "heuristic")),
    (["table", "greedy", "--rules", "naturals"], ("duplicate", None)),
    (["random", "exhaustive:samples=10"], ("duplicate", None)),
    (["table", "greedy", "--estimator", "duplicate"], ("duplicate", None)),
    # a plug-in (greedy by its import path) is the field only where no bot of this package can be
    (["heuristic", "bots.greedy:GreedyBot", "--field-samples", "50"], ("field", "heuristic")),
    (["bots.greedy:GreedyBot", "heuristic", "--field-samples", "50"], ("field", "heuristic")),
    (["bots.heuristic:HeuristicBot", "bots.greedy:GreedyBot", "--field-samples", "50"],
     ("field", "bots.greedy:GreedyBot")),
    (["bots.greedy:GreedyBot", "random", "--field-samples", "50"], ("field", "bots.greedy:GreedyBot")),
])
def test_the_estimator_and_its_field_are_chosen_and_said(capsys, argv, expected):
    status, out, err = _run(capsys, *argv, "--max-deals", "1", "--json", *QUICK)
    assert status == 0, err
    doc = json.loads(out)
    assert (doc["estimator"]["name"], doc["estimator"]["field"]) == expected
    assert f"estimator: {'the field estimator' if expected[0] == 'field' else 'duplicate results'}" in err
    assert doc["look_deal_count"] == 16
    assert doc["estimator"]["minimum_deal_count"] == match.deals_minimum(0.05, 0.05)  # by either estimator


def test_a_protocol_b_is_said_to_be_no_field_when_a_bot_of_this_package_is_the_field(capsys):
    status, _, err = _run(capsys, "table", "examples/bots/sorted_bot.toml", "--field-samples", "50", "--max-deals", "1",
                          *QUICK)
    assert status == 0, err
    assert ("set by table) (A as the field; B cannot be: the field bot 'examples/bots/sorted_bot.toml' runs in "
            "another process") in err, err


def test_a_bot_of_this_package_is_the_field_before_a_plugin_and_the_match_says_so(capsys):
    status, _, err = _run(capsys, "heuristic", "bots.greedy:GreedyBot", "--field-samples", "50", "--max-deals", "1",
                          *QUICK)
    assert status == 0, err
    assert ("(both plays of each hand against the same 50 opponents, set by heuristic) (A as the field, a bot of this "
            "package, before B, a plug-in)\n") in err, err


@pytest.mark.slow
def test_bots_that_play_alike_end_with_neither_hypothesis(capsys):
    """table and table:rules=basic set every hand alike: after ALIKE_DEALS deals that all came
    out exactly 0, and not before the test's minimum, the match ends with that statement, never
    with H0 or H1."""
    status, out, err = _run(capsys, "table", "table:rules=basic", "--sprt=-0.001,0.001", "--json", *QUICK)
    assert status == 0, err
    doc = json.loads(out)
    ends = max(match.ALIKE_DEALS, match.deals_minimum(0.05, 0.05))
    assert doc["decision"] == "alike" and doc["verdict"] is None and doc["deal_count"] == ends == 528
    assert "scored exactly alike" in doc["no_evidence"] and "play alike" in doc["no_evidence"]
    status, out, err = _run(capsys, "table", "table:rules=basic", "--sprt=-0.001,0.001", "--estimator", "duplicate",
                            *QUICK)
    assert "neither hypothesis after 528 deals" in out.splitlines()[0]
    assert "differ on fewer than 0.57% of deals" in out.splitlines()[0]


@pytest.mark.slow
def test_a_clear_difference_waits_for_the_minimum_and_then_decides(capsys):
    """table against random: the field estimator decides H1 at its first chance, after its minimum
    of deals, never before; the duplicate figure of the same deals agrees."""
    status, out, err = _run(capsys, "table", "random", "--sprt", "0,0.5", "--json", "--jobs", "2", "--seed", "5")
    assert status == 0, err
    doc = json.loads(out)
    assert doc["decision"] == "H1" and doc["estimator"]["name"] == "field" and doc["estimator"]["field"] == "table"
    assert doc["deal_count"] == match.deals_minimum(0.05, 0.05) == doc["estimator"]["minimum_deal_count"]
    assert abs(doc["mean"] - doc["duplicate"]["mean"]) < 3 * (doc["se"] ** 2 + doc["duplicate"]["se"] ** 2) ** 0.5


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bot_that_runs_past_the_time_limit_stops_the_match_on_its_fault(capsys, jobs):
    """A plug-in that would take 60 s a hand is stopped at --decision-timeout, in this process
    and in a worker, and the match ends on that bot's fault instead of waiting."""
    status, _, err = _run(capsys, "greedy", "tests.backend_bots:StallingBot:seconds=60", "--decision-timeout", "0.5",
                          "--max-deals", "4", "--seed", "1", "--jobs", jobs, "--estimator", "duplicate")
    assert status == 1, err
    assert "bot 'tests.backend_bots:StallingBot:seconds=60' gave no answer within the time limit of 0.5 s for hand" in err
