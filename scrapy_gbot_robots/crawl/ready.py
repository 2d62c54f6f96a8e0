"""Decided origins whose parked requests are sent on a few per turn, round robin.

When a robots.txt fetch ends, its origin's parked requests used to go to the scheduler all
at once. At a broad crawl's start that is every origin decided in the same second: the
downloader fills, its downloads end together, and their responses reach Scrapy's scraper in
bursts, where they live long enough for the garbage collector to promote them and walk them
again and again (``docs/benchmarks.md``, "What the 1 s wait changes"). So the gate keeps
them parked, marks the origin *ready*, and the coordinator takes a few per turn of the
event loop (``GBOT_ROBOTS_RELEASE_PER_TURN``), one origin after another.

A ready origin's state is pinned in the store (the way a request on its way to the download
check pins it): forgotten before its requests leave, it would be fetched again. Its requests
stay in the lot meanwhile, so a close keeps them (``JOBDIR``) or drops and counts
them as it does every parked request. Pure: nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from .parked import Counts, ParkedItems

T = TypeVar("T")


def _no_pin(origin: str) -> None:
    return None


def _no_unpin(origin: str) -> bool:
    return False


class ReadyOrigins(Generic[T]):
    """The ready origins, in turn order; each one pinned in the store while it is here."""

    __slots__ = ("_items", "_order", "_pin", "_unpin", "peak")

    def __init__(
        self,
        items: ParkedItems[T],
        pin: Callable[[str], None] | None = None,
        unpin: Callable[[str], bool] | None = None,
    ) -> None:
        self._items = items
        self._order: OrderedDict[str, Counts] = OrderedDict()
        self._pin = pin or _no_pin
        #: True when the origin's last pin went: the store has room for one more origin.
        self._unpin = unpin or _no_unpin
        self.peak = 0  # the most origins ready at once (a stat)

    def add(self, origin: str, counts: Counts) -> bool:
        """``origin`` is ready (again); returns True when none was before (start sending)."""
        order = self._order
        first = not order
        if origin not in order:
            order[origin] = counts
            self._pin(origin)
            if len(order) > self.peak:
                self.peak = len(order)
        return first

    def send(self, limit: int) -> tuple[int, list[str], bool]:
        """Send on up to ``limit`` items, one per origin in turn.

        Returns how many were sent, the origins left with none (no longer ready), and whether
        unpinning them made room in the store.
        """
        order, items = self._order, self._items
        sent, done, room = 0, [], False
        while sent < limit and order:
            origin, counts = next(iter(order.items()))
            order.move_to_end(origin)
            sent += items.send(origin, counts, 1)
            if not counts.parked:
                done.append(origin)
                room = self.discard(origin) or room
        return sent, done, room

    def items(self) -> int:
        """Items of ready origins still parked: decided requests not yet sent on."""
        return sum(counts.parked for counts in self._order.values())

    def discard(self, origin: str) -> bool:
        """``origin`` is no longer ready; True when that made room in the store."""
        if self._order.pop(origin, None) is not None:
            return self._unpin(origin)
        return False

    def __contains__(self, origin: object) -> bool:
        return origin in self._order

    def __len__(self) -> int:
        return len(self._order)

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def clear(self) -> frozenset[str]:
        """The crawl closed: the store's pins go with it. Returns the origins that were
        waiting their turn."""
        origins = frozenset(self._order)
        self._order.clear()
        return origins
