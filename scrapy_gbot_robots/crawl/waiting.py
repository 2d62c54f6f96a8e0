"""Why the parked requests wait, and what happens to them next: the progress line's words.

A crawl whose robots.txt answers 503 once sat logging "2 requests parked" every minute for ten
minutes, and nothing said why, nor when they would be retried or dropped. The gate's books
count its parked requests by what they wait for (:meth:`.origins.Origins.why_waiting` fills a
:class:`Waiting`); this module says it, and finds the first park deadline at a bounded cost.
Pure: nothing from Scrapy or Twisted, time always an argument.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Waiting:
    """The requests parked now, by what they wait for, and the next two events (in seconds
    from now; None: none comes)."""

    fetching: int = 0  # their origin's robots.txt is being fetched (here, or by another worker)
    slot: int = 0  # their origin waits for a slot of the fetch budget: they do not age
    retry: int = 0  # their origin answers server errors: they wait for its retry
    turn: int = 0  # their origin is decided: they wait their turn to be released
    other: int = 0  # about to be looked at again (sent back from the downloader, the close)
    next_retry: float | None = None  # the soonest retry of a failing origin (0: under way)
    first_drop: float | None = None  # the first park deadline (GBOT_ROBOTS_PARK_TIMEOUT)

    def text(self, park_timeout: float) -> str:
        """``2 for a retry after server errors, the next in 41 s; the first dropped in
        8 min 20 s unless decided: GBOT_ROBOTS_PARK_TIMEOUT = 10 min``, or "" for none."""
        parts = []
        if self.fetching:
            parts.append(f"{self.fetching:,} for robots.txt being fetched")
        if self.slot:
            parts.append(f"{self.slot:,} for a slot of the fetch budget (not aging)")
        if self.retry:
            retry = f"{self.retry:,} for a retry after server errors"
            if self.next_retry is not None and self.next_retry > 0:
                retry += f", the next in {span(self.next_retry)}"
            elif self.next_retry is not None:
                retry += ", one under way"
            parts.append(retry)
        if self.turn:
            parts.append(f"{self.turn:,} decided, waiting their turn")
        if self.other:
            parts.append(f"{self.other:,} about to be looked at again")
        text = ", ".join(parts)
        if self.first_drop is not None:
            text += (
                f"; the first dropped in {span(self.first_drop)} unless decided: "
                f"GBOT_ROBOTS_PARK_TIMEOUT = {span(park_timeout)}"
            )
        return text


def span(seconds: float) -> str:
    """41 s, 8 min 20 s, 2 h 5 min: rounded up to the second, in the units a person says."""
    whole = max(0, math.ceil(seconds))
    if whole < 100:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min" + (f" {secs} s" if secs else "")
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h" + (f" {minutes} min" if minutes else "")


def first_deadline(
    clocks: Iterable[tuple[float, str]],
    oldest: Callable[[str], float | None],
    timeout: float,
    *,
    lookups: int = 16,
) -> float | None:
    """When the first aging item times out: ``max(oldest, clock start) + timeout`` over the
    origins whose park clock runs (``clocks``: its start, the origin).

    ``oldest(origin)`` may ask the lot (SQLite, Redis): at most ``lookups`` are asked, the
    origins whose clock started first, and none once a clock starts too late to come first;
    past the bound, a clock's start stands for its oldest item (an estimate that can only be
    early). A backlog of any size costs the same.
    """
    best: float | None = None
    for asked, (start, origin) in enumerate(sorted(clocks)):
        soonest = start + timeout
        if best is not None and soonest >= best:
            break  # sorted: no later clock can come first
        if asked >= lookups:
            return soonest if best is None else min(best, soonest)
        parked = oldest(origin)
        if parked is None:
            continue
        deadline = max(parked, start) + timeout
        best = deadline if best is None else min(best, deadline)
    return best
