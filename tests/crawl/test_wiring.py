"""The wiring, without a crawl: which lock expiry and which size bound a crawl is built with.

Both are decided once, from the settings, when the crawl's parts are built; the real crawls
show their effect (``test_size_encoding.py``, ``test_redis_crawl.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
from scrapy.settings import Settings

from scrapy_gbot_robots import Addon
from scrapy_gbot_robots._compat import body_middleware_enabled
from scrapy_gbot_robots._components import BODY, spellings
from scrapy_gbot_robots._settings import load
from scrapy_gbot_robots.crawl.wiring import lock_ttl


class _Renewing:
    default_lock_ttl: float | None = 30.0


class _NotRenewing:
    default_lock_ttl: float | None = None


def test_a_store_that_renews_its_locks_names_a_short_expiry() -> None:
    assert lock_ttl(load({}.get), _Renewing()) == 30.0  # type: ignore[arg-type]


def test_a_store_that_does_not_renew_waits_out_the_slowest_fetch() -> None:
    config = load({"GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 10, "GBOT_ROBOTS_RETRY_TIMES": 1}.get)
    # (5 redirects + 1) downloads of 10 s, twice (one immediate retry), plus 30 s of margin
    assert lock_ttl(config, _NotRenewing()) == 6 * 10 * 2 + 30  # type: ignore[arg-type]


def test_the_setting_wins() -> None:
    config = load({"GBOT_ROBOTS_LOCK_TTL": 7}.get)
    assert lock_ttl(config, _Renewing()) == 7.0  # type: ignore[arg-type]


def _chain(settings: dict[str, Any], addon: bool) -> Settings:
    result = Settings(settings)
    if addon:
        Addon().update_settings(result)
    return result


@pytest.mark.parametrize(
    ("settings", "addon", "bounded"),
    [
        ({}, True, True),  # the add-on installs it
        (
            {"DOWNLOADER_MIDDLEWARES": {"scrapy_gbot_robots.RobotsBodyMiddleware": None}},
            True,
            False,
        ),
        (
            {
                "DOWNLOADER_MIDDLEWARES": {
                    "scrapy_gbot_robots.middleware.GoogleRobotsTxtMiddleware": 100
                }
            },
            False,
            False,
        ),
        (
            {
                "DOWNLOADER_MIDDLEWARES": {
                    "scrapy_gbot_robots.middleware.GoogleRobotsTxtMiddleware": 100,
                    "scrapy_gbot_robots.body.RobotsBodyMiddleware": 595,
                }
            },
            False,
            True,
        ),
    ],
)
def test_the_body_middleware_is_looked_for_in_the_chain_the_downloader_builds(
    settings: dict[str, Any], addon: bool, bounded: bool
) -> None:
    """Issue 24, item 2: Scrapy's size limit is lifted only when it really is in the chain."""
    assert body_middleware_enabled(_chain(settings, addon), spellings(BODY)) is bounded
