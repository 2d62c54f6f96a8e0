"""Google's crawler table behind ``gbot-robots check --as`` (``engine/google_crawlers.py``).

What the CLI does with it is tested in ``tests/cli/test_cli.py``; here, the table itself.
"""

from __future__ import annotations

from pathlib import Path

from scrapy_gbot_robots.engine.google_crawlers import GOOGLE_CRAWLERS, READ_ON, crawler
from scrapy_gbot_robots.engine.tokens import is_valid_token


def test_every_crawler_has_valid_tokens_most_specific_first_and_a_source() -> None:
    assert GOOGLE_CRAWLERS, "the table is empty"
    for name, entry in GOOGLE_CRAWLERS.items():
        assert name == entry.name == name.lower()
        assert entry.tokens and all(is_valid_token(token) for token in entry.tokens)
        assert entry.tokens[0].lower() == name  # its own token first
        assert entry.source.startswith("https://developers.google.com/")


def test_crawler_is_found_by_name_whatever_its_case_and_spaces() -> None:
    image = crawler("  Googlebot-Image ")
    assert image is not None and image.tokens == ("Googlebot-Image", "Googlebot")
    assert image.global_group is True
    ads = crawler("adsbot-google")
    assert ads is not None and ads.global_group is False  # special-case crawlers ignore *
    assert crawler("bingbot") is None


def test_the_date_the_sources_were_read_is_the_one_docs_cli_gives() -> None:
    cli = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
    assert f"on **{READ_ON}** from Google's" in cli.read_text(encoding="utf-8")
