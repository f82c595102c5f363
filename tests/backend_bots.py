"""Bots for tests/test_backends.py: Python bots that are slow at start or on every hand, and,
run as a script, a protocol bot that notes in a folder when it starts and when it is asked
to quit (``python backend_bots.py FOLDER [SECONDS]``), and with SECONDS takes that long to
answer hands that hold the ace of spades."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np


class SlowStartBot:
    """Plays like greedy; its first decision in a process takes ``first`` seconds (loading a
    model, a JIT warming up)."""

    name = "slow-start"
    started = False

    def __init__(self, first: float = 5.0):
        self.first = first

    def arrange(self, cards, rng):
        from bots import make_bot

        if not SlowStartBot.started:
            time.sleep(self.first)
            SlowStartBot.started = True
        return make_bot("greedy").arrange(cards, rng)


class SlowBot:
    """Plays like greedy after sleeping ``seconds`` on every hand."""

    name = "slow"

    def __init__(self, seconds: float = 1.0):
        self.seconds = seconds

    def arrange(self, cards, rng):
        from bots import make_bot

        time.sleep(self.seconds)
        return make_bot("greedy").arrange(cards, rng)


class StallingBot(SlowBot):
    """``SlowBot`` on the hands that hold the ace of spades only (a run's warm-up hand holds
    none): a bot that starts in time and then stalls on a hand."""

    name = "stalling"

    def arrange(self, cards, rng):
        from bots import make_bot

        if "AS" in {str(c) for c in cards}:
            time.sleep(self.seconds)
        return make_bot("greedy").arrange(cards, rng)


RANKS = "23456789TJQKA"


def _arrange(hand: str) -> dict:
    cards = sorted(hand.split(), key=lambda c: RANKS.index(c[0]))
    return {"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}


def main(folder: Path, slow: float) -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            (folder / f"started-{os.getpid()}").touch()
            print(f"noting: started as {os.getpid()}", file=sys.stderr, flush=True)  # a log worth keeping
            answer = {"type": "hello", "name": "noting"}
        elif message["type"] == "quit":
            (folder / f"quit-{os.getpid()}").touch()
            return
        else:
            if "AS" in message["hand"].split():
                time.sleep(slow)
            answer = {"id": message["id"], **_arrange(message["hand"])}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)


class ExitingBot:
    """Plays like greedy, but calls ``sys.exit(code)`` where ``where`` says: ``arrange`` on hands
    that hold the ace of spades, ``batch`` on any batch (``arrange_many``), ``declare``, or
    ``init`` as it is made."""

    name = "exiting"

    def __init__(self, where: str = "arrange", code: int = 0):
        if where == "init":
            sys.exit(code)
        self.where, self.code = where, code

    def arrange(self, cards, rng):
        from bots import make_bot

        if self.where == "arrange" and "AS" in {str(c) for c in cards}:
            sys.exit(self.code)
        return make_bot("greedy").arrange(cards, rng)

    def declare(self, cards, rng):
        if self.where == "declare":
            sys.exit(self.code)
        return True


class Odd(BaseException):
    """Neither an ``Exception`` nor ``SystemExit``: what a careless or hostile plug-in may raise."""


class OddBot:
    """Raises ``Odd`` where ``where`` says: ``arrange``, ``batch`` (``arrange_many``) or ``init``."""

    name = "odd"

    def __init__(self, where: str = "arrange"):
        if where == "init":
            raise Odd("made")
        self.where = where

    def arrange(self, cards, rng):
        if self.where == "arrange":
            raise Odd("a hand")
        from bots import make_bot

        return make_bot("greedy").arrange(cards, rng)

    def arrange_many(self, hands, rng):
        raise Odd("a batch")


class ExitingBatchBot(ExitingBot):
    """``ExitingBot`` that sets hands in batches too."""

    def arrange_many(self, hands, rng):
        from bots import make_bot

        if self.where == "batch":
            sys.exit(self.code)
        return make_bot("greedy").arrange_many(hands, rng)


SWAY = {"on": False}  # a test turns it on between a run and its resume


class SwayingBot:
    """Plays like greedy, or, while ``SWAY["on"]``, the cards in the order dealt: a bot whose play
    of a hand changes with something other than its cards and its rng."""

    name = "swaying"

    def arrange(self, cards, rng):
        from bots import make_bot
        from solver import Arrangement

        if SWAY["on"]:
            return Arrangement(cards[:3], cards[3:8], cards[8:])
        return make_bot("greedy").arrange(cards, rng)


class TwoFacedBot:
    """Plays like greedy alone, and in batches sets every hand in the order dealt: a bot whose
    simulated self is another bot."""

    name = "two-faced"

    def arrange(self, cards, rng):
        from bots import make_bot

        return make_bot("greedy").arrange(cards, rng)

    def arrange_many(self, hands, rng):
        return hands


class BigBatchBot(TwoFacedBot):
    """Plays like greedy alone and in a batch of one hand; larger batches it sets as dealt."""

    name = "big-batch"

    def arrange_many(self, hands, rng):
        from solver import Card

        if len(hands) == 1:
            return np.array([[int(c) for c in self.arrange(tuple(Card(int(c)) for c in hands[0]), rng).cards]],
                            np.uint8)
        return hands


class HugeBatchBot(TwoFacedBot):
    """Plays like greedy alone and in batches of up to 12 hands; larger batches it sets as dealt:
    what the check before a run cannot see."""

    name = "huge-batch"

    def arrange_many(self, hands, rng):
        from solver import Card

        if len(hands) > 12:
            return hands
        return np.array([[int(c) for c in self.arrange(tuple(Card(int(c)) for c in row), rng).cards] for row in hands],
                        np.uint8)


class CoinBatchBot(TwoFacedBot):
    """Plays like greedy alone; a batch sets each hand as greedy or as dealt, as its rng says:
    a bot whose play is fixed and whose simulated self is a coin."""

    name = "coin-batch"

    def arrange_many(self, hands, rng):
        from solver import Card

        out = hands.copy()
        for i, row in enumerate(hands):
            if rng.random() < 0.5:
                out[i] = [int(c) for c in self.arrange(tuple(Card(int(c)) for c in row), rng).cards]
        return out


class FailingBatchBot(TwoFacedBot):
    """Plays like greedy alone and in a batch of one; a larger batch raises."""

    name = "failing-batch"

    def arrange_many(self, hands, rng):
        from solver import Card

        if len(hands) > 1:
            raise RuntimeError("no batches")
        return np.array([[int(c) for c in self.arrange(tuple(Card(int(c)) for c in hands[0]), rng).cards]], np.uint8)


class RandomTiesBot:
    """Plays like greedy, but for the hands that hold the ace of spades, which it sets as
    dealt or reversed as its rng says, alone and in batches alike, though a batch reads the
    same draw the other way round: the same rng sets such a hand one way alone and the other
    in a batch. A bot whose batches are its play, though not draw for draw."""

    name = "random-ties"

    def arrange(self, cards, rng):
        return self._set(cards, rng.random() < 0.5)

    def arrange_many(self, hands, rng):
        from solver import Card

        plays = [self._set(tuple(Card(int(c)) for c in row), rng.random() >= 0.5) for row in hands]
        return np.array([[int(c) for c in play.cards] for play in plays], np.uint8)

    @staticmethod
    def _set(cards, as_dealt):
        from bots import make_bot
        from solver import Arrangement

        if "AS" in {str(c) for c in cards}:
            order = list(cards) if as_dealt else list(cards)[::-1]
            return Arrangement(order[:3], order[3:8], order[8:])
        return make_bot("greedy").arrange(cards, np.random.default_rng(0))
