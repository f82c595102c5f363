"""Duplicate tournaments: bots over 8-hand sessions, every deal replayed in every seating.

The game (RULES.md): 2 to 4 players, one deck, 13 cards each dealt one at a time
clockwise from the dealer's left; the deal passes to the left each hand; a session is
8 hands; basic scoring.

Duplicate: every deal is replayed with the bots rotated through the seats, so the luck
of the deal cancels. With as many bots as seats, the seatings are all orderings of the
bots (24 for 4); with more bots than seats, every ordered choice of distinct bots
(12 for 4 bots at 2 seats); with fewer, the bots repeated in turn to fill the seats
(A B A B) and every distinct ordering of that line-up (6 for 2 bots at 4 seats).

A bot's arrangement depends only on its 13 cards and its rng, so each (bot, seat) hand
of a deal is set once and reused in every seating. Randomness: deal ``d`` shuffles with
``SeedSequence(entropy, spawn_key=(d,))`` and a bot with spec ``spec`` in seat ``s``
draws from ``SeedSequence(entropy, spawn_key=(d, s, crc32(spec)))``; the same spec gives
the same stream, so a bot against itself scores exactly 0. Results never depend on how
the deals were split among workers.
"""

from __future__ import annotations

import itertools
import math
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from solver import format_cards

HANDS_PER_SESSION = 8
Z95 = 1.959964


class TournamentError(ValueError):
    """A tournament that cannot be run as asked."""


def seatings(n_bots: int, players: int) -> list[tuple[int, ...]]:
    """Which bot sits in each seat, for every replay of a deal.

    >>> seatings(2, 2)
    [(0, 1), (1, 0)]
    >>> len(seatings(4, 4)), len(seatings(4, 2)), len(seatings(3, 2)), seatings(2, 4)[:2]
    (24, 12, 6, [(0, 0, 1, 1), (0, 1, 0, 1)])
    """
    if n_bots >= players:
        return list(itertools.permutations(range(n_bots), players))
    lineup = [i % n_bots for i in range(players)]
    return sorted(set(itertools.permutations(lineup)))


def dealer_of(deal: int, players: int) -> int:
    """The dealer's seat: seat 0 deals the first hand of a session, then the deal passes left."""
    return (deal % HANDS_PER_SESSION) % players


def deal_hands(entropy: int, deal: int, players: int) -> np.ndarray:
    """The ``(players, 13)`` hands of one deal, card by card clockwise from the dealer's left."""
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(deal,)))
    deck = rng.permutation(52).astype(np.uint8)[: 13 * players]
    first = (dealer_of(deal, players) + 1) % players
    hands = np.empty((players, 13), np.uint8)
    for k in range(players):
        seat = (first + k) % players
        hands[seat] = np.sort(deck[k::players])
    return hands


def spec_key(spec: str) -> int:
    return zlib.crc32(spec.encode())


def _canonical(arrangement) -> str:
    return " / ".join(format_cards(sorted(row, reverse=True)) for row in arrangement.rows)


def make_bots(specs: Sequence[str], rules_name: str) -> dict[str, Any]:
    """One bot per distinct spec; bots with a ``rules`` parameter play for the tournament's rules
    unless their spec names other rules."""
    from bots import bot_parameters, make_bot, parse_spec
    from bots.registry import resolve_factory

    bots = {}
    for spec in specs:
        name, params = parse_spec(spec)
        extra = {}
        if rules_name != "basic" and "rules" in bot_parameters(resolve_factory(name)) and "rules" not in params:
            extra["rules"] = rules_name
        bots[spec] = make_bot(spec, **extra)
    return bots


def play_deals(specs: Sequence[str], players: int, entropy: int, deals: Sequence[int],
               rules_name: str = "basic") -> list[dict[str, Any]]:
    """Set every (bot, seat) hand of the given deals; one record per deal.

    A record holds the deal number, the dealer, the seat hands, and for every bot and
    seat the arrangement, its row values and whether it fouls, plus the seconds each
    decision took (kept apart from the results: timing is not reproducible)."""
    from bots import checked_arrangement
    from bots.base import declared_natural
    from solver import Card
    from solver.rules import Rules

    rules = Rules.parse(rules_name)
    bots = make_bots(specs, rules_name)
    records = []
    for deal in deals:
        hands = deal_hands(entropy, deal, players)
        done: dict[tuple[str, int], dict[str, Any]] = {}  # the same spec plays the same hand the same way
        plays = []
        for spec in specs:
            row = []
            for seat in range(players):
                if (spec, seat) not in done:
                    cards = tuple(Card(int(c)) for c in hands[seat])
                    seed = np.random.SeedSequence(entropy, spawn_key=(deal, seat, spec_key(spec)))
                    started = time.perf_counter()
                    arrangement = checked_arrangement(bots[spec], cards, np.random.default_rng(seed))
                    natural = declared_natural(bots[spec], cards, np.random.default_rng(seed), rules)
                    seconds = time.perf_counter() - started
                    values = arrangement.values()
                    done[spec, seat] = {
                        "arrangement": _canonical(arrangement),
                        "values": list(values),
                        "foul": not (values[0] <= values[1] <= values[2]),
                        "seconds": seconds,
                    }
                    if natural is not None:
                        done[spec, seat]["natural"] = {"kind": natural.kind, "key": list(natural.key)}
                row.append(done[spec, seat])
            plays.append(row)
        records.append({
            "deal": deal,
            "dealer": dealer_of(deal, players),
            "hands": [format_cards(h) for h in hands],
            "plays": plays,
        })  # fmt: skip
    return records


# --- statistics from the records -------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A mean with its standard error, n and 95% interval."""

    mean: float
    se: float
    n: int

    @classmethod
    def of(cls, samples: np.ndarray) -> Estimate:
        samples = np.asarray(samples, np.float64)
        n = samples.size
        se = float(samples.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
        return cls(float(samples.mean()) if n else float("nan"), se, n)

    @property
    def low(self) -> float:
        return self.mean - Z95 * self.se

    @property
    def high(self) -> float:
        return self.mean + Z95 * self.se

    @property
    def significant(self) -> bool:
        """The 95% interval excludes 0."""
        return bool(self.se > 0 and abs(self.mean) > Z95 * self.se) or (self.se == 0 and self.mean != 0)

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "se": self.se, "n": self.n, "ci95": [self.low, self.high]}


def pair_rows(vx: np.ndarray, fx: np.ndarray, vy: np.ndarray, fy: np.ndarray) -> np.ndarray:
    """Row results (+1/0/-1, last axis 3) of X against Y, fouls included (RULES.md)."""
    rows = np.sign(vx - vy)
    both = (fx & fy)[..., None]
    rows = np.where(fx[..., None], -1, rows)
    rows = np.where(fy[..., None], 1, rows)
    return np.where(both, 0, rows)


def arrays_of(records: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row values (deals, bots, seats, 3), fouls (deals, bots, seats) and the canonical arrangements."""
    values = np.array([[[p["values"] for p in row] for row in r["plays"]] for r in records], np.int64)
    fouls = np.array([[[p["foul"] for p in row] for row in r["plays"]] for r in records], bool)
    arrangements = np.array([[[p["arrangement"] for p in row] for row in r["plays"]] for r in records], object)
    return values, fouls, arrangements


def table_scores(records: Sequence[dict[str, Any]], n_bots: int, players: int, rules_name: Any = "basic"):
    """Row results (D, Q, P, P, 3) and pair scores (D, Q, P, P) of every seating of every deal:
    seat i against seat j in seating q, settled under the rules (naturals included)."""
    from solver.naturals import Natural, settle_naturals
    from solver.rules import Rules
    from solver.scoring import settle

    rules = rules_name if isinstance(rules_name, Rules) else Rules.parse(rules_name)
    values, fouls, _ = arrays_of(records)
    plan = np.array(seatings(n_bots, players))  # (Q, players)
    seat = np.arange(players)
    v = values[:, plan, seat]  # (D, Q, players, 3)
    f = fouls[:, plan, seat]  # (D, Q, players)
    rows = pair_rows(v[:, :, :, None, :], f[:, :, :, None], v[:, :, None, :, :], f[:, :, None, :])
    cats = v >> 26
    scores = settle(rows, f[:, :, :, None], f[:, :, None, :], cats[:, :, :, None, :], cats[:, :, None, :, :], rules)
    eye = np.eye(players, dtype=bool)
    scores = np.where(eye, 0, scores)
    declared = [(d, b, s_, Natural(p["natural"]["kind"], tuple(p["natural"]["key"])))
                for d, r in enumerate(records) for b, row in enumerate(r["plays"]) for s_, p in enumerate(row)
                if p.get("natural")]
    if declared:
        naturals = {(d, b, s_): nat for d, b, s_, nat in declared}
        for d in sorted({d for d, _, _, _ in declared}):
            for q, bots_in_seats in enumerate(plan):
                held = [naturals.get((d, int(bots_in_seats[i]), i)) for i in range(players)]
                if not any(held):
                    continue
                for i in range(players):
                    for j in range(players):
                        if i != j and (held[i] or held[j]):
                            scores[d, q, i, j] = settle_naturals(held[i], held[j], rules)
    return rows, scores


def summarise(records: Sequence[dict[str, Any]], names: Sequence[str], players: int,
              rules_name: Any = "basic") -> dict[str, Any]:
    """Per-bot results, the crosstable and the variance reduction, from the records alone."""
    records = sorted(records, key=lambda r: r["deal"])
    values, fouls, arrangements = arrays_of(records)
    n_deals, n_bots = values.shape[0], values.shape[1]
    seats = seatings(n_bots, players)
    n_seatings = len(seats)
    by_seating = np.array(seats)  # (Q, players)
    rows, pair_scores = table_scores(records, n_bots, players, rules_name)
    seat_scores = pair_scores.sum(axis=-1)  # (D, Q, players)

    per_bot: dict[str, Any] = {}
    session_count = n_deals // HANDS_PER_SESSION
    for b, name in enumerate(names):
        occupied = by_seating == b  # (Q, players)
        per_deal = (seat_scores * occupied).sum(axis=(1, 2)) / occupied.sum()
        single = seat_scores[:, occupied]  # (D, instances): what one seating alone would give
        estimate = Estimate.of(per_deal)
        var_dup = float(per_deal.var(ddof=1)) if n_deals > 1 else float("nan")
        var_single = float(single.var(ddof=1)) if single.size > 1 else float("nan")
        reduction = var_single / var_dup if var_dup > 0 else float("inf")
        # Row results against every other seat.
        others = occupied[:, :, None] & ~np.eye(players, dtype=bool)[None]
        bot_rows = rows[:, others]  # (D, comparisons, 3)
        wins = (bot_rows == 1).mean(axis=(0, 1))
        scoops = float((bot_rows == 1).all(axis=-1).mean())
        # Sessions: consecutive blocks of 8 deals, every seating its own table.
        win_share = float("nan")
        if session_count:
            totals = seat_scores[: session_count * HANDS_PER_SESSION].reshape(
                session_count, HANDS_PER_SESSION, n_seatings, players
            ).sum(axis=1)  # (S, Q, players)
            top = totals.max(axis=-1, keepdims=True)
            leaders = totals == top
            share = leaders / leaders.sum(axis=-1, keepdims=True)
            win_share = float(share[:, occupied].mean())
        per_bot[name] = {
            "units_per_hand": estimate.to_dict(),
            "session_win_share": win_share,
            "row_win_rate": {"front": float(wins[0]), "middle": float(wins[1]), "back": float(wins[2])},
            "foul_rate": float(fouls[:, b].mean()),
            "scoop_rate": scoops,
            "variance_reduction": reduction,
        }

    crosstable: dict[str, dict[str, Any]] = {}
    for a, name_a in enumerate(names):
        crosstable[name_a] = {}
        for b, name_b in enumerate(names):
            if a == b:
                continue
            mask = (by_seating[:, :, None] == a) & (by_seating[:, None, :] == b)  # (Q, i, j)
            if not mask.any():
                continue
            per_deal = (pair_scores * mask).sum(axis=(1, 2, 3)) / mask.sum()
            estimate = Estimate.of(per_deal)
            same = float((arrangements[:, a] == arrangements[:, b]).mean())
            crosstable[name_a][name_b] = estimate.to_dict() | {"significant": estimate.significant, "same_arrangement": same}

    zero_sum = bool((pair_scores + np.swapaxes(pair_scores, -1, -2) == 0).all())
    return {
        "deals": n_deals,
        "sessions": session_count,
        "seatings": [[names[b] for b in s] for s in seats],
        "hands_played": int(n_deals * n_seatings * players),
        "zero_sum": zero_sum,
        "bots": per_bot,
        "crosstable": crosstable,
    }


def timing_summary(records: Sequence[dict[str, Any]], names: Sequence[str]) -> dict[str, Any]:
    """Decision time per bot: median and 95th percentile, in milliseconds."""
    out = {}
    for b, name in enumerate(names):
        seconds = np.array([p["seconds"] for r in records for p in r["plays"][b]])
        out[name] = {"median_ms": float(np.median(seconds) * 1e3), "p95_ms": float(np.percentile(seconds, 95) * 1e3),
                     "decisions": int(seconds.size)}
    return out


def session_totals(records: Sequence[dict[str, Any]], names: Sequence[str], players: int,
                   rules_name: Any = "basic") -> dict[str, list[int]]:
    """Every bot's session totals (one per seat it held, per seating, per session)."""
    records = sorted(records, key=lambda r: r["deal"])
    seats = np.array(seatings(len(names), players))
    seat_scores = table_scores(records, len(names), players, rules_name)[1].sum(axis=-1)  # (D, Q, players)
    sessions = len(records) // HANDS_PER_SESSION
    totals = seat_scores[: sessions * HANDS_PER_SESSION].reshape(sessions, HANDS_PER_SESSION, *seat_scores.shape[1:])
    totals = totals.sum(axis=1)
    return {name: totals[:, seats == b].ravel().astype(int).tolist() for b, name in enumerate(names)}


# --- running ---------------------------------------------------------------------------------


def plan_chunks(n_deals: int, seconds_per_deal: float, target: float = 0.2) -> list[range]:
    """Consecutive ranges of deals worth at least ``target`` seconds each."""
    size = max(1, math.ceil(target / max(seconds_per_deal, 1e-9)))
    return [range(start, min(start + size, n_deals)) for start in range(0, n_deals, size)]


def run_deals(
    specs: Sequence[str],
    players: int,
    entropy: int,
    n_deals: int,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    rules_name: str = "basic",
) -> list[dict[str, Any]]:
    """Records of deals ``0..n_deals-1``, computed in chunks on the chosen backend."""
    # Two pilot deals here: the second one's time sizes the chunks (the first one also
    # pays for loading the bots).
    records: list[dict[str, Any]] = []
    pilot = 0.0
    for deal in range(min(2, n_deals)):
        started = time.perf_counter()
        records += play_deals(specs, players, entropy, [deal], rules_name)
        pilot = time.perf_counter() - started
        if on_progress:
            on_progress(1)
    chunks = plan_chunks(n_deals - len(records), pilot)
    chunks = [range(c.start + len(records), c.stop + len(records)) for c in chunks]
    if not chunks:
        return records
    if backend == "sequential" or (jobs == 1 and backend != "dask"):
        for chunk in chunks:
            records += play_deals(specs, players, entropy, list(chunk), rules_name)
            if on_progress:
                on_progress(len(chunk))
        return records

    import joblib

    tasks = (joblib.delayed(play_deals)(list(specs), players, entropy, list(c), rules_name) for c in chunks)
    if backend == "dask":
        client = _dask_client(scheduler)
        try:
            with joblib.parallel_backend("dask"):
                for part in joblib.Parallel(n_jobs=jobs, return_as="generator")(tasks):
                    records += part
                    if on_progress:
                        on_progress(len(part))
        finally:
            client.close()
        return records
    for part in joblib.Parallel(n_jobs=jobs, backend=backend, return_as="generator")(tasks):
        records += part
        if on_progress:
            on_progress(len(part))
    return records


def _dask_client(scheduler: str | None):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise TournamentError(
            "the dask backend needs dask.distributed: pip install 'chinese-poker-solver[dask]'"
        ) from None
    if scheduler is None:
        return Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None))
    try:
        return Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise TournamentError(f"cannot reach the dask scheduler at {scheduler}: {error}") from None
