"""``bench tournament``: duplicate sessions between bots, with tables, JSON and a report."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shlex
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.cli.parsing import (
    SPECS,
    Parser,
    UsageError,
    add_log_protocol,
    job_count,
    limited,
    log_protocol,
    positive,
    seconds,
    seed,
    writable_folder,
)
from bench.cli.progress import note, progress
from bench.records.check import Run, records_problem, size_problem
from bench.records.documents import JournalIdentity, ResultsDocument
from bench.records.model import DealRecord, FieldPlan, RunPlan
from bench.report.render import counted, render_terminal, write_report
from bench.report.summary import RunTiming, build_document, write_json
from bench.run.field import FieldError, check_rules, check_samples, field_problem, scored
from bench.run.journal import (
    JOURNAL,
    Contents,
    Journal,
    JournalError,
    identity_change,
    replay_problem,
    run_identity,
    unreplayable,
)
from bench.run.play import RunSettings, TournamentError, make_bots
from bench.run.runner import BACKENDS, play_sized
from bots import BotError, bot_spec
from bots.identity import bot_identity, run_names
from bots.registry import needs_vouching, outside_code, parse_spec
from solver import config, files, system
from solver.documents import json_ready
from solver.files import FolderBusy, FolderLock, describe
from solver.interrupts import Stopped, stoppable
from solver.limits import ceiling
from solver.rules import Rules, RulesError
from solver.text import show

Locker = Callable[[Path], FolderLock]  # locks a run's folder, or refuses in one line


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "tournament",
        help="duplicate 8-hand sessions between bots",
        description="Play duplicate sessions of 8 hands: every deal is replayed with the bots rotated through the "
        "seats. Bots are given by name, with parameters after colons (exhaustive:samples=2000), as a bot "
        "file (my_bot.toml) or program (cmd:./my_bot) that speaks the protocol (docs/protocol.md), or as a "
        "plug-in import path (mypkg.mybot:MyBot). With --out, every finished chunk of deals is saved to "
        "DIR/journal.jsonl as it completes; an interrupted run continues with --resume DIR.",
    )
    parser.add_argument("--bots", help=f"the bots, comma-separated, e.g. greedy,table,my_bot.toml; {SPECS}")
    parser.add_argument("--players", type=int, default=None, help="seats at the table, 2-4 (default: one per bot, at most 4)")
    parser.add_argument("--sessions", type=positive, default=None, help="sessions of 8 hands (default 100)")
    parser.add_argument("--seed", type=seed, default=None, help="seed entropy (default: fresh, printed and stored)")
    parser.add_argument("--jobs", type=job_count, default=-1, help="parallel workers (default: all cores; at most 4 a core)")
    parser.add_argument("--backend", choices=BACKENDS, default="loky", help="where the work runs (default loky)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--rules", default=None,
                        help="rule set: basic (default), 1-6, 2-4, royalties, royalties-win, naturals, joined with +, "
                        "or a .toml/.json file")
    parser.add_argument("--decision-timeout", type=seconds, default=None, metavar="SECONDS",
                        help=f"time limit of one decision (default {config.DEFAULT_DECISION_TIMEOUT:g} s); in threads "
                        "(threading, a local dask cluster) a decision is not interrupted but judged late when it returns")
    parser.add_argument("--startup-timeout", type=seconds, default=None, metavar="SECONDS",
                        help="time limit of a bot's start-up, before the decision clock starts: making it and one "
                        f"warm-up decision on a fixed hand (default {config.DEFAULT_STARTUP_TIMEOUT:g} s); for a "
                        "protocol bot, its hello, unless its bot file sets startup_timeout (default: 10 s before "
                        "the run, the default above in its workers)")
    parser.add_argument("--on-fault", choices=("stop", "foul"), default=None,
                        help="a bot that raises, answers badly or runs out of time: stop the run (default), or "
                        "score that hand as a foul, record the fault and go on")
    parser.add_argument("--estimator", choices=("duplicate", "field"), default=None,
                        help="duplicate (default): the duplicate results only; field: also score every bot's play of "
                        "every hand against the same simulated opponents, set by the field bot, which decides close "
                        "differences far sooner (docs/tournaments.md). Registered in the journal before the first "
                        "deal: a resume cannot change it")
    parser.add_argument("--field", default=None, metavar="SPEC",
                        help="with --estimator field: the bot of this package that sets the simulated opponents "
                        "(default: the first of --bots that can)")
    parser.add_argument("--field-samples", type=limited("samples"), default=None, metavar="K",
                        help=f"with --estimator field: simulated opponents a hand (default {config.DEFAULT_SAMPLES:,})")
    parser.add_argument("--out", metavar="DIR", help="write the journal, results.json, report.md and plots to DIR "
                        "(a folder that holds another run is refused, unless --force)")
    parser.add_argument("--force", action="store_true", help="with --out: discard the run DIR holds (its journal, "
                        "results and report) and start anew")
    parser.add_argument("--resume", metavar="DIR", help="continue the run recorded in DIR (its bots, rules, seed, "
                        "players and sessions, as its journal holds them); only the missing deals are played")
    parser.add_argument("--json", action="store_true", help="print the results document instead of tables")
    add_log_protocol(parser)


RUN_FILES = ("journal.jsonl", "results.json", "report.md", "crosstable.png", "means.png", "cumulative.png",
             "sessions.png")


def _rules(text: str) -> Rules:
    try:
        return Rules.parse(text)
    except RulesError as error:
        raise UsageError(str(error)) from None


def _conflicts(args: argparse.Namespace, plan: RunPlan) -> None:
    """Refuse flags given with --resume that say otherwise than the journal."""
    given: dict[str, tuple[Any, Callable[[Any], Any], Any]] = {
        "--bots": (args.bots, lambda v: tuple(x.strip() for x in v.split(",") if x.strip()), plan.bots),
        "--players": (args.players, lambda v: v, plan.players),
        "--sessions": (args.sessions, lambda v: v, plan.sessions),
        "--seed": (args.seed, lambda v: v, plan.seed),
        "--rules": (args.rules, lambda v: _rules(v).to_dict(), plan.rules),
        "--decision-timeout": (args.decision_timeout, lambda v: v, plan.decision_timeout),
        "--on-fault": (args.on_fault, lambda v: v, plan.on_fault),
    }
    registered = plan.field
    field_flags = {
        "--estimator": (args.estimator, "field" if registered else "duplicate"),
        "--field": (args.field, registered.spec if registered else None),
        "--field-samples": (args.field_samples, registered.samples if registered else None),
    }
    for flag, (value, stored) in field_flags.items():
        if value is not None and value != stored:
            shown = "no field estimator" if registered is None else \
                f"--estimator field --field {registered.spec} --field-samples {registered.samples}"
            raise UsageError(f"--resume {args.resume}: the run was registered with {shown}, not {flag} {value}; "
                             "the estimator, its field and samples are fixed before the first deal: give no "
                             f"{flag} to continue it as it was started")
    for flag, (value, resolve, stored) in given.items():
        if value is not None and resolve(value) != stored:
            shown = ",".join(plan.bots) if flag == "--bots" else plan.rules["name"] if flag == "--rules" else stored
            give = f"give no {flag}"
            if flag == "--bots":
                give = f"give --bots {shlex.quote(str(shown))}" + ("" if needs_vouching(plan.bots) else " or none")
            raise UsageError(f"--resume {args.resume}: the run was started with {flag} {shown}, not {value}; "
                             f"{give} to continue it as it was started")


def _vouched(args: argparse.Namespace, plan: RunPlan) -> None:
    """Refuse to make a resumed run's bot that is not built in (``bots.registry.outside_code``)
    unless --bots names the run's bots again: a journal's header names what it likes, and
    making such a bot imports a module or starts a program."""
    if args.bots is not None:
        return  # the same bots as the journal's (``_conflicts``): the user names them
    try:
        outside = _outside_bots(plan.bots)
    except BotError as error:
        raise UsageError(f"--resume {args.resume}: one of its bots cannot be read: {error}") from None
    if outside:
        named = "; ".join(f"{spec[:80]!r}" + ("" if made == parse_spec(spec)[0] else f" makes {made[:80]!r}")
                          for spec, made in outside)
        raise UsageError(f"--resume {args.resume}: its bots that are not built in, whose making runs their code: "
                         f"{named}; if you trust them, resume with --bots {shlex.quote(','.join(plan.bots))}")


def _outside_bots(specs: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    """Each distinct spec whose making runs code that is not a registered bot's, with the name
    that would be imported or started (``bots.registry.outside_code``)."""
    found = ((spec, outside_code(spec)) for spec in dict.fromkeys(specs))
    return [(spec, made) for spec, made in found if made is not None]


def _resume_command(out: Path, specs: tuple[str, ...] | list[str]) -> str:
    """The command that continues the run in ``out``; with its bots when one of them is not
    built in (a resume makes such a bot only when the user names it)."""
    bots = f" --bots {shlex.quote(','.join(specs))}" if needs_vouching(specs) else ""
    return f"bench tournament --resume {shlex.quote(str(out))}{bots}"


def _settings(args: argparse.Namespace) -> RunPlan:
    """The run's settings from the command line (rules resolved in full), refused before any
    work where ``bench report`` would refuse the run's results (``bench.records.check.size_problem``)."""
    if not args.bots:
        raise UsageError("--bots is needed (or --resume DIR)")
    specs = [x.strip() for x in args.bots.split(",") if x.strip()]
    if not specs:
        raise UsageError("--bots needs at least one bot, e.g. --bots greedy,table")
    players = args.players if args.players is not None else min(4, max(2, len(specs)))
    if not 2 <= players <= 4:
        raise UsageError(f"--players must be 2, 3 or 4, got {players}")
    most = ceiling("sessions")
    if args.sessions is not None and args.sessions > most:
        raise UsageError(f"--sessions is at most {most:,} ({most * 8:,} deals) in one run, got {args.sessions:,}")
    too_large = size_problem(len(specs), players, args.sessions or 100)
    if too_large:
        raise UsageError(f"{too_large}; bench report would refuse its results.json")
    timeout = args.decision_timeout if args.decision_timeout is not None else config.DEFAULT_DECISION_TIMEOUT
    if not 0 < timeout < float("inf"):
        raise UsageError(f"--decision-timeout must be a number of seconds > 0, got {args.decision_timeout}")
    entropy = args.seed if args.seed is not None else secrets.randbits(32)
    rules = _rules(args.rules or "basic")
    return RunPlan(tuple(specs), players, args.sessions or 100, entropy, rules.to_dict(), timeout,
                   args.on_fault or "stop", field=_field_plan(args, specs, rules))


def _field_plan(args: argparse.Namespace, specs: list[str], rules: Rules) -> FieldPlan | None:
    """The field estimator the arguments ask for, checked before any deal; None for duplicate
    results only."""
    if args.estimator != "field":
        if args.field is not None or args.field_samples is not None:
            raise UsageError("--field and --field-samples go with --estimator field")
        return None
    if len(specs) < 2:
        raise UsageError("--estimator field measures bots against each other: give at least two in --bots")
    if args.on_fault == "foul":
        raise UsageError("--estimator field scores every bot's play of every hand, and a fault scored as a foul "
                         "has no play: use --on-fault stop (the default) with it")
    samples = args.field_samples if args.field_samples is not None else config.DEFAULT_SAMPLES
    try:
        check_rules(rules)
        check_samples(samples)
    except FieldError as error:
        raise UsageError(str(error)) from None
    if args.field is not None:
        plan = FieldPlan(args.field, samples)
        problem = field_problem(plan, rules, len(specs))
        if problem:
            raise UsageError(problem)
        return plan
    for spec in specs:
        if field_problem(FieldPlan(spec, samples), rules, len(specs)) is None:
            return FieldPlan(spec, samples)
    raise UsageError("none of --bots can set the field estimator's simulated opponents (a bot of this package "
                     "that sets hands in batches); name one with --field, such as --field table")


def _within_limits(out: Path, plan: RunPlan) -> None:
    """Refuse a journal whose run is beyond the limits (``bench.records.check.size_problem``) before
    any of its bots is made."""
    too_large = size_problem(len(plan.bots), plan.players, plan.sessions)
    if too_large:
        raise UsageError(f"--resume {out}: the journal's run is too large: {too_large}")


def _registered_field(out: Path, plan: RunPlan) -> None:
    """Refuse a journal whose registered field estimator cannot run, before any of its bots is made."""
    if plan.field is None:
        return
    try:
        problem = field_problem(plan.field, Rules.from_dict(plan.rules), len(plan.bots))
    except RulesError:
        return  # the rules are refused in their own words (_settled_rules)
    if problem:
        raise UsageError(f"--resume {out}: the journal's field estimator: {problem}")


def _resumed(args: argparse.Namespace, lock_folder: Locker) -> tuple[Path, FolderLock, Contents]:
    """The journal of the run in --resume DIR (checked line by line), with DIR locked."""
    if args.out or args.force:
        raise UsageError("--resume DIR continues the run in DIR; give no --out or --force")
    folder = Path(args.resume)
    try:
        files.regular(folder / JOURNAL, follow=False, single=True)
    except FileNotFoundError:
        raise UsageError(f"--resume {folder}: there is no run there (no {JOURNAL})") from None
    except OSError as error:
        raise UsageError(f"--resume {folder}: {folder / JOURNAL}: {files.describe(error)}") from None
    lock = lock_folder(folder)
    try:
        contents = Journal.read(folder / JOURNAL)
    except JournalError as error:
        lock.release()
        raise UsageError(f"--resume {folder}: {error}; to play the run again from the start: bench tournament "
                         f"--out {folder} --force with its flags") from None
    return folder, lock, contents


def _fresh_folder(args: argparse.Namespace, lock_folder: Locker) -> tuple[Path, FolderLock]:
    """The --out folder, made if need be and locked; a folder that holds another run is
    refused, or with --force its run is discarded (saying what)."""
    folder = writable_folder(Path(args.out))
    lock = lock_folder(folder)
    held = [name for name in RUN_FILES if os.path.lexists(folder / name)]
    if not held:
        return folder, lock
    for name in held:  # only regular files a run writes are read, or removed by --force
        try:
            files.regular(folder / name, follow=False)
        except OSError as error:
            lock.release()
            raise UsageError(f"--out {folder}: {folder / name}: {files.describe(error)}; a run writes only "
                             "regular files there, so neither a run nor --force touches this one: remove it "
                             "yourself, or choose another folder") from None
    what = ", ".join(held)
    if (folder / JOURNAL).exists():
        try:
            contents = Journal.read(folder / JOURNAL)
            what = f"a run of {len(contents.records):,} of {contents.plan.deals:,} deals ({what})"
        except JournalError:
            what = f"a run whose journal cannot be read ({what})"
    if not args.force:
        lock.release()
        raise UsageError(f"--out {folder} holds {what}; continue it with --resume {folder}, or give --force to "
                         "discard it")
    for name in held:
        try:
            files.remove(folder / name)
        except OSError as error:
            lock.release()
            raise UsageError(f"--force: cannot remove {folder / name}: {files.describe(error)}") from None
    note(f"--force: discarded {what} from {folder}")
    return folder, lock


def _locker() -> Locker:
    def lock_folder(folder: Path) -> FolderLock:
        try:
            lock = FolderLock(folder)
        except FolderBusy as error:
            raise UsageError(str(error)) from None
        except OSError as error:
            raise UsageError(f"cannot lock {folder}: {error.filename or folder}: {files.describe(error)}") from None
        for name in RUN_FILES:  # the temporary files of a run killed while it wrote: no run holds them now
            for stale in folder.glob(f".{name}.*.tmp"):
                with contextlib.suppress(OSError):  # anything but a regular file is left where it is
                    files.remove(stale, missing_ok=True)
        return lock

    return lock_folder


def run(args: argparse.Namespace) -> int:
    if args.scheduler and args.backend != "dask":
        raise UsageError("--scheduler goes with --backend dask")
    if args.force and not args.out:
        raise UsageError("--force goes with --out DIR")
    log_protocol(args)
    lock: FolderLock | None = None
    try:
        if args.resume:
            folder, lock, contents = _resumed(args, _locker())
            _conflicts(args, contents.plan)
            _vouched(args, contents.plan)
            _within_limits(folder, contents.plan)
            _registered_field(folder, contents.plan)
            return _run(args, contents.plan, folder, contents)
        settings = _settings(args)
        out: Path | None = None
        if args.out:
            out, lock = _fresh_folder(args, _locker())
        return _run(args, settings, out, None)
    finally:
        if lock is not None:
            lock.release()


def _run(args: argparse.Namespace, plan: RunPlan, out: Path | None, contents: Contents | None) -> int:
    rules = _settled_rules(args, plan)
    specs, entropy = list(plan.bots), plan.seed
    made = _made_bots(args, specs, rules, out)
    identity = run_identity(specs, made)
    journal_path = out / JOURNAL if out is not None else None
    records = _resumed_records(contents, identity, plan, out, journal_path)
    run_settings = _run_settings(args, plan, rules, out, contents, journal_path)
    plan = replace(plan, command=plan.command or _command(args, plan, rules, run_settings))
    journal = _open_journal(contents, journal_path, plan, identity)
    jobs = system.available_cores() if args.jobs < 1 else args.jobs
    n_deals = plan.deals
    resume = _resume_command(out, specs) if out is not None else None
    done = {r.deal for r in records}
    missing = [d for d in range(n_deals) if d not in done]
    if contents is not None:
        note(f"resuming {out}: {len(done):,} of {n_deals:,} deals done, {len(missing):,} to play")
    else:
        note(f"seed entropy {entropy} (replay with --seed {entropy})")
    if plan.field is not None:
        note(f"field estimator: every play of a hand against the same {counted(plan.field.samples, 'simulated opponent')}, "
             f"set by {plan.field.spec} (registered in the journal with the seed)")
    before = len(records)
    started = time.perf_counter()
    stopped = _score_resumed(run_settings, records, journal, resume)
    if stopped is not None:
        return stopped.status
    stopped = _play_missing(run_settings, missing, records, journal, jobs, args, resume)
    wall = time.perf_counter() - started
    status = 0
    if stopped is not None:
        status = stopped.status
        hint = resume or "nothing was saved: run with --out DIR to be able to resume"
        note(f"stopped by {stopped.name} after {len(records):,} of {n_deals:,} deals; to continue: {hint}")
        if not records:
            return status
    timing = RunTiming(args.backend, jobs, wall, len(records) - before)
    _write_results(args, out, records, n_deals, resume,
                   lambda: build_document(plan, rules, records, _bot_specs(specs, made), timing, run_names(specs, made)))
    return status


def _score_resumed(run_settings: RunSettings, records: list[DealRecord], journal: Journal | None,
                   resume: str | None) -> Stopped | None:
    """Score a resumed run's recorded deals by its field estimator (no document keeps the
    scores: they are worked out again from the plays), or return the signal that stopped it;
    the journal is closed when stopped."""
    plan = run_settings.field
    if plan is None or not records:
        return None
    try:
        with stoppable(), progress(total=len(records), desc="field", unit="deal") as bar:
            for index, record in enumerate(records):
                records[index] = scored(record, plan, run_settings.rules, run_settings.entropy)
                bar.update(1)
    except Stopped as error:
        if journal is not None:
            journal.close()
        note(f"stopped by {error.name} while scoring the recorded deals by the field estimator; nothing was "
             f"lost: continue with {resume}")
        return error
    return None


def _settled_rules(args: argparse.Namespace, plan: RunPlan) -> Rules:
    """The run's rules, from its settings (a resumed run's from its journal)."""
    try:
        return Rules.from_dict(plan.rules, label=plan.rules.get("name"))
    except RulesError as error:
        raise UsageError(f"--resume {args.resume}: the journal's rules: {error}") from None


def _made_bots(args: argparse.Namespace, specs: list[str], rules: Rules, out: Path | None) -> dict[str, Any]:
    """One bot of each spec, made here so that a bad spec fails in one line before any deal."""
    try:
        return make_bots(specs, rules, str(out) if out is not None else None, args.startup_timeout, warm_up=False)
    except BotError as error:
        where = f" (the bots of the run in {args.resume} can no longer be made)" if args.resume else ""
        raise UsageError(f"{error}{where}") from None


def _resumed_records(contents: Contents | None, identity: JournalIdentity, plan: RunPlan, out: Path | None,
                     journal_path: Path | None) -> list[DealRecord]:
    """The deals a resumed run's journal holds, once its bots and records are checked; none for a new run."""
    if contents is None:
        return []
    changed = identity_change(contents.identity, identity)
    if changed:
        raise UsageError(f"--resume {out}: {changed} since the run started; it cannot be continued as the same run")
    problem = records_problem(contents.records, Run.of_plan(plan))
    if problem:
        raise UsageError(f"--resume {out}: {journal_path}: {problem}")
    return contents.records


def _run_settings(args: argparse.Namespace, plan: RunPlan, rules: Rules, out: Path | None, contents: Contents | None,
                  journal_path: Path | None) -> RunSettings:
    """What every worker needs to play the deals; a resumed run's journal must replay under it."""
    try:
        run_settings = RunSettings(plan.bots, plan.players, plan.seed, rules, plan.decision_timeout, plan.on_fault,
                                   str(out) if out is not None else None,
                                   config.DEFAULT_STARTUP_TIMEOUT if args.startup_timeout is None else args.startup_timeout,
                                   log_protocol=args.log_protocol, field=plan.field)
    except TournamentError as error:
        raise UsageError(str(error)) from None
    if contents is not None:
        problem = replay_problem(contents, run_settings)
        if problem:
            raise UsageError(f"--resume {out}: {journal_path}: {problem}")
        _say_unreplayed(contents, out)
    return run_settings


def _say_unreplayed(contents: Contents, out: Path | None) -> None:
    """One line naming the bots whose recorded plays a resume could not play again to check."""
    specs = unreplayable(contents)
    if specs:
        which = ", ".join(repr(spec) for spec in specs)
        note(f"--resume {out}: the plays of {which} were not played again to check them: "
             f"{'it draws' if len(specs) == 1 else 'they draw'} randomness of {'its' if len(specs) == 1 else 'their'} "
             "own (its hello says \"random\": true); they were checked against the deals and the rules only")


def _command(args: argparse.Namespace, plan: RunPlan, rules: Rules, run_settings: RunSettings) -> str:
    """The command line that plays this run again."""
    return (f"bench tournament --bots {','.join(plan.bots)} --players {plan.players} "
            f"--sessions {plan.sessions} --seed {plan.seed} "
            f"--rules {shlex.quote(args.rules) if args.rules else rules.name}"
            f" --on-fault {run_settings.on_fault} --decision-timeout {run_settings.decision_timeout:g}"
            + (f" --estimator field --field {shlex.quote(plan.field.spec)} --field-samples {plan.field.samples}"
               if plan.field is not None else ""))


def _open_journal(contents: Contents | None, journal_path: Path | None, plan: RunPlan,
                  identity: JournalIdentity) -> Journal | None:
    """The run's journal, reopened to append to (a resumed run) or created; None without --out."""
    try:
        if contents is not None and journal_path is not None:
            if contents.dropped:
                note("the journal's last line was cut short by a crash; its deals are played again")
            return Journal.reopen(journal_path, contents)
        if journal_path is not None:
            return Journal.create(journal_path, plan, identity)
    except JournalError as error:
        raise UsageError(str(error)) from None
    return None


def _play_missing(run_settings: RunSettings, missing: list[int], records: list[DealRecord], journal: Journal | None,
                  jobs: int, args: argparse.Namespace,
                  resume: str | None) -> Stopped | None:
    """Play the missing deals until done or stopped by a signal (returned); the journal is
    closed either way."""
    try:
        with stoppable():
            _play(run_settings, missing, records, journal, jobs, args)
    except Stopped as error:
        return error
    except JournalError as error:
        raise UsageError(f"{error}; the journal keeps the {counted(len(records), 'deal')} played before it; once "
                         f"there is room, continue with: {resume}") from None
    finally:
        if journal is not None:
            journal.close()
    return None


def _write_results(args: argparse.Namespace, out: Path | None, records: list[DealRecord], n_deals: int,
                   resume: str | None, document: Callable[[], ResultsDocument]) -> None:
    """The report; a run's file that cannot be written is one line that says how to write it later."""
    try:
        _report(args, out, records, n_deals, document())
    except OSError as error:
        if out is None or error.filename is None:  # the standard output, not the run's files
            raise
        kept = "the 1 deal played; once there is room, write it" if len(records) == 1 else \
            f"all {len(records):,} deals played; once there is room, write them"
        raise UsageError(f"cannot write {error.filename}: {describe(error)}; the journal keeps {kept} with: "
                         f"{resume}") from None


def _bot_specs(specs: list[str], made: dict[str, Any]) -> list[dict[str, Any]]:
    """Each seated bot as results.json describes it: how to make it again, and its identity
    (``bots.identity``: its own, the files it reads, whether its plays can be replayed)."""
    described = []
    for spec in specs:
        identity = bot_identity(spec, made[spec])
        described.append(bot_spec(made[spec]) | {key: identity[key] for key in ("identity", "sha256_by_file",
                                                                                   "replayable")})
    return described


def _play(run_settings: RunSettings, missing: list[int], records: list[DealRecord], journal: Journal | None, jobs: int,
          args: argparse.Namespace) -> None:
    """Play the missing deals; every finished chunk goes to the journal as it completes."""
    with progress(total=len(missing), desc="deals", unit="deal") as bar:

        def finished(part: list[DealRecord]) -> None:
            if journal is not None:
                journal.append([r.deal for r in part], part)
            records.extend(part)
            bar.update(len(part))

        try:
            play_sized(run_settings, missing, finished, jobs=jobs, backend=args.backend, scheduler=args.scheduler)
        except TournamentError as error:
            raise UsageError(str(error)) from None


def _report(args: argparse.Namespace, out: Path | None, records: list[DealRecord], n_deals: int,
            doc: ResultsDocument) -> None:
    """results.json and report.md (marked partial when deals are missing), and the tables."""
    if len(records) < n_deals:
        doc["partial"] = {"played_deal_count": len(records), "planned_deal_count": n_deals}
    if out is not None:
        write_json(doc, out / "results.json")
        report, _ = write_report(doc, out)
        note(f"wrote {out / 'results.json'} and {report}")
    if args.json:
        show(json.dumps(json_ready(doc, digits=6), indent=1, allow_nan=False), exact=True)
    else:
        show(render_terminal(doc))
