"""Every command, every bad input or fault: one line on stderr and the right exit status.

Each case runs the installed entry points' code as a real subprocess (``python -m``),
since tracebacks and exit statuses are what a user sees. Bad input exits 2; a bot or
plug-in that fails while playing exits 1 with a line naming the bot, the hand and the
error. No case may print a traceback. Add a case for every error found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"

pytestmark = pytest.mark.slow  # dozens of subprocesses; tests/test_cli.py checks one-line errors in-process, fast


def _files(folder: Path) -> dict[str, Path]:
    """Damaged and odd inputs the cases use."""
    truncated = folder / "truncated.npz"
    truncated.write_bytes((ROOT / "bots" / "data" / "table_basic.npz").read_bytes()[:2000])
    garbage = folder / "garbage.npz"
    garbage.write_bytes(b"this is not a zip archive")
    latin = folder / "latin1.txt"
    latin.write_bytes(HAND.encode() + b"\n# caf\xe9\n")
    example = json.loads((ROOT / "bench" / "data" / "example_results.json").read_text())
    missing = dict(example)
    missing.pop("records")
    (folder / "missing.json").write_text(json.dumps(missing))
    (folder / "future.json").write_text(json.dumps(example | {"schema_version": 99}))
    broken = json.loads(json.dumps(example))
    broken["records"][3]["plays"][0][1]["values"] = [1, 2]
    (folder / "broken.json").write_text(json.dumps(broken))
    (folder / "nobench.json").write_text(json.dumps({"machine_info": {}, "benchmarks": []}))
    (folder / "notbench.json").write_text(json.dumps({"hello": 1}))
    (folder / "a_file").write_text("x")
    (folder / "strbool.json").write_text('{"royalty_needs_win": "false"}')
    return {"truncated": truncated, "garbage": garbage, "latin": latin, "dir": folder}


# (name, argv with {placeholders}, exit status, what the one line says)
CASES = [
    ("solve negative seed", ["solve", HAND, "--seed", "-1"], 2, "a seed is a whole number >= 0, got -1"),
    ("solve zero samples", ["solve", HAND, "--samples", "0"], 2, "expected a whole number >= 1, got 0"),
    ("solve bad card", ["solve", HAND.replace("2C", "1C")], 2, "unknown rank '1'"),
    ("solve two scorings", ["solve", HAND, "--rules", "1-6+2-4"], 2, "sets the scoring method twice"),
    ("solve string boolean", ["solve", HAND, "--rules", "{dir}/strbool.json"], 2,
     "royalty_needs_win must be true or false, got 'false' in rules file"),
    ("solve unknown opponent", ["solve", HAND, "--opponent", "gredy"], 2, "unknown bot 'gredy'"),
    ("solve truncated tables", ["solve", HAND, "--opponent", "table:tables={truncated}"], 2,
     "is damaged or not made by bench train"),
    ("solve garbage tables", ["solve", HAND, "--opponent", "table:tables={garbage}"], 2,
     "is damaged or not made by bench train"),
    ("solve missing tables", ["solve", HAND, "--opponent", "table:tables={dir}/nothere.npz"], 2,
     "cannot read tables from"),
    ("solve raising opponent", ["solve", HAND, "--opponent", "tests.plugin_bot:RaisingBot", "--samples", "20"], 1,
     r"bot 'raiser' failed on hand .*: RuntimeError: no idea what to do"),
    ("solve stringy opponent", ["solve", HAND, "--opponent", "tests.plugin_bot:NotAnArrangementBot"], 1,
     r"bot 'stringer' returned str, not an Arrangement, for hand"),
    ("solve cheating opponent", ["solve", HAND, "--opponent", "tests.plugin_bot:CheatingBot"], 1,
     r"bot 'cheater' set other cards than it was dealt"),
    ("solve bad batch opponent", ["solve", HAND, "--opponent", "tests.plugin_bot:BadBatchBot"], 1,
     r"bot 'bad-batch' set hand 1 \(.*\) as other cards"),
    ("arrange negative seed", ["bench", "arrange", "--bot", "greedy", HAND, "--seed", "-5"], 2,
     "a seed is a whole number >= 0"),
    ("arrange not utf-8", ["bench", "arrange", "--bot", "greedy", "--input", "{latin}"], 2,
     "line 2 is not UTF-8 text"),
    ("arrange missing input", ["bench", "arrange", "--bot", "greedy", "--input", "{dir}/nothere.txt"], 2,
     "cannot read"),
    ("arrange raising bot", ["bench", "arrange", "--bot", "tests.plugin_bot:RaisingBot", HAND], 1,
     r"bot 'raiser' failed on hand AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C: RuntimeError"),
    ("arrange stringy bot", ["bench", "arrange", "--bot", "tests.plugin_bot:NotAnArrangementBot", HAND], 1,
     "not an Arrangement"),
    ("arrange cheating bot", ["bench", "arrange", "--bot", "tests.plugin_bot:CheatingBot", HAND], 1,
     "set other cards than it was dealt"),
    ("arrange bad tables", ["bench", "arrange", "--bot", "table:tables={garbage}", HAND], 2, "is damaged"),
    ("tournament negative seed", ["bench", "tournament", "--bots", "greedy,random", "--seed", "-1"], 2,
     "a seed is a whole number >= 0"),
    ("tournament zero sessions", ["bench", "tournament", "--bots", "greedy", "--sessions", "0"], 2,
     "expected a whole number >= 1"),
    ("tournament raising bot", ["bench", "tournament", "--bots", "greedy,tests.plugin_bot:RaisingBot",
                                "--sessions", "1", "--seed", "1", "--jobs", "1"], 1, r"bot 'raiser' failed on hand"),
    ("tournament cheating bot", ["bench", "tournament", "--bots", "tests.plugin_bot:CheatingBot,greedy",
                                 "--sessions", "1", "--seed", "1", "--jobs", "2"], 1, "set other cards"),
    ("tournament out is a file", ["bench", "tournament", "--bots", "greedy", "--out", "{dir}/a_file"], 2,
     "exists and is not a folder"),
    ("tournament out not writable", ["bench", "tournament", "--bots", "greedy", "--out", "{dir}/a_file/sub"], 2,
     "cannot write to --out"),
    ("train negative seed", ["bench", "train", "--seed", "-1"], 2, "a seed is a whole number >= 0"),
    ("train no npz", ["bench", "train", "--hands", "100", "--rounds", "1", "--out", "{dir}/tables"], 2,
     r"tables are saved as .npz files; name it tables.npz"),
    ("train folder missing", ["bench", "train", "--out", "{dir}/no/such/t.npz"], 2, "does not exist"),
    ("train out is a folder", ["bench", "train", "--out", "{dir}"], 2, "tables are saved as .npz files"),
    ("report missing keys", ["bench", "report", "{dir}/missing.json"], 2, "results has no 'records'"),
    ("report unknown schema", ["bench", "report", "{dir}/future.json"], 2, "its schema_version is 99"),
    ("report broken record", ["bench", "report", "{dir}/broken.json"], 2,
     r"records\[3\]\.plays\[0\]\[1\]\.values has 2 items, fewer than 3"),
    ("report not json", ["bench", "report", "{latin}"], 2, "is not JSON"),
    ("perf no benchmarks", ["bench", "perf", "--from-json", "{dir}/nobench.json", "--out", "{dir}/perf"], 2,
     "its list of benchmarks is empty"),
    ("perf not benchmarks", ["bench", "perf", "--from-json", "{dir}/notbench.json", "--out", "{dir}/perf"], 2,
     "it has no list of benchmarks"),
    ("perf out is a file", ["bench", "perf", "--from-json", "{dir}/nobench.json", "--out", "{dir}/a_file"], 2,
     "exists and is not a folder"),
]


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    module = "bench.cli.solve" if argv[0] == "solve" else "bench.cli"
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    env.pop("CHINESE_POKER_DEBUG", None)
    return subprocess.run([sys.executable, "-m", module, *argv[1:]], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    files = _files(tmp_path_factory.mktemp("inputs"))
    argvs = [[a.format(**files) for a in argv] for _, argv, _, _ in CASES]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip((c[0] for c in CASES), pool.map(_run, argvs)))


@pytest.mark.parametrize("name, argv, status, message", CASES, ids=[c[0] for c in CASES])
def test_each_error_is_one_line_with_its_exit_status(outcomes, name, argv, status, message):
    """Fails on a traceback, a wrong exit status, or a last line that does not say what went wrong."""
    import re

    done = outcomes[name]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == status, (done.returncode, done.stderr)
    assert lines, "nothing on stderr"
    prog = "solve" if argv[0] == "solve" else f"bench {argv[1]}"
    assert lines[-1].startswith(f"{prog}: error: "), lines[-1]
    assert re.search(message, lines[-1]), lines[-1]


def test_debug_shows_the_traceback():
    """--debug (and the environment variable) add the traceback; the last line stays the same."""
    done = _run(["solve", HAND, "--opponent", "tests.plugin_bot:RaisingBot", "--samples", "5", "--debug"])
    assert done.returncode == 1 and "Traceback" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("solve: error: opponent model")
