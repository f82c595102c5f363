"""``bench arrange``: how a bot sets one hand, or every hand of a file (one per line)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator

import numpy as np

from bench.cli.parsing import SPECS, Parser, UsageError, add_log_protocol, input_lines, log_protocol, one_line, seed
from bench.run.play import make_bots
from bots import BotError, checked_arrangement
from bots.base import declared_natural
from bots.identity import bot_identity
from solver import ROWS, CardError, describe, format_cards, foul_reason, parse_hand
from solver.cards import symbols_supported
from solver.rules import Rules, RulesError
from solver.text import show

SCHEMA_VERSION = 2  # of each line of bench arrange --json; 2: bot_params (bot_identity is optional within 2)


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "arrange",
        help="set hands with a bot",
        description="Set one hand, or every hand of a file (one per line; blank lines and # comments skipped), "
        "with a bot. Hand i of a file draws its randomness from SeedSequence(seed, spawn_key=(i,)).",
    )
    parser.add_argument("hand", nargs="*", help="13 cards, such as 'AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C'")
    parser.add_argument("--bot", required=True, help=f"the bot that sets the hands: {SPECS}")
    parser.add_argument("--input", metavar="FILE", help="read hands from FILE (- for standard input)")
    parser.add_argument("--seed", type=seed, default=0, help="random seed (default %(default)s)")
    parser.add_argument("--rules", default="basic", help="rule set the bot plays for (basic, 1-6, 2-4, royalties, "
                        "royalties-win, naturals, joined with +, or a .toml/.json file)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--ascii", action="store_true", help="ASCII only: letters for suits instead of symbols")
    add_log_protocol(parser)


def _lines(args: argparse.Namespace) -> Iterator[tuple[int, str]]:
    if args.input and args.hand:
        raise UsageError("give a hand or --input FILE, not both")
    if args.input:
        for number, text in input_lines(args.input):
            if text is None:
                raise UsageError(f"{args.input}: line {number} is not UTF-8 text")
            yield number, text
    elif args.hand:
        yield 1, " ".join(args.hand)
    else:
        raise UsageError("give a hand (13 cards) or --input FILE")


def run(args: argparse.Namespace) -> int:
    log_protocol(args)
    try:
        rules = Rules.parse(args.rules)
        bot = make_bots([args.bot], rules)[args.bot]
    except (BotError, RulesError) as error:
        raise UsageError(str(error)) from None
    identity = bot_identity(args.bot, bot)  # every parameter the bot plays with (defaults included), the files it reads
    symbols = not args.ascii and symbols_supported(sys.stdout)
    failures = 0
    for index, (number, text) in enumerate(_lines(args)):
        where = f"line {number}: " if args.input else ""
        try:
            cards = parse_hand(text)
        except CardError as error:
            show(f"bench arrange: {where}{one_line(error)}", sys.stderr, ascii=args.ascii)
            failures += 1
            continue
        entropy = np.random.SeedSequence(args.seed, spawn_key=(index,))
        started = time.perf_counter()
        arrangement = checked_arrangement(bot, cards, np.random.default_rng(entropy))  # a bot that fails: exit 1
        natural = declared_natural(bot, cards, entropy, rules)
        seconds = time.perf_counter() - started
        reason = foul_reason(arrangement)
        if args.json:
            record = {
                "schema_version": SCHEMA_VERSION,
                "document": "arrange",
                "line": number if args.input else None,
                "hand": format_cards(cards),
                "arrangement": arrangement.to_dict(),
                "rows": {name: {"hand": describe(row)} for name, row in zip(ROWS, arrangement.rows)},
                "foul": reason is not None,
                "foul_reason": reason,
                "natural": natural.kind if natural else None,
                "bot": args.bot,
                "bot_params": identity["params"], "bot_identity": identity,
                "rules": rules.to_dict(),
                "seed": args.seed,
                "hand_index": index,  # the hand's randomness: SeedSequence(seed, spawn_key=(hand_index,))
                "seconds": round(seconds, 6),
            }
            show(json.dumps(record, ensure_ascii=False), ascii=args.ascii, exact=True, flush=True)
        else:
            declared = f"   (declares {natural.kind})" if natural else ""
            described = " / ".join(describe(row) for row in arrangement.rows)
            verdict = f"FOUL: {reason}" if reason else described
            show(f"{format_cards(cards, symbols)}  ->  {arrangement.format(symbols)}{declared}\n    {verdict}",
                 ascii=args.ascii, flush=True)
    return 2 if failures else 0
