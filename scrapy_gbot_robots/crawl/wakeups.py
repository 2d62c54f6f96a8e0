"""When each origin must be looked at again: a heap of wake-ups, the earliest per origin wins.

The gate's clock work (park deadlines, due retries, a fleet's rechecks) sets wake-ups; its
tick takes the due ones. A later, superseded or cancelled wake-up stays in the heap until
popped and is skipped then; the heap is rebuilt when such leftovers outnumber the live ones,
so it stays bounded by the origins the gate holds. Pure: no clock, nothing from Scrapy.
"""

from __future__ import annotations

import heapq


class Wakeups:
    """Per-origin wake-up times; see the module docstring."""

    __slots__ = ("_at", "_heap")

    def __init__(self) -> None:
        self._heap: list[tuple[float, str]] = []
        self._at: dict[str, float] = {}  # the live wake-up of each origin

    def set(self, origin: str, when: float) -> None:
        """Wake ``origin`` at ``when``, unless it already wakes earlier."""
        at = self._at.get(origin)
        if at is None or when < at:
            self._at[origin] = when
            heapq.heappush(self._heap, (when, origin))

    def cancel(self, origin: str) -> None:
        self._at.pop(origin, None)

    def due(self, now: float) -> list[str]:
        """The origins whose wake-up is at or before ``now``, earliest first (each once)."""
        heap, at = self._heap, self._at
        out: list[str] = []
        while heap and heap[0][0] <= now:
            when, origin = heapq.heappop(heap)
            if at.get(origin) == when:
                del at[origin]
                out.append(origin)
        if len(heap) > 2 * len(at) + 1024:  # leftovers of superseded or cancelled wake-ups
            self._heap = [(w, o) for w, o in heap if at.get(o) == w]
            heapq.heapify(self._heap)
        return out

    def clear(self) -> None:
        self._heap.clear()
        self._at.clear()

    def __len__(self) -> int:
        """Entries in the heap, leftovers included (what the bound is about)."""
        return len(self._heap)
