"""Every backend gives the same records, time limits hold in threads and workers alike,
start-up is not a decision, and nothing of a run outlives it, however it ends.

Where a time limit is the point, the slow side is slow by orders of magnitude (a bot that
sleeps seconds against a limit of a millisecond, or a first decision of seconds against a
start-up limit of a minute), never by a factor a loaded machine can close."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from bench.run.play import RunSettings
from bench.run.runner import run_deals
from solver.rules import BASIC
from tests.helpers import ENV, ROOT
from tests.helpers import bench as _bench
from tests.helpers import without_seconds as _strip

SORTED = str(ROOT / "examples" / "bots" / "sorted_bot.toml")
BACKENDS = [("sequential", 1), ("loky", 1), ("loky", 2), ("threading", 1), ("threading", 2), ("dask", 1),
            ("dask", 2)]


def _noting_bot(tmp_path: Path, name: str = "noting", slow: float = 0.0) -> tuple[Path, Path]:
    """A protocol bot file whose processes note their start and their quit in a folder (and
    take ``slow`` seconds on hands with the ace of spades)."""
    folder = tmp_path / "notes"
    folder.mkdir(exist_ok=True)
    path = tmp_path / "noting.toml"
    path.write_text(f"name = {json.dumps(name)}\n"
                    f"command = [{json.dumps(sys.executable)}, {json.dumps(str(ROOT / 'tests' / 'backend_bots.py'))}, "
                    f"{json.dumps(str(folder))}, \"{slow}\"]\ndecision_timeout = 60\n")
    return path, folder


@pytest.mark.slow
@pytest.mark.parametrize("on_fault, specs, players", [
    ("foul", ("greedy", SORTED, "tests.plugin_bot:FlakyBot"), 2),
    ("stop", ("random", "exhaustive:samples=20", SORTED), 3),
], ids=["foul", "stop"])
def test_protocol_and_python_bots_give_the_same_records_on_every_backend(on_fault, specs, players):
    """Every backend and worker count gives the sequential run's records, decision by decision,
    in chunks of 2 deals so that the work really is split. Fails if threads share a bot (a
    protocol bot's answers then go to the wrong thread: faults, or a run stopped blaming a
    correct bot), or if a seat's seed depends on the worker, the chunk or the order the chunks
    finish in (random and exhaustive, whose opponents are dealt from it, draw from their rng)."""
    pytest.importorskip("dask.distributed")
    match = RunSettings(specs, players, 5, BASIC, decision_timeout=30.0, on_fault=on_fault)
    expected = _strip(run_deals(specs, players, 5, 24, backend="sequential", settings=match, chunk_size=2))
    if on_fault == "foul":
        assert any(p.fault for r in expected for p in r.plays[2])  # the flaky bot's hands
    else:
        assert len({p.arrangement for r in expected for p in r.plays[0]}) > 24  # random really varies
    assert not any(p.fault for r in expected for row in r.plays[:2] for p in row)
    for backend, jobs in BACKENDS:
        records = run_deals(specs, players, 5, 24, jobs=jobs, backend=backend, settings=match, chunk_size=2)
        assert [r.deal for r in records] == list(range(24)), (backend, jobs)
        assert _strip(records) == expected, (backend, jobs)


@pytest.mark.slow
@pytest.mark.parametrize("backend, jobs", [("sequential", 1), ("threading", 2), ("loky", 2)])
def test_a_decision_over_its_limit_is_the_same_fault_on_every_backend(backend, jobs):
    """A bot that takes 2 s against a limit of 1 ms: in a process's main thread a timer stops
    it; in threads, where nothing can stop it, it is judged late when it returns. Either way
    every decision is the same fault (and the test does not wait 2 s per hand where a timer
    can stop it)."""
    specs = ("tests.backend_bots:SlowBot:seconds=2", "greedy")
    match = RunSettings(specs, 2, 3, BASIC, decision_timeout=0.001, on_fault="foul")
    records = run_deals(specs, 2, 3, 2, jobs=jobs, backend=backend, settings=match, chunk_size=1)
    slow = [p for r in records for p in r.plays[0]]
    assert len(slow) == 4 and all(p.foul for p in slow)
    assert all("no answer within the time limit of 0.001 s for hand" in (p.fault or "") for p in slow)


@pytest.mark.slow
def test_a_protocol_bot_over_the_match_limit_is_judged_alike_on_every_backend(tmp_path):
    """A protocol bot that answers hands with the ace of spades after 2 s, against a match
    limit of 0.5 s (its own deadline is 60 s): each such hand is a time fault, judged when the
    answer comes, on every backend; its process is never interrupted mid-answer (no restart,
    no answer left in the pipe), so the other hands are the same everywhere."""
    path, folder = _noting_bot(tmp_path, slow=2.0)
    specs = ("greedy", str(path))
    match = RunSettings(specs, 2, 4, BASIC, decision_timeout=0.5, on_fault="foul")
    expected = _strip(run_deals(specs, 2, 4, 8, backend="sequential", settings=match, chunk_size=2))
    aces = [(r.deal, s) for r in expected for s, hand in enumerate(r.hands) if "AS" in hand.split()]
    faults = [(r.deal, s) for r in expected for s, p in enumerate(r.plays[1]) if p.fault]
    assert aces and faults == aces
    assert all("no answer within the time limit of 0.5 s" in (r.plays[1][s].fault or "") for r in expected
               for s in range(2) if (r.deal, s) in aces)
    for backend, jobs in [("threading", 2), ("loky", 2)]:
        records = run_deals(specs, 2, 4, 8, jobs=jobs, backend=backend, settings=match, chunk_size=2)
        assert _strip(records) == expected, backend


@pytest.mark.parametrize("on_fault", ["foul", "stop"])
def test_a_tiny_limit_is_a_fault_of_the_bot_never_an_internal_error(on_fault):
    """A timer that fires anywhere in the decision (before the bot is even called, or while
    its answer is checked) is the bot's time fault."""
    from bench.run.play import DecisionFault

    match = RunSettings(("greedy", "random"), 2, 1, BASIC, decision_timeout=1e-6, on_fault=on_fault)
    for _ in range(5):
        if on_fault == "stop":
            with pytest.raises(DecisionFault, match="time limit of 1e-06 s"):
                run_deals(match.specs, 2, 1, 8, backend="sequential", settings=match, chunk_size=8)
            continue
        records = run_deals(match.specs, 2, 1, 8, backend="sequential", settings=match, chunk_size=8)
        plays = [p for r in records for row in r.plays for p in row]
        assert all(p.foul and "time limit of 1e-06 s" in p.fault for p in plays if p.fault)


@pytest.mark.slow
@pytest.mark.parametrize("value", ["1e-9", "0", "-1", "inf", "-inf", "nan", "1e300", "90000", "soon"])
@pytest.mark.parametrize("flag", ["--decision-timeout", "--startup-timeout"])
def test_time_limits_are_checked_at_the_edge(flag, value):
    done = _bench("tournament", "--bots", "greedy,random", "--sessions", "1", f"{flag}={value}")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert f"argument {flag}: expected seconds from 0.001 to 86400, got '{value}'" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sequential", "loky"])
def test_start_up_is_not_charged_to_the_first_decision(tmp_path, backend):
    """A bot whose first decision in a process takes 5 s (a JIT warming up), against a decision
    limit of 0.5 s and a start-up limit of 60: its start-up is a warm-up decision, apart,
    and no decision of the run is a fault."""
    done = _bench("tournament", "--bots", "greedy,tests.backend_bots:SlowStartBot:first=5", "--sessions", "1",
                  "--seed", "2", "--jobs", "2", "--backend", backend, "--decision-timeout", "0.5",
                  "--on-fault", "foul", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["results"]["by_bot"]["tests.backend_bots:SlowStartBot:first=5"]["fault_count"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sequential", "loky", "threading"])
def test_a_start_up_over_its_limit_ends_the_run_in_one_line(backend):
    """A first decision of 3 s against a start-up limit of 1 ms: the run ends naming the bot
    and the limit (where a timer can stop the start-up, without waiting for it)."""
    done = _bench("tournament", "--bots", "tests.backend_bots:SlowStartBot:first=3,greedy", "--sessions", "1",
                  "--seed", "2", "--jobs", "2", "--backend", backend, "--startup-timeout", "0.001")
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("bench tournament: error: bot 'tests.backend_bots:SlowStartBot:first=3' did not start "
                           "within its start-up limit of 0.001 s"), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_bot_name_with_a_slash_keeps_its_log_in_the_run_folder(tmp_path):
    path, _ = _noting_bot(tmp_path, name="team/bot ../v1")
    out = tmp_path / "run"
    done = _bench("tournament", "--bots", f"greedy,{path}", "--sessions", "1", "--seed", "1", "--jobs", "2",
                  "--out", str(out))
    assert done.returncode == 0, done.stderr
    logs = [p for p in tmp_path.rglob("*.log")]
    assert logs and all(log.parent == out for log in logs), logs


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["loky", "threading", "dask", "sequential"])
def test_every_bot_process_is_asked_to_quit_at_the_end(tmp_path, backend):
    """Fails if a bot process of the run is killed without being sent quit (in a worker
    process, a thread, or the command's own process)."""
    if backend == "dask":
        pytest.importorskip("dask.distributed")
    path, folder = _noting_bot(tmp_path)
    done = _bench("tournament", "--bots", f"greedy,{path}", "--sessions", "2", "--seed", "1", "--jobs", "2",
                  "--backend", backend)
    assert done.returncode == 0, done.stderr
    started = {p.name.split("-")[1] for p in folder.glob("started-*")}
    quit_ = {p.name.split("-")[1] for p in folder.glob("quit-*")}
    assert len(started) >= (1 if backend == "sequential" else 2)  # the command's own, and the workers'
    assert quit_ == started


def _run_processes(mark: str) -> list[psutil.Process]:
    """Every process whose environment carries the mark (the bench and all it started)."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get("BENCH_TEST_MARK") == mark and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["loky", "threading", "sequential"])
def test_nothing_of_a_run_outlives_a_kill_9(tmp_path, backend):
    """kill -9 of a running tournament with a protocol bot: every process it started (loky
    workers, the resource tracker, bot processes) is gone within seconds, not after loky's
    idle timeout."""
    path, folder = _noting_bot(tmp_path)
    mark = uuid.uuid4().hex
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", "tournament", "--bots",
                                f"exhaustive:samples=400,{path}", "--sessions", "200", "--seed", "1", "--jobs", "2",
                                "--backend", backend], cwd=ROOT, env=ENV | {"BENCH_TEST_MARK": mark},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        wanted = 1 if backend == "sequential" else 3  # bots of the command and of its workers or threads
        while time.monotonic() < deadline and len(list(folder.glob("started-*"))) < wanted:
            assert process.poll() is None, "the run ended before it could be killed"
            time.sleep(0.1)
        time.sleep(1)
        assert process.poll() is None
        before = _run_processes(mark)
        assert len(before) > wanted  # the bench and its bots, at least
        process.kill()
        process.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _run_processes(mark):
            time.sleep(0.1)
        assert not _run_processes(mark), [p.cmdline() for p in _run_processes(mark)]
    finally:
        process.kill()
        for left in _run_processes(mark):
            left.kill()


@pytest.mark.slow
def test_ctrl_c_on_loky_sends_quit_to_the_bots_of_the_workers(tmp_path):
    path, folder = _noting_bot(tmp_path)
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", "tournament", "--bots",
                                f"exhaustive:samples=400,{path}", "--sessions", "200", "--seed", "1", "--jobs", "2"],
                               cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list(folder.glob("started-*"))) < 3:
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    started = {p.name.split("-")[1] for p in folder.glob("started-*")}
    assert len(started) >= 3 and {p.name.split("-")[1] for p in folder.glob("quit-*")} == started


@pytest.mark.slow
def test_ctrl_c_asks_to_quit_a_bot_still_starting_in_a_worker(tmp_path):
    """A bot of a worker that has not said hello yet when Ctrl-C comes is asked to quit like
    the others (it was killed without a word: the worker closed only the bots it had made)."""
    from tests.test_protocol_faults import bot_file

    path = bot_file(tmp_path, "slow-hello", env={"SLEEP": "60"})
    trace = tmp_path / "trace.log"
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", "tournament", "--bots", f"{path},greedy",
                                "--sessions", "4", "--seed", "1", "--jobs", "2", "--log-protocol", str(trace)],
                               cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300

    def hellos() -> set[str]:
        lines = trace.read_text().splitlines() if trace.exists() else []
        return {line.split()[2] for line in lines if '→ {"type": "hello"' in line}

    while time.monotonic() < deadline and len(hellos()) < 3:  # the main process's bot, then one a worker
        time.sleep(0.1)
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    lines = trace.read_text().splitlines()
    quits = {line.split()[2] for line in lines if '→ {"type": "quit"}' in line}
    assert len(hellos()) >= 3 and hellos() <= quits, lines
