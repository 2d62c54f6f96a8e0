"""Where parked requests wait: the lot protocol, one FIFO per origin.

Requests whose origin has no usable robots.txt decision yet wait in a lot, outside Scrapy's
scheduler and downloader: in memory (:mod:`.memory`), in an SQLite file under ``JOBDIR``
(:mod:`.sqlite`), or in Redis for a scrapy-redis fleet (:mod:`.redis`). The order within an
origin is arrival order; a lot never reorders or loses an item.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

T = TypeVar("T")


class Lot(Protocol[T]):
    """Per-origin FIFO queues of waiting items, each with the time it was parked.

    A lot may be ``shared`` between processes (a fleet's Redis): then another process may
    take or add items at any time, and counts are only this process's estimate.
    """

    shared: bool
    #: Where the items are, for logs: "memory", the SQLite file, "Redis (prefix*)".
    where: str

    def push(self, origin: str, item: T, parked_at: float) -> None:
        """Append ``item`` to ``origin``'s queue."""

    def take(self, origin: str, limit: int) -> list[T]:
        """Remove and return up to ``limit`` items of ``origin``, oldest first."""

    def take_parked_before(self, origin: str, cutoff: float) -> list[T]:
        """Remove and return the items of ``origin`` parked at or before ``cutoff``."""

    def oldest(self, origin: str) -> float | None:
        """When the oldest item of ``origin`` was parked; None when it has none."""

    def peek(self, origin: str) -> T | None:
        """The oldest item of ``origin`` without removing it."""

    def waiting(self) -> list[tuple[str, int]]:
        """Every origin with items and its count, by the age of its oldest item."""

    def __len__(self) -> int:
        """Items in the lot."""

    def flush(self) -> None:
        """Make pushed and taken items durable (a no-op in memory)."""

    def counters(self) -> dict[str, int]:
        """The lot's own counts (``errors``, ``outages``, ``timeouts``); empty when none."""

    def close(self, persist: bool) -> list[tuple[str, T]]:
        """Shut the lot; return the items it could not keep (all of them unless persisted)."""
