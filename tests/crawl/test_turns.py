"""The paced release's turns alone (``crawl/turns.py``): order, pins, peak."""

from __future__ import annotations

from scrapy_gbot_robots.crawl.turns import Turns


def test_origins_take_turns_in_order_each_pinned_once() -> None:
    pinned: list[str] = []
    unpinned: list[str] = []

    def unpin(origin: str) -> bool:
        unpinned.append(origin)
        return origin == "b"  # only b's pin was its last one

    turns = Turns(pinned.append, unpin)
    assert turns.add("a") is True and turns.add("b") is False  # only the first starts them
    assert turns.add("a") is False and pinned == ["a", "b"]  # pinned once each
    assert (turns.next(), turns.next(), turns.next()) == ("a", "b", "a")
    assert list(turns) == ["b", "a"] and turns.peak == 2 and "a" in turns
    assert turns.discard("b") is True and turns.discard("a") is False
    assert turns.discard("a") is False  # not there any more: nothing to unpin
    assert unpinned == ["b", "a"] and len(turns) == 0 and not turns
    turns.add("c")
    turns.clear()
    assert len(turns) == 0 and turns.peak == 2
