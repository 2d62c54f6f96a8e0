"""An origin's state as stored bytes: the one format every persistent store writes and reads.

No pickles: a versioned binary envelope around a small JSON header and the raw capped body,
so any version of the package can read what another wrote, or refuse it safely.

Layout: ``b"GBR"``, one format-version byte, a 4-byte big-endian header length, the header
(UTF-8 JSON object), then the body bytes (as fetched, or zlib-compressed when the header's
``"body"`` is ``"zlib"``). Readers ignore header keys they do not know, so later versions
may add fields; a different version byte, a broken envelope, an inconsistent header or a
body that inflates past the cap all decode to None, and the caller fetches robots.txt again.

Version 1 has read and written the validators of a copy (``"etag"``, ``"last_modified"``)
since 0.3.0: added as header keys, so an entry of 0.2 reads as a copy without validators
(refreshed unconditionally once), and a 0.2 worker of the same fleet still reads 0.3's
entries (the version byte changes only for what an older reader must refuse).

Freshness is never delegated to the store (no key expiry): the times are in the header and
the policy decides. Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import json
import math
import struct
import zlib
from typing import Any

from ..engine.lines import MAX_BODY_BYTES
from ..engine.rules import RobotsTxt
from ..policy.fetch import validators_of
from ..policy.states import Kind, OriginState

MAGIC = b"GBR"
VERSION = 1
_HEAD = struct.Struct(">3sBI")
#: Bodies at least this long are stored compressed when that saves space.
COMPRESS_FROM = 256
#: A header is a few hundred bytes; anything bigger is not ours.
_MAX_HEADER = 64 * 1024


def encode(state: OriginState, *, compress: bool = True) -> bytes:
    """The stored form of ``state`` (its robots.txt body capped as it already is)."""
    robots = state.robots
    body = robots.body if robots is not None else b""
    coding = "raw" if robots is not None else None
    if robots is not None and compress and len(body) >= COMPRESS_FROM:
        packed = zlib.compress(body, 6)
        if len(packed) < len(body):
            body, coding = packed, "zlib"
    header: dict[str, Any] = {
        "kind": state.kind.value,
        "reason": state.reason,
        "fetched_at": state.fetched_at,
        "refresh_at": state.refresh_at,
        "good_at": state.good_at,
        "error_since": state.error_since,
        "errors": state.errors,
        "status": state.status,
        "page_ok_at": state.page_ok_at,
        "truncated": bool(robots is not None and robots.truncated),
        "body": coding,
    }
    if state.validators is not None:
        header["etag"] = state.validators.etag
        header["last_modified"] = state.validators.last_modified
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    return _HEAD.pack(MAGIC, VERSION, len(head)) + head + body


def _time(value: Any, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a time: {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"not a finite time: {value!r}")
    return number


def decode(data: bytes, *, max_bytes: int = MAX_BODY_BYTES) -> OriginState | None:
    """The state stored in ``data``, or None when it is not a readable entry of this format."""
    try:
        if len(data) < _HEAD.size:
            return None
        magic, version, size = _HEAD.unpack_from(data)
        if magic != MAGIC or version != VERSION or size > _MAX_HEADER:
            return None
        start = _HEAD.size
        header = json.loads(data[start : start + size].decode("utf-8"))
        if not isinstance(header, dict):
            return None
        kind = Kind(header["kind"])
        coding = header.get("body")
        robots: RobotsTxt | None = None
        if coding is not None:
            raw = data[start + size :]
            if coding == "zlib":
                inflater = zlib.decompressobj()
                raw = inflater.decompress(raw, max_bytes + 1)
                if not inflater.eof or len(raw) > max_bytes:
                    return None  # truncated, or more than a capped body can be
            elif coding != "raw" or len(raw) > max_bytes:
                return None
            robots = RobotsTxt(bytes(raw), bool(header.get("truncated", False)))
        if kind is Kind.RULES and coding is None:
            return None  # rules without a body: not a state we could obey
        status = header.get("status")
        if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
            return None
        errors = header.get("errors", 0)
        if isinstance(errors, bool) or not isinstance(errors, int) or errors < 0:
            return None
        reason = header.get("reason", "")
        if not isinstance(reason, str):
            return None
        etag, last_modified = header.get("etag"), header.get("last_modified")
        if not all(value is None or isinstance(value, str) for value in (etag, last_modified)):
            return None
        fetched = _time(header["fetched_at"])
        refresh = _time(header["refresh_at"])
        assert fetched is not None and refresh is not None
        return OriginState(
            kind=kind,
            reason=reason,
            fetched_at=fetched,
            refresh_at=refresh,
            robots=robots,
            good_at=_time(header.get("good_at"), optional=True),
            error_since=_time(header.get("error_since"), optional=True),
            errors=errors,
            status=status,
            page_ok_at=_time(header.get("page_ok_at"), optional=True),
            # Read back through the same caps as a response's headers; kept with a copy only.
            validators=validators_of(etag, last_modified) if robots is not None else None,
        )
    except (ValueError, KeyError, TypeError, struct.error, zlib.error, UnicodeDecodeError):
        return None
