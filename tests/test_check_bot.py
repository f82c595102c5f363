"""``bench check-bot``: each check of docs/protocol.md passes for a bot that keeps the protocol
and fails, with what to change, for a bot that breaks that part of it (the misbehaving bot of
tests/protocol, one mode a mistake); exit status 0, 1 or 2; the trace of every line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ENV, ROOT
from tests.test_protocol_faults import bot_file

pytestmark = pytest.mark.slow  # each test starts bots, several of them a run

SORTED = ROOT / "examples" / "bots" / "sorted_bot.toml"
NAMES = ["hello", "protocol", "name and version", "rules", "one hand", "the same hand again", "a batch", "error reply",
         "quit"]


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli", "check-bot", *args], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=300)


def _outcomes(done: subprocess.CompletedProcess) -> dict[str, tuple[str, str]]:
    """Each check's outcome and words, from the command's lines."""
    found = {}
    for line in done.stdout.splitlines():
        match = re.match(r"^(PASS|FAIL|SKIP)  (.{19})  (.*)$", line)
        if match:
            found[match[2].strip()] = (match[1], match[3])
    return found


def test_a_bot_that_keeps_the_protocol_passes_every_check():
    done = _check(str(SORTED))
    outcomes = _outcomes(done)
    assert done.returncode == 0 and list(outcomes) == NAMES, done.stdout + done.stderr
    assert {outcome for outcome, _ in outcomes.values()} == {"PASS"}
    assert outcomes["name and version"][1] == "'sorted', version '2.0'"
    assert outcomes["error reply"][1] == ("'a hand has 13 cards, not 12' for a hand of 12 cards, and it went on to the "
                                          "next request")
    assert done.stdout.splitlines()[-1] == "every check passed (9 passed, 0 skipped)"


@pytest.mark.parametrize("mode, keys, check, said", [
    ("unflushed", {"startup_timeout": 1}, "hello",
     "no answer to the hello within 1 s; end each line with a newline and flush standard output after it"),
    ("panic-start", {}, "hello", "it exited (status 2) instead of answering the hello; its standard error says: "
                                 "panic: cannot open weights.bin: no such file"),
    ("garbage", {}, "one hand", "answered hand AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C with a line that is not JSON"),
    ("traceback", {}, "one hand", "its standard error says: ValueError: no rows for AS KS (at "),
    ("cheat", {}, "one hand", "not the cards dealt"),
    ("unsteady", {}, "the same hand again", "a bot that draws randomness of its own says \"random\": true in its hello"),
    ("no-error-reply", {}, "error reply", "it answered a hand of 12 cards with '{\"front\": "),
    ("stubborn", {}, "quit", "still running 2 s after quit: exit on {\"type\": \"quit\"} and at the end of standard "
                             "input"),
])
def test_each_mistake_fails_its_check_and_says_what_to_change(tmp_path, mode, keys, check, said):
    done = _check(str(bot_file(tmp_path, mode, env={"HELLO": json.dumps({"protocol": 2})}, **keys)))
    outcomes = _outcomes(done)
    assert done.returncode == 1 and outcomes[check][0] == "FAIL" and said in outcomes[check][1], done.stdout
    assert list(outcomes) == NAMES and [o for o, _ in outcomes.values()].count("FAIL") == 1, done.stdout
    after = NAMES[NAMES.index(check) + 1:]
    gone = mode not in ("unsteady", "no-error-reply", "stubborn")  # after those mistakes the bot can still be asked
    assert all(outcomes[name][0] == ("SKIP" if gone else "PASS") for name in after if name != "a batch"), done.stdout


def test_what_the_hello_declares_is_taken_at_its_word(tmp_path):
    """Randomness declared: a hand set another way passes; rules listed without the ones asked
    for: the rules check fails, and the hands are still checked."""
    declared = bot_file(tmp_path, "unsteady", env={"HELLO": json.dumps({"protocol": 2, "random": True})})
    outcomes = _outcomes(_check(str(declared)))
    assert outcomes["the same hand again"] == ("PASS", "set another way, as its hello says it may (\"random\": true)")
    other_rules = bot_file(tmp_path, "plain", env={"HELLO": json.dumps({"protocol": 2, "rules": ["1-6"]})})
    done = _check(str(other_rules), "--rules", "2-4")
    outcomes = _outcomes(done)
    assert done.returncode == 1 and outcomes["rules"] == (
        "FAIL", "it plays 1-6, not 2-4: add '2-4' to the rules of its hello, or check it with --rules for one it plays")
    assert outcomes["one hand"][0] == "PASS"
    assert _outcomes(_check(str(other_rules), "--rules", "1-6"))["rules"] == ("PASS", "it plays 1-6")


def test_a_protocol_1_bot_skips_what_version_1_has_not():
    done = _check(str(ROOT / "examples" / "bots" / "sorted_bot_js.toml"))
    if "cannot start bot" in done.stdout:
        pytest.skip("Node.js is not installed")
    outcomes = _outcomes(done)
    assert done.returncode == 0 and outcomes["error reply"] == ("SKIP", "protocol 1 has no error reply")
    assert outcomes["protocol"][1].startswith("version 1 (version 2 adds")


@pytest.mark.parametrize("args, said", [
    (["greedy"], "check-bot checks a bot that speaks the protocol: a bot file (NAME.toml) or a program (cmd:PATH), "
                 "not 'greedy'"),
    (["no_such_bot.toml"], "cannot read bot file 'no_such_bot.toml'"),
    ([str(SORTED), "--rules", "zzz"], "unknown rules 'zzz'"),
])
def test_bad_usage_is_one_line_and_status_2(args, said):
    done = _check(*args)
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_protocol_log_holds_every_line_with_its_time_process_and_direction(tmp_path):
    trace = tmp_path / "trace.log"
    trace.write_text("an older trace, longer than the new one " * 200)
    done = _check(str(SORTED), "--log-protocol", str(trace), "--json")
    document = json.loads(done.stdout)
    assert done.returncode == 0 and document["passed"] and document["protocol_log"] == str(trace)
    assert [c["name"] for c in document["checks"]] == NAMES
    lines = trace.read_text().splitlines()
    pattern = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z sorted-py (\d+) ([→←]) (.*)$"
    parsed = [re.match(pattern, line) for line in lines]
    assert all(parsed), lines
    assert [(m[2], json.loads(m[3]).get("type")) for m in parsed[:2]] == [("→", "hello"), ("←", "hello")]
    assert len({m[1] for m in parsed}) == 1  # one process
    sent = [json.loads(m[3]) for m in parsed if m[2] == "→"]
    assert [m.get("type") for m in sent] == ["hello", "arrange", "arrange", "arrange_many", "arrange", "arrange",
                                              "quit"]
    assert Path(trace).read_text().count("\n") == len(lines) == 13  # each request answered but quit


HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"


@pytest.mark.parametrize("argv, requests", [
    (["-m", "bench.cli", "arrange", "--bot", str(SORTED), HAND], ["hello", "arrange", "quit"]),
    (["-m", "bench.cli.solve", HAND, "--opponent", str(SORTED), "--samples", "100"], ["hello", "arrange_many", "quit"]),
    (["-m", "bench.cli", "match", str(SORTED), "greedy", "--max-deals", "8", "--jobs", "1", "--seed", "1"], None),
    (["-m", "bench.cli", "tournament", "--bots", f"{SORTED},greedy", "--sessions", "1", "--seed", "1", "--jobs", "2"],
     None),
], ids=["arrange", "solve", "match", "tournament"])
def test_every_command_that_plays_a_protocol_bot_logs_its_lines(tmp_path, argv, requests):
    """--log-protocol on the commands that play bots: every line, from every process of the run
    (a tournament's workers append to the same file), each request answered."""
    trace = tmp_path / "trace.log"
    done = subprocess.run([sys.executable, *argv, "--log-protocol", str(trace)], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    parsed = [re.match(r"^\S+Z sorted-py (\d+) ([→←]) (\{.*\})$", line) for line in trace.read_text().splitlines()]
    assert parsed and all(parsed), trace.read_text()
    by_process: dict[str, list[tuple[str, dict]]] = {}
    for m in parsed:
        by_process.setdefault(m[1], []).append((m[2], json.loads(m[3])))
    for lines in by_process.values():
        assert lines[0] == ("→", {"type": "hello", "protocol": 2, "rules": "basic"}) and lines[1][0] == "←"
        sent = [message["id"] for direction, message in lines if direction == "→" and "id" in message]
        answered = [message["id"] for direction, message in lines if direction == "←" and "id" in message]
        assert sent == answered
    if requests is not None:  # one process, whose requests are (runs of) these
        (lines,) = by_process.values()
        kinds = [m["type"] for d, m in lines if d == "→"]
        assert [kind for i, kind in enumerate(kinds) if i == 0 or kinds[i - 1] != kind] == requests, kinds
    else:
        assert len(by_process) >= 2 or "match" in argv[2]  # the tournament's workers each start the bot
