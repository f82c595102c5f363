"""A real server of the web app for the tests that need one (uvicorn in a thread, on a free port)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

# How the browser tests start the system's Chromium: headless, and quiet on the network.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@contextmanager
def serving(app):
    import uvicorn

    from bench.web.server import server_config

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(server_config(app, host="127.0.0.1", port=port, log_level="warning"))  # as bench serve's
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError("the test server did not start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def bench_serve(*options: str):
    """``bench serve`` in a process of its own (so a test's client does not share its interpreter)."""
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", "import sys; from bench.cli import main; sys.exit(main())",
                                "serve", "--port", str(port), *options], env=os.environ.copy())
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("bench serve did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
