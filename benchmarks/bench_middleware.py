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

"ours + report" is the same middleware built with ``GBOT_ROBOTS_REPORT`` (the audit report):
its check is ``robots.decide()`` instead of ``allowed()`` (one pass that also names the
deciding rule), every allowed check increments a counter, and every forbidden request
counts its rule. What it adds per request is printed as a
fraction of our middleware's own cost (target <= 10 %), over the crawl-like mix and over its
forbidden requests alone; then the one-off costs: linting one robots.txt (once per distinct
body) and writing a report whose tables are full (``GBOT_ROBOTS_REPORT_MAX_*`` defaults).

    .venv/bin/python benchmarks/bench_middleware.py [--requests 2000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import tempfile
import time
import types
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
    policy, caching, stats, ``robots_parsed``) is the middleware's real code. ``_slot`` says
    the engine is open (no close under way), as a running crawl's engine does.
    """

    _slot = types.SimpleNamespace(closing=None, nextcall=None)

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


def our_middleware(settings: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """Ours, decided the way a crawl decides it: a first request waits in place while the
    coordinator fetches robots.txt (gate, fetcher, policy, store, signals), then passes."""
    from scrapy_gbot_robots.crawl import wiring
    from scrapy_gbot_robots.crawl.middleware import GoogleRobotsTxtMiddleware

    crawler = _crawler(
        {"ROBOTSTXT_OBEY": True, "ADDONS": {"scrapy_gbot_robots.Addon": 0}, **(settings or {})}
    )
    crawler.engine = _MemoryTransport()  # type: ignore[assignment]
    coordinator = wiring.build(crawler)
    mw = GoogleRobotsTxtMiddleware(crawler, coordinator)
    waiting = mw.process_request(Request(ORIGIN + "/"))
    assert isinstance(waiting, Coroutine), "the first request did not wait for robots.txt"
    asyncio.get_event_loop().run_until_complete(waiting)
    state = mw.origin_state(ORIGIN + "/")
    assert state is not None and state.robots is not None, "our middleware did not decide"
    return mw, coordinator.scheduled  # the scheduling hook, for _WithSchedulingHook below


class _WithSchedulingHook:
    """Ours as a crawl really pays for it: the ``request_scheduled`` hook, then the check.

    Not the target (the built-in has no such hook, and parks nothing), shown so the total
    per-request cost is on the record; bench_crawl.py measures it end to end.
    """

    def __init__(self, mw: Any, hook: Callable[[Request, Any], None]) -> None:
        self.hook = hook
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


def _interleaved(
    contenders: dict[str, Any], urls: list[str], rounds: int
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """µs/request per contender over ``rounds`` interleaved passes (after one warm-up pass)."""
    names = list(contenders)
    times: dict[str, list[float]] = {n: [] for n in names}
    forbidden: dict[str, int] = {}
    for name in names:  # warm-up pass: caches, lazy imports, first-call paths
        _time_pass(contenders[name], _fresh_requests(urls))
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            seconds, forbidden[name] = _time_pass(contenders[name], _fresh_requests(urls))
            times[name].append(seconds / len(urls) * 1e6)
    return times, forbidden


def _report_one_offs(mw: Any, folder: str) -> None:
    """Costs paid once per robots.txt body and once per crawl, not per request."""
    from scrapy_gbot_robots import parse
    from scrapy_gbot_robots.engine import lint as _lint
    from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
    from scrapy_gbot_robots.policy.states import PolicyConfig
    from scrapy_gbot_robots.report.collector import ReportCollector
    from scrapy_gbot_robots.report.writer import write

    body = ROBOTS_TXT.encode()
    runs = 50
    start = time.perf_counter()
    for _ in range(runs):
        _lint.lint(body)
    lint_ms = (time.perf_counter() - start) / runs * 1e3
    start = time.perf_counter()
    for _ in range(runs):
        parse(body).names_agent("BenchBot")  # what the middleware pays per fetched body
    parse_ms = (time.perf_counter() - start) / runs * 1e3
    start = time.perf_counter()
    for _ in range(runs):
        parse(body).usage_statements("BenchBot")  # the report's per-origin usage column
    usage_ms = (time.perf_counter() - start) / runs * 1e3 - parse_ms
    print(
        f"  lint of one robots.txt ({len(body):,} bytes): {lint_ms:.2f} ms, its content-usage "
        f"statements: {max(usage_ms, 0.0):.2f} ms, once per distinct body (the middleware's "
        f"own parse: {parse_ms:.2f} ms per fetch)"
    )
    # A report whose tables are full: 10,000 origins, 1,000 rules, 5 examples each.
    collector = ReportCollector(tokens="BenchBot")
    config = PolicyConfig()
    robots = parse(body)
    now = time.time()
    state = evaluate(FetchResult(status=200, body=body), now, None, config)
    start = time.perf_counter()
    for i in range(collector.max_origins):
        origin = f"https://www{i}.example.com"
        url = origin + "/robots.txt"
        collector.parked(origin)
        collector.fetched(
            origin, robots_url=url, chain=[(url, 200, None)], state=state, source="fetch"
        )
        collector.allowed(origin)
        if i < collector.max_rules // 2:
            for path in ("/admin/x", "/cart/y"):
                for k in range(collector.examples + 1):
                    page = f"{origin}{path}{k}"
                    collector.forbidden(origin, page, robots.decide(page, "BenchBot"))
    fill_s = time.perf_counter() - start
    start = time.perf_counter()
    data = collector.to_json({"spider": "bench", "stats": {}})
    paths = [os.path.join(folder, "full.json"), os.path.join(folder, "full.html")]
    for path in paths:
        write(data, path)
    close_ms = (time.perf_counter() - start) * 1e3
    sizes = ", ".join(f"{os.path.basename(p)} {os.path.getsize(p) / 1e6:.1f} MB" for p in paths)
    print(
        f"  a full report ({len(data['origins']):,} origins, {len(data['rules']):,} rules): "
        f"filled in {fill_s:.2f} s (one body linted {collector.lint_runs} time, its usage read "
        f"{collector.usage_runs} time), written in "
        f"{close_ms:.0f} ms at close ({sizes})"
    )
    del mw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()

    urls = _urls(args.requests)
    ours, hook = our_middleware()
    folder = tempfile.mkdtemp(prefix="gbot-bench-")
    reporting, _ = our_middleware({"GBOT_ROBOTS_REPORT": os.path.join(folder, "report.json")})
    contenders = {
        "built-in (Protego)": builtin_middleware(),
        "ours": ours,
        "ours + sched. hook": _WithSchedulingHook(ours, hook),
        "ours + report": reporting,
    }
    names = list(contenders)
    times, forbidden = _interleaved(contenders, urls, args.rounds)

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

    own = statistics.median(times["ours"])
    added = statistics.median(times["ours + report"]) - own
    print(
        f"report: adds {added:+.2f} µs/request = {added / own:+.1%} of the middleware's own "
        f"cost ({own:.2f} µs)  (target <= 10 %)"
    )
    # Each path alone: an allowed check only counts; a forbidden request also asks
    # robots.decide() for the deciding rule.
    robots = ours.origin_state(ORIGIN + "/").robots
    blocked = [u for u in urls if not robots.allowed(u, "BenchBot")]
    passed = [u for u in urls if robots.allowed(u, "BenchBot")]
    pair = {"ours": ours, "ours + report": reporting}
    for label, subset, what in [
        ("allowed", passed, "a counter"),
        ("forbidden", blocked, "the rule's counters"),
    ]:
        if not subset:
            continue
        t2, _ = _interleaved(pair, subset, args.rounds)
        own_p = statistics.median(t2["ours"])
        added_p = statistics.median(t2["ours + report"]) - own_p
        print(
            f"  {label} requests only ({len(subset) / len(urls):.0%} of the mix): {own_p:.2f} "
            f"µs each without the report, {added_p:+.2f} µs with it ({added_p / own_p:+.1%}: "
            f"{what})"
        )
    if blocked:
        runs = 5
        start = time.perf_counter()
        for _ in range(runs):
            for url in blocked:
                robots.decide(url, "BenchBot")
        decide_us = (time.perf_counter() - start) / runs / len(blocked) * 1e6
        print(f"    robots.decide() alone: {decide_us:.2f} µs per forbidden URL")
    _report_one_offs(reporting, folder)


if __name__ == "__main__":
    main()
