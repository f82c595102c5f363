"""``bench match A B``: a heads-up duplicate match that stops when the answer is known (SPRT)."""

from __future__ import annotations

import argparse
import json
import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from bench.analysis.sprt import Moments, Sprt, SprtError
from bench.cli.parsing import SPECS, Parser, UsageError, add_log_protocol, job_count, limited, log_protocol, seed
from bench.cli.progress import note, progress
from bench.records.model import DealRecord
from bench.report.summary import table_scores
from bench.run.play import RunSettings, TournamentError, make_bots
from bench.run.runner import BACKENDS, run_chunks
from bots.identity import bot_identity
from solver import config, system
from solver.documents import json_ready
from solver.interrupts import Stopped, stoppable
from solver.rules import Rules
from solver.statistics import Estimate
from solver.text import quote, show, terminal


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "match",
        help="a heads-up duplicate match that stops by SPRT",
        description="Play bot A against bot B, every deal in both seats, until a sequential probability ratio "
        "test decides between H0 (A's mean advantage is the first number of --sprt, in units per deal) and H1 "
        "(the second), or until --max-deals. The test is looked at every 16 deals, in deal order, so the "
        "decision does not depend on the number of workers. It is a GSPRT on the mean of the deals' duplicate "
        "results with their variance estimated; deals that all come out the same decide nothing. "
        "See docs/match.md.",
    )
    parser.add_argument("a", metavar="A", help=f"bot of player A; {SPECS}")
    parser.add_argument("b", metavar="B", help="bot of player B, as A")
    parser.add_argument("--sprt", default="0,0.05", metavar="H0,H1",
                        help="A's mean advantage under H0 and H1, finite, H0 below H1, units per deal, such as "
                        "-0.01,0.01 (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=0.05, help="false H1 rate, above 0 and below 0.5 (default %(default)s)")
    parser.add_argument("--beta", type=float, default=0.05, help="false H0 rate, above 0 and below 0.5 (default %(default)s)")
    parser.add_argument("--max-deals", type=limited("deals"), default=20_000, help="stop here undecided (default %(default)s)")
    parser.add_argument("--seed", type=seed, default=None, help="seed entropy (default: fresh, printed)")
    parser.add_argument("--rules", default="basic", help="rule set (default basic)")
    parser.add_argument("--jobs", type=job_count, default=-1, help="parallel workers (default: all cores; at most 4 a core)")
    parser.add_argument("--backend", choices=BACKENDS, default="loky")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_log_protocol(parser)


def _check_plan(max_deals: int) -> None:
    """Refuse, before any work, a --max-deals whose plan would not fit in the memory left."""
    need, have = max_deals * config.BYTES_PER_DEAL, system.available_memory()
    if have is not None and need > have:
        raise UsageError(f"--max-deals {max_deals:,} would need about {need / 2**30:,.1f} GiB of memory for its plan "
                         f"of deals, more than the {have / 2**30:,.1f} GiB available; ask for at most "
                         f"{have // config.BYTES_PER_DEAL:,}")


class _Decided(Exception):
    """The test decided: the remaining work is cancelled."""


def _hypotheses(text: str) -> tuple[float, float]:
    try:
        h0, h1 = (float(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"--sprt takes two numbers, H0,H1, such as 0,0.02; got {quote(text)}") from None
    return h0, h1


def duplicate_results(records: Sequence[DealRecord], rules: Rules) -> list[float]:
    """Player A's units on each deal, averaged over both seatings (deal order)."""
    scores = table_scores(sorted(records, key=lambda r: r.deal), 2, 2, rules).scores  # (D, 2 seatings, 2, 2)
    return ((scores[:, 0, 0, 1] + scores[:, 1, 1, 0]) / 2).tolist()


SCHEMA_VERSION = 1
DOCUMENT = "match"


@dataclass
class _Looks:
    """What a running match has: finished deals not looked at yet, and the moments of the
    deals looked at (in deal order, one chunk at a time)."""

    test: Sprt
    chunks: list[list[int]]
    rules: Rules
    max_deals: int
    seen: Moments
    waiting: dict[int, DealRecord] = field(default_factory=dict)

    def finished(self, part: list[DealRecord], bar: tqdm[Any]) -> None:
        """Take the records of a finished part; look at the test for every chunk now whole;
        raise ``_Decided`` when it decides."""
        for record in part:
            self.waiting[record.deal] = record
        bar.update(len(part))
        while self.seen.n < self.max_deals and all(d in self.waiting for d in self.chunks[self.seen.n // config.MATCH_CHUNK]):
            look = self.chunks[self.seen.n // config.MATCH_CHUNK]
            self.seen = self.seen.add(duplicate_results([self.waiting.pop(d) for d in look], self.rules))
            llr = self.test.llr(self.seen)
            bar.set_postfix_str(f"LLR {llr:+.2f} in [{self.test.lower:.2f}, {self.test.upper:.2f}]")
            if self.test.decide(llr):
                raise _Decided


def _set_up(args: argparse.Namespace) -> tuple[Sprt, Rules, int, list[dict[str, Any]]]:
    """The test, the rules, the seed and the identities of the two bots (``bots.identity``) of a
    match, every argument checked before any work."""
    rules = Rules.parse(args.rules)
    try:
        test = Sprt(*_hypotheses(args.sprt), alpha=args.alpha, beta=args.beta, most=rules.most_units)
    except SprtError as error:
        raise UsageError(str(error)) from None
    if args.a == args.b:
        raise UsageError("A and B are the same spec: a bot against itself scores exactly 0 on every deal")
    made = make_bots((args.a, args.b), rules)  # a bad spec fails here, in one line
    identities = [bot_identity(spec, made[spec]) for spec in (args.a, args.b)]
    entropy = args.seed if args.seed is not None else secrets.randbits(32)
    note(f"seed entropy {entropy} (replay with --seed {entropy})")
    _check_plan(args.max_deals)
    return test, rules, entropy, identities


def _play(args: argparse.Namespace, looks: _Looks, entropy: int) -> Stopped | None:
    """Play chunks until the test decides, --max-deals is reached or a signal stops the match
    (returned, to report what was looked at)."""
    settings = RunSettings((args.a, args.b), 2, entropy, looks.rules, log_protocol=args.log_protocol)
    jobs = system.available_cores() if args.jobs < 1 else args.jobs
    with progress(total=args.max_deals, desc="deals", unit="deal") as bar:
        try:
            with stoppable():
                run_chunks(settings, looks.chunks, lambda part: looks.finished(part, bar), jobs=jobs,
                           backend=args.backend)
        except _Decided:
            pass
        except Stopped as error:  # what was looked at so far is reported, undecided
            note(f"stopped by {error.name} after {_deals(looks.seen.n)} looked at")
            return error
        except TournamentError as error:
            raise UsageError(str(error)) from None
    return None


@dataclass(frozen=True)
class _Outcome:
    """Where a match ended: its test, the moments of the deals looked at, and the signal that
    stopped it (None when it ran to a decision or to --max-deals)."""

    test: Sprt
    seen: Moments
    stopped: Stopped | None = None

    @property
    def llr(self) -> float:
        return self.test.llr(self.seen)

    @property
    def decided(self) -> str | None:
        return self.test.decide(self.llr)

    @property
    def estimate(self) -> Estimate:
        """A's mean advantage per deal with its standard error (NaN where there are too few deals)."""
        deals = self.seen.n
        se = math.sqrt(self.seen.m2 / (deals - 1) / deals) if deals > 1 else math.nan
        return Estimate(self.seen.mean if deals else math.nan, se, deals)


def match_document(args: argparse.Namespace, outcome: _Outcome, entropy: int, rules: Rules,
                   identities: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``bench match --json`` document (bench/records/schemas/match.schema.json)."""
    test, moments, estimate, decided = outcome.test, outcome.seen, outcome.estimate, outcome.decided
    return {"schema_version": SCHEMA_VERSION, "document": DOCUMENT, "a": args.a, "b": args.b,
            "rules": rules.to_dict(), "seed": entropy, "max_deal_count": args.max_deals, "look_deal_count": config.MATCH_CHUNK,
            "decision": decided or "none", "verdict": test.verdict(decided) if decided else None,
            "no_evidence": test.no_evidence(moments), "stopped": outcome.stopped.name if outcome.stopped else None,
            "deal_count": moments.n, "llr": outcome.llr, "bounds": [test.lower, test.upper], "h0": test.h0,
            "h1": test.h1, "alpha": test.alpha, "beta": test.beta, "mean": estimate.mean, "se": estimate.se,
            "ci95": [estimate.low, estimate.high], "bot_identities": identities}


def run(args: argparse.Namespace) -> int:
    log_protocol(args)
    test, rules, entropy, identities = _set_up(args)
    step = config.MATCH_CHUNK
    chunks = [list(range(start, min(start + step, args.max_deals))) for start in range(0, args.max_deals, step)]
    looks = _Looks(test, chunks, rules, args.max_deals, Moments())
    stopped = _play(args, looks, entropy)
    outcome = _Outcome(test, looks.seen, stopped)
    status = outcome.stopped.status if outcome.stopped else 0
    if args.json:
        doc = match_document(args, outcome, entropy, rules, identities)
        show(json.dumps(json_ready(doc, digits=6), indent=1, allow_nan=False), exact=True)
        return status
    deals, estimate = outcome.seen.n, outcome.estimate
    show(_verdict_line(args, outcome))
    if deals:
        spread = f" ± {estimate.se:.4f}" if deals > 1 else " (one deal: no standard error)"
        show(f"A's mean {estimate.mean:+.4f}{spread} units per deal over {_deals(deals)}; LLR {outcome.llr:+.3f} in "
             f"[{test.lower:.3f}, {test.upper:.3f}] (alpha {test.alpha:g}, beta {test.beta:g}), seed {entropy}")
    return status


def _deals(n: int) -> str:
    return f"{n:,} deal{'' if n == 1 else 's'}"


def _verdict_line(args: argparse.Namespace, outcome: _Outcome) -> str:
    """What the test accepted (or why it did not decide), with A's mean and its 95% interval beside it."""
    deals, decided, estimate = outcome.seen.n, outcome.decided, outcome.estimate
    if not deals:
        return (f"{terminal(args.a)} vs {terminal(args.b)}: no decision (stopped) after 0 deals: no look at the test "
                f"was finished (it looks every {config.MATCH_CHUNK} deals)")
    if decided:
        head = f"{outcome.test.verdict(decided)} after {_deals(deals)} (each in both seats)"
    elif outcome.stopped:
        head = f"no decision (stopped) after {_deals(deals)} (each in both seats)"
    else:
        head = f"no decision before --max-deals, after {_deals(deals)} (each in both seats)"
    reason = outcome.test.no_evidence(outcome.seen)
    if reason and not decided:
        head += f": {reason}"
    interval = (f"95% interval [{estimate.low:+.4f}, {estimate.high:+.4f}]" if deals > 1 else "no interval from one deal")
    return f"{terminal(args.a)} vs {terminal(args.b)}: {head}; A's mean {estimate.mean:+.4f}, {interval}"
