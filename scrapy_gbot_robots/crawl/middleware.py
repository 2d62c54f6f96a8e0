"""The Scrapy adapter: each hook is one line in front of the crawl's :mod:`.coordinator`.

It has the shape of scrapy-zyte-api's session middleware: a crawler and one coordinator,
built whole by :mod:`.wiring`. How a request travels is told in the coordinator's module
docstring and in docs/usage.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _userlog
from .._compat import fail_bootstrap
from .._meta import FETCH_META
from .._settings import ConfigError
from . import wiring

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response
    from typing_extensions import Self

    from ..engine.rules import Tokens
    from ..policy.states import OriginState
    from .coordinator import Coordinator

__all__ = ["FETCH_META", "GoogleRobotsTxtMiddleware"]


class GoogleRobotsTxtMiddleware:
    """Downloader middleware obeying robots.txt as Googlebot does; install it via ``Addon``."""

    def __init__(self, crawler: Crawler, coordinator: Coordinator) -> None:
        self._crawler = crawler
        self._coordinator = coordinator

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        _userlog.install()
        try:
            return cls(crawler, wiring.build(crawler))
        except ConfigError:
            fail_bootstrap(crawler)  # the crawl stops before any request, exit status 1
            raise

    def process_request(self, request: Request, spider: Spider | None = None) -> Any:
        return self._coordinator.check(request)

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        return self._coordinator.answered(request, response)

    # -- the documented helpers (docs/usage.md) -----------------------------------------------
    @property
    def token(self) -> Tokens:
        """The crawler-wide product token (or tokens, most specific first)."""
        return self._coordinator.token

    def origin_state(self, url: str) -> OriginState | None:
        """The remembered robots.txt state of ``url``'s origin (None when unknown)."""
        return self._coordinator.origin_state(url)

    def sitemaps(self, url: str) -> tuple[str, ...]:
        """Sitemap URLs of the robots.txt in force for ``url``'s origin (empty if none yet)."""
        return self._coordinator.sitemaps(url)
