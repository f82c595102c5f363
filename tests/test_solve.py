import numpy as np
import pytest

from bots import solve_hand as solve
from solver import Arrangement, CardCountError, DuplicateCardError, UnknownCardError, all_splits, is_foul
from solver.errors import BotFault, SolveError
from solver.evaluator import row_values
from tests import naive
from tests.conftest import random_hands

HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"


def _brute_force(hand, sample):
    """EV of every legal split against the sample, the slow way, with the reference rules."""
    splits = all_splits(hand)
    legal = np.flatnonzero(splits.legal)
    opp = [o.astype(np.int64) for o in row_values(sample)]
    opp_foul = ~((opp[0] <= opp[1]) & (opp[1] <= opp[2]))
    evs = np.empty(len(legal))
    for start in range(0, len(legal), 4096):
        chunk = legal[start:start + 4096]
        total = sum(np.sign(rows[chunk, None].astype(np.int64) - o[None, :])
                    for rows, o in zip((splits.front, splits.middle, splits.back), opp))
        total = np.where(opp_foul[None, :], 3, total)
        evs[start:start + len(chunk)] = total.mean(axis=1)
    return splits, legal, evs


@pytest.mark.parametrize("seed", range(4))
def test_exhaustive_means_exhaustive(seed):
    hand = random_hands(np.random.default_rng(100 + seed), 1)[0].tolist()
    solution = solve(hand, samples=150, seed=seed, keep_sample=True)
    splits, legal, evs = _brute_force(hand, solution.sample)
    assert solution.ev == pytest.approx(evs.max(), abs=1e-12)
    chosen = solution.arrangement.values()
    best = legal[np.isclose(evs, evs.max(), atol=1e-12)]
    assert chosen in {(splits.front[s], splits.middle[s], splits.back[s]) for s in best.tolist()}
    # Per-row probabilities, recomputed with the reference rules.
    opponents = [[row[:3].tolist(), row[3:8].tolist(), row[8:].tolist()] for row in solution.sample]
    mine = [[int(c) for c in r] for r in solution.arrangement.rows]
    for i, result in enumerate(solution.rows):
        outcomes = [1 if naive.fouled(*o) else naive.compare(mine[i], o[i]) for o in opponents]
        assert result.win == pytest.approx(outcomes.count(1) / len(outcomes))
        assert result.tie == pytest.approx(outcomes.count(0) / len(outcomes))
        assert result.lose == pytest.approx(outcomes.count(-1) / len(outcomes))
    assert sum(r.ev for r in solution.rows) == pytest.approx(solution.ev)
    for alt in solution.alternatives:
        assert alt.diff <= 0 and alt.ev == pytest.approx(solution.ev + alt.diff)


def test_never_fouled_and_exactly_the_thirteen_cards():
    for seed, hand in enumerate(random_hands(np.random.default_rng(101), 60)):
        solution = solve(hand.tolist(), samples=100, seed=seed, top=1)
        assert not is_foul(solution.arrangement)
        assert sorted(solution.arrangement.cards) == sorted(int(c) for c in hand)


def test_same_seed_same_solution():
    a, b = solve(HAND, samples=300, seed=5), solve(HAND, samples=300, seed=5)
    assert a.to_dict() | {"seconds": 0, "timings": 0} == b.to_dict() | {"seconds": 0, "timings": 0}
    unseeded = solve(HAND, samples=300)
    replay = solve(HAND, samples=300, seed=unseeded.seed)
    assert replay.ev == unseeded.ev and replay.arrangement == unseeded.arrangement


def _reference_scores(solution) -> np.ndarray:
    """The score of the solution's play against each sampled opponent, by the slow reference."""
    mine = [[int(c) for c in row] for row in solution.arrangement.rows]
    return np.array([naive.score_pair(mine, (o[:3].tolist(), o[3:8].tolist(), o[8:].tolist()))
                     for o in solution.sample])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_players_scale_the_expectation_not_the_choice(players):
    """Against N - 1 opponents the expected score is N - 1 times that against one (linearity,
    docs/rules.md): the EV and its standard error are N - 1 times the mean and standard
    error of the reference's scores against the sampled opponents, and the play is the one
    chosen for two players. Fails if the figures are scaled by N, or not at all."""
    two = solve(HAND, samples=400, seed=3)
    solution = solve(HAND, samples=400, seed=3, players=players, keep_sample=True)
    assert solution.arrangement == two.arrangement
    scores = _reference_scores(solution)
    assert solution.ev == pytest.approx((players - 1) * scores.mean(), abs=1e-12)
    assert solution.ev_se == pytest.approx((players - 1) * scores.std(ddof=1) / np.sqrt(400), abs=1e-12)


def test_two_equal_flushes_keep_both():
    """Two fives of equal value may go in either order; keeping both flushes is best.

    Against the table field it beats aces in front with two pair twice by about 0.02 to
    0.04 units, so it takes a large sample to tell them apart."""
    hand = "AS KS QS JS 9S AH KH QH JH 9H 2C 3D 4C"
    assert not is_foul("2C 3D 4C / AS KS QS JS 9S / AH KH QH JH 9H")
    assert not is_foul("2C 3D 4C / AH KH QH JH 9H / AS KS QS JS 9S")
    solution = solve(hand, samples=10_000, seed=1)
    assert {tuple(sorted(str(c)[1] for c in row)) for row in solution.arrangement.rows[1:]} == {
        ("S",) * 5, ("H",) * 5
    }


def test_seven_spades_with_pairs():
    """Seven spades, and pairs of queens, jacks and 3s. Keeping a flush behind a pair of jacks
    needs a middle that beats them: only the queens can, so the queen of spades leaves the
    flush and the back is A K 6 5 3. That beats the next plays (threes in front, or the jacks
    in the middle) by half a unit, over 20 standard errors at this sample. Checked against the
    reference: the play's EV is the mean of its scores against the sampled opponents, and
    each runner-up scores less on the same opponents."""
    solution = solve("AS KS QS JS 6S 5S 3S QH 9H 2H JD 8C 3C", samples=2000, seed=1, top=3, keep_sample=True)
    assert [r.hand.split(",")[0] for r in solution.rows] == ["pair of jacks", "pair of queens", "A-high flush"]
    assert solution.rows[2].hand == "A-high flush, A K 6 5 3"
    assert sorted(str(c) for c in solution.arrangement.back) == ["3S", "5S", "6S", "AS", "KS"]
    best = _reference_scores(solution)
    assert solution.ev == pytest.approx(best.mean(), abs=1e-12)
    opponents = [(o[:3].tolist(), o[3:8].tolist(), o[8:].tolist()) for o in solution.sample]
    for alternative in solution.alternatives:
        rows = [[int(c) for c in row] for row in alternative.arrangement.rows]
        theirs = np.array([naive.score_pair(rows, o) for o in opponents])
        assert alternative.ev == pytest.approx(theirs.mean(), abs=1e-12)
        assert theirs.mean() < best.mean() and alternative.significant


def test_json_document():
    doc = solve(HAND, samples=200, seed=2, top=2).to_dict()
    assert doc["schema_version"] == 3
    assert set(doc) >= {"hand", "arrangement", "ev", "ev_se", "rows", "alternatives", "sample_count", "seed",
                        "opponent", "player_count", "rules", "seconds"}
    assert set(doc["arrangement"]) == {"front", "middle", "back"}
    Arrangement(**doc["arrangement"])
    assert set(doc["rows"]["front"]) >= {"hand", "win", "tie", "lose", "ev"}
    assert len(doc["alternatives"]) == 2 and doc["rules"]["name"] == "basic" and doc["opponent"] == "table"


def test_any_bot_is_an_opponent_model():
    assert solve(HAND, samples=50, seed=1, opponent="greedy").opponent == "greedy"
    assert solve(HAND, samples=20, seed=1, opponent="tests.plugin_bot:FirstLegalBot").samples == 20


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"hand": "AS KS"}, CardCountError, "expected 13 cards for the hand, got 2"),
        ({"hand": HAND.replace("2C", "AS")}, DuplicateCardError, "duplicate card 'AS'"),
        ({"hand": HAND.replace("2C", "1C")}, UnknownCardError, "unknown rank '1'"),
        ({"samples": 0}, SolveError, "samples must be a positive whole number, got 0"),
        ({"players": 5}, SolveError, "players must be 2, 3 or 4, got 5"),
        ({"opponent": "gredy"}, SolveError, "unknown bot 'gredy'; did you mean 'greedy'?"),
        ({"opponent": "exhaustive"}, SolveError, "the exhaustive bot cannot be the opponent model"),
    ],
)
def test_bad_input(kwargs, error, message):
    args = {"hand": HAND} | kwargs
    hand = args.pop("hand")
    with pytest.raises(error, match=message):
        solve(hand, **args)


def test_the_default_opponent_plays_the_solvers_rules():
    """The default ``table`` model plays for the solver's whole rule set, royalties included
    (fails if the model is narrowed to the scoring method, as it once was)."""
    from bots import opponent_model

    model = opponent_model("table", "royalties")
    assert model.name == "table:rules=basic+royalties" and model.bot.rules.royalties
    assert solve(HAND, samples=50, seed=1, rules="2-4+royalties-win").opponent == "table:rules=2-4+royalties-win"
    assert opponent_model("table:rules=basic", "royalties").bot.rules == "basic"  # a spec's own rules win


class _Model:
    """An opponent model that answers as told."""

    name = "liar"

    def __init__(self, answer):
        self.answer = answer

    def arrange_many(self, hands, rng):
        return self.answer(np.asarray(hands))


def _raise(error: Exception) -> None:
    raise error


@pytest.mark.parametrize(
    "answer, message",
    [
        (lambda h: np.roll(h, 1, axis=0), r"opponent model 'liar' set hand 0 \(.*\) as other cards"),
        (lambda h: np.where(h == h[0, 0], 51 if h[0, 0] != 51 else 0, h), "set hand 0"),
        (lambda h: h[:, :12], r"returned ndarray of shape \(\d+, 12\)"),
        (lambda h: h.astype(float), "expected integer card ids"),
        (lambda h: None, "returned NoneType"),
        (lambda h: 1 / 0, "opponent model 'liar' failed: ZeroDivisionError"),
        (lambda h: _raise(BotFault("bot 'x' gave no answer")), "^opponent model 'liar' failed: bot 'x' gave no answer$"),
    ],
)
def test_an_opponent_models_answers_are_checked(answer, message):
    """Fails if a model's batch is used without checking that every row is its own hand."""
    from solver import OpponentError
    from solver import solve as solve_with_model

    with pytest.raises(OpponentError, match=message):
        solve_with_model(HAND, _Model(answer), samples=30, seed=1)


@pytest.mark.parametrize("distinct", ["hands", "values"])
def test_ranking_a_shortlist_gives_what_ranking_every_play_gives(monkeypatch, distinct):
    """Under separable rules the best plays are ranked from a shortlist of the best scores;
    the plays and their order are those of ranking every legal play."""
    from bots import make_bot
    from solver import Card, search
    from solver.rules import Rules
    from solver.sampling import Sample, deal_opponents

    rng = np.random.default_rng(8)
    for hand in random_hands(rng, 6):
        cards = tuple(Card(int(c)) for c in hand)
        deals = deal_opponents(cards, 300, rng)
        arranged = make_bot("greedy").arrange_many(deals, rng)
        sample = Sample(arranged, deals, Rules())
        for top in (0, 3, 12):
            short = search.rank_plays(cards, sample, Rules(), top, distinct)
            with monkeypatch.context() as patch:
                patch.setattr(search, "_shortlist", lambda exact, size: None)
                full = search.rank_plays(cards, sample, Rules(), top, distinct)
            assert short == full


@pytest.mark.parametrize("rules", ["royalties", "royalties-win", "1-6+royalties"])
def test_royalties_part_is_the_royalties_counted_by_the_reference(rules):
    """A straight flush in the back (5) and a full house in the middle (2) under the Eastern
    table: the royalties part is what the reference rules settle with the table less what
    they settle without it, opponent by opponent, over the very opponents of the solve."""
    from solver.rules import Rules

    table = Rules.parse(rules).royalty_table()
    solution = solve("AH AD AC KS KH 7D 7C 6S 5S 4S 3S 2S QD", samples=400, seed=7, rules=rules, keep_sample=True)
    assert [row.hand.split(",")[0] for row in solution.rows[1:]] == ["aces full of 7s", "6-high straight flush"]
    mine = tuple(naive.parse(" ".join(str(c) for c in row)) for row in solution.arrangement.rows)
    counted = []
    for opponent in solution.sample:
        theirs = ([int(c) for c in opponent[:3]], [int(c) for c in opponent[3:8]], [int(c) for c in opponent[8:]])
        scoring = Rules.parse(rules).scoring
        with_table = naive.settle(mine, theirs, scoring, table, needs_win=rules.startswith("royalties-win"))
        counted.append(with_table - naive.settle(mine, theirs, scoring))
    assert solution.parts["royalties"] == pytest.approx(np.mean(counted), abs=1e-12)
    assert solution.parts["royalties"] != 0


@pytest.mark.parametrize("seed", range(5))
def test_plays_are_grouped_as_their_row_numbers_sort(seed):
    """The bonus search groups plays by their three row numbers (values or hand keys) through one
    integer per play: its order is that of sorting the triples themselves, and the first play of
    each group is the first of that triple."""
    from solver.search import _firsts, _row_order

    rng = np.random.default_rng(seed)
    x3 = rng.integers(0, 40, 286) * 1_000_003  # few distinct numbers, far apart: ranks must not be the numbers
    x5 = rng.integers(0, 300, 1287) * 7_919
    n = 5_000
    rows = (rng.integers(0, 286, n), rng.integers(0, 1287, n), rng.integers(0, 1287, n))
    key = _row_order(x3, x5)(rows)
    triples = np.stack([x3[rows[0]], x5[rows[1]], x5[rows[2]]], axis=1)
    _, index, inverse = np.unique(triples, axis=0, return_index=True, return_inverse=True)
    assert np.array_equal(_firsts(key), np.sort(index))
    assert np.array_equal(np.unique(key, return_inverse=True)[1].ravel(), inverse.ravel())
