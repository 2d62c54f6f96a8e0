"""Google's group logic, and which group a crawler with one token or several obeys.

The first check of a site walks the one-regex lines with ``fast_select``; ``decide`` and the
other bodies with ``walk_groups``: properties pin the two to each other.  Google documents
that some crawlers have more than one token, most specific first: the rules in force are
those of the first token a group names (all its groups merged), and only when no token has a
group does ``*`` apply; special-case crawlers such as AdsBot-Google ignore ``*`` altogether
(issue 18, item 2).  A one-token list must be exactly its token.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_lines import body

from scrapy_gbot_robots import Decision, parse
from scrapy_gbot_robots.engine.groups import fast_select, token_key, walk_groups
from scrapy_gbot_robots.engine.lines import colonless_line, fast_matcher_lines, matcher_directives

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


IMAGE = ["Googlebot-Image", "Googlebot"]


def test_googlebot_image_falls_to_the_googlebot_group_not_to_star() -> None:
    # Google: Googlebot-Image obeys a Googlebot group when the file has no Googlebot-Image one.
    body = b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /nogoogle\n"
    robots = parse(body)
    assert robots.allowed("https://e.com/page", IMAGE) is True
    assert robots.allowed("https://e.com/nogoogle/x", IMAGE) is False
    decision = robots.decide("https://e.com/nogoogle/x", IMAGE)
    assert (decision.line, decision.group, decision.token) == (5, "agent", "Googlebot")
    # The single token has no group of its own and falls to *: what the old API answered.
    assert robots.allowed("https://e.com/page", "Googlebot-Image") is False
    assert robots.decide("https://e.com/page", "Googlebot-Image").token == "*"


def test_the_most_specific_group_wins_when_both_exist() -> None:
    # Google's overview: Googlebot may crawl everything, Googlebot-Image not /personal.
    body = b"User-agent: Googlebot\nDisallow:\n\nUser-agent: Googlebot-Image\nDisallow: /personal\n"
    robots = parse(body)
    assert robots.allowed("https://e.com/personal/a.jpg", IMAGE) is False
    assert robots.decide("https://e.com/personal/a.jpg", IMAGE).token == "Googlebot-Image"
    assert robots.allowed("https://e.com/public/a.jpg", IMAGE) is True
    assert robots.allowed("https://e.com/personal/a.jpg", "Googlebot") is True
    # Order matters: the list is most specific first.
    assert robots.allowed("https://e.com/personal/a.jpg", ["Googlebot", "Googlebot-Image"])


def test_a_file_with_only_googlebot_groups_merges_them_for_googlebot_image() -> None:
    body = (
        b"User-agent: Googlebot\nDisallow: /a\n\n"
        b"User-agent: Bingbot\nDisallow: /\n\n"
        b"User-agent: googlebot/2.1\nDisallow: /b\n"
    )
    robots = parse(body)
    verdicts = {p: robots.allowed(f"https://e.com{p}", IMAGE) for p in ("/a", "/b", "/c")}
    assert verdicts == {"/a": False, "/b": False, "/c": True}
    assert robots.decide("https://e.com/b", IMAGE) == Decision(
        False, 8, "Disallow", "/b", "/b", "agent", "Googlebot"
    )
    assert robots.names_agent(IMAGE) is True and robots.names_agent("Googlebot-Image") is False


def test_a_group_without_rules_still_counts_for_its_token() -> None:
    # Fact 19: a trailing "User-agent: X" with nothing after it means X may crawl everything;
    # it also stops the fall-back to the next token.
    body = b"User-agent: Googlebot\nDisallow: /\n\nUser-agent: Googlebot-Image\n"
    robots = parse(body)
    assert robots.allowed("https://e.com/x.png", IMAGE) is True
    decision = robots.decide("https://e.com/x.png", IMAGE)
    assert (decision.group, decision.token, decision.line) == ("none", "Googlebot-Image", 0)


def test_tokens_match_whole_and_case_insensitively() -> None:
    body = b"User-agent: GOOGLEBOT-IMAGES\nDisallow: /\n\nUser-agent: googlebot\nDisallow: /g\n"
    robots = parse(body)
    # "Googlebot-Images" is not "Googlebot-Image": the second token decides.
    assert robots.decide("https://e.com/g", IMAGE).token == "Googlebot"
    assert robots.allowed("https://e.com/x", IMAGE) is True


def test_global_group_false_ignores_star_entirely() -> None:
    body = b"User-agent: *\nDisallow: /\n\nUser-agent: AdsBot-Google\nDisallow: /ads-no\n"
    robots = parse(body)
    assert robots.allowed("https://e.com/x", "AdsBot-Google-Mobile") is False
    assert robots.allowed("https://e.com/x", "AdsBot-Google-Mobile", global_group=False) is True
    nothing = robots.decide("https://e.com/x", "AdsBot-Google-Mobile", global_group=False)
    assert (nothing.allowed, nothing.line, nothing.group, nothing.token) == (True, 0, "none", "")
    # With a group of its own, global_group changes nothing.
    for flag in (True, False):
        assert robots.allowed("https://e.com/ads-no", "AdsBot-Google", global_group=flag) is False
        assert robots.allowed("https://e.com/x", "AdsBot-Google", global_group=flag) is True
    assert robots.decide("https://e.com/ads-no", ["AdsBot-Google"], global_group=False).line == 5


_AGENT_VALUES = [b"*", b"Googlebot", b"googlebot-image", b"Googlebot-Image/1.0", b"bot", b"Bot*"]


_LINES = st.one_of(
    st.sampled_from(_AGENT_VALUES).map(lambda v: b"User-agent: " + v),
    st.sampled_from([b"/", b"/a", b"/a/b", b"/*.png$", b"/b", b""]).flatmap(
        lambda v: st.sampled_from([b"Allow: " + v, b"Disallow: " + v])
    ),
    st.sampled_from([b"", b"# c", b"Crawl-delay: 3", b"Crawl-delay: 1.5", b"Sitemap: /s"]),
)


_BODIES = st.lists(_LINES, max_size=14).map(lambda lines: b"\n".join(lines))


_TOKENS = st.sampled_from(["Googlebot", "googlebot", "Googlebot-Image", "bot", "other", ""])


_PATHS = st.sampled_from(["/", "/a", "/a/b", "/b/x.png", "/c", "/x.png"])


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(_BODIES, _TOKENS, _PATHS, st.booleans())
def test_a_one_token_list_is_exactly_its_token(
    body: bytes, token: str, path: str, as_tuple: bool
) -> None:
    url = "https://e.com" + path
    one = (token,) if as_tuple else [token]
    robots, fresh = parse(body), parse(body)
    assert robots.allowed(url, one) is fresh.allowed(url, token)
    got, expected = robots.decide(url, one), fresh.decide(url, token)
    assert (got, got.token) == (expected, expected.token)
    assert robots.crawl_delay(one) == fresh.crawl_delay(token)
    assert robots.names_agent(one) is fresh.names_agent(token)


@SETTINGS
@given(_BODIES, st.lists(_TOKENS, max_size=3), _PATHS, st.booleans())
def test_a_list_takes_the_first_named_token_else_star_else_nothing(
    body: bytes, tokens: list[str], path: str, global_group: bool
) -> None:
    # The oracle uses single-token answers only (themselves pinned to Google's reference).
    url = "https://e.com" + path
    robots, oracle = parse(body), parse(body)
    named = [t for t in tokens if oracle.names_agent(t)]
    if named:
        expected = oracle.allowed(url, named[0])
    elif global_group:
        expected = oracle.allowed(url, "nobody-has-this-token")  # the * group, or nothing
    else:
        expected = True
    assert robots.allowed(url, tokens, global_group=global_group) is expected
    decision = robots.decide(url, tokens, global_group=global_group)
    assert decision.allowed is expected
    assert decision.token in (named[:1] or ["*", ""])


def test_lines_before_the_first_user_agent_line_are_in_no_group() -> None:
    # Regression: the group walk gave such lines the first group's agents, so a Crawl-delay
    # written above every group was read as the * group's (and the first group's).
    body = b"Crawl-delay: 9\nUser-agent: *\nDisallow: /x\n\nUser-agent: bot\nCrawl-delay: 3\n"
    robots = parse(body)
    assert robots.crawl_delay("other") is None
    assert robots.crawl_delay("bot") == 3.0
    assert parse(b"Crawl-delay: 9\nUser-agent: bot\nDisallow:\n").crawl_delay("bot") is None


def test_other_lines_stay_in_the_group_they_are_written_in() -> None:
    # Regression: for an agent a group does not name, that group's rules were not separators,
    # so its Crawl-delay was read as the next group's (Google's rules are unaffected).
    body = b"User-agent: Googlebot\nAllow: /\nCrawl-delay: 7\n\nUser-agent: Bingbot\n"
    assert parse(body).crawl_delay("Bingbot") is None
    assert parse(body).crawl_delay("Googlebot") == 7.0
    shared = b"User-agent: a\nCrawl-delay: 4\nUser-agent: b\nDisallow: /x\n"  # one group
    assert parse(shared).crawl_delay("b") == 4.0
