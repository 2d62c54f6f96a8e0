"""What a page's answer tells the crawl about its origin, apart from the page itself.

- **The 30-day rule's evidence** (:meth:`PageAnswers.answered`, from the middleware's
  ``process_response``): an origin in a robots.txt server-error streak whose other pages
  answer shows the site serving (the policy says which answers count: not a ``429`` nor a
  ``5xx``, :func:`~..policy.fetch.note_page_answer`).
- **The back-off** (:mod:`.backoff`): a page's answer, seen through Scrapy's
  ``response_downloaded`` before any downloader middleware (Scrapy's retry included), or its
  network error (:data:`PAGE_FAILED`, from ``crawl/network_errors_middleware.py``), goes to
  the gate; a distress that begins a back-off is shared with the fleet
  (``stores/redis_backoff.py``), and the origin's requests queued in their download slot but
  not sent are taken out, to be parked with the rest. What another worker shares arrives as
  :data:`BACKOFF_HEARD`. robots.txt's and tdmrep.json's own answers have rules of their own
  and are not read here.

Built by the coordinator, which holds it (Scrapy holds signal receivers weakly); it connects
its own signals, only when ``GBOT_ROBOTS_BACKOFF`` is on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy import signals as scrapy_signals
from scrapy.http import Request

from .._compat import withdraw_queued
from .._meta import BOUNCED, DONT_OBEY, FETCH_META, TDMREP_FETCH
from ..policy.fetch import note_page_answer

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from ..stores.redis_backoff import FleetBackoffs
    from ..stores.tiered import TieredStore
    from .backoff import Began
    from .gate import Gate
    from .lifecycle import Lifecycle
    from .request_keys import RequestKeys
    from .telemetry import RequestEvents

__all__ = ["BACKOFF_HEARD", "PAGE_FAILED", "PageAnswers"]

#: A private signal of the crawler's: another worker of the fleet put an origin in back-off
#: (``origin``, ``seconds``), heard by ``stores/redis_backoff.py``.
BACKOFF_HEARD = object()

#: A private signal of the crawler's: a page's download failed with a network error before
#: Scrapy's retry saw it (``request``, ``failure``: the error's name), sent by
#: ``crawl/network_errors_middleware.py``.
PAGE_FAILED = object()


class PageAnswers:
    """A page's answer or network error, told to the store and the gate; see the module doc."""

    def __init__(
        self,
        crawler: Crawler,
        *,
        keys: RequestKeys,
        store: TieredStore,
        clock: Callable[[], float],
        lifecycle: Lifecycle,
        events: RequestEvents,
        gate: Callable[[], Gate[Any] | None],
        carry_out: Callable[[], None],
        backoff: bool,
        fleet_backoffs: FleetBackoffs | None,
    ) -> None:
        self._crawler = crawler
        self._keys = keys
        self._store = store
        self._clock = clock
        self._lifecycle = lifecycle
        self._events = events
        self._gate = gate  # the coordinator's, built when the spider opens
        self._carry_out = carry_out
        self._fleet_backoffs = fleet_backoffs
        if backoff:
            signals = crawler.signals
            signals.connect(self.downloaded, scrapy_signals.response_downloaded)
            signals.connect(self.heard, BACKOFF_HEARD)
            signals.connect(self.failed, PAGE_FAILED)

    def answered(self, request: Request, response: Response) -> Response:
        """Remember that an origin in server error still serves other pages."""
        if FETCH_META not in request.meta:
            origin = self._keys.origin(request.url)
            state = self._store.get(origin) if origin else None
            if state is not None:
                updated = note_page_answer(state, response.status, self._clock())
                if updated is not None:
                    self._store.put(origin, updated)
        return response

    def downloaded(
        self, response: Response, request: Request, spider: Spider | None = None
    ) -> None:
        """``response_downloaded``: the answer's status and ``Retry-After`` to the back-off."""
        header = response.headers.get(b"Retry-After")
        self._told(request, response.status, header.decode("latin-1") if header else None)

    def failed(self, request: Request, failure: str) -> None:
        """``PAGE_FAILED``: a page's network error, one distress as a 5xx without Retry-After
        is (Google's rule), unless the close cut the download short."""
        if not self._lifecycle.closing:
            self._told(request, 0, None, failure)

    def heard(self, origin: str, seconds: float) -> None:
        """``BACKOFF_HEARD``: another worker of the fleet put ``origin`` in back-off."""
        gate, now = self._gate(), self._clock()
        began = gate.heard(origin, now + seconds, now) if gate is not None else None
        if began is not None:
            self._backing_off(began, Request(origin + "/"))

    def _told(
        self, request: Request, status: int, retry_after: str | None, failure: str = ""
    ) -> None:
        gate, meta = self._gate(), request.meta
        if gate is None or FETCH_META in meta or TDMREP_FETCH in meta:
            return
        origin = self._keys.origin(request.url)
        began = gate.answered(origin, status, retry_after, self._clock(), failure)
        if began is not None:
            if self._fleet_backoffs is not None:
                self._fleet_backoffs.share(origin, began.delay)
            self._backing_off(began, request)

    def _backing_off(self, began: Began, request: Request) -> None:
        """Take the origin's requests not yet sent out of ``request``'s download slot (to be
        parked with the rest), tell, and carry out what the gate decided."""
        origin, origin_of = began.origin, self._keys.origin
        withdrawn = withdraw_queued(
            self._crawler.engine,
            request,
            lambda queued: origin_of(queued.url) == origin and not queued.meta.get(DONT_OBEY),
            lambda queued: queued.meta.__setitem__(BOUNCED, True),
        )
        self._events.backoff_began(began, withdrawn)
        self._carry_out()
