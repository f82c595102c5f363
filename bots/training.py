"""Training the ``table`` bot by self-play (fictitious play).

Round 0 is the starting field: how the ``heuristic`` bot sets its rows (the start for basic
scoring), or the basic tables that ship with the package (the start for 1-6 and 2-4: a
field already shaped by self-play, from which the bonus rules' training ends less
exploitable). Each round then deals fresh hands, sets them with the best response to the field (the
``table`` strategy on the field's tables), and blends what it measured into the field
with weight ``1 / (round + 1)``, so the field is the average of every strategy played so
far. The strategy stops changing when few hands of a fixed check set change their
arrangement from one round to the next.

Under 1-6 and 2-4 the best response can weigh the coupling of the field's rows
(``coupling``, as ``table:coupling=true`` plays): its sample of the field is then the
hands of ``bots.table.coupling_hands`` as every round so far set them, in equal parts, so
that the bot is tuned against a field that plays as it does.

Everything is drawn from ``SeedSequence(seed)``: round r's hands from
``spawn_key=(r,)``, the check set from ``spawn_key=(10**6,)``. Work is split into a
fixed number of chunks, so the tables do not depend on the number of workers.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import joblib
import numpy as np

from bots.heuristic import heuristic_points
from bots.points import RowPoints
from bots.table import (
    COUPLING_HANDS,
    CouplingSample,
    FieldTables,
    JointPolicy,
    Removal,
    coupling_hands,
    play_tables,
    shipped_tables,
)
from solver import config, files, limits
from solver.classes import row_classes
from solver.documents import strict_json
from solver.rules import BASIC, Rules, RulesError, as_rules

CHUNKS = 16
CHECK_KEY = 10**6
REMOVAL_KEY = 10**6 + 1
REMOVAL_HANDS = 1_000_000  # bench train's field sample for the card-removal factors (train's default: none)
STARTS = ("heuristic", "basic")  # the field of round 0: the heuristic bot's rows, or the shipped basic tables


def default_start(rules: Rules | str | None) -> str:
    """The start the shipped tables of ``rules``' scoring method were trained from.

    Args:
        rules: The rule set, by name or as ``Rules``; None: basic.

    Returns:
        ``"heuristic"`` for basic scoring, ``"basic"`` (the shipped basic tables) for the others.
    """
    return "heuristic" if as_rules(rules).scoring == "basic" else "basic"


def training_hands(n: int, seed: np.random.SeedSequence) -> np.ndarray:
    """``n`` random 13-card hands; each shuffled deck gives four (card removal within a deal).

    Args:
        n: How many hands.
        seed: The seed sequence of the generator that shuffles the decks.

    Returns:
        The hands, ``(n, 13)`` uint8 card ids.
    """
    rng = np.random.default_rng(seed)
    decks = np.argsort(rng.random(((n + 3) // 4, 52)), axis=1).astype(np.uint8)
    return np.ascontiguousarray(decks.reshape(-1, 13)[:n])


def _arrange(hands: np.ndarray, policy: RowPoints | JointPolicy, rules: Rules, jobs: int,
             coupling: CouplingSample | None = None) -> np.ndarray:
    chunks = np.array_split(hands, CHUNKS)
    if jobs == 1:
        parts = [play_tables(c, policy, rules, coupling) for c in chunks]
    else:
        parts = joblib.Parallel(n_jobs=jobs, backend="threading")(
            joblib.delayed(play_tables)(c, policy, rules, coupling) for c in chunks
        )  # the kernels release the GIL (nogil), so threads run them in parallel
    return np.concatenate(parts)


@dataclass(frozen=True)
class RoundReport:
    round: int
    changed: float  # share of the check set whose arrangement changed this round
    points_change: float  # largest change of a middle row's expected score since the last round (nan in round 1)


@dataclass
class TrainingState:
    """Where training stands after a round: enough to continue to the same tables.

    ``field`` is the blended field so far, ``previous`` the check hands as last set, and
    ``previous_middle`` the middle points of the round before (for the change report). With
    ``coupling`` set, ``coupling_plays`` holds the hands of ``coupling_hands`` as round 0 and
    every round since set them: the field's sample that the next round weighs the coupling on."""

    settings: dict[str, Any]  # hands, rounds, seed, check_hands, rules (its name), start (one of STARTS), ...
    round: int
    field: FieldTables
    previous: np.ndarray
    previous_middle: np.ndarray | None
    reports: list[RoundReport]
    coupling_plays: np.ndarray | None = None  # (round + 1, COUPLING_HANDS, 13) uint8, with coupling only

    def save(self, path: str | Path) -> None:
        """Write the state to ``path``, replacing it whole or not at all: a temporary file
        beside it, synced and renamed.

        Args:
            path: The ``.npz`` file; the arrays and the settings, round, reports and their
                digest are written to it.

        Raises:
            OSError: The file cannot be written (a full disk); the previous file is left as
                it was, and no temporary file.
        """
        path = Path(path)
        arrays: dict[str, Any] = {"front": self.field.front, "middle": self.field.middle, "back": self.field.back,
                  "previous": self.previous,
                  "previous_middle": self.previous_middle if self.previous_middle is not None else np.zeros(0)}
        if self.coupling_plays is not None:
            arrays["coupling_plays"] = self.coupling_plays
        meta = {"settings": self.settings, "round": self.round, "has_previous_middle": self.previous_middle is not None,
                "reports": [asdict(r) for r in self.reports]}
        meta["digest"] = _digest(arrays, meta)
        data = io.BytesIO()
        np.savez(data, **arrays, meta=np.array(json.dumps(meta)))
        files.write_atomic(path, data.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> TrainingState:
        """A state written by ``save``, every array and setting checked (shapes, types, ranges
        and the digest of the whole).

        A checkpoint written before ``start``, ``removal_hands`` or ``coupling`` were settings
        gets ``"heuristic"``, ``REMOVAL_HANDS`` and false.

        Args:
            path: The ``.npz`` file; a link is not followed.

        Returns:
            The state, to go on from with ``train(resume=...)``.

        Raises:
            ValueError: The file cannot be read or is not such a state; the message names
                what is wrong.
        """
        try:
            with files.arrays(path, follow=False) as data:
                meta = strict_json(str(data["meta"]), "its settings", non_finite=True)  # nan: round 1's points_change
                arrays = {name: data[name].copy() for name in ("front", "middle", "back", "previous",
                                                                "previous_middle")}
                if "coupling_plays" in data.files:
                    arrays["coupling_plays"] = data["coupling_plays"].copy()
        except OSError as error:
            raise ValueError(f"cannot read training checkpoint {str(path)!r}: {error.strerror or error}") from None
        except Exception as error:  # zipfile, numpy and json each have their errors
            raise ValueError(f"{str(path)!r} is not a training checkpoint ({type(error).__name__}: {error})") from None
        problem = _checkpoint_problem(arrays, meta)
        if problem:
            raise ValueError(f"{str(path)!r} is not a training checkpoint this program wrote: {problem}")
        field = FieldTables(arrays["front"], arrays["middle"], arrays["back"])
        previous_middle = arrays["previous_middle"] if meta["has_previous_middle"] else None
        reports = [RoundReport(**r) for r in meta["reports"]]
        # a checkpoint without a start began from heuristic; one without removal_hands ends as bench train does now
        settings = {"start": "heuristic", "removal_hands": REMOVAL_HANDS, "coupling": False} | meta["settings"]
        return cls(settings, int(meta["round"]), field, arrays["previous"], previous_middle, reports,
                   arrays.get("coupling_plays"))


def _digest(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> str:
    """sha256 of the arrays (name, dtype, shape, bytes) and the settings, round and reports."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape}:".encode())
        digest.update(array.tobytes())
    digest.update(json.dumps({k: v for k, v in meta.items() if k != "digest"}, sort_keys=True).encode())
    return digest.hexdigest()


def _is_int(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _checkpoint_problem(arrays: dict[str, np.ndarray], meta: Any) -> str | None:  # noqa: C901  (a list of checks)
    """What keeps a checkpoint's arrays and meta from being a state ``TrainingState.save``
    wrote, or None."""
    if not isinstance(meta, dict) or set(meta) != {"settings", "round", "has_previous_middle", "reports", "digest"}:
        return "its meta is not the one a checkpoint holds"
    settings = meta["settings"]
    if isinstance(settings, dict) and "start" not in settings:
        settings = settings | {"start": "heuristic"}  # written before there was a choice of start
    if isinstance(settings, dict) and "removal_hands" not in settings:
        settings = settings | {"removal_hands": REMOVAL_HANDS}  # written before there was a card-removal sample
    if isinstance(settings, dict) and "coupling" not in settings:
        settings = settings | {"coupling": False}  # written before the coupling could be weighed
    if not isinstance(settings, dict) or set(settings) != {"hands", "rounds", "seed", "check_hands", "rules", "start",
                                                           "removal_hands", "coupling"}:
        return "its settings are not hands, rounds, seed, check_hands, rules, start, removal_hands and coupling"
    if not isinstance(settings["coupling"], bool):
        return f"its setting coupling is {settings['coupling']!r}, not true or false"
    if not _is_int(settings["removal_hands"], 0):
        return f"its setting removal_hands is {settings['removal_hands']!r}, not a whole number >= 0"
    if settings["start"] not in STARTS:
        return f"its start {settings['start']!r} is not one of {', '.join(STARTS)}"
    for key, low in (("hands", 1), ("rounds", 1), ("seed", 0), ("check_hands", 1)):
        if not _is_int(settings[key], low):
            return f"its setting {key} is {settings[key]!r}, not a whole number >= {low}"
    try:
        rules = Rules.parse(str(settings["rules"]))
    except RulesError as error:
        return f"its rules: {error}"
    if rules.royalties or rules.naturals or not isinstance(settings["rules"], str):
        return f"its rules {settings['rules']!r} are not a scoring method tables are trained for"
    if settings["coupling"] and rules.is_separable:
        return f"its setting coupling is true under {settings['rules']!r}, whose rows do not couple"
    if not _is_int(meta["round"], 1) or meta["round"] > settings["rounds"]:
        return f"its round is {meta['round']!r}, not 1 to {settings['rounds']}"
    reports = meta["reports"]
    if not isinstance(reports, list) or len(reports) != meta["round"] or any(
            not isinstance(r, dict) or set(r) != {"round", "changed", "points_change"} or r["round"] != i + 1
            for i, r in enumerate(reports)):
        return "its reports are not one per round done"
    if not isinstance(meta["has_previous_middle"], bool):
        return "its meta is not the one a checkpoint holds"

    classes = (len(row_classes()),)
    for name in ("front", "middle", "back") + (("previous_middle",) if meta["has_previous_middle"] else ()):
        array = arrays[name]
        if array.dtype != np.float64 or array.shape != classes:
            return f"its {name} table has shape {array.shape} of {array.dtype}, not {classes} of float64"
    for name in ("front", "middle", "back"):
        if not np.isfinite(arrays[name]).all() or (arrays[name] < 0).any():
            return f"its {name} table holds shares that are not finite numbers >= 0"
    previous = arrays["previous"]
    if previous.dtype != np.uint8 or previous.shape != (settings["check_hands"], 13) or (previous > 51).any():
        return (f"its check hands have shape {previous.shape} of {previous.dtype}, not "
                f"({settings['check_hands']}, 13) cards")
    problem = _coupling_plays_problem(arrays.get("coupling_plays"), settings["coupling"], meta["round"])
    if problem:
        return problem
    if meta["digest"] != _digest(arrays, meta):
        return "its contents do not match its digest (it was changed after it was written)"
    return None


def coupled_round_limit() -> int:
    """The most rounds a training with ``coupling`` may have: its checkpoint keeps every
    round's play of the coupling hands, and must stay small enough to be read back
    (``solver.config.ARRAYS_BYTES``, less 16 MiB for the rest of it).

    Returns:
        The number of rounds.
    """
    return (config.ARRAYS_BYTES - (16 << 20)) // (COUPLING_HANDS * 13) - 1  # bytes of one round's play


def _coupling_plays_problem(plays: np.ndarray | None, coupling: bool, round_done: int) -> str | None:
    """What keeps a checkpoint's ``coupling_plays`` from being the coupling hands as rounds 0 to
    ``round_done`` set them (none without ``coupling``), or None."""
    if not coupling:
        return "it holds coupling plays but its setting coupling is false" if plays is not None else None
    dealt = coupling_hands()
    if plays is None or plays.dtype != np.uint8 or plays.shape != (round_done + 1, *dealt.shape):
        shape = None if plays is None else f"{plays.shape} of {plays.dtype}"
        return f"its coupling plays are {shape}, not {(round_done + 1, *dealt.shape)} of uint8"
    if not (np.sort(plays, axis=2) == np.sort(dealt, axis=1)).all():
        return "its coupling plays are not the coupling hands, each set"
    return None


def train(
    hands: int = config.TRAINING_HANDS,
    rounds: int = config.TRAINING_ROUNDS,
    seed: int = config.TRAINING_SEED,
    check_hands: int = config.TRAINING_CHECK_HANDS,
    jobs: int = 1,
    on_round: Callable[[RoundReport], None] | None = None,
    rules: Rules | str | None = None,
    checkpoint: Callable[[TrainingState], None] | None = None,
    resume: TrainingState | None = None,
    start: str | None = None,
    removal_hands: int = 0,
    coupling: bool = False,
) -> tuple[FieldTables, list[RoundReport]]:
    """Tables for the ``table`` bot by ``rounds`` rounds of fictitious play under ``rules``
    (its scoring method; basic by default), from the field ``start`` (one of ``STARTS``;
    by default the start of the shipped tables of that scoring method, ``default_start``).

    ``checkpoint`` is handed the state after every round; ``resume`` continues from such a
    state (its settings, ``removal_hands`` included, win over the arguments), and the tables
    are then the same as those of an uninterrupted run. The tables' ``info`` holds the settings and their ``sha256``
    (``shares_digest``). Last, ``removal_hands`` fresh hands (``spawn_key=(REMOVAL_KEY,)``) set
    by the trained tables give the card-removal sample (``bots.table.Removal``; none when 0).
    With ``coupling`` (1-6 and 2-4 only) each round's best response weighs the coupling of the
    field's rows on the coupling hands as every round so far set them, and the tables carry
    the coupling sample of their own play (``table:coupling=true`` plays with it); the
    card-removal sample is set with the coupling weighed too.

    Args:
        hands: Hands dealt per round.
        rounds: Rounds of fictitious play after round 0 (0: the start's field).
        seed: The seed every hand is drawn from (``SeedSequence(seed)``).
        check_hands: Hands of the check set, whose changed arrangements each round reports.
        jobs: Threads that set hands; the tables do not depend on it.
        on_round: Called with each round's report, after ``checkpoint``.
        rules: The rule set, by name or as ``Rules``, whose scoring method the tables are
            trained for; None: basic.
        checkpoint: Called with the state after every round.
        resume: A state to continue from; its settings win over the arguments.
        start: The field of round 0, one of ``STARTS``; None: ``default_start(rules)``.
        removal_hands: Hands of the card-removal sample; 0: none.
        coupling: Weigh the coupling of the field's rows in every best response.

    Returns:
        The tables, and the report of every round.

    Raises:
        ValueError: ``start`` is not one of ``STARTS``, ``hands`` or ``check_hands`` is
            below 1 or ``rounds`` below 0, ``coupling`` is not a bool, is asked under basic
            scoring or with more than ``coupled_round_limit()`` rounds, or ``jobs`` is out of
            its limit (``solver.limits.LimitError``).
    """
    limits.check("jobs", jobs)
    settings: dict[str, Any]
    if resume is None:
        if start is not None and start not in STARTS:
            raise ValueError(f"start must be one of {', '.join(STARTS)}, got {start!r}")
        if not isinstance(coupling, bool):
            raise ValueError(f"coupling must be True or False, got {coupling!r}")
        if coupling and as_rules(rules).is_separable:
            raise ValueError(f"{as_rules(rules).scoring} scoring's rows do not couple: coupling is for 1-6 and 2-4")
        if coupling and rounds > coupled_round_limit():
            raise ValueError(f"with coupling, rounds must be at most {coupled_round_limit():,} (the checkpoint keeps "
                             f"every round's play of the coupling hands), got {rounds:,}")
        settings = {"hands": hands, "rounds": rounds, "seed": seed, "check_hands": check_hands,
                    "rules": as_rules(rules).name, "start": start or default_start(rules), "removal_hands": removal_hands,
                    "coupling": coupling}
    else:
        settings = dict(resume.settings)
    if settings["hands"] < 1 or settings["rounds"] < 0 or settings["check_hands"] < 1:
        raise ValueError("hands and check_hands must be positive and rounds at least 0")
    root = np.random.SeedSequence(int(settings["seed"]))
    check = training_hands(int(settings["check_hands"]), np.random.SeedSequence(root.entropy, spawn_key=(CHECK_KEY,)))
    state = resume if resume is not None else _round_zero(settings, root, check, jobs)
    while state.round < settings["rounds"]:
        state = _next_round(state, root, check, jobs)
        if checkpoint is not None:
            checkpoint(state)
        if on_round is not None:
            on_round(state.reports[-1])
    field = state.field
    removal_hands = int(settings["removal_hands"])
    info = _info(state) | {"removal_hands": removal_hands}
    rules_played = as_rules(str(settings["rules"]))
    policy = field.policy(rules_played)
    played = None  # the coupling sample of the trained tables' own play
    if state.coupling_plays is not None:
        mixture = CouplingSample.mixture(state.coupling_plays)
        played = CouplingSample.deal(lambda hands: _arrange(hands, policy, rules_played, jobs, mixture))
    removal = None
    if removal_hands:
        dealt = training_hands(removal_hands, np.random.SeedSequence(root.entropy, spawn_key=(REMOVAL_KEY,)))
        removal = Removal.measure(dealt, _arrange(dealt, policy, rules_played, jobs, played))
    return FieldTables(field.front, field.middle, field.back, info=info, removal=removal,
                       coupling=played), state.reports


def _start_tables() -> FieldTables:
    """The basic tables installed with the package (bots/data/table_basic.npz): the start of 1-6 and 2-4."""
    return shipped_tables(BASIC)


def _round_zero(settings: dict[str, Any], root: np.random.SeedSequence, check: np.ndarray,
                jobs: int) -> TrainingState:
    """The starting field and the check hands as its strategy sets them: the ``heuristic`` bot's
    rows on round 0's hands, or the shipped basic tables and the ``table`` bot playing them
    (with ``coupling``, the coupling hands as that strategy sets them too)."""
    if settings["start"] == "basic":
        basic = _start_tables()
        field = FieldTables(basic.front.copy(), basic.middle.copy(), basic.back.copy())
        strategy: RowPoints | JointPolicy = field.policy(BASIC)
    else:
        strategy = heuristic_points()
        first = training_hands(int(settings["hands"]), np.random.SeedSequence(root.entropy, spawn_key=(0,)))
        field = FieldTables.from_arranged(_arrange(first, strategy, BASIC, jobs))
    plays = _arrange(coupling_hands(), strategy, BASIC, jobs)[None] if settings["coupling"] else None
    return TrainingState(settings, 0, field, _arrange(check, strategy, BASIC, jobs), None, [], plays)


def _next_round(state: TrainingState, root: np.random.SeedSequence, check: np.ndarray, jobs: int) -> TrainingState:
    """One round of fictitious play: fresh hands set by the best response to the field,
    blended into it with weight ``1 / (round + 1)``; how much the check set and the middle
    points moved. With ``coupling`` the best response weighs it on the coupling hands as
    every round so far set them, and sets them too, for the rounds after."""
    r = state.round + 1
    rules = as_rules(str(state.settings["rules"]))
    policy = state.field.policy(rules)
    points = state.field.points()
    plays = state.coupling_plays
    mixture = CouplingSample.mixture(plays) if plays is not None else None
    dealt = training_hands(int(state.settings["hands"]), np.random.SeedSequence(root.entropy, spawn_key=(r,)))
    response = FieldTables.from_arranged(_arrange(dealt, policy, rules, jobs, mixture))
    field = state.field.blend(response, 1.0 / (r + 1))
    current = _arrange(check, policy, rules, jobs, mixture)
    if plays is not None:
        plays = np.concatenate([plays, _arrange(coupling_hands(), policy, rules, jobs, mixture)[None]])
    moved = float(np.mean(np.any(current != state.previous, axis=1)))
    delta = float("nan")
    if state.previous_middle is not None:
        finite = np.isfinite(points.middle)
        delta = float(np.max(np.abs(points.middle[finite] - state.previous_middle[finite])))
    reports = [*state.reports, RoundReport(round=r, changed=moved, points_change=delta)]
    return TrainingState(state.settings, r, field, current, np.asarray(points.middle), reports, plays)


def shares_digest(tables: FieldTables) -> str:
    """sha256 of the front, middle and back shares, each as 7,917 little-endian float64, in that order.

    Args:
        tables: The tables.

    Returns:
        The sha256 as 64 hexadecimal digits.
    """
    digest = hashlib.sha256()
    for shares in tables.shares():
        digest.update(np.ascontiguousarray(shares, "<f8").tobytes())
    return digest.hexdigest()


_START_WORDS = {"heuristic": "heuristic", "basic": "the shipped basic tables"}


def _info(state: TrainingState) -> dict[str, Any]:
    """What the tables record of how they were made: the settings, and the digest of their shares."""
    settings, reports = state.settings, state.reports
    return {
        "method": f"fictitious play from {_START_WORDS[settings['start']]}, field blended with weight 1/(round+1)"
                  + (", the coupling of the field's rows weighed" if settings.get("coupling") else ""),
        "rules": settings["rules"],
        "start": settings["start"],
        "hands_per_round": settings["hands"],
        "rounds": settings["rounds"],
        "seed": settings["seed"],
        "check_hands": settings["check_hands"],
        "changed_last_round": reports[-1].changed if reports else None,
        **({"start_sha256": shares_digest(_start_tables())} if settings["start"] == "basic" else {}),
        "sha256": shares_digest(state.field),
        **({"coupling": True} if settings.get("coupling") else {}),
    }
