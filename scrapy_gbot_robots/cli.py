"""``gbot-robots``: test URLs against a robots.txt, lint it, or fetch it as the middleware does.

Every verdict comes from the engine (``parse(...).decide``) and every line reading from
``_lines.report()``, so the tool can never disagree with the middleware. Scrapy is imported
only by ``fetch``, which keeps ``check`` and ``lint`` fast to start.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, NoReturn

from . import _lint
from ._agent import is_valid_token, product_token
from ._lines import LineReport, report
from ._rules import Decision, RobotsTxt, parse

if TYPE_CHECKING:
    from ._policy import OriginState, PolicyConfig

PROG = "gbot-robots"

EXIT_OK = 0
EXIT_FINDINGS = 1  # check: a URL is disallowed; lint/fetch: findings at or above --fail-on
EXIT_USAGE = 2


class UsageError(Exception):
    """A user mistake: reported in one line on stderr with exit status 2, never a traceback."""


# ----------------------------------------------------------------------------- output helpers

_STYLES = {
    "allowed": "32",
    "disallowed": "1;31",
    "error": "1;31",
    "warning": "33",
    "info": "36",
    "dim": "2",
    "bold": "1",
    "code": "35",
}


def colour_wanted(mode: str, stream: IO[str]) -> bool:
    """``auto``: colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR", ""):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@dataclass(frozen=True, slots=True)
class Painter:
    enabled: bool

    def __call__(self, text: str, style: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"


Cell = tuple[str, str | None]  # (plain text, style)


def render_table(
    rows: Sequence[Sequence[Cell]], paint: Painter, right: frozenset[int] = frozenset()
) -> list[str]:
    """Align columns on the plain text, then paint, so escape codes never skew the widths."""
    if not rows:
        return []
    ncols = max(len(r) for r in rows)
    widths = [0] * ncols
    for r in rows:
        for i, (text, _) in enumerate(r[:-1]):
            widths[i] = max(widths[i], len(text))
    out = []
    for r in rows:
        parts = []
        for i, (text, style) in enumerate(r):
            last = i == len(r) - 1
            pad = 0 if last else widths[i] - len(text)
            cell = paint(text, style) if style else text
            parts.append(" " * pad + cell if i in right else cell + " " * pad)
        out.append("  ".join(parts).rstrip())
    return out


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ----------------------------------------------------------------------------- inputs


def read_robots(path: str, stdin: IO[bytes]) -> bytes:
    if path == "-":
        return stdin.read()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise UsageError(f"robots.txt file not found: {path!r}") from None
    except IsADirectoryError:
        raise UsageError(f"{path!r} is a directory, not a robots.txt file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path!r}: {exc.strerror or exc}") from None


def check_token(value: str) -> str:
    """The crawler's product token, or a usage error that says what a token is."""
    if is_valid_token(value):
        return value
    msg = (
        f"invalid user-agent token {value!r}: a token is the crawler's product name, made of "
        "letters, '-' and '_' only (e.g. Googlebot, Googlebot-Image, AdsBot-Google)"
    )
    suggestion = product_token(value) if value else ""
    if suggestion and is_valid_token(suggestion) and suggestion != value:
        msg += f"; for this User-Agent string the token is {suggestion!r}"
    raise UsageError(msg)


def check_url(url: str, where: str = "") -> str:
    if not _lint.is_absolute_url(url):
        prefix = f"{where}: " if where else ""
        raise UsageError(
            f"{prefix}not an absolute URL: {url!r} (give scheme and host, "
            "e.g. https://example.com/page)"
        )
    return url


def read_url_file(path: str, stdin: IO[bytes]) -> list[str]:
    """One URL per line; blank lines and lines starting with '#' are skipped."""
    if path == "-":
        raw = stdin.read()
    else:
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            raise UsageError(f"URL file not found: {path!r}") from None
        except IsADirectoryError:
            raise UsageError(f"{path!r} is a directory, not a file of URLs") from None
        except OSError as exc:
            raise UsageError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    name = "<stdin>" if path == "-" else path
    urls = []
    for n, line in enumerate(raw.splitlines(), 1):
        try:
            text = line.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise UsageError(f"{name}:{n}: not valid UTF-8") from None
        if text and not text.startswith("#"):
            urls.append(check_url(text, f"{name}:{n}"))
    return urls


def line_text(reports: Sequence[LineReport], number: int) -> str:
    """The physical line ``number`` as written, without surrounding whitespace."""
    if not 1 <= number <= len(reports):
        return ""
    return _lint.display(reports[number - 1].text.strip(b" \t\n\v\f\r"))


# ----------------------------------------------------------------------------- check


def needs_escaping(url: str) -> bool:
    return any(ord(c) > 0x7E or c.isspace() for c in url)


def cmd_check(ns: argparse.Namespace, io: IOStreams) -> int:
    token = check_token(ns.user_agent)
    if ns.robots == "-" and ns.urls == "-":
        raise UsageError("robots.txt and --urls cannot both be read from stdin ('-')")
    urls = [check_url(u) for u in ns.url]
    if ns.urls is not None:
        urls.extend(read_url_file(ns.urls, io.stdin))
    if not urls:
        raise UsageError("no URLs to check: give them as arguments or with --urls FILE")
    body = read_robots(ns.robots, io.stdin)

    rt = parse(body)
    reports = report(rt.body)
    for url in urls:
        if needs_escaping(url):
            io.note(
                f"note: {url!r} is matched exactly as given; robots.txt rules compare the "
                "%-encoded form that a crawler requests (e.g. 'é' is '%C3%A9')"
            )
    if rt.truncated:
        io.note(
            f"note: the file is {len(body):,} bytes; as Google does, only the first "
            f"{len(rt.body):,} are read"
        )

    decisions = [(url, rt.decide(url, token)) for url in urls]
    disallowed = sum(not d.allowed for _, d in decisions)
    if ns.json:
        for url, d in decisions:
            io.out.write(json.dumps(decision_json(url, token, d, reports)) + "\n")
    else:
        paint = Painter(colour_wanted(ns.color, io.out))
        io.out.write(paint(follows(rt, reports, token), "dim") + "\n")
        rows: list[list[Cell]] = [
            [
                ("VERDICT", "bold"),
                ("LINE", "bold"),
                ("GROUP", "bold"),
                ("RULE", "bold"),
                ("URL", "bold"),
            ]
        ]
        for url, d in decisions:
            verdict = "allowed" if d.allowed else "disallowed"
            group = {"agent": token, "global": "*"}.get(d.group, "-")
            rule = short(line_text(reports, d.line), 60) if d.line else "(no matching rule)"
            rows.append(
                [
                    (verdict, verdict),
                    (str(d.line) if d.line else "-", None),
                    (group, None),
                    (rule, None if d.line else "dim"),
                    (url, None),
                ]
            )
        for line in render_table(rows, paint, right=frozenset({1})):
            io.out.write(line + "\n")
        summary = (
            f"{len(decisions)} URL{'s' if len(decisions) != 1 else ''}: "
            f"{len(decisions) - disallowed} allowed, {disallowed} disallowed for {token}"
        )
        io.out.write(paint(summary, "disallowed" if disallowed else "allowed") + "\n")
    return EXIT_FINDINGS if disallowed else EXIT_OK


def decision_json(
    url: str, token: str, d: Decision, reports: Sequence[LineReport]
) -> dict[str, object]:
    return {
        "url": url,
        "user_agent": token,
        "allowed": d.allowed,
        "line": d.line,
        "rule": line_text(reports, d.line) if d.line else "",
        "directive": d.directive,
        "value": d.value,
        "pattern": d.pattern,
        "group": d.group,
    }


def follows(rt: RobotsTxt, reports: Sequence[LineReport], token: str) -> str:
    """Which group the engine applies to ``token``: its own, the * group, or none."""
    groups, _ = _lint.group_lines(reports)
    if rt.names_agent(token):
        own = [g for g in groups if token.lower() in g.tokens]
        where = ", ".join(f"{g.first_line}-{g.last_line}" for g in own)
        return f"{token} follows its own group (lines {where}); the * group does not apply to it"
    glob = [g for g in groups if g.is_global]
    if glob:
        where = ", ".join(f"{g.first_line}-{g.last_line}" for g in glob)
        return f"{token} has no group of its own and follows the * group (lines {where})"
    return f"no group applies to {token}: nothing is disallowed for it"


# ----------------------------------------------------------------------------- lint

FAIL_ON = ("error", "warning", "info", "never")


def parse_ignore(values: Sequence[str]) -> set[str]:
    codes: set[str] = set()
    for chunk in values:
        for item in chunk.split(","):
            item = item.strip()
            if not item:
                continue
            check = _lint.CHECKS_BY_CODE.get(item.upper()) or _lint.CHECKS_BY_NAME.get(item.lower())
            if check is None:
                raise UsageError(
                    f"unknown check {item!r} in --ignore; see 'gbot-robots lint --list-checks'"
                )
            codes.add(check.code)
    return codes


def lint_exit(findings: Sequence[_lint.Finding], fail_on: str) -> int:
    if fail_on == "never":
        return EXIT_OK
    threshold = _lint.Severity[fail_on.upper()]
    return EXIT_FINDINGS if any(f.severity >= threshold for f in findings) else EXIT_OK


def cmd_lint(ns: argparse.Namespace, io: IOStreams) -> int:
    paint = Painter(colour_wanted(ns.color, io.out))
    if ns.list_checks:
        if ns.json:
            checks = [
                {"code": c.code, "name": c.name, "severity": c.severity.label, "summary": c.summary}
                for c in _lint.CHECKS
            ]
            io.out.write(json.dumps(checks, indent=2) + "\n")
        else:
            print_catalogue(io.out, paint)
        return EXIT_OK
    if ns.robots is None:
        raise UsageError("the ROBOTS argument is required (a file path, or '-' for stdin)")
    ignore = parse_ignore(ns.ignore)
    body = read_robots(ns.robots, io.stdin)
    result = _lint.lint(body)
    findings = [f for f in result.findings if f.code not in ignore]
    name = "<stdin>" if ns.robots == "-" else ns.robots
    if ns.json:
        data = {"file": name, **result.as_json()}
        data["findings"] = [f.as_json() for f in findings]
        data["counts"] = count(findings)
        io.out.write(json.dumps(data, indent=2) + "\n")
    else:
        write_lint_report(io.out, paint, name, result, findings, ns.findings_only)
    return lint_exit(findings, ns.fail_on)


def count(findings: Sequence[_lint.Finding]) -> dict[str, int]:
    out = {s.label: 0 for s in sorted(_lint.Severity, reverse=True)}
    for f in findings:
        out[f.severity.label] += 1
    return out


def print_catalogue(out: IO[str], paint: Painter) -> None:
    rows: list[list[Cell]] = [
        [("CODE", "bold"), ("SEVERITY", "bold"), ("NAME", "bold"), ("WHAT", "bold")]
    ]
    for c in _lint.CHECKS:
        rows.append(
            [
                (c.code, "code"),
                (c.severity.label, c.severity.label),
                (c.name, None),
                (c.summary, None),
            ]
        )
    for line in render_table(rows, paint):
        out.write(line + "\n")


def finding_cells(f: _lint.Finding) -> list[Cell]:
    return [(f.severity.label, f.severity.label), (f.code, "code"), (f.message, None)]


def finding_text(f: _lint.Finding, paint: Painter) -> str:
    label = f.severity.label
    return f"{paint(label, label)}{' ' * (7 - len(label))}  {paint(f.code, 'code')}  {f.message}"


def write_lint_report(
    out: IO[str],
    paint: Painter,
    name: str,
    result: _lint.LintReport,
    findings: Sequence[_lint.Finding],
    findings_only: bool,
) -> None:
    w = out.write
    n_groups = len(result.groups)
    size = f"{result.size:,} bytes"
    if result.truncated:
        size += f", of which Google reads the first {result.parsed_size:,}"
    head = (
        f"{name}: {size}: {result.line_count:,} line{'s' if result.line_count != 1 else ''}, "
        f"{n_groups} group{'s' if n_groups != 1 else ''}, "
        f"{len(result.sitemaps)} sitemap{'s' if len(result.sitemaps) != 1 else ''}"
    )
    w(paint(head, "bold") + "\n")

    if findings_only:
        rows: list[list[Cell]] = [
            [(str(f.line) if f.line else "-", None), *finding_cells(f)] for f in findings
        ]
        if rows:
            w("\n")
            for line in render_table(
                [
                    [("LINE", "bold"), ("SEVERITY", "bold"), ("CODE", "bold"), ("MESSAGE", "bold")],
                    *rows,
                ],
                paint,
                right=frozenset({0}),
            ):
                w(line + "\n")
    else:
        # File-level findings first, then each line followed by its findings.
        by_line: dict[int, list[_lint.Finding]] = {}
        for f in findings:
            by_line.setdefault(f.line, []).append(f)
        for f in by_line.pop(0, []):
            w(finding_text(f, paint) + "\n")
        table: list[list[Cell]] = [
            [("LINE", "bold"), ("GROUP", "bold"), ("READ AS", "bold"), ("VALUE", "bold")]
        ]
        attached: list[list[_lint.Finding]] = [[]]
        for v in result.lines:
            shown = v.value
            if v.read_as == "unknown":
                shown = f"{v.key}: {v.value}"
            elif v.read_as == "ignored":
                shown = v.text.strip()
            elif v.pattern is not None and v.normalised:
                shown = f"{v.value}  (matched as {_lint.printable(v.pattern)})"
            style = "dim" if v.read_as in ("comment", "ignored", "unknown") else None
            table.append(
                [
                    (str(v.number), None),
                    (str(v.group) if v.group else "", None),
                    (v.read_as, style),
                    (short(shown, 90), style),
                ]
            )
            attached.append(by_line.pop(v.number, []))
        lines = render_table(table, paint, right=frozenset({0, 1}))
        indent = " " * (sum(max(len(row[i][0]) for row in table) for i in (0, 1)) + 4)
        w("\n")
        for line, extra in zip(lines, attached, strict=True):
            w(line + "\n")
            for f in extra:
                w(indent + "^ " + finding_text(f, paint) + "\n")
        for rest in by_line.values():  # findings on blank lines
            for f in rest:
                w(f"line {f.line}: " + finding_text(f, paint) + "\n")
        if result.groups:
            w("\n" + paint("groups", "bold") + "\n")
            grows: list[list[Cell]] = []
            for g in result.groups:
                agents = ", ".join(_lint.display(a.value) for a in g.agent_lines)
                nrules = sum(1 for r in g.rule_lines if r.pattern)
                grows.append(
                    [
                        (str(g.index), None),
                        (f"lines {g.first_line}-{g.last_line}", None),
                        (agents, None),
                        (f"{nrules} rule{'s' if nrules != 1 else ''}", None),
                    ]
                )
            for line in render_table(grows, paint, right=frozenset({0})):
                w("  " + line + "\n")
    c = count(findings)
    parts = [f"{c[k]} {k}{'' if c[k] == 1 or k == 'info' else 's'}" for k in c]
    worst = max((f.severity for f in findings), default=None)
    w("\n" + paint("findings: " + ", ".join(parts), worst.label if worst else "allowed") + "\n")


# ----------------------------------------------------------------------------- fetch

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


def run_fetch(url: str, token: str, timeout: float | None, verbose: bool) -> FetchRun:
    """Run a one-request Scrapy crawl with the add-on and watch the middleware fetch robots.txt.

    Nothing here interprets a status: the middleware follows redirects and hands the result
    to ``_policy``; the state it stores is read back from it when the spider closes.
    """
    import scrapy
    from scrapy import Spider
    from scrapy import signals as scrapy_signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.http import Request
    from scrapy.utils.defer import deferred_from_coro

    from . import signals
    from .middleware import FETCH_META, GoogleRobotsTxtMiddleware

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

        async def start(self) -> Any:
            yield Request(
                url,
                meta={PROBE_META: True},
                dont_filter=True,
                callback=self.ignore,
                errback=self.ignore,
            )

        def ignore(self, _: Any) -> None:
            return None

    process = CrawlerProcess(settings)
    if not verbose:
        # Retries are shown in the chain; Scrapy's "Gave up retrying" would only repeat them.
        import logging

        logging.getLogger("scrapy.downloadermiddlewares.retry").setLevel(logging.CRITICAL)
    crawler = process.create_crawler(FetchSpider)

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
            engine = crawler.engine
            if hasattr(engine, "close_spider_async"):
                deferred_from_coro(engine.close_spider_async(reason="finished"))
            elif crawler.spider is not None:  # pragma: no cover - Scrapy < 2.14
                engine.close_spider(crawler.spider, "finished")

    def closed() -> None:
        for mw in crawler.engine.downloader.middleware.middlewares:
            if isinstance(mw, GoogleRobotsTxtMiddleware):
                run.state = mw.origin_state(url)
                run.policy = mw.policy

    crawler.signals.connect(reached, signal=scrapy_signals.request_reached_downloader)
    crawler.signals.connect(downloaded, signal=scrapy_signals.response_downloaded)
    crawler.signals.connect(state_changed, signal=signals.origin_state_changed)
    crawler.signals.connect(closed, signal=scrapy_signals.spider_closed)
    process.crawl(crawler)
    process.start()
    for attempt in run.attempts:
        attempt.request = None
    return run


def duration(seconds: float) -> str:
    """12 h, 10 min, 30 d: the unit a person would say."""
    for unit, size, least in (("d", 86_400, 172_800), ("h", 3_600, 3_600), ("min", 60, 60)):
        if seconds >= least and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    if seconds >= 3_600:
        return f"{seconds / 3_600:.1f} h"
    return f"{seconds:g} s"


def utc(ts: float) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def policy_text(state: OriginState, cfg: PolicyConfig, now: float) -> tuple[str, str]:
    """(mode name, one sentence) for the state the middleware stored."""
    from ._policy import Kind as StateKind
    from ._policy import mode_at

    mode, until = mode_at(state, now, None, cfg)
    if state.kind is StateKind.RULES:
        return mode.value, f"rules: obey the file (HTTP {state.status})"
    if state.kind is StateKind.ALLOW_ALL:
        if state.reason == "redirect limit":
            why = f"still redirecting after {cfg.max_redirects} hops, which counts as a 404"
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
    from ._policy import Kind as StateKind
    from ._policy import max_age

    seconds = state.refresh_at - state.fetched_at
    if state.kind is StateKind.SERVER_ERROR:
        return f"next robots.txt retry in {duration(seconds)}"
    age = max_age(cache_control)
    if age is None:
        source = "the default"
    elif age != seconds:
        source = f"Cache-Control max-age={age:g}, clamped to [{cfg.min_ttl:g}, {cfg.max_ttl:g}] s"
    else:
        source = f"from Cache-Control max-age={age:g}"
    return f"{duration(seconds)} ({source})"


def cmd_fetch(ns: argparse.Namespace, io: IOStreams) -> int:
    from ._origin import origin_of, robots_url
    from ._policy import Kind as StateKind

    token = check_token(ns.user_agent)
    url = check_url(ns.url)
    origin = origin_of(url)
    if origin is None:
        raise UsageError(f"{url!r} has no robots.txt to fetch: only http and https URLs do")
    if ns.timeout is not None and not ns.timeout > 0:
        raise UsageError(f"--timeout must be a positive number of seconds, got {ns.timeout:g}")
    run = run_fetch(url, token, ns.timeout, ns.verbose)
    state, cfg = run.state, run.policy
    if state is None or cfg is None:
        io.note(f"{PROG} fetch: error: the middleware did not decide {robots_url(origin)}")
        return EXIT_FINDINGS
    now = state.fetched_at
    for i, attempt in enumerate(run.attempts):
        if attempt.status is None:
            last = i == len(run.attempts) - 1
            attempt.error = state.reason if last and state.status is None else "failed (retried)"
    final = next((a for a in reversed(run.attempts) if a.status is not None), None)
    mode, policy = policy_text(state, cfg, now)
    lifetime = lifetime_text(state, cfg, final.cache_control if final else None)
    robots = state.robots if state.kind is StateKind.RULES else None
    decision = robots.decide(url, token) if robots is not None else None
    result = _lint.lint(robots.body) if robots is not None else None
    findings = list(result.findings) if result is not None else []
    status = EXIT_FINDINGS if mode == "stopped" else EXIT_OK
    if lint_exit(findings, ns.fail_on):
        status = EXIT_FINDINGS

    if ns.json:
        data: dict[str, object] = {
            "url": url,
            "origin": origin,
            "robots_url": robots_url(origin),
            "user_agent": token,
            "chain": [a.as_json() for a in run.attempts],
            "state": state.kind.value,
            "reason": state.reason,
            "status": state.status,
            "policy": mode,
            "summary": policy,
            "cache_seconds": state.refresh_at - state.fetched_at,
            "verdict": (
                decision_json(url, token, decision, report(robots.body))
                if decision is not None and robots is not None
                else {
                    "url": url,
                    "user_agent": token,
                    "allowed": mode != "stopped",
                    "line": 0,
                    "rule": "",
                    "group": "none",
                }
            ),
            "sitemaps": list(robots.sitemaps) if robots is not None else [],
            "lint": {**result.as_json(), "counts": count(findings)} if result else None,
        }
        io.out.write(json.dumps(data, indent=2) + "\n")
        return status

    paint = Painter(colour_wanted(ns.color, io.out))
    w = io.out.write
    w(
        paint(
            f"robots.txt of {origin} for {token} (fetched through Scrapy {run.scrapy_version})",
            "bold",
        )
        + "\n"
    )
    rows: list[list[Cell]] = []
    for a in run.attempts:
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
        verdict = f"{'allowed' if decision.allowed else 'disallowed'} ({where})"
    else:
        verdict = "allowed (no restrictions)" if mode != "stopped" else "not crawled for now"
    facts: list[list[Cell]] = [
        [("policy", "bold"), (policy, "error" if mode == "stopped" else None)],
        [("cache", "bold"), (lifetime, None)],
        [("URL", "bold"), (f"{url}: {verdict}", None)],
    ]
    if robots is not None and robots.sitemaps:
        facts.append([("sitemaps", "bold"), (", ".join(robots.sitemaps), None)])
    w("\n")
    for line in render_table(facts, paint):
        w(line + "\n")
    if result is not None and robots is not None:
        w("\n")
        write_lint_report(io.out, paint, robots_url(origin), result, findings, ns.findings_only)
    return status


# ----------------------------------------------------------------------------- argument parsing


@dataclass(slots=True)
class IOStreams:
    out: IO[str]
    err: IO[str]
    stdin: IO[bytes]

    def note(self, text: str) -> None:
        self.err.write(text + "\n")


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors go through one place (exit status 2, no traceback)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


_FORMATTER = argparse.RawDescriptionHelpFormatter

CHECK_EXAMPLES = """\
examples:
  gbot-robots check robots.txt --user-agent Googlebot https://example.com/page
  gbot-robots check robots.txt -u Googlebot-Image --urls urls.txt
  curl -s https://example.com/robots.txt | gbot-robots check - -u Googlebot https://example.com/
  gbot-robots check robots.txt -u Googlebot --json https://example.com/a https://example.com/b

exit status: 0 every URL allowed, 1 any URL disallowed, 2 usage error.
A token is the crawler's product name: letters, '-' and '_' only (Googlebot, AdsBot-Google).
URLs are matched exactly as given, so give them %-encoded, as a crawler requests them.
"""

LINT_EXAMPLES = """\
examples:
  gbot-robots lint robots.txt
  gbot-robots lint robots.txt --findings-only --fail-on warning
  gbot-robots lint - --json < robots.txt
  gbot-robots lint robots.txt --ignore GR402,crawl-delay
  gbot-robots lint --list-checks

exit status: 0 no finding at or above --fail-on (default: error), 1 otherwise, 2 usage error.
Codes are stable; see 'gbot-robots lint --list-checks' for the catalogue.
"""

FETCH_EXAMPLES = """\
examples:
  gbot-robots fetch https://example.com/
  gbot-robots fetch https://example.com/some/page --user-agent Googlebot-News
  gbot-robots fetch http://127.0.0.1:8080/ --json

URL can be any URL on the site: its origin's /robots.txt is fetched, through Scrapy, with
the middleware's status, redirect, size and timeout rules.
exit status: 0 fetched (rules or no restrictions), 1 crawling would stop (server error) or
lint findings at or above --fail-on, 2 usage error.
"""

MAIN_DESCRIPTION = """\
Test URLs against a robots.txt exactly the way Googlebot reads it, lint the file, or
fetch an origin's robots.txt the way the scrapy-gbot-robots middleware does.

examples:
  gbot-robots check robots.txt --user-agent Googlebot https://example.com/page
  gbot-robots lint robots.txt --fail-on warning
  gbot-robots fetch https://example.com/
Run 'gbot-robots COMMAND --help' for the options of a command.
"""


def _add_colour(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--color",
        "--colour",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour: auto (default) colours only a terminal, and never when NO_COLOR is set",
    )


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    top = _Parser(prog=PROG, description=MAIN_DESCRIPTION, formatter_class=_FORMATTER)
    top.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="test URLs against a robots.txt",
        description="Print, for each URL, whether the crawler may fetch it, the line that\n"
        "decides it, and whether that line comes from the crawler's own group or the * group.\n"
        "Verdicts come from the same engine the middleware obeys.",
        epilog=CHECK_EXAMPLES,
        formatter_class=_FORMATTER,
    )
    check.add_argument("robots", metavar="ROBOTS", help="robots.txt file, or '-' for stdin")
    check.add_argument("url", metavar="URL", nargs="*", help="absolute URL(s) to test")
    check.add_argument(
        "-u",
        "--user-agent",
        required=True,
        metavar="TOKEN",
        help="the crawler's product token, e.g. Googlebot",
    )
    check.add_argument(
        "--urls",
        metavar="FILE",
        help="read more URLs from FILE, one per line ('-' for stdin; '#' lines skipped)",
    )
    check.add_argument("--json", action="store_true", help="one JSON object per URL per line")
    _add_colour(check)

    lint = sub.add_parser(
        "lint",
        help="show how Google reads a robots.txt and what looks wrong",
        description="Report, line by line, how Google reads the file, with findings that\n"
        "have a severity (error, warning, info) and a stable code (GR...).",
        epilog=LINT_EXAMPLES,
        formatter_class=_FORMATTER,
    )
    lint.add_argument(
        "robots", metavar="ROBOTS", nargs="?", help="robots.txt file, or '-' for stdin"
    )
    lint.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="error",
        help="exit 1 when a finding has this severity or worse (default: error)",
    )
    lint.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODES",
        help="skip these checks (codes or names, comma-separated; repeatable)",
    )
    lint.add_argument(
        "-q", "--findings-only", action="store_true", help="print the findings, not every line"
    )
    lint.add_argument("--json", action="store_true", help="one JSON document")
    lint.add_argument("--list-checks", action="store_true", help="print the catalogue of checks")
    _add_colour(lint)

    fetch = sub.add_parser(
        "fetch",
        help="fetch an origin's robots.txt through Scrapy, as the middleware does",
        description="Fetch the robots.txt of URL's origin through Scrapy with the add-on's\n"
        "middleware, print the status chain, the policy that results and its cache\n"
        "lifetime, the verdict for URL, then the lint report.",
        epilog=FETCH_EXAMPLES,
        formatter_class=_FORMATTER,
    )
    fetch.add_argument("url", metavar="URL", help="any absolute URL on the site")
    fetch.add_argument(
        "-u",
        "--user-agent",
        default="Googlebot",
        metavar="TOKEN",
        help="the crawler's product token (default: Googlebot)",
    )
    fetch.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS", help="download timeout"
    )
    fetch.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="never",
        help="also exit 1 when a lint finding has this severity or worse (default: never)",
    )
    fetch.add_argument(
        "-q", "--findings-only", action="store_true", help="lint: print the findings only"
    )
    fetch.add_argument("-v", "--verbose", action="store_true", help="show Scrapy's log on stderr")
    fetch.add_argument("--json", action="store_true", help="one JSON document")
    _add_colour(fetch)
    return top, {"check": check, "lint": lint, "fetch": fetch}


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("scrapy-gbot-robots")
    except Exception:  # not installed: running from a checkout
        return "(unknown version)"


COMMANDS: dict[str, Callable[[argparse.Namespace, IOStreams], int]] = {
    "check": cmd_check,
    "lint": cmd_lint,
    "fetch": cmd_fetch,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    io = IOStreams(out=sys.stdout, err=sys.stderr, stdin=sys.stdin.buffer)
    top, subs = build_parser()
    if not args or args[0] not in COMMANDS:
        # --help, --version, or a mistake: argparse prints it and exits (0 or 2).
        top.parse_args(args)
        top.print_help(sys.stderr)
        return EXIT_USAGE
    parser = subs[args[0]]
    # Intermixed: "check robots.txt -u Googlebot URL ..." keeps working with options between.
    ns = parser.parse_intermixed_args(args[1:])
    try:
        return COMMANDS[args[0]](ns, io)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"{parser.prog}: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (e.g. '| head'): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FINDINGS
    except KeyboardInterrupt:
        return 130
