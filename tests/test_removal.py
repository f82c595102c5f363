"""Card removal in the table bot: the field sample's factors, the field given a hand, and the
play against it, each checked against a plain computation written from the definitions."""

import math

import numpy as np
import pytest

from bots import BotError, make_bot, opponent_model
from bots.registry import playing_as
from bots.table import FieldTables, JointPolicy, Removal, play_tables, play_with_removal, shipped_tables
from bots.training import train, training_hands
from solver.classes import row_classes
from solver.evaluator import evaluate_many
from solver.rules import as_rules
from tests.conftest import random_hands


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory):
    """Basic tables from a short training, with a card-removal sample of 3,000 hands."""
    tables, _ = train(hands=2_000, rounds=1, seed=3, check_hands=200, removal_hands=3_000)
    path = tmp_path_factory.mktemp("removal") / "tables.npz"
    tables.save(path)
    return tables, str(path)


def test_factors_are_the_mean_chance_of_missing_the_cards_held():
    """Each factor, counted hand by hand with math.comb: over the sample's hands whose row is of
    the class, the mean of C(4 - k, n) / C(4, n) for the n cards of the rank the hand holds."""
    hands = training_hands(400, np.random.SeedSequence(8))
    arranged = make_bot("table:removal=false").arrange_many(hands, np.random.default_rng(0))
    removal = Removal.measure(hands, arranged)
    classes = row_classes()
    rows = [np.searchsorted(classes, evaluate_many(arranged[:, a:b])) for a, b in ((0, 3), (3, 8), (8, 13))]
    rng = np.random.default_rng(1)
    for _ in range(40):
        i, r, k = int(rng.integers(3)), int(rng.integers(13)), int(rng.integers(1, 5))
        c = int(rows[i][rng.integers(len(hands))])
        members = [h for h in range(len(hands)) if rows[i][h] == c]
        chances = [math.comb(4 - k, n) / math.comb(4, n) for n in (int((hands[h] // 4 == r).sum()) for h in members)]
        assert removal.factors[i, r, k - 1, c] == pytest.approx(np.mean(chances), rel=1e-6)
        assert removal.shares[i, c] == pytest.approx(len(members) / len(hands))
    unseen = removal.shares == 0
    assert (removal.factors.transpose(0, 3, 1, 2)[unseen] == 1).all()  # a class the sample never had


def _given(removal: Removal, hand: np.ndarray) -> np.ndarray:
    """The field's shares given the hand, written out: share times the factor of each rank held."""
    held = np.bincount(hand // 4, minlength=13)
    shares = removal.shares.copy()
    for r in np.flatnonzero(held):
        shares *= removal.factors[:, r, held[r] - 1].astype(np.float64)
    ruled_out = shares.sum(axis=1) == 0  # the row keeps the sample's shares
    shares[ruled_out] = removal.shares[ruled_out]
    return shares / shares.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("rules", ["basic", "royalties", "2-4", "1-6+royalties"])
def test_the_bot_plays_the_best_split_against_the_field_given_its_hand(small_tables, rules):
    """The kernel's play is the plain search's (RowPoints or JointPolicy built in numpy) on
    the shares given each hand, for separable and bonus rules."""
    tables, path = small_tables
    played = as_rules(rules)
    rng = np.random.default_rng(5)
    rich = np.array([rng.permutation(np.arange(32, 52))[:13] for _ in range(20)], np.uint8)  # 8s to aces: royalties
    hands = np.concatenate([random_hands(rng, 30), rich])
    got = play_with_removal(hands, path, played)
    extra = tables.extra(played)
    for hand, mine in zip(hands, got):
        tie = _given(tables.removal, hand)
        win = np.cumsum(tie, axis=1) - tie
        policy = JointPolicy.build(win, tie, extra)
        want = play_tables(hand[None], policy.separable if played.is_separable else policy, played)[0]
        assert np.array_equal(mine, want)


def test_a_rank_held_rules_out_what_the_field_can_no_longer_hold(small_tables):
    """Holding two of a rank leaves the field no three of it: its front trips of that rank get
    share 0, and each row's shares still sum to 1."""
    from bots import _kernels

    tables, _ = small_tables
    classes = row_classes()
    trips = [c for c in np.flatnonzero(tables.removal.shares[0]) if classes[c] >> 26 == 3]  # fronts the sample had
    assert trips
    rank = int(classes[trips[0]] >> 13 & 0x1FFF).bit_length() - 1
    others = [r for r in range(13) if r != rank][:11]
    hand = np.array([4 * rank, 4 * rank + 1] + [4 * r + 2 for r in others], np.uint8)
    seen, shares, factors, offsets = tables.removal.listed
    given = np.empty(len(shares))
    _kernels.field_given_hand(hand, shares, factors, offsets, given)
    win, out = np.empty((3, classes.size)), np.empty((3, classes.size))
    _kernels.win_tie(seen, given, offsets, win, out)
    assert np.allclose(out.sum(axis=1), 1)
    assert out[0, trips[0]] == 0
    assert np.allclose(out, _given(tables.removal, hand))
    assert np.allclose(win, np.cumsum(out, axis=1) - out)


def test_a_row_the_hand_rules_out_entirely_keeps_the_sample_shares(small_tables, tmp_path):
    """A sample so small that holding an ace rules out every class of a row (here: every
    factor of the ace made 0) plays on, with that row against the sample as it is."""
    tables, _ = small_tables
    factors = tables.removal.factors.copy()
    factors[:, 12] = 0
    path = tmp_path / "no_aces.npz"
    FieldTables(tables.front, tables.middle, tables.back, tables.info, Removal(tables.removal.shares, factors)).save(path)
    hands = np.array([[48, 45, 41, 37, 33, 29, 25, 21, 17, 13, 9, 5, 1], [0, 4, 8, 13, 17, 21, 26, 30, 34, 39, 43, 47, 51]],
                     np.uint8)
    got = play_with_removal(hands, str(path), as_rules("basic"))
    loaded = FieldTables.load(path)
    for hand, mine in zip(hands, got):
        tie = _given(loaded.removal, hand)
        assert np.isfinite(tie).all() and np.allclose(tie.sum(axis=1), 1)
        win = np.cumsum(tie, axis=1) - tie
        want = play_tables(hand[None], JointPolicy.build(win, tie, loaded.extra(as_rules("basic"))).separable,
                           as_rules("basic"))[0]
        assert np.array_equal(mine, want)


def test_removal_needs_tables_that_have_the_sample(tmp_path):
    tables, _ = train(hands=500, rounds=1, seed=1, check_hands=100)
    path = tmp_path / "plain.npz"
    tables.save(path)
    with pytest.raises(BotError, match="have no card-removal sample .* bench train, or play table:removal=false"):
        make_bot(f"table:tables={path}")
    assert make_bot(f"table:tables={path}:removal=false").arrange_many(random_hands(np.random.default_rng(2), 3),
                                                                         np.random.default_rng(0)).shape == (3, 13)
    with pytest.raises(BotError, match="removal must be true or false"):
        make_bot("table:removal=2")


def test_damaged_removal_arrays_are_refused(small_tables, tmp_path):
    tables, _ = small_tables
    for name, removal in [("shapes", Removal(tables.removal.shares[:, :5], tables.removal.factors)),
                          ("from 0 to 1", Removal(tables.removal.shares, tables.removal.factors * 2)),
                          ("summing to 1", Removal(tables.removal.shares * 2, tables.removal.factors))]:
        path = tmp_path / f"{name.replace(' ', '_')}.npz"
        FieldTables(tables.front, tables.middle, tables.back, tables.info, removal).save(path)
        with pytest.raises(BotError, match=name):
            FieldTables.load(path)


def test_the_opponent_model_leaves_removal_and_coupling_out_unless_asked():
    """The table model plays its tables as they are, the rows taken as independent (the bot adds
    removal and, under 1-6 and 2-4, the coupling in play); a spec can ask; playing_as names the
    model that plays as the bot does, and under 2-4 it sets hands exactly as the bot."""
    model = opponent_model("table")
    assert (model.bot.removal, model.bot.coupling, model.name) == (False, False, "table")
    assert opponent_model("table", "2-4").name == "table:rules=2-4"
    assert opponent_model("table:coupling=true", "2-4").bot.coupling is True
    assert (make_bot("table").removal, make_bot("table").coupling) == (True, True)
    assert playing_as("table") == "table:removal=true:coupling=true"
    assert playing_as("table:coupling=false") == "table:coupling=false:removal=true"
    asked = opponent_model(playing_as("table"), "2-4")
    assert (asked.bot.removal, asked.bot.coupling) == (True, True)
    assert asked.name == "table:removal=true:coupling=true:rules=2-4"
    hands = random_hands(np.random.default_rng(8), 200)
    bot = make_bot("table:rules=2-4")
    assert (asked.arrange_many(hands, np.random.default_rng(0)) == bot.arrange_many(hands, None)).all()
    assert (opponent_model("table", "2-4").arrange_many(hands, np.random.default_rng(0)) ==
            make_bot("table:rules=2-4:removal=false:coupling=false").arrange_many(hands, None)).all()


def test_the_shipped_tables_carry_their_removal_sample():
    from bench.cli.commands.train import removal_hands

    for scoring in ("basic", "1-6", "2-4"):
        tables = shipped_tables(as_rules(scoring))
        assert tables.removal is not None and tables.removal.problem() is None
        assert tables.info["removal_hands"] == removal_hands(type("Args", (), {})())
