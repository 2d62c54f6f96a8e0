"""What Scrapy asks of every ``ROBOTSTXT_PARSER``, asked of ``GoogleRobotParser``.

Mirrors ``BaseRobotParserTest`` of Scrapy's own suite, the one Scrapy 2.19 runs:
https://github.com/scrapy/scrapy/blob/3d20e97ce578c079c7ce6fb266afa97b6b34e8f8/tests/test_robotstxt_interface.py
It is read at that commit and written in our own words, plus ``RobotParser.crawl_delay()`` (new in
Scrapy 2.18: a number of seconds, or None when unset). Keep it in step with that file: same bodies,
same questions. Each case runs against our parser and, as a check that the mirror is faithful,
against Scrapy's default ``ProtegoRobotParser``, which passes Scrapy's own suite.

Where parsers may differ, Scrapy lets each skip one of two precedence tests: Google's (and
Protego's) is length-based, so the order-based one is skipped for both, as Scrapy skips it
for Protego.
"""

from __future__ import annotations

from typing import Any

import pytest
from scrapy.robotstxt import ProtegoRobotParser, RobotParser

from scrapy_gbot_robots import GoogleRobotParser, parse

SITE = "https://www.site.local"


@pytest.fixture(params=[GoogleRobotParser, ProtegoRobotParser], ids=["google", "protego"])
def parser_cls(request: pytest.FixtureRequest) -> type[RobotParser]:
    cls: type[RobotParser] = request.param
    return cls


def make(parser_cls: type[RobotParser], body: bytes) -> Any:
    # Scrapy's suite builds parsers exactly so: a class method, no crawler.
    return parser_cls.from_crawler(crawler=None, robotstxt_body=body)  # type: ignore[arg-type]


def test_plain_allow_and_disallow(parser_cls: type[RobotParser]) -> None:
    # Trailing spaces after values, and no newline at the end of the file.
    body = b"User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10"
    rp = make(parser_cls, body)
    assert rp.allowed(f"{SITE}/allowed", "*")
    assert not rp.allowed(f"{SITE}/disallowed", "*")


def test_wildcards_and_end_anchor(parser_cls: type[RobotParser]) -> None:
    # Indented lines (the body is an indented triple-quoted string in Scrapy's test).
    body = b"""User-agent: first
                                Disallow: /disallowed/*/end$

                                User-agent: second
                                Allow: /*allowed
                                Disallow: /
                                """
    rp = make(parser_cls, body)
    # '*' spans any run of characters, '$' anchors the end.
    assert rp.allowed(f"{SITE}/disallowed", "first")
    assert not rp.allowed(f"{SITE}/disallowed/xyz/end", "first")
    assert not rp.allowed(f"{SITE}/disallowed/abc/end", "first")
    assert rp.allowed(f"{SITE}/disallowed/xyz/endinglater", "first")
    # A leading '*' matches anywhere in the path; the longer Allow beats "Disallow: /".
    for path in ("/allowed", "/is_still_allowed", "/is_allowed_too"):
        assert rp.allowed(f"{SITE}{path}", "second"), path


def test_longest_match_wins_not_the_first(parser_cls: type[RobotParser]) -> None:
    # Scrapy has both test_length_based_precedence and test_order_based_precedence on this
    # body; a parser passes one. Google's rule: the longest matching pattern decides.
    rp = make(parser_cls, b"User-agent: * \nDisallow: / \nAllow: /page")
    assert rp.allowed(f"{SITE}/page", "*")


@pytest.mark.parametrize("body", [b"", b"GIF89a\xd3\x00\xfe\x00\xa2"], ids=["empty", "garbage"])
def test_empty_or_garbage_body_allows_everything(
    parser_cls: type[RobotParser], body: bytes
) -> None:
    rp = make(parser_cls, body)
    for url, agent in [
        ("https://site.local/", "*"),
        ("https://site.local/", "chrome"),
        ("https://site.local/index.html", "*"),
        ("https://site.local/disallowed", "*"),
    ]:
        assert rp.allowed(url, agent), (url, agent)


UNICODE_BODY = """
        User-Agent: *
        Disallow: /admin/
        Disallow: /static/
        # taken from https://en.wikipedia.org/robots.txt
        Disallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:
        Disallow: /wiki/Käyttäjä:

        User-Agent: UnicödeBöt
        Disallow: /some/randome/page.html""".encode()


@pytest.mark.parametrize(
    ("url", "agent", "allowed"),
    [
        ("https://site.local/", "*", True),
        ("https://site.local/admin/", "*", False),
        ("https://site.local/static/", "*", False),
        # The agent's own group (read as the token 'Unic', on both sides) hides the * group.
        ("https://site.local/admin/", "UnicödeBöt", True),
        ("https://site.local/wiki/K%C3%A4ytt%C3%A4j%C3%A4:", "*", False),
        # Issue 11: the raw URL is checked in the %-encoded form a crawler requests.
        ("https://site.local/wiki/Käyttäjä:", "*", False),
        ("https://site.local/some/randome/page.html", "*", True),
        ("https://site.local/some/randome/page.html", "UnicödeBöt", False),
    ],
)
def test_unicode_url_and_user_agent(
    parser_cls: type[RobotParser], url: str, agent: str, allowed: bool
) -> None:
    assert make(parser_cls, UNICODE_BODY).allowed(url, agent) is allowed


def test_unicode_url_as_bytes(parser_cls: type[RobotParser]) -> None:
    # The interface allows bytes for both arguments.
    rp = make(parser_cls, UNICODE_BODY)
    assert not rp.allowed("https://site.local/wiki/Käyttäjä:".encode(), b"*")


def _needs_crawl_delay(parser_cls: type[RobotParser]) -> None:
    if not hasattr(parser_cls, "crawl_delay"):  # Scrapy < 2.18's wrappers lack it
        pytest.skip(f"{parser_cls.__name__} has no crawl_delay() in this Scrapy")


def test_crawl_delay_set_and_unset(parser_cls: type[RobotParser]) -> None:
    _needs_crawl_delay(parser_cls)
    body = b"User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10"
    assert make(parser_cls, body).crawl_delay("*") == 10.0
    assert make(parser_cls, b"User-agent: *\nDisallow: /x\n").crawl_delay("*") is None
    assert make(parser_cls, b"").crawl_delay("*") is None


def test_crawl_delay_follows_the_agents_group(parser_cls: type[RobotParser]) -> None:
    _needs_crawl_delay(parser_cls)
    # Each group has a rule: for Google only an allow/disallow line ends a run of user-agent
    # lines, so without one both agents would share one group (and its first delay).
    body = (
        b"User-agent: *\nDisallow: /a\nCrawl-delay: 10\n\n"
        b"User-agent: testbot\nDisallow: /b\nCrawl-delay: 15\n"
    )
    rp = make(parser_cls, body)
    assert rp.crawl_delay("testbot") == 15.0
    assert rp.crawl_delay("otherbot") == 10.0
    assert make(parser_cls, b"User-agent: *\nCrawl-delay: soon\n").crawl_delay("*") is None


def test_sitemaps() -> None:
    # Not part of Scrapy's interface: ours, for the SitemapSpider recipe of docs/usage.md.
    body = b"Sitemap: https://site.local/a.xml\nUser-agent: *\nDisallow:\nsitemap: /b.xml\n"
    assert make(GoogleRobotParser, body).sitemaps == ("https://site.local/a.xml", "/b.xml")


def test_google_robot_parser_takes_token_lists_and_reduces_each() -> None:
    body = b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /no\nCrawl-delay: 4\n"
    parser = GoogleRobotParser(body)
    assert parser.allowed("https://e.com/page", ["Googlebot-Image/1.0", "Googlebot/2.1"]) is True
    assert parser.allowed("https://e.com/no", ("Googlebot-Image", b"Googlebot")) is False
    assert parser.allowed("https://e.com/page", "Googlebot-Image/1.0") is False  # one token: *
    assert parser.crawl_delay(["Googlebot-Image", "Googlebot"]) == 4.0
    assert parser.crawl_delay("Googlebot-Image") is None  # the * group has none


def test_google_robot_parser_sitemaps_is_a_value_and_a_method() -> None:
    # Scrapy's PR 8069 calls robotparser.sitemaps(); it was a property here.
    body = b"Sitemap: https://e.com/a.xml\nUser-agent: *\nDisallow:\nsitemap: /b.xml\n"
    parser = GoogleRobotParser(body)
    assert list(parser.sitemaps()) == ["https://e.com/a.xml", "/b.xml"]
    assert list(parser.sitemaps) == ["https://e.com/a.xml", "/b.xml"]
    assert parser.sitemaps == ("https://e.com/a.xml", "/b.xml")
    assert list(GoogleRobotParser(b"").sitemaps()) == []


def test_google_robot_parser_can_take_a_file_already_parsed() -> None:
    # What the plugin hands robots_parsed listeners: the parsed file it checks against, its
    # matchers built, not a second parse of the same body.
    robots = parse(b"User-agent: *\nDisallow: /private\n")
    assert robots.allowed("https://e.com/private", "Googlebot") is False
    parser = GoogleRobotParser(robots.body, robots=robots)
    assert parser.robots is robots
    assert parser.allowed("https://e.com/private/x", "Googlebot") is False
    assert parser.allowed("https://e.com/public", "Googlebot") is True
    assert GoogleRobotParser(robots.body).robots is not robots  # the body alone: parsed anew


_HEADERS_BODY = b"""\
# example
User-agent: *
Disallow: /private/
Allow: /private/public
Crawl-delay: 2.5
Sitemap: https://example.com/sitemap.xml

User-agent: Googlebot
Disalow: /nogoogle
Crawl-delay: 7

sitemap: https://cdn.example.org/other.xml
"""


def test_google_robot_parser_derives_the_token_from_a_full_header() -> None:
    parser = GoogleRobotParser.from_crawler(None, _HEADERS_BODY)  # type: ignore[arg-type]
    header = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
    assert parser.allowed("https://example.com/private/x", header) is True  # own group
    assert parser.allowed("https://example.com/nogoogle", header) is False
    scrapy_header = b"Scrapy/2.19 (+https://scrapy.org)"
    assert parser.allowed(b"https://example.com/private/x", scrapy_header) is False
    assert parser.crawl_delay("Googlebot") == 7.0
    assert parser.sitemaps[0] == "https://example.com/sitemap.xml"
