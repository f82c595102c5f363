"""What every command shares: the argument parser, argument checks, and how errors end.

Bad input ends with one line on stderr and exit status 2; a bot or plug-in that fails
while playing, with one line naming the bot, the hand and the error, and exit status 1.
``--debug`` (or ``CHINESE_POKER_DEBUG=1``) shows the traceback as well.
"""

from __future__ import annotations

import argparse
import errno
import functools
import itertools
import os
import re
import select
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, TextIO, cast

from solver import config, files
from solver.documents import JSONRefused, strict_json
from solver.errors import BotFault, InfrastructureError, InputError
from solver.files import describe
from solver.interrupts import Stopped
from solver.limits import LIMITS, LimitError, check
from solver.text import quote, show, terminal

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

DEBUG_VARIABLE = "CHINESE_POKER_DEBUG"


NUMBER_LIST = re.compile(r"^-(\d|\.\d|inf|nan)[^,\s]*(,[^,\s]*)+$", re.IGNORECASE)  # -0.01,0.01 or -inf,0


class Parser(argparse.ArgumentParser):
    """``argparse`` with usage errors as one line and exit status 2; a list of numbers that
    starts with a negative one (``--sprt -0.01,0.01``) is a value, not an option."""

    def _parse_optional(self, arg_string: str) -> tuple[argparse.Action | None, str, str | None] | None:
        # argparse's type up to Python 3.11 (mypy checks for 3.10); from 3.12 a list of such tuples, passed on as it is
        if NUMBER_LIST.match(arg_string):
            return None
        return super()._parse_optional(arg_string)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        """Help, usage and errors reach the terminal through ``solver.text.show``."""
        if message:  # argparse passes sys.stdout or sys.stderr, if anything
            show(message, cast(TextIO, file or sys.stderr), end="")


class UsageError(InputError):
    """Bad input to a command: reported as one line, exit status 2."""


def _whole(text: str, low: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} >= {low}, got {quote(text)}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{what} >= {low}, got {value}")
    return value


def limited(name: str, kind: type = int) -> Callable[[str], int | float]:
    """An argparse type: a number (``int`` or ``float``) within the limit ``name`` of
    ``solver.limits``; one above it is refused in one line that names the limit and why.

    >>> limited("players")("3")
    3
    >>> limited("players")("9")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 9 is above the limit of 4 (the game is for 2 to 4 players)
    >>> limited("samples")("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number >= 1, got 0
    """
    words = f"expected {'a whole number' if kind is int else 'a number'} >= {LIMITS[name].low:g}"

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{words}, got {quote(text)}") from None
        if value < LIMITS[name].low:
            raise argparse.ArgumentTypeError(f"{words}, got {value}")
        try:
            return check(name, value, "")
        except LimitError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = name  # argparse names the type in its own messages
    return parse


def seed(text: str) -> int:
    """A seed: a whole number from 0 (numpy's SeedSequence takes no negative entropy) up to
    the limit of ``solver.limits``."""
    return int(limited("seed")(str(_whole(text, 0, "a seed is a whole number"))))


def positive(text: str) -> int:
    """A whole number from 1 up."""
    return _whole(text, 1, "expected a whole number")


def job_count(text: str) -> int:
    """--jobs: workers, up to the limit per core of ``solver.limits``; 0 or less: one per core."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {quote(text)}") from None
    return value if value < 1 else int(limited("jobs")(text))


def seconds(text: str) -> float:
    """A time limit in seconds: a number from 0.001 (a millisecond) to 86400 (a day), the
    limit ``seconds`` of ``solver.limits``.

    >>> seconds("0.5"), seconds("60")
    (0.5, 60.0)
    >>> seconds("inf")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected seconds from 0.001 to 86400, got 'inf'
    """
    low, high = LIMITS["seconds"].low, LIMITS["seconds"].high
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # nan fails every comparison
        raise argparse.ArgumentTypeError(f"expected seconds from {low:g} to {high:g}, got {quote(text)}")
    return value


def add_debug(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--debug", action="store_true",
                        help=f"show the traceback of an error (or set {DEBUG_VARIABLE}=1)")


PACKAGE = "chinese-poker-solver"  # the distribution name in pyproject.toml


def package_version() -> str:
    """The installed version of this package (from its metadata), or "unknown" when it is
    run from a source tree that was never installed."""
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return "unknown"


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: print the program's name and the installed package's version, and exit."""
    parser.add_argument("--version", action="version", version=f"{parser.prog} {package_version()}",
                        help="print the version and exit")


def writable_folder(path: Path, option: str = "--out") -> Path:
    """``path`` as a folder that can be written, made if need be; checked before any long work."""
    try:
        files.make_folder(path)
        with tempfile.TemporaryFile(dir=path):
            pass
    except files.FileRefused:
        raise UsageError(f"{option} {path} exists and is not a folder") from None
    except OSError as error:
        raise UsageError(f"cannot write to {option} {path}: {error.strerror}") from None
    return path


def writable_file(path: Path, option: str = "--out") -> Path:
    """``path`` as a file that can be written (its folder exists and takes files); checked first."""
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder, not a file")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"cannot write {option} {path}: folder {folder} does not exist")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise UsageError(f"cannot write {option} {path}: {error.strerror}") from None
    return path


def read_json(path: Path) -> Any:
    """The JSON document in a file, read by ``solver.documents.strict_json`` (no ``NaN``,
    ``Infinity``, number too large for a float, name given twice or nesting too deep); a
    one-line UsageError when it cannot be read or parsed."""
    try:
        text = files.read_text(path, files.DOCUMENT_BYTES)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"{path} is not JSON: {error}") from None
    try:
        return strict_json(text, str(path))
    except JSONRefused as error:
        raise UsageError(str(error)) from None


def _hands_source(path: str) -> tuple[IO[bytes], str]:
    """The stream ``input_lines`` reads and the name it gives it in messages."""
    name = "the standard input (--input -)" if path == "-" else path
    try:
        return (files.standard_input() if path == "-" else files.open_input(path, None)), name
    except files.FileRefused as error:
        hint = "" if path == "-" or error.errno != errno.EINVAL else "; to read from a pipe, give it on the " \
            "standard input (--input -)"
        raise UsageError(f"cannot read {name}: {error.strerror}{hint}") from None
    except OSError as error:
        raise UsageError(f"cannot read {name}: {error.strerror}") from None


def input_lines(path: str) -> Iterator[tuple[int, str | None]]:
    """(line number, text without comment, or None) of each non-blank line of a file ('-' for
    stdin); None marks a line that is not UTF-8 text. The file must be a regular file (a link
    is followed to one); a byte-order mark in front is dropped, and a line longer than
    ``config.LINE_BYTES`` is refused (a file of hands has short lines)."""
    stream, name = _hands_source(path)
    with stream:
        for number in itertools.count(1):
            try:
                raw = stream.readline(config.LINE_BYTES + 1)
            except OSError as error:
                raise UsageError(f"cannot read {name}: {error.strerror}") from None
            if not raw:
                return
            if len(raw) > config.LINE_BYTES:
                raise UsageError(f"{name}: line {number} is longer than {config.LINE_BYTES:,} bytes; a line holds one hand")
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8").split("#", 1)[0].strip()
            except UnicodeDecodeError:
                yield number, None
                continue
            if text:
                yield number, text


SPECS = ("a bot is a name from bench bots with parameters after colons (exhaustive:samples=2000), a bot file "
         "NAME.toml or a program cmd:PATH that speaks the protocol (docs/protocol.md), or a plug-in package.module:Class")


def add_log_protocol(parser: argparse.ArgumentParser) -> None:
    """``--log-protocol FILE`` (``log_protocol``)."""
    parser.add_argument("--log-protocol", metavar="FILE", help="write every line sent to a protocol bot and received "
                        "from it to FILE, with the time, the bot's name and process, and the direction "
                        "(docs/protocol.md)")


def log_protocol(args: argparse.Namespace) -> str | None:
    """The file of ``--log-protocol``, emptied, and from now on the trace of every line between
    this process and its protocol bots (``bots.protocol.trace_to``); None without the option."""
    path = getattr(args, "log_protocol", None)
    if not path:
        return None
    from bots.protocol import ProtocolTrace, trace_to  # noqa: PLC0415  (heavy: the bots package loads its kernels)

    try:
        ProtocolTrace(path, fresh=True).close()
        trace_to(path)
    except OSError as error:
        raise UsageError(f"--log-protocol {path}: {terminal(describe(error))}") from None
    return str(path)


EXIT_STATUSES: dict[type[Exception], int] = {  # each family of solver.errors: the status a command ends with
    InputError: 2,  # bad input: the fix is in what was given
    BotFault: 1,  # a bot, a plug-in or a bot's process failed
    InfrastructureError: 1,  # the machine or a service failed
}


def exit_status(error: BaseException) -> int | None:
    """The exit status of an error of one of the families in ``solver.errors``; None for any
    other exception (an internal error).

    >>> from solver import CardError
    >>> exit_status(CardError("duplicate card 'AH'")), exit_status(KeyError("x"))
    (2, None)
    """
    for family, status in EXIT_STATUSES.items():
        if isinstance(error, family):
            return status
    return None


PIPE_CLOSED = 128 + 13  # the status of a Unix tool ended by SIGPIPE


def stdout_closed() -> bool:
    """Whether whoever read our standard output has gone (``solve ... | head -3``)."""
    try:
        fd = sys.stdout.fileno()
        poll = select.poll()
        poll.register(fd, select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def _quiet_stdout() -> int:
    """Nothing more goes to a closed standard output (what is left in its buffer is dropped
    too): the command ends quietly, as a Unix tool does."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass
    return PIPE_CLOSED


def quiet_on_closed_stdout(main: Callable[..., int]) -> Callable[..., int]:
    """``main(argv) -> int`` that ends quietly with status 141 when its standard output is
    closed early, whether while it prints, in ``--help``, or when the output is flushed."""
    @functools.wraps(main)
    def wrapper(*args: Any, **kwargs: Any) -> int:
        try:
            try:
                status = main(*args, **kwargs)
            finally:
                if sys.stdout is not None:
                    sys.stdout.flush()
        except BrokenPipeError:
            if not stdout_closed():
                raise
            return _quiet_stdout()
        return status

    return wrapper


def one_line(error: BaseException | str) -> str:
    r"""An error's words as one line that only prints (``solver.text.terminal``), cut at
    ``config.ERROR_LIMIT`` characters: a message that quoted too much of its input stays readable.

    >>> one_line(ValueError("bad card 'X\x1b[2J'\nsee the docs"))
    "bad card 'X\\u001b[2J'\\u000asee the docs"
    >>> len(one_line("x" * 10**6))
    1033
    """
    text = str(error)
    if len(text) > config.ERROR_LIMIT:
        text = f"{text[:config.ERROR_LIMIT]}... ({len(text):,} characters in all)"
    return terminal(text)


_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # a write to the standard output that found no room


def guarded(prog: str, action: Callable[[], int], debug: bool = False, ascii: bool = False) -> int:
    """Run a command; errors end as one line on stderr with the right exit status (in
    ASCII only with ``ascii``), and a closed standard output ends it quietly."""
    debug = debug or os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")
    try:
        status = action()
        if sys.stdout is not None:
            sys.stdout.flush()
        return status
    except KeyboardInterrupt as error:
        stopped = error if isinstance(error, Stopped) else Stopped()
        show(f"{prog}: stopped by {stopped.name}", sys.stderr, ascii=ascii)
        return stopped.status
    except Exception as error:
        if isinstance(error, BrokenPipeError) and stdout_closed():
            return _quiet_stdout()
        if debug:
            show(traceback.format_exc(), sys.stderr, end="", ascii=ascii)
        if isinstance(error, OSError) and error.filename is None and error.errno in _FULL:
            show(f"{prog}: error: cannot write the output: {terminal(describe(error))}", sys.stderr, ascii=ascii)
            return 1
        family_status = exit_status(error)
        if family_status is not None:
            log = getattr(error, "log", None)  # a bot's whole standard error (solver.errors.BotFault)
            where = f"; its whole standard error: {terminal(log)}" if log else ""
            show(f"{prog}: error: {one_line(error)}{where}", sys.stderr, ascii=ascii)
            return family_status
        hint = "" if debug else " (run again with --debug for the traceback)"
        show(f"{prog}: internal error: {type(error).__name__}: {one_line(error)}{hint}", sys.stderr, ascii=ascii)
        return 1
