"""The shortcuts of ``RobotsTxt.allowed`` give the general path's verdict, and Google's.

Two shortcuts (issue 26, "one check at most 0.2x Protego's"): a matcher that no URL can be
refused by (no rule, or ``Allow: /`` alone) answers before looking at the URL, and an
``http(s)://host`` URL with nothing after the host (a site's home page, in nearly every
crawl) has the path "/" without the general extraction.  Each is checked against the
general path (``allowed_path(path_params_query(url))``) and the reference oracle, with URLs
asked in sequence on one object (the remembered site prefix is part of the state).
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_properties import bodies, reference

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine.path_match import path_params_query

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
