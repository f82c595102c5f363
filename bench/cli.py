"""The ``bench`` command: bots, how they arrange hands, and how they fare."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from bench.commands import arrange, bots, perf, report, tournament, train
from bench.parsing import Parser, UsageError


def available_cores() -> int:
    """Cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


COMMANDS = {
    "bots": bots,
    "arrange": arrange,
    "tournament": tournament,
    "report": report,
    "train": train,
    "perf": perf,
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="bench", description="Pit Chinese Poker bots against each other and measure them.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for module in COMMANDS.values():
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command].run(args)
    except UsageError as error:
        print(f"bench {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
