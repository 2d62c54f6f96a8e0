"""The audit report's files (``GBOT_ROBOTS_REPORT``), written once when the crawl closes.

Telemetry keeps the report's counters while the crawl runs (:mod:`..report.collector`); this
writes them, with the crawl's own facts, to every path the setting names, last in the
close so that every count is in. A file that cannot be written is logged, never fatal.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import _stats as S
from ..report.writer import write

if TYPE_CHECKING:
    from ..engine.rules import Tokens
    from ..report.collector import ReportCollector

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: The stats' 0.2 names, written beside the new ones until 0.4 (``_stats.OLD_NAMES``): the
#: report, whose schema changed since, shows each once.
_OLD_STATS = frozenset(S.OLD_NAMES.values())


class ReportFiles:
    """Writes the collector's report as JSON and/or HTML."""

    def __init__(
        self,
        collector: ReportCollector,
        stats: Any,
        paths: Sequence[str],
        *,
        tokens: Tokens,
        settings: Mapping[str, Any],
    ) -> None:
        self._collector = collector
        self._stats = stats
        self._paths = tuple(paths)
        self._tokens = [tokens] if isinstance(tokens, str) else list(tokens)
        self._settings = dict(settings)

    def write(self, spider_name: str, reason: str) -> None:
        """Every file, now (a pause writes them too); never raises."""
        stats = self._stats.get_stats()
        crawl = {
            "spider": spider_name,
            "finish_reason": reason,
            "tokens": self._tokens,
            "start_time": str(stats.get("start_time", "")),
            "stats": {
                k: v for k, v in stats.items() if k.startswith(S.PREFIX) and k not in _OLD_STATS
            },
            "settings": self._settings,
        }
        try:
            data = self._collector.to_json(crawl)
        except Exception:
            logger.exception("Could not build the robots.txt report")
            return
        for path in self._paths:
            try:
                write(data, path)
            except Exception as exc:
                logger.error(
                    "Could not write the robots.txt report %(path)s: %(error)s",
                    {"path": path, "error": exc},
                )
            else:
                logger.info(
                    "robots.txt report written to %(path)s", {"path": os.path.abspath(path)}
                )
