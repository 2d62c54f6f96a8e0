"""The matcher's fast path must give exactly what the general path gives.

The first check of a site goes through ``fast_matcher_lines`` (one regular expression) and
``fast_select`` (the group walk specialised to it) when the body allows; ``decide`` and
bodies with a NUL or an over-long line go through ``directives`` and ``walk_groups``.
These properties pin the two to each other on robots-like bodies built to hit every special
case (typos, colon-less lines, comments, NUL, CR, BOM, ``%``, non-ASCII).
"""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine.groups import fast_select, token_key, walk_groups
from scrapy_gbot_robots.engine.lines import (
    _MATCHER_LINE,
    _PLAIN_LINE,
    MAX_LINE_BYTES,
    colonless_line,
    directives,
    fast_matcher_lines,
    has_long_line,
    matcher_directives,
    report,
)

KEYS = [
    b"User-agent", b"user-agent", b"USERAGENT", b"user agent", b"User-agents", b"Allow",
    b"allowance", b"Disallow", b"disalow", b"DISSALLOW", b"diasllow", b"disallaw", b"Sitemap",
    b"site-map", b"Crawl-delay", b"Host", b"Foo", b"", b"xallow", b"*",
]
VALUES = [
    b"*", b"* ", b"*foo", b"Googlebot", b"googlebot/2.1", b"Googl\xc3\xb6t", b"/", b"/a", b"/a*b$",
    b"/%7e%2F", b"/caf\xc3\xa9", b"/a b", b"", b"/index.html", b"$", b"/*.pdf$", b"bing-bot",
]
SEPARATORS = [b": ", b":", b" : ", b" ", b"\t", b"  ", b"#:", b"::"]
TAILS = [b"", b" # comment", b"#", b" \t", b"\0junk", b"\x0b", b" extra"]
BREAKS = [b"\n", b"\r\n", b"\r", b"\n\n"]

line = st.builds(
    lambda pre, key, sep, value, tail: pre + key + sep + value + tail,
    st.sampled_from([b"", b" ", b"\t", b"\xef\xbb\xbf"]),
    st.sampled_from(KEYS),
    st.sampled_from(SEPARATORS),
    st.sampled_from(VALUES),
    st.sampled_from(TAILS),
)
body = st.builds(
    lambda bom, parts: bom + b"".join(text + brk for text, brk in parts),
    st.sampled_from([b"", b"\xef\xbb\xbf", b"\xef\xbb"]),
    st.lists(st.tuples(line, st.sampled_from(BREAKS)), max_size=25),
)


AGENTS = ["Googlebot", "googlebot", "bing-bot", "foo", "", "Googlebot/2.1", "*"]


def _both(data: bytes, user_agent: str) -> tuple[object, object] | None:
    lines = fast_matcher_lines(data)
    if lines is None:
        return None
    agent = token_key(user_agent)
    specific, agent_rules, global_rules, _ = walk_groups(matcher_directives(data), agent)
    rules = agent_rules if specific else global_rules
    general = (specific, [r[2] for r in rules if r[1]], [r[2] for r in rules if not r[1]])
    return fast_select(lines, agent), general


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body, st.sampled_from(AGENTS))
def test_fast_select_equals_walk_groups_on_robots_like_bodies(data: bytes, agent: str) -> None:
    both = _both(data, agent)
    if both is not None:
        assert both[0] == both[1]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.sampled_from(AGENTS))
def test_fast_select_equals_walk_groups_on_random_bytes(data: bytes, agent: str) -> None:
    both = _both(data, agent)
    if both is not None:
        assert both[0] == both[1]


def test_fast_path_is_taken_unless_a_nul_or_an_over_long_line_cuts_a_line() -> None:
    assert fast_matcher_lines(b"User-agent: *\nDisallow /x\n") is not None
    too_long = b"x" * (MAX_LINE_BYTES + 1)
    for data in (b"a\0b", too_long, b"Disallow: /a\nUser-agent: \0x\n"):
        assert fast_matcher_lines(data) is None


def test_fast_path_normalises_the_values_of_a_body_with_escapes_or_other_bytes() -> None:
    # Bytes >= 0x80 escaped, escapes upper-cased, as the general path writes patterns; a
    # user-agent value as written; a colonless rule too.
    data = (
        b"User-agent: Googl\xc3\xb6t\nDisallow: /caf\xc3\xa9 # x\nAllow: /p%7e%2F\n"
        b"Disallow /caf\xc3\xa9%aa\nDisallow: /plain\n"
    )
    found = fast_matcher_lines(data)
    assert found == [
        ("U", "", "", " Googl\xc3\xb6t", ""),
        ("", "", "D", " /caf%C3%A9 ", ""),
        ("", "A", "", " /p%7E%2F", ""),
        ("", "", "D", "", " /caf\xc3\xa9%aa"),
        ("", "", "D", " /plain", ""),
    ]
    assert colonless_line(found[3]) == ("", "", "d", "/caf%C3%A9%AA", "")
    robots = parse(data)  # the group is "Googl"'s: the token stops at the first other byte
    assert robots.allowed("https://x.com/caf%C3%A9", "Googl") is False
    assert robots.allowed("https://x.com/caf%c3%a9", "Googl") is True  # URLs match as written
    assert robots.allowed("https://x.com/caf", "Googl") is True
    assert robots.allowed("https://x.com/plainx", "Googl") is False
    assert robots.allowed("https://x.com/caf%C3%A9", "bot") is True
    specific, agent_rules, _, _ = walk_groups(matcher_directives(data), "googl")
    allows = [rule[2] for rule in agent_rules if rule[1]]
    disallows = [rule[2] for rule in agent_rules if not rule[1]]
    assert specific is True
    assert fast_select(found, "googl") == (True, allows, disallows)
    assert disallows == ["/caf%C3%A9", "/caf%C3%A9%AA", "/plain"]


@pytest.mark.parametrize("comment", [b"", b" # c"])  # each of the two line regexes
def test_a_key_alone_is_no_line_but_a_key_and_its_colon_is_a_rule(comment: bytes) -> None:
    # Google ignores "Disallow" alone (no colon, nothing for whitespace to separate), so
    # groups a and b merge; "Disallow:" is a rule (an empty one) that ends group a.
    merged = b"User-agent: a\nDisallow" + comment + b"\nUser-agent: b\nDisallow: /x\n"
    ended = b"User-agent: a\nDisallow:" + comment + b"\nUser-agent: b\nDisallow: /x\n"
    for data, allowed in ((merged, False), (ended, True)):
        both = _both(data, "a")
        assert both is not None and both[0] == both[1]
        assert parse(data).allowed("https://x.com/x", "a") is allowed


@pytest.mark.parametrize("comment", [b"", b" # c"])
def test_user_agent_spelt_with_a_space_needs_its_colon(comment: bytes) -> None:
    # Without a colon, the space splits "user agent": Google reads the key "user" and
    # ignores the line, so the Googlebot group it seems to open does not exist.
    data = b"User-agent: *\nDisallow: /x\n\nuser agent Googlebot" + comment + b"\nDisallow /y\n"
    both = _both(data, "Googlebot")
    assert both is not None and both[0] == both[1]
    robots = parse(data)
    assert robots.allowed("https://x.com/x", "Googlebot") is False  # the * group's
    assert robots.allowed("https://x.com/y", "Googlebot") is False
    spelt = parse(data.replace(b"user agent Googlebot", b"user agent: Googlebot"))
    assert spelt.allowed("https://x.com/x", "Googlebot") is True  # its own group now
    assert spelt.allowed("https://x.com/y", "Googlebot") is False


def test_fast_path_sees_a_rule_after_an_over_long_line_as_the_general_path_does() -> None:
    long_rule = b"Disallow: /" + b"a" * (MAX_LINE_BYTES + 50) + b"\n"
    data = b"User-agent: *\n" + long_rule + b"Allow: /ok\n"
    assert fast_matcher_lines(data) is None  # the general path handles the cut
    robots = parse(data)
    cut = "/" + "a" * (MAX_LINE_BYTES - len(b"Disallow: /"))
    assert robots.allowed("https://x.com" + cut, "bot") is False
    assert robots.allowed("https://x.com" + cut[:-1], "bot") is True


# Line lengths around the cap and around the half-cap blocks has_long_line() searches by.
_AROUND = [0, 1, 7, 8330, 8331, 8332, 8333, MAX_LINE_BYTES - 1, MAX_LINE_BYTES]
_AROUND += [MAX_LINE_BYTES + 1, MAX_LINE_BYTES + 2, 2 * MAX_LINE_BYTES + 3]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(_AROUND), st.integers(0, 40_000)), max_size=6),
    st.integers(0, 9_000),
)
def test_has_long_line_finds_exactly_the_lines_over_the_cap(lengths: list[int], shift: int) -> None:
    text = b"y" * shift + b"\n".join(b"x" * length for length in lengths)
    expected = max(map(len, text.split(b"\n"))) > MAX_LINE_BYTES
    assert has_long_line(text) is expected
    assert has_long_line(text + b"\n") is expected
    assert has_long_line(b"\n" + text) is expected


def test_line_report_and_directives_agree_on_every_line() -> None:
    data = (
        b"\xef\xbb\xbfUser-agent: *\r\nDisalow /x\r\nDisallow /a /b\r\n: empty\r\n"
        b"Allow: /p%7e # c\rSitemap: https://x.com/s.xml\n\0\n"
    )
    lines = report(data)
    kinds = {r.number: (r.kind, r.key, r.value) for r in lines if r.kind is not None}
    assert kinds == {n: (k, key, v) for n, k, key, v in directives(data)}
    by_number = {r.number: r for r in lines}
    assert by_number[2].typo is True and by_number[2].colon is False
    assert by_number[3].ignored == "too-many-tokens"
    assert by_number[4].ignored == "empty-key"
    assert by_number[5].pattern == "/p%7E" and by_number[5].comment is True
    assert by_number[7].nul is True
    assert len(lines) == 8


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body)
def test_the_comment_free_line_regex_finds_what_the_general_one_finds(data: bytes) -> None:
    # fast_matcher_lines() reads a body without "#" with _PLAIN_LINE (no "#" in its classes):
    # on such a body it must give exactly the tuples _MATCHER_LINE gives.
    text = "\n" + data.replace(b"#", b"").decode("latin-1")
    assert _PLAIN_LINE.findall(text) == _MATCHER_LINE.findall(text)


def test_fast_matcher_lines_takes_the_comment_free_regex_only_without_hash() -> None:
    plain = b"User-agent: *\nDisallow: /a  \nAllow:/b\x0b\n"
    commented = plain + b"Disallow: /c # why\n"
    assert fast_matcher_lines(plain) == _MATCHER_LINE.findall("\n" + plain.decode("ascii"))
    found = fast_matcher_lines(commented)
    assert found is not None and found[-1] == ("", "", "D", " /c ", "")


# The line regexes as they were before their leading whitespace was made possessive: the
# possessive run must find exactly what backtracking over it found.
_BACKTRACKING = [
    re.compile(pattern.pattern.replace("\\n[ \\t\\v\\f]*+", "\\n[ \\t\\v\\f]*", 1), re.ASCII)
    for pattern in (_MATCHER_LINE, _PLAIN_LINE)
]
_INDENTED = st.lists(
    st.tuples(st.sampled_from(["", " ", "\t", "  \x0b ", "\x0c", " " * 40]), line), max_size=25
).map(lambda lines: b"\n".join(indent.encode() + text for indent, text in lines))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="possessive runs need Python 3.11")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_INDENTED)
def test_the_possessive_leading_whitespace_finds_what_backtracking_found(data: bytes) -> None:
    text = "\n" + data.decode("latin-1")
    for fast, slow in zip((_MATCHER_LINE, _PLAIN_LINE), _BACKTRACKING, strict=True):
        assert fast.findall(text) == slow.findall(text)
