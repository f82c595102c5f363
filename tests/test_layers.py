"""Layers import one way: ``solver`` <- ``bots`` <- ``bench``.

Every import statement in the package sources is read (``ast``, at any depth: lazy
imports inside functions count too). Fails when a solver module imports ``bots`` or
``bench``, or a bots module imports ``bench``; and when numba is imported outside the
kernel modules (``_*.py``, ``solver/kernels.py``)."""

import ast
import subprocess
import sys
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



# Inside bench/, the parts import one way too: the records (what a run is made of) <- the run
# engine <- the report <- the analyses; the web page and the command line above them all.
# The engine never imports the command line, the page or the report.
BENCH_BELOW = {
    "data": set(),  # files only: the example results
    "records": set(),
    "run": {"records"},
    "report": {"records", "run"},
    "analysis": {"records", "run", "report"},
    "web": {"records", "run", "report", "analysis"},
    "cli": {"records", "run", "report", "analysis", "web"},
}


def bench_parts_imported(path: Path) -> set[str]:
    """The parts of bench/ (``bench.X...``) a source file imports, at any depth."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
        found |= {name.split(".")[1] for name in names if name.startswith("bench.") and name.count(".") >= 1}
    return found


def bench_offenders(root: Path) -> dict[str, list[str]]:
    offenders = {}
    for part, below in BENCH_BELOW.items():
        for path in sorted((root / "bench" / part).rglob("*.py")):
            wrong = sorted(bench_parts_imported(path) - below - {part})
            if wrong:
                offenders[str(path.relative_to(root))] = wrong
    return offenders


def test_the_parts_of_bench_import_one_way():
    assert set(BENCH_BELOW) == {p.name for p in (ROOT / "bench").iterdir() if (p / "__init__.py").exists()}, (
        "a part of bench/ that BENCH_BELOW does not place")
    offenders = bench_offenders(ROOT)
    assert not offenders, f"parts of bench/ that import a part above them: {offenders}"


def test_the_bench_check_finds_an_engine_that_imports_the_command_line(tmp_path):
    for part in BENCH_BELOW:
        (tmp_path / "bench" / part).mkdir(parents=True)
    (tmp_path / "bench" / "run" / "play.py").write_text("def f():\n    from bench.cli.parsing import UsageError\n")
    (tmp_path / "bench" / "report" / "summary.py").write_text("import bench.records.model\n")
    assert bench_offenders(tmp_path) == {"bench/run/play.py": ["cli"]}


PACKAGES = ("solver", "bots", "bench")
MOST_LINES = 60  # a function a reader holds in their head, kernels included


def module_name(path: Path, root: Path) -> str:
    """``bench/cli/commands/match.py`` -> ``bench.cli.commands.match``; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(node: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The known modules one import statement names: ``import a.b``, ``from a import b`` (module
    ``a.b`` when there is one, else ``a``), relative forms resolved from ``module``. A parent
    package is not counted: Python loads it before any module inside it."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join(package + ([base] if base else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    else:
        return set()
    found = set()
    for name in names:
        parts = name.split(".")
        for end in range(len(parts), 0, -1):  # the longest prefix that is one of our modules
            if ".".join(parts[:end]) in known:
                found.add(".".join(parts[:end]))
                break
    return found


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports, every import statement at any depth."""
    paths = {module_name(p, root): p for package in packages for p in sorted((root / package).rglob("*.py"))}
    known = set(paths)
    graph = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        graph[module] = {target for node in ast.walk(tree)
                         for target in _imported_modules(node, module, is_package, known)} - {module}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[tuple[list[str], list[str]]]:
    """Each group of modules that import each other (Tarjan's strongly connected components),
    sorted, with one circle through it written as a path that comes back to its start."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [(sorted(group), _circle_in(group, graph)) for group in groups]


def _circle_in(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & group):
                if target == start:
                    return paths[node] + [start]
                if target not in paths:
                    paths[target] = paths[node] + [target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no circle through {start} in {sorted(group)}")


def test_no_import_circles():
    circles = import_circles(import_graph(ROOT))
    assert not circles, "import circles: " + "; ".join(
        f"{' -> '.join(circle)} (modules on circles with it: {', '.join(group)})" for group, circle in circles)


def test_the_circle_check_finds_a_circle(tmp_path):
    """The check itself: a circle through a lazy relative import and a ``from pkg import
    module`` is found and named; the same package without it has none."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("import os\n\ndef f():\n    from ..c import g\n")
    (package / "c.py").write_text("def g():\n    from pkg import a\n")
    assert import_circles(import_graph(tmp_path, ("pkg",))) == [(["pkg.a", "pkg.c", "pkg.sub.b"],
                                                                 ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"])]
    (package / "c.py").write_text("def g():\n    import os\n")
    assert import_circles(import_graph(tmp_path, ("pkg",))) == []


def long_functions(path: Path, root: Path = ROOT, most: int = MOST_LINES) -> list[str]:
    """``file:line name (n lines)`` for each function (nested ones too) longer than ``most``
    lines, counted from its ``def`` line to its last line, its docstring left out (the
    reference's Args:, Returns: and Examples: are documentation, not code)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                lines -= (first.end_lineno or first.lineno) - first.lineno + 1
            if lines > most:
                found.append(f"{path.relative_to(root).as_posix()}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_over_60_lines():
    offenders = [entry for package in PACKAGES for p in sources(package) for entry in long_functions(p)]
    assert not offenders, f"functions over {MOST_LINES} lines: {offenders}"


def test_the_length_check_counts_every_line(tmp_path):
    """The check itself: a 61-line function, an async one and a nested one are found; a 60-line
    one is not, nor one of 59 lines of code under a long docstring, whose code still counts."""
    source = tmp_path / "m.py"
    body = "    x = 1\n"
    documented = '    """Summary.\n\n' + "    Text.\n" * 30 + '    """\n'
    source.write_text("def fits():\n" + body * 59 + "\n\nasync def over():\n" + body * 60
                      + "\n\ndef outer():\n    def inner():\n" + ("    " + body) * 60
                      + "\n\ndef documented():\n" + documented + body * 59
                      + "\n\ndef documented_over():\n" + documented + body * 60)
    found = [entry.split(" ", 1)[1] for entry in long_functions(source, tmp_path)]
    assert found == ["over (61 lines)", "outer (62 lines)", "documented_over (61 lines)", "inner (61 lines)"]


def config_misuse(path: Path, tunables: set[str]) -> list[str]:
    """``file:line what`` for each module-level assignment to a tunable's name outside
    ``solver/config.py`` (a second home for it), and each ``from solver.config import``
    (a copy made at import, which a change to ``config`` would not reach)."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        for name in sorted(names & tunables):
            found.append(f"{path.name}:{node.lineno} defines {name}")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "solver.config":
            found.append(f"{path.name}:{node.lineno} copies {', '.join(a.name for a in node.names)} from solver.config")
    return found


def tunable_names() -> set[str]:
    tree = ast.parse((ROOT / "solver" / "config.py").read_text(encoding="utf-8"))
    return {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)}


def test_each_tunable_has_one_home_read_when_used():
    tunables = tunable_names()
    assert {"QUIT_GRACE", "PARALLEL_BATCH", "DEFAULT_SAMPLES", "LINE_BYTES"} <= tunables
    offenders = [entry for package in PACKAGES for p in sources(package) if p != ROOT / "solver" / "config.py"
                 for entry in config_misuse(p, tunables)]
    assert not offenders, f"tunables defined or copied outside solver/config.py: {offenders}"


def test_the_config_check_finds_a_copy_and_a_second_home(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from solver.config import QUIT_GRACE\nPOLL, QUIT_GRACE = 1, 2\nOTHER: int = 3\n"
                      "def f():\n    QUIT_GRACE = 4\n")
    assert config_misuse(source, {"QUIT_GRACE", "OTHER"}) == ["m.py:2 defines QUIT_GRACE", "m.py:3 defines OTHER",
                                                             "m.py:1 copies QUIT_GRACE from solver.config"]


def test_the_heavy_imports_wait_until_they_are_needed():
    """jsonschema (a seventh of a command's start-up) loads when a document is first checked,
    not when the modules that check documents are imported."""
    code = ("import sys, bench.records.schema, bench.cli, bench.cli.solve; print('jsonschema' in sys.modules); "
            "bench.records.schema.validator('results'); print('jsonschema' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
