"""The path projects name in ``DOWNLOADER_MIDDLEWARES`` (the class is in ``crawl.middleware``)."""

from __future__ import annotations

from ._meta import FETCH_META
from .crawl.middleware import GoogleRobotsTxtMiddleware

__all__ = ["FETCH_META", "GoogleRobotsTxtMiddleware"]
