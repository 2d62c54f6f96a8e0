"""RobotsBodyMiddleware in real crawls against the real local HTTP server (no mocks).

Only this middleware is installed (the add-on is off and Scrapy's RobotsTxtMiddleware is
disabled), and the spider requests robots.txt itself with the meta the main middleware
uses, so each test sees exactly what the fetch code will receive.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import pytest_twisted
import scrapy
from _httpserver import Route, Server, Streamer, crawl
from twisted.web.server import Request as ServerRequest

from scrapy_gbot_robots._meta import FETCH_META
from scrapy_gbot_robots.crawl.body import (
    BODY_ERROR_FLAG,
    TRUNCATED_FLAG,
    RobotsBodyError,
    RobotsBodyMiddleware,
)
from scrapy_gbot_robots.policy import decode as _decode

pytestmark = pytest.mark.crawl

MAX = 512_000
BODY_MW = "scrapy_gbot_robots.crawl.body.RobotsBodyMiddleware"
BUILTIN = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
LINE = b"Disallow: /bomb\n"


def settings(**extra: Any) -> dict[str, Any]:
    return {
        "ADDONS": {},
        "ROBOTSTXT_OBEY": True,
        "DOWNLOADER_MIDDLEWARES": {BODY_MW: 595, BUILTIN: None},
        "TELNETCONSOLE_ENABLED": False,
        "RETRY_ENABLED": False,
        "CLOSESPIDER_TIMEOUT": 60,
        "LOG_LEVEL": "DEBUG",
        **extra,
    }


def robots_meta(server: Server) -> dict[str, Any]:
    return {
        FETCH_META: server.origin(),
        "download_maxsize": 0,
        "download_warnsize": 0,
        "handle_httpstatus_all": True,
        "dont_retry": True,
    }


class BodySpider(scrapy.Spider):
    """Requests ``(url, meta, headers)`` and records each response or failure by URL."""

    name = "body"
    def __init__(self, to_fetch: list[tuple[str, dict[str, Any], dict[str, str]]], **kw: Any):
        super().__init__(**kw)
        self.to_fetch = to_fetch
        self.responses: dict[str, Any] = {}
        self.failures: dict[str, BaseException] = {}

    def _requests(self) -> Iterator[scrapy.Request]:
        for url, meta, headers in self.to_fetch:
            yield scrapy.Request(
                url,
                meta=dict(meta),
                headers=headers or None,
                callback=self.parse,
                errback=self.on_error,
                dont_filter=True,
            )

    async def start(self) -> Any:
        for request in self._requests():
            yield request

    def start_requests(self) -> Any:  # Scrapy < 2.13
        return self._requests()

    def parse(self, response: Any) -> None:
        self.responses[response.url] = response

    def on_error(self, failure: Any) -> None:
        self.failures[failure.request.url] = failure.value


async def fetch(
    server: Server,
    robots: list[str] | None = None,
    pages: list[str] | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Any:
    to_fetch = [(server.url(p), robots_meta(server), headers or {}) for p in robots or []]
    to_fetch += [(server.url(p), {}, headers or {}) for p in pages or []]
    return await crawl(BodySpider, settings(**extra), to_fetch=to_fetch)


def _live_decoders() -> int:
    """Body decoders still alive anywhere in the process (each holds up to 500 KiB)."""
    import gc

    from scrapy_gbot_robots.policy.decode import BodyDecoder

    gc.collect()
    return sum(isinstance(o, BodyDecoder) for o in gc.get_objects())


def body_middleware(crawler: Any) -> RobotsBodyMiddleware | None:
    for mw in crawler.engine.downloader.middleware.middlewares:
        if isinstance(mw, RobotsBodyMiddleware):
            return mw
    return None


def compressed_lines(total: int, wbits: int = 31) -> bytes:
    """``total`` bytes of LINE repeated, gzip-compressed in a stream (never held inflated)."""
    block = LINE * ((1 << 20) // len(LINE))
    c = zlib.compressobj(9, zlib.DEFLATED, wbits)
    parts = [
        c.compress(block[: min(len(block), total - done)]) for done in range(0, total, len(block))
    ]
    return b"".join([*parts, c.flush()])


def lines(size: int) -> bytes:
    return (LINE * (size // len(LINE) + 1))[:size]


# -- the size cap ----------------------------------------------------------------------------
@pytest_twisted.ensureDeferred
async def test_gzip_bomb_is_cut_at_max_bytes_not_ignored(server: Server) -> None:
    inflated = 64 << 20
    bomb = compressed_lines(inflated)
    assert len(bomb) < 1 << 20
    server.route("/robots.txt", body=bomb, headers={"Content-Encoding": "gzip"})
    crawler = await fetch(server, robots=["/robots.txt"], DOWNLOAD_MAXSIZE=8 << 20)
    spider = crawler.spider
    assert spider.failures == {}  # no IgnoreRequest from HttpCompressionMiddleware
    response = spider.responses[server.url("/robots.txt")]
    assert response.body == lines(MAX)
    assert TRUNCATED_FLAG in response.flags
    assert b"Content-Encoding" not in response.headers
    assert b"Content-Length" not in response.headers
    assert not crawler.stats.get_value("httpcompression/response_count")
    assert body_middleware(crawler) is not None
    assert _live_decoders() == 0  # nothing kept after the response


@pytest_twisted.ensureDeferred
async def test_plain_3_mib_body_stops_the_download_at_max_bytes(server: Server) -> None:
    body = b"".join(b"Disallow: /page-%07d\n" % i for i in range(3 * (1 << 20) // 22 + 1))
    assert len(body) > 3 << 20
    streamer = Streamer(body)
    server.handle("/robots.txt", streamer)
    crawler = await fetch(server, robots=["/robots.txt"], DOWNLOAD_MAXSIZE=1 << 20)
    await streamer.wait_disconnected()
    spider = crawler.spider
    assert spider.failures == {}
    response = spider.responses[server.url("/robots.txt")]
    assert response.body == body[:MAX]
    assert TRUNCATED_FLAG in response.flags and "download_stopped" in response.flags
    assert streamer.disconnected and not streamer.completed
    assert streamer.sent < len(body) // 2, streamer.sent  # the server saw it closed early


@pytest_twisted.ensureDeferred
async def test_404_html_page_is_bounded_too(server: Server) -> None:
    page = b"<html>" + b"x" * 700_000 + b"</html>"
    server.route(
        "/robots.txt",
        status=404,
        body=gzip.compress(page),
        headers={"Content-Encoding": "gzip", "Content-Type": "text/html"},
    )
    crawler = await fetch(server, robots=["/robots.txt"])
    response = crawler.spider.responses[server.url("/robots.txt")]
    assert response.status == 404
    assert response.body == page[:MAX] and TRUNCATED_FLAG in response.flags


@pytest_twisted.ensureDeferred
async def test_body_of_exactly_max_bytes_is_not_flagged(server: Server) -> None:
    server.route("/robots.txt", body=lines(MAX))
    crawler = await fetch(server, robots=["/robots.txt"])
    response = crawler.spider.responses[server.url("/robots.txt")]
    assert response.body == lines(MAX)
    assert TRUNCATED_FLAG not in response.flags and "download_stopped" not in response.flags


# -- decoding and errors ---------------------------------------------------------------------
def _br(data: bytes) -> bytes:
    return bytes(_decode._brotli.compress(data))


def _zstd(data: bytes) -> bytes:
    return bytes(_decode._zstd.compress(data))


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        pytest.param(
            "br",
            _br,
            marks=pytest.mark.skipif(_decode._brotli is None, reason="no brotli >= 1.2"),
        ),
        pytest.param(
            "zstd",
            _zstd,
            marks=pytest.mark.skipif(_decode._zstd is None, reason="no zstd module"),
        ),
    ],
)
@pytest_twisted.ensureDeferred
async def test_small_compressed_robots_txt_is_decoded(
    server: Server, encoding: str, encode: Any
) -> None:
    text = b"User-agent: *\nDisallow: /private\n"
    server.route("/robots.txt", body=encode(text), headers={"Content-Encoding": encoding})
    crawler = await fetch(server, robots=["/robots.txt"])
    response = crawler.spider.responses[server.url("/robots.txt")]
    assert response.body == text
    assert TRUNCATED_FLAG not in response.flags
    assert b"Content-Encoding" not in response.headers


@pytest_twisted.ensureDeferred
async def test_invalid_gzip_fails_the_request(server: Server) -> None:
    server.route(
        "/robots.txt", body=b"User-agent: *\nDisallow: /\n", headers={"Content-Encoding": "gzip"}
    )
    crawler = await fetch(server, robots=["/robots.txt"])
    spider = crawler.spider
    assert spider.responses == {}
    error = spider.failures[server.url("/robots.txt")]
    assert isinstance(error, RobotsBodyError)
    assert str(error).startswith("gzip: invalid data after 0 decoded bytes")


@pytest_twisted.ensureDeferred
async def test_truncated_gzip_and_unknown_coding_fail_the_request(server: Server) -> None:
    server.route(
        "/robots.txt",
        body=gzip.compress(b"User-agent: *\nDisallow: /\n" * 100)[:-20],
        headers={"Content-Encoding": "gzip"},
    )
    server.route("/robots2.txt", body=b"whatever", headers={"Content-Encoding": "compress"})
    crawler = await fetch(server, robots=["/robots.txt", "/robots2.txt"])
    failures = crawler.spider.failures
    assert str(failures[server.url("/robots.txt")]).startswith("gzip: truncated stream")
    assert str(failures[server.url("/robots2.txt")]).startswith("unsupported Content-Encoding")
    assert crawler.spider.responses == {}


@pytest_twisted.ensureDeferred
async def test_undecodable_body_of_a_404_is_flagged_not_failed(server: Server) -> None:
    server.route("/robots.txt", status=404, body=b"not gzip", headers={"Content-Encoding": "gzip"})
    crawler = await fetch(server, robots=["/robots.txt"])
    assert crawler.spider.failures == {}
    response = crawler.spider.responses[server.url("/robots.txt")]
    assert response.status == 404 and BODY_ERROR_FLAG in response.flags


# -- everything else is untouched ------------------------------------------------------------
@pytest_twisted.ensureDeferred
async def test_other_requests_are_left_to_http_compression_middleware(server: Server) -> None:
    big = lines(600_000)
    server.route("/robots.txt", body=gzip.compress(big), headers={"Content-Encoding": "gzip"})
    server.route("/page", body=gzip.compress(big), headers={"Content-Encoding": "gzip"})
    crawler = await fetch(server, robots=["/robots.txt"], pages=["/page"])
    spider = crawler.spider
    page = spider.responses[server.url("/page")]
    assert page.body == big  # decoded whole by Scrapy, not cut by us
    assert TRUNCATED_FLAG not in page.flags
    assert crawler.stats.get_value("httpcompression/response_count") == 1  # the page only
    robots = spider.responses[server.url("/robots.txt")]
    assert robots.body == big[:MAX] and TRUNCATED_FLAG in robots.flags


@pytest_twisted.ensureDeferred
async def test_accept_encoding_of_robots_requests_lists_only_decodable_codings(
    server: Server,
) -> None:
    seen: dict[str, str] = {}

    def record(request: ServerRequest) -> Route:
        seen[request.path.decode()] = (request.getHeader("accept-encoding") or "").strip()
        return Route(body=b"User-agent: *\n")

    server.handle("/robots.txt", record)
    server.handle("/page", record)
    crawler = await fetch(
        server,
        robots=["/robots.txt"],
        pages=["/page"],
        headers={"Accept-Encoding": "gzip, compress;q=0.5"},
    )
    assert crawler.spider.failures == {}
    assert seen == {"/robots.txt": "gzip", "/page": "gzip, compress;q=0.5"}


@pytest_twisted.ensureDeferred
async def test_cached_responses_are_decoded_without_signals(server: Server, tmp_path: Any) -> None:
    big = lines(600_000)
    server.route("/robots.txt", body=gzip.compress(big), headers={"Content-Encoding": "gzip"})
    server.route(
        "/small.txt", body=gzip.compress(b"User-agent: *\n"), headers={"Content-Encoding": "gzip"}
    )
    cache: dict[str, Any] = {"HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(tmp_path / "cache")}
    robots = ["/robots.txt", "/small.txt"]
    first = await fetch(server, robots=robots, **cache)
    second = await fetch(server, robots=robots, **cache)
    assert server.count("/robots.txt") == 1 and server.count("/small.txt") == 1
    assert second.stats.get_value("httpcache/hit") == 2
    for crawler in (first, second):
        responses = crawler.spider.responses
        assert responses[server.url("/robots.txt")].body == big[:MAX]
        assert TRUNCATED_FLAG in responses[server.url("/robots.txt")].flags
        assert responses[server.url("/small.txt")].body == b"User-agent: *\n"
        assert TRUNCATED_FLAG not in responses[server.url("/small.txt")].flags


@pytest_twisted.ensureDeferred
async def test_not_configured_when_robotstxt_obey_is_false(server: Server) -> None:
    server.route("/robots.txt", body=b"User-agent: *\n")
    crawler = await fetch(server, robots=["/robots.txt"], ROBOTSTXT_OBEY=False)
    assert body_middleware(crawler) is None
    assert crawler.spider.responses[server.url("/robots.txt")].body == b"User-agent: *\n"


@pytest_twisted.ensureDeferred
async def test_max_bytes_setting_is_obeyed(server: Server) -> None:
    server.route(
        "/robots.txt", body=gzip.compress(lines(5000)), headers={"Content-Encoding": "gzip"}
    )
    crawler = await fetch(server, robots=["/robots.txt"], GBOT_ROBOTS_MAX_BYTES=1000)
    response = crawler.spider.responses[server.url("/robots.txt")]
    assert response.body == lines(1000) and TRUNCATED_FLAG in response.flags


@pytest_twisted.ensureDeferred
async def test_a_transfer_cut_short_is_never_a_usable_body(server: Server) -> None:
    text = b"User-agent: *\nDisallow: /private\n" * 10
    server.route("/robots.txt", body=text, truncate=True)
    server.route("/robots2.txt", body=text, truncate=True)
    # Scrapy's default: the download fails (and the decoder created for it is dropped).
    crawler = await fetch(server, robots=["/robots.txt"])
    assert type(crawler.spider.failures[server.url("/robots.txt")]).__name__ in (
        "ResponseDataLossError",
        "ResponseFailed",
    )
    assert body_middleware(crawler) is not None and _live_decoders() == 0
    # DOWNLOAD_FAIL_ON_DATALOSS=False gives a "dataloss" response: an error for robots.txt.
    crawler = await fetch(server, robots=["/robots2.txt"], DOWNLOAD_FAIL_ON_DATALOSS=False)
    error = crawler.spider.failures[server.url("/robots2.txt")]
    assert isinstance(error, RobotsBodyError) and "dataloss" in str(error)
