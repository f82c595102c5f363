"""``python -m bench.analysis.first_runs``: each command it times runs (here with the warm
cache of the suite; the figures in docs/performance.md are its output on an empty one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.analysis import first_runs
from solver._jit import cache_dir


@pytest.mark.slow
@pytest.mark.parametrize("name", list(first_runs.COMMANDS))
def test_each_first_run_command_runs(name):
    assert first_runs._timed(first_runs.COMMANDS[name], cache_dir()) > 0


def test_a_command_that_fails_is_an_error_naming_it(tmp_path):
    with pytest.raises(RuntimeError, match="failed: "):
        first_runs._timed(["-c", "raise SystemExit(3)"], str(tmp_path))


@pytest.mark.slow
def test_a_recorded_run_lists_each_compile_with_its_types_and_depth(tmp_path):
    log = str(tmp_path / "compiles.json")
    code = ("import numba\n"
            "inner = numba.njit(lambda x: x + 1)\n"
            "outer = numba.njit(lambda x: inner(x) * 2)\n"
            "outer(1); outer(1.5)")
    first_runs._timed(first_runs._recorded(["-c", code], log), str(tmp_path))
    compiles = json.loads(Path(log).read_text())
    called = [(entry["kernel"].rsplit(".", 1)[-1], entry["types"], entry["depth"]) for entry in compiles]
    assert called == [("<lambda>", "int64", 1), ("<lambda>", "int64", 0),
                      ("<lambda>", "float64", 1), ("<lambda>", "float64", 0)]
    assert all(entry["seconds"] > 0 for entry in compiles)


@pytest.mark.slow
def test_a_recorded_command_still_runs_as_itself(tmp_path):
    log = str(tmp_path / "compiles.json")
    argv = first_runs._recorded(first_runs.COMMANDS["solve"], log)
    assert first_runs._timed(argv, cache_dir()) > 0
    assert isinstance(json.loads(Path(log).read_text()), list)


def test_a_kernel_of_the_project_compiled_twice_is_named_and_numbas_own_helpers_are_not():
    compiles = [{"kernel": "solver._x.f", "types": "int64", "depth": 0, "seconds": 1.0},
                {"kernel": "solver._x.f", "types": "float64", "depth": 0, "seconds": 2.0},
                {"kernel": "numba.np.arrayobj.ol_np_empty.<locals>.impl", "types": "int64", "depth": 1, "seconds": 0.5},
                {"kernel": "numba.np.arrayobj.ol_np_empty.<locals>.impl", "types": "int32", "depth": 1, "seconds": 0.5},
                {"kernel": "bots._k.g", "types": "int64", "depth": 0, "seconds": 0.25}]
    found = first_runs._kernels(compiles)
    assert (found["compiled"], found["kernels"], found["compile_s"]) == (5, 3, 3.25)
    assert found["more_than_once"] == ["solver._x.f"]


@pytest.mark.slow
def test_a_first_play_compiles_no_kernel_of_the_project_twice(tmp_path):
    """On an empty cache, a Play of the web page (the table bot, its removal-aware search,
    grading) compiles each of the project's kernels once: before, the table's search kernel was
    compiled for read-only points from Python and again for writable ones from the removal-aware
    kernel, about 4 s of a first Play."""
    log = str(tmp_path / "compiles.json")
    cache = tmp_path / "cache"
    cache.mkdir()
    first_runs._timed(first_runs._recorded(first_runs.COMMANDS["web Play (bench.web.jobs.play)"], log), str(cache))
    found = first_runs._kernels(json.loads(Path(log).read_text()))
    assert found["kernels"] > 10 and found["more_than_once"] == []
