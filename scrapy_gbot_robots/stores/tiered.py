"""An LRU of hot origins in front of a persistent store (SQLite, Redis) that keeps them all.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Callable

from ..policy.states import OriginState
from .base import Backing
from .memory import MemoryStore


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
