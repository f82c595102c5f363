"""``solve``: the best arrangement of 13 cards by exhaustive search and Monte Carlo.

Every legal split is scored against the same sample of opponents: each opponent's
13 cards are dealt from the 39 the player does not hold (card removal is real) and
set by an opponent model, any bot. Under basic scoring a split's expected score is
the sum of its rows' expected scores, so each of the hand's 286 three-card and
1,287 five-card subsets is scored once against the sorted opponent rows, and the
72,072 splits are then look-ups (the canonical scan of 36,036 entries).

By linearity of expectation the expected score against N - 1 opponents is N - 1
times the score against one, so the best arrangement does not depend on the number
of players (RULES.md); ``players`` only scales the reported figures. Every rule set
here settles each pairing on its own, and each opponent's hand is, alone, a uniform
13 of the 39 unseen cards, so this holds for the bonus methods too.

Other rule sets (``solver.rules``): royalties are still sums over rows; a scoop or
majority bonus couples the rows, and then the splits that bounds cannot rule out are
scored jointly against every sampled opponent (see ``solve``).

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

from solver import _search, _splits
from solver.arrangement import ROWS, Arrangement
from solver.cards import Card, CardsLike, format_cards, parse_hand
from solver.documents import json_ready
from solver.evaluator import describe_value, evaluate_many
from solver.naturals import Natural, best_natural, natural_mask, settle_naturals
from solver.rules import Rules, RulesError, as_rules
from solver.scoring import royalty_array, settle
from solver.splits import split_arrangement, split_tables

if TYPE_CHECKING:
    from bots.base import Bot

SCHEMA_VERSION = 1
DEFAULT_OPPONENT = "table"
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
    rules: Rules
    seconds: float
    legal_splits: int
    natural: str | None = None  # the natural this hand holds, when the rules allow naturals
    natural_ev: float | None = None  # expected score of declaring it
    declare: bool = False  # declaring the natural beats playing the best arrangement
    timings: dict[str, float] = field(default_factory=dict)  # seconds: deal, arrange, score
    sample: np.ndarray | None = field(default=None, repr=False, compare=False)  # (samples, 13) opponents, set

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document of ``solve --json`` (a standard error of one sample is null)."""
        return json_ready({
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
            "rules": self.rules.to_dict(),
            "natural": self.natural,
            "natural_ev": self.natural_ev,
            "declare": self.declare,
            "legal_splits": self.legal_splits,
            "seconds": self.seconds,
            "timings": self.timings,
        })  # fmt: skip


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


class _Sample:
    """The opponents as the scoring sees them: row values, fouls, categories, naturals."""

    def __init__(self, arranged: np.ndarray, deals: np.ndarray, rules: Rules):
        self.n = len(arranged)
        self.rows = row_values(arranged)
        self.values = np.stack(self.rows, axis=1).astype(np.int64)  # (n, 3)
        self.foul = ~((self.values[:, 0] <= self.values[:, 1]) & (self.values[:, 1] <= self.values[:, 2]))
        self.cats = self.values >> 26
        self.naturals: list[Natural | None] = [None] * self.n
        if rules.naturals:
            for i in np.flatnonzero(natural_mask(deals)).tolist():
                self.naturals[i] = best_natural(deals[i].tolist(), rules)  # opponents declare what they hold
        self.declared = np.array([x is not None for x in self.naturals], bool)
        self.plain = ~self.declared

    def natural_scores(self, mine: Natural | None, rules: Rules) -> np.ndarray:
        """Per-sample settlement where a natural decides it (0 elsewhere)."""
        out = np.zeros(self.n)
        for i, theirs in enumerate(self.naturals):
            if mine is not None or theirs is not None:
                out[i] = settle_naturals(mine, theirs, rules)
        return out


def per_sample_rows(values: tuple[int, int, int], opp: tuple[np.ndarray, ...], opp_foul: np.ndarray) -> np.ndarray:
    """(n, 3) row results (+1/0/-1) of one legal arrangement against each opponent."""
    out = np.stack([np.sign(np.int64(v) - o.astype(np.int64)) for v, o in zip(values, opp)], axis=1)
    out[opp_foul] = 1
    return out


def per_sample_scores(values: tuple[int, int, int], sample: _Sample, rules: Rules) -> np.ndarray:
    """(n,) units one legal arrangement wins from each sampled opponent under ``rules``."""
    rows = per_sample_rows(values, sample.rows, sample.foul)
    cats = np.array([v >> 26 for v in values], np.int64)
    scores = settle(rows, np.zeros(sample.n, bool), sample.foul, np.broadcast_to(cats, rows.shape), sample.cats, rules)
    scores = scores.astype(np.float64)
    if sample.declared.any():
        scores[sample.declared] = sample.natural_scores(None, rules)[sample.declared]
    return scores


def _separable_scores(v3, v5, sample: _Sample, rules: Rules) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per subset and row: expected separable score, P(win) and P(lose), over the whole sample.

    Declared naturals settle outside the rows (no row score); the rows, the opponent's
    fouls and the royalties (both kinds) are sums over rows, so exact per subset."""
    n = sample.n
    plain = sample.plain
    valid = plain & ~sample.foul
    n_foul = int((plain & sample.foul).sum())
    royalties = royalty_array(rules)
    scores, wins, losses = [], [], []
    for i, ours in enumerate((v3, v5, v5)):
        theirs = sample.values[valid, i]
        order = np.argsort(theirs, kind="stable")
        theirs = theirs[order]
        below = np.searchsorted(theirs, ours, side="left")
        above = theirs.size - np.searchsorted(theirs, ours, side="right")
        win = (below + n_foul) / n
        lose = above / n
        score = win - lose
        if rules.royalties:
            mine = royalties[i, ours.astype(np.int64) >> 26]
            score = score + mine * (win if rules.royalty_needs_win else plain.mean())
            if rules.royalty_needs_win:  # we pay the opponent's royalty on the rows they win
                paid = royalties[i, sample.cats[valid, i][order]]
                suffix = np.concatenate([np.cumsum(paid[::-1])[::-1], [0]])
                score = score - suffix[np.searchsorted(theirs, ours, side="right")] / n
        scores.append(score)
        wins.append(win)
        losses.append(lose)
    return scores, wins, losses


def _constant(sample: _Sample, rules: Rules) -> float:
    """The part of the expectation no arrangement changes: opponents' naturals, and the
    royalties of valid opponents when they are paid whatever the row does."""
    total = float(sample.natural_scores(None, rules)[sample.declared].sum())
    if rules.royalties and not rules.royalty_needs_win:
        valid = sample.plain & ~sample.foul
        total -= float(royalty_array(rules)[np.arange(3), sample.cats[valid]].sum())
    return total / sample.n


def solve(
    hand: CardsLike,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    opponent: str | Bot = DEFAULT_OPPONENT,
    players: int = 2,
    top: int = 3,
    rules: Rules | str | None = None,
    keep_sample: bool = False,
) -> Solution:
    """The legal arrangement with the highest expected score against ``opponent``.

    ``rules`` names the rule set (``solver.rules``; basic scoring by default). Under
    basic scoring and royalties the expectation is a sum over rows and every split is
    scored by look-up. With a scoop or majority bonus the rows interact: every split
    gets bounds from its per-row chances, and each split whose upper bound reaches the
    best lower bounds is scored jointly against every sampled opponent, so the choice is
    the best on the sample under those rules.

    >>> s = solve("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", samples=200, seed=1)
    >>> print(s.arrangement)
    9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS
    >>> s.opponent, s.legal_splits
    ('table', 18642)
    """
    started = time.perf_counter()
    cards = parse_hand(hand)
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise SolveError(f"samples must be a positive whole number, got {samples!r}")
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 2 <= players <= 4:
        raise SolveError(f"players must be 2, 3 or 4, got {players!r}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0:
        raise SolveError(f"top must be a whole number of alternatives >= 0, got {top!r}")
    try:
        rules = as_rules(rules)
    except RulesError as error:
        raise SolveError(str(error)) from None
    if opponent == DEFAULT_OPPONENT and rules.scoring != "basic":
        opponent = f"{DEFAULT_OPPONENT}:rules={rules.scoring}"  # the table strategy trained for this scoring
    bot, opponent_name = _resolve_opponent(opponent)
    entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
    deal_seed, bot_seed = np.random.SeedSequence(entropy).spawn(2)

    t0 = time.perf_counter()
    deals = deal_opponents(cards, samples, np.random.default_rng(deal_seed))
    t1 = time.perf_counter()
    from bots.base import arrange_many

    arranged = arrange_many(bot, deals, np.random.default_rng(bot_seed))
    t2 = time.perf_counter()

    sample = _Sample(arranged, deals, rules)
    t = split_tables()
    v3, v5 = _splits.hand_subset_values(np.array(cards, np.uint8), t.combos3, t.combos5)
    seps, wins, losses = _separable_scores(v3, v5, sample, rules)
    evs, splits = _search.score_canonical(
        v3, v5, seps[0], seps[1], seps[2], t.canon_front, t.canon_a, t.canon_b, t.canon_split, t.canon_twin
    )
    legal = np.isfinite(evs)
    legal_splits = int(legal.sum() + (legal & (v5[t.canon_a] == v5[t.canon_b])).sum())
    entries = np.flatnonzero(legal)
    if rules.is_separable:
        exact = evs[entries] + _constant(sample, rules)
    else:
        entries, exact = _joint_candidates(entries, evs, splits, v3, v5, wins, losses, sample, rules, top)

    # Best first; equal scores keep the canonical order. Runners-up are distinct plays:
    # splits with the same three row values score the same against any sample.
    chosen: list[tuple[int, tuple[int, int, int]]] = []
    seen: set[tuple[int, int, int]] = set()
    for k in np.argsort(-exact, kind="stable").tolist():
        s = int(splits[entries[k]])
        vals = (int(v3[t.front[s]]), int(v5[t.middle[s]]), int(v5[t.back[s]]))
        if vals in seen:
            continue
        seen.add(vals)
        chosen.append((s, vals))
        if len(chosen) > top:
            break

    scale = players - 1
    best_split, best_vals = chosen[0]
    best_total = per_sample_scores(best_vals, sample, rules)
    best_rows = per_sample_rows(best_vals, sample.rows, sample.foul)[sample.plain]
    arrangement = split_arrangement(cards, best_split)
    rows = tuple(
        RowResult(
            row=name,
            cards=row_cards,
            hand=describe_value(value),
            win=float((best_rows[:, i] == 1).mean()) if len(best_rows) else float("nan"),
            tie=float((best_rows[:, i] == 0).mean()) if len(best_rows) else float("nan"),
            lose=float((best_rows[:, i] == -1).mean()) if len(best_rows) else float("nan"),
        )
        for i, (name, row_cards, value) in enumerate(zip(ROWS, arrangement.rows, best_vals))
    )
    ev = float(best_total.mean())
    ev_se = float(best_total.std(ddof=1) / np.sqrt(samples)) if samples > 1 else float("nan")
    alternatives = []
    for s, vals in chosen[1:]:
        total = per_sample_scores(vals, sample, rules)
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
    natural = best_natural(cards, rules) if rules.naturals else None
    natural_ev = float(sample.natural_scores(natural, rules).mean()) * scale if natural else None
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
        rules=rules,
        seconds=t3 - started,
        legal_splits=legal_splits,
        natural=natural.kind if natural else None,
        natural_ev=natural_ev,
        declare=bool(natural_ev is not None and natural_ev > ev * scale),
        timings={"deal": t1 - t0, "arrange": t2 - t1, "score": t3 - t2},
        sample=arranged if keep_sample else None,
    )


def _joint_candidates(entries, evs, splits, v3, v5, wins, losses, sample: _Sample, rules: Rules, top: int):
    """Exact expectations of the splits that may be among the best under a bonus rule.

    The bonus of a split lies between bounds from its per-row chances of winning and
    losing (a scoop needs every row won, so it is no likelier than the least likely
    win); a split whose upper bound is below the lower bounds of enough others cannot be
    among the best and is never scored jointly."""
    t = split_tables()
    s = splits[entries]
    w = np.stack([wins[0][t.front[s]], wins[1][t.middle[s]], wins[2][t.back[s]]])
    lo = np.stack([losses[0][t.front[s]], losses[1][t.middle[s]], losses[2][t.back[s]]])
    base = evs[entries] + _constant(sample, rules)
    if rules.scoring == "1-6":
        upper, lower = base + 3 * w.min(axis=0), base - 3 * lo.min(axis=0)
    else:  # 2-4: the majority unit needs a row won (or lost)
        share = sample.plain.mean()
        upper, lower = base + np.minimum(share, w.sum(axis=0)), base - np.minimum(share, lo.sum(axis=0))
    keep = min(len(lower), 4 * (top + 1))
    threshold = np.partition(lower, len(lower) - keep)[len(lower) - keep]
    candidates = np.flatnonzero(upper >= threshold - 1e-9)
    vals = np.stack([v3[t.front[s[candidates]]], v5[t.middle[s[candidates]]], v5[t.back[s[candidates]]]], axis=1)
    exact = _search.joint_means(vals.astype(np.int64), sample.values, sample.foul, sample.plain, royalty_array(rules),
                                rules.royalty_needs_win, {"basic": 0, "1-6": 1, "2-4": 2}[rules.scoring])
    if sample.declared.any():
        exact = exact + sample.natural_scores(None, rules)[sample.declared].sum() / sample.n
    return entries[candidates], exact
