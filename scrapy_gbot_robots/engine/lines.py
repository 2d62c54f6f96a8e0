"""Bytes to logical robots.txt lines: the one tokenizer shared by the matcher and the linter.

It follows Google's ``RobotsTxtParser`` byte for byte: the body is bytes (never decoded), only
CR, LF and CRLF end a line, a leading BOM prefix is skipped, a line keeps 16,663 bytes, a NUL
ends a line's content, ``#`` starts a comment anywhere, keys are matched by ASCII
case-insensitive prefix (with Google's accepted typos), and allow/disallow values are
normalised (``%xx`` upper-cased, bytes >= 0x80 percent-escaped).
"""

from __future__ import annotations

import enum
import re
import sys
from dataclasses import dataclass

MAX_LINE_BYTES = 16663  # Google's buffer is 2083 * 8 bytes, one of which holds the final NUL.
MAX_BODY_BYTES = 512_000  # 500 KiB; content past it is ignored.

_BOM = b"\xef\xbb\xbf"
_SPACE_TAB = b" \t"


class LineKind(enum.IntEnum):
    """What a directive line is, after key recognition."""

    USER_AGENT = 1
    ALLOW = 2
    DISALLOW = 3
    SITEMAP = 4
    UNKNOWN = 5


_USER_AGENT_KEYS = (b"user-agent", b"useragent", b"user agent")
_ALLOW_KEYS = (b"allow",)
_DISALLOW_KEYS = (b"disallow", b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw")
_SITEMAP_KEYS = (b"sitemap", b"site-map")
#: RSL 1.0's global ``License:`` line (a licence document's URL).  Google's parser reads it
#: as an unknown key, and so does :func:`classify` (a verdict cannot change); the rules
#: (``RobotsTxt.licenses``) and the linter recognise it by this exact key, lower-cased.
LICENSE_KEY = b"license"
_CANONICAL = {
    LineKind.USER_AGENT: b"user-agent",
    LineKind.ALLOW: b"allow",
    LineKind.DISALLOW: b"disallow",
    LineKind.SITEMAP: b"sitemap",
}


def bom_length(body: bytes) -> int:
    """How many leading bytes the parser skips as a (possibly partial) UTF-8 BOM."""
    n = 0
    while n < 3 and n < len(body) and body[n] == _BOM[n]:
        n += 1
    return n


def physical_lines(body: bytes) -> list[bytes]:
    """Split after the BOM on CR, LF and CRLF only; the last (possibly empty) line counts."""
    skip = bom_length(body)
    if skip:
        body = body[skip:]
    if body.find(b"\r") >= 0:  # (bytes.find: see fast_matcher_lines)
        body = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return body.split(b"\n")


_classified: dict[bytes, tuple[LineKind, bool]] = {}
_CLASSIFIED_MAX = 4096  # real files use a handful of spellings; hostile ones can't grow this


def classify(key: bytes) -> tuple[LineKind, bool]:
    """Recognise a key by ASCII case-insensitive prefix; the flag says a typo was accepted."""
    known = _classified.get(key)
    if known is not None:
        return known
    lowered = key.lower()
    if lowered.startswith(_USER_AGENT_KEYS):
        result = LineKind.USER_AGENT, not lowered.startswith(b"user-agent")
    elif lowered.startswith(_ALLOW_KEYS):
        result = LineKind.ALLOW, False
    elif lowered.startswith(_DISALLOW_KEYS):
        result = LineKind.DISALLOW, not lowered.startswith(b"disallow")
    elif lowered.startswith(_SITEMAP_KEYS):
        result = LineKind.SITEMAP, not lowered.startswith(b"sitemap")
    else:
        result = LineKind.UNKNOWN, False
    if len(_classified) < _CLASSIFIED_MAX:
        _classified[key] = result
    return result


# Bytes >= 0x80 become %XX (upper-case hex), as Google's MaybeEscapePattern writes them.
_HIGH_BYTES = {byte: f"%{byte:02X}" for byte in range(0x80, 0x100)}
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_LOWER_ESCAPE = re.compile(r"%(?:[a-f][0-9A-Fa-f]|[0-9A-F][a-f])")


def _upper(match: re.Match[str]) -> str:
    return match.group().upper()


def escape_pattern(value: bytes) -> str:
    """Google's ``MaybeEscapePattern``: the result is always ASCII, so it can be a ``str``.

    Escaping high bytes first cannot create a new ``%xx`` (each escape starts with ``%``),
    so upper-casing the escapes afterwards gives what Google's single pass gives.
    """
    text = value.decode("latin-1")
    if not value.isascii():
        text = text.translate(_HIGH_BYTES)
    if "%" in text and _LOWER_ESCAPE.search(text) is not None:
        text = _ESCAPE.sub(_upper, text)
    return text


# The outcome of splitting one line: (key, value, colon) or an "ignored" reason string, or None
# for a line with no content.
Split = tuple[bytes, bytes, bool] | str | None


def split_line(content: bytes) -> Split:
    """Key and value of a line whose length, NUL and comment cuts are already applied."""
    content = content.strip()
    if not content:
        return None
    sep = content.find(b":")
    colon = sep >= 0
    if not colon:
        # A missing colon is forgiven when whitespace separates exactly two tokens.
        space = content.find(b" ")
        tab = content.find(b"\t")
        sep = space if tab < 0 or 0 <= space < tab else tab
        if sep < 0:
            return "no-separator"
        rest = content[sep:].lstrip(_SPACE_TAB)
        if b" " in rest or b"\t" in rest:
            return "too-many-tokens"
    key = content[:sep].strip()
    if not key:
        return "empty-key"
    return key, content[sep + 1 :].strip(), colon


# The common line, "key: value # comment", in one C call: key up to the first colon, value
# up to the comment.  Lines it does not fit go through split_line (same rules, more steps).
_COLON_LINE = re.compile(rb"([^:#]*):([^#]*)")


def directives(body: bytes) -> list[tuple[int, LineKind, bytes, bytes]]:
    """``(line number, kind, key, value)`` for every line that yields a key and value.

    The value is as written; allow/disallow callers normalise it with :func:`escape_pattern`.
    """
    lines = physical_lines(body)
    if body.find(b"\0") >= 0 or len(body) > MAX_LINE_BYTES:
        lines = [_cut(line) for line in lines]
    colon_line = _COLON_LINE.match
    out: list[tuple[int, LineKind, bytes, bytes]] = []
    append = out.append
    number = 0
    for line in lines:
        number += 1
        match = colon_line(line)
        if match is not None:
            key = match.group(1).strip()
            if not key:
                continue
            value = match.group(2).strip()
        else:
            parts = split_line(line.partition(b"#")[0])
            if parts is None or isinstance(parts, str):
                continue
            key, value, _ = parts
        append((number, classify(key)[0], key, value))
    return out


def _cut(line: bytes) -> bytes:
    """Apply the parser's line-length and NUL cuts."""
    line = line[:MAX_LINE_BYTES]
    nul = line.find(b"\0")
    return line if nul < 0 else line[:nul]


# The matcher only needs user-agent, allow and disallow lines, in order.  One regular
# expression finds every line that starts (after whitespace) with one of their spellings and
# splits it at the first colon, unless a "#" comes first.  The search is anchored on a
# literal newline, so the engine skips from line to line in C; greedy classes keep it
# linear.  It is exact when the body has no NUL and no line over the length cap; a line
# without its colon (whitespace may stand in for it) is left to colonless_line().  After a
# line's leading whitespace only a key can match, never more whitespace, so giving some
# back cannot help: a possessive run (Python 3.11 and later) never tries.  Backtracking
# over it tried the keys again at every space: 1.2 ms for 104 KB of indented HTML served as
# robots.txt (www.tjx.com in the corpus), 0.22 ms without, and 2 % off a median file.
# Each group costs the search (a third of it, all six before), so a line gives its kind by
# the key's first letter alone (a one-character string, which CPython never allocates), its
# value when it has a colon, and what follows its key when it has none, which must say more
# than the key to be read.  The key "user agent" is only read with a colon: without one
# its space splits it (Google then reads the key "user"), so that spelling is the only one
# from which colonless_line() could not rebuild the line.
_LEAD = r"[ \t\v\f]*+" if sys.version_info >= (3, 11) else r"[ \t\v\f]*"


def _key_group(keys: tuple[bytes, ...]) -> str:
    """One kind's spellings (classify()'s): a group of their shared first letter, then the
    rest of each; a spelling with a space only where a colon follows."""
    rests = (
        re.escape(key[1:].decode()) + (r"(?=[^:#\n]*:)" if b" " in key else "") for key in keys
    )
    return f"((?i:{keys[0][:1].decode()}))(?i:{'|'.join(rests)})"


_MATCHER_LINE = re.compile(
    r"\n"
    + _LEAD
    + f"(?:{_key_group(_USER_AGENT_KEYS)}|{_key_group(_ALLOW_KEYS)}"
    + f"|{_key_group(_DISALLOW_KEYS)})"
    + r"(?:[^:#\n]*:([^#\n]*)|([^:#\n]+))",
    re.ASCII,  # case folded for ASCII letters only, as Google's parser folds it (and cheaper)
)
# The same for a body without "#" (most files): a class of one excluded character is
# counted in a tight loop, a class of two one character at a time (a fifth of the search).
_PLAIN_LINE = re.compile(
    _MATCHER_LINE.pattern.replace("#", "").replace(":([^\\n]*)", ":(.*)"), re.ASCII
)
_MATCHER_KINDS = (LineKind.USER_AGENT, LineKind.ALLOW, LineKind.DISALLOW)
WS = " \t\n\v\f\r"  # what C's isspace() accepts; str.strip() alone would strip more

# One user-agent, allow or disallow line as the fast path finds it: (user-agent, allow,
# disallow: the key's first letter in one of the three, the others empty; the value, after
# the colon; what follows the key when the line has no colon, else empty).
FastLine = tuple[str, str, str, str, str]
_AS_FAST = {
    LineKind.USER_AGENT: ("u", "", ""),
    LineKind.ALLOW: ("", "a", ""),
    LineKind.DISALLOW: ("", "", "d"),
}


# A line over MAX_LINE_BYTES covers a whole block of this many bytes that starts at a
# multiple of it (see has_long_line).
_LONG_BLOCK = (MAX_LINE_BYTES + 1) // 2


def has_long_line(text: bytes) -> bool:
    """Whether a line of ``text`` (lines end at LF only) is longer than MAX_LINE_BYTES.

    A line that long holds a whole aligned block of ``_LONG_BLOCK`` bytes, so one C search
    per block finds every candidate, and only a block without a newline is measured: a
    500 KiB body costs some 60 searches.  (A regular expression tried at every line start
    took 200 times as long on the corpus's large bodies; splitting the body, 100 times,
    and holds a list of every line.)
    """
    size = len(text)
    block = _LONG_BLOCK
    at = 0
    while at < size:
        end = at + block
        if text.find(b"\n", at, end) < 0:
            start = text.rfind(b"\n", 0, at) + 1
            stop = text.find(b"\n", end)
            if (size if stop < 0 else stop) - start > MAX_LINE_BYTES:
                return True
        at = end
    return False


def fast_matcher_lines(body: bytes) -> list[FastLine] | None:
    """The user-agent, allow and disallow lines of ``body`` by one regex, or None.

    None when the fast path would not be exact: a body with a NUL or a line over the length
    cap.  Callers then use :func:`directives`.  Allow and disallow values come normalised
    (:func:`escape_pattern`; a body that is ASCII without ``%`` needs nothing).  A line
    without its colon (whitespace may stand in for it) is left for the caller to pass through
    :func:`colonless_line`.
    """
    # bytes.find, not "in": for bytes, "in" first tries its operand as an integer and
    # formats the TypeError it then clears (4 % of this function's instructions on the
    # corpus's middle files).
    text = body[bom_length(body) :] if body[:1] == b"\xef" else body
    if text.find(b"\r") >= 0:
        text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if text.find(b"\0") >= 0 or (len(text) > MAX_LINE_BYTES and has_long_line(text)):
        return None
    lines = _MATCHER_LINE if text.find(b"#") >= 0 else _PLAIN_LINE
    if text.isascii() and text.find(b"%") < 0:
        found: list[FastLine] = lines.findall("\n" + text.decode("ascii"))
        return found
    # Latin-1 reads each byte as one character, so the regex splits exactly as on bytes
    # (its classes and its case folding are ASCII); then the values that need it are
    # normalised as the general path normalises them.
    return [
        (*entry[:3], escape_pattern(entry[3].encode("latin-1")), "")
        if not entry[4] and not entry[0] and (not entry[3].isascii() or "%" in entry[3])
        else entry
        for entry in lines.findall("\n" + text.decode("latin-1"))
    ]


def colonless_line(entry: FastLine) -> FastLine | None:
    """A fast-path line without a colon, by the whitespace-separator rule, as one with it.

    None when the line gives no user-agent, allow or disallow directive.  The line is
    rebuilt with its kind's plain spelling: every other spelling the regex reads without a
    colon is as free of whitespace, and any key that starts with one is of its kind, so
    Google splits both lines at the same place into keys of one kind and the same value.
    """
    key = "user-agent" if entry[0] else "allow" if entry[1] else "disallow"
    parts = split_line((key + entry[4]).encode("latin-1"))
    if not isinstance(parts, tuple):
        return None
    kind = classify(parts[0])[0]
    if kind not in _AS_FAST:
        return None
    ua, allow, disallow = _AS_FAST[kind]
    value = parts[1].decode("latin-1") if ua else escape_pattern(parts[1])
    return ua, allow, disallow, value, ""


def matcher_directives(body: bytes) -> list[tuple[int, LineKind, bytes, bytes]]:
    """The user-agent, allow and disallow entries of :func:`directives`."""
    return [entry for entry in directives(body) if entry[1] in _MATCHER_KINDS]


@dataclass(frozen=True, slots=True)
class LineReport:
    """How Google's parser reads one physical line; the linter's raw material."""

    number: int
    text: bytes
    kind: LineKind | None
    key: bytes
    value: bytes
    pattern: str | None
    comment: bool
    colon: bool
    typo: bool
    exact_key: bool
    too_long: bool
    nul: bool
    ignored: str | None


def report(body: bytes) -> list[LineReport]:
    """One :class:`LineReport` per physical line, using the same cuts and split as the matcher."""
    out: list[LineReport] = []
    for number, text in enumerate(physical_lines(body), start=1):
        line = text
        too_long = len(line) > MAX_LINE_BYTES
        if too_long:
            line = line[:MAX_LINE_BYTES]
        nul_at = line.find(b"\0")
        if nul_at >= 0:
            line = line[:nul_at]
        hash_at = line.find(b"#")
        if hash_at >= 0:
            line = line[:hash_at]
        parts = split_line(line)
        kind: LineKind | None = None
        key = value = b""
        pattern: str | None = None
        colon = typo = exact = False
        ignored: str | None = None
        if isinstance(parts, str):
            ignored = parts
        elif parts is not None:
            key, value, colon = parts
            kind, typo = classify(key)
            exact = _CANONICAL.get(kind) == key.lower()
            if kind in (LineKind.ALLOW, LineKind.DISALLOW):
                pattern = escape_pattern(value)
        out.append(
            LineReport(
                number=number,
                text=text,
                kind=kind,
                key=key,
                value=value,
                pattern=pattern,
                comment=hash_at >= 0,
                colon=colon,
                typo=typo,
                exact_key=exact,
                too_long=too_long,
                nul=nul_at >= 0,
                ignored=ignored,
            )
        )
    return out
