"""Signals this plugin sends, for users who want to hook them.

Each is a plain ``object()`` sentinel, as Scrapy's own signals are; connect with
``crawler.signals.connect(handler, signal=scrapy_gbot_robots.signals.request_parked)``.
Scrapy's own ``robots_parsed`` signal is sent too (see docs/signals.md). Each comment names
the method of ``crawl/telemetry.py`` that sends the signal, the only one that does
(``tests/test_project.py::test_each_signal_is_sent_where_its_comment_says``).

The 0.2 names ``request_deferred`` and ``request_dropped`` still work until 0.4: each is the
same object as its new name, with a deprecation warning when it is read.
"""

from __future__ import annotations

import warnings

#: Sent by ``RequestEvents.parked``: a request was parked (it waits outside the scheduler and
#: the downloader) because its origin's robots.txt is not fetched yet, being fetched, or
#: stopped by server errors: from the scheduling hook, sent back from the downloader, or a
#: download waiting in place; or, its origin decided, a start request taken while the engine
#: was full waits its turn. Each is later released, dropped (``parked_request_dropped``) or
#: kept with ``JOBDIR``. Arguments: ``request``, ``spider``.
request_parked = object()

#: Sent by ``RequestEvents.dropped`` and ``RequestEvents.tdmrep_dropped``: a request was
#: given up before robots.txt let it go on: a parked one at its deadline
#: (``GBOT_ROBOTS_PARK_TIMEOUT``), at the close (no ``JOBDIR``, or it could not be
#: serialised), or when the engine refused it on release; or a download waiting in place
#: whose origin is stopped by server errors (``reason`` ``"stopped"``); or, without
#: ``JOBDIR``, one that waited for a ``tdmrep.json`` the close left unread.
#: Not Scrapy's ``request_dropped`` (the scheduler refused a request).
#: Arguments: ``request``, ``spider``, ``reason`` (str).
parked_request_dropped = object()

#: Sent by ``RequestEvents.forbidden``: a request is refused by robots.txt (a rule, or a
#: content-usage signal of ``GBOT_ROBOTS_USAGE``), just before ``IgnoreRequest``; never in
#: observe mode. Arguments: ``request``, ``spider``, ``decision`` (a ``Decision``).
request_forbidden = object()

#: Sent by ``RequestEvents.nofollow_dropped``: ``GBOT_ROBOTS_PAGE_RULES = "obey"``, a request
#: yielded by a callback was dropped because the page it came from says ``nofollow``.
#: Arguments: ``request``, ``response`` (the page), ``spider``, ``sources`` (tuple of str:
#: where ``nofollow`` came from, ``"meta:robots"``...).
request_dropped_nofollow = object()

#: Sent by ``RequestEvents.usage_withheld``: with ``GBOT_ROBOTS_USAGE``, a response whose
#: ``Content-Usage`` header or TDMRep header or meta refuses one of the crawl's uses is not
#: handed to its callback. Arguments: ``request``, ``response``, ``spider``, ``category``
#: (str, ``"train-ai"``...), ``source`` (str, ``"header"``, ``"tdm-header"``, ``"meta"``),
#: ``where`` (str: the header or the meta as read).
response_withheld = object()

#: Sent by ``FetchEvents.decided``: an origin's robots.txt state changed kind or reason
#: (fetched, or read back from the store). Arguments: ``origin`` (str), ``state`` (str),
#: ``spider``.
origin_state_changed = object()

#: The 0.2 names: old -> new. Read, an old name warns and gives the new one's object.
RENAMED = {
    "request_deferred": "request_parked",
    "request_dropped": "parked_request_dropped",
}


def __getattr__(name: str) -> object:
    """The 0.2 names, with a deprecation warning naming the new one (until 0.4)."""
    new = RENAMED.get(name)
    if new is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from scrapy.exceptions import ScrapyDeprecationWarning

    warnings.warn(
        f"scrapy_gbot_robots.signals.{name} is deprecated: use {new}, the same signal",
        ScrapyDeprecationWarning,
        stacklevel=2,
    )
    signal: object = globals()[new]
    return signal
