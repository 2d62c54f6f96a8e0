"""The form of a URL that a crawler requests, which is what robots.txt rules are matched against.

Two forms, for two questions. :func:`sendable_url` answers "what does Google say about this
URL?" (``gbot-robots check`` and ``fetch``): the URL as written, changed only where no crawler
can send it as written. :func:`crawler_url` answers "what does Google say about the request
Scrapy makes for this URL?" (``GoogleRobotParser``): Scrapy's own encoding of ``request.url``.

Google's matcher compares the URL literally and expects it percent-encoded (RFC 3986), the way
a crawler sends it: ``Disallow: /wiki/Käyttäjä:`` is stored as ``/wiki/K%C3%A4ytt%C3%A4j%C3%A4:``
and matches that request, not the raw string ``/wiki/Käyttäjä:``. Scrapy encodes every
``request.url`` with ``w3lib.url.safe_url_string``; :func:`crawler_url` applies the same
encoding, so a raw URL gets the verdict of the URL that is actually requested.

The engine (``parse(...).allowed``/``decide``) stays literal, exactly Google's library; the
Scrapy parser calls :func:`crawler_url` first, ``gbot-robots`` calls :func:`sendable_url`.
Pure Python: w3lib (a Scrapy dependency, not Scrapy itself) is imported only when
:func:`crawler_url` has a URL to encode.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

# Every character here is left as it is by safe_url_string in a path, a query and a fragment
# (w3lib's _PATH_SAFEST_CHARS and _SPECIAL_QUERY_SAFEST_CHARS, '%' included: an escape, valid
# or not, is kept as written). Left out, so such URLs take the slow path:
#   space, controls, DEL, non-ASCII    percent-encoded (tab, CR, LF removed; ends stripped)
#   " < > [ ] ^ ` { | }                percent-encoded in the path
#   '                                  percent-encoded in the query of http(s) URLs
#   \                                  read as "/" (WHATWG)
#   ;                                  Google's path starts at a ';' in the authority
#                                      ("https://Host;x/"), whose case safe_url_string changes
# An empty query ("/x?" or "/x?#top") is dropped, so those URLs take the slow path too, as do
# URLs that do not start with "http://" or "https://" (another scheme, an upper-case one, a
# relative or protocol-relative URL): there w3lib may find the authority elsewhere than Google
# finds the path ("//a://b/c"). tests/engine/test_url.py checks all this against w3lib itself.
_HTTP = ("https://", "http://")
_NO_HOST = ("http:///", "https:///")
_KEPT = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#@!$&()*+,=%"


def is_crawler_form(url: str) -> bool:
    """True when encoding cannot change the part of ``url`` a verdict depends on.

    That part is Google's path, params and query; safe_url_string may still lower-case the
    host, write ``:080`` as ``:80`` or escape a second ``#``, which no rule sees.
    """
    # bytes.translate with a delete table is one C loop: ~0.3 us for a 70-character URL.
    return (
        url.startswith(_HTTP)
        and not url.startswith(_NO_HOST)  # w3lib versions disagree on an empty host's path
        and url.isascii()
        and not url.encode("ascii").translate(None, _KEPT)
        and "?#" not in url
        and url[-1:] != "?"
    )


def crawler_url(url: str | bytes) -> str:
    """``url`` as a crawler requests it: ``w3lib.url.safe_url_string(url)``, as Scrapy does.

    A URL already in that form comes back unchanged, without calling w3lib (its host keeps
    its case, which no rule can see; see :func:`is_crawler_form`). A URL that
    safe_url_string rejects (``https://host:99999/``) comes back as given, to be matched
    literally: no crawler can request it anyway. Bytes are read as UTF-8 with invalid bytes
    percent-encoded, as w3lib does.
    """
    if isinstance(url, str) and is_crawler_form(url):
        return url
    return _encoded(url)


@cache
def _safe_url_string() -> Callable[[str | bytes], str]:
    """w3lib's encoder, imported on first use (an import statement per call costs ~1 us)."""
    from w3lib.url import safe_url_string

    return safe_url_string


def _encoded(url: str | bytes) -> str:
    try:
        return _safe_url_string()(url)
    except ValueError:  # UnicodeError included
        if isinstance(url, bytes):
            return url.decode("utf-8", "backslashreplace")
        return url


# ----------------------------------------------------------------------------- as written

#: Removed from a URL before anything else, as every URL parser does (WHATWG URL standard):
#: C0 controls and spaces at either end, and tabs and newlines anywhere.
_ENDS = "".join(chr(c) for c in range(0x21))
_TAB_NEWLINE = {ord("\t"): None, ord("\n"): None, ord("\r"): None}


def sendable_url(url: str | bytes) -> str:
    """``url`` as a crawler sends it, changed only where it cannot be sent as written.

    A URL made of printable ASCII (U+0021 to U+007E) comes back unchanged: a crawler can send
    every one of those characters, so Google's matcher sees it literally (``/?`` stays ``/?``,
    ``%7E`` and ``~`` stay apart, ``|`` stays ``|``). Otherwise, as every URL parser does,
    controls and spaces at either end and tabs and newlines anywhere are removed; then every
    character outside printable ASCII (a space, a control, DEL, non-ASCII) is %-encoded as
    UTF-8, and a byte that is not UTF-8 as itself, in the path, query and fragment. The host
    of an ``http(s)://`` URL is left as written: no rule sees it.
    """
    if isinstance(url, str) and url.isascii() and url.isprintable() and " " not in url:
        return url  # one C loop each: the common case costs no Python loop
    text = url.decode("utf-8", "surrogateescape") if isinstance(url, bytes) else url
    text = text.strip(_ENDS).translate(_TAB_NEWLINE)
    host_end = _host_end(text)
    return _percent(text[:host_end], host=True) + _percent(text[host_end:], host=False)


def _host_end(text: str) -> int:
    """Where the authority of an ``http(s)://`` URL ends (0 for any other string)."""
    for scheme in _HTTP:
        if text.startswith(scheme):
            ends = [i for i in (text.find(c, len(scheme)) for c in "/?;#") if i >= 0]
            return min(ends, default=len(text))
    return 0


def _percent(text: str, host: bool) -> str:
    """%-encode what cannot be sent; in the host, printable non-ASCII characters are kept."""
    out = []
    for ch in text:
        cp = ord(ch)
        if 0xDC80 <= cp <= 0xDCFF:  # a byte that is not UTF-8, as surrogateescape carries it
            out.append(f"%{cp - 0xDC00:02X}")
        elif 0x21 <= cp <= 0x7E or (host and cp > 0x9F and ch.isprintable()):
            out.append(ch)
        else:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
    return "".join(out)
