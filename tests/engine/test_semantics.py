"""Hand-written cases for every point of google-semantics.md.

Each expected verdict was derived by reading Google's reference parser (google/robotstxt,
robots.cc), not by running this package: a second pair of eyes on the engine. Test names
carry the point and the reason. Section headers give the point numbers of the facts document.
"""

from __future__ import annotations

import pytest

from scrapy_gbot_robots import Decision, parse

SITE = "https://example.com"
GB = "Googlebot"
MAX_LINE = 16_663
MAX_BODY = 512_000


def allowed(body: bytes | str, path: str, agent: str = GB) -> bool:
    return parse(body).allowed(SITE + path, agent)


def decide(body: bytes | str, path: str, agent: str = GB) -> Decision:
    return parse(body).decide(SITE + path, agent)


# --------------------------------------------------------------------------------------------
# 1. Bytes, not text
# --------------------------------------------------------------------------------------------


def test_bytes_not_text__invalid_utf8_key_is_not_a_rule() -> None:
    # errors="ignore" would turn b"Dis\xffallow" into a real Disallow.
    body = b"User-agent: *\nDis\xffallow: /\n"
    assert allowed(body, "/") is True
    assert allowed(body, "/private") is True


def test_bytes_not_text__invalid_utf8_byte_ends_the_agent_token() -> None:
    body = b"User-agent: Google\xffbot\nDisallow: /\n"
    assert allowed(body, "/x", "Google") is False
    assert allowed(body, "/x", "Googlebot") is True


def test_bytes_not_text__latin1_byte_in_pattern_is_escaped_byte_for_byte() -> None:
    body = b"User-agent: *\nDisallow: /caf\xe9\n"  # Latin-1 e-acute, not valid UTF-8
    assert allowed(body, "/caf%E9") is False
    assert allowed(body, "/caf%C3%A9") is True  # not re-encoded as UTF-8
    assert allowed(body, "/caf%EF%BF%BD") is True  # not a replacement character
    assert allowed(body, "/caf") is True


def test_bytes_not_text__str_body_is_utf8_encoded_first() -> None:
    text = "User-agent: *\nDisallow: /café\n"
    rt = parse(text)
    assert rt.body == text.encode("utf-8")
    assert rt.allowed(SITE + "/caf%C3%A9", GB) is False
    assert rt.allowed(SITE + "/caf%E9", GB) is True


# --------------------------------------------------------------------------------------------
# 2. Only CR, LF and CRLF end a line
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eol", [b"\n", b"\r", b"\r\n"], ids=["LF", "CR", "CRLF"])
def test_line_breaks__lf_cr_and_crlf_each_end_a_line(eol: bytes) -> None:
    body = eol.join([b"User-agent: *", b"Disallow: /a", b"Allow: /a/b"]) + eol
    assert allowed(body, "/a/x") is False
    assert allowed(body, "/a/b") is True
    assert decide(body, "/a/x").line == 2
    assert decide(body, "/a/b").line == 3


@pytest.mark.parametrize(
    ("between", "line"),
    [
        (b"\r\n", 2),  # one line end
        (b"\n\r", 3),  # LF then CR: two line ends
        (b"\r\r\n", 3),  # CR, then CRLF
        (b"\r\n\r\n", 3),  # a blank CRLF line
        (b"\n\n", 3),
    ],
    ids=["CRLF-once", "LFCR-twice", "CRCRLF-twice", "CRLFCRLF-twice", "LFLF-twice"],
)
def test_line_breaks__crlf_is_one_end_other_pairs_are_two_for_line_numbers(
    between: bytes, line: int
) -> None:
    body = b"User-agent: *" + between + b"Disallow: /a"
    d = decide(body, "/a")
    assert d.allowed is False
    assert d.line == line


NOT_LINE_BREAKS = {
    "VT": b"\x0b",
    "FF": b"\x0c",
    "FS": b"\x1c",
    "GS": b"\x1d",
    "RS": b"\x1e",
    "NEL": "\u0085".encode(),
    "LS": "\u2028".encode(),
    "PS": "\u2029".encode(),
}


@pytest.mark.parametrize("sep", list(NOT_LINE_BREAKS.values()), ids=list(NOT_LINE_BREAKS))
def test_line_breaks__python_splitlines_breaks_are_ordinary_bytes(sep: bytes) -> None:
    # One rule whose pattern is "/a<sep>b": "/a" alone is not covered by it.
    body = b"User-agent: *\nDisallow: /a" + sep + b"b\n"
    assert allowed(body, "/a") is True
    literal = sep.decode("latin-1") if sep[0] < 0x80 else "".join(f"%{c:02X}" for c in sep)
    assert allowed(body, "/a" + literal + "b") is False
    # The "Disallow" after <sep> is part of the user-agent value, not a line of its own.
    body2 = b"User-agent: *" + sep + b"Disallow: /b\n"
    assert allowed(body2, "/b") is True


# --------------------------------------------------------------------------------------------
# 3. BOM prefixes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prefix", [b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"], ids=["full-BOM", "EF-BB", "lone-EF"]
)
def test_bom__any_leading_prefix_of_the_utf8_bom_is_skipped(prefix: bytes) -> None:
    body = prefix + b"User-agent: *\nDisallow: /a\n"
    assert allowed(body, "/a") is False
    assert decide(body, "/a").line == 2


def test_bom__str_body_starting_with_feff_is_skipped() -> None:
    assert allowed("\ufeffUser-agent: *\nDisallow: /a\n", "/a") is False


def test_bom__a_second_bom_is_data_and_spoils_the_first_key() -> None:
    body = b"\xef\xbb\xbf\xef\xbb\xbfUser-agent: *\nDisallow: /a\n"
    assert allowed(body, "/a") is True


def test_bom__bom_after_the_first_line_is_data() -> None:
    body = b"User-agent: *\n\xef\xbb\xbfDisallow: /a\n"
    assert allowed(body, "/a") is True


@pytest.mark.parametrize(
    "prefix", [b"\xef\xbf", b"\xbb\xbf", b"\xbf"], ids=["EF-then-BF", "no-EF", "lone-BF"]
)
def test_bom__only_the_matching_prefix_is_skipped_a_wrong_byte_is_data(prefix: bytes) -> None:
    body = prefix + b"User-agent: *\nDisallow: /a\n"
    assert allowed(body, "/a") is True  # the first key is not "User-agent"


# --------------------------------------------------------------------------------------------
# 4. A line keeps at most 16,663 bytes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lost", [b"b", b"$"], ids=["literal-lost", "anchor-lost"])
def test_long_line__bytes_past_16663_are_dropped_leaving_a_broader_rule(lost: bytes) -> None:
    head = b"Disallow: /"
    run = b"a" * (MAX_LINE - len(head))
    body = b"User-agent: *\n" + head + run + lost + b"\nDisallow: /z\n"
    assert allowed(body, "/" + run.decode() + "c") is False
    assert allowed(body, "/" + run.decode()[:-1]) is True
    # the rest of the long line is dropped, the next line is still a line of its own
    assert allowed(body, "/z") is False
    assert decide(body, "/z").line == 3


def test_long_line__exactly_16663_bytes_are_kept() -> None:
    head = b"Disallow: /"
    run = "a" * (MAX_LINE - len(head) - 1)
    line = head + run.encode() + b"b"
    assert len(line) == MAX_LINE
    body = b"User-agent: *\n" + line + b"\n"
    assert allowed(body, "/" + run + "c") is True
    assert allowed(body, "/" + run + "b") is False


def test_long_line__skipped_bom_bytes_do_not_count_toward_the_limit() -> None:
    head = b"User-agent: "
    token = b"a" * (MAX_LINE - len(head) - 1) + b"b"
    body = b"\xef\xbb\xbf" + head + token + b"\nDisallow: /\n"
    assert allowed(body, "/", token.decode()) is False


def test_long_line__long_comment_line_is_harmless() -> None:
    body = b"User-agent: *\n# " + b"x" * 40_000 + b"\nDisallow: /a\n"
    assert allowed(body, "/a") is False
    assert decide(body, "/a").line == 3


# --------------------------------------------------------------------------------------------
# 5. NUL ends the content of its line
# --------------------------------------------------------------------------------------------


def test_nul__ends_the_value_of_its_line() -> None:
    body = b"User-agent: *\nDisallow: /a\x00bc\nDisallow: /z\n"
    d = decide(body, "/ax")
    assert d.allowed is False
    assert (d.line, d.value, d.pattern) == (2, "/a", "/a")
    assert allowed(body, "/z") is False  # the next line is unaffected


def test_nul__inside_the_key_leaves_no_separator() -> None:
    body = b"User-agent: *\nDis\x00allow: /a\n"
    assert allowed(body, "/a") is True


def test_nul__at_line_start_blanks_the_line() -> None:
    body = b"User-agent: *\n\x00Disallow: /a\n"
    assert allowed(body, "/a") is True


def test_nul__after_star_leaves_a_lone_star_global_agent() -> None:
    # "*\x00foo" is "*": the global agent (with the NUL kept it would match nobody).
    body = b"User-agent: *\x00foo\nDisallow: /\n"
    assert allowed(body, "/x") is False


# --------------------------------------------------------------------------------------------
# 6. '#' starts a comment anywhere
# --------------------------------------------------------------------------------------------


def test_hash__starts_a_comment_even_inside_a_path() -> None:
    body = b"User-agent: *\nDisallow: /a#b\n"
    d = decide(body, "/ax")
    assert d.allowed is False  # the rule is "/a"
    assert d.value == "/a"


def test_hash__after_star_leaves_a_lone_star_global_agent() -> None:
    body = b"User-agent: *#all robots\nDisallow: /\n"
    assert allowed(body, "/x") is False


def test_hash__before_the_colon_leaves_no_separator() -> None:
    body = b"User-agent: *\nDisallow #: /a\n"
    assert allowed(body, "/a") is True


def test_hash__comment_is_removed_before_counting_whitespace_tokens() -> None:
    # "Disallow /a # note" is "Disallow /a": two tokens, a valid colon-less rule.
    body = b"User-agent: *\nDisallow /a # note\n"
    assert allowed(body, "/a") is False


def test_hash__escaped_hash_in_pattern_is_literal() -> None:
    body = b"User-agent: *\nDisallow: /a%23b\n"
    assert allowed(body, "/a%23b") is False
    assert allowed(body, "/a") is True


# --------------------------------------------------------------------------------------------
# 7. ASCII-only whitespace stripping
# --------------------------------------------------------------------------------------------


def test_whitespace__leading_nbsp_is_part_of_the_value_so_pattern_never_matches() -> None:
    body = b"User-agent: *\nDisallow:\xc2\xa0/a\n"
    assert allowed(body, "/a") is True


def test_whitespace__trailing_nbsp_is_kept_and_escaped() -> None:
    body = b"User-agent: *\nDisallow: /a\xc2\xa0\n"
    assert allowed(body, "/a") is True
    assert allowed(body, "/a%C2%A0") is False


def test_whitespace__nbsp_before_agent_gives_an_empty_token() -> None:
    body = b"User-agent:\xc2\xa0Googlebot\nDisallow: /\n"
    assert allowed(body, "/x") is True


def test_whitespace__ascii_space_tab_vt_ff_are_stripped() -> None:
    body = b"User-agent: *\nDisallow:\t\x0b\x0c /a \x0b\x0c\t\n"
    d = decide(body, "/a")
    assert d.allowed is False
    assert d.value == "/a"


@pytest.mark.parametrize(
    "ws",
    [b"\x1c", b"\x1d", b"\x1e", b"\x1f", b"\x85", "\u0085".encode(), "\u2003".encode()],
    ids=["FS", "GS", "RS", "US", "raw-85", "NEL", "EM-SPACE"],
)
def test_whitespace__unicode_or_python_only_whitespace_is_not_stripped(ws: bytes) -> None:
    body = b"User-agent: *\nDisallow:" + ws + b"/a\n"
    assert allowed(body, "/a") is True


# --------------------------------------------------------------------------------------------
# 8. The 500 KiB cap: a plain byte cut, the partial last line still parsed
# --------------------------------------------------------------------------------------------


def test_cap__rules_after_512000_bytes_are_dropped() -> None:
    head = b"User-agent: *\n"
    filler = b"#" * (MAX_BODY - len(head) - 1) + b"\n"
    body = head + filler + b"Disallow: /a\n"
    rt = parse(body)
    assert rt.allowed(SITE + "/a", GB) is True
    assert rt.truncated is True
    assert rt.body == body[:MAX_BODY]


def test_cap__partial_last_line_is_still_parsed_as_a_broader_rule() -> None:
    head = b"User-agent: *\n"
    kept = b"Disallow: /a"
    filler = b"#" * (MAX_BODY - len(head) - len(kept) - 1) + b"\n"
    body = head + filler + b"Disallow: /abc\n"
    assert len(head + filler + kept) == MAX_BODY
    rt = parse(body)
    d = rt.decide(SITE + "/ax", GB)
    assert d.allowed is False
    assert (d.line, d.value) == (3, "/a")


def test_cap__exactly_512000_bytes_is_not_truncated() -> None:
    head = b"User-agent: *\nDisallow: /a\n"
    body = head + b"#" * (MAX_BODY - len(head))
    rt = parse(body)
    assert rt.truncated is False
    assert rt.body == body
    assert rt.allowed(SITE + "/a", GB) is False


def test_cap__max_bytes_cut_is_plain_even_inside_a_utf8_sequence() -> None:
    body = "User-agent: *\nDisallow: /é\n".encode()
    cut = body.index(b"\xa9")  # keep the lead byte 0xC3 only
    rt = parse(body, max_bytes=cut)
    assert rt.truncated is True
    assert rt.body == body[:cut]
    assert rt.allowed(SITE + "/%C3%A9", GB) is False  # the pattern is "/%C3"
    assert rt.allowed(SITE + "/%C4", GB) is True


# --------------------------------------------------------------------------------------------
# 9. Separator rules
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        b"Disallow: /x",
        b"Disallow:/x",
        b"Disallow : /x",
        b"Disallow\t:\t/x",
        b"Disallow /x",
        b"Disallow\t/x",
        b"Disallow \t  /x",
    ],
    ids=["colon", "colon-no-space", "space-colon", "tabs", "space", "tab", "mixed-run"],
)
def test_separator__colon_or_whitespace_between_exactly_two_tokens(line: bytes) -> None:
    body = b"User-agent: *\n" + line + b"\n"
    assert allowed(body, "/x") is False


def test_separator__colonless_user_agent_line_works() -> None:
    assert allowed(b"User-agent Googlebot\nDisallow /\n", "/x") is False


def test_separator__three_whitespace_tokens_without_colon_are_ignored() -> None:
    body = b"User-agent: *\nDisallow /x /y\n"
    assert allowed(body, "/x") is True
    assert allowed(body, "/y") is True


def test_separator__only_space_and_tab_stand_in_for_a_colon_not_vt() -> None:
    body = b"User-agent: *\nDisallow\x0b/x\n"
    assert allowed(body, "/x") is True


def test_separator__first_colon_wins_so_disallow_space_a_colon_b_has_value_b() -> None:
    body = b"User-agent: *\nDisallow /a:b\n"
    for path in ("/a", "/a:b", "/b"):
        assert allowed(body, path) is True  # pattern "b" never matches
    # The key "Allow /a" is still an Allow, with value "*": priority 1 ties "Disallow: /".
    body2 = b"User-agent: *\nDisallow: /\nAllow /a:*\n"
    d = decide(body2, "/zzz")
    assert d.allowed is True
    assert (d.line, d.value) == (3, "*")


def test_separator__colon_inside_value_is_kept() -> None:
    body = b"User-agent: *\nDisallow: /a:b\n"
    assert allowed(body, "/a:b") is False
    assert allowed(body, "/a") is True


def test_separator__colonless_sitemap_splits_at_the_urls_own_colon() -> None:
    # "Sitemap https://x" has a colon: the key is "Sitemap https", the value "//x".
    assert parse(b"Sitemap https://example.com/s.xml\n").sitemaps == ("//example.com/s.xml",)


def test_separator__empty_key_is_ignored() -> None:
    body = b"User-agent: *\n : /x\nDisallow: /y\n"
    assert allowed(body, "/x") is True
    assert allowed(body, "/y") is False


# --------------------------------------------------------------------------------------------
# 10. Keys are recognised by ASCII case-insensitive prefix
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key", ["Disallow", "DISALLOW", "dIsAlLoW", "Disallowed", "Disallows", "Disallow-Path"]
)
def test_keys__disallow_recognised_by_case_insensitive_prefix(key: str) -> None:
    body = f"User-agent: *\n{key}: /a\n".encode()
    d = decide(body, "/a")
    assert d.allowed is False
    assert d.directive == key  # the key as written
    assert d.rule == f"{key}: /a"


def test_keys__allowance_is_an_allow() -> None:
    body = b"User-agent: *\nDisallow: /\nAllowance: /a\n"
    assert allowed(body, "/a") is True
    assert allowed(body, "/b") is False


def test_keys__user_agents_is_a_user_agent() -> None:
    body = b"User-agents: Googlebot\nDisallow: /\n"
    assert allowed(body, "/x") is False
    assert parse(body).names_agent(GB) is True


def test_keys__sitemaps_is_a_sitemap() -> None:
    assert parse(b"Sitemaps: https://example.com/s.xml\n").sitemaps == (
        "https://example.com/s.xml",
    )


@pytest.mark.parametrize("key", ["XDisallow", "my-disallow", "Disallo", "Dis", " -Disallow"])
def test_keys__not_a_prefix_match_is_an_unknown_key(key: str) -> None:
    body = f"User-agent: *\n{key}: /a\n".encode()
    assert allowed(body, "/a") is True


def test_keys__case_folding_is_ascii_only() -> None:
    # U+017F (long s) casefolds and upper-cases to "s"; Google's ASCII comparison does not.
    body = "User-agent: *\nDi\u017fallow: /a\n".encode()
    assert allowed(body, "/a") is True


# --------------------------------------------------------------------------------------------
# 11. Accepted typos
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key", ["dissallow", "dissalow", "disalow", "diasllow", "disallaw", "DISALOW", "Disalowed"]
)
def test_typos__accepted_disallow_misspellings(key: str) -> None:
    body = f"User-agent: *\n{key}: /a\n".encode()
    d = decide(body, "/a")
    assert d.allowed is False
    assert d.directive == key


@pytest.mark.parametrize("key", ["useragent", "user agent", "USERAGENT", "User Agent"])
def test_typos__accepted_user_agent_misspellings(key: str) -> None:
    body = f"{key}: Googlebot\nDisallow: /\n".encode()
    assert allowed(body, "/x") is False


@pytest.mark.parametrize("key", ["user_agent", "user  agent", "user-agnet", "agent"])
def test_typos__other_user_agent_misspellings_are_unknown(key: str) -> None:
    body = f"{key}: Googlebot\nDisallow: /\n".encode()
    assert allowed(body, "/x") is True  # the Disallow comes before any user-agent


def test_typos__user_agent_with_space_and_no_colon_is_three_tokens_and_ignored() -> None:
    body = b"user agent Googlebot\nDisallow: /\n"
    assert allowed(body, "/x") is True


def test_typos__site_map_is_a_sitemap_site_map_with_space_is_not() -> None:
    body = b"Site-map: https://example.com/a.xml\nSite map: https://example.com/b.xml\n"
    assert parse(body).sitemaps == ("https://example.com/a.xml",)


@pytest.mark.parametrize("key", ["alow", "allw", "alllow", "aloww", "Alow"])
def test_typos__there_are_no_accepted_typos_for_allow(key: str) -> None:
    body = f"User-agent: *\nDisallow: /\n{key}: /a\n".encode()
    assert allowed(body, "/a") is False


# --------------------------------------------------------------------------------------------
# 12. Allow/Disallow values are normalised; user-agent and sitemap values are not
# --------------------------------------------------------------------------------------------


def test_pattern_normalisation__lowercase_hex_escape_is_upper_cased() -> None:
    body = b"User-agent: *\nDisallow: /a%2fb\n"
    d = decide(body, "/a%2Fb")
    assert d.allowed is False
    assert (d.value, d.pattern) == ("/a%2fb", "/a%2Fb")
    assert allowed(body, "/a%2fb") is True  # the URL is not normalised


def test_pattern_normalisation__allow_values_are_normalised_too() -> None:
    body = b"User-agent: *\nDisallow: /\nAllow: /%7ejoe\n"
    assert allowed(body, "/%7Ejoe") is True
    assert allowed(body, "/%7ejoe") is False


def test_pattern_normalisation__non_ascii_bytes_become_upper_percent_escapes() -> None:
    body = "User-agent: *\nDisallow: /café\n".encode()
    d = decide(body, "/caf%C3%A9")
    assert d.allowed is False
    assert d.pattern == "/caf%C3%A9"
    assert allowed(body, "/caf%c3%a9") is True
    assert allowed(body, "/café") is True  # a raw non-ASCII URL never meets an escaped pattern


def test_pattern_normalisation__invalid_escapes_are_left_alone() -> None:
    body = b"User-agent: *\nDisallow: /a%zz\nDisallow: /b%f\n"
    assert allowed(body, "/a%zz") is False
    assert allowed(body, "/a%ZZ") is True
    assert allowed(body, "/b%f") is False
    assert allowed(body, "/b%F") is True


def test_pattern_normalisation__double_percent_normalises_the_second_escape() -> None:
    body = b"User-agent: *\nDisallow: /%%2f\n"
    assert allowed(body, "/%%2F") is False
    assert allowed(body, "/%%2f") is True


def test_pattern_normalisation__sitemap_value_is_kept_as_written() -> None:
    body = "Sitemap: https://example.com/s%2fé.xml\n".encode()
    assert parse(body).sitemaps == ("https://example.com/s%2fé.xml",)


def test_pattern_normalisation__sitemap_invalid_utf8_is_backslash_replaced() -> None:
    body = b"Sitemap: https://example.com/\xff.xml\n"
    assert parse(body).sitemaps == ("https://example.com/\\xff.xml",)


# --------------------------------------------------------------------------------------------
# 13. The URL is not normalised
# --------------------------------------------------------------------------------------------


def test_url_not_normalised__percent_7e_and_tilde_are_different() -> None:
    tilde = b"User-agent: *\nDisallow: /~joe\n"
    assert allowed(tilde, "/~joe") is False
    assert allowed(tilde, "/%7Ejoe") is True
    escaped = b"User-agent: *\nDisallow: /%7Ejoe\n"
    assert allowed(escaped, "/~joe") is True
    assert allowed(escaped, "/%7Ejoe") is False


def test_url_not_normalised__lowercase_escape_in_url_misses_uppercase_pattern() -> None:
    body = b"User-agent: *\nDisallow: /a%2Fb\n"
    assert allowed(body, "/a%2fb") is True
    assert allowed(body, "/a%2Fb") is False


def test_url_not_normalised__dot_segments_are_kept() -> None:
    body = b"User-agent: *\nDisallow: /private/\nDisallow: /a/./b\n"
    assert allowed(body, "/public/../private/x") is True
    assert allowed(body, "/a/./b") is False
    assert allowed(body, "/a/b") is True


def test_url_not_normalised__path_is_case_sensitive() -> None:
    body = b"User-agent: *\nDisallow: /Private\n"
    assert allowed(body, "/private") is True
    assert allowed(body, "/Private") is False


def test_url_not_normalised__raw_space_matches_only_a_raw_space() -> None:
    body = b"User-agent: *\nDisallow: /a b\n"
    assert allowed(body, "/a b") is False
    assert allowed(body, "/a%20b") is True


# --------------------------------------------------------------------------------------------
# 14. Group boundaries: only a user-agent line after a rule ends a group
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "between",
    [
        b"",
        b"# a comment",
        b"Sitemap: https://example.com/s.xml",
        b"Crawl-delay: 5",
        b"Foo: bar",
        b"this line has no separator at all",
        b"Noindex: /n",
        b"\x00",
        b"   \t",
    ],
    ids=["blank", "comment", "sitemap", "delay", "unknown", "ignored", "noindex", "nul", "sp"],
)
def test_groups__non_rule_lines_neither_end_a_group_nor_split_its_agents(between: bytes) -> None:
    body = b"\n".join(
        [
            b"User-agent: a",
            between,
            b"User-agent: Googlebot",
            b"Disallow: /x",
            between,
            b"Disallow: /y",
            between,
            b"User-agent: b",
            b"Disallow: /z",
        ]
    )
    assert allowed(body, "/x", "a") is False
    assert allowed(body, "/y", "a") is False
    assert allowed(body, "/y", GB) is False
    assert allowed(body, "/z", "a") is True
    assert allowed(body, "/x", "b") is True
    assert allowed(body, "/z", "b") is False


def test_groups__user_agent_after_a_rule_starts_a_new_group() -> None:
    body = b"User-agent: Googlebot\nDisallow: /x\nUser-agent: Bingbot\nDisallow: /y\n"
    assert allowed(body, "/x", GB) is False
    assert allowed(body, "/y", GB) is True
    assert allowed(body, "/x", "Bingbot") is True
    assert allowed(body, "/y", "Bingbot") is False


def test_groups__an_allow_line_also_closes_the_agent_list() -> None:
    body = b"User-agent: a\nAllow: /p\nUser-agent: Googlebot\nDisallow: /\n"
    assert allowed(body, "/x", "a") is True
    assert allowed(body, "/p", GB) is False


def test_groups__empty_user_agent_line_still_starts_a_new_group() -> None:
    body = b"User-agent: Googlebot\nDisallow: /x\nUser-agent:\nDisallow: /y\n"
    assert allowed(body, "/x") is False
    assert allowed(body, "/y") is True


# --------------------------------------------------------------------------------------------
# 15. Rules before the first user-agent line are ignored
# --------------------------------------------------------------------------------------------


def test_groups__rules_before_the_first_user_agent_are_ignored() -> None:
    body = b"Disallow: /a\nAllow: /b\nUser-agent: *\nDisallow: /b\n"
    assert allowed(body, "/a") is True
    d = decide(body, "/b")
    assert d.allowed is False
    assert d.line == 4


def test_groups__rules_without_any_user_agent_allow_everything() -> None:
    d = decide(b"Disallow: /\nAllow: /x\n", "/anything")
    assert d.allowed is True
    assert (d.line, d.directive, d.value, d.pattern, d.group) == (0, "", "", "", "none")
    assert d.rule == ""


# --------------------------------------------------------------------------------------------
# 16. The product token of a user-agent value: longest leading [A-Za-z_-] run
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "Googlebot",
        "Googlebot/2.1",
        "Googlebot*",
        "Googlebot2",
        "googlebot.com",
        "GOOGLEBOT",
        "Googlebot;",
        "Googlebot (compatible)",
        "Googlebot Bingbot",
    ],
)
def test_agent_token__leading_letters_hyphen_underscore_run_is_the_token(value: str) -> None:
    body = f"User-agent: {value}\nDisallow: /\n".encode()
    assert allowed(body, "/x", GB) is False
    assert allowed(body, "/x", "Bingbot") is True  # only the first token counts


def test_agent_token__non_ascii_letter_ends_the_token() -> None:
    body = "User-agent: Googleböt\nDisallow: /\n".encode()
    assert allowed(body, "/x", "Googleb") is False
    assert allowed(body, "/x", GB) is True


def test_agent_token__hyphen_and_underscore_belong_to_the_token() -> None:
    body = b"User-agent: Googlebot-Image\nDisallow: /\nUser-agent: my_bot\nDisallow: /m\n"
    assert allowed(body, "/x", "Googlebot-Image") is False
    assert allowed(body, "/x", GB) is True
    assert allowed(body, "/m", "my_bot") is False
    assert allowed(body, "/m", "my") is True


@pytest.mark.parametrize("agent", ["Googlebot/2.1", "Googlebot 2", "Foo Bar", "Googlebot2"])
def test_agent_token__crawler_string_that_is_not_a_token_gets_only_star_rules(agent: str) -> None:
    body = b"User-agent: Googlebot\nDisallow: /g\nUser-agent: *\nDisallow: /s\n"
    assert allowed(body, "/g", agent) is True
    assert allowed(body, "/s", agent) is False
    assert parse(body).names_agent(agent) is False


def test_agent_token__value_not_starting_with_a_token_char_names_no_crawler() -> None:
    body = b"User-agent: 1Googlebot\nDisallow: /\nUser-agent: /Googlebot\nDisallow: /\n"
    assert allowed(body, "/x") is True


# --------------------------------------------------------------------------------------------
# 17. '*' is the global agent only alone or before whitespace
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["*", "*  foo", "*\tfoo", "* Googlebot"])
def test_star__alone_or_followed_by_whitespace_is_the_global_agent(value: str) -> None:
    body = f"User-agent: {value}\nDisallow: /x\n".encode()
    assert allowed(body, "/x", "Somebot") is False
    assert allowed(body, "/x", GB) is False
    assert parse(body).names_agent(GB) is False  # "* Googlebot" does not name Googlebot


@pytest.mark.parametrize("value", ["*foo", "**", "*/*", "*Googlebot", "*.*"])
def test_star__followed_by_anything_else_matches_nobody(value: str) -> None:
    body = f"User-agent: {value}\nDisallow: /x\n".encode()
    assert allowed(body, "/x", "Somebot") is True
    assert allowed(body, "/x", GB) is True


def test_star__star_and_a_named_agent_share_one_group() -> None:
    body = b"User-agent: *\nUser-agent: Googlebot\nDisallow: /x\nUser-agent: *\nDisallow: /y\n"
    assert allowed(body, "/x", GB) is False
    assert allowed(body, "/y", GB) is True  # the later '*' group is ignored for Googlebot
    assert allowed(body, "/x", "Bingbot") is False
    assert allowed(body, "/y", "Bingbot") is False


# --------------------------------------------------------------------------------------------
# 18. Whole-token, ASCII case-insensitive agent comparison
# --------------------------------------------------------------------------------------------


def test_agent_match__whole_token_not_prefix() -> None:
    body = b"User-agent: gbot\nDisallow: /\n"
    assert allowed(body, "/x", "gbotcheck") is True
    assert allowed(body, "/x", "gbo") is True
    assert allowed(body, "/x", "gbot") is False
    assert allowed(body, "/x", "GBot") is False


def test_agent_match__longer_group_token_does_not_cover_the_shorter_crawler() -> None:
    body = b"User-agent: Googlebot-News\nDisallow: /\n"
    assert allowed(body, "/x", GB) is True
    assert allowed(body, "/x", "googlebot-news") is False


def test_agent_match__case_insensitivity_is_ascii_only() -> None:
    # KELVIN SIGN lowercases to "k", LONG S upper-cases to "S": neither is ASCII equality.
    kelvin = b"User-agent: kbot\nDisallow: /\n"
    assert allowed(kelvin, "/x", "\u212abot") is True
    assert allowed(kelvin, "/x", "KBOT") is False
    long_s = b"User-agent: sbot\nDisallow: /\n"
    assert allowed(long_s, "/x", "\u017fbot") is True


# --------------------------------------------------------------------------------------------
# 19. Groups naming the crawler are merged, and then '*' is ignored entirely
# --------------------------------------------------------------------------------------------


def test_merge__all_groups_naming_the_crawler_are_merged() -> None:
    body = (
        b"User-agent: Googlebot\nDisallow: /a\n\n"
        b"User-agent: Bingbot\nDisallow: /b\n\n"
        b"User-agent: Googlebot\nDisallow: /c\nAllow: /a/open\n"
    )
    assert allowed(body, "/a") is False
    assert allowed(body, "/c") is False
    assert allowed(body, "/b") is True
    assert allowed(body, "/a/open") is True  # longest rule across the merged groups


def test_merge__all_star_groups_are_merged() -> None:
    body = b"User-agent: *\nDisallow: /a\nUser-agent: b\nDisallow: /\nUser-agent: *\nDisallow: /c\n"
    assert allowed(body, "/a") is False
    assert allowed(body, "/c") is False
    assert allowed(body, "/d") is True


def test_merge__star_rules_are_ignored_once_a_group_names_the_crawler() -> None:
    body = b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /private\n"
    assert allowed(body, "/public", GB) is True
    assert allowed(body, "/private", GB) is False
    assert allowed(body, "/public", "Bingbot") is False


def test_merge__named_group_whose_rules_do_not_match_still_hides_star_rules() -> None:
    body = b"User-agent: Googlebot\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n"
    d = decide(body, "/x")
    assert d.allowed is True
    assert d.line == 0


def test_merge__trailing_user_agent_without_rules_means_crawl_everything() -> None:
    body = b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\n"
    rt = parse(body)
    assert rt.names_agent(GB) is True
    assert rt.allowed(SITE + "/x", GB) is True
    assert rt.decide(SITE + "/x", GB).line == 0
    assert rt.allowed(SITE + "/x", "Bingbot") is False


def test_merge__named_group_with_only_empty_disallow_hides_star_rules() -> None:
    body = b"User-agent: *\nDisallow: /\nUser-agent: Googlebot\nDisallow:\n"
    d = decide(body, "/x")
    assert d.allowed is True
    # matching_line() reports the priority-0 match of the empty Disallow
    assert (d.line, d.directive, d.group) == (4, "Disallow", "agent")


def test_decision__reports_the_deciding_rule_and_its_group() -> None:
    body = b"User-agent: *\nDisallow: /s\nUser-agent: Googlebot\nDisallow: /g\n"
    d = decide(body, "/g", GB)
    assert d == Decision(
        allowed=False,
        line=4,
        directive="Disallow",
        value="/g",
        pattern="/g",
        group="agent",
    )
    assert d.rule == "Disallow: /g"
    g = decide(body, "/s", "Bingbot")
    assert (g.allowed, g.line, g.group) == (False, 2, "global")
    n = decide(body, "/x", "Bingbot")
    assert (n.allowed, n.line, n.directive, n.group, n.rule) == (True, 0, "", "none", "")


# --------------------------------------------------------------------------------------------
# 20. The path matched is the URL's path, params and query
# --------------------------------------------------------------------------------------------

PATHS_BODY = b"\n".join(
    [
        b"User-agent: *",
        b"Disallow: /$",
        b"Disallow: /a$",
        b"Disallow: /a?b$",
        b"Disallow: /a;p$",
        b"Disallow: /?q$",
        b"Disallow: /;x$",
        b"Disallow: /a?u=http://other/x$",
    ]
)


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com",  # no path: "/"
        "https://example.com/",
        "https://example.com#frag",  # "/"
        "https://example.com#/a",  # a '#' before the path: "/"
        "https://example.com/a?b",  # the query is part of it
        "https://example.com/a?b#c",  # the fragment is not
        "https://example.com/a#x?b",  # "/a"
        "https://example.com/a;p",  # params are part of it
        "https://example.com?q",  # "/" is put in front: "/?q"
        "https://example.com;x",  # "/;x"
        "https://user:pw@example.com:8080/a",  # userinfo and port are not
        "HTTPS://EXAMPLE.COM/a",
        "//example.com/a",  # scheme-relative
        "https://example.com/a?u=http://other/x",  # a later "://" is just query
    ],
)
def test_path_extraction__path_params_query_up_to_the_fragment(url: str) -> None:
    assert parse(PATHS_BODY).allowed(url, GB) is False


@pytest.mark.parametrize(
    "url",
    ["https://example.com/a?bc", "https://example.com/b", "https://example.com/a/"],
)
def test_path_extraction__anchored_rules_do_not_match_other_paths(url: str) -> None:
    assert parse(PATHS_BODY).allowed(url, GB) is True


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com#/x",
        "http://example.com:8080#/x",
        "https://example.com#frag/x",
        "//example.com#/x",
    ],
)
def test_path_extraction__hash_before_the_first_slash_leaves_root(url: str) -> None:
    # GetPathParamsQuery: a '#' before the path start gives "/", whatever follows it.
    rt = parse(b"User-agent: *\nDisallow: /x\n")
    assert rt.allowed(url, GB) is True
    assert rt.decide(url, GB).allowed is True


def test_path_extraction__nul_in_url_ends_the_path() -> None:
    # The reference matches the path as a C string: "/a\0/x" is "/a".
    rt = parse(b"User-agent: *\nDisallow: /a/x\nDisallow: /a$\n")
    d = rt.decide(SITE + "/a\x00/x", GB)
    assert (d.allowed, d.line) == (False, 3)
    assert rt.allowed(SITE + "/a\x00/x", GB) is False


def test_path_extraction__fragment_is_never_matched() -> None:
    body = b"User-agent: *\nDisallow: /*frag\n"
    assert allowed(body, "/a#frag") is True
    assert allowed(body, "/a?frag") is False


# --------------------------------------------------------------------------------------------
# 21. Pattern syntax
# --------------------------------------------------------------------------------------------


def test_pattern__anchored_at_the_start_of_the_path() -> None:
    body = b"User-agent: *\nDisallow: /a\n"
    assert allowed(body, "/ba") is True
    assert allowed(body, "/a") is False
    assert allowed(body, "/abc") is False


def test_pattern__star_matches_any_run_including_empty() -> None:
    body = b"User-agent: *\nDisallow: /a*b\n"
    assert allowed(body, "/ab") is False
    assert allowed(body, "/a/x/y?b") is False
    assert allowed(body, "/a") is True
    assert allowed(body, "/b") is True


def test_pattern__dollar_at_the_end_anchors() -> None:
    body = b"User-agent: *\nDisallow: /a$\n"
    assert allowed(body, "/a") is False
    assert allowed(body, "/a/") is True
    assert allowed(body, "/a?x") is True


def test_pattern__dollar_elsewhere_is_a_literal() -> None:
    body = b"User-agent: *\nDisallow: /a$b\n"
    assert allowed(body, "/a$b") is False
    assert allowed(body, "/a$bc") is False
    assert allowed(body, "/a") is True
    assert allowed(body, "/ab") is True


def test_pattern__of_two_trailing_dollars_the_first_is_literal() -> None:
    body = b"User-agent: *\nDisallow: /a$$\n"
    assert allowed(body, "/a$") is False
    assert allowed(body, "/a$x") is True
    assert allowed(body, "/a") is True


def test_pattern__star_dollar_matches_any_ending() -> None:
    body = b"User-agent: *\nDisallow: /a*$\n"
    assert allowed(body, "/a") is False
    assert allowed(body, "/abc") is False
    assert allowed(body, "/b") is True


def test_pattern__leading_star_and_end_anchor() -> None:
    body = b"User-agent: *\nDisallow: *.pdf$\n"
    assert allowed(body, "/doc/x.pdf") is False
    assert allowed(body, "/x.pdf?dl=1") is True


@pytest.mark.parametrize(
    "value", ["a", "a*", "?a", "%2Fa", "$", ".", "https://example.com/a", "\\/a"]
)
def test_pattern__not_starting_with_slash_or_star_never_matches(value: str) -> None:
    body = f"User-agent: *\nDisallow: {value}\n".encode()
    for path in ("/a", "/", "/?a", "/https://example.com/a"):
        assert allowed(body, path) is True


def test_pattern__lone_star_matches_everything() -> None:
    body = b"User-agent: *\nDisallow: *\n"
    assert allowed(body, "/") is False
    assert allowed(body, "/anything?q") is False


def test_pattern__regex_metacharacters_are_literal() -> None:
    body = (
        b"User-agent: *\nDisallow: /a.b\nDisallow: /c+\nDisallow: /d(x\nDisallow: /e[\n"
        b"Disallow: /f?g\nDisallow: /h\\\nDisallow: /i|j\nDisallow: /k{2}\n"
    )
    for path in ("/a.b", "/c+", "/d(x", "/e[", "/f?g", "/h\\", "/i|j", "/k{2}"):
        assert allowed(body, path) is False, path
    for path in ("/axb", "/cc", "/fg", "/i", "/j", "/kk"):
        assert allowed(body, path) is True, path


# --------------------------------------------------------------------------------------------
# 22. Priority is the byte length of the normalised pattern
# --------------------------------------------------------------------------------------------


def test_priority__star_counts_so_fish_star_beats_fish() -> None:
    body = b"User-agent: *\nAllow: /fish\nDisallow: /fish*\n"
    d = decide(body, "/fish")
    assert d.allowed is False
    assert d.line == 3
    assert allowed(body, "/fishy") is False


def test_priority__dollar_counts() -> None:
    body = b"User-agent: *\nAllow: /page$\nDisallow: /page\n"
    assert allowed(body, "/page") is True  # 6 > 5
    assert allowed(body, "/pages") is False


def test_priority__is_pattern_length_not_number_of_characters_matched() -> None:
    body = b"User-agent: *\nAllow: /abcd\nDisallow: /*******\n"
    assert allowed(body, "/abcd") is False  # 8 > 5, though the Allow matched more literally


def test_priority__rule_order_does_not_matter() -> None:
    for body in (
        b"User-agent: *\nDisallow: /a/b\nAllow: /a\n",
        b"User-agent: *\nAllow: /a\nDisallow: /a/b\n",
    ):
        assert allowed(body, "/a/b/c") is False
        assert allowed(body, "/a/c") is True


def test_priority__each_non_ascii_byte_counts_three_after_escaping() -> None:
    # "/é" is "/%C3%A9": 7 bytes, not 2 characters or 3 raw bytes.
    beats_5 = "User-agent: *\nAllow: /é\nDisallow: /*%A9\n".encode()
    assert allowed(beats_5, "/%C3%A9") is True
    loses_to_8 = "User-agent: *\nAllow: /é\nDisallow: /%C3%A9*\n".encode()
    assert allowed(loses_to_8, "/%C3%A9") is False
    ties_7 = "User-agent: *\nAllow: /é\nDisallow: /%c3%a9\n".encode()
    assert allowed(ties_7, "/%C3%A9") is True


# --------------------------------------------------------------------------------------------
# 23. Highest priority wins, a tie goes to allow, empty rules have priority 0
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("allow_first", [True, False], ids=["allow-first", "disallow-first"])
def test_tie__equal_priority_goes_to_allow_and_reports_the_allow_line(allow_first: bool) -> None:
    rules = ["Allow: /p", "Disallow: /p"]
    if not allow_first:
        rules.reverse()
    body = ("User-agent: *\n" + "\n".join(rules) + "\n").encode()
    d = decide(body, "/page")
    assert d.allowed is True
    assert d.directive == "Allow"
    assert d.line == (2 if allow_first else 3)


def test_tie__different_patterns_of_equal_length() -> None:
    body = b"User-agent: *\nDisallow: /ab\nAllow: /a*\n"
    assert allowed(body, "/ab") is True
    assert allowed(body, "/abc") is True


def test_tie__among_equal_rules_of_one_kind_the_first_line_is_reported() -> None:
    body = b"User-agent: *\nDisallow: /a*\nDisallow: /*b\n"
    d = decide(body, "/ab")
    assert d.allowed is False
    assert d.line == 2


def test_empty_rule__empty_disallow_allows_everything_and_is_the_matching_line() -> None:
    body = b"User-agent: *\nDisallow:\n"
    d = decide(body, "/x")
    assert d.allowed is True
    assert d.line == 2


def test_empty_rule__empty_allow_never_beats_a_real_disallow() -> None:
    body = b"User-agent: *\nAllow:\nDisallow: /\n"
    d = decide(body, "/x")
    assert d.allowed is False
    assert d.line == 3


def test_empty_rule__empty_disallow_never_overrides_a_real_disallow() -> None:
    body = b"User-agent: *\nDisallow: /a\nDisallow:\n"
    assert allowed(body, "/a") is False
    assert allowed(body, "/b") is True


def test_empty_rule__empty_allow_and_empty_disallow_tie_to_the_allow_line() -> None:
    body = b"User-agent: *\nDisallow:\nAllow: # nothing\n"
    d = decide(body, "/x")
    assert d.allowed is True
    assert (d.line, d.directive) == (3, "Allow")


# --------------------------------------------------------------------------------------------
# 24. Google-only: Allow .../index.htm* also allows the directory itself
# --------------------------------------------------------------------------------------------


def test_index_htm__allow_index_html_also_allows_the_directory() -> None:
    body = b"User-agent: *\nDisallow: /\nAllow: /index.html\n"
    d = decide(body, "/")
    assert d.allowed is True
    assert d.line == 3
    assert allowed(body, "/index.html") is True
    assert allowed(body, "/other") is False
    assert allowed(body, "/?q") is False  # only the directory exactly ("/$")


def test_index_htm__works_in_subdirectories_and_for_htm() -> None:
    body = b"User-agent: *\nDisallow: /dir/\nAllow: /dir/index.htm\n"
    assert allowed(body, "/dir/") is True
    assert allowed(body, "/dir/index.htm") is True
    assert allowed(body, "/dir/index.html") is True
    assert allowed(body, "/dir/x") is False


def test_index_htm__synthesised_dir_dollar_has_its_own_byte_length_as_priority() -> None:
    ties = b"User-agent: *\nDisallow: /*\nAllow: /index.html\n"  # "/$" (2) ties "/*" (2)
    assert allowed(ties, "/") is True
    loses = b"User-agent: *\nDisallow: /**\nAllow: /index.html\n"  # 2 < 3
    assert allowed(loses, "/") is False


def test_index_htm__only_allow_rules_get_it() -> None:
    body = b"User-agent: *\nDisallow: /index.html\n"
    assert allowed(body, "/") is True
    assert allowed(body, "/index.html") is False


@pytest.mark.parametrize(
    ("value", "dir_allowed"),
    [
        ("/index.html?x=1", True),  # the last segment still starts with /index.htm
        ("/index.htmx", True),
        ("/index.php", False),
        ("/index.html/x", False),  # the last segment is "/x"
        ("/INDEX.HTML", False),  # case-sensitive
        ("/a/myindex.html", False),
    ],
)
def test_index_htm__last_segment_must_start_with_slash_index_htm(
    value: str, dir_allowed: bool
) -> None:
    body = f"User-agent: *\nDisallow: /\nAllow: {value}\n".encode()
    directory = value[: value.rfind("/") + 1]
    assert allowed(body, directory) is dir_allowed


def test_index_htm__wildcard_directory_pattern_keeps_its_star() -> None:
    body = b"User-agent: Googlebot\nDisallow: /\nAllow: /*/index.html\n"
    assert allowed(body, "/a/") is True  # "/*/$"
    assert allowed(body, "/a/b") is False


def test_index_htm__escaped_directory_name() -> None:
    body = "User-agent: *\nDisallow: /\nAllow: /é/index.html\n".encode()
    assert allowed(body, "/%C3%A9/") is True


# --------------------------------------------------------------------------------------------
# 25-28. Fetching and caching are the policy's job (scope/origin in policy/origin.py, status
# codes, server errors and cache lifetime in policy/fetch.py), tested in tests/policy/
# (tests/policy/test_origin.py, tests/policy/test_policy.py) and, in a crawl, in
# tests/crawl/test_middleware*.py.
# The engine's share is tested here.
# --------------------------------------------------------------------------------------------


def test_scope__engine_verdict_depends_on_the_path_only_origin_is_the_middlewares_job() -> None:
    rt = parse(b"User-agent: *\nDisallow: /a\n")
    for base in (
        "http://example.com",
        "https://example.com:443",
        "https://example.com:8443",
        "http://xn--bcher-kva.example",
        "http://192.0.2.1:8080",
    ):
        assert rt.allowed(base + "/a", GB) is False
        assert rt.allowed(base + "/b", GB) is True


def test_status__empty_body_the_4xx_outcome_means_no_restrictions() -> None:
    rt = parse(b"")
    d = rt.decide(SITE + "/anything", GB)
    assert (d.allowed, d.line, d.group) == (True, 0, "none")
    assert rt.sitemaps == ()
    assert rt.truncated is False
    assert rt.names_agent(GB) is False


def test_status__html_with_a_logical_redirect_gives_no_rules() -> None:
    body = (
        b"<html><head><meta http-equiv=\"refresh\" content=\"0; url=/real-robots.txt\">"
        b"</head>\n<body>Moved: see /real-robots.txt</body></html>\n"
    )
    assert allowed(body, "/real-robots.txt") is True
    assert allowed(body, "/") is True


def test_cache__one_parsed_copy_serves_several_crawlers_independently() -> None:
    # A cached copy may be shared between crawlers: per-agent state must not leak.
    rt = parse(
        b"User-agent: Googlebot\nDisallow: /g\n\nUser-agent: Bingbot\nDisallow: /b\n\n"
        b"User-agent: *\nDisallow: /s\n"
    )
    expected = {
        (GB, "/g"): False,
        (GB, "/b"): True,
        (GB, "/s"): True,
        ("Bingbot", "/g"): True,
        ("Bingbot", "/b"): False,
        ("Other", "/s"): False,
        ("Other", "/g"): True,
    }
    for _ in range(3):
        for (agent, path), verdict in expected.items():
            assert rt.allowed(SITE + path, agent) is verdict
            assert rt.decide(SITE + path, agent).allowed is verdict


# --------------------------------------------------------------------------------------------
# 29. Only user-agent, allow, disallow and sitemap matter; crawl-delay is parsed, not used
# --------------------------------------------------------------------------------------------


def test_crawl_delay__is_parsed_but_never_changes_a_verdict() -> None:
    with_delay = b"User-agent: *\nCrawl-delay: 10\nDisallow: /a\n"
    without = b"User-agent: *\nDisallow: /a\n"
    for path in ("/", "/a", "/b"):
        assert allowed(with_delay, path) is allowed(without, path)
    assert decide(with_delay, "/a").line == 3
    assert parse(with_delay).crawl_delay(GB) == 10.0
    assert parse(without).crawl_delay(GB) is None


def test_crawl_delay__follows_the_group_selection_of_the_rules() -> None:
    body = b"User-agent: *\nCrawl-delay: 5\nDisallow: /a\n\nUser-agent: Googlebot\nCrawl-delay: 2\n"
    rt = parse(body)
    assert rt.crawl_delay(GB) == 2.0
    assert rt.crawl_delay("Bingbot") == 5.0
    hidden = parse(b"User-agent: *\nCrawl-delay: 5\nDisallow: /a\n\nUser-agent: Googlebot\n")
    assert hidden.crawl_delay(GB) is None  # the '*' group is ignored for Googlebot
    assert hidden.crawl_delay("Bingbot") == 5.0


def test_crawl_delay__line_does_not_split_the_agent_list() -> None:
    body = b"User-agent: *\nCrawl-delay: 5\nUser-agent: Googlebot\nDisallow: /x\n"
    rt = parse(body)
    assert rt.crawl_delay(GB) == 5.0  # one group for '*' and Googlebot
    assert rt.crawl_delay("Bingbot") == 5.0
    assert rt.allowed(SITE + "/x", GB) is False
    assert rt.allowed(SITE + "/x", "Bingbot") is False
    # the same with the agent lines the other way round
    other = parse(b"User-agent: Googlebot\nCrawl-delay: 5\nUser-agent: *\nDisallow: /x\n")
    assert other.crawl_delay(GB) == 5.0
    assert other.crawl_delay("Bingbot") == 5.0


def test_other_keys__noindex_host_clean_param_and_friends_are_ignored() -> None:
    body = (
        b"User-agent: *\nNoindex: /a\nHost: example.com\nClean-param: ref /b\n"
        b"Request-rate: 1/5\nVisit-time: 0600-0845\nNofollow: /c\n"
    )
    for path in ("/a", "/b", "/c"):
        assert allowed(body, path) is True


def test_sitemaps__every_value_from_anywhere_in_file_order() -> None:
    body = (
        b"Sitemap: https://example.com/1.xml\n"
        b"User-agent: Googlebot\n"
        b"Sitemap: https://example.com/2.xml # the news one\n"
        b"Disallow: /\n"
        b"site-map: https://example.com/3.xml\n"
        b"User-agent: *\n"
        b"SITEMAP:https://example.com/4.xml\n"
    )
    rt = parse(body)
    assert rt.sitemaps == tuple(f"https://example.com/{n}.xml" for n in (1, 2, 3, 4))
    assert rt.allowed(SITE + "/x", GB) is False  # sitemap lines did not end the group
