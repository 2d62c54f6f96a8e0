"""Whether a request about to be parked should be parked at all: the dupefilter and offsite.

The scheduler asks its dupefilter when a request enters it; a parked request has not
entered it yet, so it is asked here, at park time: duplicates of a parked request are not
parked twice, and a parked request passes the dupefilter once when released (``SEEN``).
Scrapy's ``OffsiteMiddleware`` also listens to ``request_scheduled``, and signal handlers
cannot see each other's verdicts: a request it will drop is let through to it, never
parked, or its site's robots.txt would be fetched for nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.http import Request

from .._meta import SEEN

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware


class Admission:
    """The dupefilter and offsite checks of the crawl's own components, built when the spider
    opens (:class:`~.wiring.Opener`: the scheduler and the downloader's chain are known)."""

    __slots__ = ("_crawler", "_dupefilter", "_offsite")

    def __init__(
        self, crawler: Crawler, offsite: OffsiteMiddleware | None, dupefilter: Any
    ) -> None:
        self._crawler = crawler
        self._offsite = offsite
        self._dupefilter = dupefilter

    def admit(self, item: object) -> bool:
        """Whether to park ``item``: new to the dupefilter (then marked seen), and on site."""
        if not isinstance(item, Request) or item.dont_filter:
            return True
        if self._offsite_drops(item):
            return False
        df = self._dupefilter
        if df is None:
            return True
        if df.request_seen(item):
            return False  # a duplicate: the scheduler drops and logs it as usual
        item.meta[SEEN] = True
        return True

    def _offsite_drops(self, request: Request) -> bool:
        offsite, spider = self._offsite, self._crawler.spider
        if offsite is None or spider is None or request.meta.get("allow_offsite"):
            return False
        try:
            return not offsite.should_follow(request, spider)
        except Exception:  # a custom should_follow we do not understand: assume it follows
            return False
