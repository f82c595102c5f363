import itertools
import json

import numpy as np
import pytest

from bots import (
    BOTS,
    BotError,
    BotFault,
    arrange_many,
    arrangement_from_row,
    bot_names,
    checked_arrangement,
    make_bot,
    parse_spec,
)
from bots import solve_hand as solve
from bots.heuristic import heuristic_points
from bots.points import RowPoints, best_splits_by_points
from solver import Card, all_splits, evaluate_many, is_foul
from solver.classes import row_classes
from solver.evaluator import row_values
from tests import naive
from tests.conftest import load_vectors, random_hands

FAST = {"exhaustive": "exhaustive:samples=40"}  # the solver as a bot, kept small for the test run


def _bot(name: str):
    return make_bot(FAST.get(name, name))


def _cards(row) -> tuple[Card, ...]:
    return tuple(Card(int(c)) for c in row)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "exhaustive" else n for n in sorted(BOTS)])
def test_bot_sets_exactly_its_cards_legally(name):
    """The bot's own answer (not passed through ``checked_arrangement``, which would refuse
    other cards itself): rows of 3, 5 and 5 holding exactly the dealt cards, in order by the
    slow reference (tests/naive.py). Fails if a bot drops, repeats or invents a card, or fouls."""
    bot = _bot(name)
    hands = random_hands(np.random.default_rng(11), 1_000)
    for i, hand in enumerate(hands):
        cards = _cards(hand)
        arrangement = bot.arrange(cards, np.random.default_rng(i))
        rows = [[int(c) for c in row] for row in arrangement.rows]
        assert [len(r) for r in rows] == [3, 5, 5], (name, arrangement)
        assert sorted(rows[0] + rows[1] + rows[2]) == sorted(int(c) for c in hand), (name, arrangement)
        assert not naive.fouled(*rows), (name, arrangement)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_same_seed_same_arrangement(name):
    bot = _bot(name)
    for hand in random_hands(np.random.default_rng(12), 20):
        cards = _cards(hand)
        first = bot.arrange(cards, np.random.default_rng(7))
        assert bot.arrange(cards, np.random.default_rng(7)) == first


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_batch_matches_one_at_a_time(name):
    bot = make_bot(name)
    hands = random_hands(np.random.default_rng(13), 300)
    batch = arrange_many(bot, hands, np.random.default_rng(0))
    for hand, row in zip(hands, batch):
        assert arrangement_from_row(row) == bot.arrange(_cards(hand), np.random.default_rng(0))


def test_random_bot_varies_with_the_rng():
    bot = make_bot("random")
    cards = _cards(random_hands(np.random.default_rng(14), 1)[0])
    assert len({bot.arrange(cards, np.random.default_rng(seed)) for seed in range(20)}) > 10


@pytest.mark.slow
def test_adding_cards_never_lowers_a_row():
    """The lemma behind greedy never fouling: every five beats each three inside it."""
    fives = np.array(list(itertools.combinations(range(52), 5)), np.uint8)
    five_values = evaluate_many(fives)
    for columns in itertools.combinations(range(5), 3):
        assert (evaluate_many(fives[:, columns]) <= five_values).all()


def test_greedy_matches_the_rule_vectors():
    greedy = make_bot("greedy")
    for v in load_vectors("splits.json"):
        cards = all_splits(v["hand"]).hand
        arrangement = greedy.arrange(cards, np.random.default_rng(0))
        expected = v["greedy"]
        assert [sorted(map(str, row)) for row in arrangement.rows] == \
            [sorted(expected[row].split()) for row in ("front", "middle", "back")], v["hand"]


def test_heuristic_plays_its_own_best_split():
    points = heuristic_points()
    classes = row_classes()
    bot = make_bot("heuristic")
    for hand in random_hands(np.random.default_rng(15), 60):
        splits = all_splits(hand.tolist())
        legal = np.flatnonzero(splits.legal)
        score = (
            points.front[np.searchsorted(classes, splits.front[legal])]
            + points.middle[np.searchsorted(classes, splits.middle[legal])]
            + points.back[np.searchsorted(classes, splits.back[legal])]
        )
        arr = bot.arrange(_cards(hand), np.random.default_rng(0))
        f, m, b = arr.values()
        chosen = (points.front[np.searchsorted(classes, f)] + points.middle[np.searchsorted(classes, m)]
                  + points.back[np.searchsorted(classes, b)])
        assert chosen == pytest.approx(score.max(), abs=1e-12)


def test_exhaustive_is_best_on_its_own_objective():
    """On the solver's opponent sample no other bot's arrangement scores more."""
    for seed, hand in enumerate(random_hands(np.random.default_rng(16), 8)):
        cards = _cards(hand)
        solution = solve(cards, samples=300, seed=seed, keep_sample=True, top=0)
        opp = row_values(solution.sample)
        foul = ~((opp[0] <= opp[1]) & (opp[1] <= opp[2]))

        def ev(arrangement, opp=opp, foul=foul):
            rows = [np.sign(np.int64(v) - o.astype(np.int64)) for v, o in zip(arrangement.values(), opp)]
            total = np.sum(rows, axis=0)
            return float(np.where(foul, 3, total).mean())

        best = ev(solution.arrangement)
        assert best == pytest.approx(solution.ev)
        for name in ("random", "greedy", "heuristic"):
            assert ev(make_bot(name).arrange(cards, np.random.default_rng(0))) <= best + 1e-12


def test_plugin_by_import_path():
    bot = make_bot("tests.plugin_bot:FirstLegalBot:offset=3")
    assert bot.name == "first-legal" and bot.offset == 3
    cards = _cards(random_hands(np.random.default_rng(17), 1)[0])
    assert not is_foul(checked_arrangement(bot, cards, np.random.default_rng(0)))


def test_plugin_by_entry_point(tmp_path, monkeypatch):
    dist = tmp_path / "cp_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: cp-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[chinese_poker.bots]\nfirst = tests.plugin_bot:FirstLegalBot\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "first" in bot_names()
    assert make_bot("first:offset=1").offset == 1


def test_a_bot_that_breaks_the_contract_is_caught():
    bot = make_bot("tests.plugin_bot:CheatingBot")
    cards = _cards(random_hands(np.random.default_rng(18), 1)[0])
    with pytest.raises(BotFault, match="set other cards than it was dealt"):
        checked_arrangement(bot, cards, np.random.default_rng(0))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("gredy", "unknown bot 'gredy'; did you mean 'greedy'? Bots: exhaustive, greedy, heuristic, random, table; or a "
                  "bot file (NAME.toml) or program (cmd:PATH) that speaks the protocol (docs/protocol.md), or a plug-in "
                  "(package.module:Class)"),
        ("zzz", "unknown bot 'zzz'; choose from: exhaustive, greedy, heuristic, random, table; or a bot file"),
        ("greedy:depth=2", "bot 'greedy' has no parameter 'depth'; its parameters: none"),
        ("exhaustive:sample=5", "bot 'exhaustive' has no parameter 'sample'; its parameters: opponent, rules, samples"),
        ("exhaustive:samples=0", "bad parameters for bot 'exhaustive': samples must be a positive whole number"),
        ("exhaustive:samples", "bad parameter 'samples' in bot 'exhaustive:samples'"),
        ("nosuchmodule.x:Bot", "cannot import bot module 'nosuchmodule.x'"),
        ("tests.plugin_bot:Nope", "module 'tests.plugin_bot' has no 'Nope'"),
        ("", "empty bot name"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(BotError) as info:
        make_bot(spec)
    assert message in str(info.value)


def test_a_bot_file_named_with_a_typo_is_suggested_beside_it(tmp_path):
    """``heur_bot.tom`` for ``heur_bot.toml``: the hint names the bot file in that folder, not only
    the registered names."""
    (tmp_path / "heur_bot.toml").write_text('name = "heur"\ncommand = ["true"]\n')
    with pytest.raises(BotError) as info:
        make_bot(str(tmp_path / "heur_bot.tom"))
    assert str(info.value).startswith(f"unknown bot '{tmp_path}/heur_bot.tom'; did you mean '{tmp_path}/heur_bot.toml'?")
    with pytest.raises(BotError, match="^unknown bot 'heuristc'; did you mean 'heuristic'\\? Bots: "):
        make_bot("heuristc")


def test_spec_values_are_typed():
    """Each value gets the first type that reads it: bool (any case), then int, then float,
    else text. Compared with their types, since ``1 == 1.0 == True`` in Python: fails if a
    whole number comes back a float or a bool, or a number as text."""
    name, params = parse_spec(" x.y:Z:a=1:b=0.5:c=true:d=text:e=FALSE:f=-3:g=1e3:h=07:i= 2 ")
    assert name == "x.y:Z"
    assert [(k, type(v), v) for k, v in params.items()] == [
        ("a", int, 1), ("b", float, 0.5), ("c", bool, True), ("d", str, "text"), ("e", bool, False),
        ("f", int, -3), ("g", float, 1000.0), ("h", int, 7), ("i", int, 2),
    ]
    assert json.dumps(parse_spec("exhaustive:samples=10")) == '["exhaustive", {"samples": 10}]'
    assert parse_spec("greedy") == ("greedy", {})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_branch_and_bound_is_exact_for_any_row_points(seed):
    """Points drawn at random, with no order among the classes, so no bound is loose by luck:
    the split found scores exactly what the best legal split scores by brute force."""
    rng = np.random.default_rng(seed)
    classes = row_classes()
    points = RowPoints.build(*(rng.normal(size=classes.size) for _ in range(3)))
    hands = random_hands(rng, 25)
    found = best_splits_by_points(hands, points)
    for hand, split in zip(hands, found):
        splits = all_splits(hand.tolist())
        score = (points.front[np.searchsorted(classes, splits.front)]
                 + points.middle[np.searchsorted(classes, splits.middle)]
                 + points.back[np.searchsorted(classes, splits.back)])
        assert splits.legal[split]
        assert score[split] == pytest.approx(score[splits.legal].max(), abs=1e-12)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_bot_takes_cards_as_text(name):
    text = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
    cards = tuple(Card(t) for t in text.split())
    by_text = _bot(name).arrange(text)
    assert sorted(by_text.cards) == sorted(cards)
    assert by_text == _bot(name).arrange(cards, np.random.default_rng(0))  # no rng: a generator seeded 0
    assert _bot(name).arrange("as, ks qs js 10s 9h 9d 8c 7c 6d 5h 4s 2c") == by_text


@pytest.mark.parametrize("text, error", [("AS KS QS", "CardCountError"), ("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S XX",
                                                                           "UnknownCardError")])
def test_bot_names_bad_card_text(text, error):
    from solver import CardError

    with pytest.raises(CardError) as raised:
        make_bot("greedy").arrange(text)
    assert type(raised.value).__name__ == error


def test_checked_arrangement_takes_cards_as_text():
    text = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"
    arrangement = checked_arrangement(make_bot("greedy"), text, np.random.default_rng(0))
    assert sorted(arrangement.cards) == sorted(Card(t) for t in text.split())


def test_an_exhaustive_bot_made_without_its_opponent_models_raises_bot_error():
    """Made by hand instead of by make_bot: the project's BotError, saying how to make it."""
    from bots.exhaustive import ExhaustiveBot

    with pytest.raises(BotError, match=r"needs opponent_models .*make_bot\('exhaustive'\)"):
        ExhaustiveBot()


def test_the_exhaustive_bots_declare_takes_the_cards_as_text_like_its_arrange():
    """``declare`` reads the cards as ``arrange`` does: as text, with no rng (then seeded 0),
    the same answer as from parsed cards; bad cards raise the card error."""
    from solver import CardError, parse_hand

    six_pairs = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"
    bot = make_bot("exhaustive:samples=40:rules=naturals")
    assert bot.declare(six_pairs) is bot.declare(parse_hand(six_pairs), np.random.default_rng(0))
    assert isinstance(bot.declare(six_pairs), bool)
    with pytest.raises(CardError, match="expected 13 cards"):
        bot.declare("AS KS QS")


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_a_bot_registered_in_this_process_plays_in_every_worker(monkeypatch, backend):
    """``BOTS[name] = MyBot``, as the notebook teaches, with a class made here (not importable by
    path): a run of two workers plays it as one worker does (its workers had only the
    package's bots, and the run ended in "unknown bot")."""
    from bench.run.runner import run_deals
    from bots import BOTS
    from bots.greedy import GreedyBot

    class MiddleFirstBot(GreedyBot):
        name = "middle-first"

    monkeypatch.setitem(BOTS, "middle-first", MiddleFirstBot)
    one = run_deals(["middle-first", "random"], 2, entropy=5, n_deals=24, jobs=1, chunk_size=4)
    two = run_deals(["middle-first", "random"], 2, entropy=5, n_deals=24, jobs=2, backend=backend, chunk_size=4)
    assert [r.without_seconds() for r in one] == [r.without_seconds() for r in two] and len(two) == 24


@pytest.mark.parametrize(("spec", "outside"), [
    ("table", None),
    ("exhaustive:samples=500:opponent=heuristic:rules=2-4", None),
    ("tests.plugin_bot:FirstLegalBot", "tests.plugin_bot:FirstLegalBot"),
    ("cmd:./bot", "cmd:./bot"),
    ("examples/bots/sorted_bot.toml:decision_timeout=5", "examples/bots/sorted_bot.toml"),
    ("some-plugin", "some-plugin"),
    ("exhaustive:opponent=elsewhere.toml", "elsewhere.toml"),
])
def test_outside_code_names_what_making_a_spec_would_run_beyond_the_registered_bots(spec, outside):
    """The gate before a bot named by a file from elsewhere is made: nothing is imported or
    started to answer, and a built-in bot's opponent is looked at too."""
    from bots.registry import outside_code

    assert outside_code(spec) == outside


def test_outside_code_refuses_a_spec_it_cannot_read():
    from bots.registry import outside_code

    for spec in ("", "table:depth", "exhaustive:opponent=table:x"):
        with pytest.raises(BotError):
            outside_code(spec)
