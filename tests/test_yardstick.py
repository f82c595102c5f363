"""The packaged yardstick is the shared one: the same dealing, the same kernel, the same work.

The shared kernel is a tool kept apart from this project; the package carries a copy
(``bench/analysis/_yardstick.py``) so that ``bench perf`` works where only the package is installed,
and ``tests/data/yardstick.py.txt`` holds the original word for word (tests/data/README.md).
The copy must not drift from the original.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

from bench.analysis import _yardstick

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / "tests" / "data" / "yardstick.py.txt"
PACKAGED = ROOT / "bench" / "analysis" / "_yardstick.py"
COMPARED = ("_deal", "_classify")


def _functions(path: Path) -> dict[str, str]:
    """Each compared function's full text, decorators included, exactly as written."""
    text = path.read_text(encoding="utf-8")
    found = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name in COMPARED:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found[node.name] = "\n".join(text.splitlines()[first - 1:node.end_lineno])
    return found


def test_the_packaged_kernel_and_dealing_are_the_shared_ones():
    shared, packaged = _functions(SHARED), _functions(PACKAGED)
    assert sorted(shared) == sorted(COMPARED), f"the shared yardstick lacks {set(COMPARED) - set(shared)}"
    for name in COMPARED:
        assert packaged.get(name) == shared[name], f"bench/analysis/_yardstick.py's {name} differs from {SHARED}'s"


@pytest.mark.slow
def test_the_kernel_classifies_hands_into_the_nine_categories():
    # 2c=0, 2d=1, ..., As=51: a royal flush, four aces, a full house, a wheel, a flush, nothing.
    hands = np.array([[51, 47, 43, 39, 35], [48, 49, 50, 51, 0], [0, 1, 2, 4, 5], [48, 1, 6, 11, 12],
                      [0, 8, 16, 24, 36], [0, 5, 10, 19, 40]], np.int64)
    assert _yardstick._classify(hands) == 8 + 7 + 6 + 4 + 5 + 0


@pytest.mark.slow
def test_the_hands_are_fixed_distinct_cards():
    hands = _yardstick.hands()
    assert hands.shape == (1_000_000, 5)
    assert hands.min() == 0 and hands.max() == 51
    assert (np.sort(hands, axis=1)[:, 1:] != np.sort(hands, axis=1)[:, :-1]).all()
