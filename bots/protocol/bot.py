"""The protocol bot: one object that owns one bot process at a time and speaks the protocol with it.

``ProtocolBot`` starts its process (``bots.protocol.transport``), shakes hands under the
start-up limit, sends every request and reads every answer under a deadline, checks each
answer before anyone uses it (``bots.protocol.messages``), discards late answers by their
id, and counts faults by kind against budgets of their own: a fault costs its request,
and a process that crashed or fell out of step is replaced. It ends the process and its
group in ``ProtocolBot.close`` (``quit``, a grace period, then a kill), as a context
manager, when it is collected, and at interpreter exit. Everything else sees a ``Bot``.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from bots.base import BotError, BotFault, BotGivenUp, takes_cards
from bots.protocol import messages
from bots.protocol.messages import BUDGETS, PLURALS, BadAnswer, Crash, ProtocolFault, StartFailed, Timeout, quote
from bots.protocol.spec import ProtocolSpec, decision_source, startup_limit
from bots.protocol.transport import LINE_LIMIT, Closed, Overlong, Process, ProtocolTrace, StderrLog
from solver import Arrangement, Card, config, files, format_cards
from solver.rules import Rules
from solver.text import how_many

_LIVE: weakref.WeakSet[ProtocolBot] = weakref.WeakSet()
_Checked = TypeVar("_Checked")  # what a request's check makes of its answer
LATE_GRACE = 1.0  # seconds (at most one decision_timeout) a late answer is waited for when the bot is given up


_COMMAND_STARTUP: contextvars.ContextVar[float | None] = contextvars.ContextVar("command_startup", default=None)


@contextlib.contextmanager
def command_startup(seconds: float | None) -> Iterator[None]:
    """The command's start-up limit (``--startup-timeout``) for the protocol bots made inside the
    block (in this thread): each takes it for the hello of every process it starts, unless its
    bot file sets a ``startup_timeout`` of its own (``spec.startup_limit``).

    Args:
        seconds: The command's limit; None: the command gives none (the default holds).

    Returns:
        A context manager; the limit is the one before it when the block ends.
    """
    token = _COMMAND_STARTUP.set(seconds)
    try:
        yield
    finally:
        _COMMAND_STARTUP.reset(token)


@atexit.register
def end_all() -> None:
    """Close every protocol bot of this process, those still starting among them: each is
    asked to quit, and given one grace period together."""
    close_together(list(_LIVE))


def close_together(bots: Sequence[object]) -> None:
    """Close bots that end at the same time with one grace period for them all: each protocol
    bot is asked to quit first, then each is waited for what is left of its grace period.

    Args:
        bots: The bots; each one's ``ask_to_quit`` and ``close`` are called when it has them,
            and what either raises is passed over.
    """
    for bot in bots:
        asking = getattr(bot, "ask_to_quit", None)
        if callable(asking):
            try:
                asking()
            except Exception:  # ending what is already broken
                pass
    for bot in bots:
        close = getattr(bot, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                pass


_TRACE: dict[int, ProtocolTrace] = {}  # this process's trace of every line (trace_to), by process id


def trace_to(path: str | None) -> None:
    """Write every line between this process and the protocol bots it starts from now on to
    ``path`` (``--log-protocol``; ``transport.ProtocolTrace``), appended, so that the
    worker processes of a run can share the file.

    Args:
        path: The trace file; None: no more trace. The same path as now changes nothing.

    Raises:
        OSError: The file cannot be opened (``solver.files``: a link, a folder).
    """
    current = _TRACE.get(os.getpid())
    if current is not None and current.path == path:
        return
    trace = ProtocolTrace(path, fresh=False) if path else None
    if current is not None:
        current.close()
        del _TRACE[os.getpid()]
    if trace is not None:
        _TRACE[os.getpid()] = trace


class ProtocolBot:
    """A bot that is a child process speaking the line protocol (docs/protocol.md)."""

    def __init__(self, spec: ProtocolSpec, rules: Rules | str = "basic", log_dir: str | None = None,
                 startup_timeout: float | None = None):
        self.spec = spec
        # the command's start-up limit, for a bot file that sets none (spec.startup_limit); by default
        # the one of the command_startup block the bot is made in
        self.command_startup = startup_timeout if startup_timeout is not None else _COMMAND_STARTUP.get()
        self.name = spec.name
        self.rules = rules
        self._rules_name = rules.name if isinstance(rules, Rules) else str(rules)
        self.log_dir = Path(log_dir) if log_dir else None
        self._temporary: str | None = None  # the log folder made when none was given
        self._keep_logs = False  # a message named a log: it stays, even in a temporary folder
        self.logs: list[Path] = []  # one standard-error log per process started (an empty one goes when it ends)
        self.batch = 0  # the most hands the bot takes in one message (0: one at a time)
        self.protocol = 1
        self.replayable = True  # its plays can be played again: its hello does not say "random": true
        self.identity: dict[str, Any] = {}
        self.faults: Counter[str] = Counter()  # every fault, by kind
        self.stale = 0  # answers discarded because their request was already settled
        self.restarts = 0
        self.given_up: str | None = None
        self._streak: Counter[str] = Counter()  # faults of each kind since the last good answer
        self._next_id = 0
        self._declared: dict[tuple[int, ...], bool] = {}
        self._process: Process | None = None
        self._starting: Process | None = None  # a process started, not yet through its hello
        self._lock = threading.RLock()
        self._owner = os.getpid()
        _LIVE.add(self)
        try:
            self._process = self._launch()
        except StartFailed as fault:
            self.close()
            where = f"; its whole standard error: {fault.log}" if fault.log else ""
            raise BotError(f"protocol bot {spec.name!r} did not start: {fault}{where}") from None
        except BaseException:
            self.close()
            raise

    # --- the process -----------------------------------------------------------------------

    def _log_folder(self) -> Path:
        if self.log_dir is not None:
            return self.log_dir
        if self._temporary is None:
            self._temporary = tempfile.mkdtemp(prefix="bot-logs-")
        return Path(self._temporary)

    def _words(self, process: Process) -> str:
        return process.log.clause()

    def _logged(self, fault: ProtocolFault, process: Process) -> ProtocolFault:
        """``fault`` with the log of ``process`` (kept after the bot is closed) when the process
        wrote to its standard error."""
        if process.log.recent:
            fault.log = str(process.log.path)
            self._keep_logs = True
        return fault

    def _launch(self) -> Process:
        """A new process that has said hello; ``StartFailed`` (or ``BotError`` for a bot
        that cannot be run or refuses these rules) otherwise."""
        try:
            log = StderrLog(self._log_folder(), self.spec.name)
        except OSError as error:
            raise BotError(f"cannot write the log of bot {self.spec.name!r} in {str(self._log_folder())!r}: "
                           f"{error.strerror}") from None
        self.logs.append(log.path)
        if len(self.logs) > config.LOG_FILES:  # a bot restarted without end must not fill the disk
            with contextlib.suppress(OSError):
                files.remove(self.logs.pop(1), missing_ok=True)
        try:
            process = Process(self.spec, log, trace=_TRACE.get(os.getpid()))
        except BaseException:
            log.close()
            self._drop_if_empty(log)
            raise
        self._starting = process
        try:
            answer = self._hello(process)
        except BaseException as error:  # a stop (Ctrl-C) asks it to quit, as any closing does; a failed start does not
            self._finish(process, config.QUIT_GRACE if isinstance(error, KeyboardInterrupt) else 0)
            raise
        finally:
            self._starting = None
        return self._accept_hello(process, answer)

    def _finish(self, process: Process, grace: float) -> None:
        """End ``process`` (``Process.end``); its log goes if it is empty."""
        process.end(grace)
        self._drop_if_empty(process.log)

    def _drop_if_empty(self, log: StderrLog) -> None:
        """Forget a closed log the process wrote nothing to (its file is gone,
        ``StderrLog.close``; a fault never names an empty log, ``_logged``)."""
        if log.empty and log.path in self.logs:
            self.logs.remove(log.path)

    def _hello(self, process: Process) -> dict[str, Any]:
        limit, source, longer = startup_limit(self.spec, self.command_startup)
        deadline = time.monotonic() + limit
        try:
            if not process.send(messages.hello(self._rules_name), deadline):
                raise self._logged(StartFailed(f"it did not read the hello within {limit:g} s, {source}"
                                               f"{self._words(process)}"), process)
            line = process.read_line(deadline)
        except Closed as closed:
            status = process.exit_status(1.0)
            how = f"exited (status {status})" if status is not None else f"closed its {closed.pipe}"
            raise self._logged(StartFailed(f"it {how} instead of answering the hello{self._words(process)}"),
                               process) from None
        except Overlong:
            raise StartFailed(f"it answered the hello with a line longer than {LINE_LIMIT} bytes") from None
        if line is None:
            partial = process.partial()
            wrote = (f" (it wrote {quote(partial)} with no end of line)" if partial else
                     "; if it writes its hello, it must end the line with a newline and flush its standard output "
                     f"(docs/protocol.md); if it needs longer to start, {longer}")
            raise self._logged(StartFailed(f"it gave no answer to the hello within {limit:g} s, {source}{wrote}"
                                           f"{self._words(process)}"), process)
        return messages.hello_answer(line, self.spec.name)

    def _accept_hello(self, process: Process, answer: dict[str, Any]) -> Process:
        try:
            hello = messages.accept_hello(answer, self.spec.name, self._rules_name)
        except BotError:
            self._finish(process, 0)
            raise
        self.batch, self.protocol, self.replayable = hello.batch, hello.protocol, not hello.random
        self.identity = {"name": hello.name, "version": hello.version, "protocol": hello.protocol,
                         "file": self.spec.file, "sha256": self.spec.sha256, "program": self.spec.program,
                         "random": hello.random}
        return process

    def _end(self, grace: float) -> None:
        process, self._process = self._process, None
        starting, self._starting = self._starting, None
        for each in (process, starting):
            if each is not None:
                self._finish(each, grace)

    def ask_to_quit(self) -> None:
        """Send the bot's process ``quit`` without waiting for it to exit: ``close``, after,
        waits only for what is left of its grace period (``close_together``)."""
        with self._lock:
            process = self._process or self._starting
            if process is not None and os.getpid() == self._owner:
                process.ask_to_quit(config.QUIT_GRACE)

    def close(self) -> None:
        """Ask the bot to quit, give it ``config.QUIT_GRACE`` seconds, then end its process group
        (idempotent). Its logs stay in the log folder; a temporary one is removed, unless a
        fault named a log in it (``BotFault.log``)."""
        _LIVE.discard(self)
        if os.getpid() != self._owner:  # a copy in a forked process: the bot is not its to end
            self._process = None
            return
        self._end(config.QUIT_GRACE)
        if self._temporary is not None and not self._keep_logs:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None

    def __enter__(self) -> ProtocolBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # the interpreter may be shutting down
            pass

    # --- one request -----------------------------------------------------------------------

    def _answer(self, process: Process, message: dict[str, Any], limit: float, what: str,
                hands: int = 1) -> dict[str, Any]:
        """Send one request and read its answer by the deadline, discarding answers to
        earlier requests; a ``ProtocolFault`` of the right kind otherwise. A timeout names
        where its limit is set (``spec.decision_source``), and carries what a late answer
        makes of its words (``Timeout.answered``)."""
        started = time.monotonic()
        deadline = started + limit
        request, stale = message["id"], self.stale
        source = decision_source(self.spec, hands)
        try:
            if not process.send(messages.encode(message), deadline):
                raise Timeout(f"bot '{self.name}' did not read the request for {what} within {limit:g} s ({source})",
                              keep=False)
            while True:
                line = process.read_line(deadline)
                if line is None:
                    partial, late = process.partial(), self.stale - stale
                    wrote = f"; it wrote {quote(partial)} with no end of line" if partial else ""
                    earlier = f"; it sent {late:,} answer{'s' if late > 1 else ''} to earlier requests, discarded"
                    earlier = earlier if late else ""
                    raise Timeout(f"bot '{self.name}' gave no answer to {what} within {limit:g} s ({source}{wrote}"
                                  f"{earlier})", keep=True,
                                  late=(started, f"bot '{self.name}' answered {what}",
                                        f"over its limit of {limit:g} s ({source}{earlier})"))
                answer = messages.answer_to(line, request, self.name, what)
                if answer is None:  # a late or repeated answer
                    self.stale += 1
                    continue
                return answer
        except Closed as closed:
            status = process.exit_status(1.0)
            how = f"exited (status {status})" if status is not None else f"closed its {closed.pipe}"
            raise self._logged(Crash(f"bot '{self.name}' {how} instead of answering {what}{self._words(process)}"),
                               process) from None
        except Overlong:
            raise BadAnswer(f"bot '{self.name}' answered {what} with a line longer than {LINE_LIMIT} bytes",
                            keep=False) from None

    def _catch_up(self, process: Process, request: int, wait: float) -> float | None:
        """After a timeout: wait up to ``wait`` seconds for the late answer (discarded); when
        it came (``time.monotonic()``), the process being in step again, or None."""
        deadline = time.monotonic() + wait
        try:
            while True:
                line = process.read_line(deadline)
                if line is None:
                    return None
                number = messages.late_id(line)
                if number is not None and number <= request:
                    self.stale += 1
                    if number == request:
                        return time.monotonic()
        except (Closed, Overlong):
            return None

    def _request(self, message: dict[str, Any], what: str, check: Callable[[dict[str, Any]], _Checked],
                 hands: int = 1) -> _Checked:
        """One request and ``check`` of its answer, under ``hands`` decisions' time; a fault
        costs this request only, and counts against its kind's budget."""
        with self._lock:
            if self.given_up:
                raise BotGivenUp(self.given_up)
            request, limit = 0, self.spec.decision_timeout * hands
            try:
                if self._process is None:
                    self.restarts += 1
                    try:
                        self._process = self._launch()
                    except BotError as error:
                        raise StartFailed(f"bot '{self.name}' could not be started again: "
                                          f"{str(error).removeprefix(f'protocol bot {self.name!r} ')}") from None
                request = self._id()
                try:
                    result = check(self._answer(self._process, {**message, "id": request}, limit, what, hands))
                except BaseException as error:
                    if not isinstance(error, ProtocolFault):  # Ctrl-C or a time limit from outside
                        self._end(0)
                    raise
            except ProtocolFault as fault:
                told = self._after(fault, request)
                if told is fault:
                    raise
                raise told from None
            self._streak.clear()
            return result

    def _after(self, fault: ProtocolFault, request: int) -> ProtocolFault:
        """Count a fault and bring the process back in step for the next request: a late
        answer is waited for (one more ``decision_timeout``; ``LATE_GRACE`` when the fault
        uses up its budget), a crashed or stuck process is ended and a new one started. A kind
        whose budget is used up gives the bot up.

        Returns:
            The fault to raise: ``fault``, or for a late answer that came, the timeout told of
                it (``Timeout.answered``).
        """
        self.faults[fault.kind] += 1
        self._streak[fault.kind] += 1
        last = self._streak[fault.kind] >= BUDGETS[fault.kind]
        process = self._process
        in_step = False
        try:
            if isinstance(fault, Timeout) and fault.keep and process is not None:
                wait = min(LATE_GRACE, self.spec.decision_timeout) if last else self.spec.decision_timeout
                came = self._catch_up(process, request, wait)
                if came is not None:
                    fault, in_step = fault.answered(came), True
        except BaseException:  # Ctrl-C meanwhile: a process in an unknown state is not kept
            self._end(0)
            raise
        if last:
            self.given_up = (f"bot '{self.name}' is given up after {self._streak[fault.kind]} "
                             f"{PLURALS[fault.kind]} in a row (its budget, docs/protocol.md); the last: {fault}")
            self._end(0)
            given_up = BotGivenUp(self.given_up)
            given_up.log = fault.log
            raise given_up from None
        if process is None:
            return fault
        try:
            if isinstance(fault, Crash) or (isinstance(fault, BadAnswer) and not fault.keep) or (
                    isinstance(fault, Timeout) and not in_step):
                self._end(0)
                self.restarts += 1
                try:  # at once, so that the next decision's clock does not pay for it
                    self._process = self._launch()
                except (BotError, BotFault):
                    self._process = None  # tried again at the next request, as a failed start if it fails
        except BaseException:  # Ctrl-C meanwhile: a process in an unknown state is not kept
            self._end(0)
            raise
        return fault

    # --- the Bot contract -----------------------------------------------------------------

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    @takes_cards
    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        """The arrangement the bot's process answers for these cards.

        The answer is checked to hold an arrangement (``messages.declared_arrangement``);
        that it holds these cards is left to the caller (``bots.base.checked_arrangement``).
        Whether it declares a natural is kept for ``declare`` to say.

        Args:
            cards: The 13 cards dealt; as text or any sequence of cards too (``takes_cards``).
            rng: Not drawn from: a bot process draws its own randomness, if any.

        Returns:
            The arrangement.

        Raises:
            ProtocolFault: The request failed (a timeout, a bad answer, a crash or a failed
                start); it costs this request only.
            BotGivenUp: A kind of fault used up its budget, on this request or before.
        """
        hand = format_cards(cards)
        what = f"hand {hand}"
        declare, arrangement = self._request({"type": "arrange", "hand": hand}, what,
                                             lambda answer: messages.declared_arrangement(answer, self.name, what))
        self._declared = {tuple(sorted(int(c) for c in cards)): declare}  # asked right after, if at all
        return arrangement

    @takes_cards
    def declare(self, cards: tuple[Card, ...], rng: np.random.Generator) -> bool:
        """What the bot said with its arrangement of these cards (``"declare": true``).

        Args:
            cards: The 13 cards dealt; as text or any sequence of cards too (``takes_cards``).
            rng: Not drawn from.

        Returns:
            True when the answer to the last ``arrange``, if it was of these cards, declared
                a natural; False otherwise, and when asked a second time.
        """
        return self._declared.pop(tuple(sorted(int(c) for c in cards)), False)

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Many hands, in messages of at most ``self.batch`` hands when the bot offered
        batches (each message timed as that many decisions); else one by one.

        Args:
            hands: The hands, ``(n, 13)`` card ids.
            rng: Not drawn from.

        Returns:
            The hands ``(n, 13)``, each row reordered front | middle | back.

        Raises:
            ProtocolFault: A request failed; the hands after it are not asked for.
            BotGivenUp: A kind of fault used up its budget.
        """
        hands = np.ascontiguousarray(hands, np.uint8)
        if not self.batch:
            return np.array([self.arrange(tuple(Card(int(c)) for c in h), rng).cards for h in hands],
                            np.uint8).reshape(hands.shape)
        out = np.empty_like(hands)
        for start in range(0, len(hands), self.batch):
            out[start:start + self.batch] = self._batch(hands[start:start + self.batch])
        return out

    def _batch(self, hands: np.ndarray) -> np.ndarray:
        texts = [format_cards(h.tolist()) for h in hands]
        what = f"a batch of {how_many(len(texts), 'hand')}"

        def check(answer: dict[str, Any]) -> np.ndarray:
            return messages.arrangements_of(answer, hands, texts, self.name, what)

        return self._request({"type": "arrange_many", "hands": texts}, what, check, hands=len(texts))


@dataclass(frozen=True)
class ProtocolFactory:
    """Makes a ``ProtocolBot`` from a spec; its parameters are those of the bot."""

    spec: ProtocolSpec
    __doc__: str = field(default="A bot in its own process, speaking the line protocol (docs/protocol.md).")

    def __call__(self, rules: Rules | str = "basic", log_dir: str | None = None,
                 startup_timeout: float | None = None) -> ProtocolBot:
        return ProtocolBot(self.spec, rules=rules, log_dir=log_dir, startup_timeout=startup_timeout)


def protocol_factory(name: str) -> ProtocolFactory | None:
    """The factory for a protocol bot spec (``file.toml`` or ``cmd:PATH``), or None for other names.

    Args:
        name: The name part of a bot spec.

    Returns:
        The factory, with the bot file or command read and checked; None when ``name``
            neither starts with ``cmd:`` nor ends with ``.toml``.

    Raises:
        BotError: ``cmd:`` without a path, or a bot file that cannot be read or is not valid
            (``ProtocolSpec.from_toml``).
    """
    if name.startswith("cmd:"):
        path = name[4:]
        if not path:
            raise BotError("cmd: needs the path of an executable, as in cmd:./mybot")
        return ProtocolFactory(ProtocolSpec.from_command(path))
    if name.endswith(".toml"):
        return ProtocolFactory(ProtocolSpec.from_toml(name))
    return None
