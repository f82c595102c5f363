"""``bench serve`` on a busy port, and with --open where no browser opens (no server is run)."""

from __future__ import annotations

import socket
import threading

import pytest

pytest.importorskip("uvicorn")


def test_a_busy_port_is_one_line_and_exit_2_before_serving(capsys):
    """Fails if the command announces a page it cannot serve, or ends in uvicorn's error."""
    from bench.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == [f"bench serve: error: port {port} is in use; pick another with --port"]


def test_open_without_a_browser_says_so_with_the_address(capsys, monkeypatch):
    """Fails if --open stays silent when no browser opened (webbrowser.open answers False)."""
    import webbrowser

    import uvicorn

    from bench.cli import main

    asked = threading.Event()
    urls = []

    def no_browser(url, *args, **kwargs):
        urls.append(url)
        asked.set()
        return False

    def serve_until_the_page_is_asked_for(self, sockets=None):
        assert asked.wait(timeout=120), "the page was never opened"

    monkeypatch.setattr(webbrowser, "open", no_browser)
    monkeypatch.setattr(uvicorn.Server, "run", serve_until_the_page_is_asked_for)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["serve", "--port", str(port), "--open"]) == 0
    url = f"http://127.0.0.1:{port}/"
    assert urls == [url]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"serving {url}")
    assert lines[1:] == [f"no browser opened; open {url} yourself"]
