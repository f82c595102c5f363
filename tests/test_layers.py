"""Layers import one way: ``solver`` <- ``bots`` <- ``bench``.

Every import statement in the package sources is read (``ast``, at any depth: lazy
imports inside functions count too). Fails when a solver module imports ``bots`` or
``bench``, or a bots module imports ``bench``; and when numba is imported outside the
kernel modules (``_*.py``, ``solver/kernels.py``)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"solver": {"bots", "bench"}, "bots": {"bench"}, "bench": set()}
KERNEL_MODULES = {"solver/kernels.py"}


def imported_packages(path: Path) -> set[str]:
    """Top-level names of every module a source file imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_module_imports_a_higher_layer(package):
    offenders = {str(p.relative_to(ROOT)): sorted(imported_packages(p) & FORBIDDEN[package]) for p in sources(package)}
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"modules of {package}/ import a layer above it: {offenders}"


def test_only_kernel_modules_import_numba():
    offenders = [str(p.relative_to(ROOT)) for package in FORBIDDEN for p in sources(package)
                 if "numba" in imported_packages(p) and not p.name.startswith("_")
                 and str(p.relative_to(ROOT)) not in KERNEL_MODULES]
    assert not offenders, f"numba imported outside the kernel modules: {offenders}"


def test_the_walk_sees_lazy_imports(tmp_path):
    """The check itself: an import inside a function body is found."""
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from bots.base import Bot\n    import bench.cli\n")
    assert imported_packages(source) == {"bots", "bench"}
