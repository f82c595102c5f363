"""The protocol reader, called directly (``bots.protocol.messages``): every hello and every
answer a bot can give, read and checked as docs/protocol.md says, word for word where a
message is what the user reads. No process is started here; tests/test_protocol_faults.py
plays the same answers through real bot processes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from bots.base import BotError
from bots.protocol import messages
from bots.protocol.messages import (
    BATCH_HANDS,
    BUDGETS,
    BadAnswer,
    Crash,
    Hello,
    StartFailed,
    Timeout,
    accept_hello,
    answer_quote,
    answer_to,
    arrangement_of,
    arrangements_of,
    declared_arrangement,
    hello,
    hello_answer,
    late_id,
    parse_object,
    plain,
    quote,
)
from solver import parse_hand

ROOT = Path(__file__).resolve().parents[1]
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
ROWS = {"front": "9H 9D 2C", "middle": "8C 7C 6D 5H 4S", "back": "AS KS QS JS TS"}


def test_the_budgets_are_those_the_docs_give():
    table = re.findall(r"^\| (failed start|timeout|bad answer|crash) \|.*\| (\d+) \|$",
                       (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8"), re.M)
    assert dict((kind, int(n)) for kind, n in table) == BUDGETS == {"failed start": 3, "timeout": 5,
                                                                    "bad answer": 10, "crash": 5}
    assert {kind: cls.kind for kind, cls in [("timeout", Timeout), ("bad answer", BadAnswer), ("crash", Crash),
                                               ("failed start", StartFailed)]} == {k: k for k in BUDGETS}


def test_a_timeout_and_a_bad_answer_say_whether_the_process_is_kept():
    assert Timeout("t", keep=True).keep and not Timeout("t", keep=False).keep
    assert BadAnswer("b").keep and not BadAnswer("b", keep=False).keep


@pytest.mark.parametrize(("text", "ok"), [
    ("a" * 100, True), ("a" * 101, False), ("", True), ("my bot 1.0", True), ("a|b", False), ("a\nb", False),
    ("tab\there", False), ("é-bot", True),
])
def test_a_plain_name_is_one_printable_line_of_at_most_100_characters_without_a_bar(text, ok):
    assert plain(text) is ok


def test_quote_cuts_at_its_limit_and_says_so():
    assert quote("a" * 200) == repr("a" * 200)
    assert quote("a" * 201) == repr("a" * 200 + "...")
    assert quote("abcdef", 3) == repr("abc...")
    assert quote("abc", 3) == repr("abc")
    assert quote(b"caf\xc3\xa9 \xff") == repr("café \ufffd")


def test_an_answer_is_quoted_without_its_id():
    assert answer_quote({"id": 7, "front": "x"}) == repr('{"front": "x"}')


def test_the_hello_is_one_line_naming_the_newest_version_and_the_rules():
    assert hello("2-4+royalties") == b'{"type": "hello", "protocol": 2, "rules": "2-4+royalties"}\n'
    assert messages.encode({"a": [1]}) == b'{"a": [1]}\n'


# --- reading a line -------------------------------------------------------------------------


def test_a_line_that_is_not_json_is_the_fault_asked_for():
    with pytest.raises(BadAnswer) as bad:
        parse_object(b"{oops", "b", "hand X")
    assert str(bad.value) == ("bot 'b' answered hand X with a line that is not JSON: '{oops' (a name in double quotes "
                              "was expected at character 2); its standard output is for protocol lines only: write "
                              "anything else to its standard error")
    with pytest.raises(StartFailed, match=r"^bot 'b' answered the hello with a line that is not JSON: 'NaN' \("):
        parse_object(b"NaN", "b", "the hello", StartFailed)


@pytest.mark.parametrize("line", [b"{", b"[", b"  {", b"{\r", b'{"type": "hello",', b'{"id": 1, "front": "9H 9D 2C"'])
def test_a_line_that_starts_json_of_many_lines_says_to_write_one_line(line):
    """A bot that pretty-prints its JSON (``json.dumps(..., indent=2)``) sends ``{`` alone on its
    first line: the message says a message is one line, not that standard output is for
    protocol lines only."""
    with pytest.raises(StartFailed) as bad:
        parse_object(line, "b", "the hello", StartFailed)
    assert str(bad.value) == (f"bot 'b' answered the hello with a line that is not JSON: {quote(line)} (it ends "
                              "before its JSON does); each message is one line of JSON: write it without newlines "
                              "(no indent)")


@pytest.mark.parametrize("line, reason", [
    (b"", "the line is empty"),
    (b"   ", "the line is empty"),
    (b"hello", "a JSON value was expected at character 1"),
    (b"[1 2]", "a ',' was expected at character 4"),
    (b'{"a" 1}', "a ':' was expected at character 6"),
    (b'"abc', "the text that starts at character 1 has no closing quote"),
    (b'"a\x01"', "a control character inside a text at character 3: write it escaped (\\n, \\t, \\u0001)"),
    (b'"\\q"', "an escape JSON does not have at character 2"),
    (b'{"a": 1} x', "more follows the JSON value, from character 10: one message a line"),
    (b'{"a": 1}{"b": 2}', "more follows the JSON value, from character 9: one message a line"),
])
def test_what_is_wrong_with_a_line_is_said_in_plain_words(line, reason):
    """Not the decoder's "Expecting value: line 1 column 1 (char 0)": what is wrong, and where
    (counting characters from 1)."""
    with pytest.raises(BadAnswer) as bad:
        parse_object(line, "b", "hand X")
    assert f"with a line that is not JSON: {quote(line)} ({reason}); its standard output is for" in str(bad.value)
    assert not re.search(r"Expecting|line \d+ column|\(char \d", str(bad.value))


@pytest.mark.parametrize("line", [b"[]", b"7", b'"text"', b"null"])
def test_json_that_is_not_an_object_is_a_bad_answer(line):
    with pytest.raises(BadAnswer) as bad:
        parse_object(line, "b", "hand X")
    assert str(bad.value) == f"bot 'b' answered hand X with {line.decode()!r}, not a JSON object"


def test_an_error_reply_to_the_hello_refuses_to_play_and_says_why():
    with pytest.raises(BotError) as refused:
        hello_answer(b'{"type": "hello", "error": "' + b"w" * 400 + b'"}', "b")
    assert str(refused.value) == f"protocol bot 'b' refused to play: {'w' * 300 + '...'!r}"
    with pytest.raises(StartFailed):
        hello_answer(b"[]", "b")
    assert hello_answer(b'{"type": "hello"}', "b") == {"type": "hello"}


# --- the hello answer ---------------------------------------------------------------------


def _accept(**answer) -> Hello:
    return accept_hello({"type": "hello"} | answer, "file-name", "basic")


def _refusal(**answer) -> str:
    with pytest.raises(BotError) as refused:
        _accept(**answer)
    return str(refused.value)


def test_a_hello_that_says_nothing_takes_every_default_the_docs_give():
    assert _accept() == Hello(name="file-name", version=None, protocol=1, batch=0, random=False)


def test_a_hello_that_says_everything_is_taken_as_said():
    assert _accept(name="mine", version="1.2", protocol=2, rules=["basic", "2-4"], batch=True, random=True) == \
        Hello(name="mine", version="1.2", protocol=2, batch=BATCH_HANDS, random=True)
    assert _accept(name="") == Hello(name="file-name", version=None, protocol=1, batch=0, random=False)


@pytest.mark.parametrize(("batch", "hands"), [(False, 0), (True, BATCH_HANDS), (0, 0), (1, 1), (64, 64),
                                               (BATCH_HANDS, BATCH_HANDS), (BATCH_HANDS + 1, BATCH_HANDS)])
def test_batch_is_true_false_or_a_number_of_hands_up_to_the_ceiling(batch, hands):
    assert _accept(batch=batch).batch == hands


@pytest.mark.parametrize("batch", [-1, 1.5, "yes", None, [1]])
def test_any_other_batch_is_refused(batch):
    assert _refusal(batch=batch) == (f"protocol bot 'file-name' answered the hello with batch {json.dumps(batch)!r}; "
                                     "it must be true, false or a number of hands")


@pytest.mark.parametrize("random", [1, 0, "true", None])
def test_random_is_true_or_false(random):
    assert _refusal(random=random) == (f"protocol bot 'file-name' answered the hello with random "
                                       f"{json.dumps(random)!r}; it must be true or false")


def test_a_hello_of_another_type_is_refused():
    with pytest.raises(BotError) as refused:
        accept_hello({"type": "arrange"}, "b", "basic")
    assert str(refused.value) == ("protocol bot 'b' answered the hello with '{\"type\": \"arrange\"}'; "
                                  "a hello answer has \"type\": \"hello\"")


@pytest.mark.parametrize("protocol", [0, 3, True, 2.0, "2", None])
def test_a_version_the_bench_does_not_speak_is_refused(protocol):
    assert _refusal(protocol=protocol) == f"protocol bot 'file-name' speaks protocol {protocol!r}; this bench speaks 1 and 2"


@pytest.mark.parametrize("fields", [{"name": 5}, {"version": 1.0}, {"name": "a" * 101}, {"version": "1|2"},
                                    {"name": "two\nlines"}])
def test_a_name_or_version_that_is_not_plain_text_is_refused(fields):
    assert _refusal(**fields) == (f"protocol bot 'file-name' answered the hello with "
                                  f"{quote(json.dumps({'type': 'hello'} | fields))}; name and version must be text, "
                                  f"{messages.PLAIN}")


def test_rules_are_a_list_of_names_that_holds_the_game_s():
    assert _refusal(rules="basic") == ("protocol bot 'file-name' answered the hello with rules '\"basic\"'; "
                                       "it must be a list of rule set names")
    assert _refusal(rules=["basic", 5]).endswith("it must be a list of rule set names")
    assert _refusal(rules=["1-6", "2-4"]) == "protocol bot 'file-name' plays the rules 1-6, 2-4, not basic"
    assert _refusal(rules=[]) == "protocol bot 'file-name' plays the rules (none), not basic"


# --- answers to requests --------------------------------------------------------------------


def test_the_answer_to_the_request_is_taken():
    assert answer_to(b'{"id": 3, "front": "x"}', 3, "b", "hand X") == {"id": 3, "front": "x"}


@pytest.mark.parametrize("number", [1, 2])
def test_an_answer_to_an_earlier_request_is_late_and_passed_over(number):
    assert answer_to(json.dumps({"id": number}).encode(), 3, "b", "hand X") is None


@pytest.mark.parametrize("number, said", [
    (4, "with an id 1 more than its request's (an answer carries the id of the request it answers)"),
    (99, "with an id 96 more than its request's (an answer carries the id of the request it answers)"),
    (0, "with id 0, which no request has (ids count from 1)"),
    (-1, "with id -1, which no request has (ids count from 1)"),
])
def test_an_id_the_bench_never_sent_is_a_bad_answer_that_says_how_it_is_wrong(number, said):
    """The id the bot sent, told against its request's: a bot that adds one to the id is told
    so, in words that do not depend on how many requests came before (a record keeps them)."""
    with pytest.raises(BadAnswer) as bad:
        answer_to(json.dumps({"id": number, "front": "x"}).encode(), 3, "b", "hand X")
    assert str(bad.value) == f"bot 'b' answered hand X {said}: '{{\"front\": \"x\"}}'"
    if number > 0:
        with pytest.raises(BadAnswer) as later:
            answer_to(json.dumps({"id": number + 10, "front": "x"}).encode(), 13, "b", "hand X")
        assert str(later.value) == str(bad.value)


@pytest.mark.parametrize("number", [True, 3.0, "3", None])
def test_an_id_that_is_not_a_whole_number_is_a_bad_answer(number):
    answer = {"front": "x"} if number is None else {"id": number, "front": "x"}
    with pytest.raises(BadAnswer) as bad:
        answer_to(json.dumps(answer).encode(), 3, "b", "hand X")
    assert str(bad.value) == f"bot 'b' answered hand X with id {number!r}, not a whole number: '{{\"front\": \"x\"}}'"


def test_an_error_reply_is_a_bad_answer_that_quotes_it():
    with pytest.raises(BadAnswer) as bad:
        answer_to(json.dumps({"id": 3, "error": "e" * 301}).encode(), 3, "b", "hand X")
    assert str(bad.value) == f"bot 'b' reported an error for hand X: {'e' * 300 + '...'!r}"
    assert bad.value.keep


@pytest.mark.parametrize(("line", "number"), [(b'{"id": 4}', 4), (b'{"id": 0}', 0), (b'{"id": "4"}', None),
                                              (b"[4]", None), (b"not json", None), (b'{"front": 1}', None),
                                              (b'{"id": true}', None)])
def test_a_late_answer_s_id_is_read_when_it_has_one(line, number):
    assert late_id(line) == number


def test_an_arrangement_is_three_rows_of_the_cards():
    assert str(arrangement_of(ROWS, "b", "hand X")) == "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"
    with pytest.raises(BadAnswer) as bad:
        arrangement_of({"front": "9H 9D 2C", "middle": 5, "back": "AS"}, "b", "hand X")
    assert str(bad.value) == ("bot 'b' answered hand X without front, middle and back: "
                              "'{\"front\": \"9H 9D 2C\", \"middle\": 5, \"back\": \"AS\"}'")
    with pytest.raises(BadAnswer, match=r"^bot 'b' answered hand X with rows that are not an arrangement \(.+\): '\{"):
        arrangement_of(ROWS | {"front": "9H 9D"}, "b", "hand X")


@pytest.mark.parametrize(("declare", "said"), [(None, False), (False, False), (True, True)])
def test_declare_is_true_or_false_and_false_when_left_out(declare, said):
    answer = ROWS if declare is None else ROWS | {"declare": declare}
    assert declared_arrangement(answer, "b", "hand X")[0] is said


@pytest.mark.parametrize("declare", [1, 0, "true", None])
def test_any_other_declare_is_a_bad_answer(declare):
    with pytest.raises(BadAnswer) as bad:
        declared_arrangement(ROWS | {"declare": declare}, "b", "hand X")
    assert str(bad.value) == f"bot 'b' answered hand X with declare {json.dumps(declare)!r}; it must be true or false"


def _hands(n: int) -> tuple[np.ndarray, list[str]]:
    return np.array([[int(c) for c in parse_hand(HAND)]] * n, np.uint8), [HAND] * n


def test_a_batch_answer_is_one_arrangement_a_hand_in_order():
    hands, texts = _hands(2)
    flipped = {"front": "9H 9D 8C", "middle": "2C 7C 6D 5H 4S", "back": "AS KS QS JS TS"}
    out = arrangements_of({"arrangements": [ROWS, flipped]}, hands, texts, "b", "a batch")
    assert out.shape == hands.shape and out.dtype == hands.dtype
    assert [sorted(row) for row in out.tolist()] == [sorted(hands[0].tolist())] * 2
    assert out[0].tolist() != out[1].tolist()


@pytest.mark.parametrize("arrangements", [None, "x", {"front": "x"}])
def test_a_batch_answer_without_a_list_is_a_bad_answer(arrangements):
    hands, texts = _hands(2)
    answer = {"id": 1} if arrangements is None else {"id": 1, "arrangements": arrangements}
    with pytest.raises(BadAnswer) as bad:
        arrangements_of(answer, hands, texts, "b", "a batch")
    assert str(bad.value) == (f"bot 'b' answered a batch with {answer_quote(answer)}; "
                              "it needs \"arrangements\", a list of 2")


@pytest.mark.parametrize("arrangements, got", [([ROWS], "1 arrangement"), ([ROWS] * 3, "3 arrangements"),
                                               ([], "0 arrangements")])
def test_a_batch_answer_of_another_length_says_how_many_it_got(arrangements, got):
    hands, texts = _hands(2)
    with pytest.raises(BadAnswer) as bad:
        arrangements_of({"id": 1, "arrangements": arrangements}, hands, texts, "b", "a batch of 2 hands")
    assert str(bad.value) == (f"bot 'b' answered a batch of 2 hands with {got} for 2 hands; it needs one "
                              "arrangement per hand, in the order of the hands")


def test_an_entry_of_a_batch_that_is_not_an_object_is_named_by_its_place():
    hands, texts = _hands(2)
    with pytest.raises(BadAnswer) as bad:
        arrangements_of({"arrangements": [ROWS, [1]]}, hands, texts, "b", "a batch")
    assert str(bad.value) == "bot 'b' answered hand 1 of a batch with '[1]'"
    with pytest.raises(BadAnswer, match=f"^bot 'b' answered hand {HAND} without front, middle and back"):
        arrangements_of({"arrangements": [ROWS, {"front": 1}]}, hands, texts, "b", "a batch")


# --- the error a crashed bot reported (bots.protocol.transport.error_line) -----------------------


@pytest.mark.parametrize("stderr, said", [
    ("Traceback (most recent call last):\n  File \"/b/bot.py\", line 3, in <module>\n    d[1]\nKeyError: 1\n\n"
     "During handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n"
     "  File \"/b/bot.py\", line 5, in <module>\n    raise ValueError(\"bad\")\nValueError: bad\n",
     "ValueError: bad (at /b/bot.py:5)"),  # the exception that ended it, not the first one
    ("Traceback (most recent call last):\n  File \"/home/me/bot.py\", line 7, in <module>\n    json.loads(line)\n"
     "  File \"/usr/lib/python3.11/json/decoder.py\", line 355, in raw_decode\n    raise JSONDecodeError()\n"
     "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n",
     "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0) (at /home/me/bot.py:7)"),  # its own code
    ("goroutine 1 [running]:\npanic: runtime error: index out of range [13]\n\ngoroutine 1 [running]:\nmain.main()\n"
     "\t/home/me/bot/main.go:12 +0x1d\n", "panic: runtime error: index out of range [13] (at /home/me/bot/main.go:12)"),
    ("thread 'main' panicked at src/main.rs:5:14:\ncalled `Option::unwrap()` on a `None` value\nnote: run with\n",
     "thread 'main' panicked at src/main.rs:5:14: called `Option::unwrap()` on a `None` value"),
    ("Exception in thread \"main\" java.lang.IllegalStateException: no hand\n\tat Bot.play(Bot.java:22)\n",
     "Exception in thread \"main\" java.lang.IllegalStateException: no hand (at Bot.java:22)"),
    ("/home/me/bot.js:3\n    throw new Error(\"boom\");\n    ^\n\nError: boom\n"
     "    at Object.<anonymous> (/home/me/bot.js:3:11)\n",
     "Error: boom (at /home/me/bot.js:3)"),
    ("bot: error: cannot parse hand\n", "bot: error: cannot parse hand"),
    ("loading weights\nready\n", None),
])
def test_the_error_a_bot_reported_is_found_as_runtimes_print_it(stderr, said):
    from bots.protocol.transport import error_line

    assert error_line(stderr) == said
