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


@pytest.mark.parametrize("mode, keys, check, said, also", [
    ("unflushed", {"startup_timeout": 1}, "hello",
     "no answer to the hello within 1 s; end each line with a newline and flush standard output after it", ()),
    ("panic-start", {}, "hello", "it exited (status 2) instead of answering the hello; its standard error says: "
                                 "panic: cannot open weights.bin: no such file", ()),
    ("garbage", {}, "one hand", "answered hand AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C with a line that is not JSON",
     ("the same hand again", "error reply")),
    ("traceback", {}, "one hand", "its standard error says: ValueError: no rows for AS KS (at ",
     ("the same hand again", "error reply")),
    ("cheat", {}, "one hand", "not the cards dealt", ("the same hand again", "error reply")),
    ("unsteady", {}, "the same hand again", "a bot that draws randomness of its own says \"random\": true in its hello",
     ()),
    ("no-error-reply", {}, "error reply", "it answered a hand of 12 cards with '{\"front\": ", ()),
    ("stubborn", {}, "quit", "still running 2 s after quit: exit on {\"type\": \"quit\"} and at the end of standard "
                             "input", ()),
])
def test_each_mistake_fails_its_check_and_says_what_to_change(tmp_path, mode, keys, check, said, also):
    """The misbehaving bot misbehaves on every hand with the ace of spades, the hand of every
    check that asks one: those checks fail too, each pointing to the first; every other check
    still runs (a new process after one exited), but for those that need a hello when it failed."""
    done = _checked(tmp_path, str(bot_file(tmp_path, mode, env={"HELLO": json.dumps({"protocol": 2})}, **keys)))
    outcomes = _outcomes(done)
    assert done.returncode == 1 and outcomes[check][0] == "FAIL" and said in outcomes[check][1], done.stdout
    assert list(outcomes) == NAMES and [name for name, (o, _) in outcomes.items() if o == "FAIL"] == [check, *also]
    assert outcomes.get("the same hand again", ("", ""))[1] == "the same failure as one hand (above)" or \
        "the same hand again" not in also, done.stdout
    if "error reply" in also:
        assert outcomes["error reply"][1] == ("after its error reply, hand AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C met "
                                              "the same failure as one hand (above)"), done.stdout
    others = {name: outcome for name, (outcome, _) in outcomes.items() if name not in (check, *also)}
    if check == "hello":  # no hello: nothing else to check, and a run would end it without asking it to quit
        assert set(others.values()) == {"SKIP"}, done.stdout
    else:
        assert others.pop("a batch") == "SKIP" and set(others.values()) == {"PASS"}, done.stdout


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
    assert [m.get("type") for m in sent] == ["hello", "arrange", "arrange", "arrange_many", "arrange_many", "arrange",
                                              "arrange", "quit"]
    assert Path(trace).read_text().count("\n") == len(lines) == 15  # each request answered but quit


HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"


@pytest.mark.parametrize("argv, requests", [
    (["-m", "bench.cli", "arrange", "--bot", str(SORTED), HAND], ["hello", "arrange", "quit"]),
    # solve: 6 hands alone and in batches (docs/protocol.md#batches), the run's batches, two of its hands alone
    (["-m", "bench.cli.solve", HAND, "--opponent", str(SORTED), "--samples", "100"],
     ["hello", *["arrange", "arrange_many"] * 6, "arrange", "quit"]),
    (["-m", "bench.cli", "match", str(SORTED), "greedy", "--max-deals", "8", "--jobs", "1", "--seed", "1"], None),
    (["-m", "bench.cli", "tournament", "--bots", f"{SORTED},greedy", "--sessions", "1", "--seed", "1", "--jobs", "2"],
     None),
    (["-m", "bench.cli", "exploit", "--bot", str(SORTED), "--hands", "1", "--samples", "100", "--eval-samples", "100",
      "--seed", "1"], None),
], ids=["arrange", "solve", "match", "tournament", "exploit"])
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
        assert len(by_process) >= 2 or argv[2] in ("match", "exploit")  # the tournament's workers each start the bot


# --- what a reviewer found: each check on its own, a process after a bad answer, the words -----


_BOT = '''\
import json, sys
RANKS = "23456789TJQKA"


def rows(hand):
    cards = sorted(hand.split(), key=lambda c: RANKS.index(c[0]))
    return {"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}


def say(message):
    print(message if isinstance(message, str) else json.dumps(message), flush=True)


def hello():
    return {"type": "hello", "name": "inline-bot", "version": "1", "protocol": 2}


def arrange(m, n):  # n: the hands of 13 cards asked for so far, this one included
    return {"id": m["id"], **rows(m["hand"])}


def batch(m):
    return {"id": m["id"], "arrangements": [rows(h) for h in m["hands"]]}


'''
_LOOP = '''

arranged = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        say(hello())
    elif m["type"] == "quit":
        break
    elif m["type"] == "arrange_many":
        say(batch(m))
    elif len(m["hand"].split()) != 13:
        say({"id": m["id"], "error": "a hand has 13 cards"})
    else:
        arranged += 1
        say(arrange(m, arranged))
'''


def _inline_bot(tmp_path: Path, change: str = "", name: str = "inline-bot") -> Path:
    """A bot file for a bot that sets hands as sorted_bot does, but for ``change`` (Python that
    redefines ``hello``, ``arrange`` or ``batch`` of ``_BOT``)."""
    program = tmp_path / "inline_bot.py"
    program.write_text(_BOT + change + _LOOP)
    path = tmp_path / "inline_bot.toml"
    path.write_text(f'name = "{name}"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(program))}]\n')
    return path


def _running(folder: Path) -> list[int]:
    """The processes still running (zombies left out) whose command line names ``folder``,
    read from /proc."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and str(folder).encode() in cmdline:
            found.append(int(entry.name))
    return found


def _checked(tmp_path: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``bench check-bot ARGS`` (its log folder under ``tmp_path``), and no process of a bot under
    ``tmp_path`` left running after it."""
    env = env or ENV | {"TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "bench.cli", "check-bot", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    if Path("/proc/self").exists():
        assert _running(tmp_path) == [], done.stdout
    return done


def test_a_hand_set_again_with_its_rows_written_in_another_order_is_set_the_same_way(tmp_path):
    """The same rows, each row's cards written in another order the second time: the same play
    (bench verify compares rows, not the order of their cards)."""
    bot = _inline_bot(tmp_path, '''
def arrange(m, n):
    answer = {"id": m["id"], **rows(m["hand"])}
    if n % 2 == 0:
        answer.update({row: " ".join(reversed(answer[row].split())) for row in ("front", "middle", "back")})
    return answer
''')
    done = _checked(tmp_path, str(bot))
    outcomes = _outcomes(done)
    assert done.returncode == 0 and outcomes["the same hand again"] == ("PASS", "set the same way"), done.stdout


@pytest.mark.parametrize("change, failed, said", [
    ('''
def arrange(m, n):
    return {"id": m["id"] + (1000 if n == 1 else 0), **rows(m["hand"])}
''', "one hand", "with id 1001, not the request's 1"),
    ('''
def arrange(m, n):
    if n == 1:
        say("thinking about " + m["hand"])
    return {"id": m["id"], **rows(m["hand"])}
''', "one hand", "with a line that is not JSON: 'thinking about AS KS"),
    ('''
def arrange(m, n):
    return {"id": m["id"], "error": "no table for this hand"} if n == 1 else {"id": m["id"], **rows(m["hand"])}
''', "one hand", "it sent an error reply: 'no table for this hand'"),
    ('''
def hello():
    return {"type": "hello", "name": "inline-bot", "protocol": 2, "batch": True}


def batch(m):
    return {"id": m["id"], "arrangements": [rows(h) for h in m["hands"]][:-1]}
''', "a batch", "got 63 arrangements for 64 hands"),
    ('''
def arrange(m, n):
    if n == 1:
        sys.exit(7)
    return {"id": m["id"], **rows(m["hand"])}
''', "one hand", "it exited (status 7) instead of answering hand AS KS"),
], ids=["wrong-id", "debug-line", "error-reply", "short-batch", "exit"])
def test_after_a_failed_check_every_other_check_still_runs(tmp_path, change, failed, said):
    """One bad answer fails its check alone: the process is kept (docs/protocol.md: a bad
    answer keeps it; an answer to an earlier request is passed over), or, when it exited,
    a new one answers the next check; quit is checked."""
    if "sys.exit(7)" in change:  # a new process must not fail again: the first only
        flag = tmp_path / "exited"
        change = change.replace("if n == 1:", f"if not os.path.exists({str(flag)!r}):\n        open({str(flag)!r}, 'w')"
                                ".close()").replace("def arrange", "import os\n\n\ndef arrange")
    done = _checked(tmp_path, str(_inline_bot(tmp_path, change)))
    outcomes = _outcomes(done)
    assert done.returncode == 1 and list(outcomes) == NAMES, done.stdout
    assert outcomes[failed][0] == "FAIL" and said in outcomes[failed][1], done.stdout
    assert all(outcome == "PASS" for name, (outcome, _) in outcomes.items()
               if name != failed and (name != "a batch" or "batch" in change)), done.stdout


def test_a_fouled_arrangement_is_valid_and_says_that_it_fouls(tmp_path):
    bot = _inline_bot(tmp_path, '''
def arrange(m, n):
    cards = sorted(m["hand"].split(), key=lambda c: -RANKS.index(c[0]))  # the best cards in front
    return {"id": m["id"], "front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}
''')
    done = _checked(tmp_path, str(bot))
    outcome, detail = _outcomes(done)["one hand"]
    assert done.returncode == 0 and outcome == "PASS", done.stdout
    assert detail.startswith("a valid arrangement of the cards dealt in ") and "legal" not in detail, detail
    assert detail.endswith(" (it fouls: middle (pair of 9s, J T 8 kickers) beats back (7-high, 7 6 5 4 2))"), detail


def test_a_hello_that_says_random_is_neither_true_nor_false_fails_the_randomness_check(tmp_path):
    bot = _inline_bot(tmp_path, '''
def hello():
    return {"type": "hello", "name": "inline-bot", "version": "1", "protocol": 2, "random": "yes"}
''')
    done = _checked(tmp_path, str(bot))
    outcomes = _outcomes(done)
    assert done.returncode == 1 and outcomes["name and version"] == ("PASS", "'inline-bot', version '1'"), done.stdout
    assert outcomes["the same hand again"] == (
        "FAIL", "its hello says \"random\": \"yes\"; random must be true or false (true: it draws randomness of its "
                "own)"), done.stdout
    assert [name for name, (outcome, _) in outcomes.items() if outcome != "PASS"] == ["the same hand again", "a batch"]


def test_a_bot_that_cannot_start_names_no_empty_log_and_leaves_no_folder(tmp_path):
    """A typo in the program's name: the hello fails (status 1), and the log check-bot made
    for its standard error, empty, is removed with its folder and named nowhere."""
    bot = tmp_path / "typo.toml"
    bot.write_text('name = "typo"\ncommand = ["pyhton3-no-such-program", "my_bot.py"]\n')
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = ENV | {"TMPDIR": str(temporary)}
    done = _checked(tmp_path, str(bot), env=env)
    outcomes = _outcomes(done)
    assert done.returncode == 1 and outcomes["hello"][0] == "FAIL" and "cannot start bot 'typo'" in outcomes["hello"][1]
    assert "standard error" not in done.stdout and list(temporary.iterdir()) == [], done.stdout
    document = json.loads(_checked(tmp_path, str(bot), "--json", env=env).stdout)
    assert document["log"] is None and not document["passed"] and list(temporary.iterdir()) == []


def test_the_json_document_names_the_bot_as_its_hello_does(tmp_path):
    """cmd:PATH names the bot after its program; its hello names it too: the document's name
    is the hello's, as the text's name and version check says, and spec_name the other."""
    program = tmp_path / "my_bot.py"
    program.write_text(_BOT.replace('"name": "inline-bot"', '"name": "my-bot"') + _LOOP)
    program.chmod(0o755)
    program.write_text(f"#!{sys.executable}\n" + program.read_text())
    done = _checked(tmp_path, f"cmd:{program}", "--json")
    document = json.loads(done.stdout)
    assert done.returncode == 0 and document["name"] == "my-bot" and document["spec_name"] == "my_bot.py", done.stdout
    assert next(c for c in document["checks"] if c["name"] == "name and version")["detail"] == "'my-bot', version '1'"


def test_when_no_new_process_starts_after_a_crash_the_checks_left_say_so(tmp_path):
    """The first process exits on its first hand; every later one exits before its hello: the
    checks after the crash are skipped, saying that a new process did not start, and why."""
    flag = tmp_path / "crashed"
    bot = _inline_bot(tmp_path, f'''
import os

if os.path.exists({str(flag)!r}):
    sys.exit(3)


def arrange(m, n):
    open({str(flag)!r}, "w").close()
    sys.exit(7)
''')
    done = _checked(tmp_path, str(bot))
    outcomes = _outcomes(done)
    assert done.returncode == 1 and outcomes["one hand"][0] == "FAIL", done.stdout
    why = ("a new process, started after the failure above, did not start: it exited (status 3) instead of answering "
           "the hello")
    assert all(outcomes[name] == ("SKIP", why) for name in NAMES[NAMES.index("one hand") + 1:]), done.stdout


# --- a batch sets each hand as the bot plays it alone -----------------------------------------


def _two_faced_bot(tmp_path: Path, after: int = 0, random: bool = False, size: int = 0, most: int = 0,
                   smaller: int = 1000) -> Path:
    """A bot file for a bot that sets a hand alone as sorted_bot does, but with rows of other
    values (its best cards in front) in its batches after the first ``after``, larger than
    ``size`` hands and smaller than ``smaller``; its hello offers batches (of at most ``most``
    hands, when given), and says ``"random": true`` when ``random``."""
    return _inline_bot(tmp_path, f'''
def hello():
    return {{"type": "hello", "name": "inline-bot", "version": "1", "protocol": 2, "batch": {most or True},
            "random": {random}}}


def other(hand):
    cards = sorted(hand.split(), key=lambda c: -RANKS.index(c[0]))
    return {{"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}}


batches = 0


def batch(m):
    global batches
    batches += 1
    two_faced = batches > {after} and {size} < len(m["hands"]) < {smaller}
    return {{"id": m["id"], "arrangements": [other(h) if two_faced else rows(h) for h in m["hands"]]}}
''')


def test_a_batch_that_sets_the_one_hand_otherwise_fails_the_batch_check(tmp_path):
    done = _checked(tmp_path, str(_two_faced_bot(tmp_path)))
    outcomes = _outcomes(done)
    assert done.returncode == 1 and list(outcomes) == NAMES, done.stdout
    assert [name for name, (outcome, _) in outcomes.items() if outcome != "PASS"] == ["a batch"], done.stdout
    assert outcomes["a batch"][1].startswith(
        "it set hand AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C as AS KS QS / 9H 9D JS TS 8C / 7C 6D 5H 4S 2C in the "
        "batch (its last hand) but as 5H 4S 2C / 9H 9D 8C 7C 6D / AS KS QS JS TS alone: a bot that draws no "
        "randomness of its own sets a hand one way alone and in a batch"), done.stdout


def test_a_bot_that_draws_randomness_of_its_own_may_set_a_batch_otherwise(tmp_path):
    done = _checked(tmp_path, str(_two_faced_bot(tmp_path, random=True)))
    outcomes = _outcomes(done)
    assert done.returncode == 0 and outcomes["a batch"][0] == "PASS", done.stdout


def _solve_against(bot: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli.solve", HAND, "--opponent", str(bot), "--samples", "100",
                           "--seed", "1"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)


def test_a_protocol_bot_whose_batches_are_not_its_play_sets_no_simulated_opponent(tmp_path):
    """Refused before the run (exit 2, one line with the hand and both plays) when its
    batches differ, in a batch of one or only in one of its full size; stopped in the run
    (exit 1), naming the message, when only batches after those compared before it do;
    accepted when its hello says it draws randomness of its own."""
    done = _solve_against(_two_faced_bot(tmp_path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert re.search(r"bot 'inline-bot' sets (\w\w ){12}\w\w as .* in an arrange_many message of one hand but as .* "
                     r"alone \(arrange\), and it says it plays each hand one way: .* its hello must say \"random\": "
                     r"true or offer no batches \(docs/protocol.md\)$", done.stderr), done.stderr
    done = _solve_against(_two_faced_bot(tmp_path, size=6))
    assert done.returncode == 2 and "in an arrange_many message of 64 hands but as" in done.stderr, done.stderr
    done = _solve_against(_two_faced_bot(tmp_path, after=7))  # 6 hands in batches of one, then one of 64
    assert done.returncode == 1 and re.search(r"in an arrange_many message of (64|36) hands \(hands (1|65) to (64|100) "
                                              r"of 100, sent in messages of at most 64\) but as", done.stderr), done.stderr
    done = _solve_against(_two_faced_bot(tmp_path, random=True))
    assert done.returncode == 0 and done.stdout.startswith("hand"), done.stderr


def test_a_bot_that_says_it_draws_no_randomness_is_held_to_one_play_a_hand(tmp_path):
    """The unsteady bot sets a hand alone in a new order each time, from randomness its hello
    does not declare, and in a batch as sorted_bot does: a bot of ours would be excused where
    its play changes with the rng, but a protocol bot draws on no rng of ours, so where its
    batch differs the hand is asked alone again, and the two plays alone are refused."""
    path = bot_file(tmp_path, "unsteady", env={"HELLO": json.dumps({"batch": True})})
    done = _solve_against(path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert re.search(r"bot 'misbehaving-unsteady' sets (\w\w ){12}\w\w as [^(]* then as [^(]* alone \(arrange\), though "
                     r"it says it plays each hand one way: a bot that draws randomness of its own says \"random\": true "
                     r"in its hello", done.stderr), done.stderr
    done = _solve_against(bot_file(tmp_path, "unsteady", env={"HELLO": json.dumps({"batch": True, "random": True})}))
    assert done.returncode == 0, done.stderr


def test_a_bot_whose_play_follows_the_order_of_the_cards_passes_every_batch_check(tmp_path):
    """A bot that sets the cards in the order they are written (first three in front) is one
    play a hand as long as the hand is written the same way: check-bot writes the one hand in
    its batch as it wrote it alone, and the runs' checks write each hand one way."""
    bot = _inline_bot(tmp_path, '''
def in_order(hand):
    cards = hand.split()
    return {"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}


def hello():
    return {"type": "hello", "name": "inline-bot", "version": "1", "protocol": 2, "batch": True}


def arrange(m, n):
    return {"id": m["id"], **in_order(m["hand"])}


def batch(m):
    return {"id": m["id"], "arrangements": [in_order(h) for h in m["hands"]]}
''')
    done = _checked(tmp_path, str(bot))
    assert done.returncode == 0 and _outcomes(done)["a batch"][0] == "PASS", done.stdout
    assert _solve_against(bot).returncode == 0


def test_a_batch_that_differs_on_its_last_row_alone_is_refused_before_the_run(tmp_path):
    bot = _inline_bot(tmp_path, '''
def hello():
    return {"type": "hello", "name": "inline-bot", "version": "1", "protocol": 2, "batch": True}


def other(hand):
    cards = sorted(hand.split(), key=lambda c: -RANKS.index(c[0]))
    return {"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}


def batch(m):
    hands = m["hands"]
    return {"id": m["id"], "arrangements": [rows(h) for h in hands[:-1]] + [other(hands[-1]) if len(hands) > 1
                                                                             else rows(hands[-1])]}
''')
    done = _solve_against(bot)
    assert done.returncode == 2 and "in an arrange_many message of 64 hands but as" in done.stderr, done.stderr


def test_a_hand_set_two_ways_alone_fails_one_check_not_two(tmp_path):
    """Without "random": true in its hello, a bot that sets the one hand another way when it
    is asked again fails "the same hand again"; the batch, which sets it as the second time,
    is not blamed for it too."""
    bot = _inline_bot(tmp_path, '''
def other(hand):
    cards = sorted(hand.split(), key=lambda c: -RANKS.index(c[0]))
    return {"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}


def hello():
    return {"type": "hello", "name": "inline-bot", "version": "1", "protocol": 2, "batch": True}


def arrange(m, n):
    return {"id": m["id"], **(rows(m["hand"]) if n == 1 else other(m["hand"]))}


def batch(m):
    return {"id": m["id"], "arrangements": [other(h) for h in m["hands"]]}
''')
    done = _checked(tmp_path, str(bot))
    outcomes = _outcomes(done)
    assert done.returncode == 1, done.stdout
    assert [name for name, (outcome, _) in outcomes.items() if outcome != "PASS"] == ["the same hand again"], done.stdout


def test_a_bot_that_fails_on_a_hand_set_alone_to_check_a_batch_says_why_it_was_asked(tmp_path):
    bot = _inline_bot(tmp_path, '''
def hello():
    return {"type": "hello", "name": "inline-bot", "version": "1", "protocol": 2, "batch": True}


def arrange(m, n):  # the 6 hands of the check before the run, then an exit
    if n > 6:
        sys.exit(5)
    return {"id": m["id"], **rows(m["hand"])}
''')
    done = _solve_against(bot)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert re.search(r"bot 'inline-bot' exited \(status 5\) instead of answering hand (\w\w ){12}\w\w \(set alone, to "
                     r"compare it with how an arrange_many message of (64|36) hands \(hands \d+ to \d+ of 100, sent in "
                     r"messages of at most 64\) set it\)$", done.stderr), done.stderr


def test_a_bad_request_is_refused_before_the_opponent_bot_is_started(tmp_path):
    trace = tmp_path / "trace.log"
    done = subprocess.run([sys.executable, "-m", "bench.cli.solve", HAND.rsplit(" ", 1)[0], "--opponent", str(SORTED),
                           "--log-protocol", str(trace)], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "expected 13 cards for the hand, got 12" in done.stderr, done.stderr
    assert not trace.exists() or trace.read_text() == ""


def test_a_batch_of_one_hand_that_differs_fails_check_bot_as_it_fails_a_run(tmp_path):
    bot = _two_faced_bot(tmp_path, smaller=2)
    done = _checked(tmp_path, str(bot))
    outcome, detail = _outcomes(done)["a batch"]
    assert done.returncode == 1 and outcome == "FAIL" and " in a batch of one hand but as " in detail, done.stdout
    assert _solve_against(bot).returncode == 2


def test_a_message_of_one_hand_is_named_so(tmp_path):
    done = _solve_against(_two_faced_bot(tmp_path, after=12, most=1))  # 6 alone, then 6 hands a message each
    assert done.returncode == 1, done.stderr
    assert re.search(r" in an arrange_many message of one hand \(hand \d+ of 100, sent in messages of at most 1\) but "
                     r"as ", done.stderr), done.stderr
