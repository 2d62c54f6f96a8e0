"""Each origin's ``tdmrep.json`` answer, kept in the store the crawl uses for robots.txt.

:class:`TdmRepFiles` is the :class:`~.tdmrep_middleware.TdmRepMiddleware`'s collaborator: an
LRU of ``GBOT_ROBOTS_STORE_SIZE`` origins in memory, in front of the crawl's persistent store
when ``GBOT_ROBOTS_STORE`` (or ``JOBDIR``) names one, so a restart, a ``JOBDIR`` resume or
another worker of a fleet reads the file instead of fetching it again while it is fresh.

Stored as the robots.txt states are (:mod:`..stores.entry`, same tables and keys, same prune
and key expiry), under a key of its own, the file's URL (``"https://example.com/.well-known/tdmrep.json"``):
an origin's key never has a path, so a worker of any version, 0.2 included, never asks for
it. The entry is an :class:`~..policy.states.OriginState`:
``rules`` with the raw capped body of a 2xx, ``allow_all`` for "no file" (any other
answer), ``server_error`` for a failed fetch; ``refresh_at`` is its expiry. The body is parsed
again on load by the bounded parser (:func:`..preferences.tdmrep.parse_file`); an entry that
cannot be read is "fetch again", never "no reservation". A fetch takes the store's fetch lock
of the key, as robots.txt's does, so workers of a fleet starting together fetch it once.

Freshness (the final report says only that a crawler keeps the file, "usually as an in-memory
object"): robots.txt's, ``Cache-Control: max-age`` when sent, clamped to ``[GBOT_ROBOTS_MIN_TTL,
GBOT_ROBOTS_MAX_TTL]``, else ``GBOT_ROBOTS_TTL`` (24 h; :func:`..policy.fetch.ttl`). A
failed fetch (a network error, a 429 or a 5xx) lives ``GBOT_ROBOTS_RETRY_BACKOFF`` (60 s).

Imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from ..engine.rules import RobotsTxt
from ..policy.fetch import ttl
from ..policy.states import Kind, OriginState, PolicyConfig
from ..preferences.tdmrep import WELL_KNOWN, TdmEntry, parse_file
from ..stores.base import PersistentStore

logger = logging.getLogger("scrapy_gbot_robots.middleware")

Entries = tuple[TdmEntry, ...]


def key_of(origin: str) -> str:
    """The store key of ``origin``'s ``tdmrep.json`` entry (never an origin's own key)."""
    return origin + WELL_KNOWN


def failed_fetch(status: int | None) -> bool:
    """Whether an answer is a failed fetch (kept briefly), not the server's "no file"."""
    return status is None or status == 429 or status >= 500


def state_of(
    status: int | None,
    body: bytes,
    cache_control: str | None,
    now: float,
    cfg: PolicyConfig,
) -> OriginState:
    """The entry to store for a download's answer (``status`` None: it failed)."""
    if failed_fetch(status):
        reason = f"HTTP {status}" if status is not None else "failed"
        return OriginState(
            Kind.SERVER_ERROR, reason, now, now + cfg.retry_backoff, None, status=status
        )
    assert status is not None
    expires = now + ttl(cache_control, cfg)
    if 200 <= status < 300:
        capped = body[: cfg.max_bytes]
        robots = RobotsTxt(bytes(capped), len(body) > cfg.max_bytes)
        return OriginState(Kind.RULES, f"HTTP {status}", now, expires, robots, status=status)
    return OriginState(Kind.ALLOW_ALL, f"HTTP {status}", now, expires, None, status=status)


def entries_of(state: OriginState, max_bytes: int) -> Entries:
    """The file's entries in a stored state, parsed again (a failed fetch, no file: none)."""
    if state.kind is Kind.RULES and state.robots is not None:
        return parse_file(state.robots.body[:max_bytes])
    return ()


class TdmRepFiles:
    """The parsed files of the origins, fresh ones only; see the module docstring."""

    def __init__(
        self,
        *,
        size: int,
        persistent: PersistentStore | None,
        clock: Callable[[], float],
        policy: PolicyConfig,
        lock_ttl: float = 60.0,
        on_read: Callable[[str, int], None] | None = None,
    ) -> None:
        self.size = max(1, size)
        self.persistent = persistent
        self.clock = clock
        self.policy = policy
        #: The fleet's fetch lock's expiry (the robots.txt fetch's, ``GBOT_ROBOTS_LOCK_TTL``).
        self.lock_ttl = lock_ttl
        #: Called with (origin, entries) for each answer read back from the persistent store.
        self._on_read = on_read
        #: origin -> (entries, expiry), least recently used first.
        self._memory: OrderedDict[str, tuple[Entries, float]] = OrderedDict()
        self.reads = 0  # fresh entries read back from the persistent store

    def get(self, origin: str) -> Entries | None:
        """The origin's entries when known and fresh in memory; None: load or fetch."""
        found = self._memory.get(origin)
        if found is None:
            return None
        if self.clock() >= found[1]:
            del self._memory[origin]
            return None
        self._memory.move_to_end(origin)
        return found[0]

    async def find(
        self, origin: str, fetch: Callable[[], Awaitable[Entries | None]]
    ) -> Entries | None:
        """The origin's entries: from memory, else the persistent store, else ``fetch()``
        (which :meth:`put` s what it got). With a store, ``fetch()`` runs under the fleet's
        fetch lock of the file (as robots.txt's): a worker that finds another fetching it
        waits for it (Redis: up to its lock wait) and reads what it stored."""
        found = self.get(origin)
        if found is not None:
            return found
        if self.persistent is None:
            return await fetch()
        found = await self.load(origin)
        if found is not None:
            return found
        key = key_of(origin)
        await self.persistent.acquire(key, self.lock_ttl)  # False: fetch anyway, unlocked
        try:
            found = await self.load(origin)  # the holder's, written before it let go
            return found if found is not None else await fetch()
        finally:
            await self.persistent.release(key)  # writes our answer first (Redis)

    async def load(self, origin: str) -> Entries | None:
        """The entries stored by an earlier run or another worker, when fresh; else None."""
        if self.persistent is None:
            return None
        state = await self.persistent.load(key_of(origin))
        if state is None or self.clock() >= state.refresh_at:
            return None  # absent, unreadable or expired: fetch again
        entries = entries_of(state, self.policy.max_bytes)
        self.reads += 1
        self._remember(origin, entries, state.refresh_at)
        if self._on_read is not None:
            self._on_read(origin, len(entries))
        return entries

    def put(
        self, origin: str, status: int | None, body: bytes = b"", cache_control: str | None = None
    ) -> Entries:
        """Keep a download's answer (``status`` None: it failed); its entries."""
        state = state_of(status, body, cache_control, self.clock(), self.policy)
        entries = entries_of(state, self.policy.max_bytes)
        self._remember(origin, entries, state.refresh_at)
        if self.persistent is not None:
            self.persistent.put_soon(key_of(origin), state)
        return entries

    def _remember(self, origin: str, entries: Entries, expires: float) -> None:
        memory = self._memory
        memory[origin] = (entries, expires)
        memory.move_to_end(origin)
        while len(memory) > self.size:
            memory.popitem(last=False)

    def __len__(self) -> int:
        return len(self._memory)

    def close(self) -> None:
        """Write what waits and let go of the persistent store (the robots.txt store is
        another connection to it); a store error met meanwhile is logged, once."""
        persistent = self.persistent
        if persistent is None:
            return
        persistent.close()
        if persistent.last_error is not None:
            logger.warning(
                "tdmrep.json answers in %(store)s: %(error)s (the answers this crawl could not "
                "store are fetched again by the next run)",
                {"store": persistent.name, "error": persistent.last_error},
            )
