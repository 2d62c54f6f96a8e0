"""The wildcard screens never change a verdict: indexed matcher == unindexed == rule by rule.

``engine/wild.py`` skips most wildcard rules without trying them (``WildIndex``) and runs
the greedy search with shortcuts (``Chain``: a length floor, runs of one piece counted in
C, a walk shared by rules with the same middle and remembered per path, risky needles
searched in a padded haystack).  Each shortcut must give exactly what the plain greedy
search of ``match.wildcard_match`` gives, and the matcher must give exactly what the
rule-by-rule replay ``_decide_reference`` gives, whatever the index files where.

The bodies are drawn from small alphabets and from pieces that repeat, so that prefixes,
tails and pieces are shared by many rules (the index nests and files by grams), paths
contain most pieces (screens pass, and the full check decides), and equal priorities
between allow and disallow are common.  The index is also forced onto small rule sets by
lowering its thresholds, so that every path of the index meets every kind of body.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine import rules, wild
from scrapy_gbot_robots.engine.lines import directives
from scrapy_gbot_robots.engine.match import path_params_query, wildcard_match
from scrapy_gbot_robots.engine.rules import RobotsTxt, _agent_key, _decide_reference, _walk_groups

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SITE = "https://e.com"
# Pieces that overlap and repeat: one- and two-character pieces over a tiny alphabet, runs,
# percent escapes, "$" as a literal in the middle, and pieces long and periodic enough to be
# risky for str.find.
PIECES = [
    "a", "b", "ab", "ba", "aa", "abc", "x", "%2F", "%2f", ".pdf", "?", "=", "$", "/", "ab/",
    "aaaa", "abab", "q=1", "a" * 40 + "b", "ab" * 20 + "c", "a" * 33,
]
piece = st.sampled_from(PIECES)
# A path drawn from the same material, so that most pieces occur in it.
path_text = st.lists(st.sampled_from([*PIECES, "c", "z", "/", "%41", "aaaaaaaa"]), max_size=14)


@st.composite
def patterns(draw: st.DrawFn) -> str:
    """A wildcard pattern: prefix, one or many ``*`` pieces (runs included), maybe ``$``."""
    head = draw(st.sampled_from(["", "/", "/a", "/ab", "/x/", "/%2F", "/a/b"]))
    parts = draw(st.lists(piece, max_size=6))
    run = draw(st.integers(0, 12)) if draw(st.booleans()) else 0
    if parts:
        parts = parts + [parts[-1]] * run  # a run of one piece
    stars = draw(st.sampled_from(["*", "*", "**"]))
    body = head + "".join(stars + part for part in parts)
    if draw(st.integers(0, 3)) == 0:
        body += "*"
    if draw(st.booleans()):
        body += "$"
    if not body.startswith(("/", "*")):
        body = "*" + body
    return body


def body_of(rules_: list[tuple[bool, str]]) -> bytes:
    lines = ["User-agent: *"]
    lines += [("Allow: " if allow else "Disallow: ") + pattern for allow, pattern in rules_]
    return ("\n".join(lines) + "\n").encode()


rule_sets = st.lists(st.tuples(st.booleans(), patterns()), min_size=1, max_size=60)
paths = path_text.map(lambda parts: "/" + "".join(parts))


def reference(body: bytes, path: str) -> bool:
    """The rule-by-rule replay (plain greedy search, no index, no chains)."""
    specific, agent_rules, global_rules, _ = _walk_groups(directives(body), _agent_key("bot"))
    chosen = agent_rules if specific else global_rules
    return _decide_reference(path_params_query(SITE + path), chosen, specific).allowed


@contextmanager
def index_everywhere() -> Iterator[None]:
    """Every rule set indexed, every prefix and tail nested, every piece filed by grams."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rules, "_INDEXED", 0)
        patch.setattr(wild, "_BUCKET", 0)
        patch.setattr(wild, "_DIRECT_KEYS", 0)
        yield


# -- Chain and its helpers against the plain greedy search ----------------------------------


@SETTINGS
@given(
    first=st.sampled_from(["", "/", "/a", "/ab"]),
    rest=st.lists(piece, min_size=2, max_size=8),
    run=st.integers(0, 20),
    anchored=st.booleans(),
    path=paths,
)
@example(first="/", rest=["a", "a"], run=20, anchored=False, path="/" + "a" * 21)
@example(first="/", rest=["a", "b"], run=0, anchored=True, path="/ab")
def test_chain_is_the_greedy_search(
    first: str, rest: list[str], run: int, anchored: bool, path: str
) -> None:
    pieces = tuple(rest[:-1] + [rest[-2]] * run + rest[-1:])
    chain = wild.Chain(first, pieces, anchored)
    expected = path.startswith(first) and wildcard_match(path, (first, *pieces), anchored)
    assert (path.startswith(first) and chain.match(path)) is expected
    # The same chain sharing its walk with another, asked twice for one path.
    other = wild.Chain(first, (*pieces[:-1], "zz"), anchored)
    wild.share_walks([chain, other])
    assert (path.startswith(first) and chain.match(path)) is expected
    assert (path.startswith(first) and chain.match(path)) is expected


@SETTINGS
@given(
    piece_=st.sampled_from(PIECES),
    count=st.integers(1, 40),
    pos=st.integers(0, 30),
    path=paths,
    pad=st.integers(0, 700),
)
@example(piece_="a", count=10, pos=11, path="/" + "a" * 9, pad=0)  # one short
@example(piece_="ab", count=9, pos=0, path="/" + "ab" * 9, pad=0)  # exactly enough
def test_runs_are_counted_as_they_are_found(
    piece_: str, count: int, pos: int, path: str, pad: int
) -> None:
    path = path + "a" * pad + path
    expected = pos
    for _ in range(count):
        expected = path.find(piece_, expected)
        if expected < 0:
            break
        expected += len(piece_)
    for danger in (False, True):
        assert wild._after_run(path, piece_, count, pos, danger) == expected


@given(
    block=st.text("ab", min_size=1, max_size=4),
    repeats=st.integers(8, 40),
    tail=st.text("abc", min_size=1, max_size=3),
    path=st.text("abc", max_size=40),
    fill=st.integers(0, 3000),
    pos=st.integers(0, 50),
)
@settings(max_examples=200, deadline=None)
def test_a_padded_search_finds_what_find_finds(
    block: str, repeats: int, tail: str, path: str, fill: int, pos: int
) -> None:
    needle = block * repeats + tail
    haystack = "a" * fill + path + needle[: len(needle) // 2] + path + needle
    assert wild.find(haystack, needle, pos, True) == haystack.find(needle, pos)


def test_risky_needles_are_the_periodic_ones() -> None:
    assert wild.risky("a" * 40 + "b" + "a" * 40)
    assert wild.risky("ab" * 20 + "c")
    assert not wild.risky("a" * 30 + "b")  # short: the simple search is cheap enough
    assert not wild.risky("/wp-content/plugins/some-plugin/assets/")
    assert not wild.risky("\0" * 40)  # the padding itself: never padded


# -- the matcher, indexed or not, against the rule-by-rule replay ----------------------------


def check(robots: RobotsTxt, path: str) -> None:
    expected = reference(robots.body, path)
    assert robots.allowed(SITE + path, "bot") is expected, (robots.body, path)
    assert robots.decide(SITE + path, "bot").allowed is expected, (robots.body, path)


@SETTINGS
@given(rules_=rule_sets, queries=st.lists(paths, min_size=1, max_size=8))
def test_many_wildcard_rules_decide_as_the_replay(
    rules_: list[tuple[bool, str]], queries: list[str]
) -> None:
    robots = parse(body_of(rules_))
    for path in queries:
        check(robots, path)


@SETTINGS
@given(rules_=rule_sets, queries=st.lists(paths, min_size=1, max_size=8))
def test_forced_index_decides_as_the_replay(
    rules_: list[tuple[bool, str]], queries: list[str]
) -> None:
    with index_everywhere():
        robots = parse(body_of(rules_))
        for path in queries:
            check(robots, path)


def test_decide_reports_the_same_rule_with_and_without_the_index() -> None:
    # Equal priorities everywhere: the index must not change which rule is reported.
    body = body_of(
        [(i % 2 == 0, f"/*{a}*{b}$") for i, (a, b) in enumerate(zip("abab", "baba", strict=True))]
        + [(False, "/a*b"), (True, "/*ab"), (False, "/*b$"), (True, "/a$"), (False, "/ab")]
    )
    urls = [SITE + path for path in ("/ab", "/aab", "/ba", "/a", "/abab", "/b", "/x/ab")]
    plain = [parse(body).decide(url, "bot") for url in urls]
    with index_everywhere():
        indexed = parse(body).decide
        assert [indexed(url, "bot") for url in urls] == plain


# -- hostile shapes: right answers, and the index actually used ------------------------------


def test_the_issue_file_is_indexed_and_right() -> None:
    # 1,000 rules of 16 "*" with distinct literal tails: the hostile file of the issue.
    lines = []
    for i in range(1000):
        letters = "".join("*" + chr(97 + (i + 5 * j) % 25) for j in range(15))
        lines.append((i % 3 == 0, f"/{letters}*tail{i:04d}"))
    robots = parse(body_of(lines))
    cycle = "abcdefghijklmnopqrstuvwxy"
    tails = "".join(f"tail{i:04d}" for i in range(0, 1000, 4))
    for path in (
        "/" + (cycle * 100)[:2047],
        "/" + tails[:1500] + cycle * 20,
        "/" + cycle * 20 + "tail0003",
        "/" + cycle * 20 + "tail0004",
    ):
        check(robots, path)
    assert robots._matcher is not None and robots._matcher._index is not None


def test_nested_tails_and_many_short_pieces_are_right() -> None:
    alpha = "abcdefghij0123456789"
    lines = [(c == "q", f"/*{a}{b}*{c}$") for a in alpha for b in alpha for c in "pqrs"]
    lines += [(True, f"/shop/*x{i}*") for i in range(300)]
    robots = parse(body_of(lines))
    for path in ("/" + alpha * 5 + "p", "/" + alpha * 5 + "q", "/x/ab", "/shop/x299", "/shop/x3a"):
        check(robots, path)
