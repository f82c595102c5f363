"""``python -m bench.cli.studies STUDY``: the studies of ``bench.analysis.studies`` from the
command line, each printed as JSON (the README's rule-set figures come from them)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from bench.analysis import studies
from bench.cli.parsing import Parser, guarded, positive, seed
from solver.interrupts import stoppable
from solver.text import show


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="python -m bench.cli.studies", description=(studies.__doc__ or "").split("\n\n")[0])
    parser.add_argument("study", choices=("rules", "naturals", "frequencies", "speed"))
    parser.add_argument("--hands", type=positive, default=200)
    parser.add_argument("--samples", type=positive, default=1000)
    parser.add_argument("--seed", type=seed, default=1)
    args = parser.parse_args(argv)

    def run() -> int:
        if args.study == "frequencies":
            show(json.dumps(studies.frequency_study(args.hands, args.seed), indent=1), exact=True)
            return 0
        study = {"rules": studies.rule_study, "naturals": studies.natural_study, "speed": studies.speed_study}[args.study]
        with stoppable():
            show(json.dumps(study(args.hands, args.samples, args.seed), indent=1), exact=True)
        return 0

    return guarded("bench.cli.studies", run)


if __name__ == "__main__":
    sys.exit(main())
