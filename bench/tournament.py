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

import contextlib
import itertools
import math
import os
import struct
import threading
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bots.base import BotFault
from bots.protocol import close_together
from solver import files, format_cards
from solver.errors import InputError
from solver.rules import BASIC, Rules, as_rules
from solver.scoring import fouls, row_results_of, settle_values
from solver.statistics import Estimate

HANDS_PER_SESSION = 8


class TournamentError(InputError, ValueError):
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


def seat_seed(entropy: int, deal: int, seat: int, spec: str) -> np.random.SeedSequence:
    """Where the bot with ``spec`` in ``seat`` of ``deal`` draws its randomness from: the same
    spec in the same seat of the same deal always draws the same stream.

    >>> seat_seed(7, 3, 1, "greedy").spawn_key  # (deal, seat, the CRC-32 of the spec's text)
    (3, 1, 1301103663)
    """
    return np.random.SeedSequence(entropy, spawn_key=(deal, seat, zlib.crc32(spec.encode())))


def _canonical(arrangement) -> str:
    """The arrangement as a player reads it; the same for any order of the cards within a row."""
    return arrangement.format()


def make_bots(specs: Sequence[str], rules: Rules, log_dir: str | None = None,
              startup_timeout: float | None = None) -> dict[str, Any]:
    """One bot per distinct spec; bots with a ``rules`` parameter play for the tournament's rules
    unless their spec names other ones. Each thread makes its set of bots once and keeps it
    (bots keep no state between hands), so a protocol bot's process serves every chunk its
    thread plays, and never two threads at once: threads (the threading backend, a local dask
    cluster) each have bots of their own. :func:`close_bots` ends them.

    With ``startup_timeout``, the bots' start-up runs under that limit of its own, apart
    from any decision: making each bot and, for bots that are not protocol bots (those shake
    hands under their own ``startup_timeout``), one warm-up decision on a fixed hand, whose
    answer is not used (loading compiled kernels, a JIT warming up). A bot that does not
    start in time raises :class:`StartupFault`."""
    key = (tuple(specs), rules, log_dir)
    thread = threading.current_thread()
    with _MADE_LOCK:
        made = _MADE.setdefault(thread, {})
        bots = made.pop(key, None)
    if bots is None:
        bots = _Bots(_new_bots(key[0], rules, log_dir, startup_timeout), warm=startup_timeout is not None)
    elif startup_timeout is not None and not bots.warm:
        _warm_up(bots.bots, startup_timeout)
        bots.warm = True
    with _MADE_LOCK:
        made[key] = bots  # the most recently used last
        evicted = [made.pop(k) for k in list(made)[:-MADE_PER_THREAD]]
    for old in evicted:
        old.close()
    return dict(bots.bots)


MADE_PER_THREAD = 4  # sets of bots a thread keeps; older ones are closed
WARM_UP_HAND = "2C 3D 4H 5S 6C 7D 8H 9S TC JD QH KS AC"  # the fixed hand of a warm-up decision


class StartupFault(BotFault):
    """A bot did not start within its start-up limit."""


@dataclass
class _Bots:
    bots: dict[str, Any]
    warm: bool

    def close(self) -> None:
        close_together(list(self.bots.values()))


_MADE: dict[threading.Thread, dict[tuple, _Bots]] = {}  # per thread: (specs, rules, log_dir) -> bots
_MADE_LOCK = threading.RLock()  # re-entrant: a worker ending on SIGTERM closes its bots from a signal handler


def close_bots(threads: Sequence[threading.Thread] | None = None) -> None:
    """End the bots (their processes) kept by the given threads, or by every thread; the bot
    processes are all asked to quit, then given one grace period together before they are killed."""
    with _MADE_LOCK:
        chosen = list(_MADE) if threads is None else [t for t in threads if t in _MADE]
        ending = [bots for t in chosen for bots in _MADE.pop(t).values()]
    close_together([bot for bots in ending for bot in bots.bots.values()])


def bot_threads() -> set[threading.Thread]:
    """The threads that keep bots."""
    with _MADE_LOCK:
        return set(_MADE)


def _is_protocol(spec: str) -> bool:
    """Whether a spec names a protocol bot (``file.toml`` or ``cmd:PATH``), without reading it."""
    from bots import BotError, parse_spec

    try:
        name = parse_spec(spec)[0]
    except BotError:  # not a spec at all: making it will say why
        return False
    return name.startswith("cmd:") or name.endswith(".toml")


def _new_bots(specs: tuple[str, ...], rules: Rules, log_dir: str | None,
              startup_timeout: float | None) -> dict[str, Any]:
    from bots import make_bot_for

    bots: dict[str, Any] = {}
    try:
        for spec in dict.fromkeys(specs):
            if startup_timeout is None or _is_protocol(spec):
                bots[spec] = make_bot_for(spec, rules, log_dir)
            else:
                with _startup_limit(spec, startup_timeout):
                    bots[spec] = make_bot_for(spec, rules, log_dir)
                    _warm_up_one(bots[spec])
    except BaseException:
        _Bots(bots, False).close()
        raise
    return bots


def _warm_up(bots: dict[str, Any], seconds: float) -> None:
    """The warm-up decision of each bot that is not a protocol bot, each under the limit."""
    for spec, bot in bots.items():
        if not _is_protocol(spec):
            with _startup_limit(spec, seconds):
                _warm_up_one(bot)


def _warm_up_one(bot) -> None:
    """One decision on a fixed hand; its answer, and any error it raises, are not used (the
    decisions judge those)."""
    from solver import parse_hand

    try:
        bot.arrange(parse_hand(WARM_UP_HAND), np.random.default_rng(0))
    except DecisionTimeout:
        raise
    except Exception:  # noqa: S110
        pass


@contextlib.contextmanager
def _startup_limit(spec: str, seconds: float):
    """Raise :class:`StartupFault` when the block takes longer than ``seconds``: stopped by a
    timer in a process's main thread, judged when it returns in other threads."""
    started = time.perf_counter()
    try:
        with time_limit(seconds):
            yield
    except DecisionTimeout:
        raise _late_start(spec, seconds) from None
    if time.perf_counter() - started > seconds:
        raise _late_start(spec, seconds)


def _late_start(spec: str, seconds: float) -> StartupFault:
    return StartupFault(f"bot '{spec}' did not start within its start-up limit of {seconds:g} s "
                        "(making it and a warm-up decision, before the decision clock starts)")


FAULT_VALUES = [1 << 30, 0, 0]  # row values of a hand scored as a foul (its front above its middle)
FAULT_POLICIES = ("stop", "foul")


class DecisionFault(BotFault):
    """A bot failed a decision and the run's fault policy is to stop (the message says which)."""


class DecisionTimeout(BotFault):
    """A decision took longer than its time limit."""


def time_limit(seconds: float | None):
    """Raise :class:`DecisionTimeout` in the code run inside when it takes longer than ``seconds``.

    Uses a real-time timer signal (``solver.interrupts.alarm``), so it interrupts only in a
    process's main thread (the sequential backend and process workers), and never inside a
    kernel that compiles or loads, or a callback from compiled code: there it waits until
    the code is back in Python of its own. Elsewhere the block runs to its end, and
    :func:`_play` judges a decision that overran when it returns."""
    from solver.interrupts import alarm

    return alarm(seconds, lambda: DecisionTimeout(f"no answer within the time limit of {seconds:g} s"))


@dataclass(frozen=True)
class RunSettings:
    """What every worker needs to play deals: the bots, the table, the rules, the fault policy."""

    specs: tuple[str, ...]
    players: int
    entropy: int
    rules: Rules = BASIC
    decision_timeout: float | None = None
    on_fault: str = "stop"
    log_dir: str | None = None  # where protocol bots' stderr goes
    startup_timeout: float = 60.0  # limit of a bot's start-up in a worker, when decisions are timed

    def __post_init__(self) -> None:
        for name in ("decision_timeout", "startup_timeout"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise TournamentError(f"{name} must be a finite number of seconds > 0, got {value!r}")
        if self.on_fault not in FAULT_POLICIES:
            raise TournamentError(f"unknown fault policy {self.on_fault!r}; choose from {', '.join(FAULT_POLICIES)}")


def _fault_play(message: str, seconds: float) -> dict[str, Any]:
    return {"arrangement": "fault", "values": list(FAULT_VALUES), "foul": True, "foul_reason": message,
            "seconds": round(seconds, 6), "fault": message}


def play_foul_reason(arrangement: str, foul: bool) -> str | None:
    """Why a play's arrangement (as text) fouls, as the solver says it, or None when it does not."""
    from solver.arrangement import foul_reason

    return foul_reason(arrangement) if foul else None


def _play(bot, spec: str, cards, deal: int, seat: int, settings: RunSettings, faulted: dict) -> dict[str, Any]:
    """One decision: the bot's arrangement of one seat's hand, checked, and its natural.

    A bot that fails (raises, answers badly, runs out of time) ends the run under the
    ``stop`` policy (:class:`DecisionFault`), and has its hand scored as a foul under ``foul``.
    ``faulted`` names decisions already known to fail (their worker process died).

    A decision longer than the run's time limit is a fault on every backend: a timer stops
    it in a process's main thread; in other threads it is judged when it returns. A protocol
    bot is never stopped by the timer (its own deadline, the bot file's ``decision_timeout``,
    bounds the wait, and its process stays in step): it too is judged when it answers."""
    from bots import BotFault, checked_arrangement
    from bots.base import BotGivenUp, declared_natural

    known = faulted.get((deal, spec, seat))
    if known is not None:
        return _fault_play(known, 0.0)
    seed = seat_seed(settings.entropy, deal, seat, spec)
    limit = settings.decision_timeout
    started = time.perf_counter()
    try:
        with time_limit(None if _is_protocol(spec) else limit):
            arrangement = checked_arrangement(bot, cards, np.random.default_rng(seed))
            natural = declared_natural(bot, cards, np.random.default_rng(seed), settings.rules)
        if limit is not None and time.perf_counter() - started > limit:  # a thread, where no timer interrupts
            raise DecisionTimeout
    except BotGivenUp as error:  # whatever the policy: its later faults depend on how deals were shared
        raise DecisionFault(f"deal {deal}, seat {seat}: {error}") from None
    except (BotFault, DecisionTimeout) as error:
        if limit is not None and (time.perf_counter() - started > limit or isinstance(error, DecisionTimeout)
                                  or isinstance(error.__cause__, DecisionTimeout)):
            error = BotFault(f"bot '{spec}' gave no answer within the time limit of {limit:g} s "
                             f"for hand {format_cards(cards)}")
        if settings.on_fault == "stop":
            raise DecisionFault(f"deal {deal}, seat {seat}: {error}") from None
        return _fault_play(str(error), time.perf_counter() - started)
    seconds = time.perf_counter() - started
    values = arrangement.values()
    foul = bool(fouls(values))
    play: dict[str, Any] = {
        "arrangement": _canonical(arrangement),
        "values": list(values),
        "foul": foul,
        "foul_reason": play_foul_reason(_canonical(arrangement), foul),
        "seconds": round(seconds, 6),
    }
    if natural is not None:
        play["natural"] = {"kind": natural.kind, "key": list(natural.key)}
    return play


class _Marker:
    """Which decision a worker is making, in a small file: if the worker process dies, the
    file still says (deal, bot index, seat) of the decision that killed it."""

    def __init__(self, path: str | None):
        self.fd = files.open_write(path, mode=0o600) if path else None

    def mark(self, deal: int, bot: int, seat: int) -> None:
        if self.fd is not None:
            os.pwrite(self.fd, struct.pack("<qqq", deal, bot, seat), 0)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


def read_marker(path: str) -> tuple[int, int, int] | None:
    """The (deal, bot index, seat) a worker last marked, or None."""
    try:
        data = files.read_bytes(path, 24, follow=False)
    except OSError:
        return None
    return struct.unpack("<qqq", data[:24]) if len(data) >= 24 else None


def _batched_plays(bot, spec: str, deals: Sequence[int], tables: Sequence[np.ndarray],
                   settings: RunSettings) -> dict[tuple[int, int], dict[str, Any]] | None:
    """Every seat hand of the deals set by one ``arrange_many`` call, for a bot that says its
    batches set each hand as ``arrange`` does and use no randomness (``batch_safe``).

    The plays are those the one-by-one path makes, with each decision's seconds the batch's
    shared out. None when the batch fails in any way or overruns the time limit of all its
    decisions together: the caller then plays the hands one by one, where faults and time
    limits are judged decision by decision."""
    from bots import arrange_many
    from bots.base import declared_natural
    from solver import Card, row_values
    from solver.arrangement import format_rows

    hands = np.concatenate(tables)  # deal by deal, seat by seat
    limit = settings.decision_timeout * len(hands) if settings.decision_timeout else None
    started = time.perf_counter()
    try:
        with time_limit(limit):
            rows = arrange_many(bot, hands, np.random.default_rng(0))
    except (Exception, DecisionTimeout):
        return None
    if limit is not None and time.perf_counter() - started > limit:  # a thread, where no timer interrupts
        return None
    seconds = (time.perf_counter() - started) / len(hands)
    values = np.stack(row_values(rows), axis=1)
    foul = fouls(values)
    plays = {}
    for i, row in enumerate(rows.tolist()):
        deal, seat = deals[i // settings.players], i % settings.players
        text = format_rows((row[:3], row[3:8], row[8:]))
        play: dict[str, Any] = {
            "arrangement": text,
            "values": values[i].tolist(),
            "foul": bool(foul[i]),
            "foul_reason": play_foul_reason(text, bool(foul[i])),
            "seconds": round(seconds, 6),
        }
        if settings.rules.naturals:
            cards = tuple(Card(c) for c in hands[i].tolist())
            seed = seat_seed(settings.entropy, deal, seat, spec)
            natural = declared_natural(bot, cards, np.random.default_rng(seed), settings.rules)
            if natural is not None:
                play["natural"] = {"kind": natural.kind, "key": list(natural.key)}
        plays[deal, seat] = play
    return plays


def play_deals(specs: Sequence[str], players: int, entropy: int, deals: Sequence[int],
               rules: Rules | str = BASIC, *, settings: RunSettings | None = None, faulted: dict | None = None,
               marker: str | None = None, stop: threading.Event | None = None,
               one_by_one: bool = False) -> list[dict[str, Any]]:
    """Set every (bot, seat) hand of the given deals; one record per deal.

    A record holds the deal number, the dealer, the seat hands, and for every bot and
    seat the arrangement, its row values and whether it fouls, plus the seconds each
    decision took (kept apart from the results: timing is not reproducible). ``settings``
    (when given) carries the fault policy and time limit; ``marker`` is a file where each
    decision is noted before it starts; ``stop`` ends the work between decisions.

    Bots that are ``batch_safe`` set all their hands in one call (``_batched_plays``), with
    the same records; ``one_by_one`` turns that off, so that the marker names every
    decision (a chunk replayed after its worker died), and so do decisions known to fail."""
    from solver import Card

    settings = settings or RunSettings(tuple(specs), players, entropy, as_rules(rules))
    bots = make_bots(settings.specs, settings.rules, settings.log_dir,
                     settings.startup_timeout if settings.decision_timeout is not None else None)
    faulted = faulted or {}
    note = _Marker(marker)
    records = []
    try:
        tables = [deal_table(settings.entropy, deal, settings.players) for deal in deals]
        batched: dict[str, dict[tuple[int, int], dict[str, Any]]] = {}  # spec -> (deal, seat) -> play
        for spec, bot in bots.items():
            if not (one_by_one or faulted) and getattr(bot, "batch_safe", False) and deals:
                if stop is not None and stop.is_set():
                    raise KeyboardInterrupt
                batch = _batched_plays(bot, spec, deals, tables, settings)
                if batch is not None:
                    batched[spec] = batch
        for deal, hands in zip(deals, tables):
            done: dict[tuple[str, int], dict[str, Any]] = {}  # the same spec plays the same hand the same way
            plays = []
            for index, spec in enumerate(settings.specs):
                for seat in range(settings.players):
                    if (spec, seat) in done:
                        continue
                    if spec in batched:
                        done[spec, seat] = batched[spec][deal, seat]
                        continue
                    if stop is not None and stop.is_set():
                        raise KeyboardInterrupt
                    note.mark(deal, index, seat)
                    cards = tuple(Card(c) for c in hands[seat].tolist())
                    done[spec, seat] = _play(bots[spec], spec, cards, deal, seat, settings, faulted)
                plays.append([done[spec, seat] for seat in range(settings.players)])
            records.append({
                "deal": deal,
                "dealer": dealer_of(deal, settings.players),
                "hands": [format_cards(h) for h in hands.tolist()],
                "plays": plays,
            })  # fmt: skip
    finally:
        note.close()
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


def complete_sessions(deals: Sequence[int]) -> np.ndarray:
    """Positions (in ``deals``, sorted) of the deals whose whole session of 8 was played."""
    session = np.asarray(deals, np.int64) // HANDS_PER_SESSION
    counts = np.bincount(session, minlength=int(session.max()) + 1 if len(session) else 0)
    return np.flatnonzero(counts[session] == HANDS_PER_SESSION) if len(session) else np.array([], int)


def _session_sums(seat_scores: np.ndarray) -> np.ndarray:
    """Per-deal scores (D, ...) summed over each block of 8 deals (S, ...); the deals are those
    of complete sessions, in deal order.

    >>> _session_sums(np.arange(16).reshape(16, 1)).ravel().tolist()
    [28, 92]
    """
    sessions = len(seat_scores) // HANDS_PER_SESSION
    blocks = seat_scores[: sessions * HANDS_PER_SESSION].reshape(sessions, HANDS_PER_SESSION, *seat_scores.shape[1:])
    return blocks.sum(axis=1)


def _session_share(seat_scores: np.ndarray, occupied: np.ndarray) -> float:
    """Share of sessions (blocks of 8 deals of complete sessions, every seating its own
    table) a bot finished first, ties shared."""
    if len(seat_scores) < HANDS_PER_SESSION:
        return float("nan")
    totals = _session_sums(seat_scores)  # (S, Q, players)
    leaders = totals == totals.max(axis=-1, keepdims=True)
    share = leaders / leaders.sum(axis=-1, keepdims=True)
    return float(share[:, occupied].mean())


def _faults(records: Sequence[dict[str, Any]], b: int) -> dict[str, Any]:
    """How often a bot failed a decision (scored as a foul), and its first errors."""
    found = [(r["deal"], seat, p["fault"]) for r in records for seat, p in enumerate(r["plays"][b]) if p.get("fault")]
    return {"count": len(found), "first": [{"deal": d, "seat": s, "error": e} for d, s, e in found[:3]]}


def _bot_results(b: int, plan: np.ndarray, seat_scores, rows, by_rows, values, declared,
                 sessions_index: np.ndarray) -> dict[str, Any]:
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
        "session_win_share": _session_share(seat_scores[sessions_index], occupied),
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
    sessions_index = complete_sessions([r["deal"] for r in records])
    return {
        "deals": len(records),
        "sessions": len(sessions_index) // HANDS_PER_SESSION,
        "seatings": [[names[b] for b in s] for s in plan.tolist()],
        "hands_played": int(len(records) * len(plan) * players),
        "zero_sum": bool((pair_scores + np.swapaxes(pair_scores, -1, -2) == 0).all()),
        "bots": {name: _bot_results(b, plan, seat_scores, rows, by_rows, values, declared, sessions_index)
                 | {"faults": _faults(records, b)} for b, name in enumerate(names)},
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
    totals = _session_sums(seat_scores[complete_sessions([r["deal"] for r in records])])  # (S, Q, players)
    return {name: totals[:, seats == b].ravel().astype(int).tolist() for b, name in enumerate(names)}
