"""A protocol bot that misbehaves as told by its first argument, for the tests.

crash: exits on every hand with the ace of spades; crash-once: exits on the first such hand
only (a flag file in its folder remembers); hang: never answers such hands; garbage: answers
them with a line that is not JSON; wrong-id: with another id; cheat: with other cards;
silent: never says hello."""

import json
import sys
from pathlib import Path

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
RANKS = "23456789TJQKA"


def arrange(hand: str) -> dict:
    cards = sorted(hand.split(), key=lambda c: RANKS.index(c[0]))
    return {"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}


def main() -> None:
    if MODE == "silent":
        sys.stdin.read()
        return
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "hello", "name": f"misbehaving-{MODE}"}), flush=True)
            continue
        if message["type"] == "quit":
            return
        hand = message["hand"]
        answer = {"id": message["id"], **arrange(hand)}
        if "AS" in hand.split():
            if MODE == "crash":
                sys.exit(7)
            if MODE == "crash-once":
                flag = Path(sys.argv[2])
                if not flag.exists():
                    flag.write_text("crashed once")
                    sys.exit(7)
            if MODE == "hang":
                sys.stdin.read()
                return
            if MODE == "garbage":
                print("I think front is best", flush=True)
                continue
            if MODE == "wrong-id":
                answer["id"] += 1000
            if MODE == "cheat":
                answer = {"id": message["id"], "front": "2C 2D 2H", "middle": "3C 3D 3H 3S 4C",
                          "back": "5C 5D 5H 5S 6C"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
