"""``GBOT_ROBOTS_PAGE_RULES``: real crawls against a local server read and obey robots meta
tags and ``X-Robots-Tag`` (both header forms, the token and ``robots`` names, conflicts,
``none``, ``unavailable_after``), drop what a ``nofollow`` page yields only with ``"obey"``,
keep ``dont_obey_robotstxt`` requests and errback output, and fill the report in observe mode.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted
import scrapy
from _httpserver import BASE_SETTINGS, Server, crawl
from scrapy.crawler import CrawlerRunner

from scrapy_gbot_robots import PageRules, page_rules, signals

pytestmark = pytest.mark.crawl

ROBOTS = b"User-agent: *\nDisallow: /private/\n"
READ = {"GBOT_ROBOTS_PAGE_RULES": "read"}
OBEY = {"GBOT_ROBOTS_PAGE_RULES": "obey"}
TOKEN = "TestBot"  # BASE_SETTINGS' User-Agent reduces to it


def page(*metas: tuple[str, str], links: tuple[str, ...] = ()) -> bytes:
    tags = "".join(f'<meta name="{n}" content="{c}">' for n, c in metas)
    anchors = "".join(f'<a href="{href}">x</a>' for href in links)
    return f"<html><head>{tags}</head><body>{anchors}</body></html>".encode()


class Pages(scrapy.Spider):
    """Requests ``urls``; each page's rules are recorded, and its links followed as requests
    (``follow_meta`` is their meta); what errbacks yield goes to ``errback_yields``."""

    name = "pages"
    urls: ClassVar[list[str]] = []
    start_meta: ClassVar[dict[str, Any]] = {}
    follow_meta: ClassVar[dict[str, Any]] = {}
    errback_yields: ClassVar[list[str]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rules: dict[str, PageRules | None] = {}
        self.crawled: list[str] = []
        self.failed: list[str] = []
        self.items: list[dict[str, Any]] = []

    async def start(self) -> Any:
        for request in self.start_requests():
            yield request

    def start_requests(self) -> Any:  # Scrapy < 2.13
        for url in self.urls:
            yield scrapy.Request(
                url, callback=self.parse, errback=self.on_error, meta=dict(self.start_meta)
            )

    def parse(self, response: Any) -> Any:
        self.crawled.append(response.url)
        self.rules[response.url] = response.meta.get("gbot_robots_page_rules")
        found = page_rules(response)
        item = {"url": response.url, "rules": found.as_json() if found else None}
        self.items.append(item)
        yield item
        for href in response.css("a::attr(href)").getall():
            yield response.follow(
                href, callback=self.parse, errback=self.on_error, meta=dict(self.follow_meta)
            )

    def on_error(self, failure: Any) -> Any:
        self.failed.append(failure.request.url)
        for url in self.errback_yields:
            yield scrapy.Request(url, callback=self.parse, dont_filter=True)


def spider(urls: list[str], **attrs: Any) -> Any:
    attrs.setdefault("start_meta", {})
    attrs.setdefault("follow_meta", {})
    attrs.setdefault("errback_yields", [])
    return type("PagesSpider", (Pages,), {"urls": urls, **attrs})


def stats(crawler: Any, name: str) -> Any:
    return crawler.stats.get_value(f"robotstxt/page_rules/{name}")


@pytest_twisted.ensureDeferred
async def test_read_puts_every_rule_with_its_source_in_meta(server: Server) -> None:
    server.route("/robots.txt", body=ROBOTS)
    server.route(
        "/a",
        body=page(
            ("robots", "max-snippet: 50, max-image-preview: large"),
            ("TestBot", "max-snippet: 20, notranslate"),
            ("otherbot", "noindex"),  # another crawler's: not read
        ),
        headers={"X-Robots-Tag": ["testbot: nofollow", "otherbot: noindex", "noimageindex"]},
    )
    server.route("/b", body=page(("robots", "none")))
    server.route(
        "/c",
        body=page(("robots", "all")),
        headers={"X-Robots-Tag": "unavailable_after: 25 Jun 2010 15:00:00 PST, nosnippet"},
    )
    pdf = {"Content-Type": "application/pdf", "X-Robots-Tag": "noindex"}
    server.route("/d.pdf", body=b"%PDF <meta name=robots content=nofollow>", headers=pdf)
    urls = [server.url(p) for p in ("/a", "/b", "/c", "/d.pdf")]
    s = spider(urls)
    crawler = await crawl(s, READ)
    got = crawler.spider.rules
    a = got[urls[0]]
    assert isinstance(a, PageRules)
    assert (a.noindex, a.nofollow, a.noimageindex, a.notranslate) == (False, True, True, True)
    assert a.max_snippet == 20 and a.source("max-snippet") == ("meta:testbot",)  # the smaller
    assert a.max_image_preview == "large" and a.source("nofollow") == ("header:testbot",)
    b = got[urls[1]]
    assert b.noindex and b.nofollow and b.source("noindex") == ("meta:robots",)
    c = got[urls[2]]
    assert c.unavailable_after == datetime(2010, 6, 25, 23, tzinfo=timezone.utc)
    assert c.nosnippet and not c.noindex and not c.indexable(time.time())  # past its date
    d = got[urls[3]]
    assert d.noindex and d.source("noindex") == ("header",)  # not HTML: the header only
    assert not d.nofollow  # its body is not read
    assert (stats(crawler, "read"), stats(crawler, "noindex"), stats(crawler, "nofollow")) == (
        4,
        3,  # b (none), c (past its date), d
        2,  # a, b
    )
    # "read" does not obey: the links of the nofollow page are crawled.
    assert stats(crawler, "dropped_nofollow") is None
    item = next(i for i in crawler.spider.items if i["url"] == urls[0])  # any order
    assert item["rules"]["sources"]["nofollow"] == ["header:testbot"]


@pytest_twisted.ensureDeferred
async def test_a_request_token_replaces_the_crawlers(server: Server) -> None:
    server.route("/robots.txt", body=ROBOTS)
    server.route("/n", body=page(("googlebot-news", "noindex"), ("testbot", "nofollow")))
    url = server.url("/n")
    s = spider([url], start_meta={"gbot_robots_token": "Googlebot-News"})
    crawler = await crawl(s, READ)
    rules = crawler.spider.rules[url]
    assert rules.noindex and not rules.nofollow
    assert rules.source("noindex") == ("meta:googlebot-news",)


@pytest_twisted.ensureDeferred
async def test_obey_drops_what_a_nofollow_page_yields_and_keeps_the_escape_meta(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", body=ROBOTS)
    server.route("/hub", body=page(("robots", "nofollow"), links=("/x", "/y")))
    server.route(
        "/hub2",
        body=page(links=("/z",)),
        headers={"X-Robots-Tag": "testbot: nofollow"},
    )
    server.route("/open", body=page(links=("/w",)))
    for path in ("/x", "/y", "/z", "/w"):
        server.route(path, body=page())
    dropped: list[tuple[str, str, tuple[str, ...]]] = []

    def on_dropped(request: Any, response: Any, spider: Any, sources: tuple[str, ...]) -> None:
        dropped.append((request.url, response.url, sources))

    s = spider([server.url("/hub"), server.url("/hub2"), server.url("/open")])
    runner = CrawlerRunner({**BASE_SETTINGS, **OBEY})
    crawler = runner.create_crawler(s)
    crawler.signals.connect(on_dropped, signal=signals.request_dropped_nofollow)
    with caplog.at_level(logging.DEBUG, logger="scrapy_gbot_robots.middleware"):
        await crawler.crawl()
    assert server.count("/x") == server.count("/y") == server.count("/z") == 0
    assert server.count("/w") == 1  # a page without nofollow: its links are followed
    assert sorted(dropped) == [
        (server.url("/x"), server.url("/hub"), ("meta:robots",)),
        (server.url("/y"), server.url("/hub"), ("meta:robots",)),
        (server.url("/z"), server.url("/hub2"), ("header:testbot",)),
    ]
    assert stats(crawler, "dropped_nofollow") == 3
    spider_run: Any = crawler.spider
    assert len(spider_run.items) == 4  # items from a nofollow page are never dropped
    logged = [r.getMessage() for r in caplog.records if "the page says nofollow" in r.getMessage()]
    assert any(
        f"Dropped <GET {server.url('/x')}>, yielded from <200 {server.url('/hub')}>: "
        "the page says nofollow (meta:robots)" == line
        for line in logged
    ), logged
    # The escape meta keeps them.
    server.hits.clear()
    kept = spider([server.url("/hub")], follow_meta={"dont_obey_robotstxt": True})
    crawler = await crawl(kept, OBEY)
    assert server.count("/x") == server.count("/y") == 1
    assert stats(crawler, "kept_nofollow") == 2 and stats(crawler, "dropped_nofollow") is None


@pytest_twisted.ensureDeferred
async def test_what_an_errback_yields_is_never_dropped(server: Server) -> None:
    server.route("/robots.txt", body=ROBOTS)
    # A 404 whose body says nofollow: Scrapy filters it before the callback (HttpError), so
    # no page was read; and a reset connection, with no page at all. Each request carries
    # a copied meta whose page said nofollow: a copy is not a page read.
    server.route("/gone", status=404, body=page(("robots", "nofollow")))
    server.route("/reset", reset=True)
    server.route("/after-404", body=page())
    server.route("/after-reset", body=page())
    stale = {"gbot_robots_page_rules": PageRules(nofollow=True)}
    s = spider([server.url("/gone")], start_meta=stale, errback_yields=[server.url("/after-404")])
    crawler = await crawl(s, OBEY)
    assert crawler.spider.failed == [server.url("/gone")]
    assert server.count("/after-404") == 1
    r = spider(
        [server.url("/reset")], start_meta=stale, errback_yields=[server.url("/after-reset")]
    )
    crawler = await crawl(r, OBEY)
    assert server.count("/after-reset") == 1
    assert stats(crawler, "dropped_nofollow") is None


@pytest_twisted.ensureDeferred
async def test_off_reads_nothing_and_the_helper_still_reads_on_demand(server: Server) -> None:
    server.route("/robots.txt", body=ROBOTS)
    server.route("/p", body=page(("robots", "noindex")), headers={"X-Robots-Tag": "nofollow"})
    url = server.url("/p")
    s = spider([url])
    crawler = await crawl(s)
    assert crawler.spider.rules == {url: None}
    assert stats(crawler, "read") is None
    middlewares = crawler.engine.scraper.spidermw.middlewares
    assert not any(type(m).__name__.endswith("PageRulesMiddleware") for m in middlewares)

    class Helper(Pages):
        def parse(self, response: Any) -> Any:
            assert page_rules(response) is None  # nothing read, no tokens given
            found = page_rules(response, "TestBot")
            assert found is not None and found.noindex and found.nofollow
            self.crawled.append(response.url)

    helper = type("HelperSpider", (Helper,), {"urls": [url]})
    crawler = await crawl(helper)
    assert crawler.spider.crawled == [url]


@pytest_twisted.ensureDeferred
async def test_observe_mode_reads_reports_the_disallowed_noindex_and_drops_nothing(
    server: Server, tmp_path: Path
) -> None:
    server.route("/robots.txt", body=ROBOTS)
    server.route("/private/hidden", body=page(("robots", "noindex")))
    server.route("/private/linked", body=page(("robots", "nofollow"), links=("/public",)))
    server.route("/public", body=page(), headers={"X-Robots-Tag": "testbot: noindex"})
    report = tmp_path / "report.json"
    urls = [server.url("/private/hidden"), server.url("/private/linked")]
    settings = {"GBOT_ROBOTS_MODE": "observe", "GBOT_ROBOTS_REPORT": str(report)}
    crawler = await crawl(spider(urls), settings)  # unset: observe mode reads
    assert server.count("/public") == 1  # observe mode drops nothing
    assert stats(crawler, "disallowed_noindex") == 1
    data = json.loads(report.read_text("utf-8"))
    assert data["page_rules"] == {
        "level": "read",
        "read": 3,
        "noindex": 2,
        "nofollow": 1,
        "disallowed_noindex": 1,
        "dropped_nofollow": 0,
    }
    (origin,) = data["origins"]
    assert origin["pages"]["examples"]["disallowed_noindex"] == [server.url("/private/hidden")]
    assert origin["pages"]["sources"]["noindex"] == {"meta:robots": 1, "header:testbot": 1}
    # "obey" in observe mode still drops nothing.
    server.hits.clear()
    await crawl(spider(urls), {**settings, **OBEY})
    assert server.count("/public") == 1


@pytest_twisted.ensureDeferred
async def test_a_bad_value_stops_the_crawl_naming_the_setting(server: Server) -> None:
    server.route("/robots.txt", body=ROBOTS)
    s = spider([server.url("/a")])
    with pytest.raises(ValueError, match="GBOT_ROBOTS_PAGE_RULES"):
        await crawl(s, {"GBOT_ROBOTS_PAGE_RULES": "sometimes"})
    assert server.count("/a") == 0


def test_the_addon_installs_the_spider_middleware_once_where_a_project_put_it() -> None:
    from scrapy.settings import Settings
    from scrapy.utils.conf import build_component_list

    from scrapy_gbot_robots import Addon

    settings = Settings()
    Addon().update_settings(settings)
    table = settings.getwithbase("SPIDER_MIDDLEWARES")
    path = "scrapy_gbot_robots.crawl.page_rules_middleware.PageRulesMiddleware"
    assert table[path] == 60  # just after HttpErrorMiddleware (50)
    old = "scrapy_gbot_robots.crawl.page_rules.PageRulesMiddleware"  # deprecated in 0.3.0
    for name in ("scrapy_gbot_robots.PageRulesMiddleware", path, old):
        settings = Settings({"SPIDER_MIDDLEWARES": {name: 555}})
        Addon().update_settings(settings)
        table = settings.getwithbase("SPIDER_MIDDLEWARES")
        ours = [c for c in build_component_list(table) if "PageRulesMiddleware" in str(c)]
        assert ours == [name] and table[name] == 555


def test_the_0_2_module_path_still_loads_with_a_warning_naming_the_new_one() -> None:
    from scrapy.exceptions import ScrapyDeprecationWarning
    from scrapy.utils.misc import load_object

    from scrapy_gbot_robots.crawl import page_rules_middleware

    new = "scrapy_gbot_robots.crawl.page_rules_middleware.PageRulesMiddleware"
    with pytest.warns(ScrapyDeprecationWarning, match=new.replace(".", r"\.")):
        found = load_object("scrapy_gbot_robots.crawl.page_rules.PageRulesMiddleware")
    assert found is page_rules_middleware.PageRulesMiddleware
    with pytest.warns(ScrapyDeprecationWarning, match="page_rules_middleware.page_rules"):
        helper = load_object("scrapy_gbot_robots.crawl.page_rules.page_rules")
    assert helper is page_rules_middleware.page_rules
    with pytest.raises(NameError):  # load_object's word for a missing name
        load_object("scrapy_gbot_robots.crawl.page_rules.wiring")  # not a name it offered


@pytest_twisted.ensureDeferred
async def test_a_project_naming_the_0_2_path_still_reads_page_rules(server: Server) -> None:
    """SPIDER_MIDDLEWARES with the old path: the add-on leaves that entry alone (one
    middleware, where the project put it), and Scrapy loads it through the warning."""
    from scrapy.exceptions import ScrapyDeprecationWarning

    server.route("/robots.txt", body=ROBOTS)
    server.route("/a", body=page(("robots", "noindex")))
    old = "scrapy_gbot_robots.crawl.page_rules.PageRulesMiddleware"
    with pytest.warns(ScrapyDeprecationWarning, match="page_rules_middleware"):
        crawler = await crawl(spider([server.url("/a")]), {**READ, "SPIDER_MIDDLEWARES": {old: 60}})
    rules = crawler.spider.rules[server.url("/a")]
    assert isinstance(rules, PageRules) and rules.noindex
    assert stats(crawler, "read") == 1


@pytest_twisted.ensureDeferred
async def test_other_crawlers_lines_and_tags_push_out_no_rule_of_ours(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 46, item 3: 40 ``X-Robots-Tag: otherbot-XX:`` lines, then ``nofollow``: before
    0.3.0 only the first 32 lines were read, and the links were followed in obey mode. A page
    with more of our own rules than read says so (stat, DEBUG line)."""
    server.route("/robots.txt", body=ROBOTS)
    html: dict[str, str | list[str]] = {"Content-Type": "text/html; charset=utf-8"}
    others = [f"otherbot-{_letters(n)}: noindex, nofollow" for n in range(40)]
    metas = [(f"otherbot-{_letters(n)}", "noindex") for n in range(40)]
    xrt = {**html, "X-Robots-Tag": [*others, "nofollow"]}
    server.route("/hub", body=page(*metas, links=("/x",)), headers=xrt)
    server.route("/hub2", body=page(*metas, ("robots", "nofollow"), links=("/y",)), headers=html)
    many = [("robots", "max-snippet: 50")] * 40 + [("robots", "nofollow")]
    server.route("/hub3", body=page(*many, links=("/z",)), headers=html)
    for path in ("/x", "/y", "/z"):
        server.route(path, body=page(), headers=html)
    urls = [server.url("/hub"), server.url("/hub2"), server.url("/hub3")]
    with caplog.at_level(logging.DEBUG, logger="scrapy_gbot_robots.middleware"):
        crawler = await crawl(spider(urls), OBEY)
    assert server.count("/x") == server.count("/y") == 0
    rules: Any = crawler.spider.rules
    assert rules[urls[0]].source("nofollow") == ("header",)
    assert rules[urls[1]].source("nofollow") == ("meta:robots",)
    assert not rules[urls[0]].capped and not rules[urls[1]].capped
    # 41 robots metas: the 33rd and later are not read, and the page says so.
    assert rules[urls[2]].capped == ("head",)
    assert stats(crawler, "capped") == 1
    lines = [r.getMessage() for r in caplog.records if "read in part" in r.getMessage()]
    assert lines == [
        f"Page rules of {urls[2]} read in part: past a bound (head), a rule was not read "
        "(docs/crawling.md#bounds)"
    ]


def _letters(n: int) -> str:
    """``n`` as letters (aa, ab...): a user agent in a header is a product token, no digit."""
    return chr(97 + n // 26) + chr(97 + n % 26)


@pytest_twisted.ensureDeferred
async def test_without_robots_txt_page_rules_set_are_said_to_be_ignored(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 46, item 5: ``ROBOTSTXT_OBEY = False`` with ``GBOT_ROBOTS_PAGE_RULES = "obey"``
    did nothing and said nothing. The plugin stays off (links followed, nothing read), and
    start-up says so in one WARNING naming both settings; unset, nothing is said."""
    html: dict[str, str | list[str]] = {"Content-Type": "text/html; charset=utf-8"}
    server.route("/hub", body=page(("robots", "nofollow"), links=("/x",)), headers=html)
    server.route("/x", body=page(), headers=html)
    off = {"ROBOTSTXT_OBEY": False}
    for value, said in (("obey", 1), ("read", 1), (None, 0), ("off", 0)):
        server.hits.clear()
        caplog.clear()
        settings = {**off, **({} if value is None else {"GBOT_ROBOTS_PAGE_RULES": value})}
        with caplog.at_level(logging.INFO):
            crawler = await crawl(spider([server.url("/hub")]), settings)
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        ignored = [m for m in warnings if "GBOT_ROBOTS_PAGE_RULES" in m]
        assert len(ignored) == said, (value, warnings)
        if said:
            assert f"GBOT_ROBOTS_PAGE_RULES = {value!r} is ignored: ROBOTSTXT_OBEY is False" in (
                ignored[0]
            )
        assert server.count("/x") == 1  # nothing obeyed: the plugin is off
        rules: Any = crawler.spider.rules
        assert rules[server.url("/hub")] is None
        assert server.count("/robots.txt") == 0
