"""Text from outside reaches each destination through solver/text.py: the terminal sees no
control character and only what its encoding holds, report.md shows names and versions as
text, an error quotes a short excerpt of what it refuses, a bot's log is UTF-8; and no
module of the package writes to standard output or error around the gate."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver import text

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "tests" / "protocol" / "misbehaving.py"
ENV = os.environ | {"PYTHONPATH": str(ROOT)}
ACE_HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"  # the misbehaving bot's trigger
ENCODINGS = ("ascii", "latin-1", "cp1252", "utf-8")


def _run(*args: str, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """A command of the package, its output as bytes (the encoding is what a test is about)."""
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=ENV | (env or {}), capture_output=True,
                          timeout=600, input=None if stdin is None else stdin.encode())


def _only_prints(line: str) -> bool:
    return all(c.isprintable() for c in line)


# --- the terminal -----------------------------------------------------------------------------


def _bot_file(tmp_path: Path, mode: str) -> Path:
    path = tmp_path / f"{mode}.toml"
    path.write_text(f'name = "misbehaving-{mode}"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(BOT))}, '
                    f'{json.dumps(mode)}, {json.dumps(str(tmp_path / "flag"))}]\n')
    return path


@pytest.mark.slow
def test_a_bots_escape_sequences_reach_the_terminal_visible(tmp_path):
    """A bot that writes escape sequences (clear the screen, set the title, write the
    clipboard; C1 controls, a bidi override) to its standard error and crashes: its fault
    line quotes them, and not one control character reaches the terminal."""
    done = _run("-m", "bench.cli", "arrange", "--bot", str(_bot_file(tmp_path, "escapes")), ACE_HAND)
    err = done.stderr.decode("utf-8")
    assert done.returncode == 1, err
    assert err.endswith("\n") and len(err.splitlines()) == 1
    assert _only_prints(err[:-1]), ascii(err)
    assert "exited (status 3)" in err and "\\u001b]52;c;Y2xpcGJvYXJk\\u0007" in err and "\\u202egnp.exe" in err


def test_a_bots_log_is_utf8_whatever_it_writes(tmp_path):
    """The log keeps what the bot wrote (its controls too), as UTF-8: a byte that is not
    UTF-8 is written ``\\xNN``."""
    from bots import BotFault, make_bot
    from solver import parse_hand

    bot = make_bot(str(_bot_file(tmp_path, "escapes")), log_dir=str(tmp_path / "logs"))
    try:
        with pytest.raises(BotFault):
            bot.arrange(parse_hand(ACE_HAND), np.random.default_rng(0))
    finally:
        bot.close()
    logs = [log.read_bytes().decode("utf-8") for log in bot.logs]
    assert any("\x1b]52;c;Y2xpcGJvYXJk\x07" in log and log.endswith("\\xff\\xc3") for log in logs)


@pytest.mark.slow
def test_a_usage_error_quotes_the_argument_as_text():
    """argparse names an argument it does not know as it came; the line shows it visible."""
    done = _run("-m", "bench.cli", "bots", "\x1b]0;title\x07\x1b[2J")
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2 and len(err.splitlines()) == 1 and _only_prints(err[:-1]), ascii(err)
    assert "unrecognized arguments: \\u001b]0;title\\u0007\\u001b[2J" in err


# --- length -----------------------------------------------------------------------------------


GRADED = " | 9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"


@pytest.mark.slow
@pytest.mark.parametrize("size", [2 << 20, 60_000], ids=["2MB", "60kB"])  # over and under a line's limit
@pytest.mark.parametrize("command, line", [
    ("arrange", "X{}"),  # one card that is not one
    ("arrange", "AS {}"),  # too many cards
    ("grade", "Q{}" + GRADED),
    ("grade", "AS {}" + GRADED),
], ids=["arrange-one-token", "arrange-many-cards", "grade-one-token", "grade-many-cards"])
def test_a_long_input_line_gives_one_short_error(tmp_path, command, line, size):
    head, tail = line.split("{}")
    path = tmp_path / "hands.txt"
    path.write_text(head * (size // len(head)) + tail + "\n")
    args = ["--bot", "greedy"] if command == "arrange" else ["--samples", "10"]
    done = _run("-m", "bench.cli", command, *args, "--input", str(path))
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2, err[:500]
    assert len(err.splitlines()) == 1 and len(err) < 400, err[:500]


@pytest.mark.slow
def test_a_long_hand_on_the_command_line_is_quoted_short():
    done = _run("-m", "bench.cli.solve", "Q" * 100_000)
    errors = [line for line in done.stderr.decode("utf-8").splitlines() if not line.startswith("solve: compiling")]
    assert done.returncode == 2 and len(errors) == 1 and len(errors[0]) < 400, errors
    assert "(100,000 characters)" in errors[0]


# --- encodings --------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("options", [["--ascii"], ["--ascii", "--json"], ["--ascii", "--grade",
                                                                          "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"]])
def test_solve_ascii_on_an_ascii_terminal_is_ascii(options):
    done = _run("-m", "bench.cli.solve", ACE_HAND, "--samples", "50", "--seed", "1", *options,
                env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert done.stdout.isascii() and done.stderr.isascii()
    out = done.stdout.decode("ascii")
    if "--json" in options:
        assert json.loads(out)["hand"]
    else:
        assert "AS KS QS JS TS" in out and "+/-" in out


@pytest.mark.slow
def test_bench_arrange_ascii_is_ascii_errors_too(tmp_path):
    """A bad line's error quotes the line (suit symbols here) in ASCII too."""
    path = tmp_path / "hands.txt"
    path.write_text("A♠ K♠\n" + ACE_HAND + "\n", encoding="utf-8")
    done = _run("-m", "bench.cli", "arrange", "--bot", "greedy", "--ascii", "--input", str(path))
    assert done.returncode == 2 and done.stdout.isascii() and done.stderr.isascii(), done.stderr
    assert b"'AS KS'" in done.stderr and b"AS KS QS JS TS" in done.stdout


@pytest.mark.slow
def test_solve_without_ascii_on_an_ascii_terminal_spells_its_symbols():
    done = _run("-m", "bench.cli.solve", ACE_HAND, "--samples", "50", "--seed", "1", env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert done.stdout.isascii() and "+/-" in done.stdout.decode("ascii")


@pytest.mark.slow
def test_a_tournament_on_a_latin1_terminal_prints_its_table():
    done = _run("-m", "bench.cli", "tournament", "--bots", "random,greedy", "--sessions", "1", "--seed", "1",
                "--jobs", "1", env={"PYTHONIOENCODING": "latin-1"})
    assert done.returncode == 0, done.stderr.decode("latin-1")
    out = done.stdout.decode("latin-1")
    assert "units/hand ± se" in out and "greedy" in out and " - " in out  # "—" spelled


# --- Markdown and plots -----------------------------------------------------------------------


def _evil_bot(tmp_path: Path) -> Path:
    """An executable whose file name holds a '|', a new line and mathtext, and whose hello
    gives a version that is a script."""
    path = tmp_path / "evil|bot\nline two $\\frac$"
    hello = json.dumps({"version": "<script>alert(1)</script>"})
    path.write_text(f"#!/bin/sh\nHELLO='{hello}' exec {sys.executable} {BOT} plain {tmp_path / 'flag'}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.slow
def test_report_md_shows_outside_names_and_versions_as_text(tmp_path):
    out = tmp_path / "out"
    done = _run("-m", "bench.cli", "tournament", "--bots", f"cmd:{_evil_bot(tmp_path)},random", "--sessions", "1",
                "--seed", "1", "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    for line in done.stdout.decode("utf-8").splitlines():
        assert _only_prints(line)
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "<script>" not in report and "version &lt;script&gt;alert(1)&lt;/script&gt;" in report
    assert all("line two" in line for line in report.splitlines() if "evil" in line)
    tables = [line for line in report.splitlines() if line.startswith("|")]
    assert tables and all(line.replace("\\|", "").count("|") in (13, 4) for line in tables), tables
    assert "\\$\\\\frac\\$" in report


def test_report_md_from_a_results_file_shows_every_field_as_text():
    """``bench report`` reads results.json from anywhere: its command, package versions,
    commit and machine are shown as text too; the command in a code span no backtick closes."""
    from bench.report.render import render_markdown
    from bench.report.summary import example_results

    doc = example_results() | {"command": "bench tournament ` <img src=x onerror=alert(1)> ``",
                               "git_commit": "<i>commit</i>", "machine": {"platform": "<b>linux</b>", "cpu_count": 2}}
    doc["version_by_package"] = doc["version_by_package"] | {"numpy": "<script>alert(2)</script>"}
    report = render_markdown(doc, plots=False)
    code = text.markdown_code(doc["command"])
    assert f"Command: {code}" in report and code.startswith("```")
    assert "<" not in report.replace(code, "")


@pytest.mark.slow
def test_plots_show_a_name_with_mathtext_as_text(tmp_path):
    pytest.importorskip("matplotlib")
    from bench.report.plots import write_plots
    from bench.report.summary import example_results

    doc = example_results()
    names = [b["name"] for b in doc["bots"]]
    evil = {names[0]: "$\\frac$", names[1]: "$x^$"}
    rename = lambda n: evil.get(n, n)  # noqa: E731
    doc = json.loads(json.dumps(doc))
    for bot in doc["bots"]:
        bot["name"] = rename(bot["name"])
    results = doc["results"]
    results["by_bot"] = {rename(k): v for k, v in results["by_bot"].items()}
    results["crosstable"] = {rename(k): {rename(b): c for b, c in v.items()} for k, v in results["crosstable"].items()}
    assert len(write_plots(doc, tmp_path)) == 4


def test_the_web_page_puts_text_in_as_text():
    """The page writes names and messages with textContent; no innerHTML or the like."""
    for path in (ROOT / "bench" / "web" / "static").glob("*.js"):
        source = path.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
            assert sink not in source, f"{path.name} uses {sink}"


# --- the gate's functions ---------------------------------------------------------------------


@given(st.text())
def test_terminal_leaves_one_line_that_only_prints(value):
    shown = text.terminal(value)
    assert _only_prints(shown) and "\n" not in shown
    shown.encode("utf-8")


@given(st.text(), st.sampled_from(ENCODINGS), st.booleans())
def test_show_writes_what_prints_in_the_streams_encoding(value, encoding, exact):
    stream = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict")
    text.show(value, stream, exact=exact)
    stream.flush()
    written = stream.buffer.getvalue().decode(encoding)  # type: ignore[attr-defined]
    assert written.count("\n") == value.count("\n") + 1
    assert all(_only_prints(line) for line in written.split("\n"))


@given(st.text())
def test_show_keeps_printed_json_valid_and_the_same(value):
    document = json.dumps({"name": value}, ensure_ascii=False)
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    text.show(document, stream, exact=True, end="")
    stream.flush()
    assert json.loads(stream.buffer.getvalue().decode("ascii")) == {"name": value}  # type: ignore[attr-defined]


@given(st.text())
def test_show_with_ascii_writes_ascii(value):
    stream = io.StringIO()
    text.show(value, stream, ascii=True)
    assert stream.getvalue().isascii()


@given(st.text(), st.booleans())
def test_markdown_has_no_markup_of_its_own(value, start):
    shown = text.markdown(value, start=start)
    assert _only_prints(shown)
    assert not set("<>\"") & set(shown)
    unescaped = shown.replace("\\\\", "")
    for char in "|`*[]#~$":
        assert char not in unescaped.replace("\\" + char, "")
    assert not re.search(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])", unescaped.replace("\\_", ""))


@given(st.text())
def test_markdown_code_is_one_code_span(value):
    shown = text.markdown_code(value)
    fence = len(shown) - len(shown.lstrip("`"))
    assert "`" * fence not in shown[fence:-fence] and _only_prints(shown)


@given(st.one_of(st.text(), st.binary()), st.integers(1, 200))
def test_a_quote_is_short_and_only_prints(value, limit):
    quoted = text.quote(value, limit)
    assert _only_prints(quoted) and len(quoted) <= 10 * limit + 40
    assert (len(value) > limit) == quoted.endswith(f"({len(value):,} {'bytes' if isinstance(value, bytes) else 'characters'})")


@given(st.binary(), st.integers(0, 16))
def test_a_log_is_utf8_whatever_the_bytes_and_wherever_they_are_cut(data, cut):
    log = text.LogText()
    written = log.feed(data[:cut]) + log.feed(data[cut:]) + log.end()
    assert written.decode("utf-8") == data.decode("utf-8", "backslashreplace")
    head, tail = text.cut_utf8(written, cut), text.tail_utf8(written, cut)
    assert written.startswith(head) and written.endswith(tail) and len(head) <= cut and len(tail) <= cut
    head.decode("utf-8"), tail.decode("utf-8")


# --- every line printed goes through the gate -------------------------------------------------


WRITERS = {"print", "print_exc", "print_exception", "print_stack", "print_tb"}  # builtins and traceback's
STREAMS = {"stdout", "stderr", "__stdout__", "__stderr__"}
ALLOWED = {
    "solver/text.py": "the gate: show() writes to the stream it is given",
}


def _writes_around_the_gate(tree: ast.AST) -> list[int]:
    """Lines of calls that write to standard output or error directly: print(), traceback's
    printers, sys.stdout.write / sys.stderr.write (and .buffer.write), tqdm.write."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in WRITERS:
            found.append(node.lineno)
        elif isinstance(func, ast.Attribute):
            dotted = ast.unparse(func)
            parts = dotted.split(".")
            if func.attr in WRITERS and parts[0] in ("traceback", "builtins"):
                found.append(node.lineno)
            elif func.attr in ("write", "writelines") and (STREAMS & set(parts) or parts[0] == "tqdm"):
                found.append(node.lineno)
    return found


def test_the_scan_finds_each_kind_of_write():
    source = ("print('x')\nsys.stderr.write('x')\nsys.stdout.buffer.write(b'x')\ntqdm.write('x')\n"
              "traceback.print_exc()\nshow('x')\nos.write(fd, b'x')\nlog.write('x')\n")
    assert _writes_around_the_gate(ast.parse(source)) == [1, 2, 3, 4, 5]


def test_every_line_printed_goes_through_the_gate():
    """A new print() in the package would pass outside text around solver.text.show: the
    scan names it (or it joins ``ALLOWED`` with its reason)."""
    offenders = []
    for package in ("solver", "bots", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative in ALLOWED:
                continue
            offenders += [f"{relative}:{line}" for line in _writes_around_the_gate(ast.parse(path.read_text("utf-8")))]
    assert not offenders, f"write through solver.text.show: {offenders}"
