"""Bots by name: the registry, parameters, and plug-ins from other packages.

A bot spec is ``NAME`` or ``NAME:key=value:key=value``, where NAME is a registered
bot (``greedy``), an import path ``package.module:Class``, or a name that another
installed package declares in the ``chinese_poker.bots`` entry-point group. Values
are read as int, float or bool (``true``/``false``) when they look like one, else kept
as text: ``exhaustive:samples=2000:opponent=greedy``.

Any bot but ``exhaustive`` can be the solver's opponent model (``opponent_model``); the
exhaustive bot is given the registry's opponent models when it is made, so that its
``opponent`` may name any bot the registry can make.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import importlib
import inspect
import math
import os
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, entry_points, packages_distributions, version
from typing import Any

import numpy as np

from bots.base import (
    BATCH_CHECK_HANDS,
    BATCH_CHECK_SEEDS,
    BatchWords,
    Bot,
    BotError,
    Disagreement,
    arrange_many,
    batch_disagreement,
    batch_row_disagreement,
    batch_words,
)
from bots.exhaustive import ExhaustiveBot
from bots.greedy import GreedyBot
from bots.heuristic import HeuristicBot
from bots.protocol import ProtocolBot, ProtocolFactory, protocol_factory
from bots.random_bot import RandomBot
from bots.table import TableBot
from solver import config
from solver.errors import BotFault
from solver.opponent import OpponentModel
from solver.rules import Rules, as_rules
from solver.text import how_many

ENTRY_POINT_GROUP = "chinese_poker.bots"

BOTS: dict[str, Callable[..., Bot]] = {
    "exhaustive": ExhaustiveBot,
    "greedy": GreedyBot,
    "heuristic": HeuristicBot,
    "random": RandomBot,
    "table": TableBot,
}
BUILT_IN = dict(BOTS)  # the bots of this package, as every process has them


def registered(specs: Sequence[str]) -> tuple[tuple[str, Callable[..., Bot]], ...]:
    """The bots that ``specs`` name and that were put in ``BOTS`` in this process (``BOTS[name] =
    MyBot``), beside the package's own: a run hands them to its worker processes, which have
    only the package's (``register``).

    Args:
        specs: The bot specs of a run.

    Returns:
        ``(name, factory)`` for each distinct name the specs give that ``BOTS`` holds with
            another factory than the package's, in the order of ``specs``.

    Raises:
        BotError: A spec cannot be read (``parse_spec``).
    """
    names = dict.fromkeys(parse_spec(spec)[0] for spec in specs)
    return tuple((name, BOTS[name]) for name in names if name in BOTS and BUILT_IN.get(name) is not BOTS[name])


def register(bots: Sequence[tuple[str, Callable[..., Bot]]]) -> None:
    """Put bots registered in another process (``registered``) in this process's ``BOTS``.

    Args:
        bots: ``(name, factory)`` pairs; a name already in ``BOTS`` is replaced.
    """
    BOTS.update(bots)




def _plugin_entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def bot_names() -> list[str]:
    """Registered names, then names declared by installed plug-in packages.

    Returns:
        The names in ``BOTS``, sorted, then the other names of the ``chinese_poker.bots``
            entry-point group, sorted.
    """
    return sorted(BOTS) + sorted(set(_plugin_entry_points()) - set(BOTS))


OTHER_BOTS = ("or a bot file (NAME.toml) or program (cmd:PATH) that speaks the protocol (docs/protocol.md), "
              "or a plug-in (package.module:Class)")


def _choices() -> str:
    return ", ".join(bot_names()) + "; " + OTHER_BOTS


def _unknown(name: str) -> BotError:
    """The error for a name that is no bot, with the likeliest one meant: a bot's name or a
    bot file beside the one named, when one is close; else what a spec may be."""
    folder, _, stem = name.replace(os.sep, "/").rpartition("/")
    files_there: list[str] = []
    if "." in stem or folder:
        with contextlib.suppress(OSError):
            files_there = [f"{folder}/{entry}" if folder else entry
                           for entry in os.listdir(folder or ".") if entry.endswith(".toml")]
    close = difflib.get_close_matches(name, [*bot_names(), *files_there], n=1, cutoff=0.75)
    if close:
        return BotError(f"unknown bot {name!r}; did you mean {close[0]!r}? Bots: {_choices()}")
    return BotError(f"unknown bot {name!r}; choose from: {_choices()}")


def _parse_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text  # "nan" and "inf" are words here: no bot takes them as numbers


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a bot spec into its name (or import path) and parameters.

    Args:
        spec: ``NAME`` or ``NAME:key=value:...``; NAME may be an import path
            ``package.module:Class``.

    Returns:
        The name and the parameters, each value read as int, finite float or bool when it
            looks like one, else kept as text (``nan`` and ``inf`` stay words).

    Raises:
        BotError: The name is empty, or a parameter is not ``key=value``.

    Examples:
        >>> parse_spec("exhaustive:samples=2000:opponent=greedy")
        ('exhaustive', {'samples': 2000, 'opponent': 'greedy'})
        >>> parse_spec("mypkg.mybot:MyBot:depth=2")
        ('mypkg.mybot:MyBot', {'depth': 2})
        >>> parse_spec("mypkg.mybot:MyBot:margin=0.5:mode=nan:cap=inf")
        ('mypkg.mybot:MyBot', {'margin': 0.5, 'mode': 'nan', 'cap': 'inf'})
    """
    parts = [p.strip() for p in spec.strip().split(":")]
    name, rest = parts[0], parts[1:]
    if rest and "=" not in rest[0] and name not in BOTS:
        name, rest = f"{name}:{rest[0]}", rest[1:]
    if not name:
        raise BotError(f"empty bot name in {spec!r}; choose from: {_choices()}")
    params: dict[str, Any] = {}
    for part in rest:
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise BotError(f"bad parameter {part!r} in bot {spec!r}; write key=value, as in exhaustive:samples=2000")
        params[key.strip()] = _parse_value(value.strip())
    return name, params


BOT_PARAMETERS = ("opponent",)  # the parameters of the registered bots whose value is itself a bot spec


def outside_code(spec: str) -> str | None:
    """What making a spec's bot would import, load or start beyond the bots this process
    has by name: the gate before a bot named by a file from elsewhere (a journal's header) is
    made. A registered bot is this process's own code; an import path, a plug-in, a bot file
    (``NAME.toml``) and a program (``cmd:PATH``) run code that the spec only points to, and
    so does a registered bot whose ``opponent`` is one of them.

    Args:
        spec: A bot spec.

    Returns:
        None when the spec's bot and every bot its parameters name are in ``BOTS``; else
            the first name that is not.

    Raises:
        BotError: The spec, or a spec in its parameters, cannot be read (``parse_spec``).

    Examples:
        >>> outside_code("exhaustive:samples=500:opponent=greedy") is None
        True
        >>> outside_code("exhaustive:opponent=elsewhere.toml")
        'elsewhere.toml'
    """
    name, params = parse_spec(spec)
    if name not in BOTS:
        return name
    for key in BOT_PARAMETERS:
        value = params.get(key)
        if value is not None:
            found = outside_code(str(value))
            if found is not None:
                return found
    return None


def needs_vouching(specs: Sequence[str]) -> bool:
    """Whether making any of these specs runs code beyond the registered bots
    (``outside_code``), so that a command making them from a file must be told the specs by
    the user; a spec that cannot be read needs it too.

    Args:
        specs: Bot specs, as a journal names them.

    Returns:
        True when one of them is not built in or cannot be read.
    """
    try:
        return any(outside_code(spec) is not None for spec in specs)
    except BotError:
        return True


def _load_import_path(path: str) -> Callable[..., Bot]:
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise BotError(f"cannot import bot module {module_name!r} for {path!r}: {error}") from None
    except BotFault:
        raise  # a run's start-up limit, reached while the module loads: the run says so
    except KeyboardInterrupt:
        raise  # a stop (Ctrl-C), whoever raised it
    except BaseException as error:  # the module's own code failed (or exited) as it ran
        raise BotError(f"bot module {module_name!r} failed as it was imported for {path!r}: "
                       f"{type(error).__name__}: {str(error)[:200]}") from None
    try:
        found = getattr(module, attribute)
    except AttributeError:
        raise BotError(f"module {module_name!r} has no {attribute!r} (from bot {path!r})") from None
    if not (isinstance(found, type) and callable(getattr(found, "arrange", None))):  # checked before it is called
        raise BotError(f"{path!r} is not a bot class: an import path names a class with an arrange(cards, rng) "
                       "method, and this is not one (it was not called)")
    return found


def resolve_factory(name: str) -> Callable[..., Bot]:
    """The factory (usually a class) behind a registered name, a protocol bot (``file.toml``,
    ``cmd:PATH``), a plug-in name or an import path.

    Args:
        name: The name part of a spec (``parse_spec``).

    Returns:
        The factory: the class in ``BOTS``, a ``ProtocolFactory``, the attribute an import
            path names, or what a plug-in's entry point loads.

    Raises:
        BotError: The name is none of these (the message suggests the closest name), a bot
            file cannot be read, or an import path's module or attribute is missing.
    """
    if name in BOTS:
        return BOTS[name]
    protocol = protocol_factory(name)
    if protocol is not None:
        return protocol  # type: ignore[return-value]  # its bots name themselves per instance
    if ":" in name:
        return _load_import_path(name)
    plugins = _plugin_entry_points()
    if name in plugins:
        try:
            return plugins[name].load()
        except BotFault:
            raise  # a run's start-up limit, reached while the plug-in loads: the run says so
        except KeyboardInterrupt:
            raise  # a stop (Ctrl-C), whoever raised it
        except BaseException as error:  # the plug-in package's code failed (or exited) as it loaded
            raise BotError(f"plug-in bot {name!r} could not be loaded: {type(error).__name__}: "
                           f"{str(error)[:200]}") from None
    raise _unknown(name)


def bot_parameters(factory: Callable[..., Bot]) -> dict[str, Any]:
    """A bot's parameters and their defaults.

    Args:
        factory: A bot class or factory: a dataclass, a ``ProtocolFactory`` or any callable.

    Returns:
        Each parameter (a dataclass's fields made by ``__init__``, or the named parameters
            of the signature) with its default; None for a parameter without one.

    Raises:
        TypeError: ``factory`` is not a callable whose signature can be read.
        ValueError: ``factory`` has no signature to read (some built-ins).
    """
    if isinstance(factory, ProtocolFactory):
        return {"rules": "basic", "log_dir": None}
    if dataclasses.is_dataclass(factory):
        return {
            f.name: (f.default if f.default is not dataclasses.MISSING else None)
            for f in dataclasses.fields(factory)
            if f.init
        }
    signature = inspect.signature(factory)
    return {
        p.name: (None if p.default is inspect.Parameter.empty else p.default)
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


def make_bot(spec: str, **params: Any) -> Bot:
    """A bot from a spec (``"greedy"``, ``"exhaustive:samples=500"``, ``"pkg.mod:Bot"``).

    The ``exhaustive`` bot is handed ``shared_opponent_model`` to make its opponent.

    Args:
        spec: The bot spec (see the module's docstring).
        **params: More parameters; each wins over the same parameter in the spec.

    Returns:
        The bot.

    Raises:
        BotError: The spec names no bot, a parameter the bot does not have, or parameters
            the bot refuses; or what is made has no ``arrange`` method, or cannot be made
            (a protocol bot that does not start).

    Examples:
        >>> make_bot("greedy").name
        'greedy'
        >>> make_bot("gredy")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        bots.base.BotError: unknown bot 'gredy'; did you mean 'greedy'? Bots: exhaustive, greedy, heuristic, random, table; ...
    """
    name, spec_params = parse_spec(spec)
    factory = resolve_factory(name)
    merged = spec_params | params
    known = bot_parameters(factory)
    unknown = sorted(set(merged) - set(known))
    if unknown:
        choices = ", ".join(sorted(known)) or "none"
        raise BotError(f"bot {name!r} has no parameter {unknown[0]!r}; its parameters: {choices}")
    if factory is ExhaustiveBot:
        merged["opponent_models"] = shared_opponent_model
    try:
        bot = factory(**merged)
    except (BotError, BotFault):
        raise  # BotFault: a run's start-up limit, reached while the bot is made
    except (TypeError, ValueError) as error:
        raise BotError(f"bad parameters for bot {name!r}: {error}") from None
    except KeyboardInterrupt:
        raise  # a stop (Ctrl-C), whoever raised it
    except BaseException as error:  # a bot of an import path or a plug-in that fails as it is made
        if name in BOTS:
            raise
        raise BotError(f"bot {name!r} could not be made: {type(error).__name__}: {str(error)[:200]}") from None
    if not callable(getattr(bot, "arrange", None)):
        raise BotError(f"{name!r} is not a bot: it has no arrange(cards, rng) method")
    return bot


def make_bot_for(spec: str, rules: Rules, log_dir: str | None = None) -> Bot:
    """A bot from a spec that plays for ``rules``: a bot with a ``rules`` parameter is given
    these rules unless its spec names other ones; the basic rules are left to the bot's default.

    Args:
        spec: The bot spec.
        rules: The rule set of the game.
        log_dir: The folder a bot with a ``log_dir`` parameter (a protocol bot) writes its
            logs to; None: the bot's default.

    Returns:
        The bot, as ``make_bot`` makes it.

    Raises:
        BotError: As ``make_bot``.
    """
    name, params = parse_spec(spec)
    extra: dict[str, Any] = {}
    known = bot_parameters(resolve_factory(name))
    if "rules" in known and "rules" not in params and not rules.is_basic:
        extra["rules"] = rules
    if "log_dir" in known and log_dir is not None:
        extra["log_dir"] = log_dir
    return make_bot(spec, **extra)


@functools.cache
def _distributions_by_module() -> dict[str, list[str]]:
    """The installed distributions that provide each top-level module, read once a process:
    reading it opens the file list of every installed package (a second or more in a full
    environment), and a module this process has imported stays the one it imported."""
    return dict(packages_distributions())


def _package_of(module: str) -> dict[str, str | None]:
    """The installed distribution that provides a module, and its version (None when the
    module is not from an installed package, such as a file on PYTHONPATH)."""
    names = _distributions_by_module().get(module.split(".")[0], [])
    if not names:
        return {"package": None, "version": None}
    try:
        return {"package": names[0], "version": version(names[0])}
    except PackageNotFoundError:
        return {"package": names[0], "version": None}


def bot_spec(bot: Bot) -> dict[str, Any]:
    """What it takes to make the same bot again: its name, every parameter with its value
    (defaults included; rules by their name), the class that made it and the package (with
    its version) that provides it.

    Args:
        bot: The bot.

    Returns:
        ``name``, ``params``, ``class`` (``module:QualName``, or ``"protocol"`` for a protocol
            bot, whose parameters are its command, folder, environment, time limits and rules),
            ``package`` and ``version`` (None when the class is not from an installed package).
    """
    cls = type(bot)
    params: dict[str, Any] = {}
    if isinstance(bot, ProtocolBot):
        spec = bot.spec
        rules = bot.rules.name if isinstance(bot.rules, Rules) else bot.rules
        return {"name": bot.name, "params": {"command": list(spec.command), "cwd": spec.cwd, "env": dict(spec.env),
                                             "decision_timeout": spec.decision_timeout,
                                             "startup_timeout": spec.startup_timeout, "rules": rules},
                "class": "protocol", "package": None, "version": None}
    if dataclasses.is_dataclass(bot):
        params = {f.name: getattr(bot, f.name) for f in dataclasses.fields(bot) if f.init}
    else:
        try:
            params = {k: getattr(bot, k, default) for k, default in bot_parameters(cls).items()}
        except (TypeError, ValueError):  # a factory without a signature
            params = {}
    params = {k: (v.name if isinstance(v, Rules) else v) for k, v in params.items()}
    return {"name": getattr(bot, "name", cls.__name__), "params": params,
            "class": f"{cls.__module__}:{cls.__qualname__}", **_package_of(cls.__module__)}


class BotOpponent:
    """A bot seen as an opponent model: ``arrange_many`` over a batch of hands."""

    def __init__(self, bot: Bot, name: str, spot_check: tuple[int, ...] = ()):
        self.bot = bot
        self.name = name
        # the seeds rows of each batch are checked with against the bot's play (batch_row_disagreement); () for none
        self.spot_check = spot_check

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Set a batch of hands with the bot (``bots.base.arrange_many``).

        Args:
            hands: The hands, ``(n, 13)`` card ids.
            rng: The generator handed to the bot.

        Returns:
            The hands ``(n, 13)``, each row reordered front | middle | back.

        Raises:
            BotFault: The bot failed, or set a hand wrongly: with other cards, or, for a bot
                spot-checked, otherwise than it plays it.
        """
        rows = arrange_many(self.bot, hands, rng)
        if self.spot_check:
            disagreement = batch_row_disagreement(self.bot, np.ascontiguousarray(hands, np.uint8), rows,
                                                  self.spot_check, _words_for(self.bot))
            if disagreement:
                raise BotFault(f"{disagreement}: {batch_rule(self.bot, disagreement)}")
        return rows

    def __repr__(self) -> str:
        return f"BotOpponent({self.name!r})"


def opponent_model(spec: str | Bot | OpponentModel = config.DEFAULT_OPPONENT, rules: Rules | str | None = None) -> OpponentModel:
    """The opponent model named by a bot spec, playing for ``rules`` unless the spec names its own.

    The ``table`` model plays its tables as they are, without the card removal the ``table``
    bot adds in play (``removal=true``, about 0.04 ms a hand in a batch on two cores: 40 ms
    more for every 1,000 simulated opponents), unless the spec asks for it: ``table:removal=true``.
    Under 1-6 and 2-4 it takes the rows as independent, on the plain tables, unless the spec
    asks for the coupling the bot weighs in play: ``table:coupling=true``.

    Args:
        spec: A bot spec, a bot (then seen as a model), or an opponent model (returned as
            it is); ``table`` by default.
        rules: The rule set (``solver.rules``), by name or as ``Rules``; basic by default.

    Returns:
        The opponent model; a spec's is a ``BotOpponent`` named by the spec, with
            ``:rules=NAME`` added when the rules were filled in.

    Raises:
        BotError: ``spec`` is no bot, names ``exhaustive``, or cannot be made (``make_bot``).
        RulesError: ``rules`` is not a rule set.

    Examples:
        >>> opponent_model("table", "1-6").name
        'table:rules=1-6'
        >>> opponent_model("exhaustive")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        bots.base.BotError: the exhaustive bot cannot be the opponent model: it would solve every simulated opponent; ...
    """
    played = as_rules(rules)
    if not isinstance(spec, str):
        if callable(getattr(spec, "arrange_many", None)):
            return spec  # type: ignore[return-value]
        if callable(getattr(spec, "arrange", None)):
            return BotOpponent(spec, str(getattr(spec, "name", type(spec).__name__)))  # type: ignore[arg-type]
        raise BotError(f"an opponent must be a bot spec, a bot or an opponent model, got {spec!r}")
    name, params = parse_spec(spec)
    if name == "exhaustive":
        raise BotError("the exhaustive bot cannot be the opponent model: it would solve every simulated opponent; "
                       "choose a fast bot such as table, heuristic or greedy")
    label = spec.strip()
    if name == "table":  # as a model, table plays its tables as they are: see the docstring
        spec = label + "".join(f":{key}=false" for key in ("removal", "coupling") if key not in params)
    bot = make_bot_for(spec, played)
    seeds = _batch_check_seeds(name, bot)
    if seeds:
        disagreement = (batch_disagreement(bot, PROTOCOL_CHECK_HANDS, seeds, bot.batch, _words_for(bot))
                        if isinstance(bot, ProtocolBot) else batch_disagreement(bot, BATCH_CHECK_HANDS, seeds))
        if disagreement:
            raise BotError(f"{disagreement}: {batch_rule(bot, disagreement)}")
    if getattr(bot, "rules", None) is played:  # the rules were filled in: say so
        label += f":rules={played.name}"
    return BotOpponent(bot, label, spot_check=seeds)


PROTOCOL_CHECK_HANDS = 6  # hands a protocol bot's batches are compared with its play on, in a batch of its full size


def _words_for(bot: Bot) -> BatchWords:
    """How a call of ``arrange_many`` is named in a disagreement: for a protocol bot, the
    message of the call that held the row (the bot's answers come a message at a time)."""
    if not isinstance(bot, ProtocolBot) or not bot.batch:
        return batch_words
    size = bot.batch

    def words(n: int, row: int) -> str:
        if n <= size:
            return f"an arrange_many message of {how_many(n, 'hand')}"
        first = row - row % size
        count, last = min(size, n - first), min(first + size, n)
        span = f"hand {first + 1}" if count == 1 else f"hands {first + 1} to {last}"
        return f"an arrange_many message of {how_many(count, 'hand')} ({span} of {n}, sent in messages of at most {size})"

    return words


def _batch_check_seeds(name: str, bot: Bot) -> tuple[int, ...]:
    """The seeds a bot's batches are compared with its play with (``batch_disagreement``), or
    () when they are not compared.

    Bots of this package are not compared (their batches are tested). A bot in Python with
    batches of its own is, with every seed of ``BATCH_CHECK_SEEDS``. A protocol bot that
    offers batches and whose hello does not say ``"random": true`` is, with one seed: it draws
    on no rng of ours and says it sets every hand one way, so a batch must set it that way
    too. A protocol bot that draws randomness of its own may set a hand any way each time:
    its batches are not compared.
    """
    if name in BUILT_IN:
        return ()
    if isinstance(bot, ProtocolBot):
        return BATCH_CHECK_SEEDS[:1] if bot.batch and bot.replayable else ()
    return BATCH_CHECK_SEEDS if getattr(bot, "arrange_many", None) else ()


BATCH_RULE = ("simulated opponents are set in batches and must be set as the bot plays, so its arrange_many must set "
              "each hand as arrange does (docs/bots.md)")
PROTOCOL_BATCH_RULE = ("simulated opponents are set in batches and must be set as the bot plays, so its answer to "
                       "arrange_many must set each hand as its answer to arrange does, or its hello must say "
                       "\"random\": true or offer no batches (docs/protocol.md)")
RANDOM_RULE = ("a bot that draws randomness of its own says \"random\": true in its hello; its batches are then not "
               "compared with its plays, which cannot be replayed (docs/protocol.md)")


def batch_rule(bot: Bot, disagreement: Disagreement | None = None) -> str:
    """The rule a bot's batches broke, in the terms of its kind.

    Args:
        bot: The bot whose batch set a hand otherwise than it plays it.
        disagreement: What was seen; an ``unsteady`` one is randomness a protocol bot does
            not declare.

    Returns:
        ``RANDOM_RULE`` for an unsteady disagreement, ``PROTOCOL_BATCH_RULE`` for another of
            a protocol bot, else ``BATCH_RULE``.
    """
    if disagreement is not None and disagreement.unsteady:
        return RANDOM_RULE
    return PROTOCOL_BATCH_RULE if isinstance(bot, ProtocolBot) else BATCH_RULE



def playing_as(spec: str) -> str:
    """The opponent-model spec that sets hands as the bot ``spec`` does in play: the spec
    itself, but for ``table``, whose model leaves out card removal and the coupling of the
    rows unless asked.

    Args:
        spec: The bot spec.

    Returns:
        ``spec``, with ``:removal=true`` and ``:coupling=true`` added for a ``table`` spec
            that does not set them.

    Raises:
        BotError: The spec cannot be read (``parse_spec``).

    Examples:
        >>> playing_as("table"), playing_as("table:removal=false"), playing_as("greedy")
        ('table:removal=true:coupling=true', 'table:removal=false:coupling=true', 'greedy')
    """
    name, params = parse_spec(spec)
    if name != "table":
        return spec
    return spec.strip() + "".join(f":{key}=true" for key in ("removal", "coupling") if key not in params)


@functools.cache
def shared_opponent_model(spec: str, rules: Rules) -> OpponentModel:
    """``opponent_model(spec, rules)``, made once and shared by every exhaustive bot that plays
    against it.

    Args:
        spec: The bot spec of the opponent.
        rules: The rule set the opponent plays for.

    Returns:
        The opponent model, the same object for the same spec and rules.

    Raises:
        BotError: As ``opponent_model``.
    """
    return opponent_model(spec, rules)
