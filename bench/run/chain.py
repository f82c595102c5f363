"""Chained JSON lines: the file format of every journal of a long run.

A chained file is one JSON object a line: a header, then entries. Every line carries the
run's id (``run``), its sequence number (``seq``, 0 for the header) and ``check``: the sha256
of the line before's check and the line's own canonical JSON, so that a line changed, removed,
repeated or brought from another file breaks the chain where it stands. Each line is written
whole and synced before the next, and a write that fails is undone. Reading it back checks
every line against its schema, the run id, the sequence and the check, and refuses a file
that fails any of it; only a last line cut short by a crash (not JSON) is dropped, so that
its work is done again.

The tournament's journal (``bench.run.journal``) and the exploitability journal
(``bench.analysis.exploit_journal``) are both chained files; each adds the checks of its own
entries.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "chain.jsonl"
>>> chain = ChainFile.create(path, {"document": "header", "note": "hello"})
>>> chain.append({"document": "entry", "n": 1})["seq"]
1
>>> chain.close()
>>> lines, dropped = parse_lines(path)
>>> header, entries = verified(path, lines, lambda line: None, lambda line: None)
>>> header["note"], [e["n"] for e in entries], dropped
('hello', [1], False)
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from solver import files
from solver.documents import JSONRefused, strict_json
from solver.errors import InputError


class ChainError(InputError, ValueError):
    """A file that is not a chained file of this kind, that fails its checks, or that cannot be written."""


def canonical(value: Mapping[str, object]) -> bytes:
    """A line's canonical JSON: keys sorted, no spaces, no NaN.

    Args:
        value: The line.

    Returns:
        Its UTF-8 bytes, without a newline.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def line_check(value: Mapping[str, object], previous: str) -> str:
    """The check of a line: sha256 of the previous line's check and the line's canonical JSON.

    Args:
        value: The line; its own ``check``, if it holds one, is left out.
        previous: The previous line's check; ``""`` for the header.

    Returns:
        The hex sha256 of ``previous``, a newline and the line's canonical JSON (keys sorted,
            no spaces) without its own ``check``.
    """
    body = {k: v for k, v in value.items() if k != "check"}
    return hashlib.sha256(previous.encode("ascii") + b"\n" + canonical(body)).hexdigest()


def ends_a_line(path: Path) -> bool:
    """Whether the file ends with a newline (an empty or unreadable file does not).

    Args:
        path: The file.

    Returns:
        True when its last byte is a newline.
    """
    try:
        with files.open_input(path, None, follow=False) as file:
            file.seek(0, os.SEEK_END)
            if file.tell() == 0:
                return False
            file.seek(-1, os.SEEK_END)
            return file.read(1) == b"\n"
    except OSError:
        return False


def parse_lines(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """The lines of a chained file as JSON objects, before any check of what they hold.

    The file is a regular file of its folder, never read through a link (``solver.files``).

    Args:
        path: The file.

    Returns:
        The lines, and whether a last line cut short by a crash (not a JSON object, after the
            first line) was dropped.

    Raises:
        ChainError: The file cannot be read, or a line other than a cut last one is not a JSON
            object.
    """
    try:
        lines = files.read_bytes(path, files.DOCUMENT_BYTES, follow=False).split(b"\n")
    except OSError as error:
        raise ChainError(f"cannot read {path}: {files.describe(error)}") from None
    if lines and lines[-1] == b"":
        lines.pop()
    parsed: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        try:
            value = strict_json(line, f"{path} line {number}")
            if not isinstance(value, dict):
                raise JSONRefused(f"{path} line {number}", "it is not a table (a JSON object)")
        except JSONRefused as error:
            if number == len(lines) and number > 1:  # a line cut short by a crash: its work is done again
                return parsed, True
            raise ChainError(f"{error}; it is not a journal this program can continue") from None
        parsed.append(value)
    return parsed, False


def verified(path: Path, lines: list[dict[str, Any]], header_problem: Callable[[dict[str, Any]], str | None],
             entry_problem: Callable[[dict[str, Any]], str | None]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the entries of a chained file, once the chain holds.

    Args:
        path: The file, to name it in a message.
        lines: Its lines (``parse_lines``); the first is the header.
        header_problem: What keeps the first line from being a header of this kind (its schema),
            or None.
        entry_problem: What keeps a later line from being an entry of this kind, or None.

    Returns:
        The header and the entries, in order.

    Raises:
        ChainError: A line fails its schema, names another run, is out of sequence, or fails
            its check; the message names the line.
    """
    if not lines:
        raise ChainError(f"{path} is empty: it is not a journal of a bench run")
    header = lines[0]
    problem = header_problem(header)
    if problem:
        raise ChainError(f"{path} line 1 (the header) is damaged: {problem}")
    if header["check"] != line_check(header, ""):
        raise ChainError(f"{path} line 1 (the header) fails its check: it was changed after it was written")
    run, previous = header["run"], header["check"]
    entries = []
    for number, entry in enumerate(lines[1:], start=2):
        where = f"{path} line {number}"
        problem = entry_problem(entry)
        if problem:
            raise ChainError(f"{where} is damaged: {problem}")
        if entry["run"] != run:
            raise ChainError(f"{where} belongs to another run ({entry['run']}), not this journal's ({run})")
        if entry["seq"] != number - 1:
            raise ChainError(f"{where} has sequence number {entry['seq']}, not {number - 1}: lines were "
                             "repeated, removed or reordered")
        if entry["check"] != line_check(entry, previous):
            raise ChainError(f"{where} fails its check: it was changed after it was written, or comes "
                             "from elsewhere")
        previous = entry["check"]
        entries.append(entry)
    return header, entries


class ChainFile:
    """A chained file open for appending, locked (``fcntl.flock``) against a second writer."""

    def __init__(self, path: Path, fd: int, run: str, seq: int, check: str):
        self.path = path
        self.run = run
        self._fd = fd
        self._seq = seq
        self._check = check

    @classmethod
    def create(cls, path: Path, header: Mapping[str, Any], problem: Callable[[dict[str, Any]], str | None] | None = None
               ) -> ChainFile:
        """A new chained file of a new run (a fresh run id), its header written.

        The file appears whole, replacing any file of that name.

        Args:
            path: The file.
            header: The header's fields; ``run``, ``seq`` and ``check`` are added.
            problem: What keeps the header from fitting its schema, or None; checked before
                anything is written.

        Returns:
            The file, open for appending.

        Raises:
            ChainError: The header does not fit its schema, or the file cannot be written.
        """
        run = secrets.token_hex(16)
        line: dict[str, Any] = {**header, "run": run, "seq": 0, "check": ""}
        line["check"] = line_check(line, "")
        wrong = problem(line) if problem is not None else None
        if wrong:
            raise ChainError(f"the settings of this run do not fit a journal: {wrong}")
        try:
            files.write_atomic(path, canonical(line) + b"\n")
        except OSError as error:
            raise ChainError(f"cannot write {path}: {files.describe(error)}") from None
        return cls._open(path, run, 0, line["check"])

    @classmethod
    def reopen(cls, path: Path, lines: list[Mapping[str, Any]], dropped: bool) -> ChainFile:
        """Continue a chained file whose lines were read and checked.

        The file is rewritten (whole) without a damaged last line, or with the newline its last
        line was cut off before, then opened for appending.

        Args:
            path: The file.
            lines: Its header and entries, checked (``verified``).
            dropped: Whether a damaged last line was dropped as it was read.

        Returns:
            The file, open for appending after its last line.

        Raises:
            ChainError: The file cannot be written, or another run writes it.
        """
        if dropped or not ends_a_line(path):
            try:
                files.write_atomic(path, b"".join(canonical(line) + b"\n" for line in lines))
            except OSError as error:
                raise ChainError(f"cannot write {path}: {files.describe(error)}") from None
        return cls._open(path, lines[0]["run"], lines[-1]["seq"], lines[-1]["check"])

    @classmethod
    def _open(cls, path: Path, run: str, seq: int, check: str) -> ChainFile:
        try:
            fd = files.open_append(path)
        except OSError as error:
            raise ChainError(f"cannot write {path}: {files.describe(error)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ChainError(f"{path} is being written by another run; wait for it to end or stop it") from None
        return cls(path, fd, run, seq, check)

    def append(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """One entry, written and synced; a write that fails (a full disk) is undone, so the file
        never holds part of a line.

        Args:
            body: The entry's fields; ``run``, ``seq`` and ``check`` are added.

        Returns:
            The line written.

        Raises:
            ChainError: The line cannot be written.
        """
        line: dict[str, Any] = {**body, "run": self.run, "seq": self._seq + 1, "check": ""}
        line["check"] = line_check(line, self._check)
        size = os.fstat(self._fd).st_size
        try:
            files.write_all(self._fd, canonical(line) + b"\n")
            os.fsync(self._fd)
        except OSError as error:
            try:
                os.ftruncate(self._fd, size)
            except OSError:
                pass
            raise ChainError(f"cannot write {self.path}: {files.describe(error)}") from None
        self._seq, self._check = line["seq"], line["check"]
        return line

    def close(self) -> None:
        """Close the file (and drop its lock); closing it again does nothing."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
