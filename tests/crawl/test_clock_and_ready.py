"""The gate's park clock (``crawl/clock.py``) and ready origins (``crawl/ready.py``) alone.

Driven by hand over real ParkedItems and a real MemoryLot; an Outbox records the effects.
The gate's own tests (``test_gate.py``) cover how the gate uses them.
"""

from __future__ import annotations

from scrapy_gbot_robots.crawl.clock import ParkClock
from scrapy_gbot_robots.crawl.effects import Drop, Outbox, Release
from scrapy_gbot_robots.crawl.parked import ParkedItems
from scrapy_gbot_robots.crawl.ready import ReadyOrigins
from scrapy_gbot_robots.parking.memory import MemoryLot


class Rec:
    """One origin's counts, as the gate keeps them."""

    def __init__(self) -> None:
        self.parked = 0
        self.held = 0
        self.active_since: float | None = None


def parts(timeout: float = 10.0) -> tuple[ParkClock[str], ParkedItems[str], Outbox[str]]:
    out: Outbox[str] = Outbox()
    items: ParkedItems[str] = ParkedItems(MemoryLot(), out, release_batch=100)
    return ParkClock(items, timeout), items, out


def dropped(out: Outbox[str]) -> list[str]:
    return [i for e in out.take() if isinstance(e, Drop) for i in e.items]


def test_an_item_parked_before_the_clock_starts_ages_from_the_start() -> None:
    clock, items, out = parts()
    rec = Rec()
    items.push("a", rec, "queued", 0.0, held=False)
    clock.parked("a", rec, 0.0, held=False, runs=False)  # queued behind the budget
    assert rec.active_since is None and clock.due(1000.0) == []  # it does not age
    clock.start("a", rec, 50.0)  # its fetch starts
    assert clock.due(59.9) == [] and clock.due(60.0) == ["a"]
    clock.expire("a", rec, 59.9)
    assert rec.parked == 1
    clock.expire("a", rec, 60.0)
    assert rec.parked == 0 and dropped(out) == ["queued"]


def test_an_item_parked_while_the_clock_runs_gets_its_own_time() -> None:
    clock, items, _out = parts()
    rec = Rec()
    clock.start("a", rec, 0.0)
    items.push("a", rec, "late", 7.0, held=False)
    clock.parked("a", rec, 7.0, held=False, runs=True)
    clock.expire("a", rec, 16.9)
    assert rec.parked == 1
    clock.deadline("a", rec)
    assert clock.due(16.9) == [] and clock.due(17.0) == ["a"]


def test_stop_means_nothing_ages_and_nothing_is_due() -> None:
    clock, items, out = parts()
    rec = Rec()
    items.push("a", rec, "x", 0.0, held=False)
    clock.start("a", rec, 0.0)
    clock.stop("a", rec)
    assert rec.active_since is None and clock.due(100.0) == []
    clock.expire("a", rec, 100.0)
    assert rec.parked == 1 and dropped(out) == []


def test_while_closing_only_held_items_age_from_the_close_at_the_latest() -> None:
    clock, items, out = parts()
    lot_rec, held_rec = Rec(), Rec()
    items.push("lot", lot_rec, "parked", 0.0, held=False)
    clock.start("lot", lot_rec, 0.0)
    items.push("held", held_rec, "waiting", 0.0, held=True)
    clock.parked("held", held_rec, 0.0, held=True, runs=False)  # queued: not ageing yet
    assert clock.close_deadline is None
    clock.close_began(30.0, [("lot", lot_rec), ("held", held_rec)])
    assert clock.close_deadline == 40.0 and held_rec.active_since == 30.0
    clock.expire("lot", lot_rec, 1000.0)  # the close keeps or drops the lot's, not the clock
    assert lot_rec.parked == 1
    clock.expire("held", held_rec, 39.9)
    assert held_rec.held == 1
    clock.expire("held", held_rec, 40.0)
    assert held_rec.held == 0 and dropped(out) == ["waiting"]


def test_ready_origins_send_one_per_origin_in_turn_and_say_when_done() -> None:
    out: Outbox[str] = Outbox()
    items: ParkedItems[str] = ParkedItems(MemoryLot(), out, release_batch=100)
    pinned: list[str] = []
    unpinned: list[str] = []

    def unpin(origin: str) -> bool:
        unpinned.append(origin)
        return origin == "b"  # only b's pin was its last one

    ready: ReadyOrigins[str] = ReadyOrigins(items, pinned.append, unpin)
    a, b = Rec(), Rec()
    for n in range(3):
        items.push("a", a, f"a{n}", 0.0, held=False)
    items.push("b", b, "b0", 0.0, held=False)
    assert ready.add("a", a) is True and ready.add("b", b) is False  # only the first starts it
    assert ready.add("a", a) is False and pinned == ["a", "b"]  # pinned once each
    assert ready.items() == 4 and ready.peak == 2
    assert ready.send(3) == (3, ["b"], True)  # a, b, a: b is done and made room
    sent = [i for e in out.take() if isinstance(e, Release) for i in e.items]
    assert sent == ["a0", "b0", "a1"] and list(ready) == ["a"]
    assert ready.send(10) == (1, ["a"], False)
    assert len(ready) == 0 and unpinned == ["b", "a"] and ready.items() == 0
