"""A protocol bot checked before a run (``bench check-bot``), as fastchess checks an engine's compliance.

``BotCheck`` starts the bot's program, speaks to it line by line as a run would, and says
of each part of docs/protocol.md whether the bot does it: the hello in time and what it
says (protocol version, name and version, the rules asked for), one hand and a batch
answered with valid arrangements of the cards dealt (a foul is a valid play, and said),
the same hand set the same way twice (its rows compared as sets of cards, as ``bench
verify`` compares plays; or randomness declared in the hello), the error reply to a
request it cannot serve, and the exit on ``quit``. Each check is a ``Check``: PASS, FAIL
with what to change, or SKIP when the bot's hello leaves nothing to check.

Each check stands on its own, so that one run shows every failure: after a bad answer the
process is kept, as a run keeps it (an answer to an earlier request is passed over); after
a fault that leaves it out of step (it exited, timed out, did not read, wrote an overlong
line) a new process is started for the next check, as a run starts one. Only when the hello
fails, or a new process cannot be started, are the checks that need a bot skipped, with why.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from bots.base import BotError
from bots.protocol import messages
from bots.protocol.messages import BATCH_HANDS, PLAIN, PROTOCOL, PROTOCOLS, ProtocolFault, plain
from bots.protocol.spec import ProtocolSpec
from bots.protocol.transport import LINE_LIMIT, Closed, Overlong, Process, ProtocolTrace, StderrLog
from solver import config
from solver.arrangement import Arrangement, foul_reason
from solver.cards import format_cards, parse_hand
from solver.text import how_many

Outcome = Literal["PASS", "FAIL", "SKIP"]
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"  # the hand of the single requests
SHORT_HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S"  # twelve cards: a request no bot can serve


@dataclass(frozen=True)
class Check:
    """One check: its name, PASS, FAIL or SKIP, and what was seen (for a FAIL, what to change)."""

    name: str
    outcome: Outcome
    detail: str


class _Fault(ProtocolFault):
    """A request failed; ``keep``: the process is still in step (the next request may go to it)."""

    def __init__(self, detail: str, keep: bool = True, exited: bool = False):
        super().__init__(detail)
        self.keep, self.exited = keep, exited


def _keeps(fault: ProtocolFault) -> bool:
    """Whether the process is still in step after ``fault`` (a bad answer keeps it, as in a run)."""
    return bool(getattr(fault, "keep", True))


def _shown(value: Any) -> str:
    """A value from the bot's hello as JSON, cut at 100 characters."""
    text = json.dumps(value)
    return text if len(text) <= 100 else text[:100] + "..."


class _Session:
    """The bot's processes, one at a time, spoken to as a run would, with each request's time."""

    def __init__(self, spec: ProtocolSpec, rules: str, folder: Path, trace: ProtocolTrace | None):
        self.spec, self.rules, self.folder, self.trace = spec, rules, folder, trace
        self.logs: list[StderrLog] = []
        self.process: Process | None = None
        self.gone = ""  # why there is no process to ask, when there is none
        self.next_id = 0  # counted across processes, as a run counts them

    def start(self) -> Process:
        """A new process (its hello not yet asked); BotError when it cannot be started."""
        try:
            log = StderrLog(self.folder, self.spec.name)
        except OSError as error:
            raise BotError(f"cannot write the bot's log in {self.folder}: {error.strerror}") from None
        self.logs.append(log)
        try:
            self.process = Process(self.spec, log, trace=self.trace)
        except BotError:
            log.close()
            raise
        return self.process

    def end(self) -> None:
        if self.process is not None:
            self.process.end(0)
            self.process = None

    def drop(self, why: str) -> None:
        """End the process; the checks that need one are skipped, saying ``why``."""
        self.end()
        self.gone = why

    def said(self) -> str:
        return self.process.log.clause() if self.process is not None else ""

    def _ended(self, closed: Closed, what: str) -> _Fault:
        assert self.process is not None
        status = self.process.exit_status(1.0)
        how = f"exited (status {status})" if status is not None else f"closed its {closed.pipe}"
        return _Fault(f"it {how} instead of answering {what}{self.said()}", keep=False, exited=status is not None)

    def send(self, message: bytes, deadline: float, limit: float, what: str) -> None:
        assert self.process is not None
        try:
            if not self.process.send(message, deadline):
                raise _Fault(f"it did not read {what} within {limit:g} s: a bot reads each request as it comes",
                             keep=False)
        except Closed as closed:
            raise self._ended(closed, what) from None

    def read(self, deadline: float, limit: float, what: str, stale: int = 0) -> bytes:
        """One line by the deadline; ``stale``: answers to earlier requests passed over meanwhile."""
        assert self.process is not None
        try:
            line = self.process.read_line(deadline)
        except Closed as closed:
            raise self._ended(closed, what) from None
        except Overlong:
            raise _Fault(f"it answered {what} with a line longer than {LINE_LIMIT:,} bytes", keep=False) from None
        if line is None:
            partial = self.process.partial()
            how = (f"it wrote {messages.quote(partial)} with no end of line: end each line with a newline" if partial
                   else "end each line with a newline and flush standard output after it (docs/protocol.md)")
            late = (f" (it sent {stale} answer{'s' if stale > 1 else ''} to earlier requests, passed over)"
                    if stale else "")
            raise _Fault(f"no answer to {what} within {limit:g} s{late}; {how}{self.said()}", keep=False)
        return line

    def hello(self) -> tuple[dict[str, Any], float]:
        """Say hello to the process: its answer, checked to be a hello, and the seconds taken."""
        limit = self.spec.startup_timeout
        started = time.monotonic()
        self.send(messages.hello(self.rules), started + limit, limit, "the hello")
        line = self.read(started + limit, limit, "the hello")
        answer = messages.parse_object(line, self.spec.name, "the hello")
        if "error" in answer:
            raise _Fault(f"it refused to play {self.rules}: {messages.quote(str(answer['error']), 300)}")
        if answer.get("type") != "hello":
            raise _Fault(f"it answered {messages.quote(line)}; a hello answer has \"type\": \"hello\"")
        return answer, time.monotonic() - started

    def restart(self) -> None:
        """After a fault that left the process out of step: a new one, through its hello, as a
        run starts one; when it cannot be, the checks left are skipped, saying why."""
        self.end()
        try:
            self.start()
            self.hello()
        except (BotError, ProtocolFault) as error:
            self.drop(f"a new process, started after the failure above, did not start: {error}")

    def request(self, message: dict[str, Any], limit: float, what: str) -> tuple[dict[str, Any], float]:
        """One request with a fresh id, and its answer (an error reply included) as an object;
        answers to earlier requests are passed over, as a run passes them over."""
        self.next_id += 1
        started = time.monotonic()
        deadline = started + limit
        self.send(messages.encode({**message, "id": self.next_id}), deadline, limit, what)
        stale = 0
        while True:
            answer = messages.parse_object(self.read(deadline, limit, what, stale), self.spec.name, what)
            number = answer.get("id")
            if type(number) is int and 0 < number < self.next_id:
                stale += 1
                continue
            if type(number) is not int or number != self.next_id:
                raise _Fault(f"it answered {what} with id {_shown(number)}, not the request's {self.next_id}: an "
                             "answer carries its request's id")
            return answer, time.monotonic() - started


def _timing(seconds: float, limit: float) -> str:
    took = f"{seconds * 1000:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"
    return f"in {took} (limit {limit:g} s)"


class BotCheck:
    """The checks of docs/protocol.md on the bot ``spec`` starts, one by one as it is iterated,
    under ``rules`` (a rule set's name, as the hello sends it). The standard error of each
    process it starts goes to a log in ``log_dir`` (a temporary folder when None): ``logs``,
    once done, are those that hold something (an empty one is removed, and the temporary
    folder with it when nothing is left in it); ``trace`` keeps every line sent and received.
    ``name`` is the name the bot's hello gave, once it gave one."""

    NAMES = ("hello", "protocol", "name and version", "rules", "one hand", "the same hand again", "a batch",
             "error reply", "quit")

    def __init__(self, spec: ProtocolSpec, rules: str = "basic", log_dir: str | None = None,
                 trace: ProtocolTrace | None = None):
        self.spec, self.rules, self.log_dir, self.trace = spec, rules, log_dir, trace
        self.logs: list[Path] = []
        self.name: str | None = None

    @property
    def log(self) -> Path | None:
        """The first log that holds something, or None."""
        return self.logs[0] if self.logs else None

    def __iter__(self) -> Iterator[Check]:
        folder = Path(self.log_dir) if self.log_dir else Path(tempfile.mkdtemp(prefix="check-bot-"))
        session = _Session(self.spec, self.rules, folder, self.trace)
        try:
            yield from _Checks(session, self).run()
        finally:
            session.end()
            for log in session.logs:
                log.close()  # removes a log the process wrote nothing to
                if not log.empty:
                    self.logs.append(log.path)
            if not self.log_dir:
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only when empty: nothing to read, no folder left behind


@dataclass
class _Hello:
    """What the hello said, as the later checks use it: a value that is not valid is taken as
    left out, and what is wrong with it is said by the check it concerns."""

    protocol: int = PROTOCOL
    batch: int = 0
    random: bool = False
    batch_wrong: str = ""
    random_wrong: str = ""


class _Checks:
    """The checks, in order, on one session; each request's failure fails its own check."""

    def __init__(self, session: _Session, owner: BotCheck):
        self.session, self.owner = session, owner
        self.spec = session.spec
        self.hand = parse_hand(HAND)
        self.first: Arrangement | None = None  # the arrangement of "one hand", when it passed
        self.unsteady = False  # it set the one hand two ways alone, without "random": true
        self.said = _Hello()
        self.failed: dict[str, str] = {}  # each failure's words, and the first check that failed so

    def run(self) -> Iterator[Check]:
        hello = yield from self._hello()
        if not hello:
            return
        steps: list[tuple[str, Callable[[], Check]]] = [
            ("one hand", self._one_hand), ("the same hand again", self._again), ("a batch", self._batch),
            ("error reply", self._error_reply), ("quit", self._quit)]
        for name, step in steps:
            if self.session.process is None:
                yield Check(name, "SKIP", self.session.gone)
                continue
            try:
                yield step()
            except ProtocolFault as fault:
                yield Check(name, "FAIL", self._once(str(fault), name))
                if not _keeps(fault) and name != "quit":
                    self.session.restart()

    def _once(self, detail: str, name: str) -> str:
        """``detail`` of a failure of check ``name``, or, when an earlier check failed just so,
        words that point to it."""
        earlier = self.failed.setdefault(detail, name)
        return detail if earlier == name else f"the same failure as {earlier} (above)"

    # --- the hello ---------------------------------------------------------------------------

    def _hello(self) -> Generator[Check, None, bool]:
        """The hello and what it says; False when it failed (the checks left are then skipped)."""
        session = self.session
        try:
            session.start()
        except BotError as error:
            yield Check("hello", "FAIL", str(error))
            yield from self._skip_all("the bot did not start (above)")
            return False
        try:
            answer, seconds = session.hello()
        except ProtocolFault as fault:
            yield Check("hello", "FAIL", str(fault))
            if not _keeps(fault):  # a run ends such a process without asking it to quit
                session.drop("it exited (above)" if getattr(fault, "exited", False) else
                             "it gave no hello (above): a run ends such a process without asking it to quit")
            yield from self._skip_all("its hello failed (above)", quit_too=session.process is None,
                                      hands="; a run does not play a bot whose hello fails")
            if session.process is not None:
                yield self._quit_or_fail()
            return False
        fields = self._fields(answer)
        refused = ""
        if not any(c.outcome == "FAIL" for c in fields) and not (self.said.batch_wrong or self.said.random_wrong):
            try:  # what a run accepts, in case it asks more than the checks below
                messages.accept_hello({k: v for k, v in answer.items() if k != "rules"}, self.spec.name,
                                      session.rules)
            except BotError as error:
                refused = f", but a run refuses it: {error}"
        yield Check("hello", "FAIL" if refused else "PASS",
                    f"answered {_timing(seconds, self.spec.startup_timeout)}{refused}")
        yield from fields
        return True

    def _skip_all(self, why: str, quit_too: bool = True, hands: str = "") -> Iterator[Check]:
        """SKIP for the checks after the hello, for ``why`` (and ``hands`` for those that ask hands)."""
        for name in BotCheck.NAMES[1:] if quit_too else BotCheck.NAMES[1:-1]:
            if name == "quit":
                yield Check(name, "SKIP", self.session.gone or why)
            else:
                yield Check(name, "SKIP", why + (hands if name not in ("protocol", "name and version", "rules") else ""))

    def _quit_or_fail(self) -> Check:
        try:
            return self._quit()
        except ProtocolFault as fault:
            return Check("quit", "FAIL", str(fault))

    def _fields(self, answer: dict[str, Any]) -> list[Check]:
        """The checks of the hello's protocol, name and version and rules; its batch and random,
        read for the checks they concern."""
        checks = []
        protocol = answer.get("protocol", 1)
        if type(protocol) is not int or protocol not in PROTOCOLS:
            checks.append(Check("protocol", "FAIL", f"it speaks protocol {_shown(protocol)}; this bench speaks "
                                                    f"{' and '.join(map(str, PROTOCOLS))}: answer the hello with "
                                                    f"\"protocol\": {PROTOCOL}"))
        else:
            self.said.protocol = protocol
            newer = "" if protocol == PROTOCOL else (f" (version {PROTOCOL} adds the bot's version, its rule sets, a "
                                                     "batch size and the error reply: docs/protocol.md)")
            checks.append(Check("protocol", "PASS", f"version {protocol}{newer}"))
        name, version = answer.get("name"), answer.get("version")
        wrong = [f"{key} {_shown(value)}" for key, value in (("name", name), ("version", version))
                 if value is not None and not (isinstance(value, str) and plain(value))]
        if wrong:
            checks.append(Check("name and version", "FAIL", f"its hello gives {' and '.join(wrong)}: name and version "
                                                            f"must be text, {PLAIN}"))
        else:
            self.owner.name = name or None
            named = f"{name!r}" if name else f"{self.spec.name!r} (its hello gives no name: its bot file's)"
            said = f"version {version!r}" if version else "no version (a version names the build a record played)"
            checks.append(Check("name and version", "PASS", f"{named}, {said}"))
        checks.append(self._rules(answer.get("rules")))
        batch, random = answer.get("batch", False), answer.get("random", False)
        if type(batch) is bool or (type(batch) is int and batch >= 0):
            self.said.batch = (BATCH_HANDS if batch else 0) if type(batch) is bool else min(batch, BATCH_HANDS)
        else:
            self.said.batch_wrong = (f"its hello says \"batch\": {_shown(batch)}; batch must be true, false or a "
                                     "number of hands")
        if type(random) is bool:
            self.said.random = random
        else:
            self.said.random_wrong = (f"its hello says \"random\": {_shown(random)}; random must be true or false "
                                      "(true: it draws randomness of its own)")
        return checks

    def _rules(self, plays: Any) -> Check:
        rules = self.session.rules
        if plays is None:
            return Check("rules", "PASS", f"it plays any rules (its hello lists none), so {rules}")
        if not isinstance(plays, list) or not all(isinstance(r, str) for r in plays):
            return Check("rules", "FAIL", f"its hello says \"rules\": {_shown(plays)}: a list of rule set names")
        if rules not in plays:
            return Check("rules", "FAIL", f"it plays {', '.join(plays) or '(none)'}, not {rules}: add {rules!r} to "
                                          "the rules of its hello, or check it with --rules for one it plays")
        return Check("rules", "PASS", f"it plays {rules}")

    # --- hands -------------------------------------------------------------------------------

    def _arranged(self, answer: dict[str, Any], what: str) -> Arrangement:
        """The arrangement of the cards dealt that ``answer`` gives; ProtocolFault otherwise."""
        if "error" in answer:
            raise _Fault(f"it sent an error reply: {messages.quote(str(answer['error']), 300)}")
        arrangement = messages.declared_arrangement(answer, self.spec.name, what)[1]
        if sorted(int(c) for c in arrangement.cards) != sorted(self.hand):
            raise _Fault(f"it set {format_cards(arrangement.cards)}, not the cards dealt ({format_cards(self.hand)})")
        return arrangement

    def _set_hand(self) -> tuple[Arrangement, float]:
        """HAND asked for: its arrangement and the seconds taken."""
        what = f"hand {HAND}"
        answer, seconds = self.session.request({"type": "arrange", "hand": HAND}, self.spec.decision_timeout, what)
        return self._arranged(answer, what), seconds

    def _one_hand(self) -> Check:
        self.first, seconds = self._set_hand()
        foul = foul_reason(self.first)
        return Check("one hand", "PASS", f"a valid arrangement of the cards dealt "
                                         f"{_timing(seconds, self.spec.decision_timeout)}"
                                         + (f" (it fouls: {foul})" if foul else ""))

    def _again(self) -> Check:
        name = "the same hand again"
        if self.said.random_wrong:
            return Check(name, "FAIL", self.said.random_wrong)
        first = self.first if self.first is not None else self._set_hand()[0]  # asked twice here when it failed
        again, _ = self._set_hand()
        if [set(row) for row in first.rows] == [set(row) for row in again.rows]:  # a row is a set of cards
            return Check(name, "PASS", "set the same way" + (", though its hello says it draws randomness of its own"
                                                             if self.said.random else ""))
        if self.said.random:
            return Check(name, "PASS", "set another way, as its hello says it may (\"random\": true)")
        self.unsteady = True
        return Check(name, "FAIL", f"set {first} then {again}: a bot that draws randomness of its own says "
                                   "\"random\": true in its hello (its plays then cannot be replayed to check a record)")

    def _batch(self) -> Check:
        if self.said.batch_wrong:
            return Check("a batch", "FAIL", self.said.batch_wrong)
        if not self.said.batch:
            return Check("a batch", "SKIP", "its hello offers no batches (\"batch\": true or a number of hands)")
        rng = np.random.default_rng(1)  # a batch of its full size, HAND last, written as it was sent alone
        others = np.array([np.sort(rng.permutation(52)[:13]) for _ in range(self.said.batch - 1)], np.uint8)
        hands = np.concatenate([others.reshape(-1, 13), np.array([[int(c) for c in self.hand]], np.uint8)])
        rows, seconds, limit = self._ask_batch(hands)
        fouls = sum(foul_reason(Arrangement(r[:3], r[3:8], r[8:])) is not None for r in rows.tolist())
        foul = f" ({fouls} of them foul)" if fouls else ""
        other = self._batch_against_one_hand(rows[-1], "in the batch (its last hand)")
        if not other and len(hands) > 1:  # and in a message of one hand, as a run asks too
            other = self._batch_against_one_hand(self._ask_batch(hands[-1:])[0][0], "in a batch of one hand")
        if other:
            return Check("a batch", "FAIL", other)
        return Check("a batch", "PASS", f"{how_many(len(hands), 'valid arrangement')} of the cards dealt, in order, "
                                        f"{_timing(seconds, limit)}{foul}")

    def _ask_batch(self, hands: np.ndarray) -> tuple[np.ndarray, float, float]:
        """The bot's arrangements of ``hands`` asked in one arrange_many message, each checked
        to hold its hand's cards, with the seconds taken and the time limit; a ``_Fault`` otherwise."""
        texts = [format_cards(h.tolist()) for h in hands]
        limit = self.spec.decision_timeout * len(texts)
        what = f"a batch of {how_many(len(texts), 'hand')}"
        answer, seconds = self.session.request({"type": "arrange_many", "hands": texts}, limit, what)
        if "error" in answer:
            raise _Fault(f"it sent an error reply: {messages.quote(str(answer['error']), 300)}")
        arrangements = answer.get("arrangements")
        if isinstance(arrangements, list) and len(arrangements) != len(texts):
            raise _Fault(f"it answered {what} with \"arrangements\" of the wrong length: got "
                         f"{how_many(len(arrangements), 'arrangement')} for {how_many(len(texts), 'hand')} (one a hand, "
                         "in the order of the hands)")
        rows = messages.arrangements_of(answer, hands, texts, self.spec.name, what)
        for row, hand, text in zip(rows, hands, texts):
            if sorted(row.tolist()) != sorted(hand.tolist()):
                raise _Fault(f"it set {format_cards(row.tolist())} for hand {text}, not the cards dealt")
        return rows, seconds, limit

    def _batch_against_one_hand(self, row: np.ndarray, where: str) -> str | None:
        """What is wrong with a batch's arrangement of HAND (``where`` in it) beside the
        one-hand answer: rows of other values from a bot that draws no randomness of its own,
        which would set simulated opponents otherwise than it plays; or None (also when the
        hand was set two ways alone, which "the same hand again" fails)."""
        if self.first is None or self.said.random or self.said.random_wrong or self.unsteady:
            return None
        cards = row.tolist()
        batch = Arrangement(cards[:3], cards[3:8], cards[8:])
        if batch.values() == self.first.values():
            return None
        return (f"it set hand {HAND} as {batch} {where} but as {self.first} alone: a bot that draws no "
                "randomness of its own sets a hand one way alone and in a batch, since simulated opponents "
                "(solve --opponent, bench exploit --bot) are set in batches; or its hello says \"random\": true, or "
                "offers no batches")

    def _error_reply(self) -> Check:
        if self.said.protocol < 2:
            return Check("error reply", "SKIP", "protocol 1 has no error reply")
        limit = self.spec.decision_timeout
        what = f"hand {SHORT_HAND} (12 cards)"
        answer, _ = self.session.request({"type": "arrange", "hand": SHORT_HAND}, limit, what)
        if "error" not in answer:
            return Check("error reply", "FAIL", f"it answered a hand of 12 cards with {messages.answer_quote(answer)}; "
                                                "a request a bot cannot serve gets {\"id\": N, \"error\": \"why\"}")
        try:
            self._set_hand()
        except ProtocolFault as fault:
            earlier = self.failed.get(str(fault))
            said = f"hand {HAND} met the same failure as {earlier} (above)" if earlier else str(fault)
            raise _Fault(f"after its error reply, {said}", keep=_keeps(fault)) from None
        return Check("error reply", "PASS", f"{messages.quote(str(answer['error']), 100)} for a hand of 12 cards, and "
                                            "it went on to the next request")

    def _quit(self) -> Check:
        process = self.session.process
        assert process is not None
        grace = config.QUIT_GRACE
        started = time.monotonic()
        process.ask_to_quit(grace)
        status = process.exit_status(grace)
        if status is None:
            return Check("quit", "FAIL", f"still running {grace:g} s after quit: exit on {{\"type\": \"quit\"}} and "
                                         "at the end of standard input")
        return Check("quit", "PASS", f"exited {_timing(time.monotonic() - started, grace)}, status {status}")
