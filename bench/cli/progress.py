"""Progress bars on stderr (tqdm), shown only when stderr is a terminal."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from solver.text import show

if TYPE_CHECKING:
    from tqdm import tqdm


def progress(**kwargs: Any) -> tqdm[Any]:
    """A tqdm bar; silent (but still counting) when stderr is not a terminal."""
    return tqdm(file=sys.stderr, disable=not sys.stderr.isatty(), dynamic_ncols=True, **kwargs)


def note(message: str) -> None:
    """A line on stderr (through ``solver.text.show``) that does not break a progress bar."""
    with tqdm.external_write_mode(file=sys.stderr):
        show(message, sys.stderr)
