"""The per-origin robots.txt state machine: which request waits, which fetch runs, who goes.

Events come in (a request is scheduled, a fetch ended, the clock ticked, the crawl closes);
effects go out as values into an :class:`~.effects.Outbox` (start a fetch, release waiting
requests, drop them), which the coordinator carries out once the event is handled: the gate
never calls back into its caller. Time is always an argument, and nothing here comes from
Scrapy or Twisted, so every rule is unit-tested without a crawl, including the accounting
rule: every request that enters the gate leaves it released, dropped, or (with ``JOBDIR``)
persisted for the next run; none is ever lost. Its only I/O is the lot's: parking, taking
and (each :meth:`Gate.tick`) flushing an SQLite or Redis lot.

The gate decides; its parts keep the books. One record per origin with requests waiting or
a fetch wanted, and every change to it, are :class:`~.origins.Origins`'s (with where the
items wait, when they time out and the paced release's turns); the fetches in flight and
queued are the budget's (:mod:`.budget`, its limit paced by :mod:`.pacing`). Whether the
crawl is closing is :mod:`.lifecycle`'s to say, and the gate asks it.

The rules:

- A request passes when its origin has a usable decision (rules, no restrictions, or the
  fallback of the 12 h-30 d grace period). Otherwise it is *parked* in the lot, in arrival
  order, and the origin's robots.txt fetch is wanted (first sight, expired copy, due retry).
- At most the budget's limit of robots.txt fetches run at once (:meth:`Gate.pace` moves it
  between its floor and ceiling), and slow ones may move to a bounded slow lane
  (:mod:`.budget`); origins wanting a fetch beyond that wait in one FIFO, in order of their
  first request; decided origins keep crawling meanwhile. The lane is looked at whenever
  the queue could move (a fetch wanted, one ended, the limit grew, room was made, every
  :meth:`Gate.tick`); nothing else about a moved fetch changes (its park clock runs on, its
  end is reported the same way).
- No fetch starts from the queue while the fetches in flight would fill the store's room
  (how many more origins it can take without forgetting one whose requests are on their
  way to the downloader); :meth:`Gate.room_made` says when an origin left that state.
- ``park_timeout`` counts only while the origin's robots.txt is being fetched or failing
  (:mod:`.clock`): a request queued behind the fetch budget does not age, so a big backlog
  never turns into drops. A parked request whose time is up is dropped (``"deadline"``).
- When a fetch ends, the origin is looked at again: a usable decision releases its parked
  requests (in batches, oldest first); a server error keeps them parked until the retry that
  the policy schedules (backoff, ``Retry-After``) succeeds or their time is up.
- With a paced release (``pace_release``; not for a lot shared by a fleet, where each take
  is a round trip), a decided origin's lot items stay parked and the origin waits its turn
  (:mod:`.turns`): :meth:`Gate.release_turn` releases a few per turn, round robin over those
  origins, and the close keeps or drops what is left like any parked item. An origin waiting
  its turn blocks nothing (later requests pass), its park clock stops, and an event that
  makes its decision doubtful (a bounce, a wake-up, a fetch wanted) takes it out of the
  turns to be looked at again, as when its fetch ended. A decided request the caller says was
  taken while the engine is full (``turn``: Scrapy takes start requests as fast as it can
  then) waits its turn the same way instead of passing (``ParkReason.TURN``): passed, it
  would wait in the scheduler, among thousands of sites. Only while the store has room to
  pin its origin as well (:meth:`.FetchBudget.spare`, which a fetch in flight takes too):
  past that it passes, so waiting never keeps more origin states than the room allows,
  however many decided sites Scrapy pours out at once.
- Items that wait in place (:meth:`Gate.wait`: a download already under way, holding a
  download slot, which the spider's close waits for) are *held* in memory beside the lot,
  never persisted. They wait for their origin's robots.txt fetch at most, never for a
  retry: that fetch goes ahead of the budget's queue, and once the origin is stopped by
  server errors they are dropped at once (reason ``"stopped"``).
- Closing (:mod:`.lifecycle`): parked (lot) items are then neither released nor dropped at
  their deadline: the close keeps them (``JOBDIR``) or drops them. Held items still get
  their origin decided and are released: their origins' fetches go first, and their park
  clock runs from the start of the close at the latest, queued or not, so a close lasts at
  most ``park_timeout`` (plus a fetch already under way).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..parking.base import Lot
from ..policy.backoff import is_distress
from ..policy.states import Kind, Mode, OriginState, PolicyConfig, rules_in_force
from ..stores.base import Bounded, OriginStore
from ..stores.tiered import UNBOUNDED
from .backoff import Backoffs, Began
from .budget import FetchBudget
from .effects import Actions
from .lifecycle import Lifecycle
from .origins import FetchState, OriginRecord, Origins
from .pacing import Pace, Pacing
from .reasons import STOPPED, WANTS, FetchReason, ParkReason
from .tally import Tally
from .waiting import Waiting

__all__ = ["Gate", "GateFigures"]

T = TypeVar("T")
#: Why a request waits for a time its origin was given (a back-off, a fleet's slot).
_HELD = (ParkReason.BACKOFF, ParkReason.CRAWL_DELAY)


@dataclass(frozen=True, slots=True)
class GateFigures:
    """The gate's numbers at one moment: for the progress line and the final stats."""

    parked_now: int  # items parked or held now
    parked_peak: int
    parked_total: int  # items parked since the start (resumed ones apart)
    resumed: int
    released: int
    dropped: int
    persisted: int
    taken_elsewhere: int  # a shared lot's items another process released
    turn_items: int  # decided requests still parked, waiting their turn
    turn_peak: int  # the most origins waiting their turn at once
    running: int  # fetches holding a slot of the budget
    slow: int  # fetches moved to the slow lane
    queued: int  # origins waiting for a slot
    running_peak: int
    slow_peak: int
    queued_peak: int
    limit: int  # the budget's limit now
    limit_peak: int

    @property
    def in_flight(self) -> int:
        return self.running + self.slow

    @classmethod
    def of(cls, tally: Tally, budget: FetchBudget, turn_items: int, turn_peak: int) -> GateFigures:
        return cls(
            parked_now=tally.now,
            parked_peak=tally.peak,
            parked_total=tally.parked,
            resumed=tally.resumed,
            released=tally.released,
            dropped=tally.dropped,
            persisted=tally.persisted,
            taken_elsewhere=tally.taken_elsewhere,
            turn_items=turn_items,
            turn_peak=turn_peak,
            running=budget.running,
            slow=budget.slow,
            queued=len(budget.queue),
            running_peak=budget.running_peak,
            slow_peak=budget.slow_peak,
            queued_peak=budget.queued_peak,
            limit=budget.limit,
            limit_peak=budget.limit_peak,
        )


class Gate(Generic[T]):
    """The state machine over a store of origin states and a lot of parked items."""

    def __init__(
        self,
        store: OriginStore,
        policy: PolicyConfig,
        lot: Lot[T],
        actions: Actions[T],
        lifecycle: Lifecycle,
        *,
        pacing: Pacing,
        park_timeout: float,
        max_fetches: int,
        min_fetches: int | None = None,
        start_fetches: int | None = None,
        release_batch: int = 1000,
        observe: bool = False,
        max_slow: int = 0,
        slow_after: float = 0.0,
        bounds: Bounded = UNBOUNDED,
        pace_release: bool = False,
        backoff: Backoffs | None = None,
    ) -> None:
        self._store = store
        #: Googlebot's back-off (None: ``GBOT_ROBOTS_BACKOFF = False``): origins that asked
        #: to slow down, whose requests wait outside the downloader until it ends.
        self._backoff = backoff
        self._policy = policy
        self._actions = actions
        #: Whether the crawl is open, closing or closed: asked, never copied.
        self._lifecycle = lifecycle
        #: The books: each origin's record, its items, their clock, its turn.
        self._origins = Origins(
            lot, actions, lifecycle, bounds, park_timeout=park_timeout, release_batch=release_batch
        )
        #: The fetches in flight and the origins waiting for a slot; the store's room
        #: bounds them (``bounds``: no fetch starts that would fill it).
        self._budget = FetchBudget(
            max_fetches,
            min_fetches=min_fetches,
            start=start_fetches,
            max_slow=max_slow,
            slow_after=slow_after,
            room=bounds.room,
        )
        self._pacing = pacing
        #: Observe mode: an origin stopped by server errors is decided ("Googlebot would not
        #: crawl it now"), so its requests pass; only the first decision is waited for.
        self._observe = observe
        #: Decided items wait for :meth:`release_turn` (not with a shared lot: each take
        #: would be a round trip).
        self._paced_release = pace_release and not lot.shared

    # -- queries ------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """Whether requests wait or fetches are wanted: the crawl must stay open."""
        budget = self._budget
        return bool(self._origins.tally.now or budget.in_flight or budget.queue)

    def busy_anywhere(self) -> bool:
        """:attr:`busy`, or any worker's requests wait in a fleet's shared lot (a Redis read)."""
        lot = self._origins.lot
        return self.busy or (lot.shared and bool(lot.waiting()))

    @property
    def close_deadline(self) -> float | None:
        """While closing: when every held item that waited since the close began is given up."""
        return self._origins.close_deadline

    @property
    def turns_due(self) -> bool:
        """Whether :meth:`release_turn` has items to release (never once the crawl closes)."""
        return bool(self._origins.turns) and self._lifecycle.closing_at is None

    def peek(self, origin: str) -> T | None:
        """The oldest item parked for ``origin`` (the one that made its fetch wanted)."""
        return self._origins.peek(origin)

    def fetching(self, origin: str) -> bool:
        rec = self._origins.get(origin)
        return rec is not None and rec.fetch == FetchState.RUNNING

    def holds(self, origin: str) -> bool:
        """Whether a download waits in place for ``origin`` (the engine waits for it)."""
        rec = self._origins.get(origin)
        return rec is not None and rec.held > 0

    def figures(self) -> GateFigures:
        origins = self._origins
        return GateFigures.of(origins.tally, self._budget, origins.turn_items(), origins.turn_peak)

    def why_waiting(self, now: float) -> Waiting:
        """Why the parked requests wait now, and when the next retry comes and the first is
        dropped (the progress line's): the origins' books, and the store for retry times."""
        get = self._store.get
        return self._origins.why_waiting(now, lambda o: getattr(get(o), "refresh_at", None))

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
        """A request of ``origin`` is about to be scheduled: None lets it pass, else it is
        parked (the gate owns ``item`` until it releases, drops or persists it).

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

    def bounce(self, origin: str, item: T, now: float) -> ParkReason:
        """Park a request sent back from the downloader (undecided, or in back-off); call
        :meth:`check` soon."""
        self._origins.park(origin, self._origins.get(origin), item, now)
        held = self.backing_off(origin, now)
        return _waits_for(self._backoff, origin) if held else ParkReason.BOUNCED

    # -- the back-off -------------------------------------------------------------------------
    def backing_off(self, origin: str, now: float) -> bool:
        """Whether ``origin`` is in back-off now (one dict miss when it is not)."""
        return self._backoff is not None and self._backoff.until(origin) > now

    def answered(
        self, origin: str, status: int, retry_after: str | None, now: float, failure: str = ""
    ) -> Began | None:
        """A page answered, or failed (``failure``): a distress begins or lengthens a back-off."""
        backoff = self._backoff
        if backoff is None or not is_distress(status, failure):
            if backoff:  # someone is in the books: a healthy answer shortens its streak
                backoff.healthy(origin, now)
            return None
        began = backoff.distress(origin, status, retry_after, now, failure)
        return self._backing_off(origin, began, now)

    def heard(self, origin: str, until: float, now: float, held: bool = False) -> Began | None:
        """Another worker of the fleet put ``origin`` in back-off until ``until``, or holds
        its ``Crawl-delay`` slot until then (``held``: :meth:`.Backoffs.hold`)."""
        backoff = self._backoff
        take = None if backoff is None else backoff.hold if held else backoff.adopt
        return self._backing_off(origin, None if take is None else take(origin, until, now), now)

    def _backing_off(self, origin: str, began: Began | None, now: float) -> Began | None:
        if began is not None and origin in self._origins and not self._lifecycle.closed:
            self._check(origin, now)  # its turn, if it had one, waits for the back-off now
        return began

    def backoff_ended(self, now: float) -> list[tuple[str, float]]:
        """``(origin, seconds)`` of each back-off that ended since the last call."""
        return [] if self._backoff is None else self._backoff.ended(now)

    def check(self, origin: str, now: float) -> None:
        """Look at an origin again: drop what is overdue, release, or want a fetch."""
        if not self._lifecycle.closed:
            self._check(origin, now)

    def fetch_done(
        self, origin: str, now: float, *, recheck_at: float | None = None, cut: bool = False
    ) -> None:
        """The origin's fetch ended (its new state is in the store). ``recheck_at``: another
        process holds the fetch (a fleet's lock), look again then (no error, no backoff).
        ``cut``: the close cut it short; what waits stays parked for the close."""
        origins = self._origins
        rec = origins.get(origin)
        if rec is None or rec.fetch != FetchState.RUNNING:
            return  # the gate was closed meanwhile (its records went with it)
        origins.fetch_ended(rec)
        self._budget.done(origin)
        self._start_queued(now)
        if cut:
            origins.forget(origin, rec)
        elif recheck_at is None:
            self._check(origin, now)
        elif rec.parked or rec.held:
            origins.recheck(origin, rec, now, recheck_at)
        else:
            origins.forget(origin, rec)

    def tick(self, now: float) -> None:
        """Periodic: the lot flushed (durable parking), slow fetches moved, the close's
        deadlines set, every origin whose time has come looked at again."""
        if self._lifecycle.closed:
            return
        origins, budget = self._origins, self._budget
        origins.lot.flush()
        accepting = self._accepting(now)  # where a close is learnt when nothing else asks
        if not accepting:
            origins.close_deadlines()
        if budget.waiting and (budget.max_slow or budget.room_blocked or not accepting):
            self._start_queued(now)  # a fetch may have become slow, or room was made
        # After the pops: a wake-up a check sets at or before ``now`` waits for the next tick.
        for origin in origins.due(now):
            self._check(origin, now)

    def pace(self, now: float, active: int, concurrency: int, backlog: int) -> Pace:
        """The downloader's numbers (``_compat.crawl_load``) move the budget's limit
        (:mod:`.pacing`); requests waiting their turn are ahead of the downloader as much as
        the scheduler's ``backlog``, so they count in it."""
        backlog += self._origins.turn_items()
        pace = self._pacing.step(self._budget, active, concurrency, backlog)
        self.resize(pace.limit, now)
        return pace

    def resize(self, limit: int, now: float) -> None:
        """Move the budget's limit (kept within its bounds); a larger one starts queued
        fetches at once, a smaller one lets fetches above it run to their end."""
        if self._budget.resize(limit) and not self._lifecycle.closed:
            self._start_queued(now)

    def room_made(self, now: float) -> bool:
        """The store has room for one more origin (one whose requests were on their way
        arrived); a fetch waiting for room may start. True when one may have."""
        if self._budget.room_blocked and not self._lifecycle.closed:
            self._start_queued(now)
            return True
        return False

    def release_turn(self, now: float, limit: int) -> int:
        """Release up to ``limit`` items of origins waiting their turn, one per origin in
        turn; returns how many. Nothing once the crawl closes: the close keeps or drops
        what is left."""
        if not self._origins.turns or not self._accepting(now):
            return 0
        sent, room = self._origins.release_turn(limit)
        if room:
            self.room_made(now)
        return sent

    def adopt(self, now: float, limit: int = 100) -> int:
        """Shared lot: take charge of origins other processes left waiting (a dead worker's),
        as if their requests were ours (a fleet lock keeps each fetch to one process)."""
        origins = self._origins
        if not origins.lot.shared or self._lifecycle.closing_at is not None:
            return 0
        orphans = [(o, n) for o, n in origins.waiting()[:limit] if o not in origins and n > 0]
        self._take_over(orphans, now)
        return len(orphans)

    def resume(self, now: float) -> int:
        """Take over the items a previous run left in the lot; their fetches queue in order."""
        waiting = self._origins.waiting()
        self._take_over(waiting, now)
        return sum(count for _, count in waiting)

    def close(self, persist: bool, reason: str) -> int:
        """The crawl is closed (:meth:`.Lifecycle.close`): keep what the lot can persist (a
        shared lot keeps all of it, for the fleet), drop the rest; return how many kept."""
        self._budget.clear()
        backing_off = frozenset() if self._backoff is None else self._backoff.active()
        return self._origins.close(persist or self._origins.lot.shared, reason, backing_off)

    # -- internals ----------------------------------------------------------------------------
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
        origins = self._origins
        rec = origins.get(origin)
        want: FetchReason | None = None
        wake, failing = 0.0, False
        if (
            rec is not None
            and not rec.releasing
            and (rec.parked or rec.held or (rec.fetch and rec.blocking))
            and not origins.in_turn(origin)
        ):
            reason: ParkReason | None = ParkReason.WAITING
            if not held and self.backing_off(origin, now):  # told apart for the stats
                reason = _waits_for(self._backoff, origin)
        elif not held and self.backing_off(origin, now):
            reason, failing = _waits_for(self._backoff, origin), True
            if origins.in_turn(origin):
                self._leave_turn(origin, now)
        else:
            fetching = rec is not None and bool(rec.fetch)
            state = self._store.get(origin)
            reason, refresh, wake = _arrival(state, now, self._policy, self._observe, fetching)
            if refresh:  # the grace period: obey the fallback, retry meanwhile
                self._want(origin, origins.record(origin), now, False, FetchReason.REFRESH)
            if reason is None:
                if not (turn and not refresh and self._room_to_wait(origin, now)):
                    return None
                reason = ParkReason.TURN
            failing = state is not None and state.kind is Kind.SERVER_ERROR
            want = WANTS.get(reason)
        if admit is not None and not admit(item):
            return None
        rec = origins.park(origin, rec, item, now, failing=failing, held=held)
        if reason is ParkReason.TURN:
            origins.wait_turn(origin, rec)
            return reason
        if want is not None:
            self._want(origin, rec, now, True, want)
        elif reason in _HELD and self._backoff is not None:
            origins.backing_off(origin, rec, now, self._backoff.until(origin))
        elif wake:
            origins.wake(origin, wake)
        if held and rec.fetch == FetchState.QUEUED:
            self._budget.urgent.append(origin)  # maybe there already: a started one is skipped
            self._start_queued(now)
        return reason

    def _take_over(self, waiting: Sequence[tuple[str, int]], now: float) -> None:
        for origin, count in waiting:
            self._origins.take_over(origin, count)
        for origin, _ in waiting:  # once all are counted: the fetches queue in order
            self._check(origin, now)

    def _want(
        self, origin: str, rec: OriginRecord, now: float, blocking: bool, why: FetchReason
    ) -> None:
        """A fetch is wanted (``blocking``: the origin's requests wait for it)."""
        origins = self._origins
        if blocking and origins.in_turn(origin):  # its requests wait for this fetch now
            self._leave_turn(origin, now)
        if not origins.want_fetch(rec, why, blocking=blocking):
            return
        budget = self._budget
        if budget.has_slot(urgent=bool(rec.held)) and (self._accepting(now) or rec.held):
            self._start(origin, rec, now)
        else:
            origins.fetch_queued(rec)
            budget.enqueue(origin, urgent=bool(rec.held))
            if budget.max_slow or rec.held:
                self._start_queued(now)  # a slow fetch may give up its slot (FIFO kept)
        origins.deadline(origin, rec)  # a clock that runs on: the next item's time

    def _start(self, origin: str, rec: OriginRecord, now: float) -> None:
        self._budget.start(origin, now)
        self._origins.fetch_started(origin, rec, now)
        self._actions.fetch(origin, rec.why or FetchReason.MISS)

    def _start_queued(self, now: float) -> None:
        # Origins that downloads wait for in place go first; while closing, only they.
        origins, budget = self._origins, self._budget
        queues = (budget.urgent, budget.queue) if self._accepting(now) else (budget.urgent,)
        for queue in queues:
            while queue:
                origin = queue[0]
                rec = origins.get(origin)
                if (
                    rec is None
                    or rec.fetch != FetchState.QUEUED
                    or (queue is budget.urgent and not rec.held)
                ):
                    queue.popleft()
                    continue
                if rec.blocking and not rec.parked and not rec.held:  # nobody waits any more
                    queue.popleft()
                    origins.fetch_unwanted(origin, rec)
                    continue
                # A slot, or one a slow fetch gives up for the origin at the head of the queue.
                if not budget.make_room(now, urgent=queue is budget.urgent):
                    return
                queue.popleft()
                self._start(origin, rec, now)

    def _check(self, origin: str, now: float) -> None:
        origins = self._origins
        rec = origins.get(origin)
        if rec is None or rec.releasing:
            return
        if origins.in_turn(origin):  # looked at again from scratch; still decided: back in turn
            self._leave_turn(origin, now)
        origins.expire(origin, rec, now)
        if rec.fetch:
            origins.deadline(origin, rec)
            return
        if not rec.parked and not rec.held:
            origins.forget(origin, rec)
            return
        state = self._store.get(origin)
        if state is None:
            self._want(origin, rec, now, True, FetchReason.RECHECK if rec.why else FetchReason.MISS)
            return
        if state.kind is not Kind.SERVER_ERROR:
            if state.refresh_at <= now:
                self._want(origin, rec, now, True, FetchReason.EXPIRED)
            else:
                self._release(origin, rec, now)
            return
        force = rules_in_force(state, now, self._policy)
        if force.mode is not Mode.STOPPED or self._observe:
            self._release(origin, rec, now)
            if state.refresh_at <= now and origin not in origins:
                self._want(origin, origins.record(origin), now, False, FetchReason.REFRESH)
            return
        if rec.held:  # a download never waits for a retry: it fails now
            origins.drop_held(origin, rec, STOPPED)
            if not rec.parked:
                origins.forget(origin, rec)
                return
        if state.refresh_at <= now:
            origins.stopped(origin, rec, now, None)
            self._want(origin, rec, now, True, FetchReason.RETRY)
        else:
            origins.stopped(origin, rec, now, min(state.refresh_at, force.until))

    def _release(self, origin: str, rec: OriginRecord, now: float) -> None:
        accepting = self._accepting(now)  # while closing, held items only: close() has the lot's
        if rec.parked and self.backing_off(origin, now):  # held items never wait for it
            if rec.held:
                self._origins.release(origin, rec, accepting=False, paced=False)
            self._origins.backing_off(origin, rec, now, self._backoff.until(origin))  # type: ignore[union-attr]
            return
        if accepting or rec.held:
            paced = self._paced_release and accepting
            self._origins.release(origin, rec, accepting=accepting, paced=paced)

    def _leave_turn(self, origin: str, now: float) -> None:
        if self._origins.leave_turn(origin):
            self.room_made(now)

    def _room_to_wait(self, origin: str, now: float) -> bool:
        """Whether a decided request may wait its turn: a paced release of an open crawl,
        and the store has room to pin its origin (unless it is pinned already)."""
        origins = self._origins
        return (
            self._paced_release
            and (origins.in_turn(origin) or self._budget.spare() > 0)
            and self._accepting(now)
        )

    def _accepting(self, now: float) -> bool:
        """Whether the crawl still takes released items (the first False starts the close)."""
        return self._lifecycle.accepting(now)


def _waits_for(backoff: Backoffs | None, origin: str) -> ParkReason:
    """What a request of an origin given a time waits for: a back-off, or a fleet's slot."""
    held = backoff is not None and backoff.held(origin)
    return ParkReason.CRAWL_DELAY if held else ParkReason.BACKOFF


def _stopped(state: OriginState | None, now: float, policy: PolicyConfig) -> bool:
    """Whether server errors stop the origin now (a download never waits for a retry)."""
    if state is None or state.kind is not Kind.SERVER_ERROR:
        return False
    return rules_in_force(state, now, policy).mode is Mode.STOPPED


def _arrival(
    state: OriginState | None, now: float, policy: PolicyConfig, observe: bool, fetching: bool
) -> tuple[ParkReason | None, bool, float]:
    """What a request of an origin with no other request waiting meets, by its state.

    (why it is parked, or None: it passes; whether a background retry is due while it
    passes (``REFRESH``); when to look again, 0 for no wake-up). A parked request wants the
    fetch :data:`~.reasons.WANTS` names for its reason.
    """
    if state is None:
        return ParkReason.MISS, False, 0.0
    if state.kind is not Kind.SERVER_ERROR:
        if state.refresh_at > now or fetching:
            return None, False, 0.0
        return ParkReason.EXPIRED, False, 0.0
    force = rules_in_force(state, now, policy)
    due = state.refresh_at <= now and not fetching
    if force.mode is not Mode.STOPPED or observe:
        return None, due, 0.0
    if due:
        return ParkReason.RETRY, False, 0.0
    return ParkReason.STOPPED, False, min(state.refresh_at, force.until)
