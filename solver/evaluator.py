"""Row values and names: the friendly layer over ``solver._evaluator``.

A row's value is one int, higher is better, on one scale for 3-card fronts and
5-card middles and backs (layout in ``solver._evaluator``), so a foul check is two
integer comparisons.

>>> evaluate("7S 7H KD") < evaluate("7C 7D KS 5H 3C")
True
>>> describe("7S 7H KD"), describe("TC JC QC KC AC"), describe("AD 2C 3H 4S 5D")
('pair of 7s, K kicker', 'royal flush', '5-high straight')
"""

from __future__ import annotations

import numpy as np

from solver import _evaluator as _ev
from solver._evaluator import CATEGORY_SHIFT, MAJOR_SHIFT, RANK_MASK
from solver.cards import RANKS, Card, CardCountError, CardError, CardsLike, parse_cards

__all__ = [
    "CATEGORY_NAMES", "CATEGORY_SHIFT", "MAJOR_SHIFT", "RANK_MASK", "category", "category_name", "describe",
    "describe_value", "evaluate", "evaluate_many", "hand_keys",
]  # fmt: skip

CATEGORY_NAMES = (
    "high card", "pair", "two pair", "three of a kind", "straight",
    "flush", "full house", "four of a kind", "straight flush",
)  # fmt: skip
_PLURAL = ("2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "tens", "jacks", "queens", "kings", "aces")


def _row(cards: CardsLike) -> tuple[int, ...]:
    parsed = parse_cards(cards, what="row")
    if len(parsed) not in (3, 5):
        raise _count_error(parsed, cards)
    return tuple(int(c) for c in parsed)


def _count_error(parsed: tuple[Card, ...], cards: CardsLike) -> CardError:
    shown = cards if isinstance(cards, str) else " ".join(str(c) for c in parsed)
    return CardCountError(f"expected 3 or 5 cards for a row, got {len(parsed)}: {shown!r}")


def evaluate(cards: CardsLike) -> int:
    """Value of a 3- or 5-card row; higher is better, on one scale for both sizes.

    Args:
        cards: The row, as a string (``"AS KS QS"``) or a sequence of cards or ids.

    Returns:
        The row's value (layout in ``solver._evaluator``).

    Raises:
        CardCountError: The row does not hold 3 or 5 cards.
        CardError: A card cannot be read or is given twice.
    """
    ids = _row(cards)
    return int(_ev.eval5(*ids) if len(ids) == 5 else _ev.eval3(*ids))


def evaluate_many(cards: np.ndarray) -> np.ndarray:
    """Values of the rows of an ``(n, 5)`` or ``(n, 3)`` array of card ids, in one kernel call.

    Rows must hold distinct valid ids; that is checked here, once, for the whole array.

    Args:
        cards: The rows, one a line: an integer array of shape ``(n, 5)`` or ``(n, 3)``.

    Returns:
        The ``n`` values, as an int32 array.

    Raises:
        ValueError: The array is not of shape ``(n, 5)`` or ``(n, 3)``, an id is outside
            ``0..51``, or a row holds the same card twice.
    """
    array = np.asarray(cards)
    if array.ndim != 2 or array.shape[1] not in (3, 5):
        raise ValueError(f"expected an (n, 5) or (n, 3) array of card ids, got shape {array.shape}")
    if array.size and (array.min() < 0 or array.max() > 51):
        raise ValueError("card ids must be in 0..51")
    ordered = np.sort(array, axis=1)
    if array.size and (ordered[:, 1:] == ordered[:, :-1]).any():
        raise ValueError("a row holds the same card twice")
    columns = np.ascontiguousarray(array.T, np.uint8)
    return _ev.eval5_columns(columns) if array.shape[1] == 5 else _ev.eval3_columns(columns)


def row_values(arranged: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Front, middle and back values of an ``(n, 13)`` array set front | middle | back.

    Args:
        arranged: The hands, one a line: columns 0-2 the front, 3-7 the middle, 8-12 the back.

    Returns:
        The front, middle and back values, each an int32 array of length ``n``.

    Raises:
        ValueError: An id is outside ``0..51`` or a row holds the same card twice.
    """
    return (
        evaluate_many(arranged[:, :3]),
        evaluate_many(arranged[:, 3:8]),
        evaluate_many(arranged[:, 8:]),
    )


def category(value: int) -> int:
    """Category number of a value: 0 high card .. 8 straight flush.

    Args:
        value: A row value from ``evaluate``.

    Returns:
        The category, an index into ``CATEGORY_NAMES``.
    """
    return value >> _ev.CATEGORY_SHIFT


def category_name(value: int) -> str:
    """``"pair"``, ``"flush"``, ... for a value.

    Args:
        value: A row value from ``evaluate``.

    Returns:
        The category's name, from ``CATEGORY_NAMES``.
    """
    return CATEGORY_NAMES[category(value)]


def _ranks(mask: int) -> list[int]:
    return [r for r in range(12, -1, -1) if mask >> r & 1]


def _kickers(mask: int) -> str:
    ranks = _ranks(mask)
    if not ranks:
        return ""
    return ", " + " ".join(RANKS[r] for r in ranks) + (" kicker" if len(ranks) == 1 else " kickers")


def describe_value(value: int) -> str:
    """A row's name from its value, as a player says it.

    Args:
        value: A row value from ``evaluate``.

    Returns:
        The name, with the kickers where the category has them.

    Examples:
        >>> describe_value(evaluate("9S 9H 9D")), describe_value(evaluate("9S 9H 4D 4C 4S"))
        ('three 9s', '4s full of 9s')
    """
    cat = category(value)
    major = value >> _ev.MAJOR_SHIFT & _ev.RANK_MASK
    minor = value & _ev.RANK_MASK
    top = _ranks(major)
    low = _ranks(minor)
    if cat == _ev.STRAIGHT_FLUSH:
        return "royal flush" if low[0] == 12 else f"{RANKS[low[0]]}-high straight flush"
    if cat == _ev.QUADS:
        return f"four {_PLURAL[top[0]]}{_kickers(minor)}"
    if cat == _ev.FULL_HOUSE:
        return f"{_PLURAL[top[0]]} full of {_PLURAL[low[0]]}"
    if cat == _ev.FLUSH:
        return f"{RANKS[low[0]]}-high flush, " + " ".join(RANKS[r] for r in low)
    if cat == _ev.STRAIGHT:
        return f"{RANKS[low[0]]}-high straight"
    if cat == _ev.TRIPS:
        return f"three {_PLURAL[top[0]]}{_kickers(minor)}"
    if cat == _ev.TWO_PAIR:
        return f"two pair, {_PLURAL[top[0]]} and {_PLURAL[top[1]]}{_kickers(minor)}"
    if cat == _ev.PAIR:
        return f"pair of {_PLURAL[top[0]]}{_kickers(minor)}"
    return f"{RANKS[low[0]]}-high, " + " ".join(RANKS[r] for r in low)


def describe(cards: CardsLike) -> str:
    """A row's name: ``"pair of 7s, K kicker"``, ``"A-high flush, A J 8 5 3"``, ``"three 9s"``.

    Args:
        cards: The row of 3 or 5 cards, as a string or a sequence of cards or ids.

    Returns:
        The name, as ``describe_value`` gives it.

    Raises:
        CardCountError: The row does not hold 3 or 5 cards.
        CardError: A card cannot be read or is given twice.
    """
    return describe_value(evaluate(cards))


def hand_keys(values: np.ndarray) -> np.ndarray:
    """What a row value is called without its kickers.

    Two rows with the same key differ only in kickers or suits ("pair of 9s", "K-high
    straight", "A-high flush", "9s full of 4s").

    Args:
        values: Row values from ``evaluate`` or ``evaluate_many``, an array of any shape.

    Returns:
        The keys, an int64 array of the shape of ``values``.

    Examples:
        >>> a, b, c = (evaluate(r) for r in ("9S 9H 5D 4C 2S", "9D 9C KD 4H 3S", "9S 9H 9C 4C 2S"))
        >>> k = hand_keys(np.array([a, b, c]))
        >>> bool(k[0] == k[1]), bool(k[0] == k[2])
        (True, False)
    """
    v = np.asarray(values, np.int64)
    return _ev.name_keys(v.ravel()).reshape(v.shape)
