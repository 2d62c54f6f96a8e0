"""The form of a URL that a crawler requests, which is what robots.txt rules are matched against.

Google's matcher compares the URL literally and expects it percent-encoded (RFC 3986), the way
a crawler sends it: ``Disallow: /wiki/Käyttäjä:`` is stored as ``/wiki/K%C3%A4ytt%C3%A4j%C3%A4:``
and matches that request, not the raw string ``/wiki/Käyttäjä:``. Scrapy encodes every
``request.url`` with ``w3lib.url.safe_url_string``; :func:`crawler_url` applies the same
encoding, so a raw URL gets the verdict of the URL that is actually requested.

The engine (``parse(...).allowed``/``decide``) stays literal, exactly Google's library; the
Scrapy parser and ``gbot-robots check`` call :func:`crawler_url` first. Pure Python: w3lib (a
Scrapy dependency, not Scrapy itself) is imported only when a URL needs encoding.
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
# finds the path ("//a://b/c"). tests/test_url.py checks all this against w3lib itself.
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
