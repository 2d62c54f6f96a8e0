"""The Scrapy adapter: the download check, the scheduling hook, the gate's actions, signals.

How a request travels (the rules themselves live in ``policy/`` and ``engine/``, the
per-origin state machine in :mod:`.gate`):

1. **Scheduling** (``request_scheduled``, fired by ``engine.crawl()`` for start requests,
   callback output, redirects and retries alike): the gate decides. A request whose origin
   has no usable decision is *parked* in the gate's lot, outside the scheduler and the
   downloader: raising ``IgnoreRequest`` from the handler keeps it out of the scheduler,
   the mechanism Scrapy's own offsite filtering uses.
2. **Fetch** (:mod:`.fetcher`): at most ``GBOT_ROBOTS_CONCURRENT_FETCHES`` at once, through
   the engine's downloader.
3. **Decision**: the gate releases parked requests through ``engine.crawl()``, or keeps them
   parked while the origin is stopped for server errors, until ``GBOT_ROBOTS_PARK_TIMEOUT``.
   A request given up then goes through ``engine.crawl()`` too, marked ``DROPPED``, to
   reach its errback.
4. **Download** (:meth:`process_request`, the final check): forbidden requests raise
   ``IgnoreRequest``, and so do dropped ones; a request whose origin became undecided
   meanwhile is sent back to step 1 instead of waiting in a download slot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import signals as scrapy_signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import Request, Response
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from .. import _userlog
from .._compat import engine_accepts_requests, engine_scheduler, fail_bootstrap
from .._meta import BOUNCED, DONT_OBEY, DROPPED, FETCH_META, SCHEDULED, SEEN
from .._settings import Config, ConfigError
from ..parking.codec import Unreadable
from ..policy.states import OriginState, note_page_ok, rules_in_force
from . import wiring
from .gate import ParkReason
from .keys import Tokens
from .own_copy import ROBOTS_PATH, own_copy

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

__all__ = ["FETCH_META", "GoogleRobotsTxtMiddleware"]

#: Seconds the spider's close waits for robots.txt fetches to finish deciding.
CLOSE_WAIT = 10.0
_PARKED = "parked until robots.txt is decided"


def _soon(call: Callable[[], object]) -> None:
    """Run ``call`` on the reactor's next turn: outside the signal handler we are in."""
    from twisted.internet import reactor

    clock: Any = reactor
    clock.callLater(0, call)


def _undecided_message(reason: str) -> str:
    return f"robots.txt undecided ({reason})"


class _Waiter:
    """A request that bypassed the scheduler (``engine.download()``) waiting in place."""

    __slots__ = ("deferred", "request")

    def __init__(self, request: Request) -> None:
        self.request = request
        self.deferred: Deferred[None] = Deferred()


class GoogleRobotsTxtMiddleware:
    """Downloader middleware obeying robots.txt as Googlebot does; install it via ``Addon``."""

    def __init__(self, crawler: Crawler, config: Config) -> None:
        self.crawler = crawler
        self.config = config
        parts = wiring.build(crawler, config, self)
        self.keys = parts.keys
        self.store = parts.store
        self.gate = parts.gate
        self.fetcher = parts.fetcher
        self.telemetry = parts.telemetry
        self.verdicts = parts.verdicts
        self.admission = parts.admission
        self.housekeeping = parts.housekeeping
        self._parts = parts  # codec and token source, used once the spider opens
        self._releasing: Request | None = None
        crawler.signals.connect(self._scheduled, signal=scrapy_signals.request_scheduled)
        crawler.signals.connect(self._idle, signal=scrapy_signals.spider_idle)
        crawler.signals.connect(self._opened, signal=scrapy_signals.spider_opened)
        crawler.signals.connect(self._closed, signal=scrapy_signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        _userlog.install()
        try:
            return cls(crawler, wiring.configure(crawler))
        except ConfigError:
            fail_bootstrap(crawler)  # the crawl stops before any request, exit status 1
            raise

    @property
    def token(self) -> Tokens:
        """The crawler-wide product token (or tokens, most specific first)."""
        return self.keys.token

    # -- public helpers -------------------------------------------------------------------
    def origin_state(self, url: str) -> OriginState | None:
        """The remembered robots.txt state of ``url``'s origin (None when unknown)."""
        origin = self.keys.origin(url)
        return self.store.get(origin) if origin else None

    def sitemaps(self, url: str) -> tuple[str, ...]:
        """Sitemap URLs of the robots.txt in force for ``url``'s origin (empty if none yet)."""
        state = self.origin_state(url)
        if state is None:
            return ()
        robots = rules_in_force(state, self.config.clock(), self.config.policy).robots
        return robots.sitemaps if robots is not None else ()

    # -- the download check ---------------------------------------------------------------
    def process_request(self, request: Request, spider: Spider | None = None) -> Any:
        """The final check, on the hot path: obey the rules in force for the origin."""
        meta = request.meta
        if meta.get(DONT_OBEY):
            return None
        if DROPPED in meta:  # given up while parked: on to its errback (counted already)
            raise IgnoreRequest(_undecided_message(meta.pop(DROPPED)))
        url = request.url
        origin = self.keys.origin(url)
        if not origin:
            return None
        if url.endswith(ROBOTS_PATH):  # the spider reads robots.txt itself
            answer = own_copy(request, origin, self.store.get(origin))
            if answer is not None:
                meta.pop(SCHEDULED, None)
                self.telemetry.served_own_copy()
                return answer
        if not self.verdicts.obeyed(request, origin, url):
            return self._undecided(request, origin)
        # The marker has served its purpose: it must not travel with a copied meta.
        meta.pop(SCHEDULED, None)
        return None

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        """Remember that an origin in server error still answers other pages."""
        if response.status < 500 and FETCH_META not in request.meta:
            origin = self.keys.origin(request.url)
            state = self.store.get(origin) if origin else None
            if state is not None:
                updated = note_page_ok(state, self.config.clock())
                if updated is not None:
                    self.store.put(origin, updated)
        return response

    def _undecided(self, request: Request, origin: str) -> Any:
        """A request reached the downloader without a usable decision for its origin.

        A scheduled request goes back to the engine to be parked (no slot held); one that
        bypassed the scheduler (``engine.download()`` by other code) waits here. A request
        sent back once that comes here again without having been parked is a bypassing one
        (a meta copied from a scheduled request): it waits too, so nothing loops.
        """
        meta = request.meta
        if meta.pop(SCHEDULED, False) and not meta.get(BOUNCED):
            meta[BOUNCED] = True
            self.telemetry.bounced(forgotten=self.store.get(origin) is None)
            return request
        meta.pop(BOUNCED, None)
        return self._wait_then_check(request, origin)

    async def _wait_then_check(self, request: Request, origin: str) -> None:
        """Wait in place until the origin is decided, then obey (or raise when dropped)."""
        for _ in range(1000):  # each round waits for a decision: a bound, never reached
            if self.verdicts.obeyed(request, origin, request.url):
                return
            waiter = _Waiter(request)
            reason = self.gate.wait(origin, waiter, self.config.clock())
            if reason is not None:
                self.telemetry.deferred(request, origin, reason)
                await maybe_deferred_to_future(waiter.deferred)  # IgnoreRequest when dropped
        self.telemetry.dropped(request, origin, "robots.txt stayed undecided")
        raise IgnoreRequest("robots.txt stayed undecided")

    # -- the scheduling hook --------------------------------------------------------------
    def _scheduled(self, request: Request, spider: Spider | None = None) -> None:
        """Park requests whose origin is undecided, before they reach the scheduler."""
        meta = request.meta
        if request is self._releasing:
            meta[SCHEDULED] = True
            return
        if meta.get(DONT_OBEY) or DROPPED in meta:
            return
        origin = self.keys.origin(request.url)
        if not origin:
            return
        gate, clock = self.gate, self.config.clock
        reason: ParkReason | None
        if meta.get(BOUNCED):
            gate.bounce(origin, request, clock())
            reason = ParkReason.BOUNCED
            _soon(lambda: gate.check(origin, clock()))
        else:
            reason = gate.schedule(origin, request, clock(), self.admission.admit)
            if reason is None:
                meta[SCHEDULED] = True
                return
        self.telemetry.deferred(request, origin, reason)
        raise IgnoreRequest(_PARKED)

    # -- the gate's actions (see gate.Actions) --------------------------------------------
    def accepting(self) -> bool:
        return not self.fetcher.closing and engine_accepts_requests(self.crawler)

    def fetch(self, origin: str, why: str) -> None:
        self.fetcher.start(origin, why)

    def release(self, origin: str, items: Sequence[Any]) -> None:
        """Put parked requests back through the engine, oldest first."""
        engine = self.crawler.engine
        for item in items:
            if isinstance(item, _Waiter):
                item.deferred.callback(None)
                continue
            if isinstance(item, Unreadable):
                self.telemetry.unreadable(origin, item.error, self.gate.lot.where)
                continue
            request: Request = item
            meta = request.meta
            unfiltered = bool(meta.pop(BOUNCED, False)) | bool(meta.pop(SEEN, False))
            dont_filter = request.dont_filter
            if unfiltered:  # the dupefilter has seen it already: let it through once more
                request.dont_filter = True
            self._releasing = request
            try:
                engine.crawl(request)
            except Exception as exc:  # one bad request must not cost the rest of the queue
                reason = f"could not be rescheduled ({type(exc).__name__})"
                self.telemetry.dropped(request, origin, reason)
                continue
            finally:
                self._releasing = None
                request.dont_filter = dont_filter
            self.telemetry.undeferred()

    def drop(self, origin: str, items: Sequence[Any], reason: str) -> None:
        """Give these up: each reaches its errback while the crawl runs; at its end (the
        close's drops), only the signal and the stat, as Scrapy's own queues do."""
        running = self.accepting()
        for item in items:
            if isinstance(item, Unreadable):
                self.telemetry.unreadable(origin, item.error, self.gate.lot.where)
            elif isinstance(item, _Waiter):
                self.telemetry.dropped(item.request, origin, reason)
                item.deferred.errback(IgnoreRequest(_undecided_message(reason)))
            else:
                self.telemetry.dropped(item, origin, reason)
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
            self.crawler.engine.crawl(request)
        except Exception:  # signalled and counted already: it ends there, as before
            meta.pop(DROPPED, None)
        finally:
            request.dont_filter = dont_filter

    # -- spider lifecycle -----------------------------------------------------------------
    def _opened(self, spider: Spider) -> None:
        gate = self.gate
        budget = gate.budget
        self.telemetry.opened(
            self.token, self._parts.token_source, budget.max_fetches, budget.max_slow
        )
        self.admission.find()
        scheduler = engine_scheduler(self.crawler.engine)
        lot = wiring.fleet_lot(self.config, scheduler, spider, self._parts.codec)
        if lot is not None:
            self.gate.lot.close(persist=True)  # empty so far, or a JOBDIR's: kept for later
            self.gate.use_lot(lot)
            self.telemetry.fleet_parking(lot.where)
        self.telemetry.resumed(self.gate.resume(self.config.clock()), self.gate.lot.where)
        self.housekeeping.start()

    def _idle(self, spider: Spider) -> None:
        if self.gate.busy:
            raise DontCloseSpider

    def _closed(self, spider: Spider, reason: str = "") -> Deferred[None] | None:
        """Let fetches whose download ended finish deciding, then keep or drop what waits.

        The engine waits for in-flight downloads before ``spider_closed``, but the rest of a
        fetch (policy, store, report) may still be queued on the event loop: its result must
        be stored before the store closes and the report is written.
        """
        self.housekeeping.stop()
        waiting = self.fetcher.close(CLOSE_WAIT)  # no release, no new fetch from now on
        if waiting is None:
            self._close(spider, reason)
            return None
        waiting.addBoth(lambda _: self._close(spider, reason))
        return waiting

    def _close(self, spider: Spider, reason: str) -> None:
        gate, telemetry, lot = self.gate, self.telemetry, self.gate.lot
        persist = bool(self.crawler.settings.get("JOBDIR")) or lot.shared
        kept = gate.close(persist=persist, reason=f"spider closed ({reason})")
        telemetry.persisted(kept, lot.where, lot.shared)
        telemetry.closed(gate, self.store)
        telemetry.components(self.store, lot)
        if self.store.persistent is not None:
            self.store.persistent.close()
            telemetry.components(self.store, lot)  # writes given up at close
        telemetry.write_report(
            spider,
            reason,
            user_agent=self.token,
            settings={
                "concurrent_fetches": gate.budget.max_fetches,
                "cache": self.config.cache[0],
                "park_timeout": self.config.park_timeout,
                "mode": self.config.mode,
            },
            paths=self.config.report,
        )
