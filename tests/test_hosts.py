"""The web page over IPv6: ``bench serve --host ::1`` prints an address a browser takes
(``http://[::1]:PORT/``), and the host check answers the ``Host: [::1]:PORT`` that browser
sends, while still refusing hosts it was not told about."""

from __future__ import annotations

import asyncio
import http.client
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from bench.cli.commands.serve import allowed_hosts, page_url  # noqa: E402
from bench.web.app import HostCheck  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HANG_GUARD = 120  # seconds: only against a hang


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


def _first_message(allowed: tuple[str, ...], host: bytes | None, kind: str = "http") -> dict:
    """The first message the host check sends for a request with this Host header (None: no header)."""

    async def page(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"the page"})

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    headers = [] if host is None else [(b"host", host)]
    scope = {"type": kind, "method": "GET", "path": "/", "headers": headers}
    asyncio.run(HostCheck(page, allowed)(scope, receive, send))
    return sent[0]


def _status(allowed: tuple[str, ...], host: bytes | None) -> int:
    return _first_message(allowed, host)["status"]


def test_the_address_printed_for_an_ipv6_host_has_brackets():
    assert page_url("::1", 8000) == "http://[::1]:8000/"
    assert page_url("fe80::1", 80) == "http://[fe80::1]:80/"
    assert page_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/"


@pytest.mark.parametrize("host, status", [
    (b"[::1]:8000", 200), (b"[::1]", 200), (b"[0:0:0:0:0:0:0:1]:8000", 200), (b"localhost:8000", 200),
    (b"127.0.0.1:8000", 200), (b"[::2]:8000", 400), (b"attacker.example", 400), (b"[::1", 400),
    (b"::1]:8000", 400), (b"", 400), (None, 400),
])
def test_the_host_check_reads_a_bracketed_ipv6_host(host, status):
    assert _status(allowed_hosts("::1", []), host) == status


def test_an_ipv6_host_is_refused_unless_it_is_allowed():
    assert _status(allowed_hosts("192.168.1.20", []), b"[fe80::1]:8000") == 400
    assert _status(allowed_hosts("fe80::1", []), b"[FE80::1]:8000") == 200


def test_a_websocket_for_another_host_is_closed_before_it_opens():
    assert _first_message(allowed_hosts("::1", []), b"attacker.example", "websocket") == {
        "type": "websocket.close", "code": 1008}


@pytest.mark.slow
@pytest.mark.skipif(not _ipv6_loopback(), reason="this machine has no IPv6 loopback (::1) to listen on")
def test_bench_serve_on_ipv6_loopback_answers_a_browser():
    """A real server on ::1: the printed address is fetched as a browser does (Host: [::1]:PORT)."""
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
        probe.bind(("::1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "bench.cli", "serve", "--host", "::1", "--port", str(port), "--workers", "1"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              env=os.environ | {"PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"})
    try:
        first = server.stdout.readline()
        url = f"http://[::1]:{port}/"
        assert first.startswith(f"serving {url} to hosts named"), first
        with urllib.request.urlopen(url, timeout=HANG_GUARD) as answer:
            assert answer.status == 200
        other = http.client.HTTPConnection("::1", port, timeout=HANG_GUARD)
        other.request("GET", "/", headers={"Host": "attacker.example"})
        assert other.getresponse().status == 400
        other.close()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.communicate(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()
