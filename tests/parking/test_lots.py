"""What the gate relies on from every lot (``parking/base.py``), asked of all three.

One FIFO per origin; ``peek`` and ``oldest`` look without taking; ``take`` and
``take_parked_before`` take from the front; ``waiting`` lists origins oldest first; counts
follow; nothing is lost or reordered. The memory lot, the SQLite lot (a real file) and the
Redis lot (a real ``redis-server``, skipped with the reason when it cannot run here) answer
the same questions the same way. What only one lot does is in its own module.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _lots import A, B, C, redis_lot, sqlite_lot
from _redisserver import missing, running_redis

from scrapy_gbot_robots.parking.base import Lot
from scrapy_gbot_robots.parking.memory import MemoryLot

REDIS = missing()
KINDS = [
    "memory",
    "sqlite",
    pytest.param(
        "redis",
        marks=[pytest.mark.crawl, pytest.mark.skipif(REDIS is not None, reason=str(REDIS))],
    ),
]


@pytest.fixture(params=KINDS)
def lot(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Lot[str]]:
    if request.param == "memory":
        yield MemoryLot()
    elif request.param == "sqlite":
        built = sqlite_lot(tmp_path / "jobdir" / "gbot_robots" / "parked.sqlite3")
        yield built
        built.close(persist=False)
    else:
        with running_redis(tmp_path / "redis") as server:
            yield redis_lot(server.port)


def _fill(lot: Lot[Any]) -> None:
    """a0..a3 and b0..b1 interleaved, each parked one second after the last."""
    for i, (origin, item) in enumerate(
        [(A, "a0"), (B, "b0"), (A, "a1"), (A, "a2"), (B, "b1"), (A, "a3")]
    ):
        lot.push(origin, item, 100.0 + i)


def test_an_empty_lot_has_nothing_anywhere(lot: Lot[str]) -> None:
    assert len(lot) == 0
    assert lot.waiting() == []
    assert lot.take(A, 10) == [] and lot.take_parked_before(A, 1e12) == []
    assert lot.peek(A) is None and lot.oldest(A) is None
    lot.flush()
    assert len(lot) == 0


def test_one_fifo_per_origin(lot: Lot[str]) -> None:
    _fill(lot)
    assert len(lot) == 6
    assert lot.take(A, 2) == ["a0", "a1"]
    assert lot.take(B, 10) == ["b0", "b1"]  # up to the limit: all there is
    assert lot.take(A, 10) == ["a2", "a3"]
    assert len(lot) == 0


def test_take_of_nothing_takes_nothing(lot: Lot[str]) -> None:
    _fill(lot)
    assert lot.take(A, 0) == []
    assert lot.take(C, 5) == []
    assert len(lot) == 6


def test_peek_and_oldest_look_at_the_front_without_taking(lot: Lot[str]) -> None:
    _fill(lot)
    assert (lot.peek(A), lot.oldest(A)) == ("a0", 100.0)
    assert (lot.peek(B), lot.oldest(B)) == ("b0", 101.0)
    assert len(lot) == 6
    lot.take(A, 1)
    assert (lot.peek(A), lot.oldest(A)) == ("a1", 102.0)  # the new front
    lot.take(A, 3)
    assert (lot.peek(A), lot.oldest(A)) == (None, None)


def test_take_parked_before_takes_the_front_up_to_the_cutoff_inclusive(lot: Lot[str]) -> None:
    _fill(lot)
    assert lot.take_parked_before(A, 99.0) == []  # nothing that old
    assert lot.take_parked_before(A, 103.0) == ["a0", "a1", "a2"]  # 100, 102, 103 (inclusive)
    assert lot.oldest(A) == 105.0
    assert lot.take_parked_before(B, 1e12) == ["b0", "b1"]
    assert len(lot) == 1 and lot.take(A, 5) == ["a3"]


def test_waiting_lists_origins_with_items_oldest_first(lot: Lot[str]) -> None:
    lot.push(B, "b0", 50.0)
    _fill(lot)
    lot.push(C, "c0", 200.0)
    assert lot.waiting() == [(B, 3), (A, 4), (C, 1)]
    lot.take(B, 3)  # an emptied origin leaves the list
    assert lot.waiting() == [(A, 4), (C, 1)]
    lot.take(A, 1)
    assert lot.waiting() == [(A, 3), (C, 1)]


def test_an_emptied_origin_comes_back_at_its_new_age(lot: Lot[str]) -> None:
    lot.push(A, "a0", 1.0)
    lot.push(B, "b0", 2.0)
    lot.take(A, 1)
    lot.push(A, "a1", 3.0)
    assert lot.waiting() == [(B, 1), (A, 1)]
    assert lot.oldest(A) == 3.0


def test_an_item_that_cannot_be_serialised_is_kept_in_its_place(lot: Lot[str]) -> None:
    lot.push(A, "a0", 1.0)
    lot.push(A, "x-lambda-callback", 2.0)
    lot.push(A, "a2", 3.0)
    assert len(lot) == 3
    assert lot.waiting() == [(A, 3)]
    assert lot.oldest(A) == 1.0
    taken = lot.take(A, 3)
    assert sorted(taken) == ["a0", "a2", "x-lambda-callback"]  # none lost
    if not lot.shared:  # a shared lot hands over the fleet's items first, then its own
        assert taken == ["a0", "x-lambda-callback", "a2"]


def test_counters_are_a_dict_of_ints(lot: Lot[str]) -> None:
    _fill(lot)
    counters = lot.counters()
    assert all(isinstance(k, str) and isinstance(v, int) for k, v in counters.items())
    assert all(v == 0 for v in counters.values())  # nothing went wrong
