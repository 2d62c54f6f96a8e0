"""The park clock alone (``crawl/clock.py``): when items age, and from when while closing.

Driven by hand: a real Lifecycle whose engine the test opens and closes, and the lot's
``oldest`` answered by a real ParkedItems over a MemoryLot.
"""

from __future__ import annotations

from scrapy_gbot_robots.crawl.clock import ParkClock
from scrapy_gbot_robots.crawl.effects import Outbox
from scrapy_gbot_robots.crawl.lifecycle import Lifecycle
from scrapy_gbot_robots.crawl.parked import ParkedItems
from scrapy_gbot_robots.parking.memory import MemoryLot


class Engine:
    def __init__(self) -> None:
        self.open = True

    def __call__(self) -> bool:
        return self.open


def parts(timeout: float = 10.0) -> tuple[ParkClock, ParkedItems[str], Lifecycle, Engine]:
    engine = Engine()
    lifecycle = Lifecycle(engine, clock=lambda: 0.0)
    items: ParkedItems[str] = ParkedItems(MemoryLot(), Outbox(), release_batch=100)
    return ParkClock(timeout, lifecycle, items.oldest), items, lifecycle, engine


def test_an_item_parked_before_the_clock_starts_ages_from_the_start() -> None:
    clock, items, _, _ = parts()
    items.push("a", "queued", 0.0, held=False)
    clock.parked("a", 0.0, held=False, runs=False)  # queued behind the budget
    assert not clock.running("a") and clock.due(1000.0) == []  # it does not age
    assert clock.overdue("a", 1000.0, parked=1, held=0) is None
    clock.start("a", 50.0)  # its fetch starts
    clock.deadline("a", parked=1, held=0)
    assert clock.due(59.9) == [] and clock.due(60.0) == ["a"]
    assert clock.overdue("a", 59.9, parked=1, held=0) is None
    assert clock.overdue("a", 60.0, parked=1, held=0) == (50.0, True)


def test_an_item_parked_while_the_clock_runs_gets_its_own_time() -> None:
    clock, items, _, _ = parts()
    clock.start("a", 0.0)
    items.push("a", "late", 7.0, held=False)
    clock.parked("a", 7.0, held=False, runs=True)
    assert clock.due(16.9) == [] and clock.due(17.0) == ["a"]
    clock.deadline("a", parked=1, held=0)  # set again from the lot: the same time
    assert clock.due(16.9) == [] and clock.due(17.0) == ["a"]


def test_stop_means_nothing_ages_and_nothing_is_due() -> None:
    clock, items, _, _ = parts()
    items.push("a", "x", 0.0, held=False)
    clock.start("a", 0.0)
    clock.deadline("a", parked=1, held=0)
    clock.stop("a")
    assert not clock.running("a") and clock.due(100.0) == []
    assert clock.overdue("a", 100.0, parked=1, held=0) is None


def test_while_closing_only_held_items_age_from_the_close_at_the_latest() -> None:
    clock, items, lifecycle, engine = parts()
    items.push("lot", "parked", 0.0, held=False)
    clock.start("lot", 0.0)
    items.push("held", "waiting", 0.0, held=True)
    clock.parked("held", 0.0, held=True, runs=False)  # queued: not ageing yet
    assert clock.close_deadline is None and clock.overdue("held", 99.0, parked=0, held=1) is None
    engine.open = False
    assert not lifecycle.accepting(30.0)  # the close begins at 30 s: the one record of when
    assert clock.close_deadline == 40.0
    assert clock.overdue("lot", 1000.0, parked=1, held=0) is None  # the close keeps the lot's
    clock.deadline("held", parked=0, held=1)
    assert clock.due(39.9) == [] and clock.due(40.0) == ["held"]
    assert clock.overdue("held", 39.9, parked=0, held=1) is None
    assert clock.overdue("held", 40.0, parked=0, held=1) == (30.0, False)


def test_a_clock_that_ran_before_the_close_keeps_its_start() -> None:
    clock, items, lifecycle, engine = parts()
    items.push("a", "held", 5.0, held=True)
    clock.start("a", 5.0)
    engine.open = False
    lifecycle.accepting(30.0)
    assert clock.overdue("a", 15.0, parked=0, held=1) == (5.0, False)


def test_forgotten_origins_leave_no_clock_and_no_appointment() -> None:
    clock, _, _, _ = parts()
    clock.start("a", 0.0)
    clock.wake("a", 5.0)
    clock.forget("a")
    assert not clock.running("a") and clock.due(10.0) == []
    clock.wake("b", 1.0)
    clock.clear()
    assert len(clock) == 0 and clock.due(10.0) == []
