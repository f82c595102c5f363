"""The page's flows on ordinary events, in a real browser (the system's Chromium, as
tests/test_web_browser.py drives it): Enter pressed twice, Enter on a hand already scored or
graded, a reload while a hand is being scored, saved data from an older page or damaged,
links that must show the same figures again, naturals in Grade, seats of the same bot, the
units of every EV, and where focus goes after an answer. Each test fails on the page as it
was before these flows were fixed."""

from __future__ import annotations

import json
import re

import pytest

browser_tests = pytest.importorskip("tests.test_web_browser")  # skips as it does: no Chromium, no playwright
from bench.web.app import Settings, create_app  # noqa: E402
from tests.web_server import CHROMIUM_ARGS, serving  # noqa: E402

pytestmark = pytest.mark.slow
_open, _until, _place, _by_rank = browser_tests._open, browser_tests._until, browser_tests._place, browser_tests._by_rank
HAND, WAIT = browser_tests.HAND, browser_tests.WAIT
SIX_PAIRS = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"
SESSION = "chinese-poker-session"


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


def _played_best(count: int) -> list[dict]:
    """Trainer entries of hands played as the best play, graded after a first one."""
    return [{"id": f"other-{k}", "hand": HAND, "yours": "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS",
             "best": "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS", "lost": 0, "rules": "basic", "players": 2,
             "at": 2 + k, "verdict": "best", "decision": "same as the best play"} for k in range(count)]


def _idle(page) -> None:
    _until(page, "!document.querySelector('[aria-busy]')")


def test_enter_twice_in_solve_leaves_every_control_usable_and_focus_on_the_answer(browser, server):
    page = _open(browser, server, 390)
    page.fill('[data-testid="solve-text"]', HAND)
    page.click('[data-testid="solve-go"]')
    page.press('[data-testid="solve-text"]', "Enter")  # a second request while the first is out
    page.wait_for_selector('[data-testid="best"]')
    _idle(page)
    disabled = page.eval_on_selector_all("#solve button, #solve select",
                                         "xs => xs.filter(x => x.disabled).map(x => x.id || x.className)")
    assert disabled == [], f"controls left disabled: {disabled}"
    assert page.evaluate("document.activeElement !== document.body"), "focus dropped to the body"
    top = page.evaluate("document.getElementById('solve-result').getBoundingClientRect().top")
    assert 0 <= top < page.viewport_size["height"], f"the answer is off screen on a phone (top {top})"
    assert page.errors == []
    page.context.close()


def test_every_ev_says_its_unit_and_row_figures_add_up_to_the_headline(browser, server):
    """Four players: the rows' EVs are over all three opponents, as the headline's is, so they
    add up to it (basic has no other part); in Grade the rows' differences add up to the cost."""
    page = _open(browser, server, 1280, f"/#solve?hand={HAND.replace(' ', '+')}&players=4&samples=300&seed=1")
    page.wait_for_selector('[data-testid="best"]')
    line = page.inner_text('[data-testid="solve-ev"]')
    assert "units a hand, all 3 opponents" in line
    headline = float(re.search(r"EV ([+-][0-9.]+)", line)[1])
    rows = [float(x) for x in page.eval_on_selector_all("#solve-result table >> nth=0 >> tbody tr td:last-child",
                                                         "xs => xs.map(x => x.textContent)")]
    assert len(rows) == 3 and sum(rows) == pytest.approx(headline, abs=0.003)
    worse = "9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS"
    page.goto(f"{server}/#grade?hand={HAND.replace(' ', '+')}&arrangement={worse.replace(' ', '+')}&players=4&samples=300&seed=1")
    page.wait_for_selector('[data-testid="grade-summary"]')
    summary = page.inner_text('[data-testid="grade-summary"]')
    assert "units a hand, all 3 opponents" in summary
    cost = float(re.search(r"cost ([0-9.]+)", summary)[1])
    differences = [float(x) for x in page.eval_on_selector_all("#grade-result tbody tr td:last-child",
                                                                "xs => xs.map(x => x.textContent)")]
    assert cost > 1 and -sum(differences) == pytest.approx(cost, abs=0.003)
    page.context.close()


def test_grade_under_naturals_counts_declaring(browser, server):
    best = "9S 9H 2C / AS KS QS JS TS / AH KH QH JH TH"
    page = _open(browser, server, 1280, f"/#grade?hand={SIX_PAIRS.replace(' ', '+')}&arrangement={best.replace(' ', '+')}"
                                        "&rules=naturals&samples=300&seed=3")
    page.wait_for_selector('[data-testid="grade-summary"]')
    assert "declaring it was the best choice" in page.inner_text('[data-testid="grade-natural"]')
    cost = float(re.search(r"cost ([0-9.]+)", page.inner_text('[data-testid="grade-summary"]'))[1])
    assert cost > 0.1
    page.context.close()


def test_the_trainer_counts_a_hand_once_and_its_review_shows_the_same_cost(browser, server):
    page = _open(browser, server, 1280, "/#train")
    page.evaluate("localStorage.removeItem('chinese-poker-trainer')")
    page.click('[data-testid="train-deal"]')
    page.wait_for_selector('[data-testid="train-go"]:not([hidden]):not([disabled])')
    cards = _by_rank(page, "train-board")
    _place(page, "train-board", cards[3:8] + cards[:3] + cards[8:])  # most often a costly play
    page.keyboard.press("Enter")
    _until(page, "document.querySelector('[data-testid=train-mean]')?.textContent.startsWith('1 hands')")
    _idle(page)
    page.locator('[data-testid="train-board"] .card >> nth=0').focus()
    page.keyboard.press("Enter")  # on the graded hand's board: nothing is graded again
    page.keyboard.press("Control+Enter")
    _idle(page)
    stored = page.evaluate("JSON.parse(localStorage.getItem('chinese-poker-trainer'))")
    assert len(stored) == 1 and page.inner_text('[data-testid="train-mean"]').startswith("1 hands")
    review = page.get_attribute('[data-testid="train-costly"] a', "href")
    assert "seed=" in review and "samples=500" in review
    page.goto(server + "/" + review)
    page.wait_for_selector('[data-testid="grade-summary"]')
    shown = float(re.search(r"cost ([0-9.]+)", page.inner_text('[data-testid="grade-summary"]'))[1])
    assert shown == pytest.approx(stored[0]["lost"], abs=1e-3)
    page.context.close()


def test_a_reload_while_a_hand_is_scored_finds_its_result_and_enter_does_not_send_it_again(browser, server):
    page = _open(browser, server, 1280, "/#play")
    page.select_option('[data-testid="play-bot-0"]', "greedy")
    page.click('[data-testid="play-start"]')
    page.wait_for_selector('[data-testid="play-go"]:not([hidden]):not([disabled])')
    _place(page, "play-board", _by_rank(page, "play-board"))
    page.click('[data-testid="play-go"]')
    page.wait_for_selector('[data-testid="play-grade"]')
    _idle(page)
    page.locator('[data-testid="play-board"] .card >> nth=0').focus()
    page.keyboard.press("Enter")  # on the scored hand's board: it is not sent again
    page.keyboard.press("Control+Enter")
    _idle(page)
    assert page.inner_text('[data-testid="play-error"]') == "" and page.is_visible('[data-testid="play-grade"]')

    page.click('[data-testid="play-next"]')
    page.wait_for_selector('[data-testid="play-go"]:not([hidden]):not([disabled])')
    _place(page, "play-board", _by_rank(page, "play-board"))
    with page.expect_request("**/api/session/play"):
        page.click('[data-testid="play-go"]')
    page.reload()  # the request was sent: the server scores the hand, this page never sees the answer
    page.wait_for_selector("body[data-ready]")
    _until(page, "document.querySelector('[data-testid=play-status]').textContent.includes('Hand 2 of 8')")
    page.wait_for_selector('[data-testid="play-grade"]')
    page.wait_for_selector('[data-testid="play-next"]:not([hidden])')
    _idle(page)
    assert page.inner_text('[data-testid="play-error"]') == ""
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('{SESSION}'))")
    assert kept["phase"] == "scored" and [r["hand"] for r in kept["results"]] == [0, 1]
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("kept", [
    '{"schema_version": 1, "session": "x", "bots": ["table"], "rules": "basic", "hand": 0, "phase": "set"}',
    '{"schema_version": 2, "session": "x", "bots": ["table"], "rules": "basic", "player_count": 2, "hand": 3, '
    '"phase": "scored", "results": 5, "totals": [0, 0]}',
    '{"schema_version": 2, "session": "x", "bots": ["table"], "rules": "basic", "player_count": 2, "hand": 0, '
    '"phase": "scored", "results": [{"hand": 0, "review": {"lost": 1, "yours": "x", "best": "y", "hand": "z"}, '
    '"result": {"seats": [null]}}], "totals": [0, 0]}',
    "not json", "[]", "null",
], ids=["older", "damaged", "bad-result", "not-json", "a-list", "null"])
def test_saved_data_from_an_older_page_or_damaged_never_stops_the_page(browser, server, kept):
    page = _open(browser, server, 390)
    page.evaluate(f"localStorage.setItem('{SESSION}', {json.dumps(kept)}); "
                  "localStorage.setItem('chinese-poker-trainer', '[1, {}]')")
    page.goto(server + "/#play")
    page.reload()
    page.wait_for_selector("body[data-ready]")
    visible = page.eval_on_selector_all(".view", "vs => vs.filter(v => !v.hidden).map(v => v.id)")
    assert visible == ["play"]
    if kept != "null":
        assert "could not be read" in page.inner_text('[data-testid="play-status"]')
    page.select_option('[data-testid="play-bot-0"]', "greedy")
    page.click('[data-testid="play-start"]')  # a new session starts as on a fresh page
    page.wait_for_selector('[data-testid="play-go"]:not([hidden]):not([disabled])')
    page.goto(server + "/#train")
    page.wait_for_selector('[data-testid="train-progress"] .hint')
    assert page.errors == []
    page.context.close()


def test_seats_of_the_same_bot_are_told_apart_and_a_reload_keeps_the_setup(browser, server):
    page = _open(browser, server, 1280, "/#play")
    page.select_option('[data-testid="play-count"]', "3")
    page.select_option('[data-testid="play-rules"]', "2-4")
    for seat in range(3):
        page.select_option(f'[data-testid="play-bot-{seat}"]', "greedy")
    page.click('[data-testid="play-start"]')
    page.wait_for_selector('[data-testid="play-go"]:not([hidden]):not([disabled])')
    _place(page, "play-board", _by_rank(page, "play-board"))
    page.click('[data-testid="play-go"]')
    page.wait_for_selector('[data-testid="play-grade"]')
    names = [page.inner_text(f'[data-testid="seat-{i}"] h3') for i in range(4)]
    assert names == ["you", "greedy 1", "greedy 2", "greedy 3"]
    page.reload()
    page.wait_for_selector("body[data-ready]")
    page.wait_for_selector('[data-testid="play-grade"]')
    assert page.input_value('[data-testid="play-count"]') == "3" and page.input_value('[data-testid="play-rules"]') == "2-4"
    assert [page.input_value(f'[data-testid="play-bot-{i}"]') for i in range(3)] == ["greedy"] * 3
    page.context.close()


def _planted_leak_entries(count: int = 40) -> list[dict]:
    """Trainer entries of a player who plays as `table` plays, except that wherever it can it
    moves the best play's highest pair into the front instead (a legal play that the decision
    classes call 'where the pair goes'): graded as the page grades them."""
    import numpy as np

    from bots import grade_hand, make_bot_for
    from solver import Arrangement, Card, Rules, format_cards, is_foul
    from solver.lessons import decision

    rules, rng = Rules.parse("basic"), np.random.default_rng(17)
    table, entries = make_bot_for("table", rules), []
    for number in range(count):
        cards = tuple(Card(int(c)) for c in rng.permutation(52)[:13])
        hand = format_cards(sorted(cards, reverse=True))
        best = grade_hand(hand, table.arrange(cards, rng), "table", samples=200, seed=number).solution.arrangement
        play = table.arrange(cards, rng)
        for pair in sorted({c.rank for c in cards if sum(1 for d in cards if d.rank == c.rank) == 2}, reverse=True):
            moved = [c for row in best.rows[1:] for c in row if c.rank == pair]
            if len(moved) != 2 or any(c.rank == pair for c in best.rows[0]):
                continue
            front = sorted(best.rows[0], key=lambda c: c.rank)
            out, keep = front[:2], front[2:]
            rows = [[*moved, *keep]] + [[c for c in row if c not in moved] for row in best.rows[1:]]
            for row in rows[1:]:
                while len(row) < 5:
                    row.append(out.pop())
            leaky = Arrangement(tuple(rows[0]), tuple(rows[1]), tuple(rows[2]))
            if not is_foul(leaky) and decision(cards, leaky, best) == "where the pair goes":
                play = leaky
                break
        g = grade_hand(hand, play, "table", samples=200, seed=number)
        entries.append({"id": f"planted-{number}", "hand": hand, "yours": play.format(), "lost": g.lost, "rules": "basic",
                        "players": 2, "at": number, "best": g.solution.arrangement.format(), "seed": g.solution.seed,
                        "samples": 200, "opponent": "table", "verdict": g.verdict, "decision": g.decision})
    return entries


def test_the_leak_finder_names_a_planted_leak_first_and_drills_it(browser, server):
    entries = _planted_leak_entries()
    planted = [x for x in entries if x["decision"] == "where the pair goes"]
    assert len(planted) >= 5 and {x["decision"] for x in entries} - {"where the pair goes"}  # other classes too
    page = _open(browser, server, 1280, "/#solve")
    page.evaluate(f"localStorage.setItem('chinese-poker-trainer', {json.dumps(json.dumps(entries))})")
    page.goto(server + "/#train")
    page.wait_for_selector('[data-testid="train-leaks"] tbody tr')
    browser_tests._check(page, "train-leaks", 1280)
    first = page.inner_text('[data-testid="train-leaks"] tbody tr >> nth=0 >> th')
    assert first == "where the pair goes"
    page.click('[data-testid="train-leaks"] tbody tr >> nth=0 >> [data-testid="train-drill"]')
    page.wait_for_selector('[data-testid="train-again"]')
    dealt = " ".join(sorted(page.eval_on_selector_all('[data-testid="train-board"] .card', "cs => cs.map(c => c.dataset.card)")))
    costliest = max(planted, key=lambda x: x["lost"])
    assert dealt == " ".join(sorted(costliest["hand"].split())) and "Drill, where the pair goes" in page.inner_text(
        '[data-testid="train-again"]')
    page.click('[data-testid="train-hint-button"]')
    page.wait_for_selector('[data-testid="train-hint"]')
    hint = page.inner_text('[data-testid="train-hint"]')
    assert re.fullmatch(r"Hint: the best play puts the \w+ of \w+ in the (front|middle|back)\.", hint)
    assert page.errors == []
    page.context.close()


def test_a_drill_keeps_the_filters_and_deals_a_hand_again_under_its_own_rules(browser, server):
    """A drill begun with the history filtered to 2-4 used to deal the costliest hand of the class
    under any rules, and grade it under whatever rules the Trainer showed."""
    entries = _planted_leak_entries()
    planted = sorted((x for x in entries if x["decision"] == "where the pair goes" and x["lost"] > 0), key=lambda x: x["lost"])
    cheapest = planted[0]
    cheapest.update(rules="2-4", players=3)
    page = _open(browser, server, 390, "/#solve")
    page.evaluate(f"localStorage.setItem('chinese-poker-trainer', {json.dumps(json.dumps(entries))})")
    page.goto(server + "/#train")
    page.wait_for_selector('[data-testid="train-leaks"] tbody tr')
    assert page.input_value('[data-testid="train-rules"]') == "basic"
    page.select_option('[data-testid="train-filter-rules"]', "2-4")
    page.wait_for_function("document.querySelectorAll('[data-testid=\"train-leaks\"] tbody tr').length === 1")
    page.click('[data-testid="train-drill"]')
    page.wait_for_selector('[data-testid="train-again"]')
    dealt = " ".join(sorted(page.eval_on_selector_all('[data-testid="train-board"] .card', "cs => cs.map(c => c.dataset.card)")))
    assert dealt == " ".join(sorted(cheapest["hand"].split()))
    assert "(under 2-4, 3 players)" in page.inner_text('[data-testid="train-again"]')
    assert page.input_value('[data-testid="train-rules"]') == "2-4" and page.input_value("#train-players") == "3"
    assert page.errors == []
    page.context.close()


def test_a_hand_that_comes_back_holds_its_rules_until_the_next_deal_gives_the_players_back(browser, server):
    """A hand due again is graded under its own rules and players, even basic with two players
    while the page shows others, with the note saying so; the selectors cannot change them
    while it is on the board, and the next new deal is under the player's own choice again.
    The page once left the hand's rules selected for every later deal, graded the hand under
    whatever the selectors showed when it was sent, and said nothing of basic with two."""
    entries = [{"id": "costly", "hand": HAND, "yours": "9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS",
                "best": "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS", "lost": 1.5, "rules": "basic", "players": 2,
                "at": 1, "verdict": "blunder", "decision": "where the pair goes"}]
    entries += _played_best(3)
    page = _open(browser, server, 390, "/#solve")
    page.evaluate(f"localStorage.setItem('chinese-poker-trainer', {json.dumps(json.dumps(entries))})")
    page.goto(server + "/#train")
    page.select_option('[data-testid="train-rules"]', "royalties")
    page.select_option("#train-players", "3")
    graded = []
    page.on("request", lambda r: graded.append(json.loads(r.post_data)) if r.url.endswith("/api/grade") else None)
    page.click('[data-testid="train-deal"]')
    page.wait_for_selector('[data-testid="train-again"]')
    assert "(under basic, 2 players)" in page.inner_text('[data-testid="train-again"]')
    assert page.input_value('[data-testid="train-rules"]') == "basic" and page.input_value("#train-players") == "2"
    assert page.is_disabled('[data-testid="train-rules"]') and page.is_disabled("#train-players")
    page.wait_for_selector('[data-testid="train-go"]:not([hidden]):not([disabled])')
    _place(page, "train-board", ["9H", "9D", "2C", "8C", "7C", "6D", "5H", "4S", "AS", "KS", "QS", "JS", "TS"])
    page.keyboard.press("Enter")
    page.wait_for_selector('[data-testid="train-next"]:not([hidden])')
    assert [(g["rules"], g["players"]) for g in graded] == [("basic", 2)]
    stored = page.evaluate("JSON.parse(localStorage.getItem('chinese-poker-trainer'))")
    assert (stored[-1]["rules"], stored[-1]["players"], stored[-1]["again_of"]) == ("basic", 2, "costly")
    page.click('[data-testid="train-next"]')
    page.wait_for_selector('[data-testid="train-go"]:not([hidden]):not([disabled])')
    assert page.is_hidden('[data-testid="train-again"]')
    assert page.input_value('[data-testid="train-rules"]') == "royalties" and page.input_value("#train-players") == "3"
    assert not page.is_disabled('[data-testid="train-rules"]') and not page.is_disabled("#train-players")
    assert page.errors == []
    page.context.close()


def test_a_grade_gives_a_verdict_and_why(browser, server):
    worse = "9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS"
    address = f"/#grade?hand={HAND.replace(' ', '+')}&arrangement={worse.replace(' ', '+')}&samples=300&seed=1"
    page = _open(browser, server, 390, address)
    page.wait_for_selector('[data-testid="grade-verdict"]')
    assert page.inner_text('[data-testid="grade-verdict"]') == "Blunder (the decision: where the pair goes)"
    why = page.inner_text('[data-testid="grade-why"]')
    assert why.startswith("The front: your 9-high") and "pair of 9s" in why
    browser_tests._check(page, "grade-why", 390)
    page.context.close()


def test_a_link_keeps_a_seed_of_16_digits(browser, server):
    """Sessions and their grading seeds go up to 2**53: a link with such a seed shows it."""
    seed = 2**53 - 5
    page = _open(browser, server, 1280, f"/#solve?hand={HAND.replace(' ', '+')}&samples=200&seed={seed}")
    page.wait_for_selector('[data-testid="best"]')
    assert f"seed {seed};" in page.inner_text("#solve-result")
    page.goto(f"{server}/#play?seed={seed}&bots=greedy&rules=2-4")
    page.wait_for_selector('[data-testid="play-replay"]')
    assert str(seed) in page.inner_text('[data-testid="play-replay"]')
    page.context.close()


def test_a_trainer_entry_with_a_damaged_link_field_is_dropped(browser, server):
    entry = {"id": "x", "hand": HAND, "yours": "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS",
             "best": "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS", "lost": 9, "rules": "basic", "players": 2,
             "seed": {"toString": 1}}
    page = _open(browser, server, 1280, "/#solve")
    page.evaluate(f"localStorage.setItem('chinese-poker-trainer', {json.dumps(json.dumps([entry]))})")
    page.goto(server + "/#train")
    page.reload()
    page.wait_for_selector("body[data-ready]")
    page.wait_for_selector('[data-testid="train-progress"] .hint')
    assert page.errors == []
    page.context.close()


def test_next_hand_can_be_pressed_again_when_dealing_failed(browser, server):
    page = _open(browser, server, 1280, "/#play")
    page.select_option('[data-testid="play-bot-0"]', "greedy")
    page.click('[data-testid="play-start"]')
    page.wait_for_selector('[data-testid="play-go"]:not([hidden]):not([disabled])')
    _place(page, "play-board", _by_rank(page, "play-board"))
    page.click('[data-testid="play-go"]')
    page.wait_for_selector('[data-testid="play-grade"]')
    _idle(page)
    failed = []

    def once(route):
        if failed:
            route.continue_()
        else:
            failed.append(route.request.url)
            route.abort()

    page.route("**/api/session/deal", once)
    page.click('[data-testid="play-next"]')
    _until(page, "!!document.querySelector('[data-testid=play-error]').textContent")
    _idle(page)
    page.click('[data-testid="play-next"]')  # again: the same hand is asked for
    _until(page, "document.querySelector('[data-testid=play-status]').textContent.includes('Hand 2 of 8')")
    page.wait_for_selector('[data-testid="play-go"]:not([hidden]):not([disabled])')
    assert failed and page.evaluate("JSON.parse(localStorage.getItem('chinese-poker-session')).hand") == 1
    page.context.close()


def test_grade_and_the_trainer_let_you_declare_a_natural(browser, server):
    """Under rules with naturals, Grade and the Trainer offer 'Declare my natural' (not under
    basic); a declaration is graded against the best choice with no rows of its own, its link
    grades it again, and the Trainer keeps it as declared. The Trainer's entry under naturals
    is still there after a reload: the page once dropped every entry graded under other rules
    than basic, whose opponent a grade names 'table:rules=...'."""
    page = _open(browser, server, 1280, f"/#grade?hand={SIX_PAIRS.replace(' ', '+')}&rules=naturals&samples=300&seed=3")
    page.wait_for_selector('[data-testid="grade-declare"]:not([hidden])')
    page.select_option("#grade-options .rules", "basic")
    assert page.is_hidden('[data-testid="grade-declare"]')
    page.select_option("#grade-options .rules", "naturals")
    page.click('[data-testid="grade-declare"]')
    page.wait_for_selector('[data-testid="grade-summary"]')
    summary = page.inner_text('[data-testid="grade-summary"]')
    assert summary.startswith("You declared six pairs") and "cost 0.000" in summary
    assert page.inner_text('[data-testid="grade-verdict"]').startswith("Best play")
    assert page.locator('[data-testid="grade-result"] table').count() == 0  # a declaration has no rows
    link = page.get_attribute('[data-testid="grade-result"] a[href*="arrangement=declare"]', "href")
    page.goto(server + "/" + link)
    page.reload()
    page.wait_for_selector('[data-testid="grade-summary"]')
    assert page.inner_text('[data-testid="grade-summary"]') == summary
    assert page.errors == []
    page.context.close()

    played = "9S 9H 2C / AS KS QS JS TS / AH KH QH JH TH"
    entries = [{"id": "six-pairs", "hand": SIX_PAIRS, "yours": played, "best": "declare six pairs", "lost": 0.2,
                "rules": "naturals", "players": 2, "at": 1, "verdict": "mistake", "decision": "naturals"}]
    entries += _played_best(3)
    page = _open(browser, server, 390, "/#solve")
    page.evaluate(f"localStorage.setItem('chinese-poker-trainer', {json.dumps(json.dumps(entries))})")
    page.goto(server + "/#train")
    page.select_option('[data-testid="train-rules"]', "basic")
    page.click('[data-testid="train-deal"]')
    page.wait_for_selector('[data-testid="train-again"]')  # the costly six pairs comes back under naturals
    assert "(under naturals, 2 players)" in page.inner_text('[data-testid="train-again"]')
    assert page.input_value('[data-testid="train-rules"]') == "naturals"
    page.click('[data-testid="train-declare"]')
    _until(page, "document.querySelector('[data-testid=train-mean]')?.textContent.startsWith('5 hands')")
    stored = page.evaluate("JSON.parse(localStorage.getItem('chinese-poker-trainer'))")
    assert stored[-1]["yours"] == "declare six pairs" and stored[-1]["lost"] == 0 and stored[-1]["again_of"] == "six-pairs"
    assert page.is_hidden('[data-testid="train-declare"]') and page.is_visible('[data-testid="train-next"]')
    page.click('[data-testid="train-next"]')  # a new deal, under the player's own rules again
    page.wait_for_selector('[data-testid="train-go"]:not([hidden]):not([disabled])')
    assert page.input_value('[data-testid="train-rules"]') == "basic" and page.is_hidden('[data-testid="train-declare"]')
    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert page.evaluate("JSON.parse(localStorage.getItem('chinese-poker-trainer')).length") == 5  # kept as valid
    assert page.errors == []
    page.context.close()
