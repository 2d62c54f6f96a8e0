"""Shared fixtures for the middleware tests: a loopback HTTP server and a crawl runner.

The suite runs under pytest-twisted with the asyncio reactor (``--reactor=asyncio`` in
pyproject's ``addopts``), Scrapy's default reactor, so ``CrawlerRunner`` accepts it.

The folders mirror the package (``engine/``, ``policy/``, ``stores/``, ``parking/``,
``crawl/``, ``report/``, ``cli/``). Tests that run real crawls, servers or processes carry the
``crawl`` marker: a module that starts processes says so itself, and any test that uses the
HTTP server gets the marker here. ``pytest -m "not crawl"`` runs the fast layer alone.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_twisted
from _httpserver import LoopbackResolver, Server

#: Fixtures that mean a real crawl against the loopback server.
_CRAWL_FIXTURES = frozenset({"server", "server2", "loopback_dns"})


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per core (at most 16). Most of the suite's time is crawls,
    servers and processes waiting: on 2 cores, 2 workers kept 1.4 cores busy (8 min 26 s),
    4 workers 1.8 (7 min 18 s), every test passing in both."""
    return min(2 * (os.cpu_count() or 1), 16)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _CRAWL_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.crawl)


@pytest.fixture
def loopback_dns() -> Iterator[None]:
    """Resolve ``*.test`` to 127.0.0.1 (and fail other names) for the test's duration."""
    from twisted.internet import reactor

    r: Any = reactor
    old = r.resolver
    r.installResolver(LoopbackResolver())
    try:
        yield
    finally:
        r.installResolver(old)


@pytest_twisted.async_yield_fixture
async def server(loopback_dns: None) -> AsyncIterator[Server]:
    srv = Server().start()
    try:
        yield srv
    finally:
        await srv.stop()


@pytest_twisted.async_yield_fixture
async def server2(loopback_dns: None) -> AsyncIterator[Server]:
    srv = Server().start()
    try:
        yield srv
    finally:
        await srv.stop()
