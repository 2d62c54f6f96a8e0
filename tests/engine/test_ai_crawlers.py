"""Which AI crawlers a robots.txt keeps out (``engine/ai_crawlers.py``), fast, on files."""

from __future__ import annotations

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.engine.ai_crawlers import (
    ROOT,
    AiCrawler,
    first_lines,
    snapshot,
    verdicts,
)

FILE = b"""\
User-agent: *
Allow: /

User-agent: GPTBot
User-agent: CCBot
Disallow: /

User-agent: ClaudeBot
Disallow: /private

# AI2Bot is read as the token AI (Google keeps the leading letters)
User-agent: AI2Bot
Disallow: /
"""


def test_the_snapshot_carries_its_source_licence_and_166_crawlers() -> None:
    snap = snapshot()
    assert snap.commit == "738c80d" and snap.date == "2026-08-22" and snap.license == "MIT"
    assert snap.source.startswith("https://github.com/ai-robots-txt/ai.robots.txt/")
    assert len(snap.crawlers) == 166
    tokens = {c.token for c in snap.crawlers}
    assert {"GPTBot", "CCBot", "ClaudeBot", "Google-Extended"} <= tokens
    assert all(c.operator and c.function and c.respect for c in snap.crawlers)
    assert not any("](" in c.operator for c in snap.crawlers)  # markdown links reduced


def test_exactly_the_crawlers_a_file_blocks_are_disallowed_at_root_with_their_lines() -> None:
    rows = verdicts(parse(FILE))
    disallowed = {r.crawler.token: r for r in rows if not r.root_allowed}
    # AI2Bot, AI2Bot-DeepResearchEval and Ai2Bot-Dolma all reduce to the token "AI".
    ai2 = {"AI2Bot", "AI2Bot-DeepResearchEval", "Ai2Bot-Dolma"}
    assert set(disallowed) == {"GPTBot", "CCBot", *ai2}
    gpt = disallowed["GPTBot"]
    assert (gpt.group, gpt.group_line, gpt.line, gpt.rule) == ("GPTBot", 4, 6, "Disallow: /")
    assert disallowed["CCBot"].group_line == 5 and disallowed["CCBot"].line == 6
    assert disallowed["AI2Bot"].group_line == 12 and disallowed["AI2Bot"].group == "AI"
    claude = next(r for r in rows if r.crawler.token == "ClaudeBot")
    assert claude.root_allowed and claude.group_line == 8 and claude.named
    other = next(r for r in rows if r.crawler.token == "Bytespider")
    assert other.root_allowed and (other.group, other.group_line, other.line) == ("*", 1, 2)
    assert not other.named


def test_no_group_applies_and_the_json_fields() -> None:
    rows = verdicts(parse(b"User-agent: Googlebot\nDisallow: /\n"))
    assert all(r.root_allowed and r.group == "" and r.group_line == 0 for r in rows)
    row = verdicts(parse(FILE), [AiCrawler("GPTBot", "OpenAI", "AI Data Scrapers", "Yes")])[0]
    data = row.as_json()
    assert data["token"] == "GPTBot" and data["group_line"] == 4 and data["root_allowed"] is False
    assert data["rule"] == "Disallow: /" and data["operator"] == "OpenAI"


def test_first_lines_names_each_token_and_the_global_group_once() -> None:
    firsts = first_lines(b"User-agent: a\nUser-agent: *\nDisallow: /\nuser-agent: A\n")
    assert firsts == {"a": 1, "*": 2}


def test_the_crawls_own_matcher_memo_is_left_alone() -> None:
    robots = parse(FILE)
    assert robots.allowed("https://e.com/x", "MyBot")
    verdicts(robots)
    assert robots._others is None  # the 166 questions were asked of a copy


def test_the_shared_answer_for_unnamed_crawlers_is_each_ones_own() -> None:
    """One question for every crawler the file does not name: the same answer as asking each."""
    from pathlib import Path

    corpus = sorted((Path(__file__).parents[1] / "data" / "corpus" / "robots").glob("*.txt"))
    files = [FILE, *(p.read_bytes() for p in corpus[:6])]
    crawlers = snapshot().crawlers
    for body in files:
        robots = parse(body)
        firsts = first_lines(body)
        fresh = parse(body)
        for row in verdicts(robots):
            own = fresh.decide(ROOT, row.crawler.checked_as)
            assert (row.root_allowed, row.line, row.group) == (own.allowed, own.line, own.token)
            assert row.group_line == (firsts.get(own.token.lower(), 0) if own.token else 0)
        assert len(verdicts(robots)) == len(crawlers)
