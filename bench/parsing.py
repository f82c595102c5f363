"""The argument parser every command uses: a usage error is one line on stderr and exit status 2."""

from __future__ import annotations

import argparse


class Parser(argparse.ArgumentParser):
    """``argparse`` with usage errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


class UsageError(Exception):
    """Bad input to a command: reported as one line, exit status 2."""
