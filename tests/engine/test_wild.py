"""The wildcard screens never change a verdict: indexed matcher == unindexed == rule by rule.

``engine/wild_index.py`` skips most wildcard rules without trying them (``WildIndex``) and
``engine/chain.py`` runs the greedy search with shortcuts (``Chain``: a length floor, runs
of one piece counted in C, a walk shared by rules with the same middle and remembered per
path, risky needles searched in a padded haystack).  Each shortcut must give exactly what
the plain greedy search of ``path_match.wildcard_match`` gives, and the matcher what the
rule-by-rule replay ``decide_reference`` gives, whatever the index files where.

The bodies are drawn from small alphabets and from pieces that repeat, so that prefixes,
tails and pieces are shared by many rules (the index nests and files by grams), paths
contain most pieces (screens pass, and the full check decides), and equal priorities
between allow and disallow are common.  The index is also forced onto small rule sets by
lowering its thresholds, so that every path of the index meets every kind of body.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from operator import ne

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine import chain as chain_module
from scrapy_gbot_robots.engine import matcher as matcher_module
from scrapy_gbot_robots.engine import piece_screen, wild_index
from scrapy_gbot_robots.engine.chain import Chain, Walk, share_walks
from scrapy_gbot_robots.engine.decision import LineDetail, decide_reference
from scrapy_gbot_robots.engine.groups import token_key, walk_groups
from scrapy_gbot_robots.engine.linear_find import find, risky
from scrapy_gbot_robots.engine.lines import directives
from scrapy_gbot_robots.engine.matcher import Matcher
from scrapy_gbot_robots.engine.path_match import path_params_query, wildcard_match
from scrapy_gbot_robots.engine.rules import RobotsTxt
from scrapy_gbot_robots.engine.wild_index import WildIndex

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
    "a",
    "b",
    "ab",
    "ba",
    "aa",
    "abc",
    "x",
    "%2F",
    "%2f",
    ".pdf",
    "?",
    "=",
    "$",
    "/",
    "ab/",
    "aaaa",
    "abab",
    "q=1",
    "a" * 40 + "b",
    "ab" * 20 + "c",
    "a" * 33,
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
    specific, agent_rules, global_rules, _ = walk_groups(directives(body), token_key("bot"))
    chosen = agent_rules if specific else global_rules
    return decide_reference(path_params_query(SITE + path), chosen, specific).allowed


def unexplained() -> LineDetail:
    """A matcher's line detail, for matchers built here to find prefixes: never asked for."""
    raise AssertionError("these matchers are never asked to decide()")


@contextmanager
def index_everywhere(signed: str = "") -> Iterator[None]:
    """Every rule set indexed, every prefix and tail nested, every piece filed by grams.

    With ``signed="grams"``, every path's grams are read in C and the pieces screened by
    their other grams (``piece_screen._Signed``), as for the many pieces of a hostile file; with
    ``signed="heads"``, by their first eight characters (``piece_screen._Heads``), as for pieces
    crowded on few grams.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wild_index, "INDEXED", 0)
        patch.setattr(wild_index, "_BUCKET", 0)
        patch.setattr(piece_screen, "_DIRECT_KEYS", 0)
        patch.setattr(wild_index, "_CULL", 0)  # every candidate list culled by its shared walks
        patch.setattr(wild_index, "_PER_WALK", 1)
        if signed:
            patch.setattr(piece_screen, "_SIGNED", 0)
            patch.setattr(piece_screen, "_LOOKUP", 0)
            patch.setattr(piece_screen, "_CAST_FROM", 0)
            patch.setattr(piece_screen, "_CROWDED", 0 if signed == "heads" else 10**9)
            patch.setattr(piece_screen, "_WINDOWS", 0 if signed == "heads" else 10**9)
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
@example(first="/", rest=["ab", "x", "a"], run=0, anchored=False, path="/aabxa")  # last found late
@example(first="/", rest=["ab", "x", "a"], run=0, anchored=False, path="/aaabx")  # only before
@example(first="/", rest=["ab", "ba", "a"], run=0, anchored=False, path="/aba")  # walk overruns
@example(first="/", rest=["ab", "ba", "a"], run=0, anchored=True, path="/abbaa")
@example(first="/", rest=["a", "b"], run=0, anchored=False, path="/ab")  # adjacent
def test_chain_is_the_greedy_search(
    first: str, rest: list[str], run: int, anchored: bool, path: str
) -> None:
    pieces = tuple(rest[:-1] + [rest[-2]] * run + rest[-1:])
    chain = Chain(first, pieces, anchored)
    expected = path.startswith(first) and wildcard_match(path, (first, *pieces), anchored)
    assert (path.startswith(first) and chain.match(path)) is expected
    # The same chain sharing its walk with another, asked twice for one path.
    other = Chain(first, (*pieces[:-1], "zz"), anchored)
    share_walks([chain, other])
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
        assert chain_module._after_run(path, piece_, count, pos, danger) == expected


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
    assert find(haystack, needle, pos, True) == haystack.find(needle, pos)


def test_risky_needles_are_the_periodic_ones() -> None:
    assert risky("a" * 40 + "b" + "a" * 40)
    assert risky("ab" * 20 + "c")
    assert not risky("a" * 30 + "b")  # short: the simple search is cheap enough
    assert not risky("/wp-content/plugins/some-plugin/assets/")
    assert not risky("\0" * 40)  # the padding itself: never padded


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
@given(
    rules_=rule_sets,
    queries=st.lists(paths, min_size=1, max_size=8),
    signed=st.sampled_from(["", "grams", "heads"]),
)
def test_forced_index_decides_as_the_replay(
    rules_: list[tuple[bool, str]], queries: list[str], signed: str
) -> None:
    with index_everywhere(signed):
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


_CYCLE = "abcdefghijklmnopqrstuvwxy"


def _check_starred_tails(
    count: int, stars: int, step: int, allow_every: int, tail: str, paths: Sequence[str]
) -> None:
    """``count`` rules of ``stars`` one-letter pieces and a distinct tail: every path is
    answered as the rule-by-rule replay answers, and the wildcard index is in use."""
    lines = []
    for i in range(count):
        letters = "".join("*" + chr(97 + (i + step * j) % 25) for j in range(stars))
        lines.append((i % allow_every == 0, f"/{letters}*{tail.format(i)}"))
    robots = parse(body_of(lines))
    for path in paths:
        check(robots, path)
    assert robots._matcher is not None and robots._matcher._index is not None


def test_the_issue_file_is_indexed_and_right() -> None:
    # 1,000 rules of 16 "*" with distinct literal tails: the hostile file of the issue.
    tails = "".join(f"tail{i:04d}" for i in range(0, 1000, 4))
    paths = (
        "/" + (_CYCLE * 100)[:2047],
        "/" + tails[:1500] + _CYCLE * 20,
        "/" + _CYCLE * 20 + "tail0003",
        "/" + _CYCLE * 20 + "tail0004",
    )
    _check_starred_tails(1000, 15, 5, 3, "tail{:04d}", paths)


def _ten_walks() -> tuple[RobotsTxt, str]:
    """400 rules alike but for their tail ("end0000" …), on 10 walks of three letters in
    order ("a*d*g", …; every seventh an Allow), and the 400 tails in one string."""
    lines = []
    for i in range(400):
        letters = "".join("*" + "abcdefghij"[(i + 3 * j) % 10] for j in range(3))
        lines.append((i % 7 == 0, f"/{letters}*end{i:04d}"))
    return parse(body_of(lines)), "".join(f"end{i:04d}" for i in range(400))


def test_rules_whose_shared_walk_fails_are_culled_before_the_loop() -> None:
    # 400 rules alike but for their tail, on 10 walks (three letters in order): a path with
    # every tail passes 400 screens; only the rules whose walk succeeds are left to try.
    robots, tails = _ten_walks()
    none, one, every = "/" + tails, "/adg" + tails, "/" + "abcdefghij" * 3 + tails
    for path in (none, one, every, "/" + tails[::-1], "/gda" + tails):
        check(robots, path)
    matcher = robots._matcher
    assert matcher is not None and matcher._index is not None
    index = matcher._index
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wild_index, "_CULL", 10**9)
        screened = [list(index.candidates(path)) for path in (none, one, every)]
    assert [len(found) for found in screened] == [400, 400, 400]
    head = wild_index._CULL  # the loop tries these first: most checks end among them
    walk_of = {at: entry[4].walk for at, entry in enumerate(matcher._wild) if entry[4]}
    assert list(index.candidates(none)) == screened[0][:head]  # no walk's letters in order
    alive = [at for at in screened[1] if (walk := walk_of[at]) and walk.end(one) >= 0]
    assert len(alive) == 40  # "a*d*g" alone
    culled = list(index.candidates(one))
    assert culled == screened[1][:head] + [at for at in alive if at > screened[1][head - 1]]
    assert len(culled) < 80
    assert list(index.candidates(every)) == screened[2]  # every walk succeeds: none culled


def test_rules_whose_last_piece_is_not_after_their_walk_are_culled() -> None:
    # Issue 26's shape: 400 rules alike but for their tail, on 10 walks, against a path that
    # holds every tail before the letters.  Every walk succeeds and every tail is there, yet
    # no rule matches: the loop is left the first _CULL candidates, not 400.  A tail right
    # where its walk ends is kept: "ibe" + "end0398" is rule 398's match, and only its.
    robots, tails = _ten_walks()
    before, edge = "/" + tails + "abcdefghij" * 3, "/" + tails + "ibeend0398"
    for path in (before, edge, "/" + tails + "ibeend039", "/" + tails + "ibe"):
        check(robots, path)
    assert not robots.allowed(SITE + edge, "bot")  # rule 398 (a Disallow) decides
    matcher = robots._matcher
    assert matcher is not None and matcher._index is not None
    index = matcher._index
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wild_index, "_CULL", 10**9)
        screened = list(index.candidates(before))
    assert len(screened) == 400
    assert list(index.candidates(before)) == screened[: wild_index._CULL]
    chains = [rule[4] for rule in matcher._wild]
    (rule_398,) = [at for at, chain in enumerate(chains) if chain and chain.last == "end0398"]
    assert screened.index(rule_398) >= wild_index._CULL  # among those the cull decides on
    assert list(index.candidates(edge)) == [*screened[: wild_index._CULL], rule_398]


def test_a_piece_of_several_rules_leads_to_each() -> None:
    # 300 pieces screened by grams in C (piece_screen._Signed), each the piece of two rules: a
    # Disallow of it, and a longer Allow of "q" before it.  A hit leads to both rules (most
    # files give a piece one rule, and then a hit is that rule).
    words = [format(i * 2654435761 % 2**32, "08x") for i in range(300)]
    lines = [(False, f"/*{w}") for w in words] + [(True, f"/*q*{w}") for w in words]
    robots = parse(body_of(lines))
    pad = "-" * 40  # long enough for the path's grams to be read in C
    for w in words[::29]:
        for path in ("/" + w + pad, "/q" + w + pad, "/" + w + "q" + pad):
            check(robots, path)
    assert not robots.allowed(SITE + "/" + words[3] + pad, "bot")
    assert robots.allowed(SITE + "/q" + words[3] + pad, "bot")
    matcher = robots._matcher
    assert matcher is not None and matcher._index is not None
    pieces = matcher._index._pieces
    assert pieces is not None
    (signed,) = [filed for _, filed, _ in pieces._filed if isinstance(filed, piece_screen._Signed)]
    assert signed.sure and signed.rule is None  # each hit leads to a tuple of two rules


def test_nested_tails_and_many_short_pieces_are_right() -> None:
    alpha = "abcdefghij0123456789"
    lines = [(c == "q", f"/*{a}{b}*{c}$") for a in alpha for b in alpha for c in "pqrs"]
    lines += [(True, f"/shop/*x{i}*") for i in range(300)]
    robots = parse(body_of(lines))
    for path in ("/" + alpha * 5 + "p", "/" + alpha * 5 + "q", "/x/ab", "/shop/x299", "/shop/x3a"):
        check(robots, path)


def test_dense_short_pieces_are_found_by_head_and_right() -> None:
    # The dense-pieces shape of bench_engine.py: 15,000 pieces over 11 characters, paths of
    # the same characters that hold hundreds of them, or none but all their digit grams.
    # The pieces fill most of the grams their characters can make, so a screen by grams
    # would meet a filed gram at almost every place: they are found by head instead, and
    # whole, so that not even the y pieces, whose rules search more, need a search.
    lines = [(i % 7 == 0, f"/shop/c/*x{i}*") for i in range(15000)]
    lines += [(False, f"/shop/c/*y{i}*z{i}") for i in range(0, 3000, 3)]  # confirmed pieces
    robots = parse(body_of(lines))
    digits = "0123456789"
    text = "".join(digits[(i * i + 3 * i) % 10] for i in range(1200))
    mixed = "".join(("x" if i % 7 == 0 else "") + text[i] for i in range(1200))
    for path in (
        "/shop/c/" + mixed,
        "/shop/c/" + text,
        "/shop/c/" + text + "x14999",
        "/shop/c/y2997" + text + "z2997",
        "/shop/c/y2997" + text + "z2996",
    ):
        check(robots, path)
    matcher = robots._matcher
    assert matcher is not None and matcher._index is not None
    nested = [g for g in matcher._index._prefixes.values() if isinstance(g, WildIndex)]
    screen = nested[0]._pieces if nested else None
    assert screen is not None
    heads = [s for size, s, _ in screen._filed if size == piece_screen._GRAM]
    assert heads and isinstance(heads[0], piece_screen._Heads)
    assert heads[0].sure  # a hit of a piece up to eight characters is an occurrence
    # The short pieces (x0 to x99, y0 to y99) fill most pairs too, but 12 characters make
    # 144 pairs: a path holds few distinct ones, so they stay screened by grams.
    pairs = [s for size, s, _ in screen._filed if size == 2]
    assert pairs and isinstance(pairs[0], piece_screen._Signed)


def test_pieces_crowded_on_few_grams_are_screened_by_head_and_right() -> None:
    # 2,000 pieces of 5 to 10 characters over "abc" (81 four-character grams in all),
    # against paths that hold every gram and few of the pieces.
    words = [
        "".join("abc"[(i * 7 + j * j * 3 + j) % 3 if (i >> j) & 1 else j % 3] for j in range(n))
        for i, n in zip(range(2000), itertools.cycle(range(5, 11)), strict=False)
    ]
    lines = [(i % 5 == 0, f"/p/*{w}*") for i, w in enumerate(dict.fromkeys(words))]
    lines += [(False, f"/p/*{w}*c$") for w in list(dict.fromkeys(words))[:300:7]]
    robots = parse(body_of(lines))
    cycle = "".join(map("".join, itertools.product("abc", repeat=4)))  # every gram
    for path in ("/p/" + cycle, "/p/" + cycle * 3, "/p/" + cycle + "é" + cycle, "/p/x"):
        check(robots, path)
    matcher = robots._matcher
    assert matcher is not None and matcher._index is not None
    nested = [g for g in matcher._index._prefixes.values() if isinstance(g, WildIndex)]
    screen = nested[0]._pieces if nested else None
    assert screen is not None
    assert any(isinstance(s, piece_screen._Heads) for _, s, _ in screen._filed)


def test_many_short_pieces_are_found_whole_by_windows_and_right() -> None:
    # bench_engine.py's short-pieces, smaller: three-character pieces over 64 characters, and
    # paths that hold a third of the pairs (a screen by pairs passes most pieces to a
    # search). They are found whole by the path's windows, with no search, and decide as the
    # replay does; some rules end past the piece, so a found piece is not yet a match.
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    triples = ("".join(t) for t in itertools.product(alphabet, repeat=3))
    words = list(itertools.islice(triples, 5, None, 199))[:1200]
    lines = [(i % 7 == 0, f"/p/*{w}*") for i, w in enumerate(words)]
    lines += [(False, f"/p/*{w}*Z$") for w in words[::40]]
    robots = parse(body_of(lines))
    text = "".join(alphabet[(i * i * 7 + i * 3) % 64] for i in range(1500))
    for path in ("/p/" + text, "/p/" + text[:700] + "Z", "/p/" + words[9] + "Z", "/p/é" + text):
        check(robots, path)
    matcher = robots._matcher
    assert matcher is not None and matcher._index is not None
    nested = [g for g in matcher._index._prefixes.values() if isinstance(g, WildIndex)]
    screen = nested[0]._pieces if nested else matcher._index._pieces
    assert screen is not None
    windows = [s for _, s, _ in screen._filed if isinstance(s, piece_screen._Heads)]
    assert windows and all(s.sure for s in windows)


# -- the gates of allowed(): second characters, heads, bisection, screens on the URL ----------

# Plain prefixes that share heads and second characters, one that starts with another, some
# that cannot match (no leading "/"), and "/*..." rules whose screens run on the URL.
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
        matcher = Matcher([], keys, False, unexplained)  # "/" is its root rule, not a key
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
        matcher = Matcher([], keys, False, unexplained)
        for path in ("/" + "a" * 5000, "/" + "a" * 500, "/a"):
            assert matcher.prefilter[matcher._longest(path)] == "/a"
    robots = parse(body_of([(False, "/a")] + [(True, key) for key in keys[1:]]))
    for path in ("/" + "a" * 5000, "/" + "a" * 500 + "b", "/b"):
        check(robots, path)


@SETTINGS
@given(
    rules_=rule_sets,
    queries=st.lists(paths, min_size=1, max_size=8),
    signed=st.sampled_from(["", "grams", "heads"]),
)
def test_the_indexed_matcher_equals_the_unindexed_one(
    rules_: list[tuple[bool, str]], queries: list[str], signed: str
) -> None:
    body = body_of(rules_)
    with pytest.MonkeyPatch.context() as patcher:
        patcher.setattr(wild_index, "INDEXED", 10**9)  # every wildcard rule tried, in order
        unfiltered = parse(body)
        verdicts = [unfiltered.allowed(SITE + path, "bot") for path in queries]
    with index_everywhere(signed):
        indexed = parse(body)
        assert [indexed.allowed(SITE + path, "bot") for path in queries] == verdicts


def test_a_risky_single_piece_is_searched_by_a_chain_and_decides_alike() -> None:
    needle = "a" * 40 + "b" + "a" * 40
    robots = parse(body_of([(False, "/*" + needle), (True, "/x/*" + needle + "*")]))
    assert any(entry[4] is not None for entry in robots._matcher_for("bot")._wild)
    for path in ("/" + "a" * 3000, "/" + "a" * 1000 + needle, "/x/" + needle, "/x/" + "a" * 900):
        check(robots, path)


# -- the screen of many pieces by their grams, against "piece in path" ------------------------

# Pieces over a few characters, so that a path holds every gram of many pieces it lacks
# (the screen's false positives), and pieces that occur only far from the first place of
# their grams; non-ASCII characters read as "?" in the path's grams.
gram_piece = st.text(alphabet="ab0/%?", min_size=1, max_size=12)
gram_path = st.text(alphabet="ab0/%?é", max_size=300)


@SETTINGS
@given(
    pieces=st.lists(gram_piece, min_size=1, max_size=40, unique=True),
    searched=st.booleans(),
    queries=st.lists(gram_path, min_size=1, max_size=6),
    signed=st.sampled_from(["grams", "heads"]),
)
@example(  # the grams of "ab0ab" all occur, the piece only at the end, far from them
    pieces=["ab0ab", "0ab0", "b0a"],
    searched=True,
    queries=["ab0a0ab" + "/" * 200 + "ab0ab"],
    signed="grams",
)
@example(  # a periodic path: its grams gathered in a set first (piece_screen._periodic)
    pieces=["abab", "abab0", "b0b0", "0aba"],
    searched=False,
    queries=["ab" * 100, "ab" * 100 + "0", "a" * 300],
    signed="grams",
)
@example(  # windows of 4 bytes cut to 3, of 8 cut to 5 and 7; a "?" that a non-ASCII stands for
    pieces=["ab0", "0?a", "ab0ab", "b0ab0ab", "aaaa", "ab"],
    searched=False,
    queries=["xab0ab0ab0", "0éa", "aaaa", "ab"],
    signed="heads",
)
@example(  # windows of 4 bytes only
    pieces=["ab0", "0?a", "b0a0", "ab"], searched=False, queries=["xab0a0", "0éa"], signed="heads"
)
@example(  # windows of 8 bytes cut to 5 (pieces over 3 characters are filed apart)
    pieces=["ab0ab", "b0ab", "aaaa"], searched=False, queries=["xab0abx"], signed="heads"
)
def test_a_screened_piece_is_never_left_out(
    pieces: list[str], searched: bool, queries: list[str], signed: str
) -> None:
    # Every piece filed by grams (signatures, grams read in C) or by head (windows cut to
    # each length): the rules of every piece that occurs must be found (a rule left out
    # would change a verdict); a piece that is "searched" (its rule's check is more than one
    # find) is also confirmed, so no other is.
    filed = {piece: [at] for at, piece in enumerate(pieces)}
    with index_everywhere(signed):
        screen = piece_screen.PieceScreen(filed, set(pieces) if searched else set())
        for path in queries:
            found: list[int] = []
            screen.present("/" + path, found)
            occurring = {at for at, piece in enumerate(pieces) if piece in "/" + path}
            assert occurring <= set(found), (pieces, path)
            if searched:
                assert set(found) == occurring, (pieces, path)


def test_the_far_tails_file_is_right() -> None:
    # bench_engine.py's far-tails: tails whose grams all occur, most of them far into the
    # path, confirmed by a search; the rules' letters before or after them.
    tails = "".join(f"end{i:06d}" for i in range(0, 2000, 10))
    paths = (
        "/" + (_CYCLE * 100)[: 2047 - len(tails)] + tails,
        "/" + tails + "0" * (2047 - len(tails)),
        "/" + _CYCLE * 4 + "end001999",
        "/" + _CYCLE * 4 + "end001990",
    )
    _check_starred_tails(2000, 3, 7, 4, "end{:06d}", paths)


@SETTINGS
@given(
    pieces=st.lists(gram_piece, min_size=1, max_size=40, unique=True),
    searched=st.sets(st.integers(0, 39)),
    queries=st.lists(gram_path, min_size=1, max_size=6),
    signed=st.sampled_from(["grams", "heads"]),
)
@example(  # every gram of the first piece occurs, the piece does not
    pieces=["abab0", "b0"], searched={0}, queries=["abab/bab0"], signed="grams"
)
@example(  # the first piece's head occurs, the piece does not
    pieces=["abababab0", "b0"], searched={0}, queries=["abababab/"], signed="heads"
)
@example(  # a window that runs past the path's end reads a NUL
    pieces=["ab\x00", "b0"], searched={0}, queries=["ab"], signed="heads"
)
@example(  # "é" reads as "?" in the path's windows
    pieces=["a?b", "b0"], searched={0}, queries=["aéb"], signed="heads"
)
def test_only_the_searched_pieces_are_confirmed(
    pieces: list[str], searched: set[int], queries: list[str], signed: str
) -> None:
    # Pieces whose rules' checks start with a search for them (Chain.searches_first) are
    # not confirmed by the screen; the others are, in the same screen: none is left out,
    # and a confirmed piece that is found occurs.
    filed = {piece: [at] for at, piece in enumerate(pieces)}
    confirmed = {piece for at, piece in enumerate(pieces) if at in searched}
    with index_everywhere(signed):
        screen = piece_screen.PieceScreen(filed, confirmed)
        for path in queries:
            found: list[int] = []
            screen.present("/" + path, found)
            occurring = {at for at, piece in enumerate(pieces) if piece in "/" + path}
            assert occurring <= set(found), (pieces, path)
            assert {at for at in found if pieces[at] in confirmed} <= occurring, (pieces, path)


@SETTINGS
@given(
    first=st.sampled_from(["/", "/a"]),
    rest=st.lists(gram_piece, min_size=2, max_size=6),
    anchored=st.booleans(),
    path=gram_path,
)
def test_a_chain_that_searches_its_last_piece_first_is_the_greedy_search(
    first: str, rest: list[str], anchored: bool, path: str
) -> None:
    # Long paths over few characters: the last piece occurs before, inside and after where
    # the walk ends, and the walk's bounded searches overrun where it must start.
    path = first + path * 3
    chain = Chain(first, tuple(rest), anchored)
    if chain.searches_first(rest[-1]):
        assert not anchored and chain.walk is None and len(rest[-1]) < 32
    assert chain.match(path) is wildcard_match(path, (first, *rest), anchored)


def greedy_end(path: str, pieces: list[str], pos: int) -> int:
    """Where the plain greedy search is after ``pieces`` from ``pos``; -1 if one is missing."""
    for part in pieces:
        pos = path.find(part, pos)
        if pos < 0:
            return -1
        pos += len(part)
    return pos


@SETTINGS
@given(
    pieces=st.lists(st.sampled_from(["a", "b", "c", "é", "ab", "a"]), max_size=60),
    start=st.integers(0, 3),
    path=st.text("abcé", max_size=120),
    scan=st.sampled_from([0, 8, 10**9]),
)
@example(pieces=["a", "b"] * 10, start=1, path="/" + "ab" * 10, scan=10**9)  # ends the path
@example(pieces=["a", "b"] * 10, start=1, path="/" + "ab" * 9 + "a", scan=10**9)  # one short
@example(pieces=["a", "b"] * 10 + ["c"], start=1, path="/" + "ab" * 12 + "c", scan=10**9)
@example(pieces=["a", "b"] * 10, start=1, path="/" + "ab" * 10 + "c" * 200, scan=8)
def test_a_stretch_of_characters_is_walked_as_the_greedy_search(
    pieces: list[str], start: int, path: str, scan: int
) -> None:
    # Stretches of one-character pieces (broken by longer pieces and runs) walked in one
    # pass of an iterator, or by one find each, as the path left decides (forced here).
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chain_module, "_SCAN", scan)
        walk = Walk(start, pieces)
        assert walk.end(path) == greedy_end(path, pieces, start), (pieces, path)
        singles = all(len(part) == 1 for part in pieces)
        if len(pieces) >= chain_module._CHARS and singles and all(map(ne, pieces, pieces[1:])):
            assert any(step[1] == 0 for step in walk.steps)  # the stretch is one step
