"""The robots.txt fetches in flight: a budget of slots, the origins waiting for one, a slow lane.

At most ``max_fetches`` fetches hold a slot (redirect hops and immediate retries are inside
one fetch); origins wanting a fetch beyond that wait in one FIFO, in order of their first
request. The slow lane: when an origin waits for a slot, the oldest fetch still running
``slow_after`` seconds after it started (a host that never answers, until its timeout)
leaves the budget for a second lane of at most ``max_slow`` fetches, and its slot goes to the
queue; when the lane is full, slow fetches keep their slot. So dead hosts cannot starve the
budget, and at most ``max_fetches + max_slow`` robots.txt downloads are ever in flight.

Pure bookkeeping for the gate (:mod:`.gate`), which decides who starts: no I/O, no clock
(``now`` is an argument), nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import OrderedDict, deque


class FetchBudget:
    """Slots, the waiting queue and the slow lane; see the module docstring."""

    def __init__(self, max_fetches: int, *, max_slow: int = 0, slow_after: float = 0.0) -> None:
        if max_fetches < 1:
            raise ValueError(f"max_fetches must be >= 1, got {max_fetches}")
        if max_slow < 0 or slow_after < 0:
            raise ValueError(f"max_slow and slow_after must be >= 0, got {max_slow}, {slow_after}")
        self.max_fetches = max_fetches
        # The lane is off when either is 0: slow fetches then keep their slot.
        self.max_slow = max_slow if slow_after > 0 else 0
        self.slow_after = slow_after
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
        self.slow_total = 0  # fetches ever moved to the slow lane
        self.queued_peak = 0

    @property
    def in_flight(self) -> int:
        """Fetches running, in a slot or in the lane: at most ``max_fetches + max_slow``."""
        return self.running + self.slow

    @property
    def waiting(self) -> bool:
        """Whether some origin waits for a slot."""
        return bool(self.queue or self.urgent)

    def has_slot(self) -> bool:
        return self.running < self.max_fetches

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

    def make_room(self, now: float) -> bool:
        """A free slot, or one the oldest fetch gives up by moving to the slow lane.

        Only asked when an origin waits for a slot: a slow fetch nobody waits behind stays.
        """
        if self.running < self.max_fetches:
            return True
        started = self._started
        if self.slow >= self.max_slow or not started:
            return False
        origin, since = next(iter(started.items()))
        if since > now - self.slow_after:
            return False
        del started[origin]
        self.running -= 1
        self.slow += 1
        self.slow_total += 1
        if self.slow > self.slow_peak:
            self.slow_peak = self.slow
        return True

    def clear(self) -> None:
        """The crawl ends: nothing waits any more (fetches still running just end)."""
        self.queue.clear()
        self.urgent.clear()
