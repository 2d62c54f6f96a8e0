"""The tokenizer: bytes to lines, the general way and by the matcher's one-regex fast path.

The first check of a site reads a plain body with one regular expression
(``fast_matcher_lines``); ``decide``, the linter and bodies with a NUL or an over-long line
go through ``directives`` and ``report``.  These pin the two to each other, and the regexes
to what they replaced, on robots-like bodies built to hit every special case (typos,
colon-less lines, comments, NUL, CR, BOM, ``%``, non-ASCII).  Google's line semantics, point
by point, are in ``tests/engine/test_semantics.py``.
"""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine.lines import (
    _MATCHER_LINE,
    _PLAIN_LINE,
    MAX_LINE_BYTES,
    directives,
    fast_matcher_lines,
    has_long_line,
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


def test_fast_path_is_taken_unless_a_nul_or_an_over_long_line_cuts_a_line() -> None:
    assert fast_matcher_lines(b"User-agent: *\nDisallow /x\n") is not None
    too_long = b"x" * (MAX_LINE_BYTES + 1)
    for data in (b"a\0b", too_long, b"Disallow: /a\nUser-agent: \0x\n"):
        assert fast_matcher_lines(data) is None


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
