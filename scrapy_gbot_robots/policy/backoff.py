"""Which page answers ask a crawler to slow down, and for how long: Googlebot's back-off.

Google's "Reduce the Google crawl rate" page: a site that answers ``500``, ``503`` or ``429``
sees Google's crawlers slow down on the whole host, and may say when to come back with
``Retry-After`` (seconds or an HTTP date) on a ``503`` or a ``429``. Google's "HTTP status
codes, network and DNS errors" page: every ``5xx`` and ``429`` "prompt Google's crawlers to
temporarily slow down", and network timeouts, resets and DNS errors are treated as ``5xx``.
So the distress statuses are ``429`` and ``500``-``599``, and a page's network error is one
too (docs/crawling.md, "Back-off"). robots.txt's own answers are read by :mod:`.fetch`;
these are the pages'.

The wait: the server's ``Retry-After`` when it names one above zero (the parser is
robots.txt's, :func:`.fetch.retry_after_seconds`), else a back-off that doubles with each
distress in a row (:data:`BASE` seconds the first time); both capped at ``cap``
(``GBOT_ROBOTS_BACKOFF_MAX``). Pure: time is an argument.
"""

from __future__ import annotations

from .fetch import retry_after_seconds

__all__ = ["BASE", "backoff_delay", "is_distress"]

#: The first back-off, in seconds, when the server names no ``Retry-After``.
BASE = 1.0


def is_distress(status: int, failure: str = "") -> bool:
    """Whether a page's answer asks the crawler to slow down (``429`` or any ``5xx``), or its
    download failed with a network error (``failure``, the error's name): Google's "HTTP
    status codes, network and DNS errors" page treats timeouts, resets and DNS errors as
    ``5xx``, and its crawling "starts slowing down" at once on a network error."""
    return bool(failure) or status == 429 or 500 <= status <= 599


def backoff_delay(
    retry_after: str | None, streak: int, now: float, cap: float
) -> tuple[float, bool]:
    """``(seconds to wait, whether the server named them)`` after the ``streak``-th distress
    in a row (1 for the first). A ``Retry-After`` of zero, in the past or unreadable names
    nothing; one beyond ``cap`` is capped (it is a server's wish, and a crawl's requests wait
    at most ``GBOT_ROBOTS_PARK_TIMEOUT`` anyway)."""
    asked = retry_after_seconds(retry_after, now)
    if asked is not None and asked > 0:
        return min(asked, cap), True
    return min(BASE * 2.0 ** min(max(streak, 1) - 1, 60), cap), False
