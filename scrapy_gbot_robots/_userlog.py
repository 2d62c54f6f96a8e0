"""A bad setting is the user's mistake: show one clear ERROR line, not a traceback.

Scrapy builds middlewares inside the crawl task, so a ``ConfigError`` raised there reaches
the user as asyncio's "Task exception was never retrieved" (or Twisted's "Unhandled error in
Deferred") followed by some 35 lines of traceback, which reads like a crash of the plugin.
The exception itself is kept (the crawl stops before any request and ``scrapy crawl`` exits
with status 1); this filter only replaces how it is logged, and only for our own error type.
"""

from __future__ import annotations

import logging

from ._settings import ConfigError

logger = logging.getLogger("scrapy_gbot_robots")

_LOGGERS = ("asyncio", "twisted")


class _OneLineConfigError(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None:
            failure = getattr(record, "failure", None)  # Twisted's log events carry one
            exc = getattr(failure, "value", None)
        if not isinstance(exc, ConfigError):
            return True
        logger.error("Invalid setting: %s. The crawl stopped before any request.", exc)
        return False


_FILTER = _OneLineConfigError()


def install() -> None:
    """Attach the filter once per process (idempotent)."""
    for name in _LOGGERS:
        log = logging.getLogger(name)
        if _FILTER not in log.filters:
            log.addFilter(_FILTER)
