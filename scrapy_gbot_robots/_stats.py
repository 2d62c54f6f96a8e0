"""Every stat name the plugin writes, in one place; ``docs/stats.md`` is checked against it.

Names shared with Scrapy's built-in ``RobotsTxtMiddleware`` keep its meaning. Only
``crawl/telemetry.py`` counts: the other modules call it. Pure: imports nothing from
Scrapy or Twisted.
"""

from __future__ import annotations

from .policy.states import Kind

PREFIX = "robotstxt/"

# Shared with Scrapy's RobotsTxtMiddleware.
REQUEST_COUNT = "robotstxt/request_count"
RESPONSE_COUNT = "robotstxt/response_count"
RESPONSE_STATUS = "robotstxt/response_status_count/"  # + status
EXCEPTION = "robotstxt/exception_count/"  # + str(exception class), as Scrapy writes it
FORBIDDEN = "robotstxt/forbidden"
FORBIDDEN_BY_USAGE = "robotstxt/forbidden_by_usage"
WOULD_FORBID = "robotstxt/would_forbid"
WOULD_STOP = "robotstxt/would_stop"

# Requests.
PARKED = "robotstxt/parked"
RELEASED = "robotstxt/released"
WAITED_TURN = "robotstxt/waited_turn"
DROPPED = "robotstxt/dropped"
BOUNCED = "robotstxt/bounced"
OWN_COPY = "robotstxt/own_copy"
PERSISTED = "robotstxt/persisted"
RESUMED = "robotstxt/resumed"
UNSERIALIZABLE = "robotstxt/unserializable"
UNREADABLE = "robotstxt/unreadable"

# Page-level rules (GBOT_ROBOTS_PAGE_RULES): robots meta tags and X-Robots-Tag.
PAGE_RULES_READ = "robotstxt/page_rules/read"
PAGE_RULES_NOINDEX = "robotstxt/page_rules/noindex"
PAGE_RULES_NOFOLLOW = "robotstxt/page_rules/nofollow"
PAGE_RULES_DISALLOWED_NOINDEX = "robotstxt/page_rules/disallowed_noindex"
PAGE_RULES_DROPPED_NOFOLLOW = "robotstxt/page_rules/dropped_nofollow"
PAGE_RULES_KEPT_NOFOLLOW = "robotstxt/page_rules/kept_nofollow"
PAGE_RULES_CAPPED = "robotstxt/page_rules/capped"

# Googlebot's back-off (GBOT_ROBOTS_BACKOFF): pages that answered 429 or 5xx, or whose
# download failed with a network error.
BACKOFF_ENTERED = "robotstxt/backoff/entered"
BACKOFF_LENGTHENED = "robotstxt/backoff/lengthened"
BACKOFF_RETRY_AFTER = "robotstxt/backoff/retry_after"
BACKOFF_NETWORK_ERROR = "robotstxt/backoff/network_error"
BACKOFF_PARKED = "robotstxt/backoff/parked"
BACKOFF_WITHDRAWN = "robotstxt/backoff/withdrawn"
BACKOFF_SECONDS_MAX = "robotstxt/backoff/seconds_max"
BACKOFF_SHARED = "robotstxt/backoff/shared"
BACKOFF_HEARD = "robotstxt/backoff/heard"
BACKOFF_FLEET_ERRORS = "robotstxt/backoff/fleet_errors"
CRAWL_DELAY_RESERVED = "robotstxt/crawl_delay/reserved"
CRAWL_DELAY_REFUSED = "robotstxt/crawl_delay/refused"
CRAWL_DELAY_PARKED = "robotstxt/crawl_delay/parked"
CRAWL_DELAY_FLEET_ERRORS = "robotstxt/crawl_delay/fleet_errors"

# Usage preferences (GBOT_ROBOTS_USAGE): a response whose header or meta refuses a use.
USAGE_WITHHELD = "robotstxt/usage/withheld"
TDMREP_FETCHED = "robotstxt/tdmrep/fetched"
TDMREP_FORBIDDEN = "robotstxt/tdmrep/forbidden"
TDMREP_READ_BACK = "robotstxt/tdmrep/read_back"

# The gate, set when the spider closes.
PARKED_PEAK = "robotstxt/parked_peak"
RELEASING_PEAK = "robotstxt/releasing_peak"
FETCH_IN_FLIGHT_PEAK = "robotstxt/fetch_in_flight_peak"
FETCH_SLOW_PEAK = "robotstxt/fetch_slow_peak"
FETCH_QUEUE_PEAK = "robotstxt/fetch_queue_peak"
FETCH_BUDGET_PEAK = "robotstxt/fetch_budget_peak"
STORE_PINNED_PEAK = "robotstxt/store/pinned_peak"

# The fetch budget's pacing, live (each tick).
FETCH_BUDGET = "robotstxt/fetch_budget"
FETCH_BUDGET_GREW = "robotstxt/fetch_budget_grew"
FETCH_BUDGET_SHRANK = "robotstxt/fetch_budget_shrank"
LOT_TAKEN_ELSEWHERE = "robotstxt/lot/taken_elsewhere"

# The store.
STORE_HIT = "robotstxt/store/hit"
STORE_MISS = "robotstxt/store/miss"
STORE_EXPIRED = "robotstxt/store/expired"
STORE_EVICTED = "robotstxt/store/evicted"
STORE_EVICTED_FAILING = "robotstxt/store/evicted_failing"
STORE_EVICTED_PINNED = "robotstxt/store/evicted_pinned"
STORE_READ_BACK = "robotstxt/store/read_back"
STORE_COMPACT_READ = "robotstxt/store/compact_read"
STORE_FORGOTTEN = "robotstxt/store/forgotten"
STORE_STORED = "robotstxt/store/stored"
LOCK_WAITED = "robotstxt/lock/waited"
STORE_PRUNED = "robotstxt/store/pruned"
STORE = "robotstxt/store/"  # + a counter of the persistent store (see COMPONENT_COUNTERS)
LOT = "robotstxt/lot/"  # + a counter of the lot (see LOT_COUNTERS)

#: The counters a persistent store may report (``counters()``).
COMPONENT_COUNTERS = ("write_errors", "errors", "outages", "lock_waits")
#: The counters a lot may report (``counters()``); ``timeouts``: calls to a hung Redis cut at
#: the lot's bound, each a freeze of the crawl avoided.
LOT_COUNTERS = ("errors", "outages", "timeouts")

# Fetches.
RETRY = "robotstxt/retry"
FETCH_RETRY = "robotstxt/fetch_retry"
ORIGIN_STATE = "robotstxt/origin_state/"  # + Kind value
SERVER_ERROR = "robotstxt/server_error"
PROXY_REFUSED = "robotstxt/proxy_refused"
TRUNCATED = "robotstxt/truncated"
REVALIDATED = "robotstxt/revalidated"

#: The machinery's stats, written only with ``GBOT_ROBOTS_DIAGNOSTIC_STATS = True`` (with their
#: 0.2 names): the gate's peaks, the fetch budget, the store's and the locks' bookkeeping, the
#: turns and the retries inside one fetch. Every other stat is one a user reads: what happened
#: to the requests and the fetches, and every problem a WARNING or ERROR line names.
DIAGNOSTIC: frozenset[str] = frozenset(
    {
        PARKED_PEAK,
        RELEASING_PEAK,
        FETCH_IN_FLIGHT_PEAK,
        FETCH_SLOW_PEAK,
        FETCH_QUEUE_PEAK,
        FETCH_BUDGET_PEAK,
        STORE_PINNED_PEAK,
        FETCH_BUDGET,
        FETCH_BUDGET_GREW,
        FETCH_BUDGET_SHRANK,
        WAITED_TURN,
        FETCH_RETRY,
        STORE_HIT,
        STORE_MISS,
        STORE_EXPIRED,
        STORE_EVICTED,
        STORE_EVICTED_PINNED,
        STORE_READ_BACK,
        STORE_COMPACT_READ,
        STORE_FORGOTTEN,
        STORE_STORED,
        STORE_PRUNED,
        LOCK_WAITED,
        STORE + "lock_waits",
    }
)

#: The fetch reasons of the gate that count as a store miss, an expiry or a retry.
FETCH_WHY = {
    "miss": STORE_MISS,
    "expired": STORE_EXPIRED,
    "retry": RETRY,
    "refresh": RETRY,
}

#: The names 0.2 wrote, each under its new name: telemetry writes both until 0.4, so that a
#: dashboard has a release to move (docs/stats.md lists them). No warning: a stat is read
#: after the crawl, by whatever reads it.
OLD_NAMES: dict[str, str] = {
    PARKED: "robotstxt/deferred",
    RELEASED: "robotstxt/undeferred",
    RELEASING_PEAK: "robotstxt/ready_peak",
    LOT_TAKEN_ELSEWHERE: "robotstxt/parking/taken_elsewhere",
    **{LOT + counter: "robotstxt/parking/" + counter for counter in LOT_COUNTERS},
    **{
        new: "robotstxt/cache/" + new.removeprefix(STORE)
        for new in (
            STORE_HIT,
            STORE_MISS,
            STORE_EXPIRED,
            STORE_EVICTED,
            STORE_EVICTED_FAILING,
            STORE_EVICTED_PINNED,
            STORE_READ_BACK,
            STORE_COMPACT_READ,
            STORE_FORGOTTEN,
            STORE_STORED,
            STORE_PINNED_PEAK,
        )
    },
}


def documented_names() -> list[str]:
    """Every name as ``docs/stats.md`` writes it (a variable part as ``<...>``)."""
    fixed = [
        value
        for name, value in globals().items()
        if name.isupper() and isinstance(value, str) and value.startswith(PREFIX)
    ]
    out = [name for name in fixed if not name.endswith("/")]
    out += [RESPONSE_STATUS + "<status>", EXCEPTION + "<exception class>"]
    out += [ORIGIN_STATE + kind.value for kind in Kind]
    out += [STORE + counter for counter in COMPONENT_COUNTERS]
    out += [LOT + counter for counter in LOT_COUNTERS]
    out += OLD_NAMES.values()
    return sorted(set(out))
