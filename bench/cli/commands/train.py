"""``bench train``: train the ``table`` bot's tables by self-play."""

from __future__ import annotations

import argparse
import io
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench.cli.parsing import Parser, UsageError, job_count, limited, seed, writable_file
from bench.cli.progress import note, progress
from bots.training import REMOVAL_HANDS, TrainingState, coupled_round_limit, default_start, train
from solver import config, files, system
from solver.files import describe, write_atomic
from solver.interrupts import Stopped, check_stopped, stoppable
from solver.rules import Rules, RulesError
from solver.text import show

if TYPE_CHECKING:
    from bots.table import FieldTables
    from bots.training import RoundReport, TrainingState


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "train",
        help="train the table bot by self-play",
        description="Train the table bot's tables by fictitious play, from the heuristic bot's rows (basic) or from "
        "the basic tables installed with the package (1-6, 2-4; --start). With the defaults, "
        "bench train --rules basic (or 1-6, 2-4) makes the tables that ship with the package bit for bit, with any "
        "--jobs, and bench train --rules 1-6 --coupling (or 2-4) those that table:coupling=true plays. The "
        "arithmetic is IEEE double in a fixed order, so other machines should give the same bits "
        "(checked on x86-64 only, with the kernels built for generic x86-64 and for AVX-512). Each tables file "
        "records the command that made it and the sha256 of its shares.",
    )
    parser.add_argument("--hands", type=limited("hands"), default=None,
                        help=f"hands dealt per round (default {config.TRAINING_HANDS})")
    parser.add_argument("--rounds", type=limited("rounds"), default=None,
                        help=f"rounds of self-play (default {config.TRAINING_ROUNDS})")
    parser.add_argument("--seed", type=seed, default=None, help=f"random seed (default {config.TRAINING_SEED})")
    parser.add_argument("--jobs", type=job_count, default=-1,
                        help="threads (default: all cores; at most 4 a core); does not change the result")
    parser.add_argument("--rules", default=None, help="scoring method to train for: basic, 1-6 or 2-4 "
                        "(default basic)")
    parser.add_argument("--start", choices=("heuristic", "basic"), default=None,
                        help="the field of round 0: the heuristic bot's rows, or the basic tables installed with the "
                        "package, bots/data/table_basic.npz (default: heuristic for basic, basic for 1-6 and 2-4, as "
                        "the shipped tables were made); the tables record the start's sha256")
    parser.add_argument("--removal-hands", type=limited("removal_hands"), default=None, metavar="N",
                        help="hands the trained tables set at the end, to measure how the field changes when it "
                        "cannot hold the player's cards (table:removal=true; default 1,000,000; 0: none)")
    parser.add_argument("--coupling", action="store_true", default=None,
                        help="1-6 and 2-4: every round's best response weighs the coupling of the field's rows, as "
                        "table:coupling=true plays, on a sample of the field as every round so far set it; the tables "
                        "carry the coupling sample of their own play (bench train --rules R --coupling makes "
                        "bots/data/table_R_coupling.npz, which table:coupling=true plays)")
    parser.add_argument("--out", default=None, help=f"file to write (default {config.TRAINING_OUT}); after every round "
                        "the training so far is saved beside it, as FILE.checkpoint.npz")
    parser.add_argument("--resume", metavar="FILE", help="continue the training whose --out was FILE, from its "
                        "checkpoint, with the settings it was started with; the tables equal an uninterrupted run's")


def checkpoint_of(out: Path) -> Path:
    """Where the training that writes ``out`` keeps its checkpoint."""
    return out.with_name(out.stem + ".checkpoint.npz")


def run(args: argparse.Namespace) -> int:
    resume, out, rules = resolve(args)

    started = time.perf_counter()
    saved = [resume.round if resume else 0]  # the last round saved in the checkpoint
    try:
        tables = _train(args, out, rules, resume, saved)
    except Stopped as stopped:
        note(f"stopped by {stopped.name}: {_kept(saved[0], checkpoint_of(out), 'finished')}; to continue: "
             f"bench train --resume {out}")
        return stopped.status
    _write(tables, out)
    show(f"wrote {out} ({out.stat().st_size:,} bytes) in {time.perf_counter() - started:.0f} s", sys.stderr)
    return 0


def resolve(args: argparse.Namespace) -> tuple[TrainingState | None, Path, Rules]:
    """The checkpoint to resume (or None), the file to write and the rules, from the arguments;
    ``args.hands``, ``args.rounds``, ``args.seed`` and ``args.start`` are set to what the training
    uses (the defaults, or the checkpoint's settings). Bad input is a UsageError."""
    if args.resume and getattr(args, "out", None):
        resumed, other = Path(args.resume), Path(args.out)
        raise UsageError(f"--resume {resumed} writes {resumed}, the file its training was started to write; give no "
                         f"--out (to write {other}, copy {checkpoint_of(resumed)} to {checkpoint_of(other)} and "
                         f"resume {other})")
    resume = _resume(args) if args.resume else None
    out = Path(args.resume or getattr(args, "out", None) or config.TRAINING_OUT)
    if resume is None:
        args.hands = args.hands or config.TRAINING_HANDS
        args.rounds = args.rounds or config.TRAINING_ROUNDS
        args.seed = args.seed if args.seed is not None else config.TRAINING_SEED
    try:
        rules = Rules.parse(resume.settings["rules"] if resume else args.rules or "basic")
    except RulesError as error:
        raise UsageError(str(error)) from None
    _check(args, out, rules, resumed=resume is not None)
    if resume is None:
        args.start = args.start or default_start(rules)
    return resume, out, rules


def _resume(args: argparse.Namespace) -> TrainingState:
    """The checkpoint of the training whose --out was ``args.resume``, its settings copied into ``args``."""
    out = Path(args.resume)
    try:
        resume = TrainingState.load(checkpoint_of(out))
    except ValueError as error:
        raise UsageError(f"--resume {out}: {error}") from None
    for key in ("hands", "rounds", "seed", "rules", "start", "removal_hands", "coupling"):
        given, stored = getattr(args, key, None), resume.settings[key]
        if given is not None and given != stored:
            flag = key.replace("_", "-")
            started = f"without --{flag}" if stored is False else f"with --{flag} {stored}, not {given}"
            raise UsageError(f"--resume {out}: the training was started {started}; "
                             f"give no --{flag} to continue it as it was started")
    args.hands, args.rounds, args.seed = (int(resume.settings[k]) for k in ("hands", "rounds", "seed"))
    args.removal_hands = int(resume.settings["removal_hands"])
    args.start = resume.settings["start"]
    args.coupling = bool(resume.settings["coupling"])
    return resume


def _check(args: argparse.Namespace, out: Path, rules: Rules, resumed: bool) -> None:
    """Refuse, before any work, a training that memory cannot hold, rules tables are not trained
    for, or an --out that cannot be written."""
    have = system.available_memory()
    removal = getattr(args, "removal_hands", None)
    if removal is not None and removal < 0:
        raise UsageError(f"--removal-hands must be 0 or more, got {removal}")
    per_hand = config.TRAINING_BYTES_PER_HAND
    if have is not None and removal is not None and removal * per_hand > have:
        raise UsageError(f"--removal-hands {removal:,} would need about {removal * per_hand / 2**30:,.1f} GiB of "
                         f"memory, more than the {have / 2**30:,.1f} GiB available; ask for at most "
                         f"{have // per_hand:,}")
    if have is not None and args.hands * per_hand > have:
        raise UsageError(f"{'--resume ' + str(out) + ': ' if resumed else ''}--hands {args.hands:,} would need about "
                         f"{args.hands * per_hand / 2**30:,.1f} GiB of memory, more than the "
                         f"{have / 2**30:,.1f} GiB available; ask for at most {have // per_hand:,}")
    if rules.royalties or rules.naturals:
        raise UsageError("tables are trained per scoring method (basic, 1-6, 2-4); royalties and naturals are "
                         "added in play, without training")
    if getattr(args, "coupling", None) and rules.is_separable:
        raise UsageError(f"--coupling: {rules.scoring} scoring's rows do not couple; it is for --rules 1-6 and 2-4")
    if getattr(args, "coupling", None) and not resumed and args.rounds > coupled_round_limit():
        raise UsageError(f"--coupling keeps every round's play of the coupling hands in the checkpoint: --rounds "
                         f"must be at most {coupled_round_limit():,}, got {args.rounds:,}")
    if out.suffix != ".npz":
        raise UsageError(f"--out {out}: tables are saved as .npz files; name it {out.name}.npz")
    writable_file(out)


def _kept(done: int, checkpoint: Path, verb: str) -> str:
    return f"round {done} is saved in {checkpoint}" if done else f"no round was {verb}"


def _train(args: argparse.Namespace, out: Path, rules: Rules, resume: TrainingState | None, saved: list[int]) -> FieldTables:
    """The trained tables, with a progress bar and a checkpoint saved after every round (its
    round in ``saved[0]``); a signal raises Stopped."""
    checkpoint = checkpoint_of(out)

    def save(state: TrainingState) -> None:
        try:
            state.save(checkpoint)
        except OSError as error:
            raise UsageError(f"cannot save round {state.round} in {checkpoint}: {describe(error)}; "
                             f"{_kept(saved[0], checkpoint, 'saved')}; once there is room, continue with: "
                             f"bench train --resume {out}") from None
        saved[0] = state.round

    with stoppable(), progress(total=args.rounds, initial=saved[0], desc="rounds", unit="round") as bar:

        def on_round(report: RoundReport) -> None:
            change = "" if math.isnan(report.points_change) else f", points moved {report.points_change:.4f}"
            note(f"round {report.round:3d}: {100 * report.changed:5.2f}% of check hands changed{change}")
            bar.update(1)
            check_stopped()  # a stop lost while the kernels compiled

        tables, _ = train(hands=args.hands, rounds=args.rounds, seed=args.seed,
                          jobs=args.jobs if args.jobs > 0 else system.available_cores(), on_round=on_round, rules=rules,
                          checkpoint=save, resume=resume, start=args.start, removal_hands=removal_hands(args),
                          coupling=bool(getattr(args, "coupling", None)))
    tables.info["command"] = command(args.hands, args.rounds, args.seed, rules.name, args.start, removal_hands(args),
                                     bool(getattr(args, "coupling", None)))
    return tables


def removal_hands(args: argparse.Namespace) -> int:
    return REMOVAL_HANDS if getattr(args, "removal_hands", None) is None else args.removal_hands


def command(hands: int, rounds: int, seed: int, rules: str, start: str, removal: int | None = None,
            coupling: bool = False) -> str:
    """The ``bench train`` command that makes tables with these settings (without its --out)."""
    tail = "" if removal in (None, REMOVAL_HANDS) else f" --removal-hands {removal}"
    tail += " --coupling" if coupling else ""
    return f"bench train --rules {rules} --hands {hands} --rounds {rounds} --seed {seed} --start {start}{tail}"


def _write(tables: FieldTables, out: Path) -> None:
    """Write the tables to ``out`` whole or not at all, then drop the checkpoint."""
    data = io.BytesIO()
    tables.save(data)  # numpy writes to a file object as well as to a path
    try:
        write_atomic(out, data.getvalue())
    except OSError as error:
        raise UsageError(f"cannot write {out}: {describe(error)}; every round is saved in {checkpoint_of(out)}; once "
                         f"there is room, write the tables with: bench train --resume {out}") from None
    files.remove(checkpoint_of(out), missing_ok=True)
