"""What a request is checked as (``crawl/request_keys.py``): its origin key and its token,
both memoised by the text they come from, the memos bounded."""

from __future__ import annotations

import pytest
from scrapy.http import Request

from scrapy_gbot_robots.crawl import request_keys
from scrapy_gbot_robots.crawl.request_keys import NOT_OBEYED, RequestKeys


def test_the_origin_key_is_the_scheme_host_and_effective_port() -> None:
    keys = RequestKeys("bot", fixed=False)
    assert keys.origin("http://A.Example:80/x?y") == "http://a.example"
    assert keys.origin("https://a.example:8443/") == "https://a.example:8443"
    assert keys.origin("ftp://a.example/file") == NOT_OBEYED  # no robots.txt scope
    assert keys.origin("data:text/plain,x") == NOT_OBEYED


def test_the_origin_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request_keys, "ORIGIN_MEMO", 3)
    keys = RequestKeys("bot", fixed=False)
    for n in range(10):
        assert keys.origin(f"http://o{n}.test/") == f"http://o{n}.test"
        assert len(keys._origins) <= 3


def test_the_token_comes_from_meta_then_the_setting_then_the_header() -> None:
    free = RequestKeys("crawlerbot", fixed=False)
    assert free.token_of(Request("http://a.test/")) == "crawlerbot"  # no header yet
    header = Request("http://a.test/", headers={"User-Agent": "MyBot/2.0 (+http://x)"})
    assert free.token_of(header) == "MyBot"
    meta = Request("http://a.test/", meta={"gbot_robots_token": "Other/1.0"})
    assert free.token_of(meta) == "Other"
    several = Request("http://a.test/", meta={"gbot_robots_token": ["A-bot", "B/1.0"]})
    assert free.token_of(several) == ("A-bot", "B")
    fixed = RequestKeys("settingbot", fixed=True)  # ROBOTSTXT_USER_AGENT wins over the header
    assert fixed.token_of(header) == "settingbot" and fixed.token == "settingbot"
