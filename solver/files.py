"""Every file the package writes, locks or reads passes here.

What it promises, whoever calls it:

* **Files of a folder we write are never links.** A run folder's journal, lock, results,
  report and plots, a protocol bot's logs, the outputs of ``bench train`` and ``bench perf``
  are opened with ``O_NOFOLLOW`` (``follow=False``): a link found in their place is refused
  (``FileRefused``), never written or read through. A file is replaced by renaming a
  new one over its name, which replaces a link there rather than what it points to.
* **Only regular files are read, appended to or locked.** The kind of a file is checked
  before it is opened (``stat``) and again on the opened descriptor (``fstat``, the same
  file), and every open is non-blocking: a named pipe, device, socket or folder is refused
  before anything could wait on it.
* **Writes are whole or not at all**: a temporary file beside the target, synced, renamed
  over it (``write_atomic``); a file we append to has one name only (a second name, a
  hard link, would let another folder's run write to it).
* **Files a user names** (hands, house rules, bot files, tables, results, benchmark JSON)
  may be links the user made: they are followed (``follow=True``), but what they reach must
  be a regular file no bigger than a ceiling (``*_BYTES`` below) that is checked before any
  byte is read. Text is UTF-8; a byte-order mark in front is accepted and dropped.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "a.json"
>>> write_atomic(path, '\\ufeff{"a": 1}\\n'.encode("utf-8"))
>>> read_text(path, config.SETTINGS_BYTES), sorted(p.name for p in path.parent.iterdir())
('{"a": 1}\\n', ['a.json'])
>>> read_text(path.parent, config.SETTINGS_BYTES)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
solver.files.FileRefused: ...: it is a folder, not a regular file
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import os
import stat
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from solver import config
from solver.errors import InputError
from solver.limits import LIMITS

DOCUMENT_BYTES = int(LIMITS["document_bytes"].high)  # a journal, results.json or benchmark JSON: solver.limits

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISLNK, "a symbolic link"))


class FileRefused(OSError, InputError):
    """A file the gate will not open: a link where none may be (``errno`` ELOOP), a folder
    (EISDIR) or another file that is not a regular file (EINVAL: a named pipe, a device, a
    socket), too big (EFBIG), or with more than one name (EMLINK). An ``OSError`` whose
    ``strerror`` says what is wrong and how to put it right, so that every ``except OSError``
    reports it in its own words."""

    def __init__(self, path: str | Path, reason: str, code: int = errno.EINVAL):
        super().__init__(code, reason, str(path))

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.filename, self.strerror, self.errno)

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def kind(mode: int) -> str:
    """What a file of ``mode`` is, in a few words.

    Args:
        mode: The file's ``st_mode``, as ``os.stat`` gives it.

    Returns:
        Such as ``"a folder"``, ``"a named pipe (FIFO)"``, ``"a regular file"``.

    Examples:
        >>> kind(stat.S_IFIFO | 0o644), kind(stat.S_IFREG | 0o644)
        ('a named pipe (FIFO)', 'a regular file')
    """
    return next((name for test, name in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode) else
                "a file of another kind")


def _not_regular(path: str | Path, mode: int) -> FileRefused:
    if stat.S_ISLNK(mode):
        return FileRefused(path, "it is a link, and a file the program writes is never read or written through "
                           "a link; remove the link (or put the file itself there)", errno.ELOOP)
    return FileRefused(path, f"it is {kind(mode)}, not a regular file", errno.EISDIR if stat.S_ISDIR(mode) else
                       errno.EINVAL)


def _one_name(path: str | Path, found: os.stat_result) -> None:
    if found.st_nlink > 1:
        raise FileRefused(path, f"it has {found.st_nlink} names (hard links), and a file the program appends to or "
                          "locks must have one, so that no other folder's run writes to it; copy it instead of "
                          "linking it", errno.EMLINK)


def regular(path: str | Path, *, follow: bool, single: bool = False) -> os.stat_result:
    """The status of the regular file ``path``.

    Args:
        path: The file.
        follow: Follow a link (``stat``); ``False`` reads the name itself (``lstat``), so a
            link is refused.
        single: Refuse a file with another name (a hard link).

    Returns:
        The file's status.

    Raises:
        FileRefused: ``path`` is not a regular file, its name holds a NUL character, or
            (``single``) it has another name.
        OSError: The status cannot be read (``FileNotFoundError`` when there is no such file).
    """
    if "\0" in os.fspath(path):  # os.stat would raise ValueError, which no caller's `except OSError` takes
        raise FileRefused(path, "its name holds a NUL character, which no file's name can", errno.EINVAL)
    found = os.stat(path) if follow else os.lstat(path)
    if not stat.S_ISREG(found.st_mode):
        raise _not_regular(path, found.st_mode)
    if single:
        _one_name(path, found)
    return found


def open_regular(path: str | Path, flags: int = os.O_RDONLY, *, follow: bool, mode: int = 0o644,
                 limit: int | None = None, single: bool = False) -> int:
    """A descriptor of the regular file ``path``, opened with ``flags`` (``O_CREAT`` makes it).

    The file is checked before it is opened and again once open (the same file, regular), and
    the open itself never waits (``O_NONBLOCK``, cleared once the file is known to be regular).

    Args:
        path: The file.
        flags: The ``os.open`` flags; ``O_NONBLOCK`` and ``O_CLOEXEC`` are added, and
            ``O_NOFOLLOW`` when not ``follow``.
        follow: Follow a link; ``False`` refuses a link in place of the file.
        mode: The permissions of a file ``O_CREAT`` makes (less the umask).
        limit: Refuse a file of more bytes than this; ``None`` for any size.
        single: Refuse a file with another name (a hard link).

    Returns:
        The open descriptor, in blocking mode; the caller closes it.

    Raises:
        FileRefused: The file is not a regular file, is a link (not ``follow``), was replaced
            while being opened, is bigger than ``limit``, or (``single``) has another name.
        OSError: The file cannot be opened (``FileNotFoundError`` when it is missing and
            ``flags`` has no ``O_CREAT``).
    """
    before = None
    try:
        before = regular(path, follow=follow)
    except FileNotFoundError:
        if not flags & os.O_CREAT:
            raise
    nofollow = 0 if follow else os.O_NOFOLLOW
    try:
        fd = os.open(path, flags | nofollow | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as error:
        if error.errno == errno.ELOOP and not follow:
            raise _not_regular(path, stat.S_IFLNK) from None
        raise
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise _not_regular(path, found.st_mode)
        if before is not None and (before.st_dev, before.st_ino) != (found.st_dev, found.st_ino):
            raise FileRefused(path, "it was replaced while it was being opened; try again", errno.EAGAIN)
        if limit is not None and found.st_size > limit:
            raise FileRefused(path, f"it holds {found.st_size:,} bytes, more than the {limit:,} the program reads "
                              "from a file of its kind; is it the right file?", errno.EFBIG)
        if single:
            _one_name(path, found)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_input(path: str | Path, limit: int | None, *, follow: bool = True) -> IO[bytes]:
    """The regular file ``path`` open to read in binary, checked as ``open_regular`` checks it.

    Args:
        path: The file.
        limit: Refuse a file of more bytes than this; ``None`` for any size.
        follow: Follow a link; ``False`` refuses a link in place of the file.

    Returns:
        The open file; the caller closes it.

    Raises:
        FileRefused: The file is not a regular file, is a link (not ``follow``), or is
            bigger than ``limit``.
        OSError: The file cannot be opened.
    """
    return os.fdopen(open_regular(path, follow=follow, limit=limit), "rb")


def read_bytes(path: str | Path, limit: int, *, follow: bool = True, single: bool = False) -> bytes:
    """The bytes of the regular file ``path``: at most ``limit`` of them, checked before reading.

    Args:
        path: The file.
        limit: The most bytes read; a bigger file is refused.
        follow: Follow a link; ``False`` refuses a link in place of the file.
        single: Refuse a file with another name (a hard link).

    Returns:
        The file's bytes.

    Raises:
        FileRefused: The file is not a regular file, is a link (not ``follow``), holds more
            than ``limit`` bytes (also when it grew while being read), or (``single``) has
            another name.
        OSError: The file cannot be opened or read.
    """
    with os.fdopen(open_regular(path, follow=follow, limit=limit, single=single), "rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:  # it grew after it was checked
        raise FileRefused(path, f"it holds more than the {limit:,} bytes the program reads from a file of its kind",
                          errno.EFBIG)
    return data


def read_text(path: str | Path, limit: int, *, follow: bool = True) -> str:
    """The text of the regular file ``path``: UTF-8, a byte-order mark in front dropped.

    Args:
        path: The file.
        limit: The most bytes read; a bigger file is refused.
        follow: Follow a link; ``False`` refuses a link in place of the file.

    Returns:
        The file's text.

    Raises:
        FileRefused: The file is not a regular file, is a link (not ``follow``), or holds
            more than ``limit`` bytes.
        OSError: The file cannot be opened or read.
        UnicodeDecodeError: The bytes are not UTF-8.
    """
    return read_bytes(path, limit, follow=follow).decode("utf-8-sig")


def digest(path: str | Path, *, follow: bool = True) -> str:
    """The sha256 of the regular file ``path``, read in blocks (a file of any size).

    Args:
        path: The file.
        follow: Follow a link; ``False`` refuses a link in place of the file.

    Returns:
        The digest, 64 hexadecimal digits.

    Raises:
        FileRefused: The file is not a regular file, or is a link (not ``follow``).
        OSError: The file cannot be opened or read.
    """
    found = hashlib.sha256()
    with open_input(path, None, follow=follow) as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            found.update(block)
    return found.hexdigest()


def standard_input() -> IO[bytes]:
    """The standard input in binary.

    Returns:
        The binary buffer of ``sys.stdin``.

    Raises:
        FileRefused: The process has no standard input (``EBADF``): it was started with it
            closed, as ``command <&-`` does.
    """
    stream = getattr(sys.stdin, "buffer", None)
    try:
        if stream is None or stream.closed:
            raise OSError(errno.EBADF, "closed")
        os.fstat(stream.fileno())
    except (OSError, ValueError):
        raise FileRefused("-", "it is closed; give the data on it (command < FILE) or name a file",
                          errno.EBADF) from None
    return stream


@contextlib.contextmanager
def arrays(path: str | Path, *, follow: bool = True, limit: int = config.ARRAYS_BYTES) -> Iterator[Any]:
    """The arrays of an ``.npz`` file (numpy's ``NpzFile``), read without pickles.

    The file is opened through the gate, and the sizes its arrays declare, unpacked, must fit
    ``limit`` as well (a small archive cannot unpack into more memory than that).

    Args:
        path: The ``.npz`` file.
        follow: Follow a link; ``False`` refuses a link in place of the file.
        limit: The most bytes of the file, and of its arrays unpacked.

    Yields:
        The open ``NpzFile``, closed with the file when the ``with`` block ends.

    Raises:
        FileRefused: The file is not a regular file, is a link (not ``follow``), or it or its
            arrays unpacked are bigger than ``limit``.
        OSError: The file cannot be opened or read.
        zipfile.BadZipFile: The file is not a zip archive.
    """
    with open_input(path, limit, follow=follow) as file, _npz(file, path, limit) as data:
        yield data


@contextlib.contextmanager
def arrays_with_digest(path: str | Path, *, follow: bool = True,
                       limit: int = config.ARRAYS_BYTES) -> Iterator[tuple[Any, str]]:
    """The arrays of an ``.npz`` file, as ``arrays`` reads them, with the sha256 of the very
    bytes they are read from: the file is read once, whole, so a file replaced meanwhile cannot
    give arrays of one version and the digest of another.

    Args:
        path: The ``.npz`` file.
        follow: Follow a link; ``False`` refuses a link in place of the file.
        limit: The most bytes of the file, and of its arrays unpacked.

    Yields:
        The open ``NpzFile`` and the digest (64 hexadecimal digits).

    Raises:
        FileRefused: As ``arrays``.
        OSError: The file cannot be opened or read.
        zipfile.BadZipFile: The file is not a zip archive.
    """
    content = read_bytes(path, limit, follow=follow)
    with _npz(io.BytesIO(content), path, limit) as data:
        yield data, hashlib.sha256(content).hexdigest()


@contextlib.contextmanager
def _npz(file: IO[bytes], path: str | Path, limit: int) -> Iterator[Any]:
    with zipfile.ZipFile(file) as archive:
        unpacked = sum(member.file_size for member in archive.infolist())
    if unpacked > limit:
        raise FileRefused(path, f"its arrays unpack to {unpacked:,} bytes, more than the {limit:,} the program "
                          "reads from a file of its kind", errno.EFBIG)
    file.seek(0)
    with np.load(file, allow_pickle=False) as data:
        yield data


# --- writing ------------------------------------------------------------------------------


def write_all(fd: int, data: bytes) -> None:
    """Every byte of ``data`` to ``fd`` (``os.write`` may write less than it is given).

    Args:
        fd: An open descriptor.
        data: The bytes to write.

    Raises:
        OSError: A write failed.
    """
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the system allows a folder to be synced).

    A folder that cannot be opened or synced is left as it is, without an error.

    Args:
        folder: The folder that holds the renamed file.
    """
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: str | Path, data: bytes | str) -> None:
    """Replace ``path`` by ``data``, whole or not at all.

    A file is written to a temporary file beside it, synced, and renamed over it: a reader sees
    the old file or the new one, never a part, and a write that fails (a full disk) leaves
    neither a cut-off file nor the temporary one. The rename replaces whatever has the name
    (a link there is replaced, not followed); a folder of that name is refused.

    Args:
        path: The file to replace or make.
        data: The new content; text is written as UTF-8.

    Raises:
        FileRefused: ``path`` is a folder.
        OSError: The file cannot be written (a failed write names ``path``).
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            raise FileRefused(path, "it is a folder, not a file that can be replaced", errno.EISDIR)
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


def open_append(path: str | Path) -> int:
    """A descriptor to append to the existing regular file ``path``, which is not a link and
    has no other name.

    Args:
        path: The file.

    Returns:
        The open descriptor; the caller closes it.

    Raises:
        FileRefused: ``path`` is a link, not a regular file, or has another name.
        OSError: The file cannot be opened (``FileNotFoundError`` when it is missing).
    """
    return open_regular(path, os.O_WRONLY | os.O_APPEND, follow=False, single=True)


def open_write(path: str | Path, *, exclusive: bool = False, mode: int = 0o644) -> int:
    """A descriptor to write the regular file ``path``, which is not a link and has no other name.

    The file is made when missing; it is not emptied when present.

    Args:
        path: The file.
        exclusive: The file must be missing (``O_EXCL``).
        mode: The permissions of a file made (less the umask).

    Returns:
        The open descriptor; the caller closes it.

    Raises:
        FileRefused: ``path`` is a link, not a regular file, or has another name.
        OSError: The file cannot be opened (``FileExistsError`` when ``exclusive`` and it exists).
    """
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else 0)
    return open_regular(path, flags, follow=False, mode=mode, single=True)


def make_folder(path: str | Path) -> Path:
    """The folder ``path``, made (with its parents) when missing.

    A folder the user named may be a link the user made.

    Args:
        path: The folder.

    Returns:
        ``path``, as a ``Path``.

    Raises:
        FileRefused: Something other than a folder has its name.
        OSError: The folder cannot be made.
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        pass
    found = os.stat(path)
    if not stat.S_ISDIR(found.st_mode):
        raise FileRefused(path, f"it is {kind(found.st_mode)}, not a folder", errno.ENOTDIR)
    return path


def remove(path: str | Path, *, missing_ok: bool = False) -> None:
    """Remove the regular file ``path``.

    Anything else of that name (a link, a folder, a named pipe) is refused and left in
    place, for its owner to look at.

    Args:
        path: The file.
        missing_ok: Return quietly when there is no such file.

    Raises:
        FileRefused: ``path`` is not a regular file.
        FileNotFoundError: There is no such file (unless ``missing_ok``).
        OSError: The file cannot be removed.
    """
    try:
        regular(path, follow=False)
    except FileNotFoundError:
        if missing_ok:
            return
        raise
    os.unlink(path)


def describe(error: OSError) -> str:
    """An OSError in a few words: ``no space left on device`` rather than its errno.

    Args:
        error: The error.

    Returns:
        Its ``strerror`` (``no space left on device`` for ``ENOSPC``), or the whole error as
            text when it has none.
    """
    if error.errno == errno.ENOSPC:
        return "no space left on device"
    return error.strerror or str(error)


# --- the lock of a run folder ---------------------------------------------------------------


class FolderBusy(InputError):
    """Another process holds the lock of a run folder."""


class FolderLock:
    """An exclusive lock (``fcntl.flock``) on ``FOLDER/run.lock``, held while a run writes there.

    The system drops the lock when the process that holds it ends, however it ends, so the
    file a killed run leaves behind never blocks the next run; the file holds the holder's
    process id, to name it. The lock file is a regular file of the folder with one name: a
    link in its place is refused and never written through."""

    NAME = "run.lock"

    def __init__(self, folder: Path, name: str = NAME, what: str | Path | None = None):
        """Take the lock, or raise ``FolderBusy``.

        Args:
            folder: The folder the lock file is in.
            name: The lock file's name (``run.lock``; a run that writes one file of a folder
                locks a name of its own, ``.FILE.lock``).
            what: What the lock keeps for one run, to name it in the message (the folder).

        Raises:
            FolderBusy: Another process holds the lock.
            OSError: The lock file cannot be opened (or is not a regular file).
        """
        self.path = folder / name
        self.fd = open_regular(self.path, os.O_RDWR | os.O_CREAT, follow=False, single=True)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip()
            os.close(self.fd)
            raise FolderBusy(f"{what or folder} is in use by another run (process {holder or 'unknown'}); wait for it "
                             "to end or stop it") from None
        try:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:  # a full disk: the lock holds all the same, only unnamed
            pass

    def release(self) -> None:
        """Drop the lock by closing its file; releasing it again does nothing.

        The lock file stays in the folder.
        """
        if self.fd >= 0:
            os.close(self.fd)  # closing the last descriptor drops the lock
            self.fd = -1
