"""``gbot-robots fetch``: a live robots.txt, fetched exactly as the middleware fetches it.

A one-request Scrapy crawl with the add-on: the real middleware parks the request for the
user's URL and fetches robots.txt (redirects, retry, timeout, size cap, ``policy/fetch.py``); this
module only watches through Scrapy's signals and reads the resulting origin state back. Scrapy
and Twisted are imported inside functions, so ``check`` and ``lint`` never load them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from .._safetext import printable, quoted
from .._settings import load
from ..engine import lint as _lint
from ..engine.lines import report
from ..engine.url import sendable_url
from ..report.labels import duration
from ._args import (
    EXIT_FINDINGS,
    EXIT_OK,
    FAIL_ON,
    PROG,
    Command,
    IOStreams,
    Tokens,
    UsageError,
    add_token_arguments,
    check_timeout,
    resolve_tokens,
    token_fields,
)
from ._render import Cell, Painter, SafeLogFormatter, colour_wanted, line_text, render_table
from .check import usage_text, verdict_json
from .lint import count, lint_exit, write_lint_report

if TYPE_CHECKING:
    from ..policy.states import InForce, OriginState, PolicyConfig

EXAMPLES = """\
examples:
  gbot-robots fetch https://example.com/
  gbot-robots fetch https://example.com/some/page --token Googlebot-News
  gbot-robots fetch https://example.com/photo.jpg --as googlebot-image
  gbot-robots fetch http://127.0.0.1:8080/ --json

URL can be any URL on the site: its origin's /robots.txt is fetched, through Scrapy, with
the middleware's status, redirect, size and timeout rules; URL itself is never downloaded.
The fetch uses the first token; the verdict for URL takes every token (-u A,B or --as) and
--no-global, as 'check' does.
exit status: 0 URL may be crawled now (the rules allow it, or there are none) and no lint
finding reaches --fail-on; 1 URL is disallowed (as in 'check'), or crawling stops (429, 5xx,
network failure), or a lint finding reaches --fail-on; 2 usage error (nothing is fetched).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", metavar="URL", help="any absolute URL on the site")
    add_token_arguments(p)
    p.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS", help="download timeout"
    )
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="never",
        help="also exit 1 when a lint finding has this severity or worse (default: never)",
    )
    p.add_argument(
        "-q", "--findings-only", action="store_true", help="lint: print the findings only"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="show Scrapy's log on stderr")
    p.add_argument("--json", action="store_true", help="one JSON document")


def absolute_url(url: str) -> str:
    """``url`` when it has a scheme and a host and Scrapy can request it; a usage error
    otherwise (nothing to fetch; w3lib 2.6 and later refuse some hosts, e.g. with control
    characters, which would otherwise end the crawl in a traceback)."""
    if not _lint.is_absolute_url(url):
        raise UsageError(
            f"not an absolute URL: {quoted(url)} (give scheme and host, e.g. https://example.com/page)"
        )
    from scrapy import Request

    try:
        Request(url)
    except ValueError as exc:
        raise UsageError(f"Scrapy cannot request {quoted(url)}: {exc}") from None
    return url


@dataclass(frozen=True, slots=True)
class Target:
    """What ``fetch`` and ``inspect`` are asked about: the crawler's tokens, the URL as given
    and as a crawler requests it, and its origin."""

    tokens: Tokens
    url: str
    checked: str
    origin: str


def target(ns: argparse.Namespace, io: IOStreams, no_origin: str) -> Target:
    """The arguments ``fetch`` and ``inspect`` share, checked before anything is fetched (a
    usage error otherwise; ``no_origin`` is the message for a URL without robots.txt, with
    ``{url}``), and their notes printed."""
    from ..policy.origin import origin_of

    later: list[str] = []
    tokens = resolve_tokens(ns, later.append)
    url = absolute_url(ns.url)
    origin = origin_of(url)
    if origin is None:
        raise UsageError(no_origin.format(url=quoted(url)))
    check_timeout(ns.timeout)
    for text in later:
        io.note(text)
    checked = sendable_url(url)  # the URL check would check: one answer for every command
    if checked != url and not ns.json:
        io.note(f"note: {quoted(url)} is checked as {checked}, the form a crawler requests")
    return Target(tokens, url, checked, origin)


def decided(
    run: FetchRun, io: IOStreams, command: str, origin: str
) -> tuple[OriginState, PolicyConfig] | None:
    """The state the middleware stored and its policy, each failed download named (the last
    by the state's reason); None, with an error line, when it decided nothing."""
    from ..policy.origin import robots_url

    state, cfg = run.state, run.policy
    if state is None or cfg is None:
        io.note(f"{PROG} {command}: error: the middleware did not decide {robots_url(origin)}")
        return None
    for i, attempt in enumerate(run.attempts):
        if attempt.status is None:
            last = i == len(run.attempts) - 1
            attempt.error = state.reason if last and state.status is None else "failed (retried)"
    return state, cfg


#: meta key of the one page request ``fetch`` schedules to make the middleware fetch robots.txt.
PROBE_META = "gbot_robots_cli_probe"


class ProbeStop:
    """Downloader middleware for ``fetch``: the probe page itself never goes on the network.

    ``fetch`` schedules one request for the user's URL so that the real middleware parks it
    and fetches robots.txt exactly as in a crawl; once the middleware lets the probe through,
    this stops it, so only robots.txt is downloaded.
    """

    def process_request(self, request: Any, spider: Any = None) -> None:
        if request.meta.get(PROBE_META):
            from scrapy.exceptions import IgnoreRequest

            raise IgnoreRequest("gbot-robots fetch: only robots.txt is downloaded")


@dataclass(slots=True)
class Attempt:
    """One robots.txt download the middleware made (redirect hops and retries included)."""

    url: str
    request: Any = None
    status: int | None = None
    location: str | None = None
    cache_control: str | None = None
    size: int | None = None
    error: str | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "url": self.url,
            "status": self.status,
            "location": self.location,
            "cache_control": self.cache_control,
            "bytes": self.size,
            "error": self.error,
        }


@dataclass(slots=True)
class FetchRun:
    attempts: list[Attempt]
    state: OriginState | None = None
    policy: PolicyConfig | None = None
    scrapy_version: str = ""


def run_fetch(
    url: str, token: str, timeout: float | None, verbose: bool, log: IO[str] | None = None
) -> FetchRun:
    """Run a one-request Scrapy crawl with the add-on and watch the middleware fetch robots.txt.

    Nothing here interprets a status: the middleware follows redirects and hands the result
    to ``policy/fetch.py``; the state it stores is read back from it when the spider closes.
    The crawl's log (``-v``: everything; else errors only) goes to ``log`` (stderr) in Scrapy's
    format, each line escaped (:class:`._render.SafeLogFormatter`), never raw.
    """
    import logging

    import scrapy
    from scrapy import Spider
    from scrapy.http import Request
    from scrapy.settings import default_settings

    from .._compat import crawler_process_without_log_handler

    run = FetchRun(attempts=[], scrapy_version=scrapy.__version__)
    settings: dict[str, Any] = {
        "ADDONS": {"scrapy_gbot_robots.addon.Addon": 0},
        "ROBOTSTXT_OBEY": True,
        "ROBOTSTXT_USER_AGENT": token,
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.ProbeStop": 950},
        "LOG_LEVEL": "DEBUG" if verbose else "ERROR",
        "TELNETCONSOLE_ENABLED": False,
    }
    if timeout is not None:
        settings["GBOT_ROBOTS_DOWNLOAD_TIMEOUT"] = timeout

    class FetchSpider(Spider):
        name = "gbot-robots-fetch"

        def _probe(self) -> Request:
            return Request(
                url,
                meta={PROBE_META: True},
                dont_filter=True,
                callback=self.ignore,
                errback=self.ignore,
            )

        async def start(self) -> Any:
            yield self._probe()

        def start_requests(self) -> Any:  # Scrapy < 2.13 does not call start()
            yield self._probe()

        def ignore(self, _: Any) -> None:
            return None

    handler = logging.StreamHandler(log if log is not None else sys.stderr)
    handler.setFormatter(
        SafeLogFormatter(default_settings.LOG_FORMAT, default_settings.LOG_DATEFORMAT)
    )
    level = logging.DEBUG if verbose else logging.ERROR
    handler.setLevel(level)
    process = crawler_process_without_log_handler(settings)
    root_level = logging.root.level
    logging.root.setLevel(level)  # what Scrapy's own root handler would have set
    logging.root.addHandler(handler)
    if not verbose:
        # Retries are shown in the chain; Scrapy's "Gave up retrying" would only repeat them.
        logging.getLogger("scrapy.downloadermiddlewares.retry").setLevel(logging.CRITICAL)
    crawler = process.create_crawler(FetchSpider)
    watch(crawler, run, url)
    process.crawl(crawler)
    try:
        process.start()
    finally:
        logging.root.removeHandler(handler)
        logging.root.setLevel(root_level)
    for attempt in run.attempts:
        attempt.request = None
    return run


def watch(crawler: Any, run: FetchRun, url: str) -> None:
    """Record the middleware's robots.txt downloads for ``url``'s origin into ``run``, and
    its final state when the spider closes; close the spider at a server error (the probe
    would stay parked). Shared with ``inspect``, which fetches robots.txt the same way."""
    from scrapy import signals as scrapy_signals

    from .. import signals
    from .._meta import FETCH_META
    from ..middleware import GoogleRobotsTxtMiddleware  # the class projects name

    def reached(request: Any) -> None:
        if FETCH_META in request.meta:
            run.attempts.append(Attempt(url=request.url, request=request))

    def downloaded(response: Any, request: Any) -> None:
        for attempt in run.attempts:
            if attempt.request is request:
                headers = response.headers
                location = headers.get(b"Location")
                cache_control = headers.get(b"Cache-Control")
                attempt.status = response.status
                attempt.location = location.decode("latin-1") if location else None
                attempt.cache_control = cache_control.decode("latin-1") if cache_control else None
                attempt.size = len(response.body)

    def state_changed(origin: str, state: str) -> None:
        if state == "server_error":  # the probe stays parked: nothing more to learn
            from .._compat import close_spider

            close_spider(crawler.engine, crawler.spider, "finished")

    def closed() -> None:
        for mw in crawler.engine.downloader.middleware.middlewares:
            if isinstance(mw, GoogleRobotsTxtMiddleware):
                run.state = mw.origin_state(url)
        run.policy = load(crawler.settings.get).policy

    # Strong references: these closures outlive this call only through the connections.
    connect = crawler.signals.connect
    connect(reached, signal=scrapy_signals.request_reached_downloader, weak=False)
    connect(downloaded, signal=scrapy_signals.response_downloaded, weak=False)
    connect(state_changed, signal=signals.origin_state_changed, weak=False)
    connect(closed, signal=scrapy_signals.spider_closed, weak=False)


USAGE_FACT = "Content-Signal / Content-Usage in force (line); not Google's rules"


def utc(ts: float) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def policy_text(state: OriginState, force: InForce, cfg: PolicyConfig) -> tuple[str, str]:
    """(mode name, one sentence) for the state the middleware stored and the rules in force."""
    from ..policy.states import Kind

    mode, until = force.mode, force.until
    if state.kind is Kind.RULES:
        return mode.value, f"rules: obey the file (HTTP {state.status})"
    if state.kind is Kind.ALLOW_ALL:
        if state.reason == "redirect limit":
            why = f"still redirecting after {cfg.max_redirects} hops, which counts as a 404"
        elif state.reason == "unusable redirect":
            why = "a redirect without a usable Location, which counts as a 404"
        else:
            why = f"HTTP {state.status}: a 4xx other than 429 means there is no robots.txt"
        return mode.value, f"no restrictions ({why})"
    fallback = "the last good copy" if state.robots is not None else "no restrictions (no copy)"
    return mode.value, (
        f"stopped: server error ({state.reason}); the origin is not crawled for "
        f"{duration(cfg.error_stop)} (until {utc(until)}) while robots.txt is retried, then "
        f"{fallback} for up to {duration(cfg.error_grace)}"
    )


def lifetime_text(state: OriginState, cfg: PolicyConfig, cache_control: str | None) -> str:
    from ..policy.fetch import max_age
    from ..policy.states import Kind

    seconds = state.refresh_at - state.fetched_at
    if state.kind is Kind.SERVER_ERROR:
        return f"next robots.txt retry in {duration(seconds)}"
    age = max_age(cache_control)
    if age is None:
        source = "the default"
    elif age != seconds:
        source = f"Cache-Control max-age={age:g}, clamped to [{cfg.min_ttl:g}, {cfg.max_ttl:g}] s"
    else:
        source = f"from Cache-Control max-age={age:g}"
    return f"{duration(seconds)} ({source})"


def run(ns: argparse.Namespace, io: IOStreams) -> int:
    """Fetch, then report the chain, the policy, the verdict for URL and the lint report.

    Exit 1 when URL would not be fetched now (disallowed, or the origin stopped) or a lint
    finding reaches ``--fail-on``; these are all "1", so no precedence among them is needed.
    """
    from ..policy.origin import robots_url
    from ..policy.states import rules_in_force

    asked = target(ns, io, "{url} has no robots.txt to fetch: only http and https URLs do")
    tokens, url, checked, origin = asked.tokens, asked.url, asked.checked, asked.origin
    token = tokens.names[0]  # what the crawl fetches robots.txt as
    fetched = run_fetch(url, token, ns.timeout, ns.verbose, io.err)
    found = decided(fetched, io, "fetch", origin)
    if found is None:
        return EXIT_FINDINGS
    state, cfg = found
    now = state.fetched_at
    final = next((a for a in reversed(fetched.attempts) if a.status is not None), None)
    force = rules_in_force(state, now, cfg)
    mode, policy = policy_text(state, force, cfg)
    lifetime = lifetime_text(state, cfg, final.cache_control if final else None)
    robots = force.robots
    decision = (
        robots.decide(checked, tokens.token, tokens.global_group) if robots is not None else None
    )
    usage = robots.usage(checked, tokens.token, tokens.global_group) if robots else None
    result = _lint.lint(robots.body) if robots is not None else None
    findings = list(result.findings) if result is not None else []
    disallowed = decision is not None and not decision.allowed
    status = EXIT_FINDINGS if mode == "stopped" or disallowed else EXIT_OK
    if lint_exit(findings, ns.fail_on):
        status = EXIT_FINDINGS

    if ns.json:
        data: dict[str, object] = {
            "url": url,
            "origin": origin,
            "robots_url": robots_url(origin),
            **token_fields(tokens),
            "global_group": tokens.global_group,
            "chain": [a.as_json() for a in fetched.attempts],
            "state": state.kind.value,
            "reason": state.reason,
            "status": state.status,
            "policy": mode,
            "summary": policy,
            "valid_seconds": state.refresh_at - state.fetched_at,
            "cache_seconds": state.refresh_at - state.fetched_at,  # 0.2's name, until 0.4
            "verdict": (
                verdict_json(url, tokens, decision, report(robots.body), checked, usage)
                if decision is not None and robots is not None
                else {
                    "url": url,
                    "checked_url": checked,
                    **token_fields(tokens),
                    "global_group": tokens.global_group,
                    "allowed": mode != "stopped",
                    "line": 0,
                    "rule": "",
                    "directive": "",
                    "value": "",
                    "pattern": "",
                    "group": "none",
                    "token": "",
                    "usage": {"group": "", "preferences": []},
                }
            ),
            "sitemaps": list(robots.sitemaps) if robots is not None else [],
            "licenses": list(robots.licenses) if robots is not None else [],
            "lint": {**result.as_json(), "counts": count(findings)} if result else None,
        }
        io.out.write(json.dumps(data, indent=2) + "\n")
        return status

    paint = Painter(colour_wanted(ns.color, io.out))
    w = io.out.write
    w(
        paint(
            f"robots.txt of {printable(origin)} for {tokens.label}"
            + ("" if tokens.global_group else " (ignoring *)")
            + f" (fetched through Scrapy {fetched.scrapy_version})",
            "bold",
        )
        + "\n"
    )
    rows: list[list[Cell]] = []
    for a in fetched.attempts:
        if a.status is not None:
            detail = f"{a.size:,} bytes" if a.size is not None else ""
            if a.location:
                detail = f"-> {a.location}"
            elif a.cache_control:
                detail += f", Cache-Control: {a.cache_control}"
            style = (
                "allowed"
                if 200 <= a.status < 300
                else ("error" if a.status >= 500 or a.status == 429 else "warning")
            )
            rows.append([("GET", "dim"), (a.url, None), (str(a.status), style), (detail, None)])
        else:
            rows.append([("GET", "dim"), (a.url, None), ("---", "error"), (a.error or "", None)])
    if not rows:
        rows.append(
            [("GET", "dim"), (robots_url(origin), None), ("---", "error"), (state.reason, None)]
        )
    for line in render_table(rows, paint):
        w("  " + line + "\n")
    if decision is not None and robots is not None:
        where = (
            f"line {decision.line}: {line_text(report(robots.body), decision.line)}"
            if (decision.line)
            else "no matching rule"
        )
        group = decision.token or "none applies"
        verdict = f"{'allowed' if decision.allowed else 'disallowed'} ({where}); group: {group}"
    else:
        verdict = "allowed (no restrictions)" if mode != "stopped" else "not crawled for now"
    facts: list[list[Cell]] = [
        [("policy", "bold"), (policy, "error" if mode == "stopped" else None)],
        [("fresh for", "bold"), (lifetime, None)],
        [("URL", "bold"), (f"{url}: {verdict}", None)],
    ]
    if usage is not None and usage.preferences:
        facts.append([("usage", "bold"), (f"{usage_text(usage)}: {USAGE_FACT}", None)])
    if robots is not None and robots.sitemaps:
        facts.append([("sitemaps", "bold"), (", ".join(robots.sitemaps), None)])
    if robots is not None and robots.licenses:
        facts.append([("licenses", "bold"), (", ".join(robots.licenses), None)])
    w("\n")
    for line in render_table(facts, paint):
        w(line + "\n")
    if result is not None and robots is not None:
        w("\n")
        write_lint_report(io.out, paint, robots_url(origin), result, findings, ns.findings_only)
    return status


COMMAND = Command(
    name="fetch",
    order=30,
    help="fetch an origin's robots.txt through Scrapy, as the middleware does",
    description="Fetch the robots.txt of URL's origin through Scrapy with the add-on's\n"
    "middleware, print the status chain, the policy that results and how long the copy\n"
    "stays fresh, the verdict for URL, then the lint report.",
    epilog=EXAMPLES,
    example="gbot-robots fetch https://example.com/",
    add_arguments=add_arguments,
    run=run,
)
