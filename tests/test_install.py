"""Compiled kernels are cached in the user's cache folder, never inside the installed package.

A cache file left in ``site-packages/solver/__pycache__`` is not pip's: after
``pip install .`` then ``pip install -e .`` it made an empty ``solver`` folder that hid the
editable install. ``.ci/run`` replays the README's install commands in that order; these
tests check where the cache goes."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import bots._kernels
import solver._evaluator
import solver._search
import solver._settle
import solver._splits
from solver._jit import PACKAGES, cache_dir

KERNEL_MODULES = (solver._evaluator, solver._search, solver._settle, solver._splits, bots._kernels)


def _dispatchers():
    for module in KERNEL_MODULES:
        for name, value in vars(module).items():
            if isinstance(value, numba.core.registry.CPUDispatcher):
                yield f"{module.__name__}.{name}", value


def test_every_kernel_caches_outside_the_package():
    """Fails if any kernel would write its cache beside its source (numba's default)."""
    found = dict(_dispatchers())
    assert len(found) >= 15
    for name, dispatcher in found.items():
        path = dispatcher._cache._cache_path
        assert path.startswith(cache_dir()), (name, path)
        assert not path.startswith(PACKAGES), (name, path)


@pytest.mark.slow
def test_numba_cache_dir_is_respected(tmp_path):
    """With NUMBA_CACHE_DIR set, the kernels compile into it (a real subprocess)."""
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path)}
    code = "from solver import evaluate_many; import numpy as np; evaluate_many(np.array([[0, 5, 10, 20, 40]]))"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=Path(__file__).parents[1])
    assert list(tmp_path.rglob("*.nbi")), "no cache index written to NUMBA_CACHE_DIR"


@pytest.mark.slow
def test_a_first_run_says_it_is_compiling(tmp_path):
    """With an empty cache, solve says in one line on stderr that it compiles, once."""
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "bench.cli.solve", "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "--samples", "50"]
    first = subprocess.run(command, env=env, capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert first.returncode == 0 and first.stderr.startswith("solve: compiling the kernels it needs, once")
    second = subprocess.run(command, env=env, capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert second.returncode == 0 and second.stderr == ""


@pytest.mark.parametrize("argv", [
    ["AS KS"],  # not a hand
    ["AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "--samples", "1000000000"],  # more than memory holds
    ["AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "--grade", "AS KS QS / JS TS 9H 9D 8C / 7C 6D 5H 4S 3C"],  # other cards
    ["AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "--opponent", "nobody"],
])
def test_a_first_run_refuses_bad_input_in_its_one_line_before_any_notice(tmp_path, argv):
    """With an empty cache, what is refused is refused first: the error's one line, exit 2,
    and no notice of a compilation the refused request does not wait for."""
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "bench.cli.solve", *argv], env=env, capture_output=True, text=True,
                          cwd=Path(__file__).parents[1], timeout=300)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("solve: error: "), done.stderr


@pytest.mark.slow
def test_a_change_to_any_kernel_module_recompiles_the_kernels_that_inline_it(tmp_path):
    """Kernels inline helpers from other files; numba alone checks a cached kernel against
    its own file. Here the packages are copied, a bot kernel is compiled, then a comment is
    added to the settlement module it inlines from: the cached kernel no longer counts."""
    import shutil

    root = Path(__file__).parents[1]
    for package in ("solver", "bots"):
        shutil.copytree(root / package, tmp_path / "src" / package, ignore=shutil.ignore_patterns("__pycache__"))
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path / "src")}
    code = ("import sys, numpy as np; from bots import _kernels, make_bot; from solver._jit import compiled_before; "
            "print(compiled_before(_kernels.best_by_class_points)); "
            "make_bot('table').arrange_many(np.arange(13, dtype=np.uint8)[None], np.random.default_rng(0))")

    def fresh() -> str:
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert fresh() == "False"  # an empty cache
    assert fresh() == "True"
    with open(tmp_path / "src" / "solver" / "_settle.py", "a") as module:
        module.write("\n# changed\n")
    assert fresh() == "False"
    assert fresh() == "True"


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["basic", "2-4"])
def test_the_warm_up_compiles_what_solve_scores_with(tmp_path, rules):
    """``bench.cli.warmup`` (started by a first ``solve`` beside its own work) leaves the hero's and
    the scoring kernels in the cache with the types solve passes them: afterwards a solve
    loads every one of them and compiles only the opponents' kernels."""
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path)}
    root = Path(__file__).parents[1]
    subprocess.run([sys.executable, "-m", "bench.cli.warmup", rules], env=env, check=True, cwd=root)
    code = (f"from bots import solve_hand; solve_hand('AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C', samples=50, "
            f"rules={rules!r}); from solver import _search, _settle, _splits; from solver import _evaluator; "
            "ks = [_search.score_canonical, _settle.settle_rows, _settle.row_results, _splits.subset_values, "
            "_evaluator.eval5_columns, _evaluator.eval3_columns]; "
            "print(sum(sum(k.stats.cache_misses.values()) for k in ks), sum(sum(k.stats.cache_hits.values()) for k in ks))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    misses, hits = map(int, done.stdout.split())
    assert misses == 0 and hits >= 5


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the warm-up dies with solve through PR_SET_PDEATHSIG")
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["interrupted", "killed"])
def test_a_stopped_first_solve_leaves_no_warm_up_behind(tmp_path, how):
    """Stopped while it compiles, a first solve leaves no process: Ctrl-C ends the warm-up on
    the way out, and a killed solve takes it down with it."""
    import time

    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path)}
    solve = subprocess.Popen([sys.executable, "-m", "bench.cli.solve", "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"],
                             env=env, cwd=Path(__file__).parents[1], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    helpers: list[int] = []
    deadline = time.monotonic() + 300  # a wait, not a margin: it ends as soon as the warm-up starts
    while not helpers and time.monotonic() < deadline and solve.poll() is None:
        found = subprocess.run(["pgrep", "-P", str(solve.pid)], capture_output=True, text=True).stdout
        helpers = [int(pid) for pid in found.split()]
        time.sleep(0.05)
    assert helpers, "the first solve started no warm-up"
    solve.send_signal(how)
    solve.wait(timeout=300)
    deadline = time.monotonic() + 60  # a process killed on a loaded machine is gone when it is next run
    while time.monotonic() < deadline and _running(helpers[0]):
        time.sleep(0.05)
    assert not _running(helpers[0])


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["-m", "bench.cli", "arrange", "--bot", "table", "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"],
    ["-m", "bench.cli", "grade", "--input", "-", "--samples", "50"],
], ids=["arrange", "grade"])
def test_every_command_that_compiles_says_so_once_on_a_first_run(tmp_path, argv):
    """A bench command that compiles kernels on an empty cache says so in one line when the
    first compile starts; with the cache warm it says nothing."""
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path)}
    line = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C | 9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS\n"
    runs = [subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, input=line,
                           cwd=Path(__file__).parents[1], timeout=900) for _ in range(2)]
    first, second = runs
    said = [x for x in first.stderr.splitlines() if "compiling the kernels it needs, once" in x]
    assert first.returncode == 0 and len(said) == 1 and said[0].startswith(f"bench {argv[2]}: "), first.stderr
    assert str(tmp_path) in said[0]
    assert second.returncode == 0 and "compiling" not in second.stderr, second.stderr
