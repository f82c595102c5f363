"""Files written whole or not at all, and the lock of a run folder.

A file is written to a temporary file beside it, synced, and renamed over it: a reader sees
the old file or the new one, never a part, and a write that fails (a full disk) leaves
neither a cut-off file nor the temporary one.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "a.json"
>>> write_atomic(path, '{"a": 1}\\n')
>>> path.read_text(), sorted(p.name for p in path.parent.iterdir())
('{"a": 1}\\n', ['a.json'])
"""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
from pathlib import Path

from solver.errors import InputError


def write_all(fd: int, data: bytes) -> None:
    """Every byte of ``data`` to ``fd`` (``os.write`` may write less than it is given)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the system allows a folder to be synced)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes | str) -> None:
    """Replace ``path`` by ``data``, whole or not at all; ``OSError`` when it cannot be written."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        write_all(fd, data)
        os.fsync(fd)
    except OSError as error:
        os.close(fd)
        os.unlink(temporary)
        raise OSError(error.errno, error.strerror, str(path)) from None
    except BaseException:
        os.close(fd)
        os.unlink(temporary)
        raise
    os.close(fd)
    try:
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    sync_folder(path.parent)


def describe(error: OSError) -> str:
    """An OSError in a few words: ``No space left on device`` rather than its errno."""
    if error.errno == errno.ENOSPC:
        return "no space left on device"
    return error.strerror or str(error)


class FolderBusy(InputError):
    """Another process holds the lock of a run folder."""


class FolderLock:
    """An exclusive lock (``fcntl.flock``) on ``FOLDER/run.lock``, held while a run writes there.

    The system drops the lock when the process that holds it ends, however it ends, so the
    file a killed run leaves behind never blocks the next run; the file holds the holder's
    process id, to name it."""

    NAME = "run.lock"

    def __init__(self, folder: Path):
        self.path = Path(folder) / self.NAME
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip()
            os.close(self.fd)
            raise FolderBusy(f"{folder} is in use by another run (process {holder or 'unknown'}); wait for it to "
                             "end or stop it") from None
        try:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:  # a full disk: the lock holds all the same, only unnamed
            pass

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the last descriptor drops the lock
            self.fd = -1
