"""JSON documents: written strict, where a number that is not finite becomes null, and read
strict by :func:`strict_json`, the one reader of JSON that comes from outside.

>>> json_ready({"se": float("nan"), "rows": [1.5, float("inf")]})
{'se': None, 'rows': [1.5, None]}
>>> json_ready({"ev": 0.123456789, "n": 3}, digits=6)
{'ev': 0.123457, 'n': 3}
>>> strict_json('{"ev": 1.5, "rows": [1, 2]}', "a.json")
{'ev': 1.5, 'rows': [1, 2]}
>>> strict_json('{"ev": NaN}', "a.json")
Traceback (most recent call last):
...
solver.documents.JSONRefused: a.json is not JSON this program reads: 'NaN' is not a finite number; write one, or null
"""

from __future__ import annotations

import json
import math
from typing import Any

from solver import config
from solver.errors import InputError
from solver.text import quote

INTEGER_DIGITS = 4300  # digits of one integer: Python's own limit on converting text to int, whatever it is set to


class JSONRefused(InputError, ValueError):
    """Text that is not JSON the package reads: not UTF-8, not JSON, a number that is not
    finite (``NaN``, ``Infinity``, ``1e999``), an integer of more than ``INTEGER_DIGITS``
    digits, a name given twice in one object, or arrays and objects nested deeper than
    ``config.JSON_DEPTH``. The message is one line that names what was read; ``reason`` is its part
    that says what is wrong, for a caller that names what was read in words of its own."""

    def __init__(self, what: str, reason: str):
        super().__init__(f"{what} is not JSON this program reads: {reason}")
        self.what, self.reason = what, reason

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.what, self.reason)


class _Refusal(InputError, ValueError):
    """Raised by the parser's hooks; :func:`strict_json` turns it into :class:`JSONRefused`."""


def _constant(text: str) -> Any:
    raise _Refusal(f"{quote(text)} is not a finite number; write one, or null")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refusal(f"{quote(text)} is too large for a float; write a finite number, or null")
    return value


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > INTEGER_DIGITS:
        raise _Refusal(f"it holds an integer of {len(text.lstrip('-')):,} digits, more than {INTEGER_DIGITS:,}")
    return int(text)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for name, value in pairs:
        if name in table:
            raise _Refusal(f"the name {quote(name)} is given twice in one object; give it once")
        table[name] = value
    return table


def _depth(value: Any) -> int:
    """How deep arrays and objects are nested in ``value`` (0 for a number or a string)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def strict_json(text: str | bytes, what: str, *, non_finite: bool = False) -> Any:
    """The value of the JSON ``text`` (bytes are read as UTF-8), read strictly:
    :class:`JSONRefused`, naming ``what`` (a file, a line of one, a bot's answer), when it is
    not JSON, holds ``NaN``, ``Infinity`` or a number too large for a float, an integer of more
    than ``INTEGER_DIGITS`` digits, a name given twice in one object, or arrays and objects
    nested deeper than ``config.JSON_DEPTH``. With ``non_finite``, ``NaN`` and ``Infinity`` are read as
    floats: only for a file of the package's own whose format holds them (a training
    checkpoint's reports, which its digest checks); the other rules hold all the same.

    >>> strict_json('[NaN, 1e999]', "x", non_finite=True)
    [nan, inf]
    >>> strict_json(b'{"a": 1, "a": 2}', "line 3")
    Traceback (most recent call last):
    ...
    solver.documents.JSONRefused: line 3 is not JSON this program reads: the name 'a' is given twice in one object; give it once
    >>> strict_json("[" * 100_000 + "]" * 100_000, "deep.json")
    Traceback (most recent call last):
    ...
    solver.documents.JSONRefused: deep.json is not JSON this program reads: arrays and objects are nested deeper than 64
    >>> strict_json('{"n": 1', "x")
    Traceback (most recent call last):
    ...
    solver.documents.JSONRefused: x is not JSON this program reads: Expecting ',' delimiter: line 1 column 8 (char 7)
    """
    def refused(reason: str) -> JSONRefused:
        return JSONRefused(what, reason)

    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise refused(f"it is not UTF-8 text (byte {error.start:,})") from None
    try:
        value = json.loads(text, object_pairs_hook=_object, parse_constant=float if non_finite else _constant,
                           parse_float=float if non_finite else _float, parse_int=_integer)
    except RecursionError:
        raise refused(f"arrays and objects are nested deeper than {config.JSON_DEPTH}") from None
    except _Refusal as error:
        raise refused(str(error)) from None
    except ValueError as error:  # json.JSONDecodeError: where, and what was expected there
        raise refused(str(error)) from None
    if _depth(value) > config.JSON_DEPTH:
        raise refused(f"arrays and objects are nested deeper than {config.JSON_DEPTH}")
    return value


def json_ready(value: Any, digits: int | None = None) -> Any:
    """``value`` with every NaN or infinity replaced by None, ready for ``json.dumps(allow_nan=False)``;
    with ``digits``, every float rounded to that many decimals (and -0.0 written 0.0)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return round(value, digits) + 0.0 if digits is not None else value
    if isinstance(value, dict):
        return {k: json_ready(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v, digits) for v in value]
    return value
