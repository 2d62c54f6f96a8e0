"""The crawl's periodic work, every ``GBOT_ROBOTS_TICK``: deadlines, due retries, a fleet's
orphans, durable parking, live stats, the store's pruning.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from twisted.internet.task import LoopingCall

if TYPE_CHECKING:
    from .._settings import Config
    from ..stores.tiered import TieredStore
    from .gate import Gate
    from .telemetry import Telemetry

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: Ticks between two looks at a shared lot for origins no live worker is handling.
ADOPT_EVERY = 5
#: Seconds (of the clock) between two prunes of the store (``GBOT_ROBOTS_CACHE_KEEP``).
PRUNE_EVERY = 3_600.0


class Housekeeping:
    """Runs :meth:`tick` on a ``LoopingCall`` between the spider's open and close."""

    def __init__(
        self,
        config: Config,
        gate: Gate[Any],
        store: TieredStore,
        telemetry: Telemetry,
        wake: Callable[[], None],
    ) -> None:
        self.config = config
        self.gate = gate
        self.store = store
        self.telemetry = telemetry
        self._wake = wake  # tell the engine it may be idle now
        self._ticks = 0
        self._pruned_at: float | None = None
        self._loop: LoopingCall | None = None

    def start(self) -> None:
        if self.config.cache_keep and self.store.persistent is not None:
            self._prune(self.config.clock())
        self._loop = LoopingCall(self.tick)
        self._loop.start(self.config.tick, now=False)

    def stop(self) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()

    def tick(self) -> None:
        """One round; never raises (a LoopingCall stops at the first error)."""
        try:
            gate = self.gate
            busy = gate.busy
            now = self.config.clock()
            gate.tick(now)
            self._ticks += 1
            if self._ticks % ADOPT_EVERY == 0:
                gate.adopt(now)  # a shared lot: origins a dead worker left waiting
            self.telemetry.flush()
            if self._pruned_at is not None and now - self._pruned_at >= PRUNE_EVERY:
                self._prune(now)
            if busy and not gate.busy:
                self._wake()
            self.telemetry.components(self.store, gate.lot)
        except Exception:
            logger.exception("Error in the robots.txt parking loop")

    def _prune(self, now: float) -> None:
        """Forget stored origins not fetched for ``GBOT_ROBOTS_CACHE_KEEP``."""
        self._pruned_at = now
        persistent = self.store.persistent
        if persistent is not None:
            self.telemetry.pruned(
                persistent.prune(now, self.config.cache_keep), self.config.cache_keep
            )
