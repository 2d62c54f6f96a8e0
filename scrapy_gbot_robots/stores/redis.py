"""The Redis store: robots.txt states and fetch locks shared by every crawler of a fleet.

Uses the maintained ``redis`` client's asyncio API: Scrapy runs on the asyncio reactor, so
these coroutines run on the reactor's own loop and never block it. Nothing connects before
the first use (the store is built before any loop runs).

Keys (``prefix`` defaults to ``gbot_robots``):

- ``{prefix}:origin:{origin}``: a hash with ``fetched_at`` (the state's fetch time as a
  decimal string) and ``entry`` (the ``stores/entry.py`` bytes, exactly). No TTL by default:
  freshness is decided from the times inside the entry, and the 30-day history must outlive any
  expiry; with ``keep`` (``GBOT_ROBOTS_STORE_KEEP``, at least 30 d + the longest lifetime of a
  copy) the key expires ``keep`` seconds after its ``fetched_at``, so a fleet's Redis holds only
  the origins fetched within that window. The write
  is a Lua script that keeps the stored entry when its ``fetched_at`` is newer, so "a write
  never replaces a newer entry" holds atomically across processes. An entry that does not
  even start with the ``stores/entry.py`` magic (garbage), or a key of another type, is replaced;
  an entry of an unknown format version is compared by ``fetched_at`` like any other, so an
  older package never overwrites what a newer one wrote after it.
- ``{prefix}:lock:{origin}``: the fetch lock, ``SET NX PX ttl`` holding this process's token
  (``<pid>-<random>``, so an operator can tell which worker holds it); released only by its
  holder (Lua compare-and-delete). A held lock is renewed every third of its TTL while this
  process lives, so the TTL only bounds how long a *dead* holder blocks the others. A process
  that finds the lock taken looks again for up to ``lock_wait`` (10 s) before it answers
  False, so it usually gets the lock, and with it the holder's fresh state, as soon as the
  holder is done (crawl/robots_fetch.py otherwise looks again only a second later).

Faults never stop or slow the crawl. A connection error marks Redis down: one WARNING (when
the outage starts), ``outages`` and ``errors`` counted; while down, every operation answers
at once without a round trip (``load`` -> None, ``acquire`` -> True: fetch locally; writes
are kept, the latest per origin, at most ``max_pending`` origins) and one background probe
PINGs with exponential backoff (``min_backoff`` doubling to ``max_backoff``). When it
answers: one INFO, the kept writes are flushed and Redis is used again. Other Redis errors
(an error reply, e.g. out of memory) are counted in ``errors`` and kept in ``last_error``,
which crawl/telemetry.py logs once; a write refused that way is given up (``write_errors``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from .._redact import redacted, secret_pieces
from .._settings import ConfigError
from ..engine.lines import MAX_BODY_BYTES
from ..policy.states import OriginState
from .entry import MAGIC, decode
from .memory import MemoryStore
from .redis_writes import Batch, PendingWrites

logger = logging.getLogger(__name__)

#: Errors that mean "Redis cannot be reached now" (an outage), not "Redis said no".
OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    OSError,
    asyncio.TimeoutError,
)
#: Everything a Redis call may raise that the crawl survives: an outage, or a refusal.
FAULTS: tuple[type[BaseException], ...] = (*OUTAGE_ERRORS, RedisError)
#: Connections of the store's pool; a call past them waits for one (at most POOL_WAIT s, or
#: the socket timeout if longer) instead of failing: calls take milliseconds, so a few dozen
#: connections serve hundreds of fetches at once.
POOL_SIZE = 64
POOL_WAIT = 10.0

# KEYS[1] origin hash; ARGV[1] fetched_at, ARGV[2] entry bytes, ARGV[3] the entry magic,
# ARGV[4] when the key expires (Unix ms; 0: never).
_PUT = """
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'hash' then
  local old = redis.call('HMGET', KEYS[1], 'fetched_at', 'entry')
  local at = tonumber(old[1])
  if at and old[2] and string.sub(old[2], 1, #ARGV[3]) == ARGV[3]
      and at > tonumber(ARGV[1]) then
    return 0
  end
elseif kind ~= 'none' then
  redis.call('DEL', KEYS[1])
end
redis.call('HSET', KEYS[1], 'fetched_at', ARGV[1], 'entry', ARGV[2])
if tonumber(ARGV[4]) > 0 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
else
  redis.call('PERSIST', KEYS[1])
end
return 1
"""

# KEYS[1] lock; ARGV[1] token, ARGV[2] ttl in ms. Re-entrant for the same token.
_ACQUIRE = """
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""

# KEYS[1] lock; ARGV[1] token.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# KEYS[1] lock; ARGV[1] token, ARGV[2] ttl in ms.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

#: A lock held elsewhere is looked at again after 20 ms, then 40, 80, 160, 250, 250 ms...
_LOCK_LOOK_FIRST = 0.02
_LOCK_LOOK_MAX = 0.25
_NEEDS_ASYNCIO = (
    "the Redis store needs Scrapy's asyncio reactor: TWISTED_REACTOR = "
    "'twisted.internet.asyncioreactor.AsyncioSelectorReactor' (the default since Scrapy 2.13)"
)
#: Writes sent per pipeline round trip.
_BATCH = 100
#: Batches one flush task sends before it yields to a fresh task (bounds one task's run).
_BATCHES_PER_RUN = 100


class _Loops:
    """The store's background jobs (flush, probe, renew): at most one task of each name.

    A job that dies of an exception hands it to ``on_error`` (a bug must never crash the
    crawl); once stopped, nothing starts again.
    """

    def __init__(self, on_error: Callable[[BaseException], None]) -> None:
        self._on_error = on_error
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._stopped = False

    def start(self, name: str, factory: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``factory()`` as the one task of that name on the running loop, if any."""
        if self._stopped:
            return
        task = self._tasks.get(name)
        if task is not None and not task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the next coroutine call starts it
        task = loop.create_task(factory())
        task.add_done_callback(self._done)
        self._tasks[name] = task

    def stop(self) -> None:
        self._stopped = True
        for task in self._tasks.values():
            task.cancel()
        self._tasks.clear()

    def _done(self, task: asyncio.Task[None]) -> None:
        exc = None if task.cancelled() else task.exception()
        if exc is not None:
            self._on_error(exc)


class RedisStore:
    """Origin states in Redis, shared by a fleet; see the module docstring. Writes wait in
    a :class:`~.redis_writes.PendingWrites` until a batch sends them."""

    #: The fetch lock's expiry when ``GBOT_ROBOTS_LOCK_TTL`` is 0: the holder renews it every
    #: third of it while alive, so it only bounds how long a dead worker blocks the others.
    default_lock_ttl: float | None = 30.0

    def __init__(
        self,
        url: str,
        *,
        max_bytes: int = MAX_BODY_BYTES,
        prefix: str = "gbot_robots",
        max_pending: int = 10_000,
        memo_size: int = 1_024,
        min_backoff: float = 0.5,
        max_backoff: float = 30.0,
        socket_timeout: float = 5.0,
        lock_wait: float = 10.0,
        keep: float = 0.0,
    ) -> None:
        self.url = url
        self.keep = keep
        self.name = redacted(url)  # every text that names the store shows this
        try:
            redis.connection.parse_url(url)  # type: ignore[no-untyped-call]  # what from_url() reads
        except ValueError as exc:
            raise ConfigError(
                "GBOT_ROBOTS_STORE",
                # The parser's message may quote a piece of a password it split (an unencoded
                # '#' or '?'): every piece is hidden.
                f"{self.name} is not a usable Redis URL ({redacted(exc, secret_pieces(url))})",
            ) from None
        self.max_bytes = max_bytes
        self.prefix = prefix
        self.min_backoff = min_backoff
        self.max_backoff = max(min_backoff, max_backoff)
        self.socket_timeout = socket_timeout
        self.lock_wait = max(0.0, lock_wait)
        self.token = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        # Counters crawl/telemetry.py copies into the crawl's stats (robotstxt/store/<name>).
        self.outages = 0
        self.errors = 0
        self.write_errors = 0
        self.lock_waits = 0  # acquires that found another process holding the lock
        self.last_error: str | None = None
        self.down = False
        self._down_since = 0.0
        self._overflow_logged = False
        self._closed = False
        self._client: aioredis.Redis | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._shas: dict[str, str] = {}
        self._memo = MemoryStore(max(1, memo_size))
        self._writes = PendingWrites(max_pending)  # the write-behind queue
        self._held: dict[str, int] = {}  # origin -> lock ttl in ms, while we hold it
        self._loops = _Loops(self._refused)  # "flush", "probe", "renew"

    # -- keys -----------------------------------------------------------------------------
    def origin_key(self, origin: str) -> str:
        return f"{self.prefix}:origin:{origin}"

    def lock_key(self, origin: str) -> str:
        return f"{self.prefix}:lock:{origin}"

    # -- the PersistentStore protocol ----------------------------------------------------
    def get_now(self, origin: str) -> OriginState | None:
        """The state this process last loaded or saved for ``origin`` (no round trip)."""
        return self._memo.get(origin)

    def put_soon(self, origin: str, state: OriginState) -> None:
        """Queue the write; a task on the running loop sends it (never blocks the caller)."""
        if self._closed:
            return
        self._remember(origin, state)
        lost = self._writes.put(origin, state)
        if lost:
            self.write_errors += len(lost)
            if not self._overflow_logged:
                self._overflow_logged = True
                logger.warning(
                    "Redis robots.txt store %(name)s: more than %(cap)d origins wait to be "
                    "written; the oldest (%(origin)s first) are given up (stat "
                    "robotstxt/store/write_errors); the crawl keeps them in memory",
                    {"name": self.name, "cap": self.max_pending, "origin": lost[0]},
                )
        self._kick()

    async def load(self, origin: str) -> OriginState | None:
        """The stored state (None when absent, unreadable, or Redis is unreachable)."""
        self._kick()
        client = self._usable()
        if client is None:
            return None
        try:
            data = await client.hget(self.origin_key(origin), "entry")
        except ResponseError as exc:
            if str(exc).startswith("WRONGTYPE"):
                return None  # something else sits at our key: refetch, the write replaces it
            self._refused(exc)
            return None
        except FAULTS as exc:
            self._fault(exc)
            return None
        stored = decode(data, max_bytes=self.max_bytes) if isinstance(data, bytes) else None
        queued = self._writes.get(origin)
        if queued is not None and (stored is None or queued[0] >= stored.fetched_at):
            mine = self._memo.get(origin) or decode(queued[1], max_bytes=self.max_bytes)
            if mine is not None:
                return mine  # ours is newer and not written yet
        if stored is not None:
            self._remember(origin, stored)
        return stored

    async def acquire(self, origin: str, ttl: float) -> bool:
        """Take the fetch lock; True also when Redis cannot say (then: fetch locally).

        When another process holds it, look again for up to ``lock_wait`` seconds (after
        20 ms, doubling to 250 ms, and once more at the end) before answering False: the
        caller, then holding the lock, reads the holder's fresh state as soon as the holder
        is done, instead of at its own next look a second later. Waiting holds one of the
        caller's fetch slots, as fetching the file itself would.
        """
        client = self._usable()
        if client is None:
            return True
        ttl_ms = max(1, int(ttl * 1000))
        args = [self.token, ttl_ms]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.lock_wait
        delay = _LOCK_LOOK_FIRST
        try:
            got = await self._script(client, _ACQUIRE, [self.lock_key(origin)], args)
            if not got:
                self.lock_waits += 1
            while not got and not self._closed:
                left = deadline - loop.time()
                if left <= 0:
                    break
                await asyncio.sleep(min(delay, left))
                delay = min(delay * 2, _LOCK_LOOK_MAX)
                got = await self._script(client, _ACQUIRE, [self.lock_key(origin)], args)
        except FAULTS as exc:
            self._fault(exc)
            return True
        if got:
            self._held[origin] = ttl_ms
            self._loops.start("renew", self._renew_loop)
            return True
        return False

    async def release(self, origin: str) -> None:
        """Write the origin's queued state first (others read it next), then unlock."""
        self._held.pop(origin, None)
        await self._write_now(origin)
        client = self._usable()
        if client is None:
            return  # the lock expires by itself
        # Even when we do not know that we hold it (an acquire whose reply was lost may have
        # taken it): the compare-and-delete frees only a lock that carries our token.
        try:
            await self._script(client, _RELEASE, [self.lock_key(origin)], [self.token])
        except FAULTS as exc:
            self._fault(exc)

    def prune(self, now: float, keep: float) -> int:
        """Nothing to do: with ``keep``, every key expires by itself (see the module doc)."""
        return 0

    def counters(self) -> dict[str, int]:
        return {
            "write_errors": self.write_errors,
            "errors": self.errors,
            "outages": self.outages,
            "lock_waits": self.lock_waits,
        }

    def close(self) -> None:
        """Stop the background tasks; write what is queued and free our locks, synchronously.

        Runs when the spider closes (the reactor may stop right after), so it uses a short
        blocking connection instead of a task that might never run.
        """
        if self._closed:
            return
        self._closed = True
        self._loops.stop()
        pending = self._writes.drain()
        held = list(self._held)
        self._held.clear()
        if pending or held:
            self._close_sync(pending, held)
        client, self._client = self._client, None
        if client is not None:
            self._drop_client(client)

    # -- inspection -----------------------------------------------------------------------
    @property
    def pending(self) -> int:
        """Writes waiting to be sent (during an outage, or queued this instant)."""
        return len(self._writes)

    @property
    def max_pending(self) -> int:
        """The most origins whose writes wait; past it the oldest are given up."""
        return self._writes.max_pending

    # -- connection and faults ------------------------------------------------------------
    def _usable(self) -> aioredis.Redis | None:
        """The client for this loop, or None when Redis is down (or cannot be used here)."""
        if self._closed or self.down:
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._refused(RuntimeError(_NEEDS_ASYNCIO))
            return None
        if self._client is None or self._loop is not loop:
            if self._client is not None:
                self._drop_client(self._client)
            self._loop = loop
            # A bounded pool where a call past it waits for a connection: redis-py's default
            # pool refuses the call instead (MaxConnectionsError, a ConnectionError), which
            # would read as an outage when a fleet's budget runs many fetches at once.
            pool = aioredis.BlockingConnectionPool.from_url(
                self.url,
                max_connections=POOL_SIZE,
                timeout=max(POOL_WAIT, self.socket_timeout),
                socket_timeout=self.socket_timeout,
                socket_connect_timeout=self.socket_timeout,
                # No hidden retries: an outage must be noticed at once, and answered locally.
                retry=AsyncRetry(NoBackoff(), 0),
                client_name=f"gbot_robots:{self.token}",
            )
            self._client = aioredis.Redis(connection_pool=pool)
        return self._client

    def _drop_client(self, client: aioredis.Redis) -> None:
        """Close the async client's connections on its loop if it still runs; else drop it."""
        loop = self._loop
        if loop is not None and loop.is_running() and not loop.is_closed():
            task = loop.create_task(client.connection_pool.disconnect())
            task.add_done_callback(_ignore_result)

    def _fault(self, exc: BaseException) -> None:
        """An outage (Redis cannot be reached) or a refusal (Redis said no)."""
        if isinstance(exc, OUTAGE_ERRORS):
            self._outage(exc)
        else:
            self._refused(exc)

    def _outage(self, exc: BaseException) -> None:
        """Redis cannot be reached: one WARNING when the outage starts, then probe quietly."""
        self.errors += 1
        if self.down or self._closed:
            return
        self.down = True
        self.outages += 1
        self._down_since = time.monotonic()
        self._overflow_logged = False
        logger.warning(
            "Redis robots.txt store %(name)s unreachable (%(error)s): the crawl goes on with "
            "local robots.txt states (fetching where Redis would have shared them); up to "
            "%(cap)d origins' writes are kept until it is back",
            {"name": self.name, "error": _describe(exc), "cap": self.max_pending},
        )
        self._loops.start("probe", self._probe_loop)

    def _refused(self, exc: BaseException) -> None:
        """Redis answered with an error (or cannot be used here): count it, keep the text."""
        self.errors += 1
        self.last_error = _describe(exc)

    async def _probe_loop(self) -> None:
        """PING with exponential backoff until Redis answers; then flush the kept writes.

        Runs only while Redis is down and the backing open; every round sleeps first.
        """
        delay = self.min_backoff
        while self.down and not self._closed:
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.max_backoff)
            client = self._client
            if client is None:
                return
            try:
                await client.ping()
            except OUTAGE_ERRORS:
                continue
            except RedisError:
                continue  # answering but not ready (loading its data): still down for us
            self.down = False
            logger.info(
                "Redis robots.txt store %(name)s is back after %(seconds).1f s; writing "
                "%(n)d kept states",
                {
                    "name": self.name,
                    "seconds": time.monotonic() - self._down_since,
                    "n": len(self._writes),
                },
            )
            self._kick()

    # -- writes ---------------------------------------------------------------------------
    def _kick(self) -> None:
        if self._writes and not self.down:
            self._loops.start("flush", self._flush_loop)

    async def _flush_loop(self) -> None:
        """Send queued writes in pipelined batches; stop on an outage (the probe resumes)."""
        for _ in range(_BATCHES_PER_RUN):
            if not self._writes or self.down or self._closed:
                return
            await self._send(self._writes.next_batch(_BATCH))
        if self._writes and not self.down:
            loop = asyncio.get_running_loop()
            loop.call_soon(self._kick)  # more than one run's worth: continue in a new task

    async def _write_now(self, origin: str) -> None:
        """Write ``origin``'s queued state now, or wait for the batch already sending it."""
        inflight = self._writes.inflight(origin)
        if inflight is not None:
            await asyncio.shield(inflight)
        queued = self._writes.pop(origin)
        if queued is not None:
            await self._send([(origin, queued)])

    async def _send(self, batch: Batch) -> None:
        client = self._usable()
        if client is None:
            self.write_errors += self._writes.requeue(batch)
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._writes.sending(batch, done)
        try:
            async with client.pipeline(transaction=False) as pipe:
                for origin, (fetched_at, data) in batch:
                    pipe.eval(_PUT, 1, self.origin_key(origin), *self._put_args(fetched_at, data))
                results = await pipe.execute(raise_on_error=False)
        except OUTAGE_ERRORS as exc:
            self.write_errors += self._writes.requeue(batch)
            self._outage(exc)
            return
        except RedisError as exc:
            self.write_errors += len(batch)
            self._refused(exc)
            return
        finally:
            self._writes.sent(batch, done)
            done.set_result(None)
        for result in results:
            if isinstance(result, BaseException):
                self.write_errors += 1
                self._refused(result)

    def _put_args(self, fetched_at: float, data: bytes) -> tuple[str, bytes, bytes, int]:
        expire_ms = int((fetched_at + self.keep) * 1000) if self.keep else 0
        return repr(fetched_at), data, MAGIC, expire_ms

    def _remember(self, origin: str, state: OriginState) -> None:
        old = self._memo.get(origin)
        if old is None or old.fetched_at <= state.fetched_at:
            self._memo.put(origin, state)

    # -- locks ----------------------------------------------------------------------------
    async def _renew_loop(self) -> None:
        """Extend our held locks every third of their TTL; ends when none is held."""
        while self._held and not self._closed:
            await asyncio.sleep(max(0.05, min(self._held.values()) / 3000))
            client = self._usable()
            if client is None:
                continue  # down: the locks expire by themselves, as they should
            for origin, ttl_ms in list(self._held.items()):
                try:
                    kept = await self._script(
                        client, _RENEW, [self.lock_key(origin)], [self.token, ttl_ms]
                    )
                except OUTAGE_ERRORS as exc:
                    self._outage(exc)
                    break
                except RedisError as exc:
                    self._refused(exc)
                    continue
                if not kept and self._held.get(origin) == ttl_ms:
                    del self._held[origin]  # expired meanwhile (an outage): no longer ours

    async def _script(
        self, client: aioredis.Redis, text: str, keys: list[str], args: list[Any]
    ) -> Any:
        """EVALSHA, loading the script once per server (a restarted Redis forgets them)."""
        sha = self._shas.get(text)
        if sha is not None:
            try:
                return await client.evalsha(sha, len(keys), *keys, *args)
            except NoScriptError:
                pass
        self._shas[text] = str(await client.script_load(text))
        return await client.eval(text, len(keys), *keys, *args)

    def _close_sync(self, pending: Batch, held: list[str]) -> None:
        """At close: one short blocking attempt to write what is queued and free our locks."""
        try:
            client = redis.Redis.from_url(
                self.url,
                socket_timeout=2.0,
                socket_connect_timeout=1.0,
                retry=Retry(NoBackoff(), 0),
            )
            try:
                with client.pipeline(transaction=False) as pipe:
                    for origin, (fetched_at, data) in pending:
                        pipe.eval(
                            _PUT, 1, self.origin_key(origin), *self._put_args(fetched_at, data)
                        )
                    for origin in held:
                        pipe.eval(_RELEASE, 1, self.lock_key(origin), self.token)
                    pipe.execute(raise_on_error=False)
            finally:
                client.close()
        except (RedisError, OSError) as exc:  # OUTAGE_ERRORS are all one or the other
            if pending:
                self.write_errors += len(pending)
                logger.warning(
                    "Redis robots.txt store %(name)s: %(n)d robots.txt states could not be "
                    "written before closing (%(error)s)",
                    {"name": self.name, "n": len(pending), "error": _describe(exc)},
                )


def _describe(exc: BaseException) -> str:
    """An error for a log line or ``last_error``: its type and text, never a secret."""
    text = redacted(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _ignore_result(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log it at garbage collection
