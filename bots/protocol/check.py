"""A protocol bot checked before a run (``bench check-bot``), as fastchess checks an engine's compliance.

``BotCheck`` starts the bot's program once, speaks to it line by line as a run would,
and says of each part of docs/protocol.md whether the bot does it: the hello in time and
what it says (protocol version, name and version, the rules asked for), one hand and a
batch answered with legal arrangements of the cards dealt, the same hand set the same way
twice (or randomness declared in the hello), the error reply to a request it cannot
serve, and the exit on ``quit``. Each check is a ``Check``: PASS, FAIL with what to
change, or SKIP when an earlier failure or the bot's hello leaves nothing to check. A
check that cannot go on without the process (it exited, or stopped answering) skips the
rest.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from bots.base import BotError, BotFault
from bots.protocol import messages
from bots.protocol.messages import PROTOCOL, PROTOCOLS, ProtocolFault
from bots.protocol.spec import ProtocolSpec
from bots.protocol.transport import LINE_LIMIT, Closed, Overlong, Process, ProtocolTrace, StderrLog
from solver import config, files
from solver.cards import format_cards, parse_hand

Outcome = Literal["PASS", "FAIL", "SKIP"]
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"  # the hand of the single requests
SHORT_HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S"  # twelve cards: a request no bot can serve
BATCH = 5  # hands in the batch request (fewer when the bot's hello says so)


@dataclass(frozen=True)
class Check:
    """One check: its name, PASS, FAIL or SKIP, and what was seen (for a FAIL, what to change)."""

    name: str
    outcome: Outcome
    detail: str


class _Gone(BotFault):
    """The bot failed a check so that its process cannot be spoken to any more: the checks
    after this one are skipped."""

    def __init__(self, check: Check):
        super().__init__(check.detail)
        self.check = check


class _Session:
    """One process of the bot, spoken to as a run would, with each request's time."""

    def __init__(self, spec: ProtocolSpec, process: Process):
        self.spec = spec
        self.process = process
        self.next_id = 0

    def said(self) -> str:
        return self.process.log.clause()

    def ended(self, name: str, closed: Closed, what: str) -> _Gone:
        status = self.process.exit_status(1.0)
        how = f"exited (status {status})" if status is not None else f"closed its {closed.pipe}"
        return _Gone(Check(name, "FAIL", f"it {how} instead of answering {what}{self.said()}"))

    def line(self, name: str, message: bytes, limit: float, what: str) -> tuple[bytes, float]:
        """Send ``message`` and read one line within ``limit`` seconds: (the line, seconds taken)."""
        started = time.monotonic()
        deadline = started + limit
        try:
            if not self.process.send(message, deadline):
                raise _Gone(Check(name, "FAIL", f"it did not read {what} within {limit:g} s: a bot reads each "
                                                "request as it comes"))
            line = self.process.read_line(deadline)
        except Closed as closed:
            raise self.ended(name, closed, what) from None
        except Overlong:
            raise _Gone(Check(name, "FAIL", f"it answered {what} with a line longer than "
                                            f"{LINE_LIMIT:,} bytes")) from None
        if line is None:
            partial = self.process.partial()
            how = (f"it wrote {messages.quote(partial)} with no end of line: end each line with a newline" if partial
                   else "end each line with a newline and flush standard output after it (docs/protocol.md)")
            raise _Gone(Check(name, "FAIL", f"no answer to {what} within {limit:g} s; {how}{self.said()}"))
        return line, time.monotonic() - started

    def request(self, name: str, message: dict[str, Any], limit: float, what: str) -> tuple[dict[str, Any], float]:
        """One request with a fresh id, and its answer (an error reply included) as an object."""
        self.next_id += 1
        line, seconds = self.line(name, messages.encode({**message, "id": self.next_id}), limit, what)
        answer = messages.parse_object(line, self.spec.name, what)
        if answer.get("id") != self.next_id or type(answer.get("id")) is not int:
            raise ProtocolFault(f"it answered {what} with id {json.dumps(answer.get('id'))}, not the request's "
                                f"{self.next_id}: an answer carries its request's id")
        return answer, seconds


def _timing(seconds: float, limit: float) -> str:
    took = f"{seconds * 1000:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"
    return f"in {took} (limit {limit:g} s)"


class BotCheck:
    """The checks of docs/protocol.md on the bot ``spec`` starts, one by one as it is iterated,
    under ``rules`` (a rule set's name, as the hello sends it). Its standard error goes to a
    log in ``log_dir`` (a temporary folder, kept, when None): ``log`` once it is started;
    ``trace`` keeps every line sent and received."""

    NAMES = ("hello", "protocol", "name and version", "rules", "one hand", "the same hand again", "a batch",
             "error reply", "quit")

    def __init__(self, spec: ProtocolSpec, rules: str = "basic", log_dir: str | None = None,
                 trace: ProtocolTrace | None = None):
        self.spec, self.rules, self.log_dir, self.trace = spec, rules, log_dir, trace
        self.log: Path | None = None

    def __iter__(self) -> Iterator[Check]:
        folder = Path(self.log_dir) if self.log_dir else Path(tempfile.mkdtemp(prefix="check-bot-"))
        try:
            log = StderrLog(folder, self.spec.name)
        except OSError as error:
            yield Check("hello", "FAIL", f"cannot write the bot's log in {folder}: {error.strerror}")
            return
        self.log = log.path
        try:
            process = Process(self.spec, log, trace=self.trace)
        except BotError as error:
            log.close()
            yield Check("hello", "FAIL", str(error))
            yield from self._skipped("hello")
            return
        try:
            yield from _checks(_Session(self.spec, process), self.rules)
        except _Gone as gone:
            yield gone.check
            yield from self._skipped(gone.check.name)
        finally:
            process.end(0)
            log.close()
            if not self.log_dir and not log.written and not log.tail:  # nothing to read: no folder left behind
                files.remove(log.path, missing_ok=True)
                with contextlib.suppress(OSError):
                    folder.rmdir()
                self.log = None

    def _skipped(self, failed: str) -> Iterator[Check]:
        for name in self.NAMES[self.NAMES.index(failed) + 1:]:
            yield Check(name, "SKIP", "the bot cannot be asked (above)")


def _checks(session: _Session, rules: str) -> Iterator[Check]:
    spec = session.spec
    line, seconds = session.line("hello", messages.hello(rules), spec.startup_timeout, "the hello")
    try:
        answer = messages.parse_object(line, spec.name, "the hello")
    except ProtocolFault as fault:
        raise _Gone(Check("hello", "FAIL", str(fault))) from None
    if "error" in answer:
        raise _Gone(Check("hello", "FAIL", f"it refused to play {rules}: {messages.quote(str(answer['error']), 300)}"))
    if answer.get("type") != "hello":
        raise _Gone(Check("hello", "FAIL", f"it answered {messages.quote(line)}; a hello answer has \"type\": \"hello\""))
    yield Check("hello", "PASS", f"answered {_timing(seconds, spec.startup_timeout)}")
    hello = yield from _hello_fields(answer, spec, rules)
    hand = parse_hand(HAND)
    first = yield from _one_hand(session, hand)
    yield from _again(session, hand, first, hello.random)
    yield from _batch(session, hello.batch)
    yield from _error_reply(session, hello.protocol, hand)
    yield _quit(session)


def _hello_fields(answer: dict[str, Any], spec: ProtocolSpec, rules: str) -> Generator[Check, None, messages.Hello]:
    protocol = answer.get("protocol", 1)
    if type(protocol) is not int or protocol not in PROTOCOLS:
        raise _Gone(Check("protocol", "FAIL", f"it speaks protocol {json.dumps(protocol)}; this bench speaks "
                                              f"{' and '.join(map(str, PROTOCOLS))}: answer the hello with "
                                              f"\"protocol\": {PROTOCOL}"))
    newer = "" if protocol == PROTOCOL else (f" (version {PROTOCOL} adds the bot's version, its rule sets, a batch "
                                             "size and the error reply: docs/protocol.md)")
    yield Check("protocol", "PASS", f"version {protocol}{newer}")
    try:
        hello = messages.accept_hello({k: v for k, v in answer.items() if k != "rules"}, spec.name, rules)
    except BotError as error:
        raise _Gone(Check("name and version", "FAIL", str(error))) from None
    version = f"version {hello.version!r}" if hello.version else "no version (a version names the build a record played)"
    yield Check("name and version", "PASS", f"{hello.name!r}, {version}")
    plays = answer.get("rules")
    if plays is None:
        yield Check("rules", "PASS", f"it plays any rules (its hello lists none), so {rules}")
    elif not isinstance(plays, list) or not all(isinstance(r, str) for r in plays):
        raise _Gone(Check("rules", "FAIL", f"its hello's rules are {messages.quote(json.dumps(plays))}: a list of "
                                           "rule set names"))
    elif rules not in plays:
        yield Check("rules", "FAIL", f"it plays {', '.join(plays) or '(none)'}, not {rules}: add {rules!r} to the "
                                     "rules of its hello, or check it with --rules for one it plays")
    else:
        yield Check("rules", "PASS", f"it plays {rules}")
    return hello


def _arranged(answer: dict[str, Any], cards: tuple[int, ...], name: str, what: str) -> np.ndarray:
    """The cards of a legal arrangement of ``cards`` that ``answer`` gives; ProtocolFault otherwise."""
    if "error" in answer:
        raise ProtocolFault(f"it sent an error reply: {messages.quote(str(answer['error']), 300)}")
    rows = messages.declared_arrangement(answer, name, what)[1]
    if sorted(int(c) for c in rows.cards) != sorted(cards):
        raise ProtocolFault(f"it set {format_cards(rows.cards)}, not the cards dealt ({format_cards(cards)})")
    return np.array([int(c) for c in rows.cards], np.uint8)


def _set_hand(session: _Session, name: str, hand: tuple[int, ...]) -> tuple[np.ndarray, float]:
    """HAND asked for under check ``name``: the cards of its legal arrangement and the seconds
    taken; the check fails (and ends the checks) otherwise."""
    try:
        answer, seconds = session.request(name, {"type": "arrange", "hand": HAND}, session.spec.decision_timeout,
                                          f"hand {HAND}")
        return _arranged(answer, hand, session.spec.name, f"hand {HAND}"), seconds
    except ProtocolFault as fault:
        raise _Gone(Check(name, "FAIL", str(fault))) from None


def _one_hand(session: _Session, hand: tuple[int, ...]) -> Generator[Check, None, np.ndarray]:
    cards, seconds = _set_hand(session, "one hand", hand)
    yield Check("one hand", "PASS", f"a legal arrangement {_timing(seconds, session.spec.decision_timeout)}")
    return cards


def _again(session: _Session, hand: tuple[int, ...], first: np.ndarray, random: bool) -> Iterator[Check]:
    again, _ = _set_hand(session, "the same hand again", hand)
    if np.array_equal(first, again):
        yield Check("the same hand again", "PASS", "set the same way" + (", though its hello says it draws randomness "
                                                                         "of its own" if random else ""))
    elif random:
        yield Check("the same hand again", "PASS", "set another way, as its hello says it may (\"random\": true)")
    else:
        yield Check("the same hand again", "FAIL", f"set {format_cards(first)} then {format_cards(again)}: a bot "
                                                   "that draws randomness of its own says \"random\": true in its "
                                                   "hello (its plays then cannot be replayed to check a record)")


def _batch(session: _Session, size: int) -> Iterator[Check]:
    if not size:
        yield Check("a batch", "SKIP", "its hello offers no batches (\"batch\": true or a number of hands)")
        return
    rng = np.random.default_rng(1)
    hands = np.sort(np.array([rng.permutation(52)[:13] for _ in range(min(size, BATCH))], np.uint8), axis=1)
    texts = [format_cards(h.tolist()) for h in hands]
    limit = session.spec.decision_timeout * len(texts)
    what = f"a batch of {len(texts)} hands"
    try:
        answer, seconds = session.request("a batch", {"type": "arrange_many", "hands": texts}, limit, what)
        if "error" in answer:
            raise ProtocolFault(f"it sent an error reply: {messages.quote(str(answer['error']), 300)}")
        rows = messages.arrangements_of(answer, hands, texts, session.spec.name, what)
        for row, hand, text in zip(rows, hands, texts):
            if sorted(row.tolist()) != hand.tolist():
                raise ProtocolFault(f"it set {format_cards(row.tolist())} for hand {text}, not the cards dealt")
    except ProtocolFault as fault:
        raise _Gone(Check("a batch", "FAIL", str(fault))) from None
    yield Check("a batch", "PASS", f"{len(texts)} legal arrangements, in order, {_timing(seconds, limit)}")


def _error_reply(session: _Session, protocol: int, hand: tuple[int, ...]) -> Iterator[Check]:
    if protocol < 2:
        yield Check("error reply", "SKIP", "protocol 1 has no error reply")
        return
    limit = session.spec.decision_timeout
    what = f"hand {SHORT_HAND} (12 cards)"
    try:
        answer, _ = session.request("error reply", {"type": "arrange", "hand": SHORT_HAND}, limit, what)
    except ProtocolFault as fault:
        raise _Gone(Check("error reply", "FAIL", str(fault))) from None
    if "error" not in answer:
        yield Check("error reply", "FAIL", f"it answered a hand of 12 cards with {messages.answer_quote(answer)}; a "
                                           "request a bot cannot serve gets {\"id\": N, \"error\": \"why\"}")
        return
    try:
        again, _ = session.request("error reply", {"type": "arrange", "hand": HAND}, limit, f"hand {HAND}")
        _arranged(again, hand, session.spec.name, f"hand {HAND}")
    except ProtocolFault as fault:
        raise _Gone(Check("error reply", "FAIL", f"after its error reply, {fault}")) from None
    yield Check("error reply", "PASS", f"{messages.quote(str(answer['error']), 100)} for a hand of 12 cards, and it "
                                       "went on to the next request")


def _quit(session: _Session) -> Check:
    grace = config.QUIT_GRACE
    started = time.monotonic()
    session.process.ask_to_quit(grace)
    status = session.process.exit_status(grace)
    if status is None:
        return Check("quit", "FAIL", f"still running {grace:g} s after quit: exit on {{\"type\": \"quit\"}} and at "
                                     "the end of standard input")
    return Check("quit", "PASS", f"exited {_timing(time.monotonic() - started, grace)}, status {status}")
