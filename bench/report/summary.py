"""A run's results: the statistics of its records, and the results.json document they fill.

Everything in the document's ``results`` is computed from its records alone
(``summarise``), so ``bench report results.json`` and ``bench verify`` compute it
again without replaying a hand. Scores: every seating of every deal, each seat against
each other (``table_scores``), under the run's rules; a bot's units per hand are the
mean over the seatings of a deal (duplicate), with the standard error over deals.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, cast

import numpy as np

from bench.records.deals import HANDS_PER_SESSION, seatings
from bench.records.documents import (
    ResultsBot,
    ResultsBotResults,
    ResultsBotResultsFirstFaultsItem,
    ResultsDocument,
    ResultsDocumentMachine,
    ResultsEstimate,
    ResultsField,
    ResultsRecord,
    ResultsResults,
    ResultsTiming,
    ResultsTimingDecisionTimeByBotValue,
)
from bench.records.model import DealRecord, FieldPlan, RecordRow, RunPlan, rows_of, rows_to_records
from bench.records.schema import DOCUMENT, SCHEMA_VERSION, results_problem, rules_of
from bench.run.field import FieldError, field_problem, scored
from bench.run.journal import Contents
from bench.run.versions import installed_version as _version
from bots.identity import seat_names
from solver.documents import json_ready
from solver.files import write_atomic
from solver.naturals import Natural, settle_naturals
from solver.rules import BASIC, Rules, as_rules
from solver.scoring import fouls, row_results_of, settle_values
from solver.statistics import Estimate

# --- statistics of the records ---------------------------------------------------------------


def arrays_of(records: Sequence[DealRecord]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row values (deals, bots, seats, 3), fouls (deals, bots, seats) and the canonical arrangements.

    Args:
        records: The records; the arrays' first axis follows their order.

    Returns:
        The row values of every play (int64, shape (deals, bots, seats, 3)), whether each play
            fouls (``solver.scoring.fouls``, shape (deals, bots, seats)) and each play's arrangement
            as text (an object array, shape (deals, bots, seats)).
    """
    values = np.array([[[p.values for p in row] for row in r.plays] for r in records], np.int64)
    arrangements = np.array([[[p.arrangement for p in row] for row in r.plays] for r in records], object)
    return values, fouls(values), arrangements


def _naturals_of(records: Sequence[DealRecord]) -> dict[tuple[int, int, int], Natural]:
    """The declared naturals by (deal index, bot, seat)."""
    return {(d, b, s): p.natural
            for d, r in enumerate(records) for b, row in enumerate(r.plays) for s, p in enumerate(row)
            if p.natural is not None}


@dataclass(frozen=True)
class TableScores:
    """Every seating of every deal, seat i against seat j in seating q (arrays (D, Q, P, P, ...))."""

    rows: np.ndarray  # (..., 3): each row's result, 1 won, 0 tied, -1 lost
    scores: np.ndarray  # units under the rules, naturals included
    by_rows: np.ndarray  # whether the rows settled the pairing (False where a natural was declared, and on the diagonal)


def table_scores(records: Sequence[DealRecord], n_bots: int, players: int, rules: Rules | str = BASIC) -> TableScores:
    """The ``TableScores`` of the records' deals, under the rules.

    Args:
        records: The records; the arrays' first axis follows their order.
        n_bots: How many bots the run has (the ``plays`` of each record).
        players: How many players sit at a table.
        rules: The rules, by name or as ``Rules``; basic by default.

    Returns:
        Every seating of every deal (``bench.records.deals.seatings``), seat i against seat j:
            ``rows`` (each row's result, shape (deals, seatings, players, players, 3)), ``scores``
            (units, naturals included, 0 on the diagonal) and ``by_rows`` (whether the rows
            settled the pairing), both of shape (deals, seatings, players, players).
    """
    rules = as_rules(rules)
    values, _, _ = arrays_of(records)
    plan = np.array(seatings(n_bots, players))  # (Q, players)
    v = values[:, plan, np.arange(players)]  # (D, Q, players, 3)
    shape = v.shape[:2] + (players, players)
    mine = np.broadcast_to(v[:, :, :, None, :], shape + (3,)).reshape(-1, 3)
    theirs = np.broadcast_to(v[:, :, None, :, :], shape + (3,)).reshape(-1, 3)
    rows = row_results_of(mine, theirs).reshape(shape + (3,))
    scores = settle_values(mine, theirs, rules).reshape(shape)
    eye = np.eye(players, dtype=bool)
    scores = np.where(eye, 0, scores)
    by_rows = np.broadcast_to(~eye, shape).copy()
    naturals = _naturals_of(records)
    for d in sorted({d for d, _, _ in naturals}):
        for q, bots_in_seats in enumerate(plan):
            held = [naturals.get((d, int(bots_in_seats[i]), i)) for i in range(players)]
            for i in range(players):
                for j in range(players):
                    if i != j and (held[i] or held[j]):
                        scores[d, q, i, j] = settle_naturals(held[i], held[j], rules)
                        by_rows[d, q, i, j] = False
    return TableScores(rows, scores, by_rows)


def complete_sessions(deals: Sequence[int]) -> np.ndarray:
    """Positions (in ``deals``, sorted) of the deals whose whole session of 8 was played.

    Args:
        deals: Deal numbers, each once; a session is 8 consecutive deals (deal // 8).

    Returns:
        The positions in ``deals`` of the deals whose session is complete, in increasing order,
            as an integer array.
    """
    session = np.asarray(deals, np.int64) // HANDS_PER_SESSION
    counts = np.bincount(session, minlength=int(session.max()) + 1 if len(session) else 0)
    return np.flatnonzero(counts[session] == HANDS_PER_SESSION) if len(session) else np.array([], int)


def _session_sums(seat_scores: np.ndarray) -> np.ndarray:
    """Per-deal scores (D, ...) summed over each block of 8 deals (S, ...); the deals are those
    of complete sessions, in deal order.

    >>> _session_sums(np.arange(16).reshape(16, 1)).ravel().tolist()
    [28, 92]
    """
    sessions = len(seat_scores) // HANDS_PER_SESSION
    blocks = seat_scores[: sessions * HANDS_PER_SESSION].reshape(sessions, HANDS_PER_SESSION, *seat_scores.shape[1:])
    return blocks.sum(axis=1)


def _session_share(seat_scores: np.ndarray, occupied: np.ndarray) -> float:
    """Share of sessions (blocks of 8 deals of complete sessions, every seating its own
    table) a bot finished first, ties shared."""
    if len(seat_scores) < HANDS_PER_SESSION:
        return float("nan")
    totals = _session_sums(seat_scores)  # (S, Q, players)
    leaders = totals == totals.max(axis=-1, keepdims=True)
    share = leaders / leaders.sum(axis=-1, keepdims=True)
    return float(share[:, occupied].mean())


def _faults(records: Sequence[DealRecord], b: int) -> tuple[int, list[ResultsBotResultsFirstFaultsItem]]:
    """How often a bot failed a decision (scored as a foul), and its first errors."""
    found = [(r.deal, seat, p.fault) for r in records for seat, p in enumerate(r.plays[b]) if p.fault]
    return len(found), [{"deal": d, "seat": s, "error": e} for d, s, e in found[:3]]


def _estimate(estimate: Estimate) -> ResultsEstimate:
    return {"mean": estimate.mean, "se": estimate.se, "n": estimate.n, "ci95": [estimate.low, estimate.high]}


@dataclass(frozen=True)
class _Table:
    """What every bot's results are computed from: the run's seatings and its scores."""

    plan: np.ndarray  # (Q, players): the bot in each seat of each seating
    scores: TableScores
    seat_scores: np.ndarray  # (D, Q, players): each seat's units, summed over its opponents
    values: np.ndarray  # (D, bots, seats, 3): every play's row values
    declared: np.ndarray  # (D, bots, seats): the hands declared as naturals, not played out
    sessions_index: np.ndarray  # positions of the deals of complete sessions


def _bot_results(b: int, table: _Table, records: Sequence[DealRecord]) -> ResultsBotResults:
    """One bot's results. Row wins, scoops and fouls count only what the rows settled;
    pairings settled by a natural are counted apart."""
    plan, seat_scores = table.plan, table.seat_scores
    players = plan.shape[1]
    occupied = plan == b  # (Q, players)
    per_deal = (seat_scores * occupied).sum(axis=(1, 2)) / occupied.sum()
    single = seat_scores[:, occupied]  # (D, instances): what one seating alone would give
    n_deals = per_deal.size
    var_dup = float(per_deal.var(ddof=1)) if n_deals > 1 else float("nan")
    var_single = float(single.var(ddof=1)) if single.size > 1 else float("nan")
    others = occupied[:, :, None] & ~np.eye(players, dtype=bool)[None]  # (Q, i, j): this bot in i against j
    settled = table.scores.by_rows[:, others]  # (D, comparisons)
    bot_rows = table.scores.rows[:, others][settled]  # (pairings settled by rows, 3)
    wins = (bot_rows == 1).mean(axis=0) if len(bot_rows) else np.full(3, np.nan)
    played = ~table.declared[:, b]  # (D, seats): hands played out, not declared
    foul = fouls(table.values[:, b])
    fault_count, first_faults = _faults(records, b)
    return {
        "units_per_hand": _estimate(Estimate.of(per_deal)),
        "session_win_share": _session_share(seat_scores[table.sessions_index], occupied),
        "row_win_rate": {"front": float(wins[0]), "middle": float(wins[1]), "back": float(wins[2])},
        "foul_rate": float(foul[played].mean()) if played.any() else float("nan"),
        "scoop_rate": float((bot_rows == 1).all(axis=-1).mean()) if len(bot_rows) else float("nan"),
        "variance_reduction": var_single / var_dup if var_dup > 0 else float("inf"),
        "natural_pairing_count": int((~settled).sum()),
        "fault_count": fault_count,
        "first_faults": first_faults,
    }


def _crosstable(names: Sequence[str], plan: np.ndarray, pair_scores: np.ndarray,
                arrangements: np.ndarray) -> dict[str, dict[str, ResultsEstimate]]:
    """Each bot against each other: units per hand when they meet, and how often they set a hand alike."""
    crosstable: dict[str, dict[str, ResultsEstimate]] = {}
    for a, name_a in enumerate(names):
        crosstable[name_a] = {}
        for b, name_b in enumerate(names):
            if a == b:
                continue
            mask = (plan[:, :, None] == a) & (plan[:, None, :] == b)  # (Q, i, j)
            if not mask.any():
                continue
            estimate = Estimate.of((pair_scores * mask).sum(axis=(1, 2, 3)) / mask.sum())
            same = float((arrangements[:, a] == arrangements[:, b]).mean())
            crosstable[name_a][name_b] = _estimate(estimate) | {"significant": estimate.significant,
                                                                "same_arrangement": same}
    return crosstable


def summarise(records: Sequence[DealRecord], names: Sequence[str], players: int,
              rules: Rules | str = BASIC) -> ResultsResults:
    """Per-bot results, the crosstable and the variance reduction, from the records alone.

    The result is the ``results`` of a results.json, under the same keys, before
    ``json_ready`` writes a float that is not finite as null. The records are read in deal
    order, whatever order they are given in.

    Args:
        records: The run's records (their ``seconds`` are not read).
        names: The bots' names, in the order of the records' ``plays``.
        players: How many players sit at a table.
        rules: The rules, by name or as ``Rules``; basic by default.

    Returns:
        A ``ResultsResults`` with the keys ``deal_count``, ``complete_session_count``,
            ``seatings`` (each seating's bot names, seat by seat), ``played_hand_count`` (deals x
            seatings x players), ``zero_sum`` (whether every pairing's scores cancel), ``by_bot``
            and ``crosstable``. ``by_bot`` holds each bot's results under its name:
            ``units_per_hand`` (an estimate: ``mean``, ``se``, ``n``, ``ci95``),
            ``session_win_share``, ``row_win_rate`` (``front``, ``middle``, ``back``),
            ``foul_rate``, ``scoop_rate``, ``variance_reduction``, ``natural_pairing_count``,
            ``fault_count`` and ``first_faults`` (up to 3, each ``deal``, ``seat``, ``error``).
            ``crosstable[a][b]`` is bot ``a``'s units per hand against ``b`` where they met (an
            estimate, with ``significant`` and ``same_arrangement``, the share of hands they set
            alike). The document's top-level ``bots`` (the bots' descriptions) is not part of it.
    """
    records = sorted(records, key=lambda r: r.deal)
    values, _, arrangements = arrays_of(records)
    plan = np.array(seatings(len(names), players))  # (Q, players)
    scores = table_scores(records, len(names), players, rules)
    declared = np.zeros(values.shape[:3], bool)
    for d, b, s in _naturals_of(records):
        declared[d, b, s] = True
    sessions_index = complete_sessions([r.deal for r in records])
    table = _Table(plan, scores, scores.scores.sum(axis=-1), values, declared, sessions_index)
    pair_scores = scores.scores
    return {
        "deal_count": len(records),
        "complete_session_count": len(sessions_index) // HANDS_PER_SESSION,
        "seatings": [[names[b] for b in s] for s in plan.tolist()],
        "played_hand_count": int(len(records) * len(plan) * players),
        "zero_sum": bool((pair_scores + np.swapaxes(pair_scores, -1, -2) == 0).all()),
        "by_bot": {name: _bot_results(b, table, records) for b, name in enumerate(names)},
        "crosstable": _crosstable(names, plan, pair_scores, arrangements),
    }


WRITTEN_DIGITS = 6  # decimals of a float in results.json


def _as_written(value: float) -> float:
    """A measured figure as results.json holds it, so that a report drawn from the document in
    memory and one drawn from the file (``bench report``) show the same digits: rounding twice,
    to 6 decimals and then for the table, could otherwise move the last digit shown."""
    return round(value, WRITTEN_DIGITS) + 0.0


def timing_summary(records: Sequence[DealRecord], names: Sequence[str]) -> dict[str, ResultsTimingDecisionTimeByBotValue]:
    """Decision time per bot: median and 95th percentile, in milliseconds, and how many.

    Args:
        records: The records, with their seconds.
        names: The bots' names, in the order of the records' ``plays``.

    Returns:
        Under each bot's name, ``median_ms`` and ``p95_ms``, rounded to 6 decimals as
            results.json holds them, and ``decision_count``.
    """
    out: dict[str, ResultsTimingDecisionTimeByBotValue] = {}
    for b, name in enumerate(names):
        seconds = np.array([p.seconds for r in records for p in r.plays[b]])
        out[name] = {"median_ms": _as_written(float(np.median(seconds) * 1e3)),
                     "p95_ms": _as_written(float(np.percentile(seconds, 95) * 1e3)), "decision_count": int(seconds.size)}
    return out


def session_totals(records: Sequence[DealRecord], names: Sequence[str], players: int,
                   rules: Rules | str = BASIC) -> dict[str, list[int]]:
    """Every bot's session totals (one per seat it held, per seating, per session).

    Args:
        records: The run's records, in any order.
        names: The bots' names, in the order of the records' ``plays``.
        players: How many players sit at a table.
        rules: The rules, by name or as ``Rules``; basic by default.

    Returns:
        Under each bot's name, its units over each complete session (8 deals) in each seat it
            held, session by session, as whole numbers.
    """
    records = sorted(records, key=lambda r: r.deal)
    seats = np.array(seatings(len(names), players))
    seat_scores = table_scores(records, len(names), players, rules).scores.sum(axis=-1)  # (D, Q, players)
    totals = _session_sums(seat_scores[complete_sessions([r.deal for r in records])])  # (S, Q, players)
    return {name: totals[:, seats == b].ravel().astype(int).tolist() for b, name in enumerate(names)}


# --- the results document ---------------------------------------------------------------------


def example_results() -> ResultsDocument:
    """A small results.json that ships with the package (4 bots, 10 sessions).

    For the notebooks and for trying ``bench report``; made by
    ``bench tournament --bots greedy,heuristic,table,random --players 4 --sessions 10 --seed 7 --jobs 1``.

    Returns:
        The document, as read from ``bench/data/example_results.json`` (not checked).
    """
    doc: ResultsDocument = json.loads(resources.files("bench.data").joinpath("example_results.json").read_text(encoding="utf-8"))
    return doc


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _bot_entries(names: list[str], specs: list[str], bot_specs: list[dict[str, Any]]) -> list[ResultsBot]:
    entries = []
    for n, s, b in zip(names, specs, bot_specs):
        entry: ResultsBot = {"name": n, "spec": s, "bot": b["name"], "params": b["params"], "class": b.get("class"),
                             "package": b.get("package"), "package_version": b.get("version"),
                             "identity": b.get("identity")}
        if "sha256_by_file" in b:  # a protocol bot's files
            entry["sha256_by_file"] = b["sha256_by_file"]
        if "replayable" in b:
            entry["replayable"] = b["replayable"]
        entries.append(entry)
    return entries


def _versions() -> dict[str, str | None]:
    """The software a run was played with."""
    return {
        "chinese-poker-solver": _version("chinese-poker-solver"),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "joblib": _version("joblib"),
    }


def _machine() -> ResultsDocumentMachine:
    """The machine a run was played on."""
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count()}


def _timing(records: list[DealRecord], names: list[str], players: int, played_hands: int, *, backend: str,
            jobs: int, wall_seconds: float, timed: int) -> ResultsTiming:
    """How long the run took: speeds over the ``timed`` deals, and each bot's decision times,
    each figure as results.json holds it."""
    deals = len(records)
    per_second = (lambda n: _as_written(n / wall_seconds)) if wall_seconds > 0 else (lambda n: None)
    return {
        "backend": backend,
        "job_count": jobs,
        "wall_seconds": _as_written(wall_seconds),
        "timed_deal_count": timed,
        "deals_per_second": per_second(timed),
        "hands_per_second": per_second(timed * players),
        "hands_played_per_second": per_second(played_hands * timed / deals) if deals else None,
        "decision_time_by_bot": timing_summary(records, names),
        "seconds": [[[_as_written(p.seconds) for p in row] for row in r.plays] for r in records],
    }


@dataclass(frozen=True)
class RunTiming:
    """How a run's deals were played: where, on how many workers, and how long the
    ``deals_played`` of them played here took (all by default; fewer in a resumed run, whose
    other deals came from its journal)."""

    backend: str
    jobs: int
    wall_seconds: float
    deals_played: int | None = None


def field_results(records: Sequence[DealRecord], names: Sequence[str], players: int, plan: FieldPlan) -> ResultsField:
    """The field estimator's figures of a run's records (each scored by ``bench.run.field.scored``).

    A bot's score on a deal is the mean, over the deal's hands, of its play's units against one
    opponent set by the field bot; only differences between bots are kept. As in the duplicate
    results, the crosstable is in units a hand against one opponent and ``by_bot`` in units a hand
    at the table: in every seating of the run, the bot's edges over the bots in the other seats
    (0 over a copy of itself), each opponent scored on its own (``bench.run.field``), averaged
    over the seats it holds.

    Args:
        records: The run's records, every one scored.
        names: The bots' names, in the order of the records' plays.
        players: The players at a table.
        plan: The field bot and the simulated opponents a hand.

    Returns:
        ``crosstable[a][b]``: a's edge over b in units a hand against one opponent (mean,
            standard error over deals, 95% interval, whether it is significant, and the share of
            hands they arranged alike); ``by_bot[a]``: a's edges over the bots seated with it,
            summed over the other seats and averaged over the seats a holds in the run's
            seatings, deal by deal, in units a hand at the table.

    Raises:
        ValueError: A record was not scored.
    """
    if any(record.field is None for record in records):
        raise ValueError("a record without its field scores")
    scores = np.array([record.field for record in records], dtype=float).reshape(len(records), len(names), players)
    per_deal = scores.mean(axis=2)  # (D, bots): units a hand against one opponent, less the first bot's
    seated = np.array(seatings(len(names), players))  # (Q, players): the bot in each seat of each seating
    count = np.stack([(seated == b).sum(axis=1) for b in range(len(names))], axis=1)  # (Q, bots): seats each holds
    meets = count.T @ count  # [a, b]: over a's seats in every seating, the seats b holds (a's own seat among them)
    arrangements = np.array([[[play.arrangement for play in row] for row in record.plays] for record in records])
    crosstable: dict[str, dict[str, ResultsEstimate]] = {}
    by_bot: dict[str, ResultsEstimate] = {}
    for a, name_a in enumerate(names):
        crosstable[name_a] = {}
        for b, name_b in enumerate(names):
            if a != b:
                estimate = Estimate.of(per_deal[:, a] - per_deal[:, b])
                same = float((arrangements[:, a] == arrangements[:, b]).mean())
                crosstable[name_a][name_b] = _estimate(estimate) | {"significant": estimate.significant,
                                                                    "same_arrangement": same}
        edges = per_deal[:, [a]] - per_deal  # (D, bots): a's edge over each bot, 0 over itself
        by_bot[name_a] = _estimate(Estimate.of(edges @ meets[a] / count[:, a].sum()))
    return {"bot": plan.spec, "sample_count": plan.samples, "by_bot": by_bot, "crosstable": crosstable}


def build_document(plan: RunPlan, rules: Rules, records: list[DealRecord], bot_specs: list[dict[str, Any]],
                   timing: RunTiming, names: list[str] | None = None) -> ResultsDocument:
    """The results.json document of a tournament played as ``plan`` says under ``rules``.

    The plan's fault policy says which faults its records can hold (``bench.records.check``).

    Args:
        plan: The tournament's settings: bots, players, sessions, seed, fault policy, time
            limit and command.
        rules: The rules it was played under.
        records: Its records, in any order, with their seconds: the timing is drawn from
            them, the document's records and results are without them.
        bot_specs: The seated bots described (``bots.bot_spec`` with their identities), in the
            order of ``plan``'s bots.
        timing: Where and on how many workers the deals were played, and how long they took.
        names: The bots' names in the tables (their specs by default), told apart by
            ``bots.identity.seat_names`` when two claim one.

    Returns:
        The document, its records sorted by deal; ``decision_timeout`` left out when the plan
            has none.
    """
    specs = list(plan.bots)
    names = seat_names(names if names is not None else specs)
    records = sorted(records, key=lambda r: r.deal)
    clean = [r.without_seconds() for r in records]
    summary = summarise(clean, names, plan.players, rules)
    timed = len(records) if timing.deals_played is None else timing.deals_played
    doc: ResultsDocument = {
        "schema_version": SCHEMA_VERSION,
        "document": DOCUMENT,
        "command": plan.command,
        "rules": rules.to_dict(),
        "bots": _bot_entries(names, specs, bot_specs),
        "player_count": plan.players,
        "session_count": plan.sessions,
        "hands_per_session": 8,
        "seed": plan.seed,
        "on_fault": plan.on_fault,
        "decision_timeout": plan.decision_timeout or 0.0,  # in its place among the settings; left out below when unset
        "version_by_package": _versions(),
        "git_commit": _git_commit(),
        "machine": _machine(),
        "results": summary,
        "timing": _timing(records, names, plan.players, summary["played_hand_count"], backend=timing.backend,
                          jobs=timing.jobs, wall_seconds=timing.wall_seconds, timed=timed),
        "records": cast("list[ResultsRecord]", rows_of(clean, seconds=False)),  # rows without seconds: the schema's
    }
    if plan.field is not None:
        doc["field"] = field_results(records, names, plan.players, plan.field)
    if plan.decision_timeout is None:
        del doc["decision_timeout"]
    return doc


def records_of(doc: ResultsDocument) -> list[DealRecord]:
    """A results document's records as the tournament code takes them.

    Args:
        doc: A results document.

    Returns:
        Its records, in the document's order, each play's ``seconds`` 0.
    """
    return rows_to_records(cast("list[RecordRow]", doc["records"]))  # a journal's rows, without their seconds


def refresh_results(doc: ResultsDocument) -> ResultsDocument:
    """The document with its results computed again from its per-deal records.

    Args:
        doc: A results document.

    Returns:
        A shallow copy of ``doc`` whose ``results`` are ``summarise``'s for its records, bots,
            player count and rules (floats not yet through ``json_ready``).
    """
    names = [b["name"] for b in doc["bots"]]
    fresh = doc.copy()
    fresh["results"] = summarise(records_of(doc), names, doc["player_count"], rules_of(doc))
    return fresh


def refresh_field(doc: ResultsDocument, on_record: Callable[[], object] | None = None) -> ResultsDocument:
    """The document with its field estimator's figures computed again from its records: the
    field bot it names (a bot of this package) scores every play again, on the opponents the
    document's seed deals.

    Args:
        doc: A results document that passed ``results_problem``.
        on_record: Called after each record is scored (a progress bar).

    Returns:
        ``doc`` when it has no field figures; else a shallow copy with ``field`` computed again
            (floats not yet through ``json_ready``).

    Raises:
        FieldError: The field bot cannot score these records: not a bot of this package, rules
            with naturals, a record with a failed decision.
    """
    stated = doc.get("field")
    if stated is None:
        return doc
    plan = FieldPlan(stated["bot"], stated["sample_count"])
    rules = rules_of(doc)
    problem = field_problem(plan, rules, len(doc["bots"]))
    if problem:
        raise FieldError(problem)
    records = []
    for record in records_of(doc):
        records.append(scored(record, plan, rules, doc["seed"]))
        if on_record is not None:
            on_record()
    fresh = doc.copy()
    fresh["field"] = field_results(records, [b["name"] for b in doc["bots"]], doc["player_count"], plan)
    return fresh


def results_difference(doc: Any, contents: Contents) -> str | None:
    """What keeps a run's results.json from being the one its journal gives, or None.

    It must pass the checks of ``bench report`` (its schema, then the document against
    itself), be of the journal's run (seed, seats, sessions, rules, bots, fault policy and
    time limit), hold for each of its deals the journal's record (a results.json written
    before the last part of a resumed run holds fewer deals), and hold the results its records
    give, number for number as it was written; a run with the field estimator, the field the
    journal registered and the figures its records give when scored again.

    Args:
        doc: The results.json, as parsed from JSON (any value).
        contents: The run's journal, as ``bench.run.journal.Journal.read`` gives it.

    Returns:
        The first difference found, in one line; None when the document is the journal's.
    """
    problem = results_problem(doc)
    if problem:
        return f"it is not a results.json that bench tournament wrote: {problem}"
    plan = contents.plan
    for key, value in (("seed", plan.seed), ("player_count", plan.players), ("session_count", plan.sessions),
                       ("rules", plan.rules), ("on_fault", plan.on_fault), ("decision_timeout", plan.decision_timeout)):
        if key in doc and doc[key] != value:  # on_fault and decision_timeout: absent from a results.json written
            return f"its {key} is not the journal's"  # before they were stored; the others are always there
    if [bot["spec"] for bot in doc["bots"]] != list(plan.bots):
        return "it names other bots than the journal"
    journal = {record["deal"]: record for record in rows_of(contents.records, seconds=False)}
    for record in doc["records"]:
        if record["deal"] not in journal:
            return f"it holds deal {record['deal']}, which the journal does not"
        if record != journal[record["deal"]]:
            return f"its record of deal {record['deal']} is not the journal's"
    if json_ready(refresh_results(doc), digits=6)["results"] != doc["results"]:
        return "its results are not those its records give (bench report DIR/results.json writes them again)"
    return _field_difference(doc, plan.field)


def _field_difference(doc: ResultsDocument, registered: FieldPlan | None) -> str | None:
    """What keeps a results.json's field figures from being those of the field the journal
    registered, scored again from its records, or None."""
    stated = doc.get("field")
    if (None if stated is None else FieldPlan(stated["bot"], stated["sample_count"])) != registered:
        return "its field estimator is not the one the journal registered"
    if stated is None:
        return None
    try:
        fresh = refresh_field(doc)
    except FieldError as error:
        return f"its field figures cannot be computed again: {error}"
    if json_ready(fresh, digits=6)["field"] != stated:
        return "its field figures are not those its records give (bench report DIR/results.json writes them again)"
    return None


def write_json(doc: ResultsDocument, path: Path) -> None:
    """results.json, written whole or not at all.

    Args:
        doc: The results document; a float that is not finite is written as null, every float
            to 6 decimals (``json_ready``).
        path: The file, replaced whole.

    Raises:
        OSError: The file cannot be written.
    """
    write_atomic(path, json.dumps(json_ready(doc, digits=WRITTEN_DIGITS), indent=1, allow_nan=False) + "\n")
