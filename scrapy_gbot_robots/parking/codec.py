"""Parked requests as bytes, in Scrapy's own disk-queue format, for the SQLite and Redis lots.

``Request.to_dict()`` pickled with protocol 4, as Scrapy's ``PickleFifoDiskQueue`` stores
them, so a request that Scrapy's ``JOBDIR`` queues can keep, our lots can keep too, and the
0.2.0 rows stay readable. ``dumps`` raises ``ValueError`` for what cannot be kept (the lot then
keeps it in memory for this run); ``loads`` never raises: it returns :class:`Unreadable`, so
the owner can count and report it as dropped.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy.http import Request
from scrapy.utils.request import request_from_dict

if TYPE_CHECKING:
    from scrapy import Spider


class Unreadable:
    """A parked request that could not be read back (reported as dropped)."""

    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error


class RequestCodec:
    """Request <-> bytes for one spider (callbacks are stored by name, as Scrapy does)."""

    def __init__(
        self,
        spider: Callable[[], Spider | None],
        on_unserializable: Callable[[Request, Exception], None],
    ) -> None:
        self._spider = spider
        self._on_unserializable = on_unserializable

    def dumps(self, item: Any) -> bytes:
        """Scrapy's disk-queue format; ``ValueError`` for what stays in memory."""
        if not isinstance(item, Request):
            raise ValueError("kept in memory")
        try:
            return pickle.dumps(item.to_dict(spider=self._spider()), protocol=4)
        except (ValueError, TypeError, AttributeError, pickle.PicklingError) as exc:
            self._on_unserializable(item, exc)
            raise ValueError(str(exc)) from exc

    def loads(self, data: bytes) -> Request | Unreadable:
        try:
            request: Request = request_from_dict(pickle.loads(data), spider=self._spider())
        except Exception as exc:  # a callback the spider no longer has, a corrupt row
            return Unreadable(f"{type(exc).__name__}: {exc}")
        return request
