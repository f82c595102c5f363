"""Arrangements: a hand set into front (3), middle (5) and back (5), and fouls."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from solver.cards import (
    Card,
    CardCountError,
    CardError,
    CardLike,
    CardsLike,
    DuplicateCardError,
    format_cards,
    parse_cards,
    reading_order,
)
from solver.evaluator import describe_value, evaluate

ROWS = ("front", "middle", "back")
ROW_SIZES = (3, 5, 5)
_ROW_SEPARATOR = re.compile(r"\s*[|/]\s*")


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A set hand: 13 distinct cards as front (3), middle (5) and back (5).

    Rows may be given as strings or as sequences of cards; they are stored as tuples of
    ``solver.cards.Card``. Legal when back >= middle >= front (see ``is_foul``).

    >>> a = Arrangement("2S 2H AD", "7C 7D 9S 5H 3D", "TC JC QC KC AC")
    >>> a.front
    (Card('2S'), Card('2H'), Card('AD'))
    >>> str(a)  # each row in reading order
    '2S 2H AD / 7D 7C 9S 5H 3D / AC KC QC JC TC'
    """

    front: tuple[Card, ...]
    middle: tuple[Card, ...]
    back: tuple[Card, ...]

    def __init__(self, front: CardsLike, middle: CardsLike, back: CardsLike) -> None:
        rows = [parse_cards(r, count=n, what=name) for r, n, name in zip((front, middle, back), ROW_SIZES, ROWS)]
        seen: dict[int, str] = {}
        for name, row in zip(ROWS, rows):
            for card in row:
                if card in seen:
                    raise DuplicateCardError(f"duplicate card '{card}' in the {seen[card]} and the {name}")
                seen[card] = name
        for name, row in zip(ROWS, rows):
            object.__setattr__(self, name, row)

    @classmethod
    def parse(cls, text: str) -> Arrangement:
        """Read ``"front / middle / back"`` (``|`` also separates rows).

        Args:
            text: The three rows, separated by ``/`` or ``|``.

        Returns:
            The arrangement.

        Raises:
            CardCountError: The text does not hold three rows, or a row has the wrong number
                of cards.
            CardError: A card cannot be read or is given twice.

        Examples:
            >>> Arrangement.parse("2S 2H AD | 7C 7D 9S 5H 3D | TC JC QC KC AC").back[0]
            Card('TC')
        """
        parts = _ROW_SEPARATOR.split(text.strip())
        if len(parts) != 3:
            raise CardCountError(f"expected three rows separated by '/' or '|', got {len(parts)}: {text!r}")
        return cls(*parts)

    @property
    def rows(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        return (self.front, self.middle, self.back)

    @property
    def cards(self) -> tuple[Card, ...]:
        """All 13 cards, front then middle then back."""
        return self.front + self.middle + self.back

    def values(self) -> tuple[int, int, int]:
        """Row values on the ``solver.evaluate`` scale.

        Returns:
            The values of the front, the middle and the back.
        """
        return (evaluate(self.front), evaluate(self.middle), evaluate(self.back))

    def format(self, symbols: bool = False) -> str:
        """The rows as ``front / middle / back``, each in reading order (groups first, then by rank).

        Args:
            symbols: Write the suits as symbols (``♠``) instead of letters (``S``).

        Returns:
            The three rows, separated by ``" / "``.
        """
        return format_rows(self.rows, symbols)

    def reading_rows(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        """The rows, each in reading order (``solver.cards.reading_order``).

        Returns:
            The front, the middle and the back, each in reading order.
        """
        return (reading_order(self.front), reading_order(self.middle), reading_order(self.back))

    def to_dict(self) -> dict[str, str]:
        """The rows as the JSON documents give them (docs/json.md).

        Returns:
            ``front``, ``middle`` and ``back``, each row's cards as text, in reading order.

        Examples:
            >>> Arrangement.parse("2C 9D 9H / 4S 5H 6D 7C 8C / TS JS QS KS AS").to_dict()
            {'front': '9H 9D 2C', 'middle': '8C 7C 6D 5H 4S', 'back': 'AS KS QS JS TS'}
        """
        return {name: format_cards(row) for name, row in zip(ROWS, self.reading_rows())}

    def __str__(self) -> str:
        return self.format()


def format_rows(rows: Iterable[Iterable[CardLike]], symbols: bool = False) -> str:
    """Three rows of cards (front, middle, back) as ``Arrangement.format`` writes them.

    No ``Arrangement`` is made: its checks are for input from outside.

    Args:
        rows: The rows, in order front, middle, back; each an iterable of cards or ids.
        symbols: Write the suits as symbols (``♠``) instead of letters (``S``).

    Returns:
        The rows, each in reading order, separated by ``" / "``.
    """
    return " / ".join(format_cards(reading_order(r), symbols=symbols) for r in rows)


def as_arrangement(value: Arrangement | str) -> Arrangement:
    """An ``Arrangement``, or text such as ``"2S 2H AD / ... / ..."`` read as one.

    Args:
        value: An ``Arrangement``, returned as it is, or text read by ``Arrangement.parse``.

    Returns:
        The arrangement.

    Raises:
        CardError: ``value`` is neither an ``Arrangement`` nor a string, or the text cannot be
            read as one.
    """
    if isinstance(value, Arrangement):
        return value
    if isinstance(value, str):
        return Arrangement.parse(value)
    raise CardError(f"expected an Arrangement or 'front / middle / back' text, got {value!r}")


def foul_reason(arrangement: Arrangement | str) -> str | None:
    """Why an arrangement is fouled, or ``None`` when it is legal.

    Args:
        arrangement: The arrangement, or its text (``"front / middle / back"``).

    Returns:
        Each pair of rows out of order with both rows described, joined by ``"; "``; ``None``
            when the rows are in order.

    Raises:
        CardError: The arrangement is neither an ``Arrangement`` nor readable text.

    Examples:
        >>> foul_reason("AS KH QD / AC KS JD 9H 3C / 2S 2H 2D 3S 4S")
        'front (A-high, A K Q) beats middle (A-high, A K J 9 3)'
        >>> foul_reason("2S 3H 4D / 9S 9H 5C 6C 8D / 7S 7H AD KC QC")
        'middle (pair of 9s, 8 6 5 kickers) beats back (pair of 7s, A K Q kickers)'
        >>> foul_reason("2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC") is None
        True
    """
    arr = as_arrangement(arrangement)
    front, middle, back = arr.values()
    reasons = []
    if front > middle:
        reasons.append(f"front ({describe_value(front)}) beats middle ({describe_value(middle)})")
    if middle > back:
        reasons.append(f"middle ({describe_value(middle)}) beats back ({describe_value(back)})")
    return "; ".join(reasons) or None


def is_foul(arrangement: Arrangement | str) -> bool:
    """Whether the rows are out of order.

    Args:
        arrangement: The arrangement, or its text (``"front / middle / back"``).

    Returns:
        ``True`` when front > middle or middle > back.

    Raises:
        CardError: The arrangement is neither an ``Arrangement`` nor readable text.
    """
    front, middle, back = as_arrangement(arrangement).values()
    return not (front <= middle <= back)
