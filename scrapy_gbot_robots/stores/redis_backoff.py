"""A fleet's back-offs in Redis: one worker's back-off holds for every worker.

When a page answer puts an origin in back-off (``crawl/backoff.py``), the worker that got it
shares the wait in one round trip: ``SET {prefix}:backoff:{origin} <seconds> PX <ms>`` (the
key expires with the back-off) and ``PUBLISH {prefix}:backoff "<token> <seconds> <origin>"``.
Every worker listens on that channel and hands what it hears to ``heard(origin=...,
seconds=...)`` at once, so its own gate parks the origin's requests too; a worker that starts
later reads the keys still alive (one ``SCAN`` pass, bounded by ``max_entries``) once it
listens. Seconds, not times, travel: workers on machines whose clocks differ agree on the
end (give or take the channel's latency).

Cost: nothing per page, for a healthy site or an origin already in back-off; one round trip
(a pipeline of two commands) per back-off begun or lengthened; one connection per worker,
idle on the channel. Faults never stop the crawl: a failed share is counted and given up (the
other workers then learn of the site's distress from its own answers), and a broken channel
is listened to again after a pause that doubles up to 30 s. Uses ``redis.asyncio`` on the
reactor's loop, as the store does.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from .._redact import redacted

__all__ = ["FleetBackoffs"]

logger = logging.getLogger(__name__)

#: Seconds between two tries to listen again after the channel broke, doubling up to this.
_MAX_PAUSE = 30.0


class FleetBackoffs:
    """Shares this worker's back-offs and hears the others'; see the module docstring."""

    def __init__(
        self,
        url: str,
        heard: Callable[..., Any],
        *,
        prefix: str = "gbot_robots",
        max_entries: int = 10_000,
        socket_timeout: float = 5.0,
    ) -> None:
        self.url = url
        self.name = redacted(url)
        self.channel = f"{prefix}:backoff"
        self._key_prefix = f"{prefix}:backoff:"
        self._heard = heard
        self._max_entries = max(1, max_entries)
        self._timeout = socket_timeout
        self.token = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.shared = 0  # back-offs this worker shared
        self.heard = 0  # back-offs heard from other workers
        self.errors = 0
        self._client: aioredis.Redis | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._closing: asyncio.Task[None] | None = None

    def key(self, origin: str) -> str:
        return self._key_prefix + origin

    # -- the crawl's calls ----------------------------------------------------------------
    def start(self) -> None:
        """Listen on the running loop (the spider opened)."""
        self._spawn(self._listen())

    def share(self, origin: str, seconds: float) -> None:
        """Tell the fleet that ``origin`` is in back-off for ``seconds`` from now."""
        if seconds > 0:
            self._spawn(self._share(origin, seconds))

    def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        self._tasks.clear()
        client, self._client = self._client, None
        if client is not None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._closing = loop.create_task(client.aclose())  # held: the loop keeps weak refs

    # -- internals -----------------------------------------------------------------------
    def _spawn(self, coro: Any) -> None:
        if self._closed:
            coro.close()
            return
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:  # no loop (not the asyncio reactor): nothing is shared
            coro.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _redis(self) -> aioredis.Redis:
        if self._client is None:
            self._client = aioredis.Redis.from_url(
                self.url, socket_timeout=self._timeout, socket_connect_timeout=self._timeout
            )
        return self._client

    async def _share(self, origin: str, seconds: float) -> None:
        try:
            async with self._redis().pipeline(transaction=False) as pipe:
                pipe.set(self.key(origin), f"{seconds:.3f}", px=max(1, int(seconds * 1000)))
                pipe.publish(self.channel, f"{self.token} {seconds:.3f} {origin}")
                await pipe.execute()
            self.shared += 1
        except (RedisError, OSError) as exc:
            self._fault("share a back-off", exc)

    async def _listen(self) -> None:
        pause = 1.0
        while not self._closed:
            try:
                await self._subscribed()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                self._fault("hear the fleet's back-offs", exc)
                await asyncio.sleep(pause)
                pause = min(pause * 2, _MAX_PAUSE)

    async def _subscribed(self) -> None:
        client = self._redis()
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(self.channel)
            await self._catch_up(client)
            while not self._closed:
                message = await pubsub.get_message(timeout=1.0)
                if message is not None:
                    self._message(message.get("data"))
        finally:
            await pubsub.aclose()

    async def _catch_up(self, client: aioredis.Redis) -> None:
        """The back-offs begun before this worker listened (their keys are alive)."""
        seen = 0
        async for key in client.scan_iter(match=self._key_prefix + "*", count=100):
            seen += 1
            if seen > self._max_entries:
                break
            left = await client.pttl(key)
            if left > 0:
                name = key.decode() if isinstance(key, bytes) else str(key)
                self._tell(name[len(self._key_prefix) :], left / 1000.0)

    def _message(self, data: Any) -> None:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
        token, _, rest = text.partition(" ")
        seconds_text, _, origin = rest.partition(" ")
        if token == self.token or not origin:
            return  # our own, or not ours to read
        try:
            seconds = float(seconds_text)
        except ValueError:
            return
        if 0 < seconds < float("inf"):
            self._tell(origin, seconds)

    def _tell(self, origin: str, seconds: float) -> None:
        self.heard += 1
        try:
            self._heard(origin=origin, seconds=seconds)
        except Exception:  # a listener's bug must not end the listening
            logger.exception("Error while handling a fleet back-off for %s", origin)

    def _fault(self, what: str, exc: BaseException) -> None:
        self.errors += 1
        if self.errors == 1:  # INFO: a Redis outage is the store's WARNING already
            logger.info(
                "Could not %s through %s (%s): each worker backs off on its own meanwhile",
                what,
                self.name,
                type(exc).__name__,
            )
