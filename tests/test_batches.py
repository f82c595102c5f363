"""A large batch is set in chunks over the cores: every hand must come out as on one core."""

import numpy as np
import pytest

import bots.points
from bots import opponent_model


@pytest.mark.parametrize("spec,rules", [("table", "basic"), ("table", "2-4"), ("heuristic", "basic")])
def test_a_batch_split_over_the_cores_sets_each_hand_as_one_core_does(monkeypatch, spec, rules):
    hands = np.argsort(np.random.default_rng(41).random((700, 52)), axis=1)[:, :13].astype(np.uint8)
    model = opponent_model(spec, rules)
    monkeypatch.setattr(bots.points, "available_cores", lambda: 2)
    split = model.arrange_many(hands, np.random.default_rng(0))
    monkeypatch.setattr(bots.points, "PARALLEL_BATCH", 10**9)
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
    monkeypatch.setattr(bots.points, "available_cores", lambda: 3)
    monkeypatch.setattr(bots.points, "PARALLEL_BATCH", 1)
    assert (model.arrange_many(hands, np.random.default_rng(0)) == whole).all()
