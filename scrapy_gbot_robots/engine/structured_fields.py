"""RFC 9651 Structured Field Dictionaries, parsed strictly: a failure is a failure.

``Content-Usage`` values (``engine/usage.py``) are Dictionaries (RFC 9651 section 3.2), and a
value that does not parse states no preference at all, so every type a member may hold is
parsed as the RFC's section 4.2 says, even the types no vocabulary uses: a Dictionary is
accepted or refused exactly as a conforming parser would.

Kept: the Dictionary (the only top-level type robots.txt uses), members with an Inner List or
a bare Item, Parameters, and every bare Item type: Integer, Decimal, String, Token, Byte
Sequence, Boolean, Date and Display String. A member keeps its parameters; an inner list's
items are checked with theirs, and keep only their values. An Item as a whole field is parsed
too (:func:`parse_item`), for the HTTP working group's test suite, whose tests of each bare
item type are Item fields (``tests/data/structured-field-tests``). Not kept: Lists as
top-level fields (no caller). Pure Python, no I/O.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

_LCALPHA = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
_ALPHA = _LCALPHA | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_KEY_CHARS = _LCALPHA | _DIGITS | frozenset("_-.*")
_TOKEN_CHARS = _ALPHA | _DIGITS | frozenset("!#$%&'*+-.^_`|~:/")
_B64_CHARS = _ALPHA | _DIGITS | frozenset("+/=")
_LC_HEX = frozenset("0123456789abcdef")


class StructuredFieldError(ValueError):
    """A Structured Field parse failure: what was wrong, and at which column."""


class Token(str):
    """An sf-token, kept apart from an sf-string (``y`` and ``"y"`` differ)."""

    __slots__ = ()


class DisplayString(str):
    """An sf-displaystring (``%"caf%c3%a9"``), kept apart from an sf-string."""

    __slots__ = ()


class Date(int):
    """An sf-date (``@1700000000``): seconds since the epoch, kept apart from an integer."""

    __slots__ = ()


#: A bare item: int (Integer), float (Decimal), str (String), Token, bytes (Byte Sequence),
#: bool (Boolean), Date or DisplayString. An inner list is a tuple of bare items.
BareItem = int | float | str | bytes | bool
Parameters = tuple[tuple[str, BareItem], ...]


@dataclass(frozen=True, slots=True)
class Member:
    """One member of a Dictionary, in the order written (a repeated key appears each time)."""

    key: str
    value: BareItem | tuple[BareItem, ...]  # True for a bare key (``search``)
    parameters: Parameters
    written: str  # the value as written with its parameters (a bare key: its parameters)


def parse_dictionary(data: bytes) -> list[Member]:
    """The members of a Dictionary field value, or :class:`StructuredFieldError`.

    A repeated key keeps each occurrence: under the RFC the last one counts (section 4.2.2),
    and the caller that reports duplicates needs to see them.
    """
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise StructuredFieldError(
            "not ASCII: a Structured Field dictionary is ASCII only"
        ) from None
    return _Parser(text).dictionary()


def parse_item(data: bytes) -> tuple[BareItem, Parameters]:
    """An Item field value (RFC 9651 section 4.2.3: a bare item and its parameters), or
    :class:`StructuredFieldError`."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise StructuredFieldError("not ASCII: a Structured Field is ASCII only") from None
    return _Parser(text).item()


class _Parser:
    """RFC 9651 section 4.2, over one ASCII string, left to right."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def _peek(self) -> str:
        """The next character, or "" at the end (which is in no character set)."""
        return self.text[self.at] if self.at < len(self.text) else ""

    def _fail(self, why: str) -> StructuredFieldError:
        return StructuredFieldError(f"{why} at column {self.at + 1}")

    def dictionary(self) -> list[Member]:
        text = self.text
        while self._peek() == " ":
            self.at += 1
        members: list[Member] = []
        while self.at < len(text):
            key = self._key()
            start = self.at
            value: BareItem | tuple[BareItem, ...]
            if self._peek() == "=":
                self.at += 1
                start = self.at
                value = self._inner_list() if self._peek() == "(" else self._bare_item()
            else:
                value = True
            parameters = self._parameters()
            members.append(Member(key, value, parameters, text[start : self.at]))
            while self._peek() in (" ", "\t"):
                self.at += 1
            if self.at >= len(text):
                break
            if text[self.at] != ",":
                raise self._fail(f"expected ',' between members, found {text[self.at]!r}")
            self.at += 1
            while self._peek() in (" ", "\t"):
                self.at += 1
            if self.at >= len(text):
                raise self._fail("a trailing ','")
        return members

    def item(self) -> tuple[BareItem, Parameters]:
        while self._peek() == " ":
            self.at += 1
        value = self._bare_item()
        parameters = self._parameters()
        while self._peek() == " ":
            self.at += 1
        if self.at < len(self.text):
            raise self._fail(f"expected the end of the item, found {self.text[self.at]!r}")
        return value, parameters

    def _key(self) -> str:
        first = self._peek()
        if first not in _LCALPHA and first != "*":
            shown = repr(first) if first else "the end"
            raise self._fail(f"a key must start with a-z or '*', found {shown}")
        start = self.at
        while self._peek() in _KEY_CHARS:
            self.at += 1
        return self.text[start : self.at]

    def _parameters(self) -> Parameters:
        found: list[tuple[str, BareItem]] = []
        while self._peek() == ";":
            self.at += 1
            while self._peek() == " ":
                self.at += 1
            key = self._key()
            value: BareItem = True
            if self._peek() == "=":
                self.at += 1
                value = self._bare_item()
            found.append((key, value))
        return tuple(found)

    def _inner_list(self) -> tuple[BareItem, ...]:
        self.at += 1  # "("
        items: list[BareItem] = []
        while self.at < len(self.text):
            while self._peek() == " ":
                self.at += 1
            if self._peek() == ")":
                self.at += 1
                return tuple(items)
            items.append(self._bare_item())
            self._parameters()
            if self._peek() not in (" ", ")"):
                raise self._fail("expected ' ' or ')' in an inner list")
        raise self._fail("an inner list without ')'")

    def _bare_item(self) -> BareItem:
        first = self._peek()
        if first == "-" or first in _DIGITS:
            return self._number()
        if first == '"':
            return self._string()
        if first in _ALPHA or first == "*":
            start = self.at
            while self._peek() in _TOKEN_CHARS:
                self.at += 1
            return Token(self.text[start : self.at])
        if first == ":":
            return self._bytes()
        if first == "?":
            value = self.text[self.at + 1 : self.at + 2]
            if value not in ("0", "1"):
                raise self._fail("a boolean is ?0 or ?1")
            self.at += 2
            return value == "1"
        if first == "@":
            self.at += 1
            date = self._number()
            if not isinstance(date, int):
                raise self._fail("a date is an integer")
            return Date(date)
        if first == "%":
            return self._display_string()
        shown = repr(first) if first else "the end"
        raise self._fail(f"expected a value, found {shown}")

    def _number(self) -> int | float:
        start = self.at
        if self._peek() == "-":
            self.at += 1
        if self._peek() not in _DIGITS:
            raise self._fail("a number needs a digit")
        digits = 0
        point = -1
        while self._peek() in _DIGITS or (self._peek() == "." and point < 0):
            if self._peek() == ".":
                if digits > 12:
                    raise self._fail("a decimal has at most 12 integer digits")
                point = digits
            else:
                digits += 1
            self.at += 1
            if point < 0 and digits > 15:
                raise self._fail("an integer has at most 15 digits")
        written = self.text[start : self.at]
        if point < 0:
            return int(written)
        fraction = digits - point
        if fraction < 1 or fraction > 3:
            raise self._fail("a decimal has 1 to 3 fractional digits")
        return float(written)

    def _string(self) -> str:
        self.at += 1
        out: list[str] = []
        while self.at < len(self.text):
            char = self.text[self.at]
            self.at += 1
            if char == "\\":
                escaped = self._peek()
                if escaped not in ('"', "\\"):
                    raise self._fail("only '\\\"' and '\\\\' are escapes in a string")
                self.at += 1
                out.append(escaped)
            elif char == '"':
                return "".join(out)
            elif ord(char) < 0x20 or ord(char) > 0x7E:
                raise self._fail("a control character in a string")
            else:
                out.append(char)
        raise self._fail("a string without its closing '\"'")

    def _bytes(self) -> bytes:
        end = self.text.find(":", self.at + 1)
        if end < 0:
            raise self._fail("a byte sequence without its closing ':'")
        content = self.text[self.at + 1 : end]
        if any(char not in _B64_CHARS for char in content):
            raise self._fail("a byte sequence is base64")
        self.at = end + 1
        try:
            # validate=True: '=' only as padding at the end (never first nor in the middle,
            # which a lenient decoder skips); missing padding is synthesized (section 4.2.7).
            return base64.b64decode(content + "=" * (-len(content) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise self._fail("a byte sequence is base64") from None

    def _display_string(self) -> DisplayString:
        if self.text[self.at + 1 : self.at + 2] != '"':
            raise self._fail("a display string starts with %\"")
        self.at += 2
        out = bytearray()
        while self.at < len(self.text):
            char = self.text[self.at]
            self.at += 1
            if ord(char) < 0x20 or ord(char) > 0x7E:
                raise self._fail("a control character in a display string")
            if char == "%":
                pair = self.text[self.at : self.at + 2]
                if len(pair) < 2 or any(c not in _LC_HEX for c in pair):
                    raise self._fail("'%' in a display string takes two lower-case hex digits")
                out.append(int(pair, 16))
                self.at += 2
            elif char == '"':
                try:
                    return DisplayString(out.decode("utf-8"))
                except UnicodeDecodeError:
                    raise self._fail("a display string is UTF-8") from None
            else:
                out.append(ord(char))
        raise self._fail("a display string without its closing '\"'")
