"""``Crawl-delay`` as an opt-in floor of the download slot (``GBOT_ROBOTS_CRAWL_DELAY``).

Google ignores ``crawl-delay``, and so does the plugin by default. Polite broad crawlers
(Nutch, StormCrawler, Heritrix, Common Crawl's CCBot) honour it: with the setting on, the
``crawl-delay`` of the group in force for the obeyed token(s) becomes the minimum delay of the
download slot of each request of that origin, capped at ``GBOT_ROBOTS_CRAWL_DELAY_MAX``. It
never lowers a slot's delay (``DOWNLOAD_DELAY``, ``DOWNLOAD_SLOTS``, what AutoThrottle set),
and it turns the slot's random jitter off, so the floor is a real minimum.

It is applied when a request reaches the downloader (``request_reached_downloader``, sent
before the slot's queue is processed), and again after each response (AutoThrottle, whose
handler runs first, may have lowered the delay). A slot is Scrapy's: by default one per
host, so origins sharing a host share the larger floor; a ``download_slot`` meta key or
``DOWNLOAD_SLOTS`` decide otherwise.

A fleet (the Redis store): the delay holds for the fleet, not per worker. Before a scheduled
request of a crawl-delay origin is downloaded, :meth:`CrawlDelay.fleet_turn` reserves the
origin's next send in Redis (``stores/redis_pace.py``, one round trip); when another send
holds it, the request goes back to be parked until the slot is free (the gate waits as for a
back-off, outside the downloader), then tries again. Bounded: while a reservation of this
worker is under way, or the slot is known to be taken (this worker's send, or the time Redis
answered), the origin's other requests are parked without asking Redis, so a worker asks at
most once per slot, and never reserves ahead. The reservation runs from now until the
worker's own download slot will have sent the page (its delay since its last send: the
robots.txt fetch, say) plus the delay, so the fleet's next send comes a delay after this one
really left. The slot's floor stays: it paces the worker while Redis cannot answer.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals as scrapy_signals

from .._compat import downloader_slot, drop_jitter, slot_for, slot_wait
from .._meta import BOUNCED, DONT_OBEY
from ..policy.states import rules_in_force

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from .._settings import Config
    from ..engine.rules import RobotsTxt
    from ..stores.redis_pace import FleetPace
    from ..stores.tiered import TieredStore
    from .request_keys import RequestKeys
    from .run_events import RunEvents
    from .telemetry import FetchEvents

    #: Called with (origin, seconds): the fleet's slot of the origin is taken for that long.
    Hold = Callable[[str, float], None]

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: Origins whose delay is remembered (per robots.txt copy); more are forgotten and recomputed.
MEMO = 10_000


class CrawlDelay:
    """Keeps each slot's delay at or above its origin's ``crawl-delay`` (see the module doc)."""

    def __init__(
        self,
        crawler: Crawler,
        config: Config,
        keys: RequestKeys,
        store: TieredStore,
        telemetry: FetchEvents,
        fleet: FleetPace | None = None,
        run: RunEvents | None = None,
    ) -> None:
        self.crawler = crawler
        self.config = config
        self.keys = keys
        self.store = store
        self.telemetry = telemetry
        self.cap = config.crawl_delay_max
        # origin -> (the robots.txt copy it was read from, its floor in seconds)
        self._floors: dict[str, tuple[RobotsTxt, float]] = {}
        #: The fleet's slots (None: no Redis store), and where their counts are told.
        self.fleet = fleet
        self._run = run
        # origin -> until when (config.clock) its fleet slot is known taken, or being reserved
        self._taken: dict[str, float] = {}
        # Scrapy holds these receivers weakly: the coordinator holds this object.
        crawler.signals.connect(self._reached, scrapy_signals.request_reached_downloader)
        crawler.signals.connect(self._downloaded, scrapy_signals.response_downloaded)

    def floor(self, origin: str) -> float:
        """The delay the origin's robots.txt in force asks for (capped), 0 when none."""
        state = self.store.get(origin)
        if state is None:
            return 0.0
        robots = rules_in_force(state, self.config.clock(), self.config.policy).robots
        if robots is None:
            return 0.0
        known = self._floors.get(origin)
        if known is not None and known[0] is robots:
            return known[1]
        asked = robots.crawl_delay(self.keys.token, self.config.global_group) or 0.0
        floor = min(asked, self.cap)
        if len(self._floors) >= MEMO:
            self._floors.clear()
        self._floors[origin] = (robots, floor)
        if asked:
            self.telemetry.crawl_delay(origin, asked, floor)
        return floor

    def fleet_turn(self, request: Request, origin: str, hold: Hold) -> Any:
        """A scheduled request of ``origin`` is about to be downloaded: None sends it (no fleet,
        no crawl-delay); else the request itself, to be parked (its origin's slot is taken:
        ``hold`` was told), or a coroutine that reserves the slot and answers one of those."""
        fleet = self.fleet
        if fleet is None:
            return None
        delay = self.floor(origin)
        if not delay:
            return None
        now = self.config.clock()
        taken = self._taken.get(origin, 0.0)
        if taken > now:
            return self._park(request, origin, taken - now, hold)
        if len(self._taken) >= MEMO:
            self._taken.clear()
        # Reserved from now until this worker's slot sends it (its delay since its last
        # send: the robots.txt fetch, say), plus the delay.
        span = delay + self._lag(request, delay)
        self._taken[origin] = now + span  # until it answers, the others wait
        return self._reserve(fleet, request, origin, span, hold)

    def _lag(self, request: Request, floor: float) -> float:
        """How long the request's download slot will keep it after now (0: sent at once)."""
        slot = slot_for(self.crawler.engine, request)
        return 0.0 if slot is None else slot_wait(slot, floor)

    async def _reserve(
        self, fleet: FleetPace, request: Request, origin: str, span: float, hold: Hold
    ) -> Request | None:
        left = await fleet.reserve(origin, span)
        now = self.config.clock()
        if left is None:  # Redis cannot answer: the slot's own floor paces this worker
            self._taken.pop(origin, None)
            return None
        self._taken[origin] = now + (left or span)
        return self._park(request, origin, left, hold) if left else None

    @staticmethod
    def _park(request: Request, origin: str, seconds: float, hold: Hold) -> Request:
        hold(origin, seconds)
        request.meta[BOUNCED] = True  # back through the engine, to be parked
        return request

    def close(self) -> Coroutine[Any, Any, None] | None:
        """At the spider's close: the fleet's counts told, its connection closed (awaited)."""
        fleet = self.fleet
        if fleet is None:
            return None
        if self._run is not None:
            self._run.fleet_pace(fleet.reserved, fleet.refused, fleet.errors)
        return fleet.close()

    def _apply(self, request: Request) -> None:
        meta = request.meta
        if meta.get(DONT_OBEY):
            return
        origin = self.keys.origin(request.url)
        if not origin:
            return
        floor = self.floor(origin)
        if not floor:
            return
        slot = downloader_slot(self.crawler.engine, request)
        if slot is not None:
            if slot.delay < floor:
                slot.delay = floor
            drop_jitter(slot)  # a random jitter would take it under the floor

    def _reached(self, request: Request, spider: Any = None) -> None:
        self._apply(request)

    def _downloaded(self, response: Response, request: Request, spider: Any = None) -> None:
        self._apply(request)
