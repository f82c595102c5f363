"""Running chunks of deals on workers: results as they finish, faults contained, prompt stops.

Every chunk is a pure function of its deal numbers (``bench.tournament.play_deals``), so
chunks may run anywhere, in any order, and be run again: the records do not change.

- ``sequential`` plays in this process; ``threading`` in threads (the kernels release the
  GIL); ``loky`` in worker processes; ``dask`` on a dask cluster.
- A worker process that dies (killed, or a crash inside a plug-in's native code) takes its
  chunk with it: the chunks that were running are played again, one at a time, so that a
  chunk that kills its worker again is known, and a small marker file says which decision
  was running. Under the ``stop`` policy the run ends naming it; under ``foul`` that
  decision is scored as a foul and the chunk is played again without it. A worker killed
  once from outside costs nothing: its chunk is simply played again.
- On dask, the scheduler itself gives a lost worker's tasks to another worker.
- Ctrl-C (or SIGTERM, see ``bench.commands.tournament``) raises in the waiting loop, which
  then cancels what is pending, ends every worker process and returns to the caller, who
  keeps what had finished.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from bench.tournament import DecisionFault, Match, TournamentError, play_deals, read_marker
from bots.base import BotFault

BACKENDS = ("loky", "threading", "sequential", "dask")
POLL_SECONDS = 0.2  # how often the waiting loop wakes up to notice a signal
Records = list[dict[str, Any]]


class WorkerDied(BotFault):
    """A worker process died while playing a chunk, before any decision of it."""


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the main process, which ends them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play(match: Match, deals: list[int], faulted: dict, marker: str | None, one_by_one: bool = False) -> Records:
    return play_deals(match.specs, match.players, match.entropy, deals, match=match, faulted=faulted, marker=marker,
                      one_by_one=one_by_one)


def run_chunks(match: Match, chunks: Sequence[Sequence[int]], on_done: Callable[[Records], None], *,
               jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
               then: Callable[[], Sequence[Sequence[int]]] | None = None) -> None:
    """Play every chunk of deals and hand each chunk's records to ``on_done`` as it finishes
    (in the order they finish); when they are all done, play the chunks ``then()`` gives (on
    the same workers), for instance sized by how long the first ones took. Raises
    :class:`DecisionFault` under the stop policy, and ``KeyboardInterrupt`` when interrupted;
    either way no worker is left running."""
    if backend not in BACKENDS:
        raise TournamentError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    first: list[list[int]] = [list(c) for c in chunks]
    later = (lambda: [list(c) for c in then()]) if then is not None else None
    if backend == "sequential" or (jobs == 1 and backend in ("loky", "threading")):
        for chunk in first + (later() if later else []):
            on_done(_play(match, chunk, {}, None))
    elif backend == "loky":
        _run_processes(match, first, on_done, jobs, later)
    else:
        run = _run_threads if backend == "threading" else (
            lambda m, c, d, j: _run_dask(m, c, d, j, scheduler))
        run(match, first, on_done, jobs)
        if later:
            run(match, later(), on_done, jobs)


def _run_threads(match: Match, chunks: list[list[int]], on_done, jobs: int) -> None:
    if not chunks:
        return
    stop = threading.Event()
    executor = ThreadPoolExecutor(max_workers=jobs)
    futures = {executor.submit(play_deals, match.specs, match.players, match.entropy, chunk, match=match,
                               stop=stop): chunk for chunk in chunks}
    try:
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in done:
                on_done(future.result())
    finally:
        stop.set()  # running chunks stop at their next decision
        for future in futures:
            future.cancel()
        executor.shutdown(wait=True)


def _quiet_resource_tracker() -> None:
    """Start loky's resource tracker with its stderr silenced. When workers are killed (a
    stop, a crash) it tidies what they left and warns about it on stderr, after the run's
    own last line; that cleanup is expected here, so its warnings are not the user's."""
    from joblib.externals.loky.backend import resource_tracker

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
        from joblib.externals.loky import get_reusable_executor

        _quiet_resource_tracker()
        self.jobs = jobs
        self.executor = get_reusable_executor(max_workers=jobs, initializer=_ignore_sigint, reuse=False)

    def submit(self, *args) -> Future:
        return self.executor.submit(_play, *args)

    def renew(self) -> None:
        self.end()
        self.__init__(self.jobs)  # type: ignore[misc]

    def end(self) -> None:
        self.executor.shutdown(wait=False, kill_workers=True)


def _died(error: BaseException) -> bool:
    from concurrent.futures.process import BrokenProcessPool

    from joblib.externals.loky.process_executor import TerminatedWorkerError

    return isinstance(error, (TerminatedWorkerError, BrokenProcessPool))


def _run_processes(match: Match, chunks: list[list[int]], on_done, jobs: int,
                   later: Callable[[], list[list[int]]] | None = None) -> None:
    folder = tempfile.mkdtemp(prefix="bench-markers-")
    pool = _ProcessPool(jobs)
    queue: deque[tuple[int, list[int]]] = deque(enumerate(chunks))
    suspects: deque[tuple[int, list[int]]] = deque()  # chunks running when a worker died: replayed one at a time
    faulted: dict[tuple[int, str, int], str] = {}
    running: dict[Future, tuple[int, list[int]]] = {}
    isolated: set[Future] = set()  # submitted alone, so a death is its own

    def submit(number: int, chunk: list[int], alone: bool = False) -> Future:
        # a chunk replayed alone sets its hands one by one, so its marker names the decision
        future = pool.submit(match, chunk, dict(faulted), os.path.join(folder, f"chunk-{number}"), alone)
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
            done, _ = wait(set(running), timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
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
                    _blame(match, number, chunk, folder, faulted)
                    queue.appendleft((number, chunk))
                    pool.renew()
                else:  # every chunk that was running is a suspect: each is played again alone
                    suspects.append((number, chunk))
                    suspects.extend(running.values())
                    running.clear()
                    pool.renew()
                    break
    finally:
        pool.end()
        shutil.rmtree(folder, ignore_errors=True)


def _blame(match: Match, number: int, chunk: list[int], folder: str, faulted: dict) -> None:
    """The decision a chunk was making when its worker died on its own: the run stops on it
    (stop policy), or it is scored as a foul from now on (foul policy)."""
    where = read_marker(os.path.join(folder, f"chunk-{number}"))
    if where is None or where[0] not in chunk:
        raise WorkerDied(f"a worker process died playing deals {chunk[0]}-{chunk[-1]} before its first decision")
    deal, bot, seat = where
    spec = match.specs[bot]
    message = f"bot '{spec}' killed its worker process on deal {deal}, seat {seat}"
    if match.on_fault == "stop" or (deal, spec, seat) in faulted:
        raise DecisionFault(message)
    faulted[(deal, spec, seat)] = message


def _run_dask(match: Match, chunks: list[list[int]], on_done, jobs: int, scheduler: str | None) -> None:
    if not chunks:
        return
    client = dask_client(scheduler, jobs)
    futures = []
    try:
        from dask.distributed import as_completed

        futures = [client.submit(_play, match, chunk, {}, None, pure=False) for chunk in chunks]
        pending = as_completed(futures)
        while not pending.is_empty():
            for future in pending.next_batch(block=False) or []:
                on_done(future.result())
            if not pending.is_empty():
                threading.Event().wait(POLL_SECONDS)
    finally:
        if futures:
            client.cancel(futures)
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and scheduler is None:
            cluster.close()


def dask_client(scheduler: str | None, jobs: int = 2):
    """A client of the given scheduler, or of a local cluster of ``jobs`` worker threads."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise TournamentError(
            "the dask backend needs dask.distributed; from the project's folder: pip install '.[dask]'"
        ) from None
    if scheduler is None:
        return Client(LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=False,
                                   dashboard_address=None))
    try:
        return Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise TournamentError(f"cannot reach the dask scheduler at {scheduler}: {error}") from None
