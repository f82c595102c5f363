"""``bench verify``: play a run's deals again from its journal and compare every play."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from bench.cli.commands.report import read_results
from bench.cli.parsing import Parser, UsageError, job_count
from bench.cli.progress import note, progress
from bench.records.check import Run, records_problem
from bench.report.summary import results_difference
from bench.run.journal import JOURNAL, Contents, Journal, JournalError, JournalVersionError
from bench.run.play import close_bots
from bench.run.runner import BACKENDS
from bench.run.verify import RunProblem, Tally, document, plan, render, replay, summary
from solver import files, system
from solver.interrupts import Stopped, stoppable
from solver.text import show, terminal


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "verify",
        help="replay a run's deals from its journal and compare every play",
        description="Check DIR/journal.jsonl line by line, then play every deal it holds again with the run's "
        "bots (made from the header's specs, with its seed and rules) and compare each play with its record: "
        "the arrangement, the declared natural, the row values and the foul. A bot that cannot be made here, "
        "or whose files or identity changed since the run, is not replayed, and the report says why; nor is one "
        "that is not built in unless --bots names it (making it runs its code). Exit "
        "status 0 when every replayed play matches, 1 when a play differs or the journal is damaged, 2 for "
        "bad input.",
    )
    parser.add_argument("folder", metavar="DIR", help="a run folder written by bench tournament --out DIR")
    parser.add_argument("--jobs", type=job_count, default=-1, help="parallel workers (default: all cores; at most 4 a core)")
    parser.add_argument("--backend", choices=BACKENDS, default="loky", help="where the replay runs (default loky)")
    parser.add_argument("--bots", metavar="SPECS", default="",
                        help="comma-separated specs of the run's bots that are not built in (plug-ins, import paths, "
                        "protocol bots) and that you trust to run here: such a bot is replayed only when named here")
    parser.add_argument("--json", action="store_true", help="print the verify document instead of tables")


def _journal(folder: Path) -> tuple[Contents | None, str | None]:
    """The run's journal, read and checked line by line, or the one line that says what is
    wrong with it (a damaged journal); a folder that holds no run is bad input."""
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder; give the folder of a run (bench tournament --out DIR)")
    try:
        files.regular(folder / JOURNAL, follow=False)  # a file of this folder; a second name is harmless to a reader
    except FileNotFoundError:
        raise UsageError(f"{folder} holds no run: there is no {JOURNAL} in it (bench tournament --out DIR writes "
                         "one)") from None
    except OSError as error:
        raise UsageError(f"{folder / JOURNAL}: {files.describe(error)}") from None
    try:
        contents = Journal.read(folder / JOURNAL)
    except JournalVersionError as error:
        raise UsageError(str(error)) from None
    except JournalError as error:
        return None, str(error)
    problem = records_problem(contents.records, Run.of_plan(contents.plan))
    if problem:
        return None, f"{folder / JOURNAL}: {problem}"
    return contents, None


def _results(folder: Path, contents: Contents) -> tuple[int | None, str | None]:
    """The deals of the run's results.json and what keeps it from being the journal's; (None,
    None) when the folder holds none."""
    path = folder / "results.json"
    if not os.path.lexists(path):
        return None, None
    try:
        doc = read_results(path, follow=False)  # a file of the run's folder, never read through a link
    except UsageError as error:
        return 0, str(error)
    records = doc.get("records") if isinstance(doc, dict) else None
    if isinstance(doc, dict) and doc.get("field") is not None and isinstance(records, list):
        note(f"bench verify: scoring the {len(records):,} deals of results.json again by its field estimator")
    return len(records) if isinstance(records, list) else 0, results_difference(doc, contents)


def _vouched(bots: str, contents: Contents) -> set[str]:
    """The specs of --bots, each one of the run's bots: a spec the run does not have is a
    mistake to say, not to pass over (its bot would silently stay unreplayed)."""
    vouched = {spec.strip() for spec in bots.split(",") if spec.strip()}
    unknown = sorted(vouched - set(contents.plan.bots))
    if unknown:
        raise UsageError(f"--bots {terminal(unknown[0][:80])!r} is not a bot of this run; its bots: "
                         f"{terminal(','.join(contents.plan.bots))[:400]}")
    return vouched


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    jobs = system.available_cores() if args.jobs < 1 else args.jobs
    contents, problem = _journal(folder)
    planned = None
    tally = Tally()
    results = _results(folder, contents) if contents is not None else (None, None)
    try:
        if contents is not None:
            try:
                planned = plan(contents, _vouched(args.bots, contents))
            except RunProblem as error:
                problem = str(error)
        if contents is not None and planned is not None:
            deals = len(contents.records) if planned.replayed else 0
            with progress(total=deals, desc="replayed", unit="deal") as bar:

                def advance(_: Tally, count: int) -> None:
                    bar.update(count)

                try:
                    with stoppable():
                        replay(contents, planned, advance, jobs=jobs,
                               backend=args.backend, tally=tally)
                except Stopped as stopped:
                    bar.close()
                    note(f"bench verify: {summary(document(str(folder), contents, planned, tally), stopped.name)}")
                    return stopped.status
    finally:
        close_bots()
    doc = document(str(folder), contents, planned, tally, problem, results)
    if args.json:
        show(json.dumps(doc, indent=1, ensure_ascii=False), exact=True)
    elif problem is not None:
        show(f"bench verify: {terminal(str(folder))}: the journal is damaged: {terminal(problem)}", sys.stderr)
    else:
        show(render(doc))
    return 0 if doc["verified"] else 1
