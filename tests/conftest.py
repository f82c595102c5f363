import json
from pathlib import Path

import numpy as np
import pytest

VECTORS = Path(__file__).resolve().parents[1].parent / "shared" / "vectors"


@pytest.fixture(autouse=True)
def _no_bots_kept_between_tests():
    """Each test starts with no bots kept from another: a run in this process keeps its bots'
    processes for the next run of the same thread (``bench.tournament.make_bots``), and a test
    that looks for processes left behind must see only its own."""
    yield
    from bench.tournament import close_bots

    close_bots()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261130)


def load_vectors(name: str) -> list:
    """A file of ``../shared/vectors`` (beside the checkout); skips when it is absent."""
    path = VECTORS / name
    if not path.is_file():
        pytest.skip(f"rule vectors not found at {path}: clone next to shared/ to run them")
    return json.loads(path.read_text())


def random_hands(rng: np.random.Generator, n: int, size: int = 13) -> np.ndarray:
    """``n`` hands of ``size`` distinct card ids, as an (n, size) uint8 array."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :size].astype(np.uint8)
