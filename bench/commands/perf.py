"""``bench perf``: run the benchmark suite and write a report (Markdown, JSON, a plot)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "perf",
        help="run the benchmarks and write a report",
        description="Run the pytest-benchmark suite (tests/benchmarks of a source checkout; a few minutes) and "
        "write perf.md, perf.json, perf.png and the raw benchmarks.json.",
    )
    parser.add_argument("--out", metavar="DIR", default="perf", help="folder for the report (default %(default)s)")
    parser.add_argument("-k", dest="select", metavar="EXPR", help="only benchmarks matching EXPR (pytest -k)")
    parser.add_argument("--from-json", metavar="FILE", help="skip the run: report on an earlier benchmarks.json")


def run(args: argparse.Namespace) -> int:
    from bench.parsing import UsageError
    from bench.perf import PerfError, run_suite, write_report

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    raw_path = Path(args.from_json) if args.from_json else out / "benchmarks.json"
    if not args.from_json:
        try:
            run_suite(raw_path, args.select)
        except PerfError as error:
            raise UsageError(str(error)) from None
    try:
        raw = json.loads(raw_path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise UsageError(f"cannot read {raw_path}: {error}") from None
    report = write_report(raw, out)
    print(report.read_text(encoding="utf-8"))
    print(f"wrote {report}")
    return 0
