"""An origin's state as stored (``stores/entry.py``): round trips, refusals, one golden entry.

Every persistent store writes these bytes and a later (or older) version of the package reads
them back, so the format is pinned here: a state comes back equal, anything unreadable comes
back None (the caller then fetches robots.txt again) and never raises, and unknown header keys
are ignored so a later version may add fields.
"""

from __future__ import annotations

import json
import random
import struct
import zlib
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots.engine.lines import MAX_BODY_BYTES
from scrapy_gbot_robots.engine.rules import RobotsTxt
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import Kind, OriginState, PolicyConfig, Validators
from scrapy_gbot_robots.stores.entry import COMPRESS_FROM, MAGIC, VERSION, decode, encode

CFG = PolicyConfig()
T0 = 1_700_000_000.0
RULES = b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\nSitemap: https://a.test/s.xml\n"


def assert_same(got: OriginState | None, want: OriginState) -> None:
    """Field by field; the body and its truncation flag stand for the parsed rules."""
    assert got is not None
    for f in fields(OriginState):
        if f.name != "robots" and f.init:
            assert getattr(got, f.name) == getattr(want, f.name), f.name
    if want.robots is None:
        assert got.robots is None
    else:
        assert got.robots is not None
        assert got.robots.body == want.robots.body
        assert got.robots.truncated == want.robots.truncated


def envelope(
    header: dict[str, Any] | bytes,
    body: bytes = b"",
    *,
    magic: bytes = MAGIC,
    version: int = VERSION,
) -> bytes:
    """Hand-made entry bytes, for inputs ``encode`` would never produce."""
    head = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack(">3sBI", magic, version, len(head)) + head + body


def good_header(**changes: Any) -> dict[str, Any]:
    """A readable allow_all header; ``changes`` (None deletes a key) make it unreadable."""
    header: dict[str, Any] = {
        "kind": "allow_all",
        "reason": "404",
        "fetched_at": T0,
        "refresh_at": T0 + 86400,
        "good_at": T0,
        "error_since": None,
        "errors": 0,
        "status": 404,
        "page_ok_at": None,
        "truncated": False,
        "body": None,
    }
    for key, value in changes.items():
        if value is _DELETE:
            del header[key]
        else:
            header[key] = value
    return header


_DELETE = object()


# -- round trips ----------------------------------------------------------------------------


DATE = "Tue, 22 Feb 2022 22:00:00 GMT"
ETAGGED = evaluate(FetchResult(200, RULES, etag='"v1"'), T0, None, CFG)


def _states() -> dict[str, OriginState]:
    ok = evaluate(FetchResult(200, RULES), T0, None, CFG)
    truncated = evaluate(FetchResult(200, b"User-agent: *\nDisallow: /a\n" * 30_000), T0, None, CFG)
    cut_while_downloading = evaluate(FetchResult(200, RULES, truncated=True), T0, None, CFG)
    error_after_good = evaluate(FetchResult(503), T0 + 90_000, ok, CFG)
    return {
        "rules": ok,
        "rules, empty body": evaluate(FetchResult(200, b""), T0, None, CFG),
        "rules, truncated at the cap": truncated,
        "rules, cut while downloading": cut_while_downloading,
        "allow_all 404": evaluate(FetchResult(404, b"<html>"), T0, None, CFG),
        "allow_all redirect limit": evaluate(FetchResult(301), T0, None, CFG),
        "server_error, no good copy": evaluate(FetchResult(503), T0, None, CFG),
        "server_error, last good copy": error_after_good,
        "server_error, second in a row": evaluate(
            FetchResult(500, retry_after="120"), T0 + 90_100, error_after_good, CFG
        ),
        "server_error, page answered": OriginState(
            kind=Kind.SERVER_ERROR,
            reason="503",
            fetched_at=T0 + 5.5,
            refresh_at=T0 + 65.5,
            robots=RobotsTxt(RULES),
            good_at=T0 - 3600,
            error_since=T0,
            errors=3,
            status=503,
            page_ok_at=T0 + 7.25,
        ),
        "network error, status None": evaluate(
            FetchResult(None, error="TimeoutError"), T0, None, CFG
        ),
        "data loss": evaluate(FetchResult(200, RULES, error="data loss"), T0, ok, CFG),
        "unicode reason": OriginState(Kind.SERVER_ERROR, "Erreur réseau ✗", T0, T0 + 1, None),
        "rules with both validators": evaluate(
            FetchResult(200, RULES, etag='W/"v1"', last_modified=DATE), T0, None, CFG
        ),
        "rules with a Last-Modified only": evaluate(
            FetchResult(200, RULES, last_modified=DATE), T0, None, CFG
        ),
        "revalidated by a 304": evaluate(
            FetchResult(304, sent=Validators('"v1"')), T0 + 90_000, ETAGGED, CFG
        ),
        "server_error keeping a copy's validators": evaluate(
            FetchResult(503), T0 + 90_000, ETAGGED, CFG
        ),
    }


STATES = _states()


@pytest.mark.parametrize("name", list(STATES))
def test_every_kind_of_state_round_trips(name: str) -> None:
    state = STATES[name]
    assert_same(decode(encode(state)), state)
    assert_same(decode(encode(state, compress=False)), state)


def test_the_states_cover_what_the_brief_lists() -> None:
    """Guard the table above: each case must really be the kind of state it claims."""
    s = STATES
    assert s["rules, truncated at the cap"].robots is not None
    assert s["rules, truncated at the cap"].robots.truncated
    assert len(s["rules, truncated at the cap"].robots.body) == MAX_BODY_BYTES
    assert s["rules, cut while downloading"].robots is not None
    assert s["rules, cut while downloading"].robots.truncated
    assert s["server_error, no good copy"].robots is None
    assert s["server_error, last good copy"].robots is not None
    assert s["server_error, second in a row"].errors == 2
    assert s["network error, status None"].status is None
    assert s["data loss"].kind is Kind.SERVER_ERROR and s["data loss"].status == 200
    assert s["server_error, page answered"].page_ok_at is not None


def test_a_decoded_state_obeys_the_same_rules() -> None:
    state = decode(encode(STATES["rules"]))
    assert state is not None and state.robots is not None
    assert not state.robots.allowed("https://a.test/private/x", "Googlebot")
    assert state.robots.allowed("https://a.test/private/ok", "Googlebot")
    assert state.robots.sitemaps == ("https://a.test/s.xml",)


def test_big_bodies_are_compressed_tiny_ones_are_not() -> None:
    big = evaluate(FetchResult(200, b"User-agent: *\nDisallow: /some/path\n" * 2000), T0, None, CFG)
    assert big.robots is not None
    data = encode(big)
    assert len(data) < len(big.robots.body) // 10
    assert b'"body":"zlib"' in data
    assert len(encode(big, compress=False)) > len(big.robots.body)
    tiny = STATES["rules"]
    assert tiny.robots is not None and len(tiny.robots.body) < COMPRESS_FROM
    assert encode(tiny).endswith(tiny.robots.body) and b'"body":"raw"' in encode(tiny)


def test_incompressible_big_body_is_stored_raw() -> None:
    noise = random.Random(7).randbytes(4096)
    state = evaluate(FetchResult(200, noise), T0, None, CFG)
    data = encode(state)
    assert b'"body":"raw"' in data and data.endswith(noise)
    assert_same(decode(data), state)


def test_unknown_header_keys_are_ignored() -> None:
    """Forward compatibility: a later version may add fields that this one does not know."""
    state = STATES["server_error, page answered"]
    data = encode(state)
    (size,) = struct.unpack_from(">I", data, 4)
    header = json.loads(data[8 : 8 + size])
    assert state.robots is not None
    body = data[8 + size :]
    header.update({"content_usage": '"abc"', "future": {"nested": [1, 2]}, "crawl_delay": 1.5})
    assert_same(decode(envelope(header, body)), state)


# -- the golden entry -----------------------------------------------------------------------

GOLDEN_STATE = OriginState(
    kind=Kind.SERVER_ERROR,
    reason="503",
    fetched_at=1000.5,
    refresh_at=1060.5,
    robots=RobotsTxt(b"User-agent: *\nDisallow: /x\n"),
    good_at=900.0,
    error_since=1000.5,
    errors=1,
    status=503,
    page_ok_at=None,
)
GOLDEN = (
    b'GBR\x01\x00\x00\x00\xbc{"kind":"server_error","reason":"503","fetched_at":1000.5,'
    b'"refresh_at":1060.5,"good_at":900.0,"error_since":1000.5,"errors":1,"status":503,'
    b'"page_ok_at":null,"truncated":false,"body":"raw"}User-agent: *\nDisallow: /x\n'
)


def test_golden_entry_is_byte_for_byte_what_encode_writes() -> None:
    """An accidental format change fails here: stores on disk hold these exact bytes."""
    assert encode(GOLDEN_STATE) == GOLDEN


def test_golden_entry_still_decodes() -> None:
    """What an earlier release wrote stays readable (the store is not thrown away)."""
    assert_same(decode(GOLDEN), GOLDEN_STATE)


# -- unreadable inputs ----------------------------------------------------------------------


def _zlib_entry(body: bytes) -> bytes:
    return envelope(good_header(kind="rules", body="zlib", status=200), zlib.compress(body))


UNREADABLE: dict[str, bytes] = {
    "empty": b"",
    "shorter than the envelope": b"GBR\x01\x00\x00",
    "wrong magic": envelope(good_header(), magic=b"GBX"),
    "a pickle": b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x04kind\x94\x8c\x01x\x94s.",
    "another version byte": envelope(good_header(), version=VERSION + 1),
    "version zero": envelope(good_header(), version=0),
    "header longer than the data": envelope(good_header())[:-5],
    "header size absurd": struct.pack(">3sBI", MAGIC, VERSION, 10_000_000) + b"{}",
    "header not JSON": envelope(b"{kind: rules"),
    "header not UTF-8": envelope(b'{"kind":"\xff"}'),
    "header a list": envelope(b'["kind", "rules"]'),
    "header a string": envelope(b'"rules"'),
    "header null": envelope(b"null"),
    "unknown kind": envelope(good_header(kind="maybe")),
    "kind missing": envelope(good_header(kind=_DELETE)),
    "fetched_at missing": envelope(good_header(fetched_at=_DELETE)),
    "refresh_at missing": envelope(good_header(refresh_at=_DELETE)),
    "fetched_at null": envelope(good_header(fetched_at=None)),
    "NaN time": envelope(good_header(fetched_at=float("nan"))),
    "NaN optional time": envelope(good_header(error_since=float("nan"))),
    "string time": envelope(good_header(refresh_at="1700000000")),
    "bool time": envelope(good_header(fetched_at=True)),
    "string page_ok_at": envelope(good_header(page_ok_at="yesterday")),
    "bool errors": envelope(good_header(errors=True)),
    "negative errors": envelope(good_header(errors=-1)),
    "float errors": envelope(good_header(errors=1.5)),
    "bool status": envelope(good_header(status=False)),
    "string status": envelope(good_header(status="404")),
    "reason not a string": envelope(good_header(reason=404)),
    "unknown body coding": envelope(good_header(kind="rules", body="gzip"), b"x"),
    "zlib past max_bytes": _zlib_entry(b"Disallow: /\n" * 50_000),
    "truncated zlib": _zlib_entry(b"User-agent: *\nDisallow: /a\n" * 100)[:-10],
    "zlib that is not zlib": envelope(good_header(kind="rules", body="zlib"), b"not zlib!"),
    "raw body past max_bytes": envelope(
        good_header(kind="rules", body="raw"), b"#" * (MAX_BODY_BYTES + 1)
    ),
    "rules without a body": envelope(good_header(kind="rules", body=None)),
}


@pytest.mark.parametrize("name", list(UNREADABLE))
def test_unreadable_entries_decode_to_none(name: str) -> None:
    data = UNREADABLE[name]
    assert decode(data) is None


def test_the_unreadable_cases_are_one_change_away_from_readable() -> None:
    """So each case tests what its name says, not some other flaw of the helper."""
    assert decode(envelope(good_header())) is not None
    assert decode(_zlib_entry(b"User-agent: *\nDisallow: /a\n" * 100)) is not None
    assert decode(envelope(good_header(kind="rules", body="raw"), b"#" * MAX_BODY_BYTES))


@pytest.mark.parametrize("key", ["fetched_at", "refresh_at", "error_since", "page_ok_at"])
def test_infinite_times_are_unreadable(key: str) -> None:
    data = envelope(good_header(**{key: float("inf")}))
    assert b"Infinity" in data
    state = decode(data)
    if state is not None:  # what happens today: and the state cannot be stored again
        with pytest.raises(ValueError):
            encode(state)
    assert state is None


def test_max_bytes_is_the_readers_cap() -> None:
    body = b"User-agent: *\n" + b"Disallow: /p\n" * 100  # 1314 bytes
    data = encode(evaluate(FetchResult(200, body), T0, None, CFG))
    assert b'"body":"zlib"' in data
    assert decode(data, max_bytes=len(body)) is not None
    assert decode(data, max_bytes=len(body) - 1) is None
    raw = encode(evaluate(FetchResult(200, body), T0, None, CFG), compress=False)
    assert decode(raw, max_bytes=len(body)) is not None
    assert decode(raw, max_bytes=len(body) - 1) is None


# -- properties -----------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_raise(data: bytes) -> None:
    assert decode(data) is None or data.startswith(MAGIC)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 255))
def test_random_bytes_inside_a_valid_envelope_never_raise(tail: bytes, version: int) -> None:
    data = struct.pack(">3sBI", MAGIC, version, len(tail)) + tail
    state = decode(data)
    assert state is None or version == VERSION


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(STATES)), st.data())
def test_corrupting_a_real_entry_never_raises(name: str, data: st.DataObject) -> None:
    entry = bytearray(encode(STATES[name]))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(entry) - 1))
        entry[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(entry)))
    for candidate in (bytes(entry), bytes(entry[:cut])):
        result = decode(candidate)
        assert result is None or isinstance(result, OriginState)


_times = st.floats(min_value=0, max_value=4e9, allow_nan=False)


@st.composite
def origin_states(draw: st.DrawFn) -> OriginState:
    kind = draw(st.sampled_from(list(Kind)))
    body = draw(st.binary(max_size=2000) | st.just(RULES * 20))
    has_robots = kind is Kind.RULES or (kind is Kind.SERVER_ERROR and draw(st.booleans()))
    return OriginState(
        kind=kind,
        reason=draw(st.text(max_size=20)),
        fetched_at=draw(_times),
        refresh_at=draw(_times),
        robots=RobotsTxt(body, draw(st.booleans())) if has_robots else None,
        good_at=draw(st.none() | _times),
        error_since=draw(st.none() | _times),
        errors=draw(st.integers(0, 10_000)),
        status=draw(st.none() | st.integers(100, 599)),
        page_ok_at=draw(st.none() | _times),
        validators=draw(st.none() | _validators) if has_robots else None,
    )


_validator = st.none() | st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=256
)
_validators = st.builds(Validators, _validator, _validator).filter(
    lambda v: v.etag is not None or v.last_modified is not None
)


@settings(max_examples=300, deadline=None)
@given(origin_states(), st.booleans())
def test_any_state_round_trips(state: OriginState, compress: bool) -> None:
    assert_same(decode(encode(state, compress=compress)), state)


# -- validators (0.3.0) ---------------------------------------------------------------------


def test_validators_are_written_only_for_a_copy_that_has_them() -> None:
    """An entry without validators is the 0.2 entry byte for byte (the golden one above)."""
    assert b'"etag"' not in encode(STATES["rules"])
    data = encode(STATES["rules with both validators"])
    assert b'"etag":"W/\\"v1\\""' in data and DATE.encode() in data
    state = decode(data)
    assert state is not None and state.validators == Validators('W/"v1"', DATE)


def test_an_entry_written_before_validators_reads_as_a_copy_without_them() -> None:
    """0.2's golden entry: the copy is kept, refreshed unconditionally once."""
    state = decode(GOLDEN)
    assert state is not None and state.robots is not None and state.validators is None


@pytest.mark.parametrize(
    ("etag", "last_modified", "want"),
    [
        ('"' + "x" * 1000 + '"', None, None),  # past the cap: not kept
        ('"a\x00b"', DATE, Validators(None, DATE)),  # a control character: that one dropped
        (7, DATE, "unreadable"),  # not a string: not our entry
        ('"ok"', None, Validators('"ok"', None)),
    ],
)
def test_stored_validators_are_read_through_the_same_caps(
    etag: Any, last_modified: str | None, want: Validators | str | None
) -> None:
    header = good_header(kind="rules", body="raw", etag=etag, last_modified=last_modified)
    state = decode(envelope(header, RULES))
    if want == "unreadable":
        assert state is None
    else:
        assert state is not None and state.validators == want


def test_validators_without_a_copy_are_not_read() -> None:
    """A "no restrictions" state has no copy to revalidate: nothing to send back."""
    state = decode(envelope(good_header(etag='"v"')))
    assert state is not None and state.kind is Kind.ALLOW_ALL and state.validators is None
