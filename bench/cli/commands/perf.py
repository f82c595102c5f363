"""``bench perf``: run the benchmark suite and write a report (Markdown, JSON, a plot)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.analysis.perf import PerfError, benchmarks_problem, run_suite, write_report
from bench.cli.parsing import Parser, UsageError, read_json, seed, writable_folder
from solver import files
from solver.text import show


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "perf",
        help="run the benchmarks and write a report",
        description="Run the pytest-benchmark suite (tests/benchmarks of a source checkout; a few minutes) and "
        "write perf.md, perf.json, perf.png and the raw benchmarks.json.",
    )
    parser.add_argument("--out", metavar="DIR", default="perf", help="folder for the report (default %(default)s)")
    parser.add_argument("-k", dest="select", metavar="EXPR", help="only benchmarks matching EXPR (pytest -k)")
    parser.add_argument("--seed", type=seed, default=1, help="the seed of the suite's hands and deals (default %(default)s)")
    parser.add_argument("--from-json", metavar="FILE", help="skip the run: report on an earlier benchmarks.json")


def run(args: argparse.Namespace) -> int:
    out = writable_folder(Path(args.out))
    raw_path = Path(args.from_json) if args.from_json else out / "benchmarks.json"
    if not args.from_json:
        try:
            run_suite(raw_path, args.select, args.seed)
        except PerfError as error:
            raise UsageError(str(error)) from None
        except OSError as error:
            raise UsageError(f"cannot write {raw_path}: {files.describe(error)}") from None
    raw = read_json(raw_path)
    problem = benchmarks_problem(raw)
    if problem:
        raise UsageError(f"{raw_path} is not a pytest-benchmark JSON file: {problem}")
    for entry in raw["benchmarks"]:
        entry.setdefault("extra_info", {})
    try:
        report = write_report(raw, out)
    except (KeyError, TypeError, ValueError) as error:
        raise UsageError(f"{raw_path} lacks what the report needs ({type(error).__name__}: {error}); "
                         "make it with bench perf") from None
    except OSError as error:
        raise UsageError(f"cannot write {error.filename or out}: {files.describe(error)}") from None
    show(files.read_text(report, files.DOCUMENT_BYTES, follow=False))
    show(f"wrote {report}")
    return 0
