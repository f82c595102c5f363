"""The bot contract: 13 cards and an rng in, an Arrangement out.

A bot keeps no state between hands: its arrangement depends only on its cards, its
parameters and the rng it is handed, so a tournament can compute each (bot, hand)
once and reuse it in every seating.

Bots may also offer ``arrange_many(hands, rng)``: an ``(n, 13)`` uint8 array of card
ids in, the same hands reordered front (3) | middle (5) | back (5) out. The solver
arranges thousands of simulated opponents that way; ``arrange_many`` falls back to
calling ``arrange`` once per hand for bots without it. A bot whose ``arrange_many`` sets
each hand exactly as ``arrange`` would and never draws from the rng may say so with the
class attribute ``batch_safe = True``: tournaments then set a whole chunk of its hands in
one call, with the same results.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import numpy as np

from solver import Arrangement, Card, format_cards
from solver.cards import CardsLike, parse_hand
from solver.errors import BotFault, InputError, OpponentError
from solver.naturals import Natural, best_natural
from solver.opponent import check_batch
from solver.rules import Rules
from solver.text import how_many


class BotError(InputError, ValueError):
    """An unknown bot, a bad parameter, or a bot that cannot be made (a protocol bot that does
    not start). A bot that fails while playing raises ``solver.errors.BotFault``."""


class BotGivenUp(BotFault):
    """A bot that failed so many decisions in a row that it is not asked again: a run stops
    on it whatever its fault policy, since which of its later decisions would be faults
    would depend on the order the decisions came in."""


@runtime_checkable
class Bot(Protocol):
    name: ClassVar[str]

    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        """Set one hand.

        Args:
            cards: The 13 cards dealt.
            rng: The generator to draw any randomness from: the arrangement depends only on
                the cards, the bot's parameters and this generator.

        Returns:
            An arrangement of exactly these cards.
        """
        ...


Result = TypeVar("Result")


def takes_cards(method: Callable[[Any, tuple[Card, ...], np.random.Generator], Result]
                ) -> Callable[..., Result]:
    """A bot method ``(cards, rng)`` that also takes the cards as text or any sequence of
    cards, and no rng (then a generator seeded 0, so the call replays).

    Args:
        method: The method to wrap, which takes a tuple of 13 cards and a generator.

    Returns:
        The wrapped method, ``(cards, rng=None)``: it parses the cards
            (``solver.cards.parse_hand``) and calls ``method``. Bad cards raise
            ``solver.CardError`` when it is called.

    Examples:
        >>> from bots import make_bot
        >>> print(make_bot("greedy").arrange("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"))
        9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS
        >>> make_bot("greedy").arrange("AS KS QS")
        Traceback (most recent call last):
        ...
        solver.cards.CardCountError: expected 13 cards for the hand, got 3: 'AS KS QS'
    """

    @functools.wraps(method)
    def parsed(self: Any, cards: CardsLike, rng: np.random.Generator | None = None) -> Result:
        return method(self, parse_hand(cards), np.random.default_rng(0) if rng is None else rng)

    return parsed


def arrangement_from_row(row: np.ndarray) -> Arrangement:
    """An Arrangement from 13 card ids ordered front | middle | back.

    Args:
        row: The 13 card ids: the front's 3, the middle's 5, then the back's 5.

    Returns:
        The arrangement those rows make.
    """
    ids = [int(c) for c in row]
    return Arrangement(ids[:3], ids[3:8], ids[8:])


def _name(bot: object) -> str:
    return str(getattr(bot, "name", None) or type(bot).__name__)


def arrange_many(bot: Bot, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Arrange an ``(n, 13)`` array of hands with the bot's own ``arrange_many``, or hand by hand.

    A bot's own ``arrange_many`` is checked like ``arrange``: the same shape, and each row
    a permutation of its hand. A bot without one is asked ``arrange`` once per hand, each
    answer checked (``checked_arrangement``).

    Args:
        bot: The bot that sets the hands.
        hands: The hands, ``(n, 13)`` card ids (read as uint8).
        rng: The generator handed to the bot.

    Returns:
        The hands ``(n, 13)``, each row reordered front | middle | back.

    Raises:
        BotFault: The bot raised, or its answer is not an arrangement of each hand.
    """
    hands = np.ascontiguousarray(hands, np.uint8)
    many = getattr(bot, "arrange_many", None)
    if many is not None:
        try:
            return check_batch(hands, many(hands.copy(), rng), _name(bot))  # a copy, kept apart from the bot
        except (OpponentError, BotFault) as error:
            raise BotFault(str(error).replace("opponent model", "bot", 1)) from error
        except KeyboardInterrupt:
            raise  # a stop (Ctrl-C), whoever raised it
        except BaseException as error:  # a plug-in may raise anything, exit too: say which bot did
            raise BotFault(f"bot '{_name(bot)}' failed on a batch of {len(hands)} hand{'s' * (len(hands) != 1)}: "
                           f"{type(error).__name__}: {error}") from error
    out = np.empty_like(hands)
    for i, hand in enumerate(hands):
        out[i] = checked_arrangement(bot, tuple(Card(int(c)) for c in hand), rng).cards
    return out


def checked_arrangement(bot: Bot, cards: CardsLike, rng: np.random.Generator) -> Arrangement:
    """``bot.arrange`` with the contract checked: an Arrangement of exactly these cards.

    Args:
        bot: The bot asked to set the hand.
        cards: The 13 cards, as text or a sequence of cards; bad text raises
            ``solver.CardError``.
        rng: The generator handed to the bot.

    Returns:
        The bot's arrangement.

    Raises:
        BotFault: The bot raised, returned something other than an Arrangement, or set other
            cards than it was dealt; the message names the bot, the hand and what went wrong.
    """
    cards = parse_hand(cards)
    try:
        arrangement = bot.arrange(cards, rng)
    except BotFault:
        raise  # it names the bot and the hand already
    except KeyboardInterrupt:
        raise  # a stop (Ctrl-C), whoever raised it
    except BaseException as error:  # a plug-in may raise anything, exit too: say which bot, on which hand
        raise BotFault(f"bot '{_name(bot)}' failed on hand {format_cards(cards)}: "
                       f"{type(error).__name__}: {error}") from error
    if not isinstance(arrangement, Arrangement):
        raise BotFault(f"bot '{_name(bot)}' returned {type(arrangement).__name__}, not an Arrangement, "
                       f"for hand {format_cards(cards)}")
    if sorted(arrangement.cards) != sorted(cards):
        raise BotFault(f"bot '{_name(bot)}' set other cards than it was dealt: {arrangement} "
                       f"for hand {format_cards(cards)}")
    return arrangement


BATCH_CHECK_HANDS = 12  # hands a plug-in's batches are compared with its play on, before it sets simulated opponents
BATCH_CHECK_SEEDS = (1, 2, 3, 4, 5, 6)  # the rngs a hand is set with each way, when two ways differ


@dataclass(frozen=True)
class Disagreement:
    """A hand a bot's batch set otherwise than the bot plays it (``text``: the hand and both
    plays). ``unsteady``: the bot, which says it plays each hand one way, set it two ways alone."""

    text: str
    unsteady: bool = False

    def __str__(self) -> str:
        return self.text


BatchWords = Callable[[int, int], str]  # (hands in the call, a row of it) -> how the call is named in a message


def batch_words(n: int, row: int) -> str:
    """How a call of ``arrange_many`` for ``n`` hands is named in a message (any ``row`` of it).

    Args:
        n: The hands of the call.
        row: The row of the call that a message is about.

    Returns:
        ``"a batch of 12 hands (arrange_many)"``, or ``"a batch of one hand (arrange_many)"``.
    """
    return f"a batch of {how_many(n, 'hand')} (arrange_many)"


def batch_disagreement(bot: Bot, hands: int = BATCH_CHECK_HANDS, seeds: tuple[int, ...] = BATCH_CHECK_SEEDS,
                       whole: int | None = None, words: BatchWords = batch_words) -> Disagreement | None:
    """A hand the bot's own ``arrange_many`` sets otherwise than its ``arrange``, whatever the rng.

    A simulated opponent is set by ``arrange_many``, the bot's play by ``arrange``: where they
    differ, a figure measured against the bot's simulated self is measured against another
    bot. Each of ``hands`` hands (dealt from a fixed seed) is set alone, in a batch of one and
    in one batch of ``whole`` hands that holds them all, spread through it from its first row
    to its last, with the rng of the first of ``seeds``. Where a batch gives other row values
    than the hand alone, the hand is set alone with each of the other seeds too, and it is a
    disagreement when that play is the same every time: a bot that plays a hand one way
    whatever its rng must set it that way in a batch too, while a play that changes with the
    rng is the bot's to choose. A spot check: a batch may still differ on hands or batch
    sizes it does not try.

    Args:
        bot: The bot; one without ``arrange_many`` is asked ``arrange`` in batches too.
        hands: How many hands to compare on.
        seeds: The seeds of the rngs; one seed alone for a bot that draws on no rng of ours
            and says it plays every hand one way (a protocol bot whose hello does not say
            ``"random": true``), so that any other play in a batch is a disagreement, as is
            another play when the hand is then asked alone once more (``unsteady``).
        whole: The hands of the batch that holds them all (the others dealt from the same
            seed, and not compared); ``hands`` when None or fewer.
        words: How a batch is named in the disagreement (``batch_words``).

    Returns:
        The first hand set two ways, with both plays, or None.

    Raises:
        BotFault: The bot failed on a hand, or answered with other cards.
    """
    if getattr(bot, "arrange_many", None) is None:
        return None
    size = max(hands, whole or 0)
    try:
        return _first_disagreement(_BatchCheck(bot, _check_hands(size), hands, seeds, words))
    except BotFault as error:
        raise _with_log(BotFault(f"{error} (setting {hands} hands to compare its batches with its play, before it "
                                 "sets simulated opponents)"), error) from error


def _with_log(fault: BotFault, cause: BotFault) -> BotFault:
    """``fault``, naming the log of the bot's process that ``cause`` names (``BotFault.log``)."""
    fault.log = getattr(cause, "log", None)
    return fault


def _check_hands(size: int) -> np.ndarray:
    """The ``size`` hands the batch check deals, from a fixed seed."""
    return np.argsort(np.random.default_rng(BATCH_CHECK_SEEDS).random((size, 52)), axis=1)[:, :13].astype(np.uint8)


def _first_disagreement(check: _BatchCheck) -> Disagreement | None:
    for h in check.compared:
        found = check.disagreement(int(h))
        if found:
            return found
    return None


class _BatchCheck:
    """The plays ``batch_disagreement`` compares, each asked for once."""

    def __init__(self, bot: Bot, dealt: np.ndarray, hands: int, seeds: tuple[int, ...], words: BatchWords):
        self.bot, self.dealt, self.seeds, self.words = bot, dealt, seeds, words
        self.compared = np.unique(np.linspace(0, len(dealt) - 1, hands).round().astype(int))  # the first row, the last
        self._whole: dict[int, np.ndarray] = {}  # seed -> the batch of every hand set with it

    def alone(self, h: int, seed: int) -> Arrangement:
        return checked_arrangement(self.bot, tuple(Card(int(c)) for c in self.dealt[h]), np.random.default_rng(seed))

    def one(self, h: int, seed: int) -> Arrangement:
        return arrangement_from_row(arrange_many(self.bot, self.dealt[h:h + 1], np.random.default_rng(seed))[0])

    def whole(self, h: int, seed: int) -> Arrangement:
        if seed not in self._whole:
            self._whole[seed] = arrange_many(self.bot, self.dealt, np.random.default_rng(seed))
        return arrangement_from_row(self._whole[seed][h])

    def disagreement(self, h: int) -> Disagreement | None:
        """How hand ``h`` is set otherwise in a batch than alone, where its play alone is the
        same whatever the rng, or None."""
        seed = self.seeds[0]
        first = self.alone(h, seed)
        for way, words in ((self.one, self.words(1, 0)), (self.whole, self.words(len(self.dealt), h))):
            other = way(h, seed)
            if other.values() == first.values():
                continue
            found = _batch_play_problem(self.bot, self.dealt[h], other, words, first, self.seeds)
            if found:
                return found
        return None


def _batch_play_problem(bot: Bot, row: np.ndarray, batch: Arrangement, words: str, first: Arrangement,
                        seeds: tuple[int, ...]) -> Disagreement | None:
    """What is wrong where a batch (``words``) set the hand ``row`` as ``batch`` and the bot
    alone as ``first`` (with the first of ``seeds``), rows of other values, or None: nothing
    when its play alone changes with the other seeds (the bot's to choose). With one seed (a
    bot that says it plays each hand one way) the hand is set alone once more: another play
    then is randomness it does not declare, else the batch is not its play."""
    cards = tuple(Card(int(c)) for c in row)
    hand = format_cards(sorted(row.tolist(), reverse=True))
    if len(seeds) == 1:
        again = checked_arrangement(bot, cards, np.random.default_rng(seeds[0]))
        if again.values() != first.values():
            return Disagreement(f"bot '{_name(bot)}' sets {hand} as {first.format()} then as {again.format()} alone "
                                "(arrange), though it says it plays each hand one way", unsteady=True)
        fixed = "and it says it plays each hand one way"
    elif all(checked_arrangement(bot, cards, np.random.default_rng(seed)).values() == first.values()
             for seed in seeds[1:]):
        fixed = "which it plays whatever its rng"
    else:
        return None
    return Disagreement(f"bot '{_name(bot)}' sets {hand} as {batch.format()} in {words} but as {first.format()} "
                        f"alone (arrange), {fixed}")


SPOT_CHECKED = 2  # rows of each batch a plug-in sets for simulated opponents that are set again alone


def batch_row_disagreement(bot: Bot, hands: np.ndarray, rows: np.ndarray, seeds: tuple[int, ...] = BATCH_CHECK_SEEDS,
                           words: BatchWords = batch_words) -> Disagreement | None:
    """A hand of a batch the bot set (``rows``) otherwise than it plays it whatever its rng, or None.

    The spot check ``batch_disagreement`` makes before a plug-in sets simulated opponents,
    made again on ``SPOT_CHECKED`` rows of each batch it sets: a batch of any size, on the
    hands of the run. The rows are picked by a hash of the batch's hands, so the same batch
    is checked on the same rows, and no rng of the run is drawn from.

    Args:
        bot: The bot that set the batch.
        hands: The hands, ``(n, 13)`` card ids.
        rows: The bot's answer, checked to hold each hand (``check_batch``).
        seeds: The seeds of the rngs the hands are set with alone (``batch_disagreement``).
        words: How the batch is named in the disagreement (``batch_words``).

    Returns:
        The first picked hand that the batch sets otherwise than the bot plays it alone
            with every seed of ``seeds``, with both plays; or None.

    Raises:
        BotFault: The bot failed on a hand, or answered with other cards; the message says
            the hand was set alone to compare it with the batch.
    """
    n = len(hands)
    if n == 0:
        return None
    digest = int.from_bytes(hashlib.blake2b(np.ascontiguousarray(hands).tobytes(), digest_size=8).digest(), "little")
    for i in sorted({(digest >> (16 * k)) % n for k in range(SPOT_CHECKED)}):
        batch = arrangement_from_row(rows[i])
        try:
            first = checked_arrangement(bot, tuple(Card(int(c)) for c in hands[i]), np.random.default_rng(seeds[0]))
            found = None if batch.values() == first.values() else \
                _batch_play_problem(bot, hands[i], batch, words(n, i), first, seeds)
        except BotFault as error:
            raise _with_log(BotFault(f"{error} (set alone, to compare it with how {words(n, i)} set it)"),
                            error) from error
        if found:
            return found
    return None


def describe_bot(bot: object) -> str:
    """The first line of a bot's docstring.

    Args:
        bot: A bot, or its class or factory.

    Returns:
        The first line of its ``__doc__`` (stripped), or an empty string when it has none.
    """
    doc = (bot.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


def declared_natural(bot: Bot, cards: tuple[Card, ...], entropy: int | np.random.SeedSequence,
                     rules: Rules) -> Natural | None:
    """The natural ``bot`` declares with these cards under ``rules``, or None.

    A bot with a ``declare(cards, rng) -> bool`` method decides for itself; any other
    bot declares every natural it holds (the best paid one): a natural pays 3 or 4 units
    per opponent for sure, more than playing out is worth for nearly every such hand.

    Args:
        bot: The bot that holds the cards.
        cards: The 13 cards dealt.
        entropy: The seed of the generator handed to the bot's ``declare``: one of its own, so
            that it starts where the generator ``arrange`` is given from the same seed does,
            whichever is asked first (as in a tournament).
        rules: The rule set played; without naturals nothing is declared.

    Returns:
        The best paid natural in the hand when the bot declares it; None when the rules
            have no naturals, the hand holds none, or the bot does not declare.

    Raises:
        BotFault: The bot's ``declare`` raised, or answered something other than True or False.
    """
    if not rules.naturals:
        return None

    natural = best_natural(cards, rules)
    if natural is None:
        return None
    decide = getattr(bot, "declare", None)
    if decide is None:
        return natural
    try:
        choice = decide(cards, np.random.default_rng(entropy))
    except KeyboardInterrupt:
        raise  # a stop (Ctrl-C), whoever raised it
    except BaseException as error:  # a plug-in may raise anything, exit too
        raise BotFault(f"bot '{_name(bot)}' failed to decide on declaring {natural.kind} with hand "
                       f"{format_cards(cards)}: {type(error).__name__}: {error}") from error
    if not isinstance(choice, (bool, np.bool_)):
        raise BotFault(f"bot '{_name(bot)}' answered {choice!r} to declare(), not True or False, for hand "
                       f"{format_cards(cards)}")
    return natural if choice else None
