"""What the crawl asks of the place where origin states live: the store protocols.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..policy.states import OriginState


@runtime_checkable
class OriginStore(Protocol):
    """A mapping of origin key -> :class:`OriginState` that may forget entries."""

    def get(self, origin: str) -> OriginState | None:
        """The state of ``origin``, or None when unknown (never fetched, or forgotten)."""

    def put(self, origin: str, state: OriginState) -> None:
        """Remember ``state`` for ``origin``, replacing any previous one."""

    def __len__(self) -> int:
        """How many origins are remembered."""


class Backing(Protocol):
    """A persistent or shared tier behind the in-memory LRU (SQLite file, Redis).

    The LRU in front answers the hot path; the backing keeps every origin (the 30-day
    history included) across restarts and between processes. Synchronous methods must be
    cheap or no-ops (``get_now`` may always answer None when reads need a round trip);
    the coroutines run on the fetch path only, once per robots.txt fetch at most.
    """

    #: What the backing is, for logs: "sqlite:///path", "redis://host:port/0".
    name: str

    def get_now(self, origin: str) -> OriginState | None:
        """The stored state when it can be read without waiting; else None."""

    def put_soon(self, origin: str, state: OriginState) -> None:
        """Store ``state`` now or shortly; never replaces a newer entry (by ``fetched_at``)."""

    async def load(self, origin: str) -> OriginState | None:
        """The stored state of ``origin`` (None when absent, unreadable, or unreachable)."""

    async def acquire(self, origin: str, ttl: float) -> bool:
        """Take the origin's fetch lock for ``ttl`` seconds; False when another holds it."""

    async def release(self, origin: str) -> None:
        """Give the fetch lock back (only if this process still holds it)."""

    def close(self) -> None:
        """Flush and let go of files and connections."""
