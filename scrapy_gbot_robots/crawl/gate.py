"""The per-origin robots.txt state machine: which request waits, which fetch runs, who goes.

Events come in (a request is scheduled, a fetch ended, the clock ticked, the crawl closes);
effects go out as values into an :class:`~.effects.Outbox` (start a fetch, release waiting
requests, drop them), which the coordinator carries out once the event is handled: the gate
never calls back into its caller. Time is always an argument. No I/O and nothing from Scrapy
or Twisted, so every rule here is unit-tested without a crawl, including the accounting rule:
every request that enters the gate leaves it released, dropped, or (with ``JOBDIR``)
persisted for the next run; none is ever lost. The gate decides when items move; moving
and counting them is :mod:`.parked`'s.

The rules:

- A request passes when its origin has a usable decision (rules, no restrictions, or the
  fallback of the 12 h-30 d grace period). Otherwise it is *parked* in the lot, in arrival
  order, and the origin's robots.txt fetch is wanted (first sight, expired copy, due retry).
- At most the budget's limit of robots.txt fetches run at once (:meth:`Gate.resize` moves it
  between its floor and ceiling), and slow ones may move to a bounded slow lane
  (:mod:`.budget`); origins wanting a fetch beyond that wait in one FIFO, in order of their
  first request; decided origins keep crawling meanwhile. The lane is looked at whenever
  the queue could move (a fetch wanted, one ended, the limit grew, room was made, every
  :meth:`tick`); nothing else about a moved fetch changes (its park clock runs on, its end
  is reported the same way).
- No fetch starts from the queue while the fetches in flight would fill the store's room
  (``room``: how many more origins it can take without forgetting one whose requests are on
  their way to the downloader); :meth:`Gate.room_made` says when an origin left that state.
- ``park_timeout`` counts only while the origin's robots.txt is being fetched or failing
  (:mod:`.clock`): a request queued behind the fetch budget does not age, so a big backlog
  never turns into drops. A parked request whose time is up is dropped (``"deadline"``).
- When a fetch ends, the origin is looked at again: a usable decision releases its parked
  requests (in batches, oldest first); a server error keeps them parked until the retry that
  the policy schedules (backoff, ``Retry-After``) succeeds or their time is up.
- With a paced release (``pace_release``; not for a lot shared by a fleet, where each take
  is a round trip), a decided origin's lot items stay parked and the origin becomes *ready*
  (:mod:`.ready`): :meth:`Gate.drip` sends a few on per turn, round robin over the ready
  origins, and the close keeps or drops what is left like any parked item. A ready origin
  blocks nothing (later requests pass), its park clock stops, and an event that makes its
  decision doubtful (a bounce, a wake-up, a fetch wanted) takes it out of the ready set to be
  looked at again, as when its fetch ended. A decided request the caller says was taken
  while the engine is full (``turn``: Scrapy takes start requests as fast as it can then)
  waits its turn the same way instead of passing (``ParkReason.TURN``): passed, it would
  wait in the scheduler, among thousands of sites. Only while the store has room to pin its
  origin as well (:meth:`.FetchBudget.spare`, which a fetch in flight takes too): past that it
  passes, so waiting never keeps more origin states than ``room`` allows, however many
  decided sites Scrapy pours out at once.
- Items that wait in place (:meth:`Gate.wait`: a download already under way, holding a
  download slot, which the spider's close waits for) are *held* in memory beside the lot,
  never persisted. They wait for their origin's robots.txt fetch at most, never for a
  retry: that fetch goes ahead of the budget's queue, and once the origin is stopped by
  server errors they are dropped at once (reason ``"stopped"``).
- Closing: from the first time ``accepting()`` answers False the crawl is closing, for
  good. Parked (lot) items are then neither released nor dropped at their deadline: the
  close keeps them (``JOBDIR``) or drops them. Held items still get their origin decided
  and are released: their origins' fetches go first, and their park clock runs from the
  start of the close at the latest, queued or not, so a close lasts at most
  ``park_timeout`` (plus a fetch already under way).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from ..parking.base import Lot
from ..policy.states import Kind, Mode, OriginState, PolicyConfig, rules_in_force
from ..stores.base import OriginStore
from .budget import FetchBudget
from .clock import ParkClock
from .effects import Actions, FetchReason
from .parked import ParkedItems
from .ready import ReadyOrigins
from .tally import Tally
from .waiting import Waiting, first_deadline

__all__ = ["Actions", "FetchReason", "FetchState", "Gate", "ParkReason", "waiting"]

T = TypeVar("T")

#: The drop reason of an item waiting in place whose origin is stopped by server errors.
STOPPED = "stopped"


class ParkReason(str, enum.Enum):
    """Why a request was parked instead of passing."""

    MISS = "miss"  # the origin is unknown: its robots.txt is fetched first
    EXPIRED = "expired"  # the good copy expired: the new one decides
    RETRY = "retry"  # a retry after server errors is due
    STOPPED = "stopped"  # server errors: the origin is not crawled for now
    WAITING = "waiting"  # the origin already has a fetch under way or requests waiting
    BOUNCED = "bounced"  # it reached the downloader undecided and came back
    TURN = "turn"  # decided, but taken while the engine is full: it waits its turn (ready)


class FetchState(enum.IntEnum):
    """Where an origin's robots.txt fetch is."""

    NONE = 0
    QUEUED = 1  # waiting for a slot of the budget
    RUNNING = 2


class _Origin:
    """What the gate holds for one origin, only while requests wait or a fetch is wanted."""

    __slots__ = (
        "active_since",
        "blocking",
        "failing",
        "fetch",
        "held",
        "parked",
        "releasing",
        "why",
    )

    def __init__(self) -> None:
        self.parked = 0  # items of this origin in the lot
        self.held = 0  # items of this origin waiting in place (see Gate.wait)
        self.fetch = FetchState.NONE
        self.blocking = False  # whether parked requests wait for the fetch under way
        self.why: FetchReason | None = None
        self.failing = False  # the origin is in server error (its park clock runs)
        self.active_since: float | None = None  # start of the park clock (:mod:`.clock`)
        self.releasing = False


class Gate(Generic[T]):
    """The state machine over a store of origin states and a lot of parked items."""

    def __init__(
        self,
        store: OriginStore,
        policy: PolicyConfig,
        lot: Lot[T],
        actions: Actions[T],
        accepting: Callable[[], bool],
        *,
        park_timeout: float,
        max_fetches: int,
        min_fetches: int | None = None,
        start_fetches: int | None = None,
        release_batch: int = 1000,
        observe: bool = False,
        max_slow: int = 0,
        slow_after: float = 0.0,
        room: Callable[[], int] | None = None,
        pace_release: bool = False,
        pin: Callable[[str], None] | None = None,
        unpin: Callable[[str], bool] | None = None,
    ) -> None:
        self._store = store
        self._policy = policy
        #: Where items wait and how they leave, counted (:mod:`.parked`).
        self._items = ParkedItems(lot, actions, release_batch=release_batch)
        self._actions = actions
        #: Whether released items can be sent on now; the first False means the crawl closes
        #: (:class:`~.lifecycle.Lifecycle`), and the gate never asks again.
        self._accepting = accepting
        #: Park deadlines and every other time an origin is looked at again.
        self._clock = ParkClock(self._items, park_timeout)
        #: The fetches in flight and the origins waiting for a slot.
        self.budget = FetchBudget(
            max_fetches,
            min_fetches=min_fetches,
            start=start_fetches,
            max_slow=max_slow,
            slow_after=slow_after,
            room=room,
        )
        #: Observe mode: an origin stopped by server errors is decided ("Googlebot would not
        #: crawl it now"), so its requests pass; only the first decision is waited for.
        self._observe = observe
        self._recs: dict[str, _Origin] = {}
        self._closed = False
        self._pace_release = pace_release
        #: Decided origins whose lot items :meth:`drip` sends on (pinned in the store by
        #: ``pin``/``unpin`` meanwhile).
        self.ready = ReadyOrigins(self._items, pin, unpin)

    @property
    def tally(self) -> Tally:
        """What entered and left the gate (:mod:`.tally`: nothing is ever lost)."""
        return self._items.tally

    # -- queries ------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """Whether requests wait or fetches are wanted: the crawl must stay open."""
        return bool(self.tally.now or self.budget.in_flight or self.budget.queue)

    @property
    def closing(self) -> bool:
        """Whether the gate has learnt that the crawl closes (see the module doc)."""
        return self._clock.closing_at is not None

    @property
    def close_deadline(self) -> float | None:
        """While closing: when every held item that waited since the close began is given up."""
        return self._clock.close_deadline

    @property
    def dripping(self) -> bool:
        """Whether :meth:`drip` has items to send on (never once the crawl closes)."""
        return bool(self.ready) and self._clock.closing_at is None and not self._closed

    def parked_for(self, origin: str) -> int:
        rec = self._recs.get(origin)
        return rec.parked + rec.held if rec is not None else 0

    def peek(self, origin: str) -> T | None:
        """The oldest item parked for ``origin`` (the one that made its fetch wanted)."""
        return self._items.peek(origin)

    @property
    def lot(self) -> Lot[T]:
        return self._items.lot

    def fetching(self, origin: str) -> bool:
        rec = self._recs.get(origin)
        return rec is not None and rec.fetch == FetchState.RUNNING

    def holds(self, origin: str) -> bool:
        """Whether a download waits in place for ``origin`` (the engine waits for it)."""
        rec = self._recs.get(origin)
        return rec is not None and rec.held > 0

    # -- events -------------------------------------------------------------------------------
    def schedule(
        self,
        origin: str,
        item: T,
        now: float,
        admit: Callable[[T], bool] | None = None,
        *,
        turn: bool = False,
    ) -> ParkReason | None:
        """A request of ``origin`` is about to be scheduled: None lets it pass, else it is parked.

        When parked, the gate owns ``item`` until it releases, drops or persists it.
        ``admit(item)`` is asked just before parking; False lets the item pass instead (the
        scheduler's dupefilter then drops a duplicate as usual) and wants no fetch for it.
        ``turn``: it was taken while the engine is full (a start request); with a paced
        release, a decided one then waits its turn (``ParkReason.TURN``, see the module doc).
        """
        return self._arrive(origin, item, now, admit, held=False, turn=turn)

    def wait(self, origin: str, item: T, now: float) -> ParkReason | None:
        """As :meth:`schedule`, for an item that waits in place (a download under way; see
        the module doc). When its origin is stopped by server errors, the answer is
        ``ParkReason.STOPPED`` and the item is **not** held: the caller fails it at once."""
        if not self._observe and _stopped(self._store.get(origin), now, self._policy):
            return ParkReason.STOPPED
        return self._arrive(origin, item, now, None, held=True)

    def _arrive(
        self,
        origin: str,
        item: T,
        now: float,
        admit: Callable[[T], bool] | None,
        *,
        held: bool,
        turn: bool = False,
    ) -> ParkReason | None:
        rec = self._recs.get(origin)
        want: FetchReason | None = None
        wake, failing = 0.0, False
        if (
            rec is not None
            and not rec.releasing
            and (rec.parked or rec.held or (rec.fetch and rec.blocking))
            and origin not in self.ready
        ):
            reason: ParkReason | None = ParkReason.WAITING
        else:
            fetching = rec is not None and bool(rec.fetch)
            state = self._store.get(origin)
            reason, want, wake = _arrival(state, now, self._policy, self._observe, fetching)
            if want is FetchReason.REFRESH:  # the grace period: obey the fallback, retry meanwhile
                self._want(origin, self._rec(origin), now, blocking=False, why=want)
            if reason is None:
                turn = turn and want is None and (origin in self.ready or self.budget.spare() > 0)
                if not (turn and self._paced(self._open(now))):
                    return None
                reason = ParkReason.TURN
            failing = state is not None and state.kind is Kind.SERVER_ERROR
        if admit is not None and not admit(item):
            return None
        rec = self._park(origin, rec, item, now, failing=failing, held=held)
        if reason is ParkReason.TURN:
            self._ready_up(origin, rec)
            return reason
        if want is not None:
            self._want(origin, rec, now, blocking=True, why=want)
        elif wake:
            self._clock.wake(origin, wake)
        if held and rec.fetch == FetchState.QUEUED:
            self.budget.urgent.append(origin)  # maybe there already: a started one is skipped
            self._start_queued(now)
        return reason

    def bounce(self, origin: str, item: T, now: float) -> None:
        """Park a request that reached the downloader undecided; call :meth:`check` soon."""
        self._park(origin, self._recs.get(origin), item, now)

    def check(self, origin: str, now: float) -> None:
        """Look at an origin again: drop what is overdue, release, or want a fetch."""
        if not self._closed:
            self._check(origin, now)

    def fetch_done(
        self,
        origin: str,
        now: float,
        *,
        recheck_at: float | None = None,
        cut: bool = False,
    ) -> None:
        """The origin's fetch ended (its new state is in the store). ``recheck_at``: another
        process holds the fetch (a fleet's lock), look again then (no error, no backoff).
        ``cut``: the close cut it short; what waits stays parked for the close."""
        rec = self._recs.get(origin)
        if rec is None or rec.fetch != FetchState.RUNNING:
            return
        rec.fetch = FetchState.NONE
        self.budget.done(origin)
        if self._closed:
            return
        self._start_queued(now)
        if cut:
            self._forget(origin, rec)
        elif recheck_at is None:
            self._check(origin, now)
        elif rec.parked or rec.held:
            rec.why = FetchReason.RECHECK
            self._clock.wake(origin, recheck_at)
            self._clock.start(origin, rec, now)
        else:
            self._forget(origin, rec)

    def tick(self, now: float) -> None:
        """Periodic: durable parking, slow fetches moved, every origin whose time has come."""
        self._items.lot.flush()
        if not self._closed:
            self._open(now)  # the tick is where a close is learnt when nothing else asks
            budget = self.budget
            if budget.waiting and (budget.max_slow or budget.room_blocked):
                self._start_queued(now)  # a fetch may have become slow, or room was made
        # After the pops: a wake-up a check sets at or before ``now`` waits for the next tick.
        for origin in self._clock.due(now):
            self._check(origin, now)

    def resize(self, limit: int, now: float) -> None:
        """The pacing controller moved the budget's limit (kept within its bounds)."""
        if self.budget.resize(limit) and not self._closed:
            self._start_queued(now)

    def room_made(self, now: float) -> None:
        """An origin's last request on its way to the downloader arrived: the store has room
        for one more origin, which a fetch waiting for room may take."""
        if self.budget.room_blocked and not self._closed:
            self._start_queued(now)

    def drip(self, now: float, limit: int) -> int:
        """Send on up to ``limit`` items of ready origins, one per origin in turn; returns how
        many. Nothing once the crawl closes: the close keeps or drops what is left."""
        if self._closed or not self._open(now):
            return 0
        sent, done, room = self.ready.send(limit)
        for origin in done:
            rec = self._recs.get(origin)
            if rec is not None:
                self._forget(origin, rec)
        if room:
            self.room_made(now)
        return sent

    def adopt(self, now: float, limit: int = 100) -> int:
        """Shared lot: take charge of origins other processes left waiting (a dead worker's),
        as if their requests were ours (a fleet lock keeps each fetch to one process)."""
        if not self._items.lot.shared or self._closed or self.closing:
            return 0
        waiting = self._items.waiting()[:limit]
        orphans = [(o, n) for o, n in waiting if o not in self._recs and n > 0]
        self._take_over(orphans, now)
        return len(orphans)

    def resume(self, now: float) -> int:
        """Take over the items a previous run left in the lot; their fetches queue in order."""
        waiting = self._items.waiting()
        self._take_over(waiting, now)
        return sum(count for _, count in waiting)

    def _take_over(self, waiting: Sequence[tuple[str, int]], now: float) -> None:
        for origin, count in waiting:
            self._items.resumed(self._rec(origin), count)
        for origin, _ in waiting:  # once all are counted: the fetches queue in order
            self._check(origin, now)

    def close(self, persist: bool, reason: str) -> int:
        """The crawl ends: keep what the lot can persist, drop the rest; return how many kept."""
        self._closed = True
        decided = self.ready.clear()  # waiting their turn, not for robots.txt
        self._recs.clear()
        self.budget.clear()
        self._clock.clear()
        return self._items.close(persist, reason, decided)

    # -- internals ----------------------------------------------------------------------------
    def _rec(self, origin: str) -> _Origin:
        rec = self._recs.get(origin)
        if rec is None:
            rec = self._recs[origin] = _Origin()
        return rec

    def _forget(self, origin: str, rec: _Origin) -> None:
        if not (rec.parked or rec.held or rec.fetch or rec.releasing or origin in self.ready):
            self._recs.pop(origin, None)
            self._clock.cancel(origin)

    def _park(
        self,
        origin: str,
        rec: _Origin | None,
        item: T,
        now: float,
        *,
        failing: bool = False,
        held: bool = False,
    ) -> _Origin:
        if rec is None:
            rec = self._rec(origin)
        self._items.push(origin, rec, item, now, held=held)
        if failing:
            rec.failing = True
        runs = rec.fetch == FetchState.RUNNING or rec.failing
        self._clock.parked(origin, rec, now, held=held, runs=runs)
        return rec

    def _want(
        self, origin: str, rec: _Origin, now: float, *, blocking: bool, why: FetchReason
    ) -> None:
        if blocking and origin in self.ready:  # its requests wait for this fetch now
            self._unready(origin, now)
        if rec.fetch:
            rec.blocking = rec.blocking or blocking
            return
        rec.blocking = blocking
        rec.why = why
        accepting = self._open(now)
        budget = self.budget
        if budget.has_slot(urgent=bool(rec.held)) and (accepting or rec.held):
            self._start(origin, rec, now)
        else:
            rec.fetch = FetchState.QUEUED
            budget.enqueue(origin, urgent=bool(rec.held))
            if budget.max_slow or rec.held:
                self._start_queued(now)  # a slow fetch may give up its slot (FIFO kept)
        self._clock.deadline(origin, rec)  # a clock that runs on: the next item's time

    def _start(self, origin: str, rec: _Origin, now: float) -> None:
        rec.fetch = FetchState.RUNNING
        self.budget.start(origin, now)
        if (rec.parked or rec.held) and rec.active_since is None:
            self._clock.start(origin, rec, now)
        self._actions.fetch(origin, rec.why or FetchReason.MISS)

    def _start_queued(self, now: float) -> None:
        # Origins that downloads wait for in place go first; while closing, only they.
        closing = not self._open(now)
        budget = self.budget
        for queue in (budget.urgent,) if closing else (budget.urgent, budget.queue):
            while queue:
                origin = queue[0]
                rec = self._recs.get(origin)
                if (
                    rec is None
                    or rec.fetch != FetchState.QUEUED
                    or (queue is budget.urgent and not rec.held)
                ):
                    queue.popleft()
                    continue
                if rec.blocking and not rec.parked and not rec.held:  # nobody waits any more
                    queue.popleft()
                    rec.fetch = FetchState.NONE
                    self._forget(origin, rec)
                    continue
                # A slot, or one a slow fetch gives up for the origin at the head of the queue.
                if not budget.make_room(now, urgent=queue is budget.urgent):
                    return
                queue.popleft()
                self._start(origin, rec, now)

    def _check(self, origin: str, now: float) -> None:
        rec = self._recs.get(origin)
        if rec is None or rec.releasing:
            return
        if origin in self.ready:  # looked at again from scratch; still decided: ready again
            self._unready(origin, now)
        self._clock.expire(origin, rec, now)
        if rec.fetch:
            self._clock.deadline(origin, rec)
            return
        if not rec.parked and not rec.held:
            self._forget(origin, rec)
            return
        state = self._store.get(origin)
        if state is None:
            why = FetchReason.RECHECK if rec.why else FetchReason.MISS
            self._want(origin, rec, now, blocking=True, why=why)
            return
        if state.kind is not Kind.SERVER_ERROR:
            if state.refresh_at <= now:
                self._want(origin, rec, now, blocking=True, why=FetchReason.EXPIRED)
            else:
                self._release(origin, rec, now)
            return
        force = rules_in_force(state, now, self._policy)
        if force.mode is not Mode.STOPPED or self._observe:
            self._release(origin, rec, now)
            if state.refresh_at <= now and self._recs.get(origin) is None:
                self._want(origin, self._rec(origin), now, blocking=False, why=FetchReason.REFRESH)
            return
        if rec.held:  # a download never waits for a retry: it fails now
            self._items.drop_held(origin, rec, STOPPED)
            if not rec.parked:
                self._forget(origin, rec)
                return
        rec.failing = True
        if state.refresh_at <= now:
            rec.active_since = now if rec.active_since is None else rec.active_since
            self._want(origin, rec, now, blocking=True, why=FetchReason.RETRY)
            return
        self._clock.wake(origin, min(state.refresh_at, force.until))
        self._clock.start(origin, rec, now)

    def _release(self, origin: str, rec: _Origin, now: float) -> None:
        accepting = self._open(now)  # while closing, held items only: close() has the lot's
        if not accepting and not rec.held:
            return
        rec.releasing = True
        try:
            if rec.parked and self._paced(accepting):
                self._items.release(origin, rec, accepting=False)  # held ones go at once
                self._ready_up(origin, rec)
            else:
                self._items.release(origin, rec, accepting=accepting)
        finally:
            rec.releasing = False
            self._items.released(rec, accepting=accepting)
            self._forget(origin, rec)

    def _paced(self, accepting: bool) -> bool:
        """Whether decided items wait for :meth:`drip` (a shared lot: each take a round trip)."""
        return accepting and self._pace_release and not self._items.lot.shared

    def _ready_up(self, origin: str, rec: _Origin) -> None:
        """The origin is decided: its lot items wait for :meth:`drip`, no clock running."""
        rec.failing = False
        self._clock.stop(origin, rec)
        if self.ready.add(origin, rec):
            self._actions.send_on()

    def _unready(self, origin: str, now: float) -> None:
        if self.ready.discard(origin) and not self._closed:
            self.room_made(now)

    def _open(self, now: float) -> bool:
        """Whether the crawl still accepts released items; the first False starts closing."""
        if self._clock.closing_at is not None:
            return False
        if self._accepting():
            return True
        self._clock.close_began(now, self._recs.items())
        self._start_queued(now)
        return False


def waiting(gate: Gate[T], now: float, park_timeout: float) -> Waiting:
    """Why ``gate``'s parked requests wait now, and when the first is retried or dropped (the
    progress line's, :mod:`.waiting`): one pass over the origins with requests waiting, a
    bounded number of calls to the lot. Beside the class, which it only reads."""
    counts = dict.fromkeys(("fetching", "slot", "retry", "turn", "other"), 0)
    retries: list[float] = []
    clocks: list[tuple[float, str]] = []
    aging = not gate.closing  # closing: only the items held in place age
    recs = gate._recs
    for origin, rec in recs.items():
        count = rec.parked + rec.held
        if not count:
            continue
        if origin in gate.ready:
            kind = "turn"
        elif rec.failing:
            kind = "retry"
            state = gate._store.get(origin)
            if state is not None:
                running = rec.fetch == FetchState.RUNNING
                retries.append(0.0 if running else max(0.0, state.refresh_at - now))
        elif rec.fetch == FetchState.RUNNING or rec.why is FetchReason.RECHECK:
            kind = "fetching"
        elif rec.fetch == FetchState.QUEUED:
            kind = "slot"
        else:
            kind = "other"
        counts[kind] += count
        if rec.active_since is not None and ((rec.parked and aging) or rec.held):
            clocks.append((rec.active_since, origin))
    items = gate._items
    first = first_deadline(
        clocks, lambda o: items.oldest(o, recs[o], aging=aging), park_timeout
    )
    return Waiting(
        **counts,
        next_retry=min(retries) if retries else None,
        first_drop=None if first is None else max(0.0, first - now),
    )


def _stopped(state: OriginState | None, now: float, policy: PolicyConfig) -> bool:
    """Whether server errors stop the origin now (a download never waits for a retry)."""
    if state is None or state.kind is not Kind.SERVER_ERROR:
        return False
    return rules_in_force(state, now, policy).mode is Mode.STOPPED


def _arrival(
    state: OriginState | None, now: float, policy: PolicyConfig, observe: bool, fetching: bool
) -> tuple[ParkReason | None, FetchReason | None, float]:
    """What a request of an origin with no other request waiting meets, by its state.

    (why it is parked, or None: it passes; the fetch it wants, None for none, ``REFRESH`` for
    a background retry while it passes; when to look again, 0 for no wake-up).
    """
    if state is None:
        return ParkReason.MISS, FetchReason.MISS, 0.0
    if state.kind is not Kind.SERVER_ERROR:
        if state.refresh_at > now or fetching:
            return None, None, 0.0
        return ParkReason.EXPIRED, FetchReason.EXPIRED, 0.0
    force = rules_in_force(state, now, policy)
    due = state.refresh_at <= now and not fetching
    if force.mode is not Mode.STOPPED or observe:
        return None, FetchReason.REFRESH if due else None, 0.0
    if due:
        return ParkReason.RETRY, FetchReason.RETRY, 0.0
    return ParkReason.STOPPED, None, min(state.refresh_at, force.until)
