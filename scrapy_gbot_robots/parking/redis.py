"""Parked requests in Redis, shared by a scrapy-redis fleet: no worker's death loses them.

Used when the scheduler is scrapy-redis's. It talks through scrapy-redis's own synchronous
client (``scheduler.server``): the same blocking model as scrapy-redis's queue, which already
makes a round trip per request on the same connection, so parking adds one short round trip
per parked request and nothing per passing request.

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

``__len__`` is this process's estimate (items it parked minus items it took, never below
zero, plus its memory items): other workers change the lists at any time, and the gate
treats a shared lot's counts as estimates anyway.
"""

from __future__ import annotations

import logging
import struct
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from redis.exceptions import RedisError

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

# KEYS[1] list, KEYS[2] index; ARGV[1] limit, ARGV[2] origin.
_TAKE = (
    _HEAD_SCORE
    + """
local items = redis.call('LPOP', KEYS[1], ARGV[1])
fix_index(KEYS[1], KEYS[2], ARGV[2])
return items or {}
"""
)

# KEYS[1] list, KEYS[2] index; ARGV[1] cutoff, ARGV[2] origin, ARGV[3] max items.
_TAKE_BEFORE = (
    _HEAD_SCORE
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
return out
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


def binary_client(server: Any) -> Any:
    """``server``, or a sibling client on the same server when it decodes replies to str.

    Parked items are bytes; scrapy-redis lets a project set ``REDIS_DECODE_RESPONSES``.
    """
    pool = getattr(server, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None)
    if not isinstance(kwargs, dict) or not kwargs.get("decode_responses"):
        return server
    import redis

    binary_pool = redis.ConnectionPool(
        connection_class=pool.connection_class,  # type: ignore[union-attr]
        **{**kwargs, "decode_responses": False},
    )
    return redis.Redis(connection_pool=binary_pool)


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
    ) -> None:
        self.server = binary_client(server)
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
        self._waiting = self.server.register_script(_WAITING)
        self._unserialisable: MemoryLot[T] = MemoryLot()  # never leaves this process
        self._fallback: MemoryLot[T] = MemoryLot()  # parked while Redis failed: pushed later
        self._mine = 0  # items this process parked in Redis minus those it took (estimate)
        self.unserialisable = 0
        self.errors = 0
        self.outages = 0
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
        now = time.monotonic()
        if not self._down:
            self._down = True
            self._down_since = now
            self._backoff = self.min_backoff
            self.outages += 1
            logger.warning(
                "Redis parking lot %(key)s failed (%(what)s: %(error)s): requests are parked "
                "in this worker's memory until Redis answers again",
                {"key": self.key, "what": what, "error": f"{type(exc).__name__}: {exc}"},
            )
        else:
            self._backoff = min(self._backoff * 2, self.max_backoff)
        self._retry_at = now + self._backoff

    def _answered(self) -> None:
        if self._down:
            self._down = False
            logger.info(
                "Redis parking lot %(key)s answers again after %(seconds).1f s",
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
        keys = [self._list(origin), self.index_key]
        if self._ask(
            "push", lambda: self._push(keys=keys, args=[element, repr(parked_at), origin])
        ):
            self._mine += 1
            return
        self._fallback.push(origin, item, parked_at)

    def take(self, origin: str, limit: int) -> list[T]:
        out: list[T] = []
        if limit > 0:
            keys = [self._list(origin), self.index_key]
            out = self._decode(
                self._ask("take", lambda: self._take(keys=keys, args=[limit, origin]))
            )
        for lot in (self._fallback, self._unserialisable):
            if len(out) < limit:
                out.extend(lot.take(origin, limit - len(out)))
        return out

    def take_parked_before(self, origin: str, cutoff: float) -> list[T]:
        keys = [self._list(origin), self.index_key]
        args = [repr(cutoff), origin, EXPIRE_LIMIT]
        out = self._decode(self._ask("take", lambda: self._take_before(keys=keys, args=args)))
        out.extend(self._fallback.take_parked_before(origin, cutoff))
        out.extend(self._unserialisable.take_parked_before(origin, cutoff))
        return out

    def oldest(self, origin: str) -> float | None:
        times = [
            t
            for t in (self._fallback.oldest(origin), self._unserialisable.oldest(origin))
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
        for lot in (self._fallback, self._unserialisable):
            for origin, n in lot.waiting():
                when = lot.oldest(origin) or 0.0
                old = found.get(origin)
                found[origin] = (min(when, old[0]), old[1] + n) if old else (when, n)
        ordered = sorted(found.items(), key=lambda kv: kv[1][0])[:WAITING_LIMIT]
        return [(origin, n) for origin, (_, n) in ordered]

    def __len__(self) -> int:
        return self._mine + len(self._fallback) + len(self._unserialisable)

    def flush(self) -> None:
        """Move items parked in memory during a Redis failure to Redis, once it answers.

        One transaction per origin, at most ``FLUSH_LIMIT`` items per call (the gate's tick
        calls again), so a long outage's backlog never stalls the reactor in one go.
        """
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

    def counters(self) -> dict[str, int]:
        return {"errors": self.errors, "outages": self.outages}

    def close(self, persist: bool) -> list[tuple[str, T]]:
        """Items in Redis stay for the fleet; return those only this process held.

        One last attempt to hand the memory items to Redis, backoff or not: what stays here
        is lost with the process.
        """
        self._retry_at = 0.0
        self.flush()
        left = self._fallback.close(persist) + self._unserialisable.close(persist)
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
