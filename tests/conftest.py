import json
from pathlib import Path

import numpy as np
import pytest

VECTORS = Path(__file__).resolve().parent / "data" / "vectors"  # tests/data/README.md: made apart from this code


@pytest.fixture(autouse=True)
def _no_bots_kept_between_tests():
    """Each test starts with no bots kept from another: a run in this process keeps its bots'
    processes for the next run of the same thread (``bench.run.play.make_bots``), and a test
    that looks for processes left behind must see only its own."""
    yield
    from bench.run.play import close_bots

    close_bots()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261130)


def load_vectors(name: str) -> list:
    """A file of ``tests/data/vectors``; a missing one fails the test that asks for it."""
    return json.loads((VECTORS / name).read_text())


def random_hands(rng: np.random.Generator, n: int, size: int = 13) -> np.ndarray:
    """``n`` hands of ``size`` distinct card ids, as an (n, size) uint8 array."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :size].astype(np.uint8)
