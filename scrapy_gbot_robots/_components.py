"""The import paths of our Scrapy components, and every other spelling a project may write.

The add-on places them in ``DOWNLOADER_MIDDLEWARES``; the crawl looks for them in the chain
the downloader builds (whether ``RobotsBodyMiddleware`` is really there). Pure: strings only.
"""

from __future__ import annotations

from typing import Any

OURS = "scrapy_gbot_robots.crawl.middleware.GoogleRobotsTxtMiddleware"
BODY = "scrapy_gbot_robots.crawl.body.RobotsBodyMiddleware"
#: The spider middleware of GBOT_ROBOTS_PAGE_RULES (robots meta tags, X-Robots-Tag); it
#: disables itself (NotConfigured, silently) when the setting is "off".
PAGE_RULES = "scrapy_gbot_robots.crawl.page_rules_middleware.PageRulesMiddleware"
#: The spider middleware of GBOT_ROBOTS_USAGE (a response's usage answer, and withholding
#: what refuses the crawl's uses); it disables itself when no usage setting is on.
USAGE = "scrapy_gbot_robots.crawl.usage_middleware.UsageMiddleware"
#: The downloader middleware fetching and obeying tdmrep.json (GBOT_ROBOTS_USAGE naming AI
#: training); it disables itself otherwise.
TDMREP = "scrapy_gbot_robots.crawl.tdmrep_middleware.TdmRepMiddleware"

#: The downloader middleware telling a page's network error to the back-off, placed between
#: RetryMiddleware (550) and the proxy's (750); it disables itself when the back-off is off.
NETWORK_ERRORS = "scrapy_gbot_robots.crawl.network_errors_middleware.NetworkErrorsMiddleware"

#: Every other spelling of the same classes: the package-level re-export, the public module
#: path projects name in ``DOWNLOADER_MIDDLEWARES`` (where the classes lived in 0.2.0), and a
#: module path deprecated in 0.3.0 (it still imports, with a warning: crawl/page_rules.py).
_ALIASES = {
    OURS: {
        "scrapy_gbot_robots.GoogleRobotsTxtMiddleware",
        "scrapy_gbot_robots.middleware.GoogleRobotsTxtMiddleware",
    },
    BODY: {
        "scrapy_gbot_robots.RobotsBodyMiddleware",
        "scrapy_gbot_robots.body.RobotsBodyMiddleware",
    },
    PAGE_RULES: {
        "scrapy_gbot_robots.PageRulesMiddleware",
        "scrapy_gbot_robots.crawl.page_rules.PageRulesMiddleware",
    },
}


def spellings(path: str) -> frozenset[str]:
    """Every import path a project may write for one of our components."""
    return frozenset({path, *_ALIASES.get(path, ())})


def path_of(component: Any) -> str:
    """A component as ``DOWNLOADER_MIDDLEWARES`` may hold it (a path or a class), as a path."""
    if isinstance(component, str):
        return component
    return f"{component.__module__}.{component.__qualname__}"
