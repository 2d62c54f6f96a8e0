"""``CrawlDelay.fleet_turn``, fast, with a scripted fleet (no Redis, no crawl): the bounds of
the fleet's ``Crawl-delay`` on the crawl side. Zero calls for an origin without a delay or
without a fleet; one call per slot: while one is under way, or the slot is known to be taken,
the origin's other requests go back to be parked without a call; a refused call parks the
request for the time Redis named; a failed one lets it go (the slot's own delay paces it).
The reservation itself is tested against Redis in ``tests/stores/test_redis_pace.py``, the
fleet whole in ``tests/crawl/test_fleet_crawl_delay.py``."""

from __future__ import annotations

import time
from collections.abc import Coroutine
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from _states import rules
from scrapy import Request
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots._compat import slot_wait
from scrapy_gbot_robots._meta import BOUNCED
from scrapy_gbot_robots.crawl.crawl_delay import CrawlDelay
from scrapy_gbot_robots.crawl.shared_parts import shared
from scrapy_gbot_robots.policy.states import OriginState

A, B = "http://a.test", "http://b.test"
DELAYED = b"User-agent: *\nCrawl-delay: 2\nAllow: /\n"


class Fleet:
    """Answers ``reserve`` from a script; counts as ``FleetPace`` does."""

    def __init__(self, *answers: float | None) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, float]] = []
        self.reserved = self.refused = self.errors = 0
        self.closed = False

    async def reserve(self, origin: str, delay: float) -> float | None:
        self.calls.append((origin, delay))
        return self.answers.pop(0)

    async def close(self) -> None:
        self.closed = True


class Store:
    def __init__(self, states: dict[str, OriginState]) -> None:
        self.states = states

    def get(self, origin: str) -> OriginState | None:
        return self.states.get(origin)


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Drive a coroutine that never suspends (the scripted fleet answers at once)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    raise AssertionError("it suspended")


def build(fleet: Fleet | None, now: list[float]) -> tuple[CrawlDelay, list[tuple[str, float]]]:
    crawler = get_crawler(settings_dict={"ROBOTSTXT_OBEY": True, "GBOT_ROBOTS_CRAWL_DELAY": True})
    engine: Any = SimpleNamespace()  # no downloader slot: sent at once (no lag)
    crawler.engine = engine
    parts = shared(crawler)
    config = replace(parts.config, clock=lambda: now[0])
    store: Any = Store({A: rules(now[0], DELAYED), B: rules(now[0])})
    fleet_pace: Any = fleet
    delay = CrawlDelay(
        crawler, config, parts.keys, store, parts.telemetry.fetches, fleet_pace, parts.telemetry.run
    )
    return delay, []


def test_no_fleet_or_no_crawl_delay_costs_no_call() -> None:
    now = [1000.0]
    alone, held = build(None, now)
    assert alone.fleet_turn(Request(A + "/1"), A, lambda o, s: held.append((o, s))) is None
    fleet = Fleet()
    paced, held = build(fleet, now)
    assert paced.fleet_turn(Request(B + "/1"), B, lambda o, s: held.append((o, s))) is None
    assert fleet.calls == [] and held == []


def test_one_call_per_slot_the_others_parked_without_one() -> None:
    now = [1000.0]
    fleet = Fleet(0.0, 0.5)
    delay, held = build(fleet, now)

    def hold(origin: str, seconds: float) -> None:
        held.append((origin, seconds))

    first = delay.fleet_turn(Request(A + "/1"), A, hold)
    assert isinstance(first, Coroutine)
    # While the call is under way, a second request of the origin waits without a call.
    second = Request(A + "/2")
    assert delay.fleet_turn(second, A, hold) is second and second.meta[BOUNCED] is True
    assert held == [(A, 2.0)]
    assert run(first) is None  # reserved: it goes
    assert fleet.calls == [(A, 2.0)]
    now[0] += 1.5  # the slot this worker took is still running: parked, no call
    third = Request(A + "/3")
    assert delay.fleet_turn(third, A, hold) is third
    assert held[-1][0] == A and abs(held[-1][1] - 0.5) < 1e-9 and len(fleet.calls) == 1
    now[0] += 0.5  # free as far as this worker knows: Redis says another send holds it
    fourth = Request(A + "/4")
    assert run(delay.fleet_turn(fourth, A, hold)) is fourth
    assert held[-1] == (A, 0.5) and fourth.meta[BOUNCED] is True and len(fleet.calls) == 2
    now[0] += 0.2  # what Redis named is remembered: no call before it is over
    fifth = Request(A + "/5")
    assert delay.fleet_turn(fifth, A, hold) is fifth and len(fleet.calls) == 2


def test_a_failed_call_lets_the_request_go_and_the_next_one_asks_again() -> None:
    now = [1000.0]
    fleet = Fleet(None, 0.0)
    delay, held = build(fleet, now)

    def hold(origin: str, seconds: float) -> None:
        held.append((origin, seconds))

    assert run(delay.fleet_turn(Request(A + "/1"), A, hold)) is None  # Redis away: it goes
    assert run(delay.fleet_turn(Request(A + "/2"), A, hold)) is None  # asked again, reserved
    assert len(fleet.calls) == 2 and held == []


def test_the_close_tells_the_counts_and_closes_the_fleet() -> None:
    now = [1000.0]
    fleet = Fleet()
    fleet.reserved, fleet.refused, fleet.errors = 3, 2, 1
    delay, _ = build(fleet, now)
    closing = delay.close()
    assert closing is not None
    run(closing)
    assert fleet.closed
    stats = delay.crawler.stats
    assert stats is not None
    assert stats.get_value("robotstxt/crawl_delay/reserved") == 3
    assert stats.get_value("robotstxt/crawl_delay/refused") == 2
    assert stats.get_value("robotstxt/crawl_delay/fleet_errors") == 1
    alone, _ = build(None, now)
    assert alone.close() is None


def test_a_slots_wait_reads_its_last_send_on_either_clock() -> None:
    """The reservation covers the slot's own wait: Scrapy keeps a slot's last send on the
    monotonic clock in recent releases, on the wall clock in older ones."""
    for clock in (time.monotonic, time.time):
        slot = SimpleNamespace(lastseen=clock() - 0.3, delay=0.0)
        assert 0.6 < slot_wait(slot, 1.0) <= 0.7  # the floor it will get applies
        slot.delay = 2.0
        assert 1.6 < slot_wait(slot, 1.0) <= 1.7  # a larger delay of its own too
    assert slot_wait(SimpleNamespace(lastseen=0.0, delay=1.0), 1.0) == 0.0  # never sent
