"""How long a first run takes: each command a newcomer runs first, in a fresh process with an
empty Numba cache (everything it calls compiles), then again with the cache it left (what
every later run pays), beside the yardstick timed in this process (``_yardstick``).

    python -m bench.analysis.first_runs [--json] [--kernels]

The commands: ``solve`` on one hand, ``bench arrange --bot table``, ``solve --rules 1-6``,
and the work of one Play of the web page (``bench.web.jobs.play``: the bots set their hands,
the table is settled and the player's play graded), each in a process of its own.

Each first run also records every kernel it compiles (``bench.cli._compile_notice.Recorder``):
how many, the seconds of those called from Python (a callee's compile is inside its caller's),
and each of the project's kernels compiled for more than one set of argument types, which a
command that needs each kernel once should not do. ``--kernels`` lists them all.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from bench.analysis import _yardstick
from solver import files
from solver.documents import strict_json
from solver.limits import ceiling
from solver.text import show

HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
PLAY = ("from bench.web.jobs import play; from bots import make_bot; import numpy as np; "
        "from bench.records.deals import deal_table; from solver import Card; "
        "hand = tuple(Card(int(c)) for c in deal_table(1, 0, 2)[0]); "
        "mine = make_bot('greedy').arrange(hand, np.random.default_rng(0)); "
        "play(1, 0, 2, ['table'], mine.format(False), False, 'basic', 500)")
COMMANDS: dict[str, list[str]] = {
    "solve": ["-m", "bench.cli.solve", HAND, "--seed", "1"],
    "bench arrange --bot table": ["-m", "bench.cli", "arrange", "--bot", "table", HAND],
    "solve --rules 1-6": ["-m", "bench.cli.solve", HAND, "--seed", "1", "--rules", "1-6"],
    "web Play (bench.web.jobs.play)": ["-c", PLAY],
}


OWN = ("solver.", "bots.", "bench.")


def _recorded(argv: list[str], log: str) -> list[str]:
    """``argv`` run with every compile recorded to ``log``: the same module or code, in one
    process, after the recorder is installed."""
    start = f"from bench.cli._compile_notice import record; record({log!r}); import sys, runpy; "
    if argv[0] == "-m":
        return ["-c", start + f"sys.argv = {[argv[1], *argv[2:]]!r}; runpy.run_module({argv[1]!r}, run_name='__main__')"]
    return ["-c", start + argv[1]]


def _timed(argv: list[str], cache: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], env=os.environ | {"NUMBA_CACHE_DIR": cache},
                          capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()[-500:]}")
    return seconds


def _kernels(compiles: list[dict[str, Any]]) -> dict[str, Any]:
    """What a first run compiled: the count, the seconds of the compiles called from Python, and
    each of this project's kernels compiled for more than one set of argument types (Numba's own
    helpers, such as ``np.empty``'s, compile once for each type they are called with)."""
    types: dict[str, set[str]] = {}
    for entry in compiles:
        types.setdefault(str(entry["kernel"]), set()).add(entry["types"])
    return {"compiled": len(compiles), "kernels": len(types),
            "compile_s": round(sum(float(e["seconds"]) for e in compiles if e["depth"] == 0), 2),
            "more_than_once": sorted(kernel for kernel, seen in types.items()
                                     if len(seen) > 1 and kernel.startswith(OWN)),
            "each": compiles}


def measure() -> dict[str, object]:
    """Each command's first run and its second, in seconds, with the yardstick's milliseconds."""
    _yardstick.warm()
    before = _yardstick.yardstick_ms(repeats=3)
    rows = []
    for name, argv in COMMANDS.items():
        with tempfile.TemporaryDirectory(prefix="first-run-") as cache:
            log = os.path.join(cache, "compiles.json")
            first = _timed(_recorded(argv, log), cache)
            compiled = _kernels(strict_json(files.read_bytes(log, int(ceiling("document_bytes"))), "the compile log"))
            again = _timed(argv, cache)
        rows.append({"command": name, "first_s": round(first, 2), "warm_s": round(again, 2), **compiled})
    after = _yardstick.yardstick_ms(repeats=3)
    return {"document": "first-runs", "yardstick_ms": round((before + after) / 2, 2), "commands": rows,
            "cpu_count": os.cpu_count()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="one JSON document")
    parser.add_argument("--kernels", action="store_true", help="list every kernel each first run compiles")
    args = parser.parse_args(argv)
    found = measure()
    if args.json:
        show(json.dumps(found, indent=1))
        return 0
    show(f"{'command':<32} {'first run':>10} {'warm':>8} {'kernels':>8} {'compiling':>10}  compiled more than once")
    for row in found["commands"]:  # type: ignore[attr-defined]
        show(f"{row['command']:<32} {row['first_s']:>9.1f}s {row['warm_s']:>7.2f}s {row['kernels']:>8} "
             f"{row['compile_s']:>9.1f}s  {', '.join(row['more_than_once']) or '-'}")
        if args.kernels:
            for entry in row["each"]:
                show(f"    {'  ' * entry['depth']}{entry['kernel']}({entry['types']}) {entry['seconds']:.2f}s")
    show(f"yardstick {found['yardstick_ms']} ms in this process; {found['cpu_count']} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
