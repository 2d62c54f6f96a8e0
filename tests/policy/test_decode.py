"""BodyDecoder: bounded, incremental Content-Encoding decoding (pure, no Scrapy)."""

from __future__ import annotations

import functools
import gzip
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots.policy import decode as _decode
from scrapy_gbot_robots.policy.decode import CHUNK, BodyDecoder, DecodedBody, supported_encodings

MAX = 512_000
TEXT = b"".join(b"User-agent: bot%d\nDisallow: /private/%d\n" % (i, i) for i in range(4000))
LINE = b"Disallow: /bomb\n"  # 16 bytes: a 1 MiB block holds a whole number of lines

needs_br = pytest.mark.skipif(
    _decode._brotli is None, reason="no brotli/brotlicffi >= 1.2 (output_buffer_limit) installed"
)
needs_zstd = pytest.mark.skipif(
    _decode._zstd is None, reason="neither compression.zstd nor backports.zstd is installed"
)


def decode(
    encoding: str | None,
    data: bytes,
    max_bytes: int = MAX,
    step: int = 16_384,
    complete: bool = True,
    **kwargs: Any,
) -> DecodedBody:
    decoder = BodyDecoder(encoding, max_bytes, **kwargs)
    for start in range(0, len(data), step):
        if decoder.feed(data[start : start + step]):
            return decoder.finish(complete=False)
    return decoder.finish(complete=complete)


def raw_deflate(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return c.compress(data) + c.flush()


def br(data: bytes) -> bytes:
    return bytes(_decode._brotli.compress(data))


def zstd(data: bytes) -> bytes:
    return bytes(_decode._zstd.compress(data))


ENCODERS: list[Any] = [
    pytest.param(None, lambda d: d, id="absent"),
    pytest.param("identity", lambda d: d, id="identity"),
    pytest.param("gzip", gzip.compress, id="gzip"),
    pytest.param("x-gzip", gzip.compress, id="x-gzip"),
    pytest.param(" GZip\t", gzip.compress, id="gzip-case-space"),
    pytest.param("deflate", zlib.compress, id="deflate-zlib"),
    pytest.param("deflate", raw_deflate, id="deflate-raw"),
    pytest.param("br", br, id="br", marks=needs_br),
    pytest.param("zstd", zstd, id="zstd", marks=needs_zstd),
    pytest.param("gzip, br", lambda d: br(gzip.compress(d)), id="gzip-then-br", marks=needs_br),
    pytest.param("deflate,gzip", lambda d: gzip.compress(zlib.compress(d)), id="deflate-gzip"),
    pytest.param("identity, gzip, identity", gzip.compress, id="identity-items"),
]


# -- round trips -----------------------------------------------------------------------------
@pytest.mark.parametrize(("encoding", "encode"), ENCODERS)
def test_round_trip_whole_and_byte_by_byte(
    encoding: str | None, encode: Callable[[bytes], bytes]
) -> None:
    data = encode(TEXT)
    whole = decode(encoding, data, step=len(data))
    assert whole == DecodedBody(TEXT, truncated=False, error=None)
    assert whole.body == TEXT
    small = encode(TEXT[:3000])
    one = decode(encoding, small, step=1)
    assert one.body == TEXT[:3000] and not one.truncated and one.error is None


@pytest.mark.parametrize(("encoding", "encode"), ENCODERS)
def test_cut_at_max_bytes(encoding: str | None, encode: Callable[[bytes], bytes]) -> None:
    result = decode(encoding, encode(TEXT), max_bytes=10_000)
    assert result.body == TEXT[:10_000]
    assert result.truncated and result.error is None


def test_exactly_max_bytes_is_not_truncated_one_more_is() -> None:
    assert decode(None, TEXT[:5000], max_bytes=5000) == DecodedBody(TEXT[:5000])
    assert decode("gzip", gzip.compress(TEXT[:5000]), max_bytes=5000) == DecodedBody(TEXT[:5000])
    over = decode(None, TEXT[:5001], max_bytes=5000)
    assert over.body == TEXT[:5000] and over.truncated
    over = decode("gzip", gzip.compress(TEXT[:5001]), max_bytes=5000)
    assert over.body == TEXT[:5000] and over.truncated


def test_feed_returns_true_once_enough_was_decoded_then_ignores_input() -> None:
    decoder = BodyDecoder(None, 100)
    assert decoder.feed(b"a" * 100) is False
    assert decoder.feed(b"b") is True
    assert decoder.feed(b"c" * 1000) is True
    assert decoder.raw_bytes == 101 and decoder.decoded_bytes == 100
    result = decoder.finish(complete=False)
    assert result.body == b"a" * 100 and result.truncated and result.error is None


@settings(max_examples=60, deadline=None)
@given(
    st.binary(max_size=3000),
    st.lists(st.integers(min_value=1, max_value=200), min_size=1, max_size=40),
    st.sampled_from(["gzip", "deflate", "deflate-raw", "identity"]),
)
def test_any_chunking_gives_the_same_result(body: bytes, cuts: list[int], name: str) -> None:
    codecs: dict[str, Callable[[bytes], bytes]] = {
        "gzip": gzip.compress,
        "deflate": zlib.compress,
        "deflate-raw": raw_deflate,
        "identity": bytes,
    }
    encode = codecs[name]
    data = encode(body)
    decoder = BodyDecoder(name.split("-")[0], 2000)
    pos, i = 0, 0
    while pos < len(data):
        size = cuts[i % len(cuts)]
        i += 1
        if decoder.feed(data[pos : pos + size]):
            break
        pos += size
    result = decoder.finish(complete=pos >= len(data))
    assert result.error is None
    assert result.body == body[:2000]
    assert result.truncated == (len(body) > 2000)


# -- bombs -----------------------------------------------------------------------------------
def _blocks(total: int) -> Iterator[bytes]:
    block = LINE * ((1 << 20) // len(LINE))
    for _ in range(total // len(block)):
        yield block


@functools.cache
def bomb(kind: str, total: int = 64 << 20) -> bytes:
    """``total`` bytes of repeated LINE compressed in a stream, never held decompressed."""
    parts: list[bytes] = []
    if kind in ("gzip", "deflate"):
        c: Any = zlib.compressobj(9, zlib.DEFLATED, 31 if kind == "gzip" else 15)
        parts.extend(c.compress(block) for block in _blocks(total))
        parts.append(c.flush())
    elif kind == "br":
        c = _decode._brotli.Compressor(quality=5)
        parts.extend(c.process(block) for block in _blocks(total))
        parts.append(c.finish())
    else:
        c = _decode._zstd.ZstdCompressor()
        parts.extend(c.compress(block) for block in _blocks(total))
        parts.append(c.flush())
    return b"".join(parts)


@pytest.mark.parametrize(
    "kind",
    [
        "gzip",
        "deflate",
        pytest.param("br", marks=needs_br),
        pytest.param("zstd", marks=needs_zstd),
    ],
)
def test_bomb_stops_at_max_bytes_with_bounded_memory(kind: str) -> None:
    data = bomb(kind)
    assert len(data) < 1 << 20  # 64 MiB inflated, under 1 MiB on the wire
    expected = (LINE * (MAX // len(LINE) + 1))[:MAX]
    tracemalloc.start()
    try:
        decoder = BodyDecoder(kind, MAX)
        fed = 0
        stopped = False
        for start in range(0, len(data), 16_384):
            fed += len(data[start : start + 16_384])
            if decoder.feed(data[start : start + 16_384]):
                stopped = True
                break
        result = decoder.finish(complete=not stopped)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert stopped  # the caller can stop the download
    if len(data) > 4 * 16_384:
        assert fed < len(data)  # ... before the end of the compressed stream
    assert result.body == expected
    assert result.truncated and result.error is None
    assert peak < 8 << 20, f"peak {peak} bytes"


def test_bomb_fed_as_one_huge_chunk_is_still_bounded() -> None:
    data = bomb("gzip")
    tracemalloc.start()
    try:
        decoder = BodyDecoder("gzip", MAX)
        assert decoder.feed(data) is True
        result = decoder.finish(complete=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.body) == MAX and result.truncated
    assert peak < 4 << 20, f"peak {peak} bytes"


# -- gzip specifics --------------------------------------------------------------------------
def test_multi_member_gzip_is_decoded_whole() -> None:
    data = gzip.compress(b"User-agent: *\n") + gzip.compress(b"Disallow: /a\n")
    for step in (1, 7, len(data)):
        assert decode("gzip", data, step=step) == DecodedBody(b"User-agent: *\nDisallow: /a\n")


@pytest.mark.parametrize("tail", [b"\x00" * 8, b"garbage after the end", b"\x1f"])
def test_data_after_a_complete_gzip_member_is_ignored(tail: bytes) -> None:
    data = gzip.compress(b"User-agent: *\nDisallow: /\n") + tail
    for step in (1, len(data)):
        assert decode("gzip", data, step=step) == DecodedBody(b"User-agent: *\nDisallow: /\n")


def test_invalid_gzip_is_an_error() -> None:
    result = decode("gzip", b"User-agent: *\nDisallow: /\n")
    assert result.error is not None
    assert result.error.startswith("gzip: invalid data after 0 decoded bytes")


def test_invalid_second_gzip_member_is_an_error() -> None:
    second = bytearray(gzip.compress(b"Disallow: /b\n" * 50))
    second[12:20] = b"\xff" * 8  # corrupt the deflate data, keep the gzip magic
    result = decode("gzip", gzip.compress(b"Disallow: /a\n") + bytes(second))
    assert result.error is not None and result.error.startswith("gzip: invalid data")


def test_gzip_crc_mismatch_is_an_error() -> None:
    data = bytearray(gzip.compress(TEXT[:1000]))
    data[-8] ^= 0xFF  # CRC32
    result = decode("gzip", bytes(data))
    assert (
        result.error is not None and "gzip: invalid data after 1000 decoded bytes" in result.error
    )


def test_truncated_gzip_is_an_error_when_the_transfer_completed() -> None:
    data = gzip.compress(TEXT[:20_000])[:-100]
    result = decode("gzip", data, complete=True)
    assert result.error is not None
    assert result.error.startswith("gzip: truncated stream after ")
    stopped = decode("gzip", data, complete=False)  # the caller stopped it: a usable prefix
    assert stopped.error is None and stopped.truncated
    assert stopped.body and TEXT.startswith(stopped.body)


def test_invalid_data_after_max_bytes_were_decoded_keeps_the_prefix() -> None:
    data = bytearray(gzip.compress(TEXT[:5000]))
    data[-8] ^= 0xFF  # CRC error, found only once all 5000 bytes were decoded
    assert decode("gzip", bytes(data), max_bytes=6000).error is not None
    exact = decode("gzip", bytes(data), max_bytes=5000)
    assert exact == DecodedBody(TEXT[:5000], truncated=True, error=None)
    # Garbage far behind the first max_bytes: never even looked at.
    broken = gzip.compress(TEXT)[:-2000] + b"\xff" * 5000
    assert decode("gzip", broken, max_bytes=1000) == DecodedBody(TEXT[:1000], truncated=True)
    # A truncated stream after exactly max_bytes: usable too.
    cut = gzip.compress(TEXT[:5000])[:-4]  # ISIZE missing
    assert decode("gzip", cut, max_bytes=5000) == DecodedBody(TEXT[:5000], truncated=True)


def test_empty_body_is_an_empty_file_whatever_the_coding() -> None:
    for encoding in ("gzip", "deflate", "gzip, deflate", None):
        assert BodyDecoder(encoding, MAX).finish(complete=True) == DecodedBody(b"")


# -- deflate, br, zstd specifics -------------------------------------------------------------
def test_one_byte_of_deflate_is_a_truncated_stream() -> None:
    result = decode("deflate", zlib.compress(b"hello")[:1])
    assert result.error == "deflate: truncated stream after 0 decoded bytes"


def test_invalid_deflate_is_an_error() -> None:
    result = decode("deflate", b"\x78\x9c" + b"\xff" * 50)
    assert result.error is not None and result.error.startswith("deflate: invalid data")


@needs_br
def test_invalid_and_trailing_brotli_data_are_errors() -> None:
    result = decode("br", b"\xff" * 64)
    assert result.error is not None and result.error.startswith("br: invalid data")
    for step in (1, 10_000):
        trailing = decode("br", br(b"User-agent: *\n") + b"xx", step=step)
        assert trailing.error is not None and trailing.error.startswith("br: invalid data")


@needs_br
def test_truncated_brotli_is_an_error() -> None:
    result = decode("br", br(TEXT)[:-10])
    assert result.error is not None and result.error.startswith("br: truncated stream")


@needs_zstd
def test_zstd_frames_back_to_back_and_skippable_frames() -> None:
    skippable = b"\x50\x2a\x4d\x18" + (4).to_bytes(4, "little") + b"skip"
    data = zstd(b"User-agent: *\n") + skippable + zstd(b"Disallow: /z\n") + b"trailing junk"
    for step in (1, 3, len(data)):
        assert decode("zstd", data, step=step) == DecodedBody(b"User-agent: *\nDisallow: /z\n")


@needs_zstd
def test_zstd_window_over_8_mib_is_refused() -> None:
    def frame(window_log: int) -> bytes:
        # magic, no content size, window descriptor, one last raw block of 5 bytes
        header = bytes([0x00, (window_log - 10) << 3])
        return b"\x28\xb5\x2f\xfd" + header + bytes([0x29, 0, 0]) + b"hello"

    assert decode("zstd", frame(23)) == DecodedBody(b"hello")
    result = decode("zstd", frame(27))
    assert result.error is not None and result.error.startswith("zstd: invalid data")


@needs_zstd
def test_invalid_and_truncated_zstd_are_errors() -> None:
    invalid = decode("zstd", b"\x28\xb5\x2f\xfd" + b"\xff" * 20)
    assert invalid.error is not None and invalid.error.startswith("zstd: invalid data")
    truncated = decode("zstd", zstd(TEXT)[:-5])
    assert truncated.error is not None and truncated.error.startswith("zstd: truncated stream")


# -- lists and unknown codings ---------------------------------------------------------------
@needs_br
def test_gzip_then_br_is_decoded_in_reverse_and_order_matters() -> None:
    data = br(gzip.compress(TEXT))
    assert decode("gzip, br", data) == DecodedBody(TEXT)
    assert decode("GZIP ,BR", data, step=1).body[:100] == TEXT[:100]
    wrong = decode("br, gzip", data)
    assert wrong.error is not None and wrong.error.startswith("gzip: invalid data")


def nested_gzip(data: bytes, layers: int) -> bytes:
    for _ in range(layers):
        data = gzip.compress(data, compresslevel=1)
    return data


@pytest.mark.parametrize("layers", [1, 2, _decode.MAX_CODINGS])
def test_nested_codings_up_to_the_cap_are_decoded(layers: int) -> None:
    data = nested_gzip(TEXT, layers)
    encoding = ", ".join(["gzip"] * layers)
    assert decode(encoding, data) == DecodedBody(TEXT)
    assert decode(encoding, data, step=7).body == TEXT  # every chunking, each stage drained
    assert decode(encoding, data, max_bytes=1000) == DecodedBody(TEXT[:1000], truncated=True)


@pytest.mark.parametrize("layers", [_decode.MAX_CODINGS + 1, 1_200])
def test_more_nested_codings_than_the_cap_are_one_body_error(layers: int) -> None:
    """Issue 24: 1,200 nested gzip layers raised RecursionError (the decoder recursed once per
    coding), once per received chunk in a crawl. Now: one error, at the first chunk, and no
    decompressor is even built."""
    data = nested_gzip(b"User-agent: *\nDisallow: /\n", min(layers, 40))
    decoder = BodyDecoder(", ".join(["gzip"] * layers), MAX)
    assert decoder.feed(data) is True  # stop reading at once
    assert decoder.feed(data) is True
    result = decoder.finish(complete=True)
    assert result.body == b"" and not result.truncated
    assert result.error == (
        f"{layers} nested Content-Encoding codings (at most {_decode.MAX_CODINGS} are decoded)"
    )
    assert decoder.raw_bytes == 0
    # identity is no coding: it does not count.
    assert BodyDecoder(", ".join(["identity"] * 50 + ["gzip"]), MAX).feed(b"") is False


def test_the_decoder_does_not_recurse_per_coding(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cap lifted, 1,200 nested layers decode: a recursion per coding would pass
    Python's recursion limit (1,000 frames) long before the innermost layer."""
    import sys

    monkeypatch.setattr(_decode, "MAX_CODINGS", 2_000)
    layers = max(1_200, sys.getrecursionlimit() + 200)
    body = b"User-agent: *\nDisallow: /deep\n"
    result = decode(", ".join(["gzip"] * layers), nested_gzip(body, layers))
    assert result == DecodedBody(body)


@pytest.mark.parametrize("encoding", ["compress", "gzip, compress", "x-custom, gzip", "gzip;q=1"])
def test_unknown_coding_is_an_error_and_stops_reading_at_once(encoding: str) -> None:
    decoder = BodyDecoder(encoding, MAX)
    assert decoder.feed(b"User-agent: *\nDisallow: /\n") is True
    for complete in (True, False):
        result = decoder.finish(complete=complete)
        assert result.error is not None and result.error.startswith("unsupported Content-Encoding")
    assert BodyDecoder(encoding, MAX).finish(complete=True).error is not None


def test_unsupported_optional_codings_are_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_decode, "_brotli", None)
    monkeypatch.setattr(_decode, "_zstd", None)
    assert supported_encodings() == ("gzip", "deflate")
    for encoding in ("br", "zstd"):
        result = BodyDecoder(encoding, MAX).finish(complete=True)
        assert result.error is not None and "no suitable decompression module" in result.error


def test_old_brotli_without_output_buffer_limit_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class OldDecompressor:
        def process(self, data: bytes) -> bytes:  # brotli < 1.2: no output limit
            return data

    class OldBrotli:
        Decompressor = OldDecompressor

    modules = {"brotli": OldBrotli, "brotlicffi": OldBrotli}

    def fake_import(name: str) -> Any:
        return modules[name]

    monkeypatch.setattr("scrapy_gbot_robots.policy.decode.importlib.import_module", fake_import)
    assert _decode._load_brotli() is None


def test_supported_encodings_lists_what_is_installed() -> None:
    names = supported_encodings()
    assert names[:2] == ("gzip", "deflate")
    assert ("br" in names) == (_decode._brotli is not None)
    assert ("zstd" in names) == (_decode._zstd is not None)


# -- raw limit -------------------------------------------------------------------------------
def _empty_blocks(prefix: bytes, total: int) -> bytes:
    """A gzip stream: ``prefix``, then empty stored blocks (5 bytes, no output) forever."""
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    head = c.compress(prefix) + c.flush(zlib.Z_SYNC_FLUSH)
    return head + b"\x00\x00\x00\xff\xff" * ((total - len(head)) // 5)


def test_raw_limit_stops_a_stream_that_decodes_to_nothing() -> None:
    data = _empty_blocks(b"", 300_000)
    decoder = BodyDecoder("gzip", 10_000)
    assert decoder.raw_limit == 4 * 10_000 + CHUNK
    stopped_at = None
    for start in range(0, len(data), 4096):
        if decoder.feed(data[start : start + 4096]):
            stopped_at = start
            break
    assert stopped_at is not None and stopped_at < decoder.raw_limit
    assert decoder.raw_bytes == decoder.raw_limit
    result = decoder.finish(complete=False)
    assert result.error == f"gzip: nothing decoded from the first {decoder.raw_limit} bytes"


def test_raw_limit_keeps_what_was_decoded_before() -> None:
    prefix = b"User-agent: *\nDisallow: /\n"
    result = decode("gzip", _empty_blocks(prefix, 100_000), max_bytes=1000, raw_limit=50_000)
    assert result == DecodedBody(prefix, truncated=True, error=None)


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="max_bytes"):
        BodyDecoder(None, 0)
    with pytest.raises(ValueError, match="raw_limit"):
        BodyDecoder(None, 10, raw_limit=0)
    assert BodyDecoder(" , identity ,", 10).codings == ()
    assert BodyDecoder("GZip, BR", 10).codings == ("gzip", "br")
