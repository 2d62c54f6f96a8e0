"""Reading a page's rules (robots meta tags, X-Robots-Tag): per-page cost, against peers.

Why this shape: the reader runs once per page a callback gets, so its cost is per page, and it
only matters beside what a page costs anyway. Each contender is timed on the same response
objects in the same process, alternating, medians over repetitions:

* ``headers.getlist``: ``response.headers.getlist(b"X-Robots-Tag")`` alone, the floor any
  reader pays;
* ``reader``: ``read_page_rules(token, headers, body)``, the pure reader (headers + head);
* ``middleware``: ``PageRulesMiddleware.process_spider_input`` as a crawl calls it (the
  reader, the request's token, the origin key, the stats, the meta key);
* ``lxml``: ``lxml.html.document_fromstring(body)`` and an XPath for the robots meta tags,
  what a spider reading them itself would do (a full parse of the page);
* ``parsel``: ``response.xpath(...)`` on a fresh response (Scrapy's own selector, also a full
  parse).

Pages: the page ``bench_crawl.py`` serves (a small head, 1.6 KB), a realistic article (a head
of 40 tags with inline script and style, robots meta tags and two X-Robots-Tag headers, 60 KB),
and a hostile 10 MB head of tags (the bound: at most 256 KiB and 2,000 tags are read).

    .venv/bin/python benchmarks/bench_page_rules.py [--repeat 7] [--number 200]

The share of a crawl's page: ``bench_crawl.py --modes addon,read,obey`` measures it end to
end (target: read / addon >= 0.98 in pages/s); at the ~400 pages/s docs/benchmarks.md gives
for that crawl a page costs ~2,500 us, which this script prints each figure against.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

PAGE_BUDGET_US = 1e6 / 400  # bench_crawl.py's pages/s on the reference machine


def _pages() -> dict[str, tuple[bytes, dict[bytes, list[bytes]]]]:
    filler = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 25 + "</p>"
    bench = f"<html><head><title>page 7</title></head><body>{filler}</body></html>".encode()
    head = [
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="robots" content="max-snippet:160, max-image-preview:large">',
        '<meta name="googlebot" content="notranslate">',
        "<title>An article with a realistic head</title>",
    ]
    head += [f'<meta property="og:tag{i}" content="value {i}">' for i in range(15)]
    head += [f'<link rel="preload" href="/static/font{i}.woff2" as="font">' for i in range(10)]
    head += ['<script type="application/ld+json">' + '{"@type": "Article"}' * 200 + "</script>"]
    head += ["<style>" + ".c{color:red}" * 300 + "</style>"]
    head += [f'<link rel="alternate" hreflang="x{i}" href="/x{i}">' for i in range(8)]
    article_body = "<article>" + filler * 30 + "</article>"
    article = f"<!DOCTYPE html><html><head>{''.join(head)}</head><body>{article_body}</body></html>"
    hostile = b"<html><head>" + b"<link rel=x>" * (10 * 1024 * 1024 // 12)
    headers = {b"X-Robots-Tag": [b"noarchive", b"googlebot: unavailable_after: 2030-01-01"]}
    return {
        "bench_crawl page": (bench, {}),
        "article, 60 KB": (article.encode(), headers),
        "hostile 10 MB head": (hostile, {}),
    }


def _median_us(fn: Callable[[], Any], repeat: int, number: int) -> float:
    times = []
    for _ in range(repeat):
        gc.disable()
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number * 1e6)
        gc.enable()
    return statistics.median(times)


def _measure(
    body: bytes, headers: dict[bytes, list[bytes]], mw: Any, repeat: int, number: int
) -> dict[str, float]:
    """Median microseconds per page of each contender, on one page."""
    import lxml.html  # type: ignore[import-untyped]
    from scrapy.http import HtmlResponse, Request

    from scrapy_gbot_robots.page.rules import read_page_rules

    url = "http://127.0.0.1:8000/p/7.html"
    request = Request(url)
    response = HtmlResponse(url, body=body, headers=headers, request=request)
    xpath = lxml.etree.XPath("//head/meta[@name]/@content")

    def fresh() -> Any:
        return HtmlResponse(url, body=body, headers=headers, request=request)

    contenders: dict[str, Callable[[], Any]] = {
        "headers.getlist": lambda: response.headers.getlist(b"X-Robots-Tag"),
        "reader": lambda: read_page_rules(
            "BenchBot", response.headers.getlist(b"X-Robots-Tag"), response.body
        ),
        "middleware": lambda: mw.process_spider_input(response),
        "lxml": lambda: xpath(lxml.html.document_fromstring(body)),
        "parsel": lambda: fresh().xpath("//head/meta[@name]/@content").getall(),
    }
    return {name: _median_us(fn, repeat, number) for name, fn in contenders.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=200, help="calls per timing")
    args = parser.parse_args()
    try:
        import lxml.html  # noqa: F401 - a peer, used in _measure
        from scrapy import Spider
        from scrapy.utils.test import get_crawler

        from scrapy_gbot_robots.crawl.page_rules_middleware import PageRulesMiddleware
    except ImportError as exc:
        sys.exit(f"error: {exc} (install with pip install -e '.[bench]')")

    class _Spider(Spider):
        name = "bench"

    crawler = get_crawler(
        _Spider,
        {
            "ROBOTSTXT_OBEY": True,
            "GBOT_ROBOTS_PAGE_RULES": "read",
            "USER_AGENT": "BenchBot/1.0 (+http://127.0.0.1/)",
        },
    )
    mw = PageRulesMiddleware.from_crawler(crawler)

    print(f"Python {sys.version.split()[0]}; medians of {args.repeat} x {args.number} calls\n")
    header = f"{'page':20} {'contender':16} {'us/page':>10} {'x getlist':>10} {'x lxml':>8}"
    print(header + f" {'of a page':>10}")
    for label, (body, headers) in _pages().items():
        number = 2 if len(body) > 1_000_000 else args.number
        results = _measure(body, headers, mw, args.repeat, number)
        floor, full = results["headers.getlist"], results["lxml"]
        for name, us in results.items():
            share = us / PAGE_BUDGET_US * 100
            print(
                f"{label:20} {name:16} {us:10.2f} {us / floor:9.1f}x {us / full:7.3f}x"
                f" {share:9.2f}%"
            )
        print()
    print(
        f"'of a page': against {PAGE_BUDGET_US:,.0f} us, one page of bench_crawl.py at 400 pages/s"
    )
    print("target: the middleware on the bench_crawl page under 2 % of a page (read / addon)")


if __name__ == "__main__":
    main()
