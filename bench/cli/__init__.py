"""The ``bench`` command: bots, how they arrange hands, and how they fare."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bench.cli import warmup
from bench.cli.commands import (
    arrange,
    bots,
    check_bot,
    exploit,
    grade,
    match,
    perf,
    report,
    serve,
    tournament,
    train,
    verify,
)
from bench.cli.parsing import Parser, add_debug, add_version, guarded, quiet_on_closed_stdout

COMMANDS = {
    "bots": bots,
    "arrange": arrange,
    "check-bot": check_bot,
    "tournament": tournament,
    "verify": verify,
    "match": match,
    "exploit": exploit,
    "grade": grade,
    "serve": serve,
    "report": report,
    "train": train,
    "perf": perf,
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="bench", description="Pit Chinese Poker bots against each other and measure them.")
    add_version(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for module in COMMANDS.values():
        module.add_parser(sub)
    for command in sub.choices.values():
        add_debug(command)
    return parser


@quiet_on_closed_stdout
def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    warmup.notice_compiling(f"bench {args.command}", ascii=getattr(args, "ascii", False))
    return guarded(f"bench {args.command}", lambda: COMMANDS[args.command].run(args), args.debug,
                   ascii=getattr(args, "ascii", False))
