"""A griffe extension for the API reference: each doctest in a docstring is shown as a
Python console block (``pycon``) instead of being read as Markdown.

A doctest runs from a ``>>>`` line to the next blank line, as the doctest module reads it.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    r"""Wrap every doctest of ``text`` in a fenced ``pycon`` block.

    >>> fence_doctests("Sum.\n\n>>> 1 + 1\n2\n\nDone.").splitlines()
    ['Sum.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'Done.']
    """
    out: list[str] = []
    fenced = False
    indent = ""
    for line in text.splitlines():
        stripped = line.lstrip()
        if not fenced and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            fenced = True
        elif fenced and not stripped:
            out.append(f"{indent}```")
            fenced = False
        out.append(line)
    if fenced:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
