"""Playing deals: the bots of a run set every seat hand of a deal, and each deal becomes a record.

The deals, the seatings and each seat's seed are those of ``bench.records.deals``; a
record is a ``bench.records.model.DealRecord``. A bot's arrangement depends only on its 13 cards
and its rng, so each (bot, seat) hand of a deal is set once and reused in every seating.
Results never depend on how the deals were split among workers (``bench.run.runner``).
Every decision runs under the run's fault policy and time limit (``RunSettings``):
a bot that raises, answers badly or runs out of time ends the run (``stop``) or has that
hand scored as a foul (``foul``).
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.records.deals import deal_table, dealer_of, seat_seed
from bench.records.model import DealRecord, FieldPlan, Play
from bench.run.field import scored
from bots import BotError, arrange_many, checked_arrangement, make_bot_for, parse_spec
from bots.base import Bot, BotFault, BotGivenUp, declared_natural
from bots.protocol import ProtocolBot, close_together, trace_to
from bots.protocol.bot import command_startup
from bots.registry import register
from bots.table import expect_tables
from solver import Arrangement, Card, config, files, format_cards, parse_hand, row_values
from solver.arrangement import format_rows
from solver.errors import InputError
from solver.interrupts import alarm
from solver.rules import BASIC, Rules, as_rules
from solver.scoring import fouls

# decisions known to kill their worker process: (deal, bot spec, seat) -> the fault's message
Faulted = dict[tuple[int, str, int], str]


class TournamentError(InputError, ValueError):
    """A tournament that cannot be run as asked."""


def _canonical(arrangement: Arrangement) -> str:
    """The arrangement as a player reads it; the same for any order of the cards within a row."""
    return arrangement.format()


def make_bots(specs: Sequence[str], rules: Rules, log_dir: str | None = None,
              startup_timeout: float | None = None, *, warm_up: bool = True) -> dict[str, Any]:
    """One bot per distinct spec, made once by each thread and kept.

    Bots with a ``rules`` parameter play for the tournament's rules unless their spec names
    other ones. Each thread makes its set of bots once and keeps it (bots keep no state
    between hands), so a protocol bot's process serves every chunk its thread plays, and never
    two threads at once: threads (the threading backend, a local dask cluster) each have bots
    of their own. A thread keeps its ``config.MADE_PER_THREAD`` most recently used sets (by
    specs, rules and ``log_dir``) and closes older ones; ``close_bots`` ends them.

    Args:
        specs: The bot specs of the run; a spec given more than once makes one bot.
        rules: The tournament's rules.
        log_dir: The folder protocol bots write their stderr to; None for none.
        startup_timeout: The command's start-up limit (``bench tournament --startup-timeout``),
            a limit of its own apart from any decision. A protocol bot's processes answer the
            hello within it unless the bot file sets a ``startup_timeout`` of its own (a ``cmd:``
            bot always takes it; ``bots.protocol.spec.startup_limit``), kept ones from now on
            too. Any other bot is made, with ``warm_up``, under it together with one warm-up
            decision on a fixed hand, whose answer is not used (loading compiled kernels, a JIT
            warming up). None: the protocol bots' default, no limit and no warm-up.
        warm_up: With ``startup_timeout``, make the bots that are not protocol bots under it
            with their warm-up decision; False: the limit is only the protocol bots' (a first
            check that every bot can be made, before the run's workers warm them up).

    Returns:
        The thread's bots, by spec (a new dict; the bots themselves are the kept ones).

    Raises:
        StartupFault: A bot did not start within ``startup_timeout``.
        BotError: A bot cannot be made (a protocol bot that does not answer the hello in time).
    """
    key = (tuple(specs), rules, log_dir)
    warming = startup_timeout if warm_up else None
    thread = threading.current_thread()
    with _MADE_LOCK:
        made = _MADE.setdefault(thread, {})
        bots = made.pop(key, None)
    if bots is None:
        bots = _Bots(_new_bots(key[0], rules, log_dir, startup_timeout, warming), warm=warming is not None)
    else:
        for bot in bots.bots.values():
            if startup_timeout is not None and isinstance(bot, ProtocolBot):
                bot.command_startup = startup_timeout  # for every process it starts from now on
        if warming is not None and not bots.warm:
            _warm_up(bots.bots, warming)
            bots.warm = True
    with _MADE_LOCK:
        made[key] = bots  # the most recently used last
        evicted = [made.pop(k) for k in list(made)[:-config.MADE_PER_THREAD]]
    for old in evicted:
        old.close()
    return dict(bots.bots)


WARM_UP_HAND = "2C 3D 4H 5S 6C 7D 8H 9S TC JD QH KS AC"  # the fixed hand of a warm-up decision


class StartupFault(BotFault):
    """A bot did not start within its start-up limit."""


@dataclass
class _Bots:
    bots: dict[str, Any]
    warm: bool

    def close(self) -> None:
        close_together(list(self.bots.values()))


_MADE: dict[threading.Thread, dict[tuple[tuple[str, ...], Rules, str | None], _Bots]] = {}  # per thread: by specs, rules, log_dir
_MADE_LOCK = threading.RLock()  # re-entrant: a worker ending on SIGTERM closes its bots from a signal handler


def close_bots(threads: Sequence[threading.Thread] | None = None) -> None:
    """End the bots (their processes) kept by the given threads, or by every thread.

    The bot processes are all asked to quit, then given one grace period together before they
    are killed.

    Args:
        threads: The threads whose bots end (threads that keep none are passed over); None for
            every thread.
    """
    with _MADE_LOCK:
        chosen = list(_MADE) if threads is None else [t for t in threads if t in _MADE]
        ending = [bots for t in chosen for bots in _MADE.pop(t).values()]
    close_together([bot for bots in ending for bot in bots.bots.values()])


def bot_threads() -> set[threading.Thread]:
    """The threads that keep bots.

    Returns:
        The threads that keep bots now, as a new set.
    """
    with _MADE_LOCK:
        return set(_MADE)


def _is_protocol(spec: str) -> bool:
    """Whether a spec names a protocol bot (``file.toml`` or ``cmd:PATH``), without reading it."""
    try:
        name = parse_spec(spec)[0]
    except BotError:  # not a spec at all: making it will say why
        return False
    return name.startswith("cmd:") or name.endswith(".toml")


def _new_bots(specs: tuple[str, ...], rules: Rules, log_dir: str | None, startup_timeout: float | None,
              warming: float | None) -> dict[str, Any]:
    bots: dict[str, Any] = {}
    try:
        for spec in dict.fromkeys(specs):
            if _is_protocol(spec):
                with command_startup(startup_timeout):  # its hello's limit, unless its bot file sets one
                    bots[spec] = make_bot_for(spec, rules, log_dir)
            elif warming is None:
                bots[spec] = make_bot_for(spec, rules, log_dir)
            else:
                with _startup_limit(spec, warming):
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


def _warm_up_one(bot: Bot) -> None:
    """One decision on a fixed hand; its answer, and any error it raises, are not used (the
    decisions judge those)."""
    try:
        bot.arrange(parse_hand(WARM_UP_HAND), np.random.default_rng(0))
    except DecisionTimeout:
        raise
    except Exception:  # noqa: S110
        pass


@contextlib.contextmanager
def _startup_limit(spec: str, seconds: float) -> Iterator[None]:
    """Raise ``StartupFault`` when the block takes longer than ``seconds``: stopped by a
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


FAULT_POLICIES = ("stop", "foul")


class DecisionFault(BotFault):
    """A bot failed a decision and the run's fault policy is to stop (the message says which)."""


def _stopping(message: str, fault: BaseException) -> DecisionFault:
    """The fault that stops a run, with the log of the bot's process that ``fault`` names."""
    stop = DecisionFault(message)
    stop.log = getattr(fault, "log", None)
    return stop


class DecisionTimeout(BotFault):
    """A decision took longer than its time limit."""


def time_limit(seconds: float | None) -> contextlib.AbstractContextManager[None]:
    """Raise ``DecisionTimeout`` in the code run inside when it takes longer than ``seconds``.

    Uses a real-time timer signal (``solver.interrupts.alarm``), so it interrupts only in a
    process's main thread (the sequential backend and process workers), and never inside a
    kernel that compiles or loads, or a callback from compiled code: there it waits until
    the code is back in Python of its own. Elsewhere the block runs to its end, and
    ``_play`` judges a decision that overran when it returns.

    Args:
        seconds: The time limit of the block, in seconds of wall time; None (or 0) for no limit.

    Returns:
        A context manager around the block; ``DecisionTimeout`` is raised inside the block.
    """
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
    log_protocol: str | None = None  # the file every line to and from protocol bots is appended to
    registered: tuple[tuple[str, Any], ...] = ()  # bots put in BOTS by the process that started the run
    tables: tuple[tuple[str, str], ...] = ()  # the tables files that process read, with their sha256 (expect_tables)
    field: FieldPlan | None = None  # score each deal's plays by the field estimator (bench.run.field)

    def __post_init__(self) -> None:
        for name in ("decision_timeout", "startup_timeout"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise TournamentError(f"{name} must be a finite number of seconds > 0, got {value!r}")
        if self.on_fault not in FAULT_POLICIES:
            raise TournamentError(f"unknown fault policy {self.on_fault!r}; choose from {', '.join(FAULT_POLICIES)}")
        if self.field is not None and self.on_fault != "stop":
            raise TournamentError("the field estimator scores every bot's play of every hand, and a fault scored as "
                                  "a foul has no play: use the fault policy 'stop' with it")


def _play(bot: Bot, spec: str, cards: tuple[Card, ...], deal: int, seat: int, settings: RunSettings,
          faulted: Faulted) -> Play:
    """One decision: the bot's arrangement of one seat's hand, checked, and its natural.

    A bot that fails (raises, answers badly, runs out of time) ends the run under the
    ``stop`` policy (``DecisionFault``), and has its hand scored as a foul under ``foul``.
    ``faulted`` names decisions already known to fail (their worker process died).

    A decision longer than the run's time limit is a fault on every backend: a timer stops
    it in a process's main thread; in other threads it is judged when it returns. A protocol
    bot is never stopped by the timer (its own deadline, the bot file's ``decision_timeout``,
    bounds the wait, and its process stays in step): it too is judged when it answers."""
    known = faulted.get((deal, spec, seat))
    if known is not None:
        return Play.failed(known, 0.0)
    seed = seat_seed(settings.entropy, deal, seat, spec)
    limit = settings.decision_timeout
    started = time.perf_counter()
    try:
        with time_limit(None if _is_protocol(spec) else limit):
            arrangement = checked_arrangement(bot, cards, np.random.default_rng(seed))
            natural = declared_natural(bot, cards, seed, settings.rules)
        if limit is not None and time.perf_counter() - started > limit:  # a thread, where no timer interrupts
            raise DecisionTimeout
    except BotGivenUp as error:  # whatever the policy: its later faults depend on how deals were shared
        raise _stopping(f"deal {deal}, seat {seat}: {error}", error) from None
    except (BotFault, DecisionTimeout) as error:
        if limit is not None and (time.perf_counter() - started > limit or isinstance(error, DecisionTimeout)
                                  or isinstance(error.__cause__, DecisionTimeout)):
            error = BotFault(f"bot '{spec}' gave no answer within the time limit of {limit:g} s "
                             f"for hand {format_cards(cards)}")
        if settings.on_fault == "stop":
            raise _stopping(f"deal {deal}, seat {seat}: {error}", error) from None
        return Play.failed(str(error), time.perf_counter() - started)
    seconds = time.perf_counter() - started
    values = arrangement.values()
    return Play.made(_canonical(arrangement), values, foul=bool(fouls(values)), seconds=seconds, natural=natural)


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
    """The (deal, bot index, seat) a worker last marked, or None.

    Args:
        path: The marker file (``play_deals``'s ``marker``), read without following a link.

    Returns:
        The decision last marked as (deal, bot index, seat); None when the file cannot be read
            or does not hold exactly one mark (24 bytes).
    """
    try:
        data = files.read_bytes(path, 24, follow=False)
    except OSError:
        return None
    return struct.unpack("<qqq", data[:24]) if len(data) >= 24 else None


def _batched_plays(bot: Bot, spec: str, deals: Sequence[int], tables: Sequence[np.ndarray],
                   settings: RunSettings) -> dict[tuple[int, int], Play] | None:
    """Every seat hand of the deals set by one ``arrange_many`` call, for a bot that says its
    batches set each hand as ``arrange`` does and use no randomness (``batch_safe``).

    The plays are those the one-by-one path makes, with each decision's seconds the batch's
    shared out. None when the batch fails in any way or overruns the time limit of all its
    decisions together: the caller then plays the hands one by one, where faults and time
    limits are judged decision by decision."""

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
    plays: dict[tuple[int, int], Play] = {}
    for i, row in enumerate(rows.tolist()):
        deal, seat = deals[i // settings.players], i % settings.players
        natural = None
        if settings.rules.naturals:
            cards = tuple(Card(c) for c in hands[i].tolist())
            seed = seat_seed(settings.entropy, deal, seat, spec)
            natural = declared_natural(bot, cards, seed, settings.rules)
        plays[deal, seat] = Play.made(format_rows((row[:3], row[3:8], row[8:])), values[i].tolist(),
                                      foul=bool(foul[i]), seconds=seconds, natural=natural)
    return plays


def play_deals(specs: Sequence[str], players: int, entropy: int, deals: Sequence[int],
               rules: Rules | str = BASIC, *, settings: RunSettings | None = None, faulted: Faulted | None = None,
               marker: str | None = None, stop: threading.Event | None = None,
               one_by_one: bool = False) -> list[DealRecord]:
    """Set every (bot, seat) hand of the given deals; one record per deal.

    A record holds the deal number, the dealer, the seat hands, and for every bot and
    seat the arrangement, its row values and whether it fouls, plus the seconds each
    decision took (kept apart from the results: timing is not reproducible).

    Bots that are ``batch_safe`` set all their hands in one call (``_batched_plays``), with
    the same records; ``one_by_one`` turns that off, so that the marker names every
    decision (a chunk replayed after its worker died), and so do decisions known to fail.

    Args:
        specs: The bot specs, in order (a record's ``plays[bot]``); unused when ``settings``
            is given.
        players: The players at a table; unused when ``settings`` is given.
        entropy: The run's seed entropy, which deals the hands and seeds each seat's bot;
            unused when ``settings`` is given.
        deals: The deal numbers to play.
        rules: The rules, by name or as ``Rules``; unused when ``settings`` is given.
        settings: Everything a worker needs (``RunSettings``), the fault policy and time limit
            among it; by default the settings of ``specs``, ``players``, ``entropy`` and
            ``rules``, with no time limit and the ``stop`` policy.
        faulted: Decisions known to kill their worker process, by (deal, bot spec, seat), with
            the fault's message: each is scored as a failed decision without being made.
        marker: A file where each decision (deal, bot index, seat) is noted before it starts
            (``read_marker`` reads it); None for none.
        stop: An event that, once set, ends the work before the next decision.
        one_by_one: Set every hand in a decision of its own, ``batch_safe`` bots' too.

    Returns:
        One ``DealRecord`` per deal, in the order of ``deals``; each with its field scores
            (``bench.run.field.scored``) when the settings name a field estimator.

    Raises:
        DecisionFault: A bot failed a decision under the ``stop`` policy, or gave up
            (``BotGivenUp``) under either policy.
        StartupFault: A bot did not start within the settings' ``startup_timeout`` (when
            decisions are timed).
        KeyboardInterrupt: ``stop`` was set.
    """

    settings = settings or RunSettings(tuple(specs), players, entropy, as_rules(rules))
    if settings.log_protocol is not None:
        trace_to(settings.log_protocol)  # in this worker too: each process appends to the one file
    register(settings.registered)  # BOTS[name] = MyBot in the process that started the run, here too
    expect_tables(dict(settings.tables))  # and the tables files it read, as it read them
    bots = make_bots(settings.specs, settings.rules, settings.log_dir,
                     settings.startup_timeout if settings.decision_timeout is not None else None)
    faulted = faulted or {}
    note = _Marker(marker)
    records: list[DealRecord] = []
    try:
        tables = [deal_table(settings.entropy, deal, settings.players) for deal in deals]
        batched: dict[str, dict[tuple[int, int], Play]] = {}  # spec -> (deal, seat) -> play
        for spec, bot in bots.items():
            if not (one_by_one or faulted) and getattr(bot, "batch_safe", False) and deals:
                if stop is not None and stop.is_set():
                    raise KeyboardInterrupt
                batch = _batched_plays(bot, spec, deals, tables, settings)
                if batch is not None:
                    batched[spec] = batch
        for deal, hands in zip(deals, tables):
            done: dict[tuple[str, int], Play] = {}  # the same spec plays the same hand the same way
            plays: list[tuple[Play, ...]] = []
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
                plays.append(tuple(done[spec, seat] for seat in range(settings.players)))
            records.append(DealRecord(deal, dealer_of(deal, settings.players),
                                      tuple(format_cards(h) for h in hands.tolist()), tuple(plays)))
    finally:
        note.close()
    return _field_scored(records, settings, stop)


def _field_scored(records: list[DealRecord], settings: RunSettings, stop: threading.Event | None) -> list[DealRecord]:
    """The records with their field scores, when the settings name a field estimator."""
    if settings.field is None:
        return records
    out = []
    for record in records:
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt
        out.append(scored(record, settings.field, settings.rules, settings.entropy))
    return out
