"""``Chain``, a wildcard rule's greedy search with shortcuts, is the plain greedy search.

``engine/chain.py`` runs the greedy search with a length floor, runs of one piece counted in
C, a walk shared by rules with the same middle and remembered per path, a last piece
searched first, and stretches of one-character pieces walked in one pass.  Each shortcut
must give exactly what the plain greedy search of ``path_match.wildcard_match`` gives.
"""

from __future__ import annotations

from operator import ne

import pytest
from _wild_rules import PIECES, SETTINGS, gram_path, gram_piece, paths, piece
from hypothesis import example, given
from hypothesis import strategies as st

from scrapy_gbot_robots.engine import chain as chain_module
from scrapy_gbot_robots.engine.chain import Chain, Walk, share_walks
from scrapy_gbot_robots.engine.path_match import wildcard_match


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
