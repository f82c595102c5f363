"""Requests too large to fit are refused before any work, and a closed standard output
(``solve ... | head -3``) ends every command quietly, as it ends a Unix tool."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import main as bench_main
from bench.cli.solve import main as solve_main
from solver import config, sampling, system

ROOT = Path(__file__).resolve().parents[1]
ENV = os.environ | {"PYTHONPATH": str(ROOT)}
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
PLAY = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"


# --- memory -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_billion_samples_are_refused_before_any_work():
    """1e9 samples need hundreds of GiB: one line that names the estimate and the limit, exit 2,
    at once (not a MemoryError after trying)."""
    done = subprocess.run([sys.executable, "-m", "bench.cli.solve", HAND, "--samples", "1000000000"], cwd=ROOT, env=ENV,
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
    monkeypatch.setattr(system, "available_memory", lambda: 2**30)
    main = solve_main if argv[0] == "solve" else bench_main
    status = main(argv[1:])
    err = capsys.readouterr().err
    assert status in (1, 2) and len(err.strip().splitlines()) == 1, err
    assert "3,000,000 samples would need about 2.0 GiB of memory, more than the 1.0 GiB available" in err
    assert solve_main([HAND, "--samples", "300", "--seed", "1"]) == 0


def test_a_small_sample_does_not_read_the_memory_left(monkeypatch):
    """Below config.SMALL_NEED the memory left is not read (it costs more than the check is worth);
    one sample above it is weighed against it."""
    def unreadable():
        raise AssertionError("the memory left was read")

    monkeypatch.setattr(system, "available_memory", unreadable)
    small = (config.SMALL_NEED - 1) // config.BYTES_PER_SAMPLE
    sampling.check_memory(small)
    with pytest.raises(AssertionError, match="was read"):
        sampling.check_memory(small + 1)


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
    "solve": ["bench.cli.solve", HAND, "--seed", "1"],
    "solve --json": ["bench.cli.solve", HAND, "--seed", "1", "--json"],
    "solve --grade": ["bench.cli.solve", HAND, "--seed", "1", "--grade", PLAY],
    "bench bots": ["bench.cli", "bots"],
    "bench arrange": ["bench.cli", "arrange", "--bot", "greedy", HAND],
    "bench match": ["bench.cli", "match", "greedy", "table", "--max-deals", "16", "--seed", "1", "--jobs", "1"],
    "bench tournament": ["bench.cli", "tournament", "--bots", "greedy,random", "--sessions", "1", "--seed", "1",
                         "--jobs", "1", "--out", "{dir}/closed"],
    "bench report": ["bench.cli", "report", "{dir}/t/results.json", "--out", "{dir}/report"],
    "bench grade": ["bench.cli", "grade", "--input", "{dir}/plays.txt", "--samples", "200", "--seed", "1"],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_closed_stdout_is_a_quiet_exit(results, name):
    """Nothing on stderr but what the command says while it works, no traceback, no internal
    error, and status 141 (the status of a Unix tool ended by SIGPIPE); what a run saves is saved."""
    done = _run_into_closed_pipe([a.replace("{dir}", str(results)) for a in COMMANDS[name]])
    assert done.returncode == 141, done.stderr
    assert "Error" not in done.stderr and "Traceback" not in done.stderr and "internal" not in done.stderr, done.stderr
    if name == "bench tournament":
        assert (results / "closed" / "results.json").exists()


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    f'{sys.executable} -m bench.cli.solve "{HAND}" --seed 1 --top 40 --distinct values | head -3',
    f"{sys.executable} -m bench.cli bots | head -1",
])  # fmt: skip
def test_head_closing_the_pipe_early_is_quiet(command):
    """The pipe as a shell has it: ``head`` leaves after its lines while the command may still
    be writing, and either ending is quiet. Which ending comes is a race; the one where ``head``
    has left before the command writes is made certain, command by command, in
    test_a_closed_stdout_is_a_quiet_exit."""
    done = subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode in (0, 141), done.stderr
    assert done.stderr == "", done.stderr
    assert done.stdout


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [
    ["bench.cli.solve", HAND, "--seed", "1", "--samples", "200"],
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


# --- limits: solver.limits, checked before any work -------------------------------------------


def _refused(argv: list[str], status: int = 2) -> str:
    """The one line a command (run as a subprocess) refuses ``argv`` with; a generous time-out
    only guards against a hang."""
    done = subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == status and len(lines) == 1, (done.returncode, done.stderr)
    assert "internal error" not in lines[0] and "Traceback" not in done.stderr, done.stderr
    return lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["bench.cli", "tournament", "--bots", "greedy,random", "--sessions", "1", "--seed", "1", "--jobs", "100000"],
    ["bench.cli", "match", "greedy", "random", "--max-deals", "16", "--seed", "1", "--jobs", "100000"],
    ["bench.cli", "train", "--hands", "1000", "--rounds", "1", "--jobs", "100000", "--out", "{tmp}/t.npz"],
    ["bench.cli", "verify", "{tmp}", "--jobs", "100000"],
], ids=["tournament", "match", "train", "verify"])
def test_jobs_beyond_the_limit_a_core_start_no_worker(tmp_path, argv):
    """--jobs 100000 started dozens of processes (tournament) and hundreds of threads (train):
    every command with --jobs refuses more than the limit per core at once."""
    line = _refused([a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert "argument --jobs: 100,000 is above the limit of" in line and "per core on" in line, line
    assert not (tmp_path / "t.npz").exists()


@pytest.mark.slow
def test_a_tournament_bench_report_would_refuse_is_refused_before_it_starts():
    """20 bots at 4 seats (116,280 seatings) ran for minutes and wrote a results.json bench report
    refuses: the tournament refuses it first, by the same check."""
    line = _refused(["bench.cli", "tournament", "--bots", ",".join(["greedy"] * 20), "--players", "4",
                     "--sessions", "1", "--seed", "1", "--jobs", "1"])
    assert "20 bots at 4-player tables make 116,280 seatings, more than the limit of 100,000" in line, line
    assert "bench report would refuse its results.json" in line, line


def test_the_tournament_and_the_report_read_one_limit(monkeypatch, capsys, tmp_path):
    """Lower the seatings limit of solver.limits: the tournament refuses the run and bench report
    refuses the results.json of such a run, both from the same value."""
    import dataclasses
    import json

    from bench.report.summary import example_results
    from solver.limits import LIMITS

    monkeypatch.setitem(LIMITS, "seatings", dataclasses.replace(LIMITS["seatings"], high=10))
    assert bench_main(["tournament", "--bots", "greedy,random,table,heuristic", "--players", "4", "--sessions", "1",
                       "--seed", "1", "--jobs", "1"]) == 2
    assert "4 bots at 4-player tables make 24 seatings, more than the limit of 10" in capsys.readouterr().err
    (tmp_path / "results.json").write_text(json.dumps(example_results()))  # 4 bots at 4 seats
    assert bench_main(["report", str(tmp_path / "results.json"), "--out", str(tmp_path / "report")]) == 2
    assert "4 bots at 4-player tables make 24 seatings, more than the limit of 10" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("samples, message", [
    ("1000000000000", "argument --samples: 1,000,000,000,000 is above the limit of 1,000,000,000"),
    ("900000000", "900,000,000 samples would need about"),
], ids=["above-the-limit", "above-the-memory"])
def test_exploit_refuses_samples_it_cannot_take_in_one_line(samples, message):
    """exploit --samples 1e12 failed at the first hand as "bot 'exhaustive' failed", a bot the
    user never named: refused before any hand, naming the option's value."""
    line = _refused(["bench.cli", "exploit", "--bot", "greedy", "--hands", "1", "--seed", "1", "--samples", samples])
    assert message in line and "exhaustive" not in line, line


@pytest.mark.slow
@pytest.mark.parametrize("sprt, rules, message", [
    ("0,1e308", "basic", "within the results a deal can have under the rules, -3 to +3 units"),
    ("-7,0", "1-6", "-6 to +6 units"),
    ("0,1e309", "basic", "must be finite numbers"),
])
def test_sprt_hypotheses_outside_the_scores_of_the_rules_are_refused(sprt, rules, message):
    """--sprt=0,1e308 was an internal OverflowError: the hypotheses must be finite, ordered and
    within what a deal can score under the match's rules."""
    line = _refused(["bench.cli", "match", "greedy", "random", f"--sprt={sprt}", "--rules", rules, "--seed", "1",
                     "--jobs", "1"])
    assert message in line, line


@pytest.mark.slow
@pytest.mark.parametrize("units", [10**29, 2**62, 10_001])
def test_house_royalties_beyond_the_limit_are_refused(tmp_path, units):
    """Royalties of 10^29 were an internal OverflowError and 2^62 silently changed an EV:
    each royalty and payout is a whole number up to the limit ``units``."""
    import json

    house = tmp_path / "house.json"
    house.write_text(json.dumps({"royalties": {"back": {"four of a kind": units}}}))
    line = _refused(["bench.cli.solve", HAND, "--samples", "50", "--seed", "1", "--rules", str(house)])
    assert f"royalty for back four of a kind is {units:,}, above the limit of 10,000" in line, line
    payout = tmp_path / "payout.json"
    payout.write_text(json.dumps({"naturals": True, "natural_payouts": {"dragon": units}}))
    line = _refused(["bench.cli.solve", HAND, "--samples", "50", "--seed", "1", "--rules", str(payout)])
    assert f"payout for dragon is {units:,}, above the limit of 10,000" in line, line


@pytest.mark.slow
def test_a_rule_named_twice_is_refused():
    line = _refused(["bench.cli.solve", HAND, "--samples", "50", "--seed", "1", "--rules", "naturals+naturals"])
    assert "'naturals+naturals' names 'naturals' twice" in line, line


SEED_CEILING = "9,007,199,254,740,991"
OPTIONS = [  # (argv, what the one line says): every numeric option, beyond its limit
    (["bench.cli.solve", HAND, "--samples", "2000000000"], "2,000,000,000 is above the limit of 1,000,000,000"),
    (["bench.cli.solve", HAND, "--top", "100000"], "100,000 is above the limit of 1,000"),
    (["bench.cli.solve", HAND, "--seed", str(2**64)], f"is above the limit of {SEED_CEILING}"),
    (["bench.cli", "arrange", "--bot", "greedy", HAND, "--seed", str(2**64)], f"above the limit of {SEED_CEILING}"),
    (["bench.cli", "grade", "--input", "-", "--samples", "2000000000"], "above the limit of 1,000,000,000"),
    (["bench.cli", "exploit", "--hands", "1000000000"], "1,000,000,000 is above the limit of 100,000,000"),
    (["bench.cli", "exploit", "--eval-samples", "2000000000"], "above the limit of 1,000,000,000"),
    (["bench.cli", "match", "greedy", "random", "--max-deals", "9000000"], "above the limit of 8,000,000"),
    (["bench.cli", "train", "--rounds", "1000000"], "1,000,000 is above the limit of 10,000"),
    (["bench.cli", "train", "--hands", "1000000000"], "above the limit of 100,000,000"),
    (["bench.cli", "train", "--removal-hands", "1000000000"], "above the limit of 100,000,000"),
    (["bench.cli", "tournament", "--bots", "greedy,random", "--seed", str(2**64)], f"above the limit of {SEED_CEILING}"),
    (["bench.cli", "tournament", "--bots", ",".join(["greedy"] * 65), "--players", "2"],
     "the bot count is 65, above the limit of 64"),
    (["bench.cli", "tournament", "--bots", "greedy,random", "--sessions", "1000001"], "--sessions is at most 1,000,000"),
    (["bench.cli", "perf", "--seed", str(2**64)], f"above the limit of {SEED_CEILING}"),
    (["bench.cli", "serve", "--workers", "65"], "--workers must be 1 to 64, got 65"),
    (["bench.cli", "serve", "--timeout", "1e9"], "--timeout must be 0.1 to 3600 seconds"),
]


@pytest.mark.slow
@pytest.mark.parametrize("argv, message", OPTIONS, ids=[" ".join(a[1:3] + a[-2:-1]) for a, _ in OPTIONS])
def test_every_numeric_option_is_held_to_its_limit(argv, message):
    line = _refused(argv)
    assert message in line, line


def test_the_schemas_hold_the_limits_of_the_module():
    """The ceilings the JSON schemas state are those of solver.limits."""
    from bench.records.schema import schema
    from solver.limits import LIMITS

    settings = schema("journal")["$defs"]["settings"]["properties"]
    assert settings["session_count"]["maximum"] == LIMITS["sessions"].high
    for found in (settings["player_count"], schema("results")["properties"]["player_count"]):
        assert (found["minimum"], found["maximum"]) == (LIMITS["players"].low, LIMITS["players"].high)


@pytest.mark.slow
@pytest.mark.parametrize("samples, message", [
    ("1000000000000", "samples is 1,000,000,000,000, above the limit of 1,000,000,000"),
    ("900000000", "900,000,000 samples would need about"),
], ids=["above-the-limit", "above-the-memory"])
def test_an_exhaustive_bot_beyond_its_samples_is_refused_when_it_is_made(samples, message):
    """A bot spec's samples are held to the same limit and memory as --samples, when the bot
    is made: one line of bad input (exit 2), not a fault of the bot at its first hand (exit 1)."""
    line = _refused(["bench.cli", "arrange", "--bot", f"exhaustive:samples={samples}", HAND])
    assert "bad parameters for bot 'exhaustive'" in line and message in line, line
