"""Bots in any language: a child process that speaks JSON lines (docs/protocol.md).

:class:`ProtocolBot` owns one child process: it starts it in its own process group, shakes
hands with a deadline, reads every answer with a deadline (a selector on the pipe, never a
bare blocking read), checks each answer before anyone uses it, restarts a crashed process a
bounded number of times, and ends the process and its group in :meth:`close`, as a context
manager, when it is collected, and at interpreter exit. Everything else sees a ``Bot``.

A bot enters by a TOML file (``mybot.toml``: ``name``, ``command``, and optionally ``cwd``,
``env``, ``decision_timeout``, ``startup_timeout``) or by ``cmd:PATH`` for an executable
that takes no arguments.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bots.base import BotError, BotFault
from solver import Arrangement, Card, CardError, format_cards
from solver.rules import Rules

PROTOCOL = 1
RESTARTS = 3  # a crashed bot process is started again at most this many times
LINE_LIMIT = 1 << 20  # an answer longer than this is garbage


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

    @classmethod
    def from_toml(cls, path: str | Path) -> ProtocolSpec:
        """A spec from a bot file; ``BotError`` naming the key when it is not one."""
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib  # type: ignore[no-redef]
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise BotError(f"cannot read bot file {str(path)!r}: {error.strerror}") from None
        except Exception as error:  # tomllib's error, or bytes that are not UTF-8
            raise BotError(f"cannot parse bot file {str(path)!r}: {error}") from None
        known = {"name", "command", "cwd", "env", "decision_timeout", "startup_timeout"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BotError(f"unknown key {unknown[0]!r} in bot file {str(path)!r}; keys are {', '.join(sorted(known))}")
        command = data.get("command")
        if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
            raise BotError(f"bot file {str(path)!r}: command must be a list of strings, such as [\"python3\", \"bot.py\"]")
        name = data.get("name", path.stem)
        env = data.get("env", {})
        if not isinstance(name, str) or not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise BotError(f"bot file {str(path)!r}: name must be text and env a table of text values")
        timeouts = {}
        for key in ("decision_timeout", "startup_timeout"):
            value = data.get(key, 10.0)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise BotError(f"bot file {str(path)!r}: {key} must be a number of seconds > 0, got {value!r}")
            timeouts[key] = float(value)
        cwd = data.get("cwd")
        base = path.resolve().parent
        return cls(name=name, command=tuple(command), cwd=str(base / cwd) if cwd else str(base),
                   env=tuple(sorted(env.items())), source=str(path), **timeouts)

    @classmethod
    def from_command(cls, path: str) -> ProtocolSpec:
        return cls(name=Path(path).name, command=(path,), source=f"cmd:{path}")


def file_name(name: str) -> str:
    """A bot's name as a file name in a folder: no path separators, no leading dot, at most 100 characters.

    >>> file_name("team/bot ../v1"), file_name("..")
    ('team_bot_.._v1', 'bot')
    """
    safe = re.sub(r"[^A-Za-z0-9._+-]", "_", name).lstrip(".")[:100]
    return safe or "bot"


def set_death_signal() -> None:
    """In the child, before exec: start a new session, and on Linux die with the parent."""
    os.setsid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass


class _Process:
    """One running bot process and its line-reading state."""

    def __init__(self, spec: ProtocolSpec, log: Path | None):
        env = os.environ | dict(spec.env)
        self.log = open(log, "ab") if log else subprocess.DEVNULL
        try:
            self.popen = subprocess.Popen(list(spec.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self.log, cwd=spec.cwd, env=env, preexec_fn=set_death_signal)
        except OSError as error:
            self._close_log()
            raise BotError(f"cannot start bot {spec.name!r} ({' '.join(spec.command)}): {error.strerror}") from None
        os.set_blocking(self.popen.stdout.fileno(), False)  # type: ignore[union-attr]
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.popen.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        self.buffer = b""

    def send(self, message: dict[str, Any]) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
        self.popen.stdin.flush()

    def read_line(self, timeout: float) -> bytes | None:
        """The next line, or None at the deadline; ``EOFError`` when the process closed its output."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                return None
            chunk = os.read(self.popen.stdout.fileno(), 65536)  # type: ignore[union-attr]
            if not chunk:
                raise EOFError
            self.buffer += chunk
            if len(self.buffer) > LINE_LIMIT:
                raise ValueError(f"an answer longer than {LINE_LIMIT} bytes")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def end(self) -> None:
        """Quit politely, then end the whole process group."""
        try:
            self.send({"type": "quit"})
            self.popen.stdin.close()  # type: ignore[union-attr]
        except (OSError, ValueError):
            pass
        try:
            self.popen.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.selector.close()
        self._close_log()

    def _close_log(self) -> None:
        if not isinstance(self.log, int):
            self.log.close()


class _Crashed(BotFault):
    """The bot process ended instead of answering."""


_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _end_all() -> None:
    for bot in list(_LIVE):
        bot.close()


class ProtocolBot:
    """A bot that is a child process speaking the line protocol (docs/protocol.md)."""

    def __init__(self, spec: ProtocolSpec, rules: Rules | str = "basic", log_dir: str | None = None):
        self.spec = spec
        self.name = spec.name
        self.rules = rules
        self.log = Path(log_dir) / f"{file_name(spec.name)}.stderr.log" if log_dir else None
        self.batch = False
        self.restarts = 0
        self._next_id = 0
        self._declared: dict[tuple[int, ...], bool] = {}
        self._process: _Process | None = None
        _LIVE.add(self)
        self._start()

    # --- the process -----------------------------------------------------------------------

    def _start(self) -> None:
        self._process = _Process(self.spec, self.log)
        rules = self.rules.name if isinstance(self.rules, Rules) else str(self.rules)
        try:
            answer = self._exchange({"type": "hello", "protocol": PROTOCOL, "rules": rules},
                                    self.spec.startup_timeout, "the hello")
        except BotFault as error:
            self._stop()
            raise BotError(f"protocol bot {self.spec.name!r} did not start: {error}") from None
        if answer.get("type") != "hello" or not isinstance(answer.get("name", ""), str):
            self._stop()
            raise BotError(f"protocol bot {self.spec.name!r} answered the hello with {json.dumps(answer)[:200]}")
        self.batch = answer.get("batch") is True

    def _stop(self) -> None:
        if self._process is not None:
            self._process.end()
            self._process = None

    def close(self) -> None:
        """End the bot's process and its group (idempotent)."""
        self._stop()
        _LIVE.discard(self)

    def __enter__(self) -> ProtocolBot:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # the interpreter may be shutting down
            pass

    def _exchange(self, message: dict[str, Any], timeout: float, what: str) -> dict[str, Any]:
        """Send one message and read one JSON object back, checked; ``BotFault`` otherwise."""
        process = self._process
        assert process is not None
        try:
            process.send(message)
            line = process.read_line(timeout)
        except (BrokenPipeError, EOFError, OSError):
            try:
                code = process.popen.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
            raise _Crashed(f"bot '{self.name}' exited (status {code}) instead of answering {what}") from None
        except ValueError as error:
            raise BotFault(f"bot '{self.name}' sent {error} to {what}") from None
        if line is None:
            raise BotFault(f"bot '{self.name}' gave no answer to {what} within {timeout:g} s")
        try:
            answer = json.loads(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise BotFault(f"bot '{self.name}' answered {what} with a line that is not JSON: "
                           f"{line[:200].decode('utf-8', 'replace')!r}") from None
        if not isinstance(answer, dict):
            raise BotFault(f"bot '{self.name}' answered {what} with {line[:200].decode('utf-8', 'replace')!r}, "
                           "not a JSON object")
        return answer

    def _request(self, message: dict[str, Any], what: str) -> dict[str, Any]:
        """An exchange that survives a crashed process (restarted at most ``RESTARTS`` times)
        and a hung one (ended, restarted for the next request, and a fault for this one)."""
        if self._process is None or self._process.popen.poll() is not None:
            self._restart(what)
        try:
            answer = self._exchange(message, self.spec.decision_timeout, what)
        except _Crashed:
            self._stop()
            self._restart(what)  # a fault of its own once the restarts are used up
            return self._request(message, what)
        except BaseException:  # a bad answer, or a time limit or Ctrl-C from outside mid-exchange:
            self._stop()  # a process in an unknown state is not trusted with the next request
            raise
        if answer.get("id") != message["id"]:
            raise BotFault(f"bot '{self.name}' answered {what} with id {answer.get('id')!r}, not {message['id']}: "
                           f"{json.dumps(answer)[:200]}")
        return answer

    def _restart(self, what: str) -> None:
        if self.restarts >= RESTARTS:
            raise BotFault(f"bot '{self.name}' crashed more than {RESTARTS} times; giving up at {what}")
        self.restarts += 1
        self._stop()
        self._start()

    # --- the Bot contract -----------------------------------------------------------------

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        hand = format_cards(cards)
        message = {"type": "arrange", "id": self._id(), "hand": hand}
        answer = self._request(message, f"hand {hand}")
        arrangement = self._arrangement(answer, f"hand {hand}")
        self._declared[tuple(sorted(int(c) for c in cards))] = answer.get("declare") is True
        return arrangement

    def declare(self, cards: tuple[Card, ...], rng: np.random.Generator) -> bool:
        """What the bot said with its arrangement of these cards (``"declare": true``)."""
        return self._declared.pop(tuple(sorted(int(c) for c in cards)), False)

    def _arrangement(self, answer: dict[str, Any], what: str) -> Arrangement:
        rows: list[str] = [answer.get(row) for row in ("front", "middle", "back")]  # type: ignore[misc]
        if not all(isinstance(r, str) for r in rows):
            raise BotFault(f"bot '{self.name}' answered {what} without front, middle and back: "
                           f"{json.dumps(answer)[:200]}")
        try:
            return Arrangement(*rows)
        except CardError as error:
            raise BotFault(f"bot '{self.name}' answered {what} with rows that are not an arrangement ({error}): "
                           f"{json.dumps(answer)[:200]}") from None

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Many hands in one message when the bot offered ``"batch": true``; else one by one."""
        hands = np.ascontiguousarray(hands, np.uint8)
        if not self.batch:
            return np.array([self.arrange(tuple(Card(int(c)) for c in h), rng).cards for h in hands], np.uint8)
        texts = [format_cards(h.tolist()) for h in hands]
        answer = self._request({"type": "arrange_many", "id": self._id(), "hands": texts},
                               f"a batch of {len(texts)} hands")
        arrangements = answer.get("arrangements")
        if not isinstance(arrangements, list) or len(arrangements) != len(texts):
            raise BotFault(f"bot '{self.name}' answered a batch of {len(texts)} hands with "
                           f"{json.dumps(answer)[:200]}")
        out = np.empty_like(hands)
        for i, (text, entry) in enumerate(zip(texts, arrangements)):
            if not isinstance(entry, dict):
                raise BotFault(f"bot '{self.name}' answered hand {i} of a batch with {json.dumps(entry)[:200]}")
            out[i] = self._arrangement(entry, f"hand {text}").cards
        return out


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
