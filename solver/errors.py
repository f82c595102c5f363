"""The solver's errors (card errors are in ``solver.cards``, rule errors in ``solver.rules``)."""


class SolveError(ValueError):
    """Options that cannot be solved: non-positive samples, players outside 2..4, ..."""


class OpponentError(SolveError):
    """An opponent model that failed, or answered with something other than its hands set in rows."""
