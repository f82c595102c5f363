"""A large batch is set in chunks over the cores: every hand must come out as on one core; and a
batch an opponent model returns is checked row by row before it is used."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bots.points
from bots import make_bot, opponent_model
from bots.base import BATCH_CHECK_HANDS, BATCH_CHECK_SEEDS, BotError, arrange_many, arrangement_from_row, batch_disagreement
from solver import Card, config, format_cards, system
from solver.errors import BotFault, OpponentError
from solver.opponent import arrange_checked, check_batch


@pytest.mark.parametrize("spec,rules", [("table", "basic"), ("table", "2-4"), ("heuristic", "basic")])
def test_a_batch_split_over_the_cores_sets_each_hand_as_one_core_does(monkeypatch, spec, rules):
    hands = np.argsort(np.random.default_rng(41).random((700, 52)), axis=1)[:, :13].astype(np.uint8)
    model = opponent_model(spec, rules)
    monkeypatch.setattr(system, "available_cores", lambda: 2)
    split = model.arrange_many(hands, np.random.default_rng(0))
    monkeypatch.setattr(config, "PARALLEL_BATCH", 10**9)
    whole = model.arrange_many(hands, np.random.default_rng(0))
    assert split.shape == (700, 13)
    assert (split == whole).all()


@pytest.mark.parametrize("size", [3, 62, 130])
def test_a_batch_too_small_for_four_chunks_a_core_is_still_split_and_set_right(monkeypatch, size):
    """With many cores and a low threshold, a batch smaller than 64 hands a chunk still goes out
    in one chunk a core at least, and every hand is set as on one core."""
    hands = np.argsort(np.random.default_rng(size).random((size, 52)), axis=1)[:, :13].astype(np.uint8)
    model = opponent_model("table", "basic")
    whole = model.arrange_many(hands, np.random.default_rng(0))
    monkeypatch.setattr(system, "available_cores", lambda: 3)
    monkeypatch.setattr(config, "PARALLEL_BATCH", 1)
    assert (model.arrange_many(hands, np.random.default_rng(0)) == whole).all()


def test_an_error_in_one_chunk_is_raised_once_every_chunk_is_done(monkeypatch):
    """The calling thread sets chunks too: an error in any chunk, its own or a helper's, is raised
    by the call, and no chunk is still being set when it returns."""
    monkeypatch.setattr(system, "available_cores", lambda: 3)
    monkeypatch.setattr(config, "PARALLEL_BATCH", 1)
    hands = np.zeros((600, 13), np.uint8)
    for bad in range(6):
        running: list[int] = []
        done: list[int] = []

        def function(part: np.ndarray, bad: int = bad, running: list = running, done: list = done) -> np.ndarray:
            running.append(1)
            if part.ctypes.data == hands[100 * bad:].ctypes.data:
                raise ValueError(f"chunk {bad}")
            done.append(1)
            return part

        with pytest.raises(ValueError, match=f"chunk {bad}"):
            bots.points.over_cores(function, hands)
        assert len(running) == len(done) + 1  # every chunk begun has ended; only the bad one failed
    assert (bots.points.over_cores(lambda part: part + 1, hands) == 1).all()


@pytest.mark.parametrize("spec", ["table:removal=false", "table", "table:removal=false:rules=2-4", "heuristic", "greedy"])
def test_a_batch_of_rows_that_are_not_hands_is_refused_in_one_line(spec):
    """The batch searches read and write by card id: a row with an id that is not a card, a
    card twice or a wrong length is refused before any kernel sees it."""
    from solver.cards import CardError

    bot = make_bot(spec)
    good = np.arange(13)
    for bad, says in ((np.r_[0, 0, good[2:]], "card twice"), (np.r_[60, good[1:]], "not a card"),
                      (np.r_[-1, good[1:]], "not a card"), (good[:12], "(n, 13)")):
        batch = np.stack([good, good + 13, bad]) if len(bad) == 13 else bad[None]
        with pytest.raises(CardError, match=re.escape(says)):
            bot.arrange_many(batch, np.random.default_rng(0))


def test_an_error_in_a_helper_is_raised_once_every_helper_is_done(monkeypatch):
    """With several helper threads, a helper's error is raised only when the other helpers have
    ended their chunks too."""
    import threading
    import time

    monkeypatch.setattr(system, "available_cores", lambda: 4)
    monkeypatch.setattr(config, "PARALLEL_BATCH", 1)
    lock = threading.Lock()
    calls: list[int] = []
    ended: list[int] = []

    def function(part: np.ndarray) -> np.ndarray:
        if threading.current_thread() is threading.main_thread():
            time.sleep(0.05)
            return part
        with lock:
            calls.append(1)
            first = len(calls) == 1
        if first:
            raise ValueError("helper chunk")
        time.sleep(0.3)
        ended.append(1)
        return part

    with pytest.raises(ValueError, match="helper chunk"):
        bots.points.over_cores(function, np.zeros((800, 13), np.uint8))
    assert len(calls) >= 2 and len(ended) == len(calls) - 1  # every other helper's chunk had ended


def _first_bad_row_by_sorting(hands: np.ndarray, answer: np.ndarray) -> int:
    """The rule the batch check stands for, the slow way: a row is good when its ids sorted are
    the hand's ids sorted."""
    same = (np.sort(answer.astype(np.int64), axis=1) == np.sort(hands.astype(np.int64), axis=1)).all(axis=1)
    return int(np.flatnonzero(~same)[0]) if not same.all() else -1


CORRUPTIONS = ("none", "unseen card", "duplicate", "negative", "52", "huge")


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 40), corruption=st.sampled_from(CORRUPTIONS),
       dtype=st.sampled_from([np.uint8, np.int16, np.int64, np.uint64]))
def test_the_batch_check_refuses_exactly_the_rows_that_are_not_the_hand(seed, rows, corruption, dtype):
    """check_batch names the first row that is not a reordering of its hand, for any integer
    type the answer comes in: another card, a card twice, ids that are not cards."""
    rng = np.random.default_rng(seed)
    deck = np.argsort(rng.random((rows, 52)), axis=1)
    hands = deck[:, :13].astype(np.uint8)
    answer = np.array([rng.permutation(row) for row in hands], np.int64)
    bad = int(rng.integers(rows))
    slot = int(rng.integers(13))
    if corruption == "unseen card":
        answer[bad, slot] = deck[bad, 13 + int(rng.integers(39))]
    elif corruption == "duplicate":
        answer[bad, slot] = answer[bad, (slot + 1) % 13]
    elif corruption == "negative":
        answer[bad, slot] = -1 - int(rng.integers(100))
    elif corruption == "52":
        answer[bad, slot] = 52
    elif corruption == "huge":
        answer[bad, slot] = 2**40 + int(answer[bad, slot])
    answer = answer.astype(dtype)  # a narrower or unsigned type wraps the bad id: the reference sees the same ids
    expected = _first_bad_row_by_sorting(hands, answer)
    if dtype == np.int64:  # nothing wraps: every corruption is there to be found
        assert expected == (-1 if corruption == "none" else bad)
    if expected == -1:
        assert (check_batch(hands, answer, "m") == answer).all()
    else:
        with pytest.raises(OpponentError, match=rf"opponent model 'm' set hand {expected} \("):
            check_batch(hands, answer, "m")


@pytest.mark.parametrize("answer,why", [
    (np.zeros((2, 13), float), "type float64"),
    (np.zeros((2, 12), np.int64), "shape \\(2, 12\\)"),
    (np.zeros((2, 13), bool), "type bool"),
    ("not cards", "shape \\(\\)"),
])
def test_the_batch_check_refuses_answers_that_are_not_integer_card_rows(answer, why):
    hands = np.argsort(np.random.default_rng(0).random((2, 52)), axis=1)[:, :13].astype(np.uint8)
    with pytest.raises(OpponentError, match=why):
        check_batch(hands, answer, "m")


class _OverwritingModel:
    """Writes the first hand into every row of the array it is handed and returns that array:
    the hands it returns are not the hands it was dealt."""

    name = "overwriting"

    def arrange_many(self, hands, rng):
        hands[:] = hands[0]
        return hands


class _OverwritingBot(_OverwritingModel):
    def arrange(self, cards, rng):  # never asked: the batch is
        raise AssertionError("arrange")


def test_a_model_that_writes_other_cards_into_its_input_is_refused():
    hands = np.argsort(np.random.default_rng(3).random((4, 52)), axis=1)[:, :13].astype(np.uint8)
    dealt = hands.copy()
    with pytest.raises(OpponentError, match=r"opponent model 'overwriting' set hand 1 \("):
        arrange_checked(_OverwritingModel(), hands, np.random.default_rng(0))
    assert (hands == dealt).all()  # the caller's hands are untouched


def test_a_bot_that_writes_other_cards_into_its_input_is_a_fault():
    hands = np.argsort(np.random.default_rng(4).random((4, 52)), axis=1)[:, :13].astype(np.uint8)
    dealt = hands.copy()
    with pytest.raises(BotFault, match=r"bot 'overwriting' set hand 1 \("):
        arrange_many(_OverwritingBot(), hands, np.random.default_rng(0))
    assert (hands == dealt).all()


def test_a_batch_answered_out_of_order_names_the_cards_it_was_given():
    hands = np.argsort(np.random.default_rng(5).random((2, 52)), axis=1)[:, :13].astype(np.uint8)
    with pytest.raises(OpponentError) as raised:
        check_batch(hands, hands[::-1], "m")
    assert f"as other cards: [{format_cards(hands[1].tolist())}]" in str(raised.value)


@pytest.mark.parametrize("spec, batch", [("TwoFacedBot", "a batch of one hand"), ("BigBatchBot", "a batch of 12 hands"),
                                         ("CoinBatchBot", "a batch of .*")])
def test_a_plugin_whose_batches_are_another_bot_cannot_set_simulated_opponents(spec, batch):
    with pytest.raises(BotError, match=rf"bot '.*' sets .* in {batch} \(arrange_many\) but as .* alone "
                                       r"\(arrange\), which it plays whatever its rng: simulated opponents are set in batches"):
        opponent_model(f"tests.backend_bots:{spec}", "basic")


def test_a_plugin_whose_batches_draw_on_the_rng_as_its_play_does_sets_simulated_opponents():
    """Hands it sets by its rng are not compared: only a play that stays the same whatever the
    rng must be the same in a batch."""
    from tests.backend_bots import RandomTiesBot

    bot = RandomTiesBot()
    dealt = np.argsort(np.random.default_rng(BATCH_CHECK_SEEDS).random((BATCH_CHECK_HANDS, 52)), axis=1)[:, :13]
    first = np.random.default_rng(BATCH_CHECK_SEEDS[0])
    differ = [row for row in dealt.astype(np.uint8) if 51 in row and
              bot.arrange(tuple(Card(int(c)) for c in row), first).values() !=
              arrangement_from_row(bot.arrange_many(row[None], np.random.default_rng(BATCH_CHECK_SEEDS[0]))[0]).values()]
    assert differ, "with the first rng some hand is set one way alone and the other in a batch, or this shows nothing"
    assert batch_disagreement(bot) is None
    opponent_model("tests.backend_bots:RandomTiesBot", "basic")


@pytest.mark.parametrize("argv, message", [
    (["exploit", "--bot", "tests.backend_bots:TwoFacedBot", "--hands", "2", "--samples", "50"], "whatever its rng"),
    (["match", "greedy", "heuristic", "--field", "tests.backend_bots:TwoFacedBot", "--max-deals", "8"],
     "whatever its rng"),
])
def test_a_run_that_would_meet_a_plugins_other_face_stops_in_one_line(argv, message, capsys):
    from bench.cli import main as bench_main

    status = bench_main(argv)
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) <= 3, err


def test_a_match_whose_b_cannot_be_the_field_says_why_a_is(capsys):
    from bench.cli import main as bench_main

    status = bench_main(["match", "bots.greedy:GreedyBot", "tests.backend_bots:TwoFacedBot", "--max-deals", "4",
                         "--jobs", "1", "--seed", "1", "--field-samples", "50"])  # two plug-ins: B would come first
    err = capsys.readouterr().err
    assert status == 0, err
    assert ("set by bots.greedy:GreedyBot) (A as the field; B cannot be: the field bot "
            "'tests.backend_bots:TwoFacedBot' cannot set") in err
    assert "whatever its rng" in err


def test_a_bot_registered_by_name_is_checked_as_a_plugin_is(monkeypatch):
    from bots import BOTS
    from tests.backend_bots import TwoFacedBot

    monkeypatch.setitem(BOTS, "mine", TwoFacedBot)
    with pytest.raises(BotError, match="bot 'two-faced' sets"):
        opponent_model("mine", "basic")


def test_a_bot_that_fails_while_its_batches_are_checked_says_so():
    with pytest.raises(BotFault, match=r"failed on a batch of 12 hands: RuntimeError: no batches \(setting 12 hands "
                                       r"to compare its batches with its play, before it sets simulated opponents\)"):
        opponent_model("tests.backend_bots:FailingBatchBot", "basic")


def test_a_match_passes_over_a_b_that_fails_while_its_batches_are_checked(capsys):
    from bench.cli import main as bench_main

    status = bench_main(["match", "bots.greedy:GreedyBot", "tests.backend_bots:FailingBatchBot", "--max-deals", "4",
                         "--jobs", "1", "--seed", "1", "--field-samples", "50"])
    err = capsys.readouterr().err
    assert status == 0 and "(A as the field; B cannot be: the field bot" in err and "no batches" in err, err


def test_the_batch_check_keeps_its_own_copy_of_a_good_answer():
    hands = np.argsort(np.random.default_rng(6).random((3, 52)), axis=1)[:, :13].astype(np.uint8)
    answer = hands[:, ::-1].copy()
    checked = check_batch(hands, answer, "m")
    answer[:] = 0  # a model that reuses its buffer for the next batch
    assert (checked == hands[:, ::-1]).all()


def test_a_batch_larger_than_the_check_is_spot_checked_as_it_is_set():
    """A plug-in true to its play in the batches the check tries, and not in a run's larger
    ones, is stopped at its first large batch, with the hand and both plays."""
    model = opponent_model("tests.backend_bots:HugeBatchBot", "basic")
    hands = np.argsort(np.random.default_rng(8).random((100, 52)), axis=1)[:, :13].astype(np.uint8)
    with pytest.raises(BotFault, match=r"bot 'huge-batch' sets .* in a batch of 100 hands \(arrange_many\) but as .* "
                                       r"alone \(arrange\), which it plays whatever its rng: simulated opponents"):
        model.arrange_many(hands, np.random.default_rng(0))


@pytest.mark.parametrize("spec", ["tests.backend_bots:RandomTiesBot", "bots.greedy:GreedyBot", "bots.table:TableBot"])
def test_a_faithful_plugins_batches_pass_the_spot_check_and_are_its_answer(spec):
    """A bot true to its play, random or not, reached by its import path as a plug-in is."""
    hands = np.argsort(np.random.default_rng(9).random((200, 52)), axis=1)[:, :13].astype(np.uint8)
    model = opponent_model(spec, "basic")
    assert model.spot_check
    rows = model.arrange_many(hands, np.random.default_rng(3))
    assert (rows == model.bot.arrange_many(hands, np.random.default_rng(3))).all()
