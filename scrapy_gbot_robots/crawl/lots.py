"""Where parked requests are kept: memory, an SQLite file under ``JOBDIR``, or a fleet's Redis.

:func:`jobdir_lot` is chosen when the crawl is built; :func:`fleet_lot` once the spider
opens and the scheduler is known (a scrapy-redis scheduler brings the fleet's Redis).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .._compat import redis_server
from .._settings import Config, ConfigError
from ..parking.memory import MemoryLot
from ..parking.sqlite import SqliteLot

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from ..parking.base import Lot
    from ..parking.codec import RequestCodec


def jobdir_lot(crawler: Crawler, codec: RequestCodec) -> Lot[Any]:
    """Parked requests in memory, or in an SQLite file under ``JOBDIR`` (kept on a pause)."""
    jobdir = crawler.settings.get("JOBDIR")
    if not jobdir:
        return MemoryLot()
    path = os.path.join(str(jobdir), "gbot_robots", "parked.sqlite3")
    try:
        return SqliteLot(path, codec.dumps, codec.loads)
    except Exception as exc:  # sqlite3.Error, OSError: say which setting it is about
        raise ConfigError("JOBDIR", f"cannot keep parked requests in {path}: {exc}") from exc


def fleet_lot(
    config: Config, scheduler: Any, spider: Spider, codec: RequestCodec
) -> Lot[Any] | None:
    """A Redis lot shared by the fleet when the scheduler is scrapy-redis's, else None.

    Parked requests then survive the death of the worker that parked them, and whichever
    worker sees the decision puts them back into the shared scrapy-redis queue.
    """
    server = redis_server(scheduler)
    if server is None or not config.fleet_parking:
        return None
    from ..parking.redis import RedisLot

    lot: Lot[Any] = RedisLot(server, f"{spider.name}:gbot_robots", codec.dumps, codec.loads)
    return lot
