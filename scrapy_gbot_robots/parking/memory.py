"""Parked requests kept as objects: the lot of a crawl without ``JOBDIR``.

As Scrapy's memory queues do: 16 bytes per request (a list slot and a float) on top of the
request itself, plus one small record per origin. Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from array import array
from typing import Generic, TypeVar

T = TypeVar("T")


class _Queue(Generic[T]):
    __slots__ = ("items", "seqs", "times")

    def __init__(self) -> None:
        self.items: list[T] = []
        self.times = array("d")
        self.seqs = array("q")


class MemoryLot(Generic[T]):
    """Parked items kept as objects: the lot of a crawl without ``JOBDIR``."""

    shared = False
    where = "memory"

    def __init__(self) -> None:
        self._queues: dict[str, _Queue[T]] = {}
        self._count = 0
        self._seq = 0

    def push(self, origin: str, item: T, parked_at: float, seq: int | None = None) -> None:
        queue = self._queues.get(origin)
        if queue is None:
            queue = self._queues[origin] = _Queue()
        queue.items.append(item)
        queue.times.append(parked_at)
        if seq is None:
            self._seq += 1
            seq = self._seq
        queue.seqs.append(seq)
        self._count += 1

    def _cut(self, origin: str, queue: _Queue[T], n: int) -> list[T]:
        taken = queue.items[:n]
        del queue.items[:n], queue.times[:n], queue.seqs[:n]
        self._count -= n
        if not queue.items:
            del self._queues[origin]
        return taken

    def take(self, origin: str, limit: int) -> list[T]:
        queue = self._queues.get(origin)
        if queue is None:
            return []
        return self._cut(origin, queue, min(limit, len(queue.items)))

    def take_parked_before(self, origin: str, cutoff: float) -> list[T]:
        queue = self._queues.get(origin)
        if queue is None:
            return []
        times = queue.times
        n = 0
        while n < len(times) and times[n] <= cutoff:
            n += 1
        return self._cut(origin, queue, n) if n else []

    def oldest(self, origin: str) -> float | None:
        queue = self._queues.get(origin)
        return queue.times[0] if queue is not None else None

    def drain(self, origin: str) -> list[tuple[float, T]]:
        """Every item of ``origin`` with its park time, oldest first, in one cut."""
        queue = self._queues.pop(origin, None)
        if queue is None:
            return []
        self._count -= len(queue.items)
        return list(zip(queue.times, queue.items, strict=True))

    def oldest_seq(self, origin: str) -> int | None:
        queue = self._queues.get(origin)
        return queue.seqs[0] if queue is not None else None

    def peek(self, origin: str) -> T | None:
        queue = self._queues.get(origin)
        return queue.items[0] if queue is not None else None

    def waiting(self) -> list[tuple[str, int]]:
        ordered = sorted(self._queues.items(), key=lambda kv: kv[1].seqs[0])
        return [(origin, len(queue.items)) for origin, queue in ordered]

    def __len__(self) -> int:
        return self._count

    def flush(self) -> None:
        return None

    def counters(self) -> dict[str, int]:
        return {}

    def close(self, persist: bool) -> list[tuple[str, T]]:
        left = [(origin, item) for origin, queue in self._queues.items() for item in queue.items]
        self._queues.clear()
        self._count = 0
        return left
