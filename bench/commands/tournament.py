"""``bench tournament``: duplicate sessions between bots, with tables, JSON and a report."""

from __future__ import annotations

import argparse
import json
import secrets
import shlex
import time
from pathlib import Path

from bench.parsing import Stopped, positive, seconds, seed, stoppable, writable_folder

BACKENDS = ("loky", "threading", "sequential", "dask")
DEFAULT_DECISION_TIMEOUT = 60.0
DEFAULT_STARTUP_TIMEOUT = 60.0


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "tournament",
        help="duplicate 8-hand sessions between bots",
        description="Play duplicate sessions of 8 hands: every deal is replayed with the bots rotated through the "
        "seats. Bots are given by name, with parameters after colons (exhaustive:samples=2000), or as a "
        "plug-in import path (mypkg.mybot:MyBot). With --out, every finished chunk of deals is saved to "
        "DIR/journal.jsonl as it completes; an interrupted run continues with --resume DIR.",
    )
    parser.add_argument("--bots", help="comma-separated bot specs, e.g. greedy,table,exhaustive")
    parser.add_argument("--players", type=int, default=None, help="seats at the table, 2-4 (default: one per bot, at most 4)")
    parser.add_argument("--sessions", type=positive, default=100, help="sessions of 8 hands (default %(default)s)")
    parser.add_argument("--seed", type=seed, default=None, help="seed entropy (default: fresh, printed and stored)")
    parser.add_argument("--jobs", type=int, default=-1, help="parallel workers (default: all cores)")
    parser.add_argument("--backend", choices=BACKENDS, default="loky", help="where the work runs (default loky)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--rules", default="basic",
                        help="rule set: basic (default), 1-6, 2-4, royalties, royalties-win, naturals, joined with +, "
                        "or a .toml/.json file")
    parser.add_argument("--decision-timeout", type=seconds, default=DEFAULT_DECISION_TIMEOUT, metavar="SECONDS",
                        help="time limit of one decision (default %(default)g s); in threads (threading, a local "
                        "dask cluster) a decision is not interrupted but judged late when it returns")
    parser.add_argument("--startup-timeout", type=seconds, default=DEFAULT_STARTUP_TIMEOUT, metavar="SECONDS",
                        help="time limit of a bot's start-up in each worker, before the decision clock starts: "
                        "making it and one warm-up decision on a fixed hand (default %(default)g s)")
    parser.add_argument("--on-fault", choices=("stop", "foul"), default="stop",
                        help="a bot that raises, answers badly or runs out of time: stop the run (default), or "
                        "score that hand as a foul, record the fault and go on")
    parser.add_argument("--out", metavar="DIR", help="write the journal, results.json, report.md and plots to DIR")
    parser.add_argument("--resume", metavar="DIR", help="continue the run recorded in DIR (its bots, rules, seed, "
                        "players and sessions); only the missing deals are played")
    parser.add_argument("--json", action="store_true", help="print the results document instead of tables")


def _settings(args: argparse.Namespace) -> dict:
    """The run's settings, from the command line or from the journal of --resume."""
    from bench.journal import JOURNAL, Journal, JournalError
    from bench.parsing import UsageError

    if args.resume:
        if args.bots or args.out:
            raise UsageError("--resume DIR takes the bots and the folder from DIR; give no --bots or --out")
        try:
            contents = Journal.read(Path(args.resume) / JOURNAL)
        except JournalError as error:
            raise UsageError(f"--resume {args.resume}: {error}") from None
        settings = contents.settings
        needed = ("bots", "players", "sessions", "seed", "rules", "decision_timeout", "on_fault")
        missing = [k for k in needed if k not in settings]
        if missing:
            raise UsageError(f"--resume {args.resume}: the journal's settings have no {missing[0]!r}")
        return settings | {"contents": contents}
    if not args.bots:
        raise UsageError("--bots is needed (or --resume DIR)")
    specs = [x.strip() for x in args.bots.split(",") if x.strip()]
    if not specs:
        raise UsageError("--bots needs at least one bot, e.g. --bots greedy,table")
    players = args.players if args.players is not None else min(4, max(2, len(specs)))
    if not 2 <= players <= 4:
        raise UsageError(f"--players must be 2, 3 or 4, got {players}")
    if not args.decision_timeout > 0:
        raise UsageError(f"--decision-timeout must be a number of seconds > 0, got {args.decision_timeout}")
    entropy = args.seed if args.seed is not None else secrets.randbits(32)
    return {"bots": specs, "players": players, "sessions": args.sessions, "seed": entropy, "rules": args.rules,
            "decision_timeout": args.decision_timeout, "on_fault": args.on_fault}


def run(args: argparse.Namespace) -> int:
    from bench.cli import available_cores
    from bench.journal import JOURNAL, Journal
    from bench.parsing import UsageError
    from bench.progress import note
    from bench.tournament import HANDS_PER_SESSION, Match, TournamentError, make_bots
    from bots import BotError, bot_spec
    from solver.rules import Rules, RulesError

    if args.scheduler and args.backend != "dask":
        raise UsageError("--scheduler goes with --backend dask")
    settings = _settings(args)
    contents = settings.pop("contents", None)
    try:
        rules = Rules.parse(settings["rules"]) if isinstance(settings["rules"], str) else \
            Rules.from_dict(settings["rules"])
    except RulesError as error:
        raise UsageError(str(error)) from None
    specs, players, entropy = settings["bots"], settings["players"], settings["seed"]
    out = Path(args.resume) if args.resume else (writable_folder(Path(args.out)) if args.out else None)
    try:
        made = make_bots(specs, rules, str(out) if out is not None else None)
    except BotError as error:
        where = f" (the bots of the run in {args.resume} can no longer be made)" if args.resume else ""
        raise UsageError(f"{error}{where}") from None
    bot_specs = [bot_spec(made[spec]) for spec in specs]
    jobs = available_cores() if args.jobs < 1 else args.jobs
    n_deals = settings["sessions"] * HANDS_PER_SESSION
    try:
        match = Match(tuple(specs), players, entropy, rules, settings["decision_timeout"], settings["on_fault"],
                      str(out) if out is not None else None, args.startup_timeout)
    except TournamentError as error:
        raise UsageError(str(error)) from None
    command = (f"bench tournament --bots {','.join(specs)} --players {players} --sessions {settings['sessions']} "
               f"--seed {entropy} --rules {shlex.quote(settings['rules']) if isinstance(settings['rules'], str) else rules.name}"
               f" --on-fault {match.on_fault} --decision-timeout {match.decision_timeout:g}")

    records: list[dict] = []
    journal = None
    if out is not None:
        if contents is not None:
            if contents.dropped:
                note("the journal's last line was cut short by a crash; its deals are played again")
            for entry in contents.entries:
                records += entry["records"]
            journal = Journal.reopen(out / JOURNAL, contents)
        else:
            journal = Journal.create(out / JOURNAL, settings | {"command": command})
    done = {r["deal"] for r in records}
    missing = [d for d in range(n_deals) if d not in done]
    if args.resume:
        note(f"resuming {out}: {len(done):,} of {n_deals:,} deals done, {len(missing):,} to play")
    else:
        note(f"seed entropy {entropy} (replay with --seed {entropy})")
    started = time.perf_counter()
    stopped: Stopped | None = None
    try:
        with stoppable():
            _play(match, missing, records, journal, jobs, args)
    except Stopped as error:
        stopped = error
    finally:
        if journal is not None:
            journal.close()
    wall = time.perf_counter() - started
    status = 0
    if stopped is not None:
        status = stopped.status
        resume = f"bench tournament --resume {shlex.quote(str(out))}" if out is not None else \
            "nothing was saved: run with --out DIR to be able to resume"
        note(f"stopped by {stopped.name} after {len(records):,} of {n_deals:,} deals; to continue: {resume}")
        if not records:
            return status
    _report(args, out, records, n_deals, command=command, specs=specs, bot_specs=bot_specs, players=players,
            sessions=settings["sessions"], entropy=entropy, wall=wall, jobs=jobs, rules=rules)
    return status


def _play(match, missing: list[int], records: list[dict], journal, jobs: int, args: argparse.Namespace) -> None:
    """Play the missing deals; every finished chunk goes to the journal as it completes."""
    from bench.parsing import UsageError
    from bench.progress import progress
    from bench.tournament import TournamentError, play_sized

    with progress(total=len(missing), desc="deals", unit="deal") as bar:

        def finished(part: list[dict]) -> None:
            records.extend(part)
            if journal is not None:
                journal.append({"records": part})
            bar.update(len(part))

        try:
            play_sized(match, missing, finished, jobs=jobs, backend=args.backend, scheduler=args.scheduler)
        except TournamentError as error:
            raise UsageError(str(error)) from None


def _report(args, out, records, n_deals, **document) -> None:
    """results.json and report.md (marked partial when deals are missing), and the tables."""
    from bench.progress import note
    from bench.results import build_document, render_terminal, write_json, write_report
    from solver.documents import json_ready

    doc = build_document(records=records, backend=args.backend, wall_seconds=document.pop("wall"), **document)
    if len(records) < n_deals:
        doc["partial"] = {"deals_played": len(records), "deals_planned": n_deals}
    if out is not None:
        write_json(doc, out / "results.json")
        report, _ = write_report(doc, out)
        note(f"wrote {out / 'results.json'} and {report}")
    if args.json:
        print(json.dumps(json_ready(doc, digits=6), indent=1, allow_nan=False))
    else:
        print(render_terminal(doc))
