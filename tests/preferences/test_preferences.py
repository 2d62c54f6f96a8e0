"""One usage answer per response (``preferences/``): TDMRep's three places and the combination."""

from __future__ import annotations

import pytest

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.preferences.answer import (
    CATEGORIES,
    answer,
    from_header,
    from_robots,
    from_tdm,
)
from scrapy_gbot_robots.preferences.tdmrep import (
    MAX_ENTRIES,
    combine,
    from_headers,
    from_meta,
    match_file,
    parse_file,
)

# The final report's example, with a catch-all last: the first match wins, not the longest.
FILE = b"""[
  {"location": "/images/*", "tdm-reservation": 1, "tdm-policy": "https://e.com/policy.json"},
  {"location": "/images/free/*", "tdm-reservation": 0},
  {"location": "/*.pdf$", "tdm-reservation": 1},
  {"location": "/", "tdm-reservation": 0}
]"""


def test_the_first_matching_entry_wins_not_the_longest() -> None:
    entries = parse_file(FILE)
    assert len(entries) == 4
    free = match_file(entries, "/images/free/a.jpg")
    assert free is not None and free.reserved and free.where == "entry 1: /images/*"
    assert free.policy == "https://e.com/policy.json"
    pdf = match_file(entries, "/docs/a.pdf")
    assert pdf is not None and pdf.reserved and pdf.where.startswith("entry 3")
    other = match_file(entries, "/docs/a.pdf?x=1")  # "$" anchors: the query follows
    assert other is not None and not other.reserved and other.where == "entry 4: /"


@pytest.mark.parametrize(
    "body",
    [b"", b"{", b"{}", b'"x"', b"\xff\xfe", b'[{"location": 3}]', b'[{"location": "/"}]',
     b'[{"location": "/", "tdm-reservation": 2}]', b'[{"location": "/", "tdm-reservation": true}]',
     b"[" * 100_000],
)
def test_a_broken_file_reserves_nothing(body: bytes) -> None:
    assert match_file(parse_file(body), "/") is None


def test_a_file_is_read_up_to_its_bound() -> None:
    many = b"[" + b",".join([b'{"location": "/x", "tdm-reservation": 1}'] * (MAX_ENTRIES + 5))
    assert len(parse_file(many + b"]")) == MAX_ENTRIES


def test_headers_and_meta() -> None:
    header = from_headers([b" 1 "], [b"https://e.com/p.json"])
    assert header is not None and header.reserved and header.policy == "https://e.com/p.json"
    assert from_headers([b"yes"], []) is None and from_headers([], []) is None
    page = b'<html><head><meta name="tdm-reservation" content="0"></head><body>x</body></html>'
    meta = from_meta(page)
    assert meta is not None and not meta.reserved and meta.source == "meta"
    assert from_meta(b"<html><head><title>x</title></head></html>") is None
    late = b'<html><body><meta name="tdm-reservation" content="1"></body></html>'
    assert from_meta(late) is None  # a meta in the body is not in the head


def test_file_then_header_then_meta_and_an_absent_value_resets_nothing() -> None:
    file = match_file(parse_file(FILE), "/")  # 0
    header = from_headers([b"1"], [])
    meta = from_meta(b'<head><meta name="tdm-reservation" content="0"></head>')
    assert combine(file, header, meta) is meta
    assert combine(file, header, None) is header
    assert combine(file, None, None) is file
    assert combine(None, None, None) is None


def test_the_answer_combines_every_source_most_restrictive_wins() -> None:
    robots = parse(b"User-agent: *\nContent-Usage: search=y\nContent-Signal: ai-train=yes\n")
    prefs = robots.usage("https://e.com/a", "bot").as_json()["preferences"]
    assert isinstance(prefs, list)
    got = answer(
        from_robots(prefs),
        from_header([b"train-ai=y", b"search=n, all=n, train-genai=n"]),
        from_tdm(from_headers([b"1"], [])),
    )
    assert CATEGORIES == ("train-ai", "search")
    assert got.allowed("train-ai") is False  # the TDM reservation's "no" wins over two "yes"
    refusal = got.refusal("train-ai")
    assert refusal is not None and refusal.source == "tdm-header"
    assert got.allowed("search") is False  # the header's search=n over robots.txt's y
    data = got.as_json()
    assert [s["source"] for s in data["search"]["sources"]] == ["robots.txt", "header"]  # type: ignore[index]
    assert data["search"]["sources"][0]["where"] == "line 2: Content-Usage: search=y"  # type: ignore[index]


def test_unknown_when_nothing_is_said_and_a_broken_header_says_nothing() -> None:
    empty = answer(from_robots([]), from_header([b"train-ai=n,"]), from_tdm(None))
    assert empty.allowed("train-ai") is None and empty.allowed("search") is None
    assert empty.as_json() == {
        "train-ai": {"allowed": None, "sources": []},
        "search": {"allowed": None, "sources": []},
    }
    granted = answer(from_tdm(from_headers([b"0"], [])))
    assert granted.allowed("train-ai") is True and granted.allowed("search") is None
