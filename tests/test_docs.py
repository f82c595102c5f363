"""The README: short, its links lead to files of this checkout, and its first two fenced
blocks are the set-up commands that ``.ci/run`` executes as written."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def relative_links(text: str) -> list[str]:
    """The targets of Markdown links and images that are not web addresses or anchors.

    >>> relative_links("[a](docs/a.md#x) ![b](b.png) [c](https://x.org) [d](#top)")
    ['docs/a.md', 'b.png']
    """
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:|#", t)]


def test_every_relative_link_of_the_readme_leads_to_a_file():
    """Fails if a page or picture the README links to is missing or renamed."""
    links = relative_links(README.read_text(encoding="utf-8"))
    assert links, "the README links to no page"
    missing = [link for link in links if not (ROOT / link).exists()]
    assert missing == []


def test_the_readme_is_read_in_five_minutes():
    """Fails if the README grows past 12 kB: the rest belongs on a page of docs/."""
    assert len(README.read_bytes()) <= 12_000


def test_the_first_two_fenced_blocks_install_solve_and_test():
    """Fails if the commands .ci/run executes are no longer the set-up: install and solve,
    then install the test extra and run the tests, both in .venv."""
    blocks = re.findall(r"```\n(.*?)\n```", README.read_text(encoding="utf-8"), flags=re.S)
    install, test = (block.strip() for block in blocks[:2])
    assert "\n" not in install and "\n" not in test
    assert install.startswith("python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/solve ")
    assert test == 'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/pytest'


def test_the_grade_example_file_is_graded_line_by_line(capsys):
    """Fails if examples/hands/graded.txt, the input the docs grade, has a malformed line."""
    from bench.cli import main

    hands = [line for line in (ROOT / "examples/hands/graded.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert main(["grade", "--input", str(ROOT / "examples/hands/graded.txt"), "--samples", "50"]) == 0
    assert f"{len(hands)} hands graded" in capsys.readouterr().out


def test_the_limits_page_is_the_limits_module():
    """docs/limits.md holds the table solver.limits.table() writes: a limit changed in the code
    and not on the page (or the other way) fails here."""
    from solver.limits import table

    page = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    assert "\n".join(table()) + "\n" in page
