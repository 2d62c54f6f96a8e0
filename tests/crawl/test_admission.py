"""Whether a request about to be parked is (``crawl/admission.py``): the scheduler's real
dupefilter and Scrapy's real offsite middleware, asked at park time."""

from __future__ import annotations

from typing import Any, ClassVar

from scrapy import Spider
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.dupefilters import RFPDupeFilter
from scrapy.http import Request
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots._meta import SEEN
from scrapy_gbot_robots.crawl.admission import Admission


class _Site(Spider):
    name = "site"
    allowed_domains: ClassVar[list[str]] = ["a.test"]


def admission(*, offsite: bool = True) -> Admission:
    crawler = get_crawler(_Site)
    crawler.spider = spider = _Site()
    middleware = None
    if offsite:
        middleware = OffsiteMiddleware.from_crawler(crawler)
        middleware.spider_opened(spider)
    dupefilter: Any = RFPDupeFilter.from_crawler(crawler)
    return Admission(crawler, middleware, dupefilter)


def test_a_new_request_is_parked_once_and_marked_seen() -> None:
    admit = admission().admit
    first = Request("http://a.test/page")
    assert admit(first) and first.meta[SEEN] is True
    again = Request("http://a.test/page")
    assert not admit(again) and SEEN not in again.meta  # a duplicate: the scheduler drops it
    assert admit(Request("http://a.test/page", dont_filter=True))
    assert admit("not a request")


def test_an_off_site_request_is_left_to_the_offsite_middleware() -> None:
    admit = admission().admit
    assert not admit(Request("http://elsewhere.test/x"))  # never parked: no fetch for it
    assert admit(Request("http://elsewhere.test/y", meta={"allow_offsite": True}))
    assert admission(offsite=False).admit(Request("http://elsewhere.test/z"))
