"""Decided origins whose parked requests are released a few per turn, round robin.

When a robots.txt fetch ends, its origin's parked requests used to go to the scheduler all
at once. At a broad crawl's start that is every origin decided in the same second: the
downloader fills, its downloads end together, and their responses reach Scrapy's scraper in
bursts, where they live long enough for the garbage collector to promote them and walk them
again and again (``docs/benchmarks.md``, "What the 1 s wait changes"). So the gate keeps
them parked and gives the origin a place in the turns; the coordinator asks the gate to
release a few per turn of the event loop (``GBOT_ROBOTS_RELEASE_PER_TURN``), one origin
after another.

An origin waiting its turn is pinned in the store (the way a request on its way to the
download check pins it): forgotten before its requests leave, it would be fetched again.
Its requests stay in the lot meanwhile, so a close keeps them (``JOBDIR``) or drops and
counts them as it does every parked request. This module keeps the order and the pins; the
gate counts the items. Pure: nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator


class Turns:
    """The origins waiting their turn, in turn order; each one pinned in the store meanwhile."""

    __slots__ = ("_order", "_pin", "_unpin", "peak")

    def __init__(self, pin: Callable[[str], None], unpin: Callable[[str], bool]) -> None:
        self._order: OrderedDict[str, None] = OrderedDict()
        self._pin = pin
        #: True when the origin's last pin went: the store has room for one more origin.
        self._unpin = unpin
        self.peak = 0  # the most origins waiting their turn at once (a stat)

    def add(self, origin: str) -> bool:
        """``origin`` waits its turn (again); returns True when none did before (the turns
        must start)."""
        order = self._order
        first = not order
        if origin not in order:
            order[origin] = None
            self._pin(origin)
            if len(order) > self.peak:
                self.peak = len(order)
        return first

    def next(self) -> str:
        """The origin whose turn it is; it goes to the back of the line."""
        origin = next(iter(self._order))
        self._order.move_to_end(origin)
        return origin

    def discard(self, origin: str) -> bool:
        """``origin`` no longer waits its turn; True when that made room in the store."""
        if origin in self._order:
            del self._order[origin]
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
