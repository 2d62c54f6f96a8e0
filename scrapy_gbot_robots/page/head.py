"""The ``<meta name=... content=...>`` tags of an HTML page's head, with bounded work.

Google reads the robots ``meta`` tag in the ``<head>`` ("Place the robots meta tag in the
<head> section of a given page"). Where the head ends is HTML's rule (the "in head"
insertion mode of the HTML standard), which is also where a browser, and Google's renderer,
ends it: at ``</head>``, at ``<body>``, at the first start tag that cannot be in a head
(``<div>``, ``<img>``, ``<p>``...: the parser opens the body there, and a ``meta`` after it
is in the body), or at the first text that is not whitespace. Inside the head:

* comments, ``<!DOCTYPE>`` and ``<?...>`` are skipped;
* the contents of ``<script>``, ``<style>``, ``<title>``, ``<noscript>`` (raw text for a
  browser with scripting, as Google's renderer is), ``<noframes>`` and ``<template>`` (inert
  content) are skipped to their end tag, so a ``<meta`` or a ``</head>`` inside a script
  string is not read;
* attributes are read in any order, quoted with ``"`` or ``'`` or unquoted, names in any case,
  the first of a repeated attribute winning (as in HTML); values have their character
  references decoded (``&amp;``, ``&#44;``).

Bounded: at most :data:`HEAD_LIMIT` bytes are looked at and at most :data:`MAX_TAGS` tags
read, whatever the page (a head longer than that is all inline scripts and styles in
practice), and no slice of the body is copied. Bytes are read as ASCII-compatible text
(UTF-8, Latin-1, Windows-125x...): a UTF-16 page has no meta tag to this reader. Never
raises on any bytes.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

__all__ = ["HEAD_LIMIT", "MAX_TAGS", "meta_tags"]

#: Bytes of the body looked at, at most.
HEAD_LIMIT = 256 * 1024
#: Tags read, at most (comments and skipped elements count as one each).
MAX_TAGS = 2_000
#: Characters of an attribute value kept (a robots ``content`` is a few dozen).
VALUE_CHARS = 2_048
#: Attributes read per tag; the rest of a longer tag is skipped to its ``>``.
MAX_ATTRIBUTES = 64

#: Start tags HTML processes inside the head; any other start tag opens the body.
_IN_HEAD = frozenset(
    {b"html", b"head", b"meta", b"link", b"base", b"basefont", b"bgsound", b"command"}
)
#: Elements whose content is skipped to their end tag.
_SKIPPED = frozenset({b"script", b"style", b"title", b"noscript", b"noframes", b"template"})
#: End tags that end the head; any other end tag is ignored there, as HTML does.
_END_HEAD = frozenset({b"head", b"body", b"html", b"br"})

_WS = b" \t\n\r\f"
_TAG = re.compile(rb"<(?:(!--)|([!?])|(/?)([A-Za-z][^\t\n\f\r />]*))")
_ATTR = re.compile(
    rb"[\t\n\f\r /]*(?P<name>[^\t\n\f\r />][^\t\n\f\r />=]*)"
    rb"(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|(?P<uq>[^\t\n\f\r >]*)))?"
)
_TAG_END = re.compile(rb"[\t\n\f\r /]*>")
_NOT_SPACE = re.compile(rb"[^ \t\n\r\f]")
_END_TAGS: dict[bytes, Callable[..., re.Match[bytes] | None]] = {
    name: re.compile(rb"</" + name + rb"[\t\n\f\r />]", re.IGNORECASE).search for name in _SKIPPED
}


def attributes(body: bytes, pos: int, end: int) -> tuple[dict[bytes, bytes], int]:
    """The attributes of a tag whose name ends at ``pos``, and where the tag ends."""
    attrs: dict[bytes, bytes] = {}
    for _ in range(MAX_ATTRIBUTES):
        if pos >= end:
            return attrs, end
        closing = _TAG_END.match(body, pos, end)
        if closing is not None:
            return attrs, closing.end()
        m = _ATTR.match(body, pos, end)
        if m is None:  # unreachable: any byte but '>' starts a name; kept as a guard
            break
        name = m.group("name").lower()
        if name not in attrs:
            attrs[name] = m.group("dq") or m.group("sq") or m.group("uq") or b""
        pos = m.end()
    close = body.find(b">", pos, end)
    return attrs, end if close < 0 else close + 1


def _text(raw: bytes) -> str:
    """An attribute value as text: UTF-8 (invalid bytes replaced), references decoded."""
    text = raw[: VALUE_CHARS * 2].decode("utf-8", "replace")
    return html.unescape(text)[:VALUE_CHARS] if "&" in text else text[:VALUE_CHARS]


def meta_tags(body: bytes, names: frozenset[str] | None = None) -> list[tuple[str, str]]:
    """``(name, content)`` of each ``meta`` tag of the head, in order, name lower-cased.

    ``names``: only tags whose name (stripped, lower-cased) is in it are returned. A tag
    without a ``name`` or without a ``content`` attribute is not returned.
    """
    found: list[tuple[str, str]] = []
    end = min(len(body), HEAD_LIMIT)
    pos = 3 if body.startswith(b"\xef\xbb\xbf") else 0  # a UTF-8 byte order mark
    for _ in range(MAX_TAGS):
        m = _TAG.search(body, pos, end)
        if m is None or _NOT_SPACE.search(body, pos, m.start()) is not None:
            break  # no tag left, or text before this one: the head has ended
        if m.group(1):  # a comment
            close = body.find(b"-->", m.end(), end)
            if close < 0:
                break
            pos = close + 3
            continue
        if m.group(2):  # <!DOCTYPE ...>, <?xml ...?>
            close = body.find(b">", m.end(), end)
            if close < 0:
                break
            pos = close + 1
            continue
        tag = m.group(4).lower()
        if m.group(3):  # an end tag
            if tag in _END_HEAD:
                break
            close = body.find(b">", m.end(), end)
            if close < 0:
                break
            pos = close + 1
            continue
        if tag not in _IN_HEAD and tag not in _SKIPPED:
            break  # <body>, or an element that opens the body
        attrs, pos = attributes(body, m.end(), end)
        if tag in _SKIPPED:
            closed = _END_TAGS[tag](body, pos, end)
            if closed is None:
                break
            pos = closed.start() + 2 + len(tag)
            close = body.find(b">", pos, end)
            if close < 0:
                break
            pos = close + 1
            continue
        if tag == b"meta":
            name = attrs.get(b"name")
            content = attrs.get(b"content")
            if name is None or content is None:
                continue
            key = _text(name).strip().lower()
            if names is None or key in names:
                found.append((key, _text(content)))
    return found
