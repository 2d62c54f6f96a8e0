"""``/.well-known/tdmrep.json``, fetched once per origin when the crawl's uses make it matter.

:class:`TdmRepMiddleware` is a downloader middleware (the add-on places it just after the
robots.txt middleware), built only when ``GBOT_ROBOTS_USAGE`` names AI training
(``ai-train`` or ``train-ai``), the one category a TDM reservation speaks to; otherwise
``NotConfigured``, and nothing is fetched.

A request whose origin's file is unknown waits (its ``process_request`` awaits) for one
fetch of the file per origin, through Scrapy's engine and downloader (the other
middlewares, the download slots), with robots.txt's bounds: ``GBOT_ROBOTS_DOWNLOAD_TIMEOUT``
and 500 KiB (``GBOT_ROBOTS_MAX_BYTES``). A missing, refused or broken file, or a download
that fails while the crawl runs, is "no reservation" (the final report's rule), never a
stopped crawl. Each answer is kept by :class:`~.tdmrep_store.TdmRepFiles`: in memory
(``GBOT_ROBOTS_STORE_SIZE`` origins) and in the robots.txt store's SQLite file or Redis when
there is one, until it expires (``Cache-Control: max-age``, else ``GBOT_ROBOTS_TTL``; a failed
fetch ``GBOT_ROBOTS_RETRY_BACKOFF``), so a restart, a resume or a fleet's other workers read
it instead of fetching it again (``robotstxt/tdmrep/read_back``; one fetch lock per file).
The first entry whose location matches the URL decides (:mod:`..preferences.tdmrep`): a
reservation forbids the request before its download (``IgnoreRequest``, counted as
``robotstxt/tdmrep/forbidden``, logged at DEBUG); either way the file's statement is put in
``gbot_robots_tdmrep`` for the usage answer. Requests with ``dont_obey_robotstxt`` are not
checked; observe mode forbids nothing.

The close: a download that fails while the crawl closes (the close waits for it, at most
``GBOT_ROBOTS_DOWNLOAD_TIMEOUT``) is no answer, never "no reservation": the requests that
waited for it are never downloaded. Without ``JOBDIR`` they are dropped
(``robotstxt/dropped``, a WARNING, ``parked_request_dropped``, ``IgnoreRequest`` to the
errback); with it they go back to Scrapy's scheduler (``robotstxt/persisted``), whose disk
queue keeps them for the next run. The answers fetched before the close are kept by the
store (an SQLite file, ``JOBDIR``'s by default, or Redis): the next run reads them while they
are fresh; with the memory store it fetches each origin's file again once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from .._compat import crawl_started, engine_accepts_requests, engine_download
from .._meta import DONT_OBEY, TDMREP_META
from ..policy.origin import origin_of
from ..preferences.tdmrep import WELL_KNOWN, match_file
from .shared_parts import shared
from .tdmrep_store import Entries, TdmRepFiles
from .wiring import lock_ttl, open_persistent

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: Marks the file's own request, which is not checked.
_OWN = "gbot_robots_tdmrep_fetch"
_TRAINING = frozenset({"ai-train", "train-ai"})
#: The drop reason of a request whose origin's file the close left unread.
_CUT = "the crawl closed before its origin's tdmrep.json was read"


class TdmRepMiddleware:
    """Downloader middleware: each origin's ``tdmrep.json``, fetched once and obeyed."""

    def __init__(
        self, crawler: Crawler, files: TdmRepFiles, *, timeout: float, max_bytes: int
    ) -> None:
        parts = shared(crawler)
        self._parts = parts  # held: the other middlewares may find the shared parts here
        self.crawler = crawler
        self.observe = parts.config.observe
        self.telemetry = parts.telemetry.requests
        self.timeout, self.max_bytes = timeout, max_bytes
        self.files = files
        #: Per origin whose file is being fetched: one Deferred per request waiting for it
        #: (Twisted's, so any reactor will do; each is awaited as Scrapy awaits Deferreds).
        self.pending: dict[str, list[Deferred[Entries | None]]] = {}
        self._started = crawl_started(crawler)  # `scrapy shell`: only the spider's close counts
        self._jobdir = bool(crawler.settings.get("JOBDIR"))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        parts = shared(crawler)
        config = parts.config
        if not _TRAINING & set(config.usage):
            raise NotConfigured
        persistent = open_persistent(config, crawler)  # the robots.txt store's file or Redis
        files = TdmRepFiles(
            size=config.memory_size,
            persistent=persistent,
            clock=config.clock,
            policy=config.policy,
            lock_ttl=lock_ttl(config, persistent),
            on_read=parts.telemetry.requests.tdmrep_read_back,
        )
        crawler.signals.connect(files.close, signal=signals.spider_closed)
        return cls(
            crawler, files, timeout=config.download_timeout, max_bytes=config.policy.max_bytes
        )

    async def process_request(self, request: Request, spider: Any = None) -> Request | None:
        meta = request.meta
        if meta.get(_OWN) or meta.get(DONT_OBEY):
            return None
        origin = origin_of(request.url)
        if origin is None:
            return None
        entries = await self._entries(origin)
        if entries is None:  # the close cut the fetch short: no answer, never "no reservation"
            if self._jobdir:  # back to the scheduler, whose disk queue keeps it for the next run
                self.telemetry.tdmrep_kept(request, origin)
                return request.replace(dont_filter=True)  # the dupefilter has seen it
            self.telemetry.tdmrep_dropped(request, origin, _CUT)
            raise IgnoreRequest(f"Dropped: {_CUT}")
        path = request.url[len(origin) :] or "/"
        statement = match_file(entries, path.partition("#")[0])
        if statement is None:
            return None
        meta[TDMREP_META] = statement.as_json()
        if statement.reserved and not self.observe:
            self.telemetry.tdmrep_forbidden(request, statement.where)
            raise IgnoreRequest(
                f"Forbidden by tdmrep.json ({statement.where}): TDM rights reserved"
            )
        return None

    async def _entries(self, origin: str) -> Entries | None:
        found = self.files.get(origin)
        if found is not None:
            return found
        waiting = self.pending.get(origin)
        if waiting is None:
            self.pending[origin] = waiting = []
            # An earlier run's answer, another worker's, else a fetch of ours.
            entries = await self.files.find(origin, lambda: self._fetch(origin))
            del self.pending[origin]
            for other in waiting:
                other.callback(entries)
            return entries
        mine: Deferred[Entries | None] = Deferred()
        waiting.append(mine)
        return await maybe_deferred_to_future(mine)

    async def _fetch(self, origin: str) -> Entries | None:
        """One download of the file, kept (:class:`TdmRepFiles`); anything but a readable 2xx
        says nothing, except a download that fails while the crawl closes: None, no answer
        at all, not kept."""
        request = Request(
            origin + WELL_KNOWN,
            meta={
                _OWN: True,
                DONT_OBEY: True,  # a policy file, read as robots.txt itself is
                "download_timeout": self.timeout,
                "download_maxsize": self.max_bytes,
                "dont_redirect": False,
            },
            dont_filter=True,
            priority=1000,
        )
        engine = self.crawler.engine
        try:
            response = await engine_download(engine, request)
        except Exception as exc:
            self.telemetry.tdmrep_fetched(origin, f"failed ({type(exc).__name__})", 0)
            if not engine_accepts_requests(self.crawler, crawl_started=self._started):
                return None
            return self.files.put(origin, None)  # kept briefly: fetched again soon
        cache_control = response.headers.get(b"Cache-Control")
        entries = self.files.put(
            origin,
            response.status,
            response.body,
            cache_control.decode("latin-1") if cache_control else None,
        )
        self.telemetry.tdmrep_fetched(origin, f"HTTP {response.status}", len(entries))
        return entries
