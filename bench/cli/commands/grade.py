"""``bench grade``: what a player's own arrangements cost, hand by hand, worst first (a leak finder)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bench.cli.parsing import SPECS, Parser, UsageError, input_lines, limited, seed
from bots import BotError, grade_hand, opponent_model
from bots.identity import opponent_identity
from solver import CardError, Grade, OpponentModel, SolveError
from solver.interrupts import Stopped, check_stopped, stoppable
from solver.rules import Rules, RulesError
from solver.text import show, terminal

SCHEMA_VERSION = 3  # of the grade document; 3: document, hand_count, hands a list, malformed_lines, seed
SEED_RULE = ("hand k is graded with seed + k, where k = 0, 1, ... counts the lines that are neither blank nor only "
             "a comment, malformed ones included")


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "grade",
        help="grade a file of hands as a player set them",
        description="Grade a file of hands with the arrangements a player chose, one per line: "
        "'HAND | FRONT / MIDDLE / BACK', or 'HAND | declare' for a natural declared under rules with naturals "
        "(blank lines and # comments skipped). Each is scored against the best "
        "play on the same simulated opponents; the report lists the EV each play lost, worst first, and the "
        "total. Malformed lines are reported by number and the rest still graded (exit status 2).",
    )
    parser.add_argument("--input", required=True, metavar="FILE", help="the file of hands ('-' for stdin)")
    parser.add_argument("--samples", type=limited("samples"), default=1000, help="simulated opponents (default %(default)s)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the first hand; hand k uses seed + k "
                        "(k counts from 0 the lines that are neither blank nor only a comment)")
    parser.add_argument("--opponent", default="table", help=f"bot that sets the opponents (default %(default)s); {SPECS}")
    parser.add_argument("--rules", default="basic", help="rule set (default basic)")
    parser.add_argument("--players", type=int, default=2, help="players at the table, 2-4 (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of a table")


def run(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 4:
        raise UsageError(f"--players must be 2, 3 or 4, got {args.players}")
    try:
        model = opponent_model(args.opponent, Rules.parse(args.rules))  # made once, for every hand
    except (BotError, RulesError) as error:
        raise UsageError(str(error)) from None
    graded: list[tuple[int, Grade]] = []
    malformed: list[tuple[int, str]] = []
    stopped = None
    try:
        with stoppable():
            _grade_lines(args, model, graded, malformed)
    except Stopped as error:  # the hands graded so far are reported
        stopped = error
        show(f"bench grade: stopped by {error.name} after {len(graded)} hands", sys.stderr)
    if args.json:
        doc = document(args, graded, malformed) | {"opponent_identity": opponent_identity(args.opponent, model)}
        show(json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False), exact=True)
    else:
        _print_table(args, graded)
    return stopped.status if stopped else (2 if malformed else 0)


def _grade_lines(args: argparse.Namespace, model: OpponentModel, graded: list[tuple[int, Grade]],
                 malformed: list[tuple[int, str]]) -> None:
    """Grade each line into ``graded`` as (line number, Grade) against the opponents ``model``
    sets; each malformed line into ``malformed`` as (line number, what is wrong with it)."""
    for index, (number, text) in enumerate(input_lines(args.input)):
        check_stopped()
        problem = None
        if text is None:
            problem = "not UTF-8 text"
        elif text.count("|") != 1:
            problem = "expected 'HAND | FRONT / MIDDLE / BACK' (or 'HAND | declare')"
        else:
            hand, arrangement = (part.strip() for part in text.split("|"))
            try:
                result = grade_hand(hand, arrangement, model, samples=args.samples, seed=args.seed + index,
                                    players=args.players, rules=args.rules)
            except (CardError, SolveError) as error:
                problem = str(error)
        if problem is not None:
            show(f"bench grade: line {number}: {terminal(problem)}", sys.stderr)
            malformed.append((number, problem))
            continue
        graded.append((number, result))


def document(args: argparse.Namespace, graded: list[tuple[int, Grade]], malformed: list[tuple[int, str]]) -> dict[str, Any]:
    """The versioned JSON document of ``bench grade --json`` (``bench/records/schemas/grade.schema.json``):
    each graded hand with its line number, worst first, as its hand-grade document holds it."""
    hands = []
    for number, g in sorted(graded, key=lambda item: -item[1].lost):
        doc = g.to_dict()
        del doc["schema_version"], doc["document"]
        hands.append({"line": number, **doc})
    return {
        "schema_version": SCHEMA_VERSION,
        "document": "grade",
        "hand_count": len(graded),
        "lost_total": round(sum(g.lost for _, g in graded), 6),
        "hands": hands,
        "malformed_line_count": len(malformed),
        "malformed_lines": [{"line": number, "error": problem} for number, problem in malformed],
        "seed": args.seed,
        "seed_rule": SEED_RULE,
        "sample_count": args.samples,
        "opponent": args.opponent,
        "player_count": args.players,
        "rules": Rules.parse(args.rules).to_dict(),
    }


def _print_table(args: argparse.Namespace, graded: list[tuple[int, Grade]]) -> None:
    order = sorted(graded, key=lambda item: -item[1].lost)
    total = sum(g.lost for _, g in graded)
    show(f"{'line':>4}  {'lost':>6}  {'± se':>6}  {'yours':<40}  best")
    for number, g in order:
        foul = "  FOUL" if g.foul else ""
        yours = g.arrangement.format() if g.arrangement is not None else f"declared {g.solution.natural}"
        show(f"{number:>4}  {g.lost:6.3f}  {g.diff_se:6.3f}  {yours:<40}  "
             f"{g.solution.arrangement.format()}{foul}")
    mean = total / len(graded) if graded else 0.0
    show(f"\n{len(graded)} hands graded: {total:.3f} units lost in all, {mean:.3f} a hand "
         f"({args.samples:,} opponents a hand set by '{args.opponent}', rules {args.rules}; seed {args.seed}, "
         f"hand k uses seed + k)")
