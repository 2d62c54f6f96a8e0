"""The back-off's books (``crawl/backoff.py``), pure: times are arguments."""

from __future__ import annotations

from scrapy_gbot_robots.crawl.backoff import Backoffs


def test_a_healthy_origin_is_not_in_the_books() -> None:
    books = Backoffs(300.0, 10)
    assert books.until("http://a") == 0.0 and len(books) == 0
    books.healthy("http://a", 1.0)
    assert len(books) == 0


def test_a_distress_begins_a_back_off_for_its_retry_after() -> None:
    books = Backoffs(300.0, 10)
    began = books.distress("http://a", 503, "3", 10.0)
    assert began is not None and began.new and began.asked and began.status == 503
    assert books.until("http://a") == 13.0 == began.until
    assert books.entered == 1 and books.longest == 3.0


def test_answers_in_flight_count_once_and_lengthen_only_for_a_later_retry_after() -> None:
    books = Backoffs(300.0, 10)
    books.distress("http://a", 503, None, 10.0)  # 1 s
    assert books.distress("http://a", 503, None, 10.1) is None  # sent before: no second
    longer = books.distress("http://a", 503, "5", 10.2)
    assert longer is not None and not longer.new and longer.until == 15.2
    assert books.distress("http://a", 503, "1", 10.3) is None  # an earlier end: kept
    assert books.until("http://a") == 15.2 and books.entered == 1


def test_the_wait_doubles_in_a_row_and_shrinks_with_successes() -> None:
    books = Backoffs(300.0, 10)
    waits = []
    now = 0.0
    for _ in range(3):
        began = books.distress("http://a", 500, None, now)
        assert began is not None
        waits.append(began.delay)
        now = began.until
    assert waits == [1.0, 2.0, 4.0]
    books.healthy("http://a", now)  # streak 3 -> 2
    began = books.distress("http://a", 500, None, now)
    assert began is not None and began.delay == 4.0  # streak 3 again
    for _ in range(3):
        books.healthy("http://a", began.until)
    assert len(books) == 0  # the streak is spent: the origin leaves the books


def test_a_success_during_the_back_off_does_not_shorten_it() -> None:
    books = Backoffs(300.0, 10)
    books.distress("http://a", 429, "10", 0.0)
    books.healthy("http://a", 5.0)  # a request sent before it began
    assert books.until("http://a") == 10.0


def test_ended_reports_each_back_off_once() -> None:
    books = Backoffs(300.0, 10)
    books.distress("http://a", 503, "3", 0.0)
    books.distress("http://b", 503, "5", 0.0)
    assert books.ended(2.0) == []
    assert books.ended(3.0) == [("http://a", 3.0)]
    assert books.ended(10.0) == [("http://b", 5.0)]
    assert books.ended(20.0) == []


def test_the_books_are_bounded_and_the_entry_ending_first_goes() -> None:
    books = Backoffs(300.0, 3)
    for i, wait in enumerate(["30", "10", "20", "40", "50"]):
        books.distress(f"http://{i}", 503, wait, 0.0)
    assert len(books) == 3 and books.evicted == 2
    assert books.until("http://1") == 0.0 and books.until("http://2") == 0.0
    assert books.until("http://4") == 50.0
