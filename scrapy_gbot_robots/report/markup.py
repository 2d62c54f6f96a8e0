"""The report page's markup helpers: text made inert, numbers, tables.

Shared by :mod:`.html` and its sections in other modules (:mod:`.html_pages`), so that
every cell of the page is escaped the same way. Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import Any

from .._safetext import printable

__all__ = ["esc", "number", "table", "time", "url"]


def esc(value: Any) -> str:
    """Text from the crawl, made inert: every ``<``, ``>``, ``&`` and quote escaped.

    Control, bidi and other invisible characters are shown escaped first, as the terminal
    shows them (:func:`printable`): a browser does not obey ESC, but a RIGHT-TO-LEFT OVERRIDE
    in a URL would reorder what its cell shows, and a C0 control is not allowed in HTML.
    """
    return html.escape(printable("" if value is None else str(value)), quote=True)


#: Where a URL may wrap: after a separator of its path or query (never inside the
#: ``scheme://host`` it starts with, nor between two slashes).
_URL_BREAK = re.compile(r"(?<=[/?&=#;,])(?![/?&=#;,])")
_URL_START = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


def url(value: Any) -> str:
    """A URL made inert (:func:`esc`) that wraps after its separators (``<wbr>``), not in the
    middle of a word; a piece longer than its column still breaks (the CSS's
    ``overflow-wrap: anywhere``)."""
    text = "" if value is None else str(value)
    start = _URL_START.match(text)
    head = start.group(0) if start else ""
    pieces = _URL_BREAK.split(text[len(head) :])
    return "<wbr>".join(esc(piece) for piece in [head + pieces[0], *pieces[1:]])


def time(value: Any) -> str:
    """An ISO 8601 time, ``2026-12-07T19:59:25Z``, made inert, that may wrap after its date."""
    return "T<wbr>".join(esc(part) for part in str(value).split("T", 1)) if value else ""


def number(value: Any) -> str:
    """A count with thousands separators, a bool as yes/no, anything else escaped."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:,}" if isinstance(value, int) else esc(value)


def table(
    headers: Sequence[tuple[str, str]], rows: Iterable[Sequence[str]], caption: str = ""
) -> str:
    """A table whose cells are already HTML; ``headers`` are (label, css class)."""
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{caption}</caption>")
    if any(label for label, _ in headers):
        out.append("<thead><tr>")
        out.extend(f'<th class="{cls}">{label}</th>' for label, cls in headers)
        out.append("</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        cells = (
            f'<td class="{cls}">{cell}</td>' for (_, cls), cell in zip(headers, row, strict=True)
        )
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)
