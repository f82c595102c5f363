"""Bots in any language: a child process that speaks JSON lines (docs/protocol.md).

:class:`ProtocolBot` owns one child process at a time: it starts it in its own process
group, shakes hands under the start-up limit, writes every request and reads every answer
under a deadline (non-blocking pipes and a selector, never a bare blocking call), checks
each answer before anyone uses it, discards late answers by their id, keeps the bot's
standard error in a log of bounded size, and counts faults by kind against budgets of
their own. It ends the process and its group in :meth:`close` (``quit``, a grace period,
then a kill), as a context manager, when it is collected, and at interpreter exit.
Everything else sees a ``Bot``.

A bot enters by a TOML file (``mybot.toml``: ``name``, ``command``, and optionally ``cwd``,
``env``, ``decision_timeout``, ``startup_timeout``) or by ``cmd:PATH`` for an executable
that takes no arguments.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import itertools
import json
import os
import re
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bots.base import BotError, BotFault, BotGivenUp, takes_cards
from solver import ROWS, Arrangement, Card, CardError, files, format_cards
from solver.documents import JSONRefused, strict_json
from solver.interrupts import become_subreaper, descendants, disown, end_orphans, end_tree, start_own
from solver.limits import LIMITS, ceiling
from solver.rules import Rules, parse_toml
from solver.text import LogText, cut_utf8, tail_utf8, terminal

PROTOCOL = 2  # the newest version the bench speaks
PROTOCOLS = (1, 2)  # every version it speaks
LINE_LIMIT = int(ceiling("bot_line"))  # a line from a bot longer than this is a bad answer (solver.limits)
BATCH_HANDS = int(ceiling("bot_batch"))  # the most hands in one arrange_many message
TIMEOUT_RANGE = (LIMITS["bot_seconds"].low, ceiling("bot_seconds"))  # a bot file's decision and startup_timeout
BUDGETS = {"failed start": 3, "timeout": 5, "bad answer": 10, "crash": 5}  # faults of one kind in a row
QUIT_GRACE = 2.0  # seconds a bot has to exit after quit before its group is ended
LOG_HEAD = LOG_TAIL = 1 << 20  # bytes of a bot process's standard error kept from its start and its end
LOG_FILES = 10  # logs kept of one bot's processes: the first, and the last ones started
POLL = 0.05  # seconds between looks at whether a bot process is still running while waiting on it


@dataclass(frozen=True)
class ProtocolSpec:
    """How to start a protocol bot."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    decision_timeout: float = 10.0
    startup_timeout: float = 10.0
    source: str = ""  # the spec it came from, for messages
    sha256: str | None = None  # the digest of the bot file (or of the program of a cmd: spec)
    program: str | None = None  # the absolute path of the program the command runs (None: there is none)

    @classmethod
    def from_toml(cls, path: str | Path) -> ProtocolSpec:
        """A spec from a bot file (a regular file of UTF-8 text, a byte-order mark in front
        dropped, no bigger than ``files.SETTINGS_BYTES``); ``BotError`` naming the key when it is
        not one."""
        path = Path(path)
        where = f"bot file {str(path)!r}"
        try:
            raw = files.read_bytes(path, files.SETTINGS_BYTES)
        except OSError as error:
            raise BotError(f"cannot read {where}: {error.strerror}") from None
        try:
            data = parse_toml(raw.decode("utf-8-sig"))
        except Exception as error:  # the TOML parser's error, or bytes that are not UTF-8
            raise BotError(f"cannot parse {where}: {error}") from None
        known = {"name", "command", "cwd", "env", "decision_timeout", "startup_timeout"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BotError(f"unknown key {unknown[0]!r} in {where}; keys are {', '.join(sorted(known))}")
        command = data.get("command")
        if not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command):
            raise BotError(f"{where}: command must be a list of strings, such as [\"python3\", \"bot.py\"]")
        name = data.get("name", path.stem)
        env = data.get("env", {})
        if not isinstance(name, str) or not name.strip() or not _plain(name):
            raise BotError(f"{where}: name must be text that is not empty, {PLAIN}, got {_quote(str(name))}")
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise BotError(f"{where}: env must be a table of text values, such as {{ LEVEL = \"3\" }}")
        timeouts = {key: check_seconds(data.get(key, 10.0), f"{where}: {key}")
                    for key in ("decision_timeout", "startup_timeout")}
        cwd = data.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise BotError(f"{where}: cwd must be text, the path of a folder, got {cwd!r}")
        folder = path.resolve().parent / cwd if cwd else path.resolve().parent
        problem = _not_a_folder(folder)
        if problem:
            raise BotError(f"{where}: cwd {cwd!r} {problem}; name a folder, from the bot file's own")
        program = program_path(command[0], str(folder), os.environ | env)
        if program is None and os.path.dirname(command[0]):
            named = folder / command[0]
            with contextlib.suppress(OSError):
                mode = named.stat().st_mode
                raise BotError(f"{where}: command {command[0]!r} is {files.kind(mode)}, not a program ({named}); "
                               "name a program file")
        return cls(name=name, command=tuple(command), cwd=str(folder), env=tuple(sorted(env.items())),
                   source=str(path), sha256=hashlib.sha256(raw).hexdigest(), program=program, **timeouts)

    @classmethod
    def from_command(cls, path: str) -> ProtocolSpec:
        """A spec from ``cmd:PATH``: the program that starting PATH runs (a PATH without a
        ``/`` is looked up along ``PATH``, as the process is started), with its digest."""
        program = program_path(path)
        try:
            digest = files.digest(program) if program else None
        except OSError:
            digest = None  # it cannot start either; starting it says why
        return cls(name=Path(path).name, command=(path,), source=f"cmd:{path}", sha256=digest, program=program)

    @property
    def file(self) -> str:
        """The bot file (or the program of a ``cmd:`` spec), as an absolute path."""
        if self.source.startswith("cmd:"):
            return self.program or ""
        return str(Path(self.source).resolve()) if self.source else ""


def _not_a_folder(path: Path) -> str | None:
    """Why ``path`` (a link followed) is no folder to start a bot in, or None when it is one.

    >>> _not_a_folder(Path("/")) is None, _not_a_folder(Path("/no/such/folder"))
    (True, 'is not a folder (/no/such/folder does not exist)')
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return f"is not a folder ({path} does not exist)"
    except OSError as error:
        return f"is not a folder ({path}: {error.strerror})"
    return None if stat.S_ISDIR(mode) else f"is {files.kind(mode)}, not a folder ({path})"


def program_path(word: str, cwd: str | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """The absolute path of the program that starting ``word`` in folder ``cwd`` (None: the
    current folder) with environment ``env`` (None: this process's) runs, or None when there is
    none: a word with a ``/`` names a file from ``cwd``; any other is looked up along the
    environment's ``PATH`` (``os.defpath`` when it has none), each folder of which is read
    from ``cwd``, as ``subprocess`` does when it starts a process in ``cwd``.

    >>> program_path("sh", env={"PATH": "/no/such/folder:/bin:/usr/bin"}) in ("/bin/sh", "/usr/bin/sh")
    True
    >>> program_path("sh", env={"PATH": "/no/such/folder"}) is None
    True
    """
    folder = cwd or os.getcwd()
    if os.path.dirname(word):
        path = os.path.join(folder, word)
        return os.path.abspath(path) if os.path.isfile(path) else None
    searched = os.get_exec_path(dict(os.environ if env is None else env))
    found = shutil.which(word, path=os.pathsep.join(os.path.join(folder, entry) for entry in searched))
    return os.path.abspath(found) if found else None


def check_seconds(value: Any, what: str) -> float:
    """A time limit from a bot file: a finite number of seconds in ``TIMEOUT_RANGE``.

    >>> check_seconds(2, "decision_timeout")
    2.0
    >>> check_seconds(float("nan"), "decision_timeout")
    Traceback (most recent call last):
    ...
    bots.base.BotError: decision_timeout must be a number of seconds from 0.01 to 86400, got nan
    """
    low, high = TIMEOUT_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (low <= value <= high):
        raise BotError(f"{what} must be a number of seconds from {low:g} to {high:g}, got {value!r}")
    return float(value)


def set_death_signal() -> None:
    """In the child, before exec: start a new session, and on Linux die with the parent."""
    os.setsid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass


_ADOPTING: list[int] = []  # the process that is a child subreaper, once it has tried to be one


def _adopt_orphans() -> None:
    """Make the process that starts bots a child subreaper (Linux), once: what a bot leaves
    in a session of its own is re-parented here when its parent exits, and ended with the
    bot (``solver.interrupts.end_orphans``)."""
    if _ADOPTING != [os.getpid()]:
        _ADOPTING[:] = [os.getpid()]
        become_subreaper()


# --- a bot process's standard error ---------------------------------------------------------


_LOG_NUMBERS = itertools.count(1)


def log_name(name: str) -> str:
    """A bot name as part of a file name: letters, digits, ``.``, ``-`` and ``_`` only.

    >>> log_name("my bot/v2")
    'my_bot_v2'
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:60] or "bot"


class _StderrLog:
    """A bot process's standard error in a file of bounded size: the first ``LOG_HEAD`` bytes
    as they come, then, when the process ends, a line saying how much was left out and the
    last ``LOG_TAIL`` bytes; in UTF-8, any other byte as ``\\xNN`` (:class:`solver.text.LogText`).
    The last few KiB are also kept to quote in fault messages."""

    def __init__(self, folder: Path, name: str):
        files.make_folder(folder)
        while True:  # a file of its own, never another process's
            self.path = folder / f"{log_name(name)}.{os.getpid()}.{next(_LOG_NUMBERS)}.stderr.log"
            try:
                self.fd = files.open_write(self.path, exclusive=True)
                break
            except FileExistsError:
                continue
        self.written = 0
        self.tail = bytearray()
        self.left_out = 0
        self.recent = bytearray()
        self.text = LogText()

    def feed(self, data: bytes) -> None:
        self.recent += data
        del self.recent[:-4096]
        data = self.text.feed(data)
        room = LOG_HEAD - self.written
        if room > 0 and self.fd >= 0:
            head = cut_utf8(data, room)
            try:
                os.write(self.fd, head)
            except OSError:  # a full disk costs the log, never the run
                pass
            self.written = self.written + len(head) if len(head) == len(data) else LOG_HEAD
            data = data[len(head):]
        if data:
            self.tail += data
            if len(self.tail) > LOG_TAIL:
                self.left_out += len(self.tail) - LOG_TAIL
                del self.tail[:-LOG_TAIL]

    def last_words(self, lines: int = 6) -> str:
        """The last lines the process wrote to its standard error, quoted for a message: each
        cut at 300 characters, with what does not print made visible (:func:`solver.text.terminal`)."""
        text = self.recent.decode("utf-8", "replace").split("\n")
        kept = [terminal(line.strip()[:300]) for line in text if line.strip()][-lines:]
        return " | ".join(kept)

    def close(self) -> None:
        if self.fd < 0:
            return
        self.tail += self.text.end()
        tail = tail_utf8(bytes(self.tail), len(self.tail))
        self.left_out += len(self.tail) - len(tail)
        try:
            if self.left_out:
                os.write(self.fd, f"\n[... {self.left_out:,} bytes of standard error left out ...]\n".encode())
            if tail:
                os.write(self.fd, tail)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = -1


# --- one running process --------------------------------------------------------------------


class _Closed(BotFault):
    """The process closed its input or output (the pipe named) or exited."""

    def __init__(self, pipe: str = "output"):
        super().__init__(pipe)
        self.pipe = pipe


class _Overlong(BotFault):
    """The process wrote a line longer than ``LINE_LIMIT``."""


class _Process:
    """One running bot process: non-blocking pipes, its partial output, its standard error."""

    def __init__(self, spec: ProtocolSpec, log: _StderrLog):
        self.log = log
        problem = _not_a_folder(Path(spec.cwd)) if spec.cwd is not None else None
        if problem:
            raise BotError(f"cannot start bot {spec.name!r}: its folder {spec.cwd!r} {problem}")
        _adopt_orphans()
        try:
            self.popen = start_own(lambda: subprocess.Popen(
                list(spec.command), executable=spec.program, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=spec.cwd, env=os.environ | dict(spec.env), preexec_fn=set_death_signal))
        except OSError as error:
            raise BotError(f"cannot start bot {spec.name!r} ({' '.join(spec.command)}): "
                           f"{error.strerror or error}") from None
        self.stdin = self.popen.stdin.fileno()  # type: ignore[union-attr]
        self.stdout = self.popen.stdout.fileno()  # type: ignore[union-attr]
        self.stderr = self.popen.stderr.fileno()  # type: ignore[union-attr]
        for fd in (self.stdin, self.stdout, self.stderr):
            os.set_blocking(fd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.stderr, selectors.EVENT_READ)
        self.listening = False  # stdout registered with the selector
        self.buffer = bytearray()
        self.unfinished = 0  # bytes at the end of the buffer after its last end of line
        self.skipping = False  # inside a line longer than LINE_LIMIT, dropped up to its end
        self.overlong = False  # such a line came and is not reported yet
        self.eof = False
        self.ended = False
        self.asked: float | None = None  # when quit was sent

    def _pump(self, deadline: float, writing: bool = False) -> bool:
        """Wait until something happens or the deadline passes (at most ``POLL`` seconds),
        reading what came on both output pipes; True when stdin can take more (``writing``)
        or output arrived. Output is not read while over ``4 × LINE_LIMIT`` of it waits
        unread (a bot that floods its output waits too)."""
        listen = not self.eof and len(self.buffer) <= 4 * LINE_LIMIT
        if listen != self.listening:
            if listen:
                self.selector.register(self.stdout, selectors.EVENT_READ)
            else:
                self.selector.unregister(self.stdout)
            self.listening = listen
        if writing:
            self.selector.register(self.stdin, selectors.EVENT_WRITE)
        try:
            events = self.selector.select(max(0.0, min(deadline - time.monotonic(), POLL)))
        finally:
            if writing:
                self.selector.unregister(self.stdin)
        progress = False
        for key, _ in events:
            if key.fd == self.stdin:
                progress = True
            elif key.fd == self.stderr:
                self._drain_stderr()
            elif key.fd == self.stdout:
                progress |= self._read_stdout()
        return progress

    def _read_stdout(self) -> bool:
        try:
            chunk = os.read(self.stdout, 1 << 16)
        except BlockingIOError:
            return False
        if not chunk:
            self.eof = True
            self.selector.unregister(self.stdout)
            self.listening = False
            return True
        if self.ended:
            return True  # what a bot writes while it is ended is not read
        if self.skipping:
            end = chunk.find(b"\n")
            if end < 0:
                return True
            chunk, self.skipping, self.unfinished = chunk[end + 1:], False, 0
        self.buffer += chunk
        last = chunk.rfind(b"\n")
        self.unfinished = len(chunk) - last - 1 if last >= 0 else self.unfinished + len(chunk)
        if self.unfinished > LINE_LIMIT:  # a line over the limit and not yet ended: dropped
            del self.buffer[len(self.buffer) - self.unfinished:]
            self.skipping = self.overlong = True
            self.unfinished = 0
        return True

    def _drain_stderr(self) -> None:
        for _ in range(16):  # at most 1 MiB at a time: a flood must not hold up a deadline
            try:
                chunk = os.read(self.stderr, 1 << 16)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                self.selector.unregister(self.stderr)
                return
            self.log.feed(chunk)

    def send(self, data: bytes, deadline: float) -> bool:
        """Write all of ``data`` by the deadline; False when the bot stopped reading.
        ``_Closed`` when it closed its input or exited."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.stdin, view):]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                raise _Closed("input") from None
            if time.monotonic() >= deadline:
                return False
            self._pump(deadline, writing=True)
            if self.popen.poll() is not None:
                raise _Closed("input")
        return True

    def read_line(self, deadline: float) -> bytes | None:
        """The next line, or None at the deadline; ``_Closed`` when the process closed its
        output or exited, ``_Overlong`` for a line over ``LINE_LIMIT`` (the rest of which
        is dropped as it comes)."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return line
            if self.overlong:
                self.overlong = False
                raise _Overlong
            if self.eof:
                raise _Closed
            if time.monotonic() >= deadline:
                return None
            if not self._pump(deadline) and self.popen.poll() is not None:
                self._pump(time.monotonic())  # what it wrote just before it exited
                if b"\n" not in self.buffer:
                    raise _Closed  # it exited, though a process it left may hold the pipe open

    def partial(self) -> bytes:
        """What the process wrote after its last complete line."""
        return bytes(self.buffer[:200])

    def exit_status(self, wait: float) -> int | None:
        """The exit status, waited for up to ``wait`` seconds (reading its standard error
        meanwhile); None while it runs."""
        deadline = time.monotonic() + wait
        while self.popen.poll() is None and time.monotonic() < deadline:
            self._pump(deadline)
        self._pump(time.monotonic())
        return self.popen.returncode

    def ask_to_quit(self, grace: float) -> None:
        """Send ``quit`` (once), taking at most a second of the ``grace`` period; the grace
        period counts from here."""
        if self.asked is not None:
            return
        self.asked = time.monotonic()
        try:
            self.send(b'{"type": "quit"}\n', self.asked + min(grace, 1.0))
        except _Closed:
            pass

    def end(self, grace: float) -> None:
        """Ask the process to quit and wait up to ``grace`` seconds (0: no asking), then end
        its process group: SIGTERM, a moment, SIGKILL; then what it started in sessions of
        their own (``setsid``, a double fork), still its descendants or re-parented here."""
        if self.ended:
            return
        self.ended = True
        below = descendants(self.popen.pid)
        if grace > 0:
            self.ask_to_quit(grace)
        try:
            self.popen.stdin.close()  # type: ignore[union-attr]  # end of input means quit too
        except OSError:
            pass
        if grace > 0:
            self.exit_status(max(0.0, (self.asked or 0.0) + grace - time.monotonic()))
        for sig, wait in ((signal.SIGTERM, 0.5), (signal.SIGKILL, 5.0)):
            if sig == signal.SIGTERM and (grace <= 0 or self.popen.poll() is not None):
                continue  # SIGTERM only for a process that was asked to quit and is still running
            try:
                os.killpg(self.popen.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            self.exit_status(wait if sig == signal.SIGTERM else 0.0)
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        end_tree(below)
        if self.popen.returncode is not None:
            disown(self.popen.pid)
        end_orphans()
        self._pump(time.monotonic())
        self.selector.close()
        for stream in (self.popen.stdout, self.popen.stderr):
            if stream is not None:
                stream.close()
        self.log.close()


# --- faults, by kind ------------------------------------------------------------------------


class ProtocolFault(BotFault):
    """A protocol bot failed one request; ``kind`` names its budget (``BUDGETS``)."""

    kind = ""


class _Timeout(ProtocolFault):
    kind = "timeout"

    def __init__(self, message: str, keep: bool):
        super().__init__(message)
        self.keep = keep  # the process may still be in step (it read the whole request)


class _BadAnswer(ProtocolFault):
    kind = "bad answer"

    def __init__(self, message: str, keep: bool = True):
        super().__init__(message)
        self.keep = keep  # the process may go on (it is not in the middle of a line)


class _Crash(ProtocolFault):
    kind = "crash"


class _StartFailed(ProtocolFault):
    kind = "failed start"


_PLURALS = {"failed start": "failed starts", "timeout": "timeouts", "bad answer": "bad answers", "crash": "crashes"}

_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _end_all() -> None:
    close_together(list(_LIVE))


def close_together(bots: list) -> None:
    """Close bots that end at the same time with one grace period for them all: each protocol
    bot is asked to quit first, then each is waited for what is left of its grace period."""
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


PLAIN = "one line of at most 100 printable characters without '|'"  # a name fit for tables and reports


def _plain(text: str) -> bool:
    """Whether ``text`` can name a bot in a table: see ``PLAIN``."""
    return len(text) <= 100 and text.isprintable() and "|" not in text


def _quote(data: bytes | str, limit: int = 200) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


def _answer_quote(answer: dict[str, Any]) -> str:
    """An answer quoted without its id: ids count the requests of one process, so a fault's
    words, which the records keep, must not depend on how many came before it."""
    return _quote(json.dumps({key: value for key, value in answer.items() if key != "id"}))


class ProtocolBot:
    """A bot that is a child process speaking the line protocol (docs/protocol.md)."""

    def __init__(self, spec: ProtocolSpec, rules: Rules | str = "basic", log_dir: str | None = None):
        self.spec = spec
        self.name = spec.name
        self.rules = rules
        self._rules_name = rules.name if isinstance(rules, Rules) else str(rules)
        self.log_dir = Path(log_dir) if log_dir else None
        self._temporary: str | None = None  # the log folder made when none was given
        self.logs: list[Path] = []  # one standard-error log per process started
        self.batch = 0  # the most hands the bot takes in one message (0: one at a time)
        self.protocol = 1
        self.replayable = True  # its plays can be played again: its hello does not say "random": true
        self.identity: dict[str, Any] = {}
        self.faults: Counter = Counter()  # every fault, by kind
        self.stale = 0  # answers discarded because their request was already settled
        self.restarts = 0
        self.given_up: str | None = None
        self._streak: Counter = Counter()  # faults of each kind since the last good answer
        self._next_id = 0
        self._declared: dict[tuple[int, ...], bool] = {}
        self._process: _Process | None = None
        self._lock = threading.RLock()
        self._owner = os.getpid()
        _LIVE.add(self)
        try:
            self._process = self._launch()
        except _StartFailed as fault:
            self.close()
            raise BotError(f"protocol bot {spec.name!r} did not start: {fault}") from None
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

    def _words(self, process: _Process) -> str:
        words = process.log.last_words()
        return f"; its standard error ends: {words}" if words else ""

    def _launch(self) -> _Process:
        """A new process that has said hello; ``_StartFailed`` (or ``BotError`` for a bot
        that cannot be run or refuses these rules) otherwise."""
        try:
            log = _StderrLog(self._log_folder(), self.spec.name)
        except OSError as error:
            raise BotError(f"cannot write the log of bot {self.spec.name!r} in {str(self._log_folder())!r}: "
                           f"{error.strerror}") from None
        self.logs.append(log.path)
        if len(self.logs) > LOG_FILES:  # a bot restarted without end must not fill the disk
            with contextlib.suppress(OSError):
                files.remove(self.logs.pop(1), missing_ok=True)
        try:
            process = _Process(self.spec, log)
        except BaseException:
            log.close()
            raise
        try:
            answer = self._hello(process)
        except BaseException:
            process.end(0)
            raise
        return self._accept_hello(process, answer)

    def _hello(self, process: _Process) -> dict[str, Any]:
        limit = self.spec.startup_timeout
        deadline = time.monotonic() + limit
        hello = {"type": "hello", "protocol": PROTOCOL, "rules": self._rules_name}
        try:
            if not process.send((json.dumps(hello) + "\n").encode(), deadline):
                raise _StartFailed(f"it did not read the hello within {limit:g} s{self._words(process)}")
            line = process.read_line(deadline)
        except _Closed as closed:
            status = process.exit_status(1.0)
            how = f"exited (status {status})" if status is not None else f"closed its {closed.pipe}"
            raise _StartFailed(f"it {how} instead of answering the hello{self._words(process)}") from None
        except _Overlong:
            raise _StartFailed(f"it answered the hello with a line longer than {LINE_LIMIT} bytes") from None
        if line is None:
            raise _StartFailed(f"it gave no answer to the hello within {limit:g} s{self._words(process)}")
        answer = self._object(line, "the hello", _StartFailed)
        if "error" in answer:
            raise BotError(f"protocol bot {self.spec.name!r} refused to play: {_quote(str(answer['error']), 300)}")
        return answer

    def _accept_hello(self, process: _Process, answer: dict[str, Any]) -> _Process:
        def refuse(message: str) -> None:
            process.end(0)
            raise BotError(f"protocol bot {self.spec.name!r} {message}")

        if answer.get("type") != "hello":
            refuse(f"answered the hello with {_quote(json.dumps(answer))}; a hello answer has \"type\": \"hello\"")
        protocol = answer.get("protocol", 1)
        if type(protocol) is not int or protocol not in PROTOCOLS:
            refuse(f"speaks protocol {protocol!r}; this bench speaks {' and '.join(map(str, PROTOCOLS))}")
        name, version = answer.get("name", self.spec.name), answer.get("version")
        if not isinstance(name, str) or (version is not None and not isinstance(version, str)) \
                or not all(_plain(text) for text in (name, version or "")):
            refuse(f"answered the hello with {_quote(json.dumps(answer))}; name and version must be text, {PLAIN}")
        plays = answer.get("rules")
        if plays is not None:
            if not isinstance(plays, list) or not all(isinstance(r, str) for r in plays):
                refuse(f"answered the hello with rules {_quote(json.dumps(plays))}; it must be a list of rule set names")
            if self._rules_name not in plays:
                refuse(f"plays the rules {_quote(', '.join(plays), 300)[1:-1] or '(none)'}, not {self._rules_name}")
        batch = answer.get("batch", False)
        if type(batch) is bool:
            size = BATCH_HANDS if batch else 0
        elif type(batch) is int and batch >= 0:
            size = min(batch, BATCH_HANDS)
        else:
            refuse(f"answered the hello with batch {_quote(json.dumps(batch))}; it must be true, false or a number of hands")
        random = answer.get("random", False)
        if type(random) is not bool:
            refuse(f"answered the hello with random {_quote(json.dumps(random))}; it must be true or false")
        self.batch, self.protocol, self.replayable = size, protocol, not random
        self.identity = {"name": name or self.spec.name, "version": version, "protocol": protocol,
                         "file": self.spec.file, "sha256": self.spec.sha256, "program": self.spec.program,
                         "random": random}
        return process

    def _end(self, grace: float) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.end(grace)

    def ask_to_quit(self) -> None:
        """Send the bot's process ``quit`` without waiting for it to exit: :meth:`close`, after,
        waits only for what is left of its grace period (:func:`close_together`)."""
        with self._lock:
            if self._process is not None and os.getpid() == self._owner:
                self._process.ask_to_quit(QUIT_GRACE)

    def close(self) -> None:
        """Ask the bot to quit, give it ``QUIT_GRACE`` seconds, then end its process group
        (idempotent). Its logs stay in the log folder; a temporary one is removed."""
        _LIVE.discard(self)
        if os.getpid() != self._owner:  # a copy in a forked process: the bot is not its to end
            self._process = None
            return
        self._end(QUIT_GRACE)
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None

    def __enter__(self) -> ProtocolBot:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # the interpreter may be shutting down
            pass

    # --- one request -----------------------------------------------------------------------

    def _object(self, line: bytes, what: str, fault: type[ProtocolFault] = _BadAnswer) -> dict[str, Any]:
        try:
            answer = strict_json(line, "an answer")
        except JSONRefused as error:
            raise fault(f"bot '{self.name}' answered {what} with a line that is not JSON: {_quote(line)} "
                        f"({error.reason})") from None
        if not isinstance(answer, dict):
            raise fault(f"bot '{self.name}' answered {what} with {_quote(line)}, not a JSON object")
        return answer

    def _answer(self, process: _Process, message: dict[str, Any], limit: float, what: str) -> dict[str, Any]:
        """Send one request and read its answer by the deadline, discarding answers to
        earlier requests; a ``ProtocolFault`` of the right kind otherwise."""
        deadline = time.monotonic() + limit
        request, stale = message["id"], self.stale
        try:
            if not process.send((json.dumps(message) + "\n").encode(), deadline):
                raise _Timeout(f"bot '{self.name}' did not read the request for {what} within {limit:g} s",
                               keep=False)
            while True:
                line = process.read_line(deadline)
                if line is None:
                    partial, late = process.partial(), self.stale - stale
                    note = f" (it wrote {_quote(partial)} with no end of line)" if partial else ""
                    if late:
                        note += f" (it sent {late:,} answer{'s' if late > 1 else ''} to earlier requests, discarded)"
                    raise _Timeout(f"bot '{self.name}' gave no answer to {what} within {limit:g} s{note}", keep=True)
                answer = self._object(line, what)
                number = answer.get("id")
                if type(number) is int and 0 < number < request:  # a late or repeated answer
                    self.stale += 1
                    continue
                if type(number) is not int or number != request:
                    how = "an id that is not its request's" if type(number) is int else f"id {number!r}, not a whole number"
                    raise _BadAnswer(f"bot '{self.name}' answered {what} with {how}: {_answer_quote(answer)}")
                if "error" in answer:
                    raise _BadAnswer(f"bot '{self.name}' reported an error for {what}: {_quote(str(answer['error']), 300)}")
                return answer
        except _Closed as closed:
            status = process.exit_status(1.0)
            how = f"exited (status {status})" if status is not None else f"closed its {closed.pipe}"
            raise _Crash(f"bot '{self.name}' {how} instead of answering {what}{self._words(process)}") from None
        except _Overlong:
            raise _BadAnswer(f"bot '{self.name}' answered {what} with a line longer than {LINE_LIMIT} bytes",
                             keep=False) from None

    def _catch_up(self, process: _Process, request: int) -> bool:
        """After a timeout: wait up to ``decision_timeout`` for the late answer (discarded);
        True when the process is in step again."""
        deadline = time.monotonic() + self.spec.decision_timeout
        try:
            while True:
                line = process.read_line(deadline)
                if line is None:
                    return False
                try:
                    number = strict_json(line, "a late answer").get("id")
                except (JSONRefused, AttributeError):
                    continue
                if type(number) is int and number <= request:
                    self.stale += 1
                    if number == request:
                        return True
        except (_Closed, _Overlong):
            return False

    def _request(self, message: dict[str, Any], what: str, check, hands: int = 1):
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
                        raise _StartFailed(f"bot '{self.name}' could not be started again: "
                                           f"{str(error).removeprefix(f'protocol bot {self.name!r} ')}") from None
                request = self._id()
                try:
                    result = check(self._answer(self._process, {**message, "id": request}, limit, what))
                except BaseException as error:
                    if not isinstance(error, ProtocolFault):  # Ctrl-C or a time limit from outside
                        self._end(0)
                    raise
            except ProtocolFault as fault:
                self._after(fault, request)
                raise
            self._streak.clear()
            return result

    def _after(self, fault: ProtocolFault, request: int) -> None:
        """Count a fault and bring the process back in step for the next request: a late
        answer is waited for (one more ``decision_timeout``), a crashed or stuck process is
        ended and a new one started. A kind whose budget is used up gives the bot up."""
        self.faults[fault.kind] += 1
        self._streak[fault.kind] += 1
        if self._streak[fault.kind] >= BUDGETS[fault.kind]:
            self.given_up = (f"bot '{self.name}' is given up after {self._streak[fault.kind]} "
                             f"{_PLURALS[fault.kind]} in a row (its budget, docs/protocol.md); the last: {fault}")
            self._end(0)
            raise BotGivenUp(self.given_up) from None
        process = self._process
        if process is None:
            return
        try:
            if isinstance(fault, _Crash) or (isinstance(fault, _BadAnswer) and not fault.keep) or (
                    isinstance(fault, _Timeout) and not (fault.keep and self._catch_up(process, request))):
                self._end(0)
                self.restarts += 1
                try:  # at once, so that the next decision's clock does not pay for it
                    self._process = self._launch()
                except (BotError, BotFault):
                    self._process = None  # tried again at the next request, as a failed start if it fails
        except BaseException:  # Ctrl-C meanwhile: a process in an unknown state is not kept
            self._end(0)
            raise

    # --- the Bot contract -----------------------------------------------------------------

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    @takes_cards
    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        hand = format_cards(cards)
        what = f"hand {hand}"
        def check(answer: dict[str, Any]) -> tuple[bool, Arrangement]:
            declare = answer.get("declare", False)
            if type(declare) is not bool:
                raise _BadAnswer(f"bot '{self.name}' answered {what} with declare {_quote(json.dumps(declare))}; "
                                 f"it must be true or false")
            return declare, self._arrangement(answer, what)

        declare, arrangement = self._request({"type": "arrange", "hand": hand}, what, check)
        self._declared = {tuple(sorted(int(c) for c in cards)): declare}  # asked right after, if at all
        return arrangement

    @takes_cards
    def declare(self, cards: tuple[Card, ...], rng: np.random.Generator) -> bool:
        """What the bot said with its arrangement of these cards (``"declare": true``)."""
        return self._declared.pop(tuple(sorted(int(c) for c in cards)), False)

    def _arrangement(self, answer: dict[str, Any], what: str) -> Arrangement:
        rows: list[str] = [answer.get(row) for row in ROWS]  # type: ignore[misc]
        if not all(isinstance(r, str) for r in rows):
            raise _BadAnswer(f"bot '{self.name}' answered {what} without front, middle and back: "
                             f"{_answer_quote(answer)}")
        try:
            return Arrangement(*rows)
        except CardError as error:
            raise _BadAnswer(f"bot '{self.name}' answered {what} with rows that are not an arrangement ({error}): "
                             f"{_answer_quote(answer)}") from None

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Many hands, in messages of at most ``self.batch`` hands when the bot offered
        batches (each message timed as that many decisions); else one by one."""
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
        what = f"a batch of {len(texts)} hands"

        def check(answer: dict[str, Any]) -> np.ndarray:
            arrangements = answer.get("arrangements")
            if not isinstance(arrangements, list) or len(arrangements) != len(texts):
                raise _BadAnswer(f"bot '{self.name}' answered {what} with {_answer_quote(answer)}; "
                                 f"it needs \"arrangements\", a list of {len(texts)}")
            out = np.empty_like(hands)
            for i, (text, entry) in enumerate(zip(texts, arrangements)):
                if not isinstance(entry, dict):
                    raise _BadAnswer(f"bot '{self.name}' answered hand {i} of {what} with {_quote(json.dumps(entry))}")
                out[i] = self._arrangement(entry, f"hand {text}").cards
            return out

        return self._request({"type": "arrange_many", "hands": texts}, what, check, hands=len(texts))


@dataclass(frozen=True)
class ProtocolFactory:
    """Makes a :class:`ProtocolBot` from a spec; its parameters are those of the bot."""

    spec: ProtocolSpec
    __doc__: str = field(default="A bot in its own process, speaking the line protocol (docs/protocol.md).")

    def __call__(self, rules: Rules | str = "basic", log_dir: str | None = None) -> ProtocolBot:
        return ProtocolBot(self.spec, rules=rules, log_dir=log_dir)


def protocol_factory(name: str) -> ProtocolFactory | None:
    """The factory for a protocol bot spec (``file.toml`` or ``cmd:PATH``), or None for other names."""
    if name.startswith("cmd:"):
        path = name[4:]
        if not path:
            raise BotError("cmd: needs the path of an executable, as in cmd:./mybot")
        return ProtocolFactory(ProtocolSpec.from_command(path))
    if name.endswith(".toml"):
        return ProtocolFactory(ProtocolSpec.from_toml(name))
    return None
