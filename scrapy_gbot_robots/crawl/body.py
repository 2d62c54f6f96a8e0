"""Bound and decode robots.txt bodies while they download, as Google does.

Google reads the first 500 KiB (``GBOT_ROBOTS_MAX_BYTES``) of a robots.txt whatever its
size or Content-Encoding. :class:`RobotsBodyMiddleware` sits between Scrapy's
``HttpCompressionMiddleware`` (590) and the downloader (the add-on installs it at 595), so
it sees our robots.txt responses raw. For those requests only (``FETCH_META`` in meta) it
decodes the body chunk by chunk from the ``headers_received`` / ``bytes_received`` signals
and stops the download (``StopDownload(fail=False)``) as soon as ``max_bytes`` of decoded
content are in hand, so a 1 GiB file or a gzip bomb costs about ``max_bytes`` of memory
and never trips Scrapy's own size limits (an ``IgnoreRequest`` would have read as "no
restrictions"). The response then carries the decoded body, no Content-Encoding and, when
content was cut, the ``gbot_robots_truncated`` flag.

A 2xx body that cannot be decoded raises :class:`RobotsBodyError` (the fetch is a server
error, never "allow all"). For other statuses Google ignores the body, so a broken one is
only flagged (``gbot_robots_body_error``) and never turns a 404 into a server error.
Every other request and response passes untouched after one dict lookup.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import NotConfigured, StopDownload

from .._compat import fail_bootstrap
from .._meta import FETCH_META
from .._settings import ConfigError, load
from ..policy.decode import BodyDecoder, DecodedBody, RobotsBodyError, supported_encodings

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

__all__ = ["BODY_ERROR_FLAG", "TRUNCATED_FLAG", "RobotsBodyError", "RobotsBodyMiddleware"]

logger = logging.getLogger(__name__)

#: Response flag: decoded content existed beyond ``max_bytes`` (or reading stopped early).
TRUNCATED_FLAG = "gbot_robots_truncated"
#: Response flag: a non-2xx body could not be decoded (its body is what was decoded, if any).
BODY_ERROR_FLAG = "gbot_robots_body_error"

_STOPPED = "download_stopped"  # Scrapy's flag for a StopDownload(fail=False) response
#: Scrapy's flag for a cut transfer with DOWNLOAD_FAIL_ON_DATALOSS=False (not "partial", which
#: a complete body delimited by the connection's close also gets).
DATALOSS_FLAG = "dataloss"


def _content_encoding(headers: Any) -> str | None:
    values = headers.getlist(b"Content-Encoding") if headers else []
    return b",".join(values).decode("latin-1") if values else None


class RobotsBodyMiddleware:
    """Downloader middleware bounding and decoding our own robots.txt responses."""

    def __init__(self, crawler: Crawler) -> None:
        try:
            config = load(crawler.settings.get)
        except ConfigError:
            fail_bootstrap(crawler)
            raise
        if not config.obey:
            raise NotConfigured
        self.max_bytes: int = config.policy.max_bytes
        self._decoders: WeakKeyDictionary[Request, BodyDecoder] = WeakKeyDictionary()
        self._lengths: WeakKeyDictionary[Request, int] = WeakKeyDictionary()  # Content-Length
        self._supported = frozenset(supported_encodings()) | {"x-gzip", "identity"}
        crawler.signals.connect(self._headers_received, signal=signals.headers_received)
        crawler.signals.connect(self._bytes_received, signal=signals.bytes_received)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    # -- signals: decode while downloading -------------------------------------------------
    def _headers_received(self, headers: Any, request: Request, **kwargs: Any) -> None:
        if FETCH_META in request.meta:
            self._decoders[request] = BodyDecoder(_content_encoding(headers), self.max_bytes)
            length = headers.get(b"Content-Length") if headers else None
            if length and length.isdigit():
                self._lengths[request] = int(length)

    def _bytes_received(self, data: bytes, request: Request, **kwargs: Any) -> None:
        if not self._decoders:
            return
        decoder = self._decoders.get(request)
        if decoder is not None and decoder.feed(data):
            # A raw prefix cut here must not be stored by HttpCacheMiddleware (it sees the
            # response before we do): replayed, it would read as a broken stream. A transfer
            # that had all its announced bytes is whole, and kept.
            expected = self._lengths.pop(request, None)
            if expected is None or decoder.raw_bytes < expected:
                request.meta["dont_cache"] = True
            raise StopDownload(fail=False)

    # -- downloader middleware ---------------------------------------------------------------
    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        """Ask only for codings we can decode: Scrapy may offer one we cannot (old brotli)."""
        if FETCH_META not in request.meta:
            return
        header = request.headers.get(b"Accept-Encoding")
        if not header:
            return
        items = [item.strip() for item in header.decode("latin-1").split(",")]
        kept = [i for i in items if i.split(";")[0].strip().lower() in self._supported]
        if len(kept) != len(items):
            # Never drop the header: without one, any coding would be acceptable (RFC 9110).
            request.headers[b"Accept-Encoding"] = ", ".join(kept or ["identity"])

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        if FETCH_META not in request.meta:
            return response
        decoder = self._decoders.pop(request, None)
        self._lengths.pop(request, None)
        stopped = _STOPPED in response.flags
        if decoder is None or (not stopped and decoder.raw_bytes != len(response.body)):
            # No signals (HttpCacheMiddleware, another handler): decode the stored body.
            decoder = BodyDecoder(_content_encoding(response.headers), self.max_bytes)
            body = memoryview(response.body)
            for start in range(0, len(body), 65_536):
                if decoder.feed(bytes(body[start : start + 65_536])):
                    break
        result = decoder.finish(complete=not stopped)
        if (
            result.error is None
            and DATALOSS_FLAG in response.flags
            and len(result.body) < self.max_bytes
        ):
            result = DecodedBody(
                result.body, error=f"transfer cut after {len(response.body)} bytes (dataloss)"
            )
        if result.error is not None:
            if 200 <= response.status < 300:
                raise RobotsBodyError(result.error)
            logger.debug("Undecodable body of %s ignored: %s", response, result.error)
        elif not decoder.codings and not result.truncated:
            return response  # the usual case: a plain body under the cap
        headers = response.headers.copy()
        headers.pop(b"Content-Encoding", None)
        headers.pop(b"Content-Length", None)
        flags = list(response.flags)
        if result.error is not None:
            flags.append(BODY_ERROR_FLAG)
        elif result.truncated:
            flags.append(TRUNCATED_FLAG)
        return response.replace(body=result.body, headers=headers, flags=flags)

    def process_exception(
        self, request: Request, exception: Exception, spider: Spider | None = None
    ) -> None:
        if FETCH_META in request.meta:
            self._decoders.pop(request, None)
            self._lengths.pop(request, None)
