"""How a protocol bot is started: its bot file or ``cmd:PATH``, the program its command runs,
the folder it runs in, and its time limits.

A bot enters by a TOML file (``mybot.toml``: ``name``, ``command``, and optionally ``cwd``,
``env``, ``decision_timeout``, ``startup_timeout``) or by ``cmd:PATH`` for an executable
that takes no arguments. ``ProtocolSpec`` is what either one says, checked, with the
digest of the file the bot is made from; ``startup_limit`` and ``decision_source`` say which
time limit holds and where it is set, ``cannot_start`` why a command did not start.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.base import BotError
from bots.protocol.messages import PLAIN, plain, quote
from solver import config, files
from solver.limits import LIMITS, ceiling
from solver.rules import parse_toml

TIMEOUT_RANGE = (LIMITS["bot_seconds"].low, ceiling("bot_seconds"))  # a bot file's decision and startup_timeout


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
    from_file: tuple[str, ...] = ()  # the time limits its bot file sets ("decision_timeout", "startup_timeout")

    @classmethod
    def from_toml(cls, path: str | Path) -> ProtocolSpec:
        """A spec from a bot file: a regular file of UTF-8 text (a byte-order mark in front
        dropped), no bigger than ``config.SETTINGS_BYTES``.

        The bot runs in its ``cwd``, read from the bot file's folder (by default that folder),
        and its name is the file's stem unless the file gives one.

        Args:
            path: The bot file (``mybot.toml``).

        Returns:
            The spec, with the sha256 of the file and the absolute path of the program its
                command runs (``program_path``; None when none is found).

        Raises:
            BotError: The file cannot be read or parsed, has an unknown key, or a key's value
                is not valid (the message names the key); its ``cwd`` is no folder; or the
                first word of ``command``, a path, names something other than a regular file
                (a folder).
        """
        path = Path(path)
        where = f"bot file {str(path)!r}"
        try:
            raw = files.read_bytes(path, config.SETTINGS_BYTES)
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
        if not isinstance(name, str) or not name.strip() or not plain(name):
            raise BotError(f"{where}: name must be text that is not empty, {PLAIN}, got {quote(str(name))}")
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise BotError(f"{where}: env must be a table of text values, such as {{ LEVEL = \"3\" }}")
        timeouts = {key: check_seconds(data.get(key, 10.0), f"{where}: {key}")
                    for key in ("decision_timeout", "startup_timeout")}
        cwd = data.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise BotError(f"{where}: cwd must be text, the path of a folder, got {cwd!r}")
        folder = path.resolve().parent / cwd if cwd else path.resolve().parent
        problem = not_a_folder(folder)
        if problem:
            raise BotError(f"{where}: cwd {cwd!r} {problem}; name a folder, from the bot file's own")
        return cls(name=name, command=tuple(command), cwd=str(folder), env=tuple(sorted(env.items())),
                   source=str(path), sha256=hashlib.sha256(raw).hexdigest(),
                   program=_program_of(command[0], folder, env, where),
                   from_file=tuple(key for key in timeouts if key in data), **timeouts)

    @classmethod
    def from_command(cls, path: str) -> ProtocolSpec:
        """A spec from ``cmd:PATH``: the program that starting PATH runs (a PATH without a
        ``/`` is looked up along ``PATH``, as the process is started), with its digest.

        Args:
            path: The PATH of ``cmd:PATH``, run without arguments; its last part is the bot's name
                (PATH itself when it has none, as ``.``).

        Returns:
            The spec, with the default time limits; ``program`` and ``sha256`` are None when
                no program is found or it cannot be read (starting it then says why,
                ``cannot_start``).
        """
        program = program_path(path)
        try:
            digest = files.digest(program) if program else None
        except OSError:
            digest = None  # it cannot start either; starting it says why
        return cls(name=Path(path).name or path, command=(path,), source=f"cmd:{path}", sha256=digest,
                   program=program)

    @property
    def file(self) -> str:
        """The bot file (or the program of a ``cmd:`` spec), as an absolute path."""
        if self.source.startswith("cmd:"):
            return self.program or ""
        return str(Path(self.source).resolve()) if self.source else ""


def _program_of(word: str, folder: Path, env: dict[str, str], where: str) -> str | None:
    """The program a bot file's command runs (``program_path``); a ``BotError`` when its first
    word, a path, names something other than a regular file (a folder)."""
    program = program_path(word, str(folder), os.environ | env)
    if program is None and os.path.dirname(word):
        named = folder / word
        with contextlib.suppress(OSError):
            mode = named.stat().st_mode
            raise BotError(f"{where}: command {word!r} is {files.kind(mode)}, not a program ({named}); "
                           "name a program file")
    return program


def startup_limit(spec: ProtocolSpec, command: float | None = None) -> tuple[float, str, str]:
    """The start-up limit of a bot's process (the seconds it has to answer the hello), where it
    comes from, and what to change to give it longer: the bot file's ``startup_timeout`` when
    it sets one, else the command's ``--startup-timeout`` when it gives one (a ``cmd:`` bot
    always takes the command's), else the default (``ProtocolSpec.startup_timeout``).

    Args:
        spec: The bot's spec.
        command: The command's start-up limit; None when it gives none.

    Returns:
        The seconds, their source (``"the startup_timeout of its bot file"``) and what to raise
            (``"raise the startup_timeout of its bot file"``).

    Examples:
        >>> startup_limit(ProtocolSpec("b", ("b",), source="cmd:b"), 30.0)
        (30.0, 'the --startup-timeout of the command', 'raise the --startup-timeout of the command')
        >>> startup_limit(ProtocolSpec("b", ("b",), startup_timeout=2.0, from_file=("startup_timeout",)), 30.0)[:2]
        (2.0, 'the startup_timeout of its bot file')
    """
    if "startup_timeout" in spec.from_file:
        return spec.startup_timeout, "the startup_timeout of its bot file", "raise the startup_timeout of its bot file"
    if command is not None:
        return command, "the --startup-timeout of the command", "raise the --startup-timeout of the command"
    if spec.source.startswith("cmd:"):
        return (spec.startup_timeout, "the default startup_timeout of a cmd: bot",
                "enter it by a bot file that sets startup_timeout, or give the command a --startup-timeout")
    return spec.startup_timeout, "the default startup_timeout", "set startup_timeout in its bot file"


def decision_source(spec: ProtocolSpec, hands: int = 1) -> str:
    """Where the time limit of a request for ``hands`` hands comes from, for a message.

    Args:
        spec: The bot's spec.
        hands: The hands of the request (a batch is timed as that many decisions).

    Returns:
        ``"decision_timeout in its bot file"`` or ``"the default decision_timeout"``; for a batch,
            with the number of hands and one decision's seconds.

    Examples:
        >>> decision_source(ProtocolSpec("b", ("b",), decision_timeout=0.5), 4)
        '4 hands × the default decision_timeout of 0.5 s'
    """
    if "decision_timeout" in spec.from_file:
        return ("decision_timeout in its bot file" if hands == 1 else
                f"{hands} hands × decision_timeout {spec.decision_timeout:g} s in its bot file")
    return ("the default decision_timeout" if hands == 1 else
            f"{hands} hands × the default decision_timeout of {spec.decision_timeout:g} s")


def cannot_start(spec: ProtocolSpec, error: OSError) -> str:
    """Why the bot's command did not start, in one line with what to change: a folder named as
    the program; for ``cmd:``, arguments after the program; a name without a ``/`` that is a
    file in the bot's folder but not on ``PATH``; a program without a ``#!`` line (``Exec
    format error``), one that is not executable (``Permission denied``), or whose ``#!`` line
    names an interpreter that is not there.

    Args:
        spec: The bot's spec.
        error: What starting its command raised.

    Returns:
        ``"cannot start bot 'NAME' (COMMAND): ..."``: the system's words and a hint, when one
            fits.
    """
    word, folder = spec.command[0], spec.cwd or os.getcwd()
    named = os.path.join(folder, word)
    start = f"cannot start bot {spec.name!r} ({' '.join(spec.command)})"
    if (os.path.dirname(word) or word in (".", "..")) and os.path.isdir(named):
        return f"{start}: it is a folder, not a program: name the program file"
    hint = _start_hint(spec, word, spec.program or named, error)
    return f"{start}: {error.strerror or error}" + (f"; {hint}" if hint else "")


def _start_hint(spec: ProtocolSpec, word: str, path: str, error: OSError) -> str | None:
    """What to change when ``word`` (at ``path``) did not start with ``error``; None when no hint fits."""
    cmd = spec.source.startswith("cmd:")
    if error.errno == errno.ENOENT:
        if cmd and any(c.isspace() for c in word) and not os.path.exists(path):
            return ("cmd: takes one program without arguments: for arguments, enter the bot by a bot file whose "
                    "command lists them")
        if not os.path.dirname(word) and os.path.isfile(os.path.join(spec.cwd or os.getcwd(), word)):
            meant = f"cmd:./{word}" if cmd else f'"./{word}"'
            return f"a name without a '/' is looked up on PATH: did you mean {meant}?"
        interpreter = _interpreter(path)
        if interpreter is not None:
            return f"its #! line names {interpreter!r}, which is not there"
    elif error.errno == errno.ENOEXEC:
        return "the system cannot run it as a program: make its first line a #! line, such as #!/usr/bin/env python3"
    elif error.errno == errno.EACCES and os.path.isfile(path) and not os.access(path, os.X_OK):
        return f"it is not executable: chmod +x {path}"
    return None


def _interpreter(path: str) -> str | None:
    """The program the ``#!`` line of the file at ``path`` names; None without one."""
    try:
        with open(path, "rb") as file:
            first = file.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    return words[0] if words else None


def not_a_folder(path: Path) -> str | None:
    """Why ``path`` (a link followed) is no folder to start a bot in, or None when it is one.

    Args:
        path: The folder.

    Returns:
        The reason, as the end of a sentence (``"is not a folder (... does not exist)"``), or None.

    Examples:
        >>> not_a_folder(Path("/")) is None, not_a_folder(Path("/no/such/folder"))
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
    """The absolute path of the program that starting ``word`` in folder ``cwd`` with
    environment ``env`` runs.

    A word with a ``/`` names a file from ``cwd``; any other is looked up along the
    environment's ``PATH`` (``os.defpath`` when it has none), each folder of which is read
    from ``cwd``, as ``subprocess`` does when it starts a process in ``cwd``.

    Args:
        word: The first word of the command.
        cwd: The folder the process starts in; None: the current folder.
        env: The process's environment; None: this process's.

    Returns:
        The absolute path, or None when there is no such program (for a word with a ``/``:
            no such regular file).

    Examples:
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

    Args:
        value: The value as read from the file.
        what: What the value is, for the message (``"bot file 'x.toml': decision_timeout"``).

    Returns:
        The seconds, as a float.

    Raises:
        BotError: ``value`` is not a number (a bool is not), or is outside ``TIMEOUT_RANGE``.

    Examples:
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
