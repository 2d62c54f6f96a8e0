"""robots.txt through a proxy that requires credentials (issue 46, item 1).

A real forwarding proxy on 127.0.0.1 (``_authproxy.AuthProxy``) answers 407 to any request
without the right ``Proxy-Authorization``; the origins' own port is closed, so nothing reaches
them but through the proxy. Before 0.3.0 the robots.txt request reached the proxy without the
spider's credentials whenever they were a header (set by the spider, or by Scrapy's proxy
middleware on a redirected or retried request): the proxy's 407 was read as the origin's
"4xx: no robots.txt", and every disallowed page was fetched.
"""

from __future__ import annotations

import base64
import logging
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
import scrapy
from _authproxy import AuthProxy
from _httpserver import Route, Server, crawl, make_spider

from scrapy_gbot_robots._compat import HTTPAUTH_READS_META

pytestmark = pytest.mark.crawl

USER, PASSWORD = "robot", "Pw46-pr0xy_s3cret"
CREDS = f"{USER}:{PASSWORD}"
HEADER = b"Basic " + base64.b64encode(CREDS.encode())
RULES = b"User-agent: *\nDisallow: /private/\n"
HTML: dict[str, str | list[str]] = {"Content-Type": "text/html; charset=utf-8"}


def _closed_port() -> int:
    """A loopback port nothing listens on: a direct connection to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest_twisted.async_yield_fixture
async def auth_proxy(server: Server) -> AsyncIterator[AuthProxy]:
    # Every page declares its charset (Twisted's proxy passes no default Content-Type).
    server.route("*", headers=HTML)
    proxy = AuthProxy(server.port, USER, PASSWORD).start()
    try:
        yield proxy
    finally:
        await proxy.stop()


def _spider(urls: list[str], meta: dict[str, Any], headers: dict[str, Any] | None = None) -> Any:
    class ThroughProxy(make_spider(urls=urls)):  # type: ignore[misc]
        def make_request(self, url: str, **kwargs: Any) -> Any:
            return scrapy.Request(
                url,
                callback=self.parse,
                errback=self.on_error,
                meta=dict(meta),
                headers=headers,
                dont_filter=True,
            )

    return ThroughProxy


def _no_secret_in(text: str) -> None:
    assert PASSWORD not in text
    assert HEADER.decode() not in text
    assert base64.b64encode(CREDS.encode()).decode() not in text


@pytest_twisted.ensureDeferred
async def test_credentials_in_the_proxy_url(server: Server, auth_proxy: AuthProxy) -> None:
    port = _closed_port()
    server.route("/robots.txt", host="one.test", body=RULES)
    allowed, forbidden = f"http://one.test:{port}/a", f"http://one.test:{port}/private/x"
    spider = _spider([allowed, forbidden], {"proxy": auth_proxy.url(CREDS)})
    crawler = await crawl(spider)
    assert crawler.spider.failed == [(forbidden, "IgnoreRequest")]
    assert crawler.spider.crawled == [allowed]
    assert server.count("/private/x", "one.test") == 0
    assert server.count("/robots.txt", "one.test") == 1
    assert sum(auth_proxy.refused.values()) == 0


@pytest_twisted.ensureDeferred
async def test_credentials_in_a_header_the_spider_set(
    server: Server, auth_proxy: AuthProxy, caplog: pytest.LogCaptureFixture
) -> None:
    port = _closed_port()
    server.route("/robots.txt", host="one.test", body=RULES)
    allowed, forbidden = f"http://one.test:{port}/a", f"http://one.test:{port}/private/x"
    spider = _spider(
        [allowed, forbidden], {"proxy": auth_proxy.url()}, {"Proxy-Authorization": HEADER}
    )
    with caplog.at_level(logging.DEBUG):
        crawler = await crawl(spider)
    assert crawler.spider.crawled == [allowed]
    assert server.count("/private/x", "one.test") == 0
    assert server.count("/robots.txt", "one.test") == 1
    assert sum(auth_proxy.refused.values()) == 0
    _no_secret_in(caplog.text)


@pytest_twisted.ensureDeferred
async def test_a_redirected_request_that_wants_the_fetch_carries_the_credentials(
    server: Server, auth_proxy: AuthProxy
) -> None:
    """The redirect has been through Scrapy's proxy middleware: ``meta["proxy"]`` has no
    userinfo any more, the credentials are its header."""
    port = _closed_port()
    server.route("/robots.txt", host="one.test", body=b"User-agent: *\nAllow: /\n")
    server.route("/robots.txt", host="two.test", body=RULES)
    target = f"http://two.test:{port}/private/x"
    server.route("/go", host="one.test", status=302, headers={"Location": target})
    spider = _spider([f"http://one.test:{port}/go"], {"proxy": auth_proxy.url(CREDS)})
    crawler = await crawl(spider)
    assert server.count("/robots.txt", "two.test") == 1
    assert server.count("/private/x", "two.test") == 0
    assert sum(auth_proxy.refused.values()) == 0
    assert crawler.stats.get_value("robotstxt/forbidden") == 1


@pytest_twisted.ensureDeferred
async def test_a_retried_request_that_wants_the_fetch_carries_the_credentials(
    server: Server, auth_proxy: AuthProxy
) -> None:
    """The first try goes to an origin whose robots.txt the plugin skips (``dont_obey``);
    Scrapy retries the 503 with the copy its proxy middleware made: the retry is checked."""
    port = _closed_port()
    server.route("/robots.txt", host="one.test", body=b"User-agent: *\nDisallow: /\n")
    calls = {"n": 0}

    def flaky(request: Any) -> Route:
        calls["n"] += 1
        return Route(status=503 if calls["n"] == 1 else 200, headers=HTML)

    server.handle("/page", flaky, host="one.test")

    class Retried(make_spider(urls=[f"http://one.test:{port}/page"])):  # type: ignore[misc]
        def make_request(self, url: str, **kwargs: Any) -> Any:
            meta = {"proxy": auth_proxy.url(CREDS), "dont_obey_robotstxt": True}
            return scrapy.Request(url, callback=self.parse, errback=self.on_error, meta=meta)

    settings = {
        "RETRY_ENABLED": True,
        "RETRY_TIMES": 1,
        "RETRY_HTTP_CODES": [503],
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.DropsDontObey": 560},
    }
    crawler = await crawl(Retried, settings)
    assert sum(auth_proxy.refused.values()) == 0
    assert server.count("/robots.txt", "one.test") == 1
    assert calls["n"] == 1  # the retry was forbidden, never sent
    assert crawler.stats.get_value("robotstxt/forbidden") == 1


@pytest_twisted.ensureDeferred
async def test_a_407_means_the_rules_are_unknown_never_no_restrictions(
    server: Server, auth_proxy: AuthProxy, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """Wrong credentials: the proxy refuses robots.txt (and would refuse the pages). The
    origin is handled as unreachable: its requests are parked and dropped at the deadline,
    never sent; one WARNING per origin says what to fix; the password is in no log line."""
    port = _closed_port()
    for host in ("one.test", "two.test"):
        server.route("/robots.txt", host=host, body=RULES)
    urls = [f"http://{h}:{port}/{p}" for h in ("one.test", "two.test") for p in ("a", "b")]
    wrong = f"{USER}:not-{PASSWORD}"
    spider = _spider(urls, {"proxy": auth_proxy.url(wrong)})
    reports = [tmp_path / "report.json", tmp_path / "report.html"]
    settings = {
        "GBOT_ROBOTS_PARK_TIMEOUT": 1.0,
        "RETRY_ENABLED": False,
        "GBOT_ROBOTS_REPORT": ",".join(map(str, reports)),
    }
    with caplog.at_level(logging.DEBUG):
        crawler = await crawl(spider, settings)
    assert crawler.spider.crawled == []
    assert server.count("/robots.txt") == 0 and server.count("/a") == 0
    for report in reports:  # the report names the proxy's refusal, never its credentials
        text = report.read_text(encoding="utf-8")
        assert "proxy refused (407)" in text
        _no_secret_in(text)
        assert "not-" + PASSWORD not in text
    assert sorted(u for u, _ in crawler.spider.dropped) == sorted(urls)
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/proxy_refused"] >= 2
    assert stats["robotstxt/origin_state/server_error"] == 2
    warnings = [r for r in caplog.records if "proxy" in r.getMessage() and r.levelno == 30]
    assert len(warnings) == 2, [r.getMessage() for r in warnings]
    assert all("407" in r.getMessage() for r in warnings)
    assert all("Proxy-Authorization" in r.getMessage() for r in warnings)
    _no_secret_in(caplog.text)
    assert "not-" + PASSWORD not in caplog.text
    _no_secret_in(repr(stats))


@pytest_twisted.ensureDeferred
async def test_an_https_tunnel_the_proxy_refuses_means_the_rules_are_unknown(
    server: Server, auth_proxy: AuthProxy, caplog: pytest.LogCaptureFixture
) -> None:
    """HTTPS goes through ``CONNECT``: Scrapy raises its tunnel error for the 407."""
    port = _closed_port()
    urls = [f"https://one.test:{port}/a", f"https://one.test:{port}/private/x"]
    spider = _spider(urls, {"proxy": auth_proxy.url(f"{USER}:wrong")})
    with caplog.at_level(logging.DEBUG):
        crawler = await crawl(spider, {"GBOT_ROBOTS_PARK_TIMEOUT": 1.0, "RETRY_ENABLED": False})
    assert crawler.spider.crawled == []
    assert sorted(u for u, _ in crawler.spider.dropped) == sorted(urls)
    assert auth_proxy.refused[f"one.test:{port}"] >= 1
    warnings = [r for r in caplog.records if "proxy" in r.getMessage() and r.levelno == 30]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert crawler.stats.get_value("robotstxt/proxy_refused") >= 1


class DropsDontObey:
    """Turns a retry into an ordinary request, which must be checked."""

    def process_response(self, request: Any, response: Any, spider: Any = None) -> Any:
        request.meta.pop("dont_obey_robotstxt", None)
        return response


@pytest.mark.skipif(not HTTPAUTH_READS_META, reason="Scrapy reads http_user meta from 2.19")
@pytest_twisted.ensureDeferred
async def test_http_auth_meta_reaches_the_origins_robots_txt_and_no_other_host(
    server: Server,
) -> None:
    """A site behind HTTP authentication answers 401 to robots.txt without it: read as "no
    robots.txt", its disallowed pages were fetched. The robots.txt request now carries the
    page's ``http_user``/``http_pass``; a redirect to another host gets none of them."""
    site = f"Basic {base64.b64encode(b'site:s1te-pass').decode()}"
    seen: list[tuple[str, str]] = []

    def guarded(request: Any) -> Route:
        auth = request.getHeader("authorization") or ""
        seen.append((request.getHeader("host") or "", auth))
        if auth != site:
            return Route(status=401, headers=HTML)
        return Route(status=302, headers={**HTML, "Location": server.url("/rules.txt", "b.test")})

    server.route("*", headers=HTML)
    server.handle("/robots.txt", guarded, host="a.test")
    server.route("/rules.txt", host="b.test", body=RULES)
    urls = [server.url("/a", "a.test"), server.url("/private/x", "a.test")]
    meta = {"http_user": "site", "http_pass": "s1te-pass"}
    crawler = await crawl(_spider(urls, meta))
    assert crawler.spider.crawled == [urls[0]]
    assert server.count("/private/x", "a.test") == 0
    assert [auth for _, auth in seen] == [site]
    assert server.count("/rules.txt", "b.test") == 1
    assert "s1te-pass" not in repr(crawler.stats.get_stats())


@pytest_twisted.ensureDeferred
async def test_an_authorization_header_goes_to_the_origin_only(server: Server) -> None:
    """A spider's own ``Authorization`` header: the origin's robots.txt gets it, a redirect's
    other host does not (as Scrapy's redirect middleware drops it)."""
    site = f"Basic {base64.b64encode(b'site:hdr-pass').decode()}"
    got: dict[str, str] = {}

    def record(host: str, then: Route) -> Any:
        def handler(request: Any) -> Route:
            got[host] = request.getHeader("authorization") or ""
            return then

        return handler

    target = server.url("/rules.txt", "b.test")
    moved = Route(status=301, headers={**HTML, "Location": target})
    server.route("*", headers=HTML)
    server.handle("/robots.txt", record("a.test", moved), host="a.test")
    server.handle("/rules.txt", record("b.test", Route(body=RULES, headers=HTML)), host="b.test")
    urls = [server.url("/a", "a.test"), server.url("/private/x", "a.test")]
    crawler = await crawl(_spider(urls, {}, {"Authorization": site}))
    assert crawler.spider.crawled == [urls[0]]
    assert got == {"a.test": site, "b.test": ""}
