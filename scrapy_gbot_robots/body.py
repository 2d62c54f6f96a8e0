"""The path projects name in ``DOWNLOADER_MIDDLEWARES``; the class lives in :mod:`.crawl.body`."""

from __future__ import annotations

from .crawl.body import (
    BODY_ERROR_FLAG,
    TRUNCATED_FLAG,
    RobotsBodyError,
    RobotsBodyMiddleware,
)

__all__ = ["BODY_ERROR_FLAG", "TRUNCATED_FLAG", "RobotsBodyError", "RobotsBodyMiddleware"]
