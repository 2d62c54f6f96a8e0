"""Bounded, incremental Content-Encoding decoding of robots.txt bodies.

Google reads only the first ``max_bytes`` (500 KiB) of a robots.txt and obeys it whatever
its size or Content-Encoding. :class:`BodyDecoder` is fed the raw body chunk by chunk while
it downloads and keeps at most ``max_bytes`` decoded bytes plus one 64 KiB work buffer per
coding: every decompressor call has an output limit, so a compression bomb costs a few
hundred KiB instead of gigabytes, and the caller can stop the download once
:meth:`BodyDecoder.feed` returns True.

The principle: a size or decoding limit never becomes "no restrictions".

* Decoded content beyond ``max_bytes`` is dropped: ``truncated=True``, no error.
* Invalid compressed data is an error, and so is a transfer that completed while a
  compressed stream had not reached its end (truncated gzip), unless ``max_bytes`` were
  decoded before the problem: the first ``max_bytes`` are Google's answer then. (For br
  and zstd the output of the one call that failed, at most 64 KiB, is not recovered, as
  those bindings cannot be rewound; zlib's can, so gzip and deflate lose nothing.)
* An unknown or unsupported coding is an error: a body that cannot be read is a server
  error, never an empty (allow-all) file.
* ``raw_limit`` (default ``4 * max_bytes + 64 KiB``) bounds the raw bytes read for a stream
  that decodes to (almost) nothing, such as endless empty deflate blocks. Reaching it stops
  reading; what was decoded so far is the body (``truncated=True``), but if nothing at all
  was decoded it is an error, because an empty body would mean "allow all".
* An empty raw body is an empty file whatever the coding (there is no stream to check).
* Data after the end of a complete gzip or zstd stream is ignored unless it starts another
  gzip member or zstd frame, which is decoded too. Deflate ignores data after its end;
  brotli itself rejects it (an error).

Codings: ``identity``; ``gzip`` / ``x-gzip``; ``deflate`` (zlib-wrapped when the first two
bytes are a valid RFC 1950 header, raw deflate otherwise, which Scrapy and browsers accept
too); ``br`` with ``brotli`` or ``brotlicffi`` >= 1.2 (older bindings have no
``output_buffer_limit`` and cannot bound their output, so ``br`` is unsupported with them);
``zstd`` with ``compression.zstd`` (Python 3.14) or ``backports.zstd``, with the window
capped at 8 MiB as RFC 9659 and browsers do (a frame asking for more is invalid). A list
("gzip, br") was applied in that order and is decoded in reverse; names are
case-insensitive.

At most ``MAX_CODINGS`` (5) codings are decoded, with no recursion (one loop over the chain).
Google's 500 KiB rule needs no nesting at all, and servers send one coding, rarely two (a
proxy compressing a body the origin had compressed already); curl refuses more than 5 too
(CVE-2022-32206, and CVE-2023-23916 for a chain spread over several headers, which the caller
joins into one list). A longer chain is one body error, like any body that cannot be read
(for a 2xx: a server error), and nothing is decoded.

Pure: stdlib zlib plus the optional brotli / zstd modules; nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import importlib
import sys
import zlib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BodyDecoder", "DecodedBody", "RobotsBodyError", "supported_encodings"]

#: Output limit of every decompressor call, and the slice size raw input is fed in.
CHUNK = 65_536

#: Codings decoded at most in one Content-Encoding chain (identity not counted); see above.
MAX_CODINGS = 5

#: RFC 9659: a zstd Content-Encoding window is at most 8 MiB (browsers enforce it).
ZSTD_WINDOW_LOG_MAX = 23

_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_SKIPPABLE_TAIL = b"\x2a\x4d\x18"  # skippable frames: 0x184D2A50..5F, little-endian


class RobotsBodyError(Exception):
    """A robots.txt body could not be decoded; the fetch counts as a server error."""


@dataclass(frozen=True, slots=True)
class DecodedBody:
    """The outcome of decoding one body.

    ``body`` holds the first ``max_bytes`` decoded bytes (when ``error`` is set: what was
    decoded before the failure, not to be used as robots.txt). ``truncated`` says content
    existed beyond ``max_bytes`` or reading stopped before the end.
    """

    body: bytes = field(repr=False)
    truncated: bool = False
    error: str | None = None


def _load_brotli() -> Any:
    """brotli or brotlicffi, only if it can bound its output (>= 1.2), else None."""
    for name in ("brotli", "brotlicffi"):
        try:
            module = importlib.import_module(name)
            probe = module.Decompressor()
            probe.process(b"", output_buffer_limit=1)
            if not callable(getattr(probe, "can_accept_more_data", None)):
                continue
        except Exception:  # ImportError, or TypeError from an old binding's process()
            continue
        return module
    return None


def _load_zstd() -> Any:
    """The stdlib-style zstd module (decompressor with max_length / needs_input), or None."""
    names = (
        ("compression.zstd", "backports.zstd")
        if sys.version_info >= (3, 14)
        else ("backports.zstd",)
    )
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "ZstdDecompressor") and hasattr(module, "DecompressionParameter"):
            return module
    return None


_brotli: Any = _load_brotli()
_zstd: Any = _load_zstd()


def supported_encodings() -> tuple[str, ...]:
    """Codings this environment can decode, best first: for a robots request's Accept-Encoding."""
    names = ["gzip", "deflate"]
    if _brotli is not None:
        names.append("br")
    if _zstd is not None:
        names.append("zstd")
    return tuple(names)


class _Invalid(Exception):
    """Raised by a stage on invalid compressed data."""

    def __init__(self, stage: str, detail: str) -> None:
        super().__init__(detail)
        self.stage = stage


class _Stage:
    """One coding of the chain. ``put`` is only called after ``pull`` returned b"" (drained),
    so a stage never holds more than one chunk of input plus its codec's own state."""

    name: str = ""

    def __init__(self) -> None:
        self.fed = False  # received any input: a stage that got none decoded an empty body
        self._buf = b""

    def put(self, data: bytes) -> None:
        self.fed = True
        self._buf = self._buf + data if self._buf else data

    def pull(self, limit: int) -> bytes:
        """Up to about ``limit`` decoded bytes; b"" when more input is needed (or ended)."""
        raise NotImplementedError

    @property
    def ended(self) -> bool:
        """The stream reached its end (for the "truncated stream" check)."""
        raise NotImplementedError


def _inflate(d: Any, data: bytes, limit: int) -> tuple[bytes, str | None]:
    """``d.decompress(data, limit)``, keeping the output that precedes an error.

    zlib raises without returning what it inflated before the bad byte (a CRC mismatch
    loses a whole call's output), yet those bytes may complete ``max_bytes``. So a copy of
    the state is kept, and on error the same input is replayed byte by byte on it. The
    replay cannot hit ``limit``: the failing call stopped before filling its output.
    """
    snapshot = d.copy()
    try:
        return d.decompress(data, limit), None
    except zlib.error as exc:
        error = str(exc)
    out = bytearray()
    for i in range(len(data)):
        try:
            out += snapshot.decompress(data[i : i + 1], limit - len(out))
        except zlib.error:
            break
        if snapshot.unconsumed_tail or len(out) >= limit:  # pragma: no cover - see above
            break
    return bytes(out), error


class _Gzip(_Stage):
    """gzip members back to back (RFC 1952 allows several); zlib checks CRC and length."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self._d: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._more = False  # the last call filled its output: zlib may hold more
        self._members = 0
        self._ignore = False
        self._failure: str | None = None  # raised once the output before it was pulled

    def pull(self, limit: int) -> bytes:
        while True:
            if self._failure is not None:
                raise _Invalid(self.name, self._failure)
            if self._ignore:
                self._buf = b""
                return b""
            if self._d is None:  # between members: another one, or trailing garbage?
                if len(self._buf) < 2:
                    return b""
                if self._buf[:2] != _GZIP_MAGIC:
                    self._ignore = True
                    continue
                self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                self._more = False
            if not self._buf and not self._more:
                return b""
            out, self._failure = _inflate(self._d, self._buf, limit)
            if self._failure is not None:
                self._buf = b""
                if not out:
                    continue
                return out
            self._more = len(out) >= limit
            if self._d.eof:
                self._members += 1
                self._buf = self._d.unused_data
                self._d = None
                if not out:
                    continue
            else:
                self._buf = self._d.unconsumed_tail
            return out

    @property
    def ended(self) -> bool:
        return self._members > 0 and self._d is None


class _Deflate(_Stage):
    """HTTP "deflate": zlib-wrapped by the RFC, raw deflate from some servers."""

    name = "deflate"

    def __init__(self) -> None:
        super().__init__()
        self._d: Any = None
        self._more = False
        self._failure: str | None = None  # raised once the output before it was pulled

    def pull(self, limit: int) -> bytes:
        if self._failure is not None:
            raise _Invalid(self.name, self._failure)
        if self._d is None:
            if len(self._buf) < 2:
                return b""
            cmf, flg = self._buf[0], self._buf[1]
            wrapped = cmf & 0x0F == 8 and cmf >> 4 <= 7 and not flg & 0x20
            wrapped = wrapped and (cmf << 8 | flg) % 31 == 0
            self._d = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        if self._d.eof:
            self._buf = b""
            return b""
        if not self._buf and not self._more:
            return b""
        out, self._failure = _inflate(self._d, self._buf, limit)
        if self._failure is not None:
            self._buf = b""
            if not out:
                raise _Invalid(self.name, self._failure)
            return out
        self._more = len(out) >= limit
        self._buf = b"" if self._d.eof else self._d.unconsumed_tail
        return out

    @property
    def ended(self) -> bool:
        return self._d is not None and bool(self._d.eof)


class _Brotli(_Stage):
    """brotli with ``output_buffer_limit``; it buffers unconsumed input internally."""

    name = "br"

    def __init__(self) -> None:
        super().__init__()
        self._d: Any = _brotli.Decompressor()
        self._error: Any = getattr(_brotli, "error", Exception)
        self._more = False  # the last call filled its output: more may be pending

    def pull(self, limit: int) -> bytes:
        d = self._d
        if self._more or not d.can_accept_more_data():
            data = b""  # drain pending output first, as the binding requires
        elif d.is_finished():
            if self._buf:  # as brotli does for trailing data within one process() call
                self._buf = b""
                raise _Invalid(self.name, "data after the end of the stream")
            return b""
        elif self._buf:
            data, self._buf = self._buf, b""
        else:
            return b""
        try:
            out: bytes = d.process(data, output_buffer_limit=limit)
        except self._error as exc:
            raise _Invalid(self.name, str(exc)) from None
        self._more = len(out) >= limit
        return out

    @property
    def ended(self) -> bool:
        return bool(self._d.is_finished())


class _Zstd(_Stage):
    """zstd frames back to back (skippable frames included), window capped at 8 MiB."""

    name = "zstd"

    def __init__(self) -> None:
        super().__init__()
        self._d: Any = self._new()
        self._frames = 0
        self._ignore = False
        self._errors: tuple[type[BaseException], ...] = (_zstd.ZstdError, EOFError)

    @staticmethod
    def _new() -> Any:
        option = _zstd.DecompressionParameter.window_log_max
        return _zstd.ZstdDecompressor(options={option: ZSTD_WINDOW_LOG_MAX})

    def pull(self, limit: int) -> bytes:
        while True:
            if self._ignore:
                self._buf = b""
                return b""
            if self._d is None:  # between frames: another one, or trailing garbage?
                if len(self._buf) < 4:
                    return b""
                head = self._buf[:4]
                skippable = head[0] & 0xF0 == 0x50 and head[1:] == _SKIPPABLE_TAIL
                if head != _ZSTD_MAGIC and not skippable:
                    self._ignore = True
                    continue
                self._d = self._new()
            d = self._d
            if self._buf:
                data, self._buf = self._buf, b""
            elif not d.needs_input:
                data = b""
            else:
                return b""
            try:
                out: bytes = d.decompress(data, limit)
            except self._errors as exc:
                raise _Invalid(self.name, str(exc)) from None
            if d.eof:
                self._frames += 1
                self._buf = d.unused_data
                self._d = None
                if not out:
                    continue
            return out

    @property
    def ended(self) -> bool:
        return self._frames > 0 and self._d is None


def _stage(name: str) -> _Stage | None:
    if name in ("gzip", "x-gzip"):
        return _Gzip(name)
    if name == "deflate":
        return _Deflate()
    if name == "br" and _brotli is not None:
        return _Brotli()
    if name == "zstd" and _zstd is not None:
        return _Zstd()
    return None


def _codings(content_encoding: str | None) -> list[str]:
    """Codings in the order they were applied; identity and empty items dropped."""
    if not content_encoding:
        return []
    names = (item.strip(" \t").lower() for item in content_encoding.split(","))
    return [name for name in names if name and name != "identity"]


class BodyDecoder:
    """Decode one body incrementally, keeping at most ``max_bytes`` decoded bytes.

    Feed raw chunks with :meth:`feed` until it returns True (enough read: stop the
    download) or the transfer ends, then call :meth:`finish` once or more.
    """

    __slots__ = (
        "_done",
        "_error",
        "_fatal",
        "_out",
        "_overflow",
        "_raw",
        "_raw_limit_hit",
        "_stages",
        "codings",
        "max_bytes",
        "raw_limit",
    )

    def __init__(
        self, content_encoding: str | None, max_bytes: int, raw_limit: int | None = None
    ) -> None:
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be >= 1, got {max_bytes}")
        if raw_limit is None:
            raw_limit = 4 * max_bytes + CHUNK
        if raw_limit < 1:
            raise ValueError(f"raw_limit must be >= 1, got {raw_limit}")
        self.max_bytes = max_bytes
        self.raw_limit = raw_limit
        self.codings: tuple[str, ...] = tuple(_codings(content_encoding))
        self._stages: list[_Stage] = []
        self._error: str | None = None
        self._fatal = False  # an error no amount of decoded content makes usable
        if len(self.codings) > MAX_CODINGS:
            self._error = (
                f"{len(self.codings)} nested Content-Encoding codings "
                f"(at most {MAX_CODINGS} are decoded)"
            )
            self._fatal = True
        for name in reversed(self.codings if self._error is None else ()):
            stage = _stage(name)
            if stage is None:
                known = name in ("br", "zstd")
                why = " (no suitable decompression module installed)" if known else ""
                self._error = f"unsupported Content-Encoding {name!r}{why}"
                self._fatal = True
                break
            self._stages.append(stage)
        self._out = bytearray()
        self._overflow = False
        self._raw = 0
        self._raw_limit_hit = False
        self._done = self._error is not None

    @property
    def raw_bytes(self) -> int:
        """Raw (still encoded) bytes accepted so far."""
        return self._raw

    @property
    def decoded_bytes(self) -> int:
        """Decoded bytes kept so far (at most ``max_bytes``)."""
        return len(self._out)

    def feed(self, chunk: bytes) -> bool:
        """Decode ``chunk``; True once nothing more needs reading (stop the download)."""
        if self._done:
            return True
        if not chunk:
            return False
        allowance = self.raw_limit - self._raw
        if len(chunk) >= allowance:
            chunk = chunk[:allowance]
            self._raw_limit_hit = True
        self._raw += len(chunk)
        try:
            if not self._stages:
                self._emit(chunk)
            else:
                view = memoryview(chunk)
                for start in range(0, len(chunk), CHUNK):
                    self._push(bytes(view[start : start + CHUNK]))
                    if self._done:
                        break
        except _Invalid as exc:
            self._error = f"{exc.stage}: invalid data after {len(self._out)} decoded bytes ({exc})"
            self._done = True
        if self._raw_limit_hit:
            self._done = True
        return self._done

    def _push(self, data: bytes) -> None:
        """Give raw ``data`` to the outermost coding and drain the chain in bounded pieces.

        Depth first, without recursion: each piece a stage yields goes to the next stage,
        which is drained before its producer is asked again, so a stage is only given input
        once it returned b"" (see :class:`_Stage`) and holds at most one piece.
        """
        stages = self._stages
        last = len(stages) - 1
        stages[0].put(data)
        draining = [0]  # indexes of stages that may still yield output, innermost last
        while draining and not self._done:
            index = draining[-1]
            out = stages[index].pull(CHUNK)
            if not out:
                draining.pop()
            elif index == last:
                self._emit(out)
            else:
                stages[index + 1].put(out)
                draining.append(index + 1)

    def _emit(self, data: bytes) -> None:
        room = self.max_bytes - len(self._out)
        if len(data) > room:
            self._out += data[:room]
            self._overflow = True
            self._done = True
        else:
            self._out += data

    def finish(self, complete: bool) -> DecodedBody:
        """The result; ``complete`` is False when the transfer was stopped early."""
        body = bytes(self._out)
        full = len(self._out) >= self.max_bytes
        if self._error is not None:
            if full and not self._fatal:
                return DecodedBody(body, truncated=True)
            return DecodedBody(body, error=self._error)
        if self._overflow:
            return DecodedBody(body, truncated=True)
        if self._raw_limit_hit:
            if not body:
                coding = ", ".join(self.codings) or "identity"
                error = f"{coding}: nothing decoded from the first {self._raw} bytes"
                return DecodedBody(body, error=error)
            return DecodedBody(body, truncated=True)
        if not complete:
            return DecodedBody(body, truncated=True)
        for stage in self._stages:
            if stage.fed and not stage.ended:
                if full:
                    return DecodedBody(body, truncated=True)
                error = f"{stage.name}: truncated stream after {len(body)} decoded bytes"
                return DecodedBody(body, error=error)
        return DecodedBody(body)
