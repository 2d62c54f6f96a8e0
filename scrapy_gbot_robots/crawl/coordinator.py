"""The crawl's one owner: carries out what the gate decides, from the open to the close.

How a request travels (the rules themselves live in ``policy/`` and ``engine/``, the
per-origin state machine in :mod:`.gate`):

1. **Scheduling** (``request_scheduled``, fired by ``engine.crawl()`` for start requests,
   callback output, redirects and retries alike): the gate decides. A request whose origin
   has no usable decision is *parked* in the gate's lot, outside the scheduler and the
   downloader: raising ``IgnoreRequest`` from the handler keeps it out of the scheduler,
   the mechanism Scrapy's own offsite filtering uses. So is a decided origin's start request
   taken while the engine is full (Scrapy pours ``start()`` out then): it waits its turn
   (step 3) instead of in the scheduler.
2. **Fetch** (:mod:`.robots_fetch`): at most the fetch budget's limit at once, which the tick
   paces (:mod:`.pacing`) within ``GBOT_ROBOTS_CONCURRENT_FETCHES_MIN`` and
   ``GBOT_ROBOTS_CONCURRENT_FETCHES``, through the engine's downloader, the way the request
   that made it wanted travels.
3. **Decision**: the gate releases parked requests through ``engine.crawl()``, a few per turn
   of the event loop (``GBOT_ROBOTS_RELEASE_PER_TURN``, :mod:`.ready`), or keeps them
   parked while the origin is stopped for server errors, until ``GBOT_ROBOTS_PARK_TIMEOUT``.
   A request given up then goes through ``engine.crawl()`` too, marked ``DROPPED``, to
   reach its errback. From the moment a request passes (or is released) until the download
   check sees it (or the scheduler refuses it: ``request_dropped``), its origin's state is
   pinned in the store, so it is never forgotten and fetched again meanwhile.
4. **Download** (:meth:`Coordinator.check`, the final check): forbidden requests raise
   ``IgnoreRequest``, and so do dropped ones; a request whose origin became undecided
   meanwhile is sent back to step 1 instead of waiting in a download slot. A request that
   bypassed the scheduler (``engine.download()``: media pipelines) waits in place for its
   origin's fetch, never for a retry.

The gate writes its effects into an outbox; the coordinator carries them out after each
event, so every call goes one way: middleware → coordinator → gate, fetcher, telemetry.
The close (:mod:`.lifecycle`) is consulted by every step: nothing is released into a closing
crawl, no download starts that the engine would not wait for, and once ``spider_closed``
has waited (bounded) for the fetches in flight, nothing more is decided or stored; the
report is written last.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals as scrapy_signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import Request
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from .._compat import (
    call_later,
    crawl_load,
    engine_full,
    engine_scheduler,
    listen,
    looping_call,
    settle,
    wake_engine,
)
from .._meta import BOUNCED, DONT_OBEY, DROPPED, FETCH_META, SCHEDULED, SEEN, START
from ..parking.codec import Unreadable
from ..policy.fetch import note_page_answer
from ..policy.origin import robots_url
from ..policy.states import OriginState, rules_in_force
from .effects import Drop, Fetch, FetchReason, Outbox, SendOn
from .gate import ParkReason
from .lots import fleet_lot
from .own_copy import ROBOTS_PATH, own_copy
from .robots_fetch import Outcome, route_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from .._compat import Loop
    from .._settings import Config
    from ..engine.rules import Tokens
    from ..parking.codec import RequestCodec
    from ..stores.tiered import TieredStore
    from .admission import Admission
    from .gate import Gate
    from .lifecycle import Lifecycle
    from .lots import LotChoice
    from .pacing import Pacing
    from .progress import Progress
    from .reporting import ReportFiles
    from .request_keys import RequestKeys
    from .robots_fetch import Fetcher
    from .store_chores import StoreChores
    from .telemetry import FetchEvents, RequestEvents, RunEvents
    from .verdicts import Verdicts

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: Seconds the spider's close waits for robots.txt fetches to finish deciding.
CLOSE_WAIT = 10.0
#: Seconds between two looks at a full downloader while decided requests wait their turn.
FULL_WAIT = 0.01
#: Ticks between two looks at a shared lot for origins no live worker is handling.
ADOPT_EVERY = 5
_PARKED = "parked until robots.txt is decided"


def _undecided_message(reason: str) -> str:
    return f"robots.txt undecided ({reason})"


class _Waiter:
    """A request that bypassed the scheduler (``engine.download()``) waiting in place."""

    __slots__ = ("deferred", "request")

    def __init__(self, request: Request) -> None:
        self.request = request
        self.deferred: Deferred[None] = Deferred()


class Coordinator:
    """The crawl side's owner; see the module docstring. Built whole by :mod:`.wiring`."""

    def __init__(
        self,
        crawler: Crawler,
        config: Config,
        *,
        keys: RequestKeys,
        token_source: str,
        store: TieredStore,
        gate: Gate[Any],
        lots: LotChoice[Any],
        outbox: Outbox[Any],
        fetcher: Fetcher,
        lifecycle: Lifecycle,
        request_events: RequestEvents,
        fetch_events: FetchEvents,
        run_events: RunEvents,
        verdicts: Verdicts,
        admission: Admission,
        chores: StoreChores,
        progress: Progress,
        pacing: Pacing,
        codec: RequestCodec,
        report_files: ReportFiles | None,
        bounded_body: bool,
    ) -> None:
        self._crawler = crawler
        self._config = config
        self._clock = config.clock
        self.keys = keys
        self._token_source = token_source
        self.store = store
        self._gate = gate
        self._lots = lots
        self._outbox = outbox
        self._fetcher = fetcher
        self._lifecycle = lifecycle
        self._request_events = request_events
        self._fetch_events = fetch_events
        self._run_events = run_events
        self._verdicts = verdicts
        self._admission = admission
        self._chores = chores
        self._progress = progress
        self._pacing = pacing
        self._codec = codec
        self._report_files = report_files
        self._bounded_body = bounded_body
        self._releasing: Request | None = None
        self._carrying = False
        self._running: set[Deferred[None]] = set()  # fetches under way
        self._loop: Loop | None = None
        self._ticks = 0
        self._sending = False  # a turn of the paced release is due (see _send_on)
        listen(crawler, self.scheduled, scrapy_signals.request_scheduled)
        listen(crawler, self.refused, scrapy_signals.request_dropped)
        listen(crawler, self.idle, scrapy_signals.spider_idle)
        listen(crawler, self.opened, scrapy_signals.spider_opened)
        listen(crawler, self.closed, scrapy_signals.spider_closed)

    # -- the documented helpers ---------------------------------------------------------------
    @property
    def token(self) -> Tokens:
        return self.keys.token

    def origin_state(self, url: str) -> OriginState | None:
        origin = self.keys.origin(url)
        return self.store.get(origin) if origin else None

    def sitemaps(self, url: str) -> tuple[str, ...]:
        state = self.origin_state(url)
        if state is None:
            return ()
        robots = rules_in_force(state, self._clock(), self._config.policy).robots
        return robots.sitemaps if robots is not None else ()

    # -- the download check ---------------------------------------------------------------
    def check(self, request: Request) -> Any:
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
        # The marker serves once: it must not travel with a copied meta.
        scheduled = meta.pop(SCHEDULED, False)
        if scheduled:
            self._unpin(origin)
        if url.endswith(ROBOTS_PATH):  # the spider reads robots.txt itself
            answer = own_copy(request, origin, self.store.get(origin))
            if answer is not None:
                self._request_events.served_own_copy()
                return answer
        if not self._verdicts.obeyed(request, origin, url):
            return self._undecided(request, origin, scheduled)
        return None

    def refused(self, request: Request, spider: Spider | None = None) -> None:
        """The scheduler refused a request that had passed (a duplicate): it will not
        reach the download check, so its pin goes now."""
        if request.meta.pop(SCHEDULED, False):
            self._unpin(self.keys.origin(request.url))

    def _unpin(self, origin: str) -> None:
        if self.store.unpin(origin) and self._gate.budget.room_blocked:
            self._gate.room_made(self._clock())  # a fetch waiting for room may start
            self._carry_out()

    def answered(self, request: Request, response: Response) -> Response:
        """Remember that an origin in server error still serves other pages (the policy says
        which answers count: not a 429 nor a 5xx)."""
        if FETCH_META not in request.meta:
            origin = self.keys.origin(request.url)
            state = self.store.get(origin) if origin else None
            if state is not None:
                updated = note_page_answer(state, response.status, self._clock())
                if updated is not None:
                    self.store.put(origin, updated)
        return response

    def _undecided(self, request: Request, origin: str, scheduled: bool) -> Any:
        """A request reached the downloader without a usable decision for its origin.

        A scheduled request goes back to the engine to be parked (no slot held); one that
        bypassed the scheduler (``engine.download()`` by other code) waits here. A request
        sent back once that comes here again without having been parked is a bypassing one
        (a meta copied from a scheduled request): it waits too, so nothing loops.
        """
        meta = request.meta
        if scheduled and not meta.get(BOUNCED):
            meta[BOUNCED] = True
            # Forgotten only if states can be lost: a fleet's worker bounces requests of
            # origins another worker decided, whose state it has not read from Redis yet.
            store = self.store
            self._request_events.bounced(forgotten=store.forgets and store.get(origin) is None)
            return request
        meta.pop(BOUNCED, None)
        return self._wait_then_check(request, origin)

    async def _wait_then_check(self, request: Request, origin: str) -> None:
        """Wait in place for the origin's fetch, then obey (or raise when dropped)."""
        for _ in range(1000):  # each round waits for a decision: a bound, never reached
            if self._verdicts.obeyed(request, origin, request.url):
                return
            waiter = _Waiter(request)
            reason = self._gate.wait(origin, waiter, self._clock())
            self._carry_out()
            if reason is ParkReason.STOPPED:  # never waits for a retry (gate.wait)
                self._request_events.dropped(request, origin, "stopped")
                raise IgnoreRequest(_undecided_message("stopped"))
            if reason is not None:
                self._request_events.parked(request, origin, reason)
                await maybe_deferred_to_future(waiter.deferred)  # IgnoreRequest when dropped
        self._request_events.dropped(request, origin, "robots.txt stayed undecided")
        raise IgnoreRequest("robots.txt stayed undecided")

    # -- the scheduling hook --------------------------------------------------------------
    def scheduled(self, request: Request, spider: Spider | None = None) -> None:
        """Park requests whose origin is undecided, before they reach the scheduler, and
        decided start requests taken while the engine is full: they wait their turn."""
        meta = request.meta
        if request is self._releasing:
            meta[SCHEDULED] = True
            self.store.pin(self.keys.origin(request.url))
            return
        if meta.get(DONT_OBEY) or DROPPED in meta:
            return
        origin = self.keys.origin(request.url)
        if not origin:
            return
        gate, now = self._gate, self._clock()
        reason: ParkReason | None
        if meta.get(BOUNCED):
            gate.bounce(origin, request, now)
            reason = ParkReason.BOUNCED
            call_later(0, self._recheck, origin)
        else:
            turn = bool(meta.get(START)) and engine_full(self._crawler.engine)
            reason = gate.schedule(origin, request, now, self._admission.admit, turn=turn)
            self._carry_out()
            if reason is None:
                meta[SCHEDULED] = True
                self.store.pin(origin)
                return
        self._request_events.parked(request, origin, reason)
        raise IgnoreRequest(_PARKED)

    def _recheck(self, origin: str) -> None:
        self._gate.check(origin, self._clock())
        self._carry_out()

    # -- the gate's effects ---------------------------------------------------------------
    def _carry_out(self) -> None:
        """Carry out what the gate asked for, in order; an effect may lead to more."""
        if self._carrying:  # an effect led back here: the loop below takes the new ones
            return
        self._carrying = True
        try:
            while effects := self._outbox.take():
                for effect in effects:
                    if isinstance(effect, Fetch):
                        self._fetch_events.fetch_wanted(effect.why)
                        call_later(0, self._start_fetch, effect.origin, effect.why)
                    elif isinstance(effect, Drop):
                        self._drop(effect.origin, effect.items, effect.reason)
                    elif isinstance(effect, SendOn):
                        self._send_soon()
                    else:
                        self._release(effect.origin, effect.items)
        finally:
            self._carrying = False

    def _send_soon(self, delay: float = 0.0) -> None:
        if not self._sending:
            self._sending = True
            call_later(delay, self._send_on)

    def _send_on(self) -> None:
        """One turn of the paced release (:mod:`.ready`): the next turn comes after the event
        loop has handled what is ready meanwhile (downloads, responses). While the downloader
        or the scraper is full, nothing goes (Scrapy takes no start request then either): the
        requests would only pile up in the scheduler, whose queue may cost per site queued.
        Never raises."""
        self._sending = False
        gate = self._gate
        if not gate.dripping:
            return
        if engine_full(self._crawler.engine):
            self._send_soon(FULL_WAIT)
            return
        try:
            gate.drip(self._clock(), self._config.release_per_turn)
            self._carry_out()
        except Exception:
            logger.exception("Error while sending parked requests on")  # the tick tries again
            return
        if gate.dripping:
            self._send_soon()

    def _start_fetch(self, origin: str, why: FetchReason) -> None:
        """Fetch on behalf of the oldest request waiting: its route, its signal's request."""
        item = self._gate.peek(origin)
        trigger = item.request if isinstance(item, _Waiter) else item
        request = trigger if isinstance(trigger, Request) else None
        d = deferred_from_coro(self._fetch(origin, request))
        self._running.add(d)
        d.addBoth(self._fetch_ended, d)

    def _fetch_ended(self, result: Any, d: Deferred[None]) -> None:
        self._running.discard(d)
        if isinstance(result, Failure):  # the fetcher never raises: a bug of ours
            logger.error(
                "Error fetching robots.txt: %s", result.getErrorMessage(), exc_info=result.value
            )

    async def _fetch(self, origin: str, request: Request | None) -> None:
        gate = self._gate
        outcome: Outcome = await self._fetcher.fetch(
            origin,
            route=route_of(request.meta) if request is not None else None,
            proceed=lambda: self._lifecycle.accepting() or gate.holds(origin),
            deadline=lambda: gate.close_deadline,
        )
        if self._lifecycle.closed:
            return  # nothing is told nor decided once the crawl is closed
        try:
            if outcome.state is not None:
                self._fetch_events.decided(
                    origin,
                    outcome.state,
                    outcome.previous,
                    trigger=lambda: request or self._fetcher.request(robots_url(origin), origin),
                    source=outcome.source,
                )
        except Exception:  # the report or a signal handler: the state is stored already
            logger.exception("Error while recording robots.txt of %s", origin)
        finally:
            self._fetch_events.fetch_ended(origin)
            gate.fetch_done(origin, self._clock(), recheck_at=outcome.recheck_at, cut=outcome.cut)
            self._carry_out()

    def _release(self, origin: str, items: Sequence[Any]) -> None:
        """Put parked requests back through the engine, oldest first."""
        engine = self._crawler.engine
        assert engine is not None
        for item in items:
            if isinstance(item, _Waiter):
                item.deferred.callback(None)
                continue
            if isinstance(item, Unreadable):
                self._request_events.unreadable(origin, item.error, self._gate.lot.where)
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
                self._request_events.dropped(request, origin, reason)
                continue
            finally:
                self._releasing = None
                request.dont_filter = dont_filter
            self._request_events.released()

    def _drop(self, origin: str, items: Sequence[Any], reason: str) -> None:
        """Give these up: each reaches its errback while the crawl runs; at its end (the
        close's drops), only the signal and the stat, as Scrapy's own queues do."""
        running = self._lifecycle.accepting()
        for item in items:
            if isinstance(item, Unreadable):
                self._request_events.unreadable(origin, item.error, self._gate.lot.where)
            elif isinstance(item, _Waiter):
                self._request_events.dropped(item.request, origin, reason)
                item.deferred.errback(IgnoreRequest(_undecided_message(reason)))
            else:
                self._request_events.dropped(item, origin, reason)
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

    # -- the crawl's life -----------------------------------------------------------------
    def opened(self, spider: Spider) -> None:
        gate, run = self._gate, self._run_events
        budget = gate.budget
        run.opened(
            self.token,
            self._token_source,
            budget.max_fetches,
            budget.max_slow,
            budget.min_fetches,
            budget.limit,
        )
        if not self._bounded_body:
            run.unbounded_body(self._config.policy.max_bytes)
        self._admission.find()
        scheduler = engine_scheduler(self._crawler.engine)
        lot = fleet_lot(self._config, scheduler, spider, self._codec)
        if lot is not None:
            self._lots.choose(lot)  # the first lot (empty so far, or a JOBDIR's) keeps its items
            run.fleet_parking(lot.where)
        run.resumed(gate.resume(self._clock()), gate.lot.where)
        self._carry_out()
        self._chores.opened(self._clock())
        self._loop = looping_call(self._tick)
        self._loop.start(self._config.tick, now=False)

    def _tick(self) -> None:
        """Every ``GBOT_ROBOTS_TICK``: deadlines, due retries, a fleet's orphans, chores.
        Never raises (a looping call stops at the first error)."""
        try:
            gate = self._gate
            busy = gate.busy
            now = self._clock()
            gate.tick(now)
            self._pace(now)
            self._ticks += 1
            if self._ticks % ADOPT_EVERY == 0:
                gate.adopt(now)  # a shared lot: origins a dead worker left waiting
            self._carry_out()
            if gate.dripping:
                self._send_soon()  # after an error in a turn (a bug): never left waiting
            self._chores.tick(now, gate.lot)
            self._progress.tick(gate.tally, gate.budget)
            if busy and not gate.busy:
                wake_engine(self._crawler.engine)  # it may be idle now
        except Exception:
            logger.exception("Error in the robots.txt parking loop")

    def _pace(self, now: float) -> None:
        """The fetch budget follows the downloader (:mod:`.pacing`); pins left when nothing
        of ours is on its way any more were lost on the way (another component refused
        their request), and go."""
        active, concurrency, backlog = crawl_load(self._crawler.engine)
        gate = self._gate
        # Decided requests waiting their turn are ahead of the downloader as much as the
        # scheduler's: they pile up there, not in the scheduler, since none goes while the
        # downloader is full. And while any wait, pins are not lost (theirs included).
        backlog += gate.ready.items()
        pace = self._pacing.step(gate.budget, active, concurrency, backlog)
        gate.resize(pace.limit, now)
        if pace.drained and self.store.pinned:
            self.store.unpin_all()
            gate.room_made(now)
        self._run_events.paced(pace)

    def idle(self, spider: Spider) -> None:
        """Stay open while requests wait: ours, or, in a fleet, any worker's in the shared
        lot. Released, those reach the shared queue, and :meth:`_tick` may hand this worker
        some of their origins; closed at scrapy-redis's ``MAX_IDLE_TIME_BEFORE_CLOSE``, it
        would leave the rest of the crawl to the others."""
        gate, lot = self._gate, self._gate.lot
        if gate.busy or (lot.shared and lot.waiting()):  # a shared lot: one read of Redis
            raise DontCloseSpider

    async def closed(self, spider: Spider, reason: str = "") -> None:
        """Let fetches whose download ended finish deciding (at most ``CLOSE_WAIT``), then
        keep or drop what waits, close the store, and write the report last.

        The engine waits for in-flight downloads before ``spider_closed``, but the rest of a
        fetch (policy, store, report) may still be queued on the event loop: its result must
        be stored before the store closes and the report is written. What is still running
        after the wait ends without a trace (:mod:`.lifecycle`).
        """
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._lifecycle.accepting()  # the close has begun, if nothing asked since
        await settle(list(self._running), CLOSE_WAIT)
        self._lifecycle.close()
        gate, run, store = self._gate, self._run_events, self.store
        lot = gate.lot
        persist = bool(self._crawler.settings.get("JOBDIR")) or lot.shared
        kept = gate.close(persist=persist, reason=f"spider closed ({reason})")
        self._carry_out()
        run.persisted(kept, lot.where, lot.shared)
        self._request_events.flush()  # the hot path's counts, before the final ones
        run.closed(gate.tally, gate.budget, store, gate.ready.peak)
        run.components(store, lot)
        if store.persistent is not None:
            store.persistent.close()
            run.components(store, lot)  # writes given up at close
        if self._report_files is not None:
            self._report_files.write(spider.name, reason)
