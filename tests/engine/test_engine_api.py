"""The engine's public API: what parse, RobotsTxt, Decision and the Scrapy parser promise."""

from __future__ import annotations

import pytest

from scrapy_gbot_robots import Decision, RobotsTxt, parse
from scrapy_gbot_robots.engine.lines import MAX_BODY_BYTES

BODY = b"""\
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


def test_parse_accepts_str_as_utf8_and_gives_same_verdicts_as_bytes() -> None:
    text = "User-agent: *\nDisallow: /caf\u00e9\n"
    for url in ("https://x.com/caf%C3%A9", "https://x.com/caf%c3%a9", "https://x.com/cafe"):
        assert parse(text).allowed(url, "bot") is parse(text.encode()).allowed(url, "bot")
    assert parse(text).allowed("https://x.com/caf%C3%A9/menu", "bot") is False


def test_parse_caps_at_500_kib_by_plain_byte_cut_and_says_so() -> None:
    filler = b"# " + b"x" * 100 + b"\n"
    body = b"User-agent: *\n" + filler * (MAX_BODY_BYTES // len(filler) + 1) + b"Disallow: /late\n"
    robots = parse(body)
    assert robots.truncated is True
    assert len(robots.body) == MAX_BODY_BYTES
    assert robots.allowed("https://x.com/late", "bot") is True  # the rule is past the cap
    small = parse(body, max_bytes=len(body))
    assert small.truncated is False
    assert small.allowed("https://x.com/late", "bot") is False


def test_partial_last_line_after_cap_is_still_a_line() -> None:
    body = b"User-agent: *\nDisallow: /abcdef\n"
    robots = parse(body, max_bytes=len(b"User-agent: *\nDisallow: /ab"))
    assert robots.allowed("https://x.com/abzzz", "bot") is False  # "/ab" is the (broader) rule


@pytest.mark.parametrize("junk", [b"", b"\0", b"\xff\xfe\xfd", b"\r\r\n\n", b"::::", b"#" * 10])
def test_parse_never_raises_and_allowed_returns_bool(junk: bytes) -> None:
    robots = parse(junk)
    assert isinstance(robots, RobotsTxt)
    assert robots.allowed("https://x.com/a", "bot") is True


def test_decide_reports_deciding_line_directive_value_and_group() -> None:
    robots = parse(BODY)
    star = robots.decide("https://example.com/private/x", "Bingbot")
    assert star == Decision(False, 3, "Disallow", "/private/", "/private/", "global")
    assert star.rule == "Disallow: /private/"
    public = robots.decide("https://example.com/private/public", "Bingbot")
    assert (public.allowed, public.line, public.rule) == (True, 4, "Allow: /private/public")
    own = robots.decide("https://example.com/nogoogle/a", "googlebot")
    assert (own.allowed, own.line, own.directive, own.group) == (False, 9, "Disalow", "agent")
    none = robots.decide("https://example.com/private/x", "Googlebot")
    assert none == Decision(True, 0, "", "", "", "none")
    assert none.rule == ""


def test_decide_reports_value_as_written_and_pattern_normalised() -> None:
    robots = parse("User-agent: *\nDisallow: /caf\u00e9/%7e  # menu\n".encode())
    decision = robots.decide("https://x.com/caf%C3%A9/%7E/x", "bot")
    assert decision.allowed is False
    assert decision.value == "/caf\u00e9/%7e"
    assert decision.pattern == "/caf%C3%A9/%7E"


def test_names_agent_is_true_only_when_a_group_names_the_token() -> None:
    robots = parse(BODY)
    assert robots.names_agent("Googlebot") is True
    assert robots.names_agent("googlebot") is True
    assert robots.names_agent("Googlebot-Image") is False
    assert robots.names_agent("Bingbot") is False


def test_sitemaps_are_all_sitemap_lines_in_file_order() -> None:
    assert parse(BODY).sitemaps == (
        "https://example.com/sitemap.xml",
        "https://cdn.example.org/other.xml",
    )


def test_crawl_delay_follows_the_same_group_selection_as_rules() -> None:
    robots = parse(BODY)
    assert robots.crawl_delay("Bingbot") == 2.5
    assert robots.crawl_delay("Googlebot") == 7.0
    hidden = parse(b"User-agent: Googlebot\nDisallow: /x\nUser-agent: *\nCrawl-delay: 3\n")
    assert hidden.crawl_delay("Googlebot") is None
    assert parse(b"User-agent: *\nCrawl-delay: soon\n").crawl_delay("bot") is None


def test_crawl_delay_never_affects_verdicts() -> None:
    body = b"User-agent: *\nCrawl-delay: 10\nDisallow: /a\n"
    robots = parse(body)
    assert robots.allowed("https://x.com/b", "bot") is True
    assert robots.allowed("https://x.com/a", "bot") is False


def test_many_agents_on_one_file_each_get_their_own_verdicts() -> None:
    groups = b"".join(b"User-agent: bot%d\nDisallow: /only%d\n\n" % (i, i) for i in range(40))
    robots = parse(groups)
    for _ in range(2):
        for i in range(40):
            agent = f"bot{i}"
            # digits are not token characters: "bot7" is not a valid token, "bot" is what
            # the file's lines name, so nobody's group applies to these agents.
            assert robots.allowed(f"https://x.com/only{i}", agent) is True
    letters = parse(b"User-agent: alpha\nDisallow: /a\n\nUser-agent: beta\nDisallow: /b\n")
    for _ in range(3):
        assert letters.allowed("https://x.com/a", "alpha") is False
        assert letters.allowed("https://x.com/a", "beta") is True
        assert letters.allowed("https://x.com/b", "beta") is False
        assert letters.allowed("https://x.com/b", "gamma") is True


def test_google_robot_parser_derives_the_token_from_a_full_header() -> None:
    from scrapy_gbot_robots import GoogleRobotParser

    parser = GoogleRobotParser.from_crawler(None, BODY)  # type: ignore[arg-type]
    header = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
    assert parser.allowed("https://example.com/private/x", header) is True  # own group
    assert parser.allowed("https://example.com/nogoogle", header) is False
    scrapy_header = b"Scrapy/2.19 (+https://scrapy.org)"
    assert parser.allowed(b"https://example.com/private/x", scrapy_header) is False
    assert parser.crawl_delay("Googlebot") == 7.0
    assert parser.sitemaps[0] == "https://example.com/sitemap.xml"


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://x.com/shop/", True),  # Allow: /shop/index.html also allows /shop/ itself
        ("https://x.com/shop/index.htm", False),  # only "Disallow: /" matches
        ("https://x.com/shop/index.html", True),
        ("https://x.com/other", False),
    ],
)
def test_root_rule_still_decides_when_only_a_wildcard_prefix_matched(
    url: str, allowed: bool
) -> None:
    # Regression: a prefilter hit from the index.htm rule's "/shop/$" must not hide "/".
    robots = parse(b"User-agent: *\nAllow: /shop/index.html\nDisallow: /\n")
    assert robots.allowed(url, "bot") is allowed
    assert robots.decide(url, "bot").allowed is allowed


def test_same_site_prefix_cache_never_leaks_between_hosts_or_fragments() -> None:
    robots = parse(b"User-agent: *\nDisallow: /x\n")
    sequence = [
        ("https://a.com/x", False),
        ("https://a.com/y", True),
        ("https://a.com#/x", True),  # a fragment before the path: the path is "/"
        ("https://a.com/x", False),
        ("https://a.com?/x", True),  # the path is "/?/x"
        ("https://b.com/x", False),
        ("http://a.com/x", False),
        ("//a.com/x", False),
        ("a.com/x", False),
    ]
    for url, allowed in sequence:
        assert robots.allowed(url, "bot") is allowed, url
