"""Bots in any language over the line protocol (docs/protocol.md), and bench match.

The example bots in examples/bots (Python, and JavaScript when node is installed) play in
bench arrange, bench tournament, bench match and as solve's opponent model; misbehaving
bots (crashing, hanging, garbage, wrong ids, other cards, no hello) are contained."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import psutil
import pytest

from bench.analysis.sprt import Sprt
from bots import BotError, BotFault, make_bot
from solver import Card, parse_hand
from tests.helpers import ENV, ROOT
from tests.helpers import bench as _bench

EXAMPLES = ROOT / "examples" / "bots"
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
BOT_FILES = [EXAMPLES / "sorted_bot.toml", EXAMPLES / "sorted_bot_js.toml"]


def _needs(path: Path) -> None:
    if path.name.endswith("_js.toml") and shutil.which("node") is None:
        pytest.skip("node (Node.js) is not installed: the JavaScript example cannot run")


def _misbehaving(tmp_path: Path, mode: str, **extra) -> Path:
    lines = [f'name = "misbehaving-{mode}"',
             f'command = [{json.dumps(sys.executable)}, {json.dumps(str(ROOT / "tests/protocol/misbehaving.py"))}, '
             f'"{mode}", {json.dumps(str(tmp_path / "flag"))}]']
    lines += [f"{k} = {v}" for k, v in extra.items()]
    path = tmp_path / f"{mode}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("path", BOT_FILES, ids=["python", "javascript"])
def test_example_bots_play_everywhere(path, tmp_path):
    """Fails if a protocol bot cannot be used by each command, or leaves a process behind."""
    _needs(path)
    done = _bench("arrange", "--bot", str(path), HAND, "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert sorted(" ".join(record["arrangement"].values()).split()) == sorted(HAND.split())
    done = _bench("tournament", "--bots", f"{path},greedy", "--sessions", "1", "--seed", "2", "--jobs", "2",
                  "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["bots"][0]["class"] == "protocol" and doc["bots"][0]["params"]["command"]
    assert not [log for log in tmp_path.glob("*.stderr.log") if not log.stat().st_size]  # an empty log is not kept
    done = _bench("match", str(path), "greedy", "--sprt", "0,0.5", "--seed", "3", "--max-deals", "560", "--json",
                  "--estimator", "duplicate")
    assert done.returncode == 0, done.stderr
    match = json.loads(done.stdout)
    expected = _match_by_the_reference(path, "greedy", entropy=3, max_deals=560, h0=0.0, h1=0.5)
    assert (match["decision"], match["llr"], match["mean"]) == (expected[0], pytest.approx(expected[1], abs=1e-5),
                                                                pytest.approx(expected[2], abs=1e-5))
    done = subprocess.run([sys.executable, "-m", "bench.cli.solve", HAND, "--opponent", str(path), "--samples", "300",
                           "--seed", "1", "--json"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["opponent"] == str(path)
    done = _bench("exploit", "--bot", str(path), "--hands", "3", "--seed", "1", "--samples", "40", "--eval-samples",
                  "40", "--json")
    assert done.returncode == 0, done.stderr
    exploit = json.loads(done.stdout)
    assert exploit["bot_identity"]["class"] == "protocol" and exploit["hand_count"] == 3
    assert not _running_here("sorted_bot")


def _match_by_the_reference(a: Path, b: str, entropy: int, max_deals: int, h0: float, h1: float,
                            alpha: float = 0.05, beta: float = 0.05) -> tuple[str, float, float]:
    """``bench match A B --json``'s decision, LLR and mean worked out on their own: each deal's
    two hands set by both bots, scored by the slow reference (tests/naive.py) with A in either
    seat and averaged, and the GSPRT of docs/match.md looked at every 16 deals: with ``m`` the
    mean and ``v`` the variance (over n) of the n deals so far, LLR = n/2 ln((v + (m - h0)^2) /
    (v + (m - h1)^2)), H1 at or above ln((1 - beta) / alpha), H0 at or below ln(beta / (1 - alpha)).
    A run of equal deals (v = 0) decides nothing, and nothing is decided before 176 ln(1 / min(alpha,
    beta)) deals, rounded up to a look."""
    import math

    from bench.records.deals import deal_table
    from tests import naive

    bots = [make_bot(str(a)), make_bot(b)]
    try:
        results, llr = [], 0.0
        for deal in range(max_deals):
            hands = [tuple(Card(int(c)) for c in h) for h in deal_table(entropy, deal, 2)]
            rows = [[[[int(c) for c in row] for row in bot.arrange(h, np.random.default_rng(0)).rows] for h in hands]
                    for bot in bots]
            results.append((naive.score_pair(rows[0][0], rows[1][1]) + naive.score_pair(rows[0][1], rows[1][0])) / 2)
            if len(results) % 16 or len(results) < 176 * math.log(1 / min(alpha, beta)):
                continue
            n, m = len(results), float(np.mean(results))
            v = float(np.mean((np.array(results) - m) ** 2))
            llr = n / 2 * math.log((v + (m - h0) ** 2) / (v + (m - h1) ** 2)) if v > 0 else 0.0
            if llr >= math.log((1 - beta) / alpha):
                return "H1", llr, m
            if llr <= math.log(beta / (1 - alpha)):
                return "H0", llr, m
        return "none", llr, float(np.mean(results))
    finally:
        bots[0].close()


def _running_here(word: str) -> list[psutil.Process]:
    """Processes of this checkout's examples (run in its folder) whose command line holds ``word``."""
    found = []
    for process in psutil.process_iter(["cmdline", "cwd", "status"]):
        info = process.info
        if (info["status"] != psutil.STATUS_ZOMBIE and info["cwd"] == str(EXAMPLES)
                and any(word in part for part in info["cmdline"] or [])):
            found.append(process)
    return found


def test_a_command_path_and_batches():
    bot = make_bot(f"cmd:{EXAMPLES / 'sorted_bot.py'}")
    try:
        assert bot.batch  # the Python example offers batches
        hands = np.array([sorted(np.random.default_rng(i).permutation(52)[:13]) for i in range(50)], np.uint8)
        many = bot.arrange_many(hands, np.random.default_rng(0))
        one = [bot.arrange(tuple(Card(int(c)) for c in h), np.random.default_rng(0)).cards for h in hands]
        assert np.array_equal(many, np.array(one, np.uint8))
    finally:
        bot.close()
    assert bot._process is None


@pytest.mark.parametrize("mode, message", [
    ("crash", r"exited \(status 7\) instead of answering hand"),
    pytest.param("hang", "gave no answer to hand", marks=pytest.mark.slow),  # waits out a time limit
    ("garbage", "with a line that is not JSON: 'I think front is best'"),
    ("wrong-id", "with an id 1000 more than its request.s"),
    ("cheat", "set other cards than it was dealt"),
])
def test_misbehaving_bots_are_faults_quoting_what_they_said(tmp_path, mode, message):
    from bots.base import checked_arrangement

    bot = make_bot(str(_misbehaving(tmp_path, mode, decision_timeout=1)))
    try:
        rng = np.random.default_rng(0)
        hands = [parse_hand("KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C 3C")] * 2 + [parse_hand(HAND)]
        assert checked_arrangement(bot, hands[0], rng)
        with pytest.raises(BotFault, match=message):
            for _ in range(5):
                checked_arrangement(bot, hands[2], rng)
        if mode in ("hang", "garbage", "wrong-id"):  # the bot goes on after a bad answer
            assert checked_arrangement(bot, hands[1], rng)
    finally:
        bot.close()


def test_a_crash_is_survived_by_a_restart(tmp_path):
    """A crash is a fault on the hand it happened on; a new process answers the next one."""
    bot = make_bot(str(_misbehaving(tmp_path, "crash-once")))
    try:
        with pytest.raises(BotFault, match=r"exited \(status 7\)"):
            bot.arrange(parse_hand(HAND), np.random.default_rng(0))
        arrangement = bot.arrange(parse_hand(HAND), np.random.default_rng(0))
        assert sorted(arrangement.cards) == sorted(parse_hand(HAND)) and bot.restarts == 1
    finally:
        bot.close()


@pytest.mark.slow
def test_a_bot_that_never_says_hello_is_one_line(tmp_path):
    path = _misbehaving(tmp_path, "silent", startup_timeout=1)
    with pytest.raises(BotError, match="did not start: .*gave no answer to the hello within 1 s"):
        make_bot(str(path))
    done = _bench("arrange", "--bot", str(path), HAND)
    assert done.returncode == 2 and "did not start" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("content, message", [
    ('name = "x"\n', "command must be a list of strings"),
    ('command = ["x"]\nspeed = 3\n', "unknown key 'speed'"),
    ('command = ["x"]\ndecision_timeout = -1\n', "decision_timeout must be a number of seconds from 0.01 to 86400"),
    ('command = ["/no/such/program"]\n', "cannot start bot"),
])
def test_bad_bot_files_are_one_line(tmp_path, content, message):
    path = tmp_path / "bot.toml"
    path.write_text(content)
    with pytest.raises(BotError, match=message):
        make_bot(str(path))


@pytest.mark.slow
def test_tournament_fault_policy_covers_protocol_bots(tmp_path):
    path = _misbehaving(tmp_path, "garbage", decision_timeout=2)
    done = _bench("tournament", "--bots", f"greedy,{path}", "--sessions", "1", "--seed", "1", "--jobs", "2",
                  "--on-fault", "foul", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "run" / "results.json").read_text())
    assert doc["results"]["by_bot"]["misbehaving-garbage"]["fault_count"] > 0  # named by its bot file
    stopped = _bench("tournament", "--bots", f"greedy,{path}", "--sessions", "1", "--seed", "1", "--jobs", "2")
    assert stopped.returncode == 1 and "not JSON" in stopped.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_a_bot_given_up_stops_a_run_under_the_foul_policy(tmp_path):
    """A bot that crashes on every hand uses up its crash budget: the run stops on it with
    its line under ``--on-fault foul`` too, instead of scoring its later hands as fouls."""
    script = tmp_path / "crash.py"
    script.write_text("import json, sys\n"
                      "for line in sys.stdin:\n"
                      "    if json.loads(line)['type'] != 'hello':\n"
                      "        sys.exit(7)\n"
                      "    print(json.dumps({'type': 'hello', 'protocol': 2}), flush=True)\n")
    path = tmp_path / "crash.toml"
    path.write_text(f'name = "crash"\ncommand = [{json.dumps(sys.executable)}, "crash.py"]\n')
    done = _bench("tournament", "--bots", f"greedy,{path}", "--sessions", "1", "--seed", "1", "--jobs", "1",
                  "--backend", "sequential", "--on-fault", "foul")
    assert done.returncode == 1, done.stdout
    assert "given up after 5 crashes in a row" in done.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_exploit_stops_on_a_protocol_bot_that_crashes_with_one_line_and_leaves_nothing_running(tmp_path):
    """bench exploit asks a protocol bot for its simulated opponents in batches: a crash there
    ends the run with the fault's line (after the seed's), and its processes end with it."""
    path = _misbehaving(tmp_path, "crash")
    done = _bench("exploit", "--bot", str(path), "--hands", "3", "--seed", "1", "--samples", "50",
                  "--eval-samples", "50")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 2 and "Traceback" not in done.stderr
    assert "bot 'misbehaving-crash' exited (status 7) instead of answering hand" in lines[1]
    assert not [p for p in psutil.process_iter(["cmdline"]) if str(tmp_path) in " ".join(p.info["cmdline"] or [])]


@pytest.mark.slow
def test_a_protocol_bots_identity_is_in_the_results_and_the_report(tmp_path):
    """The hello's name and version and the bot file's digest, beside the results."""
    path = EXAMPLES / "sorted_bot.toml"
    done = _bench("tournament", "--bots", f"greedy,{path}", "--sessions", "1", "--seed", "1", "--jobs", "1",
                  "--backend", "sequential", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    bots = json.loads((tmp_path / "run" / "results.json").read_text())["bots"]
    assert bots[0]["identity"] is None
    program = bots[1]["identity"].pop("program")
    assert bots[1]["identity"] == {"name": "sorted", "version": "2.0", "protocol": 2, "file": str(path),
                                   "sha256": digest, "random": False}
    digest_of_program = hashlib.sha256(Path(program).read_bytes()).hexdigest()
    assert bots[1]["sha256_by_file"][str(Path(program).resolve())] == digest_of_program
    assert f"version 2.0, protocol 2, file {path}, sha256 {digest}" in (tmp_path / "run" / "report.md").read_text()


def test_many_exchanges_stay_in_step():
    """A bot that answers at once, 500 times in a row: every answer is the one to its own
    request (the protocol's speed is measured by the benchmark suite, not asserted here)."""
    bot = make_bot(f"cmd:{EXAMPLES / 'sorted_bot.py'}")
    try:
        rng = np.random.default_rng(0)
        hands = [tuple(Card(int(c)) for c in sorted(rng.permutation(52)[:13])) for _ in range(500)]
        answers = [bot.arrange(cards, rng) for cards in hands]
    finally:
        bot.close()
    assert all(sorted(a.cards) == sorted(cards) for a, cards in zip(answers, hands))


# --- the SPRT ---------------------------------------------------------------------------------


def _binomial_bound(n: int, p: Fraction, false_failure: float) -> int:
    """The smallest k with P(Binomial(n, p) > k) <= false_failure, summed exactly."""
    from math import comb

    q, total, tail = p.denominator - p.numerator, p.denominator**n, 0
    for k in range(n, -1, -1):
        if tail > Fraction(false_failure) * total:
            return k + 1
        tail += comb(n, k) * p.numerator**k * q ** (n - k)
    return 0


@pytest.mark.slow
@pytest.mark.parametrize("true_mean, accepted", [(0.0, "H1"), (0.1, "H0")])
def test_sprt_errs_at_most_at_its_stated_rates(true_mean, accepted):
    """2,000 simulated matches (deal results with sd 1, looked at every 16 deals, as bench
    match does), when the truth is one hypothesis.

    Exact part: the stopping bounds are ln(beta / (1 - alpha)) and ln((1 - beta) / alpha), and
    the LLR at every look is n/2 ln((v + (m - h0)^2) / (v + (m - h1)^2)) computed here from
    the running sums (m the mean, v the variance over n).

    Statistical part: Wald's inequality bounds the chance of accepting the wrong hypothesis
    by 1 / e^bound = alpha / (1 - beta) = 1/19 (here alpha = beta = 0.05); overshooting the bound
    at a look only lowers it. If the true rate were at that limit, more than ``limit`` wrong
    decisions among 2,000 would happen with probability at most 1e-6 (``limit`` is the
    binomial tail computed exactly). Fails if the bounds, the ratio or its variance are
    wrong, or the test errs more often than it promises."""
    test = Sprt(0.0, 0.1, alpha=0.05, beta=0.05)
    assert test.lower == pytest.approx(np.log(0.05 / 0.95), abs=1e-12)
    assert test.upper == pytest.approx(np.log(0.95 / 0.05), abs=1e-12)
    rng = np.random.default_rng(2026)
    streams = rng.normal(true_mean, 1.0, size=(2000, 8000))
    paths = test.llr_paths(streams)[:, 15::16]  # looks after 16, 32, ... deals
    blocks = streams.reshape(2000, 500, 16)
    n = 16.0 * np.arange(1, 501)
    mean = blocks.sum(axis=2).cumsum(axis=1) / n
    variance = (blocks**2).sum(axis=2).cumsum(axis=1) / n - mean**2
    reference = n / 2 * np.log((variance + (mean - 0.0) ** 2) / (variance + (mean - 0.1) ** 2))
    assert np.allclose(paths, reference, rtol=1e-9, atol=1e-9)
    up, down = paths >= test.upper, paths <= test.lower
    first_up = np.where(up.any(axis=1), up.argmax(axis=1), np.inf)
    first_down = np.where(down.any(axis=1), down.argmax(axis=1), np.inf)
    wrong = (first_up < first_down) if accepted == "H1" else (first_down < first_up)
    limit = _binomial_bound(2000, Fraction(5, 95), 1e-6)
    assert int(wrong.sum()) <= limit, (int(wrong.sum()), limit)
    assert np.isfinite(np.minimum(first_up, first_down)).all()  # 8,000 deals is ample: every match decides


def test_sprt_matches_the_llr_of_its_paths():
    test = Sprt(-0.02, 0.03)
    x = np.random.default_rng(1).normal(0.01, 0.7, size=(1, 300))
    assert test.llr(x[0]) == pytest.approx(test.llr_paths(x)[0, -1])


@pytest.mark.slow
def test_bench_match_decides_on_real_bots():
    """table is far stronger than random: by duplicate results, H1 for table, H0 for random, each
    at the minimum of deals the test takes first."""
    done = _bench("match", "table", "random", "--sprt", "0,0.5", "--seed", "5", "--json", "--estimator", "duplicate")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["decision"] == "H1" and result["mean"] > 1 and result["llr"] >= result["bounds"][1]
    done = _bench("match", "random", "table", "--sprt", "0,0.5", "--seed", "5", "--json", "--jobs", "1",
                  "--estimator", "duplicate")
    assert json.loads(done.stdout)["decision"] == "H0"
    undecided = _bench("match", "table", "heuristic", "--sprt", "0,0.01", "--max-deals", "32", "--seed", "5", "--json")
    assert json.loads(undecided.stdout)["decision"] == "none" and json.loads(undecided.stdout)["deal_count"] == 32
    bad = _bench("match", "table", "random", "--sprt", "0.5,0")
    assert bad.returncode == 2 and "H0 must be below H1" in bad.stderr
