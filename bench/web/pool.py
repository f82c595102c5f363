"""The web page's solver pool: a fixed number of worker processes, a bounded queue, and a
time limit that really stops the work.

The event loop never computes: a request hands its job (a name and plain arguments) to an
idle worker and awaits the answer on the worker's pipe, so the page and its static files
answer at once whatever the workers are doing. A job over its time limit is ended with its
worker (killed, and a fresh one started in its place); when every worker is busy and the
queue is full, a request is refused at once (``PoolBusy``, the web's 429) instead of waiting.
Workers die with the server (PR_SET_PDEATHSIG on Linux) and are killed when the pool closes.
"""

from __future__ import annotations

import asyncio
import ctypes
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from solver.errors import InfrastructureError, InputError


class PoolBusy(InfrastructureError):
    """Every worker is busy and the queue is full; ``retry_after`` is a guess in seconds."""

    def __init__(self, retry_after: int):
        super().__init__(f"the server is busy; try again in {retry_after} s")
        self.retry_after = retry_after


class PoolTimeout(InfrastructureError):
    """The job took longer than the time limit; its worker was ended."""


class PoolFault(InfrastructureError):
    """The worker stopped or failed in a way that is not the request's fault."""


class JobError(InputError, ValueError):
    """The job refused its input (a card, rules or option error): its message is for the user."""


@dataclass(frozen=True)
class PoolSettings:
    workers: int = 2  # processes computing at once
    queue: int = 8  # requests that may wait for a worker beyond those being computed
    timeout: float = 20.0  # seconds one job may compute
    startup_timeout: float = 300.0  # seconds a fresh worker may take to load and warm up
    warm_up: bool = True  # a fresh worker solves one small hand before it takes requests


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass
    if os.getppid() != parent:  # the server died before the line above took effect
        os._exit(0)


def _worker_main(reading: int, writing: int, warm_up: bool, parent: int) -> None:
    """A worker: load the jobs, warm up, say ready, then answer jobs until told to stop."""
    _die_with_parent(parent)
    os.nice(10)  # the server's event loop (the page, the queue) comes first on a busy machine
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which ends its workers
    jobs_in, answers = Connection(reading, writable=False), Connection(writing, readable=False)
    from bench.web import jobs  # noqa: PLC0415  (the kernels load once the worker has lowered its priority and left Ctrl-C to the server)

    if warm_up:
        jobs.warm_up()
    answers.send(("ready", os.getpid()))
    while True:
        try:
            message = jobs_in.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        name, arguments = message
        try:
            answers.send(("ok", jobs.JOBS[name](**arguments)))
        except ValueError as error:  # cards, rules, bots and options: a readable message
            answers.send(("error", str(error)))
        except Exception as error:  # noqa: BLE001  (reported, never a traceback to the user)
            answers.send(("fault", f"{type(error).__name__}: {error}"))


class _Worker:
    """One worker process (a fresh interpreter running this module) and its two pipes."""

    def __init__(self, warm_up: bool):
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", f"from bench.web.pool import _worker_main; _worker_main({to_child}, "
                                       f"{from_child}, {warm_up}, {os.getpid()})"],
                pass_fds=(to_child, from_child), stdin=subprocess.DEVNULL, close_fds=True)
        finally:
            os.close(to_child)
            os.close(from_child)
        self.jobs = Connection(from_parent, readable=False)
        self.answers = Connection(to_parent, writable=False)

    @property
    def pid(self) -> int:
        return self.process.pid

    def send(self, message: Any) -> None:
        self.jobs.send(message)

    async def receive(self) -> Any:
        """The worker's next message, awaited without blocking the event loop."""
        loop = asyncio.get_running_loop()
        readable = loop.create_future()
        descriptor = self.answers.fileno()

        def wake() -> None:
            if not readable.done():
                readable.set_result(None)

        loop.add_reader(descriptor, wake)
        try:
            await readable
        finally:
            loop.remove_reader(descriptor)
        return self.answers.recv()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            pass
        self.jobs.close()
        self.answers.close()


class WorkerPool:
    """Run named jobs (``bench.web.jobs.JOBS``) in worker processes; ``await pool.run(name, **args)``."""

    def __init__(self, settings: PoolSettings | None = None):
        self.settings = settings or PoolSettings()
        if self.settings.workers < 1 or self.settings.queue < 0:
            raise ValueError(f"a pool needs at least 1 worker and a queue of 0 or more, got {self.settings}")
        self._idle: asyncio.Queue[_Worker] | None = None
        self._workers: set[_Worker] = set()
        self._pending = 0
        self._seconds = 1.0  # a running mean of a job's time, for Retry-After
        self.replaced = 0  # workers ended at the time limit or after a fault, and started again
        self._closed = False
        self._starting: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._failed: str | None = None  # why workers cannot start, once they failed to three times running
        self._start_failures = 0

    @property
    def pending(self) -> int:
        """Requests being computed or waiting for a worker."""
        return self._pending

    @property
    def idle(self) -> int:
        """Workers that have started and wait for a job."""
        return self._idle.qsize() if self._idle is not None else 0

    def worker_pids(self) -> list[int]:
        return sorted(w.pid for w in self._workers)

    def _start_workers(self, count: int) -> None:
        for _ in range(count):
            task = asyncio.get_running_loop().create_task(self._start_one())
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    async def _start_one(self) -> None:
        try:
            worker = _Worker(self.settings.warm_up)
        except OSError as error:
            self._failed = f"a solver process cannot start: {error}"
            return
        self._workers.add(worker)
        try:
            kind, _ = await asyncio.wait_for(worker.receive(), self.settings.startup_timeout)
            if kind != "ready":
                raise PoolFault(f"a worker started with {kind!r}")
        except (asyncio.TimeoutError, EOFError, OSError, PoolFault) as error:
            self._workers.discard(worker)
            worker.kill()
            self._start_failures += 1
            if self._start_failures >= 3:
                self._failed = f"the solver processes do not start ({type(error).__name__} {error})"
            if not self._closed and not self._failed:
                await asyncio.sleep(1.0)
                self._start_workers(1)
            return
        self._start_failures = 0
        if self._closed:
            self._workers.discard(worker)
            worker.kill()
        else:
            assert self._idle is not None
            self._idle.put_nowait(worker)

    def _replace(self, worker: _Worker) -> None:
        self._workers.discard(worker)
        worker.kill()
        self.replaced += 1
        if not self._closed:
            self._start_workers(1)

    def _retry_after(self) -> int:
        return max(1, math.ceil(self._seconds * (self._pending + 1) / self.settings.workers))

    async def start(self) -> None:
        """Start the workers (they load and warm up in the background); the first request does it otherwise."""
        loop = asyncio.get_running_loop()
        if self._idle is None or self._loop is not loop:  # the first start, or the app served again
            self._kill_all()
            self._loop, self._idle, self._failed, self._start_failures = loop, asyncio.Queue(), None, 0
            self._closed, self._pending = False, 0
            self._start_workers(self.settings.workers)

    async def run(self, name: str, **arguments: Any) -> Any:
        await self.start()
        if self._closed:
            raise PoolFault("the server is stopping")
        if self._failed and not self._workers:
            raise PoolFault(self._failed)
        if self._pending >= self.settings.workers + self.settings.queue:
            raise PoolBusy(self._retry_after())
        self._pending += 1
        try:
            return await self._run(name, arguments)
        finally:
            self._pending -= 1

    async def _run(self, name: str, arguments: dict[str, Any]) -> Any:
        assert self._idle is not None
        waited = time.monotonic()
        while True:
            try:
                worker = await asyncio.wait_for(self._idle.get(), 1.0)
                break
            except asyncio.TimeoutError:
                if self._failed and not self._workers:
                    raise PoolFault(self._failed) from None
                if time.monotonic() - waited > self.settings.startup_timeout:
                    raise PoolBusy(self._retry_after()) from None
        started = time.monotonic()
        try:
            worker.send((name, arguments))
            kind, value = await asyncio.wait_for(worker.receive(), self.settings.timeout)
        except asyncio.TimeoutError:
            self._replace(worker)
            raise PoolTimeout(f"the work took longer than {self.settings.timeout:g} s and was stopped; "
                              "ask for fewer samples") from None
        except (EOFError, OSError):
            self._replace(worker)
            raise PoolFault("a solver worker stopped; try again") from None
        except BaseException:  # the request was cancelled: its work ends with it
            self._replace(worker)
            raise
        self._seconds = 0.8 * self._seconds + 0.2 * (time.monotonic() - started)
        self._idle.put_nowait(worker)
        if kind == "ok":
            return value
        if kind == "error":
            raise JobError(value)
        raise PoolFault(f"the solver failed: {value}")

    def _kill_all(self) -> None:
        for task in list(self._starting):
            try:
                task.cancel()
            except RuntimeError:  # its event loop is closed
                pass
        self._starting.clear()
        for worker in list(self._workers):
            worker.kill()
        self._workers.clear()

    def close(self) -> None:
        """End every worker (those computing too)."""
        self._closed = True
        self._kill_all()
