"""``FleetBackoffs`` alone, against a real ``redis-server`` (no Scrapy crawl).

What a fleet relies on: a back-off shared by one worker is heard by another on the same
prefix (seconds travel, not times), never by the sharer itself nor by another prefix; a worker
that starts later reads the keys still alive (one ``SCAN`` pass, bounded by ``max_entries``),
never an expired one; a Redis it cannot reach is counted and logged once, never raised; and
``close()`` stops the listening. The whole fleet is tested in ``tests/crawl/test_fleet_backoff.py``.

The coroutines run as asyncio tasks on the reactor's loop (the asyncio reactor), as the
crawl runs them.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
import pytest_twisted
from _redisserver import RedisServer, free_port, missing
from test_redis_store import aio, rs, until  # shared helpers; rs: the fixture

__all__ = ["rs"]  # the fixture, used by name

pytestmark = [
    pytest.mark.crawl,
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]

if missing() is None:
    from scrapy_gbot_robots.stores.redis_backoff import FleetBackoffs

A = "http://a.test"


class Ears:
    """What a worker's gate would be told: ``(origin, seconds)`` per back-off heard."""

    def __init__(self) -> None:
        self.told: list[tuple[str, float]] = []

    def __call__(self, *, origin: str, seconds: float) -> None:
        self.told.append((origin, seconds))


async def listening(fleet: FleetBackoffs, rs: RedisServer, count: int = 1) -> None:
    """Wait (bounded) until ``count`` workers listen on ``fleet``'s channel (its own included:
    one that is not listening yet would hear a share from its SCAN pass, not the channel)."""
    client = rs.client()
    await until(
        lambda: client.pubsub_numsub(fleet.channel)[0][1] >= count, 5, "the workers to listen"
    )


@pytest_twisted.ensureDeferred
async def test_a_share_is_heard_by_another_worker_on_the_same_prefix(rs: RedisServer) -> None:
    async def body() -> None:
        ears_a, ears_b, ears_other = Ears(), Ears(), Ears()
        a, b = FleetBackoffs(rs.url, ears_a), FleetBackoffs(rs.url, ears_b)
        other = FleetBackoffs(rs.url, ears_other, prefix="another_fleet")
        for fleet in (a, b, other):
            fleet.start()
        await listening(a, rs, 2)
        await listening(other, rs)
        await asyncio.sleep(0.2)  # their SCAN passes over: a share is heard once, on the channel
        a.share(A, 12.5)
        a.share("http://nothing.test", 0)  # no wait: nothing shared
        await until(lambda: ears_b.told, 5, "the share to be heard")
        assert ears_b.told == [(A, 12.5)]  # seconds travel, not a time
        assert b.heard == 1 and a.shared == 1
        # The key expires with the back-off, its value the seconds.
        client = rs.client()
        assert client.get(a.key(A)) == b"12.500"
        assert 11_000 < client.pttl(a.key(A)) <= 12_500
        assert not client.exists(a.key("http://nothing.test"))
        await asyncio.sleep(0.2)  # time for any wrong delivery to arrive
        assert ears_a.told == [] and a.heard == 0  # the sharer does not hear itself
        assert ears_other.told == []  # another prefix is another fleet
        assert a.errors == b.errors == other.errors == 0
        for fleet in (a, b, other):
            fleet.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_a_later_worker_reads_the_live_keys_bounded_by_max_entries(
    rs: RedisServer,
) -> None:
    async def body() -> None:
        ears = Ears()
        probe = FleetBackoffs(rs.url, ears)  # for its key names only
        client = rs.client()
        for i in range(5):
            client.set(probe.key(f"http://live{i}.test"), "30.000", px=30_000)
        late = FleetBackoffs(rs.url, ears, max_entries=3)
        late.start()
        await until(lambda: len(ears.told) >= 3, 5, "the SCAN pass")
        await asyncio.sleep(0.2)  # time for a fourth, were the bound not kept
        assert len(ears.told) == 3
        for origin, seconds in ears.told:
            assert origin.startswith("http://live") and 29.0 < seconds <= 30.0
        unbounded_ears = Ears()
        unbounded = FleetBackoffs(rs.url, unbounded_ears)
        unbounded.start()
        await until(lambda: len(unbounded_ears.told) >= 5, 5, "the whole SCAN pass")
        assert sorted(o for o, _ in unbounded_ears.told) == [
            f"http://live{i}.test" for i in range(5)
        ]
        late.close()
        unbounded.close()
        probe.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_expired_keys_and_keys_without_expiry_are_not_read(rs: RedisServer) -> None:
    async def body() -> None:
        ears = Ears()
        probe = FleetBackoffs(rs.url, ears)
        client = rs.client()
        client.set(probe.key("http://over.test"), "0.050", px=50)
        client.set(probe.key("http://forever.test"), "9.000")  # no expiry: not a back-off
        client.set(probe.key(A), "30.000", px=30_000)
        await asyncio.sleep(0.15)  # the first key expires
        late = FleetBackoffs(rs.url, ears)
        late.start()
        await listening(late, rs)
        await until(lambda: ears.told, 5, "the live key")
        await asyncio.sleep(0.1)
        assert [origin for origin, _ in ears.told] == [A]
        late.close()
        probe.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_an_unreachable_redis_is_counted_and_logged_once_never_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def body() -> None:
        caplog.set_level(logging.INFO, logger="scrapy_gbot_robots.stores.redis_backoff")
        ears = Ears()
        fleet = FleetBackoffs(f"redis://127.0.0.1:{free_port()}/0", ears, socket_timeout=0.5)
        fleet.share(A, 5.0)  # nobody listens on that port
        fleet.share(A, 6.0)
        fleet.start()
        await until(lambda: fleet.errors >= 3, 5, "the failed calls to be counted")
        assert fleet.shared == 0 and ears.told == []
        lines = [
            r.getMessage()
            for r in caplog.records
            if r.name == "scrapy_gbot_robots.stores.redis_backoff"
        ]
        assert len(lines) == 1, lines  # once, however many faults
        assert "each worker backs off on its own" in lines[0]
        fleet.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_close_stops_the_listening(rs: RedisServer) -> None:
    async def body() -> None:
        ears = Ears()
        sharer, listener = FleetBackoffs(rs.url, Ears()), FleetBackoffs(rs.url, ears)
        listener.start()
        await listening(listener, rs)
        listener.close()
        client = rs.client()
        await until(lambda: client.pubsub_numsub(listener.channel)[0][1] == 0, 5, "the unsubscribe")
        sharer.share(A, 3.0)
        await until(lambda: sharer.shared == 1, 5, "the share")
        await asyncio.sleep(0.2)
        assert ears.told == [] and listener.heard == 0
        listener.start()  # closed: starts nothing
        listener.share(A, 3.0)
        await asyncio.sleep(0.1)
        assert client.pubsub_numsub(listener.channel)[0][1] == 0
        assert listener.shared == 0
        sharer.close()

    await aio(body())
