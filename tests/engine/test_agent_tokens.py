"""Crawlers with several user-agent tokens, and crawlers that ignore ``*`` (issue 18, item 2).

Google documents that some crawlers have more than one token, most specific first: the rules
in force are those of the first token a group names (all its groups merged), and only when
no token has a group does ``*`` apply; special-case crawlers such as AdsBot-Google ignore
``*`` altogether.  A one-token list must be exactly its token.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import Decision, parse
from scrapy_gbot_robots.engine import rules

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


def test_the_fast_slot_never_mixes_the_two_global_settings() -> None:
    robots = parse(b"User-agent: *\nDisallow: /\n")
    for _ in range(3):  # alternate, so each call finds the other's matcher in the slot
        assert robots.allowed("https://e.com/x", "bot") is False
        assert robots.allowed("https://e.com/x", "bot", global_group=False) is True
        assert robots.decide("https://e.com/x", "bot").token == "*"
        assert robots.decide("https://e.com/x", "bot", global_group=False).token == ""


def test_a_list_is_copied_and_unhashable_lists_are_fine() -> None:
    robots = parse(b"User-agent: a\nDisallow: /a\n\nUser-agent: b\nDisallow: /b\n")
    tokens = ["x", "a"]
    assert robots.allowed("https://e.com/a", tokens) is False
    tokens[1] = "b"  # changed in place: the next call must see the new list
    assert robots.allowed("https://e.com/a", tokens) is True
    assert robots.allowed("https://e.com/b", tokens) is False
    assert robots.allowed("https://e.com/b", ("x", "b")) is False


def test_memory_per_file_stays_bounded_with_many_token_lists() -> None:
    robots = parse(b"User-agent: *\nDisallow: /x\nContent-Signal: ai-train=no\n")
    for i in range(100):
        tokens = [f"bot{chr(97 + i % 26)}", f"other{chr(97 + i // 26)}"]
        robots.allowed("https://e.com/x", tokens)
        robots.allowed("https://e.com/x", tokens, global_group=False)
        robots.refuses("https://e.com/x", tokens, ("ai-train",))
    assert robots._others is not None and len(robots._others) <= rules._MAX_MATCHERS
    assert robots._usage is not None and len(robots._usage) <= rules._MAX_MATCHERS


def test_crawl_delay_and_names_agent_take_the_group_in_force() -> None:
    body = (
        b"User-agent: *\nDisallow: /x\nCrawl-delay: 5\n\n"
        b"User-agent: Googlebot\nDisallow: /y\nCrawl-delay: oops\nCrawl-delay: 2\n"
    )
    robots = parse(body)
    assert robots.crawl_delay(IMAGE) == 2.0
    assert robots.crawl_delay("Googlebot-Image") == 5.0
    assert robots.crawl_delay(["AdsBot-Google"], global_group=False) is None
    assert robots.names_agent(IMAGE) is True
    assert robots.names_agent(["Nobody", "Bingbot"]) is False


def test_decision_token_is_metadata_outside_equality() -> None:
    # Decision is public: one built the old way (six fields) still equals the engine's.
    robots = parse(b"User-agent: *\nDisallow: /private/\n")
    got = robots.decide("https://e.com/private/x", "bot")
    assert got.token == "*"
    assert got == Decision(False, 2, "Disallow", "/private/", "/private/", "global")
    assert hash(got) == hash(Decision(False, 2, "Disallow", "/private/", "/private/", "global"))


# ----------------------------------------------------------------------------- properties

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
