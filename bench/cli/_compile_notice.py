"""The one-line notice of a first run, said when Numba starts its first compile of the process.

A kernel loaded from the cache compiles nothing, so a warm run says nothing; and the notice
comes when the wait starts, after anything the command refuses before it needs a kernel.
(A module of its own: only kernel modules import Numba, ``tests/test_layers.py``.)
"""

from __future__ import annotations

import sys
from typing import Any

from numba.core import event

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
    """A :class:`Notice` listening to every compile of this process from now on."""
    notice = Notice(prog, ascii)
    event.register("numba:compile", notice)
    return notice
