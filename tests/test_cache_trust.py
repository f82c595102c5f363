"""Compiled kernels are loaded only from a folder no one else can write (``solver._cache``).

Numba's cache files are pickles, and loading a pickle runs the code it names. Each case
plants, where a real process would look, an index and a data file for every kernel whose
loading makes a marker folder, then runs that process (``python -c``) and looks for the
marker. The control case shows that the same planting in a folder of one's own is loaded,
so that a missing marker means a refused folder, not a planting that missed."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import bots._kernels
import solver._evaluator
import solver._search
import solver._settle
import solver._splits
from solver._cache import folder_problem
from solver._jit import cache_dir

ROOT = Path(__file__).resolve().parents[1]
NOBODY = 65534
NOTICE = "chinese-poker-solver: not using the kernel cache ("
LOAD_ALL = ("import bots._kernels, numba, solver._evaluator, solver._search, solver._settle, solver._splits\n"
            "from solver._jit import cache_dir, compiled_before\n"
            "for module in (solver._evaluator, solver._search, solver._settle, solver._splits, bots._kernels):\n"
            "    for value in vars(module).values():\n"
            "        if isinstance(value, numba.core.registry.CPUDispatcher):\n"
            "            compiled_before(value)\n"
            "print(cache_dir())\n")
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="giving a folder to another user needs root")


class _Planted:
    """Unpickling it makes the folder ``marker``: the side effect of code run by a load."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _index_files() -> list[str]:
    """Each kernel's index file, relative to the cache folder."""
    found = []
    for module in (solver._evaluator, solver._search, solver._settle, solver._splits, bots._kernels):
        for value in vars(module).values():
            if isinstance(value, numba.core.registry.CPUDispatcher):
                found.append(os.path.relpath(value._cache._cache_file._index_path, cache_dir()))
    return found


def _plant(folder: Path, marker: Path) -> dict[str, int]:
    """An index (``.nbi``) and a data file (``.nbc``) for every kernel in ``folder``; what is there, by size."""
    payload = pickle.dumps(_Planted(marker))
    for relative in _index_files():
        index = folder / relative
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_bytes(payload)
        index.with_suffix(".1.nbc").write_bytes(payload)
    return _contents(folder)


def _contents(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.lstat().st_size for p in folder.rglob("*")}


def _load(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LOAD_ALL], env=env, capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def _environment(tmp_path: Path, **changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(ROOT)
    env["TMPDIR"] = str(_private(tmp_path / "tmp"))
    return env | changes


def _private(folder: Path) -> Path:
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o700)
    return folder


def _refused(done: subprocess.CompletedProcess, folder: Path, marker: Path, before: dict[str, int]) -> None:
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "a planted cache file was unpickled"
    assert _contents(folder) == before, "the refused folder was written to"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(NOTICE) and str(folder) in lines[0], done.stderr
    used = done.stdout.strip()
    # private (neither the refused folder nor in it: a private folder's random name may begin as the refused
    # one's does, "chinese-poker-solver-numba-0..."), and removed at the end
    assert Path(used) != folder and folder not in Path(used).parents and not os.path.exists(used), used


@pytest.mark.slow
def test_a_planted_cache_in_a_folder_of_ones_own_is_loaded(tmp_path):
    """The control: the planting works where the folder is trusted."""
    folder, marker = _private(tmp_path / "cache"), tmp_path / "ran"
    _plant(folder, marker)
    done = _load(_environment(tmp_path, NUMBA_CACHE_DIR=str(folder)))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert marker.exists() and done.stdout.strip() == str(folder)


@pytest.mark.slow
def test_a_numba_cache_dir_every_user_can_write_is_not_loaded(tmp_path):
    folder, marker = _private(tmp_path / "cache"), tmp_path / "ran"
    before = _plant(folder, marker)
    folder.chmod(0o777)
    done = _load(_environment(tmp_path, NUMBA_CACHE_DIR=str(folder)))
    _refused(done, folder, marker, before)
    assert "can be written by every user (mode 777)" in done.stderr


@pytest.mark.slow
@as_root
def test_a_numba_cache_dir_of_another_user_is_not_loaded(tmp_path):
    folder, marker = _private(tmp_path / "cache"), tmp_path / "ran"
    before = _plant(folder, marker)
    os.chown(folder, NOBODY, NOBODY)
    done = _load(_environment(tmp_path, NUMBA_CACHE_DIR=str(folder)))
    _refused(done, folder, marker, before)
    assert f"is owned by uid {NOBODY}, not by you (uid 0)" in done.stderr


@pytest.mark.slow
@as_root
def test_a_planted_fallback_folder_in_the_temporary_folder_is_not_loaded(tmp_path):
    """The user's cache folder cannot be made (its parent is a file), so the fallback in the
    temporary folder is next: another user made it first and planted files in it."""
    (tmp_path / "a_file").write_text("x")
    env = _environment(tmp_path, XDG_CACHE_HOME=str(tmp_path / "a_file" / "cache"))
    folder, marker = Path(env["TMPDIR"]) / "chinese-poker-solver-numba-0", tmp_path / "ran"
    before = _plant(_private(folder), marker)
    os.chown(folder, NOBODY, NOBODY)
    done = _load(env)
    _refused(done, folder, marker, before)


@pytest.mark.slow
def test_a_subfolder_every_user_can_write_spoils_the_folder(tmp_path):
    folder, marker = _private(tmp_path / "cache"), tmp_path / "ran"
    before = _plant(folder, marker)
    next(p for p in folder.iterdir() if p.is_dir()).chmod(0o777)
    done = _load(_environment(tmp_path, NUMBA_CACHE_DIR=str(folder)))
    _refused(done, folder, marker, before)


def test_folders_that_others_can_change_are_named(tmp_path):
    own = _private(tmp_path / "own")
    assert folder_problem(str(own)) is None
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    inside = _private(shared / "cache")
    assert folder_problem(str(inside)) == f"{shared} can be written by every user (mode 777)"
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    assert folder_problem(str(_private(sticky / "cache"))) is None  # as in /tmp: no one replaces our entry
    link = tmp_path / "link"
    link.symlink_to(own)
    assert folder_problem(str(link)) == f"{link} is a link"
    (own / "sub").symlink_to(shared)
    assert folder_problem(str(own)) == f"{own / 'sub'} is a link"
    assert folder_problem(str(tmp_path / "missing")).startswith(f"cannot look at {tmp_path / 'missing'}")


def test_a_link_above_the_folder_is_checked_where_it_leads(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    _private(shared / "cache")
    shared.chmod(0o777)
    mine = _private(tmp_path / "mine")
    (mine / "to_shared").symlink_to(shared)
    assert folder_problem(str(mine / "to_shared" / "cache")) == f"{shared} can be written by every user (mode 777)"


@as_root
def test_a_group_that_is_not_yours_alone_may_not_write(tmp_path):
    """Group-writable is refused for a shared group (nogroup, nobody's), taken for the user's
    own private group (root's, here), as on systems whose umask is 002."""
    import grp

    shared = _private(tmp_path / "shared")
    os.chown(shared, 0, grp.getgrnam("nogroup").gr_gid)
    shared.chmod(0o770)
    assert folder_problem(str(shared)) == f"{shared} can be written by its group (mode 770)"
    own = _private(tmp_path / "own")
    os.chown(own, 0, 0)
    own.chmod(0o770)
    assert folder_problem(str(own)) is None


def test_folders_made_for_the_cache_are_private_whatever_the_umask(tmp_path):
    """Under umask 002 ``os.makedirs`` leaves the folders above group-writable, and numba's
    own subfolders would be too; the cache's are 0700, so a later run still trusts them."""
    from solver._jit import ProjectCacheLocator

    kernel = solver._evaluator.eval5_columns
    locator = ProjectCacheLocator(kernel.py_func, solver._evaluator.__file__)
    locator._cache_path = str(tmp_path / "a" / "b" / "solver_x")
    previous = os.umask(0o002)
    try:
        locator.ensure_cache_path()
    finally:
        os.umask(previous)
    for folder in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "solver_x"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    assert folder_problem(str(tmp_path / "a" / "b")) is None
