"""The field estimator against duplicate results, pair by pair, on the same deals.

Every deal of a pair is played once, heads-up in both seats (``bench.run.play``); its record
gives both estimators' outcome of it: the duplicate result (A's units over both seatings)
and the field outcome (``bench.run.field``, with B as the field unless another is named).
Both estimate A's edge over B, so over the same deals they must agree within their noise;
the ratio of their variances says how many times fewer deals the field estimator needs for
the same standard error.

``python -m bench.cli.studies estimators`` runs the study and prints it as JSON; with
``--save`` it also keeps every deal's two outcomes, which ``bench.analysis.sprt_check``
resamples to check the match's test on real outcomes (``tests/data/field_outcomes.npz``).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from bench.records.model import DealRecord, FieldPlan
from bench.report.summary import table_scores
from bench.run.field import check_plan, deal_outcome
from bench.run.play import RunSettings
from bench.run.runner import run_chunks
from solver import config
from solver.rules import Rules
from solver.statistics import Z95

# the table bots take the rows as independent (coupling=false), as table did by default when
# the study of docs/match.md was run, so that it runs again to the same outcomes
BOTS = ("table:coupling=false", "table:removal=false:coupling=false", "table:rules=2-4:coupling=false",
        "table:rules=1-6:coupling=false", "heuristic", "greedy", "random")
PAIRS = tuple(itertools.combinations(BOTS, 2))  # 21 pairs, from bots that play nearly alike to far apart


def pair_outcomes(a: str, b: str, rules: Rules, deals: int, samples: int, seed: int, *, field: str | None = None,
                  jobs: int = 1, backend: str = "loky",
                  on_done: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every deal's field outcome and duplicate result, for deals ``0 .. deals - 1``.

    Args:
        a: Bot A's spec.
        b: Bot B's spec.
        rules: The rules (without naturals).
        deals: How many deals.
        samples: The field estimator's simulated opponents a hand.
        seed: The seed entropy (the deals are those of ``bench match --seed``).
        field: The field bot; B by default.
        jobs: Workers.
        backend: Where the deals are played (``bench.run.runner.BACKENDS``).
        on_done: Called with the number of deals of each chunk as it finishes.

    Returns:
        Two float arrays in deal order: the field outcomes and the duplicate results.

    Raises:
        FieldError: The field cannot run under these rules (``bench.run.field.check_plan``).
    """
    plan = FieldPlan(field or b, samples)
    check_plan(plan, rules)
    settings = RunSettings((a, b), 2, seed, rules, field=plan)
    chunks = [list(range(s, min(s + config.MATCH_CHUNK, deals))) for s in range(0, deals, config.MATCH_CHUNK)]
    records: list[DealRecord] = []

    def done(part: list[DealRecord]) -> None:
        records.extend(part)
        if on_done is not None:
            on_done(len(part))

    run_chunks(settings, chunks, done, jobs=jobs, backend=backend)
    records.sort(key=lambda r: r.deal)
    return np.array([deal_outcome(r) for r in records]), np.array(duplicate_results(records, rules))


def duplicate_results(records: Sequence[DealRecord], rules: Rules) -> list[float]:
    """Player A's units on each deal, averaged over both seatings.

    Args:
        records: Heads-up records of two bots, A's plays first.
        rules: The rules they are scored under.

    Returns:
        One result per deal, in deal order.
    """
    scores = table_scores(sorted(records, key=lambda r: r.deal), 2, 2, rules).scores  # (D, 2 seatings, 2, 2)
    return ((scores[:, 0, 0, 1] + scores[:, 1, 1, 0]) / 2).tolist()


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))


def compare(field: np.ndarray, duplicate: np.ndarray) -> dict[str, Any]:
    """Both estimators over the same deals.

    Args:
        field: Each deal's field outcome.
        duplicate: Each deal's duplicate result, in the same order.

    Returns:
        ``field`` and ``duplicate`` (each ``mean``, ``se`` and ``deals_to_sign``: the deals
            after which the 95% interval, at the variance seen, would just leave 0 at the mean
            seen), ``variance_ratio`` (duplicate over field), ``difference_z`` (the paired
            difference of the two means over its standard error) and ``zero_share`` (the deals
            whose field outcome is exactly 0).
    """
    out: dict[str, Any] = {}
    for name, x in (("field", field), ("duplicate", duplicate)):
        mean, se = _mean_se(x)
        variance = float(x.var(ddof=1))
        out[name] = {"mean": mean, "se": se,
                     "deals_to_sign": math.ceil((Z95**2) * variance / mean**2) if mean else None}
    difference = field - duplicate
    d_mean, d_se = _mean_se(difference)
    field_variance = float(field.var(ddof=1))
    out["variance_ratio"] = float(duplicate.var(ddof=1)) / field_variance if field_variance else None
    out["difference_z"] = d_mean / d_se if d_se else None
    out["zero_share"] = float(np.mean(field == 0))
    return out


def estimator_study(pairs: Sequence[tuple[str, str]], rule_sets: Sequence[str], deals: int, samples: int,
                    seed: int, *, jobs: int = 1, kept: Mapping[str, np.ndarray] | None = None,
                    on_pair: Callable[[str, dict[str, np.ndarray]], None] | None = None) -> dict[str, Any]:
    """``compare`` for every pair under every rule set, each on deals ``0 .. deals - 1``.

    Args:
        pairs: The (A, B) pairs; B is the field.
        rule_sets: The rule sets, by name (without naturals).
        deals: Deals a pair plays under each rule set.
        samples: The field estimator's simulated opponents a hand.
        seed: The seed entropy of every pair's deals.
        jobs: Workers.
        kept: Outcomes of an earlier run of the same study (same deals, samples and seed), by
            ``outcome_key``, each a float array of ``deals`` finite values: a pair found there
            is read, not played again, and every array is kept in what ``on_pair`` is given.
        on_pair: Called after each pair with every pair's outcomes so far, by ``outcome_key``
            (to save them as the study goes).

    Returns:
        The settings, ``rows`` (one per pair and rule set: ``rules``, ``a``, ``b``,
            ``seconds`` (None for a pair read from ``kept``) and the ``compare`` figures), and
            ``agree_within_3se``, the share of rows whose ``difference_z`` is within 3.
    """
    rows = []
    outcomes: dict[str, np.ndarray] = dict(kept or {})  # what the file held stays in it, whatever this run plays
    for rules_name in rule_sets:
        rules = Rules.parse(rules_name)
        for a, b in pairs:
            field_key, duplicate_key = (outcome_key(rules_name, a, b, kind) for kind in ("field", "duplicate"))
            seconds: float | None = None
            if kept is not None and field_key in kept and duplicate_key in kept:
                field, duplicate = kept[field_key], kept[duplicate_key]
            else:
                started = time.perf_counter()
                field, duplicate = pair_outcomes(a, b, rules, deals, samples, seed, jobs=jobs)
                seconds = time.perf_counter() - started
            rows.append({"rules": rules_name, "a": a, "b": b, "seconds": seconds, **compare(field, duplicate)})
            outcomes[field_key], outcomes[duplicate_key] = field, duplicate
            if on_pair is not None:
                on_pair(f"{rules_name}: {a} vs {b}", outcomes)
    agree = [abs(r["difference_z"]) <= 3 for r in rows if r["difference_z"] is not None]
    return {"study": "estimators", "deals": deals, "samples": samples, "seed": seed, "rule_sets": list(rule_sets),
            "rows": rows, "agree_within_3se": float(np.mean(agree)) if agree else None}


def outcome_key(rules: str, a: str, b: str, kind: str) -> str:
    """The name of a pair's outcomes in the study's ``.npz``: ``RULES|A|B|field`` or ``...|duplicate``."""
    return f"{rules}|{a}|{b}|{kind}"
