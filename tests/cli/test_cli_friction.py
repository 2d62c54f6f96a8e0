"""What a new user tripped over in ``gbot-robots``, each pinned by a test that failed before.

Run as the real console script, as tests/cli/test_cli.py does. Elsewhere: the user-agent
string reduced to its token
(tests/cli/test_cli.py::test_check_user_agent_string_is_reduced_to_its_token), ``fetch``
exiting 1 on a disallowed URL (tests/cli/test_cli_fetch.py::test_disallowed_url_exits_1_like_check).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import GOOGLE_EXAMPLE, no_traceback, run

from scrapy_gbot_robots import parse

pytestmark = pytest.mark.crawl

# ----------------------------------------------------------------------------- not robots.txt

HTML = b"<!DOCTYPE html>\n<html><head><title>Page not found</title></head>\n<body>404</body>\n"
ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4
GIF = b"GIF89a\xd3\x00\xfe\x00\xa2"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (HTML, "looks like an HTML page (a soft 404?), not a robots.txt"),
        (ELF, "looks like a binary file, not a robots.txt"),
        (GIF, "looks like a binary file, not a robots.txt"),
        (b"", "is empty: nothing is disallowed"),
        (b"\n  \n", "is empty: nothing is disallowed"),
        (b"# allow everything\n", "has no user-agent, allow, disallow or sitemap line"),
        (b"Crawl-delay: 10\n", "has no user-agent, allow, disallow or sitemap line"),
    ],
    ids=["html", "elf", "gif", "empty", "blank", "comment-only", "unknown-keys-only"],
)
@pytest.mark.parametrize("json_mode", [False, True], ids=["text", "json"])
def test_check_warns_when_the_file_is_not_robots_txt(
    tmp_path: Path, body: bytes, says: str, json_mode: bool
) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(body)
    proc = run("check", str(robots), "-u", "Googlebot", *(["--json"] * json_mode), "https://e.x/")
    assert f"warning: {robots} {says}" in proc.stderr
    # The verdict and exit status stay Google's: no rules, so allowed, exit 0.
    assert proc.returncode == 0
    if json_mode:
        assert json.loads(proc.stdout)["allowed"] is True
    else:
        assert proc.stdout.splitlines()[-1] == "1 URL: 1 allowed, 0 disallowed for Googlebot"


def test_html_warning_counts_the_rules_google_still_obeys(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"<html><body>\nUser-agent: *\nDisallow: /private\n</body></html>\n")
    proc = run("check", str(robots), "-u", "x", "https://e.x/private/a")
    assert "Google reads it anyway and obeys the 1 rule it finds in it" in proc.stderr
    assert proc.returncode == 1


def test_binary_from_stdin_is_named_stdin() -> None:
    proc = run("check", "-", "-u", "Googlebot", "https://e.x/", stdin=ELF)
    assert "warning: <stdin> looks like a binary file" in proc.stderr


@pytest.mark.parametrize(
    "body",
    [GOOGLE_EXAMPLE, b"User-agent: *\nDisallow:\n", b"Sitemap: https://e.x/s.xml\n"],
    ids=["google", "allow-all", "sitemap-only"],
)
def test_no_warning_for_a_real_robots_txt(tmp_path: Path, body: bytes) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(body)
    proc = run("check", str(robots), "-u", "Googlebot", "https://e.x/")
    assert proc.stderr == ""


# ----------------------------------------------------------------------------- bad URL lines


def test_bad_lines_do_not_abort_the_batch(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(GOOGLE_EXAMPLE)
    urls = tmp_path / "urls.txt"
    urls.write_bytes(
        b"https://example.com/ok\n"  # 1
        b"http:///includes/a.js\n"  # 2 empty host
        b"example.com/includes/b.js\n"  # 3 no scheme
        b"# comment\n"  # 4
        b"https://example.com/caf\xe9\n"  # 5 not UTF-8
    )
    proc = run("check", str(robots), "-u", "Bingbot", "--json", "--urls", str(urls))
    no_traceback(proc)
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["url"] for r in rows] == [
        "https://example.com/ok",
        "http:///includes/a.js",
        "example.com/includes/b.js",
        "https://example.com/caf\\xe9",
    ]
    # Google's verdicts: its parser takes the path from whatever it is given.
    assert [r["allowed"] for r in rows] == [True, False, False, True]
    assert rows[3]["checked_url"] == "https://example.com/caf%E9"
    assert proc.returncode == 1  # from the verdicts, not a usage error
    err = proc.stderr
    assert f"warning: {urls}:2: not an absolute URL: 'http:///includes/a.js'" in err
    assert "Google's parser reads its path as '/includes/a.js'" in err
    assert f"warning: {urls}:3: not an absolute URL: 'example.com/includes/b.js'" in err
    assert f"warning: {urls}:5: not valid UTF-8" in err
    assert ":1:" not in err and ":4:" not in err


def test_relative_urls_on_the_command_line_are_checked_too(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(GOOGLE_EXAMPLE)
    proc = run("check", str(robots), "-u", "Bingbot", "/includes/x", "https://example.com/")
    assert proc.returncode == 1
    assert "warning: not an absolute URL: '/includes/x'" in proc.stderr
    assert proc.stdout.splitlines()[-1] == "2 URLs: 1 allowed, 1 disallowed for Bingbot"


def test_many_bad_lines_are_counted_not_all_printed(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(GOOGLE_EXAMPLE)
    proc = run(
        "check",
        str(robots),
        "-u",
        "Googlebot",
        "--urls",
        "-",
        stdin=b"".join(b"/page/%d\n" % i for i in range(25)),
    )
    assert proc.returncode == 0
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 11
    assert warnings[0].startswith("warning: <stdin>:1: not an absolute URL: '/page/0'")
    assert warnings[-1] == "warning: 15 more URLs are not absolute URLs"
    assert proc.stdout.splitlines()[-1] == "25 URLs: 25 allowed, 0 disallowed for Googlebot"


def test_missing_url_file_is_still_a_usage_error(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(GOOGLE_EXAMPLE)
    proc = run("check", str(robots), "-u", "Googlebot", "--urls", str(tmp_path / "nope"))
    assert proc.returncode == 2


# ----------------------------------------------------------------------------- issue 11

WIKI = "User-agent: *\nDisallow: /wiki/Käyttäjä:\n".encode()


def test_raw_unicode_url_is_checked_as_a_crawler_requests_it(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(WIKI)
    url = "https://site.local/wiki/Käyttäjä:"
    encoded = "https://site.local/wiki/K%C3%A4ytt%C3%A4j%C3%A4:"
    proc = run("check", str(robots), "-u", "Googlebot", url)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[2].split()[0] == "disallowed"
    assert f"note: {url!r} is checked as {encoded}, the form a crawler requests" in proc.stderr
    # The engine itself stays literal, as Google's library: the raw string is not matched.
    assert parse(WIKI).allowed(url, "Googlebot")
    assert not parse(WIKI).allowed(encoded, "Googlebot")


def test_json_carries_the_url_as_given_and_as_checked(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(WIKI)
    url = "https://site.local/wiki/Käyttäjä:"
    proc = run("check", str(robots), "-u", "Googlebot", "--json", url, "https://site.local/a")
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows[0]["url"] == url
    assert rows[0]["checked_url"] == "https://site.local/wiki/K%C3%A4ytt%C3%A4j%C3%A4:"
    assert rows[0]["allowed"] is False and rows[0]["line"] == 2
    assert rows[1]["url"] == rows[1]["checked_url"] == "https://site.local/a"
    assert proc.stderr == ""  # in JSON mode, the rows say it


# ----------------------------------------------------------------------------- issue 17, item 11

LITERAL = b"""\
User-agent: *
Disallow: /*?
Disallow: /%7Ejoe
Disallow: /a|b
Disallow: /x?a'b
Disallow: /a%20b
Disallow: /caf%C3%A9
Disallow: /frag$
"""


@pytest.mark.parametrize(
    ("url", "allowed", "line", "checked"),
    [
        # Googlebot requests "/?" as written; Scrapy's encoding would drop the empty query.
        ("http://example.com/?", False, 2, None),
        ("http://example.com/page?", False, 2, None),
        ("http://example.com/page?#top", False, 2, None),
        ("http://example.com/page#a?b", True, 0, None),  # after '#': the fragment, not sent
        ("http://example.com/frag#x", False, 8, None),
        ("http://example.com/%7Ejoe", False, 3, None),
        ("http://example.com/~joe", True, 0, None),  # '~' is not '%7E' to Google's matcher
        ("http://example.com/%7ejoe", True, 0, None),  # nor is '%7e': the URL is not normalised
        ("http://example.com/a|b", False, 4, None),  # w3lib would send '%7C'
        ("http://example.com/x?a'b", False, 5, None),  # w3lib would send '%27'
        # What a crawler cannot send as written is still encoded, with the note.
        ("http://example.com/a b", False, 6, "http://example.com/a%20b"),
        ("http://example.com/café", False, 7, "http://example.com/caf%C3%A9"),
        ("http://example.com/é?", False, 2, "http://example.com/%C3%A9?"),  # '?' kept
    ],
)
def test_check_asks_about_the_url_as_written(
    tmp_path: Path, url: str, allowed: bool, line: int, checked: str | None
) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(LITERAL)
    proc = run("check", str(robots), "-u", "Googlebot", "--json", url)
    (row,) = [json.loads(r) for r in proc.stdout.splitlines()]
    assert (row["allowed"], row["line"]) == (allowed, line), row
    assert row["url"] == url and row["checked_url"] == (checked or url)
    assert proc.returncode == (0 if allowed else 1)

    proc = run("check", str(robots), "-u", "Googlebot", url)
    verdict = proc.stdout.splitlines()[2].split()[0]
    assert verdict == ("allowed" if allowed else "disallowed")
    note = f"note: '{url}' is checked as {checked}, the form a crawler requests"
    assert (note in proc.stderr) is (checked is not None), proc.stderr
    if checked is None:
        assert proc.stderr == ""


# ----------------------------------------------------------------------------- GR203


def test_lint_shows_control_bytes_escaped_once(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\n\x7fELF\x02\x01\n")
    proc = run("lint", str(robots), "--json")
    (gr203,) = [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "GR203"]
    assert "('\\x7fELF\\x02\\x01')" in gr203["message"]
    assert "\\\\" not in gr203["message"]
