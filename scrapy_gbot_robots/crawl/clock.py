"""The park clock: when an origin's waiting items time out, and when the gate looks again.

``park_timeout`` counts only while an origin's robots.txt is being fetched or failing: the
gate starts the origin's clock then (:meth:`ParkClock.start`), and an item parked while it
runs times out ``park_timeout`` after it was parked, or after the clock started if later.
A request queued behind the fetch budget does not age, so a big backlog never turns into
drops. Once the crawl closes (:attr:`~.lifecycle.Lifecycle.closing_at`, the one record of
when), only items held in place age (the close keeps or drops the lot's), from the start of
the close at the latest, clock running or not: a close lasts at most ``park_timeout``.

This module keeps the times and nothing else: when each origin's clock started, and one heap
of wake-ups (:mod:`.wakeups`) that also holds the gate's other appointments (a due retry, a
fleet's recheck). The gate says how many items of the origin it counts; the clock answers
when they are due, and asks the lot (``oldest``) only when the answer depends on it. What a
due origin means is the gate's to decide. Pure: no clock of its own, nothing from Scrapy or
Twisted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .lifecycle import Lifecycle
from .waiting import first_deadline
from .wakeups import Wakeups

#: ``oldest(origin, held=..., aging=...)``: when the oldest item that ages was parked.
Oldest = Callable[..., "float | None"]


class ParkClock:
    """The gate's times; see the module docstring."""

    __slots__ = ("_lifecycle", "_oldest", "_since", "_timeout", "_wakeups")

    def __init__(self, timeout: float, lifecycle: Lifecycle, oldest: Oldest) -> None:
        self._timeout = timeout
        self._lifecycle = lifecycle
        self._oldest = oldest
        self._since: dict[str, float] = {}  # origin -> when its park clock started
        self._wakeups = Wakeups()

    @property
    def close_deadline(self) -> float | None:
        """While closing: ``park_timeout`` after the close began, when every held item that
        waited since then is given up (one that came later waits its own ``park_timeout``)."""
        closing_at = self._lifecycle.closing_at
        return None if closing_at is None else closing_at + self._timeout

    # -- appointments -----------------------------------------------------------------------
    def wake(self, origin: str, when: float) -> None:
        """Look at ``origin`` again at ``when`` (or earlier, if already due earlier)."""
        self._wakeups.set(origin, when)

    def due(self, now: float) -> list[str]:
        return self._wakeups.due(now)

    def forget(self, origin: str) -> None:
        """Nothing of ``origin`` waits any more: no clock, no appointment."""
        self._since.pop(origin, None)
        self._wakeups.cancel(origin)

    def clear(self) -> None:
        self._since.clear()
        self._wakeups.clear()

    def __len__(self) -> int:
        """Entries in the heap of wake-ups, leftovers included (what the bound is about)."""
        return len(self._wakeups)

    # -- the park clock ---------------------------------------------------------------------
    def running(self, origin: str) -> bool:
        return origin in self._since

    def start(self, origin: str, now: float) -> None:
        """The origin's clock runs from ``now`` unless it already runs (the caller sets the
        next :meth:`deadline` once its counts are final)."""
        self._since.setdefault(origin, now)

    def stop(self, origin: str) -> None:
        """The origin is decided: nothing of it ages and nothing is due."""
        self.forget(origin)

    def parked(self, origin: str, now: float, *, held: bool, runs: bool) -> None:
        """An item was just parked; ``runs``: the origin's fetch is under way or failing."""
        if runs:
            self._since.setdefault(origin, now)
        since = self._start_of(origin, held)
        if since is not None and (held or self._lifecycle.closing_at is None):  # it ages
            self._wakeups.set(origin, max(now, since) + self._timeout)

    def deadline(self, origin: str, *, parked: int, held: int) -> None:
        """Wake the origin when its oldest item that ages times out."""
        aging = bool(parked) and self._lifecycle.closing_at is None
        since = self._start_of(origin, bool(held))
        if since is None or not (aging or held):
            return
        oldest = self._oldest(origin, held=bool(held), aging=aging)
        start = since if oldest is None else max(oldest, since)
        self._wakeups.set(origin, start + self._timeout)

    def first_due(self, waiting: Iterable[tuple[str, int, int]]) -> float | None:
        """When the first of these items times out (``(origin, parked, held)`` counts), or
        None when none ages; a bounded number of questions to the lot
        (:func:`.waiting.first_deadline`)."""
        open_ = self._lifecycle.closing_at is None
        clocks: list[tuple[float, str]] = []
        ages: dict[str, tuple[bool, bool]] = {}  # origin -> (held, aging), as deadline() asks
        for origin, parked, held in waiting:
            aging = bool(parked) and open_
            since = self._start_of(origin, bool(held))
            if since is not None and (aging or held):
                clocks.append((since, origin))
                ages[origin] = (bool(held), aging)
        oldest = self._oldest
        return first_deadline(
            clocks,
            lambda o: oldest(o, held=ages[o][0], aging=ages[o][1]),
            self._timeout,
        )

    def overdue(
        self, origin: str, now: float, *, parked: int, held: int
    ) -> tuple[float, bool] | None:
        """``(cutoff, aging)`` when some of the origin's items may be overdue: those parked at
        or before ``cutoff`` are (the lot's only when ``aging``); None when none can be."""
        aging = bool(parked) and self._lifecycle.closing_at is None
        since = self._start_of(origin, bool(held))
        if since is None or not (aging or held):
            return None
        cutoff = now - self._timeout
        return (cutoff, aging) if since <= cutoff else None

    def _start_of(self, origin: str, held: bool) -> float | None:
        """When the origin's items started ageing: its clock, or, for items held in place
        while the crawl closes, the start of the close if that was earlier."""
        since = self._since.get(origin)
        closing_at = self._lifecycle.closing_at
        if held and closing_at is not None and (since is None or closing_at < since):
            return closing_at
        return since
