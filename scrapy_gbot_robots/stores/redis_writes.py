"""The Redis store's write-behind queue: states waiting to be written, the latest per origin.

``RedisStore.put_soon`` never waits for Redis: the write waits here until a background task
sends it in a batch, or the store is closed. During an outage writes keep arriving, so the
queue is bounded: past ``max_pending`` origins the oldest are given up (the store counts
them). What a batch is sending stays known until its reply, so that a lock's release waits
for it and the close writes it again. Bookkeeping only: no I/O, no client.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from ..policy.states import OriginState
from .entry import encode

#: One write: the state's ``fetched_at`` (the newer wins) and its ``entry.py`` bytes.
Write = tuple[float, bytes]
Batch = list[tuple[str, Write]]


class PendingWrites:
    """Queued writes, oldest first, and those being sent; see the module docstring."""

    __slots__ = ("_inflight", "_pending", "_sending", "max_pending")

    def __init__(self, max_pending: int) -> None:
        self.max_pending = max(1, max_pending)
        self._pending: OrderedDict[str, Write] = OrderedDict()
        self._inflight: dict[str, asyncio.Future[None]] = {}
        self._sending: dict[str, Write] = {}  # in a pipeline right now

    def __len__(self) -> int:
        return len(self._pending)

    def get(self, origin: str) -> Write | None:
        return self._pending.get(origin)

    def put(self, origin: str, state: OriginState) -> list[str]:
        """Queue ``state`` unless a newer one of ``origin`` waits already. Returns the
        origins given up to stay within ``max_pending``, oldest first."""
        queued = self._pending.get(origin)
        if queued is not None and queued[0] > state.fetched_at:
            return []
        self._pending[origin] = (state.fetched_at, encode(state))
        self._pending.move_to_end(origin)
        lost: list[str] = []
        while len(self._pending) > self.max_pending:
            lost.append(self._pending.popitem(last=False)[0])
        return lost

    def pop(self, origin: str) -> Write | None:
        return self._pending.pop(origin, None)

    def next_batch(self, size: int) -> Batch:
        """Take up to ``size`` queued writes, oldest first."""
        pending = self._pending
        batch: Batch = []
        while pending and len(batch) < size:
            batch.append(pending.popitem(last=False))
        return batch

    def requeue(self, batch: Batch) -> int:
        """Put unsent writes back, unless a newer one of the same origin arrived meanwhile.
        Returns how many were given up to stay within ``max_pending``."""
        pending = self._pending
        for origin, (fetched_at, data) in reversed(batch):
            queued = pending.get(origin)
            if queued is None:
                pending[origin] = (fetched_at, data)
                pending.move_to_end(origin, last=False)
            elif queued[0] < fetched_at:
                pending[origin] = (fetched_at, data)
        lost = 0
        while len(pending) > self.max_pending:
            pending.popitem(last=False)
            lost += 1
        return lost

    def inflight(self, origin: str) -> asyncio.Future[None] | None:
        """Resolved when the batch sending ``origin``'s write has its reply."""
        return self._inflight.get(origin)

    def sending(self, batch: Batch, done: asyncio.Future[None]) -> None:
        for origin, write in batch:
            self._inflight[origin] = done
            self._sending[origin] = write

    def sent(self, batch: Batch, done: asyncio.Future[None]) -> None:
        """The batch has its reply (or failed): it is no longer being sent."""
        for origin, write in batch:
            if self._inflight.get(origin) is done:
                del self._inflight[origin]
            if self._sending.get(origin) is write:
                del self._sending[origin]

    def drain(self) -> Batch:
        """At close: every write not known to be written (a batch cancelled mid-send is
        written again: the script keeps the newer entry); the queue is empty after."""
        writes = list(self._sending.items()) + list(self._pending.items())
        self._pending.clear()
        return writes
