"""What the crawl asks of the places where origin states live: the two store protocols.

- :class:`OriginStore`: the synchronous view every check reads (``get`` on each request),
  bounded in memory. :class:`~.memory.MemoryStore` is the default; ``GBOT_ROBOTS_STORE`` may
  name another.
- :class:`PersistentStore`: a tier that keeps every origin across restarts or between the
  processes of a fleet (:class:`~.sqlite.SqliteStore`, :class:`~.redis.RedisStore`), behind
  the in-memory one (:class:`~.tiered.TieredStore`). Every capability the crawl uses is
  declared here, the optional ones with the answer that means "not supported".

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


class PersistentStore(Protocol):
    """A persistent or shared tier behind the in-memory store (an SQLite file, Redis).

    The in-memory store answers the hot path; this one keeps every origin (the 30-day
    history included) across restarts and between processes. Synchronous methods must be
    cheap (``get_now`` may always answer None when reads need a round trip); the coroutines
    run on the fetch path only, once per robots.txt fetch at most.
    """

    #: What the store is, for logs: "sqlite:///path", "redis://host:port/0".
    name: str
    #: The fetch lock's expiry when ``GBOT_ROBOTS_LOCK_TTL`` is 0, for a store whose holder
    #: renews its lock; None: long enough for the slowest fetch (the holder does not renew).
    default_lock_ttl: float | None
    #: The latest error the store met (logged once by the crawl), or None.
    last_error: str | None

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

    def prune(self, now: float, keep: float) -> int:
        """Forget origins not fetched for ``keep`` seconds; how many (0: keys expire alone)."""

    def counters(self) -> dict[str, int]:
        """The store's own counts (``write_errors``, ``errors``, ``outages``, ``lock_waits``)."""

    def close(self) -> None:
        """Flush and let go of files and connections."""
