"""The history that teaches, in a real browser (the system's Chromium, as
tests/test_web_browser.py drives it): the Trainer's figures under filters (rules, players,
hand type) checked against the same figures computed here from the same entries, EV lost by
day with its chart, export to a file and import into a fresh browser, files refused or partly
read, and Play's past sessions replayed hand by hand with every seat's rows. The contexts run in
UTC, so that a day on the page is the UTC date computed here. Each test fails on the page
before the history was added."""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

browser_tests = pytest.importorskip("tests.test_web_browser")  # skips as it does: no Chromium, no playwright
from bench.web.app import Settings, create_app  # noqa: E402
from solver.lessons import DECISIONS, SAME  # noqa: E402
from tests.web_server import CHROMIUM_ARGS, serving  # noqa: E402

pytestmark = pytest.mark.slow
_until, _place, _by_rank, _check = browser_tests._until, browser_tests._place, browser_tests._by_rank, browser_tests._check
HAND, BEST, WAIT = browser_tests.HAND, browser_tests.BEST, browser_tests.WAIT
WORSE = ("9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS", "9H 9D 4S / 8C 7C 6D 5H 2C / AS KS QS JS TS")
TRAINER, PAST, SESSION = "chinese-poker-trainer", "chinese-poker-sessions", "chinese-poker-session"
DAYS_SHOWN = 14
HOUR = 3_600_000  # ms
START = int(datetime(2024, 5, 1, 8, tzinfo=timezone.utc).timestamp() * 1000)
QUICK = 10_000  # ms: for what the page shows at once


@pytest.fixture(scope="module")
def server():
    with serving(create_app(Settings(workers=2, queue=32, solve_timeout=300))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with browser_tests.sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=browser_tests.CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(params=[1280, 390], ids=["desktop", "phone"])
def width(request):
    return request.param


def _open(browser, server, width: int, path: str = "/", stored: dict[str, object] | None = None):
    """A fresh browser context in UTC; ``stored`` is written to its local storage before the page starts."""
    context = browser.new_context(viewport={"width": width, "height": 900}, timezone_id="UTC")
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and "Failed to load resource" not in m.text and page.errors.append(m.text))
    if stored:
        page.goto(server + "/#solve")
        page.wait_for_selector("body[data-ready]")
        for key, value in stored.items():
            page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, value if isinstance(value, str) else json.dumps(value)])
    page.goto(server + path)
    if stored:
        page.reload()
    page.wait_for_selector("body[data-ready]")
    return page


def _entries(count: int = 90, seed: int = 5, start: int = START, prefix: str = "h") -> list[dict]:
    """Graded hands as the Trainer keeps them, 5 hours apart (so over several days), of two rules, two table sizes
    and every decision class."""
    rng, entries = random.Random(seed), []
    for number in range(count):
        decision = rng.choice([*DECISIONS, SAME])
        lost = 0.0 if decision == SAME else round(rng.uniform(0.01, 2.0), 4)
        entries.append({"id": f"{prefix}{number}", "hand": HAND, "yours": BEST if decision == SAME else rng.choice(WORSE),
                        "best": BEST, "lost": lost, "rules": rng.choice(["basic", "2-4"]), "players": rng.choice([2, 3]),
                        "at": start + number * 5 * HOUR, "seed": number, "samples": 500, "opponent": "table",
                        "verdict": "best" if lost == 0 else "mistake", "decision": decision})
    return entries


def _expected(entries: list[dict], rules: str | None = None, players: int | None = None, decision: str | None = None) -> dict:
    """The figures the page shows, computed here: count, mean, the last days, the leaks, the costliest hands."""
    hands = [x for x in entries if (rules is None or x["rules"] == rules) and (players is None or x["players"] == players)
             and (decision is None or x["decision"] == decision)]
    days: dict[str, list[float]] = {}
    for x in hands:
        days.setdefault(datetime.fromtimestamp(x["at"] / 1000, timezone.utc).strftime("%Y-%m-%d"), []).append(x["lost"])
    leaks: dict[str, list[float]] = {}
    for x in hands:
        if x["decision"] != SAME:
            leaks.setdefault(x["decision"], []).append(x["lost"])
    return {
        "count": len(hands),
        "mean": sum(x["lost"] for x in hands) / len(hands),
        "days": [(day, len(v), sum(v) / len(v)) for day, v in sorted(days.items())][-DAYS_SHOWN:],
        "leaks": sorted(((name, len(v), sum(v)) for name, v in leaks.items() if sum(v) > 0), key=lambda r: -r[2]),
        "costly": sorted((x["lost"] for x in hands), reverse=True)[:5],
    }


def _shown(page) -> dict:
    mean = page.inner_text('[data-testid="train-mean"]')
    rows = lambda selector: page.eval_on_selector_all(selector, "rs => rs.map(r => [...r.cells].map(c => c.textContent))")  # noqa: E731
    return {
        "count": int(mean.split()[0]),
        "mean": float(re.search(r"mean EV lost ([0-9.]+)", mean)[1]),
        "days": [(d, int(n), float(m)) for d, n, m in rows('[data-testid="train-days"] tbody tr')],
        "leaks": [(name, int(n), float(total)) for name, n, total, *_ in rows('table[data-testid="train-leaks"] tbody tr')],
        "costly": [float(x[-1]) for x in rows('[data-testid="train-costly"] tbody tr')],
        "points": page.locator('[data-testid="train-chart"] circle').count(),
        "chart": page.eval_on_selector_all('[data-testid="train-chart"]', "cs => cs.map(c => c.ariaLabel).join('')"),
    }


def _same_figures(shown: dict, expected: dict) -> None:
    assert shown["count"] == expected["count"]
    assert shown["mean"] == pytest.approx(expected["mean"], abs=1e-3)
    assert [(d, n) for d, n, _ in shown["days"]] == [(d, n) for d, n, _ in expected["days"]]
    assert [m for *_, m in shown["days"]] == pytest.approx([m for *_, m in expected["days"]], abs=1e-3)
    assert [(name, n) for name, n, _ in shown["leaks"]] == [(name, n) for name, n, _ in expected["leaks"]]
    assert [t for *_, t in shown["leaks"]] == pytest.approx([t for *_, t in expected["leaks"]], abs=1e-3)
    assert shown["costly"] == pytest.approx(expected["costly"], abs=1e-3)
    days = expected["days"]
    assert shown["points"] == len(days), "the chart has a point a day of the table"
    assert days[0][0] in shown["chart"] and days[-1][0] in shown["chart"], shown["chart"]


def test_filters_change_every_figure_as_computed_from_the_same_entries(browser, server, width):
    entries = _entries()
    page = _open(browser, server, width, "/#train", {TRAINER: entries})
    page.wait_for_selector('[data-testid="train-mean"]')
    _same_figures(_shown(page), _expected(entries))
    assert len(_expected(entries)["days"]) == DAYS_SHOWN < len({x["at"] // (24 * HOUR) for x in entries}), "the days are capped"

    choices: dict[str, object] = {}
    counts = [len(entries)]
    for key, value in [("rules", "basic"), ("players", 3), ("decision", "where the pair goes")]:
        page.select_option(f'[data-testid="train-filter-{key}"]', str(value), timeout=QUICK)
        choices[key] = value
        expected = _expected(entries, **choices)
        _until(page, f"document.querySelector('[data-testid=train-mean]').textContent.startsWith('{expected['count']} hands')")
        _same_figures(_shown(page), expected)
        counts.append(expected["count"])
        if key == "players":
            _check(page, "train-history", width)
    assert counts == sorted(counts, reverse=True) and len(set(counts)) == 4, f"each filter leaves fewer hands: {counts}"
    assert [name for name, *_ in _shown(page)["leaks"]] == ["where the pair goes"]

    page.select_option('[data-testid="train-filter-decision"]', "")  # back to every hand type
    expected = _expected(entries, rules="basic", players=3)
    _until(page, f"document.querySelector('[data-testid=train-mean]').textContent.startsWith('{expected['count']} hands')")
    _same_figures(_shown(page), expected)
    assert page.errors == []
    page.context.close()


def _hollow_session(number: int, ended: int) -> dict:
    """A finished session as Play keeps it, its hands' tables left out: valid to keep, not to draw."""
    return {"schema_version": 2, "session": f"past-{number}", "seed": number, "bots": ["greedy"], "rules": "basic",
            "player_count": 2, "hand": 7, "phase": "over", "totals": [3, -3], "ended": ended,
            "results": [{"hand": n, "review": {"lost": 0.25, "yours": BEST, "best": BEST, "hand": HAND}, "scores": [0, 0],
                         "result": {"seats": []}} for n in range(8)]}


def test_export_then_import_into_a_fresh_browser_gives_the_same_history(browser, server):
    entries, sessions = _entries(), [_hollow_session(1, START), _hollow_session(2, START + HOUR)]
    page = _open(browser, server, 1280, "/#train", {TRAINER: entries, PAST: sessions})
    page.wait_for_selector('[data-testid="train-mean"]')
    assert page.locator('[data-testid="train-export"]').count() == 1, "no export"
    with page.expect_download() as download:
        page.click('[data-testid="train-export"]')
    path = download.value.path()
    assert re.fullmatch(r"chinese-poker-history-\d{4}-\d{2}-\d{2}\.json", download.value.suggested_filename)
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    assert (document["document"], document["schema_version"]) == ("trainer-history", 1)
    assert document["entries"] == entries and document["sessions"] == sessions
    shown = page.inner_text('[data-testid="train-progress"]')

    fresh = _open(browser, server, 1280, "/#train")
    fresh.wait_for_selector('[data-testid="train-progress"] .hint')
    fresh.set_input_files('[data-testid="train-import"]', path)
    _until(fresh, "!!document.querySelector('[data-testid=train-import-status]').textContent")
    said = fresh.inner_text('[data-testid="train-import-status"]')
    assert said == ("imported 90 hands, 0 skipped as malformed, 0 already here; "
                    "past sessions: 2 imported, 0 skipped as malformed, 0 already here")
    assert fresh.evaluate(f"JSON.parse(localStorage.getItem('{TRAINER}'))") == entries
    assert fresh.evaluate(f"JSON.parse(localStorage.getItem('{PAST}'))") == sessions
    assert fresh.inner_text('[data-testid="train-progress"]') == shown

    fresh.set_input_files('[data-testid="train-import"]', path)  # the same file again: nothing twice
    _until(fresh, "document.querySelector('[data-testid=train-import-status]').textContent.includes('90 already here')")
    said = fresh.inner_text('[data-testid="train-import-status"]')
    assert said == ("imported 0 hands, 0 skipped as malformed, 90 already here; "
                    "past sessions: 0 imported, 0 skipped as malformed, 2 already here")
    assert len(fresh.evaluate(f"JSON.parse(localStorage.getItem('{TRAINER}'))")) == 90
    fresh.click('[data-testid="tab-play"]')
    fresh.wait_for_selector('[data-testid="play-past-table"] tbody tr')
    assert fresh.locator('[data-testid="play-past-table"] tbody tr').count() == 2
    assert fresh.errors == [] and page.errors == []
    page.context.close()
    fresh.context.close()


def _file(content: object) -> dict:
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    return {"name": "history.json", "mimeType": "application/json", "buffer": data}


def _import(page, content: object) -> str:
    said = "[document.getElementById('train-import-status'), document.getElementById('train-import-error')]"
    page.evaluate(f"{said}.forEach(e => {{ e.textContent = ''; }})")
    page.set_input_files('[data-testid="train-import"]', files=[_file(content)])
    _until(page, f"{said}.some(e => e.textContent)")
    return page.inner_text('[data-testid="train-import-error"]') or page.inner_text('[data-testid="train-import-status"]')


def test_a_file_not_a_history_is_refused_in_one_line_and_a_partly_bad_one_says_what_it_skipped(browser, server, width):
    kept = _entries(3)
    page = _open(browser, server, width, "/#train", {TRAINER: kept})
    page.wait_for_selector('[data-testid="train-mean"]')
    assert page.locator('[data-testid="train-import"]').count() == 1, "no import"
    document = {"document": "trainer-history", "schema_version": 1, "entries": [], "sessions": []}
    for content, said in [
        (b"{oops", "not a trainer history: it is not JSON"),
        ([], 'not a trainer history: expected a JSON object {"document": "trainer-history", ...}, found a list'),
        ({**document, "document": "hand-grade"}, 'not a trainer history: "document" is "hand-grade", expected "trainer-history"'),
        ({**document, "schema_version": 2}, "schema_version 2 is not one this page reads (1)"),
        ({**document, "entries": {"h1": kept[0]}}, 'its "entries" is an object, expected a list'),
    ]:
        line = _import(page, content)
        assert line == f"history.json was not imported: {said}" and "\n" not in line
        assert page.inner_text('[data-testid="train-import-status"]') == ""
        assert page.evaluate(f"JSON.parse(localStorage.getItem('{TRAINER}'))") == kept, "a refused file changed the history"
    if width == 390:
        _check(page, "train-import-refused", width)

    new = _entries(5, seed=9, start=START + 1000 * HOUR, prefix="new")
    malformed = [None, {**new[0], "id": "bad-1", "lost": -1}, {**new[1], "id": "bad-2", "yours": "<img src=x onerror=alert(1)>"}]
    line = _import(page, {**document, "entries": [*kept, *malformed, *new]})
    assert line == "imported 5 hands, 3 skipped as malformed, 3 already here"
    stored = page.evaluate(f"JSON.parse(localStorage.getItem('{TRAINER}'))")
    assert stored == kept + new
    _until(page, "document.querySelector('[data-testid=train-mean]').textContent.startsWith('8 hands')")
    assert page.locator("#train img").count() == 0

    more = _entries(1000, seed=11, start=START + 2000 * HOUR, prefix="more")
    sessions = [*[_hollow_session(n, START + n) for n in range(55)], {"phase": "over"}]
    line = _import(page, {**document, "entries": more, "sessions": sessions})
    assert line == ("imported 1,000 hands, 0 skipped as malformed, 0 already here; the oldest 8 hands left out (1,000 at most); "
                    "past sessions: 55 imported, 1 skipped as malformed, 0 already here, the oldest 5 left out (50 at most)")
    assert page.evaluate(f"JSON.parse(localStorage.getItem('{TRAINER}'))") == more
    past = page.evaluate(f"JSON.parse(localStorage.getItem('{PAST}'))")
    assert [s["session"] for s in past] == [f"past-{n}" for n in range(5, 55)], "the newest 50 sessions are kept"
    if width == 1280:
        _check(page, "train-import", width)
    assert page.errors == []
    page.context.close()


def test_a_finished_session_is_kept_and_replays_each_hand_as_the_table_was(browser, server):
    page = _open(browser, server, 1280, "/#play")
    page.evaluate(f"localStorage.removeItem('{PAST}')")
    page.select_option('[data-testid="play-bot-0"]', "greedy")
    page.click('[data-testid="play-start"]')
    seen: list[list[str]] = []  # every seat's box as shown when the hand was played
    for number in range(8):
        _until(page, f"document.querySelector('[data-testid=play-status]').textContent.includes('Hand {number + 1} of 8')")
        page.wait_for_selector('[data-testid="play-go"]:not([hidden]):not([disabled])')
        _place(page, "play-board", _by_rank(page, "play-board"))
        page.click('[data-testid="play-go"]')
        page.wait_for_selector('#play-table [data-testid="play-grade"]')
        seen.append([page.inner_text(f'#play-table [data-testid="seat-{i}"]') for i in range(2)])
        if number < 7:
            page.click('[data-testid="play-next"]')
    page.wait_for_selector('[data-testid="play-summary-table"]')
    _until(page, "!!document.querySelector('[data-testid=play-past-table] tbody tr')", timeout=QUICK)
    current = page.evaluate(f"localStorage.getItem('{SESSION}')")
    past = page.evaluate(f"JSON.parse(localStorage.getItem('{PAST}'))")
    assert len(past) == 1 and past[0]["session"] == json.loads(current)["session"] and past[0]["phase"] == "over"
    kept = past[0]
    ended = datetime.fromtimestamp(kept["ended"] / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M")
    lost = sum(r["review"]["lost"] for r in kept["results"])
    row = page.eval_on_selector_all('[data-testid="play-past-table"] tbody tr td', "cs => cs.map(c => c.innerText)")
    assert row[:4] == [ended, "greedy\nbasic", f"{kept['totals'][0]:+d}", f"{lost:.3f}"]

    page.click('[data-testid="play-past-open"]')
    _until(page, "document.querySelector('[data-testid=play-past-hand]')?.textContent.endsWith('hand 1 of 8')")
    replayed = lambda: [page.inner_text(f'#play-past-replay [data-testid="seat-{i}"]') for i in range(2)]  # noqa: E731
    assert replayed() == seen[0], "hand 1 replayed is not the table as it was"
    bot = kept["results"][0]["result"]["seats"][1]["arrangement"]
    assert all(face in seen[0][1] for r in ("front", "middle", "back") for face in browser_tests._faces(bot[r]))
    assert page.is_disabled('[data-testid="play-past-previous"]')
    _check(page, "play-past", 1280)
    page.click('[data-testid="play-past-next"]')
    _until(page, "document.querySelector('[data-testid=play-past-hand]').textContent.endsWith('hand 2 of 8')")
    assert replayed() == seen[1]
    page.click('[data-testid="play-past-previous"]')
    _until(page, "document.querySelector('[data-testid=play-past-hand]').textContent.endsWith('hand 1 of 8')")
    assert replayed() == seen[0]
    for _ in range(7):
        page.click('[data-testid="play-past-next"]')
    _until(page, "document.querySelector('[data-testid=play-past-hand]').textContent.endsWith('hand 8 of 8')")
    assert replayed() == seen[7] and page.is_disabled('[data-testid="play-past-next"]')
    assert page.evaluate("document.activeElement.dataset.testid") == "play-past-previous", "focus fell off the last Next"
    # the session on the table is untouched
    assert page.evaluate(f"localStorage.getItem('{SESSION}')") == current
    assert "Hand 8 of 8" in page.inner_text('[data-testid="play-status"]')
    assert [page.inner_text(f'#play-table [data-testid="seat-{i}"]') for i in range(2)] == seen[7]
    assert page.errors == []

    phone = _open(browser, server, 390, "/#play", {PAST: past})
    phone.click('[data-testid="play-past-open"]')
    _until(phone, "document.querySelector('[data-testid=play-past-hand]')?.textContent.endsWith('hand 1 of 8')")
    assert [phone.inner_text(f'#play-past-replay [data-testid="seat-{i}"]') for i in range(2)] == seen[0]
    _check(phone, "play-past", 390)
    page.context.close()
    phone.context.close()


def test_damaged_past_sessions_never_stop_the_page_and_a_valid_one_among_them_is_listed(browser, server):
    hollow = _hollow_session(1, START)
    damaged = ["not json", "{}", "null", json.dumps([None, 5, {"phase": "over"}, {**hollow, "schema_version": 1},
                                                     {**hollow, "totals": "x"}, {**hollow, "ended": "yesterday"}])]
    wide = {**hollow, "bots": ["exhaustive", "heuristic", "random"], "player_count": 4, "totals": [-12, 4, 4, 4],
            "rules": "2-4+royalties+naturals"}  # the widest row the list may show
    for kept in [*damaged, json.dumps([None, {**hollow, "session": "older", "schema_version": 1}, wide])]:
        page = _open(browser, server, 390, "/#play", {PAST: kept, TRAINER: "[1, {}, null]"})
        visible = page.eval_on_selector_all(".view", "vs => vs.filter(v => !v.hidden).map(v => v.id)")
        assert visible == ["play"]
        if kept in damaged:
            assert not page.is_visible('[data-testid="play-past"]')
        else:
            _until(page, "!!document.querySelector('[data-testid=play-past-table]')", timeout=QUICK)
            assert page.locator('[data-testid="play-past-table"] tbody tr').count() == 1
            assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), "scrolls"
            page.click('[data-testid="play-past-open"]')
            _until(page, "!!document.querySelector('#play-past-replay .warning')", timeout=QUICK)
            assert "Hand 1 cannot be shown" in page.inner_text("#play-past-replay")
        page.select_option('[data-testid="play-bot-0"]', "greedy")
        page.click('[data-testid="play-start"]')  # a new session starts as on a fresh page
        page.wait_for_selector('[data-testid="play-go"]:not([hidden]):not([disabled])')
        page.goto(server + "/#train")
        page.wait_for_selector('[data-testid="train-progress"] .hint')
        assert page.errors == [], kept
        page.context.close()
