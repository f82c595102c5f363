"""Cards: ids, parsing and formatting.

A card is an int ``rank * 4 + suit`` in ``0..51``::

    rank  0..12  =  2 3 4 5 6 7 8 9 T J Q K A
    suit  0..3   =  C D H S   (clubs, diamonds, hearts, spades)

    2C=0  2D=1  2H=2  2S=3  3C=4  ...  AC=48  AD=49  AH=50  AS=51

``Card`` is an ``int`` subclass, so cards go straight into numpy arrays and
kernels, and print as ``AS``. Everything here is friendly Python; the kernels only
ever see the integer ids.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Sequence

from solver.errors import InputError
from solver.text import excerpt, quote

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"

_SUIT_LOOKUP = {s: i for i, s in enumerate(SUITS)} | {s: i for i, s in enumerate(SUIT_SYMBOLS)}
# Variation selectors sometimes trail emoji-style suit symbols ("♥️").
_VARIATION_SELECTORS = "\ufe0e\ufe0f"
_SEPARATORS = re.compile(r"[\s,;]+")


class CardError(InputError, ValueError):
    """Cards that cannot be used as given: the message names the problem and the token."""


class UnknownCardError(CardError):
    """A token that is not a card (unknown rank or suit)."""


class DuplicateCardError(CardError):
    """The same card given twice."""


class CardCountError(CardError):
    """The wrong number of cards for the context (13 for a hand, 3/5/5 for rows)."""


class Card(int):
    """One card; an ``int`` in ``0..51`` that prints as ``AS``.

    >>> Card("As"), Card("10h"), Card("2♣"), Card(51)
    (Card('AS'), Card('TH'), Card('2C'), Card('AS'))
    >>> int(Card("AS")), Card("AS").rank, Card("AS").suit, Card("AS").symbol
    (51, 12, 3, 'A♠')
    """

    __slots__ = ()

    def __new__(cls, value: int | str) -> Card:
        if type(value) is int and 0 <= value < 52 and cls is Card:
            return _CARDS[value]  # the 52 cards are made once
        if isinstance(value, str):
            value = _parse_token(value)
        else:
            try:
                if isinstance(value, bool):
                    raise TypeError
                value = operator.index(value)  # int, numpy integers
            except TypeError:
                raise UnknownCardError(f"expected a card id or a string such as 'AS', got {excerpt(repr(value))}") from None
        if not 0 <= value < 52:
            raise UnknownCardError(f"card id {value} is out of range; ids are 0..51")
        return super().__new__(cls, value)

    @property
    def rank(self) -> int:
        """0 for a deuce up to 12 for an ace."""
        return int(self) >> 2

    @property
    def suit(self) -> int:
        """0..3 for clubs, diamonds, hearts, spades."""
        return int(self) & 3

    @property
    def symbol(self) -> str:
        """The card with its suit symbol, such as ``A♠``."""
        return RANKS[self.rank] + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card('{self}')"


_NAMES = tuple(RANKS[i >> 2] + SUITS[i & 3] for i in range(52))
_SYMBOL_NAMES = tuple(RANKS[i >> 2] + SUIT_SYMBOLS[i & 3] for i in range(52))
_CARDS = tuple(int.__new__(Card, i) for i in range(52))

CardLike = Card | int | str
CardsLike = str | Iterable[CardLike]


def _parse_token(token: str) -> int:
    text = token.strip().strip(_VARIATION_SELECTORS).upper()
    if len(text) < 2:
        raise UnknownCardError(f"cannot read card {quote(token)}; write a rank and a suit, such as 'AS' or '10h'")
    rank_text, suit_text = text[:-1], text[-1]
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS:
        raise UnknownCardError(f"unknown rank {quote(rank_text)} in card {quote(token)}; ranks are {RANKS} (10 = T)")
    if suit_text not in _SUIT_LOOKUP:
        raise UnknownCardError(
            f"unknown suit {quote(suit_text)} in card {quote(token)}; suits are {SUITS} or {SUIT_SYMBOLS}"
        )
    return RANKS.index(rank_text) * 4 + _SUIT_LOOKUP[suit_text]


def parse_card(token: CardLike) -> Card:
    """Parse one card such as ``"As"``, ``"td"``, ``"10h"`` or ``"Q♥"``.

    Args:
        token: The card as text (rank then suit, either case; ``10`` for a ten; a suit letter
            or symbol), as an id in ``0..51``, or as a ``Card``, which is returned as it is.

    Returns:
        The ``Card``.

    Raises:
        UnknownCardError: The token is not a card (an unknown rank or suit, an id out of range,
            or neither an integer nor a string).

    Examples:
        >>> parse_card("As"), parse_card("2c")
        (Card('AS'), Card('2C'))
        >>> parse_card("Xs")
        Traceback (most recent call last):
        ...
        solver.cards.UnknownCardError: unknown rank 'X' in card 'Xs'; ranks are 23456789TJQKA (10 = T)
    """
    return token if isinstance(token, Card) else Card(token)


def parse_cards(cards: CardsLike, count: int | None = None, what: str = "cards") -> tuple[Card, ...]:
    """Parse cards given as one string (space- or comma-separated) or as a sequence.

    Checks for duplicates, and for ``count`` cards when it is given.

    Args:
        cards: The cards, as one string separated by spaces, commas or semicolons, or as an
            iterable of cards, ids or card strings.
        count: The number of cards expected; ``None`` accepts any number.
        what: The context named in the error messages (``"hand"``, ``"front"``, ...).

    Returns:
        The cards, in the order given.

    Raises:
        CardError: ``cards`` is neither a string nor an iterable.
        UnknownCardError: A token is not a card.
        CardCountError: There are not ``count`` cards.
        DuplicateCardError: A card is given twice.

    Examples:
        >>> parse_cards("AS, kd 10h")
        (Card('AS'), Card('KD'), Card('TH'))
        >>> parse_cards("AS KD AS")
        Traceback (most recent call last):
        ...
        solver.cards.DuplicateCardError: duplicate card 'AS' in cards: 'AS KD AS'
        >>> parse_cards("AS KD", count=3, what="front")
        Traceback (most recent call last):
        ...
        solver.cards.CardCountError: expected 3 cards for the front, got 2: 'AS KD'
    """
    if isinstance(cards, str):
        tokens: Sequence[CardLike] = [t for t in _SEPARATORS.split(cards.strip()) if t]
    else:
        try:
            tokens = list(cards)
        except TypeError:
            raise CardError(f"expected cards as a string or a sequence, got {excerpt(repr(cards))}") from None
    parsed = tuple(parse_card(t) for t in tokens)

    def shown() -> str:  # the input as the user gave it, for the error
        return cards.strip() if isinstance(cards, str) else " ".join(str(t) for t in tokens)

    if count is not None and len(parsed) != count:
        target = f"the {what}" if what != "cards" else "cards"
        raise CardCountError(f"expected {count} cards for {target}, got {len(parsed)}: {quote(shown())}")
    if len(set(parsed)) != len(parsed):
        seen: set[int] = set()
        for card in parsed:
            if card in seen:
                raise DuplicateCardError(f"duplicate card '{card}' in {what}: {quote(shown())}")
            seen.add(card)
    return parsed


def parse_hand(cards: CardsLike) -> tuple[Card, ...]:
    """Parse the 13 distinct cards of a hand.

    Args:
        cards: The hand, as one string or as an iterable of cards, ids or card strings.

    Returns:
        The 13 cards, in the order given.

    Raises:
        CardError: The cards cannot be read, are not 13, or repeat a card (the subclasses
            ``UnknownCardError``, ``CardCountError``, ``DuplicateCardError``).

    Examples:
        >>> len(parse_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"))
        13
    """
    return parse_cards(cards, count=13, what="hand")


def format_cards(cards: Iterable[CardLike], symbols: bool = False) -> str:
    """Cards as ``"AS KS TD"`` (or ``"A♠ K♠ T♦"`` with ``symbols=True``).

    Args:
        cards: The cards, as one string or as an iterable of cards, ids or card strings.
        symbols: Write the suits as symbols (``♠``) instead of letters (``S``).

    Returns:
        The cards in the order given, separated by single spaces.

    Raises:
        CardError: A card cannot be read (or, given as one string, the cards repeat one).

    Examples:
        >>> format_cards([51, 47, 33]), format_cards("AS KS TD", symbols=True)
        ('AS KS TD', 'A♠ K♠ T♦')
    """
    parsed = parse_cards(cards) if isinstance(cards, str) else [parse_card(c) for c in cards]
    names = _SYMBOL_NAMES if symbols else _NAMES
    return " ".join([names[c] for c in parsed])


WHEEL_RANKS = {12, 0, 1, 2, 3}  # A 2 3 4 5


def reading_order(cards: Iterable[CardLike]) -> tuple[Card, ...]:
    """A row's cards in the order a player reads them.

    Groups first (the bigger, then the higher), then by rank, high to low; suits S H D C
    within a rank. A five-high straight reads 5 4 3 2 A.

    Args:
        cards: The row's cards, as one string or as an iterable of cards, ids or card strings.

    Returns:
        The same cards, in reading order.

    Raises:
        CardError: A card cannot be read (or, given as one string, the cards repeat one).

    Examples:
        >>> format_cards(reading_order("3C JD 2H JS 3S"))
        'JS JD 3S 3C 2H'
        >>> format_cards(reading_order("AS 2D 3C 4H 5S"))
        '5S 4H 3C 2D AS'
    """
    parsed = list(parse_cards(cards)) if isinstance(cards, str) else [parse_card(c) for c in cards]
    counts: dict[int, int] = {}
    for card in parsed:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    wheel = len(parsed) == 5 and set(counts) == WHEEL_RANKS

    def key(card: Card) -> tuple[int, int, int]:
        rank = -1 if wheel and card.rank == 12 else card.rank
        return (-counts[card.rank], -rank, -card.suit)

    return tuple(sorted(parsed, key=key))


def deck() -> tuple[Card, ...]:
    """All 52 cards in id order.

    Returns:
        The cards ``2C`` (id 0) to ``AS`` (id 51).
    """
    return tuple(Card(i) for i in range(52))


def symbols_supported(stream: object) -> bool:
    """Whether a text stream (such as ``sys.stdout``) can show the suit symbols.

    Args:
        stream: The stream; its ``encoding`` attribute is read, and ASCII is assumed when it
            has none.

    Returns:
        ``True`` when the encoding can encode ``♣♦♥♠``.
    """
    try:
        SUIT_SYMBOLS.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
