"""What a bot leaves running is ended even when the bench is killed outright (``kill -9``).

A bot process dies with the process that started it (``set_death_signal``), but the processes
it started itself do not: they lose their parent and live on. So each process that starts bots
keeps a guard beside them while any of its bots runs: a small process of its own, in a session
of its own, that learns each bot's process group on its standard input, and, when that input
ends (the bench ended its last bot, exited, or was killed), sends SIGKILL to each group it was
not told had ended, then to every process whose environment carries the mark the bench gave
its bots (``BENCH_BOT_GUARD``), which what a bot starts inherits, in a session of its own or not.

Out of reach: a process that a bot starts with an environment of its own making (no mark) and
in a session of its own, when the bench is killed without a chance to end it. Linux only
(``/proc``); elsewhere there is no guard.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import threading
from pathlib import Path

from solver.interrupts import disown, start_own

MARK = "BENCH_BOT_GUARD"

SCRIPT = Path(__file__).with_name("_guard_process.py")  # the standard library only: it runs with python -I -S



class Guard:
    """The guard of this process's bots: started with its first running bot, ended (its input
    closed, so that it checks nothing is left and exits) with its last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.owner = -1  # the process whose guard this is (a forked worker needs its own)
        self.process: subprocess.Popen[bytes] | None = None
        self.token = ""
        self.groups: set[int] = set()

    def mark(self) -> dict[str, str]:
        """The variable to add to a bot's environment, so that its descendants can be found;
        starts the guard if none runs for this process.

        Returns:
            ``{MARK: token}``, or an empty mapping where there is no guard (not Linux, or it
            could not start).
        """
        with self.lock:
            if not sys.platform.startswith("linux"):
                return {}
            if self.owner != os.getpid():  # a fork: the parent's guard is the parent's
                self.owner, self.process, self.groups = os.getpid(), None, set()
            if self.process is None:
                self.token = f"{os.getpid()}-{secrets.token_hex(8)}"
                try:
                    self.process = start_own(lambda: subprocess.Popen(
                        [sys.executable, "-I", "-S", str(SCRIPT), MARK, self.token], stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
                except OSError:
                    self.process = None
                    return {}
            return {MARK: self.token}

    def watch(self, group: int) -> None:
        """Guard the process group ``group`` (a bot started in a session of its own, marked).

        Args:
            group: The bot's process group, its pid.
        """
        with self.lock:
            if self._tell(b"+", group):
                self.groups.add(group)

    def forget(self, group: int) -> None:
        """``group`` has been ended by the bench; the guard ends when it guards nothing.

        Args:
            group: The bot's process group, as given to ``watch``.
        """
        with self.lock:
            if group not in self.groups or self.owner != os.getpid():
                return
            self.groups.discard(group)
            self._tell(b"-", group)
            if not self.groups:
                self._close()

    def _tell(self, sign: bytes, group: int) -> bool:
        if self.process is None or self.process.stdin is None or self.owner != os.getpid():
            return False
        try:
            self.process.stdin.write(sign + str(group).encode() + b"\n")
            self.process.stdin.flush()
            return True
        except OSError:
            return False

    def _close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        try:
            process.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        disown(process.pid)


GUARD_OF_THIS_PROCESS = Guard()


def _forked() -> None:
    """In a forked child: the parent's guard is the parent's; the child's copy of its input is
    closed, or the guard would not see its input end when the parent dies."""
    guard = GUARD_OF_THIS_PROCESS
    process, guard.process, guard.groups, guard.owner = guard.process, None, set(), os.getpid()
    guard.lock = threading.Lock()
    if process is not None and process.stdin is not None:
        try:
            os.close(process.stdin.fileno())
        except OSError:
            pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)
