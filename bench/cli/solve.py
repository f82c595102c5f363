"""The ``solve`` command: the best arrangement of 13 cards, how good it is, and why.

A command sits above both layers: it resolves the opponent bot (``bots``) and calls the
solver (``solver``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np

from bench.cli import warmup
from bench.cli.parsing import (
    SPECS,
    Parser,
    add_debug,
    add_log_protocol,
    add_version,
    guarded,
    limited,
    log_protocol,
    quiet_on_closed_stdout,
    seed,
)
from bots import BotError, _kernels, grade_hand, opponent_model, solve_hand
from bots.identity import opponent_identity
from solver import Grade, OpponentModel, Solution, _evaluator, _search, config
from solver._jit import cache_dir, compiled_before
from solver.cards import format_cards, symbols_supported
from solver.errors import BotFault, OpponentError, SolveError
from solver.opponent import model_name
from solver.rules import RulesError, as_rules
from solver.solution import check_request
from solver.text import show


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="solve",
        description="Find the best way to set 13 cards into front (3), middle (5) and back (5): every legal "
        "split is scored by Monte Carlo against opponents dealt from the other 39 cards and set by a bot.",
        epilog='example: solve "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C" --samples 2000 --seed 1',
    )
    parser.add_argument("hand", nargs="+", help="13 cards such as 'AS KS 10h 2c' (spaces or commas; 10 or T)")
    parser.add_argument("--samples", type=limited("samples"), default=config.DEFAULT_SAMPLES,
                        help="simulated opponents (default %(default)s)")
    parser.add_argument("--seed", type=seed, default=None, help="random seed (a whole number >= 0); the same seed "
                        "gives the same output")
    parser.add_argument("--opponent", default=config.DEFAULT_OPPONENT, metavar="BOT",
                        help=f"bot that sets the simulated opponents' cards (default %(default)s); {SPECS}")
    parser.add_argument("--players", type=int, default=2, help="players at the table, 2-4 (default %(default)s)")
    parser.add_argument("--top", type=limited("top"), default=3, help="runner-up plays to show (default %(default)s)")
    parser.add_argument("--distinct", choices=("hands", "values"), default="hands",
                        help="runners-up differ from the best and each other in what their rows are called (hands, "
                        "the default), or in any row value, kickers and suits included (values: the raw list)")
    parser.add_argument("--rules", default="basic",
                        help="rule set: basic (default), 1-6, 2-4, royalties, royalties-win, naturals, joined with + "
                        "(2-4+royalties), or a .toml/.json house-rules file")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    add_log_protocol(parser)
    parser.add_argument("--ascii", action="store_true", help="letters for suits (S H D C) instead of symbols")
    parser.add_argument("--grade", metavar="'FRONT / MIDDLE / BACK'",
                        help="grade this arrangement of the hand: its EV against the best play's, on the same opponents "
                             "('declare' grades declaring the natural the hand holds, under rules with naturals)")
    add_debug(parser)
    add_version(parser)
    return parser


def _percent(p: float) -> str:
    return f"{100 * p:5.1f}%"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


PART_NAMES = {"front": "front", "middle": "middle", "back": "back", "bonus": "bonus", "royalties": "royalties",
              "naturals": "opponents' naturals"}


def _decomposition(solution: Solution) -> str:
    """The headline EV taken apart; the parts sum to it."""
    parts = ", ".join(f"{PART_NAMES[k]} {v:+.3f}" for k, v in solution.parts.items())
    return f"        = {solution.opponents} × ({parts})"


def _natural_lines(solution: Solution) -> tuple[list[str], list[str]]:
    """Lines before the report (declare, or a natural these rules ignore) and after it."""
    if solution.natural is None:
        if solution.natural_held and not solution.rules.naturals:
            return [f"note    this hand holds {solution.natural_held}, a natural, but these rules have none "
                    "(add +naturals to --rules to declare it)"], []
        return [], []
    assert solution.natural_ev is not None  # a solution that names a natural prices it
    payout = solution.rules.payouts()[solution.natural]
    per_opponent = solution.natural_ev / solution.opponents
    first = []
    if solution.declare:
        first = [f"declare {solution.natural}, {per_opponent:+.3f} per opponent ({solution.natural_ev:+.3f} against "
                 f"{_plural(solution.opponents, 'opponent')}): more than the best play below ({solution.ev:+.3f})"]
    verdict = "declare it" if solution.declare else "play the hand out"
    after = [f"natural: {solution.natural} pays {payout} per opponent; declared it is worth "
             f"{solution.natural_ev:+.3f} here: {verdict}"]
    if abs(per_opponent - payout) > 1e-9:
        after.append(f"  ({100 * solution.opponents_with_naturals:.1f}% of the simulated opponents declared a natural "
                     "of their own: a higher one wins, an equal one ties)")
    return first, after


def render(solution: Solution, symbols: bool) -> str:
    """The human-readable report of a Solution."""
    first, after = _natural_lines(solution)
    rules = "basic scoring" if solution.rules.is_basic else "rules " + solution.rules.name
    lines = first + [
        f"hand    {format_cards(solution.hand, symbols)}",
        f"{'play' if solution.declare else 'best'}    {solution.arrangement.format(symbols)}",
        f"EV      {solution.ev:+.3f} ± {solution.ev_se:.3f} units per hand against "
        f"{_plural(solution.opponents, 'opponent')} set by '{solution.opponent}' "
        f"({_plural(solution.samples, 'sample')}, {rules})",
        _decomposition(solution),
        "",
    ]
    width = max(len(r.hand) for r in solution.rows)
    lines.append(f"  {'row':<7} {'cards':<15} {'hand':<{width}} {'win':>6} {'tie':>6} {'lose':>6}  {'ev':>6}")
    for r in solution.rows:
        lines.append(
            f"  {r.row:<7} {format_cards(r.cards, symbols):<15} {r.hand:<{width}} {_percent(r.win)} "
            f"{_percent(r.tie)} {_percent(r.lose)}  {r.ev:+.3f}"
        )
    if solution.opponents_with_naturals:
        lines.append(f"  (win, tie and lose over the {100 * (1 - solution.opponents_with_naturals):.1f}% of opponents "
                     "who played their rows; ev per opponent over all of them)")
    if solution.alternatives:
        differ = "rows called differently" if solution.distinct == "hands" else "other row values"
        lines += ["", f"next best, {differ} (difference to the best, paired over the same opponents; "
                      "* = significant at 95%)"]
        for i, alt in enumerate(solution.alternatives, start=2):
            mark = "*" if alt.significant else " "
            lines.append(
                f"  {i}. {alt.arrangement.format(symbols)}   EV {alt.ev:+.3f}   "
                f"{alt.diff:+.3f} ± {alt.diff_se:.3f} {mark}"
            )
    if after:
        lines += [""] + after
    lines += [
        "",
        f"{solution.legal_splits:,} legal splits of 72,072 searched in {solution.seconds:.2f} s (seed {solution.seed})",
    ]
    return "\n".join(lines)


@quiet_on_closed_stdout
def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 2 <= args.players <= 4:
        parser.error(f"--players must be 2, 3 or 4, got {args.players}")
    return guarded("solve", lambda: _solve(args), args.debug, ascii=args.ascii)


def render_grade(grade: Grade, symbols: bool) -> str:
    """The human-readable report of a Grade: the player's play against the best, row by row."""
    best = grade.solution
    lines = [
        f"hand    {format_cards(best.hand, symbols)}",
        f"yours   {_yours(grade, symbols)}" + (f"   FOUL: {grade.foul_reason}" if grade.foul else ""),
        f"best    {best.arrangement.format(symbols)}",
        f"EV      yours {grade.ev:+.3f}, best {grade.best_choice_ev:+.3f}: your play cost {grade.lost:.3f} units per hand "
        f"(paired difference {grade.diff:+.3f} ± {grade.diff_se:.3f}, {best.samples:,} opponents set by "
        f"'{best.opponent}', {best.opponents} opponent{'s' if best.opponents > 1 else ''})",
        "",
        f"  {'row':<7} {'yours':<15} {'ev':>7}   {'best':<15} {'ev':>7}",
    ]
    for mine, theirs in zip(grade.rows, best.rows):
        lines.append(f"  {mine.row:<7} {format_cards(mine.cards, symbols):<15} {mine.ev:+7.3f}   "
                     f"{format_cards(theirs.cards, symbols):<15} {theirs.ev:+7.3f}")
    lines += ["", f"verdict {grade.verdict} (the decision: {grade.decision})"] + [f"  {line}" for line in grade.why]
    if best.natural is not None:
        verdict = "declaring it is the best choice" if grade.declare else "the best play beats declaring it"
        lines += ["", f"natural {best.natural}: declaring it is worth {best.natural_ev:+.3f}; {verdict}"]
    lines += ["", f"seed {best.seed}"]
    return "\n".join(lines)


def _yours(grade: Grade, symbols: bool = False) -> str:
    """The player's play as a line: its rows, or the natural declared."""
    return grade.arrangement.format(symbols) if grade.arrangement is not None else f"declared {grade.solution.natural}"


def _first_run_notice(ascii: bool = False) -> bool:
    """One line on stderr when the kernels are not compiled yet (the first run waits for
    them); whether they are not."""
    kernels = (_evaluator.eval5_columns, _search.score_canonical, _kernels.best_by_class_points)
    if all(compiled_before(kernel) for kernel in kernels):
        return False
    show(f"solve: compiling the kernels it needs, once, on this first run (it can take half a minute on a slow "
         f"machine); they are kept in {cache_dir()}", sys.stderr, ascii=ascii)
    warmup.said_already()
    return True


def _solve(args: argparse.Namespace) -> int:
    # what is asked is refused before the first-run notice: bad input gets its one line alone; and before the
    # opponent model is made, which for a bot in another process asks it dozens of hands (its batch check)
    check_request(" ".join(args.hand), _NOT_MADE, args.grade, samples=args.samples, seed=args.seed,
                  players=args.players, top=args.top, rules=args.rules, distinct=args.distinct)
    model = _opponent(args)
    warmup.notice_compiling("solve", ascii=args.ascii)  # any kernel the first-run notice does not foresee
    helper = warmup.start(args.rules) if _first_run_notice(args.ascii) else None  # the scoring kernels, on another core
    try:
        return _solve_and_print(args, model)
    except OpponentError as error:
        told = _bot_fault(error, model)
        if told is error:
            raise
        raise told from error
    finally:
        warmup.end(helper)


def _bot_fault(error: OpponentError, model: OpponentModel) -> OpponentError:
    """An opponent model's failure told as a bot's fault is: its own words, without the class
    name the solver gives any other exception, and the log that holds the whole standard error
    of its process (``BotFault.log``, named by the command's error line) when one does.

    Args:
        error: What the solver raised (``solver.opponent.arrange_checked``).
        model: The opponent model.

    Returns:
        A new error when a bot's fault caused ``error``; ``error`` otherwise.
    """
    causes: list[BaseException] = []
    cause = error.__cause__
    while cause is not None and len(causes) < 10:
        causes.append(cause)
        cause = cause.__cause__
    if not causes or not isinstance(causes[0], BotFault) or isinstance(causes[0], OpponentError):
        return error
    told = OpponentError(f"opponent model '{model_name(model)}' failed: {causes[0]}")
    told.log = next((c.log for c in causes if isinstance(c, BotFault) and c.log), None)
    return told


class _NotMade:
    """Stands for the opponent model while the rest of a request is checked (``check_request``
    asks only that it has ``arrange_many``); the model ``--opponent`` names is made after."""

    name = "not made yet"

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        raise AssertionError("the opponent model is made after the request is checked")


_NOT_MADE = _NotMade()


def _opponent(args: argparse.Namespace) -> OpponentModel:
    """The opponent model ``--opponent`` names, made once: the one that sets the simulated
    hands, and whose identity (``bots.identity``) the JSON document records."""
    log_protocol(args)
    try:
        return opponent_model(args.opponent, as_rules(args.rules))
    except (BotError, RulesError) as error:
        raise SolveError(str(error)) from None


def _solve_and_print(args: argparse.Namespace, model: OpponentModel) -> int:
    symbols = not args.ascii and symbols_supported(sys.stdout)
    identity = {"opponent_identity": opponent_identity(args.opponent, model)}
    if args.grade:
        graded = grade_hand(" ".join(args.hand), args.grade, model, samples=args.samples, seed=args.seed,
                            players=args.players, rules=args.rules)
        if args.json:
            show(json.dumps(graded.to_dict() | identity, indent=2, ensure_ascii=False, allow_nan=False), ascii=args.ascii,
                 exact=True)
        else:
            show(render_grade(graded, symbols), ascii=args.ascii)
        return 0

    solution = solve_hand(
        " ".join(args.hand), model, samples=args.samples, seed=args.seed,
        players=args.players, top=args.top, rules=args.rules, distinct=args.distinct,
    )  # fmt: skip
    if args.json:
        show(json.dumps(solution.to_dict() | identity, indent=2, ensure_ascii=False, allow_nan=False), ascii=args.ascii,
             exact=True)
    else:
        show(render(solution, symbols), ascii=args.ascii)
    return 0


if __name__ == "__main__":
    sys.exit(main())
