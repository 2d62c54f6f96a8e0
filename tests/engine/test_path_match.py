"""``path_match``: Google's path of a URL and its pattern matching, against the oracle.

``path_params_query`` transcribes ``GetPathParamsQuery``, and ``priority`` (with
``wildcard_match``, its greedy search) gives what ``RobotsMatchStrategy::Matches`` decides;
the oracle of ``tests/engine/test_properties.py`` is a byte-by-byte transcription of both.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_properties import PATTERN_CHARS, ref_matches, ref_path, url_shaped

from scrapy_gbot_robots.engine.path_match import path_params_query, priority, wildcard_match

patterns = st.text(alphabet=PATTERN_CHARS, max_size=10)
paths = st.text(alphabet="/ab$?;.=*", max_size=12).map(lambda p: "/" + p)


@settings(max_examples=500, deadline=None)
@given(url=url_shaped)
@example(url="https://h#/a")
@example(url="//h?a/b")
@example(url="h;p/a")
def test_path_params_query_is_googles(url: str) -> None:
    assert path_params_query(url) == ref_path(url.encode()).decode()


def test_path_params_query_ends_at_a_nul_as_a_c_string_does() -> None:
    assert path_params_query("https://h/a\0b") == "/a"
    assert path_params_query("https://h/a?q#f") == "/a?q"
    assert path_params_query("https://h") == "/"


@settings(max_examples=500, deadline=None)
@given(pattern=patterns, path=paths)
@example(pattern="/a*$", path="/a")
@example(pattern="/a$$", path="/a$")
@example(pattern="$", path="/")
@example(pattern="*a*a*a*b", path="/aaaaaaaa")
def test_priority_is_the_pattern_length_when_google_matches(pattern: str, path: str) -> None:
    matches = ref_matches(path.encode(), pattern.encode())
    assert priority(path, pattern) == (len(pattern) if matches else -1)


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.text(alphabet="ab/", max_size=3), min_size=1, max_size=5), path=paths)
def test_wildcard_match_is_the_pattern_of_its_pieces(pieces: list[str], path: str) -> None:
    # A pattern split on "*" (no "$" inside), its first piece checked as a prefix.
    for anchored in (False, True):
        pattern = "*".join(pieces) + ("$" if anchored else "")
        found = path.startswith(pieces[0]) and wildcard_match(path, tuple(pieces), anchored)
        assert found is ref_matches(path.encode(), pattern.encode())
