"""A real HTTP server on 127.0.0.1 for the middleware tests, running in the test's reactor.

One :class:`Server` listens on an ephemeral port and serves many virtual hosts (by ``Host``
header, or by absolute URI when used as an HTTP proxy), so a test can have dozens of origins
(``http://a.test:PORT``, ``http://b.test:PORT``...) without dozens of sockets. Routes can
answer any status with any headers and body, or delay, hang, reset the connection, or cut
the transfer short. Every hit is counted, so a test can assert "robots.txt fetched exactly
once" and "no disallowed URL was ever fetched".

:class:`LoopbackResolver` resolves ``*.test`` and ``localhost`` to 127.0.0.1 and fails every
other name, so no test can ever reach a non-loopback address.
"""

from __future__ import annotations

import socket
import struct
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest
from twisted.internet import defer, error, task
from twisted.internet.interfaces import IResolverSimple
from twisted.web import resource, server
from twisted.web.server import Request
from zope.interface import implementer  # type: ignore[import-untyped]


@dataclass
class Route:
    """How to answer one (host, path): a status with headers and body, or a misbehaviour."""

    status: int = 200
    body: bytes = b"<html><body>ok</body></html>"
    #: A list value sends the header once per item (``X-Robots-Tag`` twice, say).
    headers: dict[str, str | list[str]] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    hang: bool = False  # never answer (until the client gives up or the server stops)
    reset: bool = False  # abort the connection with a TCP RST
    truncate: bool = False  # announce more bytes than sent, then close
    #: "HTTP/1.0" or "HTTP/1.1": answer with that status line, no Content-Length and no
    #: chunking, the body ending when the server closes the connection (RFC 9112 6.3).
    close_delimited: str = ""


Handler = Callable[[Request], Route]


class _Root(resource.Resource):
    isLeaf = True

    def __init__(self, owner: Server) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.owner = owner

    def render(self, request: Request) -> bytes | int:
        return self.owner._render(request)


class Server:
    """Virtual-host HTTP server; ``routes[(host or None, path)]`` picks the answer."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str | None, str], Route | Handler] = {}
        self.hits: Counter[tuple[str, str]] = Counter()
        self.log: list[tuple[float, str, str]] = []
        # Requests received and not yet answered, per path, and the most ever at once.
        self.inflight: Counter[str] = Counter()
        self.max_inflight: Counter[str] = Counter()
        self.port = 0
        self._listening: Any = None
        self._calls: list[Any] = []
        self._open: set[Any] = set()

    # -- set-up ------------------------------------------------------------------------
    def start(self) -> Server:
        from twisted.internet import reactor

        site = server.Site(_Root(self))  # type: ignore[no-untyped-call]
        site.noisy = False
        reactor_any: Any = reactor
        self._listening = reactor_any.listenTCP(0, site, interface="127.0.0.1")
        self.port = self._listening.getHost().port
        return self

    async def stop(self) -> None:
        for call in self._calls:
            if call.active():
                call.cancel()
        for request in list(self._open):
            request.transport.abortConnection()
        if self._listening is not None:
            await defer.maybeDeferred(self._listening.stopListening)

    def route(self, path: str, host: str | None = None, **kwargs: Any) -> Route:
        route = Route(**kwargs)
        self.routes[(host, path)] = route
        return route

    def handle(self, path: str, handler: Handler, host: str | None = None) -> None:
        self.routes[(host, path)] = handler

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def origin(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}"

    def count(self, path: str, host: str | None = None) -> int:
        if host is None:
            return sum(n for (_, p), n in self.hits.items() if p == path)
        return self.hits[(host, path)]

    def paths(self, host: str | None = None) -> list[str]:
        return [p for _, h, p in self.log if host is None or h == host]

    # -- serving -----------------------------------------------------------------------
    def _where(self, request: Any) -> tuple[str, str]:
        uri = request.uri.decode("latin-1")
        if uri.startswith(("http://", "https://")):  # proxy request: absolute URI
            parts = urlsplit(uri)
            host = (parts.hostname or "").lower()
            path = parts.path or "/"
            if parts.query:
                path += "?" + parts.query
            return host, path
        host_header = (request.getHeader("host") or "").lower()
        host = host_header.rsplit(":", 1)[0] if not host_header.startswith("[") else host_header
        return host, uri

    def _render(self, request: Any) -> bytes | int:
        host, path = self._where(request)
        self.hits[(host, path)] += 1
        self.log.append((time.monotonic(), host, path))
        self.inflight[path] += 1
        if self.inflight[path] > self.max_inflight[path]:
            self.max_inflight[path] = self.inflight[path]

        def _done(_: Any, path: str = path) -> None:
            self.inflight[path] -= 1

        request.notifyFinish().addBoth(_done)
        spec = (
            self.routes.get((host, path))
            or self.routes.get((None, path))
            or self.routes.get((host, "*"))
            or self.routes.get((None, "*"))
            or Route()
        )
        route = spec(request) if callable(spec) else spec
        if route.reset:
            handle = request.transport.getHandle()
            handle.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            request.transport.abortConnection()
            return server.NOT_DONE_YET
        if route.hang:
            self._open.add(request)
            request.notifyFinish().addBoth(lambda _: self._open.discard(request))
            return server.NOT_DONE_YET
        if route.delay > 0:
            from twisted.internet import reactor

            self._open.add(request)
            reactor_any: Any = reactor
            call = reactor_any.callLater(route.delay, self._answer, request, route)
            self._calls.append(call)

            def _gone(_: Any) -> None:
                self._open.discard(request)
                if call.active():
                    call.cancel()

            request.notifyFinish().addBoth(_gone)
            return server.NOT_DONE_YET
        self._answer(request, route)
        return server.NOT_DONE_YET

    def _answer(self, request: Any, route: Route) -> None:
        if request.finished or request.channel is None:
            return
        if route.close_delimited:
            head = f"{route.close_delimited} {route.status} Whatever\r\n"
            head += "".join(f"{k}: {v}\r\n" for k, v in route.headers.items())
            if route.close_delimited == "HTTP/1.1":
                head += "Connection: close\r\n"
            request.transport.write(head.encode("latin-1") + b"\r\n" + route.body)
            request.transport.loseConnection()
            return
        request.setResponseCode(route.status)
        for name, value in route.headers.items():
            if isinstance(value, list):
                for item in value:
                    request.responseHeaders.addRawHeader(name, item)
            else:
                request.setHeader(name, value)
        if route.truncate:
            request.setHeader("content-length", str(len(route.body) + 1000))
            request.write(route.body)
            request.transport.loseConnection()
            return
        request.setHeader("content-length", str(len(route.body)))
        request.write(route.body)
        request.finish()


@implementer(IResolverSimple)
class LoopbackResolver:
    """Resolve ``*.test``, ``localhost`` and 127.0.0.1 to 127.0.0.1; fail everything else."""

    def getHostByName(self, name: str, timeout: Any = ()) -> defer.Deferred[str]:
        lowered = name.lower().rstrip(".")
        if lowered == "localhost" or lowered.endswith(".test") or lowered == "127.0.0.1":
            return defer.succeed("127.0.0.1")
        return defer.fail(error.DNSLookupError(f"{name} is not a test host"))


class Streamer:
    """A route handler that sends ``body`` in paced chunks, like a slow big download, and
    records how much it sent and whether the client closed the connection first."""

    def __init__(
        self,
        body: bytes,
        chunk: int = 65_536,
        pause: float = 0.005,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.body = body
        self.headers = headers or {}
        self.chunk = chunk
        self.pause = pause
        self.sent = 0
        self.disconnected = False
        self.completed = False

    def __call__(self, request: Any) -> Route:
        request.setResponseCode(200)
        request.setHeader("content-type", "text/plain")
        request.setHeader("content-length", str(len(self.body)))
        for name, value in self.headers.items():
            request.setHeader(name, value)
        request.notifyFinish().addCallbacks(self._finished, self._lost)
        self._next(request)
        return Route(hang=True)  # the server leaves the answer to us

    def _finished(self, _: Any) -> None:
        self.completed = True

    def _lost(self, _: Any) -> None:
        self.disconnected = True

    def _next(self, request: Any) -> None:
        if self.disconnected or self.completed:
            return
        if self.sent >= len(self.body):
            request.finish()
            return
        piece = self.body[self.sent : self.sent + self.chunk]
        request.write(piece)
        self.sent += len(piece)
        from twisted.internet import reactor

        reactor_any: Any = reactor
        reactor_any.callLater(self.pause, self._next, request)

    async def wait_disconnected(self, timeout: float = 5.0) -> None:
        from twisted.internet import reactor

        waited = 0.0
        while not self.disconnected and not self.completed and waited < timeout:
            await task.deferLater(reactor, 0.02, lambda: None)
            waited += 0.02



# -- crawling helpers ------------------------------------------------------------------------
#: The crawls of hundreds of origins: pytest-xdist (``--dist loadgroup``) runs them on
#: one worker, one after another, so two never share the cores (docs/development.md).
BIG_CRAWL = pytest.mark.xdist_group("big-crawls")

#: Settings every middleware test starts from: our add-on on, fast ticks, no retries of
#: robots.txt by Scrapy's RetryMiddleware (so fetch counts are exact), no telnet, and the
#: machinery's stats, which many tests read (the quiet default is
#: tests/crawl/test_stat_writer.py's).
BASE_SETTINGS: dict[str, Any] = {
    "ADDONS": {"scrapy_gbot_robots.Addon": 0},
    "ROBOTSTXT_OBEY": True,
    "USER_AGENT": "Mozilla/5.0 (compatible; TestBot/1.0; +http://bot.test/)",
    "GBOT_ROBOTS_TICK": 0.05,
    "GBOT_ROBOTS_RETRY_TIMES": 0,
    "GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 5,
    "RETRY_ENABLED": False,
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
    "LOG_LEVEL": "DEBUG",
    "CONCURRENT_REQUESTS": 16,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    "DOWNLOAD_DELAY": 0,
    "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    "GBOT_ROBOTS_DIAGNOSTIC_STATS": True,
    # Safety net: a broken build must fail a test, never hang the suite.
    "CLOSESPIDER_TIMEOUT": 60,
}


def make_spider(name: str = "list", **attrs: Any) -> type:
    """A spider class that requests ``urls`` and records what was crawled, failed or dropped
    (``parked_request_dropped``: url and reason)."""
    import scrapy

    from scrapy_gbot_robots import signals

    class ListSpider(scrapy.Spider):
        urls: ClassVar[list[str]] = []
        custom_settings = {}  # noqa: RUF012 - Scrapy reads it from the class

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.crawled: list[str] = []
            self.failed: list[tuple[str, str]] = []
            self.dropped: list[tuple[str, str]] = []

        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(spider.on_dropped, signal=signals.parked_request_dropped)
            return spider

        def on_dropped(self, request: Any, spider: Any, reason: str) -> None:
            self.dropped.append((request.url, reason))

        async def start(self) -> Any:
            for url in self.urls:
                yield self.make_request(url)

        def start_requests(self) -> Any:  # Scrapy < 2.13
            for url in self.urls:
                yield self.make_request(url)

        def make_request(self, url: str, **kwargs: Any) -> Any:
            return scrapy.Request(url, callback=self.parse, errback=self.on_error, **kwargs)

        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            return None

        def on_error(self, failure: Any) -> None:
            self.failed.append((failure.request.url, type(failure.value).__name__))

    attrs.setdefault("name", name)
    return type(f"{name.title()}Spider", (ListSpider,), attrs)


async def crawl(spider_cls: type, settings: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """Run one crawl to completion in the test's reactor; return its Crawler."""
    from scrapy.crawler import CrawlerRunner

    merged = {**BASE_SETTINGS, **(settings or {})}
    runner = CrawlerRunner(merged)
    crawler = runner.create_crawler(spider_cls)
    await crawler.crawl(**kwargs)
    return crawler


def stop_as_ctrl_c(crawler: Any) -> None:
    """Stop a crawl as Ctrl-C does (``CrawlerProcess`` stops each crawler: a graceful pause
    with ``JOBDIR``), on any supported Scrapy: ``stop_async()`` from 2.14, ``stop()`` before."""
    from scrapy.utils.defer import deferred_from_coro

    stop_async = getattr(crawler, "stop_async", None)
    if stop_async is not None:
        deferred_from_coro(stop_async())
    else:  # Scrapy < 2.14
        crawler.stop()


class FakeClock:
    """An injectable clock (``GBOT_ROBOTS_CLOCK``) that tests move by hand."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __deepcopy__(self, memo: Any) -> FakeClock:
        return self  # Scrapy deep-copies settings; the test must keep the crawler's clock

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


Step = tuple[float, Callable[[Any], None]]


def make_timeline_spider(steps: list[Step], name: str = "timeline", **attrs: Any) -> type:
    """A spider that also runs ``steps`` (delay after the previous step, action(spider)).

    It stays open until the last step ran, so steps can move a fake clock and inject new
    requests with ``spider.inject(url, ...)`` while the crawl is running.
    """
    import scrapy
    from scrapy import signals
    from scrapy.exceptions import DontCloseSpider
    from twisted.internet import reactor

    base = make_spider(name, **attrs)

    class TimelineSpider(base):  # type: ignore[misc,valid-type]
        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            spider.steps_left = len(steps)
            spider.step_errors = []
            crawler.signals.connect(spider.on_idle, signal=signals.spider_idle)
            crawler.signals.connect(spider.on_opened, signal=signals.spider_opened)
            return spider

        def on_opened(self, spider: Any) -> None:
            self._run_step(0)

        def _run_step(self, index: int) -> None:
            if index >= len(steps):
                return
            delay, action = steps[index]

            def run() -> None:
                try:
                    action(self)
                except Exception as exc:  # surfaced by the test through step_errors
                    self.step_errors.append(exc)
                self.steps_left -= 1
                if index + 1 < len(steps):
                    self._run_step(index + 1)
                else:  # wake the engine so it notices it is idle now
                    self.crawler.engine.crawl(
                        scrapy.Request("data:,done", callback=self.parse, dont_filter=True)
                    )

            reactor_any: Any = reactor
            reactor_any.callLater(delay, run)

        def on_idle(self, spider: Any) -> None:
            if self.steps_left:
                raise DontCloseSpider

        def inject(self, url: str, **kwargs: Any) -> None:
            self.crawler.engine.crawl(self.make_request(url, **kwargs))

        def parse(self, response: Any) -> Any:
            if not response.url.startswith("data:"):
                self.crawled.append(response.url)
            return None

    return TimelineSpider


def middleware_of(crawler: Any) -> Any:
    """The GoogleRobotsTxtMiddleware instance of a crawler."""
    from scrapy_gbot_robots import GoogleRobotsTxtMiddleware

    for mw in crawler.engine.downloader.middleware.middlewares:
        if isinstance(mw, GoogleRobotsTxtMiddleware):
            return mw
    raise AssertionError("GoogleRobotsTxtMiddleware is not installed")
