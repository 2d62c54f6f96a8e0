"""The default store: a bounded in-memory LRU of origin states.

States hold the raw capped robots.txt body (inside ``RobotsTxt``) and a few numbers, never
a Scrapy response, so a broad crawl's memory is bounded by ``max_entries`` x 500 KiB at
worst and by a few hundred bytes per origin typically.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import OrderedDict

from ..policy.states import OriginState


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
