"""A protocol bot that answers at once (its rows are the hand's cards in the order dealt):
the protocol's own cost, measured by tests/benchmarks/test_protocol_perf.py."""

import json
import sys


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "hello", "name": "echo"}), flush=True)
        elif message["type"] == "quit":
            break
        else:
            cards = message["hand"].split()
            print(json.dumps({"id": message["id"], "front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]),
                              "back": " ".join(cards[8:])}), flush=True)


if __name__ == "__main__":
    main()
