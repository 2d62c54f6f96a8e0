"""The report's files (``crawl/reporting.py``): written last in the close, to every path the
setting names; one that cannot be written is logged, never fatal."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots.crawl.reporting import ReportFiles
from scrapy_gbot_robots.report.collector import ReportCollector


def test_every_file_is_written_and_a_bad_path_only_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    crawler = get_crawler(Spider)
    crawler.stats.set_value("robotstxt/forbidden", 3)
    crawler.stats.set_value("downloader/request_count", 9)  # not ours: not in the report
    crawler.stats.set_value("robotstxt/deferred", 2)  # robotstxt/parked's 0.2 name: left out
    collector = ReportCollector(max_origins=5, max_rules=5, examples=1, error_stop=1.0)
    good, bad = tmp_path / "report.json", tmp_path / "taken"
    bad.mkdir()  # a directory where the file should go
    files = ReportFiles(
        collector,
        crawler.stats,
        [str(bad), str(good)],
        tokens=("Googlebot-Image", "Googlebot"),
        settings={"mode": "enforce"},
    )
    with caplog.at_level(logging.INFO, logger="scrapy_gbot_robots"):
        files.write("spider", "finished")
    data = json.loads(good.read_text(encoding="utf-8"))
    crawl = data["crawl"]
    assert crawl["finish_reason"] == "finished" and crawl["spider"] == "spider"
    assert crawl["tokens"] == ["Googlebot-Image", "Googlebot"]
    assert crawl["stats"] == {"robotstxt/forbidden": 3} and crawl["settings"]["mode"] == "enforce"
    messages = [r.getMessage() for r in caplog.records]
    assert any("Could not write the robots.txt report" in m and str(bad) in m for m in messages)
    assert any("report written to" in m for m in messages)
