"""Long runs lose nothing: the journal, Ctrl-C and SIGTERM, resuming, and bots that fail.

Real processes and real signals throughout: a tournament subprocess is interrupted and
resumed, bots raise, sleep past their time limit and kill their own worker process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from bench import run_deals, summarise
from bench.run.play import RunSettings
from solver.rules import BASIC
from tests.helpers import ENV, ROOT
from tests.helpers import bench as _bench
from tests.helpers import results_records as _records

RUN = ["tournament", "--bots", "greedy,exhaustive:samples=150", "--sessions", "20", "--seed", "4", "--jobs", "2"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    done = _bench(*RUN, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def _started(out: Path, lines: int) -> subprocess.Popen:
    """The tournament of RUN in a subprocess, once its journal holds ``lines`` lines."""
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", *RUN, "--out", str(out)], cwd=ROOT, env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (not journal.exists() or journal.read_text().count("\n") < lines):
        time.sleep(0.1)
    return process


def _gone(processes: list[psutil.Process]) -> bool:
    """Whether every process has ended (waiting a while for those that are ending)."""
    _, alive = psutil.wait_procs(processes, timeout=30)
    return not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.slow
def test_sigint_stops_promptly_keeps_the_work_and_resumes_to_the_same_result(tmp_path, uninterrupted):
    """Fails if Ctrl-C loses finished deals, leaves a worker behind, plays on (prompt: no
    chunk is journaled after the signal beyond those already running), or if the resumed
    run differs in any number from the uninterrupted one."""
    out = tmp_path / "run"
    process = _started(out, 4)
    children = psutil.Process(process.pid).children(recursive=True)
    assert children, "the run should have worker processes"
    lines = (out / "journal.jsonl").read_text().count("\n")
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert f"to continue: bench tournament --resume {out}" in stderr
    assert (out / "journal.jsonl").read_text().count("\n") <= lines + 4  # at most the chunks running (2 a worker)
    assert _gone(children)
    partial = json.loads((out / "results.json").read_text())
    assert partial["partial"]["played_deal_count"] < 160 and stdout.startswith("PARTIAL")
    resumed = _bench("tournament", "--resume", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stderr
    whole = json.loads((uninterrupted / "results.json").read_text())
    again = json.loads((out / "results.json").read_text())
    assert "partial" not in again and again["results"] == whole["results"]
    assert _records(out) == _records(uninterrupted)
    deals = [r["deal"] for r in again["records"]]
    assert deals == sorted(deals)  # a resumed run writes its records in deal order, as a whole run does


@pytest.mark.slow
def test_sigterm_exits_143(tmp_path):
    process = _started(tmp_path / "run", 3)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143 and "stopped by SIGTERM" in stderr and "Traceback" not in stderr


@pytest.mark.slow
def test_a_journal_cut_short_is_replayed(tmp_path, uninterrupted):
    """A last line damaged mid-write is dropped with a notice and its deals played again."""
    out = tmp_path / "run"
    out.mkdir()
    lines = (uninterrupted / "journal.jsonl").read_text().splitlines(keepends=True)
    assert len(lines) >= 4
    (out / "journal.jsonl").write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    done = _bench("tournament", "--resume", str(out))
    assert done.returncode == 0, done.stderr
    assert "cut short by a crash" in done.stderr
    assert _records(out) == _records(uninterrupted)


@pytest.mark.slow
@pytest.mark.parametrize("content, message", [
    ("", "is not a journal"),
    ('{"kind": "chinese-poker-journal", "version": 1, "settings": {"bots": ["greedy"]}}\n',
     "written by an older version of bench (journal version 1) and cannot be resumed"),
    ('{"kind": "chinese-poker-journal", "version": 2, "settings": {"bots": ["greedy"]}}\n',
     "written by an older version of bench (journal version 2) and cannot be resumed"),
    ('{"schema_version": 3, "document": "journal-header", "settings": {"bots": ["greedy"]}}\n',
     "the header) is damaged"),
])
def test_resume_of_what_is_not_a_run_is_one_line(tmp_path, content, message):
    (tmp_path / "journal.jsonl").write_text(content)
    done = _bench("tournament", "--resume", str(tmp_path))
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert _bench("tournament", "--resume", str(tmp_path / "nothing")).returncode == 2


FAULTY = [("tests.plugin_bot:FlakyBot", "ValueError: the ace of spades confuses me"),
          ("tests.plugin_bot:SleepyBot", "no answer within the time limit of 0.5 s"),
          ("tests.plugin_bot:ExitingBot", "killed its worker process"),
          # the same faults inside a batch (batch_safe bots): each is still pinned on its decision
          ("tests.plugin_bot:BatchedFlakyBot", "ValueError: the ace of spades confuses me"),
          ("tests.plugin_bot:BatchedSleepyBot", "no answer within the time limit of 0.5 s"),
          ("tests.plugin_bot:BatchedExitingBot", "killed its worker process")]
FAULT_IDS = ["raises", "sleeps", "exits", "raises-in-batch", "sleeps-in-batch", "exits-in-batch"]


@pytest.mark.slow
@pytest.mark.parametrize("spec, error", FAULTY, ids=FAULT_IDS)
def test_stop_policy_ends_cleanly_naming_the_bot_deal_and_seat(tmp_path, spec, error):
    done = _bench("tournament", "--bots", f"greedy,{spec}", "--sessions", "2", "--seed", "1", "--jobs", "2",
                  "--decision-timeout", "0.5", "--out", str(tmp_path))
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("bench tournament: error: ") and "Traceback" not in done.stderr
    assert error in last and "deal" in last and "seat" in last
    assert (tmp_path / "journal.jsonl").exists()


@pytest.mark.slow
@pytest.mark.parametrize("spec, error", FAULTY, ids=FAULT_IDS)
def test_foul_policy_scores_the_hand_as_a_foul_and_goes_on(tmp_path, spec, error):
    """The faulty hands are scored as fouls and recorded; the rest of the run is the same as
    without faults (the results do not depend on how the fault happened)."""
    done = _bench("tournament", "--bots", f"greedy,{spec}", "--sessions", "2", "--seed", "1", "--jobs", "2",
                  "--decision-timeout", "0.5", "--on-fault", "foul", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "results.json").read_text())
    bot = doc["results"]["by_bot"][spec]
    assert bot["fault_count"] > 0 and error in bot["first_faults"][0]["error"]
    faulty = [p for r in doc["records"] for p in r["plays"][1] if p.get("fault")]
    assert all(p["foul"] for p in faulty) and len(faulty) == bot["fault_count"]
    holding = sum("AS" in hand for r in doc["records"] for hand in r["hands"])
    assert bot["fault_count"] == holding  # exactly the hands with the ace of spades
    assert "fault" in (tmp_path / "report.md").read_text()


@pytest.mark.slow
def test_a_lost_dask_worker_does_not_change_the_results():
    """A LocalCluster of worker processes; one is killed mid-run; the scheduler gives its
    task to another worker and the records equal a sequential run's."""
    distributed = pytest.importorskip("dask.distributed")
    specs = ["random", "exhaustive:samples=30"]
    match = RunSettings(tuple(specs), 2, 77, BASIC)
    expected = run_deals(specs, 2, 77, 24, backend="sequential", settings=match)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        killed = []

        def progress(n: int) -> None:
            if not killed:
                pids = [w.process.pid for w in cluster.workers.values() if w.process and w.process.pid]
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        records = run_deals(specs, 2, 77, 24, jobs=2, backend="dask", scheduler=cluster.scheduler_address,
                            chunk_size=3, on_progress=progress, settings=match)
    assert killed
    assert [r.without_seconds() for r in records] == [r.without_seconds() for r in expected]
    assert summarise(records, specs, 2)["zero_sum"]


@pytest.mark.slow
def test_training_interrupted_and_resumed_equals_uninterrupted(tmp_path):
    """bench train checkpoints every round; SIGINT stops it with the checkpoint kept;
    --resume finishes with tables equal, number for number, to an uninterrupted run's."""
    import numpy as np

    whole = tmp_path / "whole.npz"
    assert _bench("train", "--hands", "4000", "--rounds", "6", "--seed", "3", "--removal-hands", "500",
                  "--out", str(whole)).returncode == 0
    assert not (tmp_path / "whole.checkpoint.npz").exists()
    part = tmp_path / "part.npz"
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", "train", "--hands", "4000", "--rounds", "6",
                                "--seed", "3", "--removal-hands", "500", "--out", str(part)], cwd=ROOT, env=ENV,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    checkpoint = tmp_path / "part.checkpoint.npz"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not checkpoint.exists():
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert f"to continue: bench train --resume {part}" in stderr
    assert checkpoint.exists() and not part.exists()
    other = _bench("train", "--resume", str(part), "--start", "basic")
    assert other.returncode == 2 and "was started with --start heuristic, not basic" in other.stderr
    resumed = _bench("train", "--resume", str(part))
    assert resumed.returncode == 0, resumed.stderr
    with np.load(whole) as a, np.load(part) as b:
        for row in ("front", "middle", "back"):
            assert np.array_equal(a[row], b[row])
    assert not checkpoint.exists()
    assert _bench("train", "--resume", str(tmp_path / "nothing.npz")).returncode == 2


def _interrupt_when(argv: list[str], ready) -> tuple[subprocess.Popen, str, str, list]:
    """Start a command, send SIGINT once ``ready()`` holds, and return it with its output
    and the child processes it had."""
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", *argv], cwd=ROOT, env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not ready(process):
        time.sleep(0.1)
    children = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    return process, stdout, stderr, children


@pytest.mark.slow
def test_sigint_stops_bench_match_with_what_it_saw(tmp_path):
    """Fails if Ctrl-C on a match leaves a traceback or a worker behind, or loses the result so far."""
    process, stdout, stderr, children = _interrupt_when(
        ["match", "exhaustive:samples=300", "table", "--sprt", "0,0.001", "--max-deals", "100000", "--seed", "1",
         "--jobs", "2"], lambda p: bool(psutil.Process(p.pid).children(recursive=True)) and time.sleep(3) is None)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert "stopped by SIGINT" in stderr and "no decision (stopped)" in stdout
    assert _gone(children)


def _reading(process: subprocess.Popen, path: Path) -> bool:
    """Whether the command has its input file open: it is grading (not still starting up)."""
    try:
        return str(path) in [f.path for f in psutil.Process(process.pid).open_files()]
    except psutil.Error:
        return False


@pytest.mark.slow
def test_sigint_stops_bench_grade_and_prints_the_hands_graded(tmp_path):
    hand = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C | 9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS\n"
    path = tmp_path / "plays.txt"
    path.write_text(hand * 4000)  # minutes of work: not done before the signal, however fast the machine
    process, stdout, stderr, _ = _interrupt_when(["grade", "--input", str(path), "--samples", "4000"],
                                                 lambda p: _reading(p, path))
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert "stopped by SIGINT after" in stderr and "hands graded" in stdout


def _lost_sigint():
    """SIGINT raised inside a ctypes callback, as during Numba's compiling: the Stopped its
    handler raises there is printed and dropped, and the caller carries on."""
    import ctypes

    ctypes.CFUNCTYPE(None)(lambda: signal.raise_signal(signal.SIGINT))()


def test_a_stop_lost_in_a_callback_is_raised_at_the_next_step(capsys):
    """It is raised once, at the next step, and not printed where it was lost (no "Exception
    ignored ... Traceback" on stderr); other lost exceptions still reach the usual hook."""
    from solver.interrupts import Stopped, check_stopped, stoppable

    carried_on = False
    seen = []
    previous = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        with pytest.raises(Stopped) as stopped:
            with stoppable():
                _lost_sigint()
                carried_on = True
                import ctypes

                ctypes.CFUNCTYPE(None)(lambda: 1 / 0)()  # any other error in a callback
                check_stopped()
    finally:
        sys.unraisablehook = previous
    assert carried_on and stopped.value.signum == signal.SIGINT
    assert [type(u.exc_value) for u in seen] == [ZeroDivisionError]
    assert "Traceback" not in capsys.readouterr().err
    check_stopped()  # outside stoppable() nothing is pending


def test_a_run_stops_after_the_chunk_in_which_a_stop_was_lost():
    from bench.run.runner import run_chunks
    from solver.interrupts import Stopped, stoppable

    done = []

    def on_done(records):
        done.append([r.deal for r in records])
        if len(done) == 1:
            _lost_sigint()

    settings = RunSettings(("greedy", "random"), 2, 3, BASIC)
    with pytest.raises(Stopped), stoppable():
        run_chunks(settings, [[0], [1], [2]], on_done, jobs=1, backend="sequential")
    assert done == [[0]]
