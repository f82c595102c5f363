"""The web page's server: uvicorn, with a deadline for a request's headers and a cap on
connections, built in one place for ``bench serve`` and the tests' server alike.

uvicorn (h11) closes a connection idle between two requests, but waits without end for a
request that has begun and not finished: a connection that sends nothing, or half its
headers, holds a file open for good, and a few hundred of them take the server down. Here
a request's headers must arrive whole within ``Settings.read_timeout`` seconds of the
connection opening or of the request's first byte (past it: 408, and the connection is
closed); its body then has as long again (``bench.web.app.BodyLimit``). A connection past
``Settings.connections`` served at once (or with as many requests in progress), or past
``Settings.connections_per_client`` served from one address, has its request answered 503 and
is closed at once; one that sends no whole request head within ``config.REFUSED_SECONDS`` is
closed then. Only the connections served count toward the caps, never the refused ones: one
address opening connections without end fills its own share, not the server. A connection
from this machine (a reverse proxy here, which brings every player's requests; ``::1``, or
``::ffff:127.0.0.1`` through an IPv6 socket) counts toward the first cap only, an
IPv4-mapped address (``::ffff:1.2.3.4``) is the IPv4 address it maps, and the addresses of
one IPv6 /64 are one client.

uvicorn answers some requests itself, outside the app: a request h11 cannot parse (400), and
one past its own concurrency limit (503). Here the 400, the 408 and the 503 are written by
this module, with the security headers every answer of the app carries
(``bench.web.app.HEADERS`` and the page's Content-Security-Policy); uvicorn's limit is not used.
The 400 is written only when no answer has begun on the connection: a request that breaks
after one (its body, past an early answer) has its connection closed, the answer left whole.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections import Counter
from typing import Any

import h11
import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol

from bench.web.app import HEADERS, PAGE_POLICY
from solver import config


def answer(status: int, reason: str, detail: str, *extra: tuple[str, str]) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, with the app's security headers.

    Args:
        status: The status code.
        reason: Its reason phrase.
        detail: What is wrong, in one line: the body is ``{"detail": detail}``, as the app's errors.
        *extra: More headers, as (name, value).

    Returns:
        The answer's bytes, to write to the connection before closing it.
    """
    body = json.dumps({"detail": detail}).encode()
    headers = [("content-type", "application/json"), ("content-length", str(len(body))), ("connection", "close"),
               ("content-security-policy", PAGE_POLICY), *((k.lower(), v) for k, v in HEADERS.items()),
               ("cache-control", "no-store"), *extra]
    head = f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode("latin-1") + body


TIMED_OUT = answer(408, "Request Timeout", "the request did not arrive whole in time")
UNPARSABLE = answer(400, "Bad Request", "the request is not valid HTTP/1.1")


def _too_many(limit: int, whose: str) -> bytes:
    return answer(503, "Service Unavailable", f"the server has {limit} connections open{whose}, as many as it takes; "
                  "try again shortly", ("retry-after", "1"))


class ServerConfig(uvicorn.Config):
    """uvicorn's settings, with the seconds a request's headers may take to arrive and the caps on connections."""

    def __init__(self, app: Any, read_timeout: float, connections: int, connections_per_client: int, **options: Any):
        super().__init__(app, **options)
        self.read_timeout = read_timeout
        self.connections = connections
        self.connections_per_client = connections_per_client


def _client_key(host: str | None) -> str | None:
    """The address a connection from ``host`` counts against for the per-address cap: an
    IPv4-mapped IPv6 address as the IPv4 address it maps, any other IPv6 address as its /64
    (the block one host or one home network is given); None for this machine (loopback,
    mapped or not) and for a connection without a peer address."""
    if host is None:
        return None
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return None
    if isinstance(address, ipaddress.IPv6Address):  # one host holds a /64 of addresses: they are one client
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class _Served:
    """The connections one server serves (admitted, not refused): how many, and how many per address."""

    def __init__(self) -> None:
        self.total = 0
        self.by_client: Counter[str] = Counter()


def _served(server_state: Any) -> _Served:
    """The counts of the server whose shared state is ``server_state`` (uvicorn's ``ServerState``, one per server)."""
    served = getattr(server_state, "bench_served", None)
    if served is None:
        served = server_state.bench_served = _Served()
    return served


class HeaderDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 connection, closed when a request's headers do not arrive whole in time.

    The deadline runs while the server waits for a request's headers: from the connection's
    start until its first request's headers are read, and from the first byte of each later
    request (between requests, uvicorn's keep-alive time-out holds instead).
    """

    _deadline: asyncio.TimerHandle | None = None
    _refusal: bytes | None = None  # the 503 this connection's request gets: it came past a cap
    _counted = False  # whether it is counted among the connections served (in _served)
    _key: str | None = None  # the address it is counted against, None for this machine's

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._refusal = self._admit()
        self._watch()

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None:
            self._refuse(data)
        else:
            super().data_received(data)
        self._watch()

    def send_400_response(self, msg: str) -> None:
        """Answer a request h11 cannot parse with uvicorn's 400, with the security headers, and close.

        The 400 is written only when no answer has begun on the connection (h11 lets a server
        answer in no other state, which uvicorn's own 400 relies on); past one, a second answer
        would be read as part of the first, so the connection is only closed. The caller logs
        the error, as uvicorn does before calling this.

        Args:
            msg: uvicorn's words for the error (its own 400 sends them as the body).
        """
        if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            self.transport.write(UNPARSABLE)
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True  # the app's request ends here: nothing it sends is written
        self.transport.close()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """Hand the connection to uvicorn's WebSocket protocol, no longer counted as served here.

        This protocol's ``connection_lost`` is not called once the connection is another's: its
        place among the connections served is given back now, or it would be held for good.

        Args:
            event: The request that asks for the upgrade.
        """
        self._release()
        self._stop()
        super().handle_websocket_upgrade(event)

    def _admit(self) -> bytes | None:
        """Count this connection among those served and return None; or, past a cap, return its
        503 and count it nowhere. The caps: the connections served (or the requests in progress)
        of every client, then those served of this connection's address (not this machine's)."""
        caps = self.config
        assert isinstance(caps, ServerConfig), "HeaderDeadline is served by server_config's config"
        served = _served(self.server_state)
        if served.total >= caps.connections or len(self.tasks) >= caps.connections:
            return _too_many(caps.connections, "")
        key = _client_key(self.client[0] if self.client else None)
        if key is not None and served.by_client[key] >= caps.connections_per_client:
            return _too_many(caps.connections_per_client, " from your address")
        served.total += 1
        if key is not None:
            served.by_client[key] += 1
        self._counted, self._key = True, key
        return None

    def _release(self) -> None:
        """Give back this connection's place among those served, once (a refused one has none)."""
        if not self._counted:
            return
        self._counted = False
        served = _served(self.server_state)
        served.total -= 1
        if self._key is not None:
            served.by_client[self._key] -= 1
            if served.by_client[self._key] <= 0:
                del served.by_client[self._key]

    def _refuse(self, data: bytes) -> None:
        """Read the request's head, then answer it the 503 and close: the app never sees it."""
        self.conn.receive_data(data)
        try:
            event = self.conn.next_event()
        except h11.RemoteProtocolError:
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Invalid HTTP request received.")
            return
        if isinstance(event, h11.Request):
            self.logger.warning("A connection past the server's caps was answered 503.")
            self.transport.write(self._refusal or b"")
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        self._release()
        super().connection_lost(exc)

    def _waiting(self) -> bool:
        """Whether the server waits for a request's headers: a new connection, or part of a request read."""
        started = self.cycle is None or bool(self.conn.trailing_data[0])
        return self.conn.their_state is h11.IDLE and started and not self.transport.is_closing()

    def _watch(self) -> None:
        if not self._waiting():
            self._stop()
        elif self._deadline is None:
            assert isinstance(self.config, ServerConfig), "HeaderDeadline is served by server_config's config"
            seconds = self.config.read_timeout
            if self._refusal is not None:  # refused: held open only to answer a request sent at once
                seconds = min(seconds, config.REFUSED_SECONDS)
            self._deadline = self.loop.call_later(seconds, self._timed_out)

    def _stop(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        if self._waiting():
            if self.conn.trailing_data[0]:  # a request had begun: say why it ends
                self.transport.write(self._refusal or TIMED_OUT)
            self.transport.close()


def server_config(app: FastAPI, **options: Any) -> uvicorn.Config:
    """The server of ``app`` with the limits of its settings (``app.state.settings``).

    Args:
        app: The app of ``bench.web.app.create_app``.
        **options: More of ``uvicorn.Config``'s options: host, port, log_level, ...

    Returns:
        The config: ``HeaderDeadline`` connections, with ``Settings.read_timeout``,
            ``Settings.connections`` and ``Settings.connections_per_client``.
    """
    settings = app.state.settings
    return ServerConfig(app, read_timeout=settings.read_timeout, connections=settings.connections,
                        connections_per_client=settings.connections_per_client, http=HeaderDeadline, **options)
