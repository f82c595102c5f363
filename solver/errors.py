"""The project's errors: one root, three families (card errors are in ``solver.cards``, rule
errors in ``solver.rules``, each layer's own beside the code that raises them).

Every error the solver, the bots and the bench raise derives from ``PokerError`` and
from exactly one of its families, which says whose the fix is:

- ``InputError``: what was given is wrong (a card, a rule set, an option, a bot spec,
  a file); the fix is in the input. A command exits 2.
- ``BotFault``: a bot, a plug-in opponent model or a bot's process failed while
  playing (raised, answered badly, ran out of time, died). A command exits 1.
- ``InfrastructureError``: the machine or a service failed (a worker pool, a scheduler,
  a tool that did not run), not the input and not a bot. A command exits 1.

Each class keeps its builtin base as well (most are ``ValueError``), so code that catches
those still does.
"""


class PokerError(Exception):
    """The root of every error this project raises."""


class InputError(PokerError):
    """Bad input: the message says what was expected, what was found and how to fix it."""


class BotFault(PokerError, ValueError):
    """A bot that failed while playing: it raised, answered with something other than an
    arrangement of its own cards, ran out of time, or its process died. The message names
    the bot, the hand and the error; ``log``, when set, is the file that holds the whole
    standard error of the bot's process (not part of the message, which a run records and
    must read the same wherever it ran)."""

    log: str | None = None


class InfrastructureError(PokerError):
    """The machine or a service failed, not the input and not a bot: a worker pool that is
    busy or lost a worker, a scheduler that does not answer, a tool that did not run."""


class SolveError(InputError, ValueError):
    """Options that cannot be solved: non-positive samples, players outside 2..4, ..."""


class OpponentError(BotFault):
    """An opponent model that failed, or answered with something other than its hands set in rows."""
