import numpy as np
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "benchmarks" in item.path.parts:
            item.add_marker(pytest.mark.perf)


@pytest.fixture(scope="session")
def five_card_columns() -> np.ndarray:
    """2,000,000 random five-card rows, as the (5, n) uint8 layout the kernels take."""
    rng = np.random.default_rng(5)
    rows = np.argsort(rng.random((2_000_000, 52), dtype=np.float32), axis=1)[:, :5]
    return np.ascontiguousarray(rows.T, np.uint8)
