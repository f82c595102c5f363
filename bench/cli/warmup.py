"""Compile the kernels ``solve`` scores with, in a second process, on a first run.

With an empty Numba cache, ``solve`` compiles every kernel it calls, one after another,
on one core. ``python -m bench.cli.warmup RULES`` runs a tiny solve whose opponents need no
kernels (each hand is set as dealt), so it compiles the hero's and the scoring kernels
with the very types ``solve`` passes them, and leaves them in the cache. The ``solve``
command starts it on a first run, beside its own work; by the time ``solve`` reaches
the scoring, those kernels load from the cache instead of compiling. It prints nothing,
and a failure only means that ``solve`` compiles them itself.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import numpy as np

from bench.cli import _compile_notice
from bots.protocol import set_death_signal
from solver import solve
from solver.interrupts import disown, start_own

HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"


class AsDealt:
    """An opponent model that sets each hand in the order it was dealt (often a foul)."""

    name = "as-dealt"

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.array(hands, np.uint8)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        solve(HAND, AsDealt(), samples=8, seed=0, rules=argv[0] if argv else None)
    except Exception:  # nothing to report: solve compiles what is missing itself
        return 1
    return 0


_NOTICES: list[_compile_notice.Notice] = []


def notice_compiling(prog: str, ascii: bool = False) -> None:
    """From now on, the first time this process compiles a kernel, say so in one line on
    stderr (``bench.cli._compile_notice``); once a process, whatever the command."""
    if not _NOTICES:
        _NOTICES.append(_compile_notice.install(prog, ascii))


def said_already() -> None:
    """The command said it compiles in its own words: the first compile says nothing more."""
    for notice in _NOTICES:
        notice.said = True


def start(rules: str | None) -> subprocess.Popen[bytes] | None:
    """``python -m bench.cli.warmup RULES`` in the background, silent, in a session of its own (so
    Ctrl-C reaches only ``solve``, which ends it) and, on Linux, killed with ``solve`` if that
    is killed; None when it cannot start."""
    try:
        return start_own(lambda: subprocess.Popen(
            [sys.executable, "-m", "bench.cli.warmup", *([rules] if rules else [])], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=set_death_signal))
    except OSError:
        return None


def end(process: subprocess.Popen[bytes] | None) -> None:
    """Stop the helper if it is still running (its cache entries are written whole or not at all)."""
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()
    if process is not None:
        disown(process.pid)


if __name__ == "__main__":
    sys.exit(main())
