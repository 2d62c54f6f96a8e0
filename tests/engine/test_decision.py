"""``RobotsTxt.decide`` against the rule-by-rule replay it replaces, field by field.

``decide`` finds the winner the way the verdict's matcher does (screens, longest plain
prefix, wildcard rules by priority) and then reports, from tables built on the agent's first
``decide()``, the rule Google's ``matching_line()`` names.  ``decide_reference`` is the
straightforward algorithm: every rule checked in file order, the index.htm fallback tried
when an allow fails, the first rule of the best priority kept per kind.  The bodies below
are built to be full of what makes the two differ if anything is off: equal priorities
between allow and disallow and within one kind, the same pattern under both kinds,
duplicates, ``$`` and ``*``, index.htm fallbacks, percent-encoding, empty patterns, several
groups, and URLs that change site or need the general path extraction.
"""

from __future__ import annotations

from _wild_rules import SITE, body_of, index_everywhere
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import Decision, parse
from scrapy_gbot_robots.engine.decision import decide_reference
from scrapy_gbot_robots.engine.groups import token_key, walk_groups
from scrapy_gbot_robots.engine.lines import directives, escape_pattern
from scrapy_gbot_robots.engine.path_match import path_params_query
from scrapy_gbot_robots.engine.rules import RobotsTxt

SETTINGS = settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# Many patterns of equal length (ties), the same pattern in several spellings and kinds.
PATTERNS = [
    b"", b"/", b"*", b"$", b"*$", b"/*", b"/$", b"/*$", b"/a", b"/b", b"/ab", b"/ba", b"/a$",
    b"/b$", b"/a*", b"/*a", b"/*b", b"/a*b", b"/a*b$", b"/*b$", b"/**a", b"/a**", b"/a*$",
    b"/ab$", b"/a/", b"/a/$", b"/a/*", b"/*/", b"/*.pdf$", b"/x.pdf", b"/a/index.html",
    b"/a/index.htm", b"/index.html", b"/index.htm", b"/*/index.html", b"/a/index.htm*",
    b"/a/index.html$", b"/a/index.htmx", b"x/index.html", b"/%7e", b"/%7E", b"/~", b"/%7ea",
    b"/caf\xc3\xa9", b"/caf%c3%a9", b"/caf%C3%A9", b"/a%2fb", b"/*?q=", b"/*&s", b"/?q=",
    b"/a$b", b"/a*b*", b"/*a*b$", b"a", b"ab", b"/ab*$", b"/a/b", b"/a/b$", b"/*/b",
]


AGENT_NAMES = [b"*", b"*", b"bot", b"bot", b"other", b"BOT/2.1", b"* extra", b"Bot-X"]


ALLOW_KEYS = [b"Allow", b"allow", b"ALLOW"]


DISALLOW_KEYS = [b"Disallow", b"disallow", b"Disalow", b"DISALLOW"]


agent_line = st.sampled_from(AGENT_NAMES).map(lambda name: b"User-agent: " + name)


other_line = st.sampled_from([b"", b"# comment", b"Crawl-delay: 1", b"Sitemap: /s.xml", b"Foo"])


@st.composite
def bodies_and_patterns(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    """A few groups (sometimes sharing agents), then loose lines, joined by mixed breaks.

    The rules draw from a handful of patterns, so that equal priorities and repeated
    patterns (under both kinds) are the rule rather than the exception.
    """
    vocabulary = draw(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=8))
    rule_line = st.builds(
        lambda key, sep, value, tail: key + sep + value + tail,
        st.sampled_from(ALLOW_KEYS + DISALLOW_KEYS),
        st.sampled_from([b": ", b":", b" : ", b" "]),
        st.sampled_from(vocabulary),
        st.sampled_from([b"", b"", b" # note", b"#"]),
    )
    lines: list[bytes] = []
    for _ in range(draw(st.integers(0, 3))):
        lines.extend(draw(st.lists(agent_line, min_size=1, max_size=2)))
        lines.extend(draw(st.lists(st.one_of(rule_line, rule_line, other_line), max_size=8)))
    loose = st.one_of(rule_line, rule_line, rule_line, agent_line, other_line)
    lines.extend(draw(st.lists(loose, max_size=6)))
    breaks = draw(st.lists(st.sampled_from([b"\n", b"\r\n", b"\r"]), min_size=len(lines)))
    body = b"".join(line + brk for line, brk in zip(lines, breaks, strict=False))
    return body, vocabulary


PATH_ATOMS = [
    "/", "a", "b", "ab", "/a", "/b", "/a/", "index.html", "index.htm", "/index.html", ".pdf",
    "x.pdf", "?q=1", "&s=2", "%7E", "%7e", "~", "caf%C3%A9", "%2f", "$", "*", ";p", "#f/a",
]


BASES = [
    "https://e.com", "https://e.com", "http://e.com", "https://other.org", "//e.com", "",
    "e.com", "https://e.com?x", "ftp://e.com", "https://e.com#",
]


atoms = st.lists(st.sampled_from(PATH_ATOMS), max_size=3).map("".join)


@st.composite
def urls_for(draw: st.DrawFn, vocabulary: list[bytes]) -> str:
    """A URL, most often one whose path some pattern of the body matches (or nearly)."""
    base = draw(st.sampled_from(BASES))
    if draw(st.integers(0, 3)) == 0:
        return base + draw(atoms)
    pattern = escape_pattern(draw(st.sampled_from(vocabulary)))
    if pattern.endswith("$") and draw(st.booleans()):
        pattern = pattern[:-1]
    path = "".join(piece + draw(atoms) for piece in pattern.split("*"))
    if draw(st.booleans()):
        path = path[: draw(st.integers(0, len(path)))]  # cut: almost matches
    if path[:1] != "/" and draw(st.booleans()):
        path = "/" + path
    return base + path + draw(st.sampled_from(["", "", "", "index.html", "/", "#x", "?q"]))


agents = st.sampled_from(["bot", "Bot", "bot-x", "other", "nobody", ""])


def reference(body: bytes, url: str, agent: str) -> Decision:
    """The rule-by-rule replay, from the same group walk."""
    specific, agent_rules, global_rules, _ = walk_groups(directives(body), token_key(agent))
    rules = agent_rules if specific else global_rules
    return decide_reference(path_params_query(url), rules, specific)


def check(robots: RobotsTxt, url: str, agent: str) -> None:
    got = robots.decide(url, agent)
    assert got == reference(robots.body, url, agent), (robots.body, url, agent)
    assert got.allowed is robots.allowed(url, agent)


@SETTINGS
@given(data=st.data(), generated=bodies_and_patterns())
def test_decide_equals_the_rule_by_rule_replay(
    data: st.DataObject, generated: tuple[bytes, list[bytes]]
) -> None:
    body, vocabulary = generated
    robots = parse(body)
    queries = data.draw(st.lists(st.tuples(urls_for(vocabulary), agents), min_size=1, max_size=12))
    for url, agent in queries:  # one object: site prefix, agent slots and tables are reused
        check(robots, url, agent)


@SETTINGS
@given(data=st.data(), generated=bodies_and_patterns(), agent=agents)
def test_decide_first_or_after_allowed_is_the_same(
    data: st.DataObject, generated: tuple[bytes, list[bytes]], agent: str
) -> None:
    body, vocabulary = generated
    url = data.draw(urls_for(vocabulary))
    cold = parse(body).decide(url, agent)
    warm = parse(body)
    warm.allowed("https://e.com/", agent)
    warm.decide("https://e.com/a", "someone else")
    assert warm.decide(url, agent) == cold == reference(body, url, agent)


@SETTINGS
@given(body=st.binary(max_size=300), url=st.one_of(urls_for([b"/"]), st.text(max_size=12)))
@example(body=b"User-agent: *\nDisallow: /a*\nAllow: /ab\n", url="https://e.com/ab")
@example(body=b"User-agent: *\nDisallow:\n", url="https://e.com/a")
@example(body=b"User-agent: *\nAllow: /a/index.html\nDisallow: /", url="//e.com/a/")
def test_decide_on_any_bytes(body: bytes, url: str) -> None:
    check(parse(body), url, "bot")


CASES = [
    # An allow and a disallow of equal priority: the allow wins and is reported.
    (b"User-agent: *\nDisallow: /a*\nAllow: /ab\n", "/ab", 3, True, "/ab"),
    (b"User-agent: *\nAllow: /a*\nDisallow: /ab\n", "/ab", 2, True, "/a*"),
    # Equal priority within one kind: the first in file order, whatever the matcher finds.
    (b"User-agent: *\nDisallow: /*b\nDisallow: /ab\n", "/ab", 2, False, "/*b"),
    (b"User-agent: *\nDisallow: /ab\nDisallow: /*b\n", "/ab", 2, False, "/ab"),
    (b"User-agent: *\nDisallow: /*.pdf$\nDisallow: /search\n", "/search.pdf", 2, False,
     "/*.pdf$"),
    (b"User-agent: *\nDisallow: /a*\nDisallow: /*b\n", "/ab", 2, False, "/a*"),
    (b"User-agent: *\nDisallow: /a\nDisallow: /a\n", "/a", 2, False, "/a"),
    # The same pattern under both kinds: allow.
    (b"User-agent: *\nDisallow: /a\nAllow: /a\n", "/a", 3, True, "/a"),
    (b"User-agent: *\nAllow: /a*\nDisallow: /a*\n", "/ax", 2, True, "/a*"),
    # index.htm: the fallback "/d/$" decides, and ties with an explicit "/d/$" by line.
    (b"User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "/d/", 3, True, "/d/$"),
    (b"User-agent: *\nAllow: /d/$\nAllow: /d/index.htm\nDisallow: /d/\n", "/d/", 2, True,
     "/d/$"),
    (b"User-agent: *\nAllow: /d/index.htm\nAllow: /d/$\nDisallow: /d/\n", "/d/", 2, True,
     "/d/$"),
    (b"User-agent: *\nDisallow: /d\nAllow: /d/index.html\n", "/d/index.html", 3, True,
     "/d/index.html"),
    (b"User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n", "/d/x", 2, False, "/d/"),
    # Empty patterns: priority 0; an empty disallow alone is reported, verdict still allowed.
    (b"User-agent: *\nDisallow:\n", "/a", 2, True, ""),
    (b"User-agent: *\nDisallow:\nAllow:\n", "/a", 3, True, ""),
    (b"User-agent: *\nAllow:\nDisallow:\n", "/a", 2, True, ""),
    (b"User-agent: *\nDisallow:\nDisallow: /b\n", "/a", 2, True, ""),
    (b"User-agent: *\nDisallow:\nDisallow: /a\n", "/a", 3, False, "/a"),
    # Root and the one-byte patterns that tie with it.
    (b"User-agent: *\nAllow: /\n", "/x", 2, True, "/"),
    (b"User-agent: *\nAllow: *\nAllow: /\n", "/x", 2, True, "*"),
    (b"User-agent: *\nDisallow: /\nDisallow: *\n", "/x", 2, False, "/"),
    (b"User-agent: *\nDisallow: *\nAllow: /\n", "/x", 3, True, "/"),
    (b"User-agent: *\nAllow: /\nDisallow: /x\n", "/y", 2, True, "/"),
    (b"User-agent: *\nAllow: /\nDisallow: /x\n", "/x", 3, False, "/x"),
    (b"User-agent: *\nAllow: /\nDisallow: /*x\n", "/x", 3, False, "/*x"),
    # Percent-encoding: pattern normalised, value as written.
    (b"User-agent: *\nDisallow: /%7e\n", "/%7E", 2, False, "/%7E"),
    (b"User-agent: *\nDisallow: /caf\xc3\xa9\n", "/caf%C3%A9", 2, False, "/caf%C3%A9"),
    (b"User-agent: *\nDisallow: /~\n", "/%7E", 0, True, ""),
    # "$" and "*".
    (b"User-agent: *\nDisallow: /a$\n", "/ab", 0, True, ""),
    (b"User-agent: *\nDisallow: /a$\nAllow: /a*\n", "/a", 3, True, "/a*"),
    (b"User-agent: *\nDisallow: /*$\nAllow: /x\n", "/xy", 2, False, "/*$"),
    (b"User-agent: *\nDisallow: $\n", "/", 0, True, ""),
    (b"User-agent: *\nDisallow: a\n", "/a", 0, True, ""),
    # A group naming the agent hides every "*" rule.
    (b"User-agent: *\nDisallow: /\nUser-agent: bot\nDisallow: /private\n", "/x", 0, True, ""),
    (b"User-agent: *\nDisallow: /\nUser-agent: bot\nDisallow: /p\n", "/p", 4, False, "/p"),
]


def test_hand_written_cases() -> None:
    for body, path, line, allowed, pattern in CASES:
        robots = parse(body)
        got = robots.decide("https://e.com" + path, "bot")
        assert (got.line, got.allowed, got.pattern) == (line, allowed, pattern), (body, path)
        assert got == reference(body, "https://e.com" + path, "bot"), (body, path)
        assert got.allowed is robots.allowed("https://e.com" + path, "bot")


def test_decision_fields() -> None:
    body = b"User-agent: *\nDisallow: /*.PDF$\nUser-agent: bot\ndisalow: /caf\xc3\xa9/%7e # x\n"
    got = parse(body).decide("https://e.com/caf%C3%A9/%7E/x", "Bot")
    assert got == Decision(False, 4, "disalow", "/caf\xe9/%7e", "/caf%C3%A9/%7E", "agent")
    assert got.rule == "disalow: /caf\xe9/%7e"
    star = parse(body).decide("https://e.com/x.PDF", "Googlebot")
    assert star == Decision(False, 2, "Disallow", "/*.PDF$", "/*.PDF$", "global")
    assert parse(body).decide("https://e.com/x", "Googlebot") == Decision(
        True, 0, "", "", "", "none"
    )


def test_tables_are_built_lazily_and_per_agent() -> None:
    body = b"User-agent: *\nDisallow: /a\nUser-agent: bot\nDisallow: /b\n"
    robots = parse(body)
    assert robots.allowed("https://e.com/a", "bot") is True
    assert robots.names_agent("other") is False
    assert robots._others is not None
    matchers = [robots._matcher, *robots._others.values()]
    assert all(m is not None and m._detail is None for m in matchers)  # allowed() pays nothing
    assert robots.decide("https://e.com/b", "bot").line == 4
    assert robots._token == "bot" and robots._matcher is not None  # the fast slot
    assert robots._matcher._detail is not None
    other = robots._others.get("other")
    assert other is not None and other._detail is None
    assert robots.decide("https://e.com/a", "other").line == 2
    assert other._detail is not None


def test_site_changes_and_general_urls() -> None:
    robots = parse(b"User-agent: *\nDisallow: /a\nAllow: /a/b\n")
    for url, line in [
        ("https://e.com/a", 2), ("https://f.com/a/b", 3), ("https://f.com/x", 0),
        ("http://e.com?a", 0), ("//e.com/a/b#x", 3), ("/a", 2), ("e.com/a", 2),
        ("https://e.com/a/b\0c", 3), ("https://e.com#/a", 0), ("https://e.com/a/%62", 2),
    ]:
        assert robots.decide(url, "bot").line == line, url
        assert robots.decide(url, "bot") == reference(robots.body, url, "bot"), url


def test_many_rules_of_one_priority() -> None:
    """A wide tie: every earlier rule of the winner's priority is still looked at."""
    rules = b"".join(b"Disallow: /*%03d\n" % i for i in range(300))
    body = b"User-agent: *\n" + rules + b"Disallow: /a/00\nDisallow: /a*00\n"
    robots = parse(body)
    for path in ["/a/00", "/x000", "/x299", "/x1000", "/a/0", "/a100", "/a000"]:
        url = "https://e.com" + path
        assert robots.decide(url, "bot") == reference(body, url, "bot"), path


def test_decide_reports_the_same_rule_with_and_without_the_index() -> None:
    # Equal priorities everywhere: the index must not change which rule is reported.
    body = body_of(
        [(i % 2 == 0, f"/*{a}*{b}$") for i, (a, b) in enumerate(zip("abab", "baba", strict=True))]
        + [(False, "/a*b"), (True, "/*ab"), (False, "/*b$"), (True, "/a$"), (False, "/ab")]
    )
    urls = [SITE + path for path in ("/ab", "/aab", "/ba", "/a", "/abab", "/b", "/x/ab")]
    plain = [parse(body).decide(url, "bot") for url in urls]
    with index_everywhere():
        indexed = parse(body).decide
        assert [indexed(url, "bot") for url in urls] == plain


def test_decision_token_is_metadata_outside_equality() -> None:
    # Decision is public: one built the old way (six fields) still equals the engine's.
    robots = parse(b"User-agent: *\nDisallow: /private/\n")
    got = robots.decide("https://e.com/private/x", "bot")
    assert got.token == "*"
    assert got == Decision(False, 2, "Disallow", "/private/", "/private/", "global")
    assert hash(got) == hash(Decision(False, 2, "Disallow", "/private/", "/private/", "global"))
