"""``bench train``: train the ``table`` bot's tables by self-play."""

from __future__ import annotations

import argparse
import io
import math
import sys
import time
from pathlib import Path

from bench.parsing import Stopped, positive, seed, stoppable, writable_file


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "train",
        help="train the table bot by self-play",
        description="Train the table bot's tables by fictitious play from the heuristic bot. The defaults "
        "reproduce the tables that ship with the package.",
    )
    parser.add_argument("--hands", type=positive, default=200_000, help="hands dealt per round (default %(default)s)")
    parser.add_argument("--rounds", type=positive, default=24, help="rounds of self-play (default %(default)s)")
    parser.add_argument("--seed", type=seed, default=0, help="random seed (default %(default)s)")
    parser.add_argument("--jobs", type=int, default=-1, help="threads (default: all cores); does not change the result")
    parser.add_argument("--rules", default="basic", help="scoring method to train for: basic, 1-6 or 2-4 "
                        "(default %(default)s)")
    parser.add_argument("--out", default="table.npz", help="file to write (default %(default)s); after every round "
                        "the training so far is saved beside it, as FILE.checkpoint.npz")
    parser.add_argument("--resume", metavar="FILE", help="continue the training whose --out was FILE, from its "
                        "checkpoint, with the settings it was started with; the tables equal an uninterrupted run's")


def checkpoint_of(out: Path) -> Path:
    """Where the training that writes ``out`` keeps its checkpoint."""
    return out.with_name(out.stem + ".checkpoint.npz")


def run(args: argparse.Namespace) -> int:
    from bench.cli import available_cores
    from bench.parsing import UsageError
    from bots.training import TrainingState
    from solver.rules import Rules, RulesError

    resume = None
    if args.resume:
        out = Path(args.resume)
        try:
            resume = TrainingState.load(checkpoint_of(out))
        except ValueError as error:
            raise UsageError(f"--resume {out}: {error}") from None
        rounds = int(resume.settings["rounds"])
    else:
        rounds = args.rounds
        out = Path(args.out)
    try:
        rules = Rules.parse(resume.settings["rules"] if resume else args.rules)
    except RulesError as error:
        raise UsageError(str(error)) from None
    if rules.royalties or rules.naturals:
        raise UsageError("tables are trained per scoring method (basic, 1-6, 2-4); royalties and naturals are "
                         "added in play, without training")
    if out.suffix != ".npz":
        raise UsageError(f"--out {out}: tables are saved as .npz files; name it {out.name}.npz")
    writable_file(out)

    from bench.files import describe, write_atomic
    from bench.progress import note, progress
    from bots.training import train

    jobs = args.jobs if args.jobs > 0 else available_cores()
    started = time.perf_counter()
    checkpoint = checkpoint_of(out)
    done = [resume.round if resume else 0]

    def save(state) -> None:
        try:
            state.save(checkpoint)
        except OSError as error:
            kept = f"round {done[0]} is saved in {checkpoint}" if done[0] else "no round was saved"
            raise UsageError(f"cannot save round {state.round} in {checkpoint}: {describe(error)}; {kept}; once "
                             f"there is room, continue with: bench train --resume {out}") from None
        done[0] = state.round

    try:
        with stoppable(), progress(total=rounds, initial=done[0], desc="rounds", unit="round") as bar:

            def on_round(report) -> None:
                change = "" if math.isnan(report.points_change) else f", points moved {report.points_change:.4f}"
                note(f"round {report.round:3d}: {100 * report.changed:5.2f}% of check hands changed{change}")
                bar.update(1)

            tables, _ = train(hands=args.hands, rounds=args.rounds, seed=args.seed, jobs=jobs, on_round=on_round,
                              rules=rules, checkpoint=save, resume=resume)
    except Stopped as stopped:
        kept = f"round {done[0]} is saved in {checkpoint}" if done[0] else "no round was finished"
        note(f"stopped by {stopped.name}: {kept}; to continue: bench train --resume {out}")
        return stopped.status
    data = io.BytesIO()
    tables.save(data)  # type: ignore[arg-type]  # numpy writes to a file object as well as to a path
    try:
        write_atomic(out, data.getvalue())
    except OSError as error:
        raise UsageError(f"cannot write {out}: {describe(error)}; every round is saved in {checkpoint}; once there "
                         f"is room, write the tables with: bench train --resume {out}") from None
    checkpoint.unlink(missing_ok=True)
    print(f"wrote {out} ({out.stat().st_size:,} bytes) in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0
