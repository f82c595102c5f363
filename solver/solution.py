"""``solve``: the best arrangement of 13 cards by exhaustive search and Monte Carlo.

Every legal split is scored against the same sample of opponents: each opponent's
13 cards are dealt from the 39 the player does not hold (card removal is real) and
set by an opponent model, any bot. Under basic scoring a split's expected score is
the sum of its rows' expected scores, so each of the hand's 286 three-card and
1,287 five-card subsets is scored once against the sorted opponent rows, and the
72,072 splits are then look-ups (the canonical scan of 36,036 entries).

The opponents are set by an opponent model (``solver.opponent``): any object with
``arrange_many``; ``bots.opponent_model`` makes one from a bot name, and
``bots.solve_hand`` solves against a bot named by its spec.

The opponents are dealt and set in ``solver.sampling``, the splits searched in
``solver.search`` (over the kernels of ``solver._search``); this module holds the results
(``Solution``, ``Grade``) and the functions that make them.

By linearity of expectation the expected score against N - 1 opponents is N - 1
times the score against one, so the best arrangement does not depend on the number
of players (docs/rules.md); ``players`` only scales the reported figures. Every rule set
here settles each pairing on its own, and each opponent's hand is, alone, a uniform
13 of the 39 unseen cards, so this holds for the bonus methods too.

Other rule sets (``solver.rules``): royalties are still sums over rows; a scoop or
majority bonus couples the rows, and then the splits that bounds cannot rule out are
scored jointly against every sampled opponent (see ``solve``).

The reported EV is measured on the sample that chose the arrangement, so it is the
best of many noisy estimates and leans optimistic by about the size of its standard
error when close alternatives exist; the differences to the alternatives are paired
(same opponents), which is what makes them significant or not.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solver import config
from solver.arrangement import ROWS, Arrangement, as_arrangement, foul_reason
from solver.cards import Card, CardsLike, format_cards, parse_hand, reading_order
from solver.documents import json_ready
from solver.errors import SolveError
from solver.evaluator import describe_value
from solver.lessons import decision, verdict, why
from solver.naturals import Natural, best_natural, held_natural
from solver.opponent import OpponentModel, model_name
from solver.rules import Rules, RulesError, as_rules
from solver.sampling import Sample, check_memory, per_sample_rows, per_sample_scores, simulate
from solver.scoring import fouls, royalty_array, royalty_lines
from solver.search import Play, rank_plays
from solver.splits import split_arrangement
from solver.statistics import Z95

SCHEMA_VERSION = 3  # of the solve and hand-grade documents; 3: document, *_count, foul_reason, ev_parts.per_opponent.rows


@dataclass(frozen=True, slots=True)
class RowResult:
    """One row of the chosen arrangement against the opponents' same row."""

    row: str  # "front", "middle" or "back"
    cards: tuple[Card, ...]  # in reading order
    hand: str  # its name, such as "pair of 7s, K kicker"
    win: float  # chance of winning the row against one opponent who plays rows (their fouls count as wins)
    tie: float
    lose: float
    ev: float  # units this row brings per opponent, over every opponent (0 where a natural settles)


@dataclass(frozen=True, slots=True)
class Alternative:
    """A runner-up arrangement and how far it trails the best, on the same sample."""

    arrangement: Arrangement
    ev: float
    diff: float  # ev - best ev (<= 0)
    diff_se: float  # standard error of the paired difference
    significant: bool  # |diff| > 1.96 diff_se
    rows: tuple[RowResult, ...] = ()  # its rows against the opponents' rows, as the best play's


@dataclass(frozen=True, slots=True)
class Solution:
    """The best arrangement of a hand and the evidence for it.

    ``ev`` and ``ev_se`` are units per hand against ``players - 1`` opponents.
    """

    hand: tuple[Card, ...]
    arrangement: Arrangement
    ev: float
    ev_se: float
    rows: tuple[RowResult, ...]
    alternatives: tuple[Alternative, ...]
    samples: int
    seed: int
    opponent: str
    players: int
    rules: Rules
    seconds: float
    legal_splits: int
    natural: str | None = None  # the natural this hand holds, when the rules allow naturals
    natural_ev: float | None = None  # expected score of declaring it
    declare: bool = False  # declaring the natural beats playing the best arrangement
    parts: dict[str, float] = field(default_factory=dict)  # per opponent: rows, bonus, royalties, naturals; sums to ev
    natural_held: str | None = None  # the natural the hand holds, whatever the rules
    opponents_with_naturals: float = 0.0  # share of simulated opponents who declared a natural
    distinct: str = "hands"  # how runners-up differ from the best and each other: "hands" or "values"
    timings: dict[str, float] = field(default_factory=dict)  # seconds: deal, arrange, score
    sample: np.ndarray | None = field(default=None, repr=False, compare=False)  # (samples, 13) opponents, set

    @property
    def opponents(self) -> int:
        return self.players - 1

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document of ``solve --json`` (``bench/records/schemas/solve.schema.json``).

        Returns:
            The document: numbers rounded to 6 decimals, a standard error of one sample null,
                cards of a row in reading order.
        """
        return json_ready({
            "schema_version": SCHEMA_VERSION,
            "document": "solve",
            "hand": format_cards(self.hand),
            "arrangement": self.arrangement.to_dict(),
            "ev": self.ev,
            "ev_se": self.ev_se,
            "ev_parts": {"opponent_count": self.opponents, "per_opponent": _parts_dict(self.parts)},
            "rows": _row_results_dict(self.rows),
            "alternatives": [
                {"arrangement": a.arrangement.to_dict(), "ev": a.ev, "diff": a.diff, "diff_se": a.diff_se,
                 "significant": a.significant, "rows": _row_results_dict(a.rows)}
                for a in self.alternatives
            ],
            "alternatives_distinct": self.distinct,
            "sample_count": self.samples,
            "seed": self.seed,
            "opponent": self.opponent,
            "player_count": self.players,
            "rules": self.rules.to_dict(),
            "natural": self.natural,
            "natural_ev": self.natural_ev,
            "declare": self.declare,
            "natural_held": self.natural_held,
            "natural_opponent_share": self.opponents_with_naturals,
            "legal_split_count": self.legal_splits,
            "seconds": self.seconds,
            "timings": self.timings,
        }, digits=6)  # fmt: skip


DECLARE = "declare"  # the play to grade that declares the natural the hand holds (``grade``)
PART_KEYS = {"bonus": "bonus", "royalties": "royalty", "naturals": "opponent_natural"}  # Solution.parts -> ev_parts


def _parts_dict(parts: dict[str, float]) -> dict[str, Any]:
    """``ev_parts.per_opponent``: the rows nested under ``rows``, then the bonus, the royalty and
    the opponents' naturals where the rules have them."""
    out: dict[str, Any] = {"rows": {name: parts[name] for name in ROWS}}
    return out | {PART_KEYS[k]: v for k, v in parts.items() if k in PART_KEYS}


def _row_results_dict(rows: tuple[RowResult, ...]) -> dict[str, dict[str, Any]]:
    return {r.row: {"cards": format_cards(r.cards), "hand": r.hand, "win": r.win, "tie": r.tie, "lose": r.lose,
                    "ev": r.ev} for r in rows}


def _check_options(samples: Any, players: Any, top: Any, rules: Rules | str | None) -> Rules:
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise SolveError(f"samples must be a positive whole number, got {samples!r}")
    check_memory(int(samples))
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 2 <= players <= 4:
        raise SolveError(f"players must be 2, 3 or 4, got {players!r}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0:
        raise SolveError(f"top must be a whole number of alternatives >= 0, got {top!r}")
    try:
        return as_rules(rules)
    except RulesError as error:
        raise SolveError(str(error)) from None


def _row_result(name: str, cards: tuple[Card, ...], value: int, results: np.ndarray, plain: np.ndarray) -> RowResult:
    """One row's chances against the opponents who play rows, and its units over all of them."""
    settled = results[plain]
    nan = float("nan")
    chances = [float((settled == r).mean()) if len(settled) else nan for r in (1, 0, -1)]
    return RowResult(row=name, cards=reading_order(cards), hand=describe_value(value), win=chances[0],
                     tie=chances[1], lose=chances[2], ev=float((results * plain).mean()))


def _parts(values: tuple[int, int, int], rows: np.ndarray, sample: Sample, rules: Rules) -> dict[str, float]:
    """The best play's units per opponent, taken apart: each row, the scoring bonus, the
    royalties and the opponents' naturals, each counted on its own from the row results and
    the rows' hands; the EV per opponent is their sum."""
    plain = sample.plain
    parts = {name: float((rows[:, i] * plain).mean()) for i, name in enumerate(ROWS)}
    if rules.scoring != "basic":
        parts["bonus"] = float((bonus_units(rows, rules) * plain).mean())
    if rules.royalties:
        mine = np.broadcast_to(np.array(values, np.int64), (sample.n, 3))
        parts["royalties"] = float((royalty_units(mine, sample.values, rows, rules) * plain).mean())
    if rules.naturals:
        parts["naturals"] = float(sample.natural_scores(None, rules)[sample.declared].sum() / sample.n)
    return parts


def bonus_units(rows: np.ndarray, rules: Rules) -> np.ndarray:
    """Bonus units of the scoring method, beyond the rows' own units.

    Under 1-6 a scoop takes 3 more (6 in all), under 2-4 winning more rows than the other
    takes 1; basic scoring has no bonus.

    Args:
        rows: Row results (+1 / 0 / -1, fouls applied), shape ``(n, 3)``.
        rules: The rule set whose scoring method counts.

    Returns:
        The bonus of each pairing, an int64 array of length ``n`` (negative when it is paid).

    Examples:
        >>> bonus_units(np.array([[1, 1, 1], [1, 1, -1], [-1, -1, -1], [1, 0, 0]]), as_rules("1-6")).tolist()
        [3, 0, -3, 0]
        >>> bonus_units(np.array([[1, 1, 1], [1, 1, -1], [-1, -1, -1], [1, 0, 0]]), as_rules("2-4")).tolist()
        [1, 1, -1, 1]
    """
    wins, losses = (rows == 1).sum(axis=1), (rows == -1).sum(axis=1)
    if rules.scoring == "1-6":
        return 3 * (wins == 3).astype(np.int64) - 3 * (losses == 3)
    if rules.scoring == "2-4":
        return np.sign(wins - losses).astype(np.int64)
    return np.zeros(len(rows), np.int64)


def royalty_units(mine: np.ndarray, theirs: np.ndarray, rows: np.ndarray, rules: Rules) -> np.ndarray:
    """Royalties ``mine[i]`` collects from ``theirs[i]`` less those it pays.

    A valid hand earns the royalty of each row's hand (only of the rows it wins, when the
    rules ask for a win), a fouled hand earns none.

    Args:
        mine: Our row values (front, middle, back), shape ``(n, 3)``.
        theirs: The opponents' row values, shape ``(n, 3)``.
        rows: The row results of ``mine`` against ``theirs`` (+1 / 0 / -1, fouls applied),
            shape ``(n, 3)``; read only when the rules pay a royalty on a won row alone.
        rules: The rule set whose royalty table pays.

    Returns:
        The net royalty units of each pairing, an int64 array of length ``n``.
    """
    table = royalty_array(rules)
    earned = table[np.arange(3), royalty_lines(mine)]
    paid = table[np.arange(3), royalty_lines(theirs)]
    if rules.royalty_needs_win:
        earned, paid = earned * (rows == 1), paid * (rows == -1)
    return earned.sum(axis=1) * ~fouls(mine) - paid.sum(axis=1) * ~fouls(theirs)


def _alternative(cards: tuple[Card, ...], split: int, values: tuple[int, int, int], best_total: np.ndarray, sample: Sample,
                 rules: Rules, scale: int) -> Alternative:
    """A runner-up and its paired difference to the best, on the same opponents."""
    total = per_sample_scores(values, sample, rules)
    diff = total - best_total
    diff_se = float(diff.std(ddof=1) / np.sqrt(sample.n)) if sample.n > 1 else float("nan")
    mean_diff = float(diff.mean())
    arrangement = split_arrangement(cards, split)
    results = per_sample_rows(values, sample)
    return Alternative(
        arrangement=arrangement,
        ev=float(total.mean()) * scale,
        diff=mean_diff * scale,
        diff_se=diff_se * scale,
        significant=bool(abs(mean_diff) > Z95 * diff_se),
        rows=tuple(_row_result(name, row_cards, value, results[:, i], sample.plain)
                   for i, (name, row_cards, value) in enumerate(zip(ROWS, arrangement.rows, values))),
    )


def solve(
    hand: CardsLike,
    opponent: OpponentModel,
    *,
    samples: int = config.DEFAULT_SAMPLES,
    seed: int | None = None,
    players: int = 2,
    top: int = 3,
    rules: Rules | str | None = None,
    keep_sample: bool = False,
    distinct: str = "hands",
) -> Solution:
    """The legal arrangement with the highest expected score against opponents set by ``opponent``.

    Under basic scoring and royalties the expectation is a sum over rows and every split is
    scored by look-up. With a scoop or majority bonus the rows interact: every split gets
    bounds from its per-row chances, and each split whose upper bound reaches the best lower
    bounds is scored jointly against every sampled opponent, so the choice is the best on the
    sample under those rules.

    Args:
        hand: The 13 cards, as text (``"AS KS ..."``) or a sequence of cards.
        opponent: The opponent model that sets every sampled opponent (``solver.opponent``),
            such as ``bots.opponent_model("table", rules)``.
        samples: How many opponent hands are dealt from the 39 unseen cards and set.
        seed: The seed of the sample; ``None`` draws one, which the result reports.
        players: Players at the table, 2 to 4; scales the reported figures only.
        top: How many runners-up follow the best play.
        rules: The rule set (``solver.rules``), by name or as ``Rules``; basic by default.
        keep_sample: Keep the sampled opponents' rows in the result (for ``grade``).
        distinct: ``"hands"``: runners-up whose rows are called differently;
            ``"values"``: any plays with other row values.

    Returns:
        The best play, its runners-up and their expected scores, as a ``Solution``.

    Raises:
        CardError: ``hand`` is not 13 distinct cards.
        SolveError: A setting is not valid (a ``ValueError``).
        OpponentError: The opponent model failed or answered with something other than the
            hands it was given, set in rows.

    Examples:
        >>> from bots import opponent_model
        >>> s = solve("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", opponent_model("table"), samples=200, seed=1)
        >>> print(s.arrangement)
        9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS
        >>> s.opponent, s.legal_splits
        ('table', 18642)
    """
    started = time.perf_counter()
    cards, rules = check_request(hand, opponent, samples=samples, seed=seed, players=players, top=top, rules=rules,
                                 distinct=distinct)
    entropy = int(seed) if seed is not None else secrets.randbits(32)  # short enough to read and type
    deals, arranged, timings = simulate(cards, opponent, samples, entropy)
    scoring = time.perf_counter()
    sample = Sample(arranged, deals, rules)
    chosen, legal_splits = rank_plays(cards, sample, rules, top, distinct)
    best = _best_play(cards, chosen, sample, rules, players - 1)
    natural = _natural_play(cards, sample, rules, players - 1, best["ev"])
    finished = time.perf_counter()
    return Solution(
        hand=cards,
        **best,
        **natural,
        samples=samples,
        seed=entropy,
        opponent=model_name(opponent),
        players=players,
        rules=rules,
        seconds=finished - started,
        legal_splits=legal_splits,
        opponents_with_naturals=float(sample.declared.mean()),
        distinct=distinct,
        timings=timings | {"score": finished - scoring},
        sample=arranged if keep_sample else None,
    )


def check_request(hand: CardsLike, opponent: OpponentModel, arrangement: Arrangement | str | None = None, *,
                  samples: int = config.DEFAULT_SAMPLES, seed: int | None = None, players: int = 2, top: int = 3,
                  rules: Rules | str | None = None, distinct: str = "hands") -> tuple[tuple[Card, ...], Rules]:
    """The hand's cards and the rules, once everything ``solve`` (and ``grade``, given the
    ``arrangement``) is asked is checked, at once and without any work.

    It raises the same ``SolveError`` (or ``CardError``) the call would raise. The arguments
    are those of ``solve``.

    Args:
        hand: The 13 cards, as text or a sequence of cards.
        opponent: The opponent model; it must have an ``arrange_many`` method.
        arrangement: The player's arrangement to grade, or its text; ``None`` for a solve.
        samples: How many opponent hands would be dealt; the memory they need is checked.
        seed: The seed of the sample, a whole number >= 0, or ``None``.
        players: Players at the table, 2 to 4.
        top: How many runners-up, a whole number >= 0.
        rules: The rule set, by name or as ``Rules``; basic by default.
        distinct: ``"hands"`` or ``"values"``.

    Returns:
        The hand's cards and the rule set.

    Raises:
        CardError: The hand is not 13 distinct cards, or the arrangement cannot be read.
        SolveError: The arrangement holds other cards than the hand, or an option is not
            valid (a rule set that cannot be read included).

    Examples:
        >>> check_request("AS KS", None)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        solver.cards.CardCountError: expected 13 cards for the hand, got 2: 'AS KS'
    """
    cards = parse_hand(hand)
    if arrangement is not None and not declares(arrangement):
        _play_of(cards, arrangement)
    checked = _check_options(samples, players, top, rules)
    if arrangement is not None and declares(arrangement):
        _natural_to_declare(cards, checked)
    _check_search(opponent, seed, distinct)
    return cards, checked


def declares(play: Arrangement | str) -> bool:
    """Whether a play to grade is the word ``declare``: the natural declared.

    Args:
        play: An arrangement, or the text a user gave for one.

    Returns:
        True when ``play`` is the text ``declare`` in any case, with or without spaces around it.
    """
    return isinstance(play, str) and play.strip().lower() == DECLARE


def _natural_to_declare(cards: tuple[Card, ...], rules: Rules) -> Natural:
    """The natural these cards would declare under these rules; SolveError when there is none."""
    natural = best_natural(cards, rules) if rules.naturals and held_natural(cards) else None
    if natural is None:
        why = "these rules have no naturals" if not rules.naturals else "this hand holds none under these rules"
        raise SolveError(f"there is no natural to declare: {why}")
    return natural


def _check_search(opponent: Any, seed: Any, distinct: Any) -> None:
    """Refuse an opponent that is not an opponent model, a bad seed or an unknown ``distinct``."""
    if distinct not in ("hands", "values"):
        raise SolveError(f"distinct must be 'hands' or 'values', got {distinct!r}")
    if not callable(getattr(opponent, "arrange_many", None)):
        raise SolveError(f"the opponent must be an opponent model with arrange_many(hands, rng), got {opponent!r}; "
                         "make one with bots.opponent_model('table', rules)")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise SolveError(f"seed must be a whole number >= 0, got {seed!r}")


def _best_play(cards: tuple[Card, ...], chosen: list[Play], sample: Sample, rules: Rules, scale: int) -> dict[str, Any]:
    """The Solution's fields about the best play and its runners-up (``chosen``, best first):
    its arrangement, EV and standard error over ``scale`` opponents, rows, parts."""
    best_split, best_values = chosen[0]
    best_total = per_sample_scores(best_values, sample, rules)
    best_rows = per_sample_rows(best_values, sample)
    arrangement = split_arrangement(cards, best_split)
    rows = tuple(_row_result(name, row_cards, value, best_rows[:, i], sample.plain)
                 for i, (name, row_cards, value) in enumerate(zip(ROWS, arrangement.rows, best_values)))
    n = sample.n
    ev_se = float(best_total.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return {
        "arrangement": arrangement,
        "ev": float(best_total.mean()) * scale,
        "ev_se": ev_se * scale,
        "rows": rows,
        "alternatives": tuple(_alternative(cards, s, values, best_total, sample, rules, scale)
                              for s, values in chosen[1:]),
        "parts": _parts(best_values, best_rows, sample, rules),
    }


def _natural_play(cards: tuple[Card, ...], sample: Sample, rules: Rules, scale: int, play_ev: float) -> dict[str, Any]:
    """The Solution's fields about a natural: the one held, the one these rules let it
    declare, what declaring it is worth, and whether that beats playing (``play_ev``)."""
    held = held_natural(cards)
    natural = best_natural(cards, rules) if rules.naturals and held else None
    natural_ev = float(sample.natural_scores(natural, rules).mean()) * scale if natural else None
    return {
        "natural": natural.kind if natural else None,
        "natural_ev": natural_ev,
        "declare": bool(natural_ev is not None and natural_ev > play_ev),
        "natural_held": held,
    }


@dataclass(frozen=True, slots=True)
class Grade:
    """A player's own arrangement against the best play, on the same simulated opponents."""

    solution: Solution  # the best play and its evidence
    arrangement: Arrangement | None  # the player's; None where they declared the natural the hand holds
    foul_reason: str | None  # why the player's arrangement fouls, or None
    ev: float  # the player's EV against the same opponents (units per hand, all opponents)
    diff: float  # ev - best ev (<= 0 unless the sample favours the player's)
    diff_se: float  # standard error of the paired difference
    rows: tuple[RowResult, ...]  # the player's rows against the opponents' rows; () where declared

    @property
    def foul(self) -> bool:
        return self.foul_reason is not None

    @property
    def declared(self) -> bool:
        """The player declared the natural the hand holds instead of playing rows."""
        return self.arrangement is None

    @property
    def declare(self) -> bool:
        """Declaring the natural the hand holds beats the best play (rules with naturals only)."""
        return self.solution.declare

    @property
    def best_choice_ev(self) -> float:
        """The EV of the best choice: declaring the natural where that beats the best play,
        else the best play (units per hand, all opponents)."""
        natural_ev = self.solution.natural_ev
        return max(self.solution.ev, natural_ev) if natural_ev is not None else self.solution.ev

    @property
    def lost(self) -> float:
        """What the player's play cost against the best choice, in units per hand (all
        opponents): 0 for the best play; where declaring the natural is worth more than the
        best play, what playing it out cost against declaring."""
        if self.declare:
            return max(0.0, self.best_choice_ev - self.ev)
        return max(0.0, -self.diff)

    @property
    def verdict(self) -> str:
        """``best``, ``fine``, ``inaccuracy``, ``mistake`` or ``blunder``: the cost per opponent
        against the thresholds of ``solver.lessons.VERDICTS``."""
        return verdict(self.lost, self.solution.opponents)

    @property
    def why(self) -> list[str]:
        """Why the play cost what it did, in sentences (``solver.lessons.why``)."""
        return why(self)

    @property
    def decision(self) -> str:
        """The decision the play turned on, where it parts from the best play (``solver.lessons.decision``)."""
        if self.arrangement is None:
            return decision(self.solution.hand, None, self.solution.arrangement, declare=self.declare)
        return decision(self.solution.hand, self.arrangement, self.solution.arrangement, declare=self.declare)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document of ``solve --grade --json`` and of the web page's grade
        (``bench/records/schemas/hand-grade.schema.json``).

        Returns:
            The document: the player's play and rows beside the best play's, numbers rounded
                to 6 decimals.
        """
        best = self.solution.to_dict()
        rows = _row_results_dict(self.rows) if self.rows else None
        for name, row in (rows or {}).items():
            theirs = best["rows"][name]
            row |= {"best_cards": theirs["cards"], "best_hand": theirs["hand"], "ev_diff": row["ev"] - theirs["ev"]}
        return json_ready({
            "schema_version": SCHEMA_VERSION,
            "document": "hand-grade",
            "hand": best["hand"],
            "arrangement": self.arrangement.to_dict() if self.arrangement is not None else None,
            "declared": self.declared,
            "foul": self.foul,
            "foul_reason": self.foul_reason,
            "ev": self.ev,
            "best": {"arrangement": best["arrangement"], "ev": best["ev"], "ev_se": best["ev_se"],
                     "rows": best["rows"]},
            "diff": self.diff,
            "diff_se": self.diff_se,
            "lost": self.lost,
            "natural": self.solution.natural,
            "natural_ev": self.solution.natural_ev,
            "declare": self.declare,
            "verdict": self.verdict,
            "why": self.why,
            "decision": self.decision,
            "rows": rows,
            "sample_count": self.solution.samples,
            "seed": self.solution.seed,
            "opponent": self.solution.opponent,
            "player_count": self.solution.players,
            "rules": best["rules"],
        }, digits=6)  # fmt: skip


def _play_of(cards: tuple[Card, ...], play: Arrangement | str) -> Arrangement:
    """``play`` as an Arrangement of exactly ``cards``; SolveError otherwise."""
    arrangement = as_arrangement(play)
    if sorted(arrangement.cards) != sorted(cards):
        raise SolveError(f"the arrangement {arrangement} holds other cards than the hand {format_cards(cards)}")
    return arrangement


def play_scores(hand: CardsLike, plays: list[Arrangement | str], opponent: OpponentModel, *,
                samples: int = config.DEFAULT_SAMPLES, seed: int, rules: Rules | str | None = None) -> np.ndarray:
    """Units each of ``plays`` wins from each of ``samples`` opponents, dealt and set as ``solve``
    deals and sets them with this ``seed``.

    The same opponents face every play, so differences are paired. A fouled play is scored
    as the foul it is; the opponents' naturals are declared when the rules have naturals,
    and a play that is the word ``declare`` declares the natural the hand holds (as ``grade``
    grades it).

    Args:
        hand: The 13 cards, as text or a sequence of cards.
        plays: Arrangements of ``hand``, or their text, or ``declare`` (rules with naturals,
            a hand that holds one).
        opponent: The opponent model that sets every sampled opponent.
        samples: How many opponent hands are dealt.
        seed: The seed of the sample, a whole number >= 0; required, so that the opponents
            are the ones the caller names.
        rules: The rule set, by name or as ``Rules``; basic by default.

    Returns:
        A float array of shape ``(len(plays), samples)``: the units of each play against one
            opponent, per sampled opponent.

    Raises:
        CardError: The hand is not 13 distinct cards, or a play cannot be read.
        SolveError: A play holds other cards than the hand, declares a natural the hand does
            not hold, or an option is not valid.
        OpponentError: The opponent model failed or set its hands wrongly.

    Examples:
        >>> from bots import opponent_model
        >>> hand = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
        >>> s = play_scores(hand, ["9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"], opponent_model("table"),
        ...                 samples=200, seed=1)
        >>> s.shape, float(s.mean()) == solve(hand, opponent_model("table"), samples=200, seed=1).ev
        ((1, 200), True)
    """

    cards = parse_hand(hand)
    rules = _check_options(samples, 2, 0, rules)
    _check_search(opponent, seed, "hands")
    if seed is None:
        raise SolveError("play_scores needs a seed: the opponents must be the ones the caller names")
    chosen = [_natural_to_declare(cards, rules) if declares(play) else _play_of(cards, play) for play in plays]
    deals, arranged, _ = simulate(cards, opponent, samples, int(seed))
    sample = Sample(arranged, deals, rules)
    return np.stack([sample.natural_scores(play, rules) if isinstance(play, Natural)
                     else per_sample_scores(play.values(), sample, rules) for play in chosen]) if chosen \
        else np.zeros((0, samples))


def grade(hand: CardsLike, arrangement: Arrangement | str, opponent: OpponentModel, **options: Any) -> Grade:
    """How a player's arrangement of ``hand`` compares with the best play, scored against the
    same simulated opponents.

    A fouled arrangement is graded too, as the foul it is. Under rules with naturals, a hand
    that holds one can be graded as declared: its EV is then what declaring wins from the same
    opponents, and it has no rows.

    Args:
        hand: The 13 cards, as text or a sequence of cards.
        arrangement: The player's arrangement of ``hand``, or its text; ``"declare"`` (``DECLARE``)
            for the natural the hand holds, declared.
        opponent: The opponent model that sets every sampled opponent.
        **options: Options of ``solve`` (``samples``, ``seed``, ``players``, ``rules``, ...);
            ``top`` is 0 unless given.

    Returns:
        The player's EV, its paired difference to the best play and the rows of both, as a
            ``Grade``.

    Raises:
        CardError: The hand is not 13 distinct cards, or the arrangement cannot be read.
        SolveError: The arrangement holds other cards than the hand, an option is not valid, or
            ``"declare"`` is asked where the rules or the hand give no natural.
        OpponentError: The opponent model failed or set its hands wrongly.
    """
    cards = parse_hand(hand)
    mine = None if declares(arrangement) else _play_of(cards, arrangement)
    if mine is None:  # refused before any work: the rules and the hand must give a natural to declare
        _natural_to_declare(cards, as_rules(options.get("rules")))
    solution = solve(cards, opponent, keep_sample=True, **({"top": 0} | options))
    rules = solution.rules
    assert solution.sample is not None
    sample = Sample(solution.sample, solution.sample, rules)  # an arranged hand holds the same cards
    best = per_sample_scores(solution.arrangement.values(), sample, rules)
    if mine is None:
        ours = sample.natural_scores(_natural_to_declare(cards, rules), rules)
        rows: tuple[RowResult, ...] = ()
    else:
        values = mine.values()
        ours = per_sample_scores(values, sample, rules)
        rows_results = per_sample_rows(values, sample)
        rows = tuple(_row_result(name, row, value, rows_results[:, i], sample.plain)
                     for i, (name, row, value) in enumerate(zip(ROWS, mine.rows, values)))
    diff = ours - best
    scale = solution.opponents
    n = sample.n
    return Grade(
        solution=solution,
        arrangement=mine,
        foul_reason=foul_reason(mine) if mine is not None else None,
        ev=float(ours.mean()) * scale,
        diff=float(diff.mean()) * scale,
        diff_se=float(diff.std(ddof=1) / np.sqrt(n)) * scale if n > 1 else float("nan"),
        rows=rows,
    )
