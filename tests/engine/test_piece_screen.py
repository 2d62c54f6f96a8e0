"""``PieceScreen``: many literal pieces screened at once never leaves out one that occurs.

Each screen (pieces looked for one by one, found whole by the path's windows, or screened by
their grams read in C) is checked against ``piece in path``, and on the hostile shapes of
``benchmarks/bench_engine.py`` the matcher that uses it decides as the rule-by-rule replay.
"""

from __future__ import annotations

import itertools

from _wild_rules import SETTINGS, SITE, body_of, check, gram_path, gram_piece, index_everywhere
from hypothesis import example, given
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine import piece_screen
from scrapy_gbot_robots.engine.piece_screen import PieceScreen
from scrapy_gbot_robots.engine.wild_index import WildIndex


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
        screen = PieceScreen(filed, set(pieces) if searched else set())
        for path in queries:
            found: list[int] = []
            screen.present("/" + path, found)
            occurring = {at for at, piece in enumerate(pieces) if piece in "/" + path}
            assert occurring <= set(found), (pieces, path)
            if searched:
                assert set(found) == occurring, (pieces, path)


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
        screen = PieceScreen(filed, confirmed)
        for path in queries:
            found: list[int] = []
            screen.present("/" + path, found)
            occurring = {at for at, piece in enumerate(pieces) if piece in "/" + path}
            assert occurring <= set(found), (pieces, path)
            assert {at for at in found if pieces[at] in confirmed} <= occurring, (pieces, path)
