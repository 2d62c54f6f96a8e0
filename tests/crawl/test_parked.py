"""Where the gate's items wait and how they leave (``crawl/parked.py``), counted: each method
answers how many of the counted items left, and the tally keeps the accounting rule."""

from __future__ import annotations

from collections.abc import Sequence

from scrapy_gbot_robots.crawl.effects import Drop, Outbox, Release
from scrapy_gbot_robots.crawl.parked import ParkedItems
from scrapy_gbot_robots.parking.memory import MemoryLot


class SharedLot(MemoryLot[str]):
    shared = True


def items(lot: MemoryLot[str] | None = None) -> tuple[ParkedItems[str], Outbox[str]]:
    out: Outbox[str] = Outbox()
    return ParkedItems(lot if lot is not None else MemoryLot(), out, release_batch=2), out


def moved(out: Outbox[str]) -> list[tuple[str, Sequence[str]]]:
    return [
        (type(e).__name__, e.items) for e in out.take() if isinstance(e, (Release, Drop))
    ]


def test_held_items_go_first_and_the_lots_in_batches() -> None:
    parked, out = items()
    for n in range(3):
        parked.push("a", f"a{n}", 0.0, held=False)
    parked.push("a", "held", 0.0, held=True)
    assert parked.peek("a") == "a0" and list(parked.held_origins()) == ["a"]
    assert parked.release("a", held=1, parked=3, accepting=True) == (1, 3)
    assert moved(out) == [("Release", ["held"]), ("Release", ["a0", "a1"]), ("Release", ["a2"])]
    tally = parked.tally
    assert (tally.parked, tally.released, tally.now) == (4, 4, 0)


def test_while_closing_only_held_items_are_released() -> None:
    parked, out = items()
    parked.push("a", "lot", 0.0, held=False)
    parked.push("a", "held", 0.0, held=True)
    assert parked.release("a", held=1, parked=1, accepting=False) == (1, 0)
    assert moved(out) == [("Release", ["held"])]
    assert parked.close(persist=False, reason="spider closed (shutdown)") == 0
    assert moved(out) == [("Drop", ["lot"])] and parked.tally.dropped == 1


def test_expire_drops_what_is_overdue_and_what_a_shared_lot_no_longer_holds() -> None:
    parked, out = items()
    parked.push("a", "old", 0.0, held=False)
    parked.push("a", "new", 50.0, held=False)
    parked.push("a", "held-old", 0.0, held=True)
    assert parked.oldest("a", held=True, aging=False) == 0.0
    assert parked.expire("a", 10.0, held=1, parked=2, aging=True) == (1, 1)
    assert moved(out) == [("Drop", ["held-old"]), ("Drop", ["old"])]
    shared, _ = items(SharedLot())
    shared.push("b", "b0", 0.0, held=False)
    assert shared.lot.take("b", 1) == ["b0"]  # another worker released it
    assert shared.expire("b", 10.0, held=0, parked=1, aging=True) == (0, 1)
    assert shared.tally.taken_elsewhere == 1 and shared.tally.now == 0


def test_a_turn_releases_one_and_gives_up_what_is_gone() -> None:
    parked, out = items()
    parked.push("a", "a0", 0.0, held=False)
    assert parked.release_one("a", 1) == (1, 1)
    assert parked.release_one("a", 1) == (0, 1)  # counted, but the lot holds none: gone
    assert moved(out) == [("Release", ["a0"])] and parked.tally.taken_elsewhere == 1


def test_held_items_are_dropped_at_once_when_their_origin_is_stopped() -> None:
    parked, out = items()
    parked.push("a", "h0", 0.0, held=True)
    parked.push("a", "h1", 0.0, held=True)
    assert parked.drop_held("a", 2, "stopped") == 2
    assert next(e for e in out.take() if isinstance(e, Drop)).reason == "stopped"
    parked.resumed(3)
    assert parked.tally.resumed == 3 and parked.tally.now == 3
