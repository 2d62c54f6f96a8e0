"""The 0.2-era path of the page-rules spider middleware, kept for one release (to 0.4.0).

The middleware lives in :mod:`.page_rules_middleware` (the name says what the module holds:
:mod:`..page.rules` reads the rules, this one is Scrapy's side). A project whose
``SPIDER_MIDDLEWARES`` names this module's ``PageRulesMiddleware`` still gets it, with a
``ScrapyDeprecationWarning`` naming the new path; so does any other name this module had.
"""

from __future__ import annotations

import warnings
from typing import Any

from scrapy.exceptions import ScrapyDeprecationWarning

from . import page_rules_middleware

_OLD = "scrapy_gbot_robots.crawl.page_rules"
_NEW = "scrapy_gbot_robots.crawl.page_rules_middleware"


def __getattr__(name: str) -> Any:
    if name not in page_rules_middleware.__all__:
        raise AttributeError(f"module {_OLD!r} has no attribute {name!r}")
    warnings.warn(
        f"{_OLD}.{name} is deprecated and will be removed in 0.4.0: use {_NEW}.{name}",
        ScrapyDeprecationWarning,
        stacklevel=2,
    )
    return getattr(page_rules_middleware, name)
