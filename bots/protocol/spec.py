"""How a protocol bot is started: its bot file or ``cmd:PATH``, the program its command runs,
the folder it runs in, and its time limits.

A bot enters by a TOML file (``mybot.toml``: ``name``, ``command``, and optionally ``cwd``,
``env``, ``decision_timeout``, ``startup_timeout``) or by ``cmd:PATH`` for an executable
that takes no arguments. ``ProtocolSpec`` is what either one says, checked, with the
digest of the file the bot is made from.
"""

from __future__ import annotations

import contextlib
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
        ``/`` is looked up along ``PATH``, as the process is started), with its digest.

        Args:
            path: The PATH of ``cmd:PATH``, run without arguments; its last part is the bot's name.

        Returns:
            The spec, with the default time limits; ``program`` and ``sha256`` are None when
                no program is found or it cannot be read (starting it then says why).
        """
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
