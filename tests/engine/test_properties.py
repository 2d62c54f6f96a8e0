"""Property tests: random bytes and random robots-like files against a reference oracle.

The oracle below is a small, deliberately naive Python transcription of Google's reference
parser (google/robotstxt robots.cc: RobotsTxtParser::Parse, GetKeyAndValueFrom,
ParsedRobotsKey, MaybeEscapePattern, GetPathParamsQuery, RobotsMatchStrategy::Matches and the
RobotsMatcher handlers, disallow() and matching_line()). It re-parses the whole body for every
check, byte by byte, so it is slow but easy to compare line by line with the C++.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import parse

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --------------------------------------------------------------------------------------------
# The oracle: a direct transcription of robots.cc
# --------------------------------------------------------------------------------------------

_BOM = b"\xef\xbb\xbf"
_MAX_LINE = 16_663  # kMaxLineLen - 1 = 2083 * 8 - 1 bytes kept per line
_MAX_BODY = 512_000
_WS = b" \t\n\r\x0b\x0c"  # absl::ascii_isspace, and isspace() in the C locale
_HEX = b"0123456789abcdefABCDEF"
_TOKEN_BYTES = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
_NPOS = 1 << 62  # std::string::npos


def ref_lines(body: bytes) -> list[bytes]:
    """RobotsTxtParser::Parse: BOM-prefix skip, LF/CR/CRLF line ends, long lines cut."""
    lines: list[bytes] = []
    buf = bytearray()
    bom_pos = 0
    last_was_cr = False
    for ch in body:
        if bom_pos < 3:
            matched = ch == _BOM[bom_pos]
            bom_pos += 1
            if matched:
                continue
        bom_pos = 3
        if ch not in (0x0A, 0x0D):
            if len(buf) < _MAX_LINE:
                buf.append(ch)
        else:
            crlf_continuation = not buf and last_was_cr and ch == 0x0A
            if not crlf_continuation:
                lines.append(bytes(buf))
            buf = bytearray()
            last_was_cr = ch == 0x0D
    lines.append(bytes(buf))
    return lines


def ref_key_value(line: bytes) -> tuple[bytes, bytes] | None:
    """GetKeyAndValueFrom: NUL ends the C string, '#' starts a comment, then the separator."""
    line = line.split(b"\0", 1)[0].split(b"#", 1)[0].strip(_WS)
    sep = line.find(b":")
    if sep < 0:
        blanks = [i for i in (line.find(b" "), line.find(b"\t")) if i >= 0]
        if not blanks:
            return None
        sep = min(blanks)
        if any(c in b" \t" for c in line[sep:].lstrip(b" \t")):
            return None  # more than two whitespace-separated tokens
    key = line[:sep].strip(_WS)
    if not key:
        return None
    return key, line[sep + 1 :].strip(_WS)


def ref_kind(key: bytes) -> str:
    """ParsedRobotsKey::Parse (bytes.lower() is ASCII-only, like StartsWithIgnoreCase)."""
    k = key.lower()
    if k.startswith((b"user-agent", b"useragent", b"user agent")):
        return "user-agent"
    if k.startswith(b"allow"):
        return "allow"
    if k.startswith((b"disallow", b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw")):
        return "disallow"
    if k.startswith((b"sitemap", b"site-map")):
        return "sitemap"
    return "unknown"


def ref_escape(value: bytes) -> bytes:
    """MaybeEscapePattern: upper-case %xx, escape every byte >= 0x80."""
    out = bytearray()
    i = 0
    while i < len(value):
        c = value[i]
        if c == 0x25 and i + 2 < len(value) and value[i + 1] in _HEX and value[i + 2] in _HEX:
            out += b"%" + value[i + 1 : i + 3].upper()
            i += 3
            continue
        out += b"%%%02X" % c if c & 0x80 else bytes([c])
        i += 1
    return bytes(out)


def ref_matches(path: bytes, pattern: bytes) -> bool:
    """RobotsMatchStrategy::Matches: the sorted set of path prefixes matching the pattern."""
    pathlen = len(path)
    pos = [0]
    for k, p in enumerate(pattern):
        if p == 0x24 and k + 1 == len(pattern):  # '$' only at the very end
            return pos[-1] == pathlen
        if p == 0x2A:  # '*'
            pos = list(range(pos[0], pathlen + 1))
        else:
            pos = [i + 1 for i in pos if i < pathlen and path[i] == p]
            if not pos:
                return False
    return True


def _find_first_of(s: bytes, chars: bytes, start: int) -> int:
    return next((i for i in range(start, len(s)) if s[i] in chars), _NPOS)


def ref_path(url: bytes) -> bytes:
    """GetPathParamsQuery."""
    start = 2 if url[:2] == b"//" else 0
    early_path = _find_first_of(url, b"/?;", start)
    proto = url.find(b"://", start)
    proto = _NPOS if proto < 0 else proto
    if early_path < proto:
        proto = _NPOS
    proto = start if proto == _NPOS else proto + 3
    path_start = _find_first_of(url, b"/?;", proto)
    if path_start == _NPOS:
        return b"/"
    hash_pos = url.find(b"#", start)
    hash_pos = _NPOS if hash_pos < 0 else hash_pos
    if hash_pos < path_start:
        return b"/"
    end = len(url) if hash_pos == _NPOS else hash_pos
    if url[path_start] != 0x2F:
        return b"/" + url[path_start:end]
    return url[path_start:end]


def ref_extract_agent(value: bytes) -> bytes:
    """RobotsMatcher::ExtractUserAgent."""
    n = 0
    while n < len(value) and value[n] in _TOKEN_BYTES:
        n += 1
    return value[:n]


@dataclass
class RefVerdict:
    allowed: bool
    line: int
    named: bool  # ever_seen_specific_agent()


def reference(body: bytes, agent: str, url: str) -> RefVerdict:
    """RobotsMatcher::OneAgentAllowedByRobots(body[:512000], agent, url) + matching_line()."""
    # The path reaches Matches() as a C string (path_.c_str()): a NUL ends it.
    path = ref_path(url.encode("utf-8")).split(b"\0", 1)[0]
    me = agent.encode("utf-8").lower()
    # [priority, line] for allow/disallow x specific/global; Match() starts at (-1, 0)
    best = {k: [-1, 0] for k in ("allow-s", "allow-g", "disallow-s", "disallow-g")}
    seen_global = seen_specific = ever_specific = seen_separator = False

    def record(kind: str, pattern: bytes, line: int) -> None:
        slot = best[kind + ("-s" if seen_specific else "-g")]
        if slot[0] < len(pattern):  # strictly greater: the first of equals keeps its line
            slot[0], slot[1] = len(pattern), line

    for number, raw in enumerate(ref_lines(body[:_MAX_BODY]), 1):
        kv = ref_key_value(raw)
        if kv is None:
            continue
        kind = ref_kind(kv[0])
        value = kv[1] if kind in ("user-agent", "sitemap") else ref_escape(kv[1])
        if kind == "user-agent":
            if seen_separator:
                seen_specific = seen_global = seen_separator = False
            if value[:1] == b"*" and (len(value) == 1 or value[1] in _WS):
                seen_global = True
            elif ref_extract_agent(value).lower() == me:
                ever_specific = seen_specific = True
        elif kind in ("allow", "disallow") and (seen_global or seen_specific):
            seen_separator = True
            if ref_matches(path, value):
                record(kind, value, number)
            elif kind == "allow":  # index.htm -> directory, as "Allow: <dir>/$"
                slash = value.rfind(b"/")
                if slash >= 0 and value[slash:].startswith(b"/index.htm"):
                    alt = value[: slash + 1] + b"$"
                    if ref_matches(path, alt):
                        record(kind, alt, number)
    a_s, d_s, a_g, d_g = (best[k] for k in ("allow-s", "disallow-s", "allow-g", "disallow-g"))
    if a_s[0] > 0 or d_s[0] > 0:
        disallow = d_s[0] > a_s[0]
    elif ever_specific:
        disallow = False
    elif a_g[0] > 0 or d_g[0] > 0:
        disallow = d_g[0] > a_g[0]
    else:
        disallow = False
    a, d = (a_s, d_s) if ever_specific else (a_g, d_g)
    line = d[1] if d[0] > a[0] else a[1]  # HigherPriorityMatch(disallow, allow)
    return RefVerdict(not disallow, line, ever_specific)


def ref_sitemaps(body: bytes) -> tuple[str, ...]:
    found = []
    for raw in ref_lines(body[:_MAX_BODY]):
        kv = ref_key_value(raw)
        # robots.cc hands empty values to HandleSitemap too; the engine keeps URLs only.
        if kv is not None and ref_kind(kv[0]) == "sitemap" and kv[1]:
            found.append(kv[1].decode("utf-8", "backslashreplace"))
    return tuple(found)


def test_oracle_sanity() -> None:
    """The oracle itself on a few verdicts worked out by hand from robots.cc."""
    body = b"\xefUser-agent: *\r\nDisallow: /fish*\r\nAllow: /fish\nAllow: /index.html"
    assert reference(body, "Googlebot", "https://e.com/fish") == RefVerdict(False, 2, False)
    assert reference(body, "Googlebot", "https://e.com/") == RefVerdict(True, 4, False)
    assert reference(body, "Googlebot", "https://e.com/x") == RefVerdict(True, 0, False)
    assert ref_path(b"https://e.com?q#f") == b"/?q"
    assert ref_escape(b"/a%2f\xc3\xa9%zz") == b"/a%2F%C3%A9%zz"
    assert ref_matches(b"/a$b", b"/a$b") and not ref_matches(b"/ab", b"/a$")
    assert ref_key_value(b"Disallow /a:b") == (b"Disallow /a", b"b")
    assert ref_key_value(b"Disallow /a /b") is None


# --------------------------------------------------------------------------------------------
# Strategies: robots-like files, URLs, agents
# --------------------------------------------------------------------------------------------

KEYS = [
    b"User-agent", b"user-agent", b"USER-AGENT", b"useragent", b"User agent", b"User-agents",
    b"Allow", b"allow", b"Allowance", b"alow",
    b"Disallow", b"disallow", b"DISALLOW", b"disalow", b"dissallow", b"Disallowed", b"Dis\xffallow",
    b"Sitemap", b"site-map", b"Crawl-delay", b"Noindex", b"Host", b"",
]  # fmt: skip
AGENT_VALUES = [
    b"*", b"*", b"*", b"Googlebot", b"* foo", b"*\tfoo", b"*foo", b"**", b"*/*", b"Googlebot",
    b"googlebot", b"GOOGLEBOT/2.1", b"Googlebot-Image", b"Googlebot*", b"Bingbot", b"foo_bar",
    b"Google\xc3\xb6t", b"Google\xffbot",
    b"gbot", b"gbotcheck", b"", b"\xc2\xa0Googlebot",
]  # fmt: skip
PATH_ATOMS = [
    b"/", b"/", b"a", b"b", b"ab", b"*", b"*", b"$", b"%2f", b"%2F", b"%", b"%e9", b"\xc3\xa9",
    b"\xe9", b"?", b";", b"=", b".", b"index.html", b"index.htm", b"~", b"%7E", b"#c", b"\x00",
    b"\xc2\xa0", b" ", b"\t", b":", b"\x0b", b"\x1c",
]  # fmt: skip
SEPARATORS = [b": ", b":", b" : ", b":\t", b" ", b"\t", b"", b"  "]
EOLS = [b"\n", b"\r", b"\r\n"]
PREFIXES = [b"", b"", b"", _BOM, b"\xef", b"\xef\xbb", b"\xef\xbf", _BOM + _BOM, b"\n"]
QUERY_AGENTS = [
    "Googlebot", "Googlebot", "Googlebot", "googlebot", "GOOGLEBOT", "Bingbot", "foo_bar",
    "Googleb", "Google", "gbot", "",
    "Googlebot-Image", "Googlebot/2.1", "Foo Bar", "*", "foo", "\u212abot",
]  # fmt: skip
URL_ATOMS = [
    "/", "/", "/", "a", "a", "b", "ab", "%2F", "%2f", "$", "?", ";", "#", "\u00e9", "%C3%A9",
    "%E9", "*",
    "index.html", "~", "%7E", ":", "//", "=", ".", "%20", " ",
]  # fmt: skip
URL_BASES = ["https://example.com/"] * 6 + ["https://example.com"] * 2
URL_BASES += ["http://example.com:8080", "//example.com", "HTTP://E.COM", ""]

RULE_KEYS = [b"Allow", b"allow", b"Disallow", b"disallow", b"DISALLOW", b"disalow", b"Disallowed"]
path_values = st.builds(
    lambda head, atoms: head + b"".join(atoms),
    st.sampled_from([b"/", b"/", b"/", b"/*", b"*", b"", b"a"]),
    st.lists(st.sampled_from(PATH_ATOMS[:8] * 3 + PATH_ATOMS), max_size=2),
)
values = st.one_of(path_values, st.sampled_from(AGENT_VALUES), st.binary(max_size=12))


@st.composite
def robots_lines(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return b""
    if kind == 1:
        return b"# " + draw(st.binary(max_size=10))
    if kind == 2:
        return draw(st.binary(max_size=24).filter(lambda b: b"\n" not in b and b"\r" not in b))
    if kind in (3, 4, 5):
        key, sep = draw(st.sampled_from(KEYS[:6])), draw(st.sampled_from(SEPARATORS[:3]))
        return key + sep + draw(st.sampled_from(AGENT_VALUES))
    if kind == 6:
        line = draw(st.sampled_from(KEYS)) + draw(st.sampled_from(SEPARATORS)) + draw(values)
    else:
        line = draw(st.sampled_from(RULE_KEYS)) + draw(st.sampled_from(SEPARATORS[:4]))
        line += draw(path_values)
    if draw(st.integers(0, 3)) == 0:
        line = draw(st.sampled_from([b" ", b"\t", b"\x0b"])) + line
    if draw(st.integers(0, 4)) == 0:
        line += b" # comment"
    return line


agent_lines = st.builds(
    lambda key, sep, value: key + sep + value,
    st.sampled_from(KEYS[:6]),
    st.sampled_from(SEPARATORS[:3]),
    st.sampled_from(AGENT_VALUES[:4] * 4 + AGENT_VALUES),
)
groups = st.tuples(
    st.lists(agent_lines, min_size=1, max_size=2), st.lists(robots_lines(), max_size=4)
).map(lambda g: g[0] + g[1])


@st.composite
def robots_bodies(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(robots_lines(), max_size=2))
    for group in draw(st.lists(groups, max_size=4)):
        lines += group
    out = bytearray(draw(st.sampled_from(PREFIXES)))
    for line in lines:
        out += line + draw(st.sampled_from(EOLS))
    if lines and draw(st.booleans()):  # type: ignore[arg-type]
        del out[-1]  # no final line end (and sometimes a lone CR of a CRLF)
    return bytes(out)


long_line_bodies = st.sampled_from([b"a", b"b", b"$", b"*"]).map(
    lambda tail: b"User-agent: *\nDisallow: /" + b"a" * (_MAX_LINE - 11) + tail + b"\nAllow: /ab\n"
)
bodies = st.one_of(
    robots_bodies(), robots_bodies(), robots_bodies(), st.binary(max_size=300), long_line_bodies
)

urls = st.builds(
    lambda base, parts: base + "".join(parts),
    st.sampled_from(URL_BASES),
    st.lists(st.sampled_from(URL_ATOMS), max_size=6),
)
any_urls = st.one_of(urls, st.text(max_size=20))
agents = st.sampled_from(QUERY_AGENTS)


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(body=st.binary(max_size=600), url=any_urls, agent=agents)
def test_random_bytes__parse_never_raises_and_answers_with_a_bool(
    body: bytes, url: str, agent: str
) -> None:
    rt = parse(body)
    verdict = rt.allowed(url, agent)
    assert type(verdict) is bool
    d = rt.decide(url, agent)
    assert d.allowed is verdict
    assert isinstance(rt.sitemaps, tuple)
    assert rt.body == body and rt.truncated is False


def _is_rule_line(body: bytes, number: int) -> bool:
    lines = ref_lines(body[:_MAX_BODY])
    if not 1 <= number <= len(lines):
        return False
    kv = ref_key_value(lines[number - 1])
    return kv is not None and ref_kind(kv[0]) in ("allow", "disallow")


@SETTINGS
@given(body=bodies, url=any_urls, agent=agents)
@example(body=b"User-agent: *\nDisallow:\nAllow:\n", url="https://e.com/x", agent="Googlebot")
@example(body=b"User-agent: *\nDisallow: /x", url="https://example.com#/x", agent="Googlebot")
@example(body=b"\xef\xbbUser-agent: x\r\r\nDisallow: /", url="//e.com/a", agent="x")
def test_robots_like__decide_agrees_with_allowed_and_names_a_rule_line(
    body: bytes, url: str, agent: str
) -> None:
    rt = parse(body)
    verdict = rt.allowed(url, agent)
    assert type(verdict) is bool
    d = rt.decide(url, agent)
    assert d.allowed is verdict
    if d.line == 0:
        assert (d.directive, d.value, d.pattern, d.group, d.rule) == ("", "", "", "none", "")
    else:
        assert _is_rule_line(body, d.line), d
        assert d.group in ("agent", "global")
        assert d.rule == f"{d.directive}: {d.value}"


@SETTINGS
@given(body=bodies, url=st.one_of(urls, urls, any_urls), agent=agents)
@example(body=b"User-agent: *\nDisallow: /\nAllow: /index.html", url="https://e.com/", agent="a")
@example(body=b"User-agent: *\nDisallow: /x", url="https://example.com#/x", agent="a")
@example(body=b"User-agent: *\nDisallow: /x", url="http://e.com:81#f/x", agent="a")
@example(body=b"User-agent: *\nCrawl-delay: 1\nUser-agent: a\nDisallow: /", url="/", agent="a")
# Found by this test: a first URL starting with NUL was taken for the remembered site.
@example(body=b"User-agent: *\nDisallow: /* # c\n", url="\x00", agent="Googlebot")
@example(body=b"User-agent: *\nAllow: /*\n", url="\x00", agent="Googlebot")
def test_robots_like__verdict_and_line_match_the_reference(
    body: bytes, url: str, agent: str
) -> None:
    rt = parse(body)
    ref = reference(body, agent, url)
    d = rt.decide(url, agent)
    assert rt.allowed(url, agent) is ref.allowed
    assert (d.allowed, d.line) == (ref.allowed, ref.line)
    assert rt.names_agent(agent) is ref.named
    if d.line:
        assert d.group == ("agent" if ref.named else "global")


@SETTINGS
@given(body=bodies)
def test_robots_like__sitemaps_match_the_reference(body: bytes) -> None:
    assert parse(body).sitemaps == ref_sitemaps(body)


TEXT_ATOMS = [
    "User-agent: ", "Disallow: ", "Allow: ", "Sitemap: ", "*", "Googlebot", "/", "a", "\u00e9",
    "\ufeff", "\u2028", "\u0085", "\x0b", "\xa0", "%2f", "$", "#", "\n", "\r\n", "\r", "\u212a",
]  # fmt: skip
texts = st.lists(st.one_of(st.sampled_from(TEXT_ATOMS), st.text(max_size=3)), max_size=30).map(
    "".join
)


@SETTINGS
@given(text=texts, url=urls, agent=agents)
def test_str_body__parses_exactly_like_its_utf8_bytes(text: str, url: str, agent: str) -> None:
    from_str, from_bytes = parse(text), parse(text.encode("utf-8"))
    assert from_str.body == from_bytes.body == text.encode("utf-8")
    assert from_str.sitemaps == from_bytes.sitemaps
    assert from_str.allowed(url, agent) is from_bytes.allowed(url, agent)
    assert from_str.decide(url, agent) == from_bytes.decide(url, agent)
    assert from_str.crawl_delay(agent) == from_bytes.crawl_delay(agent)


@SETTINGS
@given(body=st.binary(max_size=64), cap=st.integers(0, 80))
def test_cap__body_is_a_plain_byte_cut(body: bytes, cap: int) -> None:
    rt = parse(body, max_bytes=cap)
    assert rt.body == body[:cap]
    assert rt.truncated is (len(body) > cap)


# Path extraction: URL-shaped strings against a fixed file whose rules tell paths apart.
PATH_PROBE = (
    b"User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /$\nDisallow: /?\nDisallow: /;\n"
    b"Disallow: /*x$\nAllow: /*:\nDisallow: //\n"
)
url_shaped = st.builds(
    lambda base, rest: base + rest,
    st.sampled_from(["https://h", "http://h:81", "https://u@h", "HTTPS://h", "//h", "", "h"]),
    st.text(alphabet="/?;#:abx.", max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(url=url_shaped)
@example(url="https://h#/a")
@example(url="http://h:81#f/a")
def test_path_extraction__allowed_decide_and_reference_agree(url: str) -> None:
    rt = parse(PATH_PROBE)
    ref = reference(PATH_PROBE, "Googlebot", url)
    assert rt.allowed(url, "Googlebot") is ref.allowed
    assert (rt.decide(url, "Googlebot").allowed, rt.decide(url, "Googlebot").line) == (
        ref.allowed,
        ref.line,
    )


# Single-rule files: the engine's matcher against ref_matches() alone. Patterns use only
# characters that survive parsing unchanged (no whitespace, '#', '%', NUL or non-ASCII).
PATTERN_CHARS = "/ab*$?;.="
pattern_strs = st.text(alphabet=PATTERN_CHARS, max_size=10)
path_strs = st.text(alphabet="/ab$?;.=*", max_size=12).map(lambda p: "/" + p)


@settings(max_examples=500, deadline=None)
@given(pattern=pattern_strs, path=path_strs)
@example(pattern="/a*$", path="/a")
@example(pattern="/a$$", path="/a$")
@example(pattern="$", path="/")
@example(pattern="*a*a*a*b", path="/aaaaaaaa")
def test_single_rule__matcher_agrees_with_the_position_set_oracle(pattern: str, path: str) -> None:
    expected_match = ref_matches(path.encode(), pattern.encode()) and pattern != ""
    rt = parse(f"User-agent: *\nDisallow: {pattern}\n")
    assert rt.allowed("https://example.com" + path, "Googlebot") is (not expected_match)
    d = rt.decide("https://example.com" + path, "Googlebot")
    assert d.line == (2 if ref_matches(path.encode(), pattern.encode()) else 0)
    if expected_match:
        assert (d.directive, d.pattern, d.group) == ("Disallow", pattern, "global")
