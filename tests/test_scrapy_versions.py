"""Where the package, its docs, tests or benchmarks say "Scrapy X added F", X is right.

Issue 17, item 12: ``robots_parsed`` was called a Scrapy 2.12 signal in ``_compat.py`` and
docs/signals.md; Scrapy 2.18 added it. Each ``since`` below was read in the released wheels of
Scrapy 2.11.2, 2.12.0, 2.13.0, 2.14.0, 2.15.0, 2.16.0, 2.17.0, 2.18.0 and 2.19.0: the feature
absent from the release before, present from this one on. The first test holds the table
against the Scrapy installed (CI runs the oldest supported and the newest); the second holds
every line that names one of these features and a Scrapy version ("Scrapy" and ``2.NN`` on
the line) to the table.
README.md (being rewritten elsewhere) and CHANGES.md (history, which may quote an old claim)
are not read.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import scrapy
from scrapy import signals
from scrapy.core.engine import ExecutionEngine
from scrapy.crawler import Crawler, CrawlerRunner
from scrapy.robotstxt import RobotParser
from scrapy.settings import default_settings

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Feature:
    words: tuple[str, ...]  # a line naming any of these is about this feature
    since: str  # the first Scrapy release that has it
    present: Callable[[], bool]  # whether the installed Scrapy has it


FEATURES = [
    Feature(("robots_parsed",), "2.18", lambda: hasattr(signals, "robots_parsed")),
    Feature(("crawl_delay", "Crawl-delay"), "2.18", lambda: hasattr(RobotParser, "crawl_delay")),
    Feature(
        ("TWISTED_DNS_RESOLVER",),
        "2.15",
        lambda: hasattr(default_settings, "TWISTED_DNS_RESOLVER"),
    ),
    Feature(("failed bootstrap",), "2.15", lambda: "or failed" in inspect.getsource(CrawlerRunner)),
    Feature(
        ("download_async", "close_spider_async"),
        "2.14",
        lambda: hasattr(ExecutionEngine, "download_async"),
    ),
    Feature(("stop_async",), "2.14", lambda: hasattr(Crawler, "stop_async")),
    Feature(
        ("asyncio reactor", "AsyncioSelectorReactor"),
        "2.13",
        lambda: "asyncio" in str(default_settings.TWISTED_REACTOR),
    ),
    Feature(
        ("start()", "start_requests", "async def start"),
        "2.13",
        lambda: hasattr(scrapy.Spider, "start"),
    ),
    Feature(("``_slot``",), "2.13", lambda: "self._slot" in inspect.getsource(ExecutionEngine)),
    Feature(
        ("is_start_request",),
        "2.13",
        lambda: importlib.util.find_spec("scrapy.spidermiddlewares.start") is not None,
    ),
    Feature(
        ("public property",),
        "2.19",
        lambda: isinstance(getattr(ExecutionEngine, "scheduler", None), property),
    ),
]

VERSION = re.compile(r"(?<![\d.])2\.(\d{1,2})(?![\d])")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2])


@pytest.mark.parametrize("feature", FEATURES, ids=lambda f: f.words[0])
def test_the_table_matches_the_installed_scrapy(feature: Feature) -> None:
    installed = _version(scrapy.__version__)
    assert feature.present() is (installed >= _version(feature.since)), scrapy.__version__


def _files() -> list[Path]:
    folders = ["scrapy_gbot_robots", "docs", "tests", "benchmarks", "example_project"]
    found = [p for f in folders for p in (ROOT / f).rglob("*") if p.suffix in (".py", ".md")]
    return sorted(p for p in found if p.name != Path(__file__).name)


def test_every_claim_names_the_release_that_added_the_feature() -> None:
    wrong: list[str] = []
    claims = 0
    for path in _files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            versions = {f"2.{m}" for m in VERSION.findall(line)}
            if not versions or "Scrapy" not in line:  # "Crawl-delay: 2.5" is no claim
                continue
            for feature in FEATURES:
                if any(word in line for word in feature.words):
                    claims += 1
                    if feature.since not in versions:
                        where = path.relative_to(ROOT)
                        wrong.append(f"{where}:{n}: {feature.since} expected: {line.strip()}")
    assert wrong == []
    assert claims >= 15  # the scan does find the claims it is meant to check
