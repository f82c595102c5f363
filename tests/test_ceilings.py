"""Requests too large to fit are refused before any work, and a closed standard output
(``solve ... | head -3``) ends every command quietly, as it ends a Unix tool."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import main as bench_main
from bench.solve import main as solve_main
from solver import solution

ROOT = Path(__file__).resolve().parents[1]
ENV = os.environ | {"PYTHONPATH": str(ROOT)}
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
PLAY = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"


# --- memory -----------------------------------------------------------------------------------


def test_a_billion_samples_are_refused_before_any_work():
    """1e9 samples need hundreds of GiB: one line that names the estimate and the limit, exit 2,
    at once (not a MemoryError after trying)."""
    done = subprocess.run([sys.executable, "-m", "bench.solve", HAND, "--samples", "1000000000"], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0], done.stderr
    assert "1,000,000,000 samples would need about 651.9 GiB of memory, more than the" in lines[0]
    assert "GiB available" in lines[0] or "MiB available" in lines[0]


@pytest.mark.parametrize("argv", [
    ["solve", HAND, "--samples", "3000000"],
    ["solve", HAND, "--samples", "3000000", "--grade", PLAY],
    ["bench", "arrange", "--bot", "exhaustive:samples=3000000", HAND],
])  # fmt: skip
def test_the_ceiling_is_the_memory_left(monkeypatch, capsys, argv):
    """With 1 GiB left, 3 million samples (about 2 GiB) are refused by solve, by solve --grade
    and inside a bot, each in one line; a small request still runs."""
    monkeypatch.setattr(solution, "available_memory", lambda: 2**30)
    main = solve_main if argv[0] == "solve" else bench_main
    status = main(argv[1:])
    err = capsys.readouterr().err
    assert status in (1, 2) and len(err.strip().splitlines()) == 1, err
    assert "3,000,000 samples would need about 2.0 GiB of memory, more than the 1.0 GiB available" in err
    assert solve_main([HAND, "--samples", "300", "--seed", "1"]) == 0


def test_a_small_sample_does_not_read_the_memory_left(monkeypatch):
    """Below SMALL_NEED the memory left is not read (it costs more than the check is worth);
    one sample above it is weighed against it."""
    def unreadable():
        raise AssertionError("the memory left was read")

    monkeypatch.setattr(solution, "available_memory", unreadable)
    small = (solution.SMALL_NEED - 1) // solution.BYTES_PER_SAMPLE
    solution.check_memory(small)
    with pytest.raises(AssertionError, match="was read"):
        solution.check_memory(small + 1)


# --- a closed standard output -----------------------------------------------------------------


def _run_into_closed_pipe(argv: list[str]) -> subprocess.CompletedProcess:
    """Run a command whose standard output is a pipe nobody reads any more."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, env=ENV, stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=600)
    finally:
        os.close(write)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    assert bench_main(["tournament", "--bots", "greedy,random", "--sessions", "1", "--seed", "1", "--jobs", "1",
                       "--out", str(out / "t")]) == 0
    (out / "plays.txt").write_text(f"{HAND} | {PLAY}\n" * 3)
    return out


COMMANDS = {
    "solve": ["bench.solve", HAND, "--seed", "1"],
    "solve --json": ["bench.solve", HAND, "--seed", "1", "--json"],
    "solve --grade": ["bench.solve", HAND, "--seed", "1", "--grade", PLAY],
    "bench bots": ["bench.cli", "bots"],
    "bench arrange": ["bench.cli", "arrange", "--bot", "greedy", HAND],
    "bench match": ["bench.cli", "match", "greedy", "table", "--max-deals", "16", "--seed", "1", "--jobs", "1"],
    "bench tournament": ["bench.cli", "tournament", "--bots", "greedy,random", "--sessions", "1", "--seed", "1",
                         "--jobs", "1", "--out", "{dir}/closed"],
    "bench report": ["bench.cli", "report", "{dir}/t/results.json", "--out", "{dir}/report"],
    "bench grade": ["bench.cli", "grade", "--input", "{dir}/plays.txt", "--samples", "200", "--seed", "1"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_closed_stdout_is_a_quiet_exit(results, name):
    """Nothing on stderr but what the command says while it works, no traceback, no internal
    error, and status 141 (the status of a Unix tool ended by SIGPIPE); what a run saves is saved."""
    done = _run_into_closed_pipe([a.replace("{dir}", str(results)) for a in COMMANDS[name]])
    assert done.returncode == 141, done.stderr
    assert "Error" not in done.stderr and "Traceback" not in done.stderr and "internal" not in done.stderr, done.stderr
    if name == "bench tournament":
        assert (results / "closed" / "results.json").exists()


@pytest.mark.parametrize("command", [
    f'{sys.executable} -m bench.solve "{HAND}" --seed 1 --top 40 --distinct values | head -3',
    f"{sys.executable} -m bench.cli bots | head -1",
])  # fmt: skip
def test_head_closing_the_pipe_early_is_quiet_every_time(command):
    """The race as a shell has it: ``head`` leaves after its lines while the command may still
    be writing; twelve times each, every ending is quiet."""
    for _ in range(12):
        done = subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], cwd=ROOT, env=ENV, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode in (0, 141), done.stderr
        assert done.stderr == "", done.stderr
        assert done.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [
    ["bench.solve", HAND, "--seed", "1", "--samples", "200"],
    ["bench.cli", "tournament", "--bots", "greedy,random", "--sessions", "1", "--seed", "1", "--jobs", "1"],
], ids=["solve", "bench tournament"])
def test_a_full_disk_on_stdout_is_one_line(argv):
    """Output that cannot be written (a full disk) is a fault named in one line, not an internal error."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, env=ENV, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=600)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1, done.stderr
    assert last.endswith("error: cannot write the output: no space left on device"), done.stderr
    assert "internal" not in done.stderr and "Traceback" not in done.stderr, done.stderr
