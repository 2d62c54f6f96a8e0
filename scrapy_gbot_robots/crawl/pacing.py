"""How many robots.txt downloads the crawl wants in flight: the fetch budget's limit, paced.

A robots.txt download costs a socket and a few KiB; what it costs the crawl is its latency,
during which the pages of its origin wait. A fixed budget either wastes the crawl's time (a
seed list of 20,000 new sites behind 32 slots waits 20,000 x latency / 32 whatever the
downloader could do meanwhile) or opens sockets nobody needs. So the limit follows what
the downloader says, once per ``GBOT_ROBOTS_TICK``:

- **grow** (by half, up to the ceiling) while pages run dry: the downloader has free slots,
  no request waits in the scheduler, origins wait for a robots.txt slot, and every slot is
  taken. More robots.txt in flight then means more pages to download sooner.
- **shrink** (by a quarter, down to the floor) when decided origins pile up ahead of the
  downloader: more than ``pile`` requests wait in the scheduler or, decided, for their turn
  to be released (:mod:`.turns`; the coordinator counts both). The downloader has work
  for a while, and a big scheduler costs memory (and CPU with Scrapy's default queue, which
  looks at every site with requests queued on each pop). It shrinks only while that pile
  grows or stands still: once it falls, the limit already shrunk is draining it, and
  shrinking on each tick until the pile is gone overshoots, leaving the downloader dry a
  few seconds later (at 2,000 sites whose robots.txt takes 1 s the limit fell to 12-27
  and pages ran dry for 3-6 s, twice a crawl).
- **hold** otherwise, and when the store has no room for more origins (their requests are
  still on their way to the downloader: :meth:`~.budget.FetchBudget.has_slot`), where a
  larger limit would change nothing.

The limit never leaves [floor, ceiling] (:class:`~.budget.FetchBudget`); ``docs/broad-
crawls.md`` shows it move in a real crawl. Pure: the coordinator reads Scrapy's numbers
(``_compat.crawl_load``) and hands them over; nothing here imports Scrapy or Twisted.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .budget import FetchBudget

#: Requests waiting in the scheduler, per page slot of the downloader, above which the
#: budget shrinks (``pile`` = this x ``CONCURRENT_REQUESTS``).
PILE_FACTOR = 4


class Move(str, enum.Enum):
    """What a tick did to the limit, and why."""

    GROW = "grow"  # pages ran dry while origins waited for robots.txt
    SHRINK = "shrink"  # decided origins piled up in the scheduler
    HOLD = "hold"


@dataclass(frozen=True, slots=True)
class Pace:
    """One tick's reading and decision (what telemetry logs and counts)."""

    limit: int  # the limit asked for (the budget keeps it within its bounds)
    before: int
    move: Move
    free_slots: int  # page slots free in the downloader
    backlog: int  # requests waiting in the scheduler or their turn
    previous: int  # the backlog a tick before (a pile that fell holds the limit)
    waiting: int  # origins waiting for a robots.txt slot
    #: No page of ours is in the scheduler or the downloader: no request that passed the
    #: check can still be on its way to it (what pins remain were lost on the way).
    drained: bool


class Pacing:
    """The fetch budget's controller; see the module docstring."""

    __slots__ = ("_last", "capacity", "pile")

    def __init__(self, concurrent_requests: int, *, pile: int | None = None) -> None:
        #: Page slots of the downloader (``CONCURRENT_REQUESTS``; 0, no limit, counts as 16).
        self.capacity = concurrent_requests if concurrent_requests > 0 else 16
        self.pile = PILE_FACTOR * self.capacity if pile is None else pile
        self._last = 0  # the backlog at the last tick

    def step(self, budget: FetchBudget, active: int, concurrency: int, backlog: int) -> Pace:
        """The new limit from the downloader's numbers: ``active`` downloads (robots.txt ones
        included), its ``concurrency`` limit (0: none; widened by one per robots.txt
        download, see ``_compat.reserve_download_slot``) and the scheduler's ``backlog``."""
        in_flight = budget.in_flight
        pages = max(0, active - in_flight)
        # Robots.txt downloads widen ``concurrency`` while they run: what is left is pages'.
        free = max(0, concurrency - active if concurrency > 0 else self.capacity - pages)
        waiting = len(budget.queue)
        limit = before = budget.limit
        move = Move.HOLD
        last, self._last = self._last, backlog
        if backlog > self.pile:
            if limit > budget.min_fetches and backlog >= last:
                move, limit = Move.SHRINK, limit - max(1, limit // 4)
        elif (
            free > 0
            and backlog == 0
            and waiting
            and budget.running >= limit
            and budget.in_flight < budget.room()
            and limit < budget.max_fetches
        ):
            move, limit = Move.GROW, limit + max(1, limit // 2)
        limit = min(budget.max_fetches, max(budget.min_fetches, limit))
        return Pace(
            limit=limit,
            before=before,
            move=move,
            free_slots=free,
            backlog=backlog,
            previous=last,
            waiting=waiting,
            drained=backlog == 0 and pages == 0,
        )
