"""One tree of errors: every exception class the solver, the bots and the bench define
derives from ``solver.errors.PokerError`` and from exactly one of its families, and a
command's exit status is its family's."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from bench.cli.parsing import EXIT_STATUSES, exit_status, guarded
from solver.errors import BotFault, InfrastructureError, InputError, PokerError

FAMILIES = (InputError, BotFault, InfrastructureError)
STOPS = {  # signals that stop work, never errors: no family, so no error handler takes them
    "solver.interrupts.Stopped": "Ctrl-C or SIGTERM: a KeyboardInterrupt, exit 130 or 143",
    "bench.cli.commands.match._Decided": "the match's test decided: caught where it is raised, the match reports",
}


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for package in ("solver", "bots", "bench"):
        root = importlib.import_module(package)
        names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
        for name in names:
            module = importlib.import_module(name)
            found += [value for value in vars(module).values() if inspect.isclass(value)
                      and issubclass(value, BaseException) and value.__module__ == name]
    return sorted(set(found), key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


CLASSES = _exception_classes()


def test_the_walk_finds_the_errors_of_every_layer():
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in CLASSES}
    assert {"solver.cards.CardError", "bots.base.BotError", "bench.run.play.DecisionTimeout",
            "bench.web.pool.PoolFault", "bench.run.runner.WorkerDied"} <= names
    assert set(STOPS) <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_each_error_has_the_root_and_exactly_one_family(cls):
    name = f"{cls.__module__}.{cls.__qualname__}"
    if name in STOPS:
        assert not issubclass(cls, PokerError), f"{name} stops work: no handler of errors may take it"
        return
    assert issubclass(cls, PokerError), f"{name} does not derive from solver.errors.PokerError"
    if cls in (PokerError, *FAMILIES):
        return
    families = [family.__name__ for family in FAMILIES if issubclass(cls, family)]
    assert len(families) == 1, f"{name} is in {families or 'no family'}; it must be in exactly one"


def test_a_timeout_and_a_dead_worker_are_bot_faults():
    from bench.run.play import DecisionTimeout
    from bench.run.runner import WorkerDied
    from solver import OpponentError

    assert issubclass(DecisionTimeout, BotFault) and issubclass(WorkerDied, BotFault)
    assert issubclass(OpponentError, BotFault) and issubclass(OpponentError, ValueError)


def test_builtin_bases_are_kept():
    from bench.analysis.perf import PerfError
    from bots import BotError
    from solver import CardError, RulesError, SolveError

    for cls in (CardError, RulesError, SolveError, BotError, BotFault):
        assert issubclass(cls, ValueError), cls
    assert issubclass(PerfError, RuntimeError)


@pytest.mark.parametrize("family, status", [(InputError, 2), (BotFault, 1), (InfrastructureError, 1)])
def test_a_command_ends_with_its_family_status_in_one_line(family, status, capsys):
    class Raised(family):  # type: ignore[valid-type, misc]
        pass

    def fail() -> int:
        raise Raised("expected this, found that")

    assert guarded("prog", fail) == status == EXIT_STATUSES[family] == exit_status(Raised())
    assert capsys.readouterr().err == "prog: error: expected this, found that\n"


def test_an_error_of_no_family_is_an_internal_error(capsys):
    def fail() -> int:
        raise KeyError("x")

    assert guarded("prog", fail) == 1
    assert capsys.readouterr().err.startswith("prog: internal error: KeyError")
