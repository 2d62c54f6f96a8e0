"""Text from outside (a server, a file, the command line) made safe to print.

A robots.txt, a ``Location`` header, a URL in a file: any of them may hold bytes that a
terminal obeys. ESC and the C1 controls (U+009B is CSI, U+009D is OSC, which xterm acts on)
can clear the screen, set the window title or rewrite a verdict already printed; CR and the
line separators can start a new line that looks like ours; bidi controls (U+202E RIGHT-TO-LEFT
OVERRIDE, ...) reorder what a line shows without changing its bytes. :func:`printable` is the
one function every command, the text summary and the HTML report pass such text through.

What is escaped: every character that Unicode does not call printable, which is what Python's
``repr()`` escapes. That is the C0 controls, DEL and the C1 controls (category Cc); format
characters (Cf: the bidi embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069,
the marks U+200E, U+200F and U+061C, zero-width characters, the BOM); the line and paragraph
separators U+2028 and U+2029; spaces other than the ASCII space (NBSP, which Google does not
read as whitespace, shows as ``\\xa0``); surrogates, private-use and unassigned code points.
Each becomes ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``; a byte that is not UTF-8 (carried as a
``surrogateescape`` code point) becomes ``\\xNN``, its value.

What is kept: TAB, which only moves the cursor right, as spaces do, and is common between a
robots.txt key and its value; every printable character of any script. A backslash is not
doubled, so the text ``\\x1b`` and an escaped ESC look alike; ``--json`` output tells them
apart (JSON escapes every control character itself).

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

__all__ = ["display", "printable", "printable_lines", "quoted", "short"]

_TAB = "\t"


def _escape(ch: str) -> str:
    cp = ord(ch)
    if 0xDC80 <= cp <= 0xDCFF:  # a byte that is not UTF-8, as surrogateescape carries it
        return f"\\x{cp - 0xDC00:02x}"
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def printable(text: str) -> str:
    """``text`` with every character a terminal could act on escaped (see the module doc)."""
    # str.isprintable is one C loop: text without anything to escape costs no Python loop.
    if text.isprintable() or (_TAB in text and text.replace(_TAB, "").isprintable()):
        return text
    return "".join(ch if ch.isprintable() or ch == _TAB else _escape(ch) for ch in text)


def printable_lines(text: str) -> str:
    """:func:`printable` line by line: the newlines that separate lines are kept (a log
    record with its traceback), every other control character is escaped (CR included)."""
    if text.isprintable():
        return text
    return "\n".join(printable(line) for line in text.split("\n"))


def display(raw: bytes) -> str:
    """Bytes as safe text: UTF-8 where it is valid, ``\\xNN`` for other bytes and controls."""
    return printable(raw.decode("utf-8", "surrogateescape"))


def quoted(text: str) -> str:
    """``text`` escaped and in single quotes, for quoting outside text inside a message.

    Escaping is idempotent, so text already made safe by :func:`display` may be passed again.
    ``repr()`` would escape the backslashes of those escapes a second time (``'\\\\x7f'``).
    """
    return f"'{printable(text)}'"


def short(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
