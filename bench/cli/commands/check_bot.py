"""``bench check-bot``: a protocol bot checked against docs/protocol.md before a run, one line a check."""

from __future__ import annotations

import argparse
import json

from bench.cli.parsing import Parser, UsageError
from bots import BotError
from bots.protocol import ProtocolFactory, protocol_factory
from bots.protocol.check import BotCheck, Check
from bots.protocol.transport import ProtocolTrace
from bots.registry import parse_spec
from solver.rules import Rules, RulesError
from solver.text import show, terminal

SCHEMA_VERSION = 2  # of the check-bot document; 2: name is the hello's, spec_name and logs added


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "check-bot",
        help="check a protocol bot before a run",
        description="Start a bot that speaks the protocol (a bot file NAME.toml or a program cmd:PATH) and check "
        "it as a run would speak to it: the hello within its start-up limit, its protocol version, name and "
        "version, the rules, one hand and a batch set with the cards dealt, the same hand set the same way twice (or randomness "
        "declared in its hello), the error reply to a hand of 12 cards, and its exit on quit. One line a check: "
        "PASS, FAIL with what to change, or SKIP. Exit status 0 when none fails, 1 when one does, 2 for bad usage.",
    )
    parser.add_argument("bot", metavar="BOT", help="the bot: a bot file (my_bot.toml) or a program (cmd:./my_bot)")
    parser.add_argument("--rules", default="basic", help="the rule set the hello asks it to play (default basic)")
    parser.add_argument("--log-protocol", metavar="FILE", help="write every line sent to the bot and received from "
                        "it to FILE, with the time, the bot's process and the direction")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of lines")


def _factory(spec: str) -> ProtocolFactory:
    name, params = parse_spec(spec)
    try:
        factory = protocol_factory(name)
    except BotError as error:
        raise UsageError(str(error)) from None
    if factory is None:
        raise UsageError(f"check-bot checks a bot that speaks the protocol: a bot file (NAME.toml) or a program "
                         f"(cmd:PATH), not {spec!r}")
    if params:
        raise UsageError(f"a protocol bot takes no parameters in its spec, got {', '.join(sorted(params))}")
    return factory


def run(args: argparse.Namespace) -> int:
    factory = _factory(args.bot)
    try:
        rules = Rules.parse(args.rules)
    except RulesError as error:
        raise UsageError(str(error)) from None
    trace = None
    if args.log_protocol:
        try:
            trace = ProtocolTrace(args.log_protocol, fresh=True)
        except OSError as error:
            raise UsageError(f"--log-protocol {args.log_protocol}: {terminal(str(error.strerror or error))}") from None
    checks: list[Check] = []
    run = BotCheck(factory.spec, rules.name, trace=trace)
    try:
        for check in run:
            checks.append(check)
            if not args.json:
                show(f"{check.outcome:<4}  {check.name:<19}  {terminal(check.detail)}")
    finally:
        if trace is not None:
            trace.close()
    failed = [c for c in checks if c.outcome == "FAIL"]
    logs = [str(path) for path in run.logs]  # only those that hold something
    if args.json:
        show(json.dumps(document(args, factory, checks, logs, run.name), indent=1, ensure_ascii=False), exact=True)
    else:
        show(f"{len(failed)} of {len(checks)} checks failed" if failed else
             f"every check passed ({sum(c.outcome == 'PASS' for c in checks)} passed, "
             f"{sum(c.outcome == 'SKIP' for c in checks)} skipped)")
        said = []
        if logs:
            folder = str(run.logs[0].parent)
            said.append(f"its standard error: {terminal(logs[0])}" if len(logs) == 1 else
                        f"its standard error: {len(logs)} logs in {terminal(folder)}, one for each process started")
        if args.log_protocol:
            said.append(f"every line to and from it: {terminal(args.log_protocol)}")
        if said:
            show("; ".join(said))
    return 1 if failed else 0


def document(args: argparse.Namespace, factory: ProtocolFactory, checks: list[Check], logs: list[str],
             name: str | None = None) -> dict[str, object]:
    """The JSON document of ``bench check-bot --json``: ``name`` is the name the bot's hello
    gave (its spec's when it gave none), ``spec_name`` the name its bot file gives (or its
    program's, for cmd:PATH), which the bench's messages and logs use; ``log`` the first log
    of its standard error that holds something and ``logs`` all of them (one a process)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "document": "check-bot",
        "bot": args.bot,
        "name": name or factory.spec.name,
        "spec_name": factory.spec.name,
        "rules": args.rules,
        "passed": not any(c.outcome == "FAIL" for c in checks),
        "checks": [{"name": c.name, "outcome": c.outcome, "detail": c.detail} for c in checks],
        "log": logs[0] if logs else None,
        "logs": logs,
        "protocol_log": args.log_protocol,
    }
