"""What several test files share: ``bench`` run as a user runs it, and records without their timings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.records.model import DealRecord

ROOT = Path(__file__).resolve().parents[1]
ENV = os.environ | {"PYTHONPATH": str(ROOT)}  # the bots in tests/ can be named by import path


def bench(*args: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``python -m bench.cli ARGS`` in a child process run from the checkout, its output captured as text."""
    return subprocess.run([sys.executable, "-m", "bench.cli", *args], cwd=ROOT, env=env or ENV, capture_output=True,
                          text=True, timeout=600, **kwargs)


def without_seconds(records: list) -> list:
    """Records in deal order without the seconds each decision took (timing is not reproducible):
    in memory (``DealRecord``) or as a document holds them (rows)."""
    if records and isinstance(records[0], DealRecord):
        return [r.without_seconds() for r in sorted(records, key=lambda r: r.deal)]
    return [r | {"plays": [[{k: v for k, v in p.items() if k != "seconds"} for p in row] for row in r["plays"]]}
            for r in sorted(records, key=lambda r: r["deal"])]


def results_records(folder: Path) -> list[dict]:
    """The records of a run's ``results.json``, in deal order, without their timings."""
    return without_seconds(json.loads((folder / "results.json").read_text())["records"])


def put_at(path: str, value):
    """A change to a JSON document: put ``value`` at ``path`` (keys and list indices joined by dots)."""

    def change(doc):
        *head, last = path.split(".")
        target = doc
        for key in head:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value
        return doc

    return change
