"""A run's records: one deal's plays, built in one place and converted in one place.

A record has two shapes. In memory it is a ``DealRecord`` of frozen ``Play`` objects, each
arrangement one line of text (``"front / middle / back"``), which is how the run engine, the
statistics and the checks read it. In a document (the journal, results.json) it is a
``RecordRow``, each arrangement as its rows, as the JSON Schemas in ``bench/records/schemas``
say. ``Play.made`` and ``Play.failed`` build plays; ``DealRecord.row`` and
``DealRecord.of_row`` convert between the shapes, and nothing else does. What a record
must mean (its hands dealt by the seed, its rows those of its cards, its naturals held) is
checked in ``bench.records.check``.

>>> play = Play.made("5S 5D 2H / 7H 7C 6H 6C 9H / KS KD TS TC JD", (1, 2, 3), foul=False, seconds=0.25)
>>> row = DealRecord(deal=0, dealer=0, hands=("...",), plays=((play,),)).row(seconds=False)
>>> row["plays"][0][0]["arrangement"]["middle"], "seconds" in row["plays"][0][0]
('7H 7C 6H 6C 9H', False)
>>> DealRecord.of_row(row).plays[0][0] == play.without_seconds()
True
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from bench.records.deals import HANDS_PER_SESSION
from bots.registry import playing_as
from solver import config
from solver.arrangement import foul_reason
from solver.naturals import Natural

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:
    from typing_extensions import NotRequired

FAULT = "fault"  # the arrangement text of a failed decision
FAULT_VALUES = (1 << 30, 0, 0)  # its row values: scored as a foul (its front above its middle)


class RowsRow(TypedDict):
    """An arrangement as a document holds it: each row's cards as text."""

    front: str
    middle: str
    back: str


class NaturalRow(TypedDict):
    """A declared natural: its kind and the key that settles two of the same kind."""

    kind: str
    key: list[int]


class PlayRow(TypedDict):
    """One play as a document holds it (``$defs/play`` of results.schema.json and journal.schema.json)."""

    arrangement: RowsRow | None
    values: list[int]
    foul: bool
    foul_reason: str | None
    seconds: NotRequired[float]  # the journal keeps it; results.json holds timing apart
    natural: NotRequired[NaturalRow | None]
    fault: NotRequired[str]


class RecordRow(TypedDict):
    """One deal as a document holds it (``$defs/record``)."""

    deal: int
    dealer: int
    hands: list[str]
    plays: list[list[PlayRow]]


def arrangement_rows(text: str) -> RowsRow | None:
    """A play's arrangement as the documents hold it: its rows (None for a failed decision).

    Args:
        text: The arrangement as one line, ``"front / middle / back"``, or ``"fault"`` for a
            failed decision.

    Returns:
        ``front``, ``middle`` and ``back``, each row's cards as the text gives them; None for
            ``"fault"``.

    Raises:
        ValueError: The text is not three rows separated by ``" / "``.

    Examples:
        >>> arrangement_rows("5S 5D 2H / 7H 7C 6H 6C 9H / KS KD TS TC JD")["back"]
        'KS KD TS TC JD'
        >>> arrangement_rows("fault") is None
        True
    """
    if text == FAULT:
        return None
    front, middle, back = text.split(" / ")
    return {"front": front, "middle": middle, "back": back}


def arrangement_text(rows: RowsRow | None) -> str:
    """The rows of a play as one line, front / middle / back (``"fault"`` for None).

    Args:
        rows: A play's arrangement as a document holds it, or None for a failed decision.

    Returns:
        ``"front / middle / back"``, each row's cards as the document gives them; ``"fault"``
            for None.
    """
    return FAULT if rows is None else f"{rows['front']} / {rows['middle']} / {rows['back']}"


@dataclass(frozen=True, slots=True)
class Play:
    """One bot's play of one seat's hand: the arrangement as text, each row's strength code,
    whether it fouls and why, the seconds the decision took (not reproducible, so never
    compared), the natural declared (None when none), and the fault's text for a failed decision."""

    arrangement: str
    values: tuple[int, ...]
    foul: bool
    foul_reason: str | None
    seconds: float = 0.0
    natural: Natural | None = None
    fault: str | None = None

    @classmethod
    def made(cls, arrangement: str, values: Sequence[int], *, foul: bool, seconds: float,
             natural: Natural | None = None) -> Play:
        """A decision that returned an arrangement, with its foul reason as the solver says it.

        Args:
            arrangement: The arrangement as one line of text, ``"front / middle / back"``.
            values: Each row's strength code, front, middle and back.
            foul: Whether the arrangement fouls; its reason is then
                ``solver.arrangement.foul_reason``'s.
            seconds: The seconds the decision took, rounded to 6 decimals.
            natural: The natural the bot declared, or None.

        Returns:
            The play, with no fault.
        """
        return cls(arrangement, tuple(int(v) for v in values), bool(foul), foul_reason(arrangement) if foul else None,
                   round(seconds, 6), None if natural is None else Natural(natural.kind, tuple(natural.key)))

    @classmethod
    def failed(cls, message: str, seconds: float) -> Play:
        """A decision that failed (raised, answered badly, ran out of time): scored as a foul, its error the reason.

        Args:
            message: What went wrong, kept as the play's ``fault`` and its ``foul_reason``.
            seconds: The seconds the decision took, rounded to 6 decimals.

        Returns:
            The play, its arrangement ``"fault"`` (``FAULT``) and its row values
                ``FAULT_VALUES``.
        """
        return cls(FAULT, FAULT_VALUES, True, message, round(seconds, 6), None, message)

    @property
    def faulted(self) -> bool:
        return self.fault is not None

    def without_seconds(self) -> Play:
        """The play as a results document keeps it: what a replay must repeat.

        Returns:
            The same play with ``seconds`` 0.
        """
        return replace(self, seconds=0.0)

    def row(self, *, seconds: bool) -> PlayRow:
        """The play in a document's shape.

        Args:
            seconds: Keep the decision's time (the journal does; results.json does not).

        Returns:
            A ``PlayRow``: ``arrangement`` (its rows, None for a failed decision), ``values``,
                ``foul`` and ``foul_reason``, then ``seconds`` when asked for, ``natural`` when one
                was declared and ``fault`` for a failed decision.
        """
        row: PlayRow = {"arrangement": arrangement_rows(self.arrangement), "values": list(self.values),
                        "foul": self.foul, "foul_reason": self.foul_reason}
        if seconds:
            row["seconds"] = self.seconds
        if self.natural is not None:
            row["natural"] = {"kind": self.natural.kind, "key": list(self.natural.key)}
        if self.fault is not None:
            row["fault"] = self.fault
        return row

    @classmethod
    def of_row(cls, row: PlayRow) -> Play:
        """The play a document's row holds (the inverse of ``row``).

        Args:
            row: A play as a document holds it.

        Returns:
            The play; its ``seconds`` 0 when the row holds none.
        """
        natural = row.get("natural")
        return cls(arrangement_text(row["arrangement"]), tuple(row["values"]), row["foul"], row["foul_reason"],
                   row.get("seconds", 0.0), None if natural is None else Natural(natural["kind"], tuple(natural["key"])),
                   row.get("fault"))


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One deal of a run: its number, its dealer, each seat's hand as text, and every bot's
    play of every seat (``plays[bot][seat]``); under the field estimator (``bench.run.field``),
    each bot's score on each seat's hand against the field, less the first bot's
    (``field[bot][seat]``), which no document keeps (it is worked out again from the plays)."""

    deal: int
    dealer: int
    hands: tuple[str, ...]
    plays: tuple[tuple[Play, ...], ...]
    field: tuple[tuple[float, ...], ...] | None = None

    def row(self, *, seconds: bool) -> RecordRow:
        """The record in a document's shape (see ``Play.row``).

        Args:
            seconds: Keep each decision's time (the journal does; results.json does not).

        Returns:
            A ``RecordRow``: ``deal``, ``dealer``, ``hands`` and ``plays`` (``plays[bot][seat]``,
                each as ``Play.row`` gives it).
        """
        return {"deal": self.deal, "dealer": self.dealer, "hands": list(self.hands),
                "plays": [[play.row(seconds=seconds) for play in row] for row in self.plays]}

    @classmethod
    def of_row(cls, row: RecordRow) -> DealRecord:
        """The record a document's row holds (the inverse of ``row``).

        Args:
            row: A record as a document holds it.

        Returns:
            The record.
        """
        return cls(row["deal"], row["dealer"], tuple(row["hands"]),
                   tuple(tuple(Play.of_row(play) for play in plays) for plays in row["plays"]))

    def without_seconds(self) -> DealRecord:
        """The record as a results document keeps it: every play without its decision's time.

        Returns:
            The same record, each play's ``seconds`` 0 (``Play.without_seconds``).
        """
        return replace(self, plays=tuple(tuple(play.without_seconds() for play in row) for row in self.plays))


def rows_of(records: Sequence[DealRecord], *, seconds: bool) -> list[RecordRow]:
    """Records in a document's shape.

    Args:
        records: The records, in memory.
        seconds: Keep each decision's time (the journal does; results.json does not).

    Returns:
        One ``RecordRow`` per record (``DealRecord.row``), in the same order.
    """
    return [record.row(seconds=seconds) for record in records]


def rows_to_records(rows: Sequence[RecordRow]) -> list[DealRecord]:
    """A document's records in memory.

    Args:
        rows: The records as a document holds them.

    Returns:
        One ``DealRecord`` per row (``DealRecord.of_row``), in the same order.
    """
    return [DealRecord.of_row(row) for row in rows]


EXAMPLE_RECORD = DealRecord(  # a record of one deal of two greedy bots (seed 1)
    deal=0, dealer=0, hands=("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac", "2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad"),
    plays=((Play("4c 3c 2c / 9c 8c 7c 6c 5c / Ac Kc Qc Jc Tc", (1, 2, 3), False, None),) * 2,))


FaultPolicy = Literal["stop", "foul"]  # what a fault does to a run (bench tournament --on-fault)


@dataclass(frozen=True, slots=True)
class FieldPlan:
    """The field estimator of a run (``bench.run.field``): the field bot's spec (as given; it sets
    the opponents as it plays, ``bots.registry.playing_as``) and the simulated opponents a hand."""

    spec: str
    samples: int = config.DEFAULT_SAMPLES

    @property
    def model_spec(self) -> str:
        return playing_as(self.spec)

    def row(self) -> FieldRow:
        """The plan as a journal's header holds it.

        Returns:
            A ``FieldRow``: the spec as ``bot``, the samples as ``sample_count``.
        """
        return {"bot": self.spec, "sample_count": self.samples}

    @classmethod
    def of_row(cls, row: FieldRow) -> FieldPlan:
        """The plan a journal's header holds (the inverse of ``row``).

        Args:
            row: The ``field`` of a journal header's ``settings``.

        Returns:
            The plan.
        """
        return cls(row["bot"], row["sample_count"])


class FieldRow(TypedDict):
    """A run's field estimator as its journal's header holds it (``$defs/field`` of journal.schema.json)."""

    bot: str
    sample_count: int


class RunPlanRow(TypedDict):
    """A run's settings as its journal's header holds them (``$defs/settings`` of journal.schema.json)."""

    bots: list[str]
    player_count: int
    session_count: int
    seed: int
    rules: dict[str, Any]
    decision_timeout: float | None
    on_fault: FaultPolicy
    command: str
    field: NotRequired[FieldRow]


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What a tournament is, fixed before its first deal and kept in its journal's header: its
    bots (specs, in order), the players at a table, the sessions, the seed, the rules (as
    ``solver.rules.Rules.to_dict`` gives them), the time limit of one decision, the fault policy,
    the command that plays it again and the field estimator, if the run has one (registered
    with the seed before the first deal)."""

    bots: tuple[str, ...]
    players: int
    sessions: int
    seed: int
    rules: dict[str, Any]
    decision_timeout: float | None
    on_fault: FaultPolicy
    command: str = ""
    field: FieldPlan | None = None

    @property
    def deals(self) -> int:
        return self.sessions * HANDS_PER_SESSION

    def row(self) -> RunPlanRow:
        """The plan as the journal holds it: counts named as counts.

        Returns:
            A ``RunPlanRow``: ``players`` as ``player_count``, ``sessions`` as
                ``session_count``, the field estimator as ``FieldPlan.row`` (left out when the
                run has none), every other field under its own name.
        """
        row: RunPlanRow = {"bots": list(self.bots), "player_count": self.players, "session_count": self.sessions,
                           "seed": self.seed, "rules": self.rules, "decision_timeout": self.decision_timeout,
                           "on_fault": self.on_fault, "command": self.command}
        if self.field is not None:
            row["field"] = self.field.row()
        return row

    @classmethod
    def of_row(cls, row: RunPlanRow) -> RunPlan:
        """The plan a journal's header holds (the inverse of ``row``).

        Args:
            row: The ``settings`` of a journal's header.

        Returns:
            The plan.
        """
        field = row.get("field")
        return cls(tuple(row["bots"]), row["player_count"], row["session_count"], row["seed"], row["rules"],
                   row["decision_timeout"], row["on_fault"], row["command"],
                   None if field is None else FieldPlan.of_row(field))
