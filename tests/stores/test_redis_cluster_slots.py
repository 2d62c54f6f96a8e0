"""The Redis key layout on a Redis Cluster, checked against a real cluster-mode ``redis-server``.

A Cluster runs a command, a ``MULTI`` or a Lua script only when all its keys hash to one slot
(else ``CROSSSLOT``). One cluster-mode node that owns all 16,384 slots enforces that rule for
the keys a command or script declares, and for ``MULTI``, while a plain client can still talk
to it, so it shows, without a 6-node cluster, which of our operations a Cluster would refuse
(a key a script reaches without declaring it fails only on a cluster where another node owns
it; the lot's ``waiting`` script reaches lists that way, which the hash tag below keeps in the
index's slot):

- the store (``gbot_robots:origin:<origin>``, ``gbot_robots:lock:<origin>``): every command
  and script touches one key, so it already runs on a Cluster as it is (docs/stores.md says
  so; a later script that joined a state and its lock would fail here);
- the fleet's lot (``<spider>:gbot_robots:parked:<origin>`` and ``...:parked_index``): every
  script joins an origin's list and the spider's index, so it does not; with the key hash
  tagged, ``{<spider>:gbot_robots}``, the same lot runs whole, which is the change
  docs/stores.md plans (not made: it needs a migration of the keys 0.2.0 wrote).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import pytest_twisted
from _redisserver import REDIS_SERVER, free_port, missing, wait_until
from _states import rules, same
from twisted.internet.defer import Deferred

pytestmark = [
    pytest.mark.crawl,
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]

T0 = 1_700_000_000.0
A = "http://a.test"
R = TypeVar("R")


def aio(coro: Coroutine[Any, Any, R]) -> Deferred[R]:
    """Run ``coro`` as an asyncio task on the reactor's loop (as Scrapy runs coroutines)."""
    return Deferred.fromFuture(asyncio.ensure_future(coro))


@contextlib.contextmanager
def cluster_node(directory: Path) -> Iterator[Any]:
    """A cluster-mode ``redis-server`` owning every slot; yields a plain client to it."""
    import redis

    directory.mkdir(parents=True, exist_ok=True)
    port, bus = free_port(), free_port()  # the bus port is given: port + 10000 may be taken
    args = [
        REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "no", "--dir", str(directory), "--logfile", "redis.log",
        "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
        "--cluster-port", str(bus),
    ]  # fmt: skip
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        client: Any = redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                assert process.poll() is None, (directory / "redis.log").read_text()
                return False

        wait_until(answers, 10, "the cluster-mode redis-server")
        client.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        wait_until(lambda: client.cluster("info")["cluster_state"] == "ok", 10, "slots")
        client.url = f"redis://127.0.0.1:{port}/0"
        yield client
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait(timeout=5)


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Any]:
    with cluster_node(tmp_path / "cluster") as client:
        yield client


def slot(client: Any, key: str) -> int:
    return int(client.cluster("keyslot", key))


@pytest_twisted.ensureDeferred
async def test_the_store_runs_on_a_cluster_as_it_is(node: Any) -> None:
    from redis.exceptions import ResponseError

    from scrapy_gbot_robots.stores.redis import RedisStore

    async def body() -> None:
        holder = RedisStore(node.url, lock_wait=0.0)
        other = RedisStore(node.url, lock_wait=0.0)
        state = rules(T0)
        assert await holder.acquire(A, 30)
        assert not await other.acquire(A, 30)  # the lock works on the cluster node
        holder.put_soon(A, state)
        await holder.release(A)  # the write, then the compare-and-delete
        assert same(await other.load(A), state)
        for n in range(20):  # the pipelined writes of many origins (one slot each)
            holder.put_soon(f"http://o{n}.test", rules(T0 + n))
        await holder.release("http://o19.test")
        assert same(await other.load("http://o19.test"), rules(T0 + 19))
        assert holder.errors == other.errors == 0, (holder.last_error, other.last_error)
        holder.close()
        other.close()

    await aio(body())
    # The node refuses what a Cluster refuses: a state and its lock are in different slots,
    # so a script joining them (which the store never runs) fails.
    state_key, lock_key = f"gbot_robots:origin:{A}", f"gbot_robots:lock:{A}"
    assert slot(node, state_key) != slot(node, lock_key)
    with pytest.raises(ResponseError, match="same slot"):
        node.eval("return redis.call('EXISTS', KEYS[1], KEYS[2])", 2, state_key, lock_key)


def _lot(client: Any, key: str) -> Any:
    from scrapy_gbot_robots.parking.redis import RedisLot

    return RedisLot(client, key, str.encode, bytes.decode, min_backoff=60.0)


def test_the_fleet_lot_needs_its_key_hash_tagged_on_a_cluster(
    node: Any, caplog: pytest.LogCaptureFixture
) -> None:
    b = "http://b.test"
    today = _lot(node, "pages:gbot_robots")  # the layout 0.2.0 and this release write
    today.push(A, "a0", 1.0)
    assert today.errors == 1  # CROSSSLOT: the list and the index are in different slots
    assert "same slot" in caplog.text
    assert node.keys("*") == []  # nothing reached Redis; the item stays in memory
    assert today.take(A, 5) == ["a0"]
    assert slot(node, f"pages:gbot_robots:parked:{A}") != slot(
        node, "pages:gbot_robots:parked_index"
    )

    tagged = _lot(node, "{pages:gbot_robots}")  # the layout docs/stores.md plans
    other = _lot(node, "{pages:gbot_robots}")  # another worker
    for i in range(3):
        tagged.push(A, f"a{i}", 1.0 + i)
    tagged.push(b, "b0", 0.5)
    assert sorted(k.decode() for k in node.keys("*")) == [
        "{pages:gbot_robots}:parked:" + A,
        "{pages:gbot_robots}:parked:" + b,
        "{pages:gbot_robots}:parked_index",
    ]
    assert other.waiting() == [(b, 1), (A, 3)]  # the index script reads the lists it names
    assert other.take_parked_before(A, 1.5) == ["a0"]
    assert other.oldest(A) == 2.0 and other.peek(A) == "a1"
    assert other.take(A, 10) == ["a1", "a2"]
    assert other.take(b, 10) == ["b0"]
    assert tagged.errors == other.errors == 0
    assert node.keys("*") == []  # emptied lists and their index entries are gone
