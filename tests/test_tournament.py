import json

import numpy as np
import pytest

from bench.cli import main as bench_main
from bench.records.deals import HANDS_PER_SESSION, deal_table, dealer_of, seatings
from bench.report.summary import summarise
from bench.run.play import play_deals
from bench.run.runner import run_deals
from solver import Arrangement, Card, score_pair
from solver.rules import Rules


def test_seatings():
    assert seatings(2, 2) == [(0, 1), (1, 0)]
    assert len(seatings(3, 3)) == 6 and len(seatings(4, 4)) == 24 and len(seatings(4, 3)) == 24
    for players in (2, 3, 4):
        for seat_plan in seatings(2, players):
            assert sorted(set(seat_plan)) == [0, 1]
    # Every bot sits in every seat equally often.
    plan = np.array(seatings(3, 2))
    assert all(len(set(np.bincount(plan[:, s], minlength=3))) == 1 for s in range(2))


def test_deals_use_distinct_cards_and_the_dealer_rotates():
    assert [dealer_of(d, 3) for d in range(10)] == [0, 1, 2, 0, 1, 2, 0, 1, 0, 1]
    for players in (2, 3, 4):
        hands = deal_table(123, 5, players)
        assert hands.shape == (players, 13) and len(np.unique(hands)) == 13 * players
    assert np.array_equal(deal_table(123, 5, 4), deal_table(123, 5, 4))
    assert not np.array_equal(deal_table(123, 5, 4), deal_table(123, 6, 4))


def _run(specs, players=None, sessions=2, **kwargs):
    players = players or max(2, len(specs))
    records = run_deals(specs, players, entropy=2026, n_deals=sessions * HANDS_PER_SESSION, **kwargs)
    names = [s if specs.index(s) == i else f"{s}#2" for i, s in enumerate(specs)]
    return records, summarise(records, names, players), names


def _by_the_reference(records, n_bots: int, players: int, rules: Rules):
    """Each bot's units per hand and share of sessions won, and the pairings settled by a
    natural, worked out from the records' arrangements and declared naturals by the slow
    reference (tests/naive.py): in every seating of every deal, each seat's units against
    every other; a bot's figure for a deal is the mean over the seats it holds. A declared
    natural (checked to be the best paid one the seat's cards hold) collects its payout from
    a hand played out; of two, the higher kind collects. A session is 8 deals; in each
    seating the highest total wins it, ties sharing."""
    from tests import naive

    plan = seatings(n_bots, players)
    payouts = rules.payouts() if rules.naturals else None
    per_deal = np.zeros((len(records), n_bots))
    totals = np.zeros((len(records), len(plan), players))
    by_naturals = np.zeros(n_bots, int)
    for d, record in enumerate(records):
        plays = record.plays
        rows = [[[naive.parse(r) for r in p.arrangement.split(" / ")] for p in row] for row in plays]
        held = [[p.natural.kind if p.natural else None for p in row] for row in plays]
        for b in range(n_bots):
            for seat in range(players):
                dealt = naive.parse(record.hands[seat])
                assert sorted(sum(rows[b][seat], [])) == sorted(dealt)
                assert held[b][seat] == (naive.best_natural(dealt, payouts) if held[b][seat] else None)
        sums, counts = np.zeros(n_bots), np.zeros(n_bots)
        for q, seats in enumerate(plan):
            for i in range(players):
                mine = held[seats[i]][i]
                for j in range(players):
                    if i == j:
                        continue
                    theirs = held[seats[j]][j]
                    if mine or theirs:
                        by_naturals[seats[i]] += 1
                        order = naive.NATURAL_ORDER
                        assert not (mine and theirs and mine == theirs), "two naturals of one kind met"
                        if mine and (not theirs or order.index(mine) > order.index(theirs)):
                            units = payouts[mine]
                        else:
                            units = -payouts[theirs]
                    else:
                        units = naive.settle(rows[seats[i]][i], rows[seats[j]][j], rules.scoring,
                                             rules.royalty_table(), rules.royalty_needs_win)
                    totals[d, q, i] += units
                sums[seats[i]] += totals[d, q, i]
                counts[seats[i]] += 1
        per_deal[d] = sums / counts
    sessions = totals[: len(records) // 8 * 8].reshape(-1, 8, len(plan), players).sum(axis=1)
    leaders = sessions == sessions.max(axis=-1, keepdims=True)
    shares = leaders / leaders.sum(axis=-1, keepdims=True)
    plan_array = np.array(plan)
    won = [float(shares[:, plan_array == b].mean()) if len(sessions) else float("nan") for b in range(n_bots)]
    return per_deal.mean(axis=0), won, by_naturals


def test_units_and_sessions_agree_with_the_reference():
    """Three bots at a table of three for three sessions: the deals are numbered and dealt in
    turn, every play holds exactly its seat's cards, and each bot's units per hand and share
    of sessions won equal those worked out by the slow reference from the records. Fails if
    a seat's score, the averaging over seatings or the session winner is wrong."""
    names = ["greedy", "heuristic", "table"]
    records, summary, _ = _run(names, players=3, sessions=3)
    assert summary["deal_count"] == 24 and summary["complete_session_count"] == 3
    assert [r.deal for r in records] == list(range(24))
    assert [r.dealer for r in records[:8]] == [0, 1, 2, 0, 1, 2, 0, 1]
    for r in records:
        assert list(r.hands) == [" ".join(str(Card(int(c))) for c in h) for h in deal_table(2026, r.deal, 3)]
    units, won, _ = _by_the_reference(records, 3, 3, Rules())
    for b, name in enumerate(names):
        assert summary["by_bot"][name]["units_per_hand"]["mean"] == pytest.approx(units[b], abs=1e-12)
        assert summary["by_bot"][name]["session_win_share"] == pytest.approx(won[b], abs=1e-12)
    assert len(set(np.round(units, 9))) == 3  # the bots differ: a swap of two would show


@pytest.mark.parametrize("spec", ["greedy", "random"])
def test_a_bot_against_itself_scores_exactly_zero_and_shares_the_sessions(spec):
    _, summary, names = _run([spec, spec])
    for name in names:
        assert summary["by_bot"][name]["units_per_hand"]["mean"] == 0
        assert summary["by_bot"][name]["session_win_share"] == 0.5  # every session tied: half a win each
    assert summary["crosstable"][names[0]][names[1]]["same_arrangement"] == 1.0


def test_crosstable_agrees_with_the_records():
    records, summary, names = _run(["greedy", "table"], players=3, sessions=1)
    plan = seatings(2, 3)
    totals = {(a, b): [] for a in range(2) for b in range(2) if a != b}
    for r in records:
        arr = [[Arrangement.parse(p.arrangement) for p in row] for row in r.plays]
        per_pair = {k: [] for k in totals}
        for seats in plan:
            for i in range(3):
                for j in range(3):
                    if i != j and seats[i] != seats[j]:
                        per_pair[(seats[i], seats[j])].append(score_pair(arr[seats[i]][i], arr[seats[j]][j]))
        for k, scores in per_pair.items():
            totals[k].append(np.mean(scores))
    for (a, b), per_deal in totals.items():
        assert summary["crosstable"][names[a]][names[b]]["mean"] == pytest.approx(np.mean(per_deal))


@pytest.mark.slow
def test_tournament_command_writes_results_and_report(tmp_path, capsys):
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,heuristic", "--sessions", "2", "--seed", "9",
                       "--jobs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "crosstable" in printed and "heuristic" in printed and "seed entropy 9" in printed
    doc = json.loads((out / "results.json").read_text())
    assert doc["schema_version"] == 3 and doc["seed"] == 9 and doc["player_count"] == 2
    assert {b["name"] for b in doc["bots"]} == {"greedy", "heuristic"} and doc["rules"]["name"] == "basic"
    assert len(doc["records"]) == 16 and doc["version_by_package"]["numpy"]
    report = (out / "report.md").read_text()
    assert "# Tournament report" in report
    for plot in ("crosstable.png", "means.png", "cumulative.png", "sessions.png"):
        assert (out / plot).stat().st_size > 1000
    # The report comes back from the JSON alone.
    again = tmp_path / "again"
    assert bench_main(["report", str(out / "results.json"), "--out", str(again)]) == 0
    assert (again / "report.md").read_text() == report


@pytest.mark.slow
def test_tournament_json_replays_from_its_seed(capsys):
    assert bench_main(["tournament", "--bots", "random,greedy", "--sessions", "1", "--json", "--jobs", "1"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert bench_main(["tournament", "--bots", "random,greedy", "--sessions", "1", "--json", "--jobs", "1",
                       "--seed", str(first["seed"])]) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["results"] == second["results"] and first["records"] == second["records"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bots", "greedy,gredy"], "unknown bot 'gredy'; did you mean 'greedy'?"),
        (["--bots", "greedy,table", "--players", "5"], "--players must be 2, 3 or 4, got 5"),
        (["--bots", "greedy,table", "--sessions", "0"], "argument --sessions: expected a whole number >= 1, got 0"),
        (["--bots", ","], "--bots needs at least one bot"),
        (["--bots", "greedy,table", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler goes with --backend dask"),
        pytest.param(["--bots", "greedy,table", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--sessions", "1"],
                     "cannot reach the dask scheduler at tcp://127.0.0.1:1", marks=pytest.mark.slow),  # a connect time-out
    ],
)
def test_tournament_bad_input(capsys, args, message):
    if "dask" in args:
        pytest.importorskip("dask.distributed")
    try:
        status = bench_main(["tournament", *args])
    except SystemExit as exit_info:  # the parser's own checks
        status = exit_info.code
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("bench tournament: error: ") and message in err


def test_report_bad_input(tmp_path, capsys):
    assert bench_main(["report", str(tmp_path / "none.json")]) == 2
    (tmp_path / "x.json").write_text("{}")
    assert bench_main(["report", str(tmp_path / "x.json")]) == 2
    assert "is not a results.json" in capsys.readouterr().err


def test_play_deals_is_a_pure_function_of_the_seed():
    a = play_deals(["random"], 2, 5, [3])
    b = play_deals(["random"], 2, 5, [3])
    assert [p.arrangement for p in a[0].plays[0]] == [p.arrangement for p in b[0].plays[0]]


@pytest.mark.parametrize("rules", ["1-6", "2-4+royalties-win+naturals"])
def test_tournaments_under_other_rules(rules):
    """Each bot's units per hand under a bonus rule, royalties and naturals equal those the
    slow reference settles from the records, and so does the count of pairings settled by a
    natural. The deals include some where a seat holds a natural. Fails if a rule is left
    out of the tournament's settlement or applied to the wrong pairings."""
    from solver.naturals import natural_mask

    names = ["table", "greedy", "heuristic"]
    parsed = Rules.parse(rules)
    deals = [d for d in range(3000) if natural_mask(deal_table(5, d, 3)).any()][:3] + list(range(12))
    records = play_deals(names, 3, 5, deals, rules=parsed)
    summary = summarise(records, names, 3, parsed)
    units, _, by_naturals = _by_the_reference(sorted(records, key=lambda r: r.deal), 3, 3, parsed)
    for b, name in enumerate(names):
        assert summary["by_bot"][name]["units_per_hand"]["mean"] == pytest.approx(units[b], abs=1e-12)
        assert summary["by_bot"][name]["natural_pairing_count"] == by_naturals[b]
    assert by_naturals.sum() > 0 or not parsed.naturals


def test_naturals_are_settled_in_tournaments():
    # A deal in which some player holds a natural, found by scanning seeds.
    from solver.naturals import natural_mask

    deal = next(d for d in range(5000) if natural_mask(deal_table(3, d, 4)).any())
    records = play_deals(["greedy"], 4, 3, [deal], rules="naturals")
    held = [p.natural for p in records[0].plays[0]]
    assert any(held)
    from bench.report.summary import table_scores

    scores = table_scores(records, 1, 4, "naturals").scores[0, 0]
    seat = next(i for i, h in enumerate(held) if h)
    assert all(scores[seat, j] >= 3 for j in range(4) if j != seat and not held[j])
    assert (scores + scores.T == 0).all()


@pytest.mark.slow
def test_tournament_command_states_its_rules(tmp_path, capsys):
    assert bench_main(["tournament", "--bots", "greedy,table", "--sessions", "1", "--seed", "3", "--jobs", "1",
                       "--rules", "1-6", "--out", str(tmp_path)]) == 0
    assert "rules 1-6" in capsys.readouterr().out
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["rules"]["scoring"] == "1-6"
    assert next(b for b in doc["bots"] if b["name"] == "table")["params"]["rules"] == "1-6"
    assert bench_main(["tournament", "--bots", "greedy,table", "--rules", "x"]) == 2


def test_row_statistics_count_only_pairings_settled_by_rows():
    """Under naturals, a pairing decided by a declared natural has no row results: the row
    win rate must equal one counted by hand over the other pairings (fails if the natural's
    pairings are mixed in, as their shown rows never played)."""
    from solver.naturals import natural_mask

    deals = [d for d in range(3000) if natural_mask(deal_table(3, d, 2)).any()][:3] + [0, 1, 2]
    records = play_deals(["greedy", "random"], 2, 3, deals, rules="naturals")
    summary = summarise(records, ["greedy", "random"], 2, "naturals")
    greedy = summary["by_bot"]["greedy"]
    wins, counted, by_naturals = np.zeros(3), 0, 0
    for r in records:
        for mine, theirs in (((0, 0), (1, 1)), ((0, 1), (1, 0))):  # greedy in seat 0, then in seat 1
            a, b = r.plays[mine[0]][mine[1]], r.plays[theirs[0]][theirs[1]]
            if a.natural or b.natural:
                by_naturals += 1
                continue
            counted += 1
            if b.foul and not a.foul:
                wins += 1
            elif not a.foul and not b.foul:
                wins += np.array(a.values) > np.array(b.values)
    assert by_naturals > 0 and greedy["natural_pairing_count"] == by_naturals
    assert [greedy["row_win_rate"][r] for r in ("front", "middle", "back")] == pytest.approx(wins / counted)


@pytest.mark.slow
def test_results_name_every_parameter_and_where_each_bot_comes_from(tmp_path):
    """A run can be replayed from results.json alone: every parameter, defaults included, the
    class and the package with its version. Fails if a default or the origin is missing."""
    assert bench_main(["tournament", "--bots", "exhaustive:samples=20,tests.plugin_bot:FirstLegalBot", "--sessions",
                       "1", "--seed", "3", "--jobs", "1", "--out", str(tmp_path)]) == 0
    bots = {b["spec"]: b for b in json.loads((tmp_path / "results.json").read_text())["bots"]}
    exhaustive = bots["exhaustive:samples=20"]
    assert exhaustive["params"] == {"samples": 20, "opponent": "table", "rules": "basic"}
    assert exhaustive["class"] == "bots.exhaustive:ExhaustiveBot"
    assert exhaustive["package"] == "chinese-poker-solver" and exhaustive["package_version"]
    plugin = bots["tests.plugin_bot:FirstLegalBot"]
    assert plugin["params"] == {"offset": 0} and plugin["class"] == "tests.plugin_bot:FirstLegalBot"
    assert plugin["package"] is None  # a module on the path, not an installed package


def test_tournament_units_equal_an_independent_settlement():
    """Every pairing of every seating settled again by the slow reference (tests/naive.py)
    from the records' arrangements: each bot's units per hand must match, each pairing must
    be antisymmetric under the reference, and every table must sum to zero. Fails if the
    tournament's settlement or its averaging over seatings is wrong."""
    from tests import naive

    rules = Rules.parse("2-4+royalties")
    specs = ["greedy", "random", "heuristic"]
    records = run_deals(specs, 3, entropy=31, n_deals=16, rules=rules)
    summary = summarise(records, specs, 3, rules)
    plan = seatings(3, 3)
    per_bot = {name: [] for name in specs}
    for record in records:
        rows = [[[naive.parse(r) for r in p.arrangement.split(" / ")] for p in row] for row in record.plays]
        seat_totals = {name: [] for name in specs}
        for seats in plan:
            table = []
            for i in range(3):
                total = 0
                for j in range(3):
                    if i != j:
                        a, b = rows[seats[i]][i], rows[seats[j]][j]
                        forward = naive.settle(a, b, "2-4", rules.royalty_table(), False)
                        assert forward == -naive.settle(b, a, "2-4", rules.royalty_table(), False)
                        total += forward
                table.append(total)
                seat_totals[specs[seats[i]]].append(total)
            assert sum(table) == 0
        for name in specs:
            per_bot[name].append(np.mean(seat_totals[name]))
    for name in specs:
        assert summary["by_bot"][name]["units_per_hand"]["mean"] == pytest.approx(np.mean(per_bot[name]), abs=1e-12)


@pytest.mark.slow
def test_ev_against_three_opponents_is_three_times_one_by_simulation():
    """The solver scales its EV by the number of opponents, even under a bonus rule. Checked
    by simulation that shares nothing with that argument: the solver's best play is scored
    against three opponents dealt jointly from the 39 unseen cards (no card shared), and
    against one opponent at a time; the first mean must be three times the second, and
    agree with solve(players=4). Fails if opponents sharing the deck broke the linearity."""
    from bots import arrange_many, make_bot, solve_hand
    from solver import settle_values

    hand = "AS KD QH 9C 9S 7D 7H 5C 4S 3D 3H 2C JS"
    rules = Rules.parse("2-4+royalties")
    solution = solve_hand(hand, samples=2000, seed=8, rules=rules, players=4, top=0)
    mine = np.array(solution.arrangement.values(), np.int64)
    rest = np.setdiff1d(np.arange(52), [int(c) for c in solution.hand]).astype(np.uint8)
    rng = np.random.default_rng(99)
    n = 6000
    decks = np.array([rng.permutation(rest) for _ in range(n)])  # 39 cards: three opponents of 13
    bot = make_bot("table", rules=rules)
    arranged = arrange_many(bot, decks.reshape(-1, 13), rng).reshape(n, 3, 13)
    from solver.evaluator import row_values

    theirs = np.stack(row_values(arranged.reshape(-1, 13)), axis=1).reshape(n, 3, 3)
    units = settle_values(np.broadcast_to(mine, (n * 3, 3)), theirs.reshape(-1, 3), rules).reshape(n, 3)
    joint = units.sum(axis=1)  # three opponents at one table
    single = units[:, 0]  # one opponent
    se = joint.std(ddof=1) / np.sqrt(n)
    assert abs(joint.mean() - 3 * single.mean()) < 4 * 3 * single.std(ddof=1) / np.sqrt(n)
    assert abs(joint.mean() - solution.ev) < 4 * np.hypot(se, solution.ev_se)


@pytest.mark.parametrize("rules", ["basic", "naturals", "1-6"])
def test_batches_give_the_records_of_one_decision_at_a_time(rules):
    """Bots that are batch-safe set a chunk's hands in one call; every record but the timing
    is what setting the hands one at a time gives, beside bots that cannot be batched."""
    from bench.run.play import RunSettings
    from solver.rules import as_rules

    specs = ("table", "greedy", "heuristic", "random")
    match = RunSettings(specs, 4, 21, as_rules(rules))
    batched = play_deals(specs, 4, 21, list(range(30)), settings=match)
    single = play_deals(specs, 4, 21, list(range(30)), settings=match, one_by_one=True)
    assert [r.without_seconds() for r in batched] == [r.without_seconds() for r in single]
    if rules == "naturals":
        assert any(p.natural for r in batched for row in r.plays for p in row)
