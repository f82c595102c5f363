"""``python -m bench.cli.studies STUDY``: the studies of ``bench.analysis.studies`` from the
command line, each printed as JSON (the README's rule-set figures come from them)."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import zipfile
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.analysis import estimators, exploit_coverage, sprt_check, studies
from bench.analysis.exploit import ExploitError
from bench.cli.commands.match import deals_minimum
from bench.cli.parsing import Parser, UsageError, guarded, positive, seed
from bench.cli.progress import note
from bots import BotError, make_bot_for
from bots.identity import bot_identity
from bots.protocol.bot import close_together
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
    parser.add_argument("--pool", action="store_true", help="coverage: simulate runs of bench exploit --pool, whose "
                        "hands share their opponents (each of the game's hands meets the same ones each time it is dealt)")
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
    rule_sets = args.rules.split(",")
    jobs = args.jobs or system.available_cores()
    settings = json.dumps({"deals": args.deals, "samples": args.samples, "seed": args.seed}, sort_keys=True)
    identities = _identities(pairs, rule_sets)
    kept, kept_identities = _kept_outcomes(args.save, settings, args.deals) if args.save else (None, {})
    for key, identity in identities.items():
        if key in kept_identities and kept_identities[key] != identity:
            raise UsageError(f"{args.save} holds {key.replace('|', ' ', 1).replace('|', ' vs ')} played by other "
                             "bots (a tables file or the package changed); name another file")
    total = len(pairs) * len(rule_sets)
    count = 0

    def pair_done(name: str, outcomes: dict[str, np.ndarray]) -> None:
        nonlocal count
        count += 1
        if args.save:  # after every pair: a stopped study goes on from here when run again
            named = {f"{key}|identity": np.array(value) for key, value in (kept_identities | identities).items()}
            buffer = io.BytesIO()
            np.savez_compressed(buffer, settings=np.array(settings), **outcomes, **named)  # type: ignore[arg-type]
            files.write_atomic(args.save, buffer.getvalue())
        note(f"{count} of {total}: {name}" + (f" (kept in {args.save})" if args.save else ""))

    with stoppable():
        study = estimators.estimator_study(pairs, rule_sets, args.deals, args.samples, args.seed,
                                           jobs=jobs, kept=kept, on_pair=pair_done)
    show(json.dumps(json_ready(study, digits=6), indent=1), exact=True)
    return 0


def _identities(pairs: Sequence[tuple[str, str]], rule_sets: Sequence[str]) -> dict[str, str]:
    """Each pair under each rule set (``RULES|A|B``): its two bots as ``bots.identity.bot_identity``
    names them (the files they read, with their digests, and the package's version), as JSON;
    outcomes kept by a study of other bots are not taken for this one's."""
    specs = sorted({spec for pair in pairs for spec in pair})
    identities: dict[str, str] = {}
    for rules_name in rule_sets:
        rules = Rules.parse(rules_name)
        made: dict[str, Any] = {}
        try:
            for spec in specs:
                made[spec] = make_bot_for(spec, rules)
            named = {spec: bot_identity(spec, bot) for spec, bot in made.items()}
        except BotError as error:
            raise UsageError(str(error)) from None
        finally:
            close_together(list(made.values()))
        for a, b in pairs:
            identities[f"{rules_name}|{a}|{b}"] = json.dumps([named[a], named[b]], sort_keys=True)
    return identities


def _kept_outcomes(path: str, settings: str, deals: int) -> tuple[dict[str, np.ndarray] | None, dict[str, str]]:
    """The outcomes an earlier run of the study saved in ``path`` with the same settings, and
    the identities of the bots of each pair (None and nothing when there is no such file); a
    file made with other settings, or whose outcomes are not ``deals`` finite numbers each, is
    refused in one line."""
    if not os.path.lexists(path):
        return None, {}
    try:
        with files.arrays(path) as data:
            if "settings" not in data.files or str(data["settings"]) != settings:
                raise UsageError(f"{path} holds a study with other --deals, --samples or --seed; "
                                 "name another file or run it with its settings")
            kept = {name: np.asarray(data[name]) for name in data.files if name != "settings"}
    except (OSError, ValueError, EOFError, zlib.error, zipfile.BadZipFile) as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    identities = {name.rsplit("|", 1)[0]: str(kept.pop(name)) for name in list(kept) if name.endswith("|identity")}
    for name, values in kept.items():
        if values.shape != (deals,) or values.dtype.kind != "f" or not np.isfinite(values).all():
            raise UsageError(f"cannot read {path}: {name} is not {deals} finite numbers")
    return {name: values.astype(np.float64) for name, values in kept.items()}, identities


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
        rows = sprt_check.sprt_study(outcomes, deals_minimum, seed=args.seed)
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
                                                         seed=args.seed, pooled=args.pool)})
    show(json.dumps(json_ready({"study": "coverage", "game": exploit_coverage.GAME, "seed": args.seed, "rows": rows},
                               digits=6), indent=1), exact=True)
    return 0


def _pair(text: str) -> tuple[str, str]:
    """``A/B`` as the two specs; a spec may itself hold ``/`` (a bot file's path), so the pair is
    split at the first ``/`` whose left side names a bot: a registered name, a ``module:Class``,
    or a file that exists.

    >>> _pair("table/greedy"), _pair("pyproject.toml/table:removal=false")
    (('table', 'greedy'), ('pyproject.toml', 'table:removal=false'))
    """
    from bots.registry import bot_names  # noqa: PLC0415  (the names, plug-ins included, only when pairs are given)

    names = set(bot_names())
    cuts = [i for i, ch in enumerate(text) if ch == "/" and 0 < i < len(text) - 1]
    for i in cuts:
        a, b = text[:i], text[i + 1:]
        if a.split(":")[0] in names or ":" in a or os.path.isfile(a):
            return a, b
    if cuts:
        return text[:cuts[0]], text[cuts[0] + 1:]
    raise UsageError(f"--pairs takes A/B pairs, comma-separated; got {text!r}")


if __name__ == "__main__":
    sys.exit(main())
