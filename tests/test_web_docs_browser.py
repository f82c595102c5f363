"""/docs in a real browser: Swagger UI, from the server's own files, used as a reader uses it.

At 1280 and 390 px: an operation opened by its summary, then "Try it out" and Execute on
``GET /api/bots`` until its 200 is shown; a deep link to ``POST /api/deal`` and a request body
sent from its editor. axe-core runs on each state (no serious or critical violation), every
outside request is blocked and none is made, and the page logs no error. Waits are for
conditions (generous, for a loaded machine), never for a time."""

from __future__ import annotations

import re
import shutil
from urllib.parse import urlparse

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("fastapi_offline", reason="/docs needs the web extra (fastapi-offline)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no system Chromium (apt-get install chromium): the browser tests cannot run", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

from bench.web.app import Settings, create_app  # noqa: E402
from tests.web_server import CHROMIUM_ARGS, serving  # noqa: E402

pytestmark = pytest.mark.slow  # a real Chromium; tests/test_web.py is the fast tier's

WAIT = 120_000  # ms: Swagger UI renders 1.5 MB of script on a loaded 2-core machine
BOTS = "#operations-default-bots_api_bots_get"
DEAL = "#operations-default-deal_api_deal_post"


@pytest.fixture(scope="module")
def server():
    with serving(create_app(Settings(workers=1, warm_up=False))) as url:  # the docs, not the solver
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(params=[1280, 390], ids=["desktop", "phone"])
def width(request):
    return request.param


@pytest.fixture
def docs(browser, server, width):
    """A page with every outside request blocked (and listed in ``page.outside``) and its errors in ``page.errors``."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    here = urlparse(server).netloc
    outside: list[str] = []

    def only_here(route):
        if urlparse(route.request.url).netloc == here:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", only_here)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.outside, page.errors = outside, []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    yield page
    context.close()


def _axe(page, state: str) -> None:
    """No serious or critical axe-core violation in this state of the page."""
    from axe_playwright_python.sync_playwright import Axe

    violations = [v for v in Axe().run(page).response["violations"] if v["impact"] in ("serious", "critical")]
    assert not violations, (state, [(v["id"], len(v["nodes"]), v["help"], [n["target"] for n in v["nodes"]][:3])
                                    for v in violations])


def _contrast(page, selector: str) -> float:
    """WCAG's contrast ratio of an element's text on the first background behind it that is not transparent."""
    text, ground = page.eval_on_selector(selector, """e => {
        let b = e;
        while (b && getComputedStyle(b).backgroundColor === "rgba(0, 0, 0, 0)") b = b.parentElement;
        return [getComputedStyle(e).color, b ? getComputedStyle(b).backgroundColor : "rgb(255, 255, 255)"]; }""")

    def luminance(colour: str) -> float:
        channels = [float(c) / 255 for c in re.findall(r"[0-9.]+", colour)[:3]]  # "rgb(r, g, b)" or "rgba(...)"
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(text), luminance(ground)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _execute(page, operation: str) -> str:
    """Press Execute on an operation in "Try it out"; the status code shown, once the answer is drawn."""
    page.click(f"{operation} button.execute")
    status = page.wait_for_selector(f"{operation} .live-responses-table .response .response-col_status")
    page.wait_for_selector(f"{operation} .live-responses-table .response .microlight")
    return status.inner_text().strip()


def test_an_operation_opened_tried_and_executed(docs, server):
    docs.goto(server + "/docs")
    docs.wait_for_selector(".opblock-summary-control")
    assert docs.locator(".opblock").count() >= 8
    docs.click(f"{BOTS} .opblock-summary-control")
    docs.wait_for_selector(f"{BOTS}.is-open .try-out__btn")
    assert docs.url.endswith("#/default/bots_api_bots_get"), "opening an operation no longer writes its link"
    _axe(docs, "an operation open")
    # axe-core leaves a text of one character to review: the API's version ("2") is measured here.
    assert _contrast(docs, ".info .title small:not(.version-stamp) pre") >= 4.5

    docs.click(f"{BOTS} .try-out__btn")
    assert _execute(docs, BOTS) == "200"
    assert '"web-bots"' in docs.inner_text(f"{BOTS} .live-responses-table .response .microlight")
    _axe(docs, "GET /api/bots executed")
    assert docs.outside == [] and docs.errors == []


def test_a_request_body_sent_from_a_deep_link(docs, server):
    docs.goto(server + "/docs#/default/deal_api_deal_post")
    docs.wait_for_selector(f"{DEAL}.is-open .try-out__btn")
    docs.click(f"{DEAL} .try-out__btn")
    docs.fill(f"{DEAL} textarea.body-param__text", '{"seed": 7}')
    _axe(docs, "a request body in its editor")
    assert _execute(docs, DEAL) == "200"
    assert '"seed": 7' in docs.inner_text(f"{DEAL} .live-responses-table .response .microlight")
    _axe(docs, "POST /api/deal executed")
    assert docs.outside == [] and docs.errors == []
