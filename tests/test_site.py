"""The documentation site as a reader sees it (``mkdocs build``), not only as it builds: every
page of the nav is there, ordered lists are numbered on (a code block inside an item that is
not indented as the item's text ends the list, and the next item starts again at 1), no
cross-reference role of a docstring is shown raw, and the API reference shows every public
name, a dataclass's fields among them. ``mkdocs build --strict`` catches none of these."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from tests.helpers import ENV, ROOT

pytestmark = pytest.mark.slow


class _Lists(HTMLParser):
    """Each ordered list of a page: its number of items (nested lists apart)."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[list] = []
        self.ordered: list[int] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("ol", "ul"):
            self.open.append([tag, 0])
        elif tag == "li" and self.open:
            self.open[-1][1] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("ol", "ul") and self.open:
            kind, items = self.open.pop()
            if kind == "ol":
                self.ordered.append(items)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
                          cwd=ROOT, env=ENV | {"NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    return out


def _nav_pages(nav) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return [page for item in nav for page in _nav_pages(item)]


def _html(site: Path, page: str) -> str:
    path = site / (page.removesuffix(".md").removesuffix("index").rstrip("/")) / "index.html"
    return path.read_text(encoding="utf-8")


def test_every_page_of_the_nav_is_built(site):
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    pages = _nav_pages(config["nav"])
    assert len(pages) > 20
    for page in pages:
        assert "<h1" in _html(site, page), page


def test_ordered_lists_are_numbered_on(site):
    """A list split by a code block shows as lists of one item each, every one numbered 1."""
    for path in site.rglob("*.html"):
        lists = _Lists()
        lists.feed(path.read_text(encoding="utf-8"))
        assert 1 not in lists.ordered, f"{path.relative_to(site)}: an ordered list of one item {lists.ordered}"
    messages = _html(site, "protocol.md").split('id="messages"', 1)[1].split('id="checking-a-bot', 1)[0]
    lists = _Lists()
    lists.feed(messages)
    assert lists.ordered == [5]  # hello, arrange, arrange many, error reply, quit


def test_no_cross_reference_role_is_shown_raw(site):
    role = re.compile(r":(?:py:)?(?:func|class|meth|data|attr|mod|exc|obj|const):`")
    for path in site.rglob("*.html"):
        found = role.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(site)}: {len(found)} raw roles"


@pytest.mark.parametrize("page, names", [
    ("reference/solver.md", ["solver.solution.Solution.legal_splits", "solver.solution.Grade.lost",
                             "solver.splits.Splits.n_legal", "solver.rules.Rules.royalty_needs_win"]),
    ("reference/bench.md", ["bench.run.runner.run_deals", "bench.report.summary.summarise",
                            "bench.records.documents.ResultsBotResults", "bench.records.model.DealRecord.plays"]),
    ("reference/bots.md", ["bots.registry.BOTS", "bots.protocol.check.BotCheck"]),
])
def test_the_api_reference_shows_public_names_and_fields(site, page, names):
    html = _html(site, page)
    for name in names:
        assert f'id="{name}"' in html, name
