"""JSON documents: strict JSON, where a number that is not finite becomes null.

>>> json_ready({"se": float("nan"), "rows": [1.5, float("inf")]})
{'se': None, 'rows': [1.5, None]}
"""

from __future__ import annotations

import math
from typing import Any


def json_ready(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by None, ready for ``json.dumps(allow_nan=False)``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value
