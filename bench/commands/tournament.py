"""``bench tournament``: duplicate sessions between bots, with tables, JSON and a report."""

from __future__ import annotations

import argparse
import json
import secrets
import shlex
import sys
import time
from pathlib import Path

from bench.parsing import positive, seed, writable_folder

BACKENDS = ("loky", "threading", "sequential", "dask")


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "tournament",
        help="duplicate 8-hand sessions between bots",
        description="Play duplicate sessions of 8 hands: every deal is replayed with the bots rotated through the "
        "seats. Bots are given by name, with parameters after colons (exhaustive:samples=2000), or as a "
        "plug-in import path (mypkg.mybot:MyBot).",
    )
    parser.add_argument("--bots", required=True, help="comma-separated bot specs, e.g. greedy,table,exhaustive")
    parser.add_argument("--players", type=int, default=None, help="seats at the table, 2-4 (default: one per bot, at most 4)")
    parser.add_argument("--sessions", type=positive, default=100, help="sessions of 8 hands (default %(default)s)")
    parser.add_argument("--seed", type=seed, default=None, help="seed entropy (default: fresh, printed and stored)")
    parser.add_argument("--jobs", type=int, default=-1, help="parallel workers (default: all cores)")
    parser.add_argument("--backend", choices=BACKENDS, default="loky", help="where the work runs (default loky)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--rules", default="basic",
                        help="rule set: basic (default), 1-6, 2-4, royalties, royalties-win, naturals, joined with +, "
                        "or a .toml/.json file")
    parser.add_argument("--out", metavar="DIR", help="write results.json, report.md and plots to DIR")
    parser.add_argument("--json", action="store_true", help="print the results document instead of tables")



def run(args: argparse.Namespace) -> int:

    from bench.cli import available_cores
    from bench.parsing import UsageError
    from bench.progress import note, progress
    from bench.results import build_document, render_terminal, write_json, write_report
    from bench.tournament import HANDS_PER_SESSION, TournamentError, make_bots, run_deals
    from bots import BotError, bot_spec
    from solver.documents import json_ready
    from solver.rules import Rules, RulesError

    specs = [s.strip() for s in args.bots.split(",") if s.strip()]
    if not specs:
        raise UsageError("--bots needs at least one bot, e.g. --bots greedy,table")
    players = args.players if args.players is not None else min(4, max(2, len(specs)))
    if not 2 <= players <= 4:
        raise UsageError(f"--players must be 2, 3 or 4, got {players}")
    if args.sessions < 1:
        raise UsageError(f"--sessions must be a positive number, got {args.sessions}")
    if args.scheduler and args.backend != "dask":
        raise UsageError("--scheduler goes with --backend dask")
    try:
        rules = Rules.parse(args.rules)
    except RulesError as error:
        raise UsageError(str(error)) from None
    try:
        made = make_bots(specs, rules)
    except BotError as error:
        raise UsageError(str(error)) from None
    bot_specs = [bot_spec(made[spec]) for spec in specs]
    out = writable_folder(Path(args.out)) if args.out else None
    jobs = available_cores() if args.jobs < 1 else args.jobs
    entropy = args.seed if args.seed is not None else secrets.randbits(128)  # as SeedSequence() draws it
    n_deals = args.sessions * HANDS_PER_SESSION
    note(f"seed entropy {entropy} (replay with --seed {entropy})")

    started = time.perf_counter()
    try:
        with progress(total=n_deals, desc="deals", unit="deal") as bar:
            records = run_deals(specs, players, entropy, n_deals, jobs=jobs, backend=args.backend,
                                scheduler=args.scheduler, on_progress=bar.update, rules=rules)
    except TournamentError as error:
        raise UsageError(str(error)) from None
    wall = time.perf_counter() - started
    command = "bench " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["tournament"] else (
        f"bench tournament --bots {args.bots} --players {players} --sessions {args.sessions} --seed {entropy}"
        f" --rules {args.rules}")
    doc = build_document(command=command, specs=specs, bot_specs=bot_specs, players=players,
                         sessions=args.sessions, entropy=entropy, records=records, wall_seconds=wall,
                         backend=args.backend, jobs=jobs, rules=rules)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        write_json(doc, out / "results.json")
        report, _ = write_report(doc, out)
        note(f"wrote {out / 'results.json'} and {report}")
    if args.json:
        print(json.dumps(json_ready(doc), indent=1, allow_nan=False))
    else:
        print(render_terminal(doc))
    return 0
