"""The one-line notice of a first run, said when Numba starts its first compile of the process.

A kernel loaded from the cache compiles nothing, so a warm run says nothing; and the notice
comes when the wait starts, after anything the command refuses before it needs a kernel.
(A module of its own: only kernel modules import Numba, ``tests/test_layers.py``.)
"""

from __future__ import annotations

import atexit
import json
import sys
import time
from typing import Any

from numba.core import event

from solver import files
from solver._jit import cache_dir
from solver.text import show


class Notice(event.Listener):
    """Says once, on stderr, that ``prog`` compiles the kernels it needs, at its first compile."""

    def __init__(self, prog: str, ascii: bool):
        self.prog, self.ascii, self.said = prog, ascii, False

    def on_start(self, event: Any) -> None:
        if not self.said:
            self.said = True
            show(f"{self.prog}: compiling the kernels it needs, once, on this first run (it can take half a minute "
                 f"on a slow machine); they are kept in {cache_dir()}", sys.stderr, ascii=self.ascii)

    def on_end(self, event: Any) -> None:
        pass


def install(prog: str, ascii: bool) -> Notice:
    """A ``Notice`` listening to every compile of this process from now on."""
    notice = Notice(prog, ascii)
    event.register("numba:compile", notice)
    return notice


class Recorder(event.Listener):
    """Every compile of this process: the kernel (``module.function``), the types it was
    compiled for, and the seconds it took, its callees' compiles included; ``depth`` 0 is a
    kernel called from Python, 1 and more one compiled for a kernel that calls it."""

    def __init__(self) -> None:
        self.compiles: list[dict[str, Any]] = []
        self._open: list[tuple[dict[str, Any], float]] = []

    def on_start(self, event: Any) -> None:
        dispatcher = event.data["dispatcher"]
        entry = {"kernel": f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}",
                 "types": ", ".join(str(arg) for arg in event.data["args"]), "depth": len(self._open)}
        self._open.append((entry, time.perf_counter()))

    def on_end(self, event: Any) -> None:
        entry, started = self._open.pop()
        entry["seconds"] = round(time.perf_counter() - started, 3)
        self.compiles.append(entry)


def record(path: str) -> Recorder:
    """A ``Recorder`` of every compile of this process from now on, written to ``path`` as JSON
    when the process exits (``python -m bench.analysis.first_runs`` reads it)."""
    recorder = Recorder()
    event.register("numba:compile", recorder)
    atexit.register(lambda: files.write_atomic(path, json.dumps(recorder.compiles)))
    return recorder
