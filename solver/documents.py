"""JSON documents: strict JSON, where a number that is not finite becomes null.

>>> json_ready({"se": float("nan"), "rows": [1.5, float("inf")]})
{'se': None, 'rows': [1.5, None]}
>>> json_ready({"ev": 0.123456789, "n": 3}, digits=6)
{'ev': 0.123457, 'n': 3}
"""

from __future__ import annotations

import math
from typing import Any


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
