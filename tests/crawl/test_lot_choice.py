"""The lot choice: the gate parks in one object, whose lot is chosen once at the open."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_gbot_robots.crawl.lots import LotChoice
from scrapy_gbot_robots.parking.memory import MemoryLot
from scrapy_gbot_robots.parking.sqlite import SqliteLot


def _sqlite(path: Path) -> SqliteLot[bytes]:
    return SqliteLot(str(path), lambda item: item, lambda data: data)


def test_the_chosen_lot_takes_over_and_the_first_keeps_what_it_held(tmp_path: Path) -> None:
    first = _sqlite(tmp_path / "parked.sqlite3")
    first.push("http://a.test", b"left by a previous run", 1.0)
    choice: LotChoice[bytes] = LotChoice(first)
    assert (choice.where, len(choice)) == (first.where, 1)
    chosen: MemoryLot[bytes] = MemoryLot()
    choice.choose(chosen)
    assert (choice.where, choice.shared, len(choice)) == ("memory", False, 0)
    choice.push("http://b.test", b"new", 2.0)
    assert len(chosen) == 1 and choice.take("http://b.test", 10) == [b"new"]
    again = _sqlite(tmp_path / "parked.sqlite3")  # closed with persist=True: kept for later
    assert again.take("http://a.test", 10) == [b"left by a previous run"]
    again.close(persist=False)


def test_the_choice_is_made_once_and_before_anything_is_parked() -> None:
    choice: LotChoice[str] = LotChoice(MemoryLot())
    choice.choose(MemoryLot())
    with pytest.raises(RuntimeError):
        choice.choose(MemoryLot())
    parked: LotChoice[str] = LotChoice(MemoryLot())
    parked.push("http://a.test", "a1", 0.0)
    with pytest.raises(RuntimeError):
        parked.choose(MemoryLot())
    assert parked.take("http://a.test", 1) == ["a1"]  # nothing lost by the refusal
