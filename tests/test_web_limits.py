"""The web server's limits: sessions kept per client, and forgotten by idleness."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from bench.web.app import Settings, create_app  # noqa: E402


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
