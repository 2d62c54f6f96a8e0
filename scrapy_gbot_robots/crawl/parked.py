"""Where the gate's items wait and how they leave, counted so that none is ever lost.

Items wait in the lot (parked: persisted with ``JOBDIR``, shared in a fleet) or in memory
beside it (held: downloads waiting in place, never persisted). Every way out (released in
batches or one per turn, dropped at a deadline or when the origin is stopped, kept or
dropped at the close) is counted in the :class:`~.tally.Tally` here and written to the
gate's :class:`~.effects.Actions`, so the accounting rule has one home.

The gate (:mod:`.gate`) decides when, and keeps each origin's counts in its record: every
method here is told how many of the origin's items the gate counts and answers how many of
them left, so that the gate alone changes its record. In a lot shared between processes,
what leaves may be another process's (it parked them): only what the gate counted is
answered, the rest goes to the tally as released or dropped all the same. Pure: nothing
from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from typing import Generic, TypeVar

from ..parking.base import Lot
from ..parking.memory import MemoryLot
from .effects import Actions
from .reasons import DEADLINE
from .tally import Tally

T = TypeVar("T")


class ParkedItems(Generic[T]):
    """The lot, the items held beside it, and the tally; see the module docstring."""

    __slots__ = ("_actions", "_batch", "_held", "lot", "tally")

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

    def push(self, origin: str, item: T, now: float, *, held: bool) -> None:
        (self._held if held else self.lot).push(origin, item, now)
        self.tally.park()

    def resumed(self, n: int) -> None:
        """``n`` items another run or process left in the lot are the gate's now."""
        self.tally.resume(n)

    def held_origins(self) -> Iterator[str]:
        """The origins with items waiting in place."""
        return (origin for origin, _ in self._held.waiting())

    def oldest(self, origin: str, *, held: bool, aging: bool) -> float | None:
        """When the oldest item that ages was parked (held ones always age, when ``held``;
        the lot's when ``aging``)."""
        oldest = self._held.oldest(origin) if held else None
        if aging:
            in_lot = self.lot.oldest(origin)
            oldest = in_lot if oldest is None or in_lot is None else min(oldest, in_lot)
        return oldest

    def expire(
        self, origin: str, cutoff: float, *, held: int, parked: int, aging: bool
    ) -> tuple[int, int]:
        """Drop what was parked at or before ``cutoff`` (the lot's only when ``aging``).

        Returns how many of the ``held`` and of the ``parked`` items the gate counts left.
        A lot that holds none of the ``parked`` ones (another process took them from a shared
        lot, or Redis cannot be reached now: ``adopt`` finds them again) gives them all up,
        or the origin would wake at a past deadline and hold the crawl open for ever.
        """
        held_gone = parked_gone = 0
        if held:
            items = self._held.take_parked_before(origin, cutoff)
            if items:
                held_gone = len(items)
                self.tally.drop(held_gone)
                self._actions.drop(origin, items, DEADLINE)
        if aging:
            items = self.lot.take_parked_before(origin, cutoff)
            if items:
                parked_gone = min(len(items), parked)
                self.tally.drop(len(items), parked_gone)
                self._actions.drop(origin, items, DEADLINE)
            if parked > parked_gone and self.lot.oldest(origin) is None:
                parked_gone += self._lost(parked - parked_gone)
        return held_gone, parked_gone

    def drop_held(self, origin: str, n: int, reason: str) -> int:
        """Drop the origin's ``n`` held items; returns how many there were."""
        items = self._held.take(origin, n)
        self.tally.drop(len(items))
        self._actions.drop(origin, items, reason)
        return len(items)

    def release(self, origin: str, *, held: int, parked: int, accepting: bool) -> tuple[int, int]:
        """Release the held items, then (when ``accepting``) the lot's, in batches; returns
        how many of the ``held`` and of the ``parked`` left. What a shared lot no longer holds
        of the ``parked`` was taken by another process: given up here too."""
        held_gone = parked_gone = 0
        while held_gone < held:  # first: they hold download slots, and the close waits for them
            items = self._held.take(origin, self._batch)
            if not items:
                break
            held_gone += len(items)
            self.tally.release(len(items))
            self._actions.release(origin, items)
        shared = self.lot.shared
        while accepting and (parked_gone < parked or shared):
            items = self.lot.take(origin, self._batch)
            if not items:
                break
            mine = min(len(items), parked - parked_gone)
            parked_gone += mine
            self.tally.release(len(items), mine)
            self._actions.release(origin, items)
        if shared and accepting and parked > parked_gone:
            parked_gone += self._lost(parked - parked_gone)
        return held_gone, parked_gone

    def release_one(self, origin: str, parked: int) -> tuple[int, int]:
        """Release the oldest of the lot's items (a turn); returns (how many went, how many
        of the ``parked`` left). A lot that holds none of what is counted (only a shared one
        can) gives the count up, as :meth:`expire` does."""
        items = self.lot.take(origin, 1)
        if items:
            mine = min(len(items), parked)
            self.tally.release(len(items), mine)
            self._actions.release(origin, items)
            return len(items), mine
        return 0, self._lost(parked)

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

    def _lost(self, n: int) -> int:
        """``n`` counted items are gone from a shared lot: another process has them."""
        if n:
            self.tally.lost_to_others(n)
        return n
