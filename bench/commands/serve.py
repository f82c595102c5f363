"""``bench serve``: the web page, on this machine."""

from __future__ import annotations

import argparse


def add_parser(sub) -> None:
    parser = sub.add_parser("serve", help="serve the web page (solve, grade, play)",
                            description="Serve the web page on this machine: solve a hand, grade your own play, "
                            "play 8-hand sessions against the bots. The JSON API is described at /docs.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default %(default)s)")
    parser.add_argument("--open", action="store_true", help="open the page in a browser")


def run(args: argparse.Namespace) -> int:
    from bench.parsing import UsageError

    try:
        import uvicorn

        from bench.web.app import create_app
    except ImportError:
        raise UsageError("the web page needs the web extra; from the project's folder: pip install '.[web]'") from None
    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1 to 65535, got {args.port}")
    url = f"http://{args.host}:{args.port}/"
    if args.open:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    print(f"serving {url} (Ctrl-C stops it)")
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")
    return 0
