#!/usr/bin/env python3
"""A protocol bot in plain Python (standard library only): docs/protocol.md, version 2.

It sets the lowest three cards in front, the next five in the middle and the highest five
in the back, then swaps a middle that looks stronger than its back. Simple on purpose (it
ignores straights and flushes, and can foul): it shows the protocol, not strategy.

    bench arrange --bot examples/bots/sorted_bot.toml "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
"""

import json
import sys

RANKS = "23456789TJQKA"


def rank(card: str) -> int:
    return RANKS.index(card[0].upper())


def strength(cards: list[str]) -> tuple:
    """A rough row strength: the sizes of the rank groups, then the ranks (no straights or flushes)."""
    counts: dict[int, int] = {}
    for card in cards:
        counts[rank(card)] = counts.get(rank(card), 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return tuple(n for _, n in groups), tuple(r for r, _ in groups)


def arrange(hand: str) -> dict[str, str]:
    cards = sorted(hand.split(), key=rank)
    front, middle, back = cards[:3], cards[3:8], cards[8:]
    if strength(middle) > strength(back):
        middle, back = back, middle
    return {"front": " ".join(front), "middle": " ".join(middle), "back": " ".join(back)}


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            answer = {"type": "hello", "name": "sorted", "version": "2.0", "protocol": 2, "batch": True}
        elif kind == "arrange" and len(message["hand"].split()) != 13:
            answer = {"id": message["id"], "error": f"a hand has 13 cards, not {len(message['hand'].split())}"}
        elif kind == "arrange":
            answer = {"id": message["id"], **arrange(message["hand"])}
        elif kind == "arrange_many" and any(len(hand.split()) != 13 for hand in message["hands"]):
            answer = {"id": message["id"], "error": "a hand has 13 cards"}
        elif kind == "arrange_many":
            answer = {"id": message["id"], "arrangements": [arrange(hand) for hand in message["hands"]]}
        elif kind == "quit":
            return
        else:
            print(f"unknown message {line.strip()}", file=sys.stderr)
            answer = {"id": message.get("id"), "error": f"unknown message type {kind!r}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
