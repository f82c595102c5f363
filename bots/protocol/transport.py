"""The transport of a protocol bot: one child process, its pipes and its standard error.

``Process`` starts a bot's command in a session (and process group) of its own that
dies with the process that started it (``set_death_signal``), writes to its standard
input and reads lines from its standard output under a deadline (non-blocking pipes and a
selector, never a bare blocking call), keeps its standard error in a log of bounded size
(``StderrLog``), and ends it, its group and whatever it left in sessions of its own.
It knows nothing of what the lines say (``bots.protocol.messages``); the bot class
(``bots.protocol.bot``) joins the two, as fastchess's engine class joins its process to
the protocol its engine speaks.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from bots.base import BotError, BotFault
from bots.protocol.guard import GUARD_OF_THIS_PROCESS
from bots.protocol.spec import ProtocolSpec, cannot_start, not_a_folder
from solver import config, files
from solver.interrupts import become_subreaper, descendants, disown, end_orphans, end_tree, start_own
from solver.limits import ceiling
from solver.text import LogText, cut_utf8, tail_utf8, terminal

LINE_LIMIT = int(ceiling("bot_line"))  # a line from a bot longer than this is a bad answer (solver.limits)


def set_death_signal() -> None:
    """In the child, before exec: start a new session, and on Linux die with the parent."""
    os.setsid()
    if sys.platform.startswith("linux"):
        try:
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

    Args:
        name: The bot's name.

    Returns:
        The name with each run of other characters as one ``_``, without ``.`` or ``_`` at
            either end, cut at 60 characters; ``"bot"`` when nothing is left.

    Examples:
        >>> log_name("my bot/v2")
        'my_bot_v2'
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:60] or "bot"


class StderrLog:
    """A bot process's standard error in a file of bounded size: the first ``config.LOG_HEAD`` bytes
    as they come, then, when the process ends, a line saying how much was left out and the
    last ``config.LOG_TAIL`` bytes; in UTF-8, any other byte as ``\\xNN`` (``solver.text.LogText``).
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
        """Take what the process wrote next: into the file while its first ``config.LOG_HEAD``
        bytes last, then into the tail written at ``close``; the last 4 KiB are also kept.

        Args:
            data: The bytes read from the process's standard error.
        """
        self.recent += data
        del self.recent[:-4096]
        data = self.text.feed(data)
        room = config.LOG_HEAD - self.written
        if room > 0 and self.fd >= 0:
            head = cut_utf8(data, room)
            try:
                os.write(self.fd, head)
            except OSError:  # a full disk costs the log, never the run
                pass
            self.written = self.written + len(head) if len(head) == len(data) else config.LOG_HEAD
            data = data[len(head):]
        if data:
            self.tail += data
            if len(self.tail) > config.LOG_TAIL:
                self.left_out += len(self.tail) - config.LOG_TAIL
                del self.tail[:-config.LOG_TAIL]

    def error_line(self) -> str | None:
        """The error the process reported on its standard error, with where it was raised
        (the module's ``error_line``), quoted for a message.

        Returns:
            The error line of the last 4 KiB, cut at 300 characters with what does not print
                made visible; None when none is recognised.
        """
        found = error_line(self.recent.decode("utf-8", "replace"))
        return terminal(found[:300]) if found else None

    def clause(self) -> str:
        """What the process said on its standard error, as the end of a fault's message.

        Returns:
            ``"; its standard error says: ..."`` with the error it reported (``error_line``),
                else ``"; its standard error ends: ..."`` with its last lines (``last_words``);
                empty when it said nothing.
        """
        said = self.error_line()
        if said:
            return f"; its standard error says: {said}"
        words = self.last_words()
        return f"; its standard error ends: {words}" if words else ""

    def last_words(self, lines: int = 6) -> str:
        """The last lines the process wrote to its standard error, quoted for a message.

        Args:
            lines: How many lines, at most; blank lines are not counted.

        Returns:
            The lines of the last 4 KiB, each stripped and cut at 300 characters with what
                does not print made visible (``solver.text.terminal``), joined by ``" | "``.
        """
        text = self.recent.decode("utf-8", "replace").split("\n")
        kept = [terminal(line.strip()[:300]) for line in text if line.strip()][-lines:]
        return " | ".join(kept)

    @property
    def empty(self) -> bool:
        """Whether the process has written nothing to its standard error (yet)."""
        return not self.recent

    def close(self) -> None:
        """Finish the file, once: a line saying how many bytes were left out, if any, then the
        last ``config.LOG_TAIL`` bytes; a write that fails is passed over. A file the process
        wrote nothing to is removed: there is nothing in it to read, and no fault names it."""
        if self.fd < 0:
            return
        if self.empty:
            os.close(self.fd)
            self.fd = -1
            with contextlib.suppress(OSError):
                files.remove(self.path, missing_ok=True)
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


# The line that states an error, as runtimes print it: an exception's name and message
# (Python's "ValueError: ...", JavaScript's "TypeError: ...", Java's "Exception in thread
# "main" java.lang.X: ..."), a panic (Go's "panic: ...", Rust's "thread 'main' panicked at"),
# or an "error:"/"fatal error:" line (a C program's "prog: error: ...").
_ERROR = re.compile(r"^(?:Uncaught |Exception in thread \"[^\"]*\" )?(?:[A-Za-z_$][\w.$]*(?:Error|Exception|Interrupt)\b.*"
                    r"|panic: .*|thread '[^']*' panicked at .*|(?:[\w./-]+: )?(?:fatal )?error(?:\[\w+\])?: .*)$",
                    re.IGNORECASE)
_TRACEBACK = "Traceback (most recent call last):"
_PYTHON_FRAME = re.compile(r'^File "(?P<file>[^"]+)", line (?P<line>\d+)')
_LIBRARY = re.compile(r"[/\\](?:lib[/\\]python[\d.]*|site-packages|dist-packages)[/\\]|^<frozen ")
_FILE_LINE = re.compile(r"(?P<file>(?:[A-Za-z]:)?[\w./\\@-]*\.[A-Za-z]\w{0,4}):(?P<line>\d+)")


def error_line(text: str) -> str | None:
    """The line of ``text`` (a process's standard error) that states the error that ended it,
    with the file and line where it was raised when the text says: in a Python traceback (the
    last one, when one exception led to another), its error line and its innermost frame of
    code that is not Python's or an installed package's; elsewhere the first line that states
    an error, with the next line when that one ends in a colon (Rust puts the message there),
    and the first ``FILE:LINE`` of the text (JavaScript prints it first, Go, Rust and Java in
    the stack below).

    Args:
        text: What a process wrote to its standard error.

    Returns:
        The error line, followed by ``(at FILE:LINE)`` when the place is known and the
            line does not name it already; None when no line states an error.

    Examples:
        >>> error_line('Traceback (most recent call last):\\n  File "bot.py", line 9, in <module>\\n'
        ...            '    play()\\n  File "bot.py", line 4, in play\\n    1 / 0\\nZeroDivisionError: division by zero\\n')
        'ZeroDivisionError: division by zero (at bot.py:4)'
        >>> error_line("/home/me/bot.js:12\\n  hand.rows()\\n       ^\\n\\nTypeError: hand.rows is not a function\\n"
        ...            "    at Interface.<anonymous> (/home/me/bot.js:12:8)\\n")
        'TypeError: hand.rows is not a function (at /home/me/bot.js:12)'
        >>> error_line("loading weights\\n") is None
        True
    """
    lines = [line.strip() for line in text.splitlines()]
    start = max((i for i, line in enumerate(lines) if line == _TRACEBACK), default=0)
    for index in range(start, len(lines)):
        line = lines[index]
        if not _ERROR.match(line):
            continue
        if line.endswith(":") and index + 1 < len(lines) and lines[index + 1]:
            line = f"{line} {lines[index + 1]}"
        frames = [m for m in map(_PYTHON_FRAME.match, lines[start:index]) if m]
        own = [m for m in frames if not _LIBRARY.search(m["file"])]
        place = (own or frames)[-1] if frames else _FILE_LINE.search(line) or next(
            (m for m in map(_FILE_LINE.search, lines) if m), None)
        where = f"{place['file']}:{place['line']}" if place else None
        return f"{line} (at {where})" if where and where not in line else line
    return None


# --- the lines between the bench and its bots -------------------------------------------------


SENT, RECEIVED = "→", "←"  # bench to bot, bot to bench (docs/protocol.md writes them so)


class ProtocolTrace:
    """``--log-protocol FILE``: every line the bench sends a protocol bot and every line it
    receives, one per line of FILE, as it goes: the time (UTC, to the microsecond), the bot's
    name and process id, ``→`` for a line sent or ``←`` for one received, and the line as
    ``solver.text.terminal`` writes text (what does not print made visible, a byte that
    is not UTF-8 as ``\\xNN``). Each line is one write to a file opened for appending, so the
    processes of a run can share one file. ``fresh`` empties the file first."""

    def __init__(self, path: str | Path, *, fresh: bool):
        self.path = str(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if fresh else 0)
        self.fd = files.open_regular(path, flags, follow=False, single=True)

    def write(self, name: str, pid: int, direction: str, data: bytes) -> None:
        """Append one line of the trace, in one write; a write that fails is passed over.

        Args:
            name: The bot's name.
            pid: The bot process's id.
            direction: ``SENT`` (``→``) or ``RECEIVED`` (``←``).
            data: The line; a newline at its end is dropped.
        """
        when = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        text = terminal(data.rstrip(b"\n").decode("utf-8", "backslashreplace"))
        try:
            os.write(self.fd, f"{when} {terminal(name)} {pid} {direction} {text}\n".encode())
        except OSError:  # a full disk costs the trace, never the run
            pass

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


# --- one running process --------------------------------------------------------------------


class Closed(BotFault):
    """The process closed its input or output (the pipe named) or exited."""

    def __init__(self, pipe: str = "output"):
        super().__init__(pipe)
        self.pipe = pipe


class Overlong(BotFault):
    """The process wrote a line longer than ``LINE_LIMIT``."""


class Process:
    """One running bot process: non-blocking pipes, its partial output, its standard error."""

    def __init__(self, spec: ProtocolSpec, log: StderrLog, trace: ProtocolTrace | None = None):
        self.log = log
        self.name = spec.name
        self.trace = trace  # sees each line sent and received, as it goes
        problem = not_a_folder(Path(spec.cwd)) if spec.cwd is not None else None
        if problem:
            raise BotError(f"cannot start bot {spec.name!r}: its folder {spec.cwd!r} {problem}")
        _adopt_orphans()
        environment = os.environ | dict(spec.env) | GUARD_OF_THIS_PROCESS.mark()  # starts the guard first
        try:
            self.popen = start_own(lambda: subprocess.Popen(
                list(spec.command), executable=spec.program, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=spec.cwd, env=environment, preexec_fn=set_death_signal))
        except OSError as error:
            raise BotError(cannot_start(spec, error)) from None
        GUARD_OF_THIS_PROCESS.watch(self.popen.pid)  # its group is ended even if this process is killed
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
        """Wait until something happens or the deadline passes (at most ``config.BOT_POLL_SECONDS`` seconds),
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
            events = self.selector.select(max(0.0, min(deadline - time.monotonic(), config.BOT_POLL_SECONDS)))
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
        """Write all of ``data`` by the deadline, reading the process's output meanwhile.

        Args:
            data: The bytes to write, a whole line.
            deadline: The ``time.monotonic()`` by which all must be written.

        Returns:
            True when all was written (and traced); False when the deadline passed first
                (the bot stopped reading).

        Raises:
            Closed: The process closed its input or exited.
        """
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.stdin, view):]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                raise Closed("input") from None
            if time.monotonic() >= deadline:
                return False
            self._pump(deadline, writing=True)
            if self.popen.poll() is not None:
                raise Closed("input")
        if self.trace is not None:
            self.trace.write(self.name, self.popen.pid, SENT, data)
        return True

    def read_line(self, deadline: float) -> bytes | None:
        """The next line the process wrote, read by the deadline.

        Args:
            deadline: The ``time.monotonic()`` to wait until, at most.

        Returns:
            The line without its newline (traced), or None at the deadline.

        Raises:
            Closed: The process closed its output or exited.
            Overlong: A line is over ``LINE_LIMIT`` (the rest of it is dropped as it comes).
        """
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                if self.trace is not None:
                    self.trace.write(self.name, self.popen.pid, RECEIVED, line)
                return line
            if self.overlong:
                self.overlong = False
                raise Overlong
            if self.eof:
                raise Closed
            if time.monotonic() >= deadline:
                return None
            if not self._pump(deadline) and self.popen.poll() is not None:
                self._pump(time.monotonic())  # what it wrote just before it exited
                if b"\n" not in self.buffer:
                    raise Closed  # it exited, though a process it left may hold the pipe open

    def partial(self) -> bytes:
        """What the process wrote after its last complete line.

        Returns:
            The first 200 bytes of the output not yet read as lines: after ``read_line``
                gave None, the start of the line the process has not ended.
        """
        return bytes(self.buffer[:200])

    def exit_status(self, wait: float) -> int | None:
        """The exit status, waited for while the process's output is read.

        Args:
            wait: The most seconds to wait for the process to exit.

        Returns:
            The exit status (``-N``: ended by signal N); None while it runs.
        """
        deadline = time.monotonic() + wait
        while self.popen.poll() is None and time.monotonic() < deadline:
            self._pump(deadline)
        self._pump(time.monotonic())
        return self.popen.returncode

    def ask_to_quit(self, grace: float) -> None:
        """Send ``quit`` (once), taking at most a second of the ``grace`` period; the grace
        period counts from here.

        Args:
            grace: The seconds the process is given to exit after ``quit``.
        """
        if self.asked is not None:
            return
        self.asked = time.monotonic()
        try:
            self.send(b'{"type": "quit"}\n', self.asked + min(grace, 1.0))
        except Closed:
            pass

    def end(self, grace: float) -> None:
        """End the process (once): ask it to quit and wait, then end its process group:
        SIGTERM, a moment, SIGKILL; then what it started in sessions of their own
        (``setsid``, a double fork), still its descendants or re-parented here. Its pipes
        and its log are closed.

        Args:
            grace: The seconds it is given to exit after ``quit`` (counted from when it was
                asked, if it was already); 0: it is not asked, nor sent SIGTERM.
        """
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
        GUARD_OF_THIS_PROCESS.forget(self.popen.pid)
        self._pump(time.monotonic())
        self.selector.close()
        for stream in (self.popen.stdout, self.popen.stderr):
            if stream is not None:
                stream.close()
        self.log.close()
