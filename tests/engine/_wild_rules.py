"""What the tests of wildcard rules share: rule sets, paths, and the replay they are held to.

The bodies are drawn from small alphabets and from pieces that repeat, so that prefixes,
tails and pieces are shared by many rules (the index nests and files by grams), paths
contain most pieces (screens pass, and the full check decides), and equal priorities
between allow and disallow are common.  :func:`index_everywhere` forces the wildcard index
onto small rule sets by lowering its thresholds, so that every path of the index meets
every kind of body.  Used by ``tests/engine/test_chain.py``, ``test_shapes.py``,
``test_wild_index.py``, ``test_piece_screen.py``, ``test_matcher.py`` and ``test_decision.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine import piece_screen, wild_index
from scrapy_gbot_robots.engine.decision import decide_reference
from scrapy_gbot_robots.engine.groups import token_key, walk_groups
from scrapy_gbot_robots.engine.lines import directives
from scrapy_gbot_robots.engine.path_match import path_params_query
from scrapy_gbot_robots.engine.rules import RobotsTxt

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


def check(robots: RobotsTxt, path: str) -> None:
    expected = reference(robots.body, path)
    assert robots.allowed(SITE + path, "bot") is expected, (robots.body, path)
    assert robots.decide(SITE + path, "bot").allowed is expected, (robots.body, path)


CYCLE = "abcdefghijklmnopqrstuvwxy"


def check_starred_tails(
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


# Pieces over a few characters, so that a path holds every gram of many pieces it lacks
# (the screen's false positives), and pieces that occur only far from the first place of
# their grams; non-ASCII characters read as "?" in the path's grams.
gram_piece = st.text(alphabet="ab0/%?", min_size=1, max_size=12)
gram_path = st.text(alphabet="ab0/%?é", max_size=300)
