"""``ADDONS = {"scrapy_gbot_robots.Addon": 0}``: the one-line switch to Google's robots.txt.

It disables Scrapy's built-in ``RobotsTxtMiddleware`` and puts ours at the priority the
built-in had (100 unless the project moved it), plus ``RobotsBodyMiddleware`` at 595, just
inside ``HttpCompressionMiddleware`` (590), where it sees robots.txt responses raw to bound
and decode them, ``NetworkErrorsMiddleware`` at 580, whose ``process_exception`` runs before
Scrapy's retry (550), so a page's network error counts toward the back-off, and the spider
middleware ``PageRulesMiddleware`` at 60, which reads robots meta tags and ``X-Robots-Tag``
only with ``GBOT_ROBOTS_PAGE_RULES`` (else it is not built).
Parking needs no spider middleware: the downloader middleware parks requests from the
engine's ``request_scheduled`` signal, which every scheduled request passes (start
requests, callback output, redirects, retries). ``ROBOTSTXT_OBEY`` keeps its Scrapy meaning.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

from ._components import (
    BODY,
    NETWORK_ERRORS,
    OURS,
    PAGE_RULES,
    TDMREP,
    USAGE,
    path_of,
    spellings,
)

logger = logging.getLogger("scrapy_gbot_robots")

BUILTIN = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
_DEFAULT_PRIORITY = 100
#: Between HttpCompressionMiddleware (590) and the downloader: its process_response sees
#: robots.txt responses before they are decompressed.
BODY_PRIORITY = 595
#: Between RetryMiddleware (550) and HttpProxyMiddleware (750): its process_exception runs
#: before the retry's (Scrapy calls them from the highest priority down), so a page's network
#: error reaches the back-off (crawl/network_errors_middleware.py).
NETWORK_ERRORS_PRIORITY = 580
#: The spider middleware of GBOT_ROBOTS_PAGE_RULES (``PAGE_RULES``) goes just after
#: HttpErrorMiddleware (50): see crawl/page_rules_middleware.py.
PAGE_RULES_PRIORITY = 60
#: The spider middleware of GBOT_ROBOTS_USAGE (``USAGE``), just after the page rules'.
USAGE_PRIORITY = 62


def _is(component: Any, path: str) -> bool:
    return path_of(component) in spellings(path)


class Addon:
    """Scrapy add-on replacing the built-in robots.txt middleware with ours."""

    def update_settings(self, settings: BaseSettings) -> None:
        from . import _userlog

        _userlog.install()
        base = settings.getdict("DOWNLOADER_MIDDLEWARES_BASE")
        mws = settings.getdict("DOWNLOADER_MIDDLEWARES")
        priority: int | None = None
        for table in (base, mws):  # the project's own value wins over the base one
            for component, value in table.items():
                if _is(component, BUILTIN) and value is not None:
                    priority = int(value)
        for component, value in mws.items():  # ours placed explicitly: keep that place
            if _is(component, OURS) and value is not None:
                priority = int(value)
        for component in list(mws):
            if _is(component, BUILTIN) or _is(component, OURS):
                del mws[component]
        mws[BUILTIN] = None
        mws[OURS] = _DEFAULT_PRIORITY if priority is None else priority
        if not any(_is(c, TDMREP) for c in mws):  # just after ours: robots.txt decides first
            mws[TDMREP] = mws[OURS] + 1
        if not any(_is(c, NETWORK_ERRORS) for c in mws):  # a project's own placement wins
            mws[NETWORK_ERRORS] = NETWORK_ERRORS_PRIORITY
        placed = [v for c, v in mws.items() if _is(c, BODY)]  # a project's own placement wins
        if not placed:
            mws[BODY] = BODY_PRIORITY
        body = placed[0] if placed else BODY_PRIORITY  # None: the middleware says what it costs
        logger.info(
            "scrapy-gbot-robots add-on: robots.txt is handled by %(ours)s (priority %(p)d) "
            "instead of Scrapy's RobotsTxtMiddleware, with RobotsBodyMiddleware (priority "
            "%(body)s); ROBOTSTXT_OBEY=%(obey)s",
            {
                "ours": "GoogleRobotsTxtMiddleware",
                "p": mws[OURS],
                "body": "disabled" if body is None else body,
                "obey": settings.getbool("ROBOTSTXT_OBEY"),
            },
        )
        current = settings.getpriority("DOWNLOADER_MIDDLEWARES") or 0
        settings.set("DOWNLOADER_MIDDLEWARES", mws, priority=current)
        spider_mws = settings.getdict("SPIDER_MIDDLEWARES")
        added = False
        for path, priority in ((PAGE_RULES, PAGE_RULES_PRIORITY), (USAGE, USAGE_PRIORITY)):
            if not any(_is(c, path) for c in spider_mws):  # a project's own placement wins
                spider_mws[path] = priority
                added = True
        if added:
            current = settings.getpriority("SPIDER_MIDDLEWARES") or 0
            settings.set("SPIDER_MIDDLEWARES", spider_mws, priority=current)
