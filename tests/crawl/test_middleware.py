"""Real crawls against a real local HTTP server: fetching, status codes, bodies, user agents."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import pytest_twisted
import scrapy
from _httpserver import Server, crawl, make_spider
from scrapy import signals as scrapy_signals

from scrapy_gbot_robots import signals

pytestmark = pytest.mark.crawl

DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"


def forbidden(spider: Any) -> list[str]:
    return sorted(url for url, exc in spider.failed if exc == "IgnoreRequest")


@pytest_twisted.ensureDeferred
async def test_allowed_and_forbidden_with_deciding_line(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route(
        "/robots.txt", body=b"# hi\nUser-agent: *\nAllow: /private/ok\nDisallow: /private\n"
    )
    urls = [server.url("/a"), server.url("/private/x"), server.url("/private/ok"), server.url("/b")]
    caplog.set_level(logging.DEBUG, logger="scrapy_gbot_robots")
    decisions: list[Any] = []
    spider_cls = make_spider(urls=urls)
    crawler_box: dict[str, Any] = {}

    class Spider(spider_cls):  # type: ignore[misc,valid-type]
        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)

            def on_forbidden(request: Any, spider: Any, decision: Any) -> None:
                decisions.append(decision)

            crawler_box["handler"] = on_forbidden  # signals hold weak references
            crawler.signals.connect(on_forbidden, signal=signals.request_forbidden)
            return spider

    crawler = await crawl(Spider)
    spider = crawler.spider
    assert sorted(spider.crawled) == sorted([urls[0], urls[2], urls[3]])
    assert forbidden(spider) == [urls[1]]
    assert server.count("/private/x") == 0
    assert server.count("/robots.txt") == 1
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/forbidden"] == 1
    assert stats["robotstxt/request_count"] == 1
    assert stats["robotstxt/response_count"] == 1
    assert stats["robotstxt/response_status_count/200"] == 1
    assert stats["robotstxt/origin_state/rules"] == 1
    assert stats["robotstxt/parked"] >= 1
    assert [(d.line, d.rule) for d in decisions] == [(4, "Disallow: /private")]
    logs = [r.getMessage() for r in caplog.records if "Forbidden by robots.txt" in r.getMessage()]
    assert len(logs) == 1 and "line 4" in logs[0] and "Disallow: /private" in logs[0]
    assert all(r.levelno == logging.DEBUG for r in caplog.records if "Forbidden" in r.getMessage())
    parked = [r for r in caplog.records if r.getMessage().startswith("Parked until")]
    assert len(parked) == stats["robotstxt/parked"]
    assert all(r.levelno == logging.DEBUG for r in parked)


@pytest.mark.parametrize("status", [401, 403, 404, 410])
@pytest_twisted.ensureDeferred
async def test_4xx_means_no_restrictions_whatever_the_body(server: Server, status: int) -> None:
    server.route("/robots.txt", status=status, body=DISALLOW_ALL)
    urls = [server.url("/a"), server.url("/b")]
    crawler = await crawl(make_spider(urls=urls))
    assert sorted(crawler.spider.crawled) == urls
    assert crawler.stats.get_value(f"robotstxt/response_status_count/{status}") == 1
    assert crawler.stats.get_value("robotstxt/origin_state/allow_all") == 1


@pytest_twisted.ensureDeferred
async def test_html_body_is_parsed_and_meta_refresh_never_followed(server: Server) -> None:
    html = (
        b'<html><head><meta http-equiv="refresh" content="0; url=/real-robots.txt"></head>'
        b"<body>\nUser-agent: *\nDisallow: /secret\n</body></html>"
    )
    server.route("/robots.txt", body=html, headers={"Content-Type": "text/html"})
    server.route("/real-robots.txt", body=DISALLOW_ALL)
    urls = [server.url("/a"), server.url("/secret")]
    crawler = await crawl(make_spider(urls=urls))
    assert crawler.spider.crawled == [urls[0]]
    assert forbidden(crawler.spider) == [urls[1]]
    assert server.count("/real-robots.txt") == 0


@pytest.mark.parametrize(
    ("body", "label"),
    [
        (b"\xef\xbb\xbfUser-agent: *\nDisallow: /x\n", "BOM"),
        (b"User-agent: *\rDisallow: /x\rAllow: /y\r", "CR-only"),
        (b"User-agent: *\r\nDisallow: /x\r\n", "CRLF"),
        (b"# caf\xe9 \xff\xfe\nUser-agent: *\nDisallow: /x\nDisallow: /caf\xe9\n", "latin-1"),
    ],
)
@pytest_twisted.ensureDeferred
async def test_bodies(server: Server, body: bytes, label: str) -> None:
    server.route("/robots.txt", body=body)
    urls = [server.url("/ok"), server.url("/x/1")]
    crawler = await crawl(make_spider(urls=urls))
    assert crawler.spider.crawled == [urls[0]], label
    assert forbidden(crawler.spider) == [urls[1]], label


@pytest_twisted.ensureDeferred
async def test_600_kib_body_is_cut_at_512000_bytes_not_failed(server: Server) -> None:
    head = b"User-agent: *\nDisallow: /early\n"
    filler = b"#" + b"x" * 512_000 + b"\n"
    tail = b"Disallow: /late\n"
    body = head + filler + tail + b"#" * (600 * 1024 - len(head + filler + tail))
    assert len(body) == 600 * 1024 and body.index(tail) > 512_000
    server.route("/robots.txt", body=body)
    urls = [server.url("/early"), server.url("/late")]
    crawler = await crawl(make_spider(urls=urls))
    assert crawler.spider.crawled == [urls[1]]  # the rule past the cap is ignored
    assert forbidden(crawler.spider) == [urls[0]]
    assert crawler.stats.get_value("robotstxt/truncated") == 1
    mw = _middleware(crawler)
    state = mw.origin_state(urls[0])
    assert state is not None and len(state.robots.body) == 512_000


def _middleware(crawler: Any) -> Any:
    from scrapy_gbot_robots import GoogleRobotsTxtMiddleware

    for mw in crawler.engine.downloader.middleware.middlewares:
        if isinstance(mw, GoogleRobotsTxtMiddleware):
            return mw
    raise AssertionError("middleware not installed")


# -- redirects ------------------------------------------------------------------------------
def _chain(server: Server, hops: int, final: bytes, host: str | None = None) -> None:
    for i in range(hops):
        src = "/robots.txt" if i == 0 else f"/hop{i}"
        server.route(src, status=301 if i % 2 else 302, headers={"Location": f"/hop{i + 1}"})
    server.route(f"/hop{hops}" if hops else "/robots.txt", body=final)


@pytest_twisted.ensureDeferred
async def test_five_redirect_hops_are_followed(server: Server) -> None:
    _chain(server, 5, b"User-agent: *\nDisallow: /x\n")
    urls = [server.url("/ok"), server.url("/x")]
    crawler = await crawl(make_spider(urls=urls))
    assert crawler.spider.crawled == [urls[0]]
    assert forbidden(crawler.spider) == [urls[1]]
    assert server.count("/hop5") == 1
    assert crawler.stats.get_value("robotstxt/request_count") == 6


@pytest_twisted.ensureDeferred
async def test_six_redirect_hops_mean_404(server: Server) -> None:
    _chain(server, 6, DISALLOW_ALL)
    urls = [server.url("/ok"), server.url("/x")]
    crawler = await crawl(make_spider(urls=urls))
    assert sorted(crawler.spider.crawled) == urls
    assert server.count("/hop5") == 1 and server.count("/hop6") == 0
    assert crawler.stats.get_value("robotstxt/origin_state/allow_all") == 1


@pytest_twisted.ensureDeferred
async def test_cross_host_redirect_and_redirect_target_not_checked(server: Server) -> None:
    # a.test's robots.txt lives on b.test, whose own robots.txt forbids everything: the
    # robots.txt request itself is never subject to robots.txt.
    server.route(
        "/robots.txt",
        host="a.test",
        status=301,
        headers={"Location": server.url("/shared-robots.txt", "b.test")},
    )
    server.route("/shared-robots.txt", host="b.test", body=b"User-agent: *\nDisallow: /x\n")
    server.route("/robots.txt", host="b.test", body=DISALLOW_ALL)
    urls = [server.url("/ok", "a.test"), server.url("/x", "a.test")]
    crawler = await crawl(make_spider(urls=urls))
    assert crawler.spider.crawled == [urls[0]]
    assert forbidden(crawler.spider) == [urls[1]]
    assert server.count("/robots.txt", "b.test") == 0


@pytest_twisted.ensureDeferred
async def test_redirected_page_to_new_origin_is_checked_there(server: Server) -> None:
    server.route("/robots.txt", host="a.test", body=b"")
    server.route(
        "/go", host="a.test", status=302, headers={"Location": server.url("/private", "b.test")}
    )
    server.route("/robots.txt", host="b.test", body=b"User-agent: *\nDisallow: /private\n")
    crawler = await crawl(make_spider(urls=[server.url("/go", "a.test")]))
    assert crawler.spider.crawled == []
    assert server.count("/private", "b.test") == 0
    assert server.count("/robots.txt", "b.test") == 1
    assert crawler.stats.get_value("robotstxt/forbidden") == 1


# -- origins --------------------------------------------------------------------------------
@pytest_twisted.ensureDeferred
async def test_host_and_host_80_share_one_robots_txt(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Through an HTTP proxy (our server), so port 80 needs no privileges; this also shows the
    # robots.txt request goes through Scrapy's downloader middlewares (HttpProxyMiddleware).
    monkeypatch.setenv("http_proxy", server.url(""))
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    server.route("/robots.txt", host="site.test", body=b"User-agent: *\nDisallow: /x\n")
    urls = [
        "http://site.test/a",
        "http://site.test:80/b",
        "http://SITE.test/x",
        "http://site.test:8080/x",
    ]
    crawler = await crawl(make_spider(urls=urls))
    assert server.count("/robots.txt", "site.test") == 2  # one for :80, one for :8080
    assert sorted(crawler.spider.crawled) == ["http://site.test/a", "http://site.test:80/b"]
    assert sorted(forbidden(crawler.spider)) == ["http://site.test/x", "http://site.test:8080/x"]
    assert server.count("/x", "site.test") == 0


@pytest_twisted.ensureDeferred
async def test_ports_are_separate_origins(server: Server, server2: Server) -> None:
    server.route("/robots.txt", body=DISALLOW_ALL)
    urls = [server.url("/a"), server2.url("/a")]
    crawler = await crawl(make_spider(urls=urls))
    assert crawler.spider.crawled == [server2.url("/a")]
    assert server.count("/robots.txt") == 1 and server2.count("/robots.txt") == 1


# -- user agents ----------------------------------------------------------------------------
AGENTS = b"User-agent: alphabot\nDisallow: /a\n\nUser-agent: betabot\nDisallow: /b\n"


@pytest_twisted.ensureDeferred
async def test_two_spiders_one_runner_each_its_own_token(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    from _httpserver import BASE_SETTINGS
    from scrapy.crawler import CrawlerRunner

    server.route("/robots.txt", body=AGENTS)
    urls = [server.url("/a"), server.url("/b")]
    alpha = make_spider("alpha", urls=urls, custom_settings={"ROBOTSTXT_USER_AGENT": "AlphaBot"})
    beta = make_spider(
        "beta",
        urls=urls,
        custom_settings={
            "USER_AGENT": "Mozilla/5.0 (compatible; BetaBot/3.1; +http://b.test)",
            "GBOT_ROBOTS_CONCURRENT_FETCHES": 5,
        },
    )
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    runner = CrawlerRunner(BASE_SETTINGS)
    c1, c2 = runner.create_crawler(alpha), runner.create_crawler(beta)
    await runner.crawl(c1)
    await runner.crawl(c2)
    await runner.join()
    assert getattr(c1.spider, "crawled", None) == [server.url("/b")]
    assert getattr(c2.spider, "crawled", None) == [server.url("/a")]
    assert _middleware(c1).token == "AlphaBot"
    assert _middleware(c2).token == "BetaBot"
    budgets = [r.getMessage() for r in caplog.records if "downloads at once" in r.getMessage()]
    assert len(budgets) == 2  # each its own: alpha's from 16 (up to 8 x 16), beta's at most 5
    assert "; 16, paced between 4 and 128, robots.txt downloads" in budgets[0]
    assert "; 5, paced between 1 and 5, robots.txt downloads" in budgets[1]


@pytest_twisted.ensureDeferred
async def test_request_meta_overrides(server: Server) -> None:
    server.route("/robots.txt", body=AGENTS + b"\nUser-agent: *\nDisallow: /\n")
    spider_cls = make_spider(urls=[])

    class Spider(spider_cls):  # type: ignore[misc,valid-type]
        async def start(self) -> Any:
            for req in self._reqs():
                yield req

        def start_requests(self) -> Any:
            yield from self._reqs()

        def _reqs(self) -> Any:
            yield self.make_request(server.url("/a"), meta={"gbot_robots_token": "betabot"})
            yield self.make_request(server.url("/b"), meta={"gbot_robots_token": "betabot"})
            yield self.make_request(
                server.url("/a?x"), meta={"gbot_robots_token": "AlphaBot/1.0 (+http://a)"}
            )
            yield self.make_request(server.url("/c"), meta={"dont_obey_robotstxt": True})
            yield self.make_request(server.url("/d"))

    crawler = await crawl(Spider)
    assert sorted(crawler.spider.crawled) == [server.url("/a"), server.url("/c")]
    assert sorted(forbidden(crawler.spider)) == sorted(
        [server.url("/b"), server.url("/a?x"), server.url("/d")]
    )


@pytest_twisted.ensureDeferred
async def test_user_agent_header_of_the_request_is_used(server: Server) -> None:
    server.route("/robots.txt", body=AGENTS)
    spider_cls = make_spider(urls=[])

    class Spider(spider_cls):  # type: ignore[misc,valid-type]
        def _reqs(self) -> Any:
            yield self.make_request(server.url("/a"), headers={"User-Agent": "alphabot/2"})
            yield self.make_request(server.url("/b"), headers={"User-Agent": "alphabot/2"})

        async def start(self) -> Any:
            for req in self._reqs():
                yield req

        def start_requests(self) -> Any:
            yield from self._reqs()

    crawler = await crawl(Spider)
    assert crawler.spider.crawled == [server.url("/b")]


# -- add-on and Scrapy compatibility --------------------------------------------------------
def test_addon_keeps_a_projects_own_body_middleware_under_either_name() -> None:
    """Placed under any name docs/usage.md gives, it is not added a second time."""
    from scrapy.settings import Settings
    from scrapy.utils.conf import build_component_list

    from scrapy_gbot_robots import Addon

    for name in (
        "scrapy_gbot_robots.RobotsBodyMiddleware",
        "scrapy_gbot_robots.body.RobotsBodyMiddleware",
        "scrapy_gbot_robots.crawl.body.RobotsBodyMiddleware",
    ):
        settings = Settings({"DOWNLOADER_MIDDLEWARES": {name: 580}})
        Addon().update_settings(settings)
        table = settings.getwithbase("DOWNLOADER_MIDDLEWARES")
        body = [c for c in build_component_list(table) if "RobotsBodyMiddleware" in str(c)]
        assert body == [name], body
        assert table[name] == 580


def test_addon_keeps_a_projects_own_robots_middleware_under_any_of_its_paths() -> None:
    """The public path projects wrote before the package had folders is not installed twice."""
    from scrapy.settings import Settings
    from scrapy.utils.conf import build_component_list

    from scrapy_gbot_robots import Addon

    for name in (
        "scrapy_gbot_robots.GoogleRobotsTxtMiddleware",
        "scrapy_gbot_robots.middleware.GoogleRobotsTxtMiddleware",
        "scrapy_gbot_robots.crawl.middleware.GoogleRobotsTxtMiddleware",
    ):
        settings = Settings({"DOWNLOADER_MIDDLEWARES": {name: 120}})
        Addon().update_settings(settings)
        table = settings.getwithbase("DOWNLOADER_MIDDLEWARES")
        ours = [c for c in build_component_list(table) if "GoogleRobotsTxt" in str(c)]
        assert len(ours) == 1, ours
        assert table[ours[0]] == 120


def test_addon_says_when_a_project_disabled_the_body_middleware(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from scrapy.settings import Settings

    from scrapy_gbot_robots import Addon

    settings = Settings(
        {"DOWNLOADER_MIDDLEWARES": {"scrapy_gbot_robots.RobotsBodyMiddleware": None}}
    )
    with caplog.at_level(logging.INFO, logger="scrapy_gbot_robots"):
        Addon().update_settings(settings)
    messages = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert any(
        lvl == "INFO" and "RobotsBodyMiddleware (priority disabled)" in m for lvl, m in messages
    )
    # What that costs is said once, by the crawl, which knows the chain it really runs.
    assert not [m for lvl, m in messages if lvl == "WARNING"]


@pytest_twisted.ensureDeferred
async def test_addon_replaces_builtin_at_its_priority(server: Server) -> None:
    from _httpserver import BASE_SETTINGS
    from scrapy.crawler import CrawlerRunner
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware

    server.route("/robots.txt", body=DISALLOW_ALL)
    cases: list[tuple[dict[str, Any], int]] = [
        ({}, 100),
        ({"DOWNLOADER_MIDDLEWARES": {RobotsTxtMiddleware: 543}}, 543),
        ({"DOWNLOADER_MIDDLEWARES": {"scrapy_gbot_robots.GoogleRobotsTxtMiddleware": 42}}, 42),
    ]
    for extra, priority in cases:
        runner = CrawlerRunner({**BASE_SETTINGS, **extra})
        crawler = runner.create_crawler(make_spider(urls=[server.url("/a")]))
        await crawler.crawl()
        installed = crawler.engine.downloader.middleware.middlewares
        settings_mws: dict[Any, Any] = dict(crawler.settings.getwithbase("DOWNLOADER_MIDDLEWARES"))
        ours = {k: v for k, v in settings_mws.items() if "GoogleRobotsTxt" in str(k)}
        assert list(ours.values()) == [priority]
        assert all(
            v is None
            for k, v in settings_mws.items()
            if str(k).endswith("robotstxt.RobotsTxtMiddleware") or k is RobotsTxtMiddleware
        )
        assert getattr(crawler.spider, "crawled", None) == []
        assert not any(isinstance(m, RobotsTxtMiddleware) for m in installed)
        assert _middleware(crawler) in installed


@pytest_twisted.ensureDeferred
async def test_robotstxt_obey_false_disables_it(server: Server) -> None:
    server.route("/robots.txt", body=DISALLOW_ALL)
    crawler = await crawl(make_spider(urls=[server.url("/a")]), {"ROBOTSTXT_OBEY": False})
    assert crawler.spider.crawled == [server.url("/a")]
    assert server.count("/robots.txt") == 0


@pytest_twisted.ensureDeferred
async def test_robots_parsed_signal_and_sitemap_recipe(server: Server) -> None:
    """The recipe of docs/usage.md: feed robots.txt sitemaps to a SitemapSpider, no second fetch."""
    from scrapy_gbot_robots._compat import ROBOTS_PARSED_SIGNAL

    if ROBOTS_PARSED_SIGNAL is None:
        pytest.skip("Scrapy < 2.18 has no robots_parsed signal")
    from scrapy.spiders import SitemapSpider

    sitemap = server.url("/sitemap.xml")
    robots = f"User-agent: *\nDisallow: /private\nSitemap: {sitemap}\n"
    server.route("/robots.txt", body=robots.encode())
    server.route(
        "/sitemap.xml",
        body=(
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<url><loc>{server.url('/page1')}</loc></url>"
            f"<url><loc>{server.url('/private/p')}</loc></url>"
            "</urlset>"
        ).encode(),
        headers={"Content-Type": "application/xml"},
    )
    seen: list[str] = []

    class RobotsSitemapSpider(SitemapSpider):
        name = "sitemaps"
        sitemap_urls = ()  # discovered from robots.txt instead

        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(spider.robots_parsed, signal=scrapy_signals.robots_parsed)
            return spider

        def robots_parsed(self, robotparser: Any, request: Any) -> None:
            for url in robotparser.robots.sitemaps:
                self.crawler.engine.crawl(scrapy.Request(url, callback=self._parse_sitemap))

        async def start(self) -> Any:
            yield scrapy.Request(server.url("/"), callback=self.parse)

        def start_requests(self) -> Any:
            yield scrapy.Request(server.url("/"), callback=self.parse)

        def parse(self, response: Any) -> None:
            seen.append(response.url)

    crawler = await crawl(RobotsSitemapSpider)
    assert sorted(seen) == [server.url("/"), server.url("/page1")]
    assert server.count("/robots.txt") == 1
    assert server.count("/private/p") == 0
    assert _middleware(crawler).sitemaps(server.url("/x")) == (sitemap,)


@pytest_twisted.ensureDeferred
async def test_direct_engine_download_still_checked(server: Server, server2: Server) -> None:
    """Requests that bypass the scheduler (engine.download) wait for robots.txt in place."""
    from scrapy.exceptions import IgnoreRequest

    server2.route("/robots.txt", delay=0.2, body=b"User-agent: *\nDisallow: /x\n")
    results: dict[str, str] = {}

    async def fetch(spider: Any, url: str) -> None:
        from scrapy_gbot_robots._compat import engine_download

        request = scrapy.Request(url)
        try:
            response = await engine_download(spider.crawler.engine, request)
            results[url] = str(response.status)
        except IgnoreRequest:
            results[url] = "ignored"

    class Spider(make_spider(urls=[server.url("/start")])):  # type: ignore[misc]
        async def parse(self, response: Any) -> Any:
            await fetch(self, server2.url("/ok"))
            await fetch(self, server2.url("/x"))
            self.crawled.append(response.url)

    crawler = await crawl(Spider)
    assert crawler.spider.crawled == [server.url("/start")]
    assert results == {server2.url("/ok"): "200", server2.url("/x"): "ignored"}
    assert server2.count("/x") == 0 and server2.count("/robots.txt") == 1


@pytest_twisted.ensureDeferred
async def test_offsite_requests_cost_no_robots_fetch(server: Server) -> None:
    server.route("/robots.txt", host="a.test", body=b"User-agent: *\nDisallow: /x\n")
    urls = [server.url("/p", "a.test"), server.url("/p", "b.test")]
    crawler = await crawl(make_spider(urls=urls, allowed_domains=["a.test"]))
    assert crawler.spider.crawled == [urls[0]]
    assert server.count("/robots.txt", "b.test") == 0
    assert crawler.stats.get_value("offsite/filtered") == 1


@pytest_twisted.ensureDeferred
async def test_a_robots_txt_redirected_elsewhere_is_the_asking_origins_only(
    server: Server,
) -> None:
    """Issue 46, item 8: a.test's robots.txt redirects to b.test's /policy.txt. The file is
    obeyed for a.test, the origin that asked; it is never stored as b.test's own robots.txt:
    b.test's requests, which come after a.test was decided, fetch b.test's /robots.txt."""
    from _httpserver import make_timeline_spider, middleware_of

    html: dict[str, str | list[str]] = {"Content-Type": "text/html; charset=utf-8"}
    server.route("*", headers=html)
    policy = server.url("/policy.txt", "b.test")
    server.route("/robots.txt", host="a.test", status=301, headers={**html, "Location": policy})
    server.route("/policy.txt", host="b.test", body=b"User-agent: *\nDisallow: /private\n")
    server.route("/robots.txt", host="b.test", body=b"User-agent: *\nDisallow: /other\n")
    a = [server.url("/ok", "a.test"), server.url("/private", "a.test")]
    b = [server.url("/private", "b.test"), server.url("/other", "b.test")]

    def then_b(spider: Any) -> None:
        assert server.count("/policy.txt", "b.test") == 1  # a.test was decided first
        for url in b:
            spider.inject(url)

    spider_cls = make_timeline_spider([(0.5, then_b)], urls=a)
    crawler = await crawl(spider_cls)
    spider: Any = crawler.spider
    assert not spider.step_errors
    assert sorted(spider.crawled) == sorted([a[0], b[0]])
    assert forbidden(spider) == sorted([a[1], b[1]])
    assert server.count("/private", "a.test") == server.count("/other", "b.test") == 0
    assert server.count("/robots.txt", "b.test") == 1 and server.count("/policy.txt") == 1
    mw = middleware_of(crawler)
    mine, theirs = mw.origin_state(a[0]), mw.origin_state(b[0])
    assert mine.robots is not None and theirs.robots is not None
    assert not mine.robots.allowed(a[1], "TestBot") and mine.robots.allowed(a[0], "x")
    assert theirs.robots.allowed(b[0], "TestBot") and not theirs.robots.allowed(b[1], "x")
