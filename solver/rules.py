"""Rule sets: how a pair of hands is settled (docs/rules.md, "Optional rule sets").

The default is basic scoring: one unit a row, no royalties, no scoop bonus, no
naturals. Extras are only ever on when named:

- scoring ``1-6``: a scoop (all three rows won against an opponent) takes 6 instead of 3;
- scoring ``2-4``: one more unit to whoever wins more rows in the pairing (a scoop nets 4);
- royalties: units collected from each opponent for premium rows, from a table
  ``(row, hand) -> units`` where a hand is a category or the royal flush; a row earns
  only the line that names its own hand; ``royalty_needs_win`` pays a row's royalty
  only when that row is won;
- naturals: special 13-card hands declared instead of arranging.

In both bonus methods a fouled hand counts as scooped by every valid opponent. A
fouled hand earns no royalties and pays those of every valid opponent.

A rule set is named by a preset or a combination joined with ``+``:
``basic``, ``1-6``, ``2-4``, ``royalties`` (the common "Eastern" table), ``royalties-win``
(the same table, paid only on rows won), ``naturals``; for example
``2-4+royalties+naturals``. House tables come from a TOML or JSON file, which may be
combined with presets (``house.toml+2-4``) as long as no setting is given twice.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from solver import config, files
from solver.arrangement import ROWS
from solver.documents import JSONRefused, strict_json
from solver.errors import InputError
from solver.evaluator import CATEGORY_NAMES
from solver.limits import problem
from solver.text import quote

SCORING_METHODS = ("basic", "1-6", "2-4")  # a method's index is its code in the kernels (solver._settle)
ROYALTY_HANDS = CATEGORY_NAMES + ("royal flush",)  # what a royalty line names: a category, or the royal flush apart
NATURALS = ("dragon", "four trips", "three straights", "six pairs", "three flushes")  # highest (rarest) first

# The common royalty preset, the "Eastern" table (docs/rules.md). A royal flush pays its
# own line, not the straight-flush line.
COMMON_ROYALTIES: dict[tuple[str, str], int] = {
    ("front", "three of a kind"): 3,
    ("middle", "full house"): 2,
    ("middle", "four of a kind"): 8,
    ("middle", "straight flush"): 10,
    ("middle", "royal flush"): 14,
    ("back", "four of a kind"): 4,
    ("back", "straight flush"): 5,
    ("back", "royal flush"): 7,
}
COMMON_NATURAL_PAYOUTS: dict[str, int] = {
    "dragon": 3,
    "four trips": 4,
    "three straights": 3,
    "three flushes": 3,
    "six pairs": 3,
}


class RulesError(InputError, ValueError):
    """A rule set that cannot be read: unknown preset, bad table, bad file."""


_Key = TypeVar("_Key", str, tuple[str, str])  # a natural, or a royalty's (row, hand)


def _freeze(table: Mapping[_Key, int]) -> tuple[tuple[_Key, int], ...]:
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
            if row not in ROWS:
                raise RulesError(f"unknown row {row!r} in the royalty table; rows are front, middle, back")
            if category not in ROYALTY_HANDS:
                raise RulesError(f"unknown hand {category!r} in the royalty table; hands are "
                                 + ", ".join(ROYALTY_HANDS))
            if row == "front" and category not in ("high card", "pair", "three of a kind"):
                raise RulesError(f"a front cannot make {category!r}; it holds three cards")
            _check_units(units, f"royalty for {row} {category}", RulesError)
        for name, units in self.natural_payouts:
            if name not in NATURALS:
                raise RulesError(f"unknown natural {name!r}; naturals are {', '.join(NATURALS)}")
            _check_units(units, f"payout for {name}", RulesError)

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

    @property
    def most_units(self) -> int:
        """The most units one hand can win from one opponent: every row (a scoop's six under
        1-6, four under 2-4) and the largest royalty of each row, or the largest natural's payout.

        >>> Rules().most_units, Rules.parse("1-6").most_units, Rules.parse("2-4+royalties").most_units
        (3, 6, 28)
        """
        rows = {"basic": 3, "1-6": 6, "2-4": 4}[self.scoring]
        table = self.royalty_table()
        royalties = sum(max((units for (r, _), units in table.items() if r == row), default=0) for row in ROWS)
        payout = max(self.payouts().values(), default=0) if self.naturals else 0
        return max(rows + royalties, payout)

    def royalty_table(self) -> dict[tuple[str, str], int]:
        """The royalty table as a dict.

        Returns:
            The units of each ``(row, hand)`` line; empty without royalties.
        """
        return dict(self.royalties)

    def payouts(self) -> dict[str, int]:
        """What each natural pays, as a dict.

        Returns:
            The units of each natural, whether or not naturals are on.
        """
        return dict(self.natural_payouts)

    def to_dict(self) -> dict[str, Any]:
        """The rule set as the JSON documents give it (docs/json.md).

        Returns:
            ``name``, ``scoring``, ``royalties`` (a list of ``row``, ``category``, ``units``),
                ``royalty_needs_win``, ``naturals`` and ``natural_payouts`` (always present).
        """
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
        """Rules from settings as a house-rules file holds them (docs/rules.md, "House rules from a file").

        Strict: booleans must be booleans, units whole numbers >= 0, and an unknown setting,
        row, hand or natural is an error naming it.

        Args:
            data: The settings: ``name``, ``scoring``, ``royalties``, ``royalty_needs_win``,
                ``naturals``, ``natural_payouts``, each optional.
            label: How the rules are named; ``None`` takes the setting ``name``, if any.

        Returns:
            The rule set.

        Raises:
            RulesError: A setting is unknown or not valid.
        """
        return cls._from_settings(_settings(data), label)

    @classmethod
    def _from_settings(cls, settings: Mapping[str, Any], label: str | None = None) -> Rules:
        return cls(
            scoring=settings.get("scoring", "basic"),
            royalties=_freeze(settings.get("royalties", {})),
            royalty_needs_win=settings.get("royalty_needs_win", False),
            naturals=settings.get("naturals", False),
            natural_payouts=_freeze(COMMON_NATURAL_PAYOUTS | settings.get("natural_payouts", {})),
            label=label or settings.get("name"),
        )

    @classmethod
    def parse(cls, text: str | None) -> Rules:
        """Rules from their name.

        Args:
            text: A preset (``basic``, ``1-6``, ``2-4``, ``royalties``, ``royalties-win``,
                ``naturals``, in any case), the path of a TOML or JSON file, or several joined
                with ``+``; ``None`` or blank is basic scoring.

        Returns:
            The rule set; one that takes a file is labelled with ``text`` (a file alone, with
                the name it gives or its file name).

        Raises:
            RulesError: A part is neither a preset nor a readable rules file, a part is named
                twice, or two parts set the same setting differently.

        Examples:
            >>> Rules.parse("1-6+2-4")
            Traceback (most recent call last):
            ...
            solver.rules.RulesError: '1-6+2-4' sets the scoring method twice: 1-6 (from '1-6') and 2-4 (from '2-4')
        """
        if text is None or text.strip() == "":
            return cls()
        text = text.strip()
        if Path(text).is_file():
            return cls.load(text)
        merged: dict[str, Any] = {}
        source: dict[str, str] = {}
        files = False
        named: set[str] = set()
        for part in (p.strip() for p in text.split("+")):
            if part.lower() in named:
                raise RulesError(f"{text[:200]!r} names {part[:60]!r} twice; name each part of a rule set once")
            named.add(part.lower())
            if part.lower().endswith((".toml", ".json")) or Path(part).is_file():
                settings, files = _settings(_read(Path(part)), Path(part)), True
                settings.pop("name", None)
            else:
                settings = _preset(part)
            for key, value in settings.items():
                if key in merged and merged[key] != value:
                    raise RulesError(f"{text!r} sets {_SETTING_WORDS.get(key, key)} twice: {_shown(merged[key])} "
                                     f"(from {source[key]!r}) and {_shown(value)} (from {part!r})")
                merged[key], source[key] = value, part
        return cls._from_settings(merged, label=text if files else None)

    @classmethod
    def load(cls, path: str | Path) -> Rules:
        """A house rule set from a TOML or JSON file (docs/rules.md, "House rules from a file").

        Args:
            path: The file; a name ending in ``.toml`` is read as TOML, any other as JSON.

        Returns:
            The rule set, labelled with the name the file gives or else the file's name.

        Raises:
            RulesError: The file cannot be read or parsed, or a setting is unknown or not valid.
        """
        path = Path(path)
        data = _read(path)
        return cls._from_settings(_settings(data, path), label=data.get("name") or path.name)


_SETTINGS = ("name", "scoring", "royalties", "royalty_needs_win", "naturals", "natural_payouts")
_SETTING_WORDS = {"scoring": "the scoring method", "royalties": "the royalty table",
                  "royalty_needs_win": "royalty_needs_win", "naturals": "naturals"}
PRESETS = ("basic", "1-6", "2-4", "royalties", "royalties-win", "naturals")


def _shown(value: Any) -> str:
    return "a table" if isinstance(value, dict) else str(value)


def _preset(part: str) -> dict[str, Any]:
    """The settings a preset name stands for."""
    name = part.lower()
    if name in SCORING_METHODS:
        return {"scoring": name}
    if name in ("royalties", "royalties-win"):
        return {"royalties": dict(COMMON_ROYALTIES), "royalty_needs_win": name == "royalties-win"}
    if name == "naturals":
        return {"naturals": True}
    raise RulesError(f"unknown rules {quote(part)}; presets are {', '.join(PRESETS)} (join with +), "
                     "or a .toml/.json file")


def parse_toml(text: str) -> dict[str, Any]:
    """TOML text as a dict, with the standard library's ``tomllib`` (``tomli`` on Python 3.10).

    Args:
        text: The TOML document.

    Returns:
        Its top-level table.

    Raises:
        TOMLDecodeError: The text is not TOML (the parser's own error).

    Examples:
        >>> parse_toml('command = ["python3", "bot.py"]')
        {'command': ['python3', 'bot.py']}
    """
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415  (the standard library's from Python 3.11)
    else:  # Python 3.10
        import tomli as tomllib  # noqa: PLC0415  (Python 3.10: the package tomllib came from)
    return tomllib.loads(text)


def _read(path: Path) -> dict[str, Any]:
    """The settings table of a TOML or JSON file: a regular file (a link is followed to one) of
    UTF-8 text, a byte-order mark in front dropped, no bigger than ``config.SETTINGS_BYTES``."""
    try:
        text = files.read_text(path, config.SETTINGS_BYTES)
    except OSError as error:
        raise RulesError(f"cannot read rules file {str(path)!r}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise RulesError(f"cannot read rules file {str(path)!r}: it is not UTF-8 text") from None
    try:
        data = parse_toml(text) if path.suffix.lower() == ".toml" else strict_json(text, f"rules file {str(path)!r}")
    except JSONRefused as error:
        raise RulesError(str(error)) from None
    except Exception as error:  # tomllib's own error types
        raise RulesError(f"cannot parse rules file {str(path)!r}: {error}") from None
    if not isinstance(data, dict):
        raise RulesError(f"rules file {str(path)!r} must hold a table of settings")
    return data


def _settings(data: Mapping[str, Any], path: Path | None = None) -> dict[str, Any]:  # noqa: C901  (a list of checks)
    """Checked, normalised settings: royalties as {(row, hand): units}."""
    where = f" in rules file {str(path)!r}" if path else ""

    def fail(message: str) -> RulesError:
        return RulesError(message + where)

    unknown = sorted(set(data) - set(_SETTINGS))
    if unknown:
        raise fail(f"unknown rules setting {unknown[0]!r}; settings are {', '.join(_SETTINGS)}")
    out: dict[str, Any] = {}
    if "name" in data:
        if not isinstance(data["name"], str):
            raise fail(f"name must be text, got {data['name']!r}")
        out["name"] = data["name"]
    if "scoring" in data:
        if data["scoring"] not in SCORING_METHODS:
            raise fail(f"unknown scoring method {data['scoring']!r}; choose from: {', '.join(SCORING_METHODS)}")
        out["scoring"] = data["scoring"]
    for key in ("royalty_needs_win", "naturals"):
        if key in data:
            if not isinstance(data[key], bool):
                raise fail(f"{key} must be true or false, got {data[key]!r}")
            out[key] = data[key]
    if "royalties" in data:
        out["royalties"] = _royalty_table(data["royalties"], fail)
    if "natural_payouts" in data:
        payouts = data["natural_payouts"]
        if not isinstance(payouts, Mapping):
            raise fail("natural_payouts must map naturals to units")
        for name, units in payouts.items():
            if name not in NATURALS:
                raise fail(f"unknown natural {name!r}; naturals are {', '.join(NATURALS)}")
            _check_units(units, f"payout for {name}", fail)
        out["natural_payouts"] = dict(payouts)
    return out


def _check_units(units: Any, what: str, fail: Callable[[str], RulesError]) -> None:
    """Units a royalty or a natural pays: a whole number from 0 to the limit ``units``
    (``solver.limits``), so that sums over many hands stay exact."""
    if not isinstance(units, int) or isinstance(units, bool) or units < 0:
        raise fail(f"{what} must be a whole number >= 0, got {repr(units)[:40]}")
    too_large = problem("units", units, what)
    if too_large:
        raise fail(too_large)


def _royalty_table(royalties: Any, fail: Callable[[str], RulesError]) -> dict[tuple[str, str], int]:
    """{(row, hand): units} from a table of rows, a list of entries, or "common"."""
    entries: list[tuple[Any, Any, Any]] = []
    if royalties == "common":
        return dict(COMMON_ROYALTIES)
    if isinstance(royalties, Mapping):  # {"back": {"flush": 4}, ...}
        for row, hands in royalties.items():
            if not isinstance(hands, Mapping):
                raise fail(f"royalties for {row!r} must map hands to units")
            entries += [(row, hand, units) for hand, units in hands.items()]
    elif isinstance(royalties, list):  # [{"row": "back", "category": "flush", "units": 4}, ...]
        for entry in royalties:
            if not isinstance(entry, Mapping) or not {"row", "units"} <= set(entry) or \
                    not ({"category"} <= set(entry) or {"hand"} <= set(entry)):
                raise fail(f"each royalty needs row, hand (or category) and units, got {entry!r}")
            entries.append((entry["row"], entry.get("hand", entry.get("category")), entry["units"]))
    else:
        raise fail('royalties must be a table of rows and hands, a list, or "common"')
    table: dict[tuple[str, str], int] = {}
    for row, hand, units in entries:
        if row not in ROWS:
            raise fail(f"unknown row {row!r} in the royalty table; rows are {', '.join(ROWS)}")
        if hand not in ROYALTY_HANDS:
            raise fail(f"unknown hand {hand!r} in the royalty table; hands are {', '.join(ROYALTY_HANDS)}")
        if row == "front" and hand not in ("high card", "pair", "three of a kind"):
            raise fail(f"a front cannot make {hand!r}; it holds three cards")
        _check_units(units, f"royalty for {row} {hand}", fail)
        table[(row, hand)] = units
    return table


BASIC = Rules()


def as_rules(rules: Rules | str | None) -> Rules:
    """Rules from a Rules value, a preset or file name, or None (basic).

    Args:
        rules: A ``Rules``, returned as it is, or a name read by ``Rules.parse``.

    Returns:
        The rule set.

    Raises:
        RulesError: The name is not a rule set (see ``Rules.parse``).
    """
    return rules if isinstance(rules, Rules) else Rules.parse(rules)
