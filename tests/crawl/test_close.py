"""The close, in real crawls: no work after it, nothing it cuts is recorded, no wait it stalls.

Issue 23's defects where the orchestration lives:

- Scrapy 2.19 warned that the plugin's ``spider_closed`` handler returned a Deferred
  (deprecated; a later Scrapy may not wait for it, and the store would close early);
- a robots.txt served correctly (301, then 200) was stored as a server error when the spider
  closed while its first hop was the last download in flight (``AlreadyCalledError`` in
  Scrapy's engine, and a 60 s backoff for the resumed crawl);
- media downloads (``engine.download()``) waiting on an origin stopped by server errors held
  their download slots until the park timeout, stalling every other page.
"""

from __future__ import annotations

import logging
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider
from scrapy import signals
from scrapy.exceptions import CloseSpider

from scrapy_gbot_robots.policy.states import Kind
from scrapy_gbot_robots.stores.sqlite import SqliteStore

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /private/\n"


@pytest_twisted.ensureDeferred
async def test_a_close_during_a_redirect_records_nothing_and_sends_no_further_hop(
    server: Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", host="quick.test", body=RULES)
    server.route(
        "/robots.txt", host="moved.test", status=301, delay=1.0, headers={"Location": "/r2"}
    )
    server.route("/r2", host="moved.test", body=RULES)

    start = [server.url("/p", "quick.test"), server.url("/p", "moved.test")]

    class Closing(make_spider(urls=start)):  # type: ignore[misc]
        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            raise CloseSpider("enough")  # while moved.test's first hop is in flight

    jobdir = tmp_path / "job"
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        crawler = await crawl(Closing, {"JOBDIR": str(jobdir)})
    # Defect 4: Scrapy 2.19 deprecates a spider_closed handler that returns a Deferred. (Scrapy
    # itself passes w3lib 2.6 deprecated html_to_unicode() parameters: Scrapy's, not ours.)
    ours = [str(w.message) for w in warned if "html_to_unicode()" not in str(w.message)]
    assert [message for message in ours if "deprecated" in message] == []
    stats = crawler.stats.get_stats()
    assert stats["finish_reason"] == "enough"
    assert server.count("/robots.txt", "moved.test") == 1
    assert server.count("/r2", "moved.test") == 0  # no hop after the close began
    assert not [k for k in stats if k.startswith("robotstxt/exception_count/")]
    assert "robotstxt/origin_state/server_error" not in stats
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [] and "AlreadyCalledError" not in caplog.text
    # The resumed crawl finds no server error to obey for 60 s: it will simply fetch again.
    store = SqliteStore(str(jobdir / "gbot_robots" / "robots.sqlite3"))
    try:
        state = store.get_now(server.origin("moved.test"))
        assert state is None or state.kind is not Kind.SERVER_ERROR
        assert store.get_now(server.origin("quick.test")) is not None  # the store works
    finally:
        store.close()
    assert stats["robotstxt/persisted"] == 1  # moved.test's page, kept for the next run


@pytest_twisted.ensureDeferred
async def test_media_downloads_of_a_stopped_origin_fail_at_once_and_free_their_slots(
    server: Server, tmp_path: Path
) -> None:
    """Issue 23, defect 3: with 2 slots and 2 files on a 503 origin, the healthy pages used to
    wait for the park timeout. Googlebot would not fetch those files either: they fail at
    once with IgnoreRequest, which FilesPipeline counts as a failed download."""
    server.route("/robots.txt", host="cdn.test", status=503)
    server.route("/robots.txt", host="site.test", body=RULES)
    pages = [server.url(f"/p{i}", "site.test") for i in range(12)]
    for i in range(12):
        server.route(f"/p{i}", host="site.test", delay=0.05)
    files = [server.url("/f1.txt", "cdn.test"), server.url("/f2.txt", "cdn.test")]

    items: list[dict[str, Any]] = []

    class FilesSpider(make_spider(urls=[server.url("/first", "site.test")])):  # type: ignore[misc]
        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(spider.scraped, signal=signals.item_scraped)
            return spider

        def scraped(self, item: dict[str, Any]) -> None:
            items.append(dict(item))

        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            if response.url.endswith("/first"):
                yield {"file_urls": files}
                for page in pages:
                    yield self.make_request(page)

    settings = {
        "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
        "FILES_STORE": str(tmp_path),
        "CONCURRENT_REQUESTS": 2,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
        "GBOT_ROBOTS_PARK_TIMEOUT": 30.0,
    }
    started = time.monotonic()
    crawler = await crawl(FilesSpider, settings)
    took = time.monotonic() - started
    stats = crawler.stats.get_stats()
    assert sorted(crawler.spider.crawled) == sorted([server.url("/first", "site.test"), *pages])
    assert sorted(crawler.spider.dropped) == sorted((url, "stopped") for url in files)
    assert stats["robotstxt/dropped"] == 2
    assert items == [{"file_urls": files, "files": []}]  # the pipeline saw them fail
    assert "file_count" not in stats
    assert server.count("/f1.txt", "cdn.test") == server.count("/f2.txt", "cdn.test") == 0
    assert server.count("/robots.txt", "cdn.test") == 1  # no retry waited for
    # Not a timing target: the bound says the crawl did not sit out the 30 s park timeout.
    assert took < 20.0, took
    assert stats["finish_reason"] == "finished"
