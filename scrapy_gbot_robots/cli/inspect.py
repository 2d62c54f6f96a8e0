"""``gbot-robots inspect``: Search Console's URL Inspection for one URL, offline and exact.

Crawling and indexing, answered apart, in Google's order and Search Console's words where they
fit ("Crawl allowed?", "Page fetch", "Indexing allowed?"). May the crawler fetch the URL?
robots.txt is fetched by the add-on's own middleware in a one-request Scrapy crawl (as
``fetch`` does, :func:`.fetch.watch`), and the verdict is the engine's, with the deciding line;
a blocked URL is never fetched, and may still be indexed from links, without its content.
Could the page be fetched? Only if allowed, the page itself is then downloaded once (no
redirect followed, no retry), with the crawler's token as its User-Agent. May it be indexed,
and would its links be followed? Only a 2xx page can be; its ``X-Robots-Tag`` headers and, for
HTML, the meta tags of its head are read by :func:`~..page.rules.read_page_rules`, the reader
the crawl uses, for the same token(s).

Everything a server sent (headers, meta content, URLs) is printed escaped; ``--json`` keeps
it as received (JSON escapes control characters itself).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from typing import Any

from .._safetext import printable
from ..engine.lines import report
from ..page.links import LinkHints, link_hints
from ..page.rules import PageRules, read_page_rules
from ._args import (
    EXIT_FINDINGS,
    EXIT_OK,
    Command,
    IOStreams,
    Tokens,
    add_token_arguments,
    token_fields,
)
from ._render import Cell, Painter, colour_wanted, line_text, render_table, short
from .check import verdict_json
from .fetch import Attempt, FetchRun, decided, target, watch

#: The page could not be fetched, or answered with a status Google does not index (not 2xx).
EXIT_UNFETCHED = 3

EXAMPLES = """\
examples:
  gbot-robots inspect https://example.com/page
  gbot-robots inspect https://example.com/photo.jpg --as googlebot-image
  gbot-robots inspect https://example.com/news/story -u Googlebot-News,Googlebot --json

robots.txt is fetched as the middleware fetches it (redirects, status codes, 500 KiB); if
it allows URL, URL is downloaded once (a redirect is reported, not followed; no retry) with
the first token as its User-Agent, and its X-Robots-Tag headers and, for an HTML page, its
head's robots meta tags are read for every token given (-u A,B or --as).
The crawler is Googlebot unless -u/--token or --as names another, as in every command.
Crawling and indexing are answered apart: a URL robots.txt blocks is not fetched, and Google
may still index it without its content if other pages link to it; a page that does not
answer 2xx is not indexed, whatever its rules say.
exit status: 0 URL may be crawled and indexed; 1 robots.txt forbids crawling it (or
Googlebot would not crawl its site now: robots.txt answers 429/5xx or cannot be reached), or
a rule forbids indexing it (noindex, none, a past unavailable_after), whatever its status;
3 the page could not be fetched (network error, timeout) or did not answer 2xx, and no rule
forbids indexing; 2 usage error (nothing is fetched).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", metavar="URL", help="the absolute URL to inspect")
    add_token_arguments(p)
    p.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS", help="download timeout"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="show Scrapy's log on stderr")
    p.add_argument("--json", action="store_true", help="one JSON document")


@dataclass(slots=True)
class Page:
    """The one download of the inspected URL."""

    url: str
    status: int | None = None
    error: str | None = None  # the failure's name when there was no HTTP answer
    forbidden: bool = False  # the middleware refused it (robots.txt)
    content_type: str | None = None
    location: str | None = None
    size: int | None = None
    html: bool = False
    x_robots_tag: list[str] = field(default_factory=list)
    rules: PageRules | None = None
    links: LinkHints | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "status": self.status,
            "error": self.error,
            "content_type": self.content_type,
            "location": self.location,
            "bytes": self.size,
            "html": self.html,
            "x_robots_tag": list(self.x_robots_tag),
        }


@dataclass(slots=True)
class InspectRun:
    robots: FetchRun
    page: Page | None = None
    read_at: float = 0.0


def run_inspect(url: str, tokens: Tokens, timeout: float | None, verbose: bool) -> InspectRun:
    """One Scrapy crawl with the add-on: robots.txt as the middleware fetches it, then the page
    once if allowed; the page's rules read as the crawl reads them."""
    import logging

    import scrapy
    from scrapy import Spider
    from scrapy.crawler import CrawlerProcess
    from scrapy.exceptions import IgnoreRequest
    from scrapy.http import HtmlResponse, Request

    robots_run = FetchRun(attempts=[], scrapy_version=scrapy.__version__)
    run = InspectRun(robots=robots_run)
    token = tokens.names[0]
    settings: dict[str, Any] = {
        "ADDONS": {"scrapy_gbot_robots.addon.Addon": 0},
        "ROBOTSTXT_OBEY": True,
        "ROBOTSTXT_USER_AGENT": list(tokens.names),
        "GBOT_ROBOTS_GLOBAL_GROUP": tokens.global_group,
        "USER_AGENT": token,
        "RETRY_ENABLED": False,
        "LOG_LEVEL": "DEBUG" if verbose else "ERROR",
        "TELNETCONSOLE_ENABLED": False,
    }
    if timeout is not None:
        settings["GBOT_ROBOTS_DOWNLOAD_TIMEOUT"] = timeout
        settings["DOWNLOAD_TIMEOUT"] = timeout

    def got(response: Any) -> None:
        page = run.page = Page(url=response.url, status=response.status)
        headers = response.headers
        page.x_robots_tag = [v.decode("latin-1") for v in headers.getlist(b"X-Robots-Tag")]
        content_type = headers.get(b"Content-Type")
        location = headers.get(b"Location")
        page.content_type = content_type.decode("latin-1") if content_type else None
        page.location = location.decode("latin-1") if location else None
        page.size = len(response.body)
        page.html = isinstance(response, HtmlResponse)
        body = response.body if page.html else None
        run.read_at = time.time()
        page.rules = read_page_rules(tokens.names, page.x_robots_tag, body)
        page.links = link_hints(response.body) if page.html else None

    def failed(failure: Any) -> None:
        forbidden = failure.check(IgnoreRequest) is not None
        run.page = Page(url=url, forbidden=forbidden, error=failure.type.__name__)

    class InspectSpider(Spider):
        name = "gbot-robots-inspect"

        def _page(self) -> Request:
            meta = {"dont_redirect": True, "handle_httpstatus_all": True}
            return Request(url, meta=meta, dont_filter=True, callback=got, errback=failed)

        async def start(self) -> Any:
            yield self._page()

        def start_requests(self) -> Any:  # Scrapy < 2.13 does not call start()
            yield self._page()

    process = CrawlerProcess(settings)
    if not verbose:
        logging.getLogger("scrapy.downloadermiddlewares.retry").setLevel(logging.CRITICAL)
    crawler = process.create_crawler(InspectSpider)
    watch(crawler, robots_run, url)
    process.crawl(crawler)
    process.start()
    for attempt in robots_run.attempts:
        attempt.request = None
    return run


# ----------------------------------------------------------------------------- the answers


@dataclass(frozen=True, slots=True)
class Verdict:
    """The inspection's answers and the exit status they make."""

    crawl: bool  # robots.txt lets the crawler fetch the URL now
    fetched: bool  # the page answered 2xx
    #: None: no page, so no rules were read; False for a page that did not answer 2xx (Google
    #: indexes none), whatever its rules say.
    indexable: bool | None
    follow: bool | None  # None: no 2xx page, so no links Google would read
    code: str  # crawl_disallowed, crawl_stopped, noindex, fetch_failed, not_2xx, indexable
    status: int


def verdict(crawl: bool, stopped: bool, page: Page | None, now: float) -> Verdict:
    rules = page.rules if page is not None else None
    ok = page is not None and page.status is not None and 200 <= page.status < 300
    by_rules = None if rules is None else rules.indexable(now)
    indexable = by_rules if ok or by_rules is None else False
    follow = rules.follow if ok and rules is not None else None
    if not crawl:
        code, status = ("crawl_stopped" if stopped else "crawl_disallowed"), EXIT_FINDINGS
    elif by_rules is False:
        code, status = "noindex", EXIT_FINDINGS
    elif page is None or page.status is None:
        code, status = "fetch_failed", EXIT_UNFETCHED
    elif not ok:
        code, status = "not_2xx", EXIT_UNFETCHED
    else:
        code, status = "indexable", EXIT_OK
    return Verdict(crawl, ok, indexable, follow, code, status)


# ----------------------------------------------------------------------------- the words
# Search Console's URL Inspection asks "Crawl allowed?", "Page fetch" and "Indexing allowed?";
# its answers' words are used where they fit (docs/cli.md says where this offline answer
# differs from Google's online one).

#: The indexing answer for a URL robots.txt blocks: Google never reads the page.
BLOCKED_INDEXING = (
    "Google may still index the URL without its content if other pages link to it; "
    "a page rule on it cannot be seen"
)


def fetch_failure(status: int) -> str:
    """A non-2xx answer in Search Console's words ("Not found (404)", "Server error (5xx)")."""
    if 300 <= status < 400:
        return f"redirect ({status})"
    if status == 404:
        return "not found (404)"
    if status == 401:
        return "blocked due to unauthorized request (401)"
    if status == 403:
        return "blocked due to access forbidden (403)"
    if 400 <= status < 500:
        return f"blocked due to other 4xx issue ({status})"
    if 500 <= status < 600:
        return f"server error ({status})"
    return f"not 2xx ({status})"


def _where(source: str) -> str:
    """``meta:googlebot`` as "the 'googlebot' meta tag", ``header`` as "the X-Robots-Tag
    http header" (Search Console: "'noindex' detected in 'robots' meta tag")."""
    kind, _, name = source.partition(":")
    if kind == "meta":
        return f"the '{name}' meta tag"
    return "the X-Robots-Tag http header" + (f" ({name}:)" if name else "")


def noindex_text(rules: PageRules, now: float) -> str:
    """Why the page's rules forbid indexing it now: where the noindex is, or the date passed."""
    if rules.noindex:
        return "'noindex' detected in " + ", ".join(_where(s) for s in rules.source("noindex"))
    after = rules.unavailable_after
    when = after.isoformat().replace("+00:00", "Z") if after is not None else "?"
    places = ", ".join(_where(s) for s in rules.source("unavailable_after"))
    return f"'unavailable_after: {when}' passed ({places})"


def indexing_text(page: Page, answer: Verdict, now: float) -> str:
    """The indexing answer for a page that was fetched (or tried)."""
    rules = page.rules
    if page.status is None:
        return f"unknown: the page could not be fetched ({page.error or 'failed'})"
    if not answer.fetched:
        if 300 <= page.status < 400:
            target = f" to {page.location}" if page.location else ""
            text = (
                f"not this URL: it redirects ({page.status}{target}); Google indexes the page a "
                "redirect leads to, if that one may be indexed (inspect it)"
            )
        else:
            text = (
                f"not allowed: {fetch_failure(page.status)}; Google indexes only pages that "
                "answer 2xx"
            )
        if rules is not None and not rules.indexable(now):
            text += f"; {noindex_text(rules, now)} too"
        return text
    if rules is not None and not rules.indexable(now):
        return f"not allowed: {noindex_text(rules, now)}"
    return "allowed: no rule of the page forbids it"


def _rule_lines(rules: PageRules, now: float) -> list[str]:
    """Each rule said, with its value and its sources; then the rules that change nothing."""
    lines: list[str] = []
    values: dict[str, str] = {
        "max-snippet": _limit(rules.max_snippet),
        "max-video-preview": _limit(rules.max_video_preview),
        "max-image-preview": str(rules.max_image_preview),
    }
    after = rules.unavailable_after
    if after is not None:
        passed = "passed: noindex now" if rules.expired(now) else "not yet passed"
        values["unavailable_after"] = f"{after.isoformat().replace('+00:00', 'Z')} ({passed})"
    for name, sources in rules.sources:
        shown = f"{name}: {values[name]}" if name in values else name
        if name in ("all", "index", "follow"):
            shown += " (the default: changes nothing)"
        lines.append(f"{shown} ({', '.join(sources)})")
    for text, source in rules.other:
        lines.append(f"{text} ({source}): not a rule Google reads, ignored")
    if rules.capped:
        lines.append(
            f"warning: read in part, past a bound ({', '.join(rules.capped)}): a rule past it "
            "was not read, so this answer may miss one (see docs/crawling.md#bounds)"
        )
    return lines


def _limit(value: int | None) -> str:
    return "no limit" if value == -1 else str(value)


def run(ns: argparse.Namespace, io: IOStreams) -> int:
    """Inspect; exit 0 indexable, 1 forbidden by a rule, 3 page not fetched, 2 usage error."""
    from ..policy.origin import robots_url
    from ..policy.states import Mode, rules_in_force

    asked = target(ns, io, "{url} cannot be inspected: only http and https URLs can")
    tokens, url, checked, origin = asked.tokens, asked.url, asked.checked, asked.origin
    result = run_inspect(checked, tokens, ns.timeout, ns.verbose)
    found = decided(result.robots, io, "inspect", origin)
    if found is None:
        return EXIT_FINDINGS
    state, cfg = found
    force = rules_in_force(state, state.fetched_at, cfg)
    robots = force.robots
    decision = robots.decide(checked, tokens.token, tokens.global_group) if robots else None
    stopped = force.mode is Mode.STOPPED
    crawl = not stopped and (decision is None or decision.allowed)
    page = result.page if crawl else None
    now = result.read_at or time.time()
    answer = verdict(crawl, stopped, page, now)

    if ns.json:
        rules = page.rules if page is not None else None
        data: dict[str, Any] = {
            "url": url,
            "checked_url": checked,
            **token_fields(tokens),
            "global_group": tokens.global_group,
            "robots": {
                "url": robots_url(origin),
                "state": state.kind.value,
                "reason": state.reason,
                "status": state.status,
                "chain": [a.as_json() for a in result.robots.attempts],
                "verdict": (
                    verdict_json(url, tokens, decision, report(robots.body), checked)
                    if decision is not None and robots is not None
                    else None
                ),
            },
            "crawl_allowed": crawl,
            "page": page.as_json() if page is not None else None,
            "rules": rules.as_json() if rules is not None else None,
            "indexable": answer.indexable,
            "follow": answer.follow,
            "link_hints": page.links.as_json() if page and page.links else None,
            "verdict": answer.code,
            "exit_status": answer.status,
        }
        io.out.write(json.dumps(data, indent=2) + "\n")
        return answer.status
    _write(io, ns, tokens, url, result, decision, robots, stopped, page, answer, now)
    return answer.status


def _write(
    io: IOStreams,
    ns: argparse.Namespace,
    tokens: Tokens,
    url: str,
    result: InspectRun,
    decision: Any,
    robots: Any,
    stopped: bool,
    page: Page | None,
    answer: Verdict,
    now: float,
) -> None:
    """The text answer: crawling, then the page, then indexing, each said once, in Google's
    order; everything from the server escaped by the table."""
    paint = Painter(colour_wanted(ns.color, io.out))
    w = io.out.write
    head = (
        f"URL inspection of {url} for {tokens.label}"
        + ("" if tokens.global_group else " (ignoring *)")
        + f" (through Scrapy {result.robots.scrapy_version})"
    )
    w(paint(printable(head), "bold") + "\n")
    facts: list[list[Cell]] = []
    facts.append([("robots.txt", "bold"), (_chain(result.robots.attempts), None)])
    if stopped:
        state = result.robots.state
        reason = state.reason if state is not None else ""
        crawl_text = (
            f"not now: robots.txt unreachable (server error: {reason}); Googlebot crawls "
            "nothing of the site until it can read it"
        )
        facts.append([("crawling", "bold"), (crawl_text, "error")])
        facts.append([("page fetch", "bold"), ("not attempted: robots.txt unreachable", "dim")])
        unknown = "unknown: the page cannot be fetched now, so its rules cannot be read"
        facts.append([("indexing", "bold"), (unknown, "error")])
    elif decision is not None and robots is not None and not decision.allowed:
        where = f"line {decision.line}: {line_text(report(robots.body), decision.line)}"
        text = f"blocked by robots.txt ({where}); group: {decision.token or 'none applies'}"
        facts.append([("crawling", "bold"), (text, "disallowed")])
        facts.append([("page fetch", "bold"), ("not attempted: blocked by robots.txt", "dim")])
        facts.append([("indexing", "bold"), (BLOCKED_INDEXING, "warning")])
    else:
        if decision is not None and robots is not None:
            where = (
                f"line {decision.line}: {line_text(report(robots.body), decision.line)}"
                if decision.line
                else "no matching rule"
            )
            crawl_text = f"allowed ({where}); group: {decision.token or 'none applies'}"
        else:
            crawl_text = "allowed (no restrictions)"
        facts.append([("crawling", "bold"), (crawl_text, "allowed")])
        if page is not None:
            _page_facts(facts, page, answer, now)
    for line in render_table(facts, paint):
        w(line + "\n")


def _page_facts(facts: list[list[Cell]], page: Page, answer: Verdict, now: float) -> None:
    """The page's download, its rules, its links (a 2xx page only) and the indexing answer."""
    if page.status is None:
        fetch = f"failed: {_page_text(page)}"
    elif answer.fetched:
        fetch = f"successful: {_page_text(page)}"
    elif 300 <= page.status < 400:
        fetch = f"redirect: {_page_text(page)}"
    else:
        fetch = f"failed: {fetch_failure(page.status)}: {_page_text(page)}"
    facts.append([("page fetch", "bold"), (fetch, "allowed" if answer.fetched else "error")])
    for value in page.x_robots_tag:
        facts.append([("X-Robots-Tag", "bold"), (short(value, 200), None)])
    rules = page.rules
    if rules is not None:
        lines = _rule_lines(rules, now)
        if not answer.fetched:
            head = "read, but Google reads no rule of a page that does not answer 2xx"
            facts.append([("page rules", "bold"), (head if lines else "none", "dim")])
            facts.extend([("", None), (f"  {text}", "dim")] for text in lines)
        else:
            first, *rest = lines or ["none for these tokens"]
            facts.append([("page rules", "bold"), (first, None)])
            facts.extend([("", None), (text, None)] for text in rest)
            facts.append(_links(rules, page))
    indexing = indexing_text(page, answer, now)
    style = "allowed" if answer.indexable else "error" if page.status is None else "disallowed"
    facts.append([("indexing", "bold"), (indexing, style)])


def _links(rules: PageRules, page: Page) -> list[Cell]:
    follow = (
        "followed"
        if rules.follow
        else f"not followed: nofollow ({', '.join(rules.source('nofollow'))})"
    )
    links = page.links
    if links is not None and links.hinted:
        follow += (
            f"; {links.hinted:,} of {links.links:,} links carry rel=nofollow, ugc or "
            "sponsored (hints to Google, not rules)"
        )
    return [("links", "bold"), (follow, "allowed" if rules.follow else "warning")]


def _chain(attempts: list[Attempt]) -> str:
    hops = []
    for a in attempts:
        result = str(a.status) if a.status is not None else (a.error or "failed")
        hops.append(f"{a.url} {result}" + (f" -> {a.location}" if a.location else ""))
    return "; ".join(hops) or "not fetched"


def _page_text(page: Page) -> str:
    if page.status is None:
        return f"GET {page.url}: {page.error or 'failed'}"
    text = f"GET {page.url} {page.status}"
    if page.location:
        text += f" -> {page.location} (not followed)"
    kind = page.content_type or "no Content-Type"
    text += f", {kind}, {page.size or 0:,} bytes"
    if not page.html:
        text += " (not HTML: only X-Robots-Tag applies)"
    return text


COMMAND = Command(
    name="inspect",
    order=35,
    help="inspect one URL as Search Console does: crawling, page fetch, indexing",
    description="Answer Search Console's URL Inspection questions for one URL, offline: may\n"
    "the crawler fetch it (robots.txt, with the deciding line), could the page be fetched,\n"
    "may it be indexed and would its links be followed (X-Robots-Tag and robots meta tags,\n"
    "each rule with its source). Crawling and indexing are answered apart.",
    epilog=EXAMPLES,
    example="gbot-robots inspect https://example.com/page",
    add_arguments=add_arguments,
    run=run,
)
