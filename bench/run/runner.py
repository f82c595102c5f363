"""Running deals on workers, in chunks: results as they finish, faults contained, prompt stops.

Every chunk is a pure function of its deal numbers (``bench.run.play.play_deals``), so
chunks may run anywhere, in any order, and be run again: the records do not change.

- ``sequential`` plays in this process; ``threading`` in threads (the kernels release the
  GIL); ``loky`` in worker processes; ``dask`` on a dask cluster (by default a local one,
  of threads). Every thread has bots of its own (``bench.run.play.make_bots``): a protocol
  bot's process never serves two threads.
- A worker process that dies (killed, or a crash inside a plug-in's native code) takes its
  chunk with it: the chunks that were running are played again, one at a time, so that a
  chunk that kills its worker again is known, and a small marker file says which decision
  was running. Under the ``stop`` policy the run ends naming it; under ``foul`` that
  decision is scored as a foul and the chunk is played again without it. A worker killed
  once from outside costs nothing: its chunk is simply played again.
- ``run_deals`` (and ``bench tournament``, through ``play_sized``) plays pilot deals first and
  sizes the remaining chunks from their times; ``run_chunks`` plays chunks it is given.
- On dask, the scheduler itself gives a lost worker's tasks to another worker.
- Ctrl-C (or SIGTERM, SIGHUP, see ``bench.cli.commands.tournament``) raises in the waiting loop, which
  then cancels what is pending, ends every worker process and returns to the caller, who
  keeps what had finished.
- Ending: however a run ends, the bots its threads and worker processes made are closed
  (a protocol bot is asked to quit, with a grace period, before it is killed): a worker
  process is sent SIGTERM, closes its bots and waits to be killed; after ``config.ENDING_SECONDS``
  for all of them, every worker and every process below it is killed, even when a signal
  comes meanwhile. A worker process dies
  with the process that started it (``PR_SET_PDEATHSIG`` on Linux), and a bot process with
  its worker, so a bench killed with SIGKILL leaves nothing running.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import os
import queue
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

import numpy as np
from joblib.externals.loky import get_reusable_executor
from joblib.externals.loky.backend import resource_tracker
from joblib.externals.loky.process_executor import TerminatedWorkerError

from bench.records.model import DealRecord
from bench.run.play import (
    DecisionFault,
    Faulted,
    RunSettings,
    TournamentError,
    bot_threads,
    close_bots,
    play_deals,
    read_marker,
)
from bots.base import BotFault
from bots.protocol.bot import end_all
from bots.registry import registered
from bots.table import tables_read
from solver import config, files
from solver.interrupts import STOP_SIGNALS, check_stopped, end_tree, held
from solver.limits import check
from solver.rules import BASIC, Rules, as_rules

if TYPE_CHECKING:  # dask is optional: '.[dask]'
    from dask.distributed import Client

BACKENDS = ("loky", "threading", "sequential", "dask")  # where chunks of deals are played: --backend
Records = list[DealRecord]


class WorkerDied(BotFault):
    """A worker process died while playing a chunk, before any decision of it."""


def die_with_parent(parent: int) -> None:
    """On Linux, this process is killed when the thread that started it ends (its parent
    process, killed or not); it exits at once when that parent is gone already."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass
    if os.getppid() != parent:
        os._exit(1)


def _start_worker(parent: int, folder: str) -> None:
    """Workers leave Ctrl-C and SIGHUP to the main process, which ends them; they die with it; on SIGTERM
    they close their bots, say so with a file in ``folder`` and wait to be killed."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: _end_worker(folder))
    die_with_parent(parent)


def _end_worker(folder: str) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)  # a decision's time limit no longer applies
    try:
        close_bots()
        end_all()  # a protocol bot still starting (in its hello) is not among the bots made yet
    finally:
        os.close(files.open_write(os.path.join(folder, str(os.getpid()))))
    while True:  # the pool kills this process; exiting first would have it kill the others mid-ending
        time.sleep(60)


def _play(settings: RunSettings, deals: list[int], faulted: Faulted, marker: str | None, one_by_one: bool = False) -> Records:
    return play_deals(settings.specs, settings.players, settings.entropy, deals, settings=settings, faulted=faulted,
                      marker=marker, one_by_one=one_by_one)


def run_chunks(settings: RunSettings, chunks: Sequence[Sequence[int]], on_done: Callable[[Records], None], *,
               jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
               then: Callable[[], Sequence[Sequence[int]]] | None = None) -> None:
    """Play every chunk of deals and hand each chunk's records to ``on_done`` as it finishes.

    The chunks are handed over in the order they finish; when they are all done, the chunks
    ``then()`` gives are played (on the same workers), for instance sized by how long the
    first ones took. However it ends, by returning or raising, no worker is left running.

    Args:
        settings: The run's settings (``RunSettings``): bots, table, seed, rules, fault policy
            and time limits.
        chunks: The chunks of deal numbers to play first.
        on_done: Called with each chunk's records as the chunk finishes.
        jobs: How many workers play at once; with 1, the ``loky`` and ``threading`` backends
            play in this process.
        backend: Where the chunks are played, one of ``BACKENDS``: ``loky`` (worker
            processes), ``threading``, ``sequential`` (this process) or ``dask``.
        scheduler: The address of the dask scheduler to play on (the ``dask`` backend only);
            None for a local cluster of ``jobs`` worker threads.
        then: Called once the first chunks are done; the chunks it returns are played next.

    Raises:
        TournamentError: ``backend`` is not one of ``BACKENDS``, or the dask scheduler cannot
            be used.
        LimitError: ``jobs`` is outside its limit in ``solver.limits`` (below 1, or more a
            core than it allows), before any worker starts.
        DecisionFault: A bot failed a decision, or killed its worker process, under the
            ``stop`` policy.
        WorkerDied: A worker process died again playing a chunk alone, before its first
            decision.
        KeyboardInterrupt: The run was interrupted (Ctrl-C; SIGTERM and SIGHUP too, see
            ``bench.cli.commands.tournament``).
    """
    if backend not in BACKENDS:
        raise TournamentError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    check("jobs", jobs)
    settings = dataclasses.replace(settings, registered=registered(settings.specs),  # for the workers, by value
                                   tables=tuple(sorted(tables_read().items())))
    first: list[list[int]] = [list(c) for c in chunks]
    later = (lambda: [list(c) for c in then()]) if then is not None else None
    on_done = _then_check_stopped(on_done)
    if _one_worker(jobs, backend):
        for chunk in first + (later() if later else []):
            on_done(_play(settings, chunk, {}, None))
    elif backend == "loky":
        _run_processes(settings, first, on_done, jobs, later)
    elif backend == "threading":
        _run_threads(settings, first, on_done, jobs, later)
    else:
        _run_dask(settings, first, on_done, jobs, scheduler)
        if later:
            _run_dask(settings, later(), on_done, jobs, scheduler)


def _then_check_stopped(on_done: Callable[[Records], None]) -> Callable[[Records], None]:
    """``on_done``, then a stop asked for by a signal whose exception was lost
    (``solver.interrupts.check_stopped``) is raised."""

    def done(records: Records) -> None:
        on_done(records)
        check_stopped()

    return done


def _run_threads(settings: RunSettings, chunks: list[list[int]], on_done: Callable[[Records], None], jobs: int,  # noqa: C901
                 # (the workers and the waiting loop that stops them read best together)
                 later: Callable[[], list[list[int]]] | None = None) -> None:
    """``jobs`` threads, each with bots of its own, play the chunks, then those of ``later()``;
    each thread closes its bots when it ends."""
    stop = threading.Event()
    todo: queue.SimpleQueue[list[int] | None] = queue.SimpleQueue()
    results: queue.SimpleQueue[tuple[Records | None, BaseException | None]] = queue.SimpleQueue()

    def work() -> None:
        try:
            while (chunk := todo.get()) is not None:
                try:
                    results.put((play_deals(settings.specs, settings.players, settings.entropy, chunk, settings=settings,
                                            stop=stop), None))
                except BaseException as error:  # handed to the waiting loop, which raises it
                    results.put((None, error))
        finally:
            close_bots([threading.current_thread()])

    threads = [threading.Thread(target=work, name=f"bench-worker-{i}", daemon=True) for i in range(jobs)]
    for thread in threads:
        thread.start()
    try:
        for phase in (lambda: chunks, later):
            if phase is None:
                continue
            batch = phase()
            for chunk in batch:
                todo.put(chunk)
            for _ in batch:
                while True:
                    try:
                        records, error = results.get(timeout=config.RUN_POLL_SECONDS)
                        break
                    except queue.Empty:
                        continue
                if error is not None:
                    raise error
                assert records is not None  # a chunk either gives its records or raises
                on_done(records)
    finally:
        stop.set()  # running chunks stop at their next decision, queued ones at once
        for _ in threads:
            todo.put(None)
        for thread in threads:
            thread.join()


def _quiet_resource_tracker() -> None:
    """Start loky's resource tracker with its stderr silenced. When workers are killed (a
    stop, a crash) it tidies what they left and warns about it on stderr, after the run's
    own last line; that cleanup is expected here, so its warnings are not the user's."""
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


class _ProcessPool:
    """A loky executor of ``jobs`` processes that can be ended at once, workers included."""

    def __init__(self, jobs: int):
        _quiet_resource_tracker()
        self.jobs = jobs
        self.folder = tempfile.mkdtemp(prefix="bench-workers-")  # where workers say they closed their bots
        self.executor = get_reusable_executor(max_workers=jobs, initializer=_start_worker,
                                              initargs=(os.getpid(), self.folder), reuse=False)

    def submit(self, settings: RunSettings, deals: list[int], faulted: Faulted, marker: str | None,
               one_by_one: bool = False) -> Future[Records]:
        return self.executor.submit(_play, settings, deals, faulted, marker, one_by_one)

    def renew(self) -> None:
        self.end()
        self.__init__(self.jobs)  # type: ignore[misc]

    def end(self) -> None:
        """Every worker closes its bots (SIGTERM, see ``_start_worker``), within ``config.ENDING_SECONDS``
        for all of them together; then every worker, and every process below it (bots and what
        they started), is killed. A signal that comes meanwhile (a second Ctrl-C, SIGTERM) cuts
        the wait short but not the killing: it is raised once nothing is left running."""
        workers = list(getattr(self.executor, "_processes", {}).values())
        try:
            for process in workers:
                try:
                    os.kill(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + config.ENDING_SECONDS
            while time.monotonic() < deadline and any(
                    process.is_alive() and not os.path.exists(os.path.join(self.folder, str(process.pid)))
                    for process in workers):
                time.sleep(0.02)
        finally:
            with held():
                end_tree([process.pid for process in workers])
                self.executor.shutdown(wait=False, kill_workers=True)
                shutil.rmtree(self.folder, ignore_errors=True)


def _died(error: BaseException) -> bool:
    return isinstance(error, (TerminatedWorkerError, BrokenProcessPool))


def _run_processes(settings: RunSettings, chunks: list[list[int]], on_done: Callable[[Records], None], jobs: int,
                   later: Callable[[], list[list[int]]] | None = None) -> None:
    folder = tempfile.mkdtemp(prefix="bench-markers-")
    pool = _ProcessPool(jobs)
    queue: deque[tuple[int, list[int]]] = deque(enumerate(chunks))
    suspects: deque[tuple[int, list[int]]] = deque()  # chunks running when a worker died: replayed one at a time
    faulted: dict[tuple[int, str, int], str] = {}
    running: dict[Future[Records], tuple[int, list[int]]] = {}
    isolated: set[Future[Records]] = set()  # submitted alone, so a death is its own

    def submit(number: int, chunk: list[int], alone: bool = False) -> Future[Records]:
        # a chunk replayed alone sets its hands one by one, so its marker names the decision
        future = pool.submit(settings, chunk, dict(faulted), os.path.join(folder, f"chunk-{number}"), alone)
        running[future] = (number, chunk)
        return future

    try:
        while queue or suspects or running or later:
            if later and not (queue or suspects or running):
                queue.extend(enumerate(later(), start=len(chunks)))
                later = None
                continue
            if suspects and not running:
                isolated.add(submit(*suspects.popleft(), alone=True))
            while queue and not suspects and not isolated and len(running) < 2 * jobs:
                submit(*queue.popleft())
            done, _ = wait(set(running), timeout=config.RUN_POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in done:
                number, chunk = running.pop(future)
                alone = future in isolated
                isolated.discard(future)
                error = future.exception()
                if error is None:
                    on_done(future.result())
                elif not _died(error):
                    raise error
                elif alone:  # it died again on its own: the decision in its marker is the cause
                    _blame(settings, number, chunk, folder, faulted)
                    queue.appendleft((number, chunk))
                    pool.renew()
                else:  # every chunk that was running is a suspect: each is played again alone
                    suspects.append((number, chunk))
                    suspects.extend(running.values())
                    running.clear()
                    pool.renew()
                    break
    finally:
        try:
            pool.end()
        finally:  # a second stop as the pool ends (it is re-sent as a held() block ends) still clears the folder
            shutil.rmtree(folder, ignore_errors=True)


def _blame(settings: RunSettings, number: int, chunk: list[int], folder: str, faulted: Faulted) -> None:
    """The decision a chunk was making when its worker died on its own: the run stops on it
    (stop policy), or it is scored as a foul from now on (foul policy)."""
    where = read_marker(os.path.join(folder, f"chunk-{number}"))
    if where is None or where[0] not in chunk:
        raise WorkerDied(f"a worker process died playing deals {chunk[0]}-{chunk[-1]} before its first decision")
    deal, bot, seat = where
    spec = settings.specs[bot]
    message = f"bot '{spec}' killed its worker process on deal {deal}, seat {seat}"
    if settings.on_fault == "stop" or (deal, spec, seat) in faulted:
        raise DecisionFault(message)
    faulted[(deal, spec, seat)] = message


def _run_dask(settings: RunSettings, chunks: list[list[int]], on_done: Callable[[Records], None], jobs: int,
              scheduler: str | None) -> None:
    if not chunks:
        return
    client = dask_client(scheduler, jobs)
    futures = []
    before = bot_threads()
    try:
        from dask.distributed import as_completed  # noqa: PLC0415  (optional, the dask extra: --backend dask)

        futures = [client.submit(_play, settings, chunk, {}, None, pure=False) for chunk in chunks]
        pending = as_completed(futures, loop=client.loop)  # this client's: it is not made the default one
        while not pending.is_empty():
            for future in pending.next_batch(block=False) or []:
                on_done(future.result())
            if not pending.is_empty():
                threading.Event().wait(config.RUN_POLL_SECONDS)
    finally:
        if futures:
            client.cancel(futures)
        if scheduler is None:  # the local cluster's threads: their bots end with them
            close_bots([t for t in bot_threads() - before if t is not threading.current_thread()])
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and scheduler is None:
            cluster.close()


def dask_client(scheduler: str | None, jobs: int = 2) -> Client:
    """A client of the given scheduler, or of a local cluster of ``jobs`` worker threads."""
    try:
        from dask.distributed import Client, LocalCluster  # noqa: PLC0415  (optional, the dask extra: --backend dask)
    except ImportError:
        raise TournamentError(
            "the dask backend needs dask.distributed; from the project's folder: pip install '.[dask]'"
        ) from None
    if scheduler is None:
        return Client(LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=False,
                                   dashboard_address=None))
    return _scheduler_client(Client, scheduler)


WEB_SCHEMES = ("http://", "https://")


def _scheduler_client(client_class: type[Client], scheduler: str) -> Client:
    """A client of the dask scheduler at ``scheduler``, or a one-line ``TournamentError``
    within ``config.SCHEDULER_SECONDS`` (and a moment), whatever is at the address: nothing, a
    web server, a listener that never speaks.

    Dask's own time-out bounds the connection, not the handshake after it (it waits for the
    peer's first message for ever, and reads a web server's answer as the length of one), so
    the client is made in a thread of its own that is given up on in time; a client that
    connects after that is closed."""
    from distributed.comm.addressing import parse_address  # noqa: PLC0415  (optional, the dask extra: --backend dask)
    from distributed.comm.registry import get_backend  # noqa: PLC0415  (optional, the dask extra: --backend dask)

    if scheduler.lower().startswith(WEB_SCHEMES):
        raise TournamentError(f"--scheduler {scheduler} is a web address (a dashboard's?); give the address "
                              "`dask scheduler` prints, such as tcp://HOST:8786")
    try:
        scheme, location = parse_address(scheduler)
        get_backend(scheme)
    except ValueError as error:
        raise TournamentError(f"--scheduler {scheduler}: {error}; give the address `dask scheduler` prints, "
                              "such as tcp://HOST:8786") from None
    if not location:
        raise TournamentError(f"--scheduler {scheduler} names no host; give the address `dask scheduler` prints, "
                              "such as tcp://HOST:8786")
    made: list[Client | Exception | None] = []
    lock = threading.Lock()

    def connect() -> None:
        client: Client | Exception
        try:
            client = client_class(scheduler, timeout=f"{config.SCHEDULER_SECONDS:g}s", set_as_default=False)
        except Exception as error:  # noqa: BLE001  (whatever the address does, said in one line)
            client = error.with_traceback(None)  # the half-made client goes now, not at exit
        with lock:
            late = bool(made)
            made.append(client)
        if late and not isinstance(client, Exception):
            client.close()

    thread = threading.Thread(target=connect, name="dask-connect", daemon=True)
    thread.start()
    thread.join(config.SCHEDULER_SECONDS + config.SCHEDULER_GRACE)
    with lock:
        made.append(None)  # whatever comes later is too late
        answer = made[0]
    if answer is None:
        raise TournamentError(f"{scheduler} accepted the connection but did not answer as a dask scheduler within "
                              f"{config.SCHEDULER_SECONDS:g} s; give the address `dask scheduler` prints, such as "
                              "tcp://HOST:8786")
    if isinstance(answer, (OSError, TimeoutError)):
        raise TournamentError(f"cannot reach the dask scheduler at {scheduler}: {answer}") from None
    if isinstance(answer, Exception):
        raise TournamentError(f"--scheduler {scheduler}: not a dask scheduler's address "
                              f"({type(answer).__name__}: {answer}); give the address `dask scheduler` prints, "
                              "such as tcp://HOST:8786") from None
    return answer


# --- whole runs: chunks sized from timed pilot deals ----------------------------------------


def plan_chunks(deals: Sequence[int], seconds_per_deal: float, target: float = 0.2,
                most: int = config.MOST_DEALS_PER_CHUNK) -> list[list[int]]:
    """The deals in consecutive chunks worth about ``target`` seconds each, and at most ``most`` deals.

    Args:
        deals: The deal numbers, in the order they are played.
        seconds_per_deal: The measured time of one deal; a time that was not measured (0 or
            less, or not finite) gives chunks of one deal.
        target: The seconds of work a chunk should be worth.
        most: The most deals in one chunk.

    Returns:
        The chunks, consecutive runs of ``deals`` in their order, all of one size but the last,
            which may be shorter.

    Examples:
        >>> plan_chunks(range(5), 0.1)
        [[0, 1], [2, 3], [4]]
        >>> plan_chunks(range(3), 0.0), len(plan_chunks(range(10**5), 1e-9)[0])
        ([[0], [1], [2]], 1024)
    """
    if not (0 < seconds_per_deal < math.inf):
        size = 1
    else:
        size = max(1, min(most, math.ceil(target / seconds_per_deal)))
    deals = list(deals)
    return [deals[start:start + size] for start in range(0, len(deals), size)]


def _deal_seconds(record: DealRecord) -> float:
    """A deal's time as its typical decision's time (the median) times its decisions: a pilot
    in a fresh worker pays each bot's first-use costs once, which the rest of the run does not."""
    seconds = [p.seconds for row in record.plays for p in row]
    return float(np.median(seconds)) * len(seconds) if seconds else 0.0


def _one_worker(jobs: int, backend: str) -> bool:
    """Whether ``run_chunks`` plays every chunk in this process, one after another."""
    return backend == "sequential" or (jobs == 1 and backend in ("loky", "threading"))


def play_sized(settings: RunSettings, deals: Sequence[int], on_done: Callable[[list[DealRecord]], None], *,
               jobs: int = 1, backend: str = "loky", scheduler: str | None = None) -> None:
    """Play ``deals`` on the chosen backend (``run_chunks``), in chunks sized from pilot deals.

    The pilot deals come first, one a chunk, two for each worker, then the rest in chunks
    sized from the quickest pilot (``_deal_seconds``) to about 0.2 s each (at most
    ``config.MOST_DEALS_PER_CHUNK``). With one worker, two pilots are played and timed (their
    wall time, which includes what the decisions' own clocks leave out) before the rest is
    sized. It raises what ``run_chunks`` raises.

    Args:
        settings: The run's settings (``RunSettings``).
        deals: The deal numbers to play.
        on_done: Called with each chunk's records as the chunk finishes.
        jobs: As for ``run_chunks``.
        backend: As for ``run_chunks``.
        scheduler: As for ``run_chunks``.
    """
    deals = list(deals)
    pilots: list[float] = []
    first = deals[: 2 * max(1, jobs)]  # two pilots a worker: each worker's second one is warm

    def done(part: list[DealRecord]) -> None:
        pilots.extend(_deal_seconds(r) for r in part if r.deal in first)
        on_done(part)

    if _one_worker(jobs, backend):
        walls = []
        for deal in deals[:2]:
            started = time.perf_counter()
            run_chunks(settings, [[deal]], on_done, jobs=jobs, backend=backend, scheduler=scheduler)
            walls.append(time.perf_counter() - started)
        run_chunks(settings, plan_chunks(deals[2:], min(walls, default=0.0)), on_done, jobs=jobs, backend=backend,
                   scheduler=scheduler)
        return
    run_chunks(settings, [[d] for d in first], done, jobs=jobs, backend=backend, scheduler=scheduler,
               then=lambda: plan_chunks(deals[len(first):], min(pilots, default=0.0)))


def run_deals(
    specs: Sequence[str],
    players: int,
    entropy: int,
    n_deals: int,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    rules: Rules | str = BASIC,
    chunk_size: int | None = None,
    settings: RunSettings | None = None,
) -> list[DealRecord]:
    """Records of deals ``0..n_deals-1``, computed in chunks on the chosen backend (``run_chunks``).

    It raises what ``run_chunks`` raises.

    Args:
        specs: The bot specs, in order; unused when ``settings`` is given.
        players: The players at a table; unused when ``settings`` is given.
        entropy: The run's seed entropy; unused when ``settings`` is given.
        n_deals: How many deals to play: deals ``0`` to ``n_deals - 1``.
        jobs: As for ``run_chunks``.
        backend: As for ``run_chunks``.
        scheduler: As for ``run_chunks``.
        on_progress: Called with the number of deals of each chunk as it finishes.
        rules: The rules, by name or as ``Rules``; unused when ``settings`` is given.
        chunk_size: The deals of each chunk; None (the default) has pilot deals, played on the
            workers, size the chunks to about 0.2 s of work each (``play_sized``).
        settings: The run's settings (``RunSettings``); by default those of ``specs``,
            ``players``, ``entropy`` and ``rules``, with no time limit and the ``stop`` policy.

    Returns:
        The records of every deal played, sorted by deal.
    """
    settings = settings or RunSettings(tuple(specs), players, entropy, as_rules(rules))
    records: list[DealRecord] = []

    def done(part: list[DealRecord]) -> None:
        records.extend(part)
        if on_progress:
            on_progress(len(part))

    deals = list(range(n_deals))
    if chunk_size is not None:
        chunks = [deals[start:start + chunk_size] for start in range(0, n_deals, chunk_size)]
        run_chunks(settings, chunks, done, jobs=jobs, backend=backend, scheduler=scheduler)
    else:
        play_sized(settings, deals, done, jobs=jobs, backend=backend, scheduler=scheduler)
    return sorted(records, key=lambda r: r.deal)
