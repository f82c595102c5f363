"""``solve``: the best arrangement of 13 cards by exhaustive search and Monte Carlo.

Every legal split is scored against the same sample of opponents: each opponent's
13 cards are dealt from the 39 the player does not hold (card removal is real) and
set by an opponent model, any bot. Under basic scoring a split's expected score is
the sum of its rows' expected scores, so each of the hand's 286 three-card and
1,287 five-card subsets is scored once against the sorted opponent rows, and the
72,072 splits are then look-ups (the canonical scan of 36,036 entries).

By linearity of expectation the expected score against N - 1 opponents is N - 1
times the score against one, so the best arrangement does not depend on the number
of players (RULES.md); ``players`` only scales the reported figures.

The reported EV is measured on the sample that chose the arrangement, so it is the
best of many noisy estimates and leans optimistic by about the size of its standard
error when close alternatives exist; the differences to the alternatives are paired
(same opponents), which is what makes them significant or not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from solver import _search
from solver.arrangement import ROWS, Arrangement
from solver.cards import Card, CardsLike, format_cards, parse_hand
from solver.evaluator import describe_value, evaluate_many
from solver.splits import split_arrangement, split_tables
from solver import _splits

if TYPE_CHECKING:
    from bots.base import Bot

SCHEMA_VERSION = 1
DEFAULT_OPPONENT = "heuristic"
DEFAULT_SAMPLES = 1000
Z95 = 1.959964


class SolveError(ValueError):
    """Options that cannot be solved: non-positive samples, players outside 2..4, ..."""


@dataclass(frozen=True, slots=True)
class RowResult:
    """One row of the chosen arrangement against the opponents' same row."""

    row: str  # "front", "middle" or "back"
    cards: tuple[Card, ...]
    hand: str  # its name, such as "pair of 7s, K kicker"
    win: float  # probability of winning the row against one opponent (opponent fouls count as wins)
    tie: float
    lose: float

    @property
    def ev(self) -> float:
        return self.win - self.lose


@dataclass(frozen=True, slots=True)
class Alternative:
    """A runner-up arrangement and how far it trails the best, on the same sample."""

    arrangement: Arrangement
    ev: float
    diff: float  # ev - best ev (<= 0)
    diff_se: float  # standard error of the paired difference
    significant: bool  # |diff| > 1.96 diff_se


@dataclass(frozen=True, slots=True)
class Solution:
    """The best arrangement of a hand and the evidence for it.

    ``ev`` and ``ev_se`` are units per hand against ``players - 1`` opponents.
    """

    hand: tuple[Card, ...]
    arrangement: Arrangement
    ev: float
    ev_se: float
    rows: tuple[RowResult, ...]
    alternatives: tuple[Alternative, ...]
    samples: int
    seed: int
    opponent: str
    players: int
    rules: str
    seconds: float
    legal_splits: int
    timings: dict[str, float] = field(default_factory=dict)  # seconds: deal, arrange, score
    sample: np.ndarray | None = field(default=None, repr=False, compare=False)  # (samples, 13) opponents, set

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document of ``solve --json``."""
        return {
            "schema_version": SCHEMA_VERSION,
            "hand": format_cards(self.hand),
            "arrangement": {name: format_cards(row) for name, row in zip(ROWS, self.arrangement.rows)},
            "ev": self.ev,
            "ev_se": self.ev_se,
            "rows": {
                r.row: {"cards": format_cards(r.cards), "hand": r.hand, "win": r.win, "tie": r.tie,
                        "lose": r.lose, "ev": round(r.ev, 12)}
                for r in self.rows
            },
            "alternatives": [
                {
                    "arrangement": {name: format_cards(row) for name, row in zip(ROWS, a.arrangement.rows)},
                    "ev": a.ev, "diff": a.diff, "diff_se": a.diff_se, "significant": a.significant,
                }
                for a in self.alternatives
            ],
            "samples": self.samples,
            "seed": self.seed,
            "opponent": self.opponent,
            "players": self.players,
            "rules": self.rules,
            "legal_splits": self.legal_splits,
            "seconds": self.seconds,
            "timings": self.timings,
        }  # fmt: skip


def _resolve_opponent(opponent: str | Bot) -> tuple[Bot, str]:
    # Bots sit a layer above the solver; the registry is consulted only to turn a name
    # into a bot, so that any registered or plug-in bot can be the opponent model.
    from bots import BotError, make_bot

    if isinstance(opponent, str):
        if opponent.split(":")[0].strip() == "exhaustive":
            raise SolveError("the exhaustive bot cannot be the opponent model: it would solve every simulated "
                             "opponent; choose a fast bot such as heuristic or greedy")
        try:
            return make_bot(opponent), opponent
        except BotError as error:
            raise SolveError(str(error)) from None
    return opponent, getattr(opponent, "name", type(opponent).__name__)


def deal_opponents(hand: tuple[Card, ...], samples: int, rng: np.random.Generator) -> np.ndarray:
    """``samples`` opponent hands of 13 cards from the 39 the player does not hold."""
    rest = np.setdiff1d(np.arange(52, dtype=np.uint8), np.array(hand, np.uint8))
    order = np.argsort(rng.random((samples, rest.size)), axis=1)[:, :13]
    return rest[order]


def row_values(arranged: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Front, middle and back values of an ``(n, 13)`` array set front | middle | back."""
    return (
        evaluate_many(arranged[:, :3]),
        evaluate_many(arranged[:, 3:8]),
        evaluate_many(arranged[:, 8:]),
    )


def _row_scores(ours: np.ndarray, theirs_sorted: np.ndarray, n_foul: int, n: int) -> np.ndarray:
    """Expected row score (+1 win, -1 loss) of each of our values against the sample."""
    below = np.searchsorted(theirs_sorted, ours, side="left")
    not_above = np.searchsorted(theirs_sorted, ours, side="right")
    above = theirs_sorted.size - not_above
    return (below + n_foul - above) / n


def per_sample_rows(values: tuple[int, int, int], opp: tuple[np.ndarray, ...], opp_foul: np.ndarray) -> np.ndarray:
    """(n, 3) row results (+1/0/-1) of one legal arrangement against each opponent."""
    out = np.stack([np.sign(np.int64(v) - o.astype(np.int64)) for v, o in zip(values, opp)], axis=1)
    out[opp_foul] = 1
    return out


def solve(
    hand: CardsLike,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    opponent: str | Bot = DEFAULT_OPPONENT,
    players: int = 2,
    top: int = 3,
    keep_sample: bool = False,
) -> Solution:
    """The legal arrangement with the highest expected score against ``opponent``.

    >>> s = solve("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", samples=200, seed=1)
    >>> print(s.arrangement)
    9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS
    >>> s.opponent, s.legal_splits
    ('heuristic', 18642)
    """
    started = time.perf_counter()
    cards = parse_hand(hand)
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise SolveError(f"samples must be a positive whole number, got {samples!r}")
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 2 <= players <= 4:
        raise SolveError(f"players must be 2, 3 or 4, got {players!r}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0:
        raise SolveError(f"top must be a whole number of alternatives >= 0, got {top!r}")
    bot, opponent_name = _resolve_opponent(opponent)
    entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
    deal_seed, bot_seed = np.random.SeedSequence(entropy).spawn(2)

    t0 = time.perf_counter()
    deals = deal_opponents(cards, samples, np.random.default_rng(deal_seed))
    t1 = time.perf_counter()
    from bots.base import arrange_many

    arranged = arrange_many(bot, deals, np.random.default_rng(bot_seed))
    t2 = time.perf_counter()

    opp = row_values(arranged)
    opp_foul = ~((opp[0] <= opp[1]) & (opp[1] <= opp[2]))
    n_foul = int(opp_foul.sum())
    valid = ~opp_foul
    sorted_rows = [np.sort(o[valid]) for o in opp]

    t = split_tables()
    hand_ids = np.array(cards, np.uint8)
    v3, v5 = _splits.hand_subset_values(hand_ids, t.combos3, t.combos5)
    s3 = _row_scores(v3, sorted_rows[0], n_foul, samples)
    sm = _row_scores(v5, sorted_rows[1], n_foul, samples)
    sb = _row_scores(v5, sorted_rows[2], n_foul, samples)
    evs, splits = _search.score_canonical(
        v3, v5, s3, sm, sb, t.canon_front, t.canon_a, t.canon_b, t.canon_split, t.canon_twin
    )
    legal = np.isfinite(evs)
    legal_splits = int(legal.sum() + (legal & (v5[t.canon_a] == v5[t.canon_b])).sum())

    # Best first; equal scores keep the canonical order. Runners-up are distinct plays:
    # splits with the same three row values score the same against any sample.
    order = np.argsort(-np.where(legal, evs, -np.inf), kind="stable")
    chosen: list[tuple[int, tuple[int, int, int]]] = []
    seen: set[tuple[int, int, int]] = set()
    for e in order[: max(1, top) * 64 + 64].tolist():
        if not legal[e]:
            break
        s = int(splits[e])
        vals = (int(v3[t.front[s]]), int(v5[t.middle[s]]), int(v5[t.back[s]]))
        if vals in seen:
            continue
        seen.add(vals)
        chosen.append((s, vals))
        if len(chosen) > top:
            break

    scale = players - 1
    best_split, best_vals = chosen[0]
    best_rows = per_sample_rows(best_vals, opp, opp_foul)
    best_total = best_rows.sum(axis=1)
    arrangement = split_arrangement(cards, best_split)
    rows = tuple(
        RowResult(
            row=name,
            cards=row_cards,
            hand=describe_value(value),
            win=float((best_rows[:, i] == 1).mean()),
            tie=float((best_rows[:, i] == 0).mean()),
            lose=float((best_rows[:, i] == -1).mean()),
        )
        for i, (name, row_cards, value) in enumerate(zip(ROWS, arrangement.rows, best_vals))
    )
    ev = float(best_total.mean())
    ev_se = float(best_total.std(ddof=1) / np.sqrt(samples)) if samples > 1 else float("nan")
    alternatives = []
    for s, vals in chosen[1:]:
        total = per_sample_rows(vals, opp, opp_foul).sum(axis=1)
        diff = total - best_total
        diff_se = float(diff.std(ddof=1) / np.sqrt(samples)) if samples > 1 else float("nan")
        mean_diff = float(diff.mean())
        alternatives.append(
            Alternative(
                arrangement=split_arrangement(cards, s),
                ev=float(total.mean()) * scale,
                diff=mean_diff * scale,
                diff_se=diff_se * scale,
                significant=bool(abs(mean_diff) > Z95 * diff_se),
            )
        )
    t3 = time.perf_counter()
    return Solution(
        hand=cards,
        arrangement=arrangement,
        ev=ev * scale,
        ev_se=ev_se * scale,
        rows=rows,
        alternatives=tuple(alternatives),
        samples=samples,
        seed=entropy,
        opponent=opponent_name,
        players=players,
        rules="basic",
        seconds=t3 - started,
        legal_splits=legal_splits,
        timings={"deal": t1 - t0, "arrange": t2 - t1, "score": t3 - t2},
        sample=arranged if keep_sample else None,
    )
