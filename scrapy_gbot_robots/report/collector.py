"""What robots.txt did to a crawl: the counters behind the audit report.

Pure: imports nothing from Scrapy or Twisted. The middleware feeds events; the report is
rendered once, when the spider closes (``to_json``, then ``write`` per path).

Cost is bounded whatever the crawl's size, because a broad crawl may see a million origins:

* per origin, a ``__slots__`` record of counters and the scalar facts of its latest robots.txt
  state (never the body); ``allowed()`` is one dict lookup and one increment;
* per deciding rule, a counter and at most ``examples`` example URLs (each cut at
  ``EXAMPLE_CHARS``);
* past ``max_origins`` (``max_rules``) entries plus a margin of a quarter, the table is
  compacted: the most interesting entries are kept and the rest are folded into "other"
  counters, so each event costs amortised O(log n) at most; the last ``max_origins``
  (``max_rules``) folded records are remembered, so one seen again is taken back out of
  "other" instead of being counted twice;
* lint findings, and the content-usage statements of the group in force for the crawl's
  token(s), are computed once per distinct body (memoised by its SHA-256, ``LINT_MEMO``
  bodies remembered); at most ``USAGE_PREFS`` preferences are kept per body.

Observe mode (``GBOT_ROBOTS_MODE = "observe"``) feeds the same events: ``forbidden`` then
counts requests robots.txt *would* have forbidden (they were let through), and
``would_stop`` those let through to an origin whose robots.txt is in server error.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from .._safetext import short
from ..engine.decision import Decision
from ..engine.rules import RobotsTxt
from ..page.rules import PageRules
from ..policy.states import Kind, OriginState
from .labels import _STATES, OBSERVE, SCHEMA, iso
from .pages import PageTally
from .records import (
    EXAMPLE_CHARS,
    FetchFacts,
    Hop,
    OriginTally,
    RuleTally,
    origin_json,
    rule_json,
)
from .robots_facts import RobotsFacts

#: A deciding rule: (origin, line, directive, value); a changed file makes another rule.
_RuleKey = tuple[str, int, str, str]

#: Distinct robots.txt bodies whose lint summary is remembered.
LINT_MEMO = 1024
#: Lines listed per lint code of one body (the count is exact).
LINT_LINES = 5
#: Content-usage preferences listed per body (the count is exact); a real file has a handful.
USAGE_PREFS = 32
#: Distinct drop reasons kept per origin; more are counted under "other".
DROP_REASONS = 8
#: The key of origins and rules that have no table entry of their own any more.
OTHER = "other"


def _margin(cap: int) -> int:
    """How far a table may grow past its cap before compaction: a quarter (amortised cost)."""
    return max(1, cap // 4)


class ReportCollector:
    """Bounded counters per origin and per deciding rule (see the module docstring)."""

    def __init__(
        self,
        *,
        max_origins: int = 10_000,
        max_rules: int = 1_000,
        examples: int = 5,
        error_stop: float = 43_200.0,
        mode: str = "enforce",
        tokens: str | Sequence[str] = "",
        global_group: bool = True,
        uses: Iterable[str] = (),
        page_rules: str = "off",
    ):
        self.error_stop = error_stop  # GBOT_ROBOTS_ERROR_STOP, for the server-error sentence
        #: GBOT_ROBOTS_MODE: "observe" turns the report's "forbidden" into "would forbid".
        self.mode = mode
        #: The crawl's token(s) and GBOT_ROBOTS_GLOBAL_GROUP: whose group's content-usage
        #: statements each origin shows ("" : none are looked up).
        self.tokens: str | tuple[str, ...] = tokens if isinstance(tokens, str) else tuple(tokens)
        self.global_group = global_group
        self.uses = tuple(uses)  # GBOT_ROBOTS_USAGE, shown beside usage-forbidden rules
        self.page_rules = page_rules  # GBOT_ROBOTS_PAGE_RULES: "off", "read" or "obey"
        self.max_origins = max(1, max_origins)
        self.max_rules = max(1, max_rules)
        self.examples = max(0, examples)
        self._origins: dict[str, OriginTally] = {}
        self._rules: dict[_RuleKey, RuleTally] = {}
        self._origin_limit = self.max_origins + _margin(self.max_origins)
        self._rule_limit = self.max_rules + _margin(self.max_rules)
        # What compaction folded away: exact sums, so the totals stay exact.
        self._other = OriginTally()
        self._other_states: dict[str, int] = dict.fromkeys(_STATES, 0)
        self._other_rules = 0
        self._other_rule_forbidden = 0
        self._other_pages = PageTally()
        # The most recently folded entries (at most the cap): one seen again is taken back.
        self._folded: dict[str, OriginTally] = {}
        self._folded_rules: dict[_RuleKey, RuleTally] = {}
        self._lint_memo: dict[str, dict[str, Any]] = {}
        self._usage_memo: dict[str, dict[str, Any]] = {}
        self.facts = RobotsFacts()  # License: lines and AI crawlers kept out, per body
        #: How many times the linter ran (once per distinct body while it is remembered).
        self.lint_runs = 0
        #: How many times a body's content-usage statements were read (the same memo rule).
        self.usage_runs = 0
        #: How many times a table was compacted (for tests and the curious).
        self.compactions = 0

    # -- events ---------------------------------------------------------------------------
    def fetched(
        self,
        origin: str,
        *,
        robots_url: str,
        chain: Sequence[Hop],
        state: OriginState,
        source: str,
    ) -> None:
        """The origin's robots.txt state was established (``source``: "fetch" or "store")."""
        entry = self._origins.get(origin) or self._add(origin)
        robots = state.robots
        sha = hashlib.sha256(robots.body).hexdigest() if robots is not None else ""
        previous = entry.fetch
        if state.kind is Kind.RULES and robots is not None:
            entry.lint = self._lint(sha, robots.body)
            entry.usage = self._usage(sha, robots)
            entry.facts = self.facts.of(sha, robots)
        elif previous is None or previous.sha256 != sha or not sha:
            entry.lint = None  # no body, or another one than the one linted
            entry.usage = entry.facts = None
        entry.fetch = FetchFacts(robots_url, chain, state, source, sha)
        if source == "store":
            entry.stored += 1
        else:
            entry.fetches += 1
        if state.kind is Kind.SERVER_ERROR:
            entry.server_errors += 1

    def allowed(self, origin: str) -> None:
        """A download of ``origin`` was checked and allowed (the hot path: a counter)."""
        entry = self._origins.get(origin)
        if entry is None:
            entry = self._add(origin)
        entry.allowed += 1

    def would_stop(self, origin: str) -> None:
        """Observe mode: a request let through to an origin whose robots.txt is in server
        error (Googlebot would not crawl it now); a counter, like ``allowed``."""
        entry = self._origins.get(origin)
        if entry is None:
            entry = self._add(origin)
        entry.would_stop += 1

    def forbidden(self, origin: str, url: str, decision: Decision) -> None:
        """A request was forbidden by the rule ``decision`` names (a rule, or a content-usage
        line); in observe mode, one it would have forbidden, let through."""
        entry = self._origins.get(origin) or self._add(origin)
        entry.forbidden += 1
        key = (origin, decision.line, decision.directive, decision.value)
        rule = self._rules.get(key) or self._add_rule(key, origin, decision)
        rule.forbidden += 1
        examples = rule.examples
        if len(examples) < self.examples:
            url = short(url, EXAMPLE_CHARS)
            if url not in examples:
                examples.append(url)

    def crawl_delay(self, origin: str, asked: float, applied: float) -> None:
        """The origin's ``crawl-delay`` (``GBOT_ROBOTS_CRAWL_DELAY``): asked, and applied."""
        entry = self._origins.get(origin) or self._add(origin)
        entry.crawl_delay = (asked, applied)

    def backoff(self, origin: str, seconds: float, *, new: bool) -> None:
        """The origin entered back-off for ``seconds`` (``new``), or it was lengthened."""
        entry = self._origins.get(origin) or self._add(origin)
        tally = entry.backoff = entry.backoff or [0, 0.0, 0.0, 0]
        tally[0] += new
        tally[1] += seconds
        tally[2] = max(tally[2], seconds)

    def parked(self, origin: str, *, backoff: bool = False) -> None:
        """A request of ``origin`` was parked (``backoff``: for its back-off)."""
        entry = self._origins.get(origin) or self._add(origin)
        if backoff:
            tally = entry.backoff = entry.backoff or [0, 0.0, 0.0, 0]
            tally[3] += 1
        entry.parked += 1

    def dropped(self, origin: str, reason: str) -> None:
        """A parked request of ``origin`` was dropped (``reason``: why)."""
        entry = self._origins.get(origin) or self._add(origin)
        entry.dropped += 1
        reasons = entry.drop_reasons
        if reasons is None:
            reasons = entry.drop_reasons = {}
        if reason not in reasons and len(reasons) >= DROP_REASONS:
            reason = OTHER
        reasons[reason] = reasons.get(reason, 0) + 1

    def page_rules_read(
        self, origin: str, url: str, rules: PageRules, *, disallowed: bool, now: float
    ) -> None:
        """A page's rules were read (``rules``: for the crawl's token(s), maybe empty);
        ``disallowed``: robots.txt forbids the URL (observe mode, which fetched it anyway);
        ``now``: the crawl's clock, for ``unavailable_after``. Once per page."""
        entry = self._origins.get(origin) or self._add(origin)
        pages = entry.pages
        if pages is None:
            pages = entry.pages = PageTally()
        pages.record(url, rules, disallowed=disallowed, now=now, examples=self.examples)

    def nofollow_dropped(self, origin: str) -> None:
        """A request yielded from a ``nofollow`` page of ``origin`` was dropped."""
        entry = self._origins.get(origin) or self._add(origin)
        pages = entry.pages
        if pages is None:
            pages = entry.pages = PageTally()
        pages.dropped_nofollow += 1

    # -- bounded tables -------------------------------------------------------------------
    def _add(self, origin: str) -> OriginTally:
        """A new origin entry (or one folded recently, taken back out of "other").

        Compacts first when the table is past its cap and margin. An origin folded among
        the last ``max_origins`` folds and seen again gets its record back, its counts taken
        out of "other", so it is neither counted twice nor shown without its state.
        """
        entry = self._folded.pop(origin, None)  # before compacting, which forgets some
        if entry is None:
            entry = OriginTally()
        else:
            self._fold(entry, -1)
        if len(self._origins) >= self._origin_limit:
            self._compact_origins(self.max_origins)
        self._origins[origin] = entry
        return entry

    def _fold(self, entry: OriginTally, sign: int) -> None:
        """Add (``sign`` 1) or take back (-1) an origin's counts in the "other" bucket."""
        self._other.add(entry, sign)
        self._other_states[entry.fetch.kind if entry.fetch else "unknown"] += sign
        if entry.pages is not None:
            self._other_pages.add(entry.pages, sign)

    def _compact_origins(self, keep: int) -> None:
        """Keep the ``keep`` most interesting origins; fold the others into "other"."""
        origins = self._origins
        if len(origins) <= keep:
            return
        self.compactions += 1
        kept = heapq.nlargest(keep, origins.items(), key=lambda item: item[1].interest())
        survivors = {name for name, _ in kept}
        folded = self._folded
        for name, entry in origins.items():
            if name not in survivors:
                self._fold(entry, 1)
                folded[name] = entry
        while len(folded) > self.max_origins:  # folded for good: only the counts remain
            del folded[next(iter(folded))]
        self._origins = dict(kept)

    def _compact_rules(self, keep: int) -> None:
        """Keep the ``keep`` rules that forbade the most; fold the others into "other"."""
        rules = self._rules
        if len(rules) <= keep:
            return
        self.compactions += 1
        kept = heapq.nlargest(keep, rules.items(), key=lambda item: item[1].forbidden)
        survivors = {key for key, _ in kept}
        folded = self._folded_rules
        for key, rule in rules.items():
            if key not in survivors:
                self._other_rules += 1
                self._other_rule_forbidden += rule.forbidden
                folded[key] = rule
        while len(folded) > self.max_rules:
            del folded[next(iter(folded))]
        self._rules = dict(kept)

    def _add_rule(self, key: _RuleKey, origin: str, decision: Decision) -> RuleTally:
        """A new rule entry (or one folded recently, taken back out of "other")."""
        rule = self._folded_rules.pop(key, None)  # before compacting, which forgets some
        if rule is None:
            rule = RuleTally(origin, decision)
        else:
            self._other_rules -= 1
            self._other_rule_forbidden -= rule.forbidden
        if len(self._rules) >= self._rule_limit:
            self._compact_rules(self.max_rules)
        self._rules[key] = rule
        return rule

    # -- lint -----------------------------------------------------------------------------
    def _lint(self, sha: str, body: bytes) -> dict[str, Any]:
        """The lint summary of a body, computed once per distinct body while remembered."""
        memo = self._lint_memo
        summary = memo.get(sha)
        if summary is not None:
            return summary
        from ..engine.lint import CHECKS_BY_CODE, lint

        self.lint_runs += 1
        result = lint(body)
        codes: dict[str, dict[str, Any]] = {}
        for f in result.findings:
            item = codes.get(f.code)
            if item is None:
                item = codes[f.code] = {
                    "code": f.code,
                    "name": f.check.name,
                    "severity": f.severity.label,
                    "count": 0,
                    "lines": [],
                }
            item["count"] += 1
            if len(item["lines"]) < LINT_LINES:
                item["lines"].append(f.line)
        rank = {code: -int(CHECKS_BY_CODE[code].severity) for code in codes}
        findings = sorted(codes.values(), key=lambda i: (rank[i["code"]], i["code"]))
        summary = {"counts": result.counts(), "findings": findings}
        if len(memo) >= LINT_MEMO:
            del memo[next(iter(memo))]
        memo[sha] = summary
        return summary

    def _usage(self, sha: str, robots: RobotsTxt) -> dict[str, Any] | None:
        """The content-usage statements of the group in force for the crawl's token(s), once
        per distinct body while remembered (the lint memo's rule); None without a token."""
        if not self.tokens:
            return None
        memo = self._usage_memo
        summary = memo.get(sha)
        if summary is not None:
            return summary
        self.usage_runs += 1
        every = robots.usage_statements(self.tokens, self.global_group)
        prefs = every.preferences
        summary = {
            "group": every.token,
            "count": len(prefs),
            "preferences": [p.as_json() for p in prefs[:USAGE_PREFS]],
        }
        if len(memo) >= LINT_MEMO:
            del memo[next(iter(memo))]
        memo[sha] = summary
        return summary

    @property
    def observe(self) -> bool:
        return self.mode == OBSERVE

    # -- output ---------------------------------------------------------------------------
    def to_json(self, crawl: dict[str, Any]) -> dict[str, Any]:
        """The report as a JSON-ready dict (versioned schema, see docs/report.md)."""
        self._compact_origins(self.max_origins)
        self._compact_rules(self.max_rules)
        entries = sorted(
            self._origins.items(), key=lambda item: (tuple(-n for n in item[1].interest()), item[0])
        )
        rules = sorted(
            self._rules.values(), key=lambda r: (-r.forbidden, r.origin, r.line, r.value)
        )
        other = self._other
        by_state = dict(self._other_states)
        for _, entry in entries:
            by_state[entry.fetch.kind if entry.fetch else "unknown"] += 1
        total = OriginTally()
        total.add(other)
        for _, entry in entries:
            total.add(entry)
        folded_origins = sum(self._other_states.values())
        # would_stop only where it can happen: observe mode (enforce parks those requests).
        stops = self.observe or total.would_stop > 0
        totals = {
            "origins": len(entries) + folded_origins,
            "checked": 0,
            "allowed": total.allowed,
            "forbidden": total.forbidden,
            **({"would_stop": total.would_stop} if stops else {}),
            "parked": total.parked,
            "dropped": total.dropped,
            "fetches": total.fetches,
            "from_store": total.stored,
            "server_errors": total.server_errors,
            "rules": len(rules) + self._other_rules,
        }
        totals["checked"] = total.allowed + total.forbidden + total.would_stop
        pages = PageTally()
        pages.add(self._other_pages)
        for _, entry in entries:
            if entry.pages is not None:
                pages.add(entry.pages)
        crawl = {
            **crawl,
            "mode": self.mode,
            "global_group": self.global_group,
            "uses": list(self.uses),
        }
        return {
            "schema": SCHEMA,
            "generated_at": iso(datetime.now(timezone.utc).timestamp()),
            "crawl": crawl,
            "limits": {
                "max_origins": self.max_origins,
                "max_rules": self.max_rules,
                "examples": self.examples,
            },
            "totals": totals,
            "origins_by_state": by_state,
            "page_rules": {"level": self.page_rules, **pages.counts()},
            "folded": {
                "origins": folded_origins,
                "rules": self._other_rules,
                "other_origins": {
                    "allowed": other.allowed,
                    "forbidden": other.forbidden,
                    **({"would_stop": other.would_stop} if stops else {}),
                    "parked": other.parked,
                    "dropped": other.dropped,
                    "by_state": dict(self._other_states),
                    "pages": self._other_pages.counts(),
                },
                "other_rules": {"forbidden": self._other_rule_forbidden},
            },
            "rules": [rule_json(rank, rule) for rank, rule in enumerate(rules, 1)],
            "origins": [
                origin_json(name, entry, self.error_stop, stops, self.observe)
                for name, entry in entries
            ],
        }
