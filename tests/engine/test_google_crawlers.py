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


def test_the_table_says_how_each_crawler_treats_robots_txt() -> None:
    from scrapy_gbot_robots.engine.google_crawlers import IGNORES, OBEYS, OBEYS_OWN_GROUP

    kinds = {entry.robots_txt for entry in GOOGLE_CRAWLERS.values()}
    assert kinds == {OBEYS, OBEYS_OWN_GROUP, IGNORES}
    for entry in GOOGLE_CRAWLERS.values():
        # A crawler that ignores * obeys its own group; one that ignores robots.txt obeys none.
        assert entry.global_group is (entry.robots_txt != OBEYS_OWN_GROUP)
        assert entry.obeys is (entry.robots_txt != IGNORES)
    for name in ("google-extended", "googleother", "google-cloudvertexbot", "googlebot-news"):
        found = crawler(name)
        assert found is not None and found.obeys and found.global_group
    other_image = crawler("GoogleOther-Image")
    assert other_image is not None and other_image.tokens == ("GoogleOther-Image", "GoogleOther")
    fetcher = crawler("feedfetcher-google")
    assert fetcher is not None and not fetcher.obeys
    adsense = crawler("Mediapartners-Google")  # AdSense: its own group, never *
    assert adsense is not None and adsense.obeys and not adsense.global_group


def test_docs_cli_lists_every_crawler_of_the_table() -> None:
    cli = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    for name in GOOGLE_CRAWLERS:
        assert f"| `{name}` |" in cli, name
