import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

from bench.report.summary import summarise
from bench.run.runner import run_deals
from bots import BotError, make_bot
from bots.identity import bot_identity
from bots.table import FieldTables, shipped_tables
from bots.training import train, training_hands
from solver import Arrangement, Card, Rules, all_splits, config, files, is_foul
from solver.classes import row_classes
from tests.conftest import random_hands


def _table_score(points, values):
    classes = row_classes()
    return sum(p[np.searchsorted(classes, v)] for p, v in zip((points.front, points.middle, points.back), values))


def test_table_plays_its_own_best_split():
    """Without card removal the bot maximises its tables' points (with it: tests/test_removal.py),
    on random hands and on hands crowded with flushes and with trips and quads."""
    points = shipped_tables().points()
    bot = make_bot("table:removal=false")
    rng = np.random.default_rng(41)
    for hand in np.concatenate([random_hands(rng, 60), _crowded_hands(rng, 40)]):
        splits = all_splits(hand.tolist())
        legal = np.flatnonzero(splits.legal)
        best = _table_score(points, (splits.front[legal], splits.middle[legal], splits.back[legal])).max()
        arrangement = bot.arrange(tuple(Card(int(c)) for c in hand), np.random.default_rng(0))
        assert _table_score(points, arrangement.values()) == pytest.approx(best, abs=1e-12)


def test_shipped_tables_are_valid_shares():
    tables = shipped_tables()
    for shares in tables.shares():
        assert shares.shape == (7_917,) and np.isclose(shares.sum(), 1.0) and (shares >= 0).all()
    assert tables.info["rounds"] >= 1 and tables.info["rules"] == "basic"


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["basic", "2-4"])
def test_training_is_reproducible_and_independent_of_workers(rules, monkeypatch):
    """The same seed gives the same tables, card-removal sample included, bit for bit: run twice, on
    one worker and one core, or on two workers with each batch split in three over a pool of
    threads; another seed does not."""
    from solver import system

    monkeypatch.setattr(system, "available_cores", lambda: 1)
    kw = {"hands": 2_000, "rounds": 2, "check_hands": 500, "rules": rules, "removal_hands": 1_000}
    a, reports = train(seed=5, jobs=1, **kw)
    again, _ = train(seed=5, jobs=1, **kw)
    other, _ = train(seed=6, jobs=1, **kw)
    monkeypatch.setattr(system, "available_cores", lambda: 3)
    monkeypatch.setattr(config, "PARALLEL_BATCH", 16)  # each chunk of 125 hands is split in three
    b, _ = train(seed=5, jobs=2, **kw)
    for x, y, z, w in zip((*a.shares(), a.removal.shares, a.removal.factors),
                          (*again.shares(), again.removal.shares, again.removal.factors),
                          (*b.shares(), b.removal.shares, b.removal.factors),
                          (*other.shares(), other.removal.shares, other.removal.factors)):
        assert np.array_equal(x, y) and np.array_equal(x, z)
        assert not np.array_equal(x, w)
    assert a.info["sha256"] == again.info["sha256"] == b.info["sha256"] != other.info["sha256"]
    assert [r.round for r in reports] == [1, 2] and 0 <= reports[-1].changed <= 1


@pytest.mark.parametrize("rules", ["basic", "1-6"])
def test_training_resumed_from_any_round_equals_an_uninterrupted_one(rules, tmp_path):
    """A checkpoint saved after round 1 or 2 and read back continues to the same tables and reports."""
    from bots.training import TrainingState

    states: list[TrainingState] = []
    whole, reports = train(hands=1_500, rounds=3, seed=9, check_hands=300, rules=rules, checkpoint=states.append)
    assert [s.round for s in states] == [1, 2, 3]
    for state in states[:2]:
        state.save(tmp_path / "state.npz")
        resumed, resumed_reports = train(resume=TrainingState.load(tmp_path / "state.npz"))
        assert all(np.array_equal(x, y) for x, y in zip(whole.shares(), resumed.shares()))
        assert resumed.info == whole.info
        assert [(r.round, r.changed) for r in resumed_reports] == [(r.round, r.changed) for r in reports]


@pytest.mark.parametrize(("scoring", "coupling"), [("basic", False), ("1-6", False), ("2-4", False), ("1-6", True),
                                                   ("2-4", True)])
def test_shipped_tables_are_what_bench_train_makes_with_its_defaults(scoring, coupling, tmp_path):
    """What ``bench train --help`` promises: each shipped table records the command that made it,
    which is ``bench train --rules SCORING`` (with ``--coupling`` for the tables
    ``table:coupling=true`` plays) with every default spelled out, and the sha256 of its shares,
    which the shares still have."""
    import hashlib
    import inspect
    import shlex

    from bench.cli import build_parser
    from bench.cli.commands.train import resolve
    from bots.table import coupled_tables_path
    from solver.rules import Rules

    tables = FieldTables.load(coupled_tables_path(scoring)) if coupling else shipped_tables(Rules(scoring=scoring))
    digest = hashlib.sha256(b"".join(np.asarray(s, "<f8").tobytes() for s in tables.shares())).hexdigest()
    assert tables.info.get("sha256") == digest
    defaults = build_parser().parse_args(["train", "--rules", scoring, *(["--coupling"] if coupling else []),
                                          "--out", str(tmp_path / "t.npz")])
    recorded = build_parser().parse_args([*shlex.split(tables.info["command"])[1:], "--out", str(tmp_path / "t.npz")])
    for args in (defaults, recorded):
        resolve(args)
        assert (args.hands, args.rounds, args.seed, args.rules, args.start, bool(args.coupling)) == (
            tables.info["hands_per_round"], tables.info["rounds"], tables.info["seed"], tables.info["rules"],
            tables.info["start"], tables.info.get("coupling", False))
    assert tables.info["check_hands"] == inspect.signature(train).parameters["check_hands"].default
    if tables.info["start"] == "basic":  # trained from the basic tables that ship beside them
        assert tables.info["start_sha256"] == shipped_tables().info["sha256"]


def test_bonus_rule_training_starts_from_the_shipped_basic_tables_unless_told_otherwise():
    """Round 0 of 1-6 and 2-4 training is the shipped basic field itself (0 rounds give it back,
    share for share); --start heuristic starts from the heuristic bot's rows as basic does."""
    basic = shipped_tables()
    for scoring in ("1-6", "2-4"):
        start, _ = train(hands=300, rounds=0, seed=1, check_hands=50, rules=scoring)
        assert all(np.array_equal(x, y) for x, y in zip(start.shares(), basic.shares()))
        assert start.info["start"] == "basic" and "shipped basic tables" in start.info["method"]
    heuristic, _ = train(hands=300, rounds=0, seed=1, check_hands=50, rules="2-4", start="heuristic")
    plain, _ = train(hands=300, rounds=0, seed=1, check_hands=50, rules="basic")
    assert all(np.array_equal(x, y) for x, y in zip(heuristic.shares(), plain.shares()))
    assert plain.info["start"] == heuristic.info["start"] == "heuristic"
    with pytest.raises(ValueError, match="start must be one of heuristic, basic"):
        train(hands=300, rounds=0, rules="2-4", start="greedy")


def test_tables_round_trip_through_a_file(tmp_path):
    tables, _ = train(hands=500, rounds=1, seed=1, check_hands=100)
    path = tmp_path / "t.npz"
    tables.save(path)
    loaded = FieldTables.load(path)
    assert all(np.array_equal(x, y) for x, y in zip(tables.shares(), loaded.shares()))
    assert loaded.info["seed"] == 1
    assert make_bot(f"table:tables={path}:removal=false").tables == str(path)  # no card-removal sample


def test_bad_table_files(tmp_path):
    with pytest.raises(BotError, match="cannot read tables from"):
        make_bot(f"table:tables={tmp_path / 'missing.npz'}")
    bad = tmp_path / "bad.npz"
    np.savez(bad, front=np.ones(3), middle=np.ones(3), back=np.ones(3))
    with pytest.raises(BotError, match="the front shares must be 7917 numbers"):
        make_bot(f"table:tables={bad}")


def test_field_shares_match_a_direct_count():
    hands = training_hands(400, np.random.SeedSequence(3))
    arranged = make_bot("greedy").arrange_many(hands, np.random.default_rng(0))
    tables = FieldTables.from_arranged(arranged)
    win, tie = tables.win_tie()
    classes = row_classes()
    from solver import evaluate

    backs = np.array([evaluate(row[8:].tolist()) for row in arranged])
    probe = int(np.sort(backs)[len(backs) // 2])  # a value the field really plays
    k = np.searchsorted(classes, probe)
    assert win[2, k] == pytest.approx((backs < probe).mean()) and tie[2, k] == pytest.approx((backs == probe).mean())


def test_table_beats_greedy_clearly():
    records = run_deals(["table", "greedy"], 2, entropy=77, n_deals=400)
    result = summarise(records, ["table", "greedy"], 2)["crosstable"]["table"]["greedy"]
    # Measured about +0.8 units per hand with a standard error near 0.04.
    assert result["mean"] - 8 * result["se"] > 0.4


def _joint_reference(w, t, scoring):
    """Expected pair score of independent rows, by listing all 27 outcomes; ``w``/``t`` are
    three arrays (one per row) of chances of winning and tying, one entry per split."""
    import itertools

    total = 0.0
    for outcome in itertools.product((1, 0, -1), repeat=3):
        p = 1.0
        for i, r in enumerate(outcome):
            p = p * (w[i] if r == 1 else (t[i] if r == 0 else 1 - w[i] - t[i]))
        wins, losses = outcome.count(1), outcome.count(-1)
        score = sum(outcome)
        if scoring == "1-6" and wins == 3:
            score = 6
        elif scoring == "1-6" and losses == 3:
            score = -6
        elif scoring == "2-4":
            score += (wins > losses) - (losses > wins)
        total = total + p * score
    return total


def _best_joint_values(policy, scoring, hands):
    """The best value of any legal split and the value of the split the table search picks,
    for each hand, the first by brute force over every legal split."""
    from bots.table import play_tables
    from solver.rules import Rules

    classes = row_classes()
    set_rows = play_tables(hands, policy, Rules(scoring=scoring))
    out = []
    for hand, row in zip(hands, set_rows):
        splits = all_splits(hand.tolist())
        legal = np.flatnonzero(splits.legal)
        k = [np.searchsorted(classes, rows[legal]) for rows in (splits.front, splits.middle, splits.back)]
        values = _joint_reference([policy.win[i, k[i]] for i in range(3)], [policy.tie[i, k[i]] for i in range(3)],
                                  scoring) + sum(policy.extra[i, k[i]] for i in range(3))
        arrangement = Arrangement(row[:3].tolist(), row[3:8].tolist(), row[8:].tolist())
        mine = [np.searchsorted(classes, v) for v in arrangement.values()]
        chosen = _joint_reference([policy.win[i, mine[i]] for i in range(3)], [policy.tie[i, mine[i]] for i in range(3)],
                                  scoring) + sum(policy.extra[i, mine[i]] for i in range(3))
        assert not is_foul(arrangement)
        out.append((values.max(), chosen))
    return out


@pytest.mark.parametrize("rules", ["1-6", "2-4", "2-4+royalties-win"])
def test_table_variants_maximise_their_own_objective(rules):
    """The split the bonus-rule search picks is worth what the best legal split is worth."""
    from bots.table import shipped_tables
    from solver.rules import Rules

    parsed = Rules.parse(rules)
    policy = shipped_tables(parsed).policy(parsed)
    assert make_bot(f"table:rules={rules}").rules == rules
    for best, chosen in _best_joint_values(policy, parsed.scoring, random_hands(np.random.default_rng(42), 12)):
        assert chosen == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("scoring", ["1-6", "2-4"])
def test_bonus_search_is_exact_for_any_field(scoring):
    """Field shares and extra points drawn at random, so that no bound holds by luck of the
    shipped tables: the search still finds a best split."""
    from bots.table import FieldTables, JointPolicy

    rng = np.random.default_rng(7 if scoring == "1-6" else 8)
    size = row_classes().size
    shares = [rng.dirichlet(np.full(size, 0.05)) for _ in range(3)]
    win, tie = FieldTables(*shares).win_tie()
    extra = rng.exponential(0.3, size=(3, size)) * (rng.random((3, size)) < 0.1)
    policy = JointPolicy.build(win, tie, extra)
    for best, chosen in _best_joint_values(policy, scoring, random_hands(rng, 40)):
        assert chosen == pytest.approx(best, abs=1e-9)


def _crowded_hands(rng, count):
    """Hands dealt from two suits (flushes, straight flushes) and from the seven top ranks (trips,
    quads, full houses), alternately."""
    two_suits = np.arange(52).reshape(13, 4)[:, :2].ravel()
    top_ranks = np.arange(28, 52)
    return np.array([rng.permutation(two_suits if i % 2 else top_ranks)[:13] for i in range(count)], np.uint8)


def test_subsets_are_classed_by_their_ranks_as_by_their_values():
    """``bots._kernels.subset_classes`` classes each 3- and 5-card subset from its ranks and suits
    (``solver.classes.rank_classes``): the class of its value, for random and crowded hands
    and for the hands of one suit; and each five's points are those of its class."""
    from bots._kernels import subset_classes
    from solver.classes import rank_classes
    from solver.splits import subset_values

    classes = row_classes()
    rng = np.random.default_rng(14)
    one_suit = np.arange(52, dtype=np.uint8).reshape(13, 4).T
    points = rng.random((classes.size, 2))
    for hand in np.concatenate([random_hands(rng, 20), _crowded_hands(rng, 20), one_suit]):
        v3, v5 = subset_values(hand.tolist())
        c3, c5, got = np.empty(286, np.int16), np.empty(1287, np.int16), np.empty(1287)
        most = subset_classes.py_func(hand, rank_classes().arrays, c3, c5, points, 1, got)
        assert (c3 == np.searchsorted(classes, v3)).all() and (c5 == np.searchsorted(classes, v5)).all()
        assert (got == points[c5, 1]).all() and most == got.max()


@pytest.mark.slow
def test_the_best_five_and_three_a_back_leaves():
    """``bots._bounds``: the best five and the best three of the eight cards outside a back, by
    bit operations, are the best of the 56 fives and 56 threes those cards make, valued by
    the evaluator, for random hands and for hands crowded with flushes and pairs."""
    from bots._bounds import best_of_positions
    from solver.splits import split_tables, subset_values

    t = split_tables()
    rng = np.random.default_rng(12)
    hands = np.concatenate([random_hands(rng, 300), _crowded_hands(rng, 300)])
    for hand in hands:
        v3, v5 = subset_values(hand.tolist())
        backs = rng.integers(0, len(t.masks5), 40)
        found = best_of_positions(hand, (0x1FFF ^ t.masks5[backs]).astype(np.int64))
        assert (found[:, 0] == v5[t.back_middle[backs]].max(axis=1)).all()
        assert (found[:, 1] == v3[t.back_front[backs]].max(axis=1)).all()


@pytest.mark.parametrize("rules", ["1-6", "2-4"])
def test_bonus_search_is_exact_on_crowded_hands(rules):
    """Hands crowded with flushes and with trips and quads, where the bound from the cards a back
    leaves has the most to do: the search still finds a best split."""
    from solver.rules import Rules

    parsed = Rules.parse(rules)
    policy = shipped_tables(parsed).policy(parsed)
    for best, chosen in _best_joint_values(policy, parsed.scoring, _crowded_hands(np.random.default_rng(13), 16)):
        assert chosen == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("scoring", ["1-6", "2-4"])
def test_the_bonus_ceilings_bound_the_bonus(scoring):
    """What the search prunes with: for rows that win and tie at most as often as some bounds
    allow, the bonus (the expected score less each row's P(win) - P(loss), by the 27
    outcomes) is at most each ceiling and cap of those bounds, and the tight one is reached when
    the rows win and tie exactly that often and lose the rest."""
    from bots._kernels import _bonus_cap, _bonus_ceiling, _middle_bounds

    def quick_ceiling(w0, t0, w1, t1, w2, t2, code):  # a middle's bound with no separable part, finished by a back
        out = np.zeros((1, 3))
        _middle_bounds.py_func(out, 0, 0.0, 0.0, w0, t0, w1, t1, code)
        return out[0, 0] + w2 * out[0, 1] + t2 * out[0, 2]

    code = 1 if scoring == "1-6" else 2
    rng = np.random.default_rng(3)
    for _ in range(3000):
        w = rng.random(3) * rng.choice([0.2, 1.0], 3)
        t = (1 - w) * rng.random(3) * rng.choice([0.05, 1.0], 3)
        bonus = _joint_reference(w, t, scoring) - sum(2 * w + t - 1)
        caps_w = np.minimum(1, w + rng.random(3) * 0.2 * rng.integers(0, 2, 3))
        caps_t = t + rng.random(3) * 0.2 * rng.integers(0, 2, 3)
        args = (caps_w[0], caps_t[0], caps_w[1], caps_t[1], caps_w[2], caps_t[2], code)
        tight, quick = _bonus_ceiling.py_func(*args), quick_ceiling(*args)
        assert bonus <= tight + 1e-12 and tight <= quick + 1e-12
        assert tight <= _bonus_cap.py_func(caps_w[0], caps_w[1], caps_w[2], code) + 1e-12
        exact = _bonus_ceiling.py_func(w[0], t[0], w[1], t[1], w[2], t[2], code)
        assert exact == pytest.approx(bonus, abs=1e-12)


def test_a_checkpoint_written_before_there_was_a_choice_of_start_resumes_from_heuristic(tmp_path):
    """Checkpoints without a start in their settings all began from the heuristic bot: they are
    read as such, and continue to the tables an uninterrupted heuristic-start run makes."""
    from bots.training import TrainingState

    states: list[TrainingState] = []
    whole, _ = train(hands=1_000, rounds=2, seed=4, check_hands=200, rules="2-4", start="heuristic",
                     checkpoint=states.append)
    first = states[0]
    older = TrainingState({k: v for k, v in first.settings.items() if k != "start"}, first.round, first.field,
                          first.previous, first.previous_middle, first.reports)
    older.save(tmp_path / "old.npz")
    with np.load(tmp_path / "old.npz") as data:
        assert "start" not in json.loads(str(data["meta"]))["settings"]
    loaded = TrainingState.load(tmp_path / "old.npz")
    assert loaded.settings["start"] == "heuristic"
    resumed, _ = train(resume=loaded)
    assert all(np.array_equal(x, y) for x, y in zip(whole.shares(), resumed.shares()))


@pytest.mark.slow
def test_a_process_plays_one_version_of_a_tables_file(tmp_path):
    """Once a process has read a tables file, a bot made of it after the file was replaced is
    refused; a bot made before plays and records the tables it read; carried to another process
    (pickled, as a worker gets it) it refuses the new file, which a new process plays."""
    basic, bonus = shipped_tables(), shipped_tables(Rules(scoring="2-4"))
    path, other = tmp_path / "field.npz", tmp_path / "other.npz"
    basic.save(path)
    bonus.save(other)
    written = files.digest(path)
    hands = random_hands(np.random.default_rng(43), 300)
    np.save(tmp_path / "hands.npy", hands)
    spec = "table:coupling=true:rules=2-4:tables="
    before = make_bot(spec + str(path))
    first = before.arrange_many(hands, None)
    recorded = bot_identity(spec + str(path), before)["sha256_by_file"][str(path.resolve())]
    (tmp_path / "bot.pickle").write_bytes(pickle.dumps(before))
    bonus.save(path)
    expected = make_bot(spec + str(other)).arrange_many(hands, None)
    assert not np.array_equal(first, expected)
    with pytest.raises(BotError, match="was replaced after this process, or the run it plays in, first read it"):
        make_bot(spec + str(path))
    path.rename(tmp_path / "moved.npz")
    with pytest.raises(BotError, match="cannot read tables from .*field.npz"):
        make_bot(spec + str(path))
    (tmp_path / "moved.npz").rename(path)
    assert np.array_equal(before.arrange_many(hands, None), first)
    assert recorded == written and files.digest(path) != written
    assert bot_identity(spec + str(path), before)["sha256_by_file"][str(path.resolve())] == written

    def run(code: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "import pickle, sys, numpy as np; from bots import make_bot; "
                               "hands = np.load(sys.argv[2]); " + code, str(tmp_path / "bot.pickle"),
                               str(tmp_path / "hands.npy"), spec + str(path)],
                              capture_output=True, text=True, timeout=600)

    carried = run("pickle.load(open(sys.argv[1], 'rb')).arrange_many(hands, None)")
    assert carried.returncode != 0 and "was replaced after this bot was made from it" in carried.stderr
    fresh = run("np.save(sys.argv[1] + '.npy', make_bot(sys.argv[3]).arrange_many(hands, None))")
    assert fresh.returncode == 0, fresh.stderr
    assert np.array_equal(np.load(str(tmp_path / "bot.pickle") + ".npy"), expected)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_workers_refuse_a_tables_file_replaced_after_the_run_started(tmp_path, backend):
    """The process that starts a run has read its tables file; a worker that finds the file
    replaced (another process, or another thread) refuses it rather than play the new one."""
    path = tmp_path / "run.npz"
    shipped_tables().save(path)
    spec = f"table:tables={path}"
    make_bot(spec)
    shipped_tables(Rules(scoring="2-4")).save(path)
    with pytest.raises(BotError, match="was replaced"):
        run_deals([spec, "greedy"], 2, 7, 8, jobs=2, backend=backend, chunk_size=4)


@pytest.mark.slow
def test_a_link_to_tables_is_one_file_whatever_it_points_to(tmp_path):
    """A link retargeted after a process read it counts as a replaced file; a bot's record names
    the file it read through the link, once, with the sha256 of what it read."""
    first, second, link = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "link.npz"
    shipped_tables().save(first)
    shipped_tables(Rules(scoring="2-4")).save(second)
    link.symlink_to(first)
    spec = f"table:tables={link}"
    bot = make_bot(spec)
    link.unlink()
    link.symlink_to(second)
    with pytest.raises(BotError, match="was replaced after this process, or the run it plays in, first read it"):
        make_bot(spec)
    recorded = {path: digest for path, digest in bot_identity(spec, bot)["sha256_by_file"].items()
                if path.endswith(".npz")}
    assert recorded == {str(first.resolve()): files.digest(first)}
