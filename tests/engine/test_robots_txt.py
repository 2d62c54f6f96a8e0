"""``engine/rules.py``, the engine's public object: what ``parse`` and ``RobotsTxt`` promise.

Beside the API itself, the shortcuts of ``RobotsTxt.allowed`` (issue 26, "one check at most
0.2x Protego's"): a matcher that no URL can be refused by (no rule, or ``Allow: /`` alone)
answers before looking at the URL, and an ``http(s)://host`` URL with nothing after the host
(a site's home page, in nearly every crawl) has the path "/" without the general extraction.
Each is checked against the general path (``allowed_path(path_params_query(url))``) and the
reference oracle, with URLs asked in sequence on one object (the remembered site prefix is
part of the state).  And the matchers a file keeps: one fast slot, a bounded few others.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_properties import bodies, reference

from scrapy_gbot_robots import Decision, RobotsTxt, parse
from scrapy_gbot_robots.engine import rules
from scrapy_gbot_robots.engine.lines import MAX_BODY_BYTES
from scrapy_gbot_robots.engine.path_match import path_params_query

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


# What follows a scheme: hosts with and without a path, and the characters that end a host
# or start a path elsewhere ("?", ";", "#"), escapes, non-ASCII, a NUL, spaces.
_AFTER_SCHEME = st.lists(
    st.sampled_from(
        ["h", "e.com", ":81", "@", "/", "/", "/a", "/ab", "?", "?a=1", ";", ";p", "#", "#f",
         "#/a", "%2F", "%C3%A9", "\u00e9", "\0", " ", "$", "*", "index.html", "//", "&"]
    ),
    max_size=5,
).map("".join)  # fmt: skip


_URLS = st.builds(
    lambda scheme, rest: scheme + rest,
    st.sampled_from(["https://", "http://", "https://e.com", "http://e.com:8080", "HTTPS://", ""]),
    _AFTER_SCHEME,
)


_SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_SETTINGS
@given(
    body=bodies,
    urls=st.lists(_URLS, min_size=1, max_size=6),
    agent=st.sampled_from(["Googlebot", "a", "b", "*"]),
)
@example(body=b"User-agent: *\nDisallow: /$\n", urls=["https://e.com", "https://e.com/"], agent="a")
@example(body=b"User-agent: *\nAllow: /\n", urls=["https://e.com/x", "x"], agent="a")
@example(
    body=b"User-agent: *\nDisallow: /\n", urls=["https://e.com#f", "https://e.com?"], agent="b"
)
@example(
    body=b"User-agent: *\nDisallow: /$\nDisallow: /a\n",
    urls=["https://e.com", "https://e.com/a", "https://e.com", "https://e.co", "https://e.com/"],
    agent="a",
)
@example(
    body=b"User-agent: *\nDisallow: /a\n", urls=["https://e.com#f", "https://e.com#f/a"], agent="a"
)
def test_allowed_equals_the_general_path_and_the_reference(
    body: bytes, urls: list[str], agent: str
) -> None:
    rt = parse(body)
    for url in urls:
        verdict = rt.allowed(url, agent)
        matcher = rt._matcher_for(agent)
        assert verdict is matcher.allowed_path(path_params_query(url)), url
        assert verdict is reference(body, agent, url).allowed, url


@given(url=_URLS)
@settings(max_examples=400, deadline=None)
@example(url="https://e.com")
@example(url="https://e.com#/x")
@example(url="https://e.com?/x")
@example(url="https://e.com;/x")
def test_a_url_without_path_is_matched_as_slash_only_when_google_says_so(url: str) -> None:
    """``_path_start`` answers -2 exactly when Google's path is "/" with no "/" written."""
    rt = parse(b"User-agent: *\nDisallow: /$\n")
    start = rt._path_start(url)
    if start == -2:
        assert url.startswith(("https://", "http://")) and path_params_query(url) == "/"
        assert "/" not in url.split("://", 1)[1]
    assert rt.allowed(url, "a") is reference(rt.body, "a", url).allowed


def test_the_home_page_without_a_slash_is_decided_as_slash() -> None:
    rt = parse(b"User-agent: *\nDisallow: /$\nDisallow: /?\n")
    assert rt._path_start("https://e.com") == -2  # (-1 before: the general extraction)
    assert rt.allowed("https://e.com", "a") is False
    assert rt.allowed("https://e.com#top", "a") is False
    assert rt.allowed("https://e.com?q", "a") is False  # "/?q"
    assert rt.allowed("https://e.com;p", "a") is True  # "/;p"
    assert rt.allowed("https://e.com/a", "a") is True


def test_a_home_page_gives_its_site_prefix_and_its_verdict_is_kept() -> None:
    """A site's first URL is its home page: it remembers the prefix its next URL would, and
    the verdict for "/", which the home page, asked again, then reads without a search."""
    rt = parse(b"User-agent: *\nDisallow: /$\nDisallow: /private\n")
    assert rt.allowed("https://e.com", "a") is False  # "/$" refuses "/"
    assert rt._site == ("https://e.com/", len("https://e.com/"))
    matcher = rt._matcher_for("a")
    assert matcher._home is False
    assert rt.allowed("https://e.com/private/x", "a") is False
    assert rt.allowed("https://e.com/public", "a") is True
    assert rt.allowed("https://e.com", "a") is False  # found beside the prefix
    assert rt.allowed("https://e.co", "a") is False  # another site: a prefix of its own
    assert rt._site == ("https://e.co/", len("https://e.co/"))
    # After "#" the rest is a fragment: such a URL gives no prefix ("#f/private" is not a path).
    rt = parse(b"User-agent: *\nDisallow: /private\n")
    assert rt.allowed("https://e.com#f", "a") is True
    assert rt._site == ("\0/", 2)
    assert rt.allowed("https://e.com#f/private", "a") is True


def test_matchers_that_refuse_nothing_answer_at_the_first_test() -> None:
    """No entry can start a path and nothing is screened: allowed() returns at its first test."""

    def is_open(body: bytes) -> bool:
        rt = parse(body)
        rt.allowed("https://e.com/", "Googlebot")
        matcher = rt._matcher_for("Googlebot")
        return matcher.firsts == "" and matcher.screen is None

    assert is_open(b"")
    assert is_open(b"User-agent: *\nAllow: /\n")
    assert is_open(b"User-agent: *\nDisallow:\n")
    assert is_open(b"User-agent: Googlebot\nAllow: /\nUser-agent: *\nDisallow: /\n")
    assert not is_open(b"User-agent: *\nDisallow: /\n")
    assert not is_open(b"User-agent: *\nDisallow: /x\n")
    assert not is_open(b"User-agent: *\nDisallow: /*.pdf$\n")
    assert not is_open(b"User-agent: *\nDisallow: *x\n")
    assert not is_open(b"User-agent: *\nAllow: /index.html\n")  # its "/$" fallback is a rule
    rt = parse(b"User-agent: *\nDisallow: /\nUser-agent: Googlebot\nAllow: /\n")
    for url in ("https://e.com/", "https://e.com", "x", "", "/a?b", "https://e.com/%00"):
        assert rt.allowed(url, "Googlebot") is True
        assert rt.allowed(url, "other") is False


IMAGE = ["Googlebot-Image", "Googlebot"]


def test_the_fast_slot_never_mixes_the_two_global_settings() -> None:
    robots = parse(b"User-agent: *\nDisallow: /\n")
    for _ in range(3):  # alternate, so each call finds the other's matcher in the slot
        assert robots.allowed("https://e.com/x", "bot") is False
        assert robots.allowed("https://e.com/x", "bot", global_group=False) is True
        assert robots.decide("https://e.com/x", "bot").token == "*"
        assert robots.decide("https://e.com/x", "bot", global_group=False).token == ""


def test_a_list_is_copied_and_unhashable_lists_are_fine() -> None:
    robots = parse(b"User-agent: a\nDisallow: /a\n\nUser-agent: b\nDisallow: /b\n")
    tokens = ["x", "a"]
    assert robots.allowed("https://e.com/a", tokens) is False
    tokens[1] = "b"  # changed in place: the next call must see the new list
    assert robots.allowed("https://e.com/a", tokens) is True
    assert robots.allowed("https://e.com/b", tokens) is False
    assert robots.allowed("https://e.com/b", ("x", "b")) is False


def test_memory_per_file_stays_bounded_with_many_token_lists() -> None:
    robots = parse(b"User-agent: *\nDisallow: /x\nContent-Signal: ai-train=no\n")
    for i in range(100):
        tokens = [f"bot{chr(97 + i % 26)}", f"other{chr(97 + i // 26)}"]
        robots.allowed("https://e.com/x", tokens)
        robots.allowed("https://e.com/x", tokens, global_group=False)
        robots.refuses("https://e.com/x", tokens, ("ai-train",))
    assert robots._others is not None and len(robots._others) <= rules._MAX_MATCHERS
    assert robots._usage is not None and len(robots._usage) <= rules._MAX_MATCHERS


def test_crawl_delay_and_names_agent_take_the_group_in_force() -> None:
    body = (
        b"User-agent: *\nDisallow: /x\nCrawl-delay: 5\n\n"
        b"User-agent: Googlebot\nDisallow: /y\nCrawl-delay: oops\nCrawl-delay: 2\n"
    )
    robots = parse(body)
    assert robots.crawl_delay(IMAGE) == 2.0
    assert robots.crawl_delay("Googlebot-Image") == 5.0
    assert robots.crawl_delay(["AdsBot-Google"], global_group=False) is None
    assert robots.names_agent(IMAGE) is True
    assert robots.names_agent(["Nobody", "Bingbot"]) is False
