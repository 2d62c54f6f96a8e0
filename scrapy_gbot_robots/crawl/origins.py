"""The gate's books: one record per origin, and every change to it, in one class.

The gate (:mod:`.gate`) decides *when* (a request passes or parks, a fetch starts, an origin
is released or stopped); :class:`Origins` keeps the books of *what* that does to an origin:
its :class:`OriginRecord` (items parked and held, its fetch, its flags), where its items wait
and how they leave (:mod:`.parked`), when they age (:mod:`.clock`), and its place in the
paced release (:mod:`.turns`). Every change to a record is one of the methods below, so
"who changed this origin?" has one answer. A record lives while requests wait, a fetch is
wanted or the origin waits its turn, and no longer. Pure: nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

from ..parking.base import Lot
from ..stores.base import Bounded
from .clock import ParkClock
from .effects import Actions
from .lifecycle import Lifecycle
from .parked import ParkedItems
from .reasons import FetchReason
from .tally import Tally
from .turns import Turns
from .waiting import Waiting

T = TypeVar("T")


class FetchState(enum.IntEnum):
    """Where an origin's robots.txt fetch is."""

    NONE = 0
    QUEUED = 1  # waiting for a slot of the budget
    RUNNING = 2


class OriginRecord:
    """What the books hold for one origin; read by the gate, changed by :class:`Origins`."""

    __slots__ = ("blocking", "failing", "fetch", "held", "parked", "releasing", "why")

    def __init__(self) -> None:
        self.parked = 0  # items of this origin in the lot
        self.held = 0  # items of this origin waiting in place (see Gate.wait)
        self.fetch = FetchState.NONE
        self.blocking = False  # whether parked requests wait for the fetch under way
        self.why: FetchReason | None = None
        self.failing = False  # the origin is in server error (its park clock runs)
        self.releasing = False  # its items are being released (nothing else may move them)


class Origins(Generic[T]):
    """The records and the parts that move their items; see the module docstring."""

    def __init__(
        self,
        lot: Lot[T],
        actions: Actions[T],
        lifecycle: Lifecycle,
        bounds: Bounded,
        *,
        park_timeout: float,
        release_batch: int,
    ) -> None:
        self._recs: dict[str, OriginRecord] = {}
        self._actions = actions
        self._lifecycle = lifecycle
        self._items = ParkedItems(lot, actions, release_batch=release_batch)
        self._clock = ParkClock(park_timeout, lifecycle, self._items.oldest)
        self._turns = Turns(bounds.pin, bounds.unpin)

    # -- reads --------------------------------------------------------------------------------
    def get(self, origin: str) -> OriginRecord | None:
        return self._recs.get(origin)

    def __contains__(self, origin: object) -> bool:
        return origin in self._recs

    @property
    def lot(self) -> Lot[T]:
        return self._items.lot

    @property
    def tally(self) -> Tally:
        """What entered and left (read it; only the items part changes it)."""
        return self._items.tally

    def peek(self, origin: str) -> T | None:
        return self._items.peek(origin)

    def waiting(self) -> Sequence[tuple[str, int]]:
        return self._items.waiting()

    def in_turn(self, origin: str) -> bool:
        return origin in self._turns

    @property
    def turns(self) -> int:
        """How many origins wait their turn."""
        return len(self._turns)

    @property
    def turn_peak(self) -> int:
        return self._turns.peak

    def turn_items(self) -> int:
        """Decided requests still parked, waiting their turn."""
        recs = self._recs
        return sum(recs[origin].parked for origin in self._turns)

    @property
    def close_deadline(self) -> float | None:
        return self._clock.close_deadline

    def why_waiting(self, now: float, retry_at: Callable[[str], float | None]) -> Waiting:
        """The items waiting now, by what they wait for, the next retry of a failing origin
        (``retry_at``: when its state wants it) and the first park deadline: one pass over
        the records, and a bounded number of questions to the lot (:mod:`.waiting`)."""
        counts = dict.fromkeys(("fetching", "slot", "retry", "turn", "other"), 0)
        retries: list[float] = []
        waiting: list[tuple[str, int, int]] = []
        for origin, rec in self._recs.items():
            count = rec.parked + rec.held
            if not count:
                continue
            if origin in self._turns:
                kind = "turn"
            elif rec.failing:
                kind = "retry"
                if rec.fetch == FetchState.RUNNING:
                    retries.append(0.0)  # under way
                elif (at := retry_at(origin)) is not None:
                    retries.append(max(0.0, at - now))
            elif rec.fetch == FetchState.RUNNING or rec.why is FetchReason.RECHECK:
                kind = "fetching"
            elif rec.fetch == FetchState.QUEUED:
                kind = "slot"
            else:
                kind = "other"
            counts[kind] += count
            waiting.append((origin, rec.parked, rec.held))
        first = self._clock.first_due(waiting)
        return Waiting(
            **counts,
            next_retry=min(retries) if retries else None,
            first_drop=None if first is None else max(0.0, first - now),
        )

    def due(self, now: float) -> list[str]:
        return self._clock.due(now)

    # -- records ------------------------------------------------------------------------------
    def record(self, origin: str) -> OriginRecord:
        rec = self._recs.get(origin)
        if rec is None:
            rec = self._recs[origin] = OriginRecord()
        return rec

    def forget(self, origin: str, rec: OriginRecord) -> None:
        """Drop the record if nothing of the origin is left to keep."""
        if not (rec.parked or rec.held or rec.fetch or rec.releasing or origin in self._turns):
            self._recs.pop(origin, None)
            self._clock.forget(origin)

    def take_over(self, origin: str, count: int) -> None:
        """``count`` items another run or process left in the lot are ours now."""
        self.record(origin).parked += count
        self._items.resumed(count)

    # -- items --------------------------------------------------------------------------------
    def park(
        self,
        origin: str,
        rec: OriginRecord | None,
        item: T,
        now: float,
        *,
        failing: bool = False,
        held: bool = False,
    ) -> OriginRecord:
        if rec is None:
            rec = self.record(origin)
        self._items.push(origin, item, now, held=held)
        if held:
            rec.held += 1
        else:
            rec.parked += 1
        if failing:
            rec.failing = True
        runs = rec.fetch == FetchState.RUNNING or rec.failing
        self._clock.parked(origin, now, held=held, runs=runs)
        return rec

    def expire(self, origin: str, rec: OriginRecord, now: float) -> None:
        """Drop the origin's items whose time is up (reason ``"deadline"``)."""
        due = self._clock.overdue(origin, now, parked=rec.parked, held=rec.held)
        if due is not None:
            cutoff, aging = due
            held, parked = self._items.expire(
                origin, cutoff, held=rec.held, parked=rec.parked, aging=aging
            )
            rec.held -= held
            rec.parked -= parked

    def drop_held(self, origin: str, rec: OriginRecord, reason: str) -> None:
        rec.held -= self._items.drop_held(origin, rec.held, reason)

    def release(self, origin: str, rec: OriginRecord, *, accepting: bool, paced: bool) -> None:
        """Release the held items, and the lot's when ``accepting``; ``paced``: the lot's
        wait their turn instead. The record is forgotten if nothing is left."""
        rec.releasing = True
        try:
            held, parked = self._items.release(
                origin, held=rec.held, parked=rec.parked, accepting=accepting and not paced
            )
            rec.held -= held
            rec.parked -= parked
            if paced and rec.parked:
                self.wait_turn(origin, rec)
        finally:
            rec.releasing = False
            self.forget(origin, rec)

    def close(self, persist: bool, reason: str, backing_off: frozenset[str] = frozenset()) -> int:
        """The crawl is closed: every record goes; the lot keeps what it can persist. The
        items of origins waiting their turn, or their back-off, were decided: their drop
        says so."""
        decided = self._turns.clear() | backing_off
        self._recs.clear()
        self._clock.clear()
        return self._items.close(persist, reason, decided)

    # -- turns --------------------------------------------------------------------------------
    def wait_turn(self, origin: str, rec: OriginRecord) -> None:
        """The origin is decided: its lot items wait for :meth:`release_turn`, no clock
        running (the turns start when it is the first)."""
        rec.failing = False
        self._clock.stop(origin)
        if self._turns.add(origin):
            self._actions.turns_due()

    def leave_turn(self, origin: str) -> bool:
        """The origin no longer waits its turn; True when that made room in the store."""
        return self._turns.discard(origin)

    def release_turn(self, limit: int) -> tuple[int, bool]:
        """Release up to ``limit`` items, one per origin in turn: how many, and whether an
        origin that went made room in the store."""
        turns, recs, items = self._turns, self._recs, self._items
        sent, room = 0, False
        while sent < limit and turns:
            origin = turns.next()
            rec = recs[origin]
            went, gone = items.release_one(origin, rec.parked)
            rec.parked -= gone
            sent += went
            if not rec.parked:
                room = turns.discard(origin) or room
                self.forget(origin, rec)
        return sent, room

    # -- fetches ------------------------------------------------------------------------------
    def want_fetch(self, rec: OriginRecord, why: FetchReason, *, blocking: bool) -> bool:
        """A fetch is wanted; False when one already is (its requests may block on it now)."""
        if rec.fetch:
            rec.blocking = rec.blocking or blocking
            return False
        rec.blocking = blocking
        rec.why = why
        return True

    def fetch_queued(self, rec: OriginRecord) -> None:
        rec.fetch = FetchState.QUEUED

    def fetch_started(self, origin: str, rec: OriginRecord, now: float) -> None:
        """The fetch holds a slot: the park clock of what waits runs from now."""
        rec.fetch = FetchState.RUNNING
        if (rec.parked or rec.held) and not self._clock.running(origin):
            self._clock.start(origin, now)
            self.deadline(origin, rec)

    def fetch_ended(self, rec: OriginRecord) -> None:
        rec.fetch = FetchState.NONE

    def fetch_unwanted(self, origin: str, rec: OriginRecord) -> None:
        """Nobody waits for the queued fetch any more."""
        rec.fetch = FetchState.NONE
        self.forget(origin, rec)

    def recheck(self, origin: str, rec: OriginRecord, now: float, at: float) -> None:
        """Another process holds the fetch: look again at ``at``; the clock runs meanwhile."""
        rec.why = FetchReason.RECHECK
        self._clock.wake(origin, at)
        self._clock.start(origin, now)
        self.deadline(origin, rec)

    def stopped(self, origin: str, rec: OriginRecord, now: float, until: float | None) -> None:
        """Server errors stop the origin: its clock runs; look again at ``until`` (None: a
        retry is wanted now, which sets the deadline)."""
        rec.failing = True
        self._clock.start(origin, now)
        if until is not None:
            self._clock.wake(origin, until)
            self.deadline(origin, rec)

    def backing_off(self, origin: str, rec: OriginRecord, now: float, until: float) -> None:
        """The origin asked to slow down: what waits ages (``park_timeout``) and is looked at
        again when the back-off ends."""
        rec.failing = True
        self._clock.start(origin, now)
        self._clock.wake(origin, until)
        self.deadline(origin, rec)

    # -- the clock ----------------------------------------------------------------------------
    def wake(self, origin: str, when: float) -> None:
        self._clock.wake(origin, when)

    def deadline(self, origin: str, rec: OriginRecord) -> None:
        """Wake the origin when its oldest item that ages times out."""
        self._clock.deadline(origin, parked=rec.parked, held=rec.held)

    def held_origins(self) -> Iterator[str]:
        return self._items.held_origins()

    def close_deadlines(self) -> None:
        """While closing, held items age from the start of the close at the latest, whether
        their origin's clock runs or not: each such origin wakes at its deadline."""
        recs = self._recs
        for origin in list(self._items.held_origins()):
            rec = recs.get(origin)
            if rec is not None and rec.held:
                self.deadline(origin, rec)

    def __len__(self) -> int:
        return len(self._recs)

    @property
    def wakeups(self) -> int:
        """Entries in the clock's heap of wake-ups (what its bound is about)."""
        return len(self._clock)
