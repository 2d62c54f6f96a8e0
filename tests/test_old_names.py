"""The public names of 0.2 that the glossary renamed (issue 47) still work until 0.4.

Settings are read (the new name wins) with a deprecation warning naming the new one; the old
signals are the new ones' objects, with a warning when read; the old meta key is read with one
warning per crawl; the old stats are written beside the new ones; a report of schema 1 is read
in schema 2's words; ``--user-agent`` is read with a warning. In 0.4 this file goes, with them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from scrapy import Spider
from scrapy.exceptions import ScrapyDeprecationWarning
from scrapy.http import Request
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots import GoogleRobotsTxtMiddleware, signals
from scrapy_gbot_robots._settings import (
    RENAMED,
    known_settings,
    load,
    renamed_settings,
    unknown_settings,
)
from scrapy_gbot_robots.crawl.reasons import ParkReason
from scrapy_gbot_robots.crawl.request_keys import RequestKeys
from scrapy_gbot_robots.crawl.telemetry import Telemetry
from scrapy_gbot_robots.report.schema import problem, upgraded

ORIGIN = "http://a.test"
SCRIPT = Path(sys.executable).parent / "gbot-robots"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_gbot_robots"]

# ----------------------------------------------------------------------------- settings

#: A value for each renamed setting that differs from its default, and the Config it reaches.
OLD_VALUES: dict[str, tuple[Any, str]] = {
    "GBOT_ROBOTS_CACHE_SIZE": (7, "memory_size"),
    "GBOT_ROBOTS_CACHE_COMPACT_BYTES": (1024, "compact_bytes"),
    "GBOT_ROBOTS_CACHE_KEEP": (90 * 86_400.0, "store_keep"),
    "GBOT_ROBOTS_CACHE_TTL": (3_600.0, "policy.cache_ttl"),
    "GBOT_ROBOTS_CACHE_MIN_TTL": (30.0, "policy.min_ttl"),
    "GBOT_ROBOTS_CACHE_MAX_TTL": (86_400.0 * 20, "policy.max_ttl"),
}


def _field(config: Any, path: str) -> Any:
    for part in path.split("."):
        config = getattr(config, part)
    return config


def test_every_renamed_setting_has_a_value_here() -> None:
    assert set(OLD_VALUES) | {"GBOT_ROBOTS_CACHE"} == set(RENAMED)
    assert set(RENAMED.values()) <= known_settings()
    assert not set(RENAMED) & known_settings()  # docs/settings.md lists the new names only


@pytest.mark.parametrize("old", sorted(OLD_VALUES))
def test_an_old_setting_is_read_and_the_new_one_wins(old: str) -> None:
    value, field = OLD_VALUES[old]
    assert _field(load({old: value}.get), field) == value
    new = RENAMED[old]
    both = {old: value, new: value * 2 if field != "policy.min_ttl" else 10.0}
    assert _field(load(both.get), field) == both[new]


def test_an_old_setting_with_a_bad_value_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match=r"^GBOT_ROBOTS_CACHE_SIZE: expected a number"):
        load({"GBOT_ROBOTS_CACHE_SIZE": "many"}.get)


def test_the_old_store_location_is_read_and_named_by_its_errors(tmp_path: Path) -> None:
    path = str(tmp_path / "robots.sqlite3")
    config = load({"GBOT_ROBOTS_CACHE": f"sqlite://{path}"}.get)
    assert config.store_at == ("sqlite", path)
    assert config.store_setting == "GBOT_ROBOTS_CACHE"  # what the user wrote
    both = {"GBOT_ROBOTS_CACHE": f"sqlite://{path}", "GBOT_ROBOTS_STORE": "memory"}
    assert load(both.get).store_at == ("memory", "")  # the new name wins (0.2: an error)
    with pytest.raises(ValueError, match=r"^GBOT_ROBOTS_CACHE: expected 'memory'"):
        load({"GBOT_ROBOTS_CACHE": "ftp://x"}.get)


def test_old_settings_are_never_called_unknown() -> None:
    assert unknown_settings(RENAMED) == []
    assert unknown_settings(["GBOT_ROBOTS_CACHE_SIZ"]) == [
        ("GBOT_ROBOTS_CACHE_SIZ", "GBOT_ROBOTS_STORE_SIZE")  # typos get the new name
    ]
    assert renamed_settings(["GBOT_ROBOTS_TICK", "GBOT_ROBOTS_CACHE"]) == [
        ("GBOT_ROBOTS_CACHE", "GBOT_ROBOTS_STORE")
    ]


def test_start_up_warns_once_per_old_setting_naming_the_new_one() -> None:
    settings = {
        "ROBOTSTXT_OBEY": True,
        "GBOT_ROBOTS_CACHE_SIZE": 7,
        "GBOT_ROBOTS_CACHE_TTL": 60.0,
        "GBOT_ROBOTS_TTL": 120.0,
    }
    crawler = get_crawler(Spider, settings)
    with pytest.warns(ScrapyDeprecationWarning) as caught:
        GoogleRobotsTxtMiddleware.from_crawler(crawler)
    messages = sorted(str(w.message) for w in caught)
    assert messages == [
        "GBOT_ROBOTS_CACHE_SIZE is deprecated: use GBOT_ROBOTS_STORE_SIZE, its name since 0.3",
        "GBOT_ROBOTS_CACHE_TTL is deprecated: use GBOT_ROBOTS_TTL, its name since 0.3 "
        "(GBOT_ROBOTS_TTL is set too, and wins)",
    ]


def test_start_up_with_the_new_names_warns_nothing() -> None:
    crawler = get_crawler(Spider, {"ROBOTSTXT_OBEY": True, "GBOT_ROBOTS_STORE_SIZE": 7})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GoogleRobotsTxtMiddleware.from_crawler(crawler)


# ----------------------------------------------------------------------------- signals


@pytest.mark.parametrize(
    ("old", "new"),
    [("request_deferred", "request_parked"), ("request_dropped", "parked_request_dropped")],
)
def test_an_old_signal_is_the_new_one_with_a_warning(old: str, new: str) -> None:
    with pytest.warns(ScrapyDeprecationWarning, match=f"signals.{old} is deprecated: use {new}"):
        signal = getattr(signals, old)
    assert signal is getattr(signals, new)
    with pytest.raises(AttributeError, match="request_nothing"):
        getattr(signals, "request_" + "nothing")


def test_a_handler_connected_to_an_old_signal_hears_every_parked_request() -> None:
    t = Telemetry(get_crawler(Spider), None, debug=False).requests
    heard: list[Request] = []

    def parked(request: Request, spider: Spider | None) -> None:
        heard.append(request)

    with pytest.warns(ScrapyDeprecationWarning):
        t.crawler.signals.connect(parked, signal=signals.request_deferred)
    request = Request(ORIGIN + "/a")
    t.parked(request, ORIGIN, ParkReason.MISS)
    assert heard == [request]


# ----------------------------------------------------------------------------- stats


def test_old_stat_names_are_written_beside_the_new_ones() -> None:
    telemetry = Telemetry(get_crawler(Spider), None, debug=False, diagnostic=True)
    stats = telemetry.requests.crawler.stats
    assert stats is not None
    telemetry.requests.parked(Request(ORIGIN + "/a"), ORIGIN, ParkReason.MISS)
    telemetry.requests.released()
    telemetry.requests.checked()
    telemetry.requests.flush()
    got = stats.get_stats()
    assert got["robotstxt/parked"] == got["robotstxt/deferred"] == 1
    assert got["robotstxt/released"] == got["robotstxt/undeferred"] == 1
    assert got["robotstxt/store/hit"] == got["robotstxt/cache/hit"] == 1
    assert "robotstxt/dropped" not in got  # never renamed: one name only
    telemetry.requests.dropped(Request(ORIGIN + "/b"), ORIGIN, "deadline")
    assert [k for k in stats.get_stats() if k.endswith("/dropped")] == ["robotstxt/dropped"]


def test_a_diagnostic_stat_is_written_under_neither_name_by_default() -> None:
    telemetry = Telemetry(get_crawler(Spider), None, debug=False)
    stats = telemetry.requests.crawler.stats
    assert stats is not None
    telemetry.requests.checked()
    telemetry.requests.flush()
    telemetry.requests.released()  # a stat a user reads: both names, as above
    got = stats.get_stats()
    assert "robotstxt/store/hit" not in got and "robotstxt/cache/hit" not in got
    assert got["robotstxt/released"] == got["robotstxt/undeferred"] == 1


# ----------------------------------------------------------------------------- meta


def test_the_old_meta_key_is_read_with_one_warning_per_crawl() -> None:
    keys = RequestKeys("Scrapy", fixed=False)
    old = Request(ORIGIN, meta={"robotstxt_user_agent": "Googlebot-News/1.0"})
    with pytest.warns(ScrapyDeprecationWarning, match=r"use meta\['gbot_robots_token'\]"):
        assert keys.token_of(old) == "Googlebot-News"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert keys.token_of(old) == "Googlebot-News"  # said once
        both = {"robotstxt_user_agent": "OldBot", "gbot_robots_token": "NewBot"}
        assert keys.token_of(Request(ORIGIN, meta=both)) == "NewBot"  # the new key wins
        assert keys.token_of(Request(ORIGIN, meta={"gbot_robots_token": "NewBot"})) == "NewBot"


# ----------------------------------------------------------------------------- the report


def _report_1() -> dict[str, Any]:
    """A report of schema 1, as 0.2 wrote it (the fields that changed, and enough else)."""
    counts = {"allowed": 1, "forbidden": 2, "deferred": 3, "dropped": 0}
    return {
        "schema": "gbot-robots-report/1",
        "crawl": {
            "spider": "old",
            "user_agent": "Googlebot-Image, Googlebot",
            "settings": {"cache": "sqlite", "park_timeout": 600.0},
        },
        "totals": {**counts, "origins": 1, "checked": 3, "rules": 0},
        "origins_by_state": {"rules": 1},
        "folded": {"origins": 0, "rules": 0, "other_origins": dict(counts)},
        "rules": [],
        "origins": [{"origin": ORIGIN, "requests": dict(counts)}],
    }


def test_a_report_of_schema_1_is_read_in_schema_2s_words() -> None:
    new = upgraded(_report_1())
    assert new["schema"] == "gbot-robots-report/2"
    assert new["totals"]["parked"] == 3 and "deferred" not in new["totals"]
    assert new["folded"]["other_origins"]["parked"] == 3
    assert new["origins"][0]["requests"]["parked"] == 3
    assert new["crawl"]["tokens"] == ["Googlebot-Image", "Googlebot"]
    assert "user_agent" not in new["crawl"]
    assert new["crawl"]["settings"] == {"store": "sqlite", "park_timeout": 600.0}
    assert problem(new) is None
    assert upgraded({"schema": "gbot-robots-report/1"}) == {"schema": "gbot-robots-report/2"}
    assert upgraded([1]) == [1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ENTRY, *args], capture_output=True, text=True, timeout=60, check=False)


def test_gbot_robots_report_reads_a_report_of_schema_1(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_report_1()), encoding="utf-8")
    proc = _run("report", str(path), "--color", "never")
    assert proc.returncode == 0, proc.stderr
    assert "token Googlebot-Image, Googlebot" in proc.stdout
    assert "3 parked first" in proc.stdout


# ----------------------------------------------------------------------------- the CLI


def test_the_old_user_agent_option_is_read_with_a_warning(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: Googlebot\nDisallow: /private\n")
    proc = _run(
        "check", str(robots), "--user-agent", "Googlebot", "--json", "http://a.test/private"
    )
    assert proc.returncode == 1, proc.stderr
    assert "warning: --user-agent is deprecated: use --token" in proc.stderr
    row = json.loads(proc.stdout)
    assert row["tokens"] == ["Googlebot"] and row["token"] == "Googlebot"
    assert (row["user_agent"], row["user_agents"]) == ("Googlebot", ["Googlebot"])  # until 0.4
    assert row["allowed"] is False
    new = _run("check", str(robots), "--token", "Googlebot", "http://a.test/private")
    assert new.returncode == 1 and "deprecated" not in new.stderr
