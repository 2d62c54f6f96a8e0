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
2. **Fetch** (:mod:`.fetch_runs`, :mod:`.robots_fetch`): at most the fetch budget's limit at
   once, which the tick paces (:mod:`.pacing`) within ``GBOT_ROBOTS_CONCURRENT_FETCHES_MIN``
   and ``GBOT_ROBOTS_CONCURRENT_FETCHES``, through the engine's downloader, the way the
   request that made it wanted travels.
3. **Decision**: the gate releases parked requests through ``engine.crawl()`` (:mod:`.exits`),
   a few per turn of the event loop (``GBOT_ROBOTS_RELEASE_PER_TURN``, :mod:`.turns`), or keeps them
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

The gate and the lot it parks in are built when the spider opens (the scheduler is known
then: a scrapy-redis one brings a fleet's lot), or at the first request if one comes before
our ``spider_opened`` handler. The gate writes its effects into an outbox; the coordinator
carries them out after each event, so every call goes one way: middleware → coordinator →
gate, fetch runs, exits, telemetry. The coordinator talks to the gate, never to its parts.
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
from scrapy.utils.defer import maybe_deferred_to_future

from .._compat import (
    call_later,
    crawl_load,
    engine_full,
    looping_call,
    wake_engine,
)
from .._meta import BOUNCED, DONT_OBEY, DROPPED, SCHEDULED, START
from ..policy.states import OriginState, rules_in_force
from .effects import Drop, Fetch, Outbox, Release
from .exits import Waiter, undecided
from .own_copy import ROBOTS_PATH, own_copy
from .page_answers import PageAnswers
from .reasons import STOPPED, ParkReason
from .verdicts import ALLOWED, Forbidden

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from .._compat import Loop
    from ..engine.rules import Tokens
    from ..stores.redis_backoff import FleetBackoffs
    from ..stores.tiered import TieredStore
    from .crawl_delay import CrawlDelay
    from .exits import Exits
    from .fetch_runs import FetchRuns
    from .gate import Gate
    from .lifecycle import Lifecycle
    from .opener import Opened, Opener
    from .progress import Progress
    from .reasons import FetchReason
    from .reporting import ReportFiles
    from .robots_fetch import Outcome
    from .shared_parts import Shared
    from .store_chores import StoreChores
    from .verdicts import Verdicts

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: Seconds the spider's close waits for robots.txt fetches to finish deciding.
CLOSE_WAIT = 10.0
#: Seconds between two looks at a full downloader while decided requests wait their turn.
FULL_WAIT = 0.01
#: Ticks between two looks at a shared lot for origins no live worker is handling.
ADOPT_EVERY = 5
_PARKED = "parked until robots.txt is decided"


class Coordinator:
    """The crawl side's owner; see the module docstring. Built whole by :mod:`.wiring`."""

    def __init__(
        self,
        crawler: Crawler,
        parts: Shared,
        *,
        store: TieredStore,
        lifecycle: Lifecycle,
        outbox: Outbox[Any],
        opener: Opener,
        fetches: FetchRuns,
        exits: Exits,
        verdicts: Verdicts,
        chores: StoreChores,
        progress: Progress,
        crawl_delay: CrawlDelay | None,
        report_files: ReportFiles | None,
        bounded_body: bool,
        fleet_backoffs: FleetBackoffs | None = None,
    ) -> None:
        self._crawler = crawler
        #: The settings, keys and telemetry both middlewares share (held here: see
        #: :mod:`.shared_parts`).
        self._parts = parts
        config = parts.config
        self._config = config
        self._clock = config.clock
        self.keys = parts.keys
        self.store = store
        self._lifecycle = lifecycle
        self._outbox = outbox
        self._opener = opener
        self._fetches = fetches
        self._exits = exits
        self._request_events = parts.telemetry.requests
        self._fetch_events = parts.telemetry.fetches
        self._run_events = parts.telemetry.run
        self._verdicts = verdicts
        self._chores = chores
        self._progress = progress
        #: Listens to Scrapy's signals on its own; held here, as every listener is.
        self._crawl_delay = crawl_delay
        self._report_files = report_files
        self._bounded_body = bounded_body
        #: With the Redis store: this worker's back-offs shared, the fleet's heard.
        self._fleet_backoffs = fleet_backoffs
        #: A page's answer to the 30-day rule and the back-off; held here, as every listener.
        self._answers = PageAnswers(
            crawler,
            keys=self.keys,
            store=store,
            clock=self._clock,
            lifecycle=lifecycle,
            events=self._request_events,
            gate=lambda: self._gate,
            carry_out=self._carry_out,
            backoff=config.backoff,
            fleet_backoffs=fleet_backoffs,
        )
        #: Built when the spider opens (:meth:`_open`): the gate, its lot, the admission.
        self._opened: Opened | None = None
        self._gate: Gate[Any] | None = None
        self._admit: Callable[[object], bool] | None = None  # the opened admission's check
        self._carrying = False
        self._loop: Loop | None = None
        self._ticks = 0
        self._turn_due = False  # a turn of the paced release is due (see _release_turn)
        signals = crawler.signals  # held weakly by Scrapy: this object lives as long as the
        signals.connect(self.scheduled, scrapy_signals.request_scheduled)  # middleware
        signals.connect(self.refused, scrapy_signals.request_dropped)
        signals.connect(self.idle, scrapy_signals.spider_idle)
        signals.connect(self.opened, scrapy_signals.spider_opened)
        signals.connect(self.closed, scrapy_signals.spider_closed)

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
            raise IgnoreRequest(undecided(meta.pop(DROPPED)))
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
        if scheduled and self._gate is not None and self._gate.backing_off(origin, self._clock()):
            meta[BOUNCED] = True  # its origin asked to slow down: back to be parked
            return request
        result = self._verdicts.check(request, origin, url)
        if result is ALLOWED:  # a fleet's Crawl-delay slot taken first (crawl_delay.py)
            delay = self._crawl_delay
            return delay.fleet_turn(request, origin, self._hold) if delay and scheduled else None
        if isinstance(result, Forbidden):
            raise IgnoreRequest(result.reason)
        return self._undecided(request, origin, scheduled)

    def refused(self, request: Request, spider: Spider | None = None) -> None:
        """The scheduler refused a request that had passed (a duplicate): it will not
        reach the download check, so its pin goes now."""
        if request.meta.pop(SCHEDULED, False):
            self._unpin(self.keys.origin(request.url))

    def _unpin(self, origin: str) -> None:
        gate = self._gate
        if self.store.unpin(origin) and gate is not None and gate.room_made(self._clock()):
            self._carry_out()  # a fetch waiting for room may have started

    def answered(self, request: Request, response: Response) -> Response:
        """A page's answer, as evidence for the 30-day rule (:mod:`.page_answers`)."""
        return self._answers.answered(request, response)

    def _hold(self, origin: str, seconds: float) -> None:
        """The fleet's ``Crawl-delay`` slot of ``origin`` is taken for ``seconds``."""
        now = self._clock()
        (self._gate or self._open()).heard(origin, now + seconds, now, held=True)
        self._carry_out()
        call_later(seconds, self._recheck, origin)  # on time, not at the next tick

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
            result = self._verdicts.check(request, origin, request.url)
            if result is ALLOWED:
                return
            if isinstance(result, Forbidden):
                raise IgnoreRequest(result.reason)
            waiter = Waiter(request)
            reason = (self._gate or self._open()).wait(origin, waiter, self._clock())
            self._carry_out()
            if reason is ParkReason.STOPPED:  # never waits for a retry (gate.wait)
                self._request_events.dropped(request, origin, STOPPED)
                raise IgnoreRequest(undecided(STOPPED))
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
        if request is self._exits.releasing:
            meta[SCHEDULED] = True
            self.store.pin(self.keys.origin(request.url))
            return
        if meta.get(DONT_OBEY) or DROPPED in meta:
            return
        origin = self.keys.origin(request.url)
        if not origin:
            return
        gate, now = self._gate or self._open(), self._clock()
        reason: ParkReason | None
        if meta.get(BOUNCED):
            reason = gate.bounce(origin, request, now)
            call_later(0, self._recheck, origin)
        else:
            turn = bool(meta.get(START)) and engine_full(self._crawler.engine)
            reason = gate.schedule(origin, request, now, self._admit, turn=turn)
            self._carry_out()
            if reason is None:
                meta[SCHEDULED] = True
                self.store.pin(origin)
                return
        self._request_events.parked(request, origin, reason)
        raise IgnoreRequest(_PARKED)

    def _recheck(self, origin: str) -> None:
        if self._gate is not None:
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
                where = self._opened.lot.where if self._opened is not None else ""
                for effect in effects:
                    if isinstance(effect, Fetch):
                        self._fetch_events.fetch_wanted(effect.why)
                        call_later(0, self._start_fetch, effect.origin, effect.why)
                    elif isinstance(effect, Release):
                        self._exits.release(effect.origin, effect.items, where)
                    elif isinstance(effect, Drop):
                        self._exits.drop(
                            effect.origin, effect.items, effect.reason, where, effect.decided
                        )
                    else:
                        self._turn_soon()
        finally:
            self._carrying = False

    def _turn_soon(self, delay: float = 0.0) -> None:
        if not self._turn_due:
            self._turn_due = True
            call_later(delay, self._release_turn)

    def _release_turn(self) -> None:
        """One turn of the paced release (:mod:`.turns`): the next turn comes after the event
        loop has handled what is ready meanwhile (downloads, responses). While the downloader
        or the scraper is full, nothing goes (Scrapy takes no start request then either): the
        requests would only pile up in the scheduler, whose queue may cost per site queued.
        Never raises."""
        self._turn_due = False
        gate = self._gate
        if gate is None or not gate.turns_due:
            return
        if engine_full(self._crawler.engine):
            self._turn_soon(FULL_WAIT)
            return
        try:
            gate.release_turn(self._clock(), self._config.release_per_turn)
            self._carry_out()
        except Exception:
            logger.exception("Error while releasing parked requests")  # the tick tries again
            return
        if gate.turns_due:
            self._turn_soon()

    def _start_fetch(self, origin: str, why: FetchReason) -> None:
        """Fetch on behalf of the oldest request waiting: its route, its signal's request."""
        gate = self._gate
        if gate is None:
            return
        item = gate.peek(origin)
        trigger = item.request if isinstance(item, Waiter) else item
        self._fetches.start(
            origin,
            trigger if isinstance(trigger, Request) else None,
            proceed=lambda: self._lifecycle.accepting() or gate.holds(origin),
            deadline=lambda: gate.close_deadline,
            then=self._fetched,
        )

    def _fetched(self, origin: str, outcome: Outcome) -> None:
        if self._gate is not None:
            self._gate.fetch_done(
                origin, self._clock(), recheck_at=outcome.recheck_at, cut=outcome.cut
            )
            self._carry_out()

    # -- the crawl's life -----------------------------------------------------------------
    def _open(self, spider: Spider | None = None) -> Gate[Any]:
        """Build the gate over the lot chosen now that the scheduler is known, and take
        over what a previous run left in it: once, at the open or the first request."""
        if self._gate is not None:
            return self._gate
        run = self._run_events
        opened = self._opened = self._opener.open(spider or self._crawler.spider)
        self._admit = opened.admission.admit
        gate = self._gate = opened.gate
        lot = opened.lot
        if lot.shared:
            run.fleet_parking(lot.where)
        run.resumed(gate.resume(self._clock()), lot.where)
        self._carry_out()
        return gate

    def opened(self, spider: Spider) -> None:
        config, run = self._config, self._run_events
        run.opened(
            self.token,
            self._parts.token_source,
            config.fetch_ceiling,
            config.slow_lane(),
            config.fetch_floor,
            config.fetch_start,
        )
        if not self._bounded_body:
            run.unbounded_body(config.policy.max_bytes)
        self._open(spider)
        if self._fleet_backoffs is not None:
            # Once the reactor runs: Scrapy < 2.13 opens the spider before it starts, when
            # the asyncio loop the listener needs is not running yet.
            call_later(0, self._fleet_backoffs.start)
        self._chores.opened(self._clock())
        self._loop = looping_call(self._tick)
        self._loop.start(config.tick, now=False)

    def _tick(self) -> None:
        """Every ``GBOT_ROBOTS_TICK``: deadlines, due retries, the pace, a fleet's orphans,
        the store's chores. Never raises (a looping call stops at the first error)."""
        gate, opened = self._gate, self._opened
        if gate is None or opened is None:
            return
        try:
            busy = gate.busy
            now = self._clock()
            gate.tick(now)
            self._pace(gate, now)
            self._ticks += 1
            if self._ticks % ADOPT_EVERY == 0:
                gate.adopt(now)  # a shared lot: origins a dead worker left waiting
            self._carry_out()
            if gate.turns_due:
                self._turn_soon()  # after an error in a turn (a bug): never left waiting
            for origin, lasted in gate.backoff_ended(now):
                self._request_events.backoff_ended(origin, lasted)
            self._chores.tick(now, opened.lot)
            self._progress.tick(gate.figures(), lambda: gate.why_waiting(now))
            if busy and not gate.busy:
                wake_engine(self._crawler.engine)  # it may be idle now
        except Exception:
            logger.exception("Error in the robots.txt parking loop")

    def _pace(self, gate: Gate[Any], now: float) -> None:
        """The fetch budget follows the downloader (:mod:`.pacing`); pins left when nothing
        of ours is on its way any more were lost on the way (another component refused
        their request), and go."""
        pace = gate.pace(now, *crawl_load(self._crawler.engine))
        if pace.drained and self.store.pinned:
            self.store.unpin_all()
            gate.room_made(now)
        self._run_events.paced(pace)

    def idle(self, spider: Spider) -> None:
        """Stay open while requests wait: ours, or, in a fleet, any worker's in the shared
        lot. Released, those reach the shared queue, and :meth:`_tick` may hand this worker
        some of their origins; closed at scrapy-redis's ``MAX_IDLE_TIME_BEFORE_CLOSE``, it
        would leave the rest of the crawl to the others."""
        if self._gate is not None and self._gate.busy_anywhere():
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
        await self._fetches.settle(CLOSE_WAIT)
        self._lifecycle.close()
        run, store, gate, opened = self._run_events, self.store, self._gate, self._opened
        if gate is not None and opened is not None:
            lot = opened.lot
            persist = bool(self._crawler.settings.get("JOBDIR"))
            kept = gate.close(persist=persist, reason=f"spider closed ({reason})")
            self._carry_out()
            run.persisted(kept, lot.where, lot.shared)
            self._request_events.flush()  # the hot path's counts, before the final ones
            run.closed(gate.figures(), store)
            run.components(store, lot)
        closing = None if self._crawl_delay is None else self._crawl_delay.close()
        if closing is not None:
            await closing
        if self._fleet_backoffs is not None:
            run.fleet_backoffs(self._fleet_backoffs.shared, self._fleet_backoffs.errors)
            self._fleet_backoffs.close()
        if store.persistent is not None:
            store.persistent.close()
            if opened is not None:
                run.components(store, opened.lot)  # writes given up at close
        if self._report_files is not None:
            self._report_files.write(spider.name, reason)
