"""``gbot-robots check`` and ``lint``, run as the console script runs them (``tests/_cli.py``:
in this process; the entry points and the terminal in a subprocess of their own)."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _cli import run_cli
from _conformance import CARRIED, corpus_rows, robots_file

import scrapy_gbot_robots
from scrapy_gbot_robots import parse

pytestmark = pytest.mark.crawl

SCRIPT = Path(sys.executable).parent / "gbot-robots"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_gbot_robots"]
ANSI = re.compile(r"\x1b\[[0-9;]*m")

# The example of Google's "How Google interprets the robots.txt specification" page.
GOOGLE_EXAMPLE = b"""\
# This robots.txt file controls crawling of URLs under https://example.com.
# All crawlers are disallowed to crawl files in the "includes" directory, such
# as .css, .js, but Google needs them for rendering, so Googlebot is allowed
# to crawl them.
User-agent: *
Disallow: /includes/

User-agent: Googlebot
Allow: /includes/

Sitemap: https://example.com/sitemap.xml
"""


def run(
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    entry: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full_env.update(env or {})
    if entry is None:  # in this process (tests/_cli.py); the entry points' own test spawns
        return run_cli(list(args), stdin or b"", full_env)
    proc = subprocess.run(
        [*(entry or ENTRY), *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=full_env,
        timeout=60,
        check=False,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8"),
        proc.stderr.decode("utf-8"),
    )


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stdout, proc.stdout


@pytest.fixture()
def google(tmp_path: Path) -> Path:
    path = tmp_path / "robots.txt"
    path.write_bytes(GOOGLE_EXAMPLE)
    return path


# ----------------------------------------------------------------------------- entry points


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param([str(SCRIPT)], id="console-script"),
        pytest.param([sys.executable, "-m", "scrapy_gbot_robots"], id="python-m"),
    ],
)
def test_both_entry_points_run(entry: list[str], google: Path) -> None:
    if entry[0] == str(SCRIPT) and not SCRIPT.exists():
        pytest.skip("console script not installed (pip install -e .)")
    proc = run(
        "check", str(google), "-u", "Googlebot", "https://example.com/includes/a.js", entry=entry
    )
    assert proc.returncode == 0, proc.stderr
    assert "allowed" in proc.stdout
    assert proc.stdout.splitlines()[1].startswith("VERDICT")


def test_no_command_prints_help_and_exits_2() -> None:
    proc = run()
    assert proc.returncode == 2
    assert "check" in proc.stderr and "lint" in proc.stderr and "fetch" in proc.stderr


def test_unknown_command_is_a_usage_error() -> None:
    proc = run("verify", "robots.txt")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr
    no_traceback(proc)


@pytest.mark.parametrize("command", ["check", "lint", "fetch", "inspect", "report", "doctor"])
def test_help_has_examples(command: str) -> None:
    proc = run(command, "--help")
    assert proc.returncode == 0
    assert "examples:" in proc.stdout
    assert f"gbot-robots {command} " in proc.stdout.split("examples:")[1]
    assert "exit status" in proc.stdout


def test_top_level_help() -> None:
    proc = run("--help")
    assert proc.returncode == 0
    assert "examples:" in proc.stdout


def test_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0
    assert proc.stdout == f"gbot-robots {scrapy_gbot_robots.__version__}\n"


# ----------------------------------------------------------------------------- check


def test_check_allowed_by_own_group(google: Path) -> None:
    proc = run(
        "check", str(google), "--token", "Googlebot", "https://example.com/includes/site.css"
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "Googlebot follows its own group (lines 8-9)" in lines[0]
    row = lines[2].split()
    assert row[:3] == ["allowed", "9", "Googlebot"]
    assert "Allow: /includes/" in lines[2]
    assert lines[-1] == "1 URL: 1 allowed, 0 disallowed for Googlebot"


def test_check_disallowed_by_global_group_exits_1(google: Path) -> None:
    proc = run(
        "check",
        str(google),
        "-u",
        "Bingbot",
        "https://example.com/includes/site.css",
        "https://example.com/",
    )
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert "follows the * group (lines 5-6)" in lines[0]
    assert lines[2].split()[:3] == ["disallowed", "6", "*"]
    assert "Disallow: /includes/" in lines[2]
    assert lines[3].split()[:3] == ["allowed", "-", "-"]
    assert "(no matching rule)" in lines[3]


def test_check_columns_are_aligned(google: Path) -> None:
    urls = ["https://example.com/includes/x", "https://example.com/", "https://example.com/a"]
    proc = run("check", str(google), "-u", "Bingbot", *urls)
    rows = proc.stdout.splitlines()[1:5]
    starts = {row.index("https://") if "https://" in row else row.index("URL") for row in rows}
    assert len(starts) == 1, proc.stdout


def test_check_json_lines(google: Path) -> None:
    urls = ["https://example.com/includes/a.js", "https://example.com/page"]
    proc = run("check", str(google), "-u", "Bingbot", "--json", *urls)
    assert proc.returncode == 1
    objs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["url"] for o in objs] == urls
    assert objs[0] == {
        "url": urls[0],
        "checked_url": urls[0],
        "tokens": ["Bingbot"],
        "user_agent": "Bingbot",  # 0.2's names, until 0.4
        "user_agents": ["Bingbot"],
        "global_group": True,
        "allowed": False,
        "line": 6,
        "rule": "Disallow: /includes/",
        "directive": "Disallow",
        "value": "/includes/",
        "pattern": "/includes/",
        "group": "global",
        "token": "*",
        "usage": {"group": "*", "preferences": []},
        "licenses": [],
    }
    assert objs[1]["allowed"] is True
    assert objs[1]["line"] == 0 and objs[1]["group"] == "none" and objs[1]["rule"] == ""


def test_check_json_agent_group(google: Path) -> None:
    proc = run(
        "check", str(google), "-u", "googlebot", "--json", "https://example.com/includes/a.js"
    )
    assert proc.returncode == 0
    obj = json.loads(proc.stdout)
    assert (obj["allowed"], obj["line"], obj["group"]) == (True, 9, "agent")


def test_check_rule_is_the_line_as_written(tmp_path: Path) -> None:
    robots = tmp_path / "r.txt"
    robots.write_bytes(b"User-agent: *\r\n  disalow /private   # keep out\r\n")
    proc = run("check", str(robots), "-u", "x", "--json", "https://h.example/private/a")
    obj = json.loads(proc.stdout)
    assert obj["rule"] == "disalow /private   # keep out"
    assert obj["directive"] == "disalow" and obj["value"] == "/private"
    assert proc.returncode == 1


def test_check_robots_from_stdin() -> None:
    proc = run(
        "check",
        "-",
        "-u",
        "Googlebot",
        "--json",
        "https://example.com/includes/a",
        stdin=GOOGLE_EXAMPLE.replace(b"Allow: /includes/", b"Disallow: /includes/a"),
    )
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["line"] == 9


def test_check_urls_file(google: Path, tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text(
        "# URLs to test\nhttps://example.com/includes/a.css\n\n  https://example.com/b  \n"
    )
    proc = run(
        "check",
        str(google),
        "-u",
        "Bingbot",
        "--urls",
        str(urls),
        "--json",
        "https://example.com/first",
    )
    objs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["url"] for o in objs] == [
        "https://example.com/first",
        "https://example.com/includes/a.css",
        "https://example.com/b",
    ]
    assert [o["allowed"] for o in objs] == [True, False, True]
    assert proc.returncode == 1


def test_check_urls_from_stdin(google: Path) -> None:
    proc = run(
        "check",
        str(google),
        "-u",
        "Googlebot",
        "--urls",
        "-",
        stdin=b"https://example.com/includes/x\nhttps://example.com/y\n",
    )
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == "2 URLs: 2 allowed, 0 disallowed for Googlebot"


def test_check_both_from_stdin_is_a_usage_error() -> None:
    proc = run("check", "-", "-u", "Googlebot", "--urls", "-")
    assert proc.returncode == 2
    assert "cannot both be read from stdin" in proc.stderr


def test_check_missing_file(tmp_path: Path) -> None:
    proc = run("check", str(tmp_path / "nope.txt"), "-u", "Googlebot", "https://example.com/")
    assert proc.returncode == 2
    assert "robots.txt file not found" in proc.stderr
    assert "nope.txt" in proc.stderr
    no_traceback(proc)


def test_check_directory_instead_of_file(tmp_path: Path) -> None:
    proc = run("check", str(tmp_path), "-u", "Googlebot", "https://example.com/")
    assert proc.returncode == 2
    assert "is a directory" in proc.stderr
    no_traceback(proc)


def test_check_missing_urls_file(google: Path, tmp_path: Path) -> None:
    proc = run("check", str(google), "-u", "Googlebot", "--urls", str(tmp_path / "u.txt"))
    assert proc.returncode == 2
    assert "file of URLs not found" in proc.stderr
    no_traceback(proc)


@pytest.mark.parametrize("token", ["*", "", "  ", "2.1", "*/*"])
def test_check_value_without_a_token_says_what_a_token_is(google: Path, token: str) -> None:
    proc = run("check", str(google), "-u", token, "https://example.com/")
    assert proc.returncode == 2
    assert "invalid product token" in proc.stderr
    assert "letters, '-' and '_' only" in proc.stderr
    assert proc.stdout == ""
    no_traceback(proc)


def test_check_star_is_not_a_crawler(google: Path) -> None:
    proc = run("check", str(google), "-u", "*", "https://example.com/")
    assert "'*' names no crawler" in proc.stderr


@pytest.mark.parametrize(
    ("value", "token"),
    [
        ("Googlebot/2.1", "Googlebot"),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot"),
        ("Google bot", "Google"),
        ("bot2", "bot"),
    ],
)
def test_check_user_agent_string_is_reduced_to_its_token(
    google: Path, value: str, token: str
) -> None:
    proc = run("check", str(google), "-u", value, "--json", "https://example.com/includes/a")
    assert json.loads(proc.stdout)["tokens"] == [token]
    assert (
        f"warning: {value!r} is not a valid robots.txt product token ([A-Za-z_-]+); "
        f"checking as {token!r} instead"
    ) in proc.stderr


def test_check_without_a_token_checks_as_googlebot(google: Path) -> None:
    proc = run("check", str(google), "https://example.com/includes/a.js")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "1 URL: 1 allowed, 0 disallowed for Googlebot"
    no_traceback(proc)


@pytest.mark.parametrize("command", ["check", "fetch", "inspect"])
def test_every_command_takes_the_token_the_same_way(command: str) -> None:
    """The same options, the same default, said in each --help (one convention)."""
    proc = run(command, "--help")
    assert proc.returncode == 0
    usage = " ".join(proc.stdout.split("options:")[0].split())
    assert "[-u TOKEN[,TOKEN...]] [--as NAME] [--no-global]" in usage
    help_text = " ".join(proc.stdout.split())
    assert "(default: Googlebot)" in help_text.split("--token TOKEN[,TOKEN...]")[1][:200]


@pytest.mark.parametrize("command", ["check", "lint"])
def test_a_url_given_for_the_file_says_to_use_fetch(command: str) -> None:
    url = "http://127.0.0.1:9/robots.txt"
    args = [command, url] + (["https://example.com/page"] if command == "check" else [])
    proc = run(*args)
    assert proc.returncode == 2
    assert f"{url!r} is a URL, not a robots.txt file" in proc.stderr
    assert f"use 'gbot-robots fetch {url}'" in proc.stderr
    assert f"| gbot-robots {command} - ..." in proc.stderr
    no_traceback(proc)
    proc = run("check", url)  # no URL to check either: the file's hint comes first
    assert proc.returncode == 2 and "gbot-robots fetch" in proc.stderr


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("/includes/a.js", "/includes/a.js"),
        ("example.com/includes/a", "/includes/a"),
        ("https:/example.com/", "/example.com/"),
        ("http:///includes/x", "/includes/x"),
    ],
)
def test_check_relative_url_is_checked_with_a_warning(google: Path, url: str, path: str) -> None:
    proc = run("check", str(google), "-u", "Bingbot", "--json", url)
    assert f"warning: not an absolute URL: {url!r}" in proc.stderr
    assert f"Google's parser reads its path as {path!r}" in proc.stderr
    got = json.loads(proc.stdout)
    assert got["allowed"] is parse(GOOGLE_EXAMPLE).allowed(url, "Bingbot")
    assert proc.returncode == (0 if got["allowed"] else 1)
    no_traceback(proc)


def test_check_relative_url_in_file_names_the_line(google: Path, tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("https://example.com/a\n/b\n")
    proc = run("check", str(google), "-u", "Googlebot", "--urls", str(urls))
    assert proc.returncode == 0
    assert f"warning: {urls}:2: not an absolute URL: '/b'" in proc.stderr
    assert proc.stdout.splitlines()[-1] == "2 URLs: 2 allowed, 0 disallowed for Googlebot"


def test_check_without_urls(google: Path, tmp_path: Path) -> None:
    empty = tmp_path / "urls.txt"
    empty.write_text("# nothing\n")
    proc = run("check", str(google), "-u", "Googlebot", "--urls", str(empty))
    assert proc.returncode == 2
    assert "no URLs to check" in proc.stderr


def test_check_notes_encoded_urls(google: Path) -> None:
    proc = run("check", str(google), "-u", "Googlebot", "https://example.com/café")
    assert proc.returncode == 0
    assert (
        "note: 'https://example.com/café' is checked as https://example.com/caf%C3%A9, "
        "the form a crawler requests"
    ) in proc.stderr
    assert "https://example.com/café" in proc.stdout  # the table shows the URL as given


def test_check_notes_a_truncated_file(tmp_path: Path) -> None:
    robots = tmp_path / "big.txt"
    robots.write_bytes(b"User-agent: *\n" + b"# padding\n" * 60_000 + b"Disallow: /\n")
    proc = run("check", str(robots), "-u", "Googlebot", "--json", "https://example.com/x")
    assert proc.returncode == 0  # the Disallow past 500 KiB is ignored
    assert "only the first 512,000 are read" in proc.stderr


def test_check_options_between_positionals(google: Path) -> None:
    proc = run(
        "check",
        str(google),
        "https://example.com/includes/a",
        "-u",
        "Bingbot",
        "https://example.com/b",
        "--json",
    )
    assert proc.returncode == 1
    assert len(proc.stdout.splitlines()) == 2


# ----------------------------------------------------------------------------- colour


def test_no_colour_when_piped(google: Path) -> None:
    proc = run("check", str(google), "-u", "Bingbot", "https://example.com/includes/a")
    assert "\x1b[" not in proc.stdout


def test_colour_always(google: Path) -> None:
    proc = run(
        "check", str(google), "-u", "Bingbot", "--color", "always", "https://example.com/includes/a"
    )
    assert "\x1b[1;31mdisallowed\x1b[0m" in proc.stdout
    assert (
        "\x1b["
        not in run(
            "check", str(google), "-u", "Bingbot", "--color", "never", "https://example.com/a"
        ).stdout
    )


def run_on_tty(args: list[str], env: dict[str, str]) -> str:
    """Run with stdout on a pseudo-terminal, as a person at a terminal would."""
    try:
        leader, follower = pty.openpty()
    except OSError as exc:  # no pseudo-terminals in this sandbox
        pytest.skip(f"cannot open a pseudo-terminal: {exc}")
    try:
        full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        full_env.update(env)
        proc = subprocess.run(
            [*ENTRY, *args],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=full_env,
            timeout=60,
            check=False,
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.returncode in (0, 1), proc.stderr
        return b"".join(chunks).decode("utf-8")
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)


def test_colour_on_a_terminal_unless_no_color(google: Path) -> None:
    args = ["check", str(google), "-u", "Bingbot", "https://example.com/includes/a"]
    coloured = run_on_tty(args, {})
    assert "\x1b[1;31mdisallowed" in coloured
    plain = run_on_tty(args, {"NO_COLOR": "1"})
    assert "\x1b[" not in plain and "disallowed" in plain
    # Colour never changes the alignment: without escapes both outputs are the same text.
    assert ANSI.sub("", coloured) == plain


# ----------------------------------------------------------------------------- agreement


def test_check_agrees_with_the_reference_on_real_files() -> None:
    """Google's C++ verdicts and matching lines for real sites, through the CLI: the carried
    sample's cut file (docs.oracle.com, 853,036 bytes) and three sites with disallowed URLs."""
    domains = {"docs.oracle.com", "www.usgs.gov", "rpg.stackexchange.com", "www.caltech.edu"}
    expected: dict[tuple[str, str], list[dict[str, object]]] = {}
    for v in corpus_rows(CARRIED):
        if v["domain"] in domains:
            expected.setdefault((str(v["domain"]), str(v["ua"])), []).append(v)
    assert len(expected) == len(domains) * 4
    for (domain, ua), rows in sorted(expected.items()):
        if ua not in ("Googlebot", "Bingbot"):
            continue
        proc = run(
            "check",
            str(robots_file(CARRIED, domain)),
            "-u",
            ua,
            "--json",
            "--urls",
            "-",
            stdin="\n".join(str(r["url"]) for r in rows).encode(),
        )
        got = [json.loads(line) for line in proc.stdout.splitlines()]
        assert [(g["allowed"], g["line"]) for g in got] == [
            (r["allowed"], r["line"]) for r in rows
        ], (domain, ua)
        assert proc.returncode == (0 if all(r["allowed"] for r in rows) else 1)


def test_check_json_matches_the_engine(tmp_path: Path) -> None:
    """The CLI reports exactly what ``parse(...).decide`` says: it has no logic of its own."""
    body = b"User-agent: a\nUser-agent: b\nDisallow: /x\nAllow: /x/y$\n\nUser-agent: *\nAllow: /\n"
    robots = tmp_path / "r.txt"
    robots.write_bytes(body)
    urls = [
        "http://h.example/x",
        "http://h.example/x/y",
        "http://h.example/x/y/z",
        "http://h.example/",
    ]
    for agent in ("a", "B", "c"):
        proc = run("check", str(robots), "-u", agent, "--json", *urls)
        for url, line in zip(urls, proc.stdout.splitlines(), strict=True):
            got = json.loads(line)
            d = parse(body).decide(url, agent)
            assert (got["allowed"], got["line"], got["group"], got["pattern"]) == (
                d.allowed,
                d.line,
                d.group,
                d.pattern,
            )


# ----------------------------------------------------------------------------- lint

NASTY = (
    b"\xef\xbb\xbfDisallow: /before\n"  # 1 BOM, rule before user-agent
    b"user agent: FooBot\n"  # 2 typo
    b"disalow /x\n"  # 3 typo, missing colon
    b"Disallowed: /y\n"  # 4 inexact key
    b"Allow: fish\n"  # 5 never matches
    b"Disallow: /a$b\n"  # 6 $ in the middle
    b"Disallow: /caf\xc3\xa9\n"  # 7 normalised
    b"Disallow: /a#b\n"  # 8 # in value
    b"Disallow: /d\xff\n"  # 9 not UTF-8
    b"Crawl-delay: 10\n"  # 10
    b"Host: example.com\n"  # 11 unknown
    b"foo\n"  # 12 no separator
    b"Disallow /a /b\n"  # 13 too many tokens
    b": nokey\n"  # 14 empty key
    b"Disallow:\n"  # 15 empty rule
    b"Disallow: /x\n"  # 16 duplicate of 3
    b"Allow: /x\n"  # 17 conflict with 3
    b"User-agent: *\n"  # 18
    b"Disallow: /\n"  # 19
    b"User-agent: Googlebot/2.1\n"  # 20 read as googlebot
    b"User-agent: *foo\n"  # 21 matches nobody
    b"\n"
    b"User-agent: OtherBot\n"  # 23 same group as line 20
    b"Allow: https://example.com/z\n"  # 24 never matches (URL)
    b"Sitemap: /sitemap.xml\n"  # 25 not absolute
    b"Disallow: /n\x00ul\n"  # 26 NUL
    b"Disallow: /" + b"x" * 17000 + b"\n"  # 27 too long
    b"User-agent: EmptyBot\n"  # 28 no rules: escapes the * group
)


def test_lint_json_reports_every_kind(tmp_path: Path) -> None:
    robots = tmp_path / "nasty.txt"
    robots.write_bytes(NASTY)
    proc = run("lint", str(robots), "--json")
    assert proc.returncode == 1  # there are errors
    data = json.loads(proc.stdout)
    found = {(f["code"], f["line"]) for f in data["findings"]}
    expected = {
        ("GR101", 1),
        ("GR401", 1),
        ("GR201", 2),
        ("GR201", 3),
        ("GR202", 3),
        ("GR208", 4),
        ("GR301", 5),
        ("GR302", 6),
        ("GR303", 7),
        ("GR211", 8),
        ("GR103", 9),
        ("GR207", 10),
        ("GR206", 11),
        ("GR203", 12),
        ("GR204", 13),
        ("GR205", 14),
        ("GR212", 15),
        ("GR404", 16),
        ("GR405", 17),
        ("GR407", 20),
        ("GR406", 21),
        ("GR403", 28),
        ("GR301", 24),
        ("GR501", 25),
        ("GR210", 26),
        ("GR209", 27),
        ("GR402", 2),
    }
    assert expected <= found, expected - found
    for f in data["findings"]:
        assert set(f) == {"code", "name", "severity", "line", "message"}
        assert f["severity"] in ("error", "warning", "info")
    assert data["counts"]["error"] == sum(f["severity"] == "error" for f in data["findings"])
    lines = {v["line"]: v for v in data["lines"]}
    assert lines[3]["read_as"] == "disallow" and lines[3]["value"] == "/x"
    assert lines[7]["pattern"] == "/caf%C3%A9"
    assert lines[10]["read_as"] == "unknown" and lines[10]["key"] == "Crawl-delay"
    assert lines[12]["read_as"] == "ignored"
    assert 22 not in lines  # blank
    assert [g["tokens"] for g in data["groups"]] == [
        ["foobot"],
        [],
        ["googlebot", "otherbot"],
        ["emptybot"],
    ]
    assert data["sitemaps"] == ["/sitemap.xml"]


def test_lint_google_example_is_clean(google: Path) -> None:
    proc = run("lint", str(google))
    assert proc.returncode == 0
    out = proc.stdout
    assert "12 lines" not in out and "367 bytes: 11 lines, 2 groups, 1 sitemap" in out
    assert re.search(r"^\s+8\s+2\s+user-agent\s+Googlebot$", out, re.M)
    assert re.search(r"^\s+1\s+comment\s+# This robots.txt", out, re.M)
    assert "^ info     GR402  'googlebot' has its own group" in out
    assert out.rstrip().endswith("findings: 0 errors, 0 warnings, 1 info")


@pytest.mark.parametrize(
    ("fail_on", "status"), [("error", 0), ("warning", 0), ("info", 1), ("never", 0)]
)
def test_lint_fail_on(google: Path, fail_on: str, status: int) -> None:
    assert run("lint", str(google), "--fail-on", fail_on).returncode == status


def test_lint_fail_on_warning_and_ignore(tmp_path: Path) -> None:
    robots = tmp_path / "r.txt"
    robots.write_bytes(b"User-agent: *\nDisalow: /x\nCrawl-delay: 5\n")
    assert run("lint", str(robots)).returncode == 0
    assert run("lint", str(robots), "--fail-on", "warning").returncode == 1
    proc = run("lint", str(robots), "--fail-on", "warning", "--ignore", "GR201", "--json")
    assert proc.returncode == 0
    assert [f["code"] for f in json.loads(proc.stdout)["findings"]] == ["GR207"]
    proc = run("lint", str(robots), "--fail-on", "info", "--ignore", "typo-key,crawl-delay")
    assert proc.returncode == 0


def test_lint_unknown_ignore_code(google: Path) -> None:
    proc = run("lint", str(google), "--ignore", "GR999")
    assert proc.returncode == 2
    assert "unknown check 'GR999'" in proc.stderr


def test_lint_findings_only(tmp_path: Path) -> None:
    robots = tmp_path / "r.txt"
    robots.write_bytes(b"Disallow: /a\nUser-agent: *\nDisallow: b\n")
    proc = run("lint", str(robots), "-q")
    assert proc.returncode == 1
    assert "READ AS" not in proc.stdout
    rows = [line.split(None, 3) for line in proc.stdout.splitlines() if line[:1] == " "]
    assert [r[:3] for r in rows] == [["1", "error", "GR401"], ["3", "error", "GR301"]]


def test_lint_stdin() -> None:
    proc = run("lint", "-", "--json", stdin=b"User-agent: *\r\nDisallow: /x\r\n")
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["file"] == "<stdin>"
    assert data["findings"] == []
    assert [v["read_as"] for v in data["lines"]] == ["user-agent", "disallow"]


def test_lint_over_the_size_limit_names_the_cut_line(tmp_path: Path) -> None:
    robots = tmp_path / "big.txt"
    body = b"User-agent: *\n" + b"Disallow: /abcdefghij\n" * 30_000
    robots.write_bytes(body)
    proc = run("lint", str(robots), "--json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["truncated"] is True and data["parsed_bytes"] == 512_000
    (cut,) = [f for f in data["findings"] if f["code"] == "GR104"]
    cut_line = 1 + (512_000 - 14) // 22 + 1
    assert cut["line"] == cut_line
    assert f"the cut falls inside line {cut_line}" in cut["message"]
    left = "Disallow: /abcdefghij\n"[: (512_000 - 14) % 22]
    assert f"leaving {left!r}" in cut["message"]


def test_lint_missing_file_and_missing_argument(tmp_path: Path) -> None:
    proc = run("lint", str(tmp_path / "robots.txt"))
    assert proc.returncode == 2
    assert "robots.txt file not found" in proc.stderr
    no_traceback(proc)
    proc = run("lint")
    assert proc.returncode == 2
    assert "ROBOTS argument is required" in proc.stderr


def test_lint_list_checks() -> None:
    proc = run("lint", "--list-checks", "--json")
    assert proc.returncode == 0
    checks = json.loads(proc.stdout)
    codes = [c["code"] for c in checks]
    assert len(codes) == len(set(codes)) and all(re.fullmatch(r"GR\d{3}", c) for c in codes)
    assert len({c["name"] for c in checks}) == len(checks)
    text = run("lint", "--list-checks").stdout
    assert all(code in text for code in codes)


def test_lint_does_not_print_terminal_escapes_from_the_file(tmp_path: Path) -> None:
    robots = tmp_path / "r.txt"
    robots.write_bytes(b"User-agent: *\nDisallow: /\x1b[31mred\n")
    proc = run("lint", str(robots), "--color", "never")
    assert "\x1b" not in proc.stdout
    assert "/\\x1b[31mred" in proc.stdout


def test_check_and_lint_do_not_import_scrapy(google: Path) -> None:
    code = (
        "import sys\n"
        "from scrapy_gbot_robots import cli\n"
        f"cli.main(['lint', {str(google)!r}, '--json'])\n"
        f"cli.main(['check', {str(google)!r}, '-u', 'x', 'https://e.example/'])\n"
        "print('SCRAPY' if 'scrapy' in sys.modules or 'twisted' in sys.modules else 'LIGHT')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.stdout.splitlines()[-1] == "LIGHT", proc.stderr


def test_commands_are_found_in_the_package_in_order() -> None:
    """A command is one module with a COMMAND: 'report.py' would be found the same way."""
    from scrapy_gbot_robots.cli import commands

    names = [c.name for c in commands()]
    assert names == ["check", "lint", "agents", "fetch", "inspect", "report", "doctor"]


# ----------------------------------------------------------------------------- token lists, usage

ONLY_GOOGLEBOT = b"""\
User-agent: *
Disallow: /

User-agent: Googlebot
Disallow: /nogoogle/
Content-Usage: /blog/ train-ai=n
Content-Signal: search=yes, ai-train=no
"""


@pytest.fixture()
def only_googlebot(tmp_path: Path) -> Path:
    path = tmp_path / "robots.txt"
    path.write_bytes(ONLY_GOOGLEBOT)
    return path


def test_check_token_list_falls_to_the_first_named_token(only_googlebot: Path) -> None:
    urls = ["https://e.com/a.jpg", "https://e.com/nogoogle/b.jpg"]
    alone = run("check", str(only_googlebot), "-u", "Googlebot-Image", *urls)
    assert alone.returncode == 1 and "follows the * group" in alone.stdout
    proc = run("check", str(only_googlebot), "-u", "Googlebot-Image,Googlebot", *urls)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert "Googlebot-Image has no group of its own and follows the Googlebot group" in lines[0]
    assert lines[2].split()[:3] == ["allowed", "-", "-"]
    assert lines[3].split()[:3] == ["disallowed", "5", "Googlebot"]
    assert "for Googlebot-Image,Googlebot" in proc.stdout
    objs = [
        json.loads(line)
        for line in run(
            "check", str(only_googlebot), "-u", "Googlebot-Image, Googlebot", "--json", *urls
        ).stdout.splitlines()
    ]
    assert [(o["allowed"], o["token"], o["group"]) for o in objs] == [
        (True, "Googlebot", "none"),
        (False, "Googlebot", "agent"),
    ]
    assert objs[0]["tokens"] == ["Googlebot-Image", "Googlebot"]


def test_check_no_global_ignores_star(only_googlebot: Path) -> None:
    proc = run("check", str(only_googlebot), "-u", "AdsBot-Google", "--no-global", "https://e.com/")
    assert proc.returncode == 0, proc.stdout
    assert "the * group is ignored (--no-global)" in proc.stdout
    assert proc.stdout.splitlines()[-1].endswith("for AdsBot-Google (ignoring *)")
    with_star = run("check", str(only_googlebot), "-u", "AdsBot-Google", "https://e.com/")
    assert with_star.returncode == 1


@pytest.mark.parametrize(
    ("name", "status", "token", "global_group"),
    [
        ("googlebot-image", 1, "Googlebot", True),
        ("Googlebot-Image", 1, "Googlebot", True),  # names are case-insensitive
        ("adsbot-google", 0, "", False),  # AdsBot ignores *
        ("storebot-google", 1, "*", True),
    ],
)
def test_check_as_a_documented_crawler(
    only_googlebot: Path, name: str, status: int, token: str, global_group: bool
) -> None:
    proc = run("check", str(only_googlebot), "--as", name, "--json", "https://e.com/nogoogle/x")
    assert proc.returncode == status, proc.stderr
    obj = json.loads(proc.stdout)
    assert (obj["token"], obj["global_group"]) == (token, global_group)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--as", "nobot"], "unknown crawler 'nobot' for --as; known: googlebot, googlebot-image"),
        (["--as", "googlebot", "-u", "Googlebot"], "either with --token or with --as"),
        (["-u", "Googlebot-Image,,Googlebot"], "empty token in"),
        (["-u", "Googlebot,*"], "invalid product token '*'"),
    ],
)
def test_check_token_option_errors(only_googlebot: Path, args: list[str], message: str) -> None:
    proc = run("check", str(only_googlebot), *args, "https://e.com/")
    assert proc.returncode == 2
    assert message in proc.stderr
    no_traceback(proc)


def test_check_each_token_of_a_list_is_reduced_and_headers_keep_their_commas(
    only_googlebot: Path,
) -> None:
    url = "https://e.com/nogoogle/x"
    tokens = "Googlebot-Image/1.0,Googlebot/2.1"
    proc = run("check", str(only_googlebot), "-u", tokens, "--json", url)
    assert json.loads(proc.stdout)["tokens"] == ["Googlebot-Image", "Googlebot"]
    assert "checking as 'Googlebot-Image' instead" in proc.stderr
    header = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1)"
    proc = run("check", str(only_googlebot), "-u", header, "--json", url)
    assert json.loads(proc.stdout)["tokens"] == ["Googlebot"]


def test_check_shows_the_usage_in_force_per_url(only_googlebot: Path) -> None:
    urls = ["https://e.com/blog/post", "https://e.com/about"]
    proc = run("check", str(only_googlebot), "-u", "Googlebot", *urls)
    lines = proc.stdout.splitlines()
    assert lines[1].split() == ["VERDICT", "LINE", "GROUP", "RULE", "USAGE", "URL"]
    assert "train-ai=n (6); search=yes ai-train=no (7)" in lines[2]
    assert "train-ai=n" not in lines[3] and "search=yes ai-train=no (7)" in lines[3]
    assert lines[-1].startswith("USAGE: Content-Signal (Cloudflare's convention)")
    obj = json.loads(run("check", str(only_googlebot), "-u", "Googlebot", "--json", urls[0]).stdout)
    assert obj["usage"]["group"] == "Googlebot"
    prefs = obj["usage"]["preferences"]
    assert [(p["category"], p["value"], p["mechanism"], p["line"]) for p in prefs] == [
        ("train-ai", "n", "content-usage", 6),
        ("search", "yes", "content-signal", 7),
        ("ai-train", "no", "content-signal", 7),
    ]
    # No statement in force for the * group: no USAGE column at all.
    star = run("check", str(only_googlebot), "-u", "Bingbot", "https://e.com/")
    assert "USAGE" not in star.stdout


def test_lint_reads_usage_lines(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(ONLY_GOOGLEBOT + b"Content-Usage: ai-train=n\n")
    proc = run("lint", str(path))
    assert "content-usage" in proc.stdout and "content-signal" in proc.stdout
    assert "GR605" in proc.stdout and "GR206" not in proc.stdout
    data = json.loads(run("lint", str(path), "--json").stdout)
    assert {(f["line"], f["code"]) for f in data["findings"]} >= {(6, "GR601"), (8, "GR605")}
    assert [v["read_as"] for v in data["lines"] if v["line"] in (6, 7)] == [
        "content-usage",
        "content-signal",
    ]


# ----------------------------------------------------------------------------- agents

AI_FILE = b"""\
User-agent: GPTBot
Disallow: /

User-agent: CCBot
Disallow: /
Allow: /public

User-agent: ClaudeBot
Disallow: /private
"""


def test_agents_lists_exactly_the_blocked_crawlers_with_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(AI_FILE)
    proc = run("agents", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert len(rows) == 166
    blocked = {(r["token"], r["group_line"], r["line"]) for r in rows if not r["root_allowed"]}
    assert blocked == {("GPTBot", 1, 2), ("CCBot", 4, 5)}
    assert all({"token", "group_line", "root_allowed"} <= set(r) for r in rows)
    text = run("agents", str(path), "--disallowed-only")
    assert text.returncode == 0
    out = ANSI.sub("", text.stdout)
    assert "2 of 166 kept out of /" in out.splitlines()[0]
    assert "ClaudeBot" not in out  # allowed at /: left out
    assert "GPTBot" in out and "line 2: Disallow: /" in out and "(line 1)" in out


def test_check_lists_the_rsl_license_lines(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(b"License: https://e.com/license.xml\nUser-agent: *\nDisallow: /x\n")
    proc = run("check", str(path), "-u", "bot", "https://e.com/x")
    assert proc.returncode == 1  # /x is disallowed: the License line changes nothing
    assert "License (RSL): https://e.com/license.xml" in ANSI.sub("", proc.stdout)
    row = json.loads(run("check", str(path), "-u", "bot", "--json", "https://e.com/y").stdout)
    assert row["allowed"] is True and row["licenses"] == ["https://e.com/license.xml"]
    lint = json.loads(run("lint", str(path), "--json").stdout)
    assert lint["licenses"] == ["https://e.com/license.xml"]
    assert {f["code"] for f in lint["findings"]} >= {"GR502"}
    assert "GR206" not in {f["code"] for f in lint["findings"]}
