"""Parked requests in Redis, shared by a scrapy-redis fleet: no worker's death loses them.

Used when the scheduler is scrapy-redis's. It talks to scrapy-redis's Redis synchronously,
the same blocking model as scrapy-redis's queue, which already makes a round trip per request,
so parking adds one short round trip per parked request and nothing per passing request. But
not through scrapy-redis's client (``scheduler.server``): its socket timeout is 30 s by
default, retried on a timeout, and every call runs on the reactor, so a hung Redis (paused,
or a network that drops packets) would freeze the whole crawl that long at each call. The lot
builds a client of its own from the same connection parameters (host or socket, database,
credentials, TLS), with replies as bytes, no retry, and ``timeout`` (``CALL_TIMEOUT``, 1 s)
for connecting and for each reply: a call to a hung Redis fails after 1 s instead, like any
failure (below), and is counted in ``timeouts`` (stat ``robotstxt/lot/timeouts``: each a
freeze of the crawl avoided). A healthy Redis answers these calls in well under a millisecond
on a LAN; the largest, ``take_parked_before``, moves at most ``EXPIRE_LIMIT`` items.

Keys (``key`` is ``<spider name>:gbot_robots``):

- ``{key}:parked:{origin}``: a list per origin, oldest first; each element is the park time
  (8-byte big-endian IEEE double) followed by the codec's bytes (Scrapy's disk-queue format).
- ``{key}:parked_index``: a sorted set, origin -> park time of its oldest element, so any
  worker finds origins another worker left waiting (``waiting()``, the gate's ``adopt()``).

Every change of a list and its index entry is one Lua script, so they agree atomically
whatever the workers do: ``take`` pops with ``LPOP`` and a count (Redis >= 6.2) and drops the
index entry when the list is empty; ``take_parked_before`` pops while the head's park time is
at or before the cutoff. Items belong to the fleet: they stay in Redis whatever ``close`` is
told, and whichever worker sees the origin decided releases them into the shared queue.

Items the codec cannot serialise (``dumps`` raises ``ValueError``) stay in memory, for this
process only, and ``close`` returns them (the crawl reports them dropped). When Redis
fails, new items go to memory too (one WARNING per outage, one INFO when it answers again);
they are pushed to Redis at the next ``flush`` once it answers, so they survive this worker
from then on. Within an origin, Redis items come first, then this process's memory items.
While a failure's backoff runs (0.5 s doubling to 30 s), no call is made at all, so a hung
Redis costs at most one bounded wait per backoff.

A reply that never came does not say whether Redis ran the command (a paused Redis runs it when
it wakes up). A ``push`` cut so is kept in memory, out of reach of ``take`` (it may be in Redis
too) until Redis answers: the next ``flush`` looks for it there (``LPOS``) and keeps it only if
Redis does not have it, so a request is never parked twice nor lost (unless the worker closes
before Redis answers: then ``close`` returns it). A ``take`` cut so may have popped items
nobody received: each take leaves a copy of what it popped under a receipt key
(``{key}:receipt:<worker token>:<n>``, expiring after ``RECEIPT_TTL_MS``, deleted once the
reply arrived: one more round trip per take that got items), and a take whose reply was lost is
recovered at the next ``flush`` that reaches Redis: its items are put back at the head of their
origin's list, in order, to be taken again.

``__len__`` is this process's estimate (items it parked minus items it took, never below
zero, plus its memory items): other workers change the lists at any time, and the gate
treats a shared lot's counts as estimates anyway.
"""

from __future__ import annotations

import logging
import os
import struct
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .._redact import redacted
from .memory import MemoryLot

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

_TIME = struct.Struct(">d")
#: Origins ``waiting()`` returns at most per call (oldest first).
WAITING_LIMIT = 1_000
#: Items ``take_parked_before`` pops at most per call; the gate calls again on a later tick.
EXPIRE_LIMIT = 10_000
#: Memory items ``flush`` hands to Redis at most per call (whole origins; the tick calls again).
FLUSH_LIMIT = 10_000
#: Seconds a call may wait for Redis (to connect, then for each reply): the longest the
#: crawl can freeze on one call to a hung Redis. See the module docstring.
CALL_TIMEOUT = 1.0
#: How long Redis keeps a take's receipt (a copy of what it popped), in milliseconds: longer
#: than any backoff (30 s), so a lost reply is recovered at the next flush that gets through.
RECEIPT_TTL_MS = 600_000
#: Takes whose reply was lost, remembered for recovery at most (oldest forgotten first).
UNSURE_LIMIT = 1_000

# Lua helper: the park time at the head of a list (0 for a malformed element), as a score.
_HEAD_SCORE = """
local function fix_index(list, index, origin)
  local head = redis.call('LINDEX', list, 0)
  if not head then
    redis.call('ZREM', index, origin)
  else
    local t = 0
    if #head >= 8 then t = struct.unpack('>d', head) end
    if t ~= t then t = 0 end
    redis.call('ZADD', index, string.format('%.17g', t), origin)
  end
end
"""

# KEYS[1] list, KEYS[2] index; ARGV[1] element, ARGV[2] park time, ARGV[3] origin.
_PUSH = """
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[3])
return 1
"""

# Lua helper: keep a copy of what a take popped under its receipt (in pieces: Lua's unpack
# has a limit).
_RECEIPT = """
local function receipt(key, ttl, items)
  for i = 1, #items, 1000 do
    redis.call('RPUSH', key, unpack(items, i, math.min(i + 999, #items)))
  end
  if #items > 0 then redis.call('PEXPIRE', key, ttl) end
end
"""

# KEYS[1] list, KEYS[2] index, KEYS[3] receipt; ARGV[1] limit, ARGV[2] origin,
# ARGV[3] receipt ttl ms.
_TAKE = (
    _HEAD_SCORE
    + _RECEIPT
    + """
local items = redis.call('LPOP', KEYS[1], ARGV[1]) or {}
fix_index(KEYS[1], KEYS[2], ARGV[2])
receipt(KEYS[3], ARGV[3], items)
return items
"""
)

# KEYS[1] list, KEYS[2] index, KEYS[3] receipt; ARGV[1] cutoff, ARGV[2] origin,
# ARGV[3] max items, ARGV[4] receipt ttl ms.
_TAKE_BEFORE = (
    _HEAD_SCORE
    + _RECEIPT
    + """
local cutoff = tonumber(ARGV[1])
local most = tonumber(ARGV[3])
local out = {}
while #out < most do
  local chunk = redis.call('LRANGE', KEYS[1], 0, math.min(99, most - #out - 1))
  local n = 0
  for _, element in ipairs(chunk) do
    local t = 0
    if #element >= 8 then t = struct.unpack('>d', element) end
    if t > cutoff then break end
    n = n + 1
  end
  if n == 0 then break end
  for _, element in ipairs(redis.call('LPOP', KEYS[1], n)) do out[#out + 1] = element end
  if n < #chunk or #chunk < 100 then break end
end
fix_index(KEYS[1], KEYS[2], ARGV[2])
receipt(KEYS[3], ARGV[4], out)
return out
"""
)

# KEYS[1] receipt, KEYS[2] list, KEYS[3] index; ARGV[1] origin. The items of a take whose
# reply was lost go back to the head of their list, in their order; how many.
_RECOVER = (
    _HEAD_SCORE
    + """
local items = redis.call('LRANGE', KEYS[1], 0, -1)
for i = #items, 1, -1 do redis.call('LPUSH', KEYS[2], items[i]) end
redis.call('DEL', KEYS[1])
if #items > 0 then fix_index(KEYS[2], KEYS[3], ARGV[1]) end
return #items
"""
)

# KEYS[1] index; ARGV[1] list key prefix, ARGV[2] limit. Stale index entries are removed.
_WAITING = """
local rows = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #rows, 2 do
  local n = redis.call('LLEN', ARGV[1] .. rows[i])
  if n == 0 then
    redis.call('ZREM', KEYS[1], rows[i])
  else
    out[#out + 1] = rows[i]
    out[#out + 1] = rows[i + 1]
    out[#out + 1] = n
  end
end
return out
"""


def bounded_client(server: Any, timeout: float) -> Any:
    """A client of the lot's own on ``server``'s Redis: same connection, bounded calls.

    The connection parameters of ``server``'s pool (host or unix socket, database,
    credentials, TLS) with bytes replies (parked items are bytes; scrapy-redis lets a project
    set ``REDIS_DECODE_RESPONSES``), ``timeout`` to connect and for each reply, and no retry.
    ``server`` itself when it is not a redis-py client whose pool can be copied (then calls
    are as bounded as its own settings make them).
    """
    pool = getattr(server, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None)
    connection_class = getattr(pool, "connection_class", None)
    if not isinstance(kwargs, dict) or connection_class is None:
        return server
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    params = {
        **kwargs,
        "decode_responses": False,
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry_on_timeout": False,
        "retry": Retry(NoBackoff(), 0),
    }
    return redis.Redis(
        connection_pool=redis.ConnectionPool(connection_class=connection_class, **params)
    )


class RedisLot(Generic[T]):
    """Per-origin FIFO queues in Redis, shared by every worker; see the module docstring."""

    shared = True

    def __init__(
        self,
        server: Any,
        key: str,
        dumps: Callable[[T], bytes],
        loads: Callable[[bytes], T],
        *,
        min_backoff: float = 0.5,
        max_backoff: float = 30.0,
        timeout: float = CALL_TIMEOUT,
    ) -> None:
        self.server = bounded_client(server, timeout)
        self.timeout = timeout
        self.key = key
        self.index_key = f"{key}:parked_index"
        self.list_prefix = f"{key}:parked:"
        #: For the crawl's log (crawl/telemetry.py: "Resuming N parked requests from ...").
        self.where = f"Redis ({self.list_prefix}*)"
        self._dumps = dumps
        self._loads = loads
        self._push = self.server.register_script(_PUSH)
        self._take = self.server.register_script(_TAKE)
        self._take_before = self.server.register_script(_TAKE_BEFORE)
        self._recover = self.server.register_script(_RECOVER)
        self._waiting = self.server.register_script(_WAITING)
        self._receipt_prefix = f"{key}:receipt:{os.getpid()}-{uuid.uuid4().hex[:12]}:"
        self._receipts = 0
        #: (receipt, origin) of takes whose reply was lost: recovered by ``flush``.
        self._unsure: deque[tuple[str, str]] = deque(maxlen=UNSURE_LIMIT)
        self._unserialisable: MemoryLot[T] = MemoryLot()  # never leaves this process
        self._fallback: MemoryLot[T] = MemoryLot()  # parked while Redis failed: pushed later
        #: Pushes that got no reply (with their element), until Redis says whether it has them.
        self._doubtful: MemoryLot[tuple[T, bytes]] = MemoryLot()
        self._mine = 0  # items this process parked in Redis minus those it took (estimate)
        self.unserialisable = 0
        self.errors = 0
        self.outages = 0
        self.timeouts = 0  # calls cut at ``timeout``: freezes of the crawl avoided
        self.min_backoff = min_backoff
        self.max_backoff = max(min_backoff, max_backoff)
        self._down = False
        self._down_since = 0.0
        self._retry_at = 0.0
        self._backoff = min_backoff

    # -- faults ---------------------------------------------------------------------------
    def _redis_ok(self) -> bool:
        """False while a failure's backoff runs: no blocking round trip on every call."""
        return not self._down or time.monotonic() >= self._retry_at

    def _failed(self, exc: Exception, what: str) -> None:
        self.errors += 1
        if isinstance(exc, RedisTimeoutError):
            self.timeouts += 1
        now = time.monotonic()
        if not self._down:
            self._down = True
            self._down_since = now
            self._backoff = self.min_backoff
            self.outages += 1
            logger.warning(
                "Redis lot %(key)s failed (%(what)s: %(error)s): requests are parked "
                "in this worker's memory until Redis answers again",
                {"key": self.key, "what": what, "error": f"{type(exc).__name__}: {redacted(exc)}"},
            )
        else:
            self._backoff = min(self._backoff * 2, self.max_backoff)
        self._retry_at = now + self._backoff

    def _answered(self) -> None:
        if self._down:
            self._down = False
            logger.info(
                "Redis lot %(key)s answers again after %(seconds).1f s",
                {"key": self.key, "seconds": time.monotonic() - self._down_since},
            )

    def _ask(self, what: str, call: Callable[[], R]) -> R | None:
        """``call()`` against Redis; None while a failure's backoff runs or when it fails.

        None reads as "Redis has nothing to say" everywhere below: its items are then
        neither counted nor returned, and new ones are kept in this process.
        """
        if not self._redis_ok():
            return None
        try:
            result = call()
        except RedisError as exc:
            self._failed(exc, what)
            return None
        self._answered()
        return result

    def _list(self, origin: str) -> str:
        return self.list_prefix + origin

    # -- the Lot protocol -----------------------------------------------------------------
    def push(self, origin: str, item: T, parked_at: float) -> None:
        try:
            data = self._dumps(item)
        except ValueError:
            self.unserialisable += 1
            self._unserialisable.push(origin, item, parked_at)
            return
        element = _TIME.pack(parked_at) + data
        if self._redis_ok():
            keys = [self._list(origin), self.index_key]
            try:
                self._push(keys=keys, args=[element, repr(parked_at), origin])
            except RedisTimeoutError as exc:  # no reply: Redis may push it yet (docstring)
                self._doubtful.push(origin, (item, element), parked_at)
                self._failed(exc, "push")
                return
            except RedisError as exc:  # refused, or no Redis to run it: not pushed
                self._failed(exc, "push")
            else:
                self._mine += 1
                self._answered()
                return
        self._fallback.push(origin, item, parked_at)

    def take(self, origin: str, limit: int) -> list[T]:
        out: list[T] = []
        if limit > 0:
            out = self._decode(
                self._taking(
                    origin, lambda keys, ttl: self._take(keys=keys, args=[limit, origin, ttl])
                )
            )
        for lot in (self._fallback, self._unserialisable):
            if len(out) < limit:
                out.extend(lot.take(origin, limit - len(out)))
        return out

    def take_parked_before(self, origin: str, cutoff: float) -> list[T]:
        out = self._decode(
            self._taking(
                origin,
                lambda keys, ttl: self._take_before(
                    keys=keys, args=[repr(cutoff), origin, EXPIRE_LIMIT, ttl]
                ),
            )
        )
        out.extend(self._fallback.take_parked_before(origin, cutoff))
        out.extend(self._unserialisable.take_parked_before(origin, cutoff))
        return out

    def _taking(self, origin: str, script: Callable[[list[str], int], Any]) -> Any:
        """A take under a new receipt; a reply that never came leaves it to recover."""
        if not self._redis_ok():
            return None
        self._receipts += 1
        receipt = f"{self._receipt_prefix}{self._receipts}"
        keys = [self._list(origin), self.index_key, receipt]
        try:
            result = script(keys, RECEIPT_TTL_MS)
        except RedisError as exc:
            # Redis may have run it (a paused Redis runs it when it wakes up): recover later.
            self._unsure.append((receipt, origin))
            self._failed(exc, "take")
            return None
        self._answered()
        if result:  # received: the copy is not needed (if this fails, it expires alone)
            self._ask("take", lambda: self.server.delete(receipt))
        return result

    def oldest(self, origin: str) -> float | None:
        times = [
            t
            for t in (
                self._fallback.oldest(origin),
                self._unserialisable.oldest(origin),
                self._doubtful.oldest(origin),
            )
            if t is not None
        ]
        score = self._ask("read", lambda: self.server.zscore(self.index_key, origin))
        if score is not None:
            times.append(float(score))
        return min(times) if times else None

    def peek(self, origin: str) -> T | None:
        head = self._ask("read", lambda: self.server.lindex(self._list(origin), 0))
        if isinstance(head, bytes):
            return self._loads(head[_TIME.size :])
        item = self._fallback.peek(origin)
        return item if item is not None else self._unserialisable.peek(origin)

    def waiting(self) -> list[tuple[str, int]]:
        """Origins with items and their counts, oldest first, at most ``WAITING_LIMIT``."""
        found: dict[str, tuple[float, int]] = {}
        args = [self.list_prefix, WAITING_LIMIT]
        rows = self._ask("read", lambda: self._waiting(keys=[self.index_key], args=args)) or []
        for i in range(0, len(rows) - len(rows) % 3, 3):
            origin = rows[i].decode() if isinstance(rows[i], bytes) else str(rows[i])
            found[origin] = (float(rows[i + 1]), int(rows[i + 2]))
        memory: tuple[MemoryLot[Any], ...] = (self._fallback, self._unserialisable, self._doubtful)
        for lot in memory:
            for origin, n in lot.waiting():
                when = lot.oldest(origin) or 0.0
                old = found.get(origin)
                found[origin] = (min(when, old[0]), old[1] + n) if old else (when, n)
        ordered = sorted(found.items(), key=lambda kv: kv[1][0])[:WAITING_LIMIT]
        return [(origin, n) for origin, (_, n) in ordered]

    def __len__(self) -> int:
        return self._mine + len(self._fallback) + len(self._unserialisable) + len(self._doubtful)

    def flush(self) -> None:
        """Move items parked in memory during a Redis failure to Redis, once it answers.

        One transaction per origin, at most ``FLUSH_LIMIT`` items per call (the gate's tick
        calls again), so a long outage's backlog never stalls the reactor in one go.
        """
        if self._unsure and self._redis_ok():
            self._recover_takes()
        if len(self._doubtful) and self._redis_ok():
            self._settle_pushes()
        fallback = self._fallback
        if not len(fallback) or not self._redis_ok():
            return
        moved = 0
        for origin, _ in fallback.waiting():
            if moved >= FLUSH_LIMIT:
                break
            entries = fallback.drain(origin)
            pipe = self.server.pipeline(transaction=True)
            sent: list[tuple[float, T]] = []
            for when, item in entries:
                try:
                    data = self._dumps(item)
                except ValueError:
                    self._unserialisable.push(origin, item, when)
                    continue
                keys = [self._list(origin), self.index_key]
                self._push(
                    keys=keys, args=[_TIME.pack(when) + data, repr(when), origin], client=pipe
                )
                sent.append((when, item))
            try:
                pipe.execute()
            except RedisError as exc:
                for when, item in sent:  # all or nothing: still in this process
                    fallback.push(origin, item, when)
                self._failed(exc, "push")
                return
            self._mine += len(sent)
            moved += len(sent)
        self._answered()

    def _recover_takes(self) -> None:
        """Put back the items of takes whose reply was lost (see the module docstring)."""
        pipe = self.server.pipeline(transaction=False)
        unsure = list(self._unsure)
        for receipt, origin in unsure:
            keys = [receipt, self._list(origin), self.index_key]
            self._recover(keys=keys, args=[origin], client=pipe)
        try:
            counts = pipe.execute()
        except RedisError as exc:
            self._failed(exc, "recover")
            return
        self._unsure.clear()
        # Still counted in ``_mine``: their take returned nothing.
        back = sum(n for n in counts if isinstance(n, int))
        if back:
            logger.info(
                "Redis lot %(key)s: %(n)d parked requests whose take got no reply "
                "were put back",
                {"key": self.key, "n": back},
            )
        self._answered()

    def _settle_pushes(self) -> None:
        """Pushes that got no reply: forget those Redis has (it ran them), keep the others.

        A kept one goes to the memory items, pushed by this flush: so a request is in Redis
        once, whatever the lost reply hid.
        """
        doubtful = [(o, e) for o, _ in self._doubtful.waiting() for e in self._doubtful.drain(o)]
        pipe = self.server.pipeline(transaction=False)
        for origin, (_, (_, element)) in doubtful:
            pipe.lpos(self._list(origin), element)
        try:
            found = pipe.execute()
        except RedisError as exc:
            for origin, (when, pair) in doubtful:
                self._doubtful.push(origin, pair, when)
            self._failed(exc, "push")
            return
        for (origin, (when, (item, _))), position in zip(doubtful, found, strict=True):
            if position is None:
                self._fallback.push(origin, item, when)
            else:
                self._mine += 1
        self._answered()

    def counters(self) -> dict[str, int]:
        return {"errors": self.errors, "outages": self.outages, "timeouts": self.timeouts}

    def close(self, persist: bool) -> list[tuple[str, T]]:
        """Items in Redis stay for the fleet; return those only this process held.

        One last attempt to hand the memory items to Redis (and to put back what takes
        without a reply popped), backoff or not: what stays here is lost with the process.
        """
        self._retry_at = 0.0
        self.flush()
        left = self._fallback.close(persist) + self._unserialisable.close(persist)
        # Still unsure: maybe in Redis (the fleet crawls it), maybe not (lost with us).
        left += [(origin, pair[0]) for origin, pair in self._doubtful.close(persist)]
        self._mine = 0
        return left

    # -- decoding -------------------------------------------------------------------------
    def _decode(self, raw: Any) -> list[T]:
        out: list[T] = []
        for element in raw or ():
            data = element if isinstance(element, bytes) else str(element).encode()
            out.append(self._loads(data[_TIME.size :]))  # never raises (the codec's rule)
        self._mine = max(0, self._mine - len(out))
        return out
