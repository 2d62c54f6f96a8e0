"""Google's multi-token crawlers, the global group, content-usage signals: in real crawls.

``ROBOTSTXT_USER_AGENT = ["Googlebot-Image", "Googlebot"]`` obeys the first token that has a
group; ``GBOT_ROBOTS_GLOBAL_GROUP = False`` ignores ``*``; ``GBOT_ROBOTS_USAGE`` forbids
what a site's content-usage signals refuse (a vendor convention and a draft, not Google's).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl

IMAGE = {"ROBOTSTXT_USER_AGENT": ["Googlebot-Image", "Googlebot"]}


@pytest_twisted.ensureDeferred
async def test_googlebot_image_obeys_the_googlebot_group_when_it_has_none(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    robots = b"User-agent: Googlebot\nDisallow: /nogoogle\n\nUser-agent: *\nDisallow: /\n"
    server.route("/robots.txt", body=robots)
    urls = [server.url("/a"), server.url("/nogoogle/b")]
    caplog.set_level(logging.DEBUG, logger="scrapy_gbot_robots")
    crawler = await crawl(make_spider(urls=urls), IMAGE)
    assert crawler.spider.crawled == [urls[0]]  # not "*": its Disallow: / would stop all
    assert crawler.stats.get_value("robotstxt/forbidden") == 1
    forbidden = [r.getMessage() for r in caplog.records if "Forbidden by" in r.getMessage()]
    assert len(forbidden) == 1 and "the group of 'Googlebot'" in forbidden[0]


@pytest_twisted.ensureDeferred
async def test_the_most_specific_group_wins_when_both_exist(server: Server) -> None:
    robots = (
        b"User-agent: Googlebot\nDisallow:\n\nUser-agent: Googlebot-Image\nDisallow: /personal\n"
    )
    server.route("/robots.txt", body=robots)
    urls = [server.url("/a"), server.url("/personal/b")]
    crawler = await crawl(make_spider(urls=urls), IMAGE)
    assert crawler.spider.crawled == [urls[0]]
    as_googlebot = await crawl(make_spider(urls=urls), {"ROBOTSTXT_USER_AGENT": "Googlebot"})
    assert sorted(as_googlebot.spider.crawled) == sorted(urls)


@pytest_twisted.ensureDeferred
async def test_without_the_global_group_a_file_for_others_restricts_nothing(
    server: Server,
) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nDisallow: /\n")
    urls = [server.url("/a"), server.url("/b")]
    crawler = await crawl(
        make_spider(urls=urls),
        {"ROBOTSTXT_USER_AGENT": "AdsBot-Google", "GBOT_ROBOTS_GLOBAL_GROUP": False},
    )
    assert sorted(crawler.spider.crawled) == sorted(urls)
    obeying = await crawl(make_spider(urls=urls), {"ROBOTSTXT_USER_AGENT": "AdsBot-Google"})
    assert obeying.spider.crawled == []


SIGNALS = b"User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n"


@pytest_twisted.ensureDeferred
async def test_a_use_the_site_refuses_is_forbidden_and_reaches_the_errback(
    server: Server,
) -> None:
    server.route("/robots.txt", body=SIGNALS)
    urls = [server.url("/a")]
    messages: list[str] = []

    def on_error(self: Any, failure: Any) -> None:
        messages.append(str(failure.value))

    crawler = await crawl(
        make_spider(urls=urls, on_error=on_error), {"GBOT_ROBOTS_USAGE": ["ai-train"]}
    )
    assert crawler.spider.crawled == [] and server.count("/a") == 0
    assert messages == [
        "Forbidden by a robots.txt content-usage signal "
        "(line 2: Content-Signal: search=yes, ai-train=no)"
    ]
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/forbidden"] == 1 and stats["robotstxt/forbidden_by_usage"] == 1


@pytest_twisted.ensureDeferred
async def test_the_ietf_spelling_of_the_same_use_is_refused_too(server: Server) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nContent-Usage: train-ai=n\n")
    urls = [server.url("/a")]
    crawler = await crawl(make_spider(urls=urls), {"GBOT_ROBOTS_USAGE": "ai-train"})
    assert crawler.spider.crawled == []
    assert crawler.stats.get_value("robotstxt/forbidden_by_usage") == 1


@pytest_twisted.ensureDeferred
async def test_signals_change_nothing_by_default_and_are_in_meta_on_request(
    server: Server,
) -> None:
    server.route("/robots.txt", body=SIGNALS)
    seen: list[Any] = []

    def parse(self: Any, response: Any) -> None:
        seen.append(response.meta.get("gbot_robots_usage"))

    urls = [server.url("/a")]
    plain = await crawl(make_spider(urls=urls, parse=parse))
    assert seen == [None] and server.count("/a") == 1  # Google's behaviour
    seen.clear()
    await crawl(make_spider(urls=urls, parse=parse), {"GBOT_ROBOTS_USAGE_META": True})
    [usage] = seen
    assert usage["group"] == "*"
    assert [(p["category"], p["allowed"], p["line"]) for p in usage["preferences"]] == [
        ("search", True, 2),
        ("ai-train", False, 2),
    ]
    assert plain.stats.get_value("robotstxt/forbidden") is None


@pytest_twisted.ensureDeferred
async def test_observe_mode_records_a_usage_refusal_instead(server: Server) -> None:
    server.route("/robots.txt", body=SIGNALS)
    verdicts: list[Any] = []

    def parse(self: Any, response: Any) -> None:
        verdicts.append(response.meta["gbot_robots_verdict"])

    urls = [server.url("/a")]
    crawler = await crawl(
        make_spider(urls=urls, parse=parse),
        {"GBOT_ROBOTS_USAGE": ["ai-train"], "GBOT_ROBOTS_MODE": "observe"},
    )
    assert [(v["allowed"], v["by"], v["line"]) for v in verdicts] == [(False, "usage", 2)]
    assert crawler.stats.get_value("robotstxt/would_forbid") == 1


def test_an_unknown_use_stops_start_up_naming_the_setting() -> None:
    from scrapy_gbot_robots._settings import ConfigError, load

    with pytest.raises(ConfigError, match=r"^GBOT_ROBOTS_USAGE: unknown use 'ai-trian'"):
        load({"GBOT_ROBOTS_USAGE": ["ai-trian"]}.get)
    assert load({"GBOT_ROBOTS_USAGE": "ai-train, Search"}.get).usage == ("ai-train", "search")


@pytest.mark.parametrize("label", ["all", "train-genai"])
def test_a_retired_label_stops_start_up_naming_the_current_ones(label: str) -> None:
    from scrapy_gbot_robots._settings import ConfigError, load

    with pytest.raises(ConfigError) as caught:
        load({"GBOT_ROBOTS_USAGE": ["search", label]}.get)
    message = str(caught.value)
    assert message.startswith(f"GBOT_ROBOTS_USAGE: {label!r} is a retired label")
    assert "ai-input, ai-train, search, train-ai" in message


def test_robotstxt_user_agent_as_a_list_or_comma_separated() -> None:
    from scrapy_gbot_robots._settings import configured_token, load

    def token(value: Any) -> Any:
        return configured_token(load({"ROBOTSTXT_USER_AGENT": value}.get))[0]

    assert token(["Googlebot-Image", "Googlebot"]) == ("Googlebot-Image", "Googlebot")
    assert token("Googlebot-Image,Googlebot") == ("Googlebot-Image", "Googlebot")
    assert token(["Googlebot"]) == "Googlebot"  # one token: exactly today's behaviour
    header = "Mozilla/5.0 (compatible; Googlebot/2.1, +http://www.google.com/bot.html)"
    assert token(header) == "Mozilla"  # a header keeps its commas: one value, reduced


@pytest_twisted.ensureDeferred
async def test_a_request_may_name_its_own_token_list_in_meta(server: Server) -> None:
    robots = b"User-agent: Googlebot\nDisallow: /nogoogle\n\nUser-agent: *\nDisallow: /\n"
    server.route("/robots.txt", body=robots)
    tokens = ["Googlebot-Image", "Googlebot"]

    def make_request(self: Any, url: str, **kwargs: Any) -> Any:
        import scrapy

        meta = {"gbot_robots_token": tokens if "list" in url else tuple(tokens)}
        return scrapy.Request(url, callback=self.parse, errback=self.on_error, meta=meta)

    urls = [server.url("/a?list"), server.url("/a?tuple"), server.url("/nogoogle/b?list")]
    crawler = await crawl(make_spider(urls=urls, make_request=make_request))
    assert sorted(crawler.spider.crawled) == sorted(urls[:2])
    assert crawler.stats.get_value("robotstxt/forbidden") == 1


@pytest_twisted.ensureDeferred
async def test_scrapys_default_token_gets_one_notice_at_start_up(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", body=b"User-agent: Scrapy\nDisallow: /\n")
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    urls = [server.url("/a")]
    from scrapy.settings import default_settings

    # The tests' crawls name a token; this one keeps Scrapy's USER_AGENT default.
    crawler = await crawl(make_spider(urls=urls), {"USER_AGENT": default_settings.USER_AGENT})
    assert crawler.spider.crawled == []  # the file blocks Scrapy, as many do
    notices = [r for r in caplog.records if "Scrapy's default token" in r.getMessage()]
    assert len(notices) == 1 and notices[0].levelno == logging.INFO
    assert "ROBOTSTXT_USER_AGENT" in notices[0].getMessage()
    assert "USER_AGENT = " in notices[0].getMessage()


def test_no_notice_for_a_named_crawler() -> None:
    from scrapy_gbot_robots._settings import default_token_notice

    assert default_token_notice("MyBot") is None
    assert default_token_notice(("MyBot", "Googlebot")) is None
    assert default_token_notice(("scrapy",)) is not None
