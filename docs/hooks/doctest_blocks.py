"""Griffe extensions for the API reference, which reads docstrings as Markdown: each doctest
in a docstring is shown as a Python console block (``pycon``) instead of being read as
text (:class:`DoctestBlocks`), and a cross-reference role of the docstrings
(``:func:`name```, ``:class:`~pkg.Name```) is shown as the code it names
(:class:`SphinxRoles`), never as the raw role.

A doctest runs from a ``>>>`` line to the next blank line, as the doctest module reads it.
The doctests of a Google-style ``Examples:`` section are left to the docstring parser, which
shows them as console blocks itself.
"""

from __future__ import annotations

import re
from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    r"""Wrap every doctest of ``text`` in a fenced ``pycon`` block.

    >>> fence_doctests("Sum.\n\n>>> 1 + 1\n2\n\nDone.").splitlines()
    ['Sum.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'Done.']
    >>> fence_doctests("Sum.\n\nExamples:\n    >>> 1 + 1\n    2").splitlines()
    ['Sum.', '', 'Examples:', '    >>> 1 + 1', '    2']
    """
    out: list[str] = []
    fenced = False
    indent = ""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        stripped = line.lstrip()
        if not fenced and stripped == "Examples:":
            out.extend(lines[number:])
            break
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


ROLE = re.compile(r":(?:py:)?(?:func|class|meth|data|attr|mod|exc|obj|const):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    r"""Each cross-reference role of ``text`` as inline code of the name it gives (``~``: its
    last part only), outside doctest blocks.

    >>> plain_roles("See :func:`solve` and :class:`~solver.rules.Rules`.")
    'See `solve` and `Rules`.'
    """
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        out.append(line if fenced else ROLE.sub(lambda m: f"`{m[2].rsplit('.', 1)[-1] if m[1] else m[2]}`", line))
    return "\n".join(out)


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ":`" in obj.docstring.value:
            obj.docstring.value = plain_roles(obj.docstring.value)
