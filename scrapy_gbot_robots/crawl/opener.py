"""What the crawl builds when the spider opens: the lot, the gate parking in it, admission.

The lot depends on the scheduler, known only then: a scrapy-redis scheduler brings the
fleet's Redis, where parked requests are shared by every worker (:func:`fleet_lot`);
otherwise the lot opened with the crawl is kept: an SQLite file under ``JOBDIR``
(:func:`jobdir_lot`, opened at build time so that a ``JOBDIR`` that cannot hold it stops the
crawl before any request) or memory. So the lot is chosen once, before the gate that parks
in it is built (the scrapy-redis way: settings read at ``from_crawler``, what depends on the
spider built when it opens), and nothing is changed on a part once built. The admission
checks (:mod:`.admission`) are built then too: the scheduler's dupefilter and the
downloader's offsite middleware are known from that moment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware

from .._compat import downloader_middlewares, engine_scheduler, redis_server, scheduler_dupefilter
from .._settings import Config, ConfigError
from ..parking.memory import MemoryLot
from .admission import Admission
from .backoff import Backoffs
from .gate import Gate
from .pacing import Pacing

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from ..parking.base import Lot
    from ..parking.codec import RequestCodec
    from ..stores.tiered import TieredStore
    from .effects import Outbox
    from .lifecycle import Lifecycle


@dataclass(frozen=True)
class Opened:
    """What the crawl builds when the spider opens: the lot, the gate parking in it, and the
    admission checks of the scheduler's dupefilter and the offsite middleware."""

    lot: Lot[Any]
    gate: Gate[Any]
    admission: Admission


class Opener:
    """Builds :class:`Opened` once the spider and its scheduler are known (the scrapy-redis
    way: settings read at ``from_crawler``, what depends on the spider built at its open)."""

    def __init__(
        self,
        crawler: Crawler,
        config: Config,
        store: TieredStore,
        lifecycle: Lifecycle,
        outbox: Outbox[Any],
        codec: RequestCodec,
        jobdir: Lot[Any],
    ) -> None:
        self._crawler = crawler
        self._config = config
        self._store = store
        self._lifecycle = lifecycle
        self._outbox = outbox
        self._codec = codec
        self._jobdir = jobdir

    def open(self, spider: Spider | None) -> Opened:
        engine = self._crawler.engine
        scheduler = engine_scheduler(engine)
        lot = fleet_lot(self._config, scheduler, spider, self._codec)
        if lot is None:
            lot = self._jobdir
        else:  # the JOBDIR's parked requests wait there for a later run
            self._jobdir.close(persist=True)
        config, store = self._config, self._store
        gate: Gate[Any] = Gate(
            store,
            config.policy,
            lot,
            self._outbox,
            self._lifecycle,
            pacing=Pacing(config.concurrent_requests),
            park_timeout=config.park_timeout,
            # Robots.txt downloads bypass the engine's own concurrency limit: the budget's
            # ceiling is their only bound; the pacing moves the limit between its floor and it.
            max_fetches=config.fetch_ceiling,
            min_fetches=config.fetch_floor,
            start_fetches=config.fetch_start,
            observe=config.observe,
            max_slow=config.slow_lane(),
            slow_after=config.slow_fetch_after,
            bounds=store,
            pace_release=config.release_per_turn > 0,
            # Bounded as the store is: an origin it cannot remember, it cannot slow down.
            # Crawl-delay's fleet slot waits in it too (stores/redis_pace.py).
            backoff=(
                Backoffs(config.backoff_max, config.memory_size)
                if config.backoff or config.crawl_delay
                else None
            ),
        )
        offsite = [mw for mw in downloader_middlewares(engine) if isinstance(mw, OffsiteMiddleware)]
        admission = Admission(
            self._crawler, offsite[-1] if offsite else None, scheduler_dupefilter(scheduler)
        )
        return Opened(lot, gate, admission)


def jobdir_lot(crawler: Crawler, codec: RequestCodec) -> Lot[Any]:
    """Parked requests in memory, or in an SQLite file under ``JOBDIR`` (kept on a pause)."""
    jobdir = crawler.settings.get("JOBDIR")
    if not jobdir:
        return MemoryLot()
    path = os.path.join(str(jobdir), "gbot_robots", "parked.sqlite3")
    # Imported here: sqlite3 costs every crawl about 1 MB of memory, and only JOBDIR needs it.
    from ..parking.sqlite import SqliteLot

    try:
        return SqliteLot(path, codec.dumps, codec.loads)
    except Exception as exc:  # sqlite3.Error, OSError: say which setting it is about
        raise ConfigError("JOBDIR", f"cannot keep parked requests in {path}: {exc}") from exc


def fleet_lot(
    config: Config, scheduler: Any, spider: Spider | None, codec: RequestCodec
) -> Lot[Any] | None:
    """A Redis lot shared by the fleet when the scheduler is scrapy-redis's, else None.

    Parked requests then survive the death of the worker that parked them, and whichever
    worker sees the decision puts them back into the shared scrapy-redis queue.
    """
    server = redis_server(scheduler)
    if server is None or spider is None or not config.fleet_parking:
        return None
    from ..parking.redis import RedisLot

    lot: Lot[Any] = RedisLot(server, f"{spider.name}:gbot_robots", codec.dumps, codec.loads)
    return lot
