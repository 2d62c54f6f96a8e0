"""The park clock: when an origin's waiting items time out, and when the gate looks again.

``park_timeout`` counts only while an origin's robots.txt is being fetched or failing: the
gate starts the origin's clock then (:meth:`ParkClock.start`), and an item parked while it
runs times out ``park_timeout`` after it was parked, or after the clock started if later.
A request queued behind the fetch budget does not age, so a big backlog never turns into
drops. Once the crawl closes, only items held in place age (the close keeps or drops the
lot's), from the start of the close at the latest. The gate decides what a due origin means;
this module only keeps the times, in one heap of wake-ups (:mod:`.wakeups`) that also holds
the gate's other appointments (a due retry, a fleet's recheck). Pure: no clock of its own,
nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, Protocol, TypeVar

from .parked import Counts, ParkedItems
from .wakeups import Wakeups

T = TypeVar("T")


class Clocked(Counts, Protocol):
    """One origin's counts and the start of its park clock (None: not running)."""

    active_since: float | None


class ParkClock(Generic[T]):
    """The gate's times; see the module docstring."""

    __slots__ = ("_items", "_timeout", "_wakeups", "closing_at")

    def __init__(self, items: ParkedItems[T], timeout: float) -> None:
        self._items = items
        self._timeout = timeout
        self._wakeups = Wakeups()
        #: When the gate learnt that the crawl closes (None: it has not).
        self.closing_at: float | None = None

    @property
    def close_deadline(self) -> float | None:
        """While closing: ``park_timeout`` after the close began, when every held item that
        waited since then is given up (one that came later waits its own ``park_timeout``)."""
        return None if self.closing_at is None else self.closing_at + self._timeout

    # -- appointments -----------------------------------------------------------------------
    def wake(self, origin: str, when: float) -> None:
        """Look at ``origin`` again at ``when`` (or earlier, if already due earlier)."""
        self._wakeups.set(origin, when)

    def cancel(self, origin: str) -> None:
        self._wakeups.cancel(origin)

    def due(self, now: float) -> list[str]:
        return self._wakeups.due(now)

    def clear(self) -> None:
        self._wakeups.clear()

    def __len__(self) -> int:
        """Entries in the heap of wake-ups, leftovers included (what the bound is about)."""
        return len(self._wakeups)

    # -- the park clock ---------------------------------------------------------------------
    def start(self, origin: str, rec: Clocked, now: float) -> None:
        """The origin's clock runs from ``now`` unless it already ran; set its next deadline."""
        if rec.active_since is None:
            rec.active_since = now
        self.deadline(origin, rec)

    def stop(self, origin: str, rec: Clocked) -> None:
        """The origin is decided: nothing of it ages and nothing is due."""
        rec.active_since = None
        self._wakeups.cancel(origin)

    def parked(self, origin: str, rec: Clocked, now: float, *, held: bool, runs: bool) -> None:
        """An item was just parked; ``runs``: the origin's fetch is under way or failing."""
        closing = self.closing_at is not None
        if rec.active_since is None and (runs or (held and closing)):
            rec.active_since = now
        if rec.active_since is not None and (held or not closing):  # its clock runs
            self._wakeups.set(origin, max(now, rec.active_since) + self._timeout)

    def deadline(self, origin: str, rec: Clocked) -> None:
        """Wake the origin when its oldest item that ages times out."""
        aging = bool(rec.parked) and self.closing_at is None
        if rec.active_since is None or not (aging or rec.held):
            return
        oldest = self._items.oldest(origin, rec, aging=aging)
        start = rec.active_since if oldest is None else max(oldest, rec.active_since)
        self._wakeups.set(origin, start + self._timeout)

    def expire(self, origin: str, rec: Clocked, now: float) -> None:
        """Drop the origin's items whose time is up (reason ``"deadline"``)."""
        aging = bool(rec.parked) and self.closing_at is None
        if rec.active_since is None or not (aging or rec.held):
            return
        cutoff = now - self._timeout
        if rec.active_since <= cutoff:
            self._items.expire(origin, rec, cutoff, aging=aging)

    def close_began(self, now: float, recs: Iterable[tuple[str, Clocked]]) -> None:
        """The crawl closes: from now on only held items age, from ``now`` at the latest."""
        self.closing_at = now
        for origin, rec in recs:
            if rec.held:
                self.start(origin, rec, now)
