"""Rule sets: how a pair of hands is settled (RULES.md, "Optional rule sets").

The default is basic scoring: one unit a row, no royalties, no scoop bonus, no
naturals. Extras are only ever on when named:

- scoring ``1-6``: a scoop (all three rows won against an opponent) takes 6 instead of 3;
- scoring ``2-4``: one more unit to whoever wins more rows in the pairing (a scoop nets 4);
- royalties: units collected from each opponent for premium rows, from a table
  ``(row, category) -> units``; ``royalty_needs_win`` pays a row's royalty only when
  that row is won;
- naturals: special 13-card hands declared instead of arranging.

In both bonus methods a fouled hand counts as scooped by every valid opponent. A
fouled hand earns no royalties and pays those of every valid opponent.

A rule set is named by a preset or a combination joined with ``+``:
``basic``, ``1-6``, ``2-4``, ``royalties`` (the common preset), ``royalties-win``
(the same table, paid only on rows won), ``naturals``; for example
``2-4+royalties+naturals``. House tables come from a TOML or JSON file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solver.evaluator import CATEGORY_NAMES

SCORING_METHODS = ("basic", "1-6", "2-4")  # a method's index is its code in the kernels (solver._settle)
ROW_NAMES = ("front", "middle", "back")
ROYALTY_HANDS = CATEGORY_NAMES + ("royal flush",)  # what a royalty line names: a category, or the royal flush apart
NATURALS = ("dragon", "four trips", "three straights", "six pairs", "three flushes")  # highest (rarest) first

# RULES.md's common preset.
COMMON_ROYALTIES: dict[tuple[str, str], int] = {
    ("back", "straight flush"): 10,
    ("back", "flush"): 4,
    ("back", "straight"): 2,
    ("middle", "four of a kind"): 8,
    ("middle", "full house"): 2,
    ("front", "three of a kind"): 3,
}
COMMON_NATURAL_PAYOUTS: dict[str, int] = {
    "dragon": 3,
    "four trips": 4,
    "three straights": 3,
    "three flushes": 3,
    "six pairs": 3,
}


class RulesError(ValueError):
    """A rule set that cannot be read: unknown preset, bad table, bad file."""


def _freeze(table: Mapping) -> tuple:
    return tuple(sorted(table.items()))


@dataclass(frozen=True)
class Rules:
    """How hands are settled. The default ``Rules()`` is basic scoring.

    >>> Rules.parse("2-4+royalties").name
    '2-4+royalties'
    >>> Rules().is_basic, Rules.parse("1-6").is_separable
    (True, False)
    """

    scoring: str = "basic"
    royalties: tuple[tuple[tuple[str, str], int], ...] = ()  # ((row, category), units), sorted
    royalty_needs_win: bool = False
    naturals: bool = False
    natural_payouts: tuple[tuple[str, int], ...] = field(default_factory=lambda: _freeze(COMMON_NATURAL_PAYOUTS))
    label: str | None = None  # how the rules were named (a preset or a file)

    def __post_init__(self) -> None:
        if self.scoring not in SCORING_METHODS:
            raise RulesError(f"unknown scoring method {self.scoring!r}; choose from: {', '.join(SCORING_METHODS)}")
        for (row, category), units in self.royalties:
            if row not in ROW_NAMES:
                raise RulesError(f"unknown row {row!r} in the royalty table; rows are front, middle, back")
            if category not in ROYALTY_HANDS:
                raise RulesError(f"unknown hand {category!r} in the royalty table; hands are "
                                 + ", ".join(ROYALTY_HANDS))
            if row == "front" and category not in ("high card", "pair", "three of a kind"):
                raise RulesError(f"a front cannot make {category!r}; it holds three cards")
            if not isinstance(units, int) or isinstance(units, bool) or units < 0:
                raise RulesError(f"royalty for {row} {category} must be a whole number >= 0, got {units!r}")
        for name, units in self.natural_payouts:
            if name not in NATURALS:
                raise RulesError(f"unknown natural {name!r}; naturals are {', '.join(NATURALS)}")
            if not isinstance(units, int) or isinstance(units, bool) or units < 0:
                raise RulesError(f"payout for {name} must be a whole number >= 0, got {units!r}")

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        parts = [self.scoring]
        if self.royalties:
            parts.append("royalties-win" if self.royalty_needs_win else "royalties")
        if self.naturals:
            parts.append("naturals")
        return "+".join(parts)

    @property
    def is_basic(self) -> bool:
        return self.scoring == "basic" and not self.royalties and not self.naturals

    @property
    def scoring_code(self) -> int:
        """The scoring method as the settlement kernels take it: 0 basic, 1 1-6, 2 2-4."""
        return SCORING_METHODS.index(self.scoring)

    @property
    def is_separable(self) -> bool:
        """The expected score is a sum over rows (no scoop or majority bonus)."""
        return self.scoring == "basic"

    def royalty_table(self) -> dict[tuple[str, str], int]:
        return dict(self.royalties)

    def payouts(self) -> dict[str, int]:
        return dict(self.natural_payouts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scoring": self.scoring,
            "royalties": [{"row": r, "category": c, "units": u} for (r, c), u in self.royalties],
            "royalty_needs_win": self.royalty_needs_win,
            "naturals": self.naturals,
            "natural_payouts": dict(self.natural_payouts),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], label: str | None = None) -> Rules:
        known = {"name", "scoring", "royalties", "royalty_needs_win", "naturals", "natural_payouts"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(f"unknown rules setting {unknown[0]!r}; settings are {', '.join(sorted(known))}")
        royalties = data.get("royalties", [])
        table: dict[tuple[str, str], int] = {}
        if isinstance(royalties, Mapping):  # {"back": {"flush": 4}, ...}
            for row, cats in royalties.items():
                if not isinstance(cats, Mapping):
                    raise RulesError(f"royalties for {row!r} must map categories to units")
                for category, units in cats.items():
                    table[(row, category)] = units
        elif isinstance(royalties, list):  # [{"row": "back", "category": "flush", "units": 4}, ...]
            for entry in royalties:
                try:
                    table[(entry["row"], entry["category"])] = entry["units"]
                except (TypeError, KeyError):
                    raise RulesError("each royalty needs row, category and units") from None
        elif royalties == "common":
            table = dict(COMMON_ROYALTIES)
        else:
            raise RulesError("royalties must be a table of rows and categories, a list, or \"common\"")
        payouts = dict(COMMON_NATURAL_PAYOUTS)
        payouts.update(data.get("natural_payouts", {}))
        return cls(
            scoring=data.get("scoring", "basic"),
            royalties=_freeze(table),
            royalty_needs_win=bool(data.get("royalty_needs_win", False)),
            naturals=bool(data.get("naturals", False)),
            natural_payouts=_freeze(payouts),
            label=label or data.get("name"),
        )

    @classmethod
    def parse(cls, text: str | None) -> Rules:
        """A preset (``basic``, ``1-6``, ``2-4``, ``royalties``, ``royalties-win``, ``naturals``,
        combined with ``+``) or the path of a TOML or JSON file."""
        if text is None or text.strip() == "":
            return cls()
        text = text.strip()
        if text.endswith((".toml", ".json")) or Path(text).is_file():
            return cls.load(text)
        scoring, royalties, needs_win, naturals = "basic", False, False, False
        for part in text.split("+"):
            part = part.strip().lower()
            if part in SCORING_METHODS:
                scoring = part
            elif part == "royalties":
                royalties = True
            elif part == "royalties-win":
                royalties, needs_win = True, True
            elif part == "naturals":
                naturals = True
            else:
                raise RulesError(f"unknown rules {part!r}; presets are basic, 1-6, 2-4, royalties, royalties-win, "
                                 "naturals (join with +), or a .toml/.json file")
        return cls(
            scoring=scoring,
            royalties=_freeze(COMMON_ROYALTIES) if royalties else (),
            royalty_needs_win=needs_win,
            naturals=naturals,
        )

    @classmethod
    def load(cls, path: str | Path) -> Rules:
        """A house rule set from a TOML or JSON file (see the README for the layout)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise RulesError(f"cannot read rules file {str(path)!r}: {error.strerror}") from None
        try:
            if path.suffix == ".toml":
                try:
                    import tomllib
                except ModuleNotFoundError:  # Python 3.10
                    import tomli as tomllib  # type: ignore[no-redef]
                data = tomllib.loads(text)
            else:
                data = json.loads(text)
        except Exception as error:  # both parsers raise their own error types
            raise RulesError(f"cannot parse rules file {str(path)!r}: {error}") from None
        if not isinstance(data, dict):
            raise RulesError(f"rules file {str(path)!r} must hold a table of settings")
        return cls.from_dict(data, label=data.get("name") or path.name)


BASIC = Rules()


def as_rules(rules: Rules | str | None) -> Rules:
    """Rules from a Rules value, a preset or file name, or None (basic)."""
    return rules if isinstance(rules, Rules) else Rules.parse(rules)
