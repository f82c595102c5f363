"""The web server's limits: sessions kept per client and forgotten by idleness, a deadline for
a request to arrive whole, 413 for a body too large however it is sent, the security headers on
the server's refusals, and kernels compiled before the first request."""

from __future__ import annotations

import asyncio
import http.client
import inspect
import json
import logging
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from bench.web.app import HEADERS, MAX_BODY, OPPONENTS, SEAT_BOTS, Settings, create_app  # noqa: E402
from tests.web_server import serving  # noqa: E402

ARRANGEMENT = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _app(**settings):
    return create_app(Settings(allowed_hosts=("testserver",), workers=1, warm_up=False, **settings))


def _client(app, address: str) -> TestClient:
    return TestClient(app, client=(address, 40_000))


def _start(client: TestClient):
    return client.post("/api/session/start", json={"bots": ["random"], "seed": 1})


def _kept(client: TestClient, key: str) -> bool:
    """Whether the server still has the session (asking uses it: it becomes the most recently used)."""
    done = client.post("/api/session/deal", json={"session": key, "hand_number": 0})
    assert done.status_code in (200, 404), done.text
    return done.status_code == 200


def test_one_client_starting_sessions_without_end_forgets_no_one_else_s():
    """10,000 starts from one address used to push every other player's session out. Now the
    other players' sessions stay; the flood is answered from its own sessions, or 429 with
    Retry-After and one line once the server is full of recent sessions."""
    app = _app(max_sessions=20)
    player, flood = _client(app, "10.0.0.1"), _client(app, "10.0.0.2")
    mine = [_start(player).json()["session"] for _ in range(3)]
    answers = [_start(flood) for _ in range(100)]
    assert all(_kept(player, key) for key in mine)
    assert {a.status_code for a in answers} <= {200, 429}
    for refused in (a for a in answers if a.status_code == 429):
        assert refused.headers["retry-after"].isdigit() and int(refused.headers["retry-after"]) >= 1
        detail = refused.json()["detail"]
        assert detail and "\n" not in detail


def test_a_client_past_its_limit_forgets_its_own_least_recently_used_session():
    app = _app(max_sessions=100, sessions_per_client=3)
    player, other = _client(app, "10.0.0.1"), _client(app, "10.0.0.3")
    theirs = _start(other).json()["session"]
    first, second, third = (_start(player).json()["session"] for _ in range(3))
    assert _kept(player, first)  # used: now the second is the least recently used
    fourth = _start(player)
    assert fourth.status_code == 200
    assert [_kept(player, k) for k in (first, second, third, fourth.json()["session"])] == [True, False, True, True]
    assert _kept(other, theirs)


def test_a_full_server_forgets_only_a_session_idle_for_long():
    """At the global cap, a new session forgets the least recently used one only when it has
    been idle longer than ``session_idle``; otherwise the start is refused (429), never a
    session in use."""
    clock = Clock()
    app = _app(max_sessions=3, sessions_per_client=10, session_idle=600.0, clock=clock)
    a, b, c = (_client(app, f"10.0.0.{n}") for n in (1, 2, 3))
    old = _start(a).json()["session"]
    clock.now += 601
    recent = [_start(b).json()["session"] for _ in range(2)]
    newer = _start(c)  # full: the old session, idle 601 s, is forgotten
    assert newer.status_code == 200 and not _kept(a, old)
    clock.now += 500
    assert _kept(b, recent[0])  # used again: the other of b's is now the least recently used
    refused = _start(a)  # full, and the least recently used session was used 500 s ago
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 100
    assert refused.json()["detail"] and "\n" not in refused.json()["detail"]
    clock.now += 99
    assert _start(a).status_code == 429  # idle 599 s: still kept
    clock.now += 2
    assert _start(a).status_code == 200
    assert [_kept(b, k) for k in recent] == [True, False]
    assert _kept(c, newer.json()["session"])


def test_the_refusals_before_the_app_carry_the_security_headers():
    """The 413 of the body limit and the 400 of the host check are answers too."""
    with TestClient(_app()) as client:
        too_large = client.post("/api/check", content=b"{" + b" " * 100_000 + b"}",
                                headers={"content-type": "application/json"})
        other_host = client.get("/", headers={"host": "evil.example"})
    assert (too_large.status_code, other_host.status_code) == (413, 400)
    for done in (too_large, other_host):
        assert "frame-ancestors 'none'" in done.headers["content-security-policy"]
        assert all(done.headers[name] == value for name, value in HEADERS.items())


def _wait_closed(connection: socket.socket, within: float) -> bytes | None:
    """What the server sent before it closed the connection; None when it is still open after ``within`` seconds."""
    connection.settimeout(0.2)
    received = b""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            chunk = connection.recv(4096)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk
    return None


HALF_SENT = {
    "nothing": b"",
    "half a request line": b"POST /api/ch",
    "headers without their end": b"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
    "half a declared body": b"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            b"Content-Length: 100\r\n\r\n{\"arrangement\": ",
    "a chunked body without its last chunk": b"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                             b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                             b"5\r\n{\"arr\r\n",
    "half a second request": b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /api/bo",
}


@pytest.fixture(scope="module")
def server():
    with serving(create_app(Settings(workers=1, warm_up=False, read_timeout=1.0))) as url:
        yield url


@pytest.mark.parametrize("sent", list(HALF_SENT), ids=list(HALF_SENT))
def test_a_request_that_does_not_arrive_whole_is_closed(server, sent):
    """Half-sent requests used to hold their connections (and files) open for good; 300 of
    them took the page down. Now each is closed once ``read_timeout`` (1 s here) passes, with
    408 when part of a request had come (and the security headers, past the headers), and
    the page answers all along."""
    port = urllib.parse.urlsplit(server).port
    connections = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
    try:
        for connection in connections:
            connection.sendall(HALF_SENT[sent])
        with urllib.request.urlopen(server + "/api/bots", timeout=30) as page:
            assert page.status == 200
        answers = [_wait_closed(c, within=30) for c in connections]
    finally:
        for connection in connections:
            connection.close()
    assert None not in answers, "a connection is still open 30 s after its request stopped"
    if sent in ("half a request line", "headers without their end"):
        assert all(a == b"" or a.startswith(b"HTTP/1.1 408 ") and b"x-frame-options: DENY" in a for a in answers), answers[0]
    if "body" in sent:
        assert all(a.startswith(b"HTTP/1.1 408 ") and b"content-security-policy" in a for a in answers), answers[0]
    if sent == "half a second request":
        assert all(a.startswith(b"HTTP/1.1 200 ") and b"HTTP/1.1 408 " in a for a in answers), answers[0]


def test_a_chunked_body_too_large_is_413_and_one_within_the_limit_is_read(server):
    """A chunked body (no Content-Length) over the limit used to be answered 400 ("There was an
    error parsing the body"): the body limit's error was caught as the app read the body."""
    host = urllib.parse.urlsplit(server)
    large_body = [b" " * 1024 for _ in range(10)]
    small_body = [b'{"arrangement": ', json.dumps(ARRANGEMENT).encode(), b"}"]
    answers = [_chunked_post(host.hostname, host.port, "/api/check", body) for body in (large_body, small_body)]
    (large, large_policy, refused), (small, _, checked) = answers
    assert 10 * 1024 > MAX_BODY and (large, small) == (413, 200)
    assert refused == {"detail": "the request is too large"} and "frame-ancestors 'none'" in large_policy
    assert checked["document"] == "web-check" and checked["foul"] is False


def _chunked_post(hostname: str, port: int, path: str, chunks: list[bytes]) -> tuple[int, str, dict]:
    """POST ``chunks`` with chunked transfer encoding and read the answer.

    The whole request goes out in one write: a server that refuses a body may answer and close
    before the last chunk, which is not an error of the server's, so a write the server no longer
    reads is let go and the answer read all the same."""
    request = (
        f"POST {path} HTTP/1.1\r\nHost: {hostname}:{port}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode()
    request += b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"
    with socket.create_connection((hostname, port), timeout=30) as connection:
        try:
            connection.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        return answer.status, answer.getheader("content-security-policy") or "", json.loads(answer.read())


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as page:
            return page.status
    except urllib.error.HTTPError as error:
        return error.code


def _eventually(condition, within: float = 30.0) -> bool:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_connections_past_the_limit_are_answered_503_with_the_security_headers():
    """With ``connections`` open at once (4 idle ones), a fifth connection's request is answered
    503 at once, with the security headers (uvicorn's own 503 had none); once they close, 200 again."""
    with serving(create_app(Settings(workers=1, warm_up=False, connections=4, read_timeout=60.0))) as url:
        port = urllib.parse.urlsplit(url).port
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
        try:
            assert _eventually(lambda: _status(url + "/api/bots") == 503), "no 503 with the connections all taken"
            refused = _raw(port, b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        finally:
            for connection in idle:
                connection.close()
        assert _eventually(lambda: _status(url + "/api/bots") == 200), "still refused once the connections closed"
    status, headers, body = refused
    assert status == 503 and headers["retry-after"] == "1" and "4 connections open" in body["detail"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert all(headers[name.lower()] == value for name, value in HEADERS.items())


def test_a_request_that_is_not_http_is_answered_400_with_the_security_headers(server):
    """h11's parse errors were answered by uvicorn itself: 400 in plain text, no security headers."""
    status, headers, body = _raw(urllib.parse.urlsplit(server).port, b"GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n")
    assert status == 400 and body == {"detail": "the request is not valid HTTP/1.1"}
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert all(headers[name.lower()] == value for name, value in HEADERS.items())


def _raw(port: int, request: bytes) -> tuple[int, dict[str, str], dict]:
    """Send ``request`` as it is and read the answer: status, headers (lower-case names), JSON body."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(request)
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, json.loads(answer.read())


class _Transport(asyncio.Transport):
    """A connection from ``address`` that keeps what the server writes."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address, self.written, self.closed = address, b"", False

    def get_extra_info(self, name, default=None):
        return (self.address, 40_000) if name == "peername" else ("0.0.0.0", 8000) if name == "sockname" else default

    def write(self, data) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def test_one_address_may_hold_only_its_share_of_the_connections():
    """One client could hold every connection the server takes, and every other player got 503.
    Now an address past ``connections_per_client`` gets 503 and others are still served; this
    machine's connections (a reverse proxy's) count toward the total only."""
    from uvicorn.server import ServerState

    from bench.web.server import HeaderDeadline, server_config

    loop = asyncio.new_event_loop()
    try:
        config = server_config(create_app(Settings(workers=1, warm_up=False, connections=10, connections_per_client=3)))
        config.load()
        state = ServerState()

        def connect(address: str) -> tuple[HeaderDeadline, _Transport]:
            protocol, transport = HeaderDeadline(config=config, server_state=state, app_state={}, _loop=loop), _Transport(address)
            protocol.connection_made(transport)
            return protocol, transport

        mine = [connect("203.0.113.5") for _ in range(4)]
        other = connect("203.0.113.6")
        local = [connect("127.0.0.1") for _ in range(4)]
        assert [p._refusal is None for p, _ in mine] == [True, True, True, False]
        assert other[0]._refusal is None and all(p._refusal is None for p, _ in local)
        # 10 served (the refused one counts toward nothing): the eleventh is past the total
        ninth, tenth, last = (connect(f"203.0.113.{n}") for n in (7, 8, 9))
        assert ninth[0]._refusal is None and tenth[0]._refusal is None
        refused, refused_transport = mine[3]
        refused.data_received(b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert refused_transport.closed and refused_transport.written.startswith(b"HTTP/1.1 503 ")
        assert b"3 connections open from your address" in refused_transport.written
        assert b"x-frame-options: DENY" in refused_transport.written and b"content-security-policy: " in refused_transport.written
        assert last[0]._refusal is not None and b"10 connections open," in last[0]._refusal
        for protocol, _ in [*mine, other, *local, ninth, tenth, last]:
            protocol.connection_lost(None)
        assert connect("203.0.113.5")[0]._refusal is None  # its connections closed: served again
    finally:
        loop.close()


@contextmanager
def _by_hand(**settings):
    """A server's connections made by hand, all sharing one server state: yields ``connect``,
    which opens one from an address (a ``HeaderDeadline`` on a ``_Transport``) and returns
    both, and the event loop (not running: a test runs it when it wants time to pass)."""
    from uvicorn.server import ServerState

    from bench.web.server import HeaderDeadline, server_config

    loop = asyncio.new_event_loop()
    try:
        config = server_config(create_app(Settings(workers=1, warm_up=False, **settings)))
        config.load()
        state = ServerState()

        def connect(address: str) -> tuple[HeaderDeadline, _Transport]:
            protocol, transport = HeaderDeadline(config=config, server_state=state, app_state={}, _loop=loop), _Transport(address)
            protocol.connection_made(transport)
            return protocol, transport

        yield connect, loop
    finally:
        loop.close()


def test_refused_connections_count_toward_no_cap():
    """A refused connection used to count toward the total all the same: one address opening
    connections without end (each refused past its own cap) filled the server, and every other
    player got 503. Now only the connections served count, toward either cap."""
    with _by_hand(connections=10, connections_per_client=3) as (connect, _):
        flood = [connect("203.0.113.5") for _ in range(30)]
        assert [p._refusal is None for p, _ in flood] == [True] * 3 + [False] * 27
        others = [connect(f"203.0.113.{n}") for n in range(10, 17)]  # 3 + 7: the server's 10
        assert all(p._refusal is None for p, _ in others)
        assert connect("203.0.113.20")[0]._refusal is not None  # the eleventh served would be past the total
        for protocol, _ in flood[3:]:
            protocol.connection_lost(None)  # a refused one closing gives back no place: it took none
        assert connect("203.0.113.21")[0]._refusal is not None
        flood[0][0].connection_lost(None)  # a served one closing does, and to its address as well
        assert connect("203.0.113.5")[0]._refusal is None


def test_a_refused_connection_is_closed_soon_if_its_request_does_not_come(monkeypatch):
    """A refused connection used to be held open as long as a request's headers may take
    (``read_timeout``), waiting for a request to answer 503. Now it has
    ``config.REFUSED_SECONDS``; a connection served keeps ``read_timeout``."""
    from solver import config

    monkeypatch.setattr(config, "REFUSED_SECONDS", 0.05)
    with _by_hand(connections=2, read_timeout=3600.0) as (connect, loop):
        served = [connect("203.0.113.5"), connect("203.0.113.6")]
        refused, half_sent = connect("203.0.113.7"), connect("203.0.113.8")
        assert refused[0]._refusal is not None and half_sent[0]._refusal is not None
        half_sent[0].data_received(b"GET /api/bots HTTP/1.1\r\nHost: 127.0")
        loop.run_until_complete(asyncio.sleep(config.REFUSED_SECONDS))  # past the refused ones' deadline, not the others'
        assert refused[1].closed and refused[1].written == b""
        assert half_sent[1].closed and half_sent[1].written.startswith(b"HTTP/1.1 503 ")
        assert not any(transport.closed for _, transport in served)


def test_an_ipv4_mapped_address_is_the_address_it_maps():
    """``::ffff:127.0.0.1`` (this machine, seen through an IPv6 socket) was not this machine on
    Python 3.11: a reverse proxy there was held to one client's cap. And ``::ffff:1.2.3.4`` and
    ``1.2.3.4`` were two clients, each with its own cap."""
    with _by_hand(connections=20, connections_per_client=2) as (connect, _):
        local = [connect("::ffff:127.0.0.1") for _ in range(5)]
        assert all(p._refusal is None for p, _ in local)
        mapped = [connect(a) for a in ("::ffff:203.0.113.5", "203.0.113.5", "::ffff:203.0.113.5", "203.0.113.5")]
        assert [p._refusal is None for p, _ in mapped] == [True, True, False, False]


def test_the_addresses_of_one_ipv6_slash_64_are_one_client():
    """One host is given a /64 of IPv6 addresses: counted by exact address, it filled every
    place from addresses of its own block, each under its cap, and locked other players out."""
    with _by_hand(connections=10, connections_per_client=3) as (connect, _):
        block = [connect(f"2001:db8:1:2::{k:x}") for k in range(1, 6)]
        assert [p._refusal is None for p, _ in block] == [True, True, True, False, False]
        assert connect("2001:db8:1:3::1")[0]._refusal is None  # the next /64: another client
        assert connect("198.51.100.7")[0]._refusal is None


def test_a_connection_handed_to_websockets_gives_back_its_place():
    """Once uvicorn hands a connection to its WebSocket protocol (with a WebSocket library
    installed), the HTTP protocol hears nothing more of it, not even its end: its place among
    the connections served is given back at the hand-over, not held for good."""

    class Upgraded:
        def __init__(self, **_): pass
        def connection_made(self, transport): pass
        def data_received(self, data): pass

    with _by_hand(connections=1) as (connect, _):
        protocol, transport = connect("203.0.113.5")
        protocol.ws_protocol_class = Upgraded
        transport.set_protocol = lambda _: None  # type: ignore[method-assign]
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
        assert connect("203.0.113.6")[0]._refusal is None


def test_a_protocol_error_after_an_answer_adds_nothing_to_it(server):
    """A request that is not valid HTTP/1.1 past an answer already sent (here the host check's
    400, sent before the request's chunked body) used to get a second answer written after the
    first, which a client reads as part of the first or as garbage. Now the connection is
    closed, with nothing written, and the error logged once (it was logged twice)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    try:
        with socket.create_connection(("127.0.0.1", urllib.parse.urlsplit(server).port), timeout=30) as connection:
            connection.sendall(b"POST /api/check HTTP/1.1\r\nHost: evil.example\r\n"
                               b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            first = http.client.HTTPResponse(connection)
            first.begin()
            assert first.status == 400 and first.getheader("connection") != "close"
            first.read()
            connection.sendall(b"not a chunk\r\n\r\n")
            after = _wait_closed(connection, within=30)
    finally:
        logger.removeHandler(handler)
    assert after == b"", after
    assert [r.getMessage() for r in records] == ["Invalid HTTP request received."]


def test_bench_serve_runs_uvicorn_with_the_same_limits(monkeypatch):
    """bench serve and the tests' server build the server the same way (``server_config``)."""
    import uvicorn

    from bench.cli import main
    from bench.web.server import server_config
    from tests.web_server import free_port

    built = []

    class Server:
        def __init__(self, config):
            built.append(config)

        def run(self, sockets):
            pass

    monkeypatch.setattr(uvicorn, "Server", Server)
    assert main(["serve", "--port", str(free_port()), "--workers", "1"]) == 0
    expected = server_config(create_app(Settings()))
    (config,) = built
    assert config.limit_concurrency is None and config.connections == expected.connections == Settings().connections
    assert config.connections_per_client == Settings().connections_per_client
    assert config.http is expected.http and getattr(config, "read_timeout", None) == Settings().read_timeout


CHECK_WARMED = textwrap.dedent("""
    import json, sys
    from numba.core.registry import CPUDispatcher
    from fastapi.testclient import TestClient
    from bench.web.app import Settings, create_app

    def compiled():
        return {f"{name}.{attr}": len(value.signatures) for name, module in list(sys.modules.items())
                if name.split(".")[0] in ("solver", "bots") for attr, value in vars(module).items()
                if isinstance(value, CPUDispatcher)}

    at_import = compiled()
    with TestClient(create_app(Settings(allowed_hosts=("testserver",), workers=1, warm_up=False))) as client:
        started = compiled()
        done = client.post("/api/check", json={"arrangement": sys.argv[1]})
        assert done.status_code == 200, done.text
        print(json.dumps([at_import, started, compiled()]))
""")


@pytest.mark.slow
def test_the_first_check_compiles_nothing():
    """The foul check runs in the event loop: its first request used to compile kernels there
    (about a second, with every other request waiting). The app's start-up runs it first."""
    done = subprocess.run([sys.executable, "-c", CHECK_WARMED, ARRANGEMENT], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    at_import, started, after = json.loads(done.stdout.splitlines()[-1])
    assert sum(at_import.values()) == 0  # a fresh process: what the start-up compiles is seen
    assert started == after, {k: (started.get(k), v) for k, v in after.items() if started.get(k) != v}
    assert sum(started.values()) > 0


def test_the_worker_warm_up_runs_each_job_seating_each_bot(monkeypatch):
    """Each kind of job, each opponent model Solve offers and each bot Play seats (the lists
    are the app's own), under rules with and without royalties and naturals."""
    from bench.web import jobs
    from solver.rules import Rules

    calls: dict[str, list[dict]] = {name: [] for name in jobs.JOBS}
    for name, job in jobs.JOBS.items():
        def recorded(*args, _name=name, _job=job, **kwargs):
            calls[_name].append(inspect.signature(_job).bind(*args, **kwargs).arguments)
            return _job(*args, **kwargs)
        monkeypatch.setattr(jobs, name, recorded)
    jobs.warm_up()
    assert all(calls.values()), {name: len(c) for name, c in calls.items()}
    assert {spec.split(":")[0] for call in calls["play"] for spec in call["bots"]} >= set(SEAT_BOTS)
    assert {call["opponent"] for call in calls["solve"]} >= set(OPPONENTS)
    played = [Rules.parse(call["rules"]) for call in calls["play"]]
    assert any(r.royalties for r in played) and any(r.naturals for r in played)
    assert any(not r.royalties and not r.naturals for r in played)


WARMED_JOBS = textwrap.dedent("""
    import json, sys
    from numba.core.registry import CPUDispatcher
    from bench.records.deals import deal_table
    from bench.web import jobs
    from bench.web.app import OPPONENTS, SEAT_BOTS
    from solver import Arrangement, Card
    from solver.rules import PRESETS

    def compiled():
        return {f"{name}.{attr}": len(value.signatures) for name, module in list(sys.modules.items())
                if name.split(".")[0] in ("solver", "bots") for attr, value in vars(module).items()
                if isinstance(value, CPUDispatcher)}

    HAND, NATURAL = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"
    ARRANGEMENT = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"
    jobs.warm_up()
    warmed = compiled()
    seats = [name if name != "exhaustive" else "exhaustive:samples=10" for name in SEAT_BOTS]
    for rules in [*PRESETS, "2-4+royalties", "1-6+naturals", "royalties-win+naturals"]:
        for players, opponent in zip((2, 3, 4, 2), OPPONENTS):
            jobs.solve(HAND, opponent, 30, 1, players, 2, rules)
            jobs.solve(NATURAL, opponent, 30, 1, players, 2, rules)
            jobs.grade(HAND, ARRANGEMENT, opponent, 30, 1, players, rules)
        for first in range(0, len(seats), 3):
            bots = seats[first:first + 3]
            dealt = sorted((Card(int(c)) for c in deal_table(5, 1, len(bots) + 1)[0]), reverse=True)
            mine = Arrangement(tuple(dealt[10:]), tuple(dealt[5:10]), tuple(dealt[:5])).format()
            jobs.play(5, 1, len(bots) + 1, bots, mine, False, rules, 30)
    print(json.dumps([warmed, compiled()]))
""")


@pytest.mark.slow
def test_after_the_warm_up_no_job_of_the_page_compiles_a_kernel():
    """A fresh install's first Play hand used to spend most of its 20 s compiling (and under
    rules with royalties, more than 20 s): the worker's warm-up now compiles what every rule
    preset, opponent model and seated bot uses."""
    done = subprocess.run([sys.executable, "-c", WARMED_JOBS], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    warmed, after = json.loads(done.stdout.splitlines()[-1])
    assert warmed == after, {k: (warmed.get(k), v) for k, v in after.items() if warmed.get(k) != v}
