"""Origin keys: Google's "File location and range of validity" table, row by row."""

from __future__ import annotations

import pytest

from scrapy_gbot_robots.policy.origin import origin_from_parts, origin_of, robots_url


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://example.com/", "https://example.com"),
        ("https://example.com/folder/file", "https://example.com"),
        ("https://example.com:443/", "https://example.com"),
        ("http://example.com:80/x", "http://example.com"),
        ("http://Example.COM/Path", "http://example.com"),
        ("https://example.com:8181/", "https://example.com:8181"),
        ("http://example.com:443/", "http://example.com:443"),
        ("https://example.com:80/", "https://example.com:80"),
        ("https://www.exämple.com/", "https://www.xn--exmple-cua.com"),
        ("https://xn--exmple-cua.com/", "https://xn--exmple-cua.com"),
        ("https://212.96.82.21/", "https://212.96.82.21"),
        ("http://[::1]:8080/a", "http://[::1]:8080"),
        ("http://[::1]:80/a", "http://[::1]"),
        ("http://user:pw@example.com:81/", "http://example.com:81"),
        ("http://example.com?q=1", "http://example.com"),
    ],
)
def test_origin_of(url: str, origin: str) -> None:
    assert origin_of(url) == origin


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.com/", "http://example.com/"),
        ("https://example.com/", "https://other.example.com/"),
        ("https://www.example.com/", "https://example.com/"),
        ("https://example.com/", "https://example.com:444/"),
        ("https://www.exämple.com/", "https://www.example.com/"),
    ],
)
def test_distinct_origins(a: str, b: str) -> None:
    assert origin_of(a) != origin_of(b)


@pytest.mark.parametrize(
    "url",
    [
        "data:,hello",
        "file:///etc/passwd",
        "ftp://example.com/",
        "s3://bucket/key",
        "http://example.com:notaport/",
        "http://example.com:99999/",
        "http:///path",
        "http://[::1/",
    ],
)
def test_no_robots_scope(url: str) -> None:
    assert origin_of(url) is None


def test_robots_url_is_top_level() -> None:
    assert robots_url(origin_of("https://example.com:8181/folder/page?x=1") or "") == (
        "https://example.com:8181/robots.txt"
    )
    assert origin_from_parts("HTTP", "EXAMPLE.com:80") == "http://example.com"
