"""A site that asks to slow down: the add-on's back-off against Scrapy's built-in, same run.

Why: Scrapy's ``RetryMiddleware`` re-sends a ``503`` at once and nothing in Scrapy reads
``Retry-After``, so a site that answers ``503`` with ``Retry-After: 3`` for three seconds
gets its pages' retries within milliseconds and the pages are given up. With the add-on, the
site's requests wait for the back-off (docs/crawling.md, "Back-off").

One local site (10 pages, robots.txt allowing all) answers every page request ``503`` with
``Retry-After: 3`` during the 3 s that follow its first page request, then ``200``. Two
crawls in one process, each against a fresh site: Scrapy with the add-on (its defaults), then
Scrapy's built-in ``RobotsTxtMiddleware`` (no add-on). Both with Scrapy's default retries (2)
and concurrency. Printed for each: page requests the site received during its 3 s of
distress, pages crawled in the end, and the crawl's length.

``--timeout 0.5``: the site does not answer at all during its distress (each page request
hangs), and the crawls download with ``DOWNLOAD_TIMEOUT = 0.5``: a network error, which
Googlebot treats as a ``5xx`` (the add-on's doubling wait, no ``Retry-After``).

    .venv/bin/python benchmarks/bench_backoff.py [--pages 10] [--wait 3] [--timeout 0.5]
"""

from __future__ import annotations

import argparse
import time
from typing import Any


class _Site:
    """The site: ``503`` + ``Retry-After`` (or, ``hang``, no answer) for ``wait`` s after its
    first page request."""

    def __init__(self, wait: float, hang: bool) -> None:
        self.wait = wait
        self.hang = hang
        self.first: float | None = None
        self.arrivals: list[float] = []

    def render(self, request: Any) -> bytes | int:
        path = request.path.decode()
        if path == "/robots.txt":
            request.setHeader(b"Content-Type", b"text/plain")
            return b"User-agent: *\nAllow: /\n"
        now = time.monotonic()
        self.arrivals.append(now)
        if self.first is None:
            self.first = now
        if now - self.first < self.wait:
            if self.hang:
                from twisted.web.server import NOT_DONE_YET

                return int(NOT_DONE_YET)  # the crawler's DOWNLOAD_TIMEOUT ends it
            request.setResponseCode(503)
            request.setHeader(b"Retry-After", str(int(self.wait)).encode())
            return b"busy"
        return b"<html><body>ok</body></html>"

    def in_distress(self) -> int:
        first = self.first
        return 0 if first is None else sum(1 for t in self.arrivals if t - first < self.wait)


async def _crawl(addon: bool, pages: int, wait: float, timeout: float) -> dict[str, Any]:
    import scrapy
    from scrapy.crawler import CrawlerRunner
    from twisted.internet import reactor
    from twisted.web import resource, server

    site = _Site(wait, hang=timeout > 0)

    class Root(resource.Resource):
        isLeaf = True

        def render(self, request: Any) -> bytes | int:
            return site.render(request)

    reactor_any: Any = reactor
    make_site: Any = server.Site
    root: Any = Root
    port = reactor_any.listenTCP(0, make_site(root()), interface="127.0.0.1")
    base = f"http://127.0.0.1:{port.getHost().port}"
    crawled: list[str] = []

    class Pages(scrapy.Spider):
        name = "pages"

        async def start(self) -> Any:
            for i in range(pages):
                yield scrapy.Request(f"{base}/p{i}")

        def start_requests(self) -> Any:  # Scrapy < 2.13
            for i in range(pages):
                yield scrapy.Request(f"{base}/p{i}")

        def parse(self, response: Any) -> None:
            crawled.append(response.url)

    settings: dict[str, Any] = {
        "ROBOTSTXT_OBEY": True,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_ENABLED": False,
        "CLOSESPIDER_TIMEOUT": 120,
    }
    if timeout > 0:
        settings["DOWNLOAD_TIMEOUT"] = timeout
    if addon:
        settings["ADDONS"] = {"scrapy_gbot_robots.Addon": 0}
    start = time.monotonic()
    try:
        await CrawlerRunner(settings).create_crawler(Pages).crawl()
    finally:
        await port.stopListening()
    return {
        "in_distress": site.in_distress(),
        "crawled": len(crawled),
        "requests": len(site.arrivals),
        "seconds": time.monotonic() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--wait", type=float, default=3.0)
    parser.add_argument("--timeout", type=float, default=0.0, help="hang instead of 503")
    args = parser.parse_args()

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from twisted.internet import defer, task

    async def run() -> None:
        results = {
            "add-on": await _crawl(True, args.pages, args.wait, args.timeout),
            "built-in": await _crawl(False, args.pages, args.wait, args.timeout),
        }
        what = (
            f"not answering (DOWNLOAD_TIMEOUT {args.timeout:g} s)"
            if args.timeout > 0
            else f"answering 503 + Retry-After: {args.wait:g}"
        )
        print(
            f"A site {what} for {args.wait:g} s "
            f"({args.pages} pages, Scrapy's default retries and concurrency):"
        )
        for name, r in results.items():
            print(
                f"  {name:9s} {r['in_distress']:3d} page requests during the {args.wait:g} s, "
                f"{r['crawled']:2d}/{args.pages} pages crawled, {r['requests']} page requests "
                f"in all, {r['seconds']:.1f} s"
            )

    task.react(lambda _reactor: defer.ensureDeferred(run()))


if __name__ == "__main__":
    main()
