"""The web page: its JSON API in-process (FastAPI's TestClient), and the page itself in a
real browser (the system's Chromium driven by Playwright): solve 13 clicked cards, grade a
hand set by clicks, play a hand of a session, with no JavaScript error on the page."""

from __future__ import annotations

import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

fastapi = pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from bench.web.app import STATIC, Settings, create_app  # noqa: E402

HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
BEST = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"


SETTINGS = Settings(allowed_hosts=("testserver",), workers=1)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(SETTINGS)) as client:
        yield client


@pytest.mark.parametrize("rules, players", [("basic", 2), ("2-4+royalties", 3)])
def test_solve_returns_the_solve_document(client, rules, players):
    """The page's solve is the library's: the same play, and an EV that is the sum of its
    parts computed on their own by the slow reference (tests/naive.py) against the opponents
    the library samples with that seed, times the opponents. Fails if the page solves
    anything else, or if a part of the EV is wrong."""
    from bots import solve_hand
    from tests import naive

    done = client.post("/api/solve", json={"hand": HAND, "seed": 1, "samples": 300, "rules": rules,
                                           "players": players})
    assert done.status_code == 200
    doc = done.json()
    assert doc["schema_version"] == 3 and " / ".join(doc["arrangement"].values()) == BEST
    solution = solve_hand(HAND, samples=300, seed=1, rules=rules, players=players, keep_sample=True)
    parts = naive.parts_of(solution)
    assert solution.parts == pytest.approx(parts, abs=1e-12)
    assert doc["ev"] == pytest.approx((players - 1) * sum(parts.values()), abs=1e-6)
    assert ("royalties" in parts) == ("royalties" in rules)


def test_a_hand_is_read_as_a_player_writes_it(client):
    written = "as, Ks, q♠ J♠ 10s 9h 9d 8c 7c 6d 5h 4s 2c"
    done = client.post("/api/solve", json={"hand": written, "seed": 1, "samples": 300})
    assert done.status_code == 200 and " / ".join(done.json()["arrangement"].values()) == BEST


@pytest.mark.parametrize("body, status, message", [
    ({"hand": "AS KS"}, 400, "expected 13 cards for the hand, got 2"),
    ({"hand": HAND.replace("2C", "AS")}, 400, "duplicate card 'AS'"),
    ({"hand": HAND, "rules": "1-6+2-4"}, 400, "sets the scoring method twice"),
    ({"hand": HAND, "rules": "/etc/passwd"}, 400, "unknown rules '/etc/passwd'"),
    ({"hand": HAND, "rules": "house.toml"}, 400, "unknown rules 'house.toml'"),
    ({"hand": HAND, "opponent": "os:system"}, 400, "unknown opponent 'os:system'"),
    ({"hand": HAND, "opponent": "cmd:/bin/sh"}, 400, "unknown opponent 'cmd:/bin/sh'"),
    ({"hand": HAND, "opponent": "exhaustive"}, 400, "cannot be the opponent model"),
    ({"hand": HAND, "samples": 10**7}, 422, "samples: input should be less than or equal to 20000"),
    ({"hand": HAND, "players": 5}, 422, "players: input should be less than or equal to 4"),
    ({"hand": HAND, "seed": -1}, 422, "seed: input should be greater than or equal to 0"),
    ({"hand": "AS " * 100}, 422, "hand: string should have at most 200 characters"),
    ({"hand": HAND, "tables": "/etc/shadow"}, 422, "tables: extra inputs are not permitted"),
    ({}, 422, "hand: field required"),
])
def test_bad_solve_requests_are_readable_400_or_422(client, body, status, message):
    done = client.post("/api/solve", json=body)
    assert done.status_code == status
    assert message in done.json()["detail"]


@pytest.mark.parametrize("path, content, line", [
    ("/api/session/start", {"bots": ["greedy"] * 4}, "bots: list should have at most 3 items after validation, not 4"),
    ("/api/session/start", {"bots": ["greedy"], "seed": 2**53}, "seed: input should be less than 9007199254740992"),
    ("/api/session/start", {"bots": "greedy"}, "bots: input should be a valid list"),
    ("/api/session/start", {"bots": [7]}, "bots[0]: input should be a valid string"),
    ("/api/session/deal", {"session": "x", "hand_number": "two"}, "hand_number: input should be a valid integer, "
                                                              "unable to parse string as an integer"),
    ("/api/session/play", {"session": "x", "hand_number": 0, "declare": "maybe"},
     "declare: input should be a valid boolean, unable to interpret input"),
    ("/api/deal", {"seed": 1.5}, "seed: input should be a valid integer, got a number with a fractional part"),
    ("/api/solve", b'{"hand": ', "the body is not valid JSON: Expecting value (at character 9)"),
    ("/api/solve", b"", "the request has no JSON body"),
    ("/api/solve", {"samples": "many"}, "hand: field required (and 1 more problem)"),
])
def test_a_request_that_does_not_fit_the_api_answers_422_with_one_line(client, path, content, line):
    """Wrong types, invalid JSON, too many bots, a seed past 2**53: 422 with the field and the
    problem in one line of ``detail`` (the convention of every error answer), never a list."""
    if isinstance(content, bytes):
        done = client.post(path, content=content, headers={"content-type": "application/json"})
    else:
        done = client.post(path, json=content)
    assert done.status_code == 422 and done.json() == {"detail": line}


@pytest.mark.parametrize("opponent", [
    "table:tables=/etc/shadow", "table:tables=/nonexistent/x.npz", "table:tables=/tmp", "exhaustive:samples=5000000",
    "greedy.toml", "x.toml", "cmd:/bin/sleep", "bots.greedy:GreedyBot", "table:rules=/etc/passwd",
])
def test_an_opponent_names_no_path_command_or_parameter(client, opponent):
    """Only the listed bots, without parameters: the answer is the same whether a path exists or not."""
    done = client.post("/api/solve", json={"hand": HAND, "opponent": opponent, "samples": 10})
    assert done.status_code == 400
    assert done.json()["detail"] == f"unknown opponent {opponent!r}; choose from greedy, heuristic, random, table"


@pytest.mark.parametrize("bot, message", [
    ("table:tables=/etc/shadow", "bot 'table' takes no parameter 'tables' here"),
    ("exhaustive:samples=5000000", "exhaustive samples must be a whole number from 10 to 2000"),
    ("exhaustive:samples=1e9", "exhaustive samples must be a whole number from 10 to 2000"),
    ("exhaustive:opponent=x.toml", "exhaustive opponent must be one of greedy, heuristic, random, table"),
    ("exhaustive:opponent=exhaustive", "exhaustive opponent must be one of"),
    ("exhaustive:samples=20:samples=30", "parameter 'samples' given twice"),
    ("bots.greedy:GreedyBot", "unknown bot 'bots.greedy'"),
    ("cmd:/bin/sh", "unknown bot 'cmd'"),
    ("examples/bots/sorted_bot.toml", "unknown bot 'examples/bots/sorted_bot.toml'"),
])
def test_a_seat_takes_only_listed_bots_and_bounded_parameters(client, bot, message):
    done = client.post("/api/session/start", json={"bots": [bot]})
    assert done.status_code == 400 and message in done.json()["detail"]


def test_grade_check_deal_and_bots(client):
    graded = client.post("/api/grade", json={"hand": HAND, "arrangement": BEST, "seed": 1, "samples": 300}).json()
    assert graded["lost"] == 0 and graded["foul"] is False and graded["diff"] == 0
    worse = client.post("/api/grade", json={"hand": HAND, "seed": 1, "samples": 300,
                                            "arrangement": "9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS"}).json()
    assert worse["lost"] > 1 and worse["diff_se"] > 0 and set(worse["rows"]) == {"front", "middle", "back"}
    fouled = client.post("/api/check", json={"arrangement": "AS KS QS / 9H 9D JS TS 8C / 7C 6D 5H 4S 2C"}).json()
    assert fouled["foul"] and fouled["foul_reason"].startswith("middle (pair of 9s")
    other = client.post("/api/grade", json={"hand": HAND, "arrangement": "2D 3D 4D / 5D 6D 7D 8D 9D / TD JD QD KD AD"})
    assert other.status_code == 400 and "other cards than the hand" in other.json()["detail"]
    dealt = client.post("/api/deal", json={"seed": 4}).json()
    assert len(dealt["hand"].split()) == 13 and client.post("/api/deal", json={"seed": 4}).json() == dealt
    assert {b["name"] for b in client.get("/api/bots").json()["bots"]} >= {"greedy", "table"}
    assert client.get("/").status_code == 200


def _set_by_rank(hand: str) -> str:
    cards = hand.split()
    return f"{' '.join(cards[10:])} / {' '.join(cards[5:10])} / {' '.join(cards[:5])}"


def test_a_session_hand_is_played_graded_and_counted_once(client):
    started = client.post("/api/session/start", json={"seed": 9, "bots": ["greedy", "table"]}).json()
    key = started["session"]
    deal = client.post("/api/session/deal", json={"session": key, "hand_number": 2}).json()
    arrangement = _set_by_rank(deal["hand"])
    body = {"session": key, "hand_number": 2, "samples": 200, "arrangement": arrangement}
    result = client.post("/api/session/play", json=body).json()
    assert [s["name"] for s in result["seats"]] == ["you", "greedy", "table"]
    assert sum(result["scores"]) == 0 and result["grade"]["arrangement"] and result["totals"] == result["scores"]
    assert all(result["pairs"][i][j] == -result["pairs"][j][i] for i in range(3) for j in range(3))
    assert result["row_results"][0][1] == {row: -r for row, r in result["row_results"][1][0].items()}
    assert result["review"]["lost"] == pytest.approx(max(0.0, result["review"]["best_ev"] - result["review"]["ev"]), abs=1e-5)
    again = client.post("/api/session/play", json=body)
    assert again.status_code == 409 and "already scored" in again.json()["detail"]
    hidden = client.post("/api/session/start", json={"bots": ["greedy"]}).json()
    assert hidden["seed"] is None and result["seed"] is None  # the seed would show the bots' hands
    unknown = client.post("/api/session/play", json={**body, "session": "nope"})
    assert unknown.status_code == 404 and "start a new session" in unknown.json()["detail"]


def test_a_hands_grade_seed_replays_the_grade_and_tells_nothing_of_the_next_deal(client):
    """The grade of a session's hand prints the seed that replays it, yet the session's seed
    stays hidden: neither that seed nor the seed it would be part of deals the next hand.
    Fails if the grade's seed is derived from the session's seed in a way that reveals it."""
    from bench.records.deals import deal_table
    from bots import grade_hand
    from solver import format_cards

    key = client.post("/api/session/start", json={"seed": 11, "bots": ["greedy"]}).json()["session"]
    hand = client.post("/api/session/deal", json={"session": key, "hand_number": 0}).json()["hand"]
    arrangement = _set_by_rank(hand)
    grade = client.post("/api/session/play", json={"session": key, "hand_number": 0, "samples": 200,
                                                   "arrangement": arrangement}).json()["grade"]
    seed = grade["seed"]
    assert 0 <= seed < 2**53
    replayed = grade_hand(hand, arrangement, "table", samples=200, seed=seed, players=2).to_dict()
    # (equal cards may trade places in the best play: the figures are the same)
    figures = ("ev", "diff", "diff_se", "lost")
    assert [replayed[k] for k in figures] + [replayed["best"]["ev"]] == [grade[k] for k in figures] + [grade["best"]["ev"]]
    following = client.post("/api/session/deal", json={"session": key, "hand_number": 1}).json()["hand"]
    for guess in (seed // 8, seed):
        assert format_cards(sorted(deal_table(guess, 1, 2)[0].tolist(), reverse=True)) != following


@pytest.mark.slow
def test_two_plays_of_one_hand_sent_at_once_count_once():
    """A double-click sends the same hand twice before the first answer: one is scored, one refused."""
    with TestClient(create_app(Settings(allowed_hosts=("testserver",), workers=2))) as client:
        key = client.post("/api/session/start", json={"seed": 5, "bots": ["greedy"]}).json()["session"]
        hand = client.post("/api/session/deal", json={"session": key, "hand_number": 0}).json()["hand"]
        body = {"session": key, "hand_number": 0, "samples": 200, "arrangement": _set_by_rank(hand)}
        with ThreadPoolExecutor(2) as both:
            answers = list(both.map(lambda _: client.post("/api/session/play", json=body), range(2)))
        assert sorted(a.status_code for a in answers) == [200, 409]


def test_a_natural_is_declared_or_played_and_graded_against_the_better_choice(client):
    seed, number = _a_session_with_a_natural()
    key = client.post("/api/session/start", json={"seed": seed, "bots": ["greedy"], "rules": "naturals"}).json()["session"]
    deal = client.post("/api/session/deal", json={"session": key, "hand_number": number}).json()
    assert deal["natural"]
    declared = client.post("/api/session/play", json={"session": key, "hand_number": number, "declare": True,
                                                      "samples": 300}).json()
    review = declared["review"]
    assert review["yours"] == "declared " + deal["natural"] and declared["seats"][0]["natural"] == deal["natural"]
    assert review["ev"] == review["natural_ev"]
    assert review["lost"] == pytest.approx(max(0, review["play_ev"] - review["natural_ev"]), abs=1e-5)
    other = client.post("/api/session/start", json={"seed": seed, "bots": ["greedy"], "rules": "naturals"}).json()["session"]
    played = client.post("/api/session/play", json={"session": other, "hand_number": number, "samples": 300,
                                                    "arrangement": _set_by_rank(deal["hand"])}).json()["review"]
    assert played["natural_ev"] == review["natural_ev"] and played["lost"] >= review["natural_ev"] - played["ev"] - 1e-5
    none = client.post("/api/session/start", json={"seed": seed, "bots": ["greedy"]}).json()["session"]
    refused = client.post("/api/session/play", json={"session": none, "hand_number": number, "declare": True})
    assert refused.status_code == 400 and "no natural to declare" in refused.json()["detail"]


SIX_PAIRS = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"


def test_grade_counts_the_natural_a_played_out_hand_gave_up(client):
    """Six pairs played out under naturals: the best play of three rows is worth less than
    declaring, so even that play costs what declaring would have won more; under basic the
    same play costs nothing. Fails if a grade compares a play with the best play only."""
    from bots import solve_hand

    best = solve_hand(SIX_PAIRS, "table", samples=300, seed=3, rules="naturals", top=0)
    assert best.declare and best.natural == "six pairs"
    graded = client.post("/api/grade", json={"hand": SIX_PAIRS, "arrangement": best.arrangement.format(), "seed": 3,
                                             "samples": 300, "rules": "naturals"}).json()
    assert graded["natural"] == "six pairs" and graded["declare"] is True
    assert graded["natural_ev"] == pytest.approx(best.natural_ev, abs=1e-5) and graded["diff"] == 0
    assert graded["lost"] == pytest.approx(best.natural_ev - best.ev, abs=1e-5) and graded["lost"] > 0.1
    basic = client.post("/api/grade", json={"hand": SIX_PAIRS, "arrangement": best.arrangement.format(), "seed": 3,
                                            "samples": 300, "rules": "basic"}).json()
    assert basic["natural"] is None and basic["declare"] is False and basic["lost"] == 0


def test_a_reloaded_page_finds_its_scored_hand(client):
    """A page reloaded while its hand was scored asks for the hand again: the deal says it is
    scored and gives the same result, and playing it again is refused with where to look.
    Fails if the server keeps the scores but not the result a page needs to go on."""
    key = client.post("/api/session/start", json={"seed": 9, "bots": ["greedy"]}).json()["session"]
    deal = client.post("/api/session/deal", json={"session": key, "hand_number": 0}).json()
    assert deal["scored"] is False and deal["scoring"] is False and deal["result"] is None
    body = {"session": key, "hand_number": 0, "samples": 200, "arrangement": _set_by_rank(deal["hand"])}
    played = client.post("/api/session/play", json=body).json()
    again = client.post("/api/session/deal", json={"session": key, "hand_number": 0}).json()
    assert again["scored"] is True and again["result"] == played
    refused = client.post("/api/session/play", json=body)
    assert refused.status_code == 409 and "/api/session/deal" in refused.json()["detail"]


def test_a_session_hands_review_names_what_solve_needs_to_show_it_again(client):
    """The review of a session's hand names its seed, rules, players and opponent: solving the
    hand with them gives the review's figures again, under rules with naturals too. Fails if
    the page's link to Solve can only guess them."""
    from bots import solve_hand

    seed, number = _a_session_with_a_natural()
    key = client.post("/api/session/start", json={"seed": seed, "bots": ["greedy"], "rules": "naturals"}).json()["session"]
    deal = client.post("/api/session/deal", json={"session": key, "hand_number": number}).json()
    review = client.post("/api/session/play", json={"session": key, "hand_number": number, "declare": True,
                                                    "samples": 300}).json()["review"]
    assert (review["rules"], review["player_count"], review["sample_count"]) == ("basic+naturals", 2, 300)
    solved = client.post("/api/solve", json={"hand": deal["hand"], "seed": review["seed"], "samples": review["sample_count"],
                                             "rules": review["rules"], "players": review["player_count"],
                                             "opponent": review["opponent"]}).json()
    assert solved["ev"] == review["play_ev"] and solved["natural_ev"] == review["natural_ev"]
    assert solve_hand(deal["hand"], "table", samples=300, seed=review["seed"] + 1, players=2,
                      rules="naturals").ev != review["play_ev"]


def _a_session_with_a_natural() -> tuple[int, int]:
    from bench.records.deals import deal_table
    from solver import Rules
    from solver.naturals import best_natural

    rules = Rules.parse("naturals")
    for seed in range(10_000):
        for number in range(8):
            if best_natural(deal_table(seed, number, 2)[0].tolist(), rules) is not None:
                return seed, number
    raise AssertionError("no natural in 80,000 hands")


def test_hosts_other_than_the_served_ones_are_refused(client):
    """DNS rebinding: a page on evil.example that resolves to this machine gets nothing."""
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    assert client.post("/api/deal", json={}, headers={"host": "evil.example:8000"}).status_code == 400
    assert client.get("/api/bots").status_code == 200


def test_every_answer_carries_security_headers_and_the_page_has_no_inline_script(client):
    for path in ("/", "/static/app.js", "/api/bots", "/docs"):
        done = client.get(path)
        policy = done.headers["content-security-policy"]
        scripts = next(p for p in policy.split(";") if p.strip().startswith("script-src"))
        assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts and "frame-ancestors 'none'" in policy
        assert done.headers["x-content-type-options"] == "nosniff" and done.headers["x-frame-options"] == "DENY"
    for name in ("index.html",):
        html = (STATIC / name).read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html) and not re.search(r"\son[a-z]+=", html)
    assert "<script>" not in client.get("/docs").text


def test_another_site_cannot_make_the_server_work(client):
    """A cross-site form or text/plain POST (no preflight) is not read as JSON, and the preflight a
    JSON POST needs is not granted: another page cannot start solves on this server."""
    body = json.dumps({"hand": HAND, "samples": 10})
    for kind in ("text/plain", "application/x-www-form-urlencoded"):
        assert client.post("/api/solve", content=body, headers={"content-type": kind}).status_code == 422
    preflight = client.options("/api/solve", headers={"origin": "http://evil.example", "access-control-request-method": "POST"})
    assert "access-control-allow-origin" not in preflight.headers


def test_a_large_body_is_refused_before_it_is_read(client):
    done = client.post("/api/solve", content=b"{" + b" " * 100_000 + b"}", headers={"content-type": "application/json"})
    assert done.status_code == 413


@pytest.mark.slow
def test_a_solve_over_its_time_limit_is_stopped_with_its_worker():
    """The worker computing a request past its limit is killed and a fresh one takes its place.

    The worker is frozen (SIGSTOP) once it is idle, before the request is sent, so it cannot
    answer however fast the machine is: the limit is sure to pass, and the request must come
    back 503 with the frozen worker ended. Fails if the limit is not enforced, or the worker
    past it is kept or not replaced."""
    import signal

    app = create_app(Settings(solve_timeout=0.5, allowed_hosts=("testserver",), workers=1, warm_up=False))
    with TestClient(app) as slow:
        pool = app.state.pool
        _wait_for(lambda: pool._idle is not None and pool._idle.qsize() == 1)  # started, and waiting for work
        first = pool.worker_pids()
        os.kill(first[0], signal.SIGSTOP)
        with ThreadPoolExecutor(1) as background:
            request = background.submit(slow.post, "/api/solve", json={"hand": HAND, "samples": 10})
            try:
                done = request.result(timeout=120)  # a guard against a limit that never fires
            finally:
                if _alive(first[0]):
                    os.kill(first[0], signal.SIGKILL)  # never leave the frozen worker behind
        assert done.status_code == 503 and done.json()["detail"].startswith("the work took longer than 0.5 s")
        assert pool.replaced == 1 and not _alive(first[0])
        assert _wait_for(lambda: pool.worker_pids() and pool.worker_pids() != first)


@pytest.mark.slow
def test_a_full_queue_answers_429_with_retry_after_at_once():
    """One worker, no queue: while a request is being computed (or waits for the worker to start),
    another is refused at once."""
    app = create_app(Settings(solve_timeout=600, allowed_hosts=("testserver",), workers=1, queue=0))
    with TestClient(app) as client, ThreadPoolExecutor(1) as background:
        first = background.submit(client.post, "/api/solve", json={"hand": HAND, "samples": 20000, "players": 4})
        _wait_for(lambda: app.state.pool.pending == 1)
        refused = client.post("/api/solve", json={"hand": HAND, "samples": 10})
        assert not first.done() and refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert "busy" in refused.json()["detail"]
        assert first.result().status_code == 200
    assert app.state.pool.worker_pids() == []


@pytest.mark.slow
@pytest.mark.parametrize("warm_up", [False, True], ids=["waiting", "warming-up"])
def test_closing_the_app_ends_its_workers(warm_up):
    # waiting: both workers have loaded and wait for work; warming up: the app closes while they compile
    app = create_app(Settings(allowed_hosts=("testserver",), workers=2, warm_up=warm_up))
    with TestClient(app):
        pool = app.state.pool
        if warm_up:
            pids = _wait_for(lambda: len(pool.worker_pids()) == 2 and pool.worker_pids())
        else:  # no deadline but the pool's own: a loaded machine loads the kernels slowly
            pids = _wait_for(lambda: pool.idle == 2 and pool.worker_pids(), seconds=3600)
    assert len(pids) == 2 and not any(_alive(pid) for pid in pids)


def _wait_for(condition, seconds: float = 120.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not true within {seconds} s")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("options, message", [
    (["--timeout", "nan"], "--timeout must be 0.1 to 3600 seconds, got nan"),
    (["--timeout", "inf"], "--timeout must be 0.1 to 3600 seconds, got inf"),
    (["--workers", "0"], "--workers must be 1 to 64, got 0"),
    (["--queue", "-1"], "--queue must be 0 to 10000, got -1"),
    (["--allow-host", "*"], "--allow-host takes a host name or an IPv4 address"),
    (["--port", "70000"], "--port must be 1 to 65535, got 70000"),
])
def test_bench_serve_refuses_bad_options_with_one_line(options, message, capsys):
    from bench.cli import main

    assert main(["serve", *options]) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and len(error.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers through /proc (Linux)")
def test_the_workers_die_with_a_killed_server():
    import signal
    import subprocess
    import sys
    import urllib.request

    from tests.web_server import free_port

    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", "import sys; from bench.cli import main; sys.exit(main())",
                               "serve", "--port", str(port), "--workers", "2"])
    try:
        _wait_for(lambda: _answers(urllib.request, f"http://127.0.0.1:{port}/"))
        solve = urllib.request.Request(f"http://127.0.0.1:{port}/api/solve", data=json.dumps({"hand": HAND}).encode(),
                                       headers={"content-type": "application/json"})
        with urllib.request.urlopen(solve, timeout=300) as done:  # a worker is ready and computing
            assert done.status == 200
        workers = _wait_for(lambda: len(_children(server.pid)) == 2 and _children(server.pid))
        server.send_signal(signal.SIGKILL)
        server.wait()
        _wait_for(lambda: not any(_alive(pid) and not _zombie(pid) for pid in workers), 60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _answers(request, url: str) -> bool:
    try:
        with request.urlopen(url, timeout=5):
            return True
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
