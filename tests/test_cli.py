import json
import subprocess
import sys

import pytest

from bench.cli import main as bench_main
from bench.cli.solve import main as solve_main

HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"


def test_solve_prints_rows_and_alternatives(capsys):
    assert solve_main([HAND, "--samples", "300", "--seed", "1", "--ascii"]) == 0
    out = capsys.readouterr().out
    assert "best    9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS" in out
    for word in ("front", "middle", "back", "royal flush", "next best", "EV", "'table'", "seed 1"):
        assert word in out


def test_solve_accepts_separate_tokens(capsys):
    assert solve_main([*HAND.split(), "--samples", "50", "--seed", "1", "--top", "0", "--ascii"]) == 0
    assert "next best" not in capsys.readouterr().out


def test_solve_json(capsys):
    assert solve_main([HAND, "--samples", "200", "--seed", "4", "--json", "--players", "3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"] == 3 and doc["player_count"] == 3 and doc["seed"] == 4
    assert doc["arrangement"]["back"] == "AS KS QS JS TS"


def _status(main, args) -> int:
    """The exit status, whether the parser exits or the command returns."""
    try:
        return main(args)
    except SystemExit as exit_info:
        return exit_info.code


@pytest.mark.parametrize(
    "args, message",
    [
        (["AS KS"], "solve: error: expected 13 cards for the hand, got 2: 'AS KS'"),
        ([HAND.replace("2C", "AS")], "solve: error: duplicate card 'AS' in hand"),
        ([HAND.replace("2C", "ZC")], "solve: error: unknown rank 'Z' in card 'ZC'"),
        ([HAND, "--opponent", "gredy"], "solve: error: unknown bot 'gredy'; did you mean 'greedy'? Bots: exhaustive, greedy"),
        ([HAND, "--samples", "0"], "solve: error: argument --samples: expected a whole number >= 1, got 0"),
        ([HAND, "--samples", "many"], "solve: error: argument --samples: expected a whole number >= 1, got 'many'"),
        ([HAND, "--players", "1"], "solve: error: --players must be 2, 3 or 4, got 1"),
        ([HAND, "--players", "5"], "solve: error: --players must be 2, 3 or 4, got 5"),
    ],
)
def test_solve_bad_input_is_one_line_and_status_2(capsys, args, message):
    assert _status(solve_main, args) == 2
    lines = [x for x in capsys.readouterr().err.splitlines() if not x.startswith("solve: compiling the kernels it needs, once")]
    assert len(lines) == 1 and lines[0].startswith(message)


@pytest.mark.slow
def test_solve_console_script_runs():
    result = subprocess.run(
        [sys.executable, "-m", "bench.cli.solve", HAND, "--samples", "100", "--seed", "1", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(result.stdout)["sample_count"] == 100


def test_bench_bots_lists_every_bot(capsys):
    assert bench_main(["bots"]) == 0
    out = capsys.readouterr().out
    for name in ("exhaustive", "greedy", "heuristic", "random", "samples=1000"):
        assert name in out
    assert bench_main(["bots", "--json"]) == 0
    assert {b["name"] for b in json.loads(capsys.readouterr().out)["bots"]} >= {"greedy", "exhaustive"}


def test_bench_arrange_one_hand(capsys):
    assert bench_main(["arrange", "--bot", "greedy", "--json", HAND]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["hand"] == HAND
    assert record["arrangement"] == {"front": "9D 4S 2C", "middle": "9H 8C 7C 6D 5H", "back": "AS KS QS JS TS"}


def test_bench_arrange_file_with_a_bad_line(tmp_path, capsys):
    path = tmp_path / "hands.txt"
    path.write_text(f"{HAND}\n# a comment\n\nAS KS QS\n2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC AS\n")
    assert bench_main(["arrange", "--bot", "heuristic", "--input", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert [json.loads(line)["hand"] for line in captured.out.splitlines()] == [
        HAND, "2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC AS"
    ]
    assert captured.err == "bench arrange: line 4: expected 13 cards for the hand, got 3: 'AS KS QS'\n"


def test_bench_arrange_same_seed_same_output(capsys):
    runs = []
    for _ in range(2):
        bench_main(["arrange", "--bot", "random", "--seed", "9", "--json", HAND])
        runs.append(json.loads(capsys.readouterr().out)["arrangement"]["middle"])
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    "args, message",
    [
        (["arrange", "--bot", "gredy", HAND], "bench arrange: error: unknown bot 'gredy'; did you mean 'greedy'?"),
        (["arrange", "--bot", "greedy"], "bench arrange: error: give a hand (13 cards) or --input FILE"),
        (["arrange", "--bot", "greedy", "--input", "/no/such/file"], "bench arrange: error: cannot read /no/such"),
    ],
)
def test_bench_bad_input(capsys, args, message):
    assert bench_main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_bench_unknown_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_main(["tournamint"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'tournamint'" in capsys.readouterr().err


def test_solve_under_other_rules(capsys):
    assert solve_main([HAND, "--samples", "200", "--seed", "1", "--rules", "2-4+royalties", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rules"]["name"] == "2-4+royalties" and doc["rules"]["scoring"] == "2-4"
    assert solve_main([HAND, "--samples", "100", "--seed", "1", "--rules", "1-6", "--ascii"]) == 0
    assert "rules 1-6" in capsys.readouterr().out
    six_pairs = "AS AD KH KC QS QD JH JC TS TD 9H 9C 2S"
    assert solve_main([six_pairs, "--samples", "100", "--seed", "1", "--rules", "naturals", "--ascii"]) == 0
    assert "natural: six pairs" in capsys.readouterr().out


def test_solve_unknown_rules(capsys):
    assert _status(solve_main, [HAND, "--rules", "3-9"]) == 2
    assert capsys.readouterr().err.startswith("solve: error: unknown rules '3-9'")


def test_bench_arrange_declares_naturals(capsys):
    six_pairs = "AS AD KH KC QS QD JH JC TS TD 9H 9C 2S"
    assert bench_main(["arrange", "--bot", "table", "--rules", "naturals", "--json", six_pairs]) == 0
    assert json.loads(capsys.readouterr().out)["natural"] == "six pairs"
    assert bench_main(["arrange", "--bot", "greedy", "--rules", "nope", six_pairs]) == 2
    assert "unknown rules 'nope'" in capsys.readouterr().err


@pytest.mark.slow
def test_bench_train_writes_tables_a_bot_can_use(tmp_path, capsys):
    """The file holds, per row, the share of each row class in the field: with 400 hands a
    round and one round, the field is the mean of two rounds' counts over 400, so every share
    is a whole number of 800ths, and they sum to 1. A table bot made with the file plays, on
    each hand, a legal split that scores the most by those shares: P(win) - P(lose) per row
    against the field, summed, found here by brute force over every split. Fails if the bot
    ignores the file (the shipped tables choose other plays on these hands) or misreads it."""
    import numpy as np

    from bots import make_bot
    from solver import all_splits, evaluate
    from solver.classes import row_classes
    from tests.conftest import random_hands

    out = tmp_path / "t.npz"
    assert bench_main(["train", "--hands", "400", "--rounds", "1", "--seed", "2", "--jobs", "1", "--removal-hands", "500",
                       "--out", str(out)]) == 0
    assert "round   1:" in capsys.readouterr().err
    with np.load(out) as data:
        shares = [np.asarray(data[row], np.float64) for row in ("front", "middle", "back")]
        info = json.loads(str(data["info"]))
    assert (info["hands_per_round"], info["rounds"], info["seed"]) == (400, 1, 2)
    for share in shares:
        assert share.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.allclose(share * 800, np.round(share * 800), atol=1e-9, rtol=0)
    classes = row_classes()
    points = [np.cumsum(s) - s - (1 - np.cumsum(s)) for s in shares]  # P(win) - P(lose) of each class
    bot, shipped = make_bot(f"table:tables={out}:removal=false"), make_bot("table:removal=false")  # its points
    differ = 0
    for hand in random_hands(np.random.default_rng(3), 30):
        splits = all_splits(hand.tolist())
        score = sum(p[np.searchsorted(classes, v)] for p, v in zip(points, (splits.front, splits.middle, splits.back)))
        best = score[splits.legal].max()
        played = bot.arrange_many(hand[None, :], None)[0]
        values = [evaluate(played[:3].tolist()), evaluate(played[3:8].tolist()), evaluate(played[8:].tolist())]
        assert sorted(played.tolist()) == sorted(hand.tolist())
        assert sum(p[np.searchsorted(classes, v)] for p, v in zip(points, values)) == pytest.approx(best, abs=1e-12)
        assert values[0] <= values[1] <= values[2]
        differ += not np.array_equal(shipped.arrange_many(hand[None, :], None)[0], played)
    assert differ > 0  # these tables play otherwise than the shipped ones


@pytest.mark.parametrize(
    "args, message",
    [
        (["--hands", "0"], "argument --hands: expected a whole number >= 1, got 0"),
        (["--rounds", "0"], "argument --rounds: expected a whole number >= 1, got 0"),
        (["--rules", "2-4+royalties"], "tables are trained per scoring method"),
        (["--out", "/no/such/folder/t.npz"], "folder /no/such/folder does not exist"),
    ],
)
def test_bench_train_bad_input(capsys, args, message):
    assert _status(bench_main, ["train", *args]) == 2
    assert message in capsys.readouterr().err


def test_json_is_strict_even_for_one_sample(capsys):
    assert solve_main([HAND, "--samples", "1", "--seed", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out, parse_constant=lambda name: pytest.fail(f"non-JSON {name}"))
    assert doc["ev_se"] is None and doc["sample_count"] == 1


def test_bench_arrange_states_fouls_and_names_rows(capsys):
    """Fails if a fouled arrangement is printed without saying so, in text or JSON."""
    assert bench_main(["arrange", "--bot", "tests.plugin_bot:FirstSplitBot", HAND]) == 0
    out = capsys.readouterr().out
    assert "FOUL: middle (pair of 9s, J T 8 kickers) beats back (7-high, 7 6 5 4 2)" in out
    assert bench_main(["arrange", "--bot", "tests.plugin_bot:FirstSplitBot", HAND, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["foul"] is True and record["foul_reason"].startswith("middle (pair of 9s")
    assert record["arrangement"]["middle"] == "9H 9D JS TS 8C"  # reading order: the pair first
    assert bench_main(["arrange", "--bot", "greedy", HAND]) == 0
    out = capsys.readouterr().out
    assert "FOUL" not in out and "royal flush" in out and "9-high straight" in out


SIX_PAIRS = "AS AD KH KC QS QD JH JC TS TD 9H 9C 2S"


def test_solve_says_declare_first_and_notes_ignored_naturals(capsys):
    """Fails if the advice to declare is not the first line, or a natural under rules without
    naturals goes unmentioned."""
    assert solve_main([SIX_PAIRS, "--samples", "300", "--seed", "1", "--rules", "naturals", "--players", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("declare six pairs, ") and "per opponent" in lines[0]
    assert lines[2].startswith("play ")
    assert solve_main([SIX_PAIRS, "--samples", "100", "--seed", "1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("note    this hand holds six pairs, a natural, but these rules have none")


@pytest.mark.parametrize("rules", ["basic", "2-4+royalties", "1-6+royalties-win+naturals"])
def test_the_ev_parts_add_up(capsys, rules):
    """Each part of the EV (the rows, the bonus, the royalties, the opponents' naturals) is
    computed on its own by the slow reference (tests/naive.py) against the opponents the
    solver sampled; the solver's parts equal them, and the headline EV of ``solve`` (JSON and
    text) is their sum times the opponents. Fails if a part is missing, counted twice, or
    is the remainder of a wrong EV."""
    from bots import solve_hand
    from tests import naive

    solution = solve_hand(SIX_PAIRS, samples=300, seed=2, rules=rules, players=3, keep_sample=True)
    expected = naive.parts_of(solution)
    assert solution.parts == pytest.approx(expected, abs=1e-12)
    assert [r.ev for r in solution.rows] == pytest.approx([expected[r] for r in ("front", "middle", "back")], abs=1e-12)
    assert solution.ev == pytest.approx(2 * sum(expected.values()), abs=1e-12)
    if "royalties" in rules:
        assert expected["royalties"] != 0 and expected["bonus"] != 0
    if "naturals" in rules:
        assert expected["naturals"] < 0  # some opponent declared a natural
    assert solve_main([SIX_PAIRS, "--samples", "300", "--seed", "2", "--rules", rules, "--players", "3",
                       "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ev"] == pytest.approx(2 * sum(expected.values()), abs=1e-6)
    parts = dict(doc["ev_parts"]["per_opponent"])
    assert doc["ev_parts"]["opponent_count"] == 2
    row_parts = parts.pop("rows")
    assert row_parts == pytest.approx({r: expected[r] for r in ("front", "middle", "back")}, abs=1e-6)
    assert ("bonus" in parts) == ("2-4" in rules or "1-6" in rules)
    assert ("royalty" in parts) == ("royalties" in rules)
    assert solve_main([SIX_PAIRS, "--samples", "300", "--seed", "2", "--rules", rules, "--players", "3"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("= 2 × ("))
    shown = [float(x.split()[-1]) for x in line.split("(", 1)[1].rstrip(")").split(", ")]
    assert shown == pytest.approx(list(expected.values()), abs=5e-4)  # printed to 3 decimals


def test_runners_up_differ_in_hands_by_default(capsys):
    """By default no runner-up differs from the best or another runner-up only in kickers or
    suits; --distinct values gives the raw list. Fails if a kicker swap is listed."""
    from solver import Arrangement, evaluate
    from solver.evaluator import hand_keys

    def keys(doc):
        plays = [doc["arrangement"]] + [a["arrangement"] for a in doc["alternatives"]]
        return [tuple(hand_keys([evaluate(Arrangement(**p).rows[i]) for i in range(3)]).tolist()) for p in plays]

    hand = "AC 8C 3C 2C 7S AD 9H KC 8S KS 6C 9S QH"
    assert solve_main([hand, "--samples", "300", "--seed", "1", "--top", "5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["alternatives_distinct"] == "hands" and len(set(keys(doc))) == 6
    assert solve_main([hand, "--samples", "300", "--seed", "1", "--top", "5", "--json", "--distinct", "values"]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert len(set(keys(raw))) < 6  # the raw list repeats hands with other kickers


def test_solve_grades_a_given_arrangement(capsys):
    """--grade: the player's EV against the best play's on the same opponents (text and JSON)."""
    worse = "9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS"
    assert solve_main([HAND, "--grade", worse, "--samples", "300", "--seed", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["lost"] > 1 and doc["diff"] == pytest.approx(doc["ev"] - doc["best"]["ev"], abs=1e-5)
    assert solve_main([HAND, "--grade", worse, "--samples", "300", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "your play cost" in out and "yours   9♦ 4♠ 2♣" in out.replace("9D 4S 2C", "9♦ 4♠ 2♣")
    assert _status(solve_main, [HAND, "--grade", "AS KS QS / JS TS 9H 9D 8C / 7C 6D 5H 4S 3C"]) == 2


def test_solve_grade_counts_declaring_a_natural(capsys):
    """Six pairs under naturals: the best play of three rows still costs what declaring wins
    more, and the text says declaring is the best choice. Fails if --grade ignores naturals."""
    six_pairs, played = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C", "9S 9H 2C / AS KS QS JS TS / AH KH QH JH TH"
    options = ["--grade", played, "--samples", "300", "--seed", "3", "--rules", "naturals"]
    assert solve_main([six_pairs, *options, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["declare"] and doc["lost"] == pytest.approx(doc["natural_ev"] - doc["ev"], abs=1e-5) and doc["lost"] > 0.1
    assert solve_main([six_pairs, *options]) == 0
    assert "natural six pairs: declaring it is worth" in capsys.readouterr().out


def test_solve_grades_a_declared_natural(capsys):
    """--grade declare: the natural declared, graded against the best choice; a hand or rules
    without one get one line and exit 2."""
    six_pairs = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"
    assert solve_main([six_pairs, "--grade", "declare", "--samples", "300", "--seed", "3", "--rules", "naturals"]) == 0
    out = capsys.readouterr().out
    assert "yours   declared six pairs" in out and "your play cost 0.000" in out and "verdict best" in out
    capsys.readouterr()
    assert _status(solve_main, [six_pairs, "--grade", "declare"]) == 2
    assert capsys.readouterr().err.strip().endswith("there is no natural to declare: these rules have no naturals")


def test_bench_grade_lists_the_worst_plays_first(tmp_path, capsys):
    """A malformed line is reported by number and the others still graded (exit 2)."""
    path = tmp_path / "plays.txt"
    path.write_text(f"{HAND} | 9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS\n# a comment\nAS KS | x\n"
                    f"{HAND} | AS KS QS / 9H 9D JS TS 8C / 7C 6D 5H 4S 2C\n")
    assert bench_main(["grade", "--input", str(path), "--samples", "200", "--json"]) == 2
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert [g["line"] for g in doc["hands"]] == [4, 1]  # the foul costs most
    assert doc["hands"][0]["foul"] is True and doc["hands"][1]["lost"] == 0
    assert "line 3: expected 13 cards for the hand, got 2" in captured.err


@pytest.mark.parametrize("main, program", [(solve_main, "solve"), (bench_main, "bench")])
def test_version_is_the_installed_package_version(capsys, main, program):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"{program} {version('chinese-poker-solver')}\n"
