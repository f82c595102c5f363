"""docs/write-a-bot.md as a newcomer follows it: the files it shows are the example files, and
each command it runs (a ``$ bench ...`` line) runs from the top of the checkout and ends as
the page shows it: exit status 0 and the page's lines, but for what a run measures (times,
speeds)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

import pytest

from tests.helpers import ENV, ROOT

PAGE = ROOT / "docs" / "write-a-bot.md"
TEXT = PAGE.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w*)\n(.*?)\n```", TEXT, flags=re.S)
COMMANDS = [(block.split("\n", 1)[0][2:], block.split("\n", 1)[1]) for lang, block in BLOCKS if block.startswith("$ ")]
TIMED = re.compile(r"\d+(?:\.\d+)? ?(?:ms|s)\b|\d+\.\d+ (?:deals|hands)[^ ]*/s|[\d.]+ deals/s|ms/decision.*|"
                   r"p95 ms.*|\s+\d+\.\d{3}\s+\d+\.\d{3}$")


@pytest.mark.parametrize("name, language", [("my_bot.py", "python"), ("my_bot.toml", "toml"),
                                            ("my_bot.js", "javascript"), ("my_bot_js.toml", "toml")])
def test_the_files_shown_are_the_example_files(name, language):
    shown = [block for lang, block in BLOCKS if lang == language]
    assert (ROOT / "examples" / "tutorial" / name).read_text(encoding="utf-8").rstrip("\n") in shown


def _steady(text: str) -> list[str]:
    """The lines of an output without what a run measures (times and speeds)."""
    return [TIMED.sub("…", line.rstrip()) for line in text.strip("\n").splitlines()
            if not line.startswith(("16 deals in", "timings"))]


@pytest.mark.slow
@pytest.mark.parametrize("command, shown", COMMANDS, ids=[c.split()[1] for c, _ in COMMANDS])
def test_each_command_runs_as_the_page_shows(command, shown):
    argv = shlex.split(command)
    assert argv[0] == "bench"
    done = subprocess.run([sys.executable, "-m", "bench.cli", *argv[1:]], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert _steady(done.stderr + done.stdout) == _steady(shown)


def test_the_page_runs_every_step():
    assert [c.split()[1] for c, _ in COMMANDS] == ["check-bot", "tournament", "match"]


@pytest.mark.slow
def test_the_javascript_bot_passes_its_checks():
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    done = subprocess.run([sys.executable, "-m", "bench.cli", "check-bot", "examples/tutorial/my_bot_js.toml"],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "every check passed (8 passed, 1 skipped)"
