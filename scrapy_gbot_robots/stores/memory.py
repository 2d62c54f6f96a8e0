"""The default store: a bounded in-memory LRU of origin states.

States hold the raw capped robots.txt body (inside ``RobotsTxt``) and a few numbers, never
a Scrapy response, so a broad crawl's memory is bounded by ``max_entries`` x 500 KiB at
worst and by a few hundred bytes per origin typically.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import OrderedDict

from ..policy.states import Kind, OriginState


class MemoryStore:
    """LRU of origin states, where origins in a server-error streak are forgotten last.

    A forgotten decided origin is simply fetched again when next needed, so the bound
    trades a refetch for memory. A failing origin is different: its state carries the
    streak's start (Google's 12 h and 30 d clocks), the backoff and the last good copy,
    and forgetting it would start a new streak with no copy, which after 12 h means "no
    restrictions". So failing origins live in a second LRU that is only evicted from when
    every entry is failing; ``max_entries`` bounds both together.
    """

    __slots__ = ("_data", "_failing", "evictions", "failing_evictions", "max_entries")

    def __init__(self, max_entries: int = 10_000) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self.evictions = 0
        #: Failing origins forgotten because every entry was failing (see the class doc).
        self.failing_evictions = 0
        self._data: OrderedDict[str, OriginState] = OrderedDict()
        self._failing: OrderedDict[str, OriginState] = OrderedDict()

    def get(self, origin: str) -> OriginState | None:
        state = self._data.get(origin)
        if state is not None:
            self._data.move_to_end(origin)
            return state
        state = self._failing.get(origin)
        if state is not None:
            self._failing.move_to_end(origin)
        return state

    def put(self, origin: str, state: OriginState) -> None:
        if state.kind is Kind.SERVER_ERROR:
            into, other = self._failing, self._data
        else:
            into, other = self._data, self._failing
        other.pop(origin, None)
        into[origin] = state
        into.move_to_end(origin)
        data, failing = self._data, self._failing
        while len(data) + len(failing) > self.max_entries:
            # Decided origins first, but never the one just put: it is what a fetch just
            # decided, and requests are about to be released on it.
            if len(data) > 1 or (data and into is failing):
                data.popitem(last=False)
            else:
                failing.popitem(last=False)
                self.failing_evictions += 1
            self.evictions += 1

    @property
    def failing(self) -> int:
        """Origins remembered in a server-error streak."""
        return len(self._failing)

    def __len__(self) -> int:
        return len(self._data) + len(self._failing)

    def __contains__(self, origin: object) -> bool:
        return origin in self._data or origin in self._failing
