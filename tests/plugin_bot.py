"""A bot defined outside the registry, to enter through its import path or an entry point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from solver import Arrangement, Card, all_splits


@dataclass(frozen=True)
class FirstLegalBot:
    """Plays the first legal split in split order."""

    name: ClassVar[str] = "first-legal"
    offset: int = 0

    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        splits = all_splits(cards)
        legal = np.flatnonzero(splits.legal)
        return splits.arrangement(int(legal[self.offset % len(legal)]))


class CheatingBot:
    """Returns cards it was not dealt."""

    name = "cheater"

    def arrange(self, cards, rng):
        return Arrangement("AS AH AD", "KS KH KD KC 2C", "QS QH QD QC 2D")


class FirstSplitBot:
    """Plays split number 0, fouled or not: the first three cards in front, the next five in the middle."""

    name = "first-split"

    def arrange(self, cards, rng):
        return Arrangement(cards[:3], cards[3:8], cards[8:])


class RaisingBot:
    """Raises on every hand."""

    name = "raiser"

    def arrange(self, cards, rng):
        raise RuntimeError("no idea what to do")


class NotAnArrangementBot:
    """Returns a string instead of an Arrangement."""

    name = "stringer"

    def arrange(self, cards, rng):
        return " ".join(str(c) for c in cards)


class BadBatchBot:
    """Sets batches with the wrong cards (the first hand repeated)."""

    name = "bad-batch"

    def arrange(self, cards, rng):
        return Arrangement(cards[:3], cards[3:8], cards[8:])

    def arrange_many(self, hands, rng):
        return np.repeat(hands[:1], len(hands), axis=0)


class _SometimesBot:
    """Plays like greedy, but misbehaves on every hand that holds the ace of spades."""

    def arrange(self, cards, rng):
        if 51 in [int(c) for c in cards]:
            self.misbehave()
        from bots import make_bot

        return make_bot("greedy").arrange(cards, rng)


class SleepyBot(_SometimesBot):
    """Sleeps far past any time limit on hands with the ace of spades."""

    name = "sleepy"

    def misbehave(self):
        import time

        time.sleep(60)


class ExitingBot(_SometimesBot):
    """Kills its own process (as a crash in native code would) on hands with the ace of spades."""

    name = "exiting"

    def misbehave(self):
        import os

        os._exit(3)


class FlakyBot(_SometimesBot):
    """Raises on hands with the ace of spades."""

    name = "flaky"

    def misbehave(self):
        raise ValueError("the ace of spades confuses me")


class _Batched:
    """Says it is batch-safe and sets batches hand by hand, so it misbehaves inside a batch."""

    batch_safe = True

    def arrange_many(self, hands, rng):
        return np.array([[int(c) for c in self.arrange(tuple(Card(int(x)) for x in hand), rng).cards]
                         for hand in hands], np.uint8)


class BatchedFlakyBot(_Batched, FlakyBot):
    name = "batched-flaky"


class BatchedSleepyBot(_Batched, SleepyBot):
    name = "batched-sleepy"


class BatchedExitingBot(_Batched, ExitingBot):
    name = "batched-exiting"


class CompilingBot:
    """Compiles a new Numba kernel at every decision, as a bot that loads its kernels lazily
    does: a short time limit runs out while LLVM is at work."""

    name = "compiling"

    def arrange(self, cards, rng):
        import numba

        offset = int(rng.integers(1 << 30))
        numba.njit(lambda values: values + offset)(np.arange(3))
        return Arrangement(cards[:3], cards[3:8], cards[8:])
