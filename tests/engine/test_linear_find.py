"""``find`` and ``risky``: one piece searched in linear time, whatever the piece."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots.engine.linear_find import find, risky


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
