"""A protocol bot that misbehaves as told by its first argument, for the tests.

It sets hands as sorted_bot does, and misbehaves only on hands that hold the ace of spades
(at every stage for the start-up modes). Its second argument is a flag file: modes that
misbehave once remember it there. ``HELLO`` in the environment, a JSON object, is added to
its hello; ``SLEEP`` (seconds, default 60) is how long the slow modes take.

crash: exits on every such hand; crash-once: on the first one only; panic: writes a panic
to its standard error and exits with status 2; escapes: writes terminal escape sequences
(``ESCAPES``) and bytes that are not UTF-8 there and exits with status 3; hang: never answers such hands (reads on);
slow: answers them after SLEEP seconds; slow-once: the first one only; garbage: a line that
is not JSON; garbage-bytes: bytes that are not UTF-8; deep: JSON nested too deep to read;
json-nan, json-overflow, json-twice, json-deep, json-nested: the answer with NaN, 1e999, a name
given twice (the front, the right one last), arrays 100,000 or 100 deep in it;
huge: a 3 MiB line, then the answer; flood-stdout: an endless line; stale-flood: answers to
the previous request, endlessly; no-newline: the answer with no end of line; wrong-id:
another id; bool-id: ``true`` as its id; twice: every answer twice, to every hand;
stale-first: an answer to the previous request before each answer; error: an error reply;
array: ``[]``, JSON that is not an object;
cheat: other cards; bad-rows: a front of one card; declare-text: "yes" as its declare;
close-stdout: closes its output and sleeps; close-stdin: the first
process closes its input before its hello, and sleeps; fork: leaves a child that
holds its pipes, and exits; silent: never says hello; unflushed: writes its hello and never flushes
its standard output; unended: writes its hello without a newline; traceback: raises a ValueError on
such hands (a Python traceback on its standard error); unsteady: sets every hand in a random order of its
own (a legal arrangement); no-error-reply: answers a hand that is not 13 cards with rows, where every other
mode sends an error reply; slow-hello: every process but the first sleeps SLEEP seconds before its
hello; slow-start: every process sleeps SLEEP seconds before it reads anything; pretty: writes its hello
and answers as pretty-printed JSON (``indent=2``), many lines each; panic-start: panics before its hello;
flood: writes 100 MB to its standard error before its hello; deaf: stops reading after its
hello (it offers batches); any other mode answers batches, with an error reply when one
holds more hands than its hello's ``batch`` number; stubborn: ignores SIGTERM and quit (it notes the quit in the
flag file); slow-quit: on quit, waits SLEEP seconds, notes it in the flag file, and exits; setsid: before its hello,
starts ``setsid sleep 1000``, a child in a session of its own; double-fork: a grandchild in a session of its own
whose parent exits at once (it is re-parented). Those two add the pid of what they start to the flag file, a line
each."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
FLAG = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("flag")
SLEEP = float(os.environ.get("SLEEP", "60"))
RANKS = "23456789TJQKA"
ESCAPES = ("\x1b[2J\x1b[H\x1b]0;window title\x07\x1b]52;c;Y2xpcGJvYXJk\x07\x9b31m\x9d2;title\x9c"
           "\u202egnp.exe\u2028\x00\x7f\r\n")  # clear, title, clipboard (OSC 52), C1 CSI and OSC, bidi


def arrange(hand: str) -> dict:
    cards = sorted(hand.split(), key=lambda c: RANKS.index(c[0]))
    return {"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}


def say(data) -> None:
    sys.stdout.write(data if isinstance(data, str) else json.dumps(data, indent=2 if MODE == "pretty" else None) + "\n")
    sys.stdout.flush()


def once() -> bool:
    """True the first time it is asked (the flag file remembers)."""
    if FLAG.exists():
        return False
    FLAG.write_text("done")
    return True


def set_rows(message: dict) -> dict:
    raise ValueError(f"no rows for {message['hand'][:5]}")  # a bug: a Python traceback on standard error


def misbehave(message: dict, answer: dict) -> bool:
    """Misbehave on this hand; True when the answer is given (or is not to be)."""
    if MODE == "crash" or (MODE == "crash-once" and once()):
        sys.exit(7)
    if MODE == "traceback":
        set_rows(message)
    if MODE == "escapes":
        sys.stderr.write(ESCAPES)
        sys.stderr.flush()
        sys.stderr.buffer.write(b"\xff\xc3")  # not UTF-8, and a character cut short
        sys.stderr.flush()
        sys.exit(3)
    if MODE == "panic":
        sys.stderr.write("goroutine 1 [running]:\npanic: runtime error: index out of range [13] with length 13\n")
        sys.stderr.flush()
        sys.exit(2)
    if MODE == "hang":
        sys.stdin.read()
        sys.exit(0)
    if MODE == "slow" or (MODE == "slow-once" and once()):
        time.sleep(SLEEP)
        return False
    if MODE == "garbage":
        say("I think front is best\n")
    elif MODE == "garbage-bytes":
        sys.stdout.buffer.write(b"\xff\xfe\x00\x81garbage\n")
        sys.stdout.flush()
    elif MODE == "deep":
        say("[" * 200_000 + "\n")
    elif MODE == "huge":
        say(json.dumps({"id": message["id"], "pad": "x" * (3 << 20)}) + "\n")
        say(answer)
    elif MODE.startswith("json-"):
        members = json.dumps(answer)[1:-1]
        say({"json-nan": f'{{{members}, "note": NaN}}', "json-overflow": f'{{{members}, "note": 1e999}}',
             "json-twice": f'{{"front": "2C 2D 2H", {members}}}',
             "json-deep": f'{{{members}, "note": {"[" * 100_000}{"]" * 100_000}}}',
             "json-nested": f'{{{members}, "note": {"[" * 100}{"]" * 100}}}'}[MODE] + "\n")
    elif MODE == "flood-stdout":
        while True:
            sys.stdout.write("x" * 65536)
    elif MODE == "stale-flood":
        while True:
            say({**answer, "id": message["id"] - 1})
    elif MODE == "no-newline":
        say(json.dumps(answer))
    elif MODE == "wrong-id":
        say({**answer, "id": answer["id"] + 1000})
    elif MODE == "bool-id":
        say({**answer, "id": True})
    elif MODE == "array":
        say("[]\n")
    elif MODE == "error":
        say({"id": message["id"], "error": "no idea what to do with the ace of spades"})
    elif MODE == "declare-text":
        say({**answer, "declare": "yes"})
    elif MODE == "bad-rows":
        say({**answer, "front": answer["front"].split()[0]})
    elif MODE == "cheat":
        say({"id": message["id"], "front": "2C 2D 2H", "middle": "3C 3D 3H 3S 4C", "back": "5C 5D 5H 5S 6C"})
    elif MODE == "close-stdout":
        os.close(1)
        time.sleep(SLEEP)
        sys.exit(0)
    elif MODE == "fork":
        if os.fork() == 0:
            time.sleep(SLEEP)
        os._exit(0)
    else:
        return False
    return True


def leave_behind() -> None:
    """Start a process in a session of its own (out of reach of a signal to this process's
    group) and add its pid to the flag file."""
    if MODE == "setsid":
        pid = subprocess.Popen(["setsid", "sleep", "1000"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL).pid
    else:
        read, write = os.pipe()
        middle = os.fork()
        if middle == 0:
            os.setsid()
            if os.fork() == 0:
                os.close(read)
                os.write(write, str(os.getpid()).encode())
                os.close(write)
                for fd in (0, 1, 2):
                    os.dup2(os.open(os.devnull, os.O_RDWR), fd)
                os.execvp("sleep", ["sleep", "1000"])
            os._exit(0)
        os.close(write)
        pid = int(os.read(read, 64))
        os.close(read)
        os.waitpid(middle, 0)
    with open(FLAG, "a") as file:
        file.write(f"{pid}\n")


def main() -> None:
    if MODE in ("setsid", "double-fork"):
        leave_behind()
    if MODE == "silent":
        sys.stdin.read()
        return
    if MODE in ("unflushed", "unended"):
        sys.stdin.readline()
        out = os.fdopen(1, "w", buffering=8192, closefd=False)  # block-buffered, as a pipe is by default
        out.write(json.dumps({"type": "hello", "name": f"misbehaving-{MODE}"}) + ("\n" if MODE == "unflushed" else ""))
        if MODE == "unended":
            out.flush()
        sys.stdin.read()
        return
    if MODE == "slow-start":
        time.sleep(SLEEP)
    if MODE == "panic-start":
        sys.stderr.write("loading weights\npanic: cannot open weights.bin: no such file\n")
        sys.exit(2)
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    previous = None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            if MODE == "close-stdin" and once():
                os.close(0)
                say({"type": "hello", "name": "misbehaving-close-stdin"})
                time.sleep(SLEEP)
                return
            if MODE == "slow-hello" and not once():  # every process but the first takes SLEEP seconds to start
                time.sleep(SLEEP)
            if MODE == "flood":
                chunk = "x" * 1023 + "\n"
                for _ in range(100 * 1024):
                    sys.stderr.write(chunk)
                sys.stderr.write("the last line of the flood\n")
                sys.stderr.flush()
            say({"type": "hello", "name": f"misbehaving-{MODE}", "batch": MODE == "deaf",
                 **json.loads(os.environ.get("HELLO", "{}"))})
            if MODE == "deaf":
                time.sleep(SLEEP)
            continue
        if kind == "quit":
            if MODE == "stubborn":
                FLAG.write_text("asked to quit")
                time.sleep(SLEEP)
            if MODE == "slow-quit":
                time.sleep(SLEEP)
                FLAG.write_text("quit in time")
            return
        if kind == "arrange_many":
            most = json.loads(os.environ.get("HELLO", "{}")).get("batch", True)
            if most is not True and len(message["hands"]) > most:
                say({"id": message["id"], "error": f"{len(message['hands'])} hands; at most {most}, as my hello says"})
            else:
                say({"id": message["id"], "arrangements": [arrange(h) for h in message["hands"]]})
            continue
        hand = message["hand"]
        if len(hand.split()) != 13 and MODE != "no-error-reply":
            say({"id": message["id"], "error": f"a hand has 13 cards, not {len(hand.split())}"})
            continue
        answer = {"id": message["id"], **arrange(hand)}
        if MODE == "unsteady":  # a legal arrangement in a new order each time, from randomness of its own
            cards = hand.split()
            random.shuffle(cards)
            answer = {"id": message["id"], "front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]),
                      "back": " ".join(cards[8:])}
        if MODE == "stale-first" and previous is not None:
            say(previous)
        if MODE == "twice":
            say(answer)
        if "AS" in hand.split() and misbehave(message, answer):
            continue
        say(answer)
        previous = answer


if __name__ == "__main__":
    main()
