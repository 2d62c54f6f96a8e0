"""``WildIndex`` never changes a verdict: indexed matcher == unindexed == rule by rule.

``engine/wild_index.py`` skips most wildcard rules without trying them: each rule is filed
under one condition a path it matches must meet, and past the first candidates, rules whose
shared walk fails are culled in C.  The matcher must give exactly what the rule-by-rule
replay ``decide_reference`` gives, whatever the index files where, and the index must be
in use where it should.
"""

from __future__ import annotations

import pytest
from _wild_rules import (
    CYCLE,
    SETTINGS,
    SITE,
    body_of,
    check,
    check_starred_tails,
    index_everywhere,
    paths,
    rule_sets,
)
from hypothesis import given
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine import wild_index
from scrapy_gbot_robots.engine.rules import RobotsTxt


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


def test_the_issue_file_is_indexed_and_right() -> None:
    # 1,000 rules of 16 "*" with distinct literal tails: the hostile file of the issue.
    tails = "".join(f"tail{i:04d}" for i in range(0, 1000, 4))
    paths = (
        "/" + (CYCLE * 100)[:2047],
        "/" + tails[:1500] + CYCLE * 20,
        "/" + CYCLE * 20 + "tail0003",
        "/" + CYCLE * 20 + "tail0004",
    )
    check_starred_tails(1000, 15, 5, 3, "tail{:04d}", paths)


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


def test_nested_tails_and_many_short_pieces_are_right() -> None:
    alpha = "abcdefghij0123456789"
    lines = [(c == "q", f"/*{a}{b}*{c}$") for a in alpha for b in alpha for c in "pqrs"]
    lines += [(True, f"/shop/*x{i}*") for i in range(300)]
    robots = parse(body_of(lines))
    for path in ("/" + alpha * 5 + "p", "/" + alpha * 5 + "q", "/x/ab", "/shop/x299", "/shop/x3a"):
        check(robots, path)


def test_the_far_tails_file_is_right() -> None:
    # bench_engine.py's far-tails: tails whose grams all occur, most of them far into the
    # path, confirmed by a search; the rules' letters before or after them.
    tails = "".join(f"end{i:06d}" for i in range(0, 2000, 10))
    paths = (
        "/" + (CYCLE * 100)[: 2047 - len(tails)] + tails,
        "/" + tails + "0" * (2047 - len(tails)),
        "/" + CYCLE * 4 + "end001999",
        "/" + CYCLE * 4 + "end001990",
    )
    check_starred_tails(2000, 3, 7, 4, "end{:06d}", paths)


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
