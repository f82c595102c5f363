"""Numba flags, in one place, and where compiled kernels are cached.

Only kernel modules (``solver/_*.py``, ``bots/_kernels.py``) use these decorators.

Numba caches a compiled kernel beside its source file by default; for an installed
package that is ``site-packages``, which pip does not own: the files are left behind by
an upgrade or uninstall, and a folder holding only them can shadow a later editable
install. So this project's kernels cache in the user's cache folder instead
(``platformdirs.user_cache_dir``, e.g. ``~/.cache/chinese-poker-solver/numba``), or in
``NUMBA_CACHE_DIR`` when that is set; each source file gets a subfolder named by its
location, so two installs never share entries. A cache file is a pickle, whose loading runs
code: ``solver._cache`` decides which folder may be trusted with them.

Numba checks a cached kernel against its own source file only, but the kernels inline
helpers from other files (the evaluator, settlement, class look-up): a change there would
leave a stale kernel in the cache, silently computing the old thing. So every kernel's
cache entry is keyed by a digest of all the kernel modules (``_*.py`` in ``solver`` and
``bots``): any change to any of them recompiles them all.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from pathlib import Path
from types import FunctionType
from typing import Any

import numba
from numba.core import caching, config

from solver._cache import kernel_cache_dir, make_private

PACKAGES = tuple(str(Path(__file__).resolve().parent.parent / name) for name in ("solver", "bots"))

# numba >= 0.61 dropped the leading underscore of these names
_Impl: Any = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")  # noqa: B009
_UserProvided: Any = getattr(caching, "UserProvidedCacheLocator", None) or getattr(caching, "_UserProvidedCacheLocator")  # noqa: B009


def cache_dir() -> str:
    """Where this project's compiled kernels are kept: ``NUMBA_CACHE_DIR`` when set, else the
    user's cache folder (a folder of the user's in the temporary folder when that cannot be
    written), each used only when no one else can write it (``solver._cache``); else a
    private folder for this process. A refused ``NUMBA_CACHE_DIR`` is not used for any
    other function numba caches either."""
    configured = str(getattr(config, "CACHE_DIR", "") or "")
    folder = kernel_cache_dir(configured)
    if configured and folder != configured:
        config.CACHE_DIR = folder  # type: ignore[attr-defined]  # numba declares its settings at run time
    return folder


@functools.cache
def kernel_sources_digest() -> bytes:
    """A digest of every kernel module's source: the stamp each cached kernel is checked against."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted(Path(package).glob("_*.py")):
            if not path.name.startswith("__"):
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


class ProjectCacheLocator(_UserProvided):
    """Caches the kernels of this project's packages in ``cache_dir()``, never beside the modules,
    each checked against all the kernel modules' sources (``kernel_sources_digest``)."""

    def __init__(self, py_func: FunctionType, py_file: str):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(cache_dir(), self.get_suitable_cache_subpath(py_file))

    def get_source_stamp(self) -> bytes:
        return kernel_sources_digest()

    def ensure_cache_path(self) -> None:
        make_private(self._cache_path)  # numba's own makes it as the umask says: group-writable under 002
        tempfile.TemporaryFile(dir=self._cache_path).close()

    @classmethod
    def from_function(cls, py_func: FunctionType, py_file: str) -> ProjectCacheLocator | None:
        if not os.path.exists(py_file) or not str(Path(py_file).resolve()).startswith(PACKAGES):
            return None  # another library's function: numba's own locators decide
        return cls(py_func, py_file)


if ProjectCacheLocator not in _Impl._locator_classes:
    _Impl._locator_classes.insert(0, ProjectCacheLocator)

kernel = numba.njit(cache=True, nogil=True)  # a hot loop over integer arrays
parallel_kernel = numba.njit(cache=True, nogil=True, parallel=True)  # the same, over all cores
inline = numba.njit(cache=True, nogil=True, inline="always")  # a helper the kernels inline


def compiled_before(dispatcher: Any) -> bool:
    """Whether a kernel's compiled code is in the cache already and fresh (else its first call compiles)."""
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    if cache_file is not None:
        try:
            return bool(cache_file._load_index())  # empty when missing or stale
        except Exception:  # numba's private layout moved: fall back to whether the index file exists
            pass
    path = getattr(cache, "_cache_path", None)
    return bool(path) and any(Path(str(path)).glob(f"*{dispatcher.py_func.__name__}*.nbi"))
