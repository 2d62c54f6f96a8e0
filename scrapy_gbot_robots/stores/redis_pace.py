"""A fleet's ``Crawl-delay`` in Redis: at most one request per origin per delay, fleet-wide.

With ``GBOT_ROBOTS_CRAWL_DELAY`` and the Redis store, a worker reserves the origin's next
send before it downloads a page (``crawl/crawl_delay.py``): one ``EVALSHA`` of a Lua script
that reads ``{prefix}:pace:{origin}`` and, when its time has passed (the key is gone), sets it
to now + the delay with an expiry of the delay and answers 0 (reserved); otherwise it answers
the milliseconds left and reserves nothing. The time is Redis's own (``TIME`` inside the
script), so the workers' clocks need not agree, and the key expires by itself: nothing to
clean up, nothing that grows. A worker never reserves ahead: only a send it makes now.

Faults never stop the crawl: a call that fails (Redis unreachable, hung: each call is bounded
by ``socket_timeout``) is counted and logged once, answers ``None`` (each worker then keeps to
its own slot's delay), and Redis is not asked again for ``_PAUSE`` seconds, so an outage costs
one timeout per pause, not one per page. Uses ``redis.asyncio`` on the reactor's loop, as the
store does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from .._redact import redacted

__all__ = ["FleetPace"]

logger = logging.getLogger(__name__)

#: Seconds during which Redis is not asked again after a failed call.
_PAUSE = 5.0

# KEYS[1]: the origin's key; ARGV[1]: the delay in ms. Returns 0 (reserved) or the ms left.
_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if due > now then
  return due - now
end
local delay = tonumber(ARGV[1])
redis.call('SET', KEYS[1], tostring(now + delay), 'PX', delay)
return 0
"""


class FleetPace:
    """Reserves an origin's next send for the fleet; see the module docstring."""

    def __init__(
        self, url: str, *, prefix: str = "gbot_robots", socket_timeout: float = 1.0
    ) -> None:
        self.url = url
        self.name = redacted(url)
        self._key_prefix = f"{prefix}:pace:"
        self._timeout = socket_timeout
        self.reserved = 0  # calls that took the slot
        self.refused = 0  # calls that found it taken
        self.errors = 0  # calls that failed (the worker's own slot delay applied)
        self._down_until = 0.0  # monotonic: no call before, after a fault
        self._client: aioredis.Redis | None = None
        self._script: AsyncScript | None = None

    def key(self, origin: str) -> str:
        return self._key_prefix + origin

    async def reserve(self, origin: str, delay: float) -> float | None:
        """Take the origin's slot for ``delay`` seconds from now: 0.0 when taken, the seconds
        until it is free when another send holds it, None when Redis cannot answer."""
        if time.monotonic() < self._down_until:
            return None
        try:
            left = await self._call(self.key(origin), max(1, round(delay * 1000)))
        except (RedisError, OSError, TimeoutError) as exc:
            self._fault(exc)
            return None
        except Exception as exc:  # the client's bug must not fail the page: a fault too
            logger.debug("Crawl-delay reservation failed", exc_info=True)
            self._fault(exc)
            return None
        if left <= 0:
            self.reserved += 1
            return 0.0
        self.refused += 1
        return left / 1000.0

    async def close(self) -> None:
        """Close the connection, bounded (a hung Redis never holds the spider's close)."""
        client, self._client, self._script = self._client, None, None
        if client is not None:
            with contextlib.suppress(RedisError, OSError, TimeoutError):
                await asyncio.wait_for(client.aclose(), self._timeout)

    async def _call(self, key: str, delay_ms: int) -> int:
        script = self._script
        if script is None:  # one client, the script sent once (EVALSHA, EVAL when unknown)
            self._client = aioredis.Redis.from_url(
                self.url, socket_timeout=self._timeout, socket_connect_timeout=self._timeout
            )
            script = self._script = self._client.register_script(_RESERVE)
        return int(await script(keys=[key], args=[delay_ms]))

    def _fault(self, exc: BaseException) -> None:
        self.errors += 1
        self._down_until = time.monotonic() + _PAUSE
        if self.errors == 1:
            logger.warning(
                "Could not reserve a Crawl-delay slot through %s (%s): each worker keeps to "
                "its own download slot's delay meanwhile",
                self.name,
                type(exc).__name__,
            )
