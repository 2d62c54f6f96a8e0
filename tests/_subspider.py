"""What the spiders of the ``scrapy`` subprocesses (``_procs.spawn``) print for the test.

One line per outcome (``OPENED pid``, ``CRAWLED url``, ``FAILED url Exception``) and the stats
as one ``STATS {json}`` line at the end, which ``CrawlProcess.lines()`` and ``.stats()`` read.
A test writes a few lines of spider that subclass these (``spawn`` puts ``tests/`` on the
subprocess's ``PYTHONPATH``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import scrapy
from scrapy import signals


class Reporting:
    """Mixin for any spider class: the lines above. ``LOCK_TTL`` in the environment sets
    ``GBOT_ROBOTS_LOCK_TTL`` (how long a dead worker's fetch lock blocks the others)."""

    custom_settings: dict[str, Any] | None = {  # noqa: RUF012 (Scrapy reads it per class)
        "GBOT_ROBOTS_LOCK_TTL": float(os.environ.get("LOCK_TTL", "0"))
    }
    crawler: Any
    logger: Any

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
        spider = super().from_crawler(crawler, *args, **kwargs)  # type: ignore[misc]
        crawler.signals.connect(spider.opened, signal=signals.spider_opened)
        crawler.signals.connect(spider.stopped, signal=signals.engine_stopped)
        return spider

    def opened(self, spider: Any) -> None:
        self.logger.info("OPENED %d", os.getpid())

    def parse(self, response: Any) -> None:
        self.logger.info("CRAWLED %s", response.url)

    def failed(self, failure: Any) -> None:
        self.logger.info("FAILED %s %s", failure.request.url, type(failure.value).__name__)

    def stopped(self) -> None:
        stats = self.crawler.stats.get_stats()
        kept = {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}
        print("STATS " + json.dumps(kept), flush=True)


class StartUrlsSpider(Reporting, scrapy.Spider):
    """Requests the JSON list of URLs in the file named by ``START_URLS``."""

    def _requests(self) -> Iterator[scrapy.Request]:
        with open(os.environ["START_URLS"]) as f:
            for url in json.load(f):
                yield scrapy.Request(url, callback=self.parse, errback=self.failed)

    async def start(self) -> Any:  # Scrapy >= 2.13
        for request in self._requests():
            yield request

    def start_requests(self) -> Iterator[scrapy.Request]:  # Scrapy < 2.13
        return self._requests()
