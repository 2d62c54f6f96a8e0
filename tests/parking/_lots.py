"""The lots under test, built the way the crawl builds them, over a codec of strings.

Items are strings; one that starts with ``x`` cannot be serialised (``dumps`` raises
``ValueError``, as ``RequestCodec`` does for a request with a lambda callback), and bytes
that are not ASCII read back as ``"?"`` + their hex (a placeholder, as ``Unreadable`` is for
a request): never an exception, so counts always match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scrapy_gbot_robots.parking.sqlite import SqliteLot

A = "http://a.test"
B = "http://b.test"
C = "https://c.test:8443"


def dumps(item: str) -> bytes:
    if item.startswith("x"):
        raise ValueError("kept in memory")
    return item.encode()


def loads(data: bytes) -> str:
    return data.decode() if data.isascii() else "?" + data.hex()


def sqlite_lot(path: Path) -> SqliteLot[str]:
    return SqliteLot(str(path), dumps, loads)


def redis_lot(port: int, backoff: float = 0.05, **kwargs: Any) -> Any:
    """A RedisLot on a fresh client whose calls fail fast (no retry) when Redis is away."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    from scrapy_gbot_robots.parking.redis import RedisLot

    server = redis.Redis(
        port=port, socket_timeout=1, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0),
        **kwargs,
    )  # fmt: skip
    return RedisLot(
        server, "spider:gbot_robots", dumps, loads, min_backoff=backoff, max_backoff=backoff * 4
    )
