"""A bad setting is the user's mistake: show one clear ERROR line, not a traceback.

Scrapy builds middlewares inside the crawl task, so a ``ConfigError`` raised there reaches
the user as asyncio's "Task exception was never retrieved" (or Twisted's "Unhandled error in
Deferred") followed by some 35 lines of traceback, which reads like a crash of the plugin.
The exception itself is kept (the crawl stops before any request and ``scrapy crawl`` exits
with status 1); this filter only replaces how it is logged, and only for our own error type.
The line goes through :func:`._redact.redacted`: a bad store URL never shows its password.
"""

from __future__ import annotations

import logging

from ._compat import UNHANDLED_IN_DEFERRED, drop_from_twisted_stderr_printer
from ._redact import redacted
from ._settings import ConfigError

logger = logging.getLogger("scrapy_gbot_robots")

_LOGGERS = ("asyncio", "twisted")


class _OneLineConfigError(logging.Filter):
    """Our error as one line. Twisted logs "Unhandled error in Deferred:" as a record of its
    own just before the failure: it is held until that next record says whose it is."""

    def __init__(self) -> None:
        super().__init__()
        self._held: logging.LogRecord | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        held, self._held = self._held, None
        header = record.name == "twisted" and not record.exc_info
        if header and record.getMessage().strip() == UNHANDLED_IN_DEFERRED:
            self._held = record
            return False
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None:
            failure = getattr(record, "failure", None)  # Twisted's log events carry one
            exc = getattr(failure, "value", None)
        if not isinstance(exc, ConfigError):
            if held is not None:  # not ours: shown as it would have been, in its place
                logging.getLogger(held.name).callHandlers(held)
            return True
        logger.error(
            "Invalid setting: %s. The crawl stopped before any request.", redacted(exc)
        )
        return False


_FILTER = _OneLineConfigError()


def install() -> None:
    """Attach the filter once per process (idempotent).

    Also keep our error's traceback out of Twisted's own stderr printer, which writes an
    "Unhandled error in Deferred" (a bad setting on a reactor other than asyncio's) before
    any ``logging`` filter sees it (:func:`._compat.drop_from_twisted_stderr_printer`).
    """
    for name in _LOGGERS:
        log = logging.getLogger(name)
        if _FILTER not in log.filters:
            log.addFilter(_FILTER)
    drop_from_twisted_stderr_printer(ConfigError)
