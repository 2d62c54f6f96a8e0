"""The crawl's one closing state (``crawl/lifecycle.py``): open, closing (for good, with the
time it began), closed."""

from __future__ import annotations

from scrapy_gbot_robots.crawl.lifecycle import Lifecycle


def test_the_first_no_starts_the_close_for_good_and_records_when() -> None:
    engine = {"open": True, "asked": 0}

    def engine_open() -> bool:
        engine["asked"] += 1
        return bool(engine["open"])

    lifecycle = Lifecycle(engine_open, clock=lambda: 99.0)
    assert lifecycle.accepting() and lifecycle.closing_at is None and not lifecycle.closing
    engine["open"] = False
    assert not lifecycle.accepting(12.5)  # the caller's reading of the clock
    assert lifecycle.closing_at == 12.5 and lifecycle.closing and not lifecycle.closed
    asked = engine["asked"]
    engine["open"] = True  # the engine is never asked again: closing is for good
    assert not lifecycle.accepting(20.0) and engine["asked"] == asked
    assert lifecycle.closing_at == 12.5
    lifecycle.close()
    assert lifecycle.closed and lifecycle.closing_at == 12.5


def test_a_close_nobody_saw_coming_is_dated_by_the_clock() -> None:
    lifecycle = Lifecycle(lambda: True, clock=lambda: 42.0)
    lifecycle.close()  # spider_closed without an earlier "no" (scrapy shell's end)
    assert lifecycle.closed and lifecycle.closing_at == 42.0 and not lifecycle.accepting()
