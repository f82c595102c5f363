"""The journal of a long run: a JSON-lines file that survives interruptions and crashes.

The first line holds the run's settings; every later line one finished unit of work (a
chunk of deals' records), each written whole, flushed and synced before the next. Reading
it back drops a last line that a crash cut short, so that its work is simply done again;
the final results are a pure function of the journal.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "journal.jsonl"
>>> journal = Journal.create(path, {"seed": 1})
>>> journal.append({"records": [1, 2]})
>>> journal.close()
>>> Journal.read(path).settings, Journal.read(path).entries
({'seed': 1}, [{'records': [1, 2]}])
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JOURNAL = "journal.jsonl"
KIND = "chinese-poker-journal"
VERSION = 1


class JournalError(ValueError):
    """A file that is not a journal of this kind, or that cannot be written."""


@dataclass
class Contents:
    """What a journal holds: the settings, the entries, and whether a damaged last line was dropped."""

    settings: dict[str, Any]
    entries: list[dict[str, Any]] = field(default_factory=list)
    dropped: bool = False


class Journal:
    """An append-only JSON-lines file; each line is flushed and synced as it is written."""

    def __init__(self, path: Path, handle):
        self.path = path
        self._handle = handle

    @classmethod
    def create(cls, path: Path, settings: dict[str, Any]) -> Journal:
        """A new journal whose first line is ``settings`` (an existing file is replaced)."""
        try:
            handle = open(path, "w", encoding="utf-8")
        except OSError as error:
            raise JournalError(f"cannot write {path}: {error.strerror}") from None
        journal = cls(path, handle)
        journal._write({"kind": KIND, "version": VERSION, "settings": settings})
        return journal

    @classmethod
    def reopen(cls, path: Path, contents: Contents) -> Journal:
        """Continue a journal: rewritten without a damaged last line, then open for appending."""
        if contents.dropped:
            journal = cls.create(path.with_suffix(".tmp"), contents.settings)
            for entry in contents.entries:
                journal.append(entry)
            journal.close()
            os.replace(path.with_suffix(".tmp"), path)
        try:
            return cls(path, open(path, "a", encoding="utf-8"))
        except OSError as error:
            raise JournalError(f"cannot write {path}: {error.strerror}") from None

    def append(self, entry: dict[str, Any]) -> None:
        self._write(entry)

    def _write(self, value: dict[str, Any]) -> None:
        self._handle.write(json.dumps(value, separators=(",", ":")) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    @staticmethod
    def read(path: Path) -> Contents:
        """The settings and entries of a journal; a damaged last line is dropped (``dropped``)."""
        try:
            lines = path.read_bytes().split(b"\n")
        except OSError as error:
            raise JournalError(f"cannot read {path}: {error.strerror}") from None
        if lines and lines[-1] == b"":
            lines.pop()
        parsed: list[dict[str, Any]] = []
        dropped = False
        for number, line in enumerate(lines, start=1):
            try:
                value = json.loads(line.decode("utf-8"))
                if not isinstance(value, dict):
                    raise ValueError("not a table")
            except (ValueError, UnicodeDecodeError):
                if number == len(lines) and number > 1:  # a line cut short by a crash: its work is done again
                    dropped = True
                    break
                raise JournalError(f"{path} line {number} is damaged; it is not a journal this program can "
                                   "continue") from None
            parsed.append(value)
        if not parsed or parsed[0].get("kind") != KIND or not isinstance(parsed[0].get("settings"), dict):
            raise JournalError(f"{path} is not a journal of a bench run")
        if parsed[0].get("version") != VERSION:
            raise JournalError(f"{path} is a journal of version {parsed[0].get('version')}, not {VERSION}")
        return Contents(parsed[0]["settings"], parsed[1:], dropped)
