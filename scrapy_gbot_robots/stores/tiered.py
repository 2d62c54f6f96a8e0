"""The origin states a crawl reads: the in-memory store, with a persistent one behind it.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Callable

from ..policy.states import OriginState
from .base import OriginStore, PersistentStore
from .memory import MemoryStore


class TieredStore:
    """An in-memory store of hot origins in front of an optional :class:`PersistentStore`.

    An origin the front forgot is read back from the persistent store (when it can answer at
    once), not fetched again; every state put here is also handed to it. Without one, ``get``
    *is* the front's ``get``: the per-request lookup pays no extra call.
    """

    __slots__ = ("_on_read", "_prepare", "front", "get", "persistent", "reads")

    get: Callable[[str], OriginState | None]

    def __init__(
        self,
        front: OriginStore,
        persistent: PersistentStore | None = None,
        *,
        prepare: Callable[[OriginState], None] | None = None,
        on_read: Callable[[str, OriginState], None] | None = None,
    ) -> None:
        self.front = front
        self.persistent = persistent
        self.reads = 0  # states read back from the persistent store
        #: Called with each state before it is kept in memory (put, remembered or read
        #: back): the crawl builds the matcher of its token there, while no check waits.
        self._prepare = prepare
        #: Called with (origin, state) for each state read back from the persistent store:
        #: the owner learns of it as it would of a fetch (signals, report).
        self._on_read = on_read
        self.get = front.get if persistent is None else self._get_or_read_back

    @property
    def evictions(self) -> int:
        """Origins the in-memory store forgot (0 for a custom store that does not say)."""
        return self.front.evictions if isinstance(self.front, MemoryStore) else 0

    @property
    def failing_evictions(self) -> int:
        """Origins in a server-error streak the in-memory store had to forget."""
        return self.front.failing_evictions if isinstance(self.front, MemoryStore) else 0

    def _get_or_read_back(self, origin: str) -> OriginState | None:
        state = self.front.get(origin)
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
        self.front.put(origin, state)

    def __len__(self) -> int:
        return len(self.front)
