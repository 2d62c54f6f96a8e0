"""``crawler_url``: the form of a URL a crawler requests, checked against w3lib itself.

And ``sendable_url``, the form ``gbot-robots check`` asks about: the URL as written, changed only
where a crawler cannot send it as written (issue 17, item 11).

``GoogleRobotParser.allowed()`` and ``gbot-robots check`` match ``crawler_url(url)``, which is
``w3lib.url.safe_url_string(url)`` (what Scrapy does to ``request.url``) with a fast path for
URLs that encoding cannot change. These tests pin both halves: the fast path never changes a
verdict, and an already-encoded URL keeps its verdict through ``GoogleRobotParser``.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from urllib.parse import urlsplit

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from w3lib.url import safe_url_string

from scrapy_gbot_robots import GoogleRobotParser, parse, product_token
from scrapy_gbot_robots.engine.path_match import path_params_query
from scrapy_gbot_robots.engine.url import crawler_url, is_crawler_form, sendable_url

SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every printable ASCII character, space, tab, DEL and a few controls: what a hand-written or
# scraped URL may hold.
ASCII = "".join(chr(c) for c in range(0x20, 0x7F)) + "\t\x7f\x00\x1b"
ESCAPES = st.builds(
    lambda a, b: f"%{a}{b}",
    st.sampled_from("0123456789abcdefABCDEF"),
    st.sampled_from("0123456789abcdefABCDEF"),
)
PREFIXES = st.sampled_from(
    [
        "https://",
        "http://",
        "HTTPS://",
        "https://Example.COM",
        "http://h:080",
        "http:/",
        "//",
        "",
        "ftp://",
        "https://u:p@h",
        "https://h;x",
        "https://[::1]",
    ]
)
raw_urls = st.builds(
    lambda p, parts: p + "".join(parts),
    PREFIXES,
    st.lists(st.one_of(st.text(ASCII, max_size=4), ESCAPES, st.sampled_from("?#;/é")), max_size=12),
)

# Encoded URLs, as a crawler sends them: unreserved and sub-delimiter characters, '/', ':',
# '@', and %XX escapes (upper or lower case), with a path, a query and maybe a fragment.
SAFE = "abcXYZ019-._~!$&()*+,=:@"
segment = st.lists(st.one_of(st.sampled_from(SAFE), ESCAPES), max_size=6).map("".join)
encoded_urls = st.builds(
    lambda scheme, host, path, query, frag: f"{scheme}://{host}/{path}{query}{frag}",
    st.sampled_from(["http", "https"]),
    st.sampled_from(["example.com", "www.example.com:8080", "xn--bcher-kva.example"]),
    st.lists(segment, max_size=4).map("/".join),
    st.one_of(st.just(""), segment.filter(bool).map(lambda q: "?" + q)),
    st.one_of(st.just(""), segment.map(lambda f: "#" + f)),
)

ROBOTS = b"""\
User-agent: *
Disallow: /a
Allow: /a%2Fb
Disallow: /*%7E
Disallow: /*.php$
Allow: /*.html$
Disallow: /x*y
Disallow: /*?*q=
Disallow: /%C3%A9t%C3%A9
Disallow: /*:
Allow: /$
"""


@SETTINGS
@given(url=raw_urls)
@example(url="https://H;X/a")  # a ';' in the authority: Google's path, whose case w3lib changes
@example(url="https://h/a?")  # an empty query, which w3lib drops
@example(url="https://h/a?#f")
@example(url="//a://b/c")  # w3lib: host 'a:', path '//b/c'; Google: path '/c'
def test_fast_path_never_changes_the_matched_part(url: str) -> None:
    """When ``is_crawler_form`` says so, w3lib leaves Google's path, params and query alone."""
    if not is_crawler_form(url):
        return
    try:
        encoded = safe_url_string(url)
    except ValueError:  # e.g. a port out of range: crawler_url keeps such a URL as given
        return
    assert path_params_query(encoded) == path_params_query(url)


@SETTINGS
@given(url=raw_urls)
@example(url="//a://b/c")
def test_crawler_url_is_safe_url_string_where_a_rule_can_see(url: str) -> None:
    # A percent-encoded host ("https://%3B") is decoded by w3lib ("https://;/"), and the
    # decoded ";" then moves into what urlsplit reads as the path: no such host can be
    # requested, and the host is no part of a rule's view. Hypothesis found it in CI's runs.
    with contextlib.suppress(ValueError):  # "https://[": urlsplit refuses it; checked below
        assume("%" not in urlsplit(url).netloc)
    try:
        expected = safe_url_string(url)
    except ValueError:
        assert crawler_url(url) == url
        return
    got = crawler_url(url)
    assert path_params_query(got) == path_params_query(expected)
    if not is_crawler_form(url):
        assert got == expected


@SETTINGS
@given(url=encoded_urls, agent=st.sampled_from(["Googlebot", "*", "Mozilla/5.0 (compatible)"]))
@example(url="https://example.com/a%2fb", agent="Googlebot")
@example(url="https://example.com/%c3%a9t%c3%a9", agent="Googlebot")
def test_encoded_urls_keep_their_verdict(url: str, agent: str) -> None:
    """An already-encoded URL is checked exactly as given: the parser's verdict does not move."""
    assert is_crawler_form(url)
    assert crawler_url(url) == url
    parser = GoogleRobotParser(ROBOTS)
    assert parser.allowed(url, agent) is parse(ROBOTS).allowed(url, product_token(agent))


def test_raw_unicode_gets_the_verdict_of_the_request() -> None:
    parser = GoogleRobotParser(ROBOTS)
    assert crawler_url("https://h/été") == "https://h/%C3%A9t%C3%A9"
    assert parse(ROBOTS).allowed("https://h/été", "x")  # the engine stays literal
    assert not parser.allowed("https://h/été", "x")
    assert not parser.allowed(b"https://h/\xc3\xa9t\xc3\xa9", b"x")


def test_what_the_slow_path_changes() -> None:
    """The characters left out of the fast path, each for a reason w3lib shows."""
    cases = {
        "https://h/a b": "https://h/a%20b",
        "https://h/a|b": "https://h/a%7Cb",
        "https://h/x?a'b": "https://h/x?a%27b",
        "https://h/a\tb": "https://h/ab",
        " https://h/a ": "https://h/a",
        "https://h/a?": "https://h/a",
        "https://h/\x7f": "https://h/%7F",
    }
    for raw, encoded in cases.items():
        assert not is_crawler_form(raw)
        assert crawler_url(raw) == encoded == safe_url_string(raw)
    # A backslash: w3lib 2.2+ reads it as a slash, as browsers do; older w3lib encodes it.
    assert not is_crawler_form("https://h/a\\b")
    assert crawler_url("https://h/a\\b") == safe_url_string("https://h/a\\b")
    assert crawler_url("https://h/a\\b") in ("https://h/a/b", "https://h/a%5Cb")


def test_bytes_that_are_not_utf8_are_percent_encoded() -> None:
    assert crawler_url(b"https://h/caf\xe9") == "https://h/caf%E9"


def test_a_url_w3lib_rejects_is_kept_as_given() -> None:
    assert crawler_url("https://h:99999/é") == "https://h:99999/é"


def test_fast_path_does_not_import_w3lib() -> None:
    code = (
        "import sys\n"
        "from scrapy_gbot_robots.engine.url import crawler_url\n"
        "crawler_url('https://example.com/a/b?c=d%20e#f')\n"
        "print('w3lib' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip() == "False"


# ----------------------------------------------------------------------------- sendable_url


def test_sendable_url_keeps_every_printable_ascii_url_as_written() -> None:
    """Issue 17, item 11: an ASCII URL that needs no encoding is checked literally."""
    for url in [
        "http://example.com/?",  # Scrapy's encoding drops the empty query; Googlebot sends it
        "https://h/a?#top",
        "https://h/%7Ejoe/~joe/%7ejoe",
        "https://h/a|b?x='y'&t[]=1",
        "https://h/a\\b",
        "https://H;X/a",
        "//a://b/c",
        "/relative?",
    ]:
        assert sendable_url(url) == url
        assert sendable_url(url.encode()) == url


def test_sendable_url_encodes_only_what_cannot_be_sent() -> None:
    cases: dict[str | bytes, str] = {
        "https://h/a b": "https://h/a%20b",
        "https://h/café?q=é#é": "https://h/caf%C3%A9?q=%C3%A9#%C3%A9",
        "https://h/café?": "https://h/caf%C3%A9?",  # the '?' stays: only 'é' had to change
        "https://h/Käyttäjä:|x": "https://h/K%C3%A4ytt%C3%A4j%C3%A4:|x",
        " https://h/a\tb\n ": "https://h/ab",  # as every URL parser: ends stripped, tabs removed
        "https://h/\x7f\x00\x1b\x9b": "https://h/%7F%00%1B%C2%9B",
        "https://bücher.example/straße": "https://bücher.example/stra%C3%9Fe",  # host as written
        "https://h\x1b/x": "https://h%1B/x",  # a control is not kept, even in the host
        "example.com/päge": "example.com/p%C3%A4ge",
        b"https://h/caf\xe9": "https://h/caf%E9",  # not UTF-8: the byte itself
        b"https://h\xff/x": "https://h%FF/x",
    }
    for raw, expected in cases.items():
        assert sendable_url(raw) == expected, raw


@SETTINGS
@given(url=raw_urls)
@example(url="https://h/a?")
@example(url="https://h/a b?")
def test_sendable_url_output_can_be_sent_and_is_stable(url: str) -> None:
    got = sendable_url(url)
    if url.isascii() and url.isprintable() and " " not in url:
        assert got == url
    path = path_params_query(got)
    assert path.isascii() and path.isprintable() and " " not in path
    assert sendable_url(got) == got


@SETTINGS
@given(url=raw_urls)
@example(url="https://h/a?")
@example(url="https://h/a|b")
@example(url="https://////")
@example(url="https://[::1]@]")  # w3lib < 2.2 passes it through; urlsplit rejects it
def test_both_rules_agree_on_every_url_scrapy_sends(url: str) -> None:
    """Scrapy hands a parser ``request.url``, already w3lib's output: there the literal rule of
    ``gbot-robots check`` and Scrapy's encoding of ``GoogleRobotParser`` give the same path, so
    the parser keeping ``crawler_url`` changes no verdict in a crawl."""
    try:
        sent = safe_url_string(url)
        netloc = urlsplit(sent).netloc
    except ValueError:  # no URL, or one Scrapy's downloader cannot split: never sent
        return
    if not (netloc and netloc.isascii() and netloc.isprintable() and " " not in netloc):
        # w3lib leaves a host it cannot encode as it is ("https://h;x\x7f", "https://.é"),
        # and a URL may have none ("https://////"): no crawler can connect to it, so Scrapy
        # never sends such a request.
        return
    assert sent.isascii() and sent.isprintable() and " " not in sent
    assert sendable_url(sent) == sent
    assert path_params_query(crawler_url(sent)) == path_params_query(sent)
