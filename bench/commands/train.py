"""``bench train``: train the ``table`` bot's tables by self-play."""

from __future__ import annotations

import argparse
import io
import math
import sys
import time
from pathlib import Path

from bench.parsing import Stopped, positive, seed, stoppable, writable_file

HANDS, ROUNDS = 200_000, 24
BYTES_PER_HAND = 400  # peak memory a hand of a round takes in training, measured ~240


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "train",
        help="train the table bot by self-play",
        description="Train the table bot's tables by fictitious play from the heuristic bot. The defaults "
        "reproduce the tables that ship with the package.",
    )
    parser.add_argument("--hands", type=positive, default=None, help=f"hands dealt per round (default {HANDS})")
    parser.add_argument("--rounds", type=positive, default=None, help=f"rounds of self-play (default {ROUNDS})")
    parser.add_argument("--seed", type=seed, default=None, help="random seed (default 0)")
    parser.add_argument("--jobs", type=int, default=-1, help="threads (default: all cores); does not change the result")
    parser.add_argument("--rules", default=None, help="scoring method to train for: basic, 1-6 or 2-4 "
                        "(default basic)")
    parser.add_argument("--out", default="table.npz", help="file to write (default %(default)s); after every round "
                        "the training so far is saved beside it, as FILE.checkpoint.npz")
    parser.add_argument("--resume", metavar="FILE", help="continue the training whose --out was FILE, from its "
                        "checkpoint, with the settings it was started with; the tables equal an uninterrupted run's")


def checkpoint_of(out: Path) -> Path:
    """Where the training that writes ``out`` keeps its checkpoint."""
    return out.with_name(out.stem + ".checkpoint.npz")


def run(args: argparse.Namespace) -> int:
    from bench.parsing import UsageError
    from bots.points import available_cores
    from bots.training import TrainingState
    from solver.rules import Rules, RulesError

    resume = None
    if args.resume:
        out = Path(args.resume)
        try:
            resume = TrainingState.load(checkpoint_of(out))
        except ValueError as error:
            raise UsageError(f"--resume {out}: {error}") from None
        for key in ("hands", "rounds", "seed", "rules"):
            given, stored = getattr(args, key), resume.settings[key]
            if given is not None and given != stored:
                raise UsageError(f"--resume {out}: the training was started with --{key} {stored}, not {given}; "
                                 f"give no --{key} to continue it as it was started")
        args.hands, args.rounds, args.seed = (int(resume.settings[k]) for k in ("hands", "rounds", "seed"))
        rounds = args.rounds
    else:
        args.hands = args.hands or HANDS
        args.rounds = rounds = args.rounds or ROUNDS
        args.seed = args.seed if args.seed is not None else 0
        out = Path(args.out)
    try:
        rules = Rules.parse(resume.settings["rules"] if resume else args.rules or "basic")
    except RulesError as error:
        raise UsageError(str(error)) from None
    from solver.solution import available_memory

    have = available_memory()
    if have is not None and args.hands * BYTES_PER_HAND > have:
        raise UsageError(f"{'--resume ' + str(out) + ': ' if resume else ''}--hands {args.hands:,} would need about "
                         f"{args.hands * BYTES_PER_HAND / 2**30:,.1f} GiB of memory, more than the "
                         f"{have / 2**30:,.1f} GiB available; ask for at most {have // BYTES_PER_HAND:,}")
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
