"""RFC 9651 Structured Field Dictionaries, the syntax of a ``Content-Usage`` value.

Examples follow the RFC's own grammar (section 3) and parsing algorithms (section 4.2): what a
conforming parser accepts is accepted with the value it means, and what it refuses is refused,
with the column of the first fault. Content-Usage reads the result (tests/engine/test_usage.py).
"""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots.engine.structured_fields import (
    BareItem,
    Date,
    DisplayString,
    Member,
    StructuredFieldError,
    Token,
    parse_dictionary,
)


def _one(text: bytes) -> Member:
    (member,) = parse_dictionary(text)
    return member


def _value(text: bytes) -> object:
    return _one(b"k=" + text).value


def _error(text: bytes) -> str:
    with pytest.raises(StructuredFieldError) as caught:
        parse_dictionary(text)
    return str(caught.value)


# ----------------------------------------------------------------------------- dictionaries


def test_members_come_back_in_order_with_a_repeated_key_each_time() -> None:
    members = parse_dictionary(b"train-ai=n, search=y, train-ai=y")
    assert [(m.key, m.value) for m in members] == [
        ("train-ai", "n"),
        ("search", "y"),
        ("train-ai", "y"),  # the last one counts (section 4.2.2): the caller decides
    ]


@pytest.mark.parametrize("text", [b"", b" ", b"   "])
def test_an_empty_value_is_an_empty_dictionary(text: bytes) -> None:
    assert parse_dictionary(text) == []


def test_a_bare_key_is_true_and_keeps_its_parameters() -> None:
    member = _one(b"search;since=2025")
    assert member.value is True
    assert member.parameters == (("since", 2025),)
    assert member.written == ";since=2025"


def test_whitespace_leading_spaces_and_around_commas() -> None:
    members = parse_dictionary(b"  a=1 ,\tb=2\t, c=3  ")
    assert [(m.key, m.value) for m in members] == [("a", 1), ("b", 2), ("c", 3)]


@pytest.mark.parametrize("key", [b"a", b"*", b"a_b-c.d*9", b"*x", b"z0"])
def test_keys_start_with_a_lower_case_letter_or_star(key: bytes) -> None:
    assert _one(key + b"=1").key == key.decode()


@pytest.mark.parametrize("key", [b"A", b"Train-AI", b"0a", b"-a", b"_a", b".a"])
def test_other_keys_are_refused(key: bytes) -> None:
    assert "a key must start with a-z or '*'" in _error(key + b"=1")


def test_written_keeps_the_value_and_its_parameters_as_they_are() -> None:
    assert _one(b'train-ai=n;reason="policy"').written == 'n;reason="policy"'
    assert _one(b"g=(x  y);p").written == "(x  y);p"


# ----------------------------------------------------------------------------- items


def test_a_token_and_a_string_differ() -> None:
    token, string = parse_dictionary(b'a=y, b="y"')
    assert isinstance(token.value, Token) and token.value == "y"
    assert isinstance(string.value, str) and not isinstance(string.value, Token)
    assert string.value == "y"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b"y", "y"),
        (b"*", "*"),
        (b"text/html", "text/html"),
        (b"a:b!#$%&'*+-.^_`|~9", "a:b!#$%&'*+-.^_`|~9"),
        (b"Upper", "Upper"),  # a token may have upper case; a key may not
    ],
)
def test_tokens(text: bytes, value: str) -> None:
    got = _value(text)
    assert isinstance(got, Token) and got == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b"0", 0),
        (b"-0", 0),
        (b"007", 7),
        (b"-42", -42),
        (b"999999999999999", 999_999_999_999_999),  # 15 digits, the most
        (b"1.5", 1.5),
        (b"-0.125", -0.125),
        (b"123456789012.123", 123456789012.123),  # 12 integer digits, 3 fractional
    ],
)
def test_integers_and_decimals(text: bytes, value: float) -> None:
    got = _value(text)
    assert got == value
    assert isinstance(got, int) is (b"." not in text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b"1234567890123456", "an integer has at most 15 digits"),
        (b"1234567890123.1", "a decimal has at most 12 integer digits"),
        (b"1.", "a decimal has 1 to 3 fractional digits"),
        (b"1.1234", "a decimal has 1 to 3 fractional digits"),
        (b"-", "a number needs a digit"),
        (b"-a", "a number needs a digit"),
        (b".5", "expected a value, found '.'"),
    ],
)
def test_malformed_numbers(text: bytes, why: str) -> None:
    assert why in _error(b"k=" + text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b'""', ""),
        (b'"policy"', "policy"),
        (b'"a \\"quoted\\" word"', 'a "quoted" word'),
        (b'"back\\\\slash"', "back\\slash"),
        (b'" ~!"', " ~!"),
    ],
)
def test_strings(text: bytes, value: str) -> None:
    assert _value(text) == value


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b'"open', "a string without its closing '\"'"),
        (b'"a\\n"', "only '\\\"' and '\\\\' are escapes in a string"),
        (b'"tab\there"', "a control character in a string"),
        (b'"\x7f"', "a control character in a string"),
    ],
)
def test_malformed_strings(text: bytes, why: str) -> None:
    assert why in _error(b"k=" + text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b":YWJj:", b"abc"),
        (b":YQ==:", b"a"),
        (b":YQ:", b"a"),  # padding may be left out (section 4.2.7)
        (b"::", b""),
        (b":+/8=:", b"\xfb\xff"),
    ],
)
def test_byte_sequences(text: bytes, value: bytes) -> None:
    assert _value(text) == value


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b":YWJj", "a byte sequence without its closing ':'"),
        (b":not base64!:", "a byte sequence is base64"),
        (b":YW-j:", "a byte sequence is base64"),  # the URL-safe alphabet is not base64 here
        (b":Y:", "a byte sequence is base64"),  # one character is no byte
    ],
)
def test_malformed_byte_sequences(text: bytes, why: str) -> None:
    assert why in _error(b"k=" + text)


def test_booleans() -> None:
    assert _value(b"?1") is True
    assert _value(b"?0") is False
    for bad in (b"?", b"?2", b"?true"):
        assert "a boolean is ?0 or ?1" in _error(b"k=" + bad)


def test_dates_are_integers_kept_apart() -> None:
    date = _value(b"@1700000000")
    assert isinstance(date, Date) and date == 1_700_000_000
    assert _value(b"@-1") == -1
    assert not isinstance(_value(b"1700000000"), Date)
    assert "a date is an integer" in _error(b"k=@1.5")
    assert "a number needs a digit" in _error(b"k=@")


def test_display_strings_are_utf8_kept_apart() -> None:
    text = _value(b'%"caf%c3%a9 %22x%22"')
    assert isinstance(text, DisplayString) and text == 'café "x"'
    assert _value(b'%""') == ""


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b'%"%C3%A9"', "'%' in a display string takes two lower-case hex digits"),
        (b'%"%c"', "'%' in a display string takes two lower-case hex digits"),
        (b'%"%ff"', "a display string is UTF-8"),
        (b"%x", 'a display string starts with %"'),
        (b'%"open', "a display string without its closing '\"'"),
        (b'%"\t"', "a control character in a display string"),
    ],
)
def test_malformed_display_strings(text: bytes, why: str) -> None:
    assert why in _error(b"k=" + text)


# ----------------------------------------------------------------------------- lists, parameters


def test_inner_lists_hold_bare_items_and_take_parameters() -> None:
    member = _one(b'g=( x "y"  1;p=2 ?0 );q=:YQ==:')
    assert member.value == ("x", "y", 1, False)
    assert isinstance(member.value, tuple) and isinstance(member.value[0], Token)
    assert member.parameters == (("q", b"a"),)
    assert _value(b"()") == ()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b"k=(", "an inner list without ')'"),
        (b"k=(y", "expected ' ' or ')' in an inner list"),
        (b"k=(y ", "expected a value, found the end"),
        (b"k=(y,z)", "expected ' ' or ')' in an inner list"),
        (b"k=((y))", "expected a value, found '('"),  # no list inside a list
    ],
)
def test_malformed_inner_lists(text: bytes, why: str) -> None:
    assert why in _error(text)


def test_parameters_hold_bare_items_after_optional_spaces() -> None:
    member = _one(b'train-ai=n;a; b=?0;c="s";d=tok;e=-1.5;f=@2')
    assert member.value == "n"
    assert member.parameters == (
        ("a", True),
        ("b", False),
        ("c", "s"),
        ("d", "tok"),
        ("e", -1.5),
        ("f", 2),
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b"k=n;", "a key must start with a-z or '*', found the end"),
        (b"k=n;X=1", "a key must start with a-z or '*', found 'X'"),
        (b"k=n;a=(b)", "expected a value, found '('"),  # a parameter is a bare item only
        (b"k=n ;a", "expected ',' between members, found ';'"),
    ],
)
def test_malformed_parameters(text: bytes, why: str) -> None:
    assert why in _error(text)


# ----------------------------------------------------------------------------- malformed


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (b"a=1,", "a trailing ',' at column 5"),
        (b"a=1, ", "a trailing ',' at column 6"),
        (b"a=1,,b=2", "a key must start with a-z or '*', found ',' at column 5"),
        (b"a=1 b=2", "expected ',' between members, found 'b' at column 5"),
        (b"\ta=1", "a key must start with a-z or '*', found '\\t' at column 1"),
        (b"a=", "expected a value, found the end at column 3"),
        (b"a=1, =2", "a key must start with a-z or '*', found '=' at column 6"),
        ("a=caf\u00e9".encode(), "not ASCII: a Structured Field dictionary is ASCII only"),
    ],
)
def test_malformed_dictionaries_say_what_and_where(text: bytes, error: str) -> None:
    assert _error(text) == error


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_any_bytes_parse_or_fail_with_the_one_error(data: bytes) -> None:
    try:
        members = parse_dictionary(data)
    except StructuredFieldError as exc:
        assert " at column " in str(exc) or str(exc).startswith("not ASCII")
    else:
        assert all(isinstance(m, Member) for m in members)


# ----------------------------------------------------------------------------- round trip

_KEYS = st.builds(
    str.__add__, st.sampled_from("akz*"), st.text("az09_-.*", max_size=6)
)
_TOKENS = st.builds(
    str.__add__, st.sampled_from("aZ*"), st.text("aZ09!#$%&'*+-.^_`|~:/", max_size=6)
)
_ITEMS: st.SearchStrategy[BareItem] = st.one_of(
    st.integers(-(10**15) + 1, 10**15 - 1),
    st.booleans(),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=8),
    _TOKENS.map(Token),
    st.binary(max_size=8),
)


def _serialise(item: BareItem) -> str:
    """RFC 9651 section 4.1, for the types drawn above."""
    if isinstance(item, bool):
        return "?1" if item else "?0"
    if isinstance(item, Token):
        return str(item)
    if isinstance(item, int):
        return str(item)
    if isinstance(item, bytes):
        return ":" + base64.b64encode(item).decode() + ":"
    assert isinstance(item, str)
    return '"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_KEYS, _ITEMS, st.lists(st.tuples(_KEYS, _ITEMS), max_size=2))))
def test_what_a_serialiser_writes_parses_back(
    members: list[tuple[str, BareItem, list[tuple[str, BareItem]]]],
) -> None:
    text = ", ".join(
        key + "=" + _serialise(item) + "".join(f";{k}={_serialise(v)}" for k, v in params)
        for key, item, params in members
    )
    parsed = parse_dictionary(text.encode("ascii"))
    assert [(m.key, m.value, list(m.parameters)) for m in parsed] == members
    for m, (_, item, params) in zip(parsed, members, strict=True):
        assert type(m.value) is type(item)  # a token stays a token, a boolean a boolean
        assert [type(v) for _, v in m.parameters] == [type(v) for _, v in params]


@pytest.mark.parametrize("value", [b":=aGVsbG8=:", b":a=GVsbG8=:", b":aGVs=bG8=:", b":aGVsbG8===:"])
def test_a_byte_sequence_has_padding_only_at_its_end(value: bytes) -> None:
    """Issue 46, item 6: '=' at the start or in the middle was skipped, and the value taken."""
    with pytest.raises(StructuredFieldError, match="base64"):
        parse_dictionary(b"a=" + value)
    assert parse_dictionary(b"a=:aGVsbG8=:")[0].value == b"hello"
    assert parse_dictionary(b"a=:aGVsbG8:")[0].value == b"hello"  # padding synthesized
