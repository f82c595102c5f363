"""``python -m bench.analysis.first_runs``: each command it times runs (here with the warm
cache of the suite; the figures in docs/performance.md are its output on an empty one)."""

from __future__ import annotations

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
