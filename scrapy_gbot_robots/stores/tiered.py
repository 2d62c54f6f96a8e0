"""The origin states a crawl reads: the in-memory store, with a persistent one behind it.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..policy.states import OriginState
from .base import Bounded, OriginStore, PersistentStore
from .compact import CompactStore


class TieredStore:
    """An in-memory store of hot origins in front of the states it forgot, kept encoded
    (:class:`CompactStore`, when given), and of an optional :class:`PersistentStore`.

    An origin the front forgot is read back from the compact tier, else from the persistent
    store (when it can answer at once), not fetched again; every state put here is also
    handed to the persistent store. With neither, ``get`` *is* the front's ``get``: the
    per-request lookup pays no extra call.

    Pins, room and eviction counts are the front's when it declares them (:class:`Bounded`,
    as :class:`~.memory.MemoryStore` does); a store of one's own that does not is answered for
    by :data:`UNBOUNDED`: no pins, unbounded room, nothing counted.
    """

    __slots__ = (
        "_bounds",
        "_on_read",
        "_prepare",
        "compact",
        "compact_reads",
        "front",
        "get",
        "persistent",
        "pin",
        "reads",
        "unpin",
    )

    get: Callable[[str], OriginState | None]
    #: A request of the origin passed the scheduling check: keep its state (per request).
    pin: Callable[[str], None]
    #: That request reached the download check: True when the origin's last pin went.
    unpin: Callable[[str], bool]

    def __init__(
        self,
        front: OriginStore,
        persistent: PersistentStore | None = None,
        *,
        compact: CompactStore | None = None,
        prepare: Callable[[OriginState], None] | None = None,
        on_read: Callable[[str, OriginState], None] | None = None,
    ) -> None:
        self.front = front
        self.persistent = persistent
        #: The front's forgotten states; the front hands them to it (built with its
        #: ``forget``), this store reads them back.
        self.compact = compact
        self.reads = 0  # states read back from the persistent store
        self.compact_reads = 0  # states read back from the compact tier
        #: Called with each state before it is kept in memory (put, remembered or read
        #: back): the crawl builds the matcher of its token there, while no check waits.
        self._prepare = prepare
        #: Called with (origin, state) for each state read back from the persistent store:
        #: the owner learns of it as it would of a fetch (signals, report).
        self._on_read = on_read
        plain = persistent is None and compact is None
        self.get = front.get if plain else self._get_or_read_back
        #: The front's bound and pins, declared (asked once, here), or UNBOUNDED's answers.
        self._bounds: Bounded = front if isinstance(front, Bounded) else UNBOUNDED
        self.pin, self.unpin = self._bounds.pin, self._bounds.unpin

    def room(self) -> int:
        """How many more origins can be decided without forgetting a pinned one."""
        return self._bounds.room()

    @property
    def pinned(self) -> int:
        return self._bounds.pinned

    def unpin_all(self) -> int:
        """Forget every pin (nothing is on its way to the download check any more)."""
        return self._bounds.unpin_all()

    @property
    def evictions(self) -> int:
        """Origins the in-memory store forgot (0 for a custom store that does not say)."""
        return self._bounds.evictions

    @property
    def failing_evictions(self) -> int:
        """Origins in a server-error streak forgotten for good (by the compact tier when
        there is one: the front's go there, clocks and last good copy included)."""
        if self.compact is not None:
            return self.compact.failing_forgotten
        return self._bounds.failing_evictions

    @property
    def forgotten(self) -> int:
        """States the compact tier forgot too (0 without one: ``evictions`` says it then)."""
        return self.compact.forgotten if self.compact is not None else 0

    @property
    def forgets(self) -> bool:
        """Whether a state given to this store may be gone (its robots.txt then fetched
        again): never behind a persistent store, which keeps every one (a fleet's worker may
        just not have read it yet); in memory, once a tier lost one; always for a store of
        one's own, which does not say."""
        if self.persistent is not None:
            return False
        if self._bounds is UNBOUNDED:
            return True
        return (self.forgotten if self.compact is not None else self.evictions) > 0

    @property
    def pinned_evictions(self) -> int:
        """Pinned origins forgotten at the in-memory store's hard bound (2 x its size)."""
        return self._bounds.pinned_evictions

    @property
    def pinned_peak(self) -> int:
        return self._bounds.pinned_peak

    def _get_or_read_back(self, origin: str) -> OriginState | None:
        state = self.front.get(origin)
        if state is None and self.compact is not None:
            state = self.compact.take(origin)
            if state is not None:
                self.compact_reads += 1
                self.remember(origin, state)
                return state
        if state is None and self.persistent is not None:
            state = self.persistent.get_now(origin)
            if state is not None:
                self.reads += 1
                self.remember(origin, state)
                if self._on_read is not None:
                    self._on_read(origin, state)
        return state

    def put(self, origin: str, state: OriginState) -> None:
        self.remember(origin, state)
        if self.persistent is not None:
            self.persistent.put_soon(origin, state)

    def remember(self, origin: str, state: OriginState) -> None:
        """Keep a state in memory only (one read from the persistent store is stored already)."""
        if self._prepare is not None:
            self._prepare(state)
        if self.compact is not None:
            self.compact.discard(origin)  # an older copy the front forgot
        self.front.put(origin, state)

    def __len__(self) -> int:
        return len(self.front)


class _Unbounded:
    """What a front store that declares no bound answers (see :class:`Bounded`): unbounded
    room, no pins kept (none needed: nothing is forgotten to make room), nothing counted."""

    __slots__ = ()

    evictions = 0
    failing_evictions = 0
    pinned_evictions = 0
    pinned_peak = 0
    pinned = 0

    def pin(self, origin: str) -> None:
        return None

    def unpin(self, origin: str) -> bool:
        return False

    def unpin_all(self) -> int:
        return 0

    def room(self) -> int:
        return sys.maxsize


#: The one :class:`_Unbounded`: the tiered store's answers for a store of one's own.
UNBOUNDED: Bounded = _Unbounded()
