"""``bench train --coupling``: fictitious play whose best responses weigh the coupling of the
field's rows, and tables that carry the coupling sample of their own play."""

import itertools
import json

import numpy as np
import pytest

from bots import BotError, make_bot
from bots.table import (
    CouplingSample,
    FieldTables,
    _settable,
    coupled_tables_path,
    coupling_hands,
    play_with_removal,
    row_class_numbers,
)
from bots.training import TrainingState, train
from solver import all_splits, parse_cards
from solver.classes import class_rank_counts, row_classes
from solver.evaluator import evaluate_many
from solver.rules import as_rules
from tests.conftest import random_hands
from tests.helpers import bench

SMALL = {"hands": 1_000, "rounds": 2, "seed": 3, "check_hands": 200, "rules": "2-4", "removal_hands": 500}


@pytest.fixture(scope="module")
def coupled():
    states: list[TrainingState] = []
    tables, reports = train(coupling=True, checkpoint=states.append, **SMALL)
    return tables, reports, states


def _every_split() -> np.ndarray:
    """(72072, 13) positions of every split of 13 cards, front 3 | middle 5 | back 5."""
    splits = []
    for front in itertools.combinations(range(13), 3):
        rest = [p for p in range(13) if p not in front]
        for middle in itertools.combinations(rest, 5):
            splits.append([*front, *middle, *(p for p in rest if p not in middle)])
    return np.array(splits)


def _classes(cards: np.ndarray) -> np.ndarray:
    return np.searchsorted(row_classes(), evaluate_many(np.ascontiguousarray(cards)))


def test_coupled_tables_carry_a_sample_of_legal_plays_of_the_coupling_hands(coupled):
    """The carried sample is the coupling hands, counted rank by rank from their cards, each as a
    legal split of that hand: its three row classes are those of some split that does not foul."""
    tables, reports, _ = coupled
    sample = tables.coupling
    dealt = coupling_hands()
    assert sample is not None and sample.rows.shape == (len(dealt), 3)
    assert np.array_equal(sample.counts, np.stack([np.bincount(h // 4, minlength=13) for h in dealt]))
    splits = _every_split()
    for hand, rows in zip(dealt[:40], sample.rows):
        cards = hand[splits]  # every split of the hand: front 3, middle 5, back 5
        front, middle, back = _classes(cards[:, :3]), _classes(cards[:, 3:8]), _classes(cards[:, 8:])
        values = [evaluate_many(np.ascontiguousarray(cards[:, a:b])) for a, b in ((0, 3), (3, 8), (8, 13))]
        legal = (values[0] <= values[1]) & (values[1] <= values[2])
        assert (legal & (front == rows[0]) & (middle == rows[1]) & (back == rows[2])).any()
    assert tables.info["coupling"] is True and "coupling of the field's rows weighed" in tables.info["method"]
    assert [r.round for r in reports] == [1, 2]


def test_coupled_training_differs_from_plain_training_and_plain_tables_carry_no_sample(coupled):
    tables, _, _ = coupled
    plain, _ = train(**SMALL)
    assert plain.coupling is None and "coupling" not in plain.info
    assert not all(np.array_equal(x, y) for x, y in zip(plain.shares(), tables.shares()))


def test_coupled_training_resumed_from_a_checkpoint_equals_an_uninterrupted_one(coupled, tmp_path):
    """Round 1's checkpoint holds the coupling hands as rounds 0 and 1 set them; read back, it
    continues to the same shares, card-removal sample and coupling sample."""
    tables, _, states = coupled
    assert [s.coupling_plays.shape[0] for s in states] == [2, 3]
    states[0].save(tmp_path / "state.npz")
    resumed, _ = train(resume=TrainingState.load(tmp_path / "state.npz"))
    for x, y in zip((*tables.shares(), tables.removal.shares, tables.removal.factors, tables.coupling.rows,
                     tables.coupling.counts),
                    (*resumed.shares(), resumed.removal.shares, resumed.removal.factors, resumed.coupling.rows,
                     resumed.coupling.counts)):
        assert np.array_equal(x, y)
    assert resumed.info == tables.info


def test_a_checkpoint_whose_coupling_plays_are_not_the_coupling_hands_is_refused(coupled, tmp_path):
    _, _, states = coupled
    state = states[0]
    swapped = state.coupling_plays.copy()
    swapped[1, [0, 1]] = swapped[1, [1, 0]]  # two hands trade places
    path = tmp_path / "state.npz"
    TrainingState(state.settings, state.round, state.field, state.previous, state.previous_middle, state.reports,
                  swapped).save(path)
    with pytest.raises(ValueError, match="its coupling plays are not the coupling hands"):
        TrainingState.load(path)
    TrainingState(state.settings, state.round, state.field, state.previous, state.previous_middle, state.reports,
                  state.coupling_plays[:1]).save(path)
    with pytest.raises(ValueError, match=r"its coupling plays are \(1, 4000, 13\)"):
        TrainingState.load(path)
    TrainingState(state.settings | {"coupling": False}, state.round, state.field, state.previous,
                  state.previous_middle, state.reports, state.coupling_plays).save(path)
    with pytest.raises(ValueError, match="holds coupling plays but its setting coupling is false"):
        TrainingState.load(path)


def test_a_checkpoint_written_before_there_was_coupling_resumes_without_it(tmp_path):
    states: list[TrainingState] = []
    whole, _ = train(hands=500, rounds=2, seed=4, check_hands=100, rules="2-4", checkpoint=states.append)
    first = states[0]
    older = TrainingState({k: v for k, v in first.settings.items() if k != "coupling"}, first.round, first.field,
                          first.previous, first.previous_middle, first.reports)
    older.save(tmp_path / "old.npz")
    with np.load(tmp_path / "old.npz") as data:
        assert "coupling" not in json.loads(str(data["meta"]))["settings"] and "coupling_plays" not in data.files
    loaded = TrainingState.load(tmp_path / "old.npz")
    assert loaded.settings["coupling"] is False
    resumed, _ = train(resume=loaded)
    assert resumed.coupling is None and all(np.array_equal(x, y) for x, y in zip(whole.shares(), resumed.shares()))


def test_coupling_is_refused_under_basic_scoring_and_checked(tmp_path):
    from bots.training import coupled_round_limit

    with pytest.raises(ValueError, match="basic scoring's rows do not couple"):
        train(hands=100, rounds=1, coupling=True)
    with pytest.raises(ValueError, match="coupling must be True or False, got 'no'"):
        train(hands=100, rounds=1, rules="2-4", coupling="no")
    with pytest.raises(ValueError, match="with coupling, rounds must be at most"):  # refused before any hand is dealt
        train(hands=0, rounds=coupled_round_limit() + 1, rules="2-4", coupling=True)
    assert 1_000 < coupled_round_limit() * coupling_hands().nbytes < (1 << 28)
    done = bench("train", "--rules", "2-4", "--coupling", "--rounds", "9000", "--out", str(tmp_path / "t.npz"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"--rounds must be at most {coupled_round_limit():,}, got 9,000" in done.stderr
    done = bench("train", "--coupling", "--out", str(tmp_path / "t.npz"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "bench train: error: --coupling: basic scoring's rows do not couple; it is for --rules 1-6 and 2-4"]


def test_a_tables_file_carries_its_coupling_sample_and_the_bot_plays_with_it(coupled, tmp_path, monkeypatch):
    """Saved and read back, the sample is the same; ``table:coupling=true`` with that file weighs
    its splits on it and deals none of its own."""
    tables, _, _ = coupled
    path = tmp_path / "t.npz"
    tables.save(path)
    loaded = FieldTables.load(path)
    assert np.array_equal(loaded.coupling.rows, tables.coupling.rows)
    assert np.array_equal(loaded.coupling.counts, tables.coupling.counts)

    def refuse(*args, **kwargs):
        raise AssertionError("a sample was dealt although the tables carry one")

    monkeypatch.setattr(CouplingSample, "deal", refuse)
    hands = random_hands(np.random.default_rng(41), 60)
    played = make_bot(f"table:rules=2-4:coupling=true:tables={path}").arrange_many(hands, None)
    assert np.array_equal(played, play_with_removal(hands, str(path), as_rules("2-4"), loaded.coupling))
    assert not np.array_equal(played, play_with_removal(hands, str(path), as_rules("2-4"), None))


def _flush_backs(rows: np.ndarray) -> np.ndarray:
    """The rows with every back of five ranks made the flush of those ranks."""
    ranks = class_rank_counts()
    rows = rows.copy()
    for j, back in enumerate(rows[:, 2]):
        if ranks[back].max() == 1:
            rows[j, 2] = np.flatnonzero((ranks == ranks[back]).all(axis=1)).max()
    return rows


@pytest.mark.parametrize(("change", "message"), [
    (lambda a: a.pop("coupling_counts"), "has no 'coupling_counts' array"),
    (lambda a: a.update(coupling_rows=a["coupling_rows"][:, :2]), "the coupling arrays have shapes"),
    (lambda a: a.update(coupling_rows=a["coupling_rows"] + 10**6), "must be row class numbers"),
    (lambda a: a.update(coupling_rows=a["coupling_rows"] * 0.5), "must hold whole numbers"),
    (lambda a: a.update(coupling_counts=a["coupling_counts"] + 1), "a hand's cards of each rank"),
    (lambda a: a.update(coupling_rows=a["coupling_rows"][:, [1, 1, 2]]), "a three-card front"),
    (lambda a: a.update(coupling_rows=a["coupling_rows"][:, [0, 0, 2]]), "a five-card middle and back"),
    (lambda a: a.update(coupling_rows=a["coupling_rows"][:, [0, 2, 1]]), "in order, front to back"),
    (lambda a: a.update(coupling_counts=np.roll(a["coupling_counts"], 1, axis=0)), "in the hand's three rows"),
    (lambda a: a.update(coupling_rows=np.repeat(a["coupling_rows"][:1], len(a["coupling_rows"]), axis=0),
                        coupling_counts=np.repeat(a["coupling_counts"][:1], len(a["coupling_rows"]), axis=0)),
     "dealt from COUPLING_SEED"),
    (lambda a: a.update(coupling_rows=_flush_backs(a["coupling_rows"])), "not a split its cards can make"),
])
def test_bad_coupling_arrays_in_a_tables_file_are_refused(coupled, tmp_path, change, message):
    tables, _, _ = coupled
    good = tmp_path / "good.npz"
    tables.save(good)
    with np.load(good) as data:
        arrays = {name: data[name] for name in data.files}
    change(arrays)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(BotError, match=message):
        make_bot(f"table:rules=2-4:coupling=true:tables={bad}")


def test_the_mixture_takes_hand_j_as_strategy_j_mod_k_set_it():
    """Three strategies that set every hand by a fixed reordering of its cards; the mixture's row
    classes are each hand's as its strategy set it."""
    dealt = coupling_hands(30)
    orders = [np.arange(13), np.r_[10:13, 5:10, 0:5], np.r_[0, 5, 10, 1, 2, 3, 4, 6, 7, 8, 9, 11, 12]]
    plays = np.stack([dealt[:, order] for order in orders])
    sample = CouplingSample.mixture(plays)
    for j, hand in enumerate(dealt):
        cards = hand[orders[j % 3]][None]
        assert list(sample.rows[j]) == [_classes(cards[:, a:b])[0] for a, b in ((0, 3), (3, 8), (8, 13))]


@pytest.mark.parametrize("scoring", ["1-6", "2-4"])
def test_coupling_true_plays_the_tables_shipped_for_it(scoring):
    """Under a bonus rule ``table`` (``coupling=true``, the default) plays the tables trained with
    the coupling weighed, which carry their sample and record the command that made them;
    ``coupling=false`` plays the plain tables, and under basic both play the basic tables."""
    path = coupled_tables_path(scoring)
    assert path is not None and path.endswith(f"table_{scoring}_coupling.npz")
    bot = make_bot(f"table:rules={scoring}:coupling=true")
    assert bot.source == path and make_bot(f"table:rules={scoring}").source == path
    assert make_bot(f"table:rules={scoring}:coupling=false").source is None
    shipped = FieldTables.load(path)
    assert shipped.coupling is not None and shipped.removal is not None
    assert shipped.info["command"].endswith(" --coupling") and shipped.info["coupling"] is True
    assert make_bot("table:coupling=true").source is None and coupled_tables_path("basic") is None


def test_the_card_removal_sample_is_the_coupled_bots_own_play(coupled, tmp_path):
    """The card-removal sample's shares are those of its hands as ``table:coupling=true`` sets
    them with these tables as they are (``removal=false``) and the sample they carry."""
    from bots.training import REMOVAL_KEY, training_hands

    tables, _, _ = coupled
    path = tmp_path / "t.npz"
    tables.save(path)
    dealt = training_hands(SMALL["removal_hands"], np.random.SeedSequence(SMALL["seed"], spawn_key=(REMOVAL_KEY,)))
    played = make_bot(f"table:rules=2-4:coupling=true:removal=false:tables={path}").arrange_many(dealt, None)
    for i, (a, b) in enumerate(((0, 3), (3, 8), (8, 13))):
        shares = np.bincount(_classes(played[:, a:b]), minlength=row_classes().size) / len(dealt)
        assert np.array_equal(shares, tables.removal.shares[i])


def _coupled_play(tmp_path, field: FieldTables, plays: np.ndarray) -> np.ndarray:
    """The coupling hands as ``table:coupling=true`` (tables as they are) sets them against
    ``field``, weighing the coupling on the mixture of ``plays``."""
    path = tmp_path / f"field-{len(plays)}.npz"  # a name of its own: the bot reads a file once a process
    FieldTables(*field.shares(), coupling=CouplingSample.mixture(plays)).save(path)
    return make_bot(f"table:rules=2-4:coupling=true:removal=false:tables={path}").arrange_many(coupling_hands(), None)


def test_every_round_sets_the_coupling_hands_as_the_coupled_bot_does_against_the_field_so_far(coupled, tmp_path):
    """Round 0's play is the start's (the basic tables under basic scoring); round r's is the
    coupled bot's against the field after round r - 1, on the mixture of rounds 0 to r - 1; the
    sample the tables carry is the coupled bot's against the trained field, on every round's."""
    from bots.table import shipped_tables

    tables, _, states = coupled
    plays = states[-1].coupling_plays
    assert np.array_equal(plays[0], make_bot("table:removal=false").arrange_many(coupling_hands(), None))
    basic = shipped_tables()
    assert np.array_equal(plays[1], _coupled_play(tmp_path, basic, plays[:1]))
    assert np.array_equal(plays[2], _coupled_play(tmp_path, states[0].field, plays[:2]))
    final = _coupled_play(tmp_path, tables, plays)
    assert np.array_equal(tables.coupling.rows, np.stack(
        [_classes(final[:, a:b]) for a, b in ((0, 3), (3, 8), (8, 13))], axis=1))


def test_a_plain_training_is_not_resumed_with_coupling(tmp_path):
    """The checkpoint of a training started without --coupling is refused with --coupling, in one
    line that says how it was started."""
    out = tmp_path / "p.npz"
    train(hands=300, rounds=2, seed=2, check_hands=50, rules="2-4",
          checkpoint=lambda state: state.save(tmp_path / "p.checkpoint.npz") if state.round == 1 else None)
    done = bench("train", "--resume", str(out), "--coupling")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"bench train: error: --resume {out}: the training was started without --coupling; give no --coupling to "
        "continue it as it was started"]


def test_rows_are_settable_exactly_when_some_split_of_the_hand_has_them():
    """``_settable`` against every split of the hand (``solver.all_splits``): for a hundred class
    triples of each hand's splits, and the same triples with a middle or back of five ranks turned
    into the flush of those ranks, or out of it, it says yes exactly for those some split has."""
    classes = row_classes()
    ranks = class_rank_counts()
    tried = 0
    for hand in coupling_hands(40):
        splits = all_splits(hand.tolist())
        triples = {tuple(t) for t in np.stack([np.searchsorted(classes, v) for v in
                                               (splits.front, splits.middle, splits.back)], axis=1).tolist()}
        chosen = sorted(triples)[:: max(1, len(triples) // 100)]
        toggled = set()
        for triple in chosen:
            for row in (1, 2):
                if len(np.flatnonzero(ranks[triple[row]])) == 5:
                    alike = np.flatnonzero((ranks == ranks[triple[row]]).all(axis=1))
                    toggled |= {triple[:row] + (int(c),) + triple[row + 1:] for c in alike if c != triple[row]}
        tried += len(toggled - triples)
        for triple in set(chosen) | toggled:
            assert _settable(hand, np.array(triple)) == (triple in triples), (hand, triple)
    assert tried > 100, "too few triples that no split has were tried"


def test_rows_that_need_more_cards_of_a_rank_than_the_hand_holds_are_not_settable():
    """A middle and a back that both take an ace, from a hand that holds one: no split, and a
    plain answer rather than a fault."""
    two_aces = np.array([parse_cards("5C 4C 3D AS KD QH JC 9S AH TD 8C 7S 6D")], np.uint8)
    classes = row_class_numbers(two_aces)[0]
    one_ace = two_aces[0].copy()
    one_ace[8] = parse_cards("2H")[0]
    assert _settable(two_aces[0], classes)
    assert not _settable(one_ace, classes)
