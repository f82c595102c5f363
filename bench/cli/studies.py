"""``python -m bench.cli.studies STUDY``: the studies of ``bench.analysis.studies`` from the
command line, each printed as JSON (the README's rule-set figures come from them)."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import zipfile
from collections.abc import Sequence

import numpy as np

from bench.analysis import estimators, exploit_coverage, sprt_check, studies
from bench.analysis.exploit import ExploitError
from bench.cli.commands.match import field_minimum
from bench.cli.parsing import Parser, UsageError, guarded, positive, seed
from bench.cli.progress import note
from solver import files, system
from solver.documents import json_ready
from solver.interrupts import stoppable
from solver.rules import Rules
from solver.text import show


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="python -m bench.cli.studies", description=(studies.__doc__ or "").split("\n\n")[0])
    parser.add_argument("study", choices=("rules", "naturals", "frequencies", "speed", "estimators", "sprt", "coverage"))
    parser.add_argument("--hands", type=positive, default=200)
    parser.add_argument("--samples", type=positive, default=1000)
    parser.add_argument("--seed", type=seed, default=1)
    parser.add_argument("--deals", type=positive, default=2000, help="estimators: deals of each pair under each rule set")
    parser.add_argument("--rules", default="basic,2-4,1-6", help="estimators: rule sets, comma-separated")
    parser.add_argument("--pairs", default=None, metavar="A/B,...",
                        help="estimators: the pairs, A/B comma-separated (default: every pair of "
                        f"{', '.join(estimators.BOTS)})")
    parser.add_argument("--bots", default="table,heuristic,greedy",
                        help="coverage: the bots whose reduced games are built, comma-separated")
    parser.add_argument("--runs", type=positive, default=2000, help="coverage: simulated runs of each game")
    parser.add_argument("--jobs", type=positive, default=None, help="estimators: workers (default: all cores)")
    parser.add_argument("--save", default=None, metavar="FILE.npz",
                        help="estimators: keep every deal's outcomes, saved after each pair (run the study again "
                        "to go on from there)")
    parser.add_argument("--outcomes", default=None, metavar="FILE.npz",
                        help="sprt: the per-deal outcomes the estimators study kept (its --save)")
    args = parser.parse_args(argv)

    def run() -> int:
        if args.study == "estimators":
            return _estimators(args)
        if args.study == "sprt":
            return _sprt(args)
        if args.study == "coverage":
            return _coverage(args)
        if args.study == "frequencies":
            show(json.dumps(studies.frequency_study(args.hands, args.seed), indent=1), exact=True)
            return 0
        study = {"rules": studies.rule_study, "naturals": studies.natural_study, "speed": studies.speed_study}[args.study]
        with stoppable():
            show(json.dumps(study(args.hands, args.samples, args.seed), indent=1), exact=True)
        return 0

    return guarded("bench.cli.studies", run)


def _estimators(args: argparse.Namespace) -> int:
    pairs = estimators.PAIRS if args.pairs is None else [_pair(text) for text in args.pairs.split(",")]
    jobs = args.jobs or system.available_cores()
    settings = json.dumps({"deals": args.deals, "samples": args.samples, "seed": args.seed}, sort_keys=True)
    kept = _kept_outcomes(args.save, settings) if args.save else None
    total = len(pairs) * len(args.rules.split(","))
    count = 0

    def pair_done(name: str, outcomes: dict[str, np.ndarray]) -> None:
        nonlocal count
        count += 1
        if args.save:  # after every pair: a stopped study goes on from here when run again
            buffer = io.BytesIO()
            np.savez_compressed(buffer, settings=np.array(settings), **outcomes)  # type: ignore[arg-type]
            files.write_atomic(args.save, buffer.getvalue())
        note(f"{count} of {total}: {name}" + (f" (kept in {args.save})" if args.save else ""))

    with stoppable():
        study = estimators.estimator_study(pairs, args.rules.split(","), args.deals, args.samples, args.seed,
                                           jobs=jobs, kept=kept, on_pair=pair_done)
    show(json.dumps(json_ready(study, digits=6), indent=1), exact=True)
    return 0


def _kept_outcomes(path: str, settings: str) -> dict[str, np.ndarray] | None:
    """The outcomes an earlier run of the study saved in ``path`` with the same settings (None
    when there is no such file); a file made with other settings is refused."""
    if not os.path.lexists(path):
        return None
    try:
        with files.arrays(path) as data:
            if "settings" not in data.files or str(data["settings"]) != settings:
                raise UsageError(f"{path} holds a study with other --deals, --samples or --seed; "
                                 "name another file or run it with its settings")
            return {name: np.asarray(data[name]) for name in data.files if name != "settings"}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise UsageError(f"cannot read {path}: {error}") from None


def _sprt(args: argparse.Namespace) -> int:
    if args.outcomes is None:
        raise UsageError("the sprt study needs --outcomes FILE.npz (python -m bench.cli.studies estimators --save)")
    try:
        with files.arrays(args.outcomes) as data:
            outcomes = {name.rsplit("|", 1)[0]: np.asarray(data[name], np.float64)
                        for name in data.files if name.endswith("|field")}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise UsageError(f"cannot read {args.outcomes}: {error}") from None
    if not outcomes:
        raise UsageError(f"{args.outcomes} holds no field outcomes (arrays named RULES|A|B|field)")
    with stoppable():
        rows = sprt_check.sprt_study(outcomes, field_minimum, seed=args.seed)
    show(json.dumps(json_ready({"study": "sprt", "outcomes": args.outcomes, "seed": args.seed, "rows": rows},
                               digits=6), indent=1), exact=True)
    return 0


def _coverage(args: argparse.Namespace) -> int:
    rows = []
    with stoppable():
        for rules_name in args.rules.split(","):
            rules = Rules.parse(rules_name)
            for bot in args.bots.split(","):
                note(f"coverage: {bot} under {rules_name}")
                try:
                    game = exploit_coverage.reduced_game(bot, rules, **exploit_coverage.GAME, seed=args.seed)
                except ExploitError as error:
                    raise UsageError(str(error)) from None
                rows.append({"bot": bot, "rules": rules_name,
                             **exploit_coverage.coverage(game, args.runs, args.hands, args.samples, args.samples,
                                                         seed=args.seed)})
    show(json.dumps(json_ready({"study": "coverage", "game": exploit_coverage.GAME, "seed": args.seed, "rows": rows},
                               digits=6), indent=1), exact=True)
    return 0


def _pair(text: str) -> tuple[str, str]:
    a, slash, b = text.partition("/")
    if not (slash and a and b):
        raise UsageError(f"--pairs takes A/B pairs, comma-separated; got {text!r}")
    return a, b


if __name__ == "__main__":
    sys.exit(main())
