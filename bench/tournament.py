"""Duplicate tournaments: bots over 8-hand sessions, every deal replayed in every seating.

The game (docs/rules.md): 2 to 4 players, one deck, 13 cards each dealt one at a time
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
from typing import Any

import numpy as np

from solver import format_cards
from solver.rules import BASIC, Rules, as_rules
from solver.scoring import fouls, row_results_of, settle_values
from solver.statistics import Estimate

HANDS_PER_SESSION = 8


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


def deal_table(entropy: int, deal: int, players: int) -> np.ndarray:
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
    """The arrangement as a player reads it; the same for any order of the cards within a row."""
    return arrangement.format()


def make_bots(specs: Sequence[str], rules: Rules) -> dict[str, Any]:
    """One bot per distinct spec; bots with a ``rules`` parameter play for the tournament's rules
    unless their spec names other rules."""
    from bots import make_bot_for

    return {spec: make_bot_for(spec, rules) for spec in specs}


def _play(bot, spec: str, cards, entropy: int, deal: int, seat: int, rules: Rules) -> dict[str, Any]:
    """One decision: the bot's arrangement of one seat's hand, checked, and its natural."""
    from bots import checked_arrangement
    from bots.base import declared_natural

    seed = np.random.SeedSequence(entropy, spawn_key=(deal, seat, spec_key(spec)))
    started = time.perf_counter()
    arrangement = checked_arrangement(bot, cards, np.random.default_rng(seed))
    natural = declared_natural(bot, cards, np.random.default_rng(seed), rules)
    seconds = time.perf_counter() - started
    values = arrangement.values()
    play: dict[str, Any] = {
        "arrangement": _canonical(arrangement),
        "values": list(values),
        "foul": bool(fouls(values)),
        "seconds": seconds,
    }
    if natural is not None:
        play["natural"] = {"kind": natural.kind, "key": list(natural.key)}
    return play


def play_deals(specs: Sequence[str], players: int, entropy: int, deals: Sequence[int],
               rules: Rules | str = BASIC) -> list[dict[str, Any]]:
    """Set every (bot, seat) hand of the given deals; one record per deal.

    A record holds the deal number, the dealer, the seat hands, and for every bot and
    seat the arrangement, its row values and whether it fouls, plus the seconds each
    decision took (kept apart from the results: timing is not reproducible)."""
    from solver import Card

    rules = as_rules(rules)
    bots = make_bots(specs, rules)
    records = []
    for deal in deals:
        hands = deal_table(entropy, deal, players)
        done: dict[tuple[str, int], dict[str, Any]] = {}  # the same spec plays the same hand the same way
        plays = []
        for spec in specs:
            for seat in range(players):
                if (spec, seat) not in done:
                    cards = tuple(Card(int(c)) for c in hands[seat])
                    done[spec, seat] = _play(bots[spec], spec, cards, entropy, deal, seat, rules)
            plays.append([done[spec, seat] for seat in range(players)])
        records.append({
            "deal": deal,
            "dealer": dealer_of(deal, players),
            "hands": [format_cards(h) for h in hands],
            "plays": plays,
        })  # fmt: skip
    return records


# --- statistics from the records -------------------------------------------------------------


def arrays_of(records: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row values (deals, bots, seats, 3), fouls (deals, bots, seats) and the canonical arrangements."""
    values = np.array([[[p["values"] for p in row] for row in r["plays"]] for r in records], np.int64)
    arrangements = np.array([[[p["arrangement"] for p in row] for row in r["plays"]] for r in records], object)
    return values, fouls(values), arrangements


def _naturals_of(records: Sequence[dict[str, Any]]) -> dict[tuple[int, int, int], Any]:
    """The declared naturals by (deal index, bot, seat)."""
    from solver.naturals import Natural

    return {(d, b, s): Natural(p["natural"]["kind"], tuple(p["natural"]["key"]))
            for d, r in enumerate(records) for b, row in enumerate(r["plays"]) for s, p in enumerate(row)
            if p.get("natural")}


def table_scores(records: Sequence[dict[str, Any]], n_bots: int, players: int, rules: Rules | str = BASIC):
    """Every seating of every deal, seat i against seat j in seating q (arrays (D, Q, P, P, ...)):
    row results (..., 3), units under the rules (naturals included), and whether the pairing
    was settled by the rows (False where a natural was declared, and on the diagonal)."""
    from solver.naturals import settle_naturals

    rules = as_rules(rules)
    values, _, _ = arrays_of(records)
    plan = np.array(seatings(n_bots, players))  # (Q, players)
    v = values[:, plan, np.arange(players)]  # (D, Q, players, 3)
    shape = v.shape[:2] + (players, players)
    mine = np.broadcast_to(v[:, :, :, None, :], shape + (3,)).reshape(-1, 3)
    theirs = np.broadcast_to(v[:, :, None, :, :], shape + (3,)).reshape(-1, 3)
    rows = row_results_of(mine, theirs).reshape(shape + (3,))
    scores = settle_values(mine, theirs, rules).reshape(shape)
    eye = np.eye(players, dtype=bool)
    scores = np.where(eye, 0, scores)
    by_rows = np.broadcast_to(~eye, shape).copy()
    naturals = _naturals_of(records)
    for d in sorted({d for d, _, _ in naturals}):
        for q, bots_in_seats in enumerate(plan):
            held = [naturals.get((d, int(bots_in_seats[i]), i)) for i in range(players)]
            for i in range(players):
                for j in range(players):
                    if i != j and (held[i] or held[j]):
                        scores[d, q, i, j] = settle_naturals(held[i], held[j], rules)
                        by_rows[d, q, i, j] = False
    return rows, scores, by_rows


def _session_share(seat_scores: np.ndarray, occupied: np.ndarray) -> float:
    """Share of sessions (consecutive blocks of 8 deals, every seating its own table) a bot
    finished first, ties shared."""
    sessions = seat_scores.shape[0] // HANDS_PER_SESSION
    if not sessions:
        return float("nan")
    totals = seat_scores[: sessions * HANDS_PER_SESSION].reshape(
        sessions, HANDS_PER_SESSION, *seat_scores.shape[1:]).sum(axis=1)  # (S, Q, players)
    leaders = totals == totals.max(axis=-1, keepdims=True)
    share = leaders / leaders.sum(axis=-1, keepdims=True)
    return float(share[:, occupied].mean())


def _bot_results(b: int, plan: np.ndarray, seat_scores, rows, by_rows, values, declared) -> dict[str, Any]:
    """One bot's results. Row wins, scoops and fouls count only what the rows settled;
    pairings settled by a natural are counted apart."""
    players = plan.shape[1]
    occupied = plan == b  # (Q, players)
    per_deal = (seat_scores * occupied).sum(axis=(1, 2)) / occupied.sum()
    single = seat_scores[:, occupied]  # (D, instances): what one seating alone would give
    n_deals = per_deal.size
    var_dup = float(per_deal.var(ddof=1)) if n_deals > 1 else float("nan")
    var_single = float(single.var(ddof=1)) if single.size > 1 else float("nan")
    others = occupied[:, :, None] & ~np.eye(players, dtype=bool)[None]  # (Q, i, j): this bot in i against j
    settled = by_rows[:, others]  # (D, comparisons)
    bot_rows = rows[:, others][settled]  # (pairings settled by rows, 3)
    wins = (bot_rows == 1).mean(axis=0) if len(bot_rows) else np.full(3, np.nan)
    played = ~declared[:, b]  # (D, seats): hands played out, not declared
    foul = fouls(values[:, b])
    return {
        "units_per_hand": Estimate.of(per_deal).to_dict(),
        "session_win_share": _session_share(seat_scores, occupied),
        "row_win_rate": {"front": float(wins[0]), "middle": float(wins[1]), "back": float(wins[2])},
        "foul_rate": float(foul[played].mean()) if played.any() else float("nan"),
        "scoop_rate": float((bot_rows == 1).all(axis=-1).mean()) if len(bot_rows) else float("nan"),
        "pairings_by_naturals": int((~settled).sum()),
        "variance_reduction": var_single / var_dup if var_dup > 0 else float("inf"),
    }


def _crosstable(names: Sequence[str], plan: np.ndarray, pair_scores: np.ndarray, arrangements) -> dict[str, Any]:
    """Each bot against each other: units per hand when they meet, and how often they set a hand alike."""
    crosstable: dict[str, dict[str, Any]] = {}
    for a, name_a in enumerate(names):
        crosstable[name_a] = {}
        for b, name_b in enumerate(names):
            if a == b:
                continue
            mask = (plan[:, :, None] == a) & (plan[:, None, :] == b)  # (Q, i, j)
            if not mask.any():
                continue
            estimate = Estimate.of((pair_scores * mask).sum(axis=(1, 2, 3)) / mask.sum())
            same = float((arrangements[:, a] == arrangements[:, b]).mean())
            crosstable[name_a][name_b] = estimate.to_dict() | {"significant": estimate.significant,
                                                               "same_arrangement": same}
    return crosstable


def summarise(records: Sequence[dict[str, Any]], names: Sequence[str], players: int,
              rules: Rules | str = BASIC) -> dict[str, Any]:
    """Per-bot results, the crosstable and the variance reduction, from the records alone."""
    records = sorted(records, key=lambda r: r["deal"])
    values, _, arrangements = arrays_of(records)
    plan = np.array(seatings(len(names), players))  # (Q, players)
    rows, pair_scores, by_rows = table_scores(records, len(names), players, rules)
    seat_scores = pair_scores.sum(axis=-1)  # (D, Q, players)
    declared = np.zeros(values.shape[:3], bool)
    for d, b, s in _naturals_of(records):
        declared[d, b, s] = True
    return {
        "deals": len(records),
        "sessions": len(records) // HANDS_PER_SESSION,
        "seatings": [[names[b] for b in s] for s in plan.tolist()],
        "hands_played": int(len(records) * len(plan) * players),
        "zero_sum": bool((pair_scores + np.swapaxes(pair_scores, -1, -2) == 0).all()),
        "bots": {name: _bot_results(b, plan, seat_scores, rows, by_rows, values, declared)
                 for b, name in enumerate(names)},
        "crosstable": _crosstable(names, plan, pair_scores, arrangements),
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
                   rules: Rules | str = BASIC) -> dict[str, list[int]]:
    """Every bot's session totals (one per seat it held, per seating, per session)."""
    records = sorted(records, key=lambda r: r["deal"])
    seats = np.array(seatings(len(names), players))
    seat_scores = table_scores(records, len(names), players, rules)[1].sum(axis=-1)  # (D, Q, players)
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
    rules: Rules | str = BASIC,
) -> list[dict[str, Any]]:
    """Records of deals ``0..n_deals-1``, computed in chunks on the chosen backend."""
    # Two pilot deals here: the second one's time sizes the chunks (the first one also
    # pays for loading the bots).
    records: list[dict[str, Any]] = []
    pilot = 0.0
    for deal in range(min(2, n_deals)):
        started = time.perf_counter()
        records += play_deals(specs, players, entropy, [deal], rules)
        pilot = time.perf_counter() - started
        if on_progress:
            on_progress(1)
    chunks = plan_chunks(n_deals - len(records), pilot)
    chunks = [range(c.start + len(records), c.stop + len(records)) for c in chunks]
    if not chunks:
        return records
    if backend == "sequential" or (jobs == 1 and backend != "dask"):
        for chunk in chunks:
            records += play_deals(specs, players, entropy, list(chunk), rules)
            if on_progress:
                on_progress(len(chunk))
        return records

    import joblib

    tasks = (joblib.delayed(play_deals)(list(specs), players, entropy, list(c), rules) for c in chunks)
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
            "the dask backend needs dask.distributed; from the project's folder: pip install '.[dask]'"
        ) from None
    if scheduler is None:
        return Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None))
    try:
        return Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise TournamentError(f"cannot reach the dask scheduler at {scheduler}: {error}") from None
