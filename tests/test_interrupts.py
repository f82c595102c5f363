"""Signals and processes at the edge of a run: a time limit that lands in compiled code, a
stop while the run ends, a closed terminal, and what a bot leaves in a session of its own.

Real subprocesses and real signals throughout. Times only bound a wait (hang guards): the
signals are sent once the run is where the test needs it, as a file it writes says."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from tests.helpers import ENV, ROOT
from tests.helpers import bench as _bench
from tests.test_protocol_faults import _left_behind, bot_file

LOST = ("Traceback", "llvmlite", "Exception ignored")  # what an exception raised inside native code leaves on stderr


def _clean(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stderr
    assert not [word for word in LOST if word in done.stderr], done.stderr


# --- a time limit never raises inside compiled code -------------------------------------------


def _new_kernel():
    """A kernel new to this process: it compiles when called."""
    import numba

    offset = int(np.random.default_rng().integers(1 << 30))
    return numba.njit(lambda values: values + offset)


class _AtCompile:
    """A Numba compile listener that calls ``act`` when a compile starts: what it does happens
    inside the compile, however late a loaded machine gets there."""

    def __init__(self, act):
        from numba.core import event

        self.act, self.event = act, event
        self.listener = type("Listener", (event.Listener,), {"on_start": lambda _, e: act(), "on_end": lambda _, e: None})()

    def __enter__(self):
        self.event.register("numba:compile", self.listener)
        return self

    def __exit__(self, *exc):
        self.event.unregister("numba:compile", self.listener)


def test_a_time_limit_waits_for_a_kernel_that_compiles():
    """The limit runs out while Numba compiles: the compile finishes, nothing is printed as
    lost, and the limit is raised in the Python code after it. The compile is held long past
    the limit (a listener sleeps in it); a limit that ran out before the compile began (a
    loaded machine) proves nothing, so the next try gives it ten times longer."""
    from bench.run.play import DecisionTimeout, time_limit

    for limit in (0.02, 0.2, 2.0, 20.0):
        kernel = _new_kernel()
        lost: list = []
        hook, sys.unraisablehook = sys.unraisablehook, lost.append
        try:
            with pytest.raises(DecisionTimeout), _AtCompile(functools.partial(time.sleep, limit * 3)):
                with time_limit(limit):
                    kernel(np.arange(3))
                    while True:
                        time.sleep(0.001)
        finally:
            sys.unraisablehook = hook
        assert not lost, lost
        if kernel.signatures:
            break
    assert len(kernel.signatures) == 1


def test_a_stop_waits_for_a_kernel_that_compiles():
    """Ctrl-C while Numba compiles, inside a stoppable command: the compile finishes and the
    stop is raised in the Python code after it, not inside the compiler. The signal is sent
    from inside the compile (a compile listener), so it lands there on any machine."""
    from solver.interrupts import Stopped, check_stopped, stoppable

    kernel = _new_kernel()
    lost: list = []
    hook, sys.unraisablehook = sys.unraisablehook, lost.append
    try:
        with pytest.raises(Stopped) as stopped, _AtCompile(lambda: os.kill(os.getpid(), signal.SIGINT)):
            with stoppable():
                kernel(np.arange(3))
                for _ in range(60_000):  # a hang guard of a minute
                    time.sleep(0.001)
                    check_stopped()
    finally:
        sys.unraisablehook = hook
    assert stopped.value.signum == signal.SIGINT
    assert len(kernel.signatures) == 1 and not lost, lost


def test_a_stop_that_another_thread_takes_waits_for_the_end_of_a_held_block():
    """SIGINT taken by a thread that does not block it (as a BLAS library's threads do) inside
    held(): Python runs the handler in the main thread all the same, and the stop must not be
    raised there; it is raised after the block, at the next step."""
    from solver.interrupts import Stopped, check_stopped, held, stoppable

    other = threading.Thread(target=time.sleep, args=(5,), daemon=True)
    other.start()  # started before the block: its signal mask lets SIGINT in
    reached_end = False
    with pytest.raises(Stopped):
        with stoppable():
            with held():
                signal.pthread_kill(other.ident, signal.SIGINT)
                for _ in range(200):  # the handler runs at one of these steps, in the main thread
                    time.sleep(0.001)
                reached_end = True
            for _ in range(60_000):  # a hang guard of a minute
                time.sleep(0.001)
                check_stopped()
    assert reached_end


def test_a_stop_that_waited_for_a_held_block_is_raised_as_it_ends_even_when_the_command_ends_next():
    """The stop that another thread took inside held() was sent again by a timer a moment after
    the block; a command whose work ended within that moment left stoppable() first, and the
    stop was lost (the command finished as if never stopped). It is raised as the block ends."""
    from solver import interrupts
    from solver.interrupts import Stopped, held, stoppable

    other = threading.Thread(target=time.sleep, args=(5,), daemon=True)
    other.start()
    with pytest.raises(Stopped):
        with stoppable():
            with held():
                signal.pthread_kill(other.ident, signal.SIGINT)
                for _ in range(60_000):  # until the handler has run in the main thread and waited
                    if interrupts._received:
                        break
                    time.sleep(0.001)
                assert interrupts._received == [signal.SIGINT]
            # the command's work is done: nothing more runs inside stoppable()


def test_a_stop_that_waited_is_not_sent_again_once_its_command_has_ended(monkeypatch):
    """A stop that waited for a held() block, whose stoppable() command ended inside that block:
    the end of the block must not send it again, to the handler that is back (Python's own,
    which would raise KeyboardInterrupt in whatever runs next)."""
    from solver import config, interrupts
    from solver.interrupts import held, stoppable

    monkeypatch.setattr(config, "RETRY_SECONDS", 60.0)  # the retry timer stays out of the way
    other = threading.Thread(target=time.sleep, args=(5,), daemon=True)
    other.start()
    with held():
        with stoppable():
            signal.pthread_kill(other.ident, signal.SIGINT)
            for _ in range(60_000):
                if interrupts._retrying:
                    break
                time.sleep(0.001)
        assert signal.SIGINT in interrupts._retrying  # waiting, for a handler no longer installed
    assert signal.SIGINT not in interrupts._retrying


def test_a_storm_of_signals_inside_a_held_block_waits_with_one_retry(monkeypatch):
    """Each signal that came inside held() started a timer thread of its own; a signal sent as a
    thread starts (what a pool does while Ctrl-C is held down) made each timer's start send
    another, until the handler failed with RecursionError inside the pool and its thread was
    lost. One retry a signal is pending at a time."""
    from solver import config, interrupts
    from solver.interrupts import Stopped, held, stoppable

    monkeypatch.setattr(config, "RETRY_SECONDS", 60.0)  # each retry timer stays alive, to be counted
    other = threading.Thread(target=time.sleep, args=(5,), daemon=True)
    other.start()
    timers = threading.active_count()
    during = 0
    with pytest.raises(Stopped):
        with stoppable():
            with held():
                for _ in range(50):
                    signal.pthread_kill(other.ident, signal.SIGINT)
                    time.sleep(0.002)
                during = threading.active_count()  # asserted after: the stop raised as the block ends would hide it
    assert during <= timers + 1
    assert not interrupts._retrying


POOL_STOPPED_WHILE_IT_STARTS_A_THREAD = """
import os, signal, threading
import numpy as np
from bots import points
from solver import config, system
from solver.interrupts import Stopped, stoppable

system.available_cores = lambda: 2
config.PARALLEL_BATCH = 4
start = threading.Thread.start
def start_then_stop(thread):
    start(thread)
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C lands while the pool adds this thread
threading.Thread.start = start_then_stop
try:
    with stoppable():
        points.over_cores(lambda part: part + 1, np.zeros((64, 13), np.uint8))
except Stopped:
    print("stopped")
"""


@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_while_the_kernel_pool_starts_a_thread_still_lets_the_process_exit(attempt):
    """A stop raised while the bots' thread pool starts a thread left that thread unknown to
    the pool, and the interpreter waited for it forever at exit (a ``bench grade`` stopped by
    Ctrl-C printed its summary, then hung). The process ends once it has said so."""
    done = subprocess.run([sys.executable, "-c", POOL_STOPPED_WHILE_IT_STARTS_A_THREAD], capture_output=True,
                          text=True, env=ENV, cwd=ROOT, timeout=600)  # a hang is forever; this only ends the test
    assert done.stdout == "stopped\n" and done.returncode == 0, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_decisions_that_compile_kernels_are_fouls_never_crashes(tmp_path, jobs):
    """A bot that compiles at every decision, against a limit of 1 ms: every run ends with
    status 0, its late decisions scored as fouls under --on-fault foul, and nothing lost in
    LLVM's callbacks on stderr (before, some runs crashed with status 139)."""
    for seed in ("1", "2"):
        out = tmp_path / seed
        done = _bench("tournament", "--bots", "greedy,tests.plugin_bot:CompilingBot", "--sessions", "1", "--seed", seed,
                      "--jobs", jobs, "--decision-timeout", "0.001", "--on-fault", "foul", "--out", str(out))
        _clean(done)
        bot = json.loads((out / "results.json").read_text())["results"]["by_bot"]["tests.plugin_bot:CompilingBot"]
        assert bot["fault_count"] > 0
        assert all("no answer within the time limit of 0.001 s" in f["error"] for f in bot["first_faults"])


@pytest.mark.slow
def test_a_tight_limit_on_the_kernel_bots_runs_clean_every_time():
    """``--decision-timeout 0.001`` on greedy and heuristic, run after run, half of them with
    an empty kernel cache (the kernels compile in the worker while the run starts)."""
    for run in range(8):
        with tempfile.TemporaryDirectory() as cache:
            env = ENV | ({"NUMBA_CACHE_DIR": cache} if run % 2 else {})
            done = _bench("tournament", "--bots", "greedy,heuristic", "--sessions", "1", "--seed", "1", "--jobs", "1",
                          "--decision-timeout", "0.001", "--on-fault", "foul", "--json", env=env)
        _clean(done)
        faults = [p["fault"] for r in json.loads(done.stdout)["records"] for row in r["plays"] for p in row
                  if p.get("fault")]
        assert all("no answer within the time limit of 0.001 s" in f for f in faults)


# --- stops: while the run ends, and SIGHUP ---------------------------------------------------


def _tree(pid: int) -> list[psutil.Process]:
    return psutil.Process(pid).children(recursive=True)


def _gone(processes: list[psutil.Process]) -> bool:
    _, alive = psutil.wait_procs(processes, timeout=120)  # ends as soon as they are gone
    return not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.slow
def test_sigterm_while_the_run_ends_its_stubborn_bots_ends_everything(tmp_path):
    """Protocol bots that ignore quit and SIGTERM, on two worker processes; SIGTERM comes
    while the workers are ending them (the run's deals all recorded). The bench exits 143
    and leaves nothing running (before, it waited for its workers for good)."""
    bot = bot_file(tmp_path, "stubborn")
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", "tournament", "--bots", f"greedy,{bot}",
                                "--sessions", "1", "--seed", "1", "--jobs", "2", "--out", str(out)], cwd=ROOT, env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (tmp_path / "flag").exists() and process.poll() is None:
        time.sleep(0.05)
    assert (tmp_path / "flag").read_text() == "asked to quit"  # a worker is ending its bots
    children = _tree(process.pid)
    process.send_signal(signal.SIGTERM)
    try:
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 143 and "stopped by SIGTERM" in stderr and "Traceback" not in stderr, stderr
    assert _gone(children) and not _left_behind(tmp_path)


@pytest.mark.slow
def test_sighup_stops_like_sigterm_with_the_partial_report(tmp_path):
    """A closed terminal (SIGHUP to the bench): the deals done are kept, the PARTIAL report
    is written and printed, the command that continues is given, and the status is 129."""
    out = tmp_path / "run"
    # SIGHUP as a terminal sends it: the suite itself may run under nohup, whose ignored SIGHUP
    # the bench would inherit and, as documented, keep ignoring
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", "tournament", "--bots", "greedy,exhaustive:samples=150",
                                "--sessions", "20", "--seed", "4", "--jobs", "2", "--out", str(out)], cwd=ROOT, env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and process.poll() is None and (
            not journal.exists() or journal.read_text().count("\n") < 3):
        time.sleep(0.1)
    assert process.poll() is None, "the run ended before it could be stopped"
    children = _tree(process.pid)
    process.send_signal(signal.SIGHUP)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 129 and "stopped by SIGHUP" in stderr and "Traceback" not in stderr, stderr
    assert f"to continue: bench tournament --resume {out}" in stderr
    assert stdout.startswith("PARTIAL")
    assert json.loads((out / "results.json").read_text())["partial"]["played_deal_count"] < 160
    assert _gone(children)


def test_sighup_stays_ignored_under_nohup():
    """A command started with SIGHUP ignored (``nohup``) keeps ignoring it inside a stoppable
    command, while SIGINT and SIGTERM still stop it; the handlers are put back after."""
    from solver.interrupts import Stopped, stoppable

    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stoppable():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)  # ignored: nothing is raised
            with pytest.raises(Stopped):
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(60_000):  # a hang guard of a minute
                    time.sleep(0.001)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        with stoppable():
            with pytest.raises(Stopped) as stopped:
                os.kill(os.getpid(), signal.SIGHUP)
                for _ in range(60_000):
                    time.sleep(0.001)
        assert stopped.value.signum == signal.SIGHUP
    finally:
        signal.signal(signal.SIGHUP, before)


# --- what a bot leaves in a session of its own ------------------------------------------------


def _left_pids(tmp_path: Path) -> list[int]:
    """The processes the bots started in sessions of their own (their pids, from the flag file)."""
    return [int(line) for line in (tmp_path / "flag").read_text().split()]


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize("mode", ["setsid", "double-fork"])
def test_closing_a_bot_ends_what_it_left_in_a_session_of_its_own(tmp_path, mode):
    from bots import make_bot

    bot = make_bot(str(bot_file(tmp_path, mode)))
    left = _left_pids(tmp_path)
    assert left and all(_running(pid) for pid in left)
    bot.close()
    assert not [pid for pid in left if _running(pid)]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["setsid", "double-fork"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_leaves_nothing_a_bot_started(tmp_path, mode, jobs):
    """``setsid sleep 1000`` from a protocol bot, still its child or re-parented: after the
    run (in this process, and on worker processes), none is left."""
    done = _bench("tournament", "--bots", f"greedy,{bot_file(tmp_path, mode)}", "--sessions", "1", "--seed", "1",
                  "--jobs", jobs)
    _clean(done)
    left = _left_pids(tmp_path)
    assert left
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_running(pid) for pid in left):
        time.sleep(0.1)
    assert not [pid for pid in left if _running(pid)]


def _group_child_bot(tmp_path: Path, mark: str) -> Path:
    """A bot file whose program leaves a child in its own process group with an empty
    environment (``env -i sleep MARK &``: no mark to be found by, only its group) before it
    becomes a well-behaved bot."""
    program = tmp_path / "wrapper.sh"
    program.write_text(f"#!/bin/sh\nenv -i sleep {mark} &\nexec {sys.executable} {ROOT / 'tests' / 'protocol' / 'misbehaving.py'}"
                       f" plain {tmp_path / 'flag'}\n")
    program.chmod(0o755)
    path = tmp_path / "group-child.toml"
    path.write_text(f'name = "group-child"\ncommand = [{json.dumps(str(program))}]\n')
    return path


def _marked_sleeps(mark: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        try:
            if process.info["status"] != psutil.STATUS_ZOMBIE and process.info["cmdline"] == ["sleep", mark]:
                found.append(process)
        except psutil.Error:
            continue
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the guard reads /proc")
@pytest.mark.parametrize("mode", ["setsid", "double-fork", "group"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_kill_9_of_the_bench_leaves_nothing_a_bot_started(tmp_path, mode, jobs):
    """``kill -9`` of a tournament while its protocol bots run: the bots die with it, and so
    does what they started, in their process group or in a session of their own (before, a
    bot's own children lived on, re-parented to init)."""
    mark = f"{1000 + int.from_bytes(os.urandom(3), 'big') / 1e6:.6f}"  # a sleep no other test starts
    bot = _group_child_bot(tmp_path, mark) if mode == "group" else bot_file(tmp_path, mode)
    bench = subprocess.Popen([sys.executable, "-m", "bench.cli", "tournament", "--bots", f"greedy,{bot}",
                              "--sessions", "400", "--seed", "1", "--jobs", jobs], cwd=ROOT, env=ENV,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300  # a wait, not a margin: until the bots have started what they leave
        while time.monotonic() < deadline and bench.poll() is None:
            started = _marked_sleeps(mark) if mode == "group" else (
                (tmp_path / "flag").exists() and (tmp_path / "flag").read_text().strip())
            if started:
                break
            time.sleep(0.1)
        assert bench.poll() is None, "the tournament ended before its bots had started"
        left = _marked_sleeps(mark) if mode == "group" else [
            psutil.Process(int(pid)) for pid in (tmp_path / "flag").read_text().split()]
        assert left
        bench.kill()
        bench.wait(timeout=60)
        assert _gone(left), "what a bot started outlived the killed bench"
        assert _gone(_left_behind(tmp_path))
    finally:
        if bench.poll() is None:
            bench.kill()
        for process in _marked_sleeps(mark) + _left_behind(tmp_path):
            process.kill()


def test_a_finalizer_is_never_where_a_time_limit_raises():
    """The garbage collector runs ``__del__`` methods and ``weakref.finalize`` callbacks in the
    middle of any code, and drops an exception raised in them ("Exception ignored"): a time
    limit that fired there would be lost, so the handler waits until it is out of them."""
    import gc
    import weakref

    from solver import interrupts

    seen = []

    class Held:
        def __del__(self):
            seen.append(interrupts._must_wait(sys._getframe()))

    Held()
    gc.collect()
    tracked = type("Tracked", (), {})()
    weakref.finalize(tracked, lambda: seen.append(interrupts._must_wait(sys._getframe())))
    del tracked
    gc.collect()
    assert seen == [True, True]
    assert not interrupts._must_wait(sys._getframe())
