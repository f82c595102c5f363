"""Protocol bots that fail, as an author's bug or an adversary would: each fault costs one
decision and counts against the budget of its kind; late and repeated answers are discarded
by their id; every write and read has a deadline; the bot's standard error is kept, capped,
and quoted; the bot is asked to quit and given a grace period; protocol version 2 (error
replies, rule sets, identity) beside version 1 bots; bad bot files are one line.

Where a time limit is the point, the slow side is slower by orders of magnitude (a bot that
sleeps 60 s against a limit of 0.5 s), and it is ended rather than waited for."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from bots import BotError, BotFault, make_bot, make_bot_for, protocol
from bots.base import BotGivenUp
from bots.protocol import bot as protocol_bot
from solver import config, parse_hand
from solver.rules import as_rules

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "tests" / "protocol" / "misbehaving.py"
ENV = os.environ | {"PYTHONPATH": str(ROOT)}
ACE = parse_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C")  # the misbehaving bot's trigger
PLAIN = parse_hand("KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C 3C")
RNG = np.random.default_rng(0)


def bot_file(tmp_path: Path, mode: str, env: dict | None = None, **keys) -> Path:
    """A bot file for tests/protocol/misbehaving.py in ``mode``; ``env`` goes to its environment."""
    lines = [f'name = "misbehaving-{mode}"',
             f"command = [{json.dumps(sys.executable)}, {json.dumps(str(BOT))}, {json.dumps(mode)}, "
             f"{json.dumps(str(tmp_path / 'flag'))}]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    if env:
        lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }")
    path = tmp_path / f"{mode}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=timeout)


def _left_behind(tmp_path: Path) -> list[psutil.Process]:
    """Processes still running a bot of this test (their command line names its folder)."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        try:
            if process.info["status"] != psutil.STATUS_ZOMBIE and any(
                    str(tmp_path) in part for part in process.info["cmdline"] or []):
                found.append(process)
        except psutil.Error:
            continue
    return found


@pytest.fixture
def make(tmp_path):
    """Makes misbehaving bots and closes them all at the end of the test."""
    made = []

    def bot(mode: str, env: dict | None = None, log_dir: str | None = None, **keys):
        made.append(make_bot(str(bot_file(tmp_path, mode, env, **keys)), **({"log_dir": log_dir} if log_dir else {})))
        return made[-1]

    yield bot
    for each in made:
        each.close()
    assert not _left_behind(tmp_path)


# --- budgets: a fault costs one decision ------------------------------------------------------


@pytest.mark.slow
def test_a_timeout_does_not_spend_a_crash_restart(make):
    """A bot that takes 60 s on some hands, against a limit of 0.5 s: each such hand is a
    timeout fault, and every other hand is still answered, however many timeouts came before."""
    bot = make("slow", decision_timeout=0.5)
    for _ in range(5):
        with pytest.raises(BotFault, match=r"gave no answer to hand AS KS .* within 0\.5 s"):
            bot.arrange(ACE, RNG)
        assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    assert bot.faults == {"timeout": 5} and not bot.given_up


@pytest.mark.slow
def test_a_late_answer_within_one_more_decision_timeout_keeps_the_process(make):
    """docs/protocol.md: after a timeout the process is kept when its late answer comes within
    one more ``decision_timeout`` (read and discarded); the next hand is answered by it."""
    bot = make("slow-once", env={"SLEEP": "3"}, decision_timeout=2.5)  # the answer comes 2 s before the window ends
    process = bot._process.popen.pid
    with pytest.raises(BotFault) as fault:
        bot.arrange(ACE, RNG)
    assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    assert bot._process.popen.pid == process and bot.restarts == 0 and bot.stale == 1
    said = re.fullmatch(r"bot 'misbehaving-slow-once' answered hand AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C after "
                        r"(\d+\.\d\d) s, over its limit of 2.5 s \(decision_timeout in its bot file\)", str(fault.value))
    assert said and 2.9 <= float(said[1]) < 5.0, str(fault.value)


@pytest.mark.slow
def test_the_last_timeout_of_a_budget_still_says_when_the_answer_came(make, monkeypatch):
    """A late answer that comes within a short grace after the limit is named as such even when
    the timeout uses up the budget and the bot is given up at once (no catching up)."""
    monkeypatch.setitem(protocol.BUDGETS, "timeout", 1)
    monkeypatch.setattr(protocol_bot, "LATE_GRACE", 10.0)  # the grace is then one decision_timeout: 1.6 s to spare
    bot = make("slow", env={"SLEEP": "2.4"}, decision_timeout=2.0)
    with pytest.raises(BotGivenUp, match=r"given up after 1 timeouts in a row .*; the last: bot 'misbehaving-slow' "
                                         r"answered hand AS KS .* after [23]\.\d\d s, over its limit of 2 s "
                                         r"\(decision_timeout in its bot file\)$"):
        bot.arrange(ACE, RNG)


def test_a_timeout_names_where_its_limit_comes_from(make):
    """No answer at all: the message says so, with the limit and where it is set."""
    bot = make("hang", decision_timeout=0.3)
    with pytest.raises(BotFault) as fault:
        bot.arrange(ACE, RNG)
    assert str(fault.value) == ("bot 'misbehaving-hang' gave no answer to hand AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C "
                                "within 0.3 s (decision_timeout in its bot file)")
    assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN) and bot.restarts == 1


@pytest.mark.parametrize("file_sets, hands, said", [
    (True, 1, "decision_timeout in its bot file"),
    (True, 5, "5 hands × decision_timeout 0.2 s in its bot file"),
    (False, 1, "the default decision_timeout"),
    (False, 5, "5 hands × the default decision_timeout of 0.2 s"),
])
def test_a_decision_limit_is_told_with_where_it_is_set(file_sets, hands, said):
    from bots.protocol.bot import decision_source
    from bots.protocol.spec import ProtocolSpec

    spec = ProtocolSpec("b", ("b",), decision_timeout=0.2, from_file=("decision_timeout",) if file_sets else ())
    assert decision_source(spec, hands) == said


@pytest.mark.slow
def test_crashes_have_a_budget_of_their_own(make):
    """Crashes on some hands are faults on those hands; a bot is given up only after
    ``BUDGETS['crash']`` crashes in a row, and says so on every later decision."""
    bot = make("crash")
    for _ in range(6):
        with pytest.raises(BotFault, match=r"exited \(status 7\) instead of answering hand AS KS"):
            bot.arrange(ACE, RNG)
        assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    assert bot.faults == {"crash": 6} and bot.restarts == 6
    for _ in range(protocol.BUDGETS["crash"] - 1):
        with pytest.raises(BotFault, match="exited") as caught:
            bot.arrange(ACE, RNG)
        assert not isinstance(caught.value, BotGivenUp)
    for hand in (ACE, PLAIN):  # the crash that uses up the budget, and every request after it
        with pytest.raises(BotGivenUp, match=r"given up after 5 crashes in a row .*the last: .*exited \(status 7\)"):
            bot.arrange(hand, RNG)


def test_bad_answers_keep_the_process_and_a_late_answer_is_discarded(make):
    """A line that is not JSON is a fault of its own; the process goes on, and the answer it
    sends after the garbage (to a request already settled) is never taken for a later one."""
    bot = make("garbage")
    process = bot._process.popen.pid
    for _ in range(3):
        with pytest.raises(BotFault, match="not JSON: 'I think front is best' .*; its standard output is for protocol "
                                           "lines only: write anything else to its standard error$"):
            bot.arrange(ACE, RNG)
        assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    assert bot.faults == {"bad answer": 3} and bot._process.popen.pid == process and bot.restarts == 0


@pytest.mark.parametrize("mode", ["twice", "stale-first"])
def test_repeated_and_stale_answers_are_discarded_by_id(make, mode):
    """A bot that answers every request twice, or sends the previous answer again before each
    answer, plays every hand: the extra lines carry settled ids and are read and dropped."""
    bot = make(mode)
    hands = [tuple(sorted(np.random.default_rng(i).permutation(52)[:13].tolist())) for i in range(16)]
    for hand in hands:
        assert sorted(bot.arrange(hand, RNG).cards) == sorted(hand)
    assert bot.stale == 15 and not bot.faults


def test_an_error_reply_is_the_bots_fault_with_its_text(make):
    bot = make("error", env={"HELLO": json.dumps({"protocol": 2})})
    with pytest.raises(BotFault, match=r"reported an error for hand AS KS .*: 'no idea what to do with the ace of spades'"):
        bot.arrange(ACE, RNG)
    assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN) and bot.restarts == 0


# --- deadlines on every write and read --------------------------------------------------------


@pytest.mark.slow
def test_a_bot_that_stops_reading_cannot_hang_solve(tmp_path):
    """A batch bot that reads its hello and nothing more for an hour: solve's 20,000
    opponents (a request far over what a pipe holds) end in one line within the time of a
    batch, never a hang. Its hello says it draws randomness of its own, so that no hand is asked
    alone first, to compare its batches with its play (docs/protocol.md#batches)."""
    path = bot_file(tmp_path, "deaf", env={"SLEEP": "3600", "HELLO": json.dumps({"random": True})}, decision_timeout=0.02)
    done = _cli("-m", "bench.cli.solve", "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "--opponent", str(path),
                "--samples", "20000", "--seed", "1", timeout=120)
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr
    assert "gave no answer to a batch of 64 hands within 1.28 s" in done.stderr.strip().splitlines()[-1]
    assert not _left_behind(tmp_path)


@pytest.mark.slow
def test_a_write_to_a_bot_that_stops_reading_has_a_deadline(make):
    """8 MiB to a bot that no longer reads: the write gives up at its deadline."""
    bot = make("deaf")
    started = time.monotonic()
    assert bot._process.send(b"x" * (8 << 20), time.monotonic() + 0.5) is False
    assert time.monotonic() - started < 30  # it returned: a blocking write would not


# --- batches and the line limit ---------------------------------------------------------------


@pytest.mark.slow
def test_solve_against_a_batch_bot_with_16000_opponents():
    """The answer to 16,000 hands in one message would be over the 1 MiB line limit: the
    bench sends batches a correct bot's answer always fits."""
    done = _cli("-m", "bench.cli.solve", "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "--opponent",
                str(ROOT / "examples" / "bots" / "sorted_bot.toml"), "--samples", "16000", "--seed", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sample_count"] == 16000


def test_batches_respect_the_size_a_bot_asks_for(make):
    """A bot whose hello says ``"batch": 5`` answers more hands with an error: it gets none."""
    bot = make("plain", env={"HELLO": json.dumps({"protocol": 2, "batch": 5})})
    hands = np.array([sorted(np.random.default_rng(i).permutation(52)[:13]) for i in range(23)], np.uint8)
    rows = bot.arrange_many(hands, RNG)
    assert bot.batch == 5 and np.array_equal(np.sort(rows, axis=1), hands)


def test_a_bot_that_offers_no_batches_is_asked_one_hand_at_a_time(make):
    """docs/protocol.md: without ``"batch"`` in its hello a bot gets ``arrange`` requests only."""
    bot = make("plain", env={"HELLO": json.dumps({"protocol": 2})})
    hands = np.array([sorted(np.random.default_rng(i).permutation(52)[:13]) for i in range(3)], np.uint8)
    rows = bot.arrange_many(hands, RNG)
    assert bot.batch == 0 and np.array_equal(np.sort(rows, axis=1), hands) and bot._next_id == 3


# --- the bot's own words ----------------------------------------------------------------------


def test_a_crash_quotes_the_error_the_bot_reported_and_keeps_its_log(make):
    """A panic after other output: the message quotes the panic's line, not the last lines; the
    fault names the log that holds the whole standard error, which stays after the bot is
    closed though its folder is a temporary one."""
    bot = make("panic")
    with pytest.raises(BotFault) as fault:
        bot.arrange(ACE, RNG)
    assert str(fault.value).endswith("exited (status 2) instead of answering hand AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S "
                                     "2C; its standard error says: panic: runtime error: index out of range [13] with "
                                     "length 13"), str(fault.value)
    log = Path(fault.value.log)
    assert log == bot.logs[0] and "goroutine 1 [running]:" in log.read_text()
    bot.close()
    assert log.exists()
    shutil.rmtree(log.parent)


def test_a_python_traceback_is_quoted_by_its_exception_and_the_line_that_raised_it(make):
    bot = make("traceback")
    with pytest.raises(BotFault) as fault:
        bot.arrange(ACE, RNG)
    raised = next(number for number, line in enumerate(BOT.read_text().splitlines(), 1) if "raise ValueError" in line)
    assert str(fault.value).endswith(f"its standard error says: ValueError: no rows for AS KS (at {BOT}:{raised})"), \
        str(fault.value)
    bot.close()
    shutil.rmtree(Path(fault.value.log).parent)


@pytest.mark.slow
def test_a_panic_at_start_is_quoted_in_one_line(tmp_path):
    path = bot_file(tmp_path, "panic-start")
    with pytest.raises(BotError, match=r"did not start: it exited \(status 2\) instead of answering the hello; "
                                       r"its standard error says: panic: cannot open weights.bin: no such file; "
                                       r"its whole standard error: (?P<log>/\S+\.stderr\.log)$") as error:
        make_bot(str(path))
    log = Path(str(error.value).rsplit(": ", 1)[1])
    assert log.read_text() == "loading weights\npanic: cannot open weights.bin: no such file\n"
    done = _cli("-m", "bench.cli", "arrange", "--bot", str(path), "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C")
    assert done.returncode == 2 and "panic: cannot open weights.bin" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    kept = Path(done.stderr.strip().rsplit(": ", 1)[1])
    assert kept.read_text().endswith("no such file\n")
    for each in (log, kept):
        shutil.rmtree(each.parent)


@pytest.mark.slow
def test_a_crash_in_a_command_names_the_log_that_holds_the_whole_standard_error(tmp_path):
    """bench arrange with a bot that raises: one line, the exception and where it was raised,
    and the log file, kept after the command."""
    path = bot_file(tmp_path, "traceback")
    done = _cli("-m", "bench.cli", "arrange", "--bot", str(path), "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C")
    line = done.stderr.strip()
    assert done.returncode == 1 and len(line.splitlines()) == 1 and "ValueError: no rows for AS KS (at " in line, line
    log = Path(line.rsplit("; its whole standard error: ", 1)[1])
    assert "Traceback (most recent call last):" in log.read_text()
    shutil.rmtree(log.parent)


@pytest.mark.parametrize("mode, said", [
    ("unflushed", "gave no answer to the hello within 1 s, the startup_timeout of its bot file; if it writes its "
                  "hello, it must end the line with a newline and flush its standard output (docs/protocol.md); if "
                  "it needs longer to start, raise the startup_timeout of its bot file"),
    ("unended", """gave no answer to the hello within 1 s, the startup_timeout of its bot file (it wrote '{"type": """
                """"hello", "name": "misbehaving-unended"}' with no end of line)"""),
])
def test_a_hello_that_does_not_arrive_says_how_to_send_it(tmp_path, mode, said):
    with pytest.raises(BotError) as error:
        make_bot(str(bot_file(tmp_path, mode, startup_timeout=1)))
    assert str(error.value) == f"protocol bot 'misbehaving-{mode}' did not start: it {said}"


def test_each_bot_process_has_its_own_log(make, tmp_path):
    """A crash and a restart: two processes, two logs in the folder given; when the bot is
    closed, the new process's stays only if it wrote something (it did not)."""
    bot = make("panic", log_dir=str(tmp_path / "logs"))
    with pytest.raises(BotFault):
        bot.arrange(ACE, RNG)
    bot.arrange(PLAIN, RNG)
    logs = sorted((tmp_path / "logs").glob("*.stderr.log"))
    assert logs == sorted(bot.logs) and len(logs) == 2
    assert sum("panic: runtime error" in log.read_text() for log in logs) == 1
    bot.close()
    (kept,) = (tmp_path / "logs").glob("*.stderr.log")
    assert bot.logs == [kept] and "panic: runtime error" in kept.read_text()


@pytest.mark.slow
def test_a_bot_restarted_again_and_again_keeps_a_bounded_number_of_logs(make, tmp_path, monkeypatch):
    """Crashes spaced by good answers never use up the budget, so the restarts go on for as
    long as the run: the first process's log and the last ones are kept, no more."""
    monkeypatch.setattr(config, "LOG_FILES", 3)
    bot = make("panic", log_dir=str(tmp_path / "logs"))  # each crashed process's log holds its panic
    for _ in range(6):
        with pytest.raises(BotFault, match="exited"):
            bot.arrange(ACE, RNG)
        bot.arrange(PLAIN, RNG)
    kept = sorted((tmp_path / "logs").glob("*.stderr.log"))
    assert bot.restarts == 6 and len(kept) == 3 and bot.logs[0] in kept and bot.logs[-1] in kept


def test_without_a_log_folder_the_logs_are_temporary(make):
    """Logs that no fault named (the bot wrote nothing to its standard error) go with the bot."""
    bot = make("crash")
    with pytest.raises(BotFault, match=r"exited \(status 7\)") as fault:
        bot.arrange(ACE, RNG)
    assert fault.value.log is None
    assert bot.logs and all(log.exists() for log in bot.logs)
    folder = bot.logs[0].parent
    bot.close()
    assert not folder.exists()


def test_a_flood_of_standard_error_is_capped(make, tmp_path):
    """100 MB written to standard error: the log keeps its first and last MiB and says how
    much it left out between them."""
    bot = make("flood", log_dir=str(tmp_path / "logs"))
    assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    bot.close()
    (log,) = bot.logs
    data = log.read_bytes()
    assert len(data) <= config.LOG_HEAD + config.LOG_TAIL + 200
    assert data.startswith(b"x" * 1023 + b"\n") and data.endswith(b"the last line of the flood\n")
    assert b"bytes of standard error left out" in data


# --- ending -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_close_asks_the_bot_to_quit_and_gives_it_a_grace_period(make, tmp_path, monkeypatch):
    """A bot that needs 1 s after quit, with a grace period of 60 s: it finishes (and close
    returns as soon as it has)."""
    monkeypatch.setattr(config, "QUIT_GRACE", 60.0)
    bot = make("slow-quit", env={"SLEEP": "1"})
    bot.close()
    assert (tmp_path / "flag").read_text() == "quit in time"


@pytest.mark.slow
def test_a_bot_that_ignores_quit_and_sigterm_is_ended(make, tmp_path, monkeypatch):
    monkeypatch.setattr(config, "QUIT_GRACE", 0.2)
    bot = make("stubborn")
    pid = bot._process.popen.pid
    bot.close()
    assert not psutil.pid_exists(pid) and not _left_behind(tmp_path)


# --- protocol version 2: rules and identity ---------------------------------------------------


@pytest.mark.slow
def test_a_bot_that_lists_its_rules_is_refused_under_other_rules(tmp_path):
    path = bot_file(tmp_path, "plain", env={"HELLO": json.dumps({"protocol": 2, "rules": ["1-6", "2-4"]})})
    with pytest.raises(BotError, match=r"protocol bot 'misbehaving-plain' plays the rules 1-6, 2-4, not basic$"):
        make_bot_for(str(path), as_rules("basic"))
    with make_bot_for(str(path), as_rules("1-6")) as bot:
        assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    done = _cli("-m", "bench.cli", "arrange", "--bot", str(path), "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C")
    assert done.returncode == 2 and done.stderr.strip().endswith("plays the rules 1-6, 2-4, not basic")


def test_identity_from_the_hello_and_the_bot_file(make, tmp_path):
    hello = {"protocol": 2, "name": "deep-thought", "version": "1.4.2"}
    bot = make("plain", env={"HELLO": json.dumps(hello)})
    path = tmp_path / "plain.toml"
    assert bot.identity == {"name": "deep-thought", "version": "1.4.2", "protocol": 2, "file": str(path.resolve()),
                            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                            "program": os.path.abspath(sys.executable), "random": False}


def test_version_1_bots_still_play(make):
    bot = make("plain")
    assert bot.identity["protocol"] == 1 and bot.identity["version"] is None
    assert bot.identity["name"] == "misbehaving-plain"
    assert sorted(bot.arrange(ACE, RNG).cards) == sorted(ACE)


@pytest.mark.parametrize("hello, message", [
    ({"protocol": 3}, "speaks protocol 3; this bench speaks 1 and 2"),
    ({"rules": "basic"}, "it must be a list of rule set names"),
    ({"batch": "yes"}, "batch '\"yes\"'; it must be true, false or a number of hands"),
    ({"version": 2}, "name and version must be text"),
    ({"name": "evil\nbot"}, "name and version must be text, one line of at most 100 printable characters"),
    ({"name": "a | b"}, "without '[|]'"),
    ({"version": "x" * 101}, "at most 100 printable characters"),
    ({"rules": ["x" * 50_000, "1-6"]}, r"plays the rules x{300}\.\.\., not basic$"),
])
def test_a_bad_hello_is_one_line(tmp_path, hello, message):
    with pytest.raises(BotError, match=message):
        make_bot(str(bot_file(tmp_path, "plain", env={"HELLO": json.dumps(hello)})))


def test_a_hello_at_the_limits_the_docs_give_is_accepted(make):
    """docs/protocol.md: a name and version of at most 100 printable characters; ``batch`` 0,
    one hand at a time."""
    bot = make("plain", env={"HELLO": json.dumps({"protocol": 2, "name": "n" * 100, "version": "v" * 100, "batch": 0})})
    assert bot.identity["name"] == "n" * 100 and bot.identity["version"] == "v" * 100 and bot.batch == 0


# --- bot files --------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("line", ["decision_timeout = nan", "decision_timeout = inf", "startup_timeout = 1e-9",
                                  "decision_timeout = 1e9", "startup_timeout = true", 'decision_timeout = "5"'])
def test_time_limits_in_a_bot_file_are_finite_and_sane(tmp_path, line):
    path = tmp_path / "bot.toml"
    path.write_text(f'command = ["python3", "bot.py"]\n{line}\n')
    with pytest.raises(BotError, match=r"_timeout must be a number of seconds from 0.01 to 86400, got"):
        make_bot(str(path))
    done = _cli("-m", "bench.cli", "arrange", "--bot", str(path), "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("name", ["two\\nlines", "a|b", "tab\\there"])
def test_a_bot_files_name_fits_a_table(tmp_path, name):
    """A name that would break the lines of the tables and the report's columns is refused."""
    path = tmp_path / "bot.toml"
    path.write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\n')
    with pytest.raises(BotError, match="name must be text that is not empty, one line of at most 100 printable"):
        make_bot(str(path))


@pytest.mark.parametrize("create, key, message", [
    (os.mkfifo, "cwd", r"cwd 'there' is a named pipe \(FIFO\), not a folder \(.*there\); name a folder"),
    (lambda path: path.write_text("x"), "cwd", r"cwd 'there' is a regular file, not a folder"),
    (os.mkfifo, "command", r"command './there' is a named pipe \(FIFO\), not a program \(.*there\)"),
    (os.mkdir, "command", r"command './there' is a folder, not a program"),
], ids=["cwd-a-pipe", "cwd-a-file", "command-a-pipe", "command-a-folder"])
def test_a_bot_file_naming_something_else_than_a_folder_or_program_says_what_it_is(tmp_path, create, key, message):
    create(tmp_path / "there")
    path = tmp_path / "bot.toml"
    path.write_text('command = ["./there"]\ncwd = "there"\n' if key == "cwd" else 'command = ["./there"]\n')
    with pytest.raises(BotError, match=message):
        make_bot(str(path))


def test_a_missing_cwd_is_named_as_such(tmp_path):
    path = tmp_path / "bot.toml"
    path.write_text(f'command = [{json.dumps(sys.executable)}, "bot.py"]\ncwd = "nowhere"\n')
    with pytest.raises(BotError, match=r"cwd 'nowhere' is not a folder"):
        make_bot(str(path))


# --- adversaries ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode, message, restarted", [
    ("garbage-bytes", r"not JSON: '.*garbage'", False),
    ("deep", r"not JSON: '\[\[\[", False),
    ("huge", r"with a line longer than 1048576 bytes", True),
    ("flood-stdout", r"with a line longer than 1048576 bytes", True),
    pytest.param("no-newline", r"gave no answer .* within 1 s \(decision_timeout in its bot file; it wrote "
                               r"'\{\"id\": 1, .*' with no end of line\)$", True,
                 marks=pytest.mark.slow),  # waits out a time limit
    ("bool-id", r"with id True, not a whole number", False),
    ("wrong-id", r"with an id 1000 more than its request's \(an answer carries the id of the request it answers\): "
                 r"'\{\"front\"", False),
    ("cheat", r"other cards than it was dealt", False),
    ("declare-text", r"with declare '\"yes\"'; it must be true or false", False),
    pytest.param("close-stdout", r"closed its output instead of answering hand AS KS", True, marks=pytest.mark.slow),
    pytest.param("close-stdin", r"closed its input instead of answering hand AS KS", True, marks=pytest.mark.slow),
    ("fork", r"exited \(status 0\) instead of answering hand AS KS", True),
])
def test_adversaries_cost_one_decision(make, mode, message, restarted):
    """Each misbehaves on its first hand: a fault quoting what it did, and the next hand is
    answered (by the same process, or a new one when it cannot go on)."""
    from bots.base import checked_arrangement

    bot = make(mode, decision_timeout=1)
    with pytest.raises(BotFault, match=message):
        checked_arrangement(bot, ACE, RNG)
    assert sorted(checked_arrangement(bot, PLAIN, RNG).cards) == sorted(PLAIN)
    assert bot.restarts == int(restarted)


@pytest.mark.parametrize("mode", ["wrong-id", "bad-rows"])
def test_a_faults_words_do_not_depend_on_the_requests_before_it(make, mode):
    """The records keep a fault's words, and a record must not depend on how the deals were
    shared among workers: the same bad answer to the same hand reads the same whether it is a
    process's first request or a later one (ids count a process's requests)."""
    first, later = make(mode), make(mode)
    for _ in range(3):
        later.arrange(PLAIN, RNG)
    words = []
    for bot in (first, later):
        with pytest.raises(BotFault) as caught:
            bot.arrange(ACE, RNG)
        words.append(str(caught.value))
    assert words[0] == words[1] and "AS KS" in words[0]


def test_an_answer_without_declare_declares_nothing(make):
    """docs/protocol.md: a bot that declares a natural adds ``"declare": true``; without it, none."""
    bot = make("plain")
    assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    assert bot.declare(PLAIN, RNG) is False


def test_what_a_bot_declared_is_kept_for_its_last_hand_only(make):
    """Under rules without naturals nobody asks what a bot declared: a long run must not keep
    one entry for every hand it ever set."""
    bot = make("plain")
    rng = np.random.default_rng(1)
    for _ in range(20):
        cards = tuple(sorted(rng.permutation(52)[:13].tolist()))
        bot.arrange(tuple(parse_hand(" ".join("23456789TJQKA"[c // 4] + "CDHS"[c % 4] for c in cards))), RNG)
    assert len(bot._declared) <= 1


@pytest.mark.slow
def test_an_endless_stream_of_stale_answers_is_a_timeout(make):
    """A bot that answers the previous request over and over: each line is read and
    discarded, the deadline holds, and the message says what came."""
    bot = make("stale-flood", decision_timeout=0.5)
    assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    with pytest.raises(BotFault, match=r"gave no answer to hand AS KS .* within 0\.5 s \(decision_timeout in its bot "
                                       r"file; it sent [\d,]+ answers? to earlier requests, discarded\)$"):
        bot.arrange(ACE, RNG)
    assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN) and bot.restarts == 1


def test_threads_sharing_one_bot_each_get_their_own_answers(make):
    """Requests from two threads to one bot are taken one at a time: each thread gets the
    answer to its own hand, never the other's."""
    import threading

    bot = make("plain")
    hands = [tuple(sorted(np.random.default_rng(i).permutation(52)[:13].tolist())) for i in range(40)]
    wrong: list[str] = []

    def play(share):
        for hand in share:
            try:
                if sorted(bot.arrange(hand, np.random.default_rng(0)).cards) != sorted(hand):
                    wrong.append(f"other cards for {hand}")
            except BotFault as fault:
                wrong.append(str(fault))

    threads = [threading.Thread(target=play, args=(hands[k::2],)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong and not bot.faults


@pytest.mark.slow
def test_a_run_stopped_by_a_crash_names_the_log_in_its_folder(tmp_path):
    """--on-fault stop: the line that ends the run names the crashed process's log, in the
    run's folder; the journal records no fault, so its words need not name a file."""
    path = bot_file(tmp_path, "panic")
    out = tmp_path / "run"
    done = _cli("-m", "bench.cli", "tournament", "--bots", f"{path},greedy", "--sessions", "1", "--seed", "1",
                "--jobs", "1", "--on-fault", "stop", "--out", str(out))
    line = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and "its standard error says: panic: runtime error: index out of range" in line, line
    log = Path(line.rsplit("; its whole standard error: ", 1)[1])
    assert log.parent == out and "goroutine 1 [running]:" in log.read_text()
    assert "stderr.log" not in (out / "journal.jsonl").read_text()


# --- the start-up limit: the bot file's, else the command's ------------------------------------


def test_a_bot_file_without_startup_timeout_takes_the_commands(tmp_path):
    """A bot file that sets no startup_timeout starts under the command's --startup-timeout
    (``make_bots``' ``startup_timeout``), and the message names that option as the limit's source."""
    from bench.run.play import close_bots, make_bots

    path = bot_file(tmp_path, "slow-start", env={"SLEEP": "3"})
    started = time.monotonic()
    with pytest.raises(BotError) as error:
        make_bots([str(path)], as_rules("basic"), startup_timeout=0.5, warm_up=False)
    close_bots()
    assert str(error.value) == ("protocol bot 'misbehaving-slow-start' did not start: it gave no answer to the hello "
                                "within 0.5 s, the --startup-timeout of the command; if it writes its hello, it must "
                                "end the line with a newline and flush its standard output (docs/protocol.md); if it "
                                "needs longer to start, raise the --startup-timeout of the command")
    assert time.monotonic() - started < 3
    assert not _left_behind(tmp_path)


def test_a_bot_files_own_startup_timeout_wins_over_the_commands(tmp_path):
    from bench.run.play import close_bots, make_bots

    slow = bot_file(tmp_path, "slow-start", env={"SLEEP": "60"}, startup_timeout=0.5)
    with pytest.raises(BotError, match=r"within 0\.5 s, the startup_timeout of its bot file; .* if it needs longer to "
                                       r"start, raise the startup_timeout of its bot file$"):
        make_bots([str(slow)], as_rules("basic"), startup_timeout=30, warm_up=False)
    patient = bot_file(tmp_path, "slow-start", env={"SLEEP": "1"}, startup_timeout=20)
    try:
        bot = make_bots([str(patient)], as_rules("basic"), startup_timeout=0.5, warm_up=False)[str(patient)]
        assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    finally:
        close_bots()
    assert not _left_behind(tmp_path)


def test_a_run_gives_its_protocol_bots_the_runs_startup_timeout(tmp_path):
    """``RunSettings.startup_timeout`` (``bench tournament --startup-timeout``) reaches the protocol
    bots the workers make, and every process started again after a fault."""
    from bench.run.play import RunSettings, close_bots, play_deals

    path = str(bot_file(tmp_path, "slow-start", env={"SLEEP": "3"}))
    settings = RunSettings((path, "greedy"), 2, 1, as_rules("basic"), decision_timeout=30.0, startup_timeout=0.5)
    try:
        with pytest.raises(BotError, match=r"within 0\.5 s, the --startup-timeout of the command"):
            play_deals(settings.specs, 2, 1, [0], settings=settings)
    finally:
        close_bots()
    assert not _left_behind(tmp_path)


def test_a_cmd_bot_takes_the_commands_startup_timeout(tmp_path):
    script = tmp_path / "sleepy"
    script.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(60)\n")
    script.chmod(0o755)
    from bench.run.play import close_bots, make_bots

    try:
        with pytest.raises(BotError, match=r"'sleepy' did not start: it gave no answer to the hello within 0\.5 s, the "
                                           r"--startup-timeout of the command;"):
            make_bots([f"cmd:{script}"], as_rules("basic"), startup_timeout=0.5, warm_up=False)
    finally:
        close_bots()
    assert not _left_behind(tmp_path)


# --- JSON of many lines -------------------------------------------------------------------------


def test_a_bot_that_pretty_prints_its_json_is_told_to_write_one_line(tmp_path):
    with pytest.raises(BotError) as error:
        make_bot(str(bot_file(tmp_path, "pretty")))
    assert str(error.value) == ("protocol bot 'misbehaving-pretty' did not start: bot 'misbehaving-pretty' answered "
                                "the hello with a line that is not JSON: '{' (it ends before its JSON does); each "
                                "message is one line of JSON: write it without newlines (no indent)")


# --- cmd: and commands that cannot start --------------------------------------------------------


@pytest.fixture
def scripts(tmp_path, monkeypatch):
    """A folder with bot programs that cannot start, as the current folder, not on PATH."""
    good = f"#!{sys.executable}\nprint('hi')\n"
    for name, text, mode in [("my_bot.py", good, 0o755), ("noshebang.py", "print('hi')\n", 0o755),
                             ("nochmod.py", good, 0o644), ("badshebang.py", "#!/no/such/interpreter\n", 0o755)]:
        (tmp_path / name).write_text(text)
        (tmp_path / name).chmod(mode)
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("spec, said", [
    ("cmd:./my_bot.py --level 3", r"cannot start bot 'my_bot.py --level 3' \(\./my_bot\.py --level 3\): No such file "
                                  r"or directory; cmd: takes one program without arguments: for arguments, enter the "
                                  r"bot by a bot file whose command lists them"),
    ("cmd:my_bot.py", r"cannot start bot 'my_bot.py' \(my_bot\.py\): No such file or directory; a name without a '/' is "
                      r"looked up on PATH: did you mean cmd:\./my_bot\.py\?"),
    ("cmd:./noshebang.py", r"cannot start bot 'noshebang.py' \(\./noshebang\.py\): Exec format error; the system cannot "
                           r"run it as a program: make its first line a #! line, such as #!/usr/bin/env python3"),
    ("cmd:./nochmod.py", r"cannot start bot 'nochmod.py' \(\./nochmod\.py\): Permission denied; it is not executable: "
                         r"chmod \+x .*nochmod\.py$"),
    ("cmd:./badshebang.py", r"No such file or directory; its #! line names '/no/such/interpreter', which is not there"),
    ("cmd:.", r"cannot start bot '\.' \(\.\): it is a folder, not a program: name the program file"),
    ("cmd:./folder", r"cannot start bot 'folder' \(\./folder\): it is a folder, not a program: name the program file"),
])
def test_a_cmd_bot_that_cannot_start_says_what_to_change(scripts, spec, said):
    with pytest.raises(BotError, match=said):
        make_bot(spec)


def test_a_bot_files_bare_command_that_is_a_file_beside_it_is_told_to_name_it_with_a_slash(scripts):
    path = scripts / "bot.toml"
    path.write_text('command = ["my_bot.py"]\n')
    with pytest.raises(BotError, match=r"a name without a '/' is looked up on PATH: did you mean \"\./my_bot\.py\"\?"):
        make_bot(str(path))


# --- solve names the log ------------------------------------------------------------------------


@pytest.mark.slow
def test_solve_with_a_crashing_opponent_names_its_words_and_its_log(tmp_path):
    """docs/protocol.md: solve stops on the fault with its line and names the log that holds
    the whole standard error; no Python class name in the line."""
    path = bot_file(tmp_path, "traceback")
    done = _cli("-m", "bench.cli.solve", "KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 3C 2C", "--opponent", str(path),
                "--samples", "200", "--seed", "1")
    line = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and line.startswith(f"solve: error: opponent model '{path}' failed: bot "
                                                    "'misbehaving-traceback' exited (status 1) instead of answering"), line
    assert "BotFault" not in line and "ValueError: no rows for" in line
    log = Path(line.rsplit("; its whole standard error: ", 1)[1])
    assert "Traceback (most recent call last):" in log.read_text()
    shutil.rmtree(log.parent)


# --- logs: only those that hold something -------------------------------------------------------


def test_a_log_the_process_wrote_nothing_to_is_not_kept(make, tmp_path):
    """A crash without a word on standard error: its log is empty, so it is removed with the
    process, and the fault names none; the replacement's log goes when the bot closes."""
    bot = make("crash", log_dir=str(tmp_path / "logs"))
    with pytest.raises(BotFault, match=r"exited \(status 7\)") as fault:
        bot.arrange(ACE, RNG)
    assert fault.value.log is None
    assert sorted(bot.arrange(PLAIN, RNG).cards) == sorted(PLAIN)
    bot.close()
    assert not list((tmp_path / "logs").glob("*.stderr.log")) and not [log for log in bot.logs if log.exists()]


def test_a_kept_log_folder_holds_no_empty_log(make):
    """A crash that names its log keeps the temporary folder, and only the logs with something
    in them: not the empty one of the process started after the crash."""
    bot = make("panic")
    with pytest.raises(BotFault) as fault:
        bot.arrange(ACE, RNG)
    bot.close()
    log = Path(fault.value.log)
    assert sorted(log.parent.iterdir()) == [log] and log.stat().st_size > 0
    shutil.rmtree(log.parent)


def test_the_docs_name_a_log_as_it_is_named(make, tmp_path):
    """docs/bots.md and docs/protocol.md name a log file ``NAME.PID.N.stderr.log``, as it is."""
    bot = make("panic", log_dir=str(tmp_path / "logs"))
    with pytest.raises(BotFault) as fault:
        bot.arrange(ACE, RNG)
    assert re.fullmatch(rf"misbehaving-panic\.{os.getpid()}\.\d+\.stderr\.log", Path(fault.value.log).name)
    for doc in ("bots.md", "protocol.md"):
        named = re.findall(r"`([^`]*stderr\.log)`", (ROOT / "docs" / doc).read_text(encoding="utf-8"))
        assert named and all(name.endswith("NAME.PID.N.stderr.log") for name in named), (doc, named)
