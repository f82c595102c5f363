"""Verifying a run from its journal: every deal its bots can play again, played again and compared.

The journal's checks (``bench.run.journal``) show a line changed by accident, cut short, moved or
taken from another run; anyone who means to forge a journal can compute them again. What
proves a play is a replay: a bot sets a hand from its cards and its seeded rng alone
(``bench.records.deals.seat_seed``), so the run's bots, made again from the header's specs,
play every deal again and each play is compared with its record (``bench.run.journal.COMPARED``:
the arrangement, the declared natural, the row values, the foul and its reason; the score
of a deal follows from these).

A bot is replayed only when it is the bot that played: it does not draw randomness of its own
(``bots.identity.replayable``), it can be made here, and its identity (files and their sha256,
class, version, parameters, a protocol bot's hello; ``bots.identity.bot_change``) is the one
the header holds. Any other bot is *not replayable*, with the reason, and its plays are not
compared; the other bots of the same deals still are (a bot's play depends on its spec,
seat and deal, never on who else is at the table). Decisions that failed, in the journal or
in the replay, are not compared either.

Deals are replayed in chunks of at most ``config.REPLAY_CHUNK`` on the chosen backend
(``bench.run.runner.run_chunks``); the first differences are those of the lowest deal numbers,
so nothing in the outcome depends on the number of workers.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from bench.records.model import DealRecord
from bench.run.journal import Contents, package_change, package_identity, play_difference
from bench.run.play import RunSettings, TournamentError, make_bots
from bench.run.runner import run_chunks
from bots import BotError
from bots.identity import bot_change, bot_identity, replayable
from bots.registry import outside_code
from solver import config
from solver.errors import InputError
from solver.rules import Rules, RulesError
from solver.text import terminal


@dataclass(frozen=True, slots=True)
class Difference:
    """A replayed play that is not the one recorded: where, and in which field."""

    deal: int
    seat: int
    bot: str  # the bot's spec
    field: str  # one of bench.run.journal.COMPARED
    recorded: str
    replayed: str

    def as_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "seat": self.seat, "bot": self.bot, "field": self.field,
                "recorded": self.recorded, "replayed": self.replayed}


@dataclass(frozen=True, slots=True)
class Unreplayable:
    """A bot of the run whose plays cannot be replayed here, and why."""

    bot: str  # the bot's spec
    reason: str


@dataclass
class Tally:
    """What a replay has found so far; ``add`` takes each chunk as it finishes, in any order."""

    replayed_deal_count: int = 0
    matched_deal_count: int = 0
    differing_deal_count: int = 0
    compared_play_count: int = 0
    uncompared_fault_count: int = 0
    differences: list[Difference] = field(default_factory=list)  # the first config.FIRST_DIFFERENCES, by deal

    def add(self, found: list[tuple[int, list[Difference], int, int]]) -> None:
        """Count replayed deals, each as (deal, its differences, plays compared, faults not compared)."""
        for _deal, differences, compared, faults in found:
            self.replayed_deal_count += 1
            self.compared_play_count += compared
            self.uncompared_fault_count += faults
            if differences:
                self.differing_deal_count += 1
                self.differences.append(differences[0])
            else:
                self.matched_deal_count += 1
        self.differences.sort(key=lambda d: d.deal)
        del self.differences[config.FIRST_DIFFERENCES:]


@dataclass(frozen=True)
class Plan:
    """What can be replayed of a run: the bots that can (``replayed``: specs, distinct, in
    table order) and those that cannot, with why; a change of the package since the run."""

    settings: Any  # bench.run.play.RunSettings of the replayed bots alone
    replayed: tuple[str, ...]
    unreplayable: tuple[Unreplayable, ...]
    package_change: str | None


class RunProblem(InputError, ValueError):
    """A journal that reads but does not describe a run this version can replay (its rules or
    settings): ``bench verify`` reports it as a damaged journal."""


def plan(contents: Contents, vouched: Collection[str] = ()) -> Plan:
    """Which of the run's bots can be replayed here. Each distinct spec is made on its own (and
    kept by this thread, as ``bench.run.play.make_bots`` keeps bots); one that cannot be
    made, or whose identity differs from the header's, is not replayed. A bot that is not
    built in (``bots.registry.outside_code``: an import path, a plug-in, a protocol bot, or one
    that names such a bot as its opponent) is made only when ``vouched`` holds its spec: a
    header names what it likes, and making such a bot runs code."""
    settings = contents.plan
    try:
        rules = Rules.from_dict(settings.rules, label=settings.rules.get("name"))
    except RulesError as error:
        raise RunProblem(f"the journal's rules cannot be read: {error}") from None
    stored = {bot["spec"]: bot for bot in contents.identity["bots"]}
    replayed: list[str] = []
    unreplayable: list[Unreplayable] = []
    for spec in dict.fromkeys(settings.bots):
        if spec not in stored:
            unreplayable.append(Unreplayable(spec, "the journal's header does not name what this bot was"))
            continue
        if not replayable(stored[spec]):
            unreplayable.append(Unreplayable(spec, "it draws randomness of its own (its hello says \"random\": true), "
                                                   "so it may set a hand another way each time"))
            continue
        try:
            outside = outside_code(spec)
        except BotError as error:
            unreplayable.append(Unreplayable(spec, f"it cannot be made on this machine: {error}"))
            continue
        if outside is not None and spec not in vouched:
            unreplayable.append(Unreplayable(spec, f"{outside[:80]!r} is not a built-in bot, and making it runs its "
                                                   f"code; if you trust it, verify with --bots {shlex.quote(spec)}"))
            continue
        try:
            bot = make_bots([spec], rules)[spec]
        except BotError as error:
            unreplayable.append(Unreplayable(spec, f"it cannot be made on this machine: {error}"))
            continue
        changed = bot_change(stored[spec], bot_identity(spec, bot))
        if changed:
            unreplayable.append(Unreplayable(spec, f"{changed} since the run"))
            continue
        replayed.append(spec)
    try:
        run_settings = RunSettings(tuple(replayed), settings.players, settings.seed, rules,
                                   settings.decision_timeout, "foul")
    except TournamentError as error:
        raise RunProblem(f"the journal's settings cannot be replayed: {error}") from None
    return Plan(run_settings, tuple(replayed), tuple(unreplayable),
                package_change(contents.identity["package"], package_identity()))


def compare(record: DealRecord, again: DealRecord, specs: list[str],
            replayed: tuple[str, ...]) -> tuple[list[Difference], int, int]:
    """A recorded deal against its replay (which holds the plays of the ``replayed`` specs, in
    that order): its differences (by bot, then seat), the plays compared and the decisions not
    compared for a fault."""
    differences: list[Difference] = []
    compared = faults = 0
    for b, spec in enumerate(specs):
        if spec not in replayed:
            continue
        row = again.plays[replayed.index(spec)]
        for seat, (kept, play) in enumerate(zip(record.plays[b], row)):
            if kept.fault is not None or play.fault is not None:
                faults += 1
                continue
            compared += 1
            found = play_difference(kept, play)
            if found:
                differences.append(Difference(record.deal, seat, spec, *found))
    return differences, compared, faults


def replay(contents: Contents, planned: Plan, on_done: Callable[[Tally, int], None], *, jobs: int = 1,
           backend: str = "sequential", tally: Tally | None = None) -> Tally:
    """Play every deal of the journal again with the replayable bots and compare; ``on_done``
    gets the tally and the deals of each chunk as it finishes. A stop (``KeyboardInterrupt``)
    leaves ``tally`` (when given) with every chunk finished before it. Bots played in this
    process stay with its thread until ``bench.run.play.close_bots`` ends them."""
    tally = tally if tally is not None else Tally()
    if not planned.replayed:
        return tally
    records = {record.deal: record for record in contents.records}
    deals = sorted(records)
    specs = list(contents.plan.bots)
    chunks = [deals[start:start + config.REPLAY_CHUNK] for start in range(0, len(deals), config.REPLAY_CHUNK)]

    def done(part: list[DealRecord]) -> None:
        tally.add([(again.deal, *compare(records[again.deal], again, specs, planned.replayed)) for again in part])
        on_done(tally, len(part))

    run_chunks(planned.settings, chunks, done, jobs=jobs, backend=backend)
    return tally


SCHEMA_VERSION = 1


def document(folder: str, contents: Contents | None, planned: Plan | None, tally: Tally | None,
             problem: str | None = None, results: tuple[int | None, str | None] = (None, None)) -> dict[str, Any]:
    """The ``verify`` document (``bench/records/schemas/verify.schema.json``): a damaged journal has its
    ``journal_problem`` and nothing else; otherwise the counts, the first differences and the
    bots not replayed, with the number of deals each played; ``results``: the deals of the
    run's results.json (None without one) and what is wrong with it (``bench.report.summary.results_difference``).
    ``verified``: no replayed play differs from its record, and the results.json (if any) is the
    journal's."""

    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "document": "verify", "folder": folder,
                           "journal_problem": problem}
    if problem is not None or contents is None or planned is None or tally is None:
        return doc | {"verified": False}
    deal_count = len(contents.records)
    doc |= {
        "run": contents.run,
        "deal_count": deal_count,
        "planned_deal_count": contents.plan.deals,
        "replayed_bots": list(planned.replayed),
        "replayed_deal_count": tally.replayed_deal_count,
        "matched_deal_count": tally.matched_deal_count,
        "differing_deal_count": tally.differing_deal_count,
        "compared_play_count": tally.compared_play_count,
        "uncompared_fault_count": tally.uncompared_fault_count,
        "differences": [d.as_dict() for d in tally.differences],
        "unreplayable_bots": [{"bot": u.bot, "reason": u.reason, "deal_count": deal_count} for u in planned.unreplayable],
        "package_change": planned.package_change,
        "cut_line_dropped": contents.dropped,
        "results_deal_count": results[0],
        "results_problem": results[1],
        "verified": tally.differing_deal_count == 0 and results[1] is None,
    }
    return doc


def render(doc: dict[str, Any]) -> str:
    """The ``verify`` document as a table for the terminal: what comes from outside (the
    folder's name, the journal's bot specs and versions, a bot's error) as one printable line
    each (``solver.text.terminal``; specs and plays quoted as Python quotes text)."""
    if doc["journal_problem"] is not None:
        return f"{terminal(doc['folder'])}: the journal is damaged: {terminal(doc['journal_problem'])}"
    lines = [f"run {doc['run']} in {terminal(doc['folder'])}: {doc['deal_count']:,} of {doc['planned_deal_count']:,} deals "
             "in the journal", ""]
    bots = ", ".join(repr(spec) for spec in doc["replayed_bots"]) or "none"
    rows = [("replayed", _count(doc["replayed_deal_count"], "deal"),
             f"bots {bots}; {_count(doc['compared_play_count'], 'play')} compared"),
            ("match", _count(doc["matched_deal_count"], "deal"), ""),
            ("differ", _count(doc["differing_deal_count"], "deal"), "")]
    if doc["uncompared_fault_count"]:
        rows.append(("faults", _count(doc["uncompared_fault_count"], "decision"),
                     "not compared: they failed in the journal or in the replay"))
    for unreplayable in doc["unreplayable_bots"]:
        rows.append(("not replayable", _count(unreplayable["deal_count"], "deal"),
                     f"bot {unreplayable['bot']!r}: {terminal(unreplayable['reason'])}"))
    if doc["results_deal_count"] is not None:
        rows.append(("results.json", _count(doc["results_deal_count"], "deal"),
                     f"NOT the journal's: {terminal(doc['results_problem'])}" if doc["results_problem"] else
                     "its records and results are the journal's"))
    width = max(len(r[0]) for r in rows)
    count = max(len(r[1]) for r in rows)
    lines += [f"{name:<{width}}  {number:>{count}}  {note}".rstrip() for name, number, note in rows]
    if doc["differences"]:
        shown = len(doc["differences"])
        lines += ["", f"first {shown} of {doc['differing_deal_count']:,} deals that differ:" if
                  doc["differing_deal_count"] > shown else "deals that differ:"]
        lines += [f"  deal {d['deal']}, seat {d['seat']}, bot {d['bot']!r}: the journal records {d['field']} "
                  f"{d['recorded']!r}, the bot plays {d['replayed']!r}" for d in doc["differences"]]
    if doc["package_change"]:
        lines += ["", f"note: {terminal(doc['package_change'])} since the run; a difference may come from that"]
    if doc["cut_line_dropped"]:
        lines += ["", "note: the journal's last line was cut short (the run was killed while writing it); its deals "
                      "are not counted, and a resume plays them again"]
    lines += ["", summary(doc)]
    return "\n".join(lines)


def _count(number: int, noun: str) -> str:
    """A count and its noun.

    >>> _count(1, "deal"), _count(1200, "deal")
    ('1 deal', '1,200 deals')
    """
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def summary(doc: dict[str, Any], stopped: str | None = None) -> str:
    """One line: what was checked and what was found."""
    found = f"{doc['matched_deal_count']:,} match, {doc['differing_deal_count']:,} differ"
    if doc["differences"]:
        found += f" (first: deal {doc['differences'][0]['deal']})"
    if stopped:
        return (f"stopped by {stopped} after replaying {doc['replayed_deal_count']:,} of "
                f"{_count(doc['deal_count'], 'deal')}: {found}")
    if not doc["replayed_bots"]:
        return f"nothing verified: no bot of the run can be replayed here ({_count(doc['deal_count'], 'deal')})"
    verdict = "verified" if doc["verified"] else "NOT verified"
    results = "; results.json is not the journal's" if doc["results_problem"] else ""
    skipped = len(doc["unreplayable_bots"])
    unproven = f"; the plays of {_count(skipped, 'bot')} not replayed are unproven" if skipped else ""
    return f"{verdict}: {_count(doc['replayed_deal_count'], 'deal')} replayed, {found}{results}{unproven}"
