"""Text that comes from outside, made fit for where it goes: one function per destination.

Outside text is any text this program did not write itself: what a bot writes to its
standard error, the name and version in its hello, the words of an error, a file's
contents, what the user typed. It may hold escape sequences that drive a terminal (clear
the screen, set the window title, write the clipboard), bidi overrides that show text in
another order than it is read, HTML and Markdown that a viewer would run or render, and
megabytes on one line. Whatever prints it or puts it in a document goes through here:

- :func:`terminal`: one line for a terminal or a message: every character that does not
  print (controls, C1 controls, bidi and other format characters, line and paragraph
  separators, ends of line) is written as JSON writes it, ``\\u001b``;
- :func:`quote`: a short quote of outside text for an error message: at most ``config.EXCERPT``
  characters of it, repr-quoted, with ``...`` and its full length when it is longer;
  :func:`excerpt` cuts the same way without quoting;
- :func:`markdown`: one line of Markdown (a table cell or a paragraph) that shows the text
  and nothing else: HTML's special characters as entities, Markdown's with a backslash;
  :func:`markdown_code` does the same for a code span;
- :func:`plot_label`: a label for a matplotlib plot (``$`` does not start mathtext);
- :func:`show`: the one place where text reaches a terminal or a pipe. It writes the
  characters that do not print (but the end of line) as :func:`terminal` does, so no new
  call site can pass an escape sequence through, and every character the stream's encoding
  cannot hold in its ASCII spelling (``±`` as ``+/-``, ``♠`` as ``S``) or, without one, as
  ``\\u00b1``. Printed JSON stays valid: both forms are JSON escapes inside its strings,
  which is the only place JSON has such characters.

Bot logs keep what the bot wrote, as UTF-8 (:class:`LogText`).
"""

from __future__ import annotations

import codecs
import re
import sys
from typing import TextIO

from solver import config

ASCII_SPELLINGS = {  # what a stream that cannot encode a character gets instead
    "±": "+/-", "×": "x", "−": "-", "–": "-", "—": "-", "…": "...", "·": ".", "≥": ">=", "≤": "<=", "→": "->",
    "‘": "'", "’": "'", "“": '"', "”": '"', "♠": "S", "♥": "H", "♦": "D", "♣": "C",
    "\ufe0e": "", "\ufe0f": "",
}


def _escape(char: str) -> str:
    r"""A character as JSON escapes it: ``\u001b``; one beyond the BMP as its surrogate pair."""
    point = ord(char)
    if point > 0xFFFF:
        point -= 0x10000
        return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"
    return f"\\u{point:04x}"


def terminal(text: str) -> str:
    r"""``text`` as one line that only prints: every character that is not printable (the
    space aside) written as ``\u001b``, ends of line and tabs included.

    >>> terminal("bot said \x1b]52;c;aGk=\x07 then\nexit")
    'bot said \\u001b]52;c;aGk=\\u0007 then\\u000aexit'
    >>> terminal("\u202egnp.exe"), terminal("\x9b2J"), terminal("A♠ ± 9♥")
    ('\\u202egnp.exe', '\\u009b2J', 'A♠ ± 9♥')
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def quote(text: str | bytes, limit: int = config.EXCERPT) -> str:
    r"""A short quote of outside text for an error message: repr-quoted (nothing in it that
    does not print), cut at ``limit`` characters (or bytes) with ``...`` and the full length.

    >>> quote("XS")
    "'XS'"
    >>> quote("A" * 2_000_000, limit=20)
    "'AAAAAAAAAAAAAAAAAAAA...' (2,000,000 characters)"
    >>> quote(b"\x1b[2J" * 100, limit=8)
    "'\\x1b[2J\\x1b[2J...' (400 bytes)"
    """
    unit = "bytes" if isinstance(text, bytes) else "characters"
    cut = text[:limit]
    shown = cut.decode("utf-8", "replace") if isinstance(cut, bytes) else cut
    if len(text) <= limit:
        return repr(shown)
    return f"{repr(shown + '...')} ({len(text):,} {unit})"


def excerpt(text: str, limit: int = config.EXCERPT) -> str:
    r"""Outside text as a short part of one line, unquoted (:func:`terminal`), cut at
    ``limit`` characters with ``...`` and the full length; for a ``repr`` that is quoted already.

    >>> excerpt(repr([1] * 1000), limit=12)
    '[1, 1, 1, 1,... (3,000 characters)'
    """
    if len(text) <= limit:
        return terminal(text)
    return f"{terminal(text[:limit])}... ({len(text):,} characters)"


_MARKDOWN = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"} | {c: "\\" + c for c in "\\`*[]#|~$"}
_MARKDOWN_TABLE = str.maketrans(_MARKDOWN)
_LOOSE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")  # one that may start or end emphasis
_LIST_NUMBER = re.compile(r"^(\d+)\.")  # "1." at the start of a line opens a list


def markdown(text: str, start: bool = False) -> str:
    r"""``text`` as one line of Markdown that shows it as it is: no HTML, no emphasis, no
    link, no math, no table column, no new line (see :func:`terminal`); with ``start``,
    for text that starts a line, no heading or list either.

    >>> markdown("<script>alert(1)</script>"), markdown("pair_first _x_")
    ('&lt;script&gt;alert(1)&lt;/script&gt;', 'pair_first \\_x\\_')
    >>> markdown("<script>alert(1)</script>")
    '&lt;script&gt;alert(1)&lt;/script&gt;'
    >>> markdown("a | b\n# c $x$"), markdown("v1.2-beta"), markdown("-1.5")
    ('a \\| b\\\\u000a\\# c \\$x\\$', 'v1.2-beta', '-1.5')
    >>> markdown("- item", start=True), markdown("1. item", start=True)
    ('\\- item', '1\\. item')
    """
    escaped = _LOOSE_UNDERSCORE.sub(r"\\_", terminal(text).translate(_MARKDOWN_TABLE))
    if start:
        escaped = _LIST_NUMBER.sub(r"\1\\.", escaped, count=1)
        escaped = "\\" + escaped if escaped[:1] in ("-", "+", "=") else escaped
    return escaped


def markdown_code(text: str) -> str:
    r"""``text`` as a Markdown code span: fenced with more backticks than any run in it, on
    one line (see :func:`terminal`); inside a code span nothing is markup.

    >>> markdown_code("bench tournament --bots a,b")
    '`bench tournament --bots a,b`'
    >>> markdown_code("echo `id` | <b>")
    '`` echo `id` | <b> ``'
    """
    text = terminal(text) or " "
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if longest or text[:1] == " " or text[-1:] == " " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def plot_label(text: str, limit: int = 40) -> str:
    r"""``text`` as a matplotlib label: one line (see :func:`terminal`), ``$`` escaped so
    that it shows as itself rather than starting mathtext, cut at ``limit`` characters.

    >>> plot_label("$\\frac{a}{0}$ bot"), plot_label("x" * 50)
    ('\\$\\frac{a}{0}\\$ bot', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...')
    """
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return terminal(text).replace("$", "\\$")


def _spelled(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler of :func:`show`: an ASCII spelling, or a JSON escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    part = error.object[error.start:error.end]
    return "".join(ASCII_SPELLINGS.get(c, _escape(c)) for c in part), error.end


def _escaped(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler of :func:`show` with ``exact``: a JSON escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(_escape(c) for c in error.object[error.start:error.end]), error.end


codecs.register_error("solver.text.spelled", _spelled)
codecs.register_error("solver.text.escaped", _escaped)


def how_many(count: int, noun: str) -> str:
    """A count of a noun in words for a message: "one" for one, else the number and an s.

    Args:
        count: The count.
        noun: The noun in the singular.

    Returns:
        The count and the noun.

    Examples:
        >>> how_many(1, "hand"), how_many(64, "hand")
        ('one hand', '64 hands')
    """
    return f"one {noun}" if count == 1 else f"{count} {noun}s"


def printable(text: str) -> str:
    r"""``text`` with every character that does not print written as :func:`terminal`
    writes it, but its ends of line kept.

    >>> printable("line 1\nline 2 \x1b[2J\r")
    'line 1\nline 2 \\u001b[2J\\u000d'
    """
    return "\n".join(terminal(line) for line in text.split("\n"))


def encodable(text: str, encoding: str, exact: bool = False) -> str:
    r"""``text`` with every character ``encoding`` cannot hold in its ASCII spelling
    (``ASCII_SPELLINGS``) or as a JSON escape; only JSON escapes with ``exact``.

    >>> encodable("A♠ ± 0.1 — ok", "ascii"), encodable("A♠ ± 0.1", "latin-1")
    ('AS +/- 0.1 - ok', 'AS ± 0.1')
    >>> encodable("A♠ ±", "ascii", exact=True)
    'A\\u2660 \\u00b1'
    """
    handler = "solver.text.escaped" if exact else "solver.text.spelled"
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        return text.encode(encoding, handler).decode(encoding)
    except LookupError:
        return text


def stream_encoding(stream: TextIO) -> str:
    """The encoding ``stream`` writes in (UTF-8 when it does not say)."""
    return getattr(stream, "encoding", None) or "utf-8"


def show(text: str, stream: TextIO | None = None, *, end: str = "\n", ascii: bool = False, exact: bool = False,
         flush: bool = False) -> None:
    """Write ``text`` and ``end`` to ``stream`` (standard output by default): the one place
    where text reaches a terminal or a pipe. Characters that do not print (but the end of
    line) are made visible (:func:`printable`); those the stream's encoding, or ASCII with
    ``ascii``, cannot hold are spelled in ASCII or, with ``exact`` (for JSON), escaped
    (:func:`encodable`)."""
    stream = sys.stdout if stream is None else stream
    if stream is None:  # no standard output at all (pythonw)
        return
    encoding = "ascii" if ascii else stream_encoding(stream)
    stream.write(encodable(printable(text + end), encoding, exact))
    if flush:
        stream.flush()


class LogText:
    """What a bot writes to its standard error, as UTF-8 for its log file: valid UTF-8
    as it is, any other byte as ``\\xNN``, a character cut between two reads decoded
    whole. Controls are kept: a log is read with a pager or an editor, not run.

    >>> log = LogText()
    >>> log.feed("é".encode()[:1]), log.feed("é".encode()[1:] + b"\\xff\\x1b[1m")
    (b'', b'\\xc3\\xa9\\\\xff\\x1b[1m')
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("backslashreplace")

    def feed(self, data: bytes) -> bytes:
        """The UTF-8 bytes for ``data``; a character cut at its end waits for the next feed."""
        return self._decoder.decode(data).encode("utf-8")

    def end(self) -> bytes:
        """What is left at the end of the stream (a cut character, as ``\\xNN``)."""
        return self._decoder.decode(b"", final=True).encode("utf-8")


def cut_utf8(data: bytes, limit: int) -> bytes:
    """The first ``limit`` bytes of UTF-8 ``data`` or fewer, never ending inside a character.

    >>> cut_utf8("aé".encode(), 2), cut_utf8("aé".encode(), 3)
    (b'a', b'a\\xc3\\xa9')
    """
    if len(data) <= limit:
        return data
    end = limit
    while end > 0 and data[end] & 0xC0 == 0x80:
        end -= 1
    return data[:end]


def tail_utf8(data: bytes, limit: int) -> bytes:
    """The last ``limit`` bytes of UTF-8 ``data`` or fewer, never starting inside a character.

    >>> tail_utf8("éa".encode(), 2)
    b'a'
    """
    start = max(0, len(data) - limit)
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:]
