"""What the crawl asks of the places where origin states live: the two store protocols.

- :class:`OriginStore`: the synchronous view every check reads (``get`` on each request),
  bounded in memory. :class:`~.memory.MemoryStore` is the default; ``GBOT_ROBOTS_STORE`` may
  name another.
- :class:`Bounded`: what a front store declares when it is bounded in memory and can keep the
  origins whose requests are on their way (pins); :class:`~.memory.MemoryStore` does, a store
  of one's own need not (the tiered store then answers for it: no bound, nothing counted).
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


@runtime_checkable
class Bounded(Protocol):
    """A front store's capability: a bound, pins that keep an origin within it, and counts of
    what it let go of. The tiered store asks once, when it is built, whether its front has it.

    A pin says a request of the origin passed the scheduling check and is on its way to the
    download check: forgotten meanwhile, the origin would be fetched again. ``room()`` is how
    many more origins can be decided without forgetting a pinned one (the fetch budget waits
    for it).
    """

    @property
    def evictions(self) -> int:
        """Origins forgotten to stay within the bound."""

    @property
    def failing_evictions(self) -> int:
        """Of those, origins in a server-error streak."""

    @property
    def pinned_evictions(self) -> int:
        """Pinned origins forgotten anyway, at the hard bound."""

    @property
    def pinned_peak(self) -> int:
        """The most origins pinned at once."""

    @property
    def pinned(self) -> int:
        """Origins pinned now."""

    def pin(self, origin: str) -> None:
        """A request of ``origin`` is on its way: keep its state (one pin per request)."""

    def unpin(self, origin: str) -> bool:
        """That request arrived; True when the origin's last pin went."""

    def unpin_all(self) -> int:
        """Forget every pin (nothing is on its way any more); how many origins were pinned."""

    def room(self) -> int:
        """How many more origins can be decided without forgetting a pinned one."""


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
