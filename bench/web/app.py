"""The web app: thin routes over the same library calls as the command line.

``create_app(settings)`` builds a FastAPI app that serves the page (static files shipped in
the package: no build step, no CDN; the API's own documentation at ``/docs`` included) and a
JSON API. What a request may ask for is an explicit allow-list: rules are presets, bots are
registered ones with listed parameters in bounded ranges, so no request names a file, a
command or a plug-in. The work runs in a pool of worker processes (``bench.web.pool``): a
request over its time limit is stopped with its worker, a full queue answers 429 at once,
and the page itself never waits for the solver. Hosts are checked (DNS rebinding), every
answer carries security headers, and the page builds no HTML from what a user typed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import math
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bench.records.deals import HANDS_PER_SESSION, deal_table, dealer_of
from bench.web.jobs import rows_of
from bench.web.pool import JobError, PoolBusy, PoolFault, PoolSettings, PoolTimeout, WorkerPool
from bots import BOTS, describe_bot
from solver import DECLARE, ROWS, Arrangement, describe, format_cards, foul_reason
from solver.errors import InputError
from solver.limits import ceiling
from solver.naturals import best_natural
from solver.rules import PRESETS, Rules, RulesError

STATIC = Path(__file__).with_name("static")
MAX_SAMPLES = int(ceiling("web_samples"))  # the limits of a request: solver.limits, with why
TEXT = int(ceiling("web_text"))
MAX_BODY = int(ceiling("web_body"))
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
HOST_HEADER = re.compile(r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._-]+))(?::(?P<port>[0-9]{1,5}))?")

# The opponent models a solve or a grade may simulate (fast bots, no parameters), and the bots
# a session may seat, each with the parameters it may be given and their bounds.
OPPONENTS = ("greedy", "heuristic", "random", "table")
SEAT_BOTS: dict[str, dict[str, tuple[Any, ...]]] = {  # parameter: ("int", low, high) or ("choice", *names)
    "exhaustive": {"samples": ("int", 10, 2_000), "opponent": ("choice", *OPPONENTS)},
    "greedy": {}, "heuristic": {}, "random": {}, "table": {},
}  # fmt: skip

PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
DOCS_POLICY = PAGE_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")  # Swagger UI styles itself
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
}


@dataclass(frozen=True)
class Settings:
    solve_timeout: float = 20.0  # seconds one solve, grade or hand of a session may compute
    max_samples: int = MAX_SAMPLES
    workers: int = 2  # solver processes
    queue: int = 8  # requests that may wait for a solver process; more are answered 429
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS  # Host headers answered (DNS rebinding)
    max_sessions: int = 10_000  # sessions of Play kept in memory, all clients together
    sessions_per_client: int = 50  # sessions kept for one client (IP address): a new one forgets its least recently used
    session_idle: float = 600.0  # seconds a session is safe from other clients' new sessions after its last use
    read_timeout: float = 10.0  # seconds a request has to arrive whole (headers, then body); then 408, connection closed
    connections: int = 256  # connections served at once (or requests in progress); a request past them gets 503
    connections_per_client: int = 32  # connections one address may hold open (this machine's: no cap); past it, 503
    clock: Callable[[], float] = time.monotonic  # the sessions' clock (a test's own, to pass time without waiting)
    warm_up: bool = True  # each solver process runs each kind of job once, tiny, before it takes requests
    pool: PoolSettings = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pool", PoolSettings(workers=self.workers, queue=self.queue,
                                                      timeout=self.solve_timeout, warm_up=self.warm_up))


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorAnswer(BaseModel):
    detail: str = Field(description="what is wrong, in one line")


RULES_FIELD = Field("basic", max_length=60, description="a preset or presets joined with +: basic, 1-6, 2-4, royalties, "
              "royalties-win, naturals (e.g. '2-4+royalties')")
OPPONENT_FIELD = Field("table", max_length=60, description=f"the bot that sets the simulated opponents: {', '.join(OPPONENTS)}")


class SolveRequest(Strict):
    hand: str = Field(max_length=TEXT, description="13 cards, such as 'AS KS QS ...' (10s, A♠, lower case and commas too)")
    samples: int = Field(1000, ge=1, le=MAX_SAMPLES)
    seed: int | None = Field(None, ge=0, lt=2**63)
    rules: str = RULES_FIELD
    opponent: str = OPPONENT_FIELD
    players: int = Field(2, ge=2, le=4)
    top: int = Field(3, ge=0, le=10)


class GradeRequest(Strict):
    hand: str = Field(max_length=TEXT)
    arrangement: str | None = Field(None, max_length=TEXT, description="'FRONT / MIDDLE / BACK'; absent to declare")
    declare: bool = Field(False, description="grade declaring the natural the hand holds (rules with naturals)")
    samples: int = Field(1000, ge=1, le=MAX_SAMPLES)
    seed: int | None = Field(None, ge=0, lt=2**63)
    rules: str = RULES_FIELD
    opponent: str = OPPONENT_FIELD
    players: int = Field(2, ge=2, le=4)


class CheckRequest(Strict):
    arrangement: str = Field(max_length=TEXT)


class DealRequest(Strict):
    seed: int | None = Field(None, ge=0, lt=2**63)


class SessionStart(Strict):
    bots: list[str] = Field(min_length=1, max_length=3, description="1 to 3 bots: " + ", ".join(SEAT_BOTS)
                            + " (exhaustive:samples=10..2000:opponent=BOT)")
    rules: str = RULES_FIELD
    seed: int | None = Field(None, ge=0, lt=2**53, description="deals the session; random (and told at its end) when absent")


class SessionDeal(Strict):
    session: str = Field(min_length=1, max_length=64)
    hand_number: int = Field(ge=0, lt=HANDS_PER_SESSION, description="0 to 7: a session is 8 hands")


class SessionHand(SessionDeal):
    arrangement: str | None = Field(None, max_length=TEXT, description="'FRONT / MIDDLE / BACK'; absent to declare")
    declare: bool = Field(False, description="declare the natural the hand holds instead of playing it out")
    samples: int = Field(500, ge=1, le=MAX_SAMPLES, description="simulated opponents for grading the play")


def rules_text(text: str) -> str:
    """Presets only (the web reads no files): the rules' canonical name.

    Args:
        text: A preset, or presets joined with ``+``; case and spaces around each are ignored.

    Returns:
        The rules' canonical name (``Rules.name``).

    Raises:
        HTTPException: 400, for a name that is not a preset or presets that make no rule set.
    """
    parts = [p.strip().lower() for p in text.split("+")]
    unknown = [p for p in parts if p not in PRESETS]
    if unknown:
        raise HTTPException(400, f"unknown rules {unknown[0][:40]!r}; presets are {', '.join(PRESETS)} (join with +)")
    try:
        return Rules.parse("+".join(parts)).name
    except RulesError as error:
        raise HTTPException(400, str(error)) from None


def opponent_spec(text: str) -> str:
    """An opponent model from the allow-list (no parameters).

    Args:
        text: The bot's name; case and spaces around it are ignored.

    Returns:
        The name, lower case: one of ``OPPONENTS``.

    Raises:
        HTTPException: 400, for ``exhaustive`` or any name not in ``OPPONENTS``.
    """
    name = text.strip().lower()
    if name == "exhaustive":
        raise HTTPException(400, "the exhaustive bot cannot be the opponent model: it would solve every simulated "
                                 f"opponent; choose from {', '.join(OPPONENTS)}")
    if name not in OPPONENTS:
        raise HTTPException(400, f"unknown opponent {text[:40]!r}; choose from {', '.join(OPPONENTS)}")
    return name


def seat_spec(text: str) -> str:
    """A bot for a seat of a session, from the allow-list, with bounded parameters: its canonical spec.

    Args:
        text: A bot spec, ``name:key=value:...``, of a bot in ``SEAT_BOTS``.

    Returns:
        The spec: the name and each choice lower case, the parameters in ``SEAT_BOTS``'s order.

    Raises:
        HTTPException: 400, for a bot or parameter not in ``SEAT_BOTS``, a parameter given
            twice, or a value out of its bounds.

    Examples:
        >>> seat_spec("Exhaustive:opponent=greedy:samples=300")
        'exhaustive:samples=300:opponent=greedy'
    """
    name, *parts = [p.strip() for p in text.strip().split(":")]
    name = name.lower()
    if name not in SEAT_BOTS:
        raise HTTPException(400, f"unknown bot {name[:40]!r}; choose from {', '.join(SEAT_BOTS)}")
    allowed = SEAT_BOTS[name]
    given: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in allowed:
            listed = ", ".join(allowed) or "none"
            raise HTTPException(400, f"bot {name!r} takes no parameter {key[:40]!r} here; its parameters: {listed}")
        if key in given:
            raise HTTPException(400, f"parameter {key!r} given twice for bot {name!r}")
        given[key] = value.strip()
    spec = [name]
    for key, (kind, *bounds) in allowed.items():
        if key not in given:
            continue
        value = given[key]
        if kind == "int":
            low, high = bounds
            if not (value.isdigit() and low <= int(value) <= high):
                raise HTTPException(400, f"{name} {key} must be a whole number from {low} to {high}, got {value[:20]!r}")
            spec.append(f"{key}={int(value)}")
        else:
            if value.lower() not in bounds:
                raise HTTPException(400, f"{name} {key} must be one of {', '.join(bounds)}, got {value[:20]!r}")
            spec.append(f"{key}={value.lower()}")
    return ":".join(spec)


@dataclass
class Session:
    seed: int
    bots: tuple[str, ...]
    rules: str
    scored: dict[int, list[int]] = field(default_factory=dict)  # hand number -> each seat's score
    results: dict[int, dict[str, Any]] = field(default_factory=dict)  # hand number -> the play job's result
    busy: set[int] = field(default_factory=set)  # hands being scored now
    touched: float = field(default_factory=time.monotonic)

    @property
    def players(self) -> int:
        return len(self.bots) + 1

    def totals(self) -> list[int]:
        """Each seat's total over the hands scored so far.

        Returns:
            One total a seat, the player's (seat 0) first.
        """
        return [sum(hand[i] for hand in self.scored.values()) for i in range(self.players)]


class Sessions:
    """Sessions of Play by their id, kept in memory within two limits.

    A client (an IP address) keeps at most ``per_client`` sessions: a new one past them
    forgets that client's least recently used session. All clients together keep at most
    ``limit``: a new session past them forgets the least recently used one if it has been
    idle for more than ``idle`` seconds, and is refused (429) if not, so that no client's
    flood of sessions pushes out another's session in use.
    """

    def __init__(self, limit: int, per_client: int = 50, idle: float = 600.0,
                 clock: Callable[[], float] = time.monotonic):
        self.limit, self.per_client, self.idle, self.clock = limit, per_client, idle, clock
        self._by_id: OrderedDict[str, Session] = OrderedDict()  # least recently used first
        self._client: dict[str, str] = {}  # session id -> its client
        self._of_client: dict[str, OrderedDict[str, None]] = {}  # client -> its session ids, least recently used first

    def add(self, session: Session, client: str) -> str:
        """Keep a new session of ``client``, forgetting a session past the limits.

        Args:
            session: The session.
            client: Who starts it: the client's IP address.

        Returns:
            Its id, a fresh random token.

        Raises:
            HTTPException: 429 with Retry-After, when every client's sessions are as many as
                ``limit`` and none has been idle for ``idle`` seconds.
        """
        now = self.clock()
        own = self._of_client.get(client)
        if own is not None and len(own) >= self.per_client:
            self._forget(next(iter(own)))
        elif len(self._by_id) >= self.limit:
            oldest = next(iter(self._by_id))
            waited = now - self._by_id[oldest].touched
            if waited <= self.idle:
                retry = max(1, math.ceil(self.idle - waited))
                raise HTTPException(429, f"the server holds as many sessions as it can, all in use; try again in "
                                         f"{retry} s", headers={"Retry-After": str(retry)})
            self._forget(oldest)
        key = secrets.token_urlsafe(16)
        session.touched = now
        self._by_id[key] = session
        self._client[key] = client
        self._of_client.setdefault(client, OrderedDict())[key] = None
        return key

    def get(self, key: str) -> Session:
        """A session by its id, which becomes the most recently used.

        Args:
            key: The session's id.

        Returns:
            The session.

        Raises:
            HTTPException: 404, when no session has that id (the server was restarted, or the
                session was forgotten).
        """
        session = self._by_id.get(key)
        if session is None:
            raise HTTPException(404, "this session is not on the server (it was restarted or the session is old); "
                                     "start a new session")
        self._by_id.move_to_end(key)
        self._of_client[self._client[key]].move_to_end(key)
        session.touched = self.clock()
        return session

    @staticmethod
    def client_of(request: Request) -> str:
        """Who a request comes from, as sessions are counted.

        Args:
            request: The request.

        Returns:
            The client's IP address (as uvicorn gives it: behind a proxy on this machine, the
                address the proxy forwards); ``"unknown"`` when the server gives none.
        """
        return request.client.host if request.client is not None else "unknown"

    def _forget(self, key: str) -> None:
        del self._by_id[key]
        client = self._client.pop(key)
        own = self._of_client[client]
        del own[key]
        if not own:
            del self._of_client[client]


def host_name(text: str | None) -> str | None:
    """The host a ``Host`` header (or an address) names, in one form for comparing.

    Args:
        text: A ``Host`` header, or an address as given on the command line; None or empty
            for none.

    Returns:
        The host, lower case, without its port, an IPv6 address without brackets and written
            short; None when the text is not a host.

    Examples:
        >>> host_name("[::1]:8000"), host_name("[0:0::1]"), host_name("::1"), host_name("LocalHost:80")
        ('::1', '::1', '::1', 'localhost')
        >>> host_name("[::1"), host_name("[::g]:80"), host_name("a b"), host_name(""), host_name(None)
        (None, None, None, None, None)
    """
    if not text:
        return None
    try:
        return ipaddress.IPv6Address(text).compressed  # an address as given on the command line
    except ValueError:
        pass
    match = HOST_HEADER.fullmatch(text)
    if match is None:
        return None
    if match["ipv6"] is not None:
        try:
            return ipaddress.IPv6Address(match["ipv6"]).compressed
        except ValueError:
            return None
    return match["name"].lower()


def url_host(host: str) -> str:
    """``host`` as a URL writes it: an IPv6 address in brackets.

    Args:
        host: A host name or an IP address, without brackets.

    Returns:
        The host, in brackets when it holds a colon (an IPv6 address).

    Examples:
        >>> url_host("::1"), url_host("127.0.0.1"), url_host("poker.lan")
        ('[::1]', '127.0.0.1', 'poker.lan')
    """
    return f"[{host}]" if ":" in host else host


class HostCheck:
    """Answer only requests whose ``Host`` header names one of ``allowed`` (any port); others
    get 400. A web page elsewhere then cannot reach the server through DNS rebinding."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...]):
        self.app = app
        self.allowed = frozenset(filter(None, map(host_name, allowed)))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        header = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        if host_name(header) in self.allowed:
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            return await send({"type": "websocket.close", "code": 1008})  # before accepting it: refused
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
        await send({"type": "http.response.body", "body": b"Invalid host header"})


class BodyLimit:
    """Read a request's body before the app sees it: over ``limit`` bytes, declared or sent
    (chunked too), the answer is 413; not arrived whole within ``timeout`` seconds, 408. Both
    close the connection. The app then reads the body from memory, in one message."""

    def __init__(self, app: ASGIApp, limit: int, timeout: float):
        self.app, self.limit, self.timeout = app, limit, timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _refuse(send, 413, "the request is too large")
        try:
            body = await asyncio.wait_for(self._read(receive), self.timeout)
        except _BodyTooLarge:
            return await _refuse(send, 413, "the request is too large")
        except asyncio.TimeoutError:
            return await _refuse(send, 408, f"the request did not arrive whole within {self.timeout:g} s")
        if body is None:  # the client went away
            return None
        read = False

        async def replayed() -> Message:
            nonlocal read
            if read:
                return await receive()  # a disconnect, for an app that listens for one
            read = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replayed, send)

    async def _read(self, receive: Receive) -> bytes | None:
        """The whole body; None when the client disconnects first."""
        parts: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            part = message.get("body", b"")
            seen += len(part)
            if seen > self.limit:
                raise _BodyTooLarge
            parts.append(part)
            if not message.get("more_body", False):
                return b"".join(parts)


class _BodyTooLarge(InputError):
    pass


async def _refuse(send: Send, status: int, detail: str) -> None:
    """Answer ``status`` with ``detail``, and close the connection (the rest of the request is not read)."""
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": json.dumps({"detail": detail}).encode()})


class SecurityHeaders:
    """Security headers on every answer; the Content-Security-Policy allows no inline script."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        policy = DOCS_POLICY if scope["path"] == "/docs" else PAGE_POLICY

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])]
                headers.append((b"content-security-policy", policy.encode()))
                headers += [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
                if scope["path"].startswith("/api/"):
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        return await self.app(scope, receive, with_headers)


DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Chinese Poker solver: the JSON API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/swagger/swagger-ui.css"><link rel="stylesheet" href="/static/docs.css">
<link rel="icon" href="data:,"></head>
<body><main id="swagger-ui"></main>
<script src="/static/swagger/swagger-ui-bundle.js"></script><script src="/static/docs.js"></script></body></html>"""


def swagger_assets() -> Path | None:
    """Swagger UI's files, shipped by the fastapi-offline package (the web extra), when it is installed.

    Returns:
        The folder of the files; None when fastapi-offline is not installed.
    """
    try:
        import fastapi_offline  # noqa: PLC0415  (optional: /docs without a CDN when it is installed)
    except ImportError:
        return None
    return Path(fastapi_offline.__file__).with_name("static")


WEB_SCHEMA_VERSION = 1  # of the web-* documents (the solve and hand-grade answers carry their own)


def web_document(name: str, **fields: Any) -> dict[str, Any]:
    """A web API answer: its schema version, the document it is (``web-<name>``) and its fields.

    Args:
        name: What the answer is, such as ``deal``.
        **fields: The answer's fields, in order.

    Returns:
        ``schema_version`` (``WEB_SCHEMA_VERSION``), ``document`` (``web-<name>``), then the
            fields.

    Examples:
        >>> web_document("deal", hand="AS KS", seed=1)
        {'schema_version': 1, 'document': 'web-deal', 'hand': 'AS KS', 'seed': 1}
    """
    return {"schema_version": WEB_SCHEMA_VERSION, "document": f"web-{name}", **fields}


def play_document(result: dict[str, Any], session: Session) -> dict[str, Any]:
    """The answer to a hand of a session: the job's result, with the session's totals.

    Args:
        result: The result of the ``play`` job for the hand.
        session: The session, with the hand scored.

    Returns:
        The ``web-session-play`` document: the result's fields, then ``totals`` (each seat's),
            ``hands_scored`` (the hand numbers, sorted) and ``seed``, which is None until all 8
            hands are scored.
    """
    over = len(session.scored) == HANDS_PER_SESSION
    return web_document("session-play", **result, totals=session.totals(), hands_scored=sorted(session.scored),
                        seed=session.seed if over else None)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The web app: the page, its JSON API over a pool of solver processes, and its middleware.

    The middleware checks hosts, limits bodies and adds the security headers.

    Args:
        settings: The server's settings; the defaults of ``Settings`` when None.

    Returns:
        The FastAPI app; its pool of solver processes starts and closes with the app's
            lifespan.
    """
    settings = settings or Settings()
    pool = WorkerPool(settings.pool)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # /api/check computes in the event loop: the kernels it runs are compiled (or loaded) before the first request
        checked = Arrangement.parse("9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS")
        foul_reason(checked)
        for row in checked.rows:
            describe(row)
        await pool.start()
        yield
        pool.close()

    app = FastAPI(title="Chinese Poker solver", version="2", docs_url=None, redoc_url=None, lifespan=lifespan,
                  description="Solve a hand, grade your own play, and play sessions against the bots. Requests "
                              "over the time limit answer 503; when the solver is busy, 429 with Retry-After.",
                  responses={422: {"model": ErrorAnswer, "description": "a request that does not fit the API"}})
    app.state.pool = pool
    app.state.settings = settings  # the server's limits too (bench.web.server.server_config)
    app.state.sessions = Sessions(settings.max_sessions, settings.sessions_per_client, settings.session_idle,
                                  settings.clock)
    _add_error_handlers(app)
    _add_pages(app)
    _add_solver_routes(app, settings, pool)
    _add_session_routes(app, settings, pool, app.state.sessions)
    if swagger_assets() is not None:
        app.mount("/static/swagger", StaticFiles(directory=swagger_assets()), name="swagger")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(BodyLimit, limit=MAX_BODY, timeout=settings.read_timeout)
    app.add_middleware(HostCheck, allowed=settings.allowed_hosts)
    app.add_middleware(SecurityHeaders)  # the last added is the outermost: its headers go on every answer
    return app


def validation_line(errors: list[dict[str, Any]]) -> str:
    """A request that does not fit the API, in one line: the first field at fault and what is wrong.

    Args:
        errors: The validation errors, as ``RequestValidationError.errors()`` gives them.

    Returns:
        The first error in one line, with how many more there are; at most 300 characters.

    Examples:
        >>> validation_line([{"loc": ("body", "bots"), "msg": "List should have at most 3 items after validation, not 4"}])
        'bots: list should have at most 3 items after validation, not 4'
        >>> validation_line([{"loc": ("body", 1), "type": "json_invalid", "msg": "JSON decode error",
        ...                   "ctx": {"error": "Expecting value"}}, {"loc": ("body", "seed"), "msg": "Field required"}])
        'the body is not valid JSON: Expecting value (at character 1) (and 1 more problem)'
    """
    if not errors:
        return "the request does not fit the API"
    first = errors[0]
    place = [p for p in first.get("loc", ()) if p not in ("body", "query", "path")]
    if first.get("type") == "json_invalid":
        reason = first.get("ctx", {}).get("error", "")
        at = f" (at character {place[0]})" if place and isinstance(place[0], int) else ""
        line = f"the body is not valid JSON: {reason}{at}" if reason else "the body is not valid JSON"
    elif not place and first.get("type") == "missing":
        line = "the request has no JSON body"
    else:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in place).lstrip(".") or "the body"
        message = str(first.get("msg", "is not valid"))
        line = f"{where}: {message[:1].lower()}{message[1:]}"
    more = len(errors) - 1
    if more:
        line += f" (and {more} more problem{'s' if more > 1 else ''})"
    return " ".join(line.split())[:300]


def _add_error_handlers(app: FastAPI) -> None:
    """Bad input answers 400, a request that does not fit the API 422, a busy pool 429 with
    Retry-After, a job over time or a failed worker 503: each with one line in ``detail``."""

    @app.exception_handler(RequestValidationError)
    async def unfit(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": validation_line(list(error.errors()))})

    @app.exception_handler(ValueError)
    async def bad_input(request: Request, error: ValueError) -> JSONResponse:
        # Cards, rules, bots and solver options raise ValueError subclasses with a readable message.
        return JSONResponse(status_code=400, content={"detail": str(error)})

    @app.exception_handler(PoolBusy)
    async def busy(request: Request, error: PoolBusy) -> JSONResponse:
        return JSONResponse(status_code=429, content={"detail": str(error)},
                            headers={"Retry-After": str(error.retry_after)})

    @app.exception_handler(PoolTimeout)
    @app.exception_handler(PoolFault)
    async def unavailable(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse(status_code=503, content={"detail": str(error)}, headers={"Retry-After": "5"})


async def _work(pool: WorkerPool, job: str, **arguments: Any) -> Any:
    """A job's result from the pool; a job that refuses its input answers 400."""
    try:
        return await pool.run(job, **arguments)
    except JobError as error:
        raise HTTPException(400, str(error)) from None


def _add_pages(app: FastAPI) -> None:
    """The page and the API's documentation."""

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        if swagger_assets() is None:
            raise HTTPException(404, "the API documentation needs the web extra (fastapi-offline); "
                                     "the schema is at /openapi.json")
        return HTMLResponse(DOCS_PAGE)


def _add_solver_routes(app: FastAPI, settings: Settings, pool: WorkerPool) -> None:
    """The bots, solve, grade, the foul check and a deal."""

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        return web_document("bots", bots=[
            {"name": n, "description": describe_bot(BOTS[n]), "opponent_model": n in OPPONENTS,
             "parameters": {k: list(v) for k, v in SEAT_BOTS[n].items()}} for n in SEAT_BOTS])

    @app.post("/api/solve")
    async def solve(request: SolveRequest) -> dict[str, Any]:
        return await _work(pool, "solve", hand=request.hand, opponent=opponent_spec(request.opponent),
                           samples=min(request.samples, settings.max_samples), seed=request.seed,
                           players=request.players, top=request.top, rules=rules_text(request.rules))

    @app.post("/api/grade")
    async def grade(request: GradeRequest) -> dict[str, Any]:
        if not request.declare and request.arrangement is None:
            raise HTTPException(400, "set your 13 cards (or declare your natural) first")
        return await _work(pool, "grade", hand=request.hand, arrangement=DECLARE if request.declare else request.arrangement,
                           opponent=opponent_spec(request.opponent), samples=min(request.samples, settings.max_samples),
                           seed=request.seed, players=request.players, rules=rules_text(request.rules))

    @app.post("/api/check")
    async def check(request: CheckRequest) -> dict[str, Any]:
        arrangement = Arrangement.parse(request.arrangement)
        reason = foul_reason(arrangement)
        return web_document("check", arrangement=rows_of(arrangement.format()), foul=reason is not None,
                            foul_reason=reason, rows={name: {"hand": describe(row)}
                                                      for name, row in zip(ROWS, arrangement.rows)})

    @app.post("/api/deal")
    async def deal(request: DealRequest) -> dict[str, Any]:
        seed = request.seed if request.seed is not None else secrets.randbits(32)
        cards = np.random.default_rng(seed).permutation(52)[:13].tolist()
        return web_document("deal", hand=format_cards(sorted(cards, reverse=True)), seed=seed)


def _add_session_routes(app: FastAPI, settings: Settings, pool: WorkerPool, sessions: Sessions) -> None:
    """Play: start a session, deal a hand of it, play that hand."""

    @app.post("/api/session/start")
    async def session_start(request: SessionStart, http: Request) -> dict[str, Any]:
        specs = tuple(seat_spec(b) for b in request.bots)
        seed = request.seed if request.seed is not None else secrets.randbits(53)
        session = Session(seed=seed, bots=specs, rules=rules_text(request.rules))
        kept = sessions.add(session, Sessions.client_of(http))
        # The seed deals the bots' hands too: it is told when the session is over (or when it was given).
        return web_document("session-start", session=kept, seed=request.seed, bots=list(specs),
                            rules=session.rules, player_count=session.players, hand_count=HANDS_PER_SESSION)

    @app.post("/api/session/deal")
    async def session_deal(request: SessionDeal) -> dict[str, Any]:
        session = sessions.get(request.session)
        hand = deal_table(session.seed, request.hand_number, session.players)[0].tolist()
        rules = Rules.parse(session.rules)
        natural = best_natural(hand, rules) if rules.naturals else None
        number = request.hand_number
        result = session.results.get(number)
        # A page reloaded while its hand was being scored finds the result here (or that it is still being scored).
        return web_document("session-deal", hand=format_cards(sorted(hand, reverse=True)), seat=0,
                            hand_number=number, dealer=dealer_of(number, session.players),
                            hand_count=HANDS_PER_SESSION, natural=natural.kind if natural else None,
                            scored=number in session.scored, scoring=number in session.busy,
                            result=None if result is None else play_document(result, session))

    @app.post("/api/session/play")
    async def session_play(request: SessionHand) -> dict[str, Any]:
        session = sessions.get(request.session)
        number = request.hand_number
        if number in session.scored or number in session.busy:
            raise HTTPException(409, f"hand {number + 1} of this session is already "
                                     f"{'scored' if number in session.scored else 'being scored'}; it counts once "
                                     "(POST /api/session/deal gives its result)")
        if not request.declare and request.arrangement is None:
            raise HTTPException(400, "set your 13 cards (or declare your natural) first")
        session.busy.add(number)
        try:
            result = await _work(pool, "play", seed=session.seed, hand_number=number, players=session.players,
                                 bots=list(session.bots), arrangement=None if request.declare else request.arrangement,
                                 declare=request.declare, rules=session.rules,
                                 samples=min(request.samples, settings.max_samples))
        finally:
            session.busy.discard(number)
        session.scored[number] = result["scores"]
        session.results[number] = result
        return play_document(result, session)
