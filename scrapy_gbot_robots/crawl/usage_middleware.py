"""``GBOT_ROBOTS_USAGE``: one usage answer per response, and responses that refuse a use withheld.

:class:`UsageMiddleware` is a spider middleware (the add-on installs it at 62, after
``HttpErrorMiddleware`` and the page rules' middleware), built only when
``GBOT_ROBOTS_USAGE`` or ``GBOT_ROBOTS_USAGE_META`` is set (else ``NotConfigured``: Google
reads none of these, and a crawl without them pays nothing).

For each response a callback would get, ``process_spider_input`` combines what applies to
its URL (:mod:`..preferences.answer`): robots.txt's statements in force (the check put them
in ``gbot_robots_usage``), the ``Content-Usage`` header, and TDMRep's file (the entry
``crawl/tdmrep_middleware.py`` found), header and meta (the meta only in an HTML page), and
puts the answer per category, each with its sources, in
``response.meta["gbot_robots_usage_answer"]``.  robots.txt's refusals already forbade the
request before its download (``crawl/verdicts.py``); a response whose **header or meta**
refuses one of the crawl's uses is not handed to its callback: counted
(``robotstxt/usage/withheld``), logged at DEBUG, signalled (``response_withheld``), and
refused with :class:`UsageWithheld` (an ``IgnoreRequest``: an errback gets it, as for a
forbidden request).  Nothing else is withheld; never in observe mode, nor for a request
with ``dont_obey_robotstxt``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Response

from .._compat import fail_bootstrap
from .._meta import DONT_OBEY, TDMREP_META, USAGE_ANSWER_META, USAGE_META
from .._settings import ConfigError
from ..preferences.answer import (
    RESPONSE_SOURCES,
    Answer,
    answer,
    from_header,
    from_robots,
    from_tdm,
)
from ..preferences.tdmrep import TdmStatement, combine, from_headers, from_meta
from .shared_parts import Shared, shared

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

__all__ = ["UsageMiddleware", "UsageWithheld", "usage_answer"]

#: The crawl's uses (GBOT_ROBOTS_USAGE) as the vocabulary's categories; ``ai-input`` has
#: none (only robots.txt's Content-Signal names it, and the check obeys that).
_CATEGORY = {"ai-train": "train-ai", "train-ai": "train-ai", "search": "search"}


class UsageWithheld(IgnoreRequest):
    """A response's header or meta refuses one of the crawl's uses: no callback gets it."""


def usage_answer(response: Response, robots: Any = None) -> Answer:
    """The usage answer for ``response``: robots.txt's preferences in force (``robots``, a
    ``Usage.as_json()``, else what the check put in its meta), its headers and its meta."""
    meta = response.meta if response.request is not None else {}
    statements = robots if robots is not None else meta.get(USAGE_META)
    prefs = statements.get("preferences", []) if isinstance(statements, dict) else []
    headers = response.headers
    html = response.body if isinstance(response, HtmlResponse) else None
    tdm = combine(
        _file_statement(meta.get(TDMREP_META)),  # crawl/tdmrep_middleware.py put it there
        from_headers(headers.getlist(b"tdm-reservation"), headers.getlist(b"tdm-policy")),
        from_meta(html) if html else None,
    )
    return answer(
        from_robots(prefs), from_header(headers.getlist(b"Content-Usage")), from_tdm(tdm)
    )


def _file_statement(found: Any) -> TdmStatement | None:
    """The tdmrep.json entry the TDMRep middleware found for the request, if any."""
    if not isinstance(found, dict):
        return None
    return TdmStatement(
        bool(found.get("reserved")), str(found.get("policy", "")), "tdmrep.json",
        str(found.get("where", "")),
    )


class UsageMiddleware:
    """Spider middleware: the usage answer in each response's meta; see the module doc."""

    def __init__(self, parts: Shared) -> None:
        self._parts = parts  # held: the robots.txt middleware may find the shared parts here
        self.observe = parts.config.observe
        self.categories = tuple(
            dict.fromkeys(_CATEGORY[u] for u in parts.config.usage if u in _CATEGORY)
        )
        self.telemetry = parts.telemetry.requests

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        try:
            parts = shared(crawler)
        except ConfigError:
            fail_bootstrap(crawler)
            raise
        config = parts.config
        if not (config.usage or config.usage_meta):
            raise NotConfigured
        return cls(parts)

    def process_spider_input(self, response: Response, spider: Any = None) -> None:
        request = response.request
        if request is None:
            return
        found = usage_answer(response)
        request.meta[USAGE_ANSWER_META] = found.as_json()
        if self.observe or request.meta.get(DONT_OBEY):
            return
        for category in self.categories:
            refusal = found.refusal(category)
            if refusal is not None and refusal.source in RESPONSE_SOURCES:
                self.telemetry.usage_withheld(
                    request, response, category, refusal.source, refusal.where
                )
                raise UsageWithheld(
                    f"Withheld from the callback: the response's {refusal.source} refuses "
                    f"{category} ({refusal.where})"
                )

    def process_spider_exception(
        self, response: Response, exception: Exception, spider: Any = None
    ) -> Iterable[Any] | None:
        """A withheld response without an errback ends here, quietly (counted already)."""
        if isinstance(exception, UsageWithheld):
            return []
        return None
