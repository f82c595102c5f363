"""``bench bots``: every bot with its one-line description and parameters."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bench.cli.parsing import Parser
from bots import bot_names, bot_parameters, describe_bot
from bots.registry import resolve_factory
from solver.text import show

BOTS_SCHEMA_VERSION = 1  # of the bots document (bench/records/schemas/bots.schema.json)


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser("bots", help="list the bots", description="List the registered and plug-in bots.")
    parser.add_argument("--json", action="store_true", help="print the bots document (JSON) instead of a table")


def run(args: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = []
    for name in bot_names():
        factory = resolve_factory(name)
        rows.append({"name": name, "description": describe_bot(factory), "parameters": bot_parameters(factory)})
    if args.json:
        document = {"schema_version": BOTS_SCHEMA_VERSION, "document": "bots", "bots": rows}
        show(json.dumps(document, indent=2, default=repr), exact=True)
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        params = ", ".join(f"{k}={v}" for k, v in r["parameters"].items()) or "no parameters"
        show(f"{r['name']:<{width}}  {r['description']}")
        show(f"{'':<{width}}  parameters: {params}")
    show("\nA bot spec adds parameters after colons: exhaustive:samples=2000:opponent=greedy")
    show("A bot of your own, in any language: a bot file, my_bot.toml, or a program, cmd:./my_bot, that speaks\n"
         "the protocol (docs/protocol.md; bench check-bot my_bot.toml checks it); in Python, a plug-in\n"
         "(package.module:Class, or a name its package registers, docs/bots.md).")
    return 0
