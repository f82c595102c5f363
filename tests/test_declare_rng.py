"""A bot's ``declare`` is handed a generator of its own, in the state its ``arrange``'s started
in, wherever the bot plays: a tournament does so, and ``bench exploit``, ``bench arrange`` and
the page must too, or a bot that draws in both plays otherwise there than in a tournament."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest

from bench.analysis import exploit
from bench.cli import main as bench_main
from bench.web import jobs
from bots import make_bot_for
from solver import Card, format_cards
from solver.rules import as_rules

SIX_PAIRS = tuple(Card(text) for text in "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C".split())
SPEC = "tests.test_declare_rng:Draws"
SEEN: list[tuple[str, int]] = []


@dataclass(frozen=True)
class Draws:
    """Plays ``greedy``'s rows and never declares; with SIX_PAIRS, each call notes the first
    number its generator gives."""

    rules: Any = None
    name: ClassVar[str] = "draws"

    def arrange(self, cards, rng):
        if tuple(cards) == SIX_PAIRS:
            SEEN.append(("arrange", int(rng.integers(2**62))))
        return make_bot_for("greedy", as_rules(self.rules)).arrange(cards, rng)

    def declare(self, cards, rng) -> bool:
        SEEN.append(("declare", int(rng.integers(2**62))))
        return False


@pytest.fixture
def seen():
    SEEN.clear()
    yield SEEN
    SEEN.clear()


def _alike(seen: list[tuple[str, int]]) -> None:
    assert sorted(call for call, _ in seen) == ["arrange", "declare"], seen
    assert seen[0][1] == seen[1][1], f"declare saw another generator state than arrange: {seen}"


def test_exploit_hands_declare_the_generator_arrange_started_with(seen, monkeypatch):
    dealt = exploit.dealt_hand
    monkeypatch.setattr(exploit, "dealt_hand", lambda seed, index: SIX_PAIRS if index == 0 else dealt(seed, index))
    exploit.Measurement(SPEC, as_rules("naturals"), samples=20, eval_samples=20).hand(seed=3, index=0)
    _alike(seen)


def test_bench_arrange_hands_declare_the_generator_arrange_started_with(seen):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = bench_main(["arrange", "--bot", SPEC, "--rules", "naturals", "--seed", "4", format_cards(SIX_PAIRS)])
    assert status == 0
    _alike(seen)


def test_the_page_hands_declare_the_generator_arrange_started_with(seen):
    rest = [c for c in range(52) if c not in {int(card) for card in SIX_PAIRS}]
    hands = np.array([rest[:13], [int(c) for c in SIX_PAIRS]], np.uint8)
    jobs._bot_plays([SPEC], hands, 5, 0, as_rules("naturals"))
    _alike(seen)
