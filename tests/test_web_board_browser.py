"""Setting a hand without the keyboard, in a real browser (the system's Chromium, as
tests/test_web_browser.py drives it): a card pressed and then a row pressed (a tap on a
phone), a card dragged onto a row, and a row marked as fouling while the hand is built,
as soon as two full rows are out of order. The page compares rows on the solver's scale:
every front and thousands of middles are checked against ``solver.evaluate``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

browser_tests = pytest.importorskip("tests.test_web_browser")  # skips as it does: no Chromium, no playwright
from bench.web.app import Settings, create_app  # noqa: E402
from tests.web_server import CHROMIUM_ARGS, serving  # noqa: E402

pytestmark = pytest.mark.slow
_open, _until, _place, _check = browser_tests._open, browser_tests._until, browser_tests._place, browser_tests._check
HAND, BEST = browser_tests.HAND, browser_tests.BEST
BOARD = '[data-testid="grade-board"]'


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


def _grade_board(browser, server, width: int, hand: str = HAND):
    page = _open(browser, server, width, "/#grade")
    page.fill('[data-testid="grade-text"]', hand)
    page.press('[data-testid="grade-text"]', "Enter")
    page.wait_for_selector(f'{BOARD} [data-testid="pool"] .card')
    return page


def _card(page, code: str):
    return page.locator(f'{BOARD} [data-card="{code}"]')


def _row_of(page, code: str) -> str | None:
    return page.evaluate(f"document.querySelector('#grade-board [data-card=\"{code}\"]')"
                         ".closest('[data-testid]').dataset.testid")


def _is_in(row: str, card: str) -> str:
    """A condition for ``_until``: the card is in the row ("pool": among the cards to place)."""
    where = "pool" if row == "pool" else f"row-{row}"
    return f"""document.querySelector('#grade-board [data-testid={where}] [data-card="{card}"]') !== null"""


def _tap_row(page, row: str, width: int) -> None:
    """Press a row where it holds no card: its label on a phone, its free end on a desktop."""
    if width < 600 or row == "pool":
        page.click(f"#grade-board-{row}")
    else:
        box = page.locator(f'{BOARD} [data-testid="row-{row}"]').bounding_box()
        page.mouse.click(box["x"] + box["width"] - 4, box["y"] + box["height"] / 2)


def test_a_hand_set_by_taps_alone_is_graded(browser, server, width):
    page = _grade_board(browser, server, width)
    _card(page, "AS").click()
    assert _card(page, "AS").get_attribute("aria-pressed") == "true"
    _card(page, "AS").click()  # pressed again: put down
    assert _card(page, "AS").get_attribute("aria-pressed") == "false"
    _card(page, "KS").click()
    _card(page, "QS").click()  # another card: that one is taken instead
    assert [_card(page, c).get_attribute("aria-pressed") for c in ("KS", "QS")] == ["false", "true"]
    _tap_row(page, "pool", width)  # back where it was: nothing moves
    assert _row_of(page, "QS") == "pool"

    rows = dict(zip(("front", "middle", "back"), (r.split() for r in BEST.split(" / "))))
    for row, cards in rows.items():
        for card in cards:
            _card(page, card).click()
            _tap_row(page, row, width)
            _until(page, _is_in(row, card))
            if (row, card) == ("front", "2C"):
                _card(page, "8C").click()  # a fourth card for the front is refused; it stays taken
                _check(page, "grade-tap", width)
                _tap_row(page, "front", width)
                _until(page, "document.querySelector('[data-testid=grade-warning]').textContent"
                             ".includes('the front is full')")
                assert _row_of(page, "8C") == "pool" and _card(page, "8C").get_attribute("aria-pressed") == "true"
                _card(page, "9D").click()  # a placed card is taken as well, and goes back to the hand
                _tap_row(page, "pool", width)
                _until(page, _is_in("pool", "9D"))
                _card(page, "9D").click()
                _tap_row(page, "front", width)
                _until(page, _is_in("front", "9D"))
    assert page.evaluate("grading.text()") == BEST
    assert page.locator(f'{BOARD} [aria-pressed="true"]').count() == 0
    page.click('[data-testid="grade-go"]')
    page.wait_for_selector('[data-testid="grade-summary"]')
    assert "your play cost" in page.inner_text('[data-testid="grade-summary"]')
    assert "arrangement=9H+9D+2C" in page.get_attribute('[data-testid="grade-link"]', "href")
    _check(page, "grade-taps", width)
    page.context.close()


def test_a_card_dragged_onto_a_row(browser, server):
    page = _grade_board(browser, server, 1280)
    page.drag_and_drop(f'{BOARD} [data-card="AS"]', f'{BOARD} [data-testid="row-back"]')
    _until(page, _is_in("back", "AS"))
    page.drag_and_drop(f'{BOARD} [data-card="AS"]', "#grade-board-middle")  # a placed card, onto a row's name
    _until(page, _is_in("middle", "AS"))

    # While a card is over a row, that row is lit, and only that one
    page.locator(f'{BOARD} [data-card="KS"]').hover()
    page.mouse.down()
    box = page.locator(f'{BOARD} [data-testid="row-front"]').bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=5)
    lit = page.eval_on_selector_all(f"{BOARD} .over", "xs => xs.map(x => x.dataset.row)")
    assert lit and set(lit) == {"front"}
    page.mouse.up()
    _until(page, _is_in("front", "KS"))
    assert page.locator(f"{BOARD} .over").count() == 0

    page.drag_and_drop(f'{BOARD} [data-card="AS"]', f'{BOARD} [data-testid="pool"]')  # back to the hand
    _until(page, _is_in("pool", "AS"))
    _place(page, "grade-board", ["QS", "JS"])  # the front is full
    page.drag_and_drop(f'{BOARD} [data-card="AS"]', f'{BOARD} [data-testid="row-front"]')
    _until(page, "document.querySelector('[data-testid=grade-warning]').textContent.includes('the front is full')")
    assert _row_of(page, "AS") == "pool"
    page.locator(f'{BOARD} [data-card="KS"]').focus()
    page.keyboard.press("Control+z")  # one undo takes back one drop
    _until(page, _is_in("front", "QS") + " && " + _is_in("pool", "JS"))
    assert page.errors == []
    page.context.close()


FOULING = "AS AH 2C KD QC 9S 7H 4D 3S 5C 6H 8D TC"  # a pair of aces, a K-high middle, a 7-high back


def _send(page, cards: str, key: str) -> None:
    """Each card to a row by the keyboard (f, m, b; Delete back to the hand)."""
    for card in cards.split():
        page.locator(f'{BOARD} [data-card="{card}"]').focus()
        page.keyboard.press(key)


def _marked(page) -> dict[str, str]:
    """Each row marked as fouling, with its label (what a screen reader says the row is)."""
    return page.evaluate("""Object.fromEntries([...document.querySelectorAll('#grade-board .row.fouls')].map(r =>
        [r.dataset.row, document.getElementById(r.getAttribute('aria-labelledby')).textContent]))""")


def test_a_row_that_fouls_is_marked_while_the_hand_is_built(browser, server, width):
    page = _grade_board(browser, server, width, FOULING)
    _send(page, "AS AH 2C", "f")
    _send(page, "KD QC 9S 7H", "m")
    assert _marked(page) == {}  # the middle is not full: it may still beat the front
    _send(page, "4D", "m")
    _until(page, "document.querySelectorAll('#grade-board .row.fouls').length === 2")
    marked = _marked(page)
    assert set(marked) == {"front", "middle"}
    assert all("fouls: the front beats the middle" in label for label in marked.values()), marked
    assert page.locator(f'{BOARD} [data-testid="row-back"] .card').count() == 0
    assert "the front beats the middle" in page.inner_text('[data-testid="grade-warning"]')
    _check(page, "grade-foul", width)

    _send(page, "AH", "Delete")  # the front is not full: nothing is sure
    _until(page, "document.querySelectorAll('#grade-board .row.fouls').length === 0")
    _send(page, "3S", "f")  # A-high beats K-high
    _until(page, "document.querySelectorAll('#grade-board .row.fouls').length === 2")
    _send(page, "AS", "Delete")
    _send(page, "5C", "f")  # 5-high: in order
    _until(page, "document.querySelector('#grade-board [data-testid=row-front]').querySelectorAll('.card').length === 3")
    assert _marked(page) == {} and page.inner_text('[data-testid="grade-warning"]') == ""

    # A full back weaker than the full middle, the front not yet full
    page.click('[data-testid="grade-board-reset"]')
    _send(page, "AS AH KD QC 9S", "m")
    _send(page, "2C 3S 4D 5C", "b")
    assert _marked(page) == {}
    _send(page, "7H", "b")
    _until(page, "document.querySelectorAll('#grade-board .row.fouls').length === 2")
    marked = _marked(page)
    assert set(marked) == {"middle", "back"} and "fouls: the middle beats the back" in marked["back"]

    # The front and the back full, the front the stronger: no middle can go between them
    page.click('[data-testid="grade-board-reset"]')
    _send(page, "AS AH 2C", "f")
    _send(page, "KD QC 9S 7H 4D", "b")
    _until(page, "document.querySelectorAll('#grade-board .row.fouls').length === 2")
    assert set(_marked(page)) == {"front", "back"} and "fouls: the front beats the back" in _marked(page)["front"]
    assert page.errors == []
    page.context.close()


def _made_rows() -> list[tuple[int, ...]]:
    """Five-card rows a random draw rarely gives: every straight, straight flush, full house
    and four of a kind, and a flush of each suit."""
    runs = [[12, 0, 1, 2, 3]] + [list(range(top - 4, top + 1)) for top in range(4, 13)]
    rows = [tuple(r * 4 + i % 2 for i, r in enumerate(run)) for run in runs]
    rows += [tuple(r * 4 + s for r in run) for run in runs for s in range(4)]
    rows += [tuple(r * 4 + s for r in (12, 10, 7, 4, 0)) for s in range(4)]
    for a, b in itertools.permutations(range(13), 2):
        rows += [(a * 4, a * 4 + 1, a * 4 + 2, b * 4, b * 4 + 1), (a * 4, a * 4 + 1, a * 4 + 2, a * 4 + 3, b * 4)]
    return rows


def test_the_page_compares_rows_as_the_solver_does(browser, server):
    from solver import format_cards
    from solver.evaluator import evaluate_many

    page = _open(browser, server, 1280)
    fronts = list(itertools.combinations(range(52), 3))  # every front
    rng = np.random.default_rng(5)
    middles = [tuple(int(c) for c in rng.permutation(52)[:5]) for _ in range(20_000)] + _made_rows()
    for rows in (fronts, middles):
        codes = [format_cards(row).split() for row in rows]
        shown = page.evaluate("rows => rows.map(grading.value)", codes)
        expected = evaluate_many(np.array(rows)).tolist()
        wrong = [(c, s, e) for c, s, e in zip(codes, shown, expected) if s != e]
        assert not wrong, f"{len(wrong)} rows valued otherwise than solver.evaluate, such as {wrong[:3]}"
    page.context.close()
