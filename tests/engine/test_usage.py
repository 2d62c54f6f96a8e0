"""Content-usage statements: Cloudflare's Content-Signal and the IETF Content-Usage rule.

Examples come from the documents themselves where they have them: the example robots.txt of
draft-ietf-aipref-attach (editor's copy, the revision with an optional path), the processing
examples of draft-ietf-aipref-vocab, and the line Cloudflare puts in managed robots.txt files.
Google ignores both keys: verdicts never change (checked here and by the conformance suites).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine import lint
from scrapy_gbot_robots.engine.usage import Usage, UsagePreference, parse_statement

# The attach draft's example (section 3.4), as published in the revision with optional paths.
ATTACH_EXAMPLE = b"""\
User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
"""

CLOUDFLARE = b"""\
# As a condition of accessing this website, you agree to abide by the following content signals
User-agent: *
Content-Signal: search=yes,ai-train=no,use=reference
Allow: /
"""


def _prefs(usage: Usage) -> list[tuple[str, bool, int]]:
    return [(p.category, p.allowed, p.line) for p in usage.preferences]


def test_the_attach_drafts_example_table() -> None:
    robots = parse(ATTACH_EXAMPLE)
    # | /test | yes | train-ai=n |  and  | /ai-ok/test | yes | train-ai=y |
    assert _prefs(robots.usage("https://e.com/test", "OtherBot")) == [("train-ai", False, 4)]
    assert _prefs(robots.usage("https://e.com/ai-ok/test", "OtherBot")) == [("train-ai", True, 5)]
    assert robots.allowed("https://e.com/never/test", "OtherBot") is False
    # ExampleBot uses its own group.
    usage = robots.usage("https://e.com/test", "ExampleBot")
    assert (usage.token, _prefs(usage)) == ("ExampleBot", [("train-ai", True, 9)])
    refused = robots.refuses("https://e.com/test", "OtherBot", ("ai-train",))
    assert refused is not None and (refused.line, refused.text) == (4, "Content-Usage: train-ai=n")
    assert robots.refuses("https://e.com/ai-ok/test", "OtherBot", ("ai-train",)) is None
    assert robots.refuses("https://e.com/test", "ExampleBot", ("ai-train",)) is None


def test_the_path_form_takes_the_longest_match_with_googles_matching() -> None:
    body = (
        b"User-agent: *\n"
        b"Content-Usage: /a train-ai=n\n"
        b"Content-Usage: /a/*.png$ train-ai=y\n"  # 9 bytes: beats /a/b/ (5) for PNGs
        b"Content-Usage: /a/b/ search=n\n"
        b"Content-Usage: /caf\xc3\xa9/ train-ai=y\n"  # %-normalised like a rule: /caf%C3%A9/
    )
    robots = parse(body)

    def at(path: str) -> list[tuple[str, bool, int]]:
        return _prefs(robots.usage("https://e.com" + path, "bot"))

    assert at("/a/x") == [("train-ai", False, 2)]
    assert at("/a/b/x") == [("search", False, 4)]  # the longest match alone: train-ai unknown
    assert at("/a/b/x.png") == [("train-ai", True, 3)]
    assert at("/b") == []
    assert at("/caf%C3%A9/menu") == [("train-ai", True, 5)]
    assert robots.usage("https://e.com/a/x", "bot").preferences[0].path == "/a"


def test_statements_with_tying_paths_combine_and_no_wins() -> None:
    # An absent path is "/" (the draft's example moved from "/ train-ai=n" to "train-ai=n").
    body = b"User-agent: *\nContent-Usage: / train-ai=y\nContent-Usage: train-ai=n\n"
    robots = parse(body)
    assert _prefs(robots.usage("https://e.com/x", "bot")) == [
        ("train-ai", True, 2),
        ("train-ai", False, 3),
    ]
    refused = robots.refuses("https://e.com/x", "bot", ["train-ai"])
    assert refused is not None and refused.line == 3


def test_cloudflares_managed_line() -> None:
    robots = parse(CLOUDFLARE)
    usage = robots.usage("https://e.com/any", "GPTBot")
    assert usage.token == "*"
    assert [(p.category, p.value, p.mechanism) for p in usage.preferences] == [
        ("search", "yes", "content-signal"),
        ("ai-train", "no", "content-signal"),
    ]
    assert robots.refuses("https://e.com/any", "GPTBot", ("search",)) is None
    assert robots.refuses("https://e.com/any", "GPTBot", ("ai-input",)) is None  # unstated
    refused = robots.refuses("https://e.com/any", "GPTBot", ("search", "ai-train"))
    assert refused is not None and (refused.category, refused.line) == ("ai-train", 3)


@pytest.mark.parametrize(
    ("line", "use", "refused_by"),
    [
        (b"Content-Signal: ai-train=no", "ai-train", "ai-train"),
        (b"Content-Signal: ai-train=no", "train-ai", "ai-train"),  # either spelling of the use
        (b"Content-Usage: train-ai=n", "ai-train", "train-ai"),
        (b"Content-Usage: search=n", "search", "search"),
        (b"Content-Signal: search=no", "search", "search"),
        # vocab-08: no nesting, and the labels of -04 and earlier state nothing.
        (b"Content-Usage: all=n", "ai-train", None),
        (b"Content-Usage: all=n", "search", None),
        (b"Content-Usage: all=n", "ai-input", None),
        (b"Content-Usage: train-genai=n", "ai-train", None),
        (b"Content-Usage: train-genai=n", "train-ai", None),
        (b"Content-Usage: all=n, train-ai=y", "ai-train", None),
        (b"Content-Usage: all=n, train-ai=n", "ai-train", "train-ai"),
        (b"Content-Usage: train-ai=n", "search", None),  # one category says nothing of another
        (b"Content-Usage: ai-input=n", "ai-input", None),  # not in the IETF vocabulary
        (b"Content-Signal: ai-input=no", "ai-input", "ai-input"),
        (b"Content-Signal: custom=no", "custom", "custom"),  # unknown uses: as written
    ],
)
def test_uses_map_across_the_two_vocabularies(
    line: bytes, use: str, refused_by: str | None
) -> None:
    robots = parse(b"User-agent: *\n" + line + b"\n")
    refused = robots.refuses("https://e.com/x", "bot", (use,))
    assert (refused.category if refused else None) == refused_by
    got = robots.usage("https://e.com/x", "bot").get(use)
    assert (got.category if got is not None and not got.allowed else None) == refused_by


def test_a_yes_in_one_mechanism_does_not_cancel_a_no_in_the_other() -> None:
    body = b"User-agent: *\nContent-Signal: ai-train=yes\nContent-Usage: train-ai=n\n"
    robots = parse(body)
    refused = robots.refuses("https://e.com/x", "bot", ("ai-train",))
    assert refused is not None and (refused.mechanism, refused.line) == ("content-usage", 3)
    allowed = parse(b"User-agent: *\nContent-Signal: ai-train=yes\n").usage("https://e.com/", "b")
    assert allowed.get("train-ai") == UsagePreference(
        "ai-train", True, "content-signal", 2, "Content-Signal: ai-train=yes"
    )


def test_group_selection_is_the_rules_own_with_token_lists_and_global_group() -> None:
    body = (
        b"User-agent: *\nContent-Signal: ai-train=no\nDisallow:\n\n"
        b"User-agent: Googlebot\nAllow: /\nContent-Signal: ai-train=yes\n\n"
        b"User-agent: Bingbot\n"  # a group without any statement: * no longer applies
    )
    robots = parse(body)
    image = ["Googlebot-Image", "Googlebot"]
    assert robots.refuses("https://e.com/x", "Googlebot-Image", ("ai-train",)) is not None
    assert robots.refuses("https://e.com/x", image, ("ai-train",)) is None
    assert robots.usage("https://e.com/x", image).token == "Googlebot"
    assert robots.refuses("https://e.com/x", "Bingbot", ("ai-train",)) is None
    assert robots.usage("https://e.com/x", "Bingbot") == Usage("Bingbot", ())
    assert robots.refuses("https://e.com/x", "Other", ("ai-train",), global_group=False) is None
    assert robots.usage("https://e.com/x", "Other", global_group=False) == Usage("", ())


def test_statements_are_in_the_group_even_between_user_agent_lines_and_before_rules() -> None:
    # An unknown line neither ends a group nor splits its user-agent lines (fact 14).
    body = b"User-agent: a\nContent-Signal: ai-train=no\nUser-agent: b\nDisallow: /x\n"
    robots = parse(body)
    for agent in ("a", "b"):
        assert robots.refuses("https://e.com/y", agent, ("ai-train",)) is not None
    # Before any user-agent line: in no group.
    orphan = parse(b"Content-Signal: ai-train=no\nUser-agent: *\nDisallow:\n")
    assert orphan.refuses("https://e.com/y", "a", ("ai-train",)) is None


def test_verdicts_ignore_every_statement() -> None:
    plain = b"User-agent: *\nDisallow: /private\n"
    noisy = (
        b"Content-Usage: all=n\nUser-agent: *\nContent-Signal: search=no\n"
        b"Content-Usage: /private train-ai=y\nDisallow: /private\nContent-Usage: x=(\n"
    )
    for path in ("/", "/private", "/private/x", "/other"):
        url = "https://e.com" + path
        assert parse(noisy).allowed(url, "bot") is parse(plain).allowed(url, "bot")


# ----------------------------------------------------------------------------- parsing


def test_the_vocab_drafts_processing_examples() -> None:
    # draft-ietf-aipref-vocab section 6.5: "the following expresses no preferences".
    statement = parse_statement(
        "content-usage",
        b'train-ai=y, train-ai="n", train-genai=n, train-genai, all=n, all=()',
    )
    assert statement.error is None and statement.preferences() == {}
    assert parse_statement("content-usage", b"train-ai=y, train-genai=n").preferences() == {
        "train-ai": True,
        "train-genai": False,
    }
    # Upper case is not a key: the dictionary fails to parse, so nothing is expressed.
    failed = parse_statement("content-usage", b"Train-AI=n")
    assert failed.error is not None and failed.preferences() == {}


@pytest.mark.parametrize(
    "value",
    [
        b"train-ai=n,",  # trailing comma
        b"train-ai=n,,search=y",
        b"train-ai=n search=y",  # members need commas
        b"train-ai=\"n",  # open string
        b"train-ai=(y",  # open inner list
        b"train-ai=n;",  # a parameter without its key
        b"train-ai=1234567890123456",  # integers have at most 15 digits
        b"train-ai=1.2345",  # decimals have at most 3 fraction digits
        b"train-ai=?2",
        b"train-ai=:not base64!:",
        b'train-ai=%"%C3%A9"',  # display strings take lower-case hex
        "train-ai=n, search=y\u00e9".encode(),  # not ASCII
    ],
)
def test_content_usage_syntax_errors_express_nothing(value: bytes) -> None:
    statement = parse_statement("content-usage", value)
    assert statement.error is not None
    assert statement.preferences() == {}


def test_content_usage_accepts_every_structured_field_type() -> None:
    value = (
        b'a=1.5, b=-3, c=:YWJj:, d=?1, e=@1700000000, f=%"caf%c3%a9", g=(x "y");p=1, '
        b'h="s\\"", train-ai=n;reason="policy";since=2025, search'
    )
    statement = parse_statement("content-usage", value)
    assert statement.error is None
    assert [e.key for e in statement.entries][-2:] == ["train-ai", "search"]
    assert statement.preferences() == {"train-ai": False}  # parameters are disregarded


def test_content_usage_paths() -> None:
    with_path = parse_statement("content-usage", b"/ai-ok/\t train-ai=y")
    assert (with_path.path, with_path.pattern, with_path.preferences()) == (
        "/ai-ok/",
        "/ai-ok/",
        {"train-ai": True},
    )
    assert parse_statement("content-usage", b"train-ai=y").pattern == "/"  # absent: every path
    assert parse_statement("content-usage", b"/x%7e").pattern == "/x%7E"
    assert parse_statement("content-usage", b"/only-a-path").entries == ()


def test_content_signal_is_read_leniently() -> None:
    statement = parse_statement("content-signal", b"Search = YES , ai-train=no,use=reference")
    assert statement.preferences() == {"search": True, "ai-train": False}
    bad = parse_statement("content-signal", b"ai-train=no, , oops, ai-input=maybe")
    assert bad.preferences() == {"ai-train": False}
    assert len(bad.problems) == 2
    assert parse_statement("content-signal", b"/img/ ai-train=no").path == "/img/"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=60), st.sampled_from(["content-usage", "content-signal"]))
def test_any_bytes_parse_without_raising(value: bytes, mechanism: str) -> None:
    statement = parse_statement(mechanism, value)  # type: ignore[arg-type]
    for label, allowed in statement.preferences().items():
        assert isinstance(label, str) and isinstance(allowed, bool)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                b"User-agent: *",
                b"User-agent: bot",
                b"Disallow: /a",
                b"Content-Usage: /a train-ai=n",
                b"Content-Usage: train-ai=y",
                b"Content-Signal: ai-train=no",
                b"Content-Signal: /a/b ai-train=yes",
                b"Content-Usage: search=(",
            ]
        ),
        max_size=10,
    ),
    st.sampled_from(["/", "/a", "/a/b/c", "/z"]),
    st.sampled_from(["bot", "other"]),
)
def test_refuses_agrees_with_usage(lines: list[bytes], path: str, agent: str) -> None:
    # The hot-path helper and the full answer are two routes to one result.
    body = b"\n".join(lines)
    url = "https://e.com" + path
    fast = parse(body).refuses(url, agent, ("ai-train", "search"))
    slow = parse(body).usage(url, agent).refuses(("ai-train", "search"))
    assert fast == slow


# ----------------------------------------------------------------------------- lint


def _codes(body: bytes) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint.lint(body).findings if f.code.startswith("GR6")]


def test_lint_knows_both_keys_and_no_longer_calls_them_unknown() -> None:
    report = lint.lint(CLOUDFLARE + ATTACH_EXAMPLE)
    assert not [f for f in report.findings if f.code == "GR206"]
    read_as = {v.number: (v.read_as, v.group) for v in report.lines}
    assert read_as[3] == ("content-signal", 1)
    assert read_as[8] == ("content-usage", 2)
    assert _codes(CLOUDFLARE) == [(3, "GR601")]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"Content-Usage: Train-AI=n", "GR603"),
        (b"Content-Usage: train-ai=n,", "GR603"),
        (b"Content-Usage: train-ai=no", "GR604"),
        (b"Content-Usage: train-ai", "GR604"),
        (b"Content-Signal: ai-train=maybe", "GR604"),
        (b"Content-Signal: use=sometimes", "GR604"),
        (b"Content-Usage: ai-train=n", "GR605"),
        (b"Content-Signal: train-ai=no", "GR605"),
        (b"Content-Usage: all=n", "GR605"),
        (b"Content-Usage: train-genai=n", "GR605"),
        (b"Content-Usage: train-ai=n, train-ai=y", "GR606"),
        (b"Content-Usage: /private/", "GR607"),
        (b"Content-Signal:", "GR607"),
        (b"Content-Signal: search=yes,,ai-train=no", "GR608"),
    ],
)
def test_lint_codes_for_usage_lines(line: bytes, code: str) -> None:
    codes = _codes(b"User-agent: *\n" + line + b"\nAllow: /\n")
    assert (2, "GR601") in codes
    assert (2, code) in codes, codes


def test_lint_usage_outside_any_group_and_the_other_vocabularys_hint() -> None:
    assert (1, "GR602") in _codes(b"Content-Usage: train-ai=n\nUser-agent: *\nAllow: /\n")
    finding = next(
        f for f in lint.lint(b"User-agent: *\nContent-Usage: ai-train=n\n").findings
        if f.code == "GR605"
    )
    assert "'train-ai'" in finding.message
    clean = b"User-agent: *\nContent-Usage: /x train-ai=n, search=y\nContent-Signal: ai-input=no\n"
    assert [c for _, c in _codes(clean)] == ["GR601", "GR601"]


@pytest.mark.parametrize("label", ["all", "train-genai"])
def test_lint_says_a_retired_label_states_nothing_with_its_line(label: str) -> None:
    text = b"User-agent: *\nAllow: /\nContent-Usage: " + label.encode() + b"=n\n"
    finding = next(f for f in lint.lint(text).findings if f.code == "GR605")
    assert finding.line == 3
    assert "vocab-08 does not define it" in finding.message and "states nothing" in finding.message


def test_usage_statements_lists_the_whole_group_in_force_with_paths() -> None:
    """The per-site view (the audit report's): every statement of the group, whatever path."""
    robots = parse(ATTACH_EXAMPLE)
    every = robots.usage_statements("OtherBot")
    assert every.token == "*"
    assert [(p.category, p.allowed, p.line, p.path) for p in every.preferences] == [
        ("train-ai", False, 4, ""),
        ("train-ai", True, 5, "/ai-ok/"),
    ]
    own = robots.usage_statements(["Other", "ExampleBot"])
    assert (own.token, _prefs(own)) == ("ExampleBot", [("train-ai", True, 9)])
    assert robots.usage_statements("OtherBot", global_group=False) == Usage("", ())
    assert parse(b"User-agent: *\nDisallow: /\n").usage_statements("a") == Usage("*", ())
    # Per URL, usage() picks among them; the whole list is their union.
    for url in ("https://e.com/test", "https://e.com/ai-ok/x"):
        assert set(robots.usage(url, "OtherBot").preferences) <= set(every.preferences)


# ----------------------------------------------------------------------------- RSL License:


def test_license_lines_are_global_and_change_no_verdict() -> None:
    body = (
        b"License: https://e.com/license.xml\n"
        b"User-agent: *\nDisallow: /private\n"
        b"license: https://e.com/other.xml # a second one, inside a group\n"
        b"Allow: /private/open\nLicense:\n"
    )
    robots = parse(body)
    assert robots.licenses == ("https://e.com/license.xml", "https://e.com/other.xml")
    plain = parse(b"User-agent: *\nDisallow: /private\nAllow: /private/open\n")
    for path in ("/", "/private", "/private/open", "/x"):
        url = "https://e.com" + path
        assert robots.allowed(url, "bot") is plain.allowed(url, "bot")
    assert parse(b"User-agent: *\nDisallow: /\n").licenses == ()


def test_lint_knows_the_license_line() -> None:
    body = b"License: https://e.com/l.xml\nLicense: l.xml\nUser-agent: *\nAllow: /\n"
    report = lint.lint(body)
    codes = [(f.line, f.code) for f in report.findings]
    assert (1, "GR502") in codes and (2, "GR502") in codes and (2, "GR503") in codes
    assert (1, "GR503") not in codes
    assert not any(code == "GR206" for _, code in codes)  # no longer an unknown key
    assert report.licenses == ("https://e.com/l.xml", "l.xml")
    assert report.as_json()["licenses"] == ["https://e.com/l.xml", "l.xml"]
    assert [v.read_as for v in report.lines[:2]] == ["license", "license"]
