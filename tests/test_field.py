"""The field estimator (bench/run/field.py, docs/match.md): both bots' plays of a hand against the
same simulated opponents, checked against the slow reference rules and against duplicate results."""

from __future__ import annotations

import numpy as np
import pytest

from bench.analysis.estimators import compare, pair_outcomes
from bench.records.deals import seat_seed
from bench.run import field
from bench.run.play import RunSettings, TournamentError, play_deals
from bots import opponent_model
from bots.registry import playing_as
from solver import parse_hand, solve
from solver.arrangement import Arrangement
from solver.rules import as_rules
from tests import naive


def _rows(arrangement: Arrangement) -> tuple[list[int], ...]:
    return tuple(list(map(int, row)) for row in arrangement.rows)


@pytest.mark.slow
@pytest.mark.parametrize(("specs", "players", "rules"), [
    (("table", "heuristic"), 2, "basic"),
    (("heuristic", "greedy"), 2, "2-4+royalties"),
    (("greedy", "table", "heuristic"), 3, "basic"),
])
def test_each_bots_score_is_the_mean_difference_the_rules_text_gives_against_the_fields_opponents(specs, players, rules):
    """Where a bot sets a hand otherwise than the first bot, its score on it is the mean, over the
    opponents dealt from the seed the docs give and set by the field bot (the last bot, as it
    plays), of what its play wins minus what the first bot's wins, each settled by the slow
    reference; where their row values are the same it is exactly 0, with no opponent dealt."""
    played = as_rules(rules)
    plan = field.FieldPlan(specs[-1], samples=150)
    records = play_deals(specs, players, 5, range(4), played, settings=RunSettings(specs, players, 5, played, field=plan))
    table, differed, same = played.royalty_table(), 0, 0
    for record in records:
        assert record.field is not None and len(record.field) == len(specs)
        assert all(len(row) == players for row in record.field) and set(record.field[0]) == {0.0}
        for seat, hand in enumerate(record.hands):
            first = record.plays[0][seat]
            opponents = solve(hand, opponent_model(playing_as(specs[-1]), played), samples=150, rules=played, top=0,
                              seed=field.field_seed(5, record.deal, seat), keep_sample=True).sample
            assert opponents is not None and len(opponents) == 150
            assert not set(parse_hand(hand)) & {int(c) for o in opponents for c in o}  # dealt from the 39 unseen

            def units(text, opponent):
                rows = _rows(Arrangement.parse(text))
                other = (list(map(int, opponent[:3])), list(map(int, opponent[3:8])), list(map(int, opponent[8:])))
                return naive.settle(rows, other, played.scoring, table, needs_win=played.royalty_needs_win)

            for bot in range(1, len(specs)):
                mine = record.plays[bot][seat]
                if mine.values == first.values:
                    same += 1
                    assert record.field[bot][seat] == 0.0
                    continue
                differed += 1
                expected = np.mean([units(mine.arrangement, o) - units(first.arrangement, o) for o in opponents])
                assert record.field[bot][seat] == pytest.approx(expected, abs=1e-12)
        assert field.deal_outcome(record) == pytest.approx(-sum(record.field[1]) / players)
    assert differed >= 3  # the reference ran where the plays differ


def test_the_fields_seed_never_meets_a_bots_seat_seed():
    """docs/match.md: spawn_key (deal, seat, 2**32) lies above any CRC-32 a seat seed carries."""
    seeds = {field.field_seed(9, deal, seat) for deal in range(4) for seat in range(2)}
    assert len(seeds) == 8
    for spec in ("table", "greedy", "heuristic"):
        for deal in range(4):
            for seat in range(2):
                assert int(seat_seed(9, deal, seat, spec).generate_state(1, np.uint64)[0]) not in seeds


@pytest.mark.parametrize(("rules", "spec", "words"), [
    ("naturals", "table", "under rules with naturals use --estimator duplicate"),
    ("basic", "exhaustive", "cannot set the simulated opponents"),
    ("basic", "cmd:./bot", "runs in another process"),
    ("basic", "nobot", "cannot set the simulated opponents"),
])
def test_a_field_that_cannot_run_is_refused_before_any_deal(rules, spec, words):
    with pytest.raises(field.FieldError, match=words):
        field.check_plan(field.FieldPlan(spec), as_rules(rules))


def test_the_field_estimator_refuses_faults_scored_as_fouls():
    """A fault scored as a foul has no play for the field to score."""
    with pytest.raises(TournamentError, match="fault policy 'stop'"):
        RunSettings(("table", "greedy", "random"), 3, 1, on_fault="foul", field=field.FieldPlan("greedy"))
    RunSettings(("table", "greedy", "random"), 4, 1, field=field.FieldPlan("greedy"))  # any bots, any table


@pytest.mark.slow
def test_the_outcomes_do_not_depend_on_the_workers():
    basic = as_rules("basic")
    one = pair_outcomes("heuristic", "greedy", basic, 40, 100, 3, jobs=1)
    two = pair_outcomes("heuristic", "greedy", basic, 40, 100, 3, jobs=2, backend="loky")
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])


@pytest.mark.slow
@pytest.mark.parametrize(("a", "b", "ratio"), [("table", "heuristic", 5.0), ("heuristic", "greedy", 1.2)])
def test_with_b_as_the_field_it_estimates_what_duplicate_results_estimate(a, b, ratio):
    """E_h m_B(A(h); h) is A's expected result against B and E_h m_B(B(h); h) is 0: over the same
    deals the two estimators agree within their noise, and the field's variance is the smaller
    (about 10 and 1.5 times over 2,000 deals, docs/match.md)."""
    field_outcomes, duplicate = pair_outcomes(a, b, as_rules("basic"), 240, 400, 17, jobs=2)
    figures = compare(field_outcomes, duplicate)
    assert abs(figures["difference_z"]) < 3.5
    assert figures["variance_ratio"] > ratio


@pytest.mark.slow
def test_the_study_keeps_each_pair_as_it_goes_and_goes_on_from_its_file(tmp_path, capsys):
    """``studies estimators --save`` writes the file after every pair; run again, it reads the
    pairs the file holds instead of playing them (their seconds are None) and gives the same
    figures; a file made with other settings is refused in one line."""
    import json

    from bench.cli import studies
    from solver import files

    saved = tmp_path / "outcomes.npz"
    argv = ["estimators", "--pairs", "greedy/random", "--rules", "basic", "--deals", "32", "--samples", "50",
            "--jobs", "1", "--save", str(saved)]
    assert studies.main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    with files.arrays(saved) as data:
        assert sorted(data.files) == ["basic|greedy|random|duplicate", "basic|greedy|random|field",
                                      "basic|greedy|random|identity", "settings"]
    assert studies.main([*argv[:2], "greedy/random,heuristic/greedy", *argv[3:]]) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["rows"][0]["seconds"] is not None and second["rows"][0]["seconds"] is None
    assert {k: v for k, v in second["rows"][0].items() if k != "seconds"} == \
           {k: v for k, v in first["rows"][0].items() if k != "seconds"}
    assert second["rows"][1]["seconds"] is not None
    with files.arrays(saved) as data:
        assert len(data.files) == 7
    assert studies.main([*argv[:2], "heuristic/greedy", *argv[3:]]) == 0  # the pair of the first run stays kept
    capsys.readouterr()
    with files.arrays(saved) as data:
        assert len(data.files) == 7
    for other in (["--seed", "2"], ["--samples", "60"]):
        assert studies.main([*argv[:-2], *other, "--save", str(saved)]) == 2
        error = capsys.readouterr().err.strip()
        assert "holds a study with other --deals, --samples or --seed" in error and len(error.splitlines()) == 1
    data = dict(np.load(saved))  # the kept pair as if its bots had been others (another tables file, say)
    data["basic|greedy|random|identity"] = np.array(str(data["basic|greedy|random|identity"]).replace("greedy", "gready"))
    np.savez_compressed(saved, **data)
    assert studies.main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert "holds basic greedy vs random played by other bots" in error and len(error.splitlines()) == 1


@pytest.mark.parametrize("damage", ["truncated", "not a zip", "short array", "not finite"])
def test_a_damaged_study_file_is_refused_in_one_line(tmp_path, capsys, damage):
    """--save names a file the study goes on from: one that is cut short, is not an archive, or
    holds arrays of another length or with NaN is refused before any deal is played."""
    import io
    import json

    from bench.cli import studies

    saved = tmp_path / "outcomes.npz"
    argv = ["estimators", "--pairs", "greedy/random", "--rules", "basic", "--deals", "4", "--samples", "50",
            "--jobs", "1", "--save", str(saved)]
    settings = json.dumps({"deals": 4, "samples": 50, "seed": 1}, sort_keys=True)
    values = {"short array": np.zeros(3), "not finite": np.array([0.0, np.nan, 0.0, 0.0])}.get(damage, np.zeros(4))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, settings=np.array(settings), **{"basic|greedy|random|field": values,
                                                                 "basic|greedy|random|duplicate": np.zeros(4)})
    content = buffer.getvalue()
    saved.write_bytes({"truncated": content[: len(content) // 2], "not a zip": b"hello"}.get(damage, content))
    assert studies.main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert f"cannot read {saved}" in error and len(error.splitlines()) == 1 and "Traceback" not in error


def test_study_pairs_may_name_bot_files_whose_paths_hold_slashes():
    """``--pairs A/B`` is split where the left side names a bot, so a bot file's path (which
    holds ``/``) can be A or B. Fails if the pair is split at the first ``/``."""
    from bench.cli.studies import _pair

    toml = "examples/bots/sorted_bot.toml"
    assert _pair(f"{toml}/table") == (toml, "table") and _pair(f"table:removal=false/{toml}") == ("table:removal=false", toml)
    assert _pair("pair_first:PairFirstBot/greedy") == ("pair_first:PairFirstBot", "greedy")
