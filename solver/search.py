"""The search behind ``solve``: the best play among the 72,072 splits, and its runners-up.

Under basic scoring and royalties a split's expected score is the sum of its rows', so
each of the hand's 286 three-card and 1,287 five-card subsets is scored once against the
sorted opponent rows and the splits are then look-ups (``solver._search.score_canonical``,
the canonical scan of 36,036 entries). Under a scoop or majority bonus the rows interact:
every split gets bounds from its per-row chances (``solver._search.bonus_bounds``), and
the splits the bounds cannot rule out are scored jointly against every sampled opponent
(``_joint_plays``, ``solver._settle``). Runners-up differ from the best, and from each
other, in what their rows are called or in their values (``distinct``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from solver import _search, _settle
from solver.cards import Card
from solver.evaluator import hand_keys
from solver.rules import Rules
from solver.sampling import Sample
from solver.scoring import expected_rows, royalty_array, royalty_lines
from solver.splits import SplitTables, split_tables, subset_values

Play = tuple[int, tuple[int, int, int]]  # a split number and its three row values


def _separable_scores(v3: np.ndarray, v5: np.ndarray, sample: Sample,
                      rules: Rules) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per subset and row: expected separable score, P(win) and P(lose), over the whole sample.

    Declared naturals settle outside the rows (no row score); the rows, the opponent's
    fouls and the royalties are sums over rows, so exact per subset."""
    valid = sample.plain & ~sample.foul
    n_foul = int((sample.plain & sample.foul).sum())
    scores, wins, losses = [], [], []
    for i, ours in enumerate((v3, v5, v5)):
        theirs = np.sort(sample.values[valid, i])
        if rules.royalties:
            win, lose, units = expected_rows(ours, theirs, np.ones(theirs.size), i, rules, foul_weight=n_foul,
                                             counted_weight=int(sample.plain.sum()), total=sample.n)
        else:  # what expected_rows gives with unit weights, counted directly
            win = (np.searchsorted(theirs, ours, "left") + n_foul) / sample.n
            lose = (theirs.size - np.searchsorted(theirs, ours, "right")) / sample.n
            units = win - lose
        scores.append(units)
        wins.append(win)
        losses.append(lose)
    return scores, wins, losses


def _constant(sample: Sample, rules: Rules) -> float:
    """The part of the expectation no arrangement changes: opponents' naturals, and the
    royalties of valid opponents when they are paid whatever the row does."""
    total = float(sample.natural_scores(None, rules)[sample.declared].sum())
    if rules.royalties and not rules.royalty_needs_win:
        valid = sample.plain & ~sample.foul
        total -= float(royalty_array(rules)[np.arange(3), royalty_lines(sample.values[valid])].sum())
    return total / sample.n


def rank_plays(cards: tuple[Card, ...], sample: Sample, rules: Rules, top: int,
                distinct: str = "hands") -> tuple[list[Play], int]:
    """The best play and the next ``top`` distinct plays, best first, and the number of legal splits.

    Plays with the same three row values score the same against any sample, so only the
    first split of each counts. With ``distinct="hands"`` a runner-up must also differ from
    the best and from the other runners-up in what its rows are called, not only in kickers
    or suits (``solver.evaluator.hand_keys``). Equal scores keep the canonical order.

    Args:
        cards: The hand's 13 cards.
        sample: The sampled opponents the plays are scored against.
        rules: The rule set; with a scoop or majority bonus the best candidates are scored
            jointly against every opponent.
        top: How many runners-up follow the best play (fewer when the hand has fewer
            distinct plays).
        distinct: ``"hands"``: runners-up whose rows are called differently; ``"values"``:
            any plays with other row values.

    Returns:
        The plays, each a split number and its row values (front, middle, back), best first;
            and the number of legal splits of the hand.
    """
    t = split_tables()
    v3, v5 = subset_values(cards)
    seps, wins, losses = _separable_scores(v3, v5, sample, rules)
    if not rules.is_separable:
        return _joint_plays(v3, v5, seps, wins, losses, sample, rules, top, distinct)
    evs, splits, legal_splits = _search.score_canonical(
        v3, v5, seps[0], seps[1], seps[2], t.canon_front, t.canon_a, t.canon_b, t.canon_split, t.canon_twin
    )
    entries = np.flatnonzero(np.isfinite(evs))
    exact = evs[entries] + _constant(sample, rules)
    shortlist = _shortlist(exact, 64 * (top + 1))  # the best plays, ties at the edge included
    if shortlist is not None:
        found = _distinct_best(entries[shortlist], exact[shortlist], splits, v3, v5, t, top, distinct)
        if found is not None:
            return found, legal_splits
    s = splits[entries]
    rows = (t.front[s], t.middle[s], t.back[s])  # each entry's three subsets
    values = _by_row(v3, v5, rows)
    k3, k5 = _subset_keys(v3, v5, distinct)
    keys = _by_row(k3, k5, rows)
    return _pick(exact, entries, values, keys, splits, top), legal_splits


def _by_row(x3: np.ndarray, x5: np.ndarray, rows: Any) -> np.ndarray:
    """(n, 3) int64: the numbers ``x3``/``x5`` give each entry's front, middle and back subset
    (``rows``: three arrays of subset numbers)."""
    return np.stack([x3[rows[0]], x5[rows[1]], x5[rows[2]]], axis=1).astype(np.int64)


def _subset_keys(v3: np.ndarray, v5: np.ndarray, distinct: str) -> tuple[np.ndarray, np.ndarray]:
    """What makes two plays distinct, per 3- and 5-card subset (fewer than per entry): the
    name of the row's hand (``distinct="hands"``) or its value."""
    return (hand_keys(v3), hand_keys(v5)) if distinct == "hands" else (v3, v5)


def _pick(exact: np.ndarray, entries: np.ndarray, values: np.ndarray, keys: np.ndarray, splits: np.ndarray,
          top: int) -> list[Play]:
    """The best play and up to ``top`` runners-up with keys of their own, best first; equal
    scores in the order of ``entries``."""
    chosen: list[Play] = []
    seen: set[tuple[int, int, int]] = set()
    for k in np.argsort(-exact, kind="stable").tolist():
        key = (int(keys[k, 0]), int(keys[k, 1]), int(keys[k, 2]))
        if key in seen:
            continue
        seen.add(key)
        chosen.append((int(splits[entries[k]]), (int(values[k, 0]), int(values[k, 1]), int(values[k, 2]))))
        if len(chosen) > top:
            break
    return chosen


def _shortlist(exact: np.ndarray, size: int) -> np.ndarray | None:
    """Positions (ascending) of the ``size`` best scores and of every score equal to the
    last of them, or None when that is all of them anyway."""
    if len(exact) <= size:
        return None
    edge = np.partition(exact, len(exact) - size)[len(exact) - size]
    return np.flatnonzero(exact >= edge)


def _distinct_best(entries: np.ndarray, exact: np.ndarray, splits: np.ndarray, v3: np.ndarray, v5: np.ndarray,
                   t: SplitTables, top: int, distinct: str) -> list[Play] | None:
    """``_pick`` on a shortlist of the best plays, or None when the shortlist holds fewer than
    ``top + 1`` distinct keys (then a play below it might be needed, and the caller ranks all)."""
    s = splits[entries]
    values = _by_row(v3, v5, (t.front[s], t.middle[s], t.back[s]))
    keys = hand_keys(values) if distinct == "hands" else values
    chosen = _pick(exact, entries, values, keys, splits, top)
    return chosen if len(chosen) > top else None


def _row_order(x3: np.ndarray, x5: np.ndarray) -> Callable[[Any], np.ndarray]:
    """A function of entries' subsets (``rows``: front, middle and back subset numbers) giving one
    int64 per entry that orders the entries as their (front, middle, back) numbers do,
    lexicographically: ``x3``/``x5`` give each 3- and 5-card subset a number. Each number is
    replaced by its rank among the hand's (at most 286 and 1,287 of them), once, so the three
    fit in one integer."""
    rank3 = np.searchsorted(np.unique(x3), x3).astype(np.int64)
    rank5 = np.searchsorted(np.unique(x5), x5).astype(np.int64)
    return lambda rows: (rank3[rows[0]] << 22) | (rank5[rows[1]] << 11) | rank5[rows[2]]


def _firsts(order_key: np.ndarray) -> np.ndarray:
    """The index of the first entry of each distinct key (``_row_order``), ascending."""
    return np.sort(np.unique(order_key, return_index=True)[1])


def _joint_plays(v3: np.ndarray, v5: np.ndarray, seps: list[np.ndarray], wins: list[np.ndarray], losses: list[np.ndarray],
                 sample: Sample, rules: Rules, top: int, distinct: str) -> tuple[list[Play], int]:
    """``rank_plays`` under a bonus rule: the distinct plays that may be among the best are
    scored exactly against every sampled opponent, the others never.

    The bonus of a split lies between bounds from its per-row chances of winning and
    losing, each one a bound on every pairing's bonus averaged: for a pairing whose row
    results sum to x, under 1-6 the scoop's 3 more is at most 3 (x + 2) / 5 (and at least
    3 (x - 2) / 5), and a scoop needs every row won, so it is no likelier than the least
    likely win; under 2-4 the unit for more rows won is at most (x + 1) / 2 (and at least
    (x - 1) / 2), and it needs a row won. The mean of x is the rows' mean, over the share
    of pairings settled by rows. Take, in each group of plays that count as one (rows called
    alike, or of equal values: ``distinct``), the best lower bound; a play whose upper bound
    is below the ``4 (top + 1)``-th best of those cannot be the best of a group among the
    best, and is never scored jointly. Copies of one play (the same row values) score alike
    and are scored once, as the first in canonical order, so they cannot crowd a runner-up
    out."""
    t = split_tables()
    share = float(sample.plain.mean())
    splits, rows, lower, upper, legal_splits = _search.bonus_bounds(
        v3, v5, seps[0], seps[1], seps[2], t.canon_front, t.canon_a, t.canon_b, t.canon_split, t.canon_twin,
        wins[0], wins[1], wins[2], losses[0], losses[1], losses[2], _constant(sample, rules), share, rules.scoring_code)
    k3, k5 = _subset_keys(v3, v5, distinct)
    threshold = _kth_best_group(lower, rows, _row_order(k3, k5), 4 * (top + 1))
    candidates = np.flatnonzero(upper >= threshold - 1e-9)
    rows = tuple(r[candidates] for r in rows)
    first = _firsts(_row_order(v3, v5)(rows))  # one entry per distinct play, the first in canonical order
    candidates = candidates[first]
    rows = tuple(r[first] for r in rows)
    values = _by_row(v3, v5, rows)
    keys = _by_row(k3, k5, rows)
    if rules.royalties:
        exact = _settle.mean_against(values, sample.values, sample.plain, royalty_array(rules),
                                     rules.royalty_needs_win, rules.scoring_code)
    else:  # the candidates are legal: a kernel of bit sets settles them
        rows = np.where(sample.foul[:, None], -1, sample.values)
        exact = _settle.mean_against_rows(values, np.ascontiguousarray(rows[:, 0]),
                                          np.ascontiguousarray(rows[:, 1]), np.ascontiguousarray(rows[:, 2]),
                                          sample.plain, rules.scoring_code)
    if sample.declared.any():
        exact = exact + sample.natural_scores(None, rules)[sample.declared].sum() / sample.n
    return _pick(exact, candidates, values, keys, splits, top), legal_splits


def _kth_best_group(lower: np.ndarray, rows: np.ndarray, group_of: Callable[[Any], np.ndarray], count: int) -> float:
    """The ``count``-th best of the groups' best ``lower`` (the least of them when there are fewer
    groups), for entries whose ``rows`` (3, n) name their subsets and whose group is what
    ``group_of`` (a ``_row_order`` of keys) gives those subsets. Found among the best entries,
    more of them when needed: among the entries sorted by ``lower``, best first, each group's
    first entry holds its best, and the ``count``-th group to appear is the answer."""
    n = len(lower)
    size = min(n, 256)
    while True:
        best = np.argpartition(lower, n - size)[n - size:] if size < n else np.arange(n)
        best = best[np.argsort(-lower[best], kind="stable")]
        firsts = _firsts(group_of((rows[0, best], rows[1, best], rows[2, best])))
        if len(firsts) >= count or size == n:
            return float(lower[best[firsts[min(count, len(firsts)) - 1]]])
        size = min(n, 8 * size)
