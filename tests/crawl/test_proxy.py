"""robots.txt through the spider's own proxy (issue 24, item 1), with a real local proxy.

A spider that reaches its sites only through ``meta["proxy"]``, Scrapy's documented way to
choose a proxy per request: the robots.txt request must travel the same way. In 0.2.0 it went
direct: each robots.txt was tried twice and reset, both origins became server errors, and 0
of 5 pages were crawled (every request dropped at the park timeout).

The proxy is the test server itself: it answers absolute-URI requests (``GET http://host/...``)
by the host they name, as a forward proxy does. The origins' own port is closed, so a
request that bypasses the proxy fails.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
import pytest_twisted
import scrapy
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /private/\n"


def _closed_port() -> int:
    """A loopback port nothing listens on: a direct connection to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest_twisted.ensureDeferred
async def test_robots_txt_goes_through_the_proxy_the_page_names(server: Server) -> None:
    port = _closed_port()
    hosts = ["one.test", "two.test"]
    for host in hosts:
        server.route("/robots.txt", host=host, body=RULES)
    pages = [f"http://{h}:{port}/{p}" for h in hosts for p in ("a", "b")] + [
        f"http://one.test:{port}/c"
    ]
    forbidden = f"http://two.test:{port}/private/x"
    proxy = server.url("/")

    class ThroughProxy(make_spider(urls=[*pages, forbidden])):  # type: ignore[misc]
        def make_request(self, url: str, **kwargs: Any) -> Any:
            return scrapy.Request(
                url, callback=self.parse, errback=self.on_error, meta={"proxy": proxy}
            )

    crawler = await crawl(ThroughProxy, {"GBOT_ROBOTS_PARK_TIMEOUT": 5.0})
    stats = crawler.stats.get_stats()
    assert sorted(crawler.spider.crawled) == sorted(pages)  # 5 of 5
    assert [server.count("/robots.txt", h) for h in hosts] == [1, 1]  # via the proxy, once
    assert server.count("/private/x", "two.test") == 0
    assert stats["robotstxt/origin_state/rules"] == 2
    assert not [k for k in stats if k.startswith("robotstxt/exception_count/")]
    assert "robotstxt/dropped" not in stats


@pytest_twisted.ensureDeferred
async def test_one_fetch_per_origin_whatever_proxy_the_next_request_names(
    server: Server,
) -> None:
    """The state is the target origin's: a second proxy does not make a second fetch."""
    port = _closed_port()
    server.route("/robots.txt", host="one.test", body=RULES)
    proxies = [server.url("/"), server.url("/").replace("127.0.0.1", "localhost")]
    urls = [f"http://one.test:{port}/p{i}" for i in range(6)]

    class TwoProxies(make_spider(urls=urls)):  # type: ignore[misc]
        def make_request(self, url: str, **kwargs: Any) -> Any:
            meta = {"proxy": proxies[int(url[-1]) % 2]}
            return scrapy.Request(url, callback=self.parse, errback=self.on_error, meta=meta)

    crawler = await crawl(TwoProxies)
    assert sorted(crawler.spider.crawled) == sorted(urls)
    assert server.count("/robots.txt", "one.test") == 1
