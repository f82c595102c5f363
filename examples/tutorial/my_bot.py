#!/usr/bin/env python3
"""The bot of docs/write-a-bot.md: three rows from the hand sorted by rank, in the bot protocol."""

import json
import sys

RANKS = "23456789TJQKA"


def arrange(hand: str) -> dict:
    cards = sorted(hand.split(), key=lambda card: RANKS.index(card[0]))
    return {"front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]), "back": " ".join(cards[8:])}


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "hello", "name": "my-bot", "version": "0.1", "protocol": 2}
    elif message["type"] == "arrange" and len(message["hand"].split()) == 13:
        answer = {"id": message["id"], **arrange(message["hand"])}
    elif message["type"] == "quit":
        break
    else:
        answer = {"id": message.get("id"), "error": "cannot serve this request"}
    print(json.dumps(answer), flush=True)  # one line, flushed: the bench waits for it
