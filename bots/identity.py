"""What played: a bot spec resolved into the identity that runs record, and the names bots sit under.

A bot's identity is everything a record needs to say which bot made its plays, resolved,
never the words the user typed: the spec, the bot's name, class, parameters and package
version, a protocol bot's own identity (from its hello), whether its plays can be played
again (``replayable``), and the sha256 of every file it reads (``sha256_by_file``):

- a protocol bot's TOML file, the program its command runs, found exactly as the process
  is started (``bots.protocol.program_path``: ``cmd:botx`` is the ``botx`` on the bot's ``PATH``,
  never a ``./botx`` that happens to be in the folder), and every other word of its command
  that names a file (``bot.py`` in ``["python3", "bot.py"]``, read from the bot's folder);
- a Python bot's module source;
- every parameter that names a file (``table:tables=FILE``, ``rules=house.toml+2-4``),
  given in the spec or taken by default; not rules a bot is given whole (a run's rules,
  which its record holds in full, however they were named);
- the files a bot says it plays (``files_played()``: a ``table`` bot's tables file, the
  shipped coupled tables among them), with the sha256 of the bytes it read, not of what the
  file holds now; the parameters that name them (``played_parameters``) are not read again.

A journal's header holds one identity per distinct spec (docs/journal.md); a resume makes
the bots again and compares (``bot_change``), so a file replaced between the two is
named, not played. ``seat_names`` gives the bots of a run names that are unique by
construction, whatever names the bots claim.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bots.protocol import ProtocolBot
from bots.protocol.spec import program_path
from bots.registry import BotError, bot_parameters, bot_spec, parse_spec
from solver import files
from solver.rules import Rules

SEPARATOR = "#"  # between a name and the number that tells a repeated name apart: greedy#2


def file_digest(path: str | Path) -> str | None:
    """The sha256 of a regular file's bytes (``solver.files.digest``), or None when it is not
    one or cannot be read.

    Args:
        path: The file's path; a link is followed.

    Returns:
        The sha256 as 64 hexadecimal digits, or None.
    """
    try:
        return files.digest(path)
    except OSError:
        return None


def _named_files(value: Any) -> list[Path]:
    """The files a parameter's value names: the value itself, or each part of a value joined
    with ``+`` (as rule sets are), when it is the path of a regular file."""
    if not isinstance(value, (str, Path)):
        return []
    text = str(value).strip()
    parts = [text, *text.split("+")] if text else []
    return [Path(part) for part in dict.fromkeys(parts) if part and os.path.isfile(part)]


def _protocol_files(bot: Any) -> list[Path]:
    """The files a protocol bot is made from and runs: its TOML file, its program, and every
    other word of its command that names a file in its folder."""
    spec = bot.spec
    found: list[Path] = []
    if spec.source and not spec.source.startswith("cmd:"):
        found.append(Path(spec.source))
    if spec.program:
        found.append(Path(spec.program))
    folder = Path(spec.cwd) if spec.cwd else Path.cwd()
    found += [folder / word for word in spec.command[1:] if (folder / word).is_file()]
    return found


def _held_params(bot: Any) -> dict[str, Any]:
    """The values of a Python bot's parameters as it holds them, by name. Rules it was given
    whole are left out: they are what it plays, however they were named (a run records them in
    full)."""
    if dataclasses.is_dataclass(bot):
        values = {f.name: getattr(bot, f.name, None) for f in dataclasses.fields(bot) if f.init}
    else:
        try:
            values = {name: getattr(bot, name, None) for name in bot_parameters(type(bot))}
        except (TypeError, ValueError):  # a factory without a signature
            values = {}
    return {name: value for name, value in values.items() if not isinstance(value, Rules)}


def files_read(spec: str, bot: Any) -> dict[str, str]:
    """Every file a bot reads, by absolute path, with its sha256 (see the module's docstring).

    Args:
        spec: The spec the bot was made from; the files its parameters name are read from it.
        bot: The bot made from ``spec``.

    Returns:
        The sha256 of each file, by its absolute path (links resolved); a file that cannot
            be read is left out.
    """
    paths: list[Path] = []
    if isinstance(bot, ProtocolBot):
        paths += _protocol_files(bot)
    else:
        try:
            source = inspect.getsourcefile(type(bot))
        except TypeError:
            source = None
        if source:
            paths.append(Path(source))
        try:
            typed = list(parse_spec(spec)[1].items())
        except BotError:
            typed = []
        covered = set(getattr(bot, "played_parameters", ()))  # files_played gives them as they were read
        for name, value in [*typed, *_held_params(bot).items()]:
            if name not in covered:
                paths += _named_files(value)
    found: dict[str, str] = {}
    for path in paths:
        digest = file_digest(path)
        if digest is not None:
            found[str(path.resolve())] = digest
    played = getattr(bot, "files_played", None)
    if callable(played):  # what the bot read when it was made, whatever the files hold now
        found.update(played())
    return found


def bot_identity(spec: str, bot: Any) -> dict[str, Any]:
    """The identity of the bot made from ``spec``, as a journal's header holds it.

    Args:
        spec: The spec the bot was made from, as the user gave it.
        bot: The bot made from ``spec``.

    Returns:
        ``spec``, ``name``, ``class``, ``params``, ``version``, the bot's own ``identity``
            (a protocol bot's, from its hello; else None), ``sha256_by_file`` (``files_read``)
            and ``replayable``, as a JSON record holds them (a value JSON cannot hold becomes its
            text).

    Examples:
        >>> from bots import make_bot
        >>> found = bot_identity("greedy", make_bot("greedy"))
        >>> found["class"], found["replayable"], [Path(p).name for p in found["sha256_by_file"]]
        ('bots.greedy:GreedyBot', True, ['greedy.py'])
    """
    described = bot_spec(bot)
    own = getattr(bot, "identity", None)
    found = {"spec": spec, "name": str(described.get("name", spec)), "class": described.get("class"),
             "params": described.get("params", {}), "version": described.get("version"),
             "identity": own if isinstance(own, dict) else None, "sha256_by_file": files_read(spec, bot),
             "replayable": bool(getattr(bot, "replayable", True))}
    return json.loads(json.dumps(found, default=str))  # as a JSON record holds it


def opponent_identity(spec: str, model: Any) -> dict[str, Any]:
    """The identity of the bot that sets an opponent model's hands (``bots.registry.opponent_model``
    of ``spec``): the bot behind a ``BotOpponent``, or the model itself.

    Args:
        spec: The spec the model was made from.
        model: The opponent model.

    Returns:
        The identity, as ``bot_identity`` gives it.
    """
    return bot_identity(spec, getattr(model, "bot", model))


def replayable(identity: Mapping[str, Any]) -> bool:
    """Whether the plays of the bot with this identity can be played again to check them: a
    bot sets a hand from its cards and the rng it is given alone, unless it says otherwise (a
    protocol bot whose hello says ``"random": true``). An identity written before bots could
    say so holds no ``replayable``: its bot is taken to be replayable, as it was then.

    Args:
        identity: A bot's identity, as ``bot_identity`` gives it or a record holds it.

    Returns:
        False only when the identity's ``replayable`` is False.

    Examples:
        >>> replayable({"replayable": False}), replayable({"replayable": True}), replayable({})
        (False, True, True)
    """
    return identity.get("replayable", True) is not False


def _spec_files(spec: str) -> list[Path]:
    """The file a protocol bot's spec names (``FILE.toml``, ``cmd:PATH``), read from the spec alone."""
    try:
        name = parse_spec(spec)[0]
    except BotError:
        return []
    if name.startswith("cmd:"):
        program = program_path(name[4:])  # a bare name is the program PATH finds, as the bot was started
        return [Path(program)] if program else [Path(name[4:])]
    return [Path(name)] if name.endswith(".toml") else []


def recorded_files_change(stored: Mapping[str, Any]) -> str | None:
    """What differs between the files a record says a bot is made from and those files now,
    found without making the bot: a record that names none (every bot reads at least its
    source or its bot file), a protocol bot whose spec names a file the record does not, a
    file gone, a file changed. A record from elsewhere names its bot
    by spec, and making a bot can start a program: it is made again only from the files that
    made it when the record was written.

    Args:
        stored: The identity the record holds (``bot_identity``).

    Returns:
        The first difference as a sentence, or None when every file is as it was.

    Examples:
        >>> recorded_files_change({"spec": "greedy", "sha256_by_file": {}})
        "bot 'greedy': the record names no file it is made from"
    """
    name = stored.get("spec")
    recorded = stored.get("sha256_by_file") or {}
    if not isinstance(recorded, Mapping) or not recorded:
        return f"bot {name!r}: the record names no file it is made from"
    for path in _spec_files(str(name)):
        if str(path.resolve()) not in recorded:
            return f"bot {name!r}: its file {path} is not among the files the record names"
    for path, digest in sorted(recorded.items()):
        now = file_digest(path)
        if now is None:
            return f"bot {name!r}: its file {path} is gone"
        if now != digest:
            return f"bot {name!r}: its file {path} changed (sha256 {str(digest)[:12]}… is now {now[:12]}…)"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= 24 else text[:12] + "…"


def bot_change(stored: Mapping[str, Any], current: Mapping[str, Any]) -> str | None:
    """What differs between the identity a record holds of a bot and the bot's now, in a few
    words (the first difference: a file, then the bot's own identity, class, name, version,
    parameters, whether it can be replayed), or None.

    Args:
        stored: The identity the record holds.
        current: The identity of the bot made again; its ``spec`` names the bot in the message.

    Returns:
        The first difference as a sentence, or None when there is none.

    Examples:
        >>> was = {"spec": "table:tables=t.npz", "sha256_by_file": {"/r/t.npz": "ab" * 32}}
        >>> bot_change(was, was | {"sha256_by_file": {"/r/t.npz": "cd" * 32}})
        "bot 'table:tables=t.npz': its file /r/t.npz changed (sha256 abababababab… is now cdcdcdcdcdcd…)"
    """
    name = current["spec"]
    before_files, after_files = stored.get("sha256_by_file", {}), current.get("sha256_by_file", {})
    for path in sorted(set(before_files) | set(after_files)):
        before, after = before_files.get(path), after_files.get(path)
        if before != after:
            if after is None:
                return f"bot {name!r}: its file {path} is gone"
            if before is None:
                return f"bot {name!r} is now made from another file, {path}"
            return f"bot {name!r}: its file {path} changed (sha256 {before[:12]}… is now {after[:12]}…)"
    for key in ("identity", "class", "name", "version", "params"):
        if stored.get(key) != current.get(key):
            return f"bot {name!r}: its {key} was {_short(stored.get(key))}, is now {_short(current.get(key))}"
    if replayable(stored) != replayable(current):
        return (f"bot {name!r} {'now draws' if replayable(stored) else 'no longer draws'} randomness of its own "
                "(its hello's \"random\")")
    return None


def display_name(spec: str, bot: Any) -> str:
    """The name a bot claims in tables: a protocol bot the ``name`` of its bot file (the
    user's word for it; the name its hello gives is in its identity), any other its spec.

    Args:
        spec: The spec the bot was made from.
        bot: The bot made from ``spec``.

    Returns:
        The name claimed.
    """
    return bot.name if isinstance(bot, ProtocolBot) else spec


def seat_names(claimed: Sequence[str]) -> list[str]:
    """The names bots are shown and keyed under, one per bot in order, unique whatever they
    claim: a name's first claim keeps it; a repeat gets ``#2``, ``#3``, ... with the first
    number that no bot claims and no earlier bot was given.

    Args:
        claimed: The name each bot claims, in seat order.

    Returns:
        One unique name per bot, in the same order.

    Examples:
        >>> seat_names(["greedy", "table", "greedy"])
        ['greedy', 'table', 'greedy#2']
        >>> seat_names(["greedy", "greedy", "greedy#2"])
        ['greedy', 'greedy#3', 'greedy#2']
    """
    taken = set(claimed)
    given: list[str] = []
    for name in claimed:
        if name in given:
            number = 2
            while f"{name}{SEPARATOR}{number}" in taken or f"{name}{SEPARATOR}{number}" in given:
                number += 1
            name = f"{name}{SEPARATOR}{number}"
        given.append(name)
    return given


def run_names(specs: Iterable[str], made: Mapping[str, Any]) -> list[str]:
    """The unique names of a run's bots, in the order of ``specs`` (``seat_names`` of each
    bot's ``display_name``).

    Args:
        specs: The spec of each bot of the run, in order; a spec may repeat.
        made: One bot per distinct spec, by its spec.

    Returns:
        One unique name per spec, in the order of ``specs``.
    """
    return seat_names([display_name(spec, made[spec]) for spec in specs])
