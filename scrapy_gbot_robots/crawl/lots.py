"""Where parked requests are kept: memory, an SQLite file under ``JOBDIR``, or a fleet's Redis.

:func:`jobdir_lot` is opened when the crawl is built; :func:`fleet_lot` once the spider
opens and the scheduler is known (a scrapy-redis scheduler brings the fleet's Redis). The
gate is built whole before that, so it parks in a :class:`LotChoice`: the ``JOBDIR`` lot
until the coordinator, which owns the choice, makes it once at the open.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._compat import redis_server
from .._settings import Config, ConfigError
from ..parking.memory import MemoryLot

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from ..parking.base import Lot
    from ..parking.codec import RequestCodec

T = TypeVar("T")


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


class LotChoice(Generic[T]):
    """The lot the gate parks in: the first one given, or the one :meth:`choose` names once
    the scheduler is known. The choice is made once, before anything is parked, so the
    gate's counts always describe the lot in use."""

    def __init__(self, lot: Lot[T]) -> None:
        self._lot = lot
        self.shared = lot.shared
        self.where = lot.where
        self._chosen = False
        self._used = False

    def choose(self, lot: Lot[T]) -> None:
        """Park in ``lot`` from now on; the first lot is closed, keeping what it holds (a
        ``JOBDIR``'s parked requests wait there for a later run)."""
        if self._chosen or self._used:
            raise RuntimeError("the parking lot can only be chosen once, before any parking")
        self._chosen = True
        self._lot.close(persist=True)
        self._lot = lot
        self.shared = lot.shared
        self.where = lot.where

    # -- the Lot protocol, answered by the lot in use ----------------------------------------
    def push(self, origin: str, item: T, parked_at: float) -> None:
        self._used = True
        self._lot.push(origin, item, parked_at)

    def take(self, origin: str, limit: int) -> list[T]:
        return self._lot.take(origin, limit)

    def take_parked_before(self, origin: str, cutoff: float) -> list[T]:
        return self._lot.take_parked_before(origin, cutoff)

    def oldest(self, origin: str) -> float | None:
        return self._lot.oldest(origin)

    def peek(self, origin: str) -> T | None:
        return self._lot.peek(origin)

    def waiting(self) -> list[tuple[str, int]]:
        return self._lot.waiting()

    def __len__(self) -> int:
        return len(self._lot)

    def flush(self) -> None:
        self._lot.flush()

    def counters(self) -> dict[str, int]:
        return self._lot.counters()

    def close(self, persist: bool) -> list[tuple[str, T]]:
        return self._lot.close(persist)
