"""A page's network error counts toward its origin's back-off, as Googlebot counts it.

Google's "HTTP status codes, network and DNS errors" page: network timeouts, connection
resets and DNS errors are treated like ``5xx`` server errors, and crawling starts slowing
down at once on a network error. A failed download never reaches ``response_downloaded``
(how the coordinator hears pages' answers), and Scrapy's ``RetryMiddleware`` (550) turns the
exception into a retry before our robots.txt middleware (100) could see it. So
:class:`NetworkErrorsMiddleware` has one hook, ``process_exception``, at 580 (the add-on
places it; Scrapy calls ``process_exception`` from the highest priority down, so before the
retry): an exception of Scrapy's own list of retryable ones (``RETRY_EXCEPTIONS``) is told to
the coordinator through a private signal of the crawler's (:data:`.page_answers.PAGE_FAILED`)
and counts as one distress, as a ``503`` without ``Retry-After``. It returns None: Scrapy's
retry still retries, and the retry is parked by the back-off. A healthy page never calls it.

Which exceptions: the project's ``RETRY_EXCEPTIONS`` (a setting since Scrapy 2.10, so no
``_compat`` switch; 2.11's list names Twisted's errors, recent releases' name
``scrapy.exceptions``' ``Download*Error``, ``CannotResolveHostError``,
``ResponseDataLossError``: either way the list Scrapy retries), bar its bare ``OSError``
entry, which Scrapy lists for a body it cannot decompress, not a network error. The
coordinator ignores failures while the crawl closes (the close cuts downloads short) and
those of our own robots.txt and tdmrep.json requests, which have their own rules. Not built
(``NotConfigured``) when ``GBOT_ROBOTS_BACKOFF`` is off or our robots.txt middleware is not
in the chain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import load_object

from .._compat import body_middleware_enabled as enabled
from .._components import OURS, spellings
from .page_answers import PAGE_FAILED
from .shared_parts import Shared, shared

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request
    from scrapy.settings import BaseSettings
    from typing_extensions import Self

__all__ = ["NetworkErrorsMiddleware", "network_errors"]


def network_errors(settings: BaseSettings) -> tuple[type[BaseException], ...]:
    """The exception classes that count: ``RETRY_EXCEPTIONS``, its bare ``OSError`` aside."""
    listed = settings.getlist("RETRY_EXCEPTIONS")
    loaded = (load_object(e) if isinstance(e, str) else e for e in listed)
    return tuple(e for e in loaded if isinstance(e, type) and e is not OSError)


class NetworkErrorsMiddleware:
    """Downloader middleware: a page's network error tells its origin's back-off."""

    def __init__(
        self, crawler: Crawler, parts: Shared, errors: tuple[type[BaseException], ...]
    ) -> None:
        self._parts = parts  # held: the other middlewares may find the shared parts here
        self._send = crawler.signals.send_catch_log
        self.errors = errors

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not enabled(crawler.settings, spellings(OURS)):
            raise NotConfigured
        parts = shared(crawler)  # NotConfigured when robots.txt is not obeyed
        if not parts.config.backoff:
            raise NotConfigured
        return cls(crawler, parts, network_errors(crawler.settings))

    def process_exception(
        self, request: Request, exception: BaseException, spider: Any = None
    ) -> None:
        if isinstance(exception, self.errors):
            self._send(PAGE_FAILED, request=request, failure=type(exception).__name__)
