"""The web page's server: uvicorn, with a deadline for a request's headers and a cap on
connections, built in one place for ``bench serve`` and the tests' server alike.

uvicorn (h11) closes a connection idle between two requests, but waits without end for a
request that has begun and not finished: a connection that sends nothing, or half its
headers, holds a file open for good, and a few hundred of them take the server down. Here
a request's headers must arrive whole within ``Settings.read_timeout`` seconds of the
connection opening or of the request's first byte (past it: 408, and the connection is
closed); its body then has as long again (``bench.web.app.BodyLimit``). A connection past
``Settings.connections`` open at once (or with as many requests in progress), or past
``Settings.connections_per_client`` open from one address, has its request answered 503 and
is closed. A connection from this machine (a reverse proxy here, which brings every player's
requests) counts toward the first cap only.

uvicorn answers some requests itself, outside the app: a request h11 cannot parse (400), and
one past its own concurrency limit (503). Here the 400, the 408 and the 503 are written by
this module, with the security headers every answer of the app carries
(``bench.web.app.HEADERS`` and the page's Content-Security-Policy); uvicorn's limit is not used.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from typing import Any

import h11
import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol

from bench.web.app import HEADERS, PAGE_POLICY


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


def _local(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HeaderDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 connection, closed when a request's headers do not arrive whole in time.

    The deadline runs while the server waits for a request's headers: from the connection's
    start until its first request's headers are read, and from the first byte of each later
    request (between requests, uvicorn's keep-alive time-out holds instead).
    """

    _deadline: asyncio.TimerHandle | None = None
    _refusal: bytes | None = None  # the 503 this connection's request gets: it came past a cap

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._refusal = self._past_a_cap()
        self._watch()

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None:
            self._refuse(data)
        else:
            super().data_received(data)
        self._watch()

    def send_400_response(self, msg: str) -> None:
        """Answer a request h11 cannot parse: uvicorn's 400, with the security headers."""
        self.logger.warning(msg)
        self.transport.write(UNPARSABLE)
        self.transport.close()

    def _past_a_cap(self) -> bytes | None:
        """The 503 for a connection past a cap, or None: the connections (or requests in progress)
        of every client, then those of this connection's address (not this machine's)."""
        config = self.config
        assert isinstance(config, ServerConfig), "HeaderDeadline is served by server_config's config"
        if len(self.connections) > config.connections or len(self.tasks) >= config.connections:
            return _too_many(config.connections, "")
        host = self.client[0] if self.client else None
        if host is None or _local(host):
            return None
        mine = sum(1 for other in self.connections if isinstance(other, H11Protocol) and other.client
                   and other.client[0] == host)
        return _too_many(config.connections_per_client, " from your address") if mine > config.connections_per_client else None

    def _refuse(self, data: bytes) -> None:
        """Read the request's head, then answer it the 503 and close: the app never sees it."""
        self.conn.receive_data(data)
        try:
            event = self.conn.next_event()
        except h11.RemoteProtocolError:
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
            self._deadline = self.loop.call_later(self.config.read_timeout, self._timed_out)

    def _stop(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        if self._waiting():
            if self.conn.trailing_data[0]:  # a request had begun: say why it ends
                self.transport.write(TIMED_OUT)
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
