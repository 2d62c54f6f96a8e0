"""``Matcher``: every gate of a check lets through what the replay decides.

``allowed()`` turns most paths away before any search: by the prefilter entries' second
characters, their heads (or a bisection of a long prefilter), and the screens of ``/*...``
rules, run on the URL.  The longest plain prefix is then found by a search for the key
before the path, a descent over what the path shares with it, or length by length.  Each
gate is forced on (by lowering its threshold) and checked against the rule-by-rule replay.
"""

from __future__ import annotations

import pytest
from _wild_rules import SETTINGS, SITE, body_of, check
from hypothesis import example, given
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine import matcher as matcher_module
from scrapy_gbot_robots.engine.decision import decide_reference
from scrapy_gbot_robots.engine.groups import walk_groups
from scrapy_gbot_robots.engine.lines import directives
from scrapy_gbot_robots.engine.matcher import Matcher
from scrapy_gbot_robots.engine.path_match import path_params_query
from scrapy_gbot_robots.engine.rules import RobotsTxt

PREFIXES = [
    "/a",
    "/ab",
    "/abc",
    "/abd/",
    "/b",
    "/ba",
    "/bab",
    "/c/d",
    "/c/e",
    "/x%2F",
    "/x%2f",
    "/~",
    "/a$",
    "/ab*",
    "/abc$",
    "/%41",
    "/z/",
    "/zz",
    "/zzz",
    "/q?x=1",
    "/q?y",
    "?x",
    "a/b",
    "/-",
    "/.well-known/",
    "/a/b/c/d/e",
    "/a/b/c",
    "/aa",
    "/aaa",
    "/aaaa",
    "/b/",
    "/b/c",
    "/bb",
    "a",
    "x",
]


SCREENED = ["/*?", "/*.pdf$", "/*x*y", "/*/b", "*&s=", "/*%2F", "/$", "/*a$"]


URL_TAILS = ["", "", "#", "#frag/a", "#?.pdf", "\0", "\0?x", "?x=1", ".pdf", "/b", "&s=1"]


@st.composite
def gated_bodies(draw: st.DrawFn) -> bytes:
    rules_ = draw(st.lists(st.tuples(st.booleans(), st.sampled_from(PREFIXES)), max_size=40))
    if draw(st.booleans()):
        rules_ += draw(st.lists(st.tuples(st.booleans(), st.sampled_from(SCREENED)), max_size=4))
    if draw(st.integers(0, 4)) == 0:
        rules_.append((draw(st.booleans()), "/"))
    return body_of(rules_ or [(False, "/nothing")])


@st.composite
def gated_urls(draw: st.DrawFn) -> str:
    base = draw(st.sampled_from([SITE, SITE, "http://e.com", "https://other.org", SITE + "?q"]))
    path = draw(st.sampled_from(["/", "", "/a", "/ab", "/abc", "/abd/x", "/b", "/c/d/e", "/x%2F"]))
    path += draw(st.sampled_from(["", "", "b", "c", "/b", "?x=1", "zz", "%2F", ".pdf", "x/y"]))
    return base + path + draw(st.sampled_from(URL_TAILS))


def check_url(robots: RobotsTxt, url: str) -> None:
    specific, agent_rules, global_rules, _ = walk_groups(directives(robots.body), "bot")
    chosen = agent_rules if specific else global_rules
    expected = decide_reference(path_params_query(url), chosen, specific).allowed
    assert robots.allowed(url, "bot") is expected, (robots.body, url)


@SETTINGS
@given(body=gated_bodies(), urls=st.lists(gated_urls(), min_size=1, max_size=10))
@example(body=body_of([(False, "/ab")] * 1 + [(False, f"/p{i}") for i in range(20)]), urls=[SITE])
@example(body=body_of([(False, "/*.pdf$")]), urls=[SITE + "/a.pdf#x", SITE + "/a.pdf\0x"])
def test_every_gate_lets_through_what_the_replay_decides(body: bytes, urls: list[str]) -> None:
    # The default gates, then heads for every prefilter, then bisection for every one; the
    # longest plain prefix by descent whatever the lengths, and after one step by length.
    for patch in (
        {},
        {"_HEADLESS": 0},
        {"_HEADLESS": 0, "_FREE": 0},
        {"_FEW_LENGTHS": 0},
        {"_FEW_LENGTHS": 0, "_DESCENT": 1},
    ):
        with pytest.MonkeyPatch.context() as patcher:
            for name, value in patch.items():
                patcher.setattr(matcher_module, name, value)
            robots = parse(body)
            for url in urls:  # one object: the site prefix is remembered between URLs
                check_url(robots, url)
            assert robots.allowed(urls[0], "bot") is robots.decide(urls[0], "bot").allowed


# The longest plain prefix: keys over a few characters, so that many share parts of a path.
plain_key = st.text(alphabet="abX/", max_size=12).map(lambda text: "/" + text)


_SHEDDING = ["/" + "a" * k + "Xb" for k in range(1, 40)]  # each step of the descent sheds one


@SETTINGS
@given(
    keys=st.lists(plain_key, min_size=1, max_size=40, unique=True),
    path=plain_key,
    descent=st.sampled_from([0, 1, 2, 16]),
    shared=st.sampled_from([0, 1, 4]),
    few=st.sampled_from([0, 100]),
)
@example(keys=["/a", *_SHEDDING], path="/" + "a" * 50, descent=4, shared=4, few=0)  # by length
@example(keys=["/a", *_SHEDDING], path="/" + "a" * 50, descent=40, shared=4, few=0)  # a step
@example(keys=["/ab", "/abX", "/a"], path="/abXa", descent=1, shared=1, few=0)
# The key before the path ("/a/b") does not start it; a shorter one before that does.
@example(keys=["/a", "/a/b", "/a/"], path="/a/c", descent=1, shared=0, few=100)
@example(keys=["/a", "/a/b"], path="/a/c", descent=1, shared=0, few=100)
def test_the_longest_plain_prefix_is_found_by_descent_as_by_length(
    keys: list[str], path: str, descent: int, shared: int, few: int
) -> None:
    # Descent forced whatever the lengths (few=0), or each length looked up after the first
    # step (few=100); after the descent, lengths of up to ``shared`` keys by startswith and
    # the others by bisection.
    expected = max((k for k in keys if k != "/" and path.startswith(k)), key=len, default=None)
    with pytest.MonkeyPatch.context() as patcher:
        patcher.setattr(matcher_module, "_DESCENT", descent)
        patcher.setattr(matcher_module, "_FEW_LENGTHS", few)
        patcher.setattr(matcher_module, "_SHARED_LENGTH", shared)
        matcher = Matcher([], keys, False, b"", "bot", True)  # "/" is its root rule, not a key
        at = matcher._longest(path)
    assert (matcher.prefilter[at] if at >= 0 else None) == expected


def test_prefixes_of_a_thousand_lengths_take_one_step() -> None:
    # bench_engine.py's distinct-lengths: "/a", then "/a…ab" of every length to 1,000, and
    # paths of "a" that only "/a" starts.  One step of the descent finds it: with one step
    # and no length to try after it, the answer must come from the first search.
    keys = ["/a", *("/" + "a" * k + "b" for k in range(1, 1000))]
    with pytest.MonkeyPatch.context() as patcher:
        patcher.setattr(matcher_module, "_DESCENT", 1)
        patcher.setattr(matcher_module, "_by_length", lambda patterns: ())
        matcher = Matcher([], keys, False, b"", "bot", True)
        for path in ("/" + "a" * 5000, "/" + "a" * 500, "/a"):
            assert matcher.prefilter[matcher._longest(path)] == "/a"
    robots = parse(body_of([(False, "/a")] + [(True, key) for key in keys[1:]]))
    for path in ("/" + "a" * 5000, "/" + "a" * 500 + "b", "/b"):
        check(robots, path)
