"""The lint catalogue, in process: one minimal file per finding kind, and files that stay clean."""

from __future__ import annotations

import pytest

from scrapy_gbot_robots.engine import lint as _lint
from scrapy_gbot_robots.engine.lines import MAX_BODY_BYTES

UA = b"User-agent: *\n"

# code -> (body, line the finding must be on)
TRIGGERS: dict[str, tuple[bytes, int]] = {
    "GR101": (b"\xef\xbb\xbf" + UA + b"Disallow: /x\n", 1),
    "GR102": (b"\xef\xbb" + UA + b"Disallow: /x\n", 1),
    "GR103": (UA + b"Disallow: /caf\xe9\n", 2),
    "GR104": (UA + b"Disallow: /x\n" * 40_000, 1 + (MAX_BODY_BYTES - len(UA)) // 13 + 1),
    "GR105": (b"<!DOCTYPE html>\n<html><body>Not found</body></html>\n", 0),
    "GR106": (b"Disallow: /\n", 0),
    "GR201": (UA + b"Dissallow: /x\n", 2),
    "GR202": (UA + b"Disallow /x\n", 2),
    "GR203": (UA + b"Disallow\n", 2),
    "GR204": (UA + b"Disallow /x /y\n", 2),
    "GR205": (UA + b": /x\n", 2),
    "GR206": (UA + b"Noindex: /x\n", 2),
    "GR207": (UA + b"crawl-delay: 2\n", 2),
    "GR208": (UA + b"Allowance: /x\n", 2),
    "GR209": (UA + b"Disallow: /" + b"a" * 20_000 + b"\n", 2),
    "GR210": (UA + b"Disallow: /a\x00b\n", 2),
    "GR211": (UA + b"Disallow: /page#section\n", 2),
    "GR212": (UA + b"Disallow:\n", 2),
    "GR301": (UA + b"Disallow: private/\n", 2),
    "GR302": (UA + b"Disallow: /price$low\n", 2),
    "GR303": (UA + b"Disallow: /%7euser\n", 2),
    "GR304": (UA + b"Disallow: /a b\n", 2),
    "GR401": (b"Disallow: /x\n" + UA, 1),
    "GR402": (UA + b"Disallow: /x\n\nUser-agent: Googlebot\nDisallow: /y\n", 4),
    "GR403": (UA + b"Disallow: /x\n\nUser-agent: Googlebot\n", 4),
    "GR404": (UA + b"Disallow: /x\nDisallow: /y\nDisallow: /x\n", 4),
    "GR405": (UA + b"Disallow: /x\nAllow: /x\n", 3),
    "GR406": (b"User-agent: **\nDisallow: /x\n", 1),
    "GR407": (b"User-agent: Googlebot-News/1.0\nDisallow: /x\n", 1),
    "GR408": (UA + b"Crawl-delay: 10\n\nUser-agent: badbot\nDisallow: /\n", 4),
    "GR501": (UA + b"Disallow: /x\nSitemap: sitemap.xml\n", 3),
    "GR502": (b"License: https://e.com/license.xml\n" + UA + b"Disallow: /x\n", 1),
    "GR503": (UA + b"Disallow: /x\nLicense: license.xml\n", 3),
    "GR601": (UA + b"Content-Signal: search=yes, ai-train=no\n", 2),
    "GR602": (b"Content-Usage: train-ai=n\n" + UA + b"Disallow: /x\n", 1),
    "GR603": (UA + b"Content-Usage: train-ai=n,\n", 2),
    "GR604": (UA + b"Content-Usage: train-ai=no\n", 2),
    "GR605": (UA + b"Content-Signal: train-ai=no\n", 2),
    "GR606": (UA + b"Content-Signal: ai-train=no, ai-train=yes\n", 2),
    "GR607": (UA + b"Content-Usage: /private/\n", 2),
    "GR608": (UA + b"Content-Signal: ai-train=no,,search=yes\n", 2),
}


def test_every_check_has_a_trigger() -> None:
    assert set(TRIGGERS) == {c.code for c in _lint.CHECKS}


@pytest.mark.parametrize("code", sorted(TRIGGERS))
def test_trigger(code: str) -> None:
    body, line = TRIGGERS[code]
    result = _lint.lint(body)
    hits = [f for f in result.findings if f.code == code]
    assert hits, [f"{f.code}@{f.line}" for f in result.findings]
    assert hits[0].line == line
    assert hits[0].severity is _lint.CHECKS_BY_CODE[code].severity
    assert hits[0].message


@pytest.mark.parametrize(
    "body",
    [
        b"",
        UA + b"Disallow: /fish*\nAllow: /fish/$\n",
        UA + b"Disallow: /private/  # keep out\nSitemap: https://example.com/s.xml\n",
        b"User-agent: a\nUser-agent: b\nDisallow: /c\n\nUser-agent: e\nDisallow: /g\n",
        b"User-agent: Googlebot\r\nDisallow: /x\r\n",
        b"# only a comment\n",
    ],
)
def test_clean_files_have_no_warnings(body: bytes) -> None:
    result = _lint.lint(body)
    worst = result.worst()
    assert worst is None or worst < _lint.Severity.WARNING, result.findings


def test_google_grouping_example() -> None:
    """The grouping example of Google's spec page: four groups, 'e' and 'f' share one."""
    body = (
        b"user-agent: a\ndisallow: /c\n\nuser-agent: b\ndisallow: /d\n\nuser-agent: e\n"
        b"user-agent: f\ndisallow: /g\n\nuser-agent: h\n"
    )
    result = _lint.lint(body)
    assert [g.tokens for g in result.groups] == [["a"], ["b"], ["e", "f"], ["h"]]
    assert [(g.first_line, g.last_line) for g in result.groups] == [
        (1, 2),
        (4, 5),
        (7, 9),
        (11, 11),
    ]


def test_sitemap_between_user_agents_does_not_split_the_group() -> None:
    body = (
        b"user-agent: a\nsitemap: https://example.com/sitemap.xml\n\nuser-agent: b\ndisallow: /\n"
    )
    result = _lint.lint(body)
    assert [g.tokens for g in result.groups] == [["a", "b"]]
    assert result.sitemaps == ("https://example.com/sitemap.xml",)


def test_duplicates_across_merged_groups() -> None:
    body = (
        b"User-agent: a\nDisallow: /x\n\n"
        b"User-agent: b\nDisallow: /y\n\n"
        b"User-agent: a\nDisallow: /x\n"
    )
    result = _lint.lint(body)
    (dup,) = [f for f in result.findings if f.code == "GR404"]
    assert dup.line == 8 and "line 2" in dup.message and "for a" in dup.message


def test_hidden_star_group_is_asked_of_the_engine() -> None:
    # "Googlebot2" names googlebot too (the token is the leading letters): the * rules are hidden.
    body = UA + b"Disallow: /\n\nUser-agent: Googlebot2\nAllow: /x\n"
    codes = {f.code for f in _lint.lint(body).findings}
    assert "GR402" in codes
    assert "GR407" in codes


def test_over_size_cut_after_a_whole_line() -> None:
    line = b"Disallow: /x\n"  # 13 bytes
    body = UA[:-1] + b"#" * (MAX_BODY_BYTES - 13 * 1000 - len(UA)) + b"\n" + line * 1001
    assert len(body) > MAX_BODY_BYTES and body[MAX_BODY_BYTES - 1 : MAX_BODY_BYTES] == b"\n"
    (cut,) = [f for f in _lint.lint(body).findings if f.code == "GR104"]
    # Line 1 is the user-agent line plus padding (499,000 bytes); 1,000 whole rules follow.
    assert cut.line == 1001
    assert "the cut falls after line 1001;" in cut.message
    # One byte earlier in the file: the kept part ends just before line 1001's newline.
    (cut,) = [f for f in _lint.lint(b"#" + body).findings if f.code == "GR104"]
    assert cut.line == 1001 and "the cut falls after line 1001;" in cut.message


def test_json_shape() -> None:
    data = _lint.lint(UA + b"Disalow: /x\n").as_json()
    assert set(data) == {
        "bytes",
        "parsed_bytes",
        "truncated",
        "lines",
        "groups",
        "sitemaps",
        "licenses",
        "findings",
        "counts",
    }
    assert data["counts"] == {"error": 0, "warning": 1, "info": 0}


def test_empty_disallow_group_is_deliberate_not_a_warning() -> None:
    body = b"User-agent: *\nDisallow: /\n\nUser-agent: Mediapartners-Google\nDisallow:\n"
    findings = _lint.lint(body).findings
    assert "GR403" not in {f.code for f in findings}
    (hidden,) = [f for f in findings if f.code == "GR402"]
    assert "allows everything" in hidden.message


def test_html_page_is_reported_once_not_line_by_line() -> None:
    body = b"<!doctype html>\n<html>\n<head><title>Oops</title></head>\n<body>\nnot here\n</body>\n"
    codes = [f.code for f in _lint.lint(body).findings]
    assert codes.count("GR105") == 1
    assert not {"GR203", "GR204", "GR206"} & set(codes)


def test_ignored_line_message_escapes_control_bytes_once() -> None:
    # An ELF header pasted as robots.txt: display() escapes \x7f once; the message must not
    # escape the backslash again ('\\x7f').
    (gr203,) = [f for f in _lint.lint(UA + b"\x7fELF\x02\x01\n").findings if f.code == "GR203"]
    assert gr203.message == "ignored: no ':' separator ('\\x7fELF\\x02\\x01'); write 'field: value'"
    assert _lint.lint(UA + b"foo\n").findings[0].message == (
        "ignored: no ':' separator ('foo'); write 'field: value'"
    )



# -- issue 46, item 7 ---------------------------------------------------------------------


def test_the_most_asked_trap_is_told_truly() -> None:
    """A non-rule line does not end a group: badbot joins the * group, and ``Disallow: /``
    applies to every crawler. GR402 said line 5 did not apply to badbot: it is gone."""
    from scrapy_gbot_robots.engine.rules import parse

    body = b"User-agent: *\nCrawl-delay: 10\n\nUser-agent: badbot\nDisallow: /\n"
    findings = _lint.lint(body).findings
    codes = [f.code for f in findings]
    assert "GR402" not in codes and "GR403" not in codes
    (joined,) = [f for f in findings if f.code == "GR408"]
    assert joined.line == 4
    assert "joins the group of line 1" in joined.message
    assert "line 2 (Crawl-delay: 10)" in joined.message
    assert "*, badbot" in joined.message
    assert "rules (line 5) apply to each of them" in joined.message
    robots = parse(body)  # the engine agrees: everyone is disallowed
    assert not robots.allowed("https://e.test/x", "badbot")
    assert not robots.allowed("https://e.test/x", "Googlebot")
    # Blank lines and comments alone do not make the finding (a group of several agents).
    assert "GR408" not in {
        f.code for f in _lint.lint(b"User-agent: a\n# c\n\nUser-agent: b\nDisallow: /\n").findings
    }
    # A * group apart stays hidden from badbot, and GR402 still says so.
    apart = body + b"\nUser-agent: *\nDisallow: /private\n"
    (hidden,) = [f for f in _lint.lint(apart).findings if f.code == "GR402"]
    assert "(line 8)" in hidden.message and "line 5" not in hidden.message


def test_a_pattern_with_a_character_scrapy_never_sends_never_matches() -> None:
    """GR304 says true: the Scrapy parser's verdict for the URL with a raw space."""
    from scrapy_gbot_robots.engine.lint_lines import NEVER_SENT
    from scrapy_gbot_robots.engine.rules import parse
    from scrapy_gbot_robots.engine.url import crawler_url

    (finding,) = [f for f in _lint.lint(UA + b"Disallow: /a b\n").findings if f.code == "GR304"]
    assert "write 'Disallow: /a%20b'" in finding.message
    robots = parse(UA + b"Disallow: /a b\n")
    assert robots.allowed(crawler_url("https://e.test/a b"), "Googlebot")
    assert not parse(UA + b"Disallow: /a%20b\n").allowed(crawler_url("https://e.test/a b"), "x")
    # The set is w3lib's: each character is gone from the path and the query it encodes.
    for code in range(0x80):
        char = chr(code)
        if char in "#?%":
            continue
        url = crawler_url(f"https://e.test/a{char}b?q{char}r")
        assert (char not in url.partition("e.test")[2]) == (char in NEVER_SENT), repr(char)
