"""The docstrings of the API reference in one style, Google's, as the site reads them
(``docstring_style: google`` in mkdocs.yml): every public function and method of a module the
reference shows documents each of its parameters under ``Args:``, by the name it has in the
signature, says what it returns under ``Returns:`` (or ``Yields:``) as one item (its lines after
the first indented, or the site shows each line as a return value of its own), and no docstring carries a
Sphinx role (``:func:`x```), which the Google parser shows raw.

The docstrings are read by griffe, the parser of the site, so a section it would not
recognise (a misspelt heading, a parameter under a name the signature does not have) fails
here as it would be shown wrong there."""

from __future__ import annotations

import re
from pathlib import Path

import griffe
import pytest

from tests.helpers import ROOT

REFERENCE = ROOT / "docs" / "reference"
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|data|attr|mod|exc|obj|const):`")
NO_RETURN = {"None", "NoReturn", "Never"}


def _reference_modules() -> list[str]:
    return [line.split()[1] for page in sorted(REFERENCE.glob("*.md"))
            for line in page.read_text().splitlines() if line.startswith(":::")]


def _members(page_option_members: dict[str, list[str] | None], module: griffe.Module):
    """Every public function and method a page shows of ``module``, with its qualified name."""
    shown = page_option_members.get(module.path)

    def walk(obj: griffe.Object, top: bool):
        for name, member in obj.members.items():
            if name.startswith("_") or member.is_alias:
                continue
            if top and shown is not None and name not in shown:
                continue
            if member.is_function:
                yield member
            elif member.is_class:
                yield from walk(member, False)

    yield from walk(module, True)


def _shown_members() -> dict[str, list[str] | None]:
    """A module's ``members:`` option on its reference page: ``None`` for all, ``[]`` for none."""
    shown: dict[str, list[str] | None] = {}
    for page in sorted(REFERENCE.glob("*.md")):
        module = None
        for line in page.read_text().splitlines():
            if line.startswith(":::"):
                module = line.split()[1]
                shown[module] = None
            elif module and line.strip().startswith("members:"):
                value = line.split(":", 1)[1].strip()
                shown[module] = [] if value == "false" else [name.strip() for name in value.strip("[]").split(",")]
    return shown


def _functions() -> list[griffe.Function]:
    loader = griffe.GriffeLoader(docstring_parser=griffe.Parser.google, search_paths=[str(ROOT)])
    shown = _shown_members()
    found: dict[str, griffe.Function] = {}
    for path in _reference_modules():
        module = loader.load(path)
        assert isinstance(module, griffe.Module)
        for function in _members(shown, module):
            found.setdefault(function.path, function)
    return list(found.values())


FUNCTIONS = _functions()


def _parameters(function: griffe.Function) -> list[str]:
    names = []
    for parameter in function.parameters:
        if parameter.name in ("self", "cls") or parameter.name.startswith("_"):
            continue
        star = {"var_positional": "*", "var_keyword": "**"}.get(parameter.kind.value if parameter.kind else "", "")
        names.append(star + parameter.name)
    return names


def _sections(function: griffe.Function) -> dict[str, griffe.DocstringSection]:
    if function.docstring is None:
        return {}
    return {section.kind.value: section for section in function.docstring.parse(griffe.Parser.google)}


def test_the_reference_shows_functions_to_check():
    assert len(FUNCTIONS) > 150
    assert {"solver.solution.solve", "bench.run.runner.run_deals", "bots.base.Bot.arrange"} <= {f.path for f in FUNCTIONS}


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.path)
def test_every_public_function_documents_its_parameters_and_its_result(function: griffe.Function):
    assert function.docstring is not None, f"{function.path} has no docstring"
    assert not ROLE.search(function.docstring.value), f"{function.path}: a Sphinx role, which the site shows raw"
    sections = _sections(function)
    parameters = _parameters(function)
    if parameters:
        assert "parameters" in sections, f"{function.path}: no Args: section for {parameters}"
        documented = [p.name.lstrip("*") for p in sections["parameters"].value]
        assert documented == [p.lstrip("*") for p in parameters], (
            f"{function.path}: Args: documents {documented}, the signature has {parameters}")
        assert all(p.description.strip() for p in sections["parameters"].value), f"{function.path}: an empty Args entry"
    returns = function.returns
    returns_text = str(returns) if returns is not None else "None"
    if returns_text not in NO_RETURN and "property" not in function.labels and function.name != "__init__":
        assert {"returns", "yields"} & set(sections), f"{function.path} returns {returns_text}: no Returns: section"
    for kind in ("returns", "yields"):  # a line at the section's first indent starts another item
        if kind in sections:
            assert len(sections[kind].value) == 1, (
                f"{function.path}: its {kind.title()}: reads as {len(sections[kind].value)} items; indent the lines "
                f"after the first by four more spaces")


def test_no_module_or_class_docstring_carries_a_sphinx_role():
    loader = griffe.GriffeLoader(search_paths=[str(ROOT)])
    raw = []

    def walk(obj: griffe.Object):
        if obj.docstring is not None and ROLE.search(obj.docstring.value):
            raw.append(obj.path)
        for member in obj.members.values():
            if not member.is_alias and (member.is_class or member.is_function or member.is_attribute):
                walk(member)

    for path in _reference_modules():
        walk(loader.load(path))
    assert raw == []


def test_the_check_fails_on_a_docstring_in_another_style(tmp_path: Path):
    """The check itself: a numpy-style docstring, and one with a parameter left out, are caught."""
    (tmp_path / "sample_module.py").write_text(
        'def numpy_style(a: int) -> int:\n'
        '    """Twice a.\n\n    Parameters\n    ----------\n    a : int\n        A number.\n    """\n'
        'def half(a: int, b: int) -> int:\n'
        '    """A sum.\n\n    Args:\n        a: A number.\n\n    Returns:\n        The sum.\n    """\n'
        'def whole(a: int) -> int:\n'
        '    """Twice a.\n\n    Args:\n        a: A number.\n\n    Returns:\n        Twice ``a``.\n    """\n')
    loader = griffe.GriffeLoader(docstring_parser=griffe.Parser.google, search_paths=[str(tmp_path)])
    module = loader.load("sample_module")
    verdicts = {}
    for name in ("numpy_style", "half", "whole"):
        try:
            test_every_public_function_documents_its_parameters_and_its_result(module[name])
            verdicts[name] = "pass"
        except AssertionError:
            verdicts[name] = "fail"
    assert verdicts == {"numpy_style": "fail", "half": "fail", "whole": "pass"}
