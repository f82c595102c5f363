"""A play as a run's records hold it, and the two forms of a record.

A record is one deal: its number, its dealer, the seat hands and, for every bot and seat,
a play: the arrangement, its row values, whether it fouls and why, the seconds the
decision took, a declared natural, and for a decision that failed its fault (scored as a
foul, with :data:`FAULT_VALUES`). The engine builds them (``bench.run.play``); in memory
each play's arrangement is one line of text (``"5S 5D 2H / 7H ... / KS ..."``), in the
documents (a journal line, results.json) its rows (``{"front": ..., "middle": ..., "back":
...}``); :func:`records_out` and :func:`records_in` convert, the one place that does.
"""

from __future__ import annotations

from typing import Any

from solver.arrangement import foul_reason

FAULT_VALUES = [1 << 30, 0, 0]  # row values of a hand scored as a foul (its front above its middle)


def play_foul_reason(arrangement: str, foul: bool) -> str | None:
    """Why a play's arrangement (as text) fouls, as the solver says it, or None when it does not."""
    return foul_reason(arrangement) if foul else None


def arrangement_rows(text: str) -> dict[str, str] | None:
    """A play's arrangement as the documents hold it: its rows (None for a failed decision).

    >>> arrangement_rows("5S 5D 2H / 7H 7C 6H 6C 9H / KS KD TS TC JD")["middle"]
    '7H 7C 6H 6C 9H'
    >>> arrangement_rows("fault") is None
    True
    """
    if text == "fault":
        return None
    front, middle, back = text.split(" / ")
    return {"front": front, "middle": middle, "back": back}


def arrangement_text(rows: dict[str, str] | None) -> str:
    """The rows of a play as one line, front / middle / back (``"fault"`` for None)."""
    return "fault" if rows is None else f"{rows['front']} / {rows['middle']} / {rows['back']}"


def records_out(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records as a document holds them: each play's arrangement as its rows."""
    return [r | {"plays": [[p | {"arrangement": arrangement_rows(p["arrangement"])} for p in row]
                           for row in r["plays"]]} for r in records]


def records_in(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records as they are held in memory, each play's arrangement as one line of text (the
    inverse of :func:`records_out`)."""
    return [r | {"plays": [[p | {"arrangement": arrangement_text(p["arrangement"])} for p in row]
                           for row in r["plays"]]} for r in records]


EXAMPLE_RECORD: dict[str, Any] = {  # a record of one deal of two greedy bots (seed 1), in memory's form
    "deal": 0, "dealer": 0, "hands": ["2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac", "2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad"],
    "plays": [[{"arrangement": "4c 3c 2c / 9c 8c 7c 6c 5c / Ac Kc Qc Jc Tc", "values": [1, 2, 3], "foul": False,
                "foul_reason": None, "seconds": 0.0}] * 2],
}
