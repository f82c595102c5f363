"""What the solver needs from an opponent: a model that sets many hands at once.

``solve`` simulates thousands of opponents; any object with ``arrange_many`` can set
them. The bots layer turns a bot name into such a model (``bots.opponent_model``); the
solver itself knows no bots. Every answer is checked before it is used: a model that
returns other cards than it was dealt would otherwise turn into a wrong EV.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from solver._splits import first_foreign_row
from solver.cards import format_cards
from solver.errors import BotFault, OpponentError


@runtime_checkable
class OpponentModel(Protocol):
    """Sets ``(n, 13)`` hands of card ids; returns them reordered front (3) | middle (5) | back (5)."""

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Set every hand of a batch.

        Args:
            hands: The hands, an ``(n, 13)`` uint8 array of card ids, one a line.
            rng: The random generator to draw from, for a model that draws.

        Returns:
            The same hands reordered front (3) | middle (5) | back (5), an ``(n, 13)`` array
                of integer card ids.
        """
        ...


def model_name(model: object) -> str:
    """How a model is named in results and errors.

    Args:
        model: The opponent model.

    Returns:
        Its ``name`` attribute when it has a non-empty one, else its class's name.
    """
    return str(getattr(model, "name", None) or type(model).__name__)


def arrange_checked(model: OpponentModel, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``model.arrange_many(hands, rng)``, checked: the same shape, each row a permutation of its hand.

    Args:
        model: The opponent model.
        hands: The hands, an ``(n, 13)`` array of card ids; passed to the model as uint8.
        rng: The random generator passed to the model.

    Returns:
        The set hands, an ``(n, 13)`` uint8 array.

    Raises:
        OpponentError: The model raised an exception (named in the message and chained), or
            its answer is not the hands set in rows (the message names the first bad row).
    """
    name = model_name(model)
    hands = np.ascontiguousarray(hands, np.uint8)
    try:
        answer = model.arrange_many(hands.copy(), rng)  # a model that writes into its copy cannot pass the check
    except KeyboardInterrupt:
        raise  # a stop (Ctrl-C), whoever raised it
    except BaseException as error:  # a plug-in may raise anything, exit too; say which model did
        said = str(error) if isinstance(error, BotFault) else f"{type(error).__name__}: {error}"  # a fault names its bot
        raise OpponentError(f"opponent model '{name}' failed: {said}") from error
    return check_batch(hands, answer, name)


def check_batch(hands: np.ndarray, answer: object, name: str) -> np.ndarray:
    """``answer`` as a uint8 array when it holds ``hands`` set in rows.

    Args:
        hands: The hands dealt, an ``(n, 13)`` array of card ids.
        answer: What the model returned.
        name: The model's name, for the error.

    Returns:
        ``answer`` as a uint8 array.

    Raises:
        OpponentError: ``answer`` is not an array of integer card ids of the shape of
            ``hands`` (which must be ``(n, 13)``), or a row is not a permutation of its hand
            (the message names the first).
    """
    try:
        arranged = np.asarray(answer)
    except Exception:  # not array-like at all
        arranged = np.empty(0)
    if arranged.shape != hands.shape or hands.shape[1:] != (13,) or not np.issubdtype(arranged.dtype, np.integer):
        raise OpponentError(f"opponent model '{name}' returned {type(answer).__name__} of shape "
                            f"{getattr(arranged, 'shape', '?')} and type {arranged.dtype}; expected integer card ids "
                            f"of shape {hands.shape}")
    row = int(first_foreign_row(np.ascontiguousarray(hands, np.uint8), _card_ids(arranged)))
    if row >= 0:
        ids = [int(c) for c in arranged[row]]
        shown = format_cards(ids) if all(0 <= c < 52 for c in ids) else " ".join(str(c) for c in ids)
        raise OpponentError(f"opponent model '{name}' set hand {row} ({format_cards(hands[row].tolist())}) "
                            f"as other cards: [{shown}]")
    return arranged.astype(np.uint8)  # a copy: a model that writes into its answer later cannot change it


def _card_ids(arranged: np.ndarray) -> np.ndarray:
    """Integer ids as int64 for the check, with ids beyond its range made -1 (never a card)."""
    if arranged.dtype == np.uint64:
        return np.where(arranged > 51, -1, arranged).astype(np.int64)
    return np.ascontiguousarray(arranged, np.int64)
