"""The opponents a solve is scored against: dealt from the cards the player does not hold,
set by an opponent model, and seen as the scoring sees them.

Each opponent's 13 cards are dealt from the 39 the player does not hold (card removal is
real), each from its own child of the seed (``simulate``), and set by any opponent
model (``solver.opponent``). ``Sample`` holds what the scoring needs of them: their
row values, fouls and the naturals they declare. A sample that would not fit in the memory
left is refused before any work (``check_memory``).
"""

from __future__ import annotations

import time

import numpy as np

from solver import _evaluator, config, system
from solver.cards import Card
from solver.errors import SolveError
from solver.naturals import Natural, best_natural, natural_mask, settle_naturals
from solver.opponent import OpponentModel, arrange_checked
from solver.pool import OpponentPool
from solver.rules import Rules
from solver.scoring import fouls, row_results_of, settle_values


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"


def check_memory(samples: int, each: int = config.BYTES_PER_SAMPLE, what: str = "samples") -> None:
    """Refuse, before any work, a sample that would not fit in the memory left.

    A sample that needs less than ``config.SMALL_NEED`` (less than the interpreter itself
    takes) is let through without reading the system's figures, which would take longer than
    the check is worth. Where the memory left cannot be read, every sample is let through.

    Args:
        samples: How many opponent hands the sample would hold.
        each: The bytes each needs: ``config.BYTES_PER_SAMPLE`` for a sample that is dealt,
            ``solver.pool.BYTES_PER_MEMBER`` for a pool's members.
        what: What they are called in the message.

    Raises:
        SolveError: The sample needs more than ``system.available_memory()``; the message
            says how many samples would fit.

    Examples:
        >>> check_memory(10**15)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        solver.errors.SolveError: 1,000,000,000,000,000 samples would need about 651,925,802.2 GiB of memory, more than the ...
    """
    need = int(samples) * each
    if need < config.SMALL_NEED:
        return
    have = system.available_memory()
    if have is not None and need > have:
        raise SolveError(f"{int(samples):,} {what} would need about {_gib(need)} of memory, more than the "
                         f"{_gib(have)} available; ask for at most {have // each:,}")


def deal_opponents(hand: tuple[Card, ...], samples: int, rng: np.random.Generator) -> np.ndarray:
    """``samples`` opponent hands of 13 cards from the 39 the player does not hold.

    Each hand is dealt on its own from all 39 cards, so two hands may share cards.

    Args:
        hand: The player's 13 cards.
        samples: How many hands to deal.
        rng: The random generator to deal from.

    Returns:
        The hands, a ``(samples, 13)`` uint8 array of card ids, each row in the order dealt.
    """
    rest = np.setdiff1d(np.arange(52, dtype=np.uint8), np.array(hand, np.uint8))
    order = np.argsort(rng.random((samples, rest.size)), axis=1)[:, :13]
    return rest[order]


class Sample:
    """The opponents as the scoring sees them: row values, fouls, naturals."""

    def __init__(self, arranged: np.ndarray, deals: np.ndarray, rules: Rules):
        self.n = len(arranged)
        self.values = _evaluator.arranged_values(np.ascontiguousarray(arranged, np.uint8))  # (n, 3)
        self.foul = fouls(self.values)
        self.naturals: list[Natural | None] = [None] * self.n
        self.declared = np.zeros(self.n, bool)
        if rules.naturals:
            for i in np.flatnonzero(natural_mask(deals)).tolist():
                self.naturals[i] = best_natural(deals[i].tolist(), rules)  # opponents declare what they hold
                self.declared[i] = self.naturals[i] is not None
        self.plain = ~self.declared

    def natural_scores(self, mine: Natural | None, rules: Rules) -> np.ndarray:
        """Per-sample settlement where a natural decides it (0 elsewhere).

        Args:
            mine: Our declared natural, or ``None`` when we play rows (then only the
                opponents who declared a natural are settled).
            rules: The rule set whose payouts are paid.

        Returns:
            Our units against each sampled opponent, a float array of length ``n``.
        """
        out = np.zeros(self.n)
        for i in range(self.n) if mine is not None else np.flatnonzero(self.declared).tolist():
            out[i] = settle_naturals(mine, self.naturals[i], rules)
        return out


def per_sample_rows(values: tuple[int, int, int], sample: Sample) -> np.ndarray:
    """(n, 3) row results (+1/0/-1) of one arrangement against each opponent.

    Args:
        values: The arrangement's row values (front, middle, back).
        sample: The sampled opponents.

    Returns:
        An int8 array of shape ``(n, 3)``, fouls applied (on either side); naturals are not
            taken into account.
    """
    return row_results_of(np.broadcast_to(np.array(values, np.int64), (sample.n, 3)), sample.values)


def per_sample_scores(values: tuple[int, int, int], sample: Sample, rules: Rules) -> np.ndarray:
    """(n,) units one arrangement wins from each sampled opponent under ``rules``.

    Against an opponent who declared a natural the natural settles the pairing.

    Args:
        values: The arrangement's row values (front, middle, back).
        sample: The sampled opponents.
        rules: The rule set.

    Returns:
        The units against each opponent, a float64 array of length ``n``.
    """
    scores = settle_values(np.broadcast_to(np.array(values, np.int64), (sample.n, 3)), sample.values, rules)
    scores = scores.astype(np.float64)
    if sample.declared.any():
        scores[sample.declared] = sample.natural_scores(None, rules)[sample.declared]
    return scores


def simulate(cards: tuple[Card, ...], opponent: OpponentModel, samples: int,
              entropy: int) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """The opponents dealt from the unseen cards and set by ``opponent``, each from its own
    child of the seed.

    Args:
        cards: The player's 13 cards.
        opponent: The opponent model that sets the hands.
        samples: How many opponent hands to deal.
        entropy: The seed; the deal and the model each draw from their own child of it.

    Returns:
        The deals (``(samples, 13)`` uint8), the same hands arranged front | middle | back,
            and the seconds each step took (``deal``, ``arrange``). From an ``OpponentPool`` the
            opponents are its first ``samples`` members that share no card with ``cards`` (the
            seed is not used), and the deals are those hands as set.

    Raises:
        OpponentError: The opponent model failed or set its hands wrongly.
        SolveError: The pool holds too few members for these cards.
    """
    if isinstance(opponent, OpponentPool):
        t0 = time.perf_counter()
        arranged = opponent.draw(cards, samples)
        return arranged, arranged, {"deal": time.perf_counter() - t0, "arrange": 0.0}
    deal_seed, bot_seed = np.random.SeedSequence(entropy).spawn(2)
    t0 = time.perf_counter()
    deals = deal_opponents(cards, samples, np.random.default_rng(deal_seed))
    t1 = time.perf_counter()
    arranged = arrange_checked(opponent, deals, np.random.default_rng(bot_seed))
    t2 = time.perf_counter()
    return deals, arranged, {"deal": t1 - t0, "arrange": t2 - t1}
