"""Request meta keys the plugin reads or writes, in one place so every module agrees.

Public keys are lower case without a leading underscore and documented in docs/meta.md;
the underscored ones are internal markers. Pure: imports nothing.
"""

from __future__ import annotations

#: Set on our own robots.txt requests; the value is the origin key ("http://example.com:8080").
FETCH_META = "gbot_robots_fetch"

#: Scrapy's own per-request switch: robots.txt is not consulted for this request.
DONT_OBEY = "dont_obey_robotstxt"

#: Scrapy's (2.13 and later) mark of a request from ``start()``: Scrapy takes them as fast as
#: it can while the engine is full, so a decided one waits its turn (docs/broad-crawls.md).
START = "is_start_request"

#: The product token (or tokens, most specific first) to obey for this request only.
TOKEN_META = "gbot_robots_token"

#: ``TOKEN_META``'s 0.2 name, still read until 0.4 (the new key wins when both are set), with
#: a deprecation warning naming the new one.
OLD_TOKEN_META = "robotstxt_user_agent"
#: The public keys 0.2 named otherwise: old -> new.
RENAMED = {OLD_TOKEN_META: TOKEN_META}

#: Observe mode: what Googlebot would have done with the request (docs/meta.md).
VERDICT_META = "gbot_robots_verdict"

#: ``GBOT_ROBOTS_USAGE_META``: the content-usage signals in force for the request's URL.
USAGE_META = "gbot_robots_usage"
#: ``GBOT_ROBOTS_USAGE`` or ``GBOT_ROBOTS_USAGE_META``: the response's usage answer per
#: category (``train-ai``, ``search``), each with its sources (robots.txt line, header, meta).
USAGE_ANSWER_META = "gbot_robots_usage_answer"
#: ``GBOT_ROBOTS_USAGE`` naming AI training: the origin's tdmrep.json entry for the URL.
TDMREP_META = "gbot_robots_tdmrep"

#: Set on the tdmrep.json middleware's own request for an origin's file (not a page).
TDMREP_FETCH = "gbot_robots_tdmrep_fetch"

#: Scrapy's meta keys that choose the network path of a request: a robots.txt request carries
#: those of the request that made it wanted (docs/meta.md says why these and no others).
ROUTE_META = ("proxy", "bindaddress")

#: Scrapy's (2.19) per-request HTTP authentication meta keys: a robots.txt request carries
#: them too, limited to the origin's host when no domain is given (docs/meta.md).
AUTH_META = ("http_user", "http_pass", "http_auth_domain")

#: ``GBOT_ROBOTS_PAGE_RULES``: the page's robots meta tags and X-Robots-Tag for the crawler's
#: token(s), a ``scrapy_gbot_robots.PageRules`` in ``response.meta``.
PAGE_RULES_META = "gbot_robots_page_rules"

#: Internal: the request passed the scheduling check and has not been downloaded yet.
SCHEDULED = "_gbot_robots_scheduled"

#: Internal: the request was sent back from the downloader to be parked.
BOUNCED = "_gbot_robots_bounced"

#: Internal: the dupefilter saw the request when it was parked; it passes the filter once
#: when released.
SEEN = "_gbot_robots_seen"

#: Internal: a parked request given up while the crawl runs, sent through the downloader so
#: that it reaches its errback; the value is the reason. The download check raises
#: ``IgnoreRequest`` for it.
DROPPED = "_gbot_robots_dropped"
