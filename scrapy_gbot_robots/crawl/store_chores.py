"""The store's side of each tick: live stats, the components' counters, pruning.

The coordinator's tick (every ``GBOT_ROBOTS_TICK``) moves the gate, then calls
:meth:`StoreChores.tick` for the chores that keep the stats live and the store bounded:
the hot path's hit count, the persistent store's and the lot's own counters, and, with
``GBOT_ROBOTS_STORE_KEEP``, forgetting stored origins not fetched for that long.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._settings import Config
    from ..parking.base import Lot
    from ..stores.tiered import TieredStore
    from .run_events import RunEvents
    from .telemetry import RequestEvents

#: Seconds (of the clock) between two prunes of the store (``GBOT_ROBOTS_STORE_KEEP``).
PRUNE_EVERY = 3_600.0


class StoreChores:
    """Stats and store chores, driven by the coordinator's tick."""

    def __init__(
        self, config: Config, store: TieredStore, requests: RequestEvents, run: RunEvents
    ) -> None:
        self._keep = config.store_keep
        self._store = store
        self._requests = requests
        self._run = run
        self._pruned_at: float | None = None

    def opened(self, now: float) -> None:
        """The crawl starts: forget what ``GBOT_ROBOTS_STORE_KEEP`` says is too old."""
        if self._keep and self._store.persistent is not None:
            self._prune(now)

    def tick(self, now: float, lot: Lot[Any]) -> None:
        self._requests.flush()
        if self._pruned_at is not None and now - self._pruned_at >= PRUNE_EVERY:
            self._prune(now)
        self._run.components(self._store, lot)

    def _prune(self, now: float) -> None:
        self._pruned_at = now
        persistent = self._store.persistent
        if persistent is not None:
            self._run.pruned(persistent.prune(now, self._keep), self._keep)
