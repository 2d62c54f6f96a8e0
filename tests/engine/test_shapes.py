"""``shapes``: a wildcard pattern's shape, and the one test of shaped rules, ``first_match``.

``classify`` files each pattern with ``*`` or a final ``$`` under one of six shapes, and
``first_match`` tries shaped rules in rank order for both the verdict's matcher and the line
detail.  Both are held to Google's priority (``path_match.priority``, itself held to the
oracle in ``tests/engine/test_path_match.py``).
"""

from __future__ import annotations

from _wild_rules import SETTINGS, body_of, check, paths, patterns
from hypothesis import example, given
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine.path_match import priority
from scrapy_gbot_robots.engine.shapes import (
    EXACT,
    MANY,
    MANY_END,
    NO_MATCH,
    ONE,
    ONE_END,
    PREFIX,
    classify,
    first_match,
    index_htm_fallback,
)


def test_each_pattern_gets_its_shape_prefix_and_piece() -> None:
    cases = {
        "/a*": (PREFIX, "/a", ""),
        "/a*$": (PREFIX, "/a", ""),
        "/a**": (PREFIX, "/a", ""),
        "/a$": (EXACT, "/a", ""),
        "/a*b": (ONE, "/a", "b"),
        "/a**b": (ONE, "/a", "b"),
        "/a*b*": (ONE, "/a", "b"),
        "/a*b*$": (ONE, "/a", "b"),  # "*$" at the end matches any tail
        "*.pdf$": (ONE_END, "", ".pdf"),
        "/a**b$": (ONE_END, "/a", "b"),
        "/a*b*c": (MANY, "/a", "b"),
        "/a*b*c$": (MANY_END, "/a", "b"),
    }
    for pattern, (shape, first, second) in cases.items():
        entry = classify(pattern, False, "payload")
        assert entry is not None, pattern
        assert entry[1:4] == (shape, first, second), pattern
        assert (entry[4] is not None) is (shape in (MANY, MANY_END)), pattern
        assert entry[5] == "payload"
    assert classify("a*b", True, None) is None  # starts with neither "/" nor "*": never matches
    assert classify("$", True, None) is None


def test_rank_orders_by_priority_then_allow_first() -> None:
    ranks = {
        (pattern, allow): entry[0]
        for pattern in ("/a*", "/ab*")
        for allow in (False, True)
        if (entry := classify(pattern, allow, None)) is not None
    }
    assert ranks[("/ab*", True)] < ranks[("/ab*", False)] < ranks[("/a*", True)]
    assert ranks[("/a*", True)] < ranks[("/a*", False)] < NO_MATCH
    assert ranks[("/a*", False)] == -2 * len("/a*")


def test_the_index_htm_fallback_is_the_directory_anchored() -> None:
    assert index_htm_fallback("/d/index.html") == "/d/$"
    assert index_htm_fallback("/d/index.htm*") == "/d/$"
    assert index_htm_fallback("/index.htm") == "/$"
    assert index_htm_fallback("/d/index.php") is None
    assert index_htm_fallback("/index.html/x") is None  # only in the last segment


@SETTINGS
@given(
    rules=st.lists(st.tuples(patterns(), st.booleans()), min_size=1, max_size=12),
    path=paths,
    bound=st.sampled_from([NO_MATCH, -3, -8, -14]),
)
@example(rules=[("/a*b*c$", False), ("/*c$", True)], path="/abc", bound=NO_MATCH)
def test_first_match_is_the_first_rule_google_matches_ranked_below_the_bound(
    rules: list[tuple[str, bool]], path: str, bound: int
) -> None:
    # (A plain pattern is no shaped rule: the matcher looks those up by prefix.)
    shaped = [(p, allow) for p, allow in rules if "*" in p or p.endswith("$")]
    entries = sorted(
        (entry for pattern, allow in shaped if (entry := classify(pattern, allow, pattern))),
        key=lambda entry: entry[0],
    )
    # Sorted by rank, the rules ranked below the bound come first: the first of them that
    # Google's matching matches is the answer, and none past them is tried.
    expected = next((e[5] for e in entries if e[0] < bound and priority(path, e[5]) >= 0), None)
    assert first_match(entries, path, bound) == expected


def test_a_risky_single_piece_is_searched_by_a_chain_and_decides_alike() -> None:
    needle = "a" * 40 + "b" + "a" * 40
    robots = parse(body_of([(False, "/*" + needle), (True, "/x/*" + needle + "*")]))
    assert any(entry[4] is not None for entry in robots._matcher_for("bot")._wild)
    for path in ("/" + "a" * 3000, "/" + "a" * 1000 + needle, "/x/" + needle, "/x/" + "a" * 900):
        check(robots, path)
