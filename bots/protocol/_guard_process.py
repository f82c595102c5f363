"""The guard process of ``bots.protocol.guard``, run as ``python -I -S _guard_process.py MARK TOKEN``:
the standard library only, nothing of the project. Its standard input gives ``+GROUP`` for each bot
started and ``-GROUP`` for each ended; when it ends, each group still named gets SIGKILL, then
every process whose environment holds ``MARK=TOKEN``."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterable


def groups_left(lines: Iterable[bytes]) -> set[int]:
    """The groups named ``+GROUP`` and not ``-GROUP`` after, by the end of ``lines``."""
    groups: set[int] = set()
    for line in lines:
        try:
            group = int(line[1:])
        except ValueError:
            continue
        if line[:1] == b"+":
            groups.add(group)
        else:
            groups.discard(group)
    return groups


def marked(mark: bytes) -> list[int]:
    """Every process but this one whose environment holds ``mark`` (``\\0NAME=VALUE\\0``)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/" + name + "/environ", "rb") as file:
                environ = b"\0" + file.read()
        except OSError:
            continue
        if mark in environ:
            found.append(int(name))
    return found


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    mark = ("\0" + sys.argv[1] + "=" + sys.argv[2] + "\0").encode()
    for group in groups_left(sys.stdin.buffer):
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    for _ in range(3):  # what is forking as it is found is found on the next pass
        found = marked(mark)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not found:
            break


if __name__ == "__main__":
    main()
