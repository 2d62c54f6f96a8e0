"""A parked request as bytes (``parking/codec.py``): Scrapy's own disk-queue format.

A request comes back equal in everything the crawl uses; what Scrapy's ``JOBDIR`` queues
could not keep raises ``ValueError`` (the lot keeps it in memory) and is reported once; bytes
that cannot be read back give ``Unreadable``, never an exception. Then, with the SQLite lot, a
paused crawl's requests come back in arrival order, each in its place.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from _lots import A, B
from scrapy import Request, Spider

from scrapy_gbot_robots.parking.codec import RequestCodec, Unreadable
from scrapy_gbot_robots.parking.sqlite import SqliteLot


class Pages(Spider):
    name = "pages"

    def parse_page(self, response: Any) -> None:
        return None

    def failed(self, failure: Any) -> None:
        return None


def _anonymous(response: Any) -> None:
    """A callback that is no method of the spider: Scrapy cannot name it on disk."""


class Older(Spider):
    """The same spider after a change: ``parse_page`` is gone."""

    name = "pages"


def _codec(
    spider: Spider | None, refused: list[tuple[Request, Exception]] | None = None
) -> RequestCodec:
    def on_unserializable(request: Request, exc: Exception) -> None:
        if refused is not None:
            refused.append((request, exc))

    return RequestCodec(lambda: spider, on_unserializable)


def test_a_request_round_trips_with_its_callbacks_by_name() -> None:
    spider = Pages()
    codec = _codec(spider)
    request = Request(
        "https://a.test/page?x=1",
        callback=spider.parse_page,
        errback=spider.failed,
        method="POST",
        body=b"q=1",
        headers={"X-Test": "1"},
        cookies={"c": "1"},
        meta={"depth": 2, "custom": [1, 2]},
        cb_kwargs={"n": 3},
        priority=7,
        dont_filter=True,
        flags=["parked"],
    )
    back = codec.loads(codec.dumps(request))
    assert isinstance(back, Request)
    assert back.to_dict(spider=spider) == request.to_dict(spider=spider)
    assert back.callback == spider.parse_page and back.errback == spider.failed


def test_the_bytes_are_scrapys_disk_queue_format() -> None:
    spider = Pages()
    request = Request("https://a.test/", callback=spider.parse_page)
    data = _codec(spider).dumps(request)
    assert data[:2] == b"\x80\x04"  # pickle protocol 4, as PickleFifoDiskQueue writes
    assert pickle.loads(data) == request.to_dict(spider=spider)


def test_what_scrapy_could_not_keep_raises_value_error_and_is_reported_once() -> None:
    refused: list[tuple[Request, Exception]] = []
    codec = _codec(Pages(), refused)
    request = Request("https://a.test/", callback=_anonymous)
    try:
        codec.dumps(request)
    except ValueError:
        pass
    else:
        raise AssertionError("a lambda callback was serialised")
    assert [r for r, _ in refused] == [request]


def test_an_item_that_is_not_a_request_stays_in_memory_unreported() -> None:
    refused: list[tuple[Request, Exception]] = []
    codec = _codec(Pages(), refused)
    for item in ("held", object()):
        try:
            codec.dumps(item)
        except ValueError:
            continue
        raise AssertionError(f"{item!r} was serialised")
    assert refused == []


def test_bytes_that_cannot_be_read_back_give_unreadable_with_the_reason() -> None:
    codec = _codec(Pages())
    garbage = codec.loads(b"not a pickle")
    assert isinstance(garbage, Unreadable) and garbage.error.startswith("UnpicklingError")
    data = _codec(Pages()).dumps(Request("https://a.test/", callback=Pages().parse_page))
    lost = _codec(Older()).loads(data)  # the spider no longer has the callback
    assert isinstance(lost, Unreadable) and "parse_page" in lost.error


def test_a_request_without_callbacks_needs_no_spider() -> None:
    codec = _codec(None)
    back = codec.loads(codec.dumps(Request("https://a.test/x", meta={"k": "v"})))
    assert isinstance(back, Request) and back.url == "https://a.test/x"
    assert back.meta == {"k": "v"}


def test_a_paused_jobdir_lot_gives_every_request_back_in_its_place(tmp_path: Path) -> None:
    spider = Pages()
    refused: list[tuple[Request, Exception]] = []
    codec = _codec(spider, refused)
    path = tmp_path / "jobdir" / "gbot_robots" / "parked.sqlite3"
    lot: SqliteLot[Any] = SqliteLot(str(path), codec.dumps, codec.loads)
    urls = [f"{A}/{i}" for i in range(4)]
    for i, url in enumerate(urls):
        lot.push(A, Request(url, callback=spider.parse_page), float(i))
    anonymous = Request(f"{B}/anonymous", callback=_anonymous)
    lot.push(B, anonymous, 9.0)
    assert len(refused) == 1
    assert lot.close(persist=True) == [(B, anonymous)]  # handed back: it cannot wait

    resumed: SqliteLot[Any] = SqliteLot(str(path), codec.dumps, codec.loads)
    assert resumed.waiting() == [(A, 4)]
    assert [r.url for r in resumed.take(A, 10)] == urls
    resumed.close(persist=True)

    lot = SqliteLot(str(path), codec.dumps, codec.loads)
    lot.push(A, Request(f"{A}/kept", callback=spider.parse_page), 1.0)
    lot.push(A, Request(f"{A}/plain"), 2.0)
    lot.close(persist=True)
    changed = _codec(Older())  # resumed by a spider that lost parse_page
    lot = SqliteLot(str(path), changed.dumps, changed.loads)
    first, second = lot.take(A, 10)
    assert isinstance(first, Unreadable) and isinstance(second, Request)  # each in its place
    assert second.url == f"{A}/plain"
    lot.close(persist=False)
