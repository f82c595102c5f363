"""``bench report``: rebuild report.md and the plots from a results.json alone."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub) -> None:
    parser = sub.add_parser("report", help="rebuild a tournament report from results.json",
                            description="Rebuild report.md and the plots from a tournament's results.json: the "
                            "results are computed again from its per-deal records.")
    parser.add_argument("results", help="a results.json written by bench tournament --out")
    parser.add_argument("--out", metavar="DIR", help="folder for the report (default: beside results.json)")


def run(args: argparse.Namespace) -> int:
    from bench.parsing import UsageError, read_json, writable_folder
    from bench.results import document_problem, render_terminal, write_report

    path = Path(args.results)
    doc = read_json(path)
    problem = document_problem(doc)
    if problem:
        raise UsageError(f"{path} is not a results.json that bench tournament wrote: {problem}")
    from bench.results import refresh_results

    doc = refresh_results(doc)
    report, _ = write_report(doc, writable_folder(Path(args.out)) if args.out else path.parent)
    print(render_terminal(doc))
    print(f"\nwrote {report}")
    return 0
