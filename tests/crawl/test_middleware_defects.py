"""Regression tests for the smaller defects of the broad-crawl issue, each in a real crawl."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
import pytest_twisted
import scrapy
from _httpserver import Server, crawl, make_spider, make_timeline_spider, middleware_of
from scrapy.core.scheduler import Scheduler
from scrapy.exceptions import IgnoreRequest

from scrapy_gbot_robots._compat import engine_download
from scrapy_gbot_robots._meta import SCHEDULED
from scrapy_gbot_robots.crawl.request_keys import ORIGIN_MEMO

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /x\n"


async def _download(spider: Any, request: scrapy.Request) -> str:
    try:
        response = await engine_download(spider.crawler.engine, request)
    except IgnoreRequest as exc:
        return f"ignored: {exc}"
    return str(response.status)


@pytest_twisted.ensureDeferred
async def test_copied_meta_does_not_loop_a_direct_download(server: Server, server2: Server) -> None:
    """``Request(url, meta=response.meta)`` sent with engine.download to an undecided origin."""
    server2.route("/robots.txt", delay=0.2, body=RULES)
    results: dict[str, str] = {}

    class Spider(make_spider(urls=[server.url("/start")])):  # type: ignore[misc]
        async def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            copied = dict(response.meta)
            copied[SCHEDULED] = True  # as if copied from a request still being scheduled
            for path in ("/ok", "/x"):
                url = server2.url(path)
                results[url] = await _download(self, scrapy.Request(url, meta=copied))

    crawler = await crawl(Spider, {"CLOSESPIDER_TIMEOUT": 20})
    assert crawler.spider.crawled == [server.url("/start")]
    assert results[server2.url("/ok")] == "200"
    assert results[server2.url("/x")].startswith("ignored: Forbidden")
    assert server2.count("/robots.txt") == 1 and server2.count("/x") == 0
    assert crawler.stats.get_value("finish_reason") == "finished"


@pytest_twisted.ensureDeferred
async def test_response_meta_of_a_scheduled_request_carries_no_internal_marker(
    server: Server,
) -> None:
    server.route("/robots.txt", body=RULES)
    seen: list[dict[str, Any]] = []

    class Spider(make_spider(urls=[server.url("/a")])):  # type: ignore[misc]
        def parse(self, response: Any) -> Any:
            seen.append(dict(response.meta))

    await crawl(Spider)
    assert len(seen) == 1
    assert not [key for key in seen[0] if key.startswith("_gbot_robots")]


@pytest_twisted.ensureDeferred
async def test_direct_downloads_respect_the_backoff_of_a_stopped_origin(
    server: Server, server2: Server
) -> None:
    server2.route("/robots.txt", status=503, headers={"Retry-After": "3600"})
    results: list[str] = []

    def bypass(spider: Any) -> None:
        from scrapy.utils.defer import deferred_from_coro

        async def go() -> None:
            for i in range(5):
                results.append(await _download(spider, scrapy.Request(server2.url(f"/d{i}"))))

        deferred_from_coro(go())

    crawler = await crawl(
        make_timeline_spider([(0.3, bypass), (1.5, lambda s: None)], urls=[server2.url("/p")]),
        {"GBOT_ROBOTS_PARK_TIMEOUT": 1.0},
    )
    # One fetch, then the 1 h Retry-After: the direct downloads waited instead of refetching.
    assert server2.count("/robots.txt") == 1
    assert results and all(r.startswith("ignored") for r in results)
    assert all(server2.count(f"/d{i}") == 0 for i in range(5))
    assert crawler.stats.get_value("robotstxt/dropped") >= 2


@pytest_twisted.ensureDeferred
async def test_per_origin_bookkeeping_stays_within_the_cache_size(server: Server) -> None:
    """No structure grows by one entry per origin that ever failed."""
    hosts = [f"e{i}.test" for i in range(40)]
    for host in hosts:
        server.route("/robots.txt", host=host, status=500)
    urls = [server.url("/p", host) for host in hosts]
    crawler = await crawl(
        make_spider(urls=urls), {"GBOT_ROBOTS_STORE_SIZE": 5, "GBOT_ROBOTS_PARK_TIMEOUT": 0.5}
    )
    mw = middleware_of(crawler)
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/dropped"] == 40
    assert stats["robotstxt/parked"] == 40 and stats["robotstxt/parked_peak"] <= 40
    # The LRU holds 5; the compact tier keeps the failing ones it let go of (their clocks).
    assert sum(mw.origin_state(url) is not None for url in urls) == 40
    # Every container of ours reachable from the middleware, whatever its name or owner:
    # none holds more origins than the bound (the scheme://netloc memo caps itself at
    # 100,000 entries, and is the one exception).
    containers = _our_containers(mw)
    paths = {where.rsplit(".", 1)[-1] for where, _ in containers}
    assert {"_origins", "_recs", "_at"} <= paths, paths  # the walk reaches keys, gate, wake-ups
    for where, container in containers:
        if where.endswith(".compact._data"):
            # The compact tier holds what the LRU let go of: bounded in bytes, not entries.
            compact = _at(mw, where.removesuffix("._data"))
            assert 0 < compact.used <= compact.max_bytes and len(container) <= 40
            continue
        keys = container.keys() if isinstance(container, dict) else container
        origins = [k for k in keys if isinstance(k, str) and k.startswith("http://e")]
        if len(origins) > 5:
            assert len(container) <= ORIGIN_MEMO and where.endswith("._origins"), where


def _at(root: object, path: str) -> Any:
    """The object at ``path`` ("mw.a.b") from ``root``."""
    obj = root
    for name in path.split(".")[1:]:
        obj = getattr(obj, name)
    return obj


def _our_containers(root: object) -> list[tuple[str, dict[Any, Any] | set[Any]]]:
    """(path, dict or set) for every container held by an object of this package."""
    found: list[tuple[str, dict[Any, Any] | set[Any]]] = []
    seen: set[int] = set()
    todo: list[tuple[str, object]] = [("mw", root)]
    while todo:
        path, obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        module = type(obj).__module__
        if not module.startswith("scrapy_gbot_robots"):
            continue
        slots = [s for c in type(obj).__mro__ for s in getattr(c, "__slots__", ())]
        names = list(getattr(obj, "__dict__", {})) + list(slots)
        for name in names:
            value = getattr(obj, name, None)
            if isinstance(value, (dict, set)):
                found.append((f"{path}.{name}", value))
            elif value is not None and type(value).__module__.startswith("scrapy_gbot_robots"):
                todo.append((f"{path}.{name}", value))
    return found


class _Boom(Scheduler):
    def enqueue_request(self, request: scrapy.Request) -> bool:
        if "boom" in request.url:
            raise RuntimeError("this scheduler refuses it")
        return bool(super().enqueue_request(request))


@pytest_twisted.ensureDeferred
async def test_release_goes_on_when_one_request_cannot_be_rescheduled(server: Server) -> None:
    server.route("/robots.txt", delay=0.2, body=RULES)
    urls = [server.url(p) for p in ("/a", "/boom", "/c", "/d")]
    crawler = await crawl(make_spider(urls=urls), {"SCHEDULER": f"{__name__}._Boom"})
    dropped = crawler.spider.dropped
    assert sorted(crawler.spider.crawled) == [server.url(p) for p in ("/a", "/c", "/d")]
    assert [url for url, _ in dropped] == [server.url("/boom")]
    assert "could not be rescheduled" in dropped[0][1]


@pytest_twisted.ensureDeferred
async def test_fetch_finishing_while_the_spider_closes_does_not_feed_the_scheduler(
    server: Server,
) -> None:
    server.route("/robots.txt", delay=1.0, body=b"")
    enqueued_after_close: list[str] = []

    class Watch(Scheduler):
        def enqueue_request(self, request: scrapy.Request) -> bool:
            if getattr(self, "closing", False) and request.url.startswith("http"):
                enqueued_after_close.append(request.url)
            return bool(super().enqueue_request(request))

    globals()["_Watch"] = Watch

    def close(spider: Any) -> None:
        from scrapy_gbot_robots._compat import close_spider, engine_scheduler

        engine_scheduler(spider.crawler.engine).closing = True  # type: ignore[union-attr]
        close_spider(spider.crawler.engine, spider, "test")

    urls = [server.url(f"/p{i}") for i in range(3)]
    crawler = await crawl(
        make_timeline_spider([(0.3, close)], urls=urls), {"SCHEDULER": f"{__name__}._Watch"}
    )
    assert crawler.spider.crawled == []
    assert enqueued_after_close == []
    dropped = [url for url, _ in crawler.spider.dropped]
    assert sorted(dropped) == sorted(urls)  # each given up with the signal, none silently
    assert server.count("/robots.txt") == 1
    assert crawler.stats.get_value("robotstxt/dropped") == 3


@pytest_twisted.ensureDeferred
async def test_duplicates_of_a_parked_request_are_not_parked_twice(server: Server) -> None:
    server.route("/robots.txt", delay=0.3, body=RULES)
    urls = [server.url("/same")] * 50 + [server.url("/other")]

    class Spider(make_spider(urls=urls)):  # type: ignore[misc]
        dupes: ClassVar[int] = 0

    crawler = await crawl(Spider)
    assert sorted(crawler.spider.crawled) == [server.url("/other"), server.url("/same")]
    assert server.count("/same") == 1
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/parked_peak"] == 2
    assert stats["dupefilter/filtered"] == 49


@pytest_twisted.ensureDeferred
async def test_ignore_request_on_robots_txt_is_a_server_error_not_allow_all(
    server: Server,
) -> None:
    """Another component refusing the robots.txt download must not mean "no restrictions"."""
    server.route("/robots.txt", body=b"User-agent: *\nDisallow: /\n")
    server.route("/p", body=b"page")
    crawler = await crawl(
        make_spider(urls=[server.url("/p")]),
        {
            "DOWNLOADER_MIDDLEWARES": {f"{__name__}.RefuseRobots": 50},
            "GBOT_ROBOTS_PARK_TIMEOUT": 0.5,
        },
    )
    assert crawler.spider.crawled == []
    assert server.count("/p") == 0
    assert crawler.stats.get_value("robotstxt/origin_state/server_error") == 1


class RefuseRobots:
    def process_request(self, request: Any, spider: Any = None) -> None:
        if request.url.endswith("/robots.txt"):
            raise IgnoreRequest("refused by a test middleware")


