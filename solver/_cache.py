"""Where compiled kernels are kept, and which folders may be trusted with them.

Numba's cache files are pickles: loading one runs whatever code it names. So a folder is
used for the cache only when nobody but this user (or root) can have written it:

- the folder itself is a folder, not a link, owned by this process's effective user, and
  writable by no group and no other user;
- each folder above it, up to ``/``, is owned by this user or root and writable by nobody
  else, unless it is sticky (``/tmp``: others may add entries there, not replace ours); a
  link on the way is checked the same way, and so is the path it leads to;
- a group counts as nobody else when it is the user's own private group (no other member,
  the primary group of no other user), as on systems that make files group-writable;
- no entry right inside it (numba's one subfolder per source folder) is a link, or a folder
  that fails the first rule.

The folder asked for (``NUMBA_CACHE_DIR``) is checked like any other. Without one, the
user's cache folder is used, else a folder of this user's in the temporary folder; folders
made for the cache (and numba's subfolders in it) are made mode 0700. A folder
that fails is not read at all: the kernels compile into a new private folder (``mkdtemp``,
mode 0700) for this process only, removed when it ends, and one line on stderr says why.

On a system without user ids (Windows) the folders are not checked: the user's cache
folder and temporary folder there are the user's own.
"""

from __future__ import annotations

import atexit
import functools
import grp
import os
import pwd
import shutil
import stat
import sys
import tempfile

from platformdirs import user_cache_dir

from solver import config
from solver.text import show

APP = "chinese-poker-solver"
ROOT_UID = 0


def _owner_problem(info: os.stat_result, path: str, owners: tuple[int, ...]) -> str | None:
    if info.st_uid not in owners:
        return f"{path} is owned by uid {info.st_uid}, not by you (uid {os.geteuid()})"
    return None


@functools.cache
def _own_group(gid: int) -> bool:
    """Whether group ``gid`` is this user's alone: the primary group of no other user, and
    with no other member (the private group that many systems give each user, whose files
    are then made group-writable). Debian's OpenSSH trusts such a group the same way."""
    euid = os.geteuid()
    try:
        group, name = grp.getgrgid(gid), pwd.getpwuid(euid).pw_name
    except KeyError:
        return False
    primary = [user.pw_uid for user in pwd.getpwall() if user.pw_gid == gid]
    return set(primary) <= {euid} and set(group.gr_mem) <= {name} and bool(primary or group.gr_mem)


def _others_write(info: os.stat_result) -> str | None:
    """Who else can write a folder with this status ("every user", "its group"), or None."""
    if info.st_mode & 0o002:
        return "every user"
    if info.st_mode & 0o020 and not _own_group(info.st_gid):
        return "its group"
    return None


def _writable(path: str, info: os.stat_result, writers: str) -> str:
    return f"{path} can be written by {writers} (mode {stat.S_IMODE(info.st_mode):o})"


def _parent_problem(path: str, links: int = 0) -> str | None:
    """Why a folder above ``path`` lets someone else replace what is inside it, or None."""
    euid = os.geteuid()
    current = os.path.dirname(path)
    while True:
        try:
            info = os.lstat(current)
        except OSError as error:
            return f"cannot look at {current}: {error.strerror}"
        problem = _owner_problem(info, current, (euid, ROOT_UID))
        if problem:
            return problem
        if stat.S_ISLNK(info.st_mode):
            if links >= config.MOST_LINKS:
                return f"{current} is a loop of links"
            target = os.path.realpath(current)
            return _parent_problem(os.path.join(target, "-"), links + 1) or _parent_problem(current, links + 1)
        writers = _others_write(info)
        if writers and not info.st_mode & stat.S_ISVTX:
            return _writable(current, info, writers)
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _own_folder_problem(path: str) -> str | None:
    """Why ``path`` itself is not a folder that only this user can write, or None."""
    try:
        info = os.lstat(path)
    except OSError as error:
        return f"cannot look at {path}: {error.strerror}"
    if stat.S_ISLNK(info.st_mode):
        return f"{path} is a link"
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a folder"
    problem = _owner_problem(info, path, (os.geteuid(),))
    if problem:
        return problem
    writers = _others_write(info)
    if writers:
        return _writable(path, info, writers)
    return None


def folder_problem(path: str) -> str | None:
    """Why compiled code may not be loaded from the folder ``path`` (the rules above), or None
    when it may. Links are looked at, never followed to decide about the folder itself."""
    if not hasattr(os, "geteuid"):
        return None
    path = os.path.abspath(path)
    problem = _own_folder_problem(path) or _parent_problem(path)
    if problem:
        return problem
    try:
        entries = list(os.scandir(path))
    except OSError as error:
        return f"cannot list {path}: {error.strerror}"
    for entry in entries:
        if entry.is_symlink():
            return f"{entry.path} is a link"
        if entry.is_dir(follow_symlinks=False):
            problem = _own_folder_problem(entry.path)
            if problem:
                return problem
    return None


def make_private(path: str) -> None:
    """Make the folder ``path`` and any missing above it, each new one mode 0700 whatever the
    umask (``os.makedirs`` gives the folders above the umask's mode)."""
    missing = []
    current = os.path.abspath(path)
    while not os.path.lexists(current):
        missing.append(current)
        current = os.path.dirname(current)
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue
        os.chmod(folder, 0o700)


def _made(path: str) -> str | None:
    """Make ``path`` (mode 0700 for what is new); why it cannot be used, or None."""
    try:
        make_private(path)
    except OSError as error:
        return f"cannot make {path}: {error.strerror}"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"cannot write to {path}"
    return None


def _candidates(configured: str) -> list[str]:
    if configured:
        return [configured]

    uid = os.geteuid() if hasattr(os, "geteuid") else "user"
    return [os.path.join(user_cache_dir(APP, appauthor=False), "numba"),
            os.path.join(tempfile.gettempdir(), f"{APP}-numba-{uid}")]


def _private_folder() -> str:
    folder = tempfile.mkdtemp(prefix=f"{APP}-numba-")  # mode 0700, a name nobody can guess
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@functools.cache
def kernel_cache_dir(configured: str = "") -> str:
    """The folder this process keeps compiled kernels in: ``configured`` (``NUMBA_CACHE_DIR``)
    when set, else the user's cache folder, else a folder of the user's in the temporary
    folder, whichever first passes :func:`folder_problem`; when one that exists fails, a new
    private folder for this process, with one line on stderr naming the folder and why."""
    refused = []
    for path in _candidates(configured):
        unusable = _made(path)
        if unusable:
            if configured:
                refused.append(unusable)
            continue
        problem = folder_problem(path)
        if problem is None:
            return path
        refused.append(problem)
    folder = _private_folder()
    if refused:
        show(f"{APP}: not using the kernel cache ({'; '.join(refused)}); this run compiles the kernels in "
             f"{folder}, removed when it ends (to keep them, set NUMBA_CACHE_DIR to a folder only you can write)",
             sys.stderr)
    return folder
