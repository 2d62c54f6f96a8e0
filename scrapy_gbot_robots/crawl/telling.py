"""What every family of the crawl's events tells through (:mod:`.telemetry`): the crawler's
stats (through :class:`.stat_writer.StatWriter`), its signals, the report, and whether DEBUG
lines can be seen; and the one logger they all write to."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydispatch import dispatcher  # type: ignore[import-untyped]

from .._compat import signal_sender
from .stat_writer import StatWriter

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from ..report.collector import ReportCollector

#: The logger named in the README and the docs (the middleware's historical module path).
logger = logging.getLogger("scrapy_gbot_robots.middleware")


class Telling:
    """What every family of events tells through: the crawler's stats and signals, the
    report, and whether DEBUG lines can be seen."""

    def __init__(
        self,
        crawler: Crawler,
        report: ReportCollector | None,
        debug: bool,
        *,
        diagnostic: bool = False,
    ) -> None:
        self.crawler = crawler
        #: GBOT_ROBOTS_DIAGNOSTIC_STATS: the machinery's stats are written too.
        self.stats = StatWriter(crawler.stats, diagnostic=diagnostic)
        self.report = report
        #: Per-request DEBUG lines cost a log record each (and a forbidden one a decide()):
        #: only when they can be seen. Scrapy filters LOG_LEVEL at its handler, not at our
        #: logger, so the wiring asks the setting.
        self.debug = debug

    @property
    def _spider(self) -> Spider | None:
        return self.crawler.spider

    def _extra(self) -> dict[str, Any]:
        return {"spider": self.crawler.spider}

    def listened(self, signal: object) -> bool:
        """Whether any handler is connected to ``signal`` for this crawler."""
        sender = signal_sender(self.crawler)
        return any(True for _ in dispatcher.getAllReceivers(sender, signal))

    def _send(self, signal: object, **kwargs: Any) -> None:
        self.crawler.signals.send_catch_log(signal=signal, spider=self._spider, **kwargs)
