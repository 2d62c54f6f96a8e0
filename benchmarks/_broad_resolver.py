"""The DNS resolver of ``bench_broad.py``: every ``*.broad.test`` name is 127.0.0.1, nothing else.

Each benchmark origin must be its own host name, so that Scrapy gives it its own download slot
and its own connection pool entry, as thousands of real sites would get; but nothing may leave
the machine. Scrapy lets a crawl replace its resolver (``TWISTED_DNS_RESOLVER``, called
``DNS_RESOLVER`` before Scrapy 2.15): this class has the shape of Scrapy's own
``scrapy.resolver.CachingThreadedResolver`` (``from_crawler(crawler, reactor)`` and
``install_on_reactor()``), implements Twisted's ``IResolverSimple``, answers ``*.broad.test`` at
once without a thread or a cache, and fails every other name with ``DNSLookupError``, so a stray
request (a typo, an absolute link) fails fast instead of reaching a real DNS server.

It counts its lookups: the HTTP/1.1 handler resolves once per new connection, so the count is
also the number of TCP connections the crawler opened.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from twisted.internet import defer
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IResolverSimple
from zope.interface import implementer  # type: ignore[import-untyped, unused-ignore]

#: The only names this resolver answers, all with ADDRESS.
SUFFIX = ".broad.test"
ADDRESS = "127.0.0.1"


@implementer(IResolverSimple)
class BroadResolver:
    """Resolves ``*.broad.test`` to 127.0.0.1 and fails every other name."""

    #: Lookups answered and refused in this process (one resolver per process).
    lookups = 0
    refused = 0

    def __init__(self, reactor: Any) -> None:
        self.reactor = reactor

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: Any) -> BroadResolver:
        # Scrapy passes the CrawlerProcess here, not a Crawler (every version); we need neither.
        return cls(reactor)

    def install_on_reactor(self) -> None:
        self.reactor.installResolver(self)

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> defer.Deferred[str]:
        if name.lower().rstrip(".").endswith(SUFFIX):
            BroadResolver.lookups += 1
            return defer.succeed(ADDRESS)
        BroadResolver.refused += 1
        return defer.fail(DNSLookupError(f"{name}: only *{SUFFIX} resolves in this benchmark"))


def resolver_setting() -> dict[str, str]:
    """The crawl setting that installs this resolver, under the name this Scrapy reads.

    Scrapy 2.15 renamed ``DNS_RESOLVER`` to ``TWISTED_DNS_RESOLVER`` and deprecates the old name.
    """
    from scrapy.settings import default_settings

    new = hasattr(default_settings, "TWISTED_DNS_RESOLVER")
    return {("TWISTED_DNS_RESOLVER" if new else "DNS_RESOLVER"): f"{__name__}.BroadResolver"}
