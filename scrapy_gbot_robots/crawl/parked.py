"""Where the gate's items wait and how they leave, counted so that none is ever lost.

Items wait in the lot (parked: persisted with ``JOBDIR``, shared in a fleet) or in memory
beside it (held: downloads waiting in place, never persisted). Every way out (released in
batches, dropped at a deadline or when the origin is stopped, kept or dropped at the close)
is counted in the :class:`~.tally.Tally` here and written to the gate's
:class:`~.effects.Actions`, so the accounting rule has one home. The gate (:mod:`.gate`)
decides when; this module only moves and counts. Pure: nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Generic, Protocol, TypeVar

from ..parking.base import Lot
from ..parking.memory import MemoryLot
from .effects import Actions
from .tally import Tally

T = TypeVar("T")


class Counts(Protocol):
    """How many items of one origin the gate counts, in the lot and held."""

    parked: int
    held: int


class ParkedItems(Generic[T]):
    """The lot, the items held beside it, and the tally; see the module docstring."""

    def __init__(self, lot: Lot[T], actions: Actions[T], *, release_batch: int) -> None:
        self.lot = lot
        # Items waiting in place, in memory whatever the lot (see Gate.wait).
        self._held: MemoryLot[T] = MemoryLot()
        self._actions = actions
        self._batch = release_batch
        #: What entered and left the gate (:mod:`.tally`: nothing is ever lost).
        self.tally = Tally()

    def peek(self, origin: str) -> T | None:
        item = self.lot.peek(origin)
        return self._held.peek(origin) if item is None else item

    def push(self, origin: str, counts: Counts, item: T, now: float, *, held: bool) -> None:
        if held:
            self._held.push(origin, item, now)
            counts.held += 1
        else:
            self.lot.push(origin, item, now)
            counts.parked += 1
        self.tally.park()

    def resumed(self, counts: Counts, n: int) -> None:
        """``n`` items another run or process left in the lot are ours now."""
        counts.parked += n
        self.tally.resume(n)

    def oldest(self, origin: str, counts: Counts, *, aging: bool) -> float | None:
        """When the oldest item that ages was parked (held ones always age; the lot's when
        ``aging``)."""
        oldest = self._held.oldest(origin) if counts.held else None
        if aging:
            in_lot = self.lot.oldest(origin)
            oldest = in_lot if oldest is None or in_lot is None else min(oldest, in_lot)
        return oldest

    def expire(self, origin: str, counts: Counts, cutoff: float, *, aging: bool) -> None:
        """Drop what was parked at or before ``cutoff`` (the lot's only when ``aging``)."""
        if counts.held:
            held = self._held.take_parked_before(origin, cutoff)
            if held:
                counts.held -= len(held)
                self.tally.drop(len(held))
                self._actions.drop(origin, held, "deadline")
        if not aging:
            return
        items = self.lot.take_parked_before(origin, cutoff)
        if items:
            self.tally.drop(len(items), self._uncount(counts, len(items)))
            self._actions.drop(origin, items, "deadline")
        if counts.parked and self.lot.oldest(origin) is None:
            # The lot holds none of what we count: another process took them from a shared
            # lot (or Redis cannot be reached now: adopt() finds them again). Stop counting,
            # or the origin would wake at a past deadline and hold the crawl open for ever.
            self.tally.lost_to_others(self._uncount(counts, counts.parked))

    def drop_held(self, origin: str, counts: Counts, reason: str) -> None:
        held = self._held.take(origin, counts.held)
        counts.held -= len(held)
        self.tally.drop(len(held))
        self._actions.drop(origin, held, reason)

    def release(self, origin: str, counts: Counts, *, accepting: bool) -> None:
        """Release the held items, then (when ``accepting``) the lot's, in batches."""
        while counts.held > 0:  # first: they hold download slots, and the close waits for them
            held = self._held.take(origin, self._batch)
            if not held:
                break
            counts.held -= len(held)
            self.tally.release(len(held))
            self._actions.release(origin, held)
        shared = self.lot.shared
        while accepting and (counts.parked > 0 or shared):
            items = self.lot.take(origin, self._batch)
            if not items:
                break
            self.tally.release(len(items), self._uncount(counts, len(items)))
            self._actions.release(origin, items)

    def send(self, origin: str, counts: Counts, n: int) -> int:
        """Release up to ``n`` of the lot's items (a paced release); returns how many.

        A lot that holds none of what is counted (only a shared one can) stops the count, as
        :meth:`expire` does, or the origin would hold the crawl open for ever.
        """
        items = self.lot.take(origin, n)
        if items:
            self.tally.release(len(items), self._uncount(counts, len(items)))
            self._actions.release(origin, items)
        elif counts.parked:
            self.tally.lost_to_others(self._uncount(counts, counts.parked))
        return len(items)

    def released(self, counts: Counts, *, accepting: bool) -> None:
        """After a release: what a shared lot no longer holds was taken by another process."""
        if self.lot.shared and accepting and counts.parked:
            self.tally.lost_to_others(self._uncount(counts, counts.parked))

    def close(self, persist: bool, reason: str, decided: Container[str] = ()) -> int:
        """The crawl ends: keep what the lot can persist, drop the rest; return how many kept.

        ``decided``: the origins whose items were waiting their turn (their robots.txt was
        decided), told apart in the drop."""
        left = self._held.close(persist=False) + self.lot.close(persist)
        kept = self.tally.close(len(left))
        by_origin: dict[str, list[T]] = {}
        for origin, item in left:
            by_origin.setdefault(origin, []).append(item)
        for origin, items in by_origin.items():
            self._actions.drop(origin, items, reason, origin in decided)
        return kept

    def waiting(self) -> Sequence[tuple[str, int]]:
        return self.lot.waiting()

    def _uncount(self, counts: Counts, n: int) -> int:
        """Forget ``n`` items of ``counts``; in a shared lot they may be other processes'
        items. Returns how many of them were counted here."""
        mine = min(n, counts.parked)
        counts.parked -= mine
        return mine
