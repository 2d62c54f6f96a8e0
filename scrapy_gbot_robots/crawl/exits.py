"""How parked items leave into Scrapy, once the gate released or dropped them.

- A released request goes back through ``engine.crawl()`` (the coordinator's scheduling hook
  recognises it by :attr:`Exits.releasing`, so it passes); a parked request has passed the
  dupefilter when it was parked, so it passes it once more.
- A dropped request, while the crawl runs, goes through the engine once more marked
  ``DROPPED``, so that the download check raises ``IgnoreRequest`` and it reaches its errback
  as a forbidden request does; at the close, only the signal and the stat (as Scrapy's own
  queues do).
- A download waiting in place (:class:`Waiter`: ``engine.download()`` by a media pipeline)
  goes on, or fails with ``IgnoreRequest``.
- An item the lot could not read back (:class:`~..parking.codec.Unreadable`) is told, and
  goes nowhere.

Every one is counted and signalled by :class:`~.telemetry.RequestEvents`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest
from scrapy.http import Request
from twisted.internet.defer import Deferred

from .._meta import BOUNCED, DROPPED, SEEN
from ..parking.codec import Unreadable

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from .lifecycle import Lifecycle
    from .telemetry import RequestEvents


def undecided(reason: str) -> str:
    """``IgnoreRequest``'s message for a request dropped undecided."""
    return f"robots.txt undecided ({reason})"


class Waiter:
    """A request that bypassed the scheduler (``engine.download()``) waiting in place."""

    __slots__ = ("deferred", "request")

    def __init__(self, request: Request) -> None:
        self.request = request
        self.deferred: Deferred[None] = Deferred()


class Exits:
    """Carries out the gate's releases and drops; see the module docstring."""

    __slots__ = ("_crawler", "_events", "_lifecycle", "releasing")

    def __init__(self, crawler: Crawler, lifecycle: Lifecycle, events: RequestEvents) -> None:
        self._crawler = crawler
        self._lifecycle = lifecycle
        self._events = events
        #: The request being put back through ``engine.crawl()`` now, if any.
        self.releasing: Request | None = None

    def release(self, origin: str, items: Sequence[Any], where: str) -> None:
        """Put parked requests back through the engine, oldest first (``where``: the lot)."""
        engine = self._crawler.engine
        assert engine is not None
        events = self._events
        for item in items:
            if isinstance(item, Waiter):
                item.deferred.callback(None)
                continue
            if isinstance(item, Unreadable):
                events.unreadable(origin, item.error, where)
                continue
            request: Request = item
            meta = request.meta
            unfiltered = bool(meta.pop(BOUNCED, False)) | bool(meta.pop(SEEN, False))
            dont_filter = request.dont_filter
            if unfiltered:  # the dupefilter has seen it already: let it through once more
                request.dont_filter = True
            self.releasing = request
            try:
                engine.crawl(request)
            except Exception as exc:  # one bad request must not cost the rest of the queue
                events.dropped(request, origin, f"could not be rescheduled ({type(exc).__name__})")
                continue
            finally:
                self.releasing = None
                request.dont_filter = dont_filter
            events.released()

    def drop(
        self, origin: str, items: Sequence[Any], reason: str, where: str, decided: bool = False
    ) -> None:
        """Give these up: each reaches its errback while the crawl runs; at its end (the
        close's drops), only the signal and the stat, as Scrapy's own queues do (``decided``:
        their robots.txt was decided and they were waiting their turn)."""
        running = self._lifecycle.accepting()
        events = self._events
        for item in items:
            if isinstance(item, Unreadable):
                events.unreadable(origin, item.error, where)
            elif isinstance(item, Waiter):
                events.dropped(item.request, origin, reason)
                item.deferred.errback(IgnoreRequest(undecided(reason)))
            else:
                events.dropped(item, origin, reason, decided=decided)
                if running:
                    self._to_errback(item, reason)

    def _to_errback(self, request: Request, reason: str) -> None:
        """Send a dropped request through the engine: the download check raises for it."""
        meta = request.meta
        meta.pop(BOUNCED, None)
        meta.pop(SEEN, None)
        meta[DROPPED] = reason
        dont_filter = request.dont_filter
        request.dont_filter = True  # the dupefilter may have seen it when it was parked
        try:
            self._crawler.engine.crawl(request)
        except Exception:  # signalled and counted already: it ends there, as before
            meta.pop(DROPPED, None)
        finally:
            request.dont_filter = dont_filter
