"""Which rules apply to a crawler, and how sources combine: Google's page, point by point."""

from __future__ import annotations

import json
import pickle
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots.page.rules import (
    CAP_HEAD,
    CAP_HEADERS,
    CAP_OTHER,
    HEADER_CHARS,
    MAX_HEADER_LINES,
    MAX_HEADERS,
    MAX_METAS,
    MAX_OTHER,
    NO_RULES,
    PageRules,
    read_page_rules,
)

JUNE_25 = datetime(2010, 6, 25, 23, tzinfo=timezone.utc)


def page(*metas: tuple[str, str]) -> bytes:
    tags = "".join(f'<meta name="{n}" content="{c}">' for n, c in metas)
    return f"<!DOCTYPE html><html><head>{tags}</head><body>x</body></html>".encode()


def test_nothing_said_is_no_rules() -> None:
    assert read_page_rules("Googlebot") is NO_RULES
    assert read_page_rules("Googlebot", [], page(("description", "x"))) is NO_RULES
    assert NO_RULES.empty and NO_RULES.follow and NO_RULES.indexable(0.0)


def test_robots_applies_to_every_crawler_a_token_to_its_crawler_only() -> None:
    body = page(("robots", "nosnippet"), ("googlebot", "noindex"), ("googlebot-news", "nofollow"))
    assert read_page_rules("Googlebot", [], body).source("noindex") == ("meta:googlebot",)
    google = read_page_rules("Googlebot", [], body)
    assert (google.noindex, google.nofollow, google.nosnippet) == (True, False, True)
    other = read_page_rules("OtherBot", [], body)
    assert (other.noindex, other.nofollow, other.nosnippet) == (False, False, True)
    assert other.sources == (("nosnippet", ("meta:robots",)),)


def test_names_and_content_are_case_insensitive() -> None:
    rules = read_page_rules("googlebot", [b"GoogleBot: NoFollow"], page(("GOOGLEBOT", "NOINDEX")))
    assert rules.noindex and rules.nofollow
    assert rules.sources == (("noindex", ("meta:googlebot",)), ("nofollow", ("header:googlebot",)))


def test_header_forms_several_headers_and_comma_lists_combine() -> None:
    # Google's examples: several X-Robots-Tag headers, and a comma-separated list.
    rules = read_page_rules(
        "Googlebot",
        [
            b"noimageindex",
            b"unavailable_after: 25 Jun 2010 15:00:00 PST",
            b"notranslate, nosnippet",
        ],
    )
    assert rules.noimageindex and rules.notranslate and rules.nosnippet
    assert rules.unavailable_after == JUNE_25
    assert all(where == ("header",) for _, where in rules.sources)


def test_header_agents_address_one_crawler() -> None:
    headers = [b"googlebot: nofollow", b"otherbot: noindex, nofollow"]
    google = read_page_rules("Googlebot", headers)
    assert (google.noindex, google.nofollow) == (False, True)
    assert google.source("nofollow") == ("header:googlebot",)
    other = read_page_rules("otherbot", headers)
    assert (other.noindex, other.nofollow) == (True, True)
    assert read_page_rules("ThirdBot", headers) is NO_RULES  # nothing addressed to it


def test_none_is_noindex_and_nofollow() -> None:
    rules = read_page_rules("Googlebot", [], page(("robots", "none")))
    assert rules.noindex and rules.nofollow and not rules.follow
    assert rules.source("noindex") == rules.source("nofollow") == ("meta:robots",)


def test_conflicts_the_most_restrictive_wins_across_every_source() -> None:
    rules = read_page_rules(
        "Googlebot",
        [b"max-snippet: 50, max-image-preview: large", b"googlebot: max-snippet: -1"],
        page(
            ("robots", "all, index, follow, max-snippet: 20, max-video-preview: -1"),
            ("robots", "max-image-preview: standard"),
            ("googlebot", "max-snippet: 20, max-video-preview: 10, noindex"),
        ),
    )
    assert rules.noindex  # noindex beats all and index
    assert rules.max_snippet == 20  # the smaller; -1 (no limit) is the largest
    assert rules.source("max-snippet") == ("meta:robots", "meta:googlebot")  # who said 20
    assert rules.max_video_preview == 10 and rules.source("max-video-preview") == (
        "meta:googlebot",
    )
    assert rules.max_image_preview == "standard"
    assert rules.source("all") == ("meta:robots",)  # known, and changes nothing
    assert rules.other == ()


def test_no_limit_stays_when_it_is_all_that_was_said() -> None:
    rules = read_page_rules("B", [b"max-snippet:-1, max-video-preview:-1"])
    assert (rules.max_snippet, rules.max_video_preview) == (-1, -1)


def test_nosnippet_wins_over_max_snippet() -> None:
    # Google: "if a page has both max-snippet:50 and nosnippet rules, the nosnippet rule
    # will apply."
    rules = read_page_rules("B", [b"max-snippet:50, nosnippet"])
    assert rules.max_snippet == 50 and rules.nosnippet and rules.snippet_limit == 0
    assert read_page_rules("B", [b"max-snippet:50"]).snippet_limit == 50
    assert NO_RULES.snippet_limit is None


def test_the_earliest_unavailable_after_wins() -> None:
    rules = read_page_rules(
        "B",
        [b"unavailable_after: 2030-01-01"],
        page(("robots", "unavailable_after: 25 Jun 2010 15:00:00 PST")),
    )
    assert rules.unavailable_after == JUNE_25
    assert rules.source("unavailable_after") == ("meta:robots",)


def test_unavailable_after_in_the_past_means_noindex_now() -> None:
    rules = read_page_rules("B", [b"unavailable_after: 25 Jun 2010 15:00:00 PST"])
    assert not rules.noindex
    before, after = JUNE_25.timestamp() - 1, JUNE_25.timestamp()
    assert rules.indexable(before) and not rules.expired(before)
    assert not rules.indexable(after) and rules.expired(after)
    assert not rules.indexable(datetime(2011, 1, 1))  # a naive datetime is read as UTC
    assert rules.indexable(datetime(2010, 1, 1, tzinfo=timezone.utc))


def test_unknown_rules_and_unreadable_values_are_kept_and_change_nothing() -> None:
    rules = read_page_rules(
        "B",
        [b"noarchive, unavailable_after: someday"],
        page(("robots", "noindex nofollow, max-snippet: lots")),
    )
    assert not rules.noindex and not rules.nofollow and rules.max_snippet is None
    assert rules.unavailable_after is None and rules.indexable(0.0)
    assert rules.other == (
        ("noarchive", "header"),
        ("unavailable_after: someday", "header"),
        ("noindex nofollow", "meta:robots"),
        ("max-snippet: lots", "meta:robots"),
    )
    assert not rules.empty


@pytest.mark.parametrize(
    ("tokens", "noindex", "nofollow", "nosnippet"),
    [
        (("Googlebot-Image", "Googlebot"), True, True, True),  # both names apply
        (("Googlebot-Image",), False, True, True),
        ("Googlebot", True, False, True),
        ("googlebot-news", False, False, True),
    ],
)
def test_a_token_list_reads_the_rules_of_each_token(
    tokens: str | tuple[str, ...], noindex: bool, nofollow: bool, nosnippet: bool
) -> None:
    body = page(("googlebot", "noindex"), ("googlebot-image", "nofollow"), ("robots", "nosnippet"))
    rules = read_page_rules(tokens, [], body)
    assert (rules.noindex, rules.nofollow, rules.nosnippet) == (noindex, nofollow, nosnippet)


def test_a_page_that_is_not_html_has_only_its_header() -> None:
    assert read_page_rules("B", [b"noindex"], None).noindex
    pdf = b"%PDF-1.4 <meta name=robots content=nofollow>"
    assert read_page_rules("B", [], None) is NO_RULES  # the body is not given
    assert not read_page_rules("B", [], pdf).nofollow  # text first: the head has ended


def test_as_json_is_json_and_says_everything() -> None:
    rules = read_page_rules(
        ["Googlebot"],
        ["googlebot: noindex", "max-image-preview: none, unavailable_after: 2010-06-25T23:00Z"],
        page(("robots", "nofollow, max-snippet: 0, junk")),
    )
    data = json.loads(json.dumps(rules.as_json()))
    assert data == {
        "noindex": True,
        "nofollow": True,
        "nosnippet": False,
        "noimageindex": False,
        "notranslate": False,
        "indexifembedded": False,
        "max_snippet": 0,
        "max_image_preview": "none",
        "max_video_preview": None,
        "unavailable_after": "2010-06-25T23:00:00Z",
        "sources": {
            "noindex": ["header:googlebot"],
            "nofollow": ["meta:robots"],
            "max-snippet": ["meta:robots"],
            "max-image-preview": ["header"],
            "unavailable_after": ["header"],
        },
        "other": [{"rule": "junk", "source": "meta:robots"}],
        "capped": [],
    }


def test_the_value_is_frozen_hashable_and_picklable() -> None:
    rules = read_page_rules("B", [b"noindex, indexifembedded"])
    with pytest.raises(AttributeError):
        rules.noindex = False  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(rules)) == rules  # meta copied into a JOBDIR request
    assert hash(rules) == hash(read_page_rules("B", [b"noindex, indexifembedded"]))
    assert rules.indexifembedded


def test_work_is_bounded_per_page() -> None:
    many = [b"noindex"] + [b"nofollow"] * (MAX_HEADERS + 10)
    assert read_page_rules("B", many).source("nofollow") == ("header",)
    junk = read_page_rules("B", [", ".join(f"x{i}" for i in range(500))])
    assert len(junk.other) == MAX_OTHER
    assert read_page_rules("B", [b"noindex" + b" " * 100_000 + b", nofollow"]).nofollow is False


HEADER_TEXT = st.lists(
    st.sampled_from([*"abgo:,- _0123456789\t\x00\x1b\u202e", "noindex", "bot:", "max-snippet"]),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(st.binary(max_size=100), HEADER_TEXT), max_size=5),
    st.one_of(st.none(), st.binary(max_size=1_000)),
    st.lists(st.sampled_from(["Googlebot", "b", "", " ", "Googlebot-News"]), max_size=3),
)
def test_never_raises_on_arbitrary_headers_and_bodies(
    headers: list[bytes | str], body: bytes | None, tokens: list[str]
) -> None:
    rules = read_page_rules(tokens, headers, body)
    assert isinstance(rules, PageRules)
    json.dumps(rules.as_json())
    assert rules.indexable(0.0) == (not rules.noindex and not rules.expired(0.0))


def test_other_crawlers_lines_push_out_no_rule_and_a_bound_is_said() -> None:
    """Issue 46, item 3: what applies is read first; another crawler's value does not count."""
    others = [f"otherbot-{chr(97 + n // 26)}{chr(97 + n % 26)}: noindex" for n in range(600)]
    rules = read_page_rules("Googlebot", [*others, b"nofollow", b"googlebot: noindex"])
    assert rules.nofollow and rules.noindex and rules.capped == ()
    assert rules.source("noindex") == ("header:googlebot",)
    # A value for another crawler that names ours further on is read.
    assert read_page_rules("Googlebot", [b"otherbot: noindex, googlebot: nofollow"]).nofollow
    # Our own values past MAX_HEADERS, more values in all than MAX_HEADER_LINES, a value
    # past HEADER_CHARS: the page says it was read in part.
    ours = [b"max-snippet: 5"] * MAX_HEADERS + [b"noindex"]
    assert read_page_rules("B", ours).capped == (CAP_HEADERS,)
    assert not read_page_rules("B", ours).noindex
    assert read_page_rules("B", [b"x: y"] * (MAX_HEADER_LINES + 1)).capped == (CAP_HEADERS,)
    assert read_page_rules("B", [b"noindex" + b" " * HEADER_CHARS]).capped == (CAP_HEADERS,)
    # Unknown rules only: kept in `other` (bounded), pushing no rule out, within a budget.
    junk = [b"zz"] * 100 + [b"nofollow"]
    assert read_page_rules("B", junk).nofollow
    assert read_page_rules("B", junk).capped == (CAP_OTHER,)


def test_robots_metas_past_the_bound_are_said_and_other_crawlers_metas_never_count() -> None:
    others = "".join(f'<meta name="otherbot{n}" content="noindex">' for n in range(100))
    robots = '<meta name="robots" content="max-snippet: 1">' * MAX_METAS
    late = '<meta name="robots" content="nofollow">'
    body = f"<html><head>{others}{late}</head><body></body></html>".encode()
    assert read_page_rules("B", [], body).nofollow
    body = f"<html><head>{robots}{late}</head><body></body></html>".encode()
    rules = read_page_rules("B", [], body)
    assert not rules.nofollow and rules.capped == (CAP_HEAD,)
    exact = f"<html><head>{robots}</head><body></body></html>".encode()
    assert read_page_rules("B", [], exact).capped == ()
    # A head that mentions the names past the 256 KiB looked at (a page whose head ends
    # there, or never mentions them, is not flagged: nothing was cut).
    long_head = b"<html><head>" + b'<link rel="robots">' * 20_000
    assert read_page_rules("B", [], long_head).capped == (CAP_HEAD,)
    assert read_page_rules("B", [], b"<head></head><body>" + b"x" * 300_000).capped == ()


def test_the_fields_are_in_the_order_the_reader_builds_them() -> None:
    """The reader builds PageRules by position, once per page: the order is its contract."""
    import dataclasses

    from scrapy_gbot_robots.page.rules import FLAG_FIELDS

    names = [f.name for f in dataclasses.fields(PageRules)]
    assert names == [
        *FLAG_FIELDS,
        "max_snippet",
        "max_image_preview",
        "max_video_preview",
        "unavailable_after",
        "sources",
        "other",
        "capped",
    ]
    rules = read_page_rules("B", [b"noindex, max-snippet: 5, max-video-preview: 7"])
    assert (rules.noindex, rules.max_snippet, rules.max_video_preview) == (True, 5, 7)
