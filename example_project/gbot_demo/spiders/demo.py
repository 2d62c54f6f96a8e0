"""The demo spider: crawls the local demo site with scrapy-gbot-robots on, then reports.

It listens to the plugin's signals to learn what happened to each request:
``request_forbidden`` carries the robots.txt ``Decision`` (deciding line number and rule),
``request_parked`` tells that a request was parked until its origin's robots.txt was decided.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.http import Response, TextResponse

from gbot_demo.report import Outcomes, print_report
from gbot_demo.site import DemoSite
from scrapy_gbot_robots import Decision
from scrapy_gbot_robots import signals as robots_signals


class DemoSpider(scrapy.Spider):
    name = "demo"
    site: DemoSite  # the local demo site, served while the spider runs
    outcomes: Outcomes  # what happened to each request

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> DemoSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.site = DemoSite()
        spider.outcomes = Outcomes(started_at=time.time())
        connect = crawler.signals.connect
        connect(spider.site.start, signal=signals.spider_opened)
        connect(spider.spider_closed, signal=signals.spider_closed)
        connect(spider.print_report, signal=signals.engine_stopped)
        connect(spider.forbidden, signal=robots_signals.request_forbidden)
        connect(spider.parked, signal=robots_signals.request_parked)
        connect(spider.dropped, signal=robots_signals.parked_request_dropped)
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        # The site is up by now: spider_opened is sent before start() is iterated.
        yield scrapy.Request(self.site.main_url + "/")

    def start_requests(self) -> Iterator[scrapy.Request]:  # Scrapy < 2.13 calls this instead
        yield scrapy.Request(self.site.main_url + "/")

    def parse(self, response: Response) -> Iterator[scrapy.Request]:
        self.outcomes.crawled.append(response.url)
        if isinstance(response, TextResponse):
            yield from response.follow_all(css="a")

    # Handlers of the plugin's signals (see docs/signals.md).
    def forbidden(self, request: scrapy.Request, spider: scrapy.Spider, decision: Decision) -> None:
        self.outcomes.forbidden[request.url] = decision

    def parked(self, request: scrapy.Request, spider: scrapy.Spider) -> None:
        self.outcomes.parked.append(request.url)

    def dropped(self, request: scrapy.Request, spider: scrapy.Spider, reason: str) -> None:
        self.outcomes.dropped[request.url] = reason

    async def spider_closed(self, spider: scrapy.Spider) -> None:
        await self.site.stop()

    def print_report(self) -> None:
        # engine_stopped comes last: the report is not buried under the final stats dump, and
        # the middleware has written its audit report (GBOT_ROBOTS_REPORT) by then.
        assert self.crawler.stats is not None
        stats = self.crawler.stats.get_stats()
        self.outcomes.stats = {k: v for k, v in stats.items() if k.startswith("robotstxt/")}
        print_report(self.site, self.outcomes, self.settings)
