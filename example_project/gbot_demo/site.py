"""The demo site, served on 127.0.0.1 from inside the crawl so the demo needs no network.

Two origins (two ephemeral ports): the main site, whose robots.txt exercises Google's
precedence rules, and a "flaky" site whose robots.txt answers 503 once before it
answers 200, so its requests are parked until the retry decides them.
"""

from __future__ import annotations

from typing import Any

from twisted.web.resource import Resource
from twisted.web.server import Site

#: Line numbers matter: the report quotes the deciding line of each forbidden URL.
MAIN_ROBOTS_TXT = """\
# robots.txt of the demo site, read the way Googlebot reads it.
# The crawler's token is "DemoBot" (from USER_AGENT "DemoBot/1.0 ...").

User-agent: *
Disallow: /                 # ignored: a group below names DemoBot

User-agent: demobot         # tokens match case-insensitively
Disallow: /shop/
Allow: /shop/catalog/       # the longest matching rule wins
Disallow: /media
Allow: /*.jpg               # as long as "/media": on a tie, Allow wins
Disallow: /*.pdf$           # "$" anchors the end: /guide.pdf?page=2 is fine
Disallow: /private/
Allow: /private/index.html  # Google also allows the directory /private/ itself
Disalow: /tmp/              # a typo Google accepts
Disallowed: /drafts/        # keys match by prefix: this is a Disallow too
"""

#: What the flaky site answers on its first robots.txt request.
FLAKY_FIRST_STATUS = 503
FLAKY_FIRST_BODY = "Service Unavailable: try again in a second\n"

FLAKY_ROBOTS_TXT = """\
# robots.txt of the flaky site (the first request for it got a 503).
User-agent: *
Disallow: /archive/
"""

MAIN_PAGES = (
    "/about.html",
    "/shop/cart.html",
    "/shop/catalog/",
    "/shop/catalog/lamp.html",
    "/media/cat.jpg",
    "/media/cat.png",
    "/guide.pdf",
    "/guide.pdf?page=2",
    "/private/",
    "/private/index.html",
    "/private/keys.html",
    "/tmp/scratch.html",
    "/drafts/plan.html",
)
FLAKY_PAGES = ("/news/today.html", "/archive/2019.html")


def _content_type(path: str) -> bytes:
    if path.endswith(".jpg"):
        return b"image/jpeg"
    if path.endswith(".png"):
        return b"image/png"
    if path.endswith(".pdf"):
        return b"application/pdf"
    return b"text/html; charset=utf-8"


class _Origin(Resource):
    """One origin: robots.txt, a home page linking to every page, and leaf pages."""

    isLeaf = True

    def __init__(self, robots_txt: str, pages: tuple[str, ...], links: list[str]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.robots_txt = robots_txt.encode()
        self.pages = {p.partition("?")[0] for p in pages}
        self.links = links
        self.robots_hits = 0

    def render_GET(self, request: Any) -> bytes:  # a twisted.web.server.Request
        path = request.path.decode()
        if path == "/robots.txt":
            self.robots_hits += 1
            return self.render_robots(request)
        if path == "/":
            request.setHeader(b"Content-Type", b"text/html; charset=utf-8")
            items = "".join(f'<li><a href="{u}">{u}</a></li>' for u in self.links)
            return f"<html><body><h1>Demo home</h1><ul>{items}</ul></body></html>".encode()
        if path in self.pages:
            request.setHeader(b"Content-Type", _content_type(path))
            return f"<html><body>page {path}</body></html>".encode()
        request.setResponseCode(404)
        return b"not found"

    def render_robots(self, request: Any) -> bytes:
        request.setHeader(b"Content-Type", b"text/plain; charset=utf-8")
        return self.robots_txt


class _FlakyOrigin(_Origin):
    """Answers robots.txt with a 503 the first time, the file afterwards."""

    def render_robots(self, request: Any) -> bytes:
        if self.robots_hits == 1:
            request.setResponseCode(FLAKY_FIRST_STATUS)
            request.setHeader(b"Retry-After", b"1")
            request.setHeader(b"Content-Type", b"text/plain; charset=utf-8")
            return FLAKY_FIRST_BODY.encode()
        return super().render_robots(request)


class _QuietSite(Site):
    """A Site without access logs, so the crawl log stays readable."""

    def log(self, request: Any) -> None:
        pass


class DemoSite:
    """Both origins of the demo, listening on 127.0.0.1 only, on ephemeral ports."""

    def __init__(self) -> None:
        self._ports: list[Any] = []  # twisted IListeningPort
        self.main_url = ""
        self.flaky_url = ""

    def start(self) -> None:
        from twisted.internet import reactor as _reactor

        reactor: Any = _reactor  # Scrapy installed it; typed loosely, as Twisted's is
        quiet_site: Any = _QuietSite
        flaky = _FlakyOrigin(FLAKY_ROBOTS_TXT, FLAKY_PAGES, [])
        flaky_port = reactor.listenTCP(0, quiet_site(flaky), interface="127.0.0.1")
        self._ports.append(flaky_port)
        self.flaky_url = f"http://127.0.0.1:{flaky_port.getHost().port}"
        links = list(MAIN_PAGES) + [self.flaky_url + p for p in FLAKY_PAGES]
        main = _Origin(MAIN_ROBOTS_TXT, MAIN_PAGES, links)
        main_port = reactor.listenTCP(0, quiet_site(main), interface="127.0.0.1")
        self._ports.append(main_port)
        self.main_url = f"http://127.0.0.1:{main_port.getHost().port}"

    async def stop(self) -> None:
        from scrapy.utils.defer import maybe_deferred_to_future

        for port in self._ports:
            stopped = port.stopListening()
            if stopped is not None:
                await maybe_deferred_to_future(stopped)
        self._ports.clear()
