"""One rule read, and a list of rules split: commas inside dates, user agents in headers."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_gbot_robots.page.directives import (
    RULE_CHARS,
    Directive,
    read_rule,
    split_rules,
    user_agent_prefix,
)

JUNE_25 = datetime(2010, 6, 25, 23, tzinfo=timezone.utc)  # 15:00 PST


def rules(value: str, agents: bool = False) -> list[tuple[str | None, str, object]]:
    """(agent, name or the text of an unknown rule, value) for each rule of ``value``."""
    out: list[tuple[str | None, str, object]] = []
    for agent, d in split_rules(value, agents):
        shown = d.number if d.number is not None else d.setting or d.date
        out.append((agent, d.name or f"?{d.text}", shown))
    return out


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        ("noindex", "noindex", None),
        ("  NoIndex ", "noindex", None),
        ("NONE", "none", None),
        ("all", "all", None),
        ("index", "index", None),
        ("follow", "follow", None),
        ("indexifembedded", "indexifembedded", None),
        ("max-snippet:50", "max-snippet", 50),
        ("MAX-SNIPPET : 0", "max-snippet", 0),
        ("max-snippet:-1", "max-snippet", -1),
        ("max-video-preview: 30", "max-video-preview", 30),
        ("max-image-preview:LARGE", "max-image-preview", "large"),
        ("max-image-preview: none", "max-image-preview", "none"),
        ("unavailable_after: 25 Jun 2010 15:00:00 PST", "unavailable_after", JUNE_25),
    ],
)
def test_known_rules(text: str, name: str, value: object) -> None:
    d = read_rule(text)
    assert d.known and d.name == name
    assert (d.number if d.number is not None else d.setting or d.date) == value


@pytest.mark.parametrize(
    "text",
    [
        "noarchive",  # no longer on Google's page
        "nocache",  # Bing's
        "noindex nofollow",  # Google needs a comma between rules
        "max-snippet: lots",
        "max-snippet: -2",  # only -1 means "no limit"
        "max-snippet: 1234567890",  # past NUMBER_DIGITS
        "max-image-preview: huge",
        "unavailable_after: next week",  # Google: "ignored if no valid date/time"
        "unavailable-after: 25 Jun 2010",  # Google spells it with an underscore
        "googlebot: noindex",  # in a meta content, a user agent prefix means nothing
    ],
)
def test_unknown_or_unreadable_rules_are_kept_as_written(text: str) -> None:
    d = read_rule(text)
    assert not d.known and d.text == text


def test_unknown_text_is_bounded() -> None:
    assert read_rule("x" * 10_000).text == "x" * RULE_CHARS


def test_a_list_is_split_on_commas_and_blank_pieces_skipped() -> None:
    assert rules(" noindex ,, nofollow,max-snippet:3,") == [
        (None, "noindex", None),
        (None, "nofollow", None),
        (None, "max-snippet", 3),
    ]


@pytest.mark.parametrize(
    "value",
    [
        "unavailable_after: Friday, 25-Jun-10 15:00:00 PST",  # RFC 850
        "unavailable_after: Fri, 25 Jun 2010 15:00:00 PST",  # RFC 822 with a day name
        "unavailable_after: Friday, June 25, 2010 15:00 PST",  # two commas
    ],
)
def test_commas_inside_a_date_stay_in_the_date(value: str) -> None:
    assert rules(f"noindex, {value}, nofollow") == [
        (None, "noindex", None),
        (None, "unavailable_after", JUNE_25),
        (None, "nofollow", None),
    ]


def test_an_unreadable_date_does_not_swallow_the_next_rule() -> None:
    assert rules("unavailable_after: junk, nofollow") == [
        (None, "?unavailable_after: junk", None),
        (None, "nofollow", None),
    ]
    # ... nor unknown pieces that do not make a date: each is kept as written.
    assert rules("unavailable_after: soon, later, much later, noindex") == [
        (None, "?unavailable_after: soon", None),
        (None, "?later", None),
        (None, "?much later", None),
        (None, "noindex", None),
    ]


def test_header_user_agents_as_googles_example() -> None:
    # Google's page: "X-Robots-Tag: googlebot: nofollow" and "otherbot: noindex, nofollow".
    assert rules("googlebot: nofollow", agents=True) == [("googlebot", "nofollow", None)]
    assert rules("otherbot: noindex, nofollow", agents=True) == [
        ("otherbot", "noindex", None),
        ("otherbot", "nofollow", None),
    ]


def test_header_agent_applies_from_where_it_is_named() -> None:
    assert rules("noindex, GoogleBot-News: nosnippet, max-snippet: 5", agents=True) == [
        (None, "noindex", None),
        ("googlebot-news", "nosnippet", None),
        ("googlebot-news", "max-snippet", 5),
    ]


def test_header_rule_names_with_values_are_never_agents() -> None:
    # unavailable_after's colons, and max-snippet's, are the rule's own.
    assert rules("unavailable_after: 25 Jun 2010 15:00:00 PST", agents=True) == [
        (None, "unavailable_after", JUNE_25)
    ]
    assert rules("googlebot: unavailable_after: Fri, 25 Jun 2010 15:00:00 PST", agents=True) == [
        ("googlebot", "unavailable_after", JUNE_25)
    ]
    assert rules("max-snippet: 20", agents=True) == [(None, "max-snippet", 20)]


def test_header_pieces_that_are_not_agents() -> None:
    assert user_agent_prefix("noindex: x") is None  # a rule name
    assert user_agent_prefix("some bot: noindex") is None  # not a product token
    assert user_agent_prefix("bot2: noindex") is None  # digits are not in a token
    assert user_agent_prefix("noindex") is None
    assert user_agent_prefix(" Googlebot : noindex") == ("googlebot", " noindex")
    assert rules("googlebot:", agents=True) == []  # an agent with no rule


@given(st.text(max_size=300), st.booleans())
def test_splitting_never_raises(value: str, agents: bool) -> None:
    for agent, d in split_rules(value, agents):
        assert isinstance(d, Directive)
        assert agent is None or agent == agent.lower()
