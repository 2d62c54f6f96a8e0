"""Where origin states live: a small store protocol and the default bounded in-memory LRU.

States hold the raw capped robots.txt body (inside ``RobotsTxt``) and a few numbers, never
a Scrapy response, so a broad crawl's memory is bounded by ``max_entries`` x 500 KiB at
worst and by a few hundred bytes per origin typically. Another backend (shared, persistent)
only has to implement :class:`OriginStore`.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ._policy import OriginState


@runtime_checkable
class OriginStore(Protocol):
    """A mapping of origin key -> :class:`OriginState` that may forget entries."""

    def get(self, origin: str) -> OriginState | None:
        """The state of ``origin``, or None when unknown (never fetched, or forgotten)."""

    def put(self, origin: str, state: OriginState) -> None:
        """Remember ``state`` for ``origin``, replacing any previous one."""

    def __len__(self) -> int:
        """How many origins are remembered."""


class MemoryStore:
    """LRU of origin states: the least recently used origin is forgotten first.

    A forgotten origin is simply fetched again when next needed, so the bound trades a
    refetch for memory.
    """

    __slots__ = ("_data", "evictions", "max_entries")

    def __init__(self, max_entries: int = 10_000) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self.evictions = 0
        self._data: OrderedDict[str, OriginState] = OrderedDict()

    def get(self, origin: str) -> OriginState | None:
        state = self._data.get(origin)
        if state is not None:
            self._data.move_to_end(origin)
        return state

    def put(self, origin: str, state: OriginState) -> None:
        data = self._data
        data[origin] = state
        data.move_to_end(origin)
        while len(data) > self.max_entries:
            data.popitem(last=False)
            self.evictions += 1

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, origin: object) -> bool:
        return origin in self._data


class Backing(Protocol):
    """A persistent or shared tier behind the in-memory LRU (SQLite file, Redis).

    The LRU in front answers the hot path; the backing keeps every origin (the 30-day
    history included) across restarts and between processes. Synchronous methods must be
    cheap or no-ops (``get_now`` may always answer None when reads need a round trip);
    the coroutines run on the fetch path only, once per robots.txt fetch at most.
    """

    #: What the backing is, for logs: "sqlite:///path", "redis://host:port/0".
    name: str

    def get_now(self, origin: str) -> OriginState | None:
        """The stored state when it can be read without waiting; else None."""

    def put_soon(self, origin: str, state: OriginState) -> None:
        """Store ``state`` now or shortly; never replaces a newer entry (by ``fetched_at``)."""

    async def load(self, origin: str) -> OriginState | None:
        """The stored state of ``origin`` (None when absent, unreadable, or unreachable)."""

    async def acquire(self, origin: str, ttl: float) -> bool:
        """Take the origin's fetch lock for ``ttl`` seconds; False when another holds it."""

    async def release(self, origin: str) -> None:
        """Give the fetch lock back (only if this process still holds it)."""

    def close(self) -> None:
        """Flush and let go of files and connections."""


class TieredStore:
    """An LRU of hot origins in front of a :class:`Backing` that keeps them all.

    An origin the LRU forgot is read back from the backing (when it can answer at once), not
    fetched again; every state put here is also handed to the backing.
    """

    __slots__ = ("backing", "front", "on_read", "reads")

    def __init__(self, front: MemoryStore, backing: Backing) -> None:
        self.front = front
        self.backing = backing
        self.reads = 0  # states read back from the backing
        #: Called with (origin, state) for each state read back from the backing: the owner
        #: learns of it as it would of a fetch (signals, report).
        self.on_read: Callable[[str, OriginState], None] | None = None

    @property
    def evictions(self) -> int:
        return self.front.evictions

    def get(self, origin: str) -> OriginState | None:
        state = self.front.get(origin)
        if state is None:
            state = self.backing.get_now(origin)
            if state is not None:
                self.reads += 1
                self.front.put(origin, state)
                if self.on_read is not None:
                    self.on_read(origin, state)
        return state

    def put(self, origin: str, state: OriginState) -> None:
        self.front.put(origin, state)
        self.backing.put_soon(origin, state)

    def remember(self, origin: str, state: OriginState) -> None:
        """Keep a state read from the backing in the LRU only (it is stored already)."""
        self.front.put(origin, state)

    def __len__(self) -> int:
        return len(self.front)
