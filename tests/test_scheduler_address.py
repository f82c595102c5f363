"""A ``--scheduler`` address that is not a dask scheduler's ends the run in one line, exit
status 2, soon after the 10 s the docs promise: whatever listens there (on 127.0.0.1 only,
in the test's own process) and whatever the address looks like. The time limits below only
guard against a hang; the 10 s themselves are dask's and the runner's."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed")

ROOT = Path(__file__).resolve().parents[1]
HANG_GUARD = 120  # seconds: far beyond 10 s, and short of for ever
FIX = "give the address `dask scheduler` prints, such as tcp://HOST:8786"


def _tournament(scheduler: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "bench.cli", "tournament", "--bots", "greedy,random", "--sessions", "1",
               "--backend", "dask", "--scheduler", scheduler, "--seed", "1"]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=HANG_GUARD,
                          env=os.environ | {"PYTHONPATH": str(ROOT)})


def _one_line(done: subprocess.CompletedProcess) -> str:
    """The run's one error line, its last (a note of the seed may come before it)."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert [line for line in lines if "error" in line] == lines[-1:], done.stderr
    assert lines[-1].startswith("bench tournament: error: "), done.stderr
    return lines[-1]


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """A socket that accepts connections (the kernel does, from its backlog) and never speaks."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"


class _Quiet(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"<html>a dashboard</html>")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def web_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_a_listener_that_never_speaks_is_one_line(silent_listener):
    line = _one_line(_tournament(silent_listener))
    assert line.endswith(f"{silent_listener} accepted the connection but did not answer as a dask scheduler "
                         f"within 10 s; {FIX}"), line


@pytest.mark.slow
def test_a_web_server_at_the_address_is_one_line(web_server):
    address = f"tcp://127.0.0.1:{web_server}"
    line = _one_line(_tournament(address))
    assert f"{address} accepted the connection but did not answer as a dask scheduler" in line, line


@pytest.mark.slow
def test_a_web_address_is_one_line_at_once(web_server):
    address = f"http://127.0.0.1:{web_server}/status"
    line = _one_line(_tournament(address))
    assert line.endswith(f"--scheduler {address} is a web address (a dashboard's?); {FIX}"), line


@pytest.mark.slow
@pytest.mark.parametrize("address, why", [("foo://127.0.0.1:8786", "unknown address scheme 'foo'"),
                                          ("tcp://", "names no host")])
def test_an_address_dask_cannot_read_is_one_line(address, why):
    assert why in _one_line(_tournament(address))


def test_a_real_scheduler_still_connects():
    """The control: a local scheduler's own address gives a working client."""
    from dask.distributed import LocalCluster

    from bench.run.runner import dask_client

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        client = dask_client(cluster.scheduler_address)
        try:
            assert client.submit(sum, [1, 2, 3]).result(timeout=HANG_GUARD) == 6
        finally:
            client.close()
