"""The web page: its JSON API in-process (FastAPI's TestClient), and the page itself in a
real browser (the system's Chromium driven by Playwright): solve 13 clicked cards, grade a
hand set by clicks, play a hand of a session, with no JavaScript error on the page."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

fastapi = pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from bench.web.app import Settings, create_app  # noqa: E402

HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
BEST = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "web"


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


def test_solve_returns_the_solve_document(client):
    done = client.post("/api/solve", json={"hand": HAND, "seed": 1, "samples": 300})
    assert done.status_code == 200
    doc = done.json()
    assert doc["schema_version"] == 2 and " / ".join(doc["arrangement"].values()) == BEST
    assert sum(doc["ev_parts"]["per_opponent"].values()) == pytest.approx(doc["ev"], abs=1e-5)


@pytest.mark.parametrize("body, status, message", [
    ({"hand": "AS KS"}, 400, "expected 13 cards for the hand, got 2"),
    ({"hand": HAND.replace("2C", "AS")}, 400, "duplicate card 'AS'"),
    ({"hand": HAND, "rules": "1-6+2-4"}, 400, "sets the scoring method twice"),
    ({"hand": HAND, "rules": "/etc/passwd"}, 400, "unknown rules '/etc/passwd'"),
    ({"hand": HAND, "rules": "house.toml"}, 400, "unknown rules 'house.toml'"),
    ({"hand": HAND, "opponent": "os:system"}, 400, "unknown bot 'os:system'"),
    ({"hand": HAND, "opponent": "cmd:/bin/sh"}, 400, "unknown bot 'cmd:/bin/sh'"),
    ({"hand": HAND, "opponent": "exhaustive"}, 400, "cannot be the opponent model"),
    ({"hand": HAND, "samples": 10**7}, 422, "less than or equal to 20000"),
    ({"hand": HAND, "players": 5}, 422, "less than or equal to 4"),
    ({"hand": HAND, "seed": -1}, 422, "greater than or equal to 0"),
    ({"hand": "AS " * 100}, 422, "at most 200 characters"),
    ({}, 422, "Field required"),
])
def test_bad_solve_requests_are_readable_400_or_422(client, body, status, message):
    done = client.post("/api/solve", json=body)
    assert done.status_code == status
    assert message in str(done.json()["detail"])


def test_grade_check_deal_and_bots(client):
    graded = client.post("/api/grade", json={"hand": HAND, "arrangement": BEST, "seed": 1, "samples": 300}).json()
    assert graded["lost"] == 0 and graded["foul"] is None and graded["diff"] == 0
    worse = client.post("/api/grade", json={"hand": HAND, "seed": 1, "samples": 300,
                                            "arrangement": "9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS"}).json()
    assert worse["lost"] > 1 and worse["diff_se"] > 0 and set(worse["rows"]) == {"front", "middle", "back"}
    fouled = client.post("/api/check", json={"arrangement": "AS KS QS / 9H 9D JS TS 8C / 7C 6D 5H 4S 2C"}).json()
    assert fouled["foul"] and fouled["reason"].startswith("middle (pair of 9s")
    other = client.post("/api/grade", json={"hand": HAND, "arrangement": "2D 3D 4D / 5D 6D 7D 8D 9D / TD JD QD KD AD"})
    assert other.status_code == 400 and "other cards than the hand" in other.json()["detail"]
    dealt = client.post("/api/deal", json={"seed": 4}).json()
    assert len(dealt["hand"].split()) == 13 and client.post("/api/deal", json={"seed": 4}).json() == dealt
    assert {b["name"] for b in client.get("/api/bots").json()["bots"]} >= {"greedy", "table"}
    assert client.get("/docs").status_code == 200 and client.get("/").status_code == 200


def test_a_session_hand_is_played_and_graded(client):
    deal = client.post("/api/session/deal", json={"seed": 9, "players": 3, "hand_number": 2}).json()
    cards = deal["hand"].split()
    arrangement = f"{' '.join(cards[10:])} / {' '.join(cards[5:10])} / {' '.join(cards[:5])}"
    result = client.post("/api/session/play", json={"seed": 9, "players": 3, "hand_number": 2, "samples": 200,
                                                     "bots": ["greedy", "table"], "arrangement": arrangement}).json()
    assert [s["name"] for s in result["seats"]] == ["you", "greedy", "table"]
    assert sum(result["scores"]) == 0 and result["grade"]["arrangement"]
    assert all(result["pairs"][i][j] == -result["pairs"][j][i] for i in range(3) for j in range(3))
    wrong = client.post("/api/session/play", json={"seed": 9, "players": 3, "hand_number": 2, "bots": ["greedy"],
                                                    "arrangement": arrangement})
    assert wrong.status_code == 400 and "3 players need 2 bots" in wrong.json()["detail"]


def test_a_solve_that_takes_too_long_is_a_503():
    slow = TestClient(create_app(Settings(solve_timeout=0.001)))
    done = slow.post("/api/solve", json={"hand": HAND, "samples": 20000})
    assert done.status_code == 503 and "took longer than" in done.json()["detail"]


# --- in a real browser -------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def server():
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not instance.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(server):
    if CHROMIUM is None:
        pytest.skip("no system Chromium (apt-get install chromium): the browser test cannot run")
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.on("console", lambda message: message.type == "error" and page.errors.append(message.text))
        page.goto(server)
        yield page
        browser.close()


def _shot(page, name: str) -> None:
    """Screenshots for the README: written to docs/web when UPDATE_SCREENSHOTS=1."""
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS / f"{name}.png"), full_page=True)


def _place(page, board: str, cards: list[str]) -> None:
    """Click cards into rows: the first 3 to the front, the next 5 to the middle, the rest to the back."""
    for index, card in enumerate(cards):
        clicks = 1 if index < 3 else (2 if index < 8 else 3)
        for _ in range(clicks):
            page.locator(f'[data-testid="{board}"] [data-card="{card}"]').first.click()


def test_the_page_solves_grades_and_plays(page):
    page.wait_for_selector('[data-testid="solve-grid"] .card')
    for card in HAND.split():
        page.locator(f'[data-testid="solve-grid"] [data-card="{card}"]').click()
    page.click('[data-testid="solve-go"]')
    page.wait_for_selector('[data-testid="best"]', timeout=60_000)
    assert "Best:" in page.inner_text('[data-testid="best"]')
    assert page.locator('[data-testid="solve-result"] .bar').count() == 3
    _shot(page, "solve")

    page.click('[data-testid="tab-grade"]')
    page.fill('[data-testid="grade-text"]', HAND)
    page.click('[data-testid="grade-load"]')
    _place(page, "grade-board", "AS KS QS 9H 9D JS TS 8C 7C 6D 5H 4S 2C".split())  # a foul
    page.wait_for_function("document.querySelector('[data-testid=grade-warning]').textContent.startsWith('Foul')")
    page.click('[data-testid="grade-load"]')
    _place(page, "grade-board", "9D 4S 2C 9H 8C 7C 6D 5H AS KS QS JS TS".split())
    page.click('[data-testid="grade-go"]')
    page.wait_for_selector('[data-testid="grade-summary"]', timeout=60_000)
    assert "your play cost" in page.inner_text('[data-testid="grade-summary"]')
    _shot(page, "grade")

    page.click('[data-testid="tab-play"]')
    page.click('[data-testid="play-start"]')
    page.wait_for_selector('[data-testid="pool"] .card')
    cards = page.eval_on_selector_all('[data-testid="pool"] .card', "cards => cards.map(c => c.dataset.card)")
    _place(page, "play-board", cards[10:] + cards[5:10] + cards[:5])
    page.click('[data-testid="play-go"]')
    page.wait_for_selector('[data-testid="play-grade"]', timeout=60_000)
    assert page.locator('[data-testid="seat-1"]').count() == 1
    assert "Running totals" in page.inner_text('[data-testid="play-totals"]')
    page.wait_for_timeout(600)
    _shot(page, "play")
    assert page.errors == []
