"""Mutation testing of the modules that decide numbers (docs/testing.md, "Mutation testing").

    python .mutation/run.py [MODULE ...] [--retest] [--report]

MODULE names come from .mutation/modules.toml (default: all). The tracked and new files of
this checkout are copied to .mutation/work/MODULE, where cosmic-ray rewrites the module
(so this checkout can be edited meanwhile, a run stopped hard leaves no mutant in it, and
two modules can be run at once, by two commands); each module's session is
.mutation/sessions/MODULE.sqlite. Running again resumes: only
mutants not yet tested are run, unless the module's source changed (then it starts over).
--retest runs the survivors again (after tests were added), --survivors-only with it runs no
mutant not run yet; --report only prints the scores.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "work"  # a copy of the checkout for each module
SESSIONS = HERE / "sessions"
SETTINGS = tomllib.loads((HERE / "modules.toml").read_text())
BIN = Path(sys.executable).parent  # cosmic-ray's commands, installed beside this Python


def copy_checkout(work: Path) -> None:
    """The checkout's tracked and new files (not ignored ones) into ``work``, afresh."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    shutil.rmtree(work, ignore_errors=True)
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not name.startswith(".mutation/"):
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, work / name)


def environment(module: dict, work: Path) -> dict[str, str]:
    """The work copy first on the path; no pytest plugins from entry points (the tests here
    need none, and loading them costs seconds a mutant)."""
    return os.environ | {"PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1",
                         "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"} | module.get("env", {})


def test_command(module: dict) -> str:
    return shlex.join([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *module["tests"]])


def annotation_spans(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where the type annotations of a module are: a mutant there changes no behaviour (the
    modules use ``from __future__ import annotations``, so annotations are never evaluated)."""
    spans = []
    for node in ast.walk(ast.parse(path.read_text())):
        found = []
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            found.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            found.append(node.returns)
        spans += [((a.lineno, a.col_offset), (a.end_lineno or a.lineno, a.end_col_offset or 0)) for a in found]
    return spans


def skip_annotations(db: WorkDB, path: Path) -> None:
    spans = annotation_spans(path)
    for item in list(db.pending_work_items):
        if all(any(start <= tuple(m.start_pos) and tuple(m.end_pos) <= end for start, end in spans) for m in item.mutations):
            db.set_result(item.job_id, WorkResult(output="in a type annotation", worker_outcome=WorkerOutcome.SKIPPED))


OUTSIDE = "outside the functions of this run (modules.toml: only)"


def skip_outside(session: Path, only: list[str]) -> None:
    """Leave out the mutants outside the functions named in ``only`` (all when it is empty)."""
    with sqlite3.connect(session) as connection:
        connection.execute("DELETE FROM work_results WHERE output = ?", (OUTSIDE,))
        if only:
            marks = ", ".join("?" * len(only))
            connection.execute(
                "INSERT OR REPLACE INTO work_results (worker_outcome, output, job_id) SELECT 'SKIPPED', ?, job_id"
                f" FROM mutation_specs WHERE COALESCE(definition_name, '') NOT IN ({marks}) AND job_id NOT IN"
                " (SELECT job_id FROM work_results WHERE worker_outcome = 'SKIPPED')", (OUTSIDE, *only))


def prepare(name: str, module: dict) -> tuple[Path, Path]:
    """The cosmic-ray config of a module (its tests checked to pass unmutated, and timed), and
    its session, made anew when the module's source changed."""
    SESSIONS.mkdir(exist_ok=True)
    config, session, stamp = (SESSIONS / f"{name}{suffix}" for suffix in (".toml", ".sqlite", ".sha256"))
    work = WORK / name
    source = work / module["path"]
    started = time.monotonic()
    baseline = subprocess.run(shlex.split(test_command(module)), cwd=work, env=environment(module, work),
                              capture_output=True, text=True)
    if baseline.returncode:
        sys.exit(f"{name}: the tests fail without any mutant:\n{baseline.stdout[-3000:]}{baseline.stderr[-2000:]}")
    timeout = max(SETTINGS["min-timeout"], SETTINGS["timeout-factor"] * (time.monotonic() - started))
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {module['path']!r}\n"
        f"timeout = {timeout:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {test_command(module)!r}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = {SETTINGS['exclude-operators']!r}\n"
    )
    digest = hashlib.sha256(source.read_bytes()).hexdigest()  # new tests do not restart it: --retest
    if not (session.exists() and stamp.exists() and stamp.read_text() == digest):
        session.unlink(missing_ok=True)
        subprocess.run([BIN / "cosmic-ray", "init", str(config), str(session)], cwd=work, check=True)
        subprocess.run([BIN / "cr-filter-operators", str(session), str(config)], cwd=work, check=True)
        with use_db(str(session)) as db:
            skip_annotations(db, source)
        stamp.write_text(digest)
    skip_outside(session, module.get("only", []))
    return config, session


NOT_RUN = "not run: the run was stopped before it (--survivors-only)"


def hold_back_pending(session: Path) -> None:
    """Mark the mutants never run as not run, so that exec runs only the survivors."""
    with sqlite3.connect(session) as connection:
        connection.execute("INSERT INTO work_results (worker_outcome, output, job_id) SELECT 'SKIPPED', ?, job_id"
                           " FROM work_items WHERE job_id NOT IN (SELECT job_id FROM work_results)", (NOT_RUN,))


def release_held_back(session: Path) -> None:
    with sqlite3.connect(session) as connection:
        connection.execute("DELETE FROM work_results WHERE output = ?", (NOT_RUN,))


def retest_survivors(session: Path) -> None:
    """Forget the survivors' results, so that the next exec runs them again."""
    with sqlite3.connect(session) as connection:
        connection.execute("DELETE FROM work_results WHERE worker_outcome = 'NORMAL' AND test_outcome = 'SURVIVED'")


def report(name: str, module: dict, session: Path) -> None:
    """killed / tested, and each survivor's diff (also in sessions/NAME-survivors.txt)."""
    with use_db(str(session)) as db:
        results = [(i, r) for i, r in db.completed_work_items if r.worker_outcome != WorkerOutcome.SKIPPED]
        pending = sum(1 for _ in db.pending_work_items) + sum(1 for _, r in db.completed_work_items if r.output == NOT_RUN)
    killed = [r for _, r in results if r.test_outcome == TestOutcome.KILLED]
    survivors = [(i, r) for i, r in results if r.test_outcome == TestOutcome.SURVIVED]
    other = len(results) - len(killed) - len(survivors)
    score = f"{100 * len(killed) / len(results):.1f}%" if results else "-"
    times = SESSIONS / f"{name}.seconds"
    spent = sum(int(t) for t in times.read_text().split()) if times.exists() else 0
    print(f"{name} ({module['path']}): {len(killed)} killed / {len(results)} tested = {score}; "
          f"{len(survivors)} survived, {other} incompetent, {pending} not yet run; {spent / 60:.0f} min of runs")
    lines = []
    for item, result in sorted(survivors, key=lambda x: tuple(x[0].mutations[0].start_pos)):
        m = item.mutations[0]
        lines.append(f"--- {item.job_id} {m.operator_name} line {m.start_pos[0]}\n{result.diff}\n")
    (SESSIONS / f"{name}-survivors.txt").write_text("".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=", ".join(SETTINGS["modules"]))
    parser.add_argument("--retest", action="store_true", help="run the surviving mutants again")
    parser.add_argument("--survivors-only", action="store_true",
                        help="with --retest: run the survivors again and no mutant not run yet")
    parser.add_argument("--report", action="store_true", help="only print the scores")
    args = parser.parse_args()
    names = args.modules or list(SETTINGS["modules"])
    unknown = set(names) - set(SETTINGS["modules"])
    if unknown:
        parser.error(f"unknown module {sorted(unknown)[0]!r}; choose from: {', '.join(SETTINGS['modules'])}")
    for name in names:
        module = SETTINGS["modules"][name]
        if not args.report:
            copy_checkout(WORK / name)
        if args.report:
            session = SESSIONS / f"{name}.sqlite"
        else:
            config, session = prepare(name, module)
            release_held_back(session)
            if args.survivors_only:
                hold_back_pending(session)
            if args.retest:
                retest_survivors(session)
            started = time.monotonic()
            subprocess.run([BIN / "cosmic-ray", "exec", str(config), str(session)], cwd=WORK / name,
                           env=environment(module, WORK / name), check=True)
            spent = time.monotonic() - started
            with open(SESSIONS / f"{name}.seconds", "a") as log:  # every run's time, for the total in the report
                log.write(f"{spent:.0f}\n")
            print(f"{name}: ran for {spent:.0f} s")
        report(name, module, session)
    return 0


if __name__ == "__main__":
    sys.exit(main())
