"""``GBOT_ROBOTS_PAGE_RULES``: a page's robots meta tags and ``X-Robots-Tag``, read and obeyed.

:class:`PageRulesMiddleware` is a spider middleware (the add-on installs it at
:data:`PRIORITY`, just after Scrapy's ``HttpErrorMiddleware``):

* **read** (``"read"``, ``"obey"``, or observe mode): ``process_spider_input`` reads each
  response a callback gets with :func:`~..page.rules.read_page_rules` (its ``X-Robots-Tag``
  headers; the head of an HTML page), for the request's token(s) (``gbot_robots_token``,
  else the crawler's, as for robots.txt), and puts the :class:`~..page.rules.PageRules` in
  ``response.meta["gbot_robots_page_rules"]``. Responses Scrapy filters before a callback
  (an HTTP error without ``handle_httpstatus_*``) are not read: no page reached the spider.
* **obey** (``"obey"``, not in observe mode): the requests a callback yields from a page
  whose rules say ``nofollow`` are dropped, each counted, logged at DEBUG with the page and
  the rule's source, and signalled (``request_dropped_nofollow``); one whose meta has
  ``dont_obey_robotstxt`` is kept (and counted). Items always pass. What an **errback**
  yields is never dropped: no page was read for it (a download error has no page; an HTTP
  error is filtered before this middleware reads), so there is nothing to obey, even if the
  request's meta carries a page's rules copied from another response. ``rel="nofollow"``
  links are a hint to Google, not a rule, and are not read here (that would take a scan of
  every whole body); ``gbot-robots inspect`` counts them for one page.

"off" costs nothing: the middleware is not built (``NotConfigured``). Neither is it with
``ROBOTSTXT_OBEY = False``, which turns the plugin off: a ``GBOT_ROBOTS_PAGE_RULES`` set
then is said to be ignored in one WARNING (docs/crawling.md). "read" adds one
``process_spider_input`` call per page; only "obey" has a ``process_spider_output``.

The events (stats, the DEBUG line, the signal, the report's counters) are the crawl's one
telemetry's (:mod:`.telemetry`), which this middleware shares with the robots.txt
middleware, with the settings and the request keys (:mod:`.shared_parts`): one stats home
and one report, whichever of the two Scrapy builds first.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request, Response

from .._compat import fail_bootstrap
from .._meta import DONT_OBEY, PAGE_RULES_META, VERDICT_META
from .._settings import ConfigError
from ..engine.rules import Tokens
from ..page.rules import PageRules, read_page_rules
from .shared_parts import Shared, shared

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self


__all__ = ["PRIORITY", "PageRulesMiddleware", "page_rules"]

#: The middleware's place in ``SPIDER_MIDDLEWARES``: after ``HttpErrorMiddleware`` (50) on
#: the way in, so it reads only what a callback gets; before every other built-in on the way
#: out, so it drops only requests the others (depth, URL length) let through.
PRIORITY = 60

logger = logging.getLogger("scrapy_gbot_robots.middleware")


def page_rules(response: Any, tokens: Tokens | None = None) -> PageRules | None:
    """The page rules of ``response``, for an item pipeline or a callback.

    What the middleware put in ``response.meta``; when it read nothing (the setting is off,
    or the response never reached a callback, as a media pipeline's downloads), the rules
    for ``tokens`` read now, or None when no tokens are given.
    """
    try:
        found = response.meta.get(PAGE_RULES_META)
    except AttributeError:  # a response with no request
        found = None
    if isinstance(found, PageRules):
        return found
    if tokens is None:
        return None
    body = response.body if isinstance(response, HtmlResponse) else None
    return read_page_rules(tokens, response.headers.getlist(b"X-Robots-Tag"), body)


def _say_ignored_without_robots(value: Any) -> None:
    """``ROBOTSTXT_OBEY = False`` turns the whole plugin off, page rules too (the token, the
    stats and the report hang on it): one WARNING when page rules were asked for."""
    if value in (None, "") or (isinstance(value, str) and value.strip().lower() == "off"):
        return
    logger.warning(
        "GBOT_ROBOTS_PAGE_RULES = %(value)r is ignored: ROBOTSTXT_OBEY is False, which turns "
        "scrapy-gbot-robots off, page rules included (no page rule is read, no nofollow "
        "obeyed). Set ROBOTSTXT_OBEY = True to obey them, or read a page's rules in a "
        "callback with scrapy_gbot_robots.page_rules(response, TOKEN).",
        {"value": value},
    )


class PageRulesMiddleware:
    """Spider middleware reading (and with ``"obey"``, obeying) page rules; see the module doc.

    Built by :meth:`from_crawler` as this class ("read") or :class:`_ObeyingMiddleware`
    ("obey"), so that "read" has no ``process_spider_output`` at all.
    """

    def __init__(self, parts: Shared) -> None:
        #: Held here: the robots.txt middleware may find them through this one (see
        #: :mod:`.shared_parts`).
        self._parts = parts
        self.clock = parts.config.clock
        self.observe = parts.config.observe
        self.keys = parts.keys
        self.telemetry = parts.telemetry.requests

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        try:
            parts = shared(crawler)
        except ConfigError:
            fail_bootstrap(crawler)  # as the robots.txt middleware: stop before any request
            raise
        except NotConfigured:
            _say_ignored_without_robots(crawler.settings.get("GBOT_ROBOTS_PAGE_RULES"))
            raise
        if not parts.config.reads_page_rules:
            raise NotConfigured
        built = _ObeyingMiddleware if parts.config.obeys_page_rules else cls
        return built(parts)  # type: ignore[return-value]

    def process_spider_input(self, response: Response, spider: Any = None) -> None:
        request = response.request
        if request is None:
            return
        meta = request.meta
        rules = read_page_rules(
            self.keys.token_of(request),
            response.headers.getlist(b"X-Robots-Tag"),
            response.body if isinstance(response, HtmlResponse) else None,
        )
        meta[PAGE_RULES_META] = rules
        verdict = meta.get(VERDICT_META) if self.observe else None
        disallowed = (
            isinstance(verdict, dict)
            and verdict.get("allowed") is False
            and verdict.get("by") == "rules"
        )
        url = response.url
        origin = self.keys.origin(url) if self.telemetry.report is not None else ""
        self.telemetry.page_read(url, origin, rules, disallowed=disallowed, now=self.clock())
        self._read(response, rules)

    def _read(self, response: Response, rules: PageRules) -> None:
        """Hook for the obeying subclass: remember the pages whose links are not followed."""


class _ObeyingMiddleware(PageRulesMiddleware):
    """``"obey"``: also drops what a callback yields from a ``nofollow`` page."""

    def __init__(self, parts: Shared) -> None:
        super().__init__(parts)
        # The responses this middleware read and found nofollow: what an errback yields for
        # a response it did not read (or for a failed download) is never dropped.
        self._nofollow: weakref.WeakKeyDictionary[Response, PageRules] = (
            weakref.WeakKeyDictionary()
        )

    def _read(self, response: Response, rules: PageRules) -> None:
        if rules.nofollow:
            self._nofollow[response] = rules

    def _keep(self, item: Any, response: Response) -> bool:
        if not isinstance(item, Request):
            return True  # items, and anything else, always pass
        if item.meta.get(DONT_OBEY):
            self.telemetry.nofollow_kept()
            return True
        self.telemetry.nofollow_dropped(item, response, self.keys.origin(response.url))
        return False

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Any = None
    ) -> Iterable[Any]:
        if response not in self._nofollow:
            return result
        return (item for item in result if self._keep(item, response))

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Any = None
    ) -> AsyncIterator[Any]:
        if response not in self._nofollow:
            async for item in result:
                yield item
            return
        async for item in result:
            if self._keep(item, response):
                yield item
