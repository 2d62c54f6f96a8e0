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
``DOWNLOAD_SLOTS`` decide otherwise. In a fleet each worker applies it to its own slots.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals as scrapy_signals

from .._compat import downloader_slot, drop_jitter
from .._meta import DONT_OBEY
from ..policy.states import rules_in_force

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from .._settings import Config
    from ..engine.rules import RobotsTxt
    from ..stores.tiered import TieredStore
    from .request_keys import RequestKeys
    from .telemetry import FetchEvents

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
    ) -> None:
        self.crawler = crawler
        self.config = config
        self.keys = keys
        self.store = store
        self.telemetry = telemetry
        self.cap = config.crawl_delay_max
        # origin -> (the robots.txt copy it was read from, its floor in seconds)
        self._floors: dict[str, tuple[RobotsTxt, float]] = {}
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
