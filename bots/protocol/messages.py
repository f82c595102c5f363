"""The protocol a bot speaks (docs/protocol.md): what the bench sends, and every answer read
and checked before anyone uses it.

One JSON object a line. The bench says hello (``hello``); ``hello_answer`` and
``accept_hello`` read the bot's answer: the version it speaks, its name and version,
the rule sets it plays, whether it takes hands in batches and whether it draws randomness
of its own. Every request carries an id; ``answer_to`` reads a line as the answer to
one (an answer to an earlier request is late and passed over; an ``error`` reply is a bad
answer), and ``declared_arrangement`` and ``arrangements_of`` check what it holds.
A request that fails ends in a ``ProtocolFault`` of one kind, and each kind has its
budget of faults in a row (``BUDGETS``). Nothing here touches a process: that is
``bots.protocol.transport``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from bots.base import BotError, BotFault
from solver import ROWS, Arrangement, CardError
from solver.documents import JSONRefused, strict_json
from solver.limits import ceiling

PROTOCOL = 2  # the newest version the bench speaks
PROTOCOLS = (1, 2)  # every version it speaks
BATCH_HANDS = int(ceiling("bot_batch"))  # the most hands in one arrange_many message
BUDGETS = {"failed start": 3, "timeout": 5, "bad answer": 10, "crash": 5}  # faults of one kind in a row
PLURALS = {"failed start": "failed starts", "timeout": "timeouts", "bad answer": "bad answers", "crash": "crashes"}
PLAIN = "one line of at most 100 printable characters without '|'"  # a name fit for tables and reports


# --- faults, by kind ------------------------------------------------------------------------


class ProtocolFault(BotFault):
    """A protocol bot failed one request; ``kind`` names its budget (``BUDGETS``)."""

    kind = ""


class Timeout(ProtocolFault):
    kind = "timeout"

    def __init__(self, message: str, keep: bool, late: tuple[float, str, str] | None = None):
        super().__init__(message)
        self.keep = keep  # the process may still be in step (it read the whole request)
        self.late = late  # when the request began, and the words before and after the time of a late answer

    def answered(self, when: float) -> Timeout:
        """The same fault, told of the late answer that came at ``when``.

        Args:
            when: The ``time.monotonic()`` at which the answer to the request came.

        Returns:
            A timeout whose message says how long the answer took against its limit (``late``:
                ``"bot 'b' answered hand X after 1.50 s, over its limit of 1 s (...)"``), or
                this one when it has no ``late``.
        """
        if self.late is None:
            return self
        started, before, after = self.late
        told = Timeout(f"{before} after {when - started:.2f} s, {after}", keep=self.keep)
        told.log = self.log
        return told


class BadAnswer(ProtocolFault):
    kind = "bad answer"

    def __init__(self, message: str, keep: bool = True):
        super().__init__(message)
        self.keep = keep  # the process may go on (it is not in the middle of a line)


class Crash(ProtocolFault):
    kind = "crash"


class StartFailed(ProtocolFault):
    kind = "failed start"


# --- words ----------------------------------------------------------------------------------


def plain(text: str) -> bool:
    """Whether ``text`` can name a bot in a table: see ``PLAIN``.

    Args:
        text: A name or version a bot gives.

    Returns:
        True for at most 100 printable characters without ``|``.
    """
    return len(text) <= 100 and text.isprintable() and "|" not in text


def quote(data: bytes | str, limit: int = 200) -> str:
    """Text a bot sent, quoted for a message.

    Args:
        data: The text, or bytes read as UTF-8 (a byte that is not, replaced).
        limit: The most characters kept; ``...`` follows a text cut.

    Returns:
        The ``repr`` of the text, cut.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


def answer_quote(answer: dict[str, Any]) -> str:
    """An answer quoted without its id: ids count the requests of one process, so a fault's
    words, which the records keep, must not depend on how many came before it.

    Args:
        answer: The answer as read.

    Returns:
        The answer without ``id``, as JSON, quoted by ``quote``.
    """
    return quote(json.dumps({key: value for key, value in answer.items() if key != "id"}))


def encode(message: dict[str, Any]) -> bytes:
    """A message as the line that carries it.

    Args:
        message: The message, a JSON object.

    Returns:
        The message as JSON on one line, ended by a newline, in UTF-8.
    """
    return (json.dumps(message) + "\n").encode()


# --- the hello ------------------------------------------------------------------------------


def hello(rules_name: str) -> bytes:
    """The bench's hello: the newest version it speaks and the rule set of the game.

    Args:
        rules_name: The name of the rule set of the game.

    Returns:
        The hello, as the line that carries it.
    """
    return encode({"type": "hello", "protocol": PROTOCOL, "rules": rules_name})


@dataclass(frozen=True)
class Hello:
    """What a bot said of itself in its answer to the hello."""

    name: str
    version: str | None
    protocol: int
    batch: int  # the most hands it takes in one message (0: one at a time)
    random: bool  # it draws randomness of its own


# What Python's JSON decoder says is wrong ("Expecting value: line 1 column 1 (char 0)"), in words
# a bot's author reads without knowing the decoder; {at} is the character, counted from 1.
_DECODER = re.compile(r"^(?P<said>.+): line \d+ column \d+ \(char (?P<char>\d+)\)$")
_PLAIN_WORDS = {
    "Expecting value": "a JSON value was expected at character {at}",
    "Expecting property name enclosed in double quotes": "a name in double quotes was expected at character {at}",
    "Expecting ':' delimiter": "a ':' was expected at character {at}",
    "Expecting ',' delimiter": "a ',' was expected at character {at}",
    "Unterminated string starting at": "the text that starts at character {at} has no closing quote",
    "Invalid control character at": "a control character inside a text at character {at}: write it escaped "
                                    "(\\n, \\t, \\u0001)",
    "Invalid \\escape": "an escape JSON does not have at character {at}",
    "Invalid \\uXXXX escape": "an escape JSON does not have at character {at}",
    "Extra data": "more follows the JSON value, from character {at}: one message a line",
    "Illegal trailing comma before end of object": "a comma before the end of an object at character {at}",
    "Illegal trailing comma before end of array": "a comma before the end of an array at character {at}",
}


def plain_reason(reason: str, text: str) -> str:
    """Why ``text`` is not JSON, in plain words: the JSON decoder's words (``"Expecting value:
    line 1 column 1 (char 0)"``) as what was expected or found, and where, counting characters
    from 1; any other reason (``solver.documents.JSONRefused.reason``) as it is.

    Args:
        reason: The reason ``strict_json`` gave.
        text: The text it read.

    Returns:
        The reason in plain words.

    Examples:
        >>> plain_reason("Expecting ',' delimiter: line 1 column 4 (char 3)", "[1 2]")
        "a ',' was expected at character 4"
        >>> plain_reason("Expecting value: line 1 column 1 (char 0)", "")
        'the line is empty'
    """
    if not text.strip():
        return "the line is empty"
    found = _DECODER.match(reason)
    if not found:
        return reason
    at = int(found["char"]) + 1
    words = _PLAIN_WORDS.get(found["said"])
    return words.format(at=at) if words else f"{found['said'][:1].lower()}{found['said'][1:]}, at character {at}"


def cut_short(text: str, reason: str) -> bool:
    """Whether ``text`` looks like the first line of JSON written over many lines (pretty-printed,
    ``json.dumps(..., indent=2)``): it starts an object or array and ends before its JSON does.

    Args:
        text: A line a bot wrote.
        reason: Why ``strict_json`` refused it.

    Returns:
        True when the text starts with ``{`` or ``[`` and the decoder ran out of text before
            the value was whole.

    Examples:
        >>> cut_short("{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)")
        True
        >>> cut_short("{oops", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)")
        False
    """
    found = _DECODER.match(reason)
    if found is None:
        return False
    return text.strip()[:1] in ("{", "[") and int(found["char"]) >= len(text.rstrip())


def parse_object(line: bytes, name: str, what: str, fault: type[ProtocolFault] = BadAnswer) -> dict[str, Any]:
    """The JSON object a line holds (read by ``solver.documents.strict_json``).

    Args:
        line: The line, without its newline.
        name: The bot's name, for the message.
        what: What the line answers, for the message.
        fault: The kind of fault raised when the line is not a JSON object.

    Returns:
        The object.

    Raises:
        ProtocolFault: Of the kind ``fault`` (``BadAnswer`` by default): the line is not JSON
            (said in plain words, ``plain_reason``; a line that starts JSON written over many
            lines, ``cut_short``, is told that a message is one line), or its JSON is not an object.
    """
    try:
        answer = strict_json(line, "an answer")
    except JSONRefused as error:
        text = line.decode("utf-8", "replace")
        if cut_short(text, error.reason):
            raise fault(f"bot '{name}' answered {what} with a line that is not JSON: {quote(line)} (it ends before "
                        "its JSON does); each message is one line of JSON: write it without newlines (no indent)"
                        ) from None
        raise fault(f"bot '{name}' answered {what} with a line that is not JSON: {quote(line)} "
                    f"({plain_reason(error.reason, text)}); its standard output is for protocol lines only: write "
                    "anything else to its standard error") from None
    if not isinstance(answer, dict):
        raise fault(f"bot '{name}' answered {what} with {quote(line)}, not a JSON object")
    return answer


def hello_answer(line: bytes, name: str) -> dict[str, Any]:
    """The answer to the hello as an object.

    Args:
        line: The bot's first line, without its newline.
        name: The bot's name, for the message.

    Returns:
        The answer, not checked further (``accept_hello`` does).

    Raises:
        StartFailed: The line is not a JSON object.
        BotError: The bot refuses to play (an ``error`` reply).
    """
    answer = parse_object(line, name, "the hello", StartFailed)
    if "error" in answer:
        raise BotError(f"protocol bot {name!r} refused to play: {quote(str(answer['error']), 300)}")
    return answer


def accept_hello(answer: dict[str, Any], name: str, rules_name: str) -> Hello:
    """What the bot said of itself, checked.

    Args:
        answer: The answer to the hello (``hello_answer``).
        name: The bot's name from its spec, for the message and when the answer gives none.
        rules_name: The name of the rule set of the game; the bot's ``rules``, when it lists
            any, must hold it.

    Returns:
        The hello: ``protocol`` 1 when left out, ``batch`` as a number of hands (``true``:
            ``BATCH_HANDS``, a number: at most that), ``random`` False when left out.

    Raises:
        BotError: The answer is of the wrong type, speaks a version this bench does not,
            gives a name or version that is not ``PLAIN`` text or rule sets that leave out
            ``rules_name``, or a bad ``batch`` or ``random``; the message names what is wrong.
    """

    def refuse(message: str) -> BotError:
        return BotError(f"protocol bot {name!r} {message}")

    if answer.get("type") != "hello":
        raise refuse(f"answered the hello with {quote(json.dumps(answer))}; a hello answer has \"type\": \"hello\"")
    protocol = answer.get("protocol", 1)
    if type(protocol) is not int or protocol not in PROTOCOLS:
        raise refuse(f"speaks protocol {protocol!r}; this bench speaks {' and '.join(map(str, PROTOCOLS))}")
    said, version = answer.get("name", name), answer.get("version")
    if not isinstance(said, str) or (version is not None and not isinstance(version, str)) \
            or not all(plain(text) for text in (said, version or "")):
        raise refuse(f"answered the hello with {quote(json.dumps(answer))}; name and version must be text, {PLAIN}")
    plays = answer.get("rules")
    if plays is not None:
        if not isinstance(plays, list) or not all(isinstance(r, str) for r in plays):
            raise refuse(f"answered the hello with rules {quote(json.dumps(plays))}; it must be a list of rule set names")
        if rules_name not in plays:
            raise refuse(f"plays the rules {quote(', '.join(plays), 300)[1:-1] or '(none)'}, not {rules_name}")
    return Hello(said or name, version, protocol, _batch_size(answer, refuse), _random(answer, refuse))


def _batch_size(answer: dict[str, Any], refuse: Any) -> int:
    batch = answer.get("batch", False)
    if type(batch) is bool:
        return BATCH_HANDS if batch else 0
    if type(batch) is int and batch >= 0:
        return min(batch, BATCH_HANDS)
    raise refuse(f"answered the hello with batch {quote(json.dumps(batch))}; it must be true, false or a number of hands")


def _random(answer: dict[str, Any], refuse: Any) -> bool:
    random = answer.get("random", False)
    if type(random) is not bool:
        raise refuse(f"answered the hello with random {quote(json.dumps(random))}; it must be true or false")
    return random


# --- requests and their answers ---------------------------------------------------------------


def answer_to(line: bytes, request: int, name: str, what: str) -> dict[str, Any] | None:
    """The answer ``line`` gives to request number ``request``.

    Args:
        line: A line the bot wrote, without its newline.
        request: The id of the request waited for.
        name: The bot's name, for the message.
        what: What was asked (``"hand AS KS ..."``, ``"a batch of 5 hands"``), for the message.

    Returns:
        The answer; None when it answers an earlier request (late or repeated, passed over).

    Raises:
        BadAnswer: The line is not a JSON object, carries another id, or reports an error. An
            id the bench never sent is told by how far it is from the request's (``"an id 1 more
            than its request's"``), or as itself when no request has it (0 or less): never by
            the request's own id, which counts the requests to one process (a record keeps the
            words, and must not depend on how deals were shared among workers).
    """
    answer = parse_object(line, name, what)
    number = answer.get("id")
    if type(number) is int and 0 < number < request:
        return None
    if type(number) is not int or number != request:
        how = (f"id {number!r}, not a whole number" if type(number) is not int else
               f"an id {number - request} more than its request's (an answer carries the id of the request it "
               "answers)" if number > request else f"id {number}, which no request has (ids count from 1)")
        raise BadAnswer(f"bot '{name}' answered {what} with {how}: {answer_quote(answer)}")
    if "error" in answer:
        raise BadAnswer(f"bot '{name}' reported an error for {what}: {quote(str(answer['error']), 300)}")
    return answer


def late_id(line: bytes) -> int | None:
    """The id of a late answer, read while waiting for it.

    Args:
        line: A line the bot wrote, without its newline.

    Returns:
        The answer's id; None when the line is not a JSON object or has no whole-number id.
    """
    try:
        number = strict_json(line, "a late answer").get("id")
    except (JSONRefused, AttributeError):
        return None
    return number if type(number) is int else None


def arrangement_of(answer: dict[str, Any], name: str, what: str) -> Arrangement:
    """The arrangement an answer gives in its front, middle and back.

    Args:
        answer: The answer (or an entry of a batch answer).
        name: The bot's name, for the message.
        what: What was asked (``"hand AS KS ..."``, ``"a batch of 5 hands"``), for the message.

    Returns:
        The arrangement; whether it holds the cards dealt is not checked here.

    Raises:
        BadAnswer: The rows are missing, are not text, or are not an arrangement of 13 cards.
    """
    rows: list[str] = [answer.get(row) for row in ROWS]  # type: ignore[misc]
    if not all(isinstance(r, str) for r in rows):
        raise BadAnswer(f"bot '{name}' answered {what} without front, middle and back: {answer_quote(answer)}")
    try:
        return Arrangement(*rows)
    except CardError as error:
        raise BadAnswer(f"bot '{name}' answered {what} with rows that are not an arrangement ({error}): "
                        f"{answer_quote(answer)}") from None


def declared_arrangement(answer: dict[str, Any], name: str, what: str) -> tuple[bool, Arrangement]:
    """An ``arrange`` answer: whether it declares a natural and its arrangement.

    Args:
        answer: The answer to an ``arrange`` request.
        name: The bot's name, for the message.
        what: What was asked (``"hand AS KS ..."``, ``"a batch of 5 hands"``), for the message.

    Returns:
        ``declare`` (false when left out) and the arrangement (``arrangement_of``).

    Raises:
        BadAnswer: ``declare`` is not true or false, or the arrangement is bad.
    """
    declare = answer.get("declare", False)
    if type(declare) is not bool:
        raise BadAnswer(f"bot '{name}' answered {what} with declare {quote(json.dumps(declare))}; "
                        f"it must be true or false")
    return declare, arrangement_of(answer, name, what)


def arrangements_of(answer: dict[str, Any], hands: np.ndarray, texts: list[str], name: str, what: str) -> np.ndarray:
    """An ``arrange_many`` answer: one arrangement per hand, in order.

    Args:
        answer: The answer to an ``arrange_many`` request.
        hands: The hands asked for, ``(n, 13)`` card ids; the result takes their shape and type.
        texts: The hands as the request sent them, one per hand.
        name: The bot's name, for the message.
        what: What was asked (``"hand AS KS ..."``, ``"a batch of 5 hands"``), for the message.

    Returns:
        The arrangements, ``(n, 13)``, each row set front | middle | back; whether each holds
            the cards of its hand is not checked here.

    Raises:
        BadAnswer: ``arrangements`` is not a list (the answer quoted), or not one entry per
            hand (how many it holds, for how many hands), or an entry is not an arrangement.
    """
    arrangements = answer.get("arrangements")
    if not isinstance(arrangements, list):
        raise BadAnswer(f"bot '{name}' answered {what} with {answer_quote(answer)}; "
                        f"it needs \"arrangements\", a list of {len(texts)}")
    if len(arrangements) != len(texts):
        got, asked = len(arrangements), len(texts)
        raise BadAnswer(f"bot '{name}' answered {what} with {got} arrangement{'s' if got != 1 else ''} for {asked} "
                        f"hand{'s' if asked != 1 else ''}; it needs one arrangement per hand, in the order of the hands")
    out = np.empty_like(hands)
    for i, (text, entry) in enumerate(zip(texts, arrangements)):
        if not isinstance(entry, dict):
            raise BadAnswer(f"bot '{name}' answered hand {i} of {what} with {quote(json.dumps(entry))}")
        out[i] = arrangement_of(entry, name, f"hand {text}").cards
    return out
