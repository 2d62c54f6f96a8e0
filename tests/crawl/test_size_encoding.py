"""Google's 500 KiB whatever the size or encoding, through the add-on, in real crawls.

A size or decoding limit must never become "no restrictions": the first 500 KiB of content
decide, and a body that cannot be decoded at all is a server error.
"""

from __future__ import annotations

import zlib
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, Streamer, crawl, make_spider

pytestmark = pytest.mark.crawl

HEAD = b"User-agent: *\nDisallow: /private\n"


def gzip_stream(head: bytes, total: int) -> bytes:
    """``head`` then comment lines up to ``total`` inflated bytes, gzip-compressed in pieces."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [c.compress(head)]
    filler = (b"# " + b"x" * 1021 + b"\n") * 1024  # 1 MiB of comments
    done = len(head)
    while done < total:
        piece = filler[: total - done]
        parts.append(c.compress(piece))
        done += len(piece)
    parts.append(c.flush())
    return b"".join(parts)


@pytest_twisted.ensureDeferred
async def test_gzip_bomb_past_download_maxsize_obeys_its_first_lines(server: Server) -> None:
    body = gzip_stream(HEAD, 64 << 20)
    assert len(body) < 1 << 20  # 64 MiB of content in well under 1 MiB on the wire
    server.route("/robots.txt", body=body, headers={"Content-Encoding": "gzip"})
    urls = [server.url("/ok"), server.url("/private/x")]
    crawler = await crawl(make_spider(urls=urls), {"DOWNLOAD_MAXSIZE": 8 << 20})
    assert crawler.spider.crawled == [urls[0]]
    assert server.count("/private/x") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/origin_state/rules"] == 1
    assert stats["robotstxt/truncated"] == 1
    state = _state(crawler, urls[0])
    assert len(state.robots.body) == 512_000 and state.robots.truncated


@pytest_twisted.ensureDeferred
async def test_plain_3_mib_file_past_download_maxsize_obeys_its_first_500_kib(
    server: Server,
) -> None:
    early = HEAD
    filler = b"#" + b"x" * 512_000 + b"\n"
    late = b"Disallow: /late\n"
    body = early + filler + late
    body += b"#" * ((3 << 20) - len(body))
    streamer = Streamer(body, chunk=32_768, pause=0.002)
    server.handle("/robots.txt", streamer)
    urls = [server.url("/ok"), server.url("/private/x"), server.url("/late")]
    crawler = await crawl(make_spider(urls=urls), {"DOWNLOAD_MAXSIZE": 1 << 20})
    await streamer.wait_disconnected()
    assert sorted(crawler.spider.crawled) == sorted([urls[0], urls[2]])  # /late: past the cut
    assert server.count("/private/x") == 0
    assert streamer.disconnected and not streamer.completed  # we stopped reading early
    assert streamer.sent < 1 << 20
    assert crawler.stats.get_value("robotstxt/truncated") == 1


@pytest_twisted.ensureDeferred
async def test_invalid_gzip_is_a_server_error_not_allow_all(server: Server) -> None:
    server.route(
        "/robots.txt",
        body=b"\x1f\x8b\x08\x00 this is not deflate data at all " * 20,
        headers={"Content-Encoding": "gzip"},
    )
    urls = [server.url("/private/x"), server.url("/ok")]
    crawler = await crawl(make_spider(urls=urls), {"GBOT_ROBOTS_PARK_TIMEOUT": 0.5})
    assert crawler.spider.crawled == []
    assert server.count("/private/x") == 0 and server.count("/ok") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/origin_state/server_error"] == 1
    assert stats["robotstxt/dropped"] == 2
    assert any("RobotsBodyError" in key for key in stats)


@pytest_twisted.ensureDeferred
async def test_addon_installs_the_body_middleware_inside_http_compression(server: Server) -> None:
    from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware

    from scrapy_gbot_robots.crawl.body import RobotsBodyMiddleware

    server.route("/robots.txt", body=HEAD)
    crawler = await crawl(make_spider(urls=[server.url("/ok")]))
    installed = crawler.engine.downloader.middleware.middlewares
    kinds = [type(mw) for mw in installed]
    assert RobotsBodyMiddleware in kinds
    # process_response runs in reverse order: ours must come before HttpCompression's.
    assert kinds.index(HttpCompressionMiddleware) < kinds.index(RobotsBodyMiddleware)


def _state(crawler: object, url: str) -> Any:
    from _httpserver import middleware_of

    state = middleware_of(crawler).origin_state(url)
    assert state is not None
    return state


#: The two ways a project runs without RobotsBodyMiddleware: the add-on with the body
#: middleware switched off, and the 0.2.0 way, our middleware named without the add-on.
WITHOUT_BODY_MIDDLEWARE: dict[str, dict[str, Any]] = {
    "add-on, body middleware off": {
        "DOWNLOADER_MIDDLEWARES": {"scrapy_gbot_robots.RobotsBodyMiddleware": None}
    },
    "0.2.0 install, no add-on": {
        "ADDONS": {},
        "DOWNLOADER_MIDDLEWARES": {
            "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
            "scrapy_gbot_robots.middleware.GoogleRobotsTxtMiddleware": 100,
        },
    },
}


@pytest.mark.parametrize("install", sorted(WITHOUT_BODY_MIDDLEWARE))
@pytest_twisted.ensureDeferred
async def test_without_the_body_middleware_a_huge_file_is_not_read_whole(
    server: Server, install: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 24, item 2: the download used to read a 100 MiB robots.txt to its end (181 MB
    RSS), whatever DOWNLOAD_MAXSIZE. Scrapy's size limit now stops it near 500 KiB: a
    server error (never "no restrictions"), and one WARNING says what the install costs."""
    import logging

    caplog.set_level(logging.WARNING)
    body = HEAD + b"#" * (20 << 20)
    streamer = Streamer(body, chunk=65_536, pause=0.001)
    server.handle("/robots.txt", streamer)
    urls = [server.url("/ok"), server.url("/private/x")]
    # The origin is then a server error: its two requests wait for the retry (60 s) unless
    # their park deadline drops them first, which the test shortens (nothing else waits on it).
    settings = {
        "DOWNLOAD_MAXSIZE": 0,
        "GBOT_ROBOTS_PARK_TIMEOUT": 2.0,
        **WITHOUT_BODY_MIDDLEWARE[install],
    }
    crawler = await crawl(make_spider(urls=urls), settings)
    await streamer.wait_disconnected()
    assert streamer.disconnected and streamer.sent < 2 << 20  # not 20 MiB
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/origin_state/server_error"] == 1
    assert server.count("/private/x") == 0 and server.count("/ok") == 0
    warnings = [
        r.getMessage() for r in caplog.records if "RobotsBodyMiddleware is not enabled" in r.msg
    ]
    assert len(warnings) == 1 and "512000 bytes" in warnings[0]


@pytest_twisted.ensureDeferred
async def test_with_the_body_middleware_nothing_is_said_about_it(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", body=HEAD)
    await crawl(make_spider(urls=[server.url("/ok")]))
    assert not [r for r in caplog.records if "RobotsBodyMiddleware" in r.getMessage()]
