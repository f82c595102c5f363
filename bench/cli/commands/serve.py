"""``bench serve``: the web page, on this machine (or on a LAN with --host)."""

from __future__ import annotations

import argparse
import errno
import math
import socket
import threading
import webbrowser

from bench.cli.parsing import Parser, UsageError
from solver import config
from solver.limits import LIMITS
from solver.text import show


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser("serve", help="serve the web page (solve, grade, play, train)",
                            description="Serve the web page: solve a hand, grade your own play, play 8-hand sessions "
                            "against the bots, train on dealt hands. The JSON API is described at /docs. By default "
                            "only this machine can reach it; see docs/web.md before serving on a LAN.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default %(default)s: this machine only; 0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=8000, help="port (default %(default)s)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a host name or address the page may be reached by, besides localhost and --host "
                             "(repeatable; requests naming other hosts are refused)")
    parser.add_argument("--workers", type=int, default=2, help="solver processes (default %(default)s)")
    parser.add_argument("--queue", type=int, default=8,
                        help="requests that may wait for a solver process; more are answered 429 (default %(default)s)")
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds a request may compute before it is stopped (default %(default)s)")
    parser.add_argument("--open", action="store_true", help="open the page in a browser")


def allowed_hosts(host: str, extra: list[str]) -> tuple[str, ...]:
    """The Host headers answered: localhost, the address listened on, and those named.

    >>> allowed_hosts("0.0.0.0", ["poker.lan"])
    ('127.0.0.1', 'localhost', '::1', 'poker.lan')
    >>> allowed_hosts("192.168.1.20", [])
    ('127.0.0.1', 'localhost', '::1', '192.168.1.20')
    """
    from bench.web.app import LOCAL_HOSTS  # noqa: PLC0415  (optional, the web extra: loaded only by bench serve)

    hosts = list(LOCAL_HOSTS)
    for name in ([host] if host not in ("0.0.0.0", "::", "") else []) + extra:
        if name not in hosts:
            hosts.append(name)
    return tuple(hosts)


def page_url(host: str, port: int) -> str:
    """The address of the page served on ``host:port``, as a browser takes it: this machine's
    for every interface, an IPv6 address in brackets.

    >>> page_url("::1", 8000), page_url("0.0.0.0", 8000), page_url("192.168.1.20", 80)
    ('http://[::1]:8000/', 'http://127.0.0.1:8000/', 'http://192.168.1.20:80/')
    """
    from bench.web.app import url_host  # noqa: PLC0415  (optional, the web extra: loaded only by bench serve)

    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    return f"http://{url_host(shown)}:{port}/"


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: PLC0415  (optional, the web extra: loaded only by bench serve)

        from bench.web.app import Settings, create_app  # noqa: PLC0415  (optional, the web extra: loaded only by bench serve)
        from bench.web.server import server_config  # noqa: PLC0415  (the same)
    except ImportError:
        raise UsageError("the web page needs the web extra; from the project's folder: pip install -e '.[web]'") from None
    for flag, name, value in (("--port", "port", args.port), ("--workers", "web_workers", args.workers),
                              ("--queue", "web_queue", args.queue), ("--timeout", "web_timeout", args.timeout)):
        limit = LIMITS[name]
        if not (math.isfinite(value) and limit.low <= value <= limit.high):
            unit = " seconds" if isinstance(limit.high, float) else ""
            raise UsageError(f"{flag} must be {limit.low:g} to {limit.high:g}{unit}, got {value} ({limit.reason})")
    for name in args.allow_host:
        if not name or "/" in name or ":" in name or " " in name or name == "*":
            raise UsageError(f"--allow-host takes a host name or an IPv4 address (no port, no '*'), got {name!r}")
    hosts = allowed_hosts(args.host, args.allow_host)
    settings = Settings(solve_timeout=args.timeout, workers=args.workers, queue=args.queue, allowed_hosts=hosts)
    url = page_url(args.host, args.port)
    listener = bind(args.host, args.port)
    show(f"serving {url} to hosts named {', '.join(hosts)} (Ctrl-C stops it)")
    if args.host in ("0.0.0.0", "::") and not args.allow_host:
        show("listening on every interface, but answering only requests for localhost: name this machine as the "
             "players reach it with --allow-host NAME_OR_ADDRESS", flush=True)
    server = uvicorn.Server(server_config(create_app(settings), log_level="warning"))
    opener = None
    if args.open:
        opener = threading.Timer(1.0, open_page, args=(url,))
        opener.start()
    try:
        server.run(sockets=[listener])
    finally:
        if opener is not None:
            opener.cancel()
            opener.join()
        listener.close()
    return 0


def bind(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` for the server (so the address printed next answers
    at once: connections wait until the server takes them), or one line saying why there is none."""
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a closed server's port is free
    try:
        listener.bind((host, port))
        listener.listen(config.LISTEN_BACKLOG)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} is in use; pick another with --port") from None
        raise UsageError(f"cannot listen on {host} port {port}: {error.strerror or error}") from None
    listener.set_inheritable(True)
    return listener


def open_page(url: str) -> None:
    """Open ``url`` in a browser, or say that none opened and where the page is."""
    if not webbrowser.open(url):
        show(f"no browser opened; open {url} yourself", flush=True)
