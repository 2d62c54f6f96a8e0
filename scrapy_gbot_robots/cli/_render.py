"""Terminal output shared by every command: colour, aligned tables, safe text.

Kept apart from the commands so that a new one (``report``) renders the same way, and so that
colour is decided in one place (``--color`` and ``NO_COLOR``). Every table cell goes through
:func:`~.._safetext.printable` here, so text from outside that reaches a table cannot drive
the terminal even where a command forgot to escape it; lines written outside tables escape
their outside text themselves, with the same function.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from .._safetext import display, printable, printable_lines
from .._safetext import short as short  # re-exported for the commands
from ..engine.lines import LineReport

_STYLES = {
    "allowed": "32",
    "disallowed": "1;31",
    "error": "1;31",
    "warning": "33",
    "info": "36",
    "dim": "2",
    "bold": "1",
    "code": "35",
}


def colour_wanted(mode: str, stream: IO[str]) -> bool:
    """``auto``: colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR", ""):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@dataclass(frozen=True, slots=True)
class Painter:
    """Wraps text in an ANSI style when colour is on; the identity otherwise."""

    enabled: bool

    def __call__(self, text: str, style: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"


Cell = tuple[str, str | None]  # (plain text, style)


def render_table(
    rows: Sequence[Sequence[Cell]], paint: Painter, right: frozenset[int] = frozenset()
) -> list[str]:
    """Align columns on the plain text, then paint, so escape codes never skew the widths.

    Cell text is escaped first (:func:`printable`): the widths are those of what is shown.
    """
    if not rows:
        return []
    rows = [[(printable(text), style) for text, style in r] for r in rows]
    ncols = max(len(r) for r in rows)
    widths = [0] * ncols
    for r in rows:
        for i, (text, _) in enumerate(r[:-1]):
            widths[i] = max(widths[i], len(text))
    out = []
    for r in rows:
        parts = []
        for i, (text, style) in enumerate(r):
            last = i == len(r) - 1
            pad = 0 if last else widths[i] - len(text)
            cell = paint(text, style) if style else text
            parts.append(" " * pad + cell if i in right else cell + " " * pad)
        out.append("  ".join(parts).rstrip())
    return out


def plural(n: int, word: str) -> str:
    """``1 URL``, ``2 URLs``: counts in messages read as a person would write them."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def line_text(reports: Sequence[LineReport], number: int) -> str:
    """The physical line ``number`` as written, without surrounding whitespace."""
    if not 1 <= number <= len(reports):
        return ""
    return display(reports[number - 1].text.strip(b" \t\n\v\f\r"))


class SafeLogFormatter(logging.Formatter):
    """A log formatter whose every line is escaped as the command's own output is.

    For the log of the crawl ``fetch`` runs (Scrapy's lines and the middleware's): they hold
    URLs, hosts and messages from a server, which must not drive the terminal either.
    """

    def format(self, record: logging.LogRecord) -> str:
        return printable_lines(super().format(record))
