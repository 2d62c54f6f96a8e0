"""The robots.txt request's route and credentials: the way the request that wanted it goes.

A robots.txt request reaches its origin the way the request that made the fetch wanted would
(docs/meta.md#the-robotstxt-request): the same proxy and local address (``proxy`` and
``bindaddress`` meta), with the same credentials. Before 0.3.0 only the two meta keys came
along, so a proxy that needs a password answered 407 whenever the credentials were a header
(set by the spider, or by Scrapy's ``HttpProxyMiddleware`` on a request it had seen: a redirect
or a retry), and the fetch read the proxy's 407 as the origin's "no robots.txt".

What comes along, and why:

- ``Proxy-Authorization``: the proxy's credentials, whether the spider wrote the header or
  Scrapy's proxy middleware moved them there from ``meta["proxy"]``'s ``user:pass@``. The
  proxy middleware keeps the header only while the request goes through a proxy.
- ``http_user``, ``http_pass``, ``http_auth_domain``: the per-request HTTP authentication
  that Scrapy's ``HttpAuthMiddleware`` reads (:data:`.._compat.HTTPAUTH_READS_META`). Without a
  domain Scrapy sends them to every URL; here the domain defaults to the origin's host and
  port, so a robots.txt redirect to another host never carries them.
- ``Authorization`` (a header the spider set itself): sent to the origin's own URLs only,
  never to a redirect's other origin (Scrapy's redirect middleware drops it likewise).

A :class:`Route` never shows its secrets: its ``repr`` names only the keys it carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .._meta import AUTH_META, ROUTE_META
from ..policy.origin import origin_of

PROXY_AUTHORIZATION = b"Proxy-Authorization"
AUTHORIZATION = b"Authorization"


@dataclass(frozen=True, slots=True, repr=False)
class Route:
    """What a robots.txt request of ``origin`` takes from the request that wanted it."""

    origin: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[bytes, bytes] = field(default_factory=dict)
    authorization: bytes | None = None  # the origin's own URLs only

    def __repr__(self) -> str:
        names = [*self.meta, *(h.decode("latin-1") for h in self.headers)]
        if self.authorization is not None:
            names.append("Authorization")
        return f"Route({', '.join(sorted(names))}; credentials hidden)"

    def apply(self, url: str, meta: dict[str, Any], headers: dict[bytes, bytes]) -> None:
        """Add the route's meta keys and headers to a request for ``url`` (one hop)."""
        meta.update(self.meta)
        headers.update(self.headers)
        if self.authorization is not None and origin_of(url) == self.origin:
            headers[AUTHORIZATION] = self.authorization


def route_of(url: str, meta: Mapping[str, Any], headers: Any) -> Route:
    """The route of a request (its URL, meta and Scrapy ``Headers``); never raises."""
    taken = {key: meta[key] for key in ROUTE_META if key in meta}
    if meta.get("http_user") or meta.get("http_pass"):
        taken.update((key, meta[key]) for key in AUTH_META if key in meta)
        taken["http_auth_domain"] = meta.get("http_auth_domain") or _netloc(url)
    carried: dict[bytes, bytes] = {}
    proxy_auth = _header(headers, PROXY_AUTHORIZATION)
    if proxy_auth is not None:
        carried[PROXY_AUTHORIZATION] = proxy_auth
    return Route(origin_of(url), taken, carried, _header(headers, AUTHORIZATION))


def proxy_named(proxy: object) -> str:
    """A proxy URL as a log line may show it: scheme, host and port, never its userinfo."""
    if not isinstance(proxy, str):
        return "a proxy"
    try:
        parts = urlsplit(proxy)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "a proxy"
    scheme = f"{parts.scheme}://" if parts.scheme else ""
    return f"{scheme}{host}{port}" if host else "a proxy"


def _netloc(url: str) -> str | None:
    """Host and port, as Scrapy's ``url_is_from_any_domain`` compares them."""
    try:
        return urlsplit(url).netloc.rpartition("@")[2].lower() or None
    except ValueError:
        return None


def _header(headers: Any, name: bytes) -> bytes | None:
    if not headers:
        return None
    value = headers.get(name)
    return bytes(value) if value else None
