"""``bench match A B``: a heads-up duplicate match that stops when the answer is known (SPRT)."""

from __future__ import annotations

import argparse
import json
import math
import secrets
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from bench.analysis.estimators import duplicate_results
from bench.analysis.sprt import Moments, Sprt, SprtError
from bench.cli.parsing import SPECS, Parser, UsageError, add_log_protocol, job_count, limited, log_protocol, seconds, seed
from bench.cli.progress import note, progress
from bench.records.model import DealRecord, FieldPlan
from bench.run.field import FieldError, check_plan, check_rules, deal_outcome
from bench.run.play import RunSettings, TournamentError, make_bots
from bench.run.runner import BACKENDS, run_chunks
from bots import BotError
from bots.identity import bot_identity
from bots.protocol import ProtocolBot
from bots.registry import BUILT_IN, parse_spec
from solver import config, system
from solver.documents import json_ready
from solver.interrupts import Stopped, stoppable
from solver.rules import Rules
from solver.statistics import Estimate
from solver.text import quote, show, terminal


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    parser = sub.add_parser(
        "match",
        help="a heads-up match that stops by SPRT",
        description="Play bot A against bot B, every deal in both seats, until a sequential probability ratio "
        "test decides between H0 (A's mean advantage is the first number of --sprt, in units per deal) and H1 "
        "(the second), or until --max-deals. Each deal's outcome comes from the field estimator (both bots' "
        "plays of each hand scored against the same simulated opponents, set by the field bot) or from the "
        "duplicate results of the two seatings. The test is looked at in deal order, so the decision does not "
        "depend on the number of workers; it is a GSPRT on the mean with the variance estimated. Bots that set "
        "every hand alike end early, with neither hypothesis. See docs/match.md.",
    )
    parser.add_argument("a", metavar="A", help=f"bot of player A; {SPECS}")
    parser.add_argument("b", metavar="B", help="bot of player B, as A")
    parser.add_argument("--sprt", default="0,0.05", metavar="H0,H1",
                        help="A's mean advantage under H0 and H1, finite, H0 below H1, units per deal, such as "
                        "-0.01,0.01 (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=0.05, help="false H1 rate, above 0 and below 0.5 (default %(default)s)")
    parser.add_argument("--beta", type=float, default=0.05, help="false H0 rate, above 0 and below 0.5 (default %(default)s)")
    parser.add_argument("--max-deals", type=limited("deals"), default=20_000, help="stop here undecided (default %(default)s)")
    parser.add_argument("--estimator", choices=ESTIMATORS, default=None,
                        help="what a deal's outcome is: field (both plays of each hand against the same simulated "
                        "opponents) or duplicate (A's result over both seatings); default field, but duplicate "
                        "under rules with naturals or when neither bot can be the field")
    parser.add_argument("--field", default=None, metavar="SPEC",
                        help="the bot that sets the field estimator's opponents: one that runs in this process, a bot "
                        "of this package or a Python plug-in, not a protocol bot (default: B, else A, a bot of "
                        "this package before a plug-in; either gives A's edge over B heads-up)")
    parser.add_argument("--field-samples", type=limited("samples"), default=None, metavar="K",
                        help=f"simulated opponents a hand for the field estimator (default {config.DEFAULT_SAMPLES:,})")
    parser.add_argument("--seed", type=seed, default=None, help="seed entropy (default: fresh, printed)")
    parser.add_argument("--rules", default="basic", help="rule set (default basic)")
    parser.add_argument("--jobs", type=job_count, default=-1, help="parallel workers (default: all cores; at most 4 a core)")
    parser.add_argument("--decision-timeout", type=seconds, default=config.DEFAULT_DECISION_TIMEOUT, metavar="SECONDS",
                        help="time limit of one bot's play of one hand, past which the match stops on that bot's "
                        "fault (default %(default)g s); in threads (threading, a local dask cluster) a decision is "
                        "not interrupted but judged late when it returns")
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


SCHEMA_VERSION = 2
DOCUMENT = "match"
ESTIMATORS = ("field", "duplicate")
DEALS_PER_NAT = config.MATCH_DEALS_PER_NAT  # the test's minimum, per nat of ln(1 / rate)


def deals_minimum(alpha: float, beta: float) -> int:
    """The deals before a match may decide, by either estimator (docs/match.md):
    ``DEALS_PER_NAT * ln(1 / min(alpha, beta))``, up to a whole look of 16 deals; long
    enough that a kind of deal which carries the edge and comes once in ``DEALS_PER_NAT``
    deals has shown itself, but for a chance below the smaller error rate.

    >>> deals_minimum(0.05, 0.05), deals_minimum(0.001, 0.001), deals_minimum(0.05, 0.01)
    (528, 1216, 816)
    """
    deals = DEALS_PER_NAT * math.log(1 / min(alpha, beta))
    return int(math.ceil(deals / config.MATCH_CHUNK)) * config.MATCH_CHUNK
ALIKE_DEALS = config.MATCH_ALIKE_DEALS  # deals that all come out exactly 0 end a match as "alike"


@dataclass(frozen=True)
class Estimator:
    """What a deal's outcome is and how the test reads it: ``duplicate`` (A's result over both
    seatings) or ``field`` (``bench.run.field``); either way each deal's outcome is an
    observation, looked at every ``config.MATCH_CHUNK`` deals, and nothing is decided before
    ``deals_minimum`` deals: both estimators' outcomes are exactly 0 on most deals where the
    bots play nearly alike."""

    name: str
    field: FieldPlan | None = None
    chose: str = ""  # why this estimator and field, when they were not both given

    def minimum(self, alpha: float, beta: float) -> int:
        return deals_minimum(alpha, beta)

    def describe(self) -> str:
        if self.field is None:
            return "duplicate results (A's units over both seatings of each deal)"
        return (f"the field estimator (both plays of each hand against the same {self.field.samples:,} opponents, "
                f"set by {terminal(self.field.spec)})")

    def document(self, test: Sprt) -> dict[str, Any]:
        return {"name": self.name, "field": self.field.spec if self.field else None,
                "samples": self.field.samples if self.field else None, "minimum_deal_count": test.minimum}


def _field_or_reason(spec: str, samples: int, rules: Rules) -> FieldPlan | str:
    """The field plan with ``spec`` as the field, or why it cannot be one."""
    plan = FieldPlan(spec, samples)
    try:
        check_plan(plan, rules)
    except FieldError as error:
        return str(error)
    return plan


def _default_field(args: argparse.Namespace, samples: int, rules: Rules,
                   made: dict[str, Any]) -> tuple[Estimator | None, str]:
    """The field estimator by default, or None; and why B, when it sets hands in batches,
    cannot be the field ("" otherwise).

    Of the two bots that can set hands in batches, B is the field, else A; but a bot of this
    package comes before a plug-in, whose speed is not known: the field sets ``samples``
    opponents for each hand, so a plug-in that takes 10 ms a hand would take 20 s a deal."""
    ours = [spec for spec in (args.b, args.a) if _of_this_package(spec)]
    passed_over = ""
    for spec in ours + [spec for spec in (args.b, args.a) if spec not in ours]:
        if not callable(getattr(made[spec], "arrange_many", None)):
            continue
        found = _field_or_reason(spec, samples, rules)
        if isinstance(found, FieldPlan):
            if spec == args.b:
                return Estimator("field", found, chose="B as the field"), ""
            # A: B was tried first and passed over (passed_over says why), or not tried, A being ours
            why = _why_not_b(args, samples, rules, made) if spec in ours and args.b not in ours else passed_over
            return Estimator("field", found, chose=f"A as the field{why}"), ""
        if spec == args.b:
            passed_over = f"; B cannot be: {found}"
    return None, passed_over


def _why_not_b(args: argparse.Namespace, samples: int, rules: Rules, made: dict[str, Any]) -> str:
    """Why A, a bot of this package, is the field and not B, a bot of another kind that was
    not tried: one that cannot be a field (a protocol bot, a bot that sets hands one by one)
    says so; a plug-in that might be is passed over for A."""
    if not callable(getattr(made[args.b], "arrange_many", None)):
        return ""
    if isinstance(made[args.b], ProtocolBot):  # refused before any bot is made (check_plan)
        return f"; B cannot be: {_field_or_reason(args.b, samples, rules)}"
    return ", a bot of this package, before B, a plug-in"


def _of_this_package(spec: str) -> bool:
    """Whether the spec names a bot of this package (``bots.registry.BUILT_IN``)."""
    try:
        return parse_spec(spec)[0] in BUILT_IN
    except BotError:
        return False


def choose_estimator(args: argparse.Namespace, rules: Rules, made: dict[str, Any]) -> Estimator:
    """The estimator the arguments ask for, or the default: the field estimator with B as the
    field (else A; a bot of this package before a plug-in), but duplicate results under rules
    with naturals, or when neither bot can set a batch of simulated opponents in one call
    (``arrange_many``: a bot in another process, the ``exhaustive`` bot or one that sets hands
    one by one would take seconds a deal).

    Raises:
        UsageError: The field estimator was asked for and cannot run, or --field or
            --field-samples were given with the duplicate estimator.
    """
    samples = args.field_samples if args.field_samples is not None else config.DEFAULT_SAMPLES
    if args.estimator == "duplicate":
        if args.field is not None or args.field_samples is not None:
            raise UsageError("--field and --field-samples belong to --estimator field")
        return Estimator("duplicate")
    if args.field is not None:
        plan = FieldPlan(args.field, samples)
        try:
            check_plan(plan, rules)
        except FieldError as error:
            raise UsageError(str(error)) from None
        return Estimator("field", plan)
    if rules.naturals:
        if args.estimator == "field" or args.field_samples is not None:
            try:
                check_rules(rules)
            except FieldError as error:
                raise UsageError(str(error)) from None
        return Estimator("duplicate", chose="rules with naturals")
    found, passed_over = _default_field(args, samples, rules, made)
    if found is not None:
        return found
    if args.estimator == "field" or args.field_samples is not None:
        raise UsageError("neither bot can set the field estimator's simulated opponents in batches (each runs in "
                         "another process, searches every split or sets hands one by one); name a bot of this "
                         "package with --field, such as table")
    return Estimator("duplicate", chose=f"neither bot sets simulated opponents in batches{passed_over}")


@dataclass
class _Looks:
    """What a running match has: finished deals not looked at yet, and the moments of the deals
    looked at (in deal order, one chunk at a time): the test's observations, each deal's outcome
    by the estimator, and, under the field estimator, each deal's duplicate result too."""

    test: Sprt
    estimator: Estimator
    chunks: list[list[int]]
    rules: Rules
    max_deals: int
    deals: Moments = field(default_factory=Moments)  # the estimator's outcome of each deal: the test's observations
    duplicate: Moments = field(default_factory=Moments)  # each deal's duplicate result
    nonzero: int = 0  # deals whose outcome is not exactly 0
    alike: bool = False  # ended: every outcome exactly 0 over ALIKE_DEALS deals, and the test's minimum
    waiting: dict[int, DealRecord] = field(default_factory=dict)
    looks: int = 0  # the chunks looked at, in order

    def finished(self, part: list[DealRecord], bar: tqdm[Any]) -> None:
        """Take the records of a finished part; look at the test for every chunk now whole;
        raise ``_Decided`` when it decides or the bots are seen to play alike."""
        for record in part:
            self.waiting[record.deal] = record
        bar.update(len(part))
        while self.deals.n < self.max_deals and all(d in self.waiting for d in self.chunks[self.looks]):
            records = [self.waiting.pop(d) for d in self.chunks[self.looks]]
            self.looks += 1
            duplicate = duplicate_results(records, self.rules)
            outcomes = [deal_outcome(r) for r in records] if self.estimator.field else duplicate
            self.deals = self.deals.add(outcomes)
            self.duplicate = self.duplicate.add(duplicate)
            self.nonzero += sum(x != 0 for x in outcomes)
            llr = self.test.llr(self.deals)
            bar.set_postfix_str(f"LLR {llr:+.2f} in [{self.test.lower:.2f}, {self.test.upper:.2f}]")
            if self.test.decision(self.deals):
                raise _Decided
            if not self.nonzero and self.deals.n >= max(ALIKE_DEALS, self.test.minimum):
                self.alike = True
                raise _Decided


def _set_up(args: argparse.Namespace) -> tuple[Sprt, Rules, int, list[dict[str, Any]], Estimator]:
    """The test, the rules, the seed, the identities of the two bots (``bots.identity``) and the
    estimator of a match, every argument checked before any work."""
    rules = Rules.parse(args.rules)
    if args.a == args.b:
        raise UsageError("A and B are the same spec: a bot against itself scores exactly 0 on every deal")
    try:
        h0, h1 = _hypotheses(args.sprt)
        Sprt(h0, h1, alpha=args.alpha, beta=args.beta, most=rules.most_units)
    except SprtError as error:
        raise UsageError(str(error)) from None
    made = make_bots((args.a, args.b), rules)  # a bad spec fails here, in one line
    estimator = choose_estimator(args, rules, made)
    test = Sprt(h0, h1, alpha=args.alpha, beta=args.beta, most=rules.most_units,
                minimum=estimator.minimum(args.alpha, args.beta))
    identities = [bot_identity(spec, made[spec]) for spec in (args.a, args.b)]
    _check_plan(args.max_deals)  # refused in one line, before anything is said
    entropy = args.seed if args.seed is not None else secrets.randbits(32)
    note(f"seed entropy {entropy} (replay with --seed {entropy})")
    chose = f" ({estimator.chose})" if estimator.chose else ""
    note(f"estimator: {estimator.describe()}{chose}")
    if args.max_deals < test.minimum:
        note(f"--max-deals {args.max_deals:,} is below the {test.minimum:,} deals the test takes before it decides: "
             "the match will end undecided (docs/match.md)")
    return test, rules, entropy, identities, estimator


def _play(args: argparse.Namespace, looks: _Looks, entropy: int) -> Stopped | None:
    """Play chunks until the test decides, --max-deals is reached or a signal stops the match
    (returned, to report what was looked at)."""
    settings = RunSettings((args.a, args.b), 2, entropy, looks.rules, decision_timeout=args.decision_timeout,
                           log_protocol=args.log_protocol, field=looks.estimator.field)
    jobs = system.available_cores() if args.jobs < 1 else args.jobs
    with progress(total=args.max_deals, desc="deals", unit="deal") as bar:
        try:
            with stoppable():
                run_chunks(settings, looks.chunks, lambda part: looks.finished(part, bar), jobs=jobs,
                           backend=args.backend)
        except _Decided:
            pass
        except Stopped as error:  # what was looked at so far is reported, undecided
            note(f"stopped by {error.name} after {_deals(looks.deals.n)} looked at")
            return error
        except (TournamentError, FieldError) as error:
            raise UsageError(str(error)) from None
    return None


def _estimate(moments: Moments) -> Estimate:
    """The mean per deal with its standard error (NaN where there are too few deals)."""
    deals = moments.n
    se = math.sqrt(moments.m2 / (deals - 1) / deals) if deals > 1 else math.nan
    return Estimate(moments.mean if deals else math.nan, se, deals)


@dataclass(frozen=True)
class _Outcome:
    """Where a match ended: its test, its estimator, the moments of what was looked at, and the
    signal that stopped it (None when it ran to a decision, to --max-deals or to "alike")."""

    test: Sprt
    estimator: Estimator
    deals: Moments
    duplicate: Moments
    nonzero: int = 0
    alike: bool = False
    stopped: Stopped | None = None

    @classmethod
    def of(cls, looks: _Looks, stopped: Stopped | None) -> _Outcome:
        return cls(looks.test, looks.estimator, looks.deals, looks.duplicate, looks.nonzero, looks.alike, stopped)

    @property
    def llr(self) -> float:
        return self.test.llr(self.deals)

    @property
    def decided(self) -> str | None:
        return self.test.decision(self.deals)

    @property
    def decision(self) -> str:
        return self.decided or ("alike" if self.alike else "none")

    @property
    def estimate(self) -> Estimate:
        """A's mean advantage per deal by the match's estimator, with its standard error."""
        return _estimate(self.deals)

    @property
    def variance_ratio(self) -> float | None:
        """The variance of the deals' duplicate results over that of their field outcomes (None
        under the duplicate estimator, or where either variance is 0 or unknown)."""
        if self.estimator.field is None or self.deals.n < 2 or not self.deals.m2 or not self.duplicate.m2:
            return None
        return self.duplicate.m2 / self.deals.m2

    def no_evidence(self) -> str | None:
        """Why the deals looked at cannot decide, or None when they can."""
        if self.alike:
            return alike_text(self.estimator, self.deals.n)
        if self.deals.n and not self.nonzero:
            return (f"every deal so far came out exactly 0 ({_deals(self.deals.n)}), so there is no variance to weigh "
                    "the evidence by")
        reason = self.test.no_evidence(self.deals)
        if reason is None and self.decided is None and self.deals.n < self.test.minimum:
            reason = f"{self.deals.n:,} of the {self.test.minimum:,} deals the test needs before it decides"
        return reason


def alike_text(estimator: Estimator, deals: int) -> str:
    """Why a match ended with neither hypothesis: every outcome exactly 0 over ``deals`` deals."""
    hands = 2 * deals
    if estimator.field:
        return (f"both bots' plays of all {hands:,} hands of {deals:,} deals scored exactly alike against the field's "
                f"opponents (most with the same row values), so every outcome is exactly 0: they play alike (on "
                f"fewer than {3 / hands:.2%} of hands apart, at 95%)")
    return (f"every one of {deals:,} deals came out exactly 0 over both seatings: the bots play alike (their results "
            f"differ on fewer than {3 / deals:.2%} of deals, at 95%)")


def match_document(args: argparse.Namespace, outcome: _Outcome, entropy: int, rules: Rules,
                   identities: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``bench match --json`` document (bench/records/schemas/match.schema.json)."""
    test, estimate, decided = outcome.test, outcome.estimate, outcome.decided
    duplicate = _estimate(outcome.duplicate)
    return {"schema_version": SCHEMA_VERSION, "document": DOCUMENT, "a": args.a, "b": args.b,
            "rules": rules.to_dict(), "seed": entropy, "max_deal_count": args.max_deals,
            "look_deal_count": config.MATCH_CHUNK, "estimator": outcome.estimator.document(test),
            "decision": outcome.decision, "verdict": test.verdict(decided) if decided else None,
            "no_evidence": outcome.no_evidence(), "stopped": outcome.stopped.name if outcome.stopped else None,
            "deal_count": outcome.deals.n, "llr": outcome.llr,
            "bounds": [test.lower, test.upper], "h0": test.h0, "h1": test.h1, "alpha": test.alpha, "beta": test.beta,
            "mean": estimate.mean, "se": estimate.se, "ci95": [estimate.low, estimate.high],
            "duplicate": {"mean": duplicate.mean, "se": duplicate.se},
            "variance_ratio": outcome.variance_ratio, "bot_identities": identities}


def run(args: argparse.Namespace) -> int:
    log_protocol(args)
    test, rules, entropy, identities, estimator = _set_up(args)
    step = config.MATCH_CHUNK
    chunks = [list(range(start, min(start + step, args.max_deals))) for start in range(0, args.max_deals, step)]
    looks = _Looks(test, estimator, chunks, rules, args.max_deals)
    stopped = _play(args, looks, entropy)
    outcome = _Outcome.of(looks, stopped)
    status = outcome.stopped.status if outcome.stopped else 0
    if args.json:
        doc = match_document(args, outcome, entropy, rules, identities)
        show(json.dumps(json_ready(doc, digits=6), indent=1, allow_nan=False), exact=True)
        return status
    deals, estimate = outcome.deals.n, outcome.estimate
    show(_verdict_line(args, outcome))
    if deals:
        spread = f" ± {estimate.se:.4f}" if deals > 1 else " (one deal: no standard error)"
        show(f"A's mean {estimate.mean:+.4f}{spread} units per deal over {_deals(deals)} by the "
             f"{estimator.name} estimator; LLR {outcome.llr:+.3f} in [{test.lower:.3f}, {test.upper:.3f}] "
             f"(alpha {test.alpha:g}, beta {test.beta:g}), seed {entropy}")
        if estimator.field and deals > 1:
            duplicate, ratio = _estimate(outcome.duplicate), outcome.variance_ratio
            times = f", {ratio:,.1f} times the field estimator's variance" if ratio is not None else ""
            show(f"duplicate results of the same deals: {duplicate.mean:+.4f} ± {duplicate.se:.4f}{times}")
    return status


def _deals(n: int) -> str:
    return f"{n:,} deal{'' if n == 1 else 's'}"


def _verdict_line(args: argparse.Namespace, outcome: _Outcome) -> str:
    """What the test accepted (or why it did not decide), with A's mean and its 95% interval beside it."""
    deals, decided, estimate = outcome.deals.n, outcome.decided, outcome.estimate
    if not deals:
        return (f"{terminal(args.a)} vs {terminal(args.b)}: no decision (stopped) after 0 deals: no look at the test "
                f"was finished (it looks every {config.MATCH_CHUNK} deals)")
    if decided:
        head = f"{outcome.test.verdict(decided)} after {_deals(deals)} (each in both seats)"
    elif outcome.alike:
        head = f"neither hypothesis after {_deals(deals)} (each in both seats)"
    elif outcome.stopped:
        head = f"no decision (stopped) after {_deals(deals)} (each in both seats)"
    else:
        head = f"no decision before --max-deals, after {_deals(deals)} (each in both seats)"
    reason = outcome.no_evidence()
    if reason and not decided:
        head += f": {reason}"
    interval = (f"95% interval [{estimate.low:+.4f}, {estimate.high:+.4f}]" if deals > 1 else "no interval from one deal")
    return f"{terminal(args.a)} vs {terminal(args.b)}: {head}; A's mean {estimate.mean:+.4f}, {interval}"
