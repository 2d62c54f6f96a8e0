"""A forwarding HTTP proxy on 127.0.0.1 that requires credentials, for the proxy tests.

It answers a request without the right ``Proxy-Authorization`` (Basic) with **407**, as a
real authenticating proxy does, and forwards every other one, absolute URI and all, to one
upstream server (the test :class:`~_httpserver.Server`, which serves virtual hosts by the URI
they name): a real hop, so what reaches the origin is what the proxy let through. A
``CONNECT`` without the right credentials is answered 407 too (Scrapy then raises its tunnel
error); with them, 501 (this proxy opens no tunnel). Every answer is counted.
"""

from __future__ import annotations

import base64
from collections import Counter
from typing import Any

from twisted.internet import defer
from twisted.web import http, proxy


class AuthProxy:
    """Listens on 127.0.0.1; ``refused`` counts the 407s per requested URI."""

    def __init__(self, upstream_port: int, user: str, password: str) -> None:
        self.upstream_port = upstream_port
        self.expected = b"Basic " + base64.b64encode(f"{user}:{password}".encode())
        self.refused: Counter[str] = Counter()
        self.forwarded: Counter[str] = Counter()
        self.port = 0
        self._listening: Any = None

    def url(self, credentials: str = "") -> str:
        """The proxy's URL for ``meta["proxy"]``, with ``user:pass@`` when given."""
        at = f"{credentials}@" if credentials else ""
        return f"http://{at}127.0.0.1:{self.port}"

    def start(self) -> AuthProxy:
        from twisted.internet import reactor

        owner = self

        class _Request(proxy.ProxyRequest):
            def process(self) -> None:
                owner._process(self)

        class _Channel(proxy.Proxy):
            requestFactory = _Request

        factory = http.HTTPFactory()
        factory.protocol = _Channel  # type: ignore[assignment]
        factory.noisy = False
        reactor_any: Any = reactor
        self._listening = reactor_any.listenTCP(0, factory, interface="127.0.0.1")
        self.port = self._listening.getHost().port
        return self

    async def stop(self) -> None:
        if self._listening is not None:
            await defer.maybeDeferred(self._listening.stopListening)

    def _process(self, request: Any) -> None:
        from twisted.internet import reactor

        uri = request.uri.decode("latin-1")
        if request.getHeader(b"proxy-authorization") != self.expected:
            self.refused[uri] += 1
            request.setResponseCode(407)
            request.setHeader(b"proxy-authenticate", b'Basic realm="test"')
            request.setHeader(b"content-length", b"0")
            request.finish()
            return
        if request.method == b"CONNECT":
            request.setResponseCode(501)
            request.setHeader(b"content-length", b"0")
            request.finish()
            return
        self.forwarded[uri] += 1
        headers = request.getAllHeaders().copy()
        headers.pop(b"proxy-authorization", None)
        headers.pop(b"proxy-connection", None)
        request.content.seek(0, 0)
        factory = proxy.ProxyClientFactory(  # type: ignore[no-untyped-call]
            request.method,
            request.uri,
            request.clientproto,
            headers,
            request.content.read(),
            request,
        )
        reactor_any: Any = reactor
        reactor_any.connectTCP("127.0.0.1", self.upstream_port, factory)
