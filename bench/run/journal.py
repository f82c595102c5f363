"""The journal of a long run: a JSON-lines file bound to its run, that survives interruptions.

The first line (the header) holds the run's id, its resolved settings and the identity of
everything that plays (docs/journal.md); every later line (an entry) one finished chunk of
deals: its deal numbers and their records. Every line carries the run id, its sequence
number (0 for the header) and a sha256 check chained to the line before it, and is written
whole, synced, before the next. Reading it back checks every line against the schema
(``bench/records/schemas/journal.schema.json``), the run id, the sequence, the check and the deals (no
deal twice), and refuses a journal that fails any of it; only a last line cut short by a
crash (not JSON) is dropped, so that its deals are played again.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "journal.jsonl"
>>> from bench.records.model import EXAMPLE_RECORD
>>> journal = Journal.create(path, EXAMPLE_PLAN, EXAMPLE_IDENTITY)
>>> journal.append([0], [EXAMPLE_RECORD])
>>> journal.close()
>>> contents = Journal.read(path)
>>> contents.plan.seed, [r.deal for r in contents.records], contents.run == journal.run
(1, [0], True)
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import random
import subprocess
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from bench.records.documents import (
    JournalBot,
    JournalEntry,
    JournalHeader,
    JournalIdentity,
    JournalIdentityPackage,
    JournalRecord,
)
from bench.records.model import DealRecord, Play, RecordRow, RunPlan, rows_of, rows_to_records
from bench.records.schema import schema as document_schema
from bench.records.schema import validator
from bench.run.chain import ChainError, ChainFile, parse_lines, verified
from bench.run.chain import line_check as line_check  # the journal's check, as the tests compute it
from bench.run.play import play_deals
from bots.identity import bot_change, bot_identity, replayable
from solver import config
from solver.naturals import Natural

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

JOURNAL = "journal.jsonl"
SCHEMA_VERSION: Final = 3  # 3: document, schema_version on every line, counts named as counts, arrangements as rows
HEADER: Final = "journal-header"  # the ``document`` of each kind of line
ENTRY: Final = "journal-entry"
OLD_KIND = "chinese-poker-journal"  # the header of a journal of version 1 or 2 names its kind so


class JournalError(ChainError):
    """A file that is not a journal of this kind, that fails its checks, or that cannot be written."""


class JournalVersionError(JournalError):
    """A journal written by another version of bench, which this one does not read."""


@functools.lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON schema of a journal line (docs/schemas/journal.schema.json holds the same).

    Returns:
        The schema, read once a process (the same dict every call).
    """
    return document_schema("journal")


def _validator(part: str) -> Validator:
    return validator("journal", part)  # 1.0 is not a deal number


def schema_problem(value: Any, part: str) -> str | None:
    """What keeps ``value`` from being a ``header`` or an ``entry`` of the schema, or None.

    Args:
        value: A line, as parsed from JSON.
        part: ``"header"`` or ``"entry"``: what the line must be.

    Returns:
        The first failure (by its place in the line) in one line: where it is and the schema's
            message, cut at 160 characters; None when the value fits.
    """
    error = next(iter(sorted(_validator(part).iter_errors(value), key=lambda e: list(e.absolute_path))), None)
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{where.lstrip('.') or 'the line'}: {error.message[:160]}"


def _header_of(path: Path, parsed: list[dict[str, Any]]) -> dict[str, Any]:
    """The first line, when it is the header of a journal this version reads."""
    first = parsed[0] if parsed else {}
    if first.get("kind") == OLD_KIND:
        raise JournalVersionError(f"{path} was written by an older version of bench (journal version "
                                  f"{str(first.get('version'))[:20]}) and cannot be resumed by this one (version "
                                  f"{SCHEMA_VERSION})")
    if first.get("document") != HEADER:
        raise JournalError(f"{path} is not a journal of a bench run")
    if first.get("schema_version") != SCHEMA_VERSION:
        raise JournalVersionError(f"{path} is a journal of schema_version {str(first.get('schema_version'))[:20]}, "
                                  f"not {SCHEMA_VERSION}; this version of bench cannot resume it")
    return first


@dataclass
class Contents:
    """What a journal holds: its run id, header, entries (in order), and whether a damaged last
    line was dropped."""

    run: str
    header: JournalHeader
    entries: list[JournalEntry] = field(default_factory=list)
    dropped: bool = False

    @property
    def plan(self) -> RunPlan:
        """The run's settings, as its header holds them."""
        return RunPlan.of_row(self.header["settings"])

    @property
    def identity(self) -> JournalIdentity:
        return self.header["identity"]

    @property
    def records(self) -> list[DealRecord]:
        """Every entry's records, in memory."""
        return rows_to_records(_rows([record for entry in self.entries for record in entry["records"]]))


def _rows(records: list[JournalRecord]) -> list[RecordRow]:
    """A journal's records as the record model reads them: the same rows (the model's shape
    allows what any document holds, such as a play's ``seconds``, kept here)."""
    return cast("list[RecordRow]", records)


class Journal:
    """The tournament's journal: a chained file (``bench.run.chain``) whose entries are chunks of deals."""

    def __init__(self, chain: ChainFile):
        self._chain = chain
        self.path = chain.path
        self.run = chain.run

    @classmethod
    def create(cls, path: Path, plan: RunPlan, identity: JournalIdentity) -> Journal:
        """A new journal of a new run (a fresh run id), its header written.

        The file appears whole, replacing any file of that name.

        Args:
            path: The journal's file.
            plan: The run's settings, kept in the header.
            identity: What plays (the package and the bots, ``run_identity``), kept in the
                header.

        Returns:
            The journal, open for appending.

        Raises:
            JournalError: The settings do not fit the journal's schema, or the file cannot be
                written.
        """
        header = {"schema_version": SCHEMA_VERSION, "document": HEADER, "settings": plan.row(), "identity": identity}
        try:
            return cls(ChainFile.create(path, header, lambda line: schema_problem(line, "header")))
        except ChainError as error:
            raise JournalError(str(error)) from None

    @classmethod
    def reopen(cls, path: Path, contents: Contents) -> Journal:
        """Continue a journal read by ``read``.

        The file is rewritten (whole) without a damaged last line, or with the newline its last
        line was cut off before, then opened for appending.

        Args:
            path: The journal's file.
            contents: What ``read`` found in it.

        Returns:
            The journal, open for appending after its last line.

        Raises:
            JournalError: The file cannot be written.
        """
        try:
            return cls(ChainFile.reopen(path, [contents.header, *contents.entries], contents.dropped))
        except ChainError as error:
            raise JournalError(str(error)) from None

    def append(self, deals: list[int], records: list[DealRecord]) -> None:
        """One entry: the records of ``deals``, with each decision's seconds, written and synced.

        A write that fails (a full disk) is undone, so the journal never holds part of a line.

        Args:
            deals: The deal numbers of the records (the entry lists them sorted).
            records: The records of those deals.

        Raises:
            JournalError: The line cannot be written.
        """
        rows = cast("list[JournalRecord]", rows_of(records, seconds=True))  # with their seconds: the journal's shape
        try:
            self._chain.append({"schema_version": SCHEMA_VERSION, "document": ENTRY, "deals": sorted(deals),
                                "records": rows})
        except ChainError as error:
            raise JournalError(str(error)) from None

    def close(self) -> None:
        """Close the file; closing it again does nothing."""
        self._chain.close()

    @staticmethod
    def read(path: Path) -> Contents:
        """The header and entries of a journal, every line checked.

        A last line cut short by a crash (not a JSON object, after the header) is dropped
        (``dropped``); anything else that fails a check is an error naming the line and what is
        wrong with it. The journal is a regular file of its folder, never read through a link
        (``solver.files``).

        Args:
            path: The journal's file.

        Returns:
            The run id, the header, the entries in order, and whether a damaged last line was
                dropped.

        Raises:
            JournalVersionError: The journal was written by a version of bench whose journals
                this one does not read.
            JournalError: The file cannot be read, is not a journal, or a line fails a check:
                the schema, the run id, the sequence, the check chained to the line before, or
                its deals (listed, and none twice).
        """
        try:
            parsed, dropped = parse_lines(path)
            _header_of(path, parsed)
            first, lines = verified(path, parsed, lambda line: schema_problem(line, "header"),
                                    lambda line: schema_problem(line, "entry"))
        except ChainError as error:
            raise (error if isinstance(error, JournalError) else JournalError(str(error))) from None
        header = cast(JournalHeader, first)  # the schema's shape, checked by verified
        entries = cast("list[JournalEntry]", lines)
        seen: dict[int, int] = {}  # deal -> the line that holds it
        for number, entry in enumerate(entries, start=2):
            where = f"{path} line {number}"
            dealt = [r["deal"] for r in entry["records"]]
            if sorted(dealt) != entry["deals"]:
                raise JournalError(f"{where} holds records of deals other than those it lists")
            for deal in dealt:
                if deal in seen:
                    raise JournalError(f"{where} holds deal {deal} again (line {seen[deal]} has it)")
                seen[deal] = number
        return Contents(header["run"], header, entries, dropped)


# --- what a run is: its package and its bots, and its records checked against its deals ------


PACKAGES = ("solver", "bots", "bench")  # the folders of the package's source, beside each other
_SOURCE = Path(__file__).resolve().parents[2]


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=_SOURCE, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def package_identity() -> JournalIdentityPackage:
    """The package's name and version, and its commit when its source is a git checkout.

    Returns:
        ``name``; ``version`` (None when the package is not installed); ``commit`` and
            ``dirty``, whether the source folders have uncommitted changes (both None unless the
            source is a git checkout); and, when ``dirty``, ``changes``, the sha256 of
            ``git diff HEAD`` of those folders.
    """
    try:
        version: str | None = metadata.version("chinese-poker-solver")
    except metadata.PackageNotFoundError:
        version = None
    found: JournalIdentityPackage = {"name": "chinese-poker-solver", "version": version, "commit": None, "dirty": None}
    top = _git("rev-parse", "--show-toplevel")
    commit = _git("rev-parse", "HEAD")
    if top and Path(top.strip()).resolve() == _SOURCE and commit and commit.strip():
        found["commit"] = commit.strip()
        status = _git("status", "--porcelain", "--untracked-files=no", "--", *PACKAGES)
        found["dirty"] = bool(status and status.strip()) if status is not None else None
        if found["dirty"]:
            diff = _git("diff", "HEAD", "--no-color", "--no-ext-diff", "--", *PACKAGES)
            if diff is not None:
                found["changes"] = hashlib.sha256(diff.encode("utf-8")).hexdigest()
    return found


def run_identity(specs: list[str], made: dict[str, Any]) -> JournalIdentity:
    """The identity of a run: the package, and each distinct bot spec's bot.

    Args:
        specs: The run's bot specs, in order; a spec given more than once is described once.
        made: The bots made, by spec (``bench.run.play.make_bots``).

    Returns:
        ``package`` (``package_identity``) and ``bots``, each distinct spec's bot as
            ``bots.identity`` describes it (``$defs/bot`` of the journal's schema), in the order
            of ``specs``.
    """
    return {"package": package_identity(),
            "bots": [cast(JournalBot, bot_identity(spec, made[spec])) for spec in dict.fromkeys(specs)]}


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= 24 else text[:12] + "…"


def identity_change(stored: JournalIdentity, current: JournalIdentity) -> str | None:
    """What differs between the identity a journal holds and the current one, in a few words, or None.

    Args:
        stored: The identity the journal holds.
        current: The identity of the run now (``run_identity``).

    Returns:
        The first difference: of the package (``package_change``), of the bots' specs, or of
            a bot (``bots.identity.bot_change``); None when they agree.
    """
    changed = package_change(stored["package"], current["package"])
    if changed:
        return changed
    if [b["spec"] for b in stored["bots"]] != [b["spec"] for b in current["bots"]]:
        return (f"the journal names the bots {', '.join(b['spec'] for b in stored['bots'])}, but the run plays "
                f"{', '.join(b['spec'] for b in current['bots'])}")
    for old, bot in zip(stored["bots"], current["bots"]):
        changed = bot_change(old, bot)
        if changed:
            return changed
    return None


def package_change(was: JournalIdentityPackage, now: JournalIdentityPackage) -> str | None:
    """What differs between the package a journal names and the one here, in a few words, or None.

    Args:
        was: The package the journal names (``package_identity``'s shape).
        now: The package here (``package_identity``'s shape).

    Returns:
        The first difference: its version, its git commit, or its uncommitted changes; None
            when they agree.
    """
    for key, what in (("version", "version"), ("commit", "git commit")):
        if was.get(key) != now.get(key):
            return f"the package's {what} was {_short(was.get(key))}, is now {_short(now.get(key))}"
    if was.get("dirty") != now.get("dirty") or was.get("changes") != now.get("changes"):
        return "the package's uncommitted changes (git diff HEAD) changed"
    return None


def unreplayable(contents: Contents) -> list[str]:
    """The specs of a journal's bots whose plays cannot be played again to check them.

    Args:
        contents: The journal's contents.

    Returns:
        The specs of the bots that draw randomness of their own (not
            ``bots.identity.replayable``), in the order the journal's identity lists them.
    """
    return [bot["spec"] for bot in contents.identity["bots"] if not replayable(bot)]


def replay_problem(contents: Contents, match: Any) -> str | None:
    """Where a journal's recorded play differs from the bots' play when played again, or None.

    One deal (at random) of each of up to ``config.REPLAYED_LINES`` lines (at random) is played
    again with the run's bots. Bots set a hand from its cards and their seeded rng alone, so
    a record that these bots would not have made (another run's plays, edited plays) shows
    here. The plays of bots that draw randomness of their own (``unreplayable``) are not
    compared, nor are decisions that fail (in the journal or now).

    Args:
        contents: The journal's contents.
        match: The run's settings (``bench.run.play.RunSettings``); the deals are played again
            under the ``foul`` policy.

    Returns:
        The deal, bot and seat of the first play that differs, with the recorded play and the
            bot's, in one line; None when every compared play agrees, when every bot draws
            randomness of its own, or when the journal holds no entry.

    Raises:
        DecisionFault: A bot gave up (``BotGivenUp``) during the replay.
    """
    skipped = set(unreplayable(contents))
    if all(spec in skipped for spec in match.specs):
        return None
    pick = random.SystemRandom()
    entries = contents.entries
    if len(entries) > config.REPLAYED_LINES:
        entries = pick.sample(entries, config.REPLAYED_LINES)
    recorded = {record.deal: record for record in rows_to_records(_rows([pick.choice(entry["records"]) for entry in entries]))}
    if not recorded:
        return None
    replay = dataclasses.replace(match, on_fault="foul", field=None)  # plays only: the field scores are not compared
    again = play_deals(match.specs, match.players, match.entropy, sorted(recorded), settings=replay)
    for record in again:
        kept = recorded[record.deal]
        for b, (row, kept_row) in enumerate(zip(record.plays, kept.plays)):
            if match.specs[b] in skipped:
                continue
            for seat, (play, kept_play) in enumerate(zip(row, kept_row)):
                differs = play_difference(kept_play, play)
                if differs:
                    return (f"deal {record.deal}, bot {match.specs[b]!r} in seat {seat}: the journal records "
                            f"{differs[1]!r}, the bot plays {differs[2]!r}; the journal holds plays these bots do "
                            f"not make{_random_hint(contents, match.specs[b])}")
    return None


COMPARED = ("arrangement", "natural", "values", "foul", "foul_reason")  # what a replayed play must repeat


def play_difference(recorded: Play, replayed: Play) -> tuple[str, str, str] | None:
    """The first of ``COMPARED`` in which a replayed play differs from its record, or None.

    A decision that failed, in the record or in the replay, is not compared (None): its fault
    says nothing of the bot's play.

    Args:
        recorded: The play as the journal records it.
        replayed: The play the bot makes again.

    Returns:
        The field, the record's value and the replay's value, each value as text (an
            arrangement, a natural as JSON, ``none``); None when they agree or either decision
            failed.

    Examples:
        >>> from dataclasses import replace
        >>> play = Play("4C 3C 2C / 9C 8C 7C 6C 5C / AC KC QC JC TC", (1, 2, 3), False, None)
        >>> play_difference(play, replace(play, seconds=9.0)) is None
        True
        >>> play_difference(play, replace(play, natural=Natural("six-pairs", (1,))))
        ('natural', 'none', '{"key": [1], "kind": "six-pairs"}')
    """
    if recorded.fault is not None or replayed.fault is not None:
        return None
    for name in COMPARED:
        was, now = getattr(recorded, name), getattr(replayed, name)
        if was != now:
            return name, _shown(name, was), _shown(name, now)
    return None


def _shown(name: str, value: Any) -> str:
    """A compared field as text: an arrangement as it reads, anything else as JSON (``none`` for None)."""
    if name == "arrangement" and isinstance(value, str):
        return value
    if value is None:
        return "none"
    if isinstance(value, Natural):
        value = {"kind": value.kind, "key": list(value.key)}
    return json.dumps(list(value) if isinstance(value, tuple) else value, sort_keys=True, ensure_ascii=False)


def _random_hint(contents: Contents, spec: str) -> str:
    """For a protocol bot: what it must say if it plays a hand differently each time."""
    if not any(bot["spec"] == spec and bot["class"] == "protocol" for bot in contents.identity["bots"]):
        return ""
    return (", or the bot draws randomness of its own without saying so (its hello must say \"random\": true, "
            "docs/protocol.md)")


EXAMPLE_PLAN = RunPlan(
    bots=("greedy", "greedy"), players=2, sessions=1, seed=1,
    rules={"name": "basic", "scoring": "basic", "royalties": [], "royalty_needs_win": False, "naturals": False,
           "natural_payouts": {}},
    decision_timeout=60.0, on_fault="stop", command="bench tournament --bots greedy,greedy")
EXAMPLE_IDENTITY: JournalIdentity = {
    "package": {"name": "chinese-poker-solver", "version": "0.1.0", "commit": None, "dirty": None},
    "bots": [{"spec": "greedy", "name": "greedy", "class": "bots.greedy:GreedyBot", "params": {}, "version": "0.1.0",
              "identity": None, "sha256_by_file": {}, "replayable": True}],
}
