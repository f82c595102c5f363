"""``bench report``: rebuild report.md and the plots from a results.json alone."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.cli.parsing import Parser, UsageError, writable_folder
from bench.cli.progress import note, progress
from bench.records.documents import ResultsDocument
from bench.records.schema import results_problem
from bench.report.render import render_terminal, write_report
from bench.report.summary import refresh_field, refresh_results
from bench.run.field import FieldError
from solver import files
from solver.documents import JSONRefused, strict_json
from solver.interrupts import Stopped, stoppable
from solver.limits import ceiling
from solver.text import show


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser("report", help="rebuild a tournament report from results.json",
                            description="Rebuild report.md and the plots from a tournament's results.json: the "
                            "results are computed again from its per-deal records. The file is checked first "
                            "(against its JSON Schema, bench/records/schemas/results.schema.json, then: unique bot names, "
                            "each deal once and inside the run, with the dealer and hands its seed deals); one that "
                            "does not pass is refused. A run with the field estimator has its field figures computed again too, "
                            "which takes about as long as the run spent on them.")
    parser.add_argument("results", help="a results.json written by bench tournament --out")
    parser.add_argument("--out", metavar="DIR", help="folder for the report (default: beside results.json)")


def read_results(path: Path, follow: bool = True) -> Any:
    """The JSON in ``path``, strictly: a file larger than the limit ``document_bytes``
    (``solver.limits``) is refused before it is read, and what ``solver.documents.strict_json``
    refuses (NaN, Infinity, a name given twice, nesting too deep) is refused in one line, as a
    file that cannot be read or is not JSON is. A file the user names may be a link they made
    (``follow``); a run folder's own results.json is read with ``follow=False``."""
    try:
        text = files.read_text(path, int(ceiling("document_bytes")), follow=follow)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"{path} is not JSON: {error}") from None
    try:
        return strict_json(text, str(path))
    except JSONRefused as error:
        raise UsageError(str(error)) from None


def _field_again(doc: ResultsDocument, path: Path) -> ResultsDocument:
    """The field estimator's figures computed again (every differing play scored against its
    simulated opponents once more: about as long as the run spent on them)."""
    try:
        with stoppable(), progress(total=len(doc["records"]), desc="field", unit="deal") as bar:
            return refresh_field(doc, lambda: bar.update())
    except FieldError as error:
        raise UsageError(f"{path}: its field estimator's figures cannot be computed again: {error}") from None


def run(args: argparse.Namespace) -> int:
    path = Path(args.results)
    doc = read_results(path)
    problem = results_problem(doc)
    if problem:
        raise UsageError(f"{path} is not a results.json that bench tournament wrote: {problem}")
    doc = refresh_results(doc)
    if "field" in doc:
        try:
            doc = _field_again(doc, path)
        except Stopped as stopped:
            note(f"bench report: stopped by {stopped.name} while computing the field figures again; nothing was written")
            return stopped.status
    report, _ = write_report(doc, writable_folder(Path(args.out)) if args.out else path.parent)
    show(render_terminal(doc))
    show(f"\nwrote {report}")
    return 0
