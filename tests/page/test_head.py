"""The meta tags of an HTML head: HTML's rule for where the head ends, any markup, bounded."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots.page import head
from scrapy_gbot_robots.page.head import HEAD_LIMIT, MAX_TAGS, meta_tags

ROBOTS = frozenset({"robots"})


def metas(page: bytes | str, names: frozenset[str] | None = ROBOTS) -> list[tuple[str, str]]:
    return meta_tags(page.encode() if isinstance(page, str) else page, names)


def test_googles_example() -> None:
    page = (
        '<!DOCTYPE html>\n<html><head>\n<meta name="robots" content="noindex">\n(…)\n</head>\n'
        "<body>(…)</body>\n</html>"
    )
    # "(…)" is text in the head: HTML ends the head there (it is the page's own placeholder).
    assert metas(page) == [("robots", "noindex")]


@pytest.mark.parametrize(
    "tag",
    [
        '<meta name="robots" content="noindex">',
        "<meta name='robots' content='noindex'>",
        "<meta name=robots content=noindex>",
        '<META NAME="ROBOTS" CONTENT="noindex">',
        '<meta content="noindex" name="robots">',  # any order
        '<meta\n\tname = "robots"\n content= "noindex" />',
        '<meta name="robots"content="noindex">',  # no space between attributes
        '<meta/name="robots"/content="noindex"/>',
        '<meta name=" Robots " content="noindex">',  # name stripped
        '<meta name="robots" content="noindex" name="other">',  # first attribute wins
        '<meta name="robots" data-x=">" content="noindex">',  # '>' inside quotes
    ],
)
def test_markup_variants(tag: str) -> None:
    assert metas(f"<html><head>{tag}</head><body></body></html>") == [("robots", "noindex")]


def test_character_references_are_decoded() -> None:
    page = '<head><meta name="robots" content="noindex&#44; nofollow &amp; more"></head>'
    assert metas(page) == [("robots", "noindex, nofollow & more")]


def test_every_meta_in_order_and_names_filtered() -> None:
    page = (
        '<head><meta name="robots" content="noindex"><meta name="description" content="x">'
        '<meta name="Googlebot" content="nofollow"><meta name="robots" content="nosnippet">'
        '<meta name="robots"><meta content="orphan"></head>'
    )
    assert metas(page, frozenset({"robots", "googlebot"})) == [
        ("robots", "noindex"),
        ("googlebot", "nofollow"),
        ("robots", "nosnippet"),
    ]
    assert ("description", "x") in metas(page, None)


def test_meta_before_the_head_tag_is_in_the_head() -> None:
    # HTML opens the head implicitly: a meta before <head> (or without one) is in it.
    assert metas('<meta name="robots" content="noindex"><head></head>') == [("robots", "noindex")]
    assert metas('\xef\xbb\xbf<meta name="robots" content="x">'.encode("latin-1")) == [
        ("robots", "x")
    ]


@pytest.mark.parametrize(
    "skipped",
    [
        '<!-- <meta name="robots" content="noindex"> -->',
        '<script>var s = "<meta name=robots content=noindex>";</script>',
        "<script type=module>document.write('</head><body>')</script>",
        "<style>/* <meta name=robots content=noindex> */</style>",
        "<title>a <meta name=robots content=noindex> title</title>",
        '<noscript><img src="pixel.gif"><meta name=robots content=noindex></noscript>',
        "<template><div><meta name=robots content=noindex></div></template>",
        "<SCRIPT>x</SCRIPT >",
        "<link rel=stylesheet href=a.css><base href=/>",
        "<?xml version='1.0'?><!DOCTYPE html>",
    ],
)
def test_what_the_head_holds_besides_metas_is_skipped(skipped: str) -> None:
    page = f'<html><head>{skipped}<meta name="robots" content="nofollow"></head>'
    assert metas(page) == [("robots", "nofollow")]


@pytest.mark.parametrize(
    "ending",
    [
        "<body>",
        "<BODY class=x>",
        "</body>",
        "</html>",
        "<div>",  # a start tag that cannot be in a head opens the body
        "<img src=x>",
        "<p>",
        "some text",  # so does text that is not whitespace
        "&nbsp;",
        "< not a tag",
    ],
)
def test_the_head_ends_where_html_ends_it(ending: str) -> None:
    page = (
        f'<html><head><meta name="robots" content="nosnippet">\n{ending}'
        '<meta name="robots" content="noindex">'
    )
    assert metas(page) == [("robots", "nosnippet")]


def test_end_tags_html_ignores_in_a_head_do_not_end_it() -> None:
    page = '<head></div></span><meta name="robots" content="noindex"></head>'
    assert metas(page) == [("robots", "noindex")]


@pytest.mark.parametrize(
    "page",
    [
        b"",
        b"<",
        b"<meta",
        b'<meta name="robots',
        b'<meta name="robots" content="noindex"',  # never closed: its attributes still count
        b"<!--",
        b"<script>",
        b"<!DOCTYPE",
        b"</",
        b"\x00\xff\xfe" * 100,
        "<meta name=robots content=é>".encode("utf-16"),  # not ASCII-compatible: nothing
    ],
)
def test_broken_pages_never_raise(page: bytes) -> None:
    found = meta_tags(page, ROBOTS)
    assert found in ([], [("robots", "noindex")])


def test_invalid_utf8_in_a_value_is_replaced() -> None:
    assert metas(b'<meta name="robots" content="noindex\xff">') == [("robots", "noindex\ufffd")]


class _Counting:
    """Wraps the head's skipping pattern: how often the loop turned, and how far the pattern
    was allowed to look."""

    def __init__(self, pattern: Any) -> None:
        self.pattern = pattern
        self.calls = 0
        self.furthest = 0

    def match(self, body: bytes, pos: int, end: int) -> Any:
        self.calls += 1
        self.furthest = max(self.furthest, end)
        return self.pattern.match(body, pos, end)


TEN_MB = 10 * 1024 * 1024
META_AT_END = b'<meta name="robots" content="noindex">'


@pytest.mark.parametrize(
    "page",
    [
        b"<head>" + b"<link rel=x>" * (TEN_MB // 12) + META_AT_END,  # tags all the way
        b"<head><script>" + b"x" * TEN_MB + b"</script>" + META_AT_END,
        b"<head><!--" + b"-" * TEN_MB + b"-->" + META_AT_END,
        b"<head><meta " + b"a " * (TEN_MB // 2) + b">" + META_AT_END,  # one huge tag
        b"<head>" + b" " * TEN_MB + META_AT_END,
        b"<head><meta name=robots content=" + b"n" * TEN_MB + b">",
        b"<head>" + b'<meta name="robots" content="x">' * (TEN_MB // 34),  # metas to read
    ],
    ids=["tags", "script", "comment", "attributes", "spaces", "value", "metas"],
)
def test_a_10_mb_page_is_read_no_further_than_the_limit(
    page: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    spies = [_Counting(head._SKIP), _Counting(head._SKIP_METAS)]
    monkeypatch.setattr(head, "_SKIP", spies[0])
    monkeypatch.setattr(head, "_SKIP_METAS", spies[1])
    found = meta_tags(page, ROBOTS)
    for spy in spies:  # the loop turns at most MAX_TAGS times, never looking past the limit
        assert spy.calls <= MAX_TAGS and spy.furthest <= HEAD_LIMIT
    assert ("robots", "noindex") not in found  # past the limit: not read
    monkeypatch.undo()
    assert found == meta_tags(page[:HEAD_LIMIT], ROBOTS)  # nothing past the limit mattered
    for _, content in found:
        assert len(content) <= head.VALUE_CHARS


def test_a_meta_within_the_limit_is_read_after_a_long_script() -> None:
    page = b"<head><script>" + b"x" * (HEAD_LIMIT // 2) + b"</script>" + META_AT_END
    assert meta_tags(page, ROBOTS) == [("robots", "noindex")]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2_000))
def test_arbitrary_bytes_never_raise(page: bytes) -> None:
    for name, content in meta_tags(page, None):
        assert name == name.strip().lower() and isinstance(content, str)


_PIECES = st.sampled_from(
    [
        "<head>",
        "</head>",
        "<meta ",
        "name=",
        "robots",
        "content=",
        '"',
        "'",
        ">",
        "/>",
        "<!--",
        "-->",
        "<script>",
        "</script>",
        "&#44;",
        "noindex",
        " ",
        "<",
        "=",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=40))
def test_markup_shaped_noise_never_raises(pieces: list[str]) -> None:
    meta_tags("".join(pieces).encode(), ROBOTS)


@pytest.mark.parametrize(
    "before",
    [
        '<link rel="alternate" href="/robots.txt">',  # a mention in a tag that is not a meta
        '<meta name="description" content="All about robots">',  # in a meta for nobody
        '<meta name="description" content="Home > Robots > Shop">',  # and a quoted ">"
        "<script>if (robots) { document.write('<meta name=robots>') }</script>",
        "<!-- robots -->",
    ],
)
def test_mentions_that_are_not_a_wanted_meta_are_stepped_over(before: str) -> None:
    page = f'<html><head>{before}<link rel=x><meta name="robots" content="noindex"></head>'
    assert metas(page) == [("robots", "noindex")]


def test_a_page_that_never_mentions_a_wanted_name_is_answered_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spy = _Counting(head._SKIP)
    monkeypatch.setattr(head, "_SKIP", spy)
    page = "<html><head>" + '<meta name="description" content="x">' * 50 + "</head><body>"
    assert metas(page) == [] and spy.calls == 0
    assert metas(page, None) == [("description", "x")] * 50  # every meta, when asked


# -- issue 46, item 4: HTML's tokenizer for comments and references, its "after head" rule --


@pytest.mark.parametrize(
    "comment",
    [
        "<!-->",  # an empty comment, closed at once (abrupt-closing-of-empty-comment)
        "<!--->",
        "<!---->",
        "<!-- a --!>",  # --!> ends a comment as --> does
        "<!-- a -- b -->",
        "<!-- <meta name=robots content=hidden> -->",
        "</>",  # ignored
        "</ x>",  # a bogus comment
        "<!x y>",
    ],
)
def test_every_comment_html_closes_is_closed_here(comment: str) -> None:
    page = f'<html><head>{comment}<meta name="robots" content="noindex"></head>'
    assert metas(page) == [("robots", "noindex")]


def test_a_name_written_with_character_references_is_read() -> None:
    """The docs promise references are decoded: the name too, which no byte search finds."""
    assert metas('<meta name="&#114;obots" content="noindex">') == [("robots", "noindex")]
    assert metas('<meta name="r&#x6F;bots" content="noindex">') == [("robots", "noindex")]
    assert metas(b"<meta name=&#82;OBOTS content=noindex>", frozenset({"robots"})) == [
        ("robots", "noindex")
    ]
    # An attribute value keeps a named reference without ';' before '=' or a letter.
    assert metas('<meta name=robots content="a&copy=1, &copy b">') == [("robots", "a&copy=1, © b")]


def test_a_meta_between_head_and_body_is_in_the_head() -> None:
    """HTML's "after head" mode puts a meta there into the head (sloppy templates do this);
    ``<noscript>`` opens the body there, and a second ``</head>`` is ignored."""
    page = '<head></head>\n<!-- c --><meta name="robots" content="noindex"></head><body>'
    assert metas(page) == [("robots", "noindex")]
    page = '<head></head><noscript></noscript><meta name="robots" content="noindex">'
    assert metas(page) == []
    page = '<head></head><title>t</title><meta name="robots" content="a">x<meta name=robots>'
    assert metas(page) == [("robots", "a")]


# A property test against a parser that follows the HTML standard: html5lib (a test-only
# dependency: pure Python, the WHATWG tokenizer and tree builder, no C library to build).
# Its 1.1 release predates <template> in the head (it opens the body there), so the heads
# generated here leave <template> out; <noscript> is read as raw text by both (scripting on).
_HEAD_PIECES = [
    '<meta name="robots" content="a">',
    "<meta name=robots content='b, c'>",
    "<META NAME=ROBOTS CONTENT=d>",
    '<meta content="e" name="robots">',
    '<meta name="&#114;obots" content="f">',
    '<meta name="robots" content="g&amp;h &copy=1">',
    '<meta name="other" content="x">',
    "<meta name=robots>",
    '<meta/name="robots"/content="i"/>',
    "<!-->", "<!--->", "<!---->", "<!-- c -->", "<!-- c --!>", "<!-- a -- b -->",
    "<!-- <meta name=robots content=no> -->", "<!DOCTYPE html>", "<?xml x?>", "<!x>",
    "</>", "</ x>", "</div>", "</span>", "</head>", "<head>", "<html>",
    "<link rel=x href=y>", "<base href=/>", "<title>t<meta name=robots content=no></title>",
    "<script>var s = '<meta name=robots content=no>';</script>",
    "<style>p{}</style>", "<noscript><meta name=robots content=no></noscript>",
    "<noframes>x</noframes>", " ", "\n", "\t",
    "x", "<body>", "</body>", "</html>", "<div>", "<p>", "</br>", "<img src=x>",
]  # fmt: skip


def _html5lib_metas(page: str) -> list[tuple[str, str]]:
    import html5lib

    tree = html5lib.parse(page, namespaceHTMLElements=False)
    head_element = tree.find("head")
    found = []
    for element in head_element if head_element is not None else ():
        name, content = element.get("name"), element.get("content")
        if element.tag == "meta" and content is not None and (name or "").lower() == "robots":
            found.append(("robots", content))
    return found


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_HEAD_PIECES), max_size=12))
def test_the_reader_agrees_with_a_standard_parser_on_generated_heads(pieces: list[str]) -> None:
    pytest.importorskip("html5lib")
    page = "".join(pieces)
    assert metas(page) == _html5lib_metas(page), page
