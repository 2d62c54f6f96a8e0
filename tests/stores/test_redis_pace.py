"""``FleetPace`` alone, against a real ``redis-server`` (no Scrapy crawl).

What the fleet's ``Crawl-delay`` relies on: one reservation per origin per delay, whoever
asks and however many ask at once; a refused call reserves nothing (never a slot ahead); the
key expires by itself; an unreachable Redis answers None, is counted and logged once, and is
not asked again during the pause. The fleet crawl is in ``tests/crawl/test_fleet_crawl_delay.py``.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
import pytest_twisted
from _redisserver import RedisServer, free_port, missing
from test_redis_store import aio, rs  # shared helpers; rs: the fixture

__all__ = ["rs"]  # the fixture, used by name

pytestmark = [
    pytest.mark.crawl,
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]

if missing() is None:
    from scrapy_gbot_robots.stores.redis_pace import FleetPace

A = "http://a.test"


@pytest_twisted.ensureDeferred
async def test_one_reservation_per_delay_across_workers(rs: RedisServer) -> None:
    async def body() -> None:
        one, two = FleetPace(rs.url), FleetPace(rs.url)
        assert await one.reserve(A, 1.0) == 0.0  # free: taken
        client = rs.client()
        assert 0 < client.pttl(one.key(A)) <= 1000  # expires with the delay
        left = await two.reserve(A, 1.0)  # another worker: refused, told how long
        assert left is not None and 0.5 < left <= 1.0
        again = await two.reserve(A, 1.0)
        assert again is not None and 0 < again <= left  # refused: nothing reserved ahead
        assert 0 < client.pttl(one.key(A)) <= 1000
        assert await one.reserve("http://b.test", 1.0) == 0.0  # each origin its own slot
        await asyncio.sleep(left + 0.05)
        assert not client.exists(one.key(A))  # gone by itself
        assert await two.reserve(A, 1.0) == 0.0
        assert (one.reserved, one.refused, two.reserved, two.refused) == (2, 0, 1, 2)
        assert one.errors == two.errors == 0
        await one.close()
        await two.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_many_asking_at_once_get_one_slot(rs: RedisServer) -> None:
    async def body() -> None:
        workers = [FleetPace(rs.url) for _ in range(4)]
        answers = await asyncio.gather(*(w.reserve(A, 5.0) for w in workers for _ in range(10)))
        assert answers.count(0.0) == 1
        assert all(a is not None and 0 < a <= 5.0 for a in answers if a != 0.0)
        assert sum(w.reserved for w in workers) == 1
        assert sum(w.refused for w in workers) == 39
        for w in workers:
            await w.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_an_unreachable_redis_answers_none_counted_logged_once_then_paused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def body() -> None:
        caplog.set_level(logging.WARNING, logger="scrapy_gbot_robots.stores.redis_pace")
        pace = FleetPace(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.5)
        assert await pace.reserve(A, 1.0) is None  # nobody listens on that port
        assert pace.errors == 1
        for _ in range(5):  # the pause: no call, no new error, no wait
            assert await pace.reserve(A, 1.0) is None
        assert (pace.errors, pace.reserved, pace.refused) == (1, 0, 0)
        lines = [
            r.getMessage()
            for r in caplog.records
            if r.name == "scrapy_gbot_robots.stores.redis_pace"
        ]
        assert len(lines) == 1 and "own download slot's delay" in lines[0], lines
        await pace.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_a_hung_redis_costs_one_bounded_call_and_a_bounded_close(rs: RedisServer) -> None:
    async def body() -> None:
        pace = FleetPace(rs.url, socket_timeout=0.3)
        assert await pace.reserve(A, 1.0) == 0.0  # connected
        loop = asyncio.get_running_loop()
        rs.pause()  # keeps its socket, answers nothing
        try:
            began = loop.time()
            assert await pace.reserve("http://b.test", 1.0) is None
            assert pace.errors == 1 and loop.time() - began < 2.0
            assert await pace.reserve("http://b.test", 1.0) is None  # the pause: no call
            began = loop.time()
            await pace.close()
            assert loop.time() - began < 2.0
        finally:
            rs.resume()

    await aio(body())
