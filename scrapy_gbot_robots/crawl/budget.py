"""The robots.txt fetches in flight: a budget of slots, the origins waiting for one, a slow lane.

At most ``limit`` fetches hold a slot (redirect hops and immediate retries are inside one
fetch); origins wanting a fetch beyond that wait in one FIFO, in order of their first
request. The limit starts at ``start`` and moves between a floor and a ceiling
(``min_fetches``, ``max_fetches``): the pacing controller (:mod:`.pacing`) sets it from what
the crawl needs, and :meth:`FetchBudget.resize` keeps it inside the bounds whatever it asks.

The slow lane: when an origin waits for a slot, the oldest fetch still running
``slow_after`` seconds after it started (a host that never answers, until its timeout)
leaves the budget for a second lane of at most ``max_slow`` fetches, and its slot goes to the
queue; when the lane is full, slow fetches keep their slot. So dead hosts cannot starve the
budget, and at most ``max_fetches + max_slow`` robots.txt downloads are ever in flight.

Room: each fetch ends with one more origin state in the in-memory store, which must not
forget an origin whose requests are on their way to the downloader. ``room()`` says how
many more origins the store can take without that (:meth:`MemoryStore.room`); no fetch
starts from the queue while the fetches in flight fill it. A fetch that a download waiting
in place needs (``urgent``) does not wait for room: the engine waits for that download.

Pure bookkeeping for the gate (:mod:`.gate`), which decides who starts: no I/O, no clock
(``now`` is an argument), nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import sys
from collections import OrderedDict, deque
from collections.abc import Callable


def _unbounded() -> int:
    return sys.maxsize


class FetchBudget:
    """Slots, the waiting queue and the slow lane; see the module docstring."""

    def __init__(
        self,
        max_fetches: int,
        *,
        min_fetches: int | None = None,
        start: int | None = None,
        max_slow: int = 0,
        slow_after: float = 0.0,
        room: Callable[[], int] | None = None,
    ) -> None:
        if max_fetches < 1:
            raise ValueError(f"max_fetches must be >= 1, got {max_fetches}")
        floor = max_fetches if min_fetches is None else min_fetches
        if not 1 <= floor <= max_fetches:
            raise ValueError(f"min_fetches must be in [1, {max_fetches}], got {min_fetches}")
        first = floor if start is None else start
        if not floor <= first <= max_fetches:
            raise ValueError(f"start must be in [{floor}, {max_fetches}], got {start}")
        if max_slow < 0 or slow_after < 0:
            raise ValueError(f"max_slow and slow_after must be >= 0, got {max_slow}, {slow_after}")
        #: The ceiling: the limit never goes above it.
        self.max_fetches = max_fetches
        #: The floor: the limit never goes below it.
        self.min_fetches = floor
        #: Fetches that may hold a slot now.
        self.limit = first
        self.limit_peak = first
        # The lane is off when either is 0: slow fetches then keep their slot.
        self.max_slow = max_slow if slow_after > 0 else 0
        self.slow_after = slow_after
        self.room = room or _unbounded
        #: Whether the last start from the queue was refused for lack of room alone.
        self.room_blocked = False
        #: Origins waiting for a slot, FIFO (entries cancelled meanwhile are skipped).
        self.queue: deque[str] = deque()
        #: While the crawl closes: queued origins whose downloads wait in place go first.
        self.urgent: deque[str] = deque()
        # Fetches holding a slot: start time, oldest first (O(1) to peek and to delete).
        self._started: OrderedDict[str, float] = OrderedDict()
        self.running = 0  # fetches in flight holding a slot
        self.slow = 0  # fetches in flight moved to the slow lane
        self.running_peak = 0
        self.slow_peak = 0
        self.queued_peak = 0

    @property
    def in_flight(self) -> int:
        """Fetches running, in a slot or in the lane: at most ``max_fetches + max_slow``."""
        return self.running + self.slow

    @property
    def waiting(self) -> bool:
        """Whether some origin waits for a slot."""
        return bool(self.queue or self.urgent)

    def resize(self, limit: int) -> bool:
        """Set the limit, kept within [floor, ceiling]; True when it grew (the queue may move).

        Fetches above a lowered limit run to their end: only new starts wait.
        """
        limit = min(self.max_fetches, max(self.min_fetches, limit))
        grew = limit > self.limit
        self.limit = limit
        if limit > self.limit_peak:
            self.limit_peak = limit
        return grew

    def has_slot(self, *, urgent: bool = False) -> bool:
        return self.running < self.limit and (urgent or self._roomy())

    def _roomy(self) -> bool:
        """Whether the store can take the states of the fetches in flight and one more."""
        roomy = self.spare() > 0
        self.room_blocked = not roomy
        return roomy

    def spare(self) -> int:
        """How many more origins the store can pin once the fetches in flight have decided
        theirs (a decided origin that waits its turn takes one, as a fetch does)."""
        return self.room() - self.in_flight

    def start(self, origin: str, now: float) -> None:
        """``origin``'s fetch takes a slot."""
        self.running += 1
        self._started[origin] = now
        if self.running > self.running_peak:
            self.running_peak = self.running

    def done(self, origin: str) -> None:
        """``origin``'s fetch ended: its slot, or its place in the lane, is free."""
        if self._started.pop(origin, None) is not None:
            self.running -= 1
        else:
            self.slow -= 1

    def enqueue(self, origin: str, *, urgent: bool = False) -> None:
        self.queue.append(origin)
        if urgent:
            self.urgent.append(origin)
        if len(self.queue) > self.queued_peak:
            self.queued_peak = len(self.queue)

    def make_room(self, now: float, *, urgent: bool = False) -> bool:
        """A free slot, or one the oldest fetch gives up by moving to the slow lane.

        Only asked when an origin waits for a slot: a slow fetch nobody waits behind stays.
        Without room in the store (and not ``urgent``), nothing moves.
        """
        if not urgent and not self._roomy():
            return False
        if self.running < self.limit:
            return True
        started = self._started
        # Above a lowered limit, one fetch leaving for the lane frees no slot.
        if self.slow >= self.max_slow or not started or self.running > self.limit:
            return False
        origin, since = next(iter(started.items()))
        if since > now - self.slow_after:
            return False
        del started[origin]
        self.running -= 1
        self.slow += 1
        if self.slow > self.slow_peak:
            self.slow_peak = self.slow
        return True

    def clear(self) -> None:
        """The crawl ends: nothing waits any more (fetches still running just end)."""
        self.queue.clear()
        self.urgent.clear()
