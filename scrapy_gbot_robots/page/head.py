"""The ``<meta name=... content=...>`` tags of an HTML page's head, with bounded work.

Google reads the robots ``meta`` tag in the ``<head>`` ("Place the robots meta tag in the
<head> section of a given page"). Where the head ends is HTML's rule (the "in head" and
"after head" insertion modes of the HTML standard), which is also where a browser, and
Google's renderer, ends it: at ``<body>``, at the first start tag that cannot be in a head
(``<div>``, ``<img>``, ``<p>``...: the parser opens the body there, and a ``meta`` after it
is in the body), or at the first text that is not whitespace. A ``meta`` between ``</head>``
and ``<body>`` is in the head ("after head" inserts it there; ``<noscript>`` opens the body
there). Inside the head:

* comments, ``<!DOCTYPE>`` and ``<?...>`` are skipped, as HTML's tokenizer reads them
  (``<!-->`` and ``<!--->`` are whole comments, ``--!>`` ends one, ``<!x>`` and ``</ x>`` are
  bogus comments to the first ``>``);
* the contents of ``<script>``, ``<style>``, ``<title>``, ``<noscript>`` (raw text for a
  browser with scripting, as Google's renderer is), ``<noframes>`` and ``<template>`` (inert
  content) are skipped to their end tag, so a ``<meta`` or a ``</head>`` inside a script
  string is not read;
* attributes are read in any order, quoted with ``"`` or ``'`` or unquoted, names in any case,
  the first of a repeated attribute winning (as in HTML); values have their character
  references decoded (``&amp;``, ``&#44;``), as in an attribute value (``&copy=1`` stays), the
  name's too: a meta tag with a numeric reference (``&#``) counts as a mention of a wanted
  name (no ASCII letter has a named reference).

Fast and bounded: a page that mentions none of the wanted names (``robots``, the crawler's
tokens) is answered by ``bytes.find`` on a lower-cased 16 KiB chunk; otherwise everything up
to the next mention is skipped by one regular expression, in C, so Python code runs once per
mention, not once per tag of the head. At most :data:`HEAD_LIMIT` bytes are looked at and at
most :data:`MAX_TAGS` steps taken, whatever the page (a head longer than that is all inline
scripts and styles in practice); the only copies are those chunks, one at a time. Bytes are
read as ASCII-compatible text (UTF-8, Latin-1, Windows-125x...): a UTF-16 page has no meta
tag to this reader. Never raises on any bytes.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import functools
import html
import re
from html.entities import html5 as html5_entities

__all__ = ["HEAD_LIMIT", "MAX_TAGS", "meta_tags", "read_metas"]

#: Bytes of the body looked at, at most.
HEAD_LIMIT = 256 * 1024
#: Meta tags read, at most (the other tags of a head are skipped in one regex call).
MAX_TAGS = 2_000
#: Characters of an attribute value kept (a robots ``content`` is a few dozen).
VALUE_CHARS = 2_048
#: Attributes read per tag; the rest of a longer tag is skipped to its ``>``.
MAX_ATTRIBUTES = 64

#: Start tags HTML keeps inside a head (``meta`` apart); any other start tag opens the body.
_IN_HEAD = rb"html|head|link|base|basefont|bgsound|command"
#: Elements whose content is skipped to their end tag (raw text, or inert content).
_RAW = rb"script|style|title|noscript|noframes|template"
#: After ``</head>`` (HTML's "after head" insertion mode), the same elements go into the head,
#: but for ``<noscript>``, which opens the body there.
_RAW_AFTER = rb"script|style|title|noframes|template"
_BOUNDARY = rb"(?=[\t\n\f\r />])"
#: The rest of a tag after its name, a quoted value kept whole (a ``>`` inside quotes).
#: Every pattern here is "unrolled" (a fast run of one character class, then the rare
#: exception, then a run again), so the regex engine does not loop per character.
_REST = rb"""[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>"""

_ATTR = re.compile(
    rb"[\t\n\f\r /]*(?P<name>[^\t\n\f\r />][^\t\n\f\r />=]*)"
    rb"(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|(?P<uq>[^\t\n\f\r >]*)))?"
)
_TAG_END = re.compile(rb"[\t\n\f\r /]*>")
_META = re.compile(rb"<meta" + _BOUNDARY, re.IGNORECASE)
#: ``</head>``: the head's end tag, after which HTML still puts a ``meta`` into the head.
_HEAD_END = re.compile(rb"</head" + _BOUNDARY + _REST, re.IGNORECASE)

#: A comment as HTML's tokenizer reads one: ``<!-->`` and ``<!--->`` are whole (empty)
#: comments, and ``--!>`` ends one as ``-->`` does.
_COMMENT = rb"<!--(?:>|->|[^-]*(?:-(?!-!?>)[^-]*)*--!?>)"


def _one(ends: bytes, raw: bytes) -> bytes:
    """One thing a head may hold that is not a meta tag worth reading: whitespace, a comment,
    ``<!DOCTYPE>`` or ``<?...>`` (bogus comments: to the first ``>``), an end tag HTML
    ignores there (all but ``ends``; ``</>`` and ``</ x>`` too), a start tag it keeps there,
    a whole raw-text element (``raw``)."""
    # The alternatives start differently ("<x", "</", "<!", "<?"), so their order changes
    # nothing but speed: the tags a head is made of first.
    return (
        rb"[ \t\n\r\f]+"
        rb"|<(?:" + _IN_HEAD + rb")" + _BOUNDARY + _REST
        + rb"|<(?P<raw>" + raw + rb")" + _BOUNDARY + _REST
        + rb"[^<]*(?:<(?!/(?P=raw)" + _BOUNDARY + rb")[^<]*)*</(?P=raw)" + _BOUNDARY + rb"[^>]*>"
        rb"|</(?:(?!(?:" + ends + rb")" + _BOUNDARY + rb")[A-Za-z]" + _REST
        + rb"|(?![A-Za-z])[^>]*>)"
        rb"|" + _COMMENT + rb"|<!(?!--)[^>]*>|<\?[^>]*>"
    )  # fmt: skip


def _skips(ends: bytes, raw: bytes) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """Any run of :func:`_one`'s things (everything up to the next meta tag, or the end of
    the head); and any run of those and of meta tags, used only before the next mention of
    a wanted name, where no meta tag can be one worth reading."""
    one = _one(ends, raw)
    return (
        re.compile(rb"(?:" + one + rb")*", re.IGNORECASE),
        re.compile(rb"(?:" + one + rb"|<meta" + _BOUNDARY + _REST + rb")*", re.IGNORECASE),
    )


#: In the head ("in head"): ``</head>`` ends it (then "after head" below), as do
#: ``</body>``, ``</html>`` and ``</br>``.
_SKIP, _SKIP_METAS = _skips(rb"head|body|html|br", _RAW)
#: After ``</head>``: a further ``</head>`` is ignored, ``<noscript>`` opens the body.
_SKIP_AFTER, _SKIP_METAS_AFTER = _skips(rb"body|html|br", _RAW_AFTER)


#: Bytes lower-cased at a time to look for the next mention of a wanted name.
CHUNK = 16 * 1024


@functools.lru_cache(maxsize=64)
def _mentions(names: frozenset[str]) -> tuple[tuple[bytes, ...], int]:
    """The wanted names as lower-case bytes, and the longest one's length."""
    words = tuple(sorted({n.lower().encode("utf-8") for n in names if n}))
    return words, max((len(w) for w in words), default=1)


#: A meta tag with a numeric character reference: its name may be a wanted one written with
#: references (``name="&#114;obots"``), which no search for the name's bytes finds. (ASCII
#: letters have no named reference.)
_REFERENCE_IN_META = re.compile(rb"<meta[^>]*&#")


def _next(words: tuple[bytes, ...], longest: int, body: bytes, pos: int, end: int) -> int:
    """Where the next mention of a wanted name may start: the first one within the next
    :data:`CHUNK` bytes (found in a lower-cased copy of them: ``bytes.find`` is much faster
    than a case-insensitive regex), or the first meta tag there with a numeric character
    reference, else the last place one could start without showing in that chunk, or
    ``end``. So no byte far beyond the head is ever looked at. (A meta tag that a chunk's end
    cuts in two is read whole by the caller, which never skips a tag past this place.)"""
    stop = min(pos + CHUNK, end)
    # A small page whole: one copy (the lower-cased one), not two.
    chunk = body.lower() if pos == 0 and stop == len(body) else body[pos:stop].lower()
    best = -1
    for word in words:
        found = chunk.find(word)
        if found >= 0 and (best < 0 or found < best):
            best = found
    amp = chunk.find(b"&")  # one byte: memchr, the cheapest look there is
    if amp >= 0 and (best < 0 or amp < best):
        tag = _REFERENCE_IN_META.search(chunk, 0, best if best >= 0 else len(chunk))
        if tag is not None:
            best = tag.start()
    if best >= 0:
        return pos + best
    return end if stop >= end else max(pos + 1, stop - longest + 1)


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
    """An attribute value as text: UTF-8 (invalid bytes replaced), references decoded as in
    an attribute value (:func:`_unescape_attribute`)."""
    text = raw[: VALUE_CHARS * 2].decode("utf-8", "replace")
    return _unescape_attribute(text)[:VALUE_CHARS] if "&" in text else text[:VALUE_CHARS]


#: A character reference as ``html.unescape`` finds one (the same pattern as its own).
_CHARREF = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")


def _unescape_attribute(text: str) -> str:
    """``html.unescape`` with HTML's one rule for attribute values: a named reference without
    its ``;`` that is followed by ``=`` or a letter or digit stays as written
    (``content="a&copy=1"`` keeps ``&copy=1``; in text it would be ``©=1``)."""
    return _CHARREF.sub(_reference, text)


def _reference(match: re.Match[str]) -> str:
    ref = match.group(1)
    if ref[0] == "#" or ref in html5_entities:
        return html.unescape(match.group(0))
    for cut in range(len(ref) - 1, 1, -1):  # the longest legacy name (no ';') it starts with
        name = ref[:cut]
        if name in html5_entities:
            after = ref[cut]
            if after == "=" or (after.isascii() and after.isalnum()):
                return match.group(0)
            return html5_entities[name] + ref[cut:]
    return match.group(0)


def meta_tags(
    body: bytes, names: frozenset[str] | None = None, limit: int = MAX_TAGS
) -> list[tuple[str, str]]:
    """``(name, content)`` of each ``meta`` tag of the head, in order, name lower-cased.

    ``names``: only tags whose name (stripped, lower-cased) is in it are returned. A tag
    without a ``name`` or without a ``content`` attribute is not returned. At most ``limit``
    are returned, and at most :data:`MAX_TAGS` steps taken.
    """
    return read_metas(body, names, limit)[0]


def read_metas(
    body: bytes, names: frozenset[str] | None = None, limit: int = MAX_TAGS
) -> tuple[list[tuple[str, str]], bool]:
    """:func:`meta_tags`, and whether a bound stopped the reading while the head went on
    (a wanted tag past the first ``limit``, :data:`MAX_TAGS` steps, or :data:`HEAD_LIMIT`
    bytes): a tag past it was not read.

    How it is fast: a page that mentions none of ``names`` (most pages, for a crawler's own
    token) is answered by one ``find`` per name, in C. Otherwise everything before the next
    mention is skipped by one regex call (:data:`_SKIP_METAS`: metas included, since none
    there can be addressed to us), and Python code runs only at each mention: once per meta
    tag worth reading, not once per tag of the head.
    """
    found: list[tuple[str, str]] = []
    end = min(len(body), HEAD_LIMIT)
    cut = end < len(body)  # the body goes on past what is looked at
    pos = 3 if body.startswith(b"\xef\xbb\xbf") else 0  # a UTF-8 byte order mark
    words, longest = _mentions(names) if names is not None else ((), 1)
    mention = _next(words, longest, body, pos, end) if words else pos
    if mention >= end:
        return found, False  # no wanted name anywhere: no meta tag to read
    skip, skip_metas = _SKIP, _SKIP_METAS
    for _ in range(MAX_TAGS):
        if pos < mention:
            run = skip_metas.match(body, pos, mention)
            pos = run.end() if run is not None else pos
        # Up to the next meta tag, or the head's end; past the mention when what holds it is
        # not a meta tag (``<link href="/robots.txt">``, a script).
        run = skip.match(body, pos, end)
        pos = run.end() if run is not None else pos
        if pos >= end:
            return found, cut  # the head reached the bytes' bound, or the body's end
        if _META.match(body, pos, end) is None:
            closing = _HEAD_END.match(body, pos, end) if skip is _SKIP else None
            if closing is not None:  # "after head": a meta there still goes into the head
                skip, skip_metas, pos = _SKIP_AFTER, _SKIP_METAS_AFTER, closing.end()
                continue
            # What ends a head (text, <body>, another element), unless it is a tag the
            # bytes' bound cut in two.
            return found, cut and body.find(b">", pos, end) < 0
        attrs, pos = attributes(body, pos + 5, end)
        if words and pos > mention:
            mention = _next(words, longest, body, pos, end)
        name = attrs.get(b"name")
        content = attrs.get(b"content")
        if name is not None and content is not None:
            key = _text(name).strip().lower()
            if names is None or key in names:
                if len(found) >= limit:
                    return found, True  # one more wanted tag than returned
                found.append((key, _text(content)))
        if mention >= end:
            return found, False  # no wanted name further on: no meta tag left to read
    return found, True  # MAX_TAGS steps
