"""The default store: a bounded in-memory LRU of origin states.

States hold the raw capped robots.txt body (inside ``RobotsTxt``) and a few numbers, never
a Scrapy response, so a broad crawl's memory is bounded by ``max_entries`` x 500 KiB at
worst and by a few hundred bytes per origin typically.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from ..policy.states import Kind, OriginState


class MemoryStore:
    """LRU of origin states, where origins in a server-error streak are forgotten last, and
    origins whose requests are on their way to the downloader are not forgotten at all.

    A forgotten decided origin is fetched again when next needed, so the bound trades a
    refetch for memory. A failing origin is different: its state carries the streak's start
    (Google's 12 h and 30 d clocks), the backoff and the last good copy, and forgetting it
    would start a new streak with no copy, which after 12 h means "no restrictions". So
    failing origins live in a second LRU that is only evicted from when every entry is
    failing; ``max_entries`` bounds both together.

    A *pinned* origin (:meth:`pin`: a request of it passed the scheduling check and has not
    reached the download check yet) is kept out of both LRUs until its last pin goes:
    forgetting it would fetch its robots.txt again for requests already on their way. The
    crawl decides no new origin while pinned ones fill the store (:meth:`room`), so pins
    hold it above ``max_entries`` only by the fetches already in flight; whatever happens,
    it never holds more than ``2 x max_entries`` (the oldest pinned go first beyond that).

    Each state it forgets is handed to ``forget`` (the compact tier,
    :class:`~.compact.CompactStore`), so that forgetting costs a decode, not a fetch.
    """

    __slots__ = (
        "_data",
        "_failing",
        "_forget",
        "_pinned",
        "_pins",
        "evictions",
        "failing_evictions",
        "max_entries",
        "pinned_evictions",
        "pinned_peak",
    )

    def __init__(
        self,
        max_entries: int = 10_000,
        *,
        forget: Callable[[str, OriginState], None] | None = None,
    ) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self._forget = forget
        self.evictions = 0
        #: Failing origins forgotten because every entry was failing (see the class doc).
        self.failing_evictions = 0
        #: Pinned origins forgotten at the hard bound of 2 x ``max_entries`` (see the class doc).
        self.pinned_evictions = 0
        self.pinned_peak = 0
        self._data: OrderedDict[str, OriginState] = OrderedDict()
        self._failing: OrderedDict[str, OriginState] = OrderedDict()
        # Pins cost a count on the hot path; a pinned origin leaves its LRU only when it
        # comes up for eviction, into this dict, and goes back when its last pin goes.
        self._pins: dict[str, int] = {}  # origin -> pins, only for origins held here
        self._pinned: dict[str, OriginState] = {}

    def get(self, origin: str) -> OriginState | None:
        state = self._data.get(origin)
        if state is not None:
            self._data.move_to_end(origin)
            return state
        state = self._pinned.get(origin)
        if state is not None:
            return state
        state = self._failing.get(origin)
        if state is not None:
            self._failing.move_to_end(origin)
        return state

    def put(self, origin: str, state: OriginState) -> None:
        if origin in self._pinned:
            self._pinned[origin] = state
            return
        if state.kind is Kind.SERVER_ERROR:
            into, other = self._failing, self._data
        else:
            into, other = self._data, self._failing
        other.pop(origin, None)
        into[origin] = state
        into.move_to_end(origin)
        self._bound(into)

    def _bound(self, into: OrderedDict[str, OriginState] | None) -> None:
        """Forget the least recently used until the bound holds; never the one just put
        (``into``'s last: a fetch just decided it, and its requests are about to pass), and
        never a pinned one (set aside instead) until the hard bound."""
        data, failing, pinned, pins = self._data, self._failing, self._pinned, self._pins
        while len(data) + len(failing) + len(pinned) > self.max_entries:
            if len(data) > (into is data):
                origin, state = data.popitem(last=False)
                if origin in pins:
                    pinned[origin] = state
                    continue
            elif pinned:
                # Decided origins on their way are kept over failing ones (forgetting a
                # failing one loses its clocks and its last good copy), up to the hard bound.
                if len(data) + len(failing) + len(pinned) <= 2 * self.max_entries:
                    return
                origin = next(iter(pinned))
                state = pinned.pop(origin)
                del pins[origin]
                self.pinned_evictions += 1
            elif len(failing) > (into is failing):
                origin, state = failing.popitem(last=False)
                if origin in pins:
                    pinned[origin] = state
                    continue
                self.failing_evictions += 1  # every entry is failing
            else:
                return  # only the one just put is left
            self.evictions += 1
            if self._forget is not None:
                self._forget(origin, state)

    # -- pins ---------------------------------------------------------------------------------
    def pin(self, origin: str) -> None:
        """One more request of ``origin`` is on its way to the download check: keep its state.

        An origin the store does not hold is not pinned (there is nothing to keep).
        """
        pins = self._pins
        count = pins.get(origin)
        if count is not None:
            pins[origin] = count + 1
        elif origin in self._data or origin in self._failing:
            pins[origin] = 1
            if len(pins) > self.pinned_peak:
                self.pinned_peak = len(pins)

    def unpin(self, origin: str) -> bool:
        """A request of ``origin`` reached the download check (or was refused on its way).

        Returns True when that was the origin's last pin: its state may be forgotten again,
        and the store has room for one more origin.
        """
        pins = self._pins
        count = pins.get(origin)
        if count is None:
            return False
        if count > 1:
            pins[origin] = count - 1
            return False
        del pins[origin]
        state = self._pinned.pop(origin, None)
        if state is not None:  # set aside at an eviction: back as the most recently used,
            # and kept over an older one (its request is being checked now)
            self._bound(self._back_in_lru(origin, state))
        return True

    def unpin_all(self) -> int:
        """Forget every pin (nothing is on its way any more); returns how many origins."""
        released = len(self._pins)
        for origin, state in reversed(self._pinned.items()):  # set aside as the oldest
            self._back_in_lru(origin, state).move_to_end(origin, last=False)
        self._pinned.clear()
        self._pins.clear()
        self._bound(None)
        return released

    def _back_in_lru(self, origin: str, state: OriginState) -> OrderedDict[str, OriginState]:
        into = self._failing if state.kind is Kind.SERVER_ERROR else self._data
        into[origin] = state
        return into

    @property
    def pinned(self) -> int:
        """Origins kept because requests of theirs are on their way to the download check."""
        return len(self._pins)

    def room(self) -> int:
        """How many more origins can be decided without forgetting a pinned one."""
        return self.max_entries - len(self._pins)

    @property
    def failing(self) -> int:
        """Origins remembered in a server-error streak."""
        return len(self._failing) + sum(
            1 for state in self._pinned.values() if state.kind is Kind.SERVER_ERROR
        )

    def __len__(self) -> int:
        return len(self._data) + len(self._failing) + len(self._pinned)

    def __contains__(self, origin: object) -> bool:
        return origin in self._data or origin in self._pinned or origin in self._failing
