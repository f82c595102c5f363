"""The web page's server: uvicorn, with a deadline for a request's headers and a cap on
connections, built in one place for ``bench serve`` and the tests' server alike.

uvicorn (h11) closes a connection idle between two requests, but waits without end for a
request that has begun and not finished: a connection that sends nothing, or half its
headers, holds a file open for good, and a few hundred of them take the server down. Here
a request's headers must arrive whole within ``Settings.read_timeout`` seconds of the
connection opening or of the request's first byte (past it: 408, and the connection is
closed); its body then has as long again (``bench.web.app.BodyLimit``). Connections past
``Settings.connections`` are answered 503 at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol

TIMED_OUT_TEXT = b"the request did not arrive whole in time"
TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
             b"content-length: %d\r\n\r\n%s" % (len(TIMED_OUT_TEXT), TIMED_OUT_TEXT))


class ServerConfig(uvicorn.Config):
    """uvicorn's settings, with the seconds a request's headers may take to arrive."""

    def __init__(self, app: Any, read_timeout: float, **options: Any):
        super().__init__(app, **options)
        self.read_timeout = read_timeout


class HeaderDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 connection, closed when a request's headers do not arrive whole in time.

    The deadline runs while the server waits for a request's headers: from the connection's
    start until its first request's headers are read, and from the first byte of each later
    request (between requests, uvicorn's keep-alive time-out holds instead).
    """

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

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
        The config: ``HeaderDeadline`` connections, with ``Settings.read_timeout`` and
            ``Settings.connections`` (uvicorn's ``limit_concurrency``).
    """
    settings = app.state.settings
    return ServerConfig(app, read_timeout=settings.read_timeout, http=HeaderDeadline,
                        limit_concurrency=settings.connections, **options)
