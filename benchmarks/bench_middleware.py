"""CPU cost of ``process_request`` for an already-decided origin: ours against Scrapy's own.

Why: once an origin's robots.txt is decided, every request of a crawl pays this check, so it
must not cost more than the built-in ``RobotsTxtMiddleware`` (with Protego) it replaces.
Both middlewares are built from real crawlers and decided through their own code paths
(a robots.txt response fed to the code that handles the downloaded file; no network); then
both see the same requests, in interleaved rounds, called the way Scrapy's
``DownloaderMiddlewareManager`` calls them: ``await ensure_awaitable(mw.process_request(
request=request))``. Each timed request is fresh but warmed the way the downloader warms it
(``urlparse_cached`` and ``meta["download_slot"]`` are set before middlewares run).
Logging stays at Python's default (WARNING), as in a crawl run with LOG_LEVEL=INFO: at DEBUG
both middlewares log every forbidden request, and the log handlers would dominate.
Target: ours / built-in <= 1.0.

    .venv/bin/python benchmarks/bench_middleware.py [--requests 2000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest
from scrapy.http import TextResponse
from scrapy.utils.defer import ensure_awaitable
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.reactor import install_reactor, is_reactor_installed
from scrapy.utils.test import get_crawler

ORIGIN = "https://www.example.com"
USER_AGENT = "Mozilla/5.0 (compatible; BenchBot/2.1; +https://example.com/bot)"

#: A mid-sized, realistic file: a few groups, wildcards, "$", and a group for our token.
ROBOTS_TXT = """\
# robots.txt for www.example.com
User-agent: *
Disallow: /admin/
Disallow: /cart
Disallow: /checkout/
Disallow: /account/
Disallow: /search
Allow: /search/about
Disallow: /*?sessionid=
Disallow: /*&sort=
Disallow: /*.pdf$
Disallow: /tmp/
Disallow: /private/
Allow: /private/index.html
Disallow: /api/
Allow: /api/docs/

User-agent: BenchBot
User-agent: OtherBot
Disallow: /admin/
Disallow: /cart
Disallow: /checkout/
Disallow: /account/
Disallow: /search
Allow: /search/about
Disallow: /*?sessionid=
Disallow: /*&sort=
Disallow: /*.pdf$
Disallow: /print/
Disallow: /products/*/reviews
Allow: /products/*/reviews/summary
Disallow: /api/
Allow: /api/docs/

User-agent: Googlebot-Image
Disallow: /

Sitemap: https://www.example.com/sitemap.xml
Sitemap: https://www.example.com/news-sitemap.xml
"""


def _urls(n: int, seed: int = 1) -> list[str]:
    """A crawl-like mix of paths: mostly allowed, some forbidden (about 15%)."""
    rnd = random.Random(seed)
    shapes: list[Callable[[], str]] = [
        lambda: f"/products/{rnd.randrange(10**5)}/{rnd.choice(['lamp', 'desk', 'chair'])}",
        lambda: f"/products/{rnd.randrange(10**5)}?color={rnd.choice(['red', 'blue'])}",
        lambda: f"/blog/{rnd.randrange(2010, 2026)}/{rnd.randrange(1, 13)}/p{rnd.randrange(999)}",
        lambda: f"/category/{rnd.choice(['home', 'garden', 'tools'])}?page={rnd.randrange(50)}",
        lambda: f"/static/img/{rnd.randrange(10**4)}.jpg",
        lambda: f"/docs/guide-{rnd.randrange(300)}.html",
        lambda: f"/products/{rnd.randrange(10**5)}/reviews",
        lambda: f"/search?q=item{rnd.randrange(10**4)}",
        lambda: f"/files/manual-{rnd.randrange(500)}.pdf",
        lambda: f"/category/tools?page=2&sort={rnd.choice(['asc', 'desc'])}",
    ]
    weights = [20, 15, 20, 15, 10, 5, 4, 4, 4, 3]
    return [ORIGIN + rnd.choices(shapes, weights)[0]() for _ in range(n)]


class _Spider(Spider):
    name = "bench"


def _run_to_end(coro: Awaitable[Any]) -> Any:
    """Drive a coroutine that must not suspend: a decided origin needs no waiting."""
    assert isinstance(coro, Coroutine)
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("process_request suspended: the origin is not decided")


def _crawler(settings: dict[str, Any]) -> Crawler:
    if not is_reactor_installed():  # Scrapy's signal code asks the reactor about asyncio
        install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    return get_crawler(_Spider, {"USER_AGENT": USER_AGENT, **settings})


def _robots_response() -> TextResponse:
    return TextResponse(
        ORIGIN + "/robots.txt",
        status=200,
        headers={"Content-Type": "text/plain"},
        body=ROBOTS_TXT.encode(),
    )


class _MemoryTransport:
    """Stands in for ``crawler.engine`` as a transport only: answers robots.txt from memory.

    Everything after the download (each middleware's own handling of the response: parsing,
    policy, caching, stats, ``robots_parsed``) is the middleware's real code.
    """

    async def download_async(self, request: Request) -> TextResponse:
        return TextResponse(
            request.url,
            status=200,
            headers={"Content-Type": "text/plain"},
            body=ROBOTS_TXT.encode(),
            request=request,
        )


def builtin_middleware() -> RobotsTxtMiddleware:
    """Scrapy's middleware, decided by its own ``robot_parser()`` (download, parse, store)."""
    crawler = _crawler({"ROBOTSTXT_OBEY": True})
    crawler.engine = _MemoryTransport()  # type: ignore[assignment]
    mw = RobotsTxtMiddleware.from_crawler(crawler)
    parser = _run_to_end(mw.robot_parser(Request(ORIGIN + "/")))
    assert parser is not None and mw._parsers, "the built-in middleware did not decide"
    return mw


def our_middleware() -> Any:
    """Ours, decided by its own fetch coroutine (download, policy, store, signals)."""
    from scrapy_gbot_robots.middleware import GoogleRobotsTxtMiddleware

    crawler = _crawler({"ROBOTSTXT_OBEY": True, "ADDONS": {"scrapy_gbot_robots.Addon": 0}})
    crawler.engine = _MemoryTransport()  # type: ignore[assignment]
    mw = GoogleRobotsTxtMiddleware.from_crawler(crawler)
    origin = mw._origin_of_url(ORIGIN + "/")
    _run_to_end(mw._download_and_decide(origin))  # the gate's fetch, minus the budget
    state = mw.origin_state(ORIGIN + "/")
    assert state is not None and state.robots is not None, "our middleware did not decide"
    return mw


class _WithSchedulingHook:
    """Ours as a crawl really pays for it: the ``request_scheduled`` hook, then the check.

    Not the target (the built-in has no such hook, and parks nothing), shown so the total
    per-request cost is on the record; bench_crawl.py measures it end to end.
    """

    def __init__(self, mw: Any) -> None:
        self.hook = mw._request_scheduled
        self.check = mw.process_request

    def process_request(self, request: Request) -> Any:
        self.hook(request, None)
        return self.check(request)


def _fresh_requests(urls: list[str]) -> list[Request]:
    """New requests, warmed the way the downloader warms them before middlewares run."""
    requests = [Request(u) for u in urls]
    for r in requests:
        r.meta["download_slot"] = urlparse_cached(r).hostname
    return requests


def _time_pass(mw: Any, requests: list[Request]) -> tuple[float, int]:
    """Seconds for one pass, and how many requests were forbidden."""
    process_request = mw.process_request
    forbidden = 0
    gc.disable()
    start = time.perf_counter()
    for request in requests:
        try:
            result = _run_to_end(ensure_awaitable(process_request(request=request)))
        except IgnoreRequest:
            forbidden += 1
        else:
            assert result is None, f"process_request returned {result!r}: origin not decided?"
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed, forbidden


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()

    urls = _urls(args.requests)
    ours = our_middleware()
    contenders = {
        "built-in (Protego)": builtin_middleware(),
        "ours": ours,
        "ours + sched. hook": _WithSchedulingHook(ours),
    }
    names = list(contenders)
    times: dict[str, list[float]] = {n: [] for n in names}
    forbidden: dict[str, int] = {}
    for name in names:  # warm-up pass: caches, lazy imports, first-call paths
        _time_pass(contenders[name], _fresh_requests(urls))
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            seconds, forbidden[name] = _time_pass(contenders[name], _fresh_requests(urls))
            times[name].append(seconds / len(urls) * 1e6)

    print(f"{len(urls)} requests to one decided origin, {args.rounds} interleaved rounds")
    for name in names:
        t = times[name]
        print(
            f"  {name:20} median {statistics.median(t):6.2f} µs/request"
            f"  (min {min(t):.2f}, max {max(t):.2f}); forbidden {forbidden[name]}"
        )
    if forbidden[names[0]] != forbidden[names[1]]:
        print("  note: the two disagree on some URLs (Google's rules differ from Protego's)")
    base = statistics.median(times[names[0]])
    print(f"ratio ours / built-in: {statistics.median(times['ours']) / base:.3f}x  (target <= 1.0)")
    hooked = statistics.median(times[names[2]]) / base
    print(f"ratio ours + scheduling hook / built-in: {hooked:.3f}x  (for the record)")


if __name__ == "__main__":
    main()
