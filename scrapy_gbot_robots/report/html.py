"""The audit report as one static HTML page: inline CSS and SVG, no JavaScript, no assets.

Pure: a function of the JSON report (``ReportCollector.to_json`` in ``report/collector.py``),
so the page can never say something the JSON does not. Any report renders: :func:`render`
first drops the fields of the wrong type (:func:`.schema.conform`), so a hand-edited or
damaged report gives a page without them, never an exception. Everything that comes from the
crawl (URLs, robots.txt lines, reasons, spider names) is untrusted and goes through
:func:`esc` (control characters shown escaped, then :func:`html.escape`); nothing links out,
so opening the page fetches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._safetext import short
from .html_pages import section as _pages
from .html_robots import facts_cell, has_facts
from .labels import (
    STATE_LABELS,
    backoff_text,
    delay_text,
    group_label,
    is_usage_directive,
    observed,
    tokens_text,
    usage_statements,
)
from .markup import esc
from .markup import number as _n
from .markup import table as _table
from .markup import time as _time
from .markup import url as _url
from .schema import conform, upgraded

#: Rows per table in the page; the JSON report has them all.
HTML_ROWS = 1000
#: Bars per chart.
CHART_BARS = 10


_CSS = """
:root { --fg:#1d2330; --muted:#5d6778; --bg:#ffffff; --panel:#f4f6f9; --line:#d9dee7;
  --allowed:#2e8540; --forbidden:#c62828; --dropped:#e08a00; --parked:#5a6fd6; --accent:#243b6b;
  --stopped:#8e44ad; }
@media (prefers-color-scheme: dark) {
  :root { --fg:#e6e9ef; --muted:#9aa3b2; --bg:#141821; --panel:#1d2230; --line:#30384a;
    --allowed:#5cb870; --forbidden:#ef5350; --dropped:#ffb74d; --parked:#8c9eff;
    --accent:#9fb6e8; --stopped:#ce93d8; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1440px; padding: 24px; font: 14px/1.45 system-ui, -apple-system,
  "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 24px; margin: 0 0 4px; color: var(--accent); }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 16px 0 6px; }
p.meta, .muted, caption { color: var(--muted); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 13px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  padding: 10px 14px; min-width: 130px; }
.card .n { font-size: 22px; font-weight: 600; }
.card .l { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card.allowed .n { color: var(--allowed); } .card.forbidden .n { color: var(--forbidden); }
.card.dropped .n { color: var(--dropped); } .card.parked .n { color: var(--parked); }
.card.stopped .n { color: var(--stopped); }
.banner { border: 2px solid var(--parked); border-radius: 6px; padding: 10px 14px;
  margin: 12px 0; background: var(--panel); }
table { border-collapse: collapse; width: 100%; margin: 8px 0 16px; }
caption { text-align: left; padding: 4px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left;
  vertical-align: top; }
th { background: var(--panel); font-weight: 600; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
td.num .muted { white-space: normal; overflow-wrap: anywhere; }
td.url, td.rule, td.origin, td.chain { overflow-wrap: anywhere; }
td.origin { min-width: 9em; }
td.chain { min-width: 11em; }
.state { display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 12px;
  font-weight: 600; color: #fff; white-space: nowrap; }
.state.rules { background: var(--accent); } .state.allow_all { background: var(--allowed); }
.state.server_error { background: var(--forbidden); } .state.unknown { background: var(--muted); }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px;
  border: 1px solid var(--line); white-space: nowrap; }
.badge.error { color: var(--forbidden); border-color: var(--forbidden); }
.badge.warning { color: var(--dropped); border-color: var(--dropped); }
.badge.info { color: var(--parked); border-color: var(--parked); }
ul.plain { margin: 0; padding-left: 16px; }
svg { max-width: 100%; height: auto; display: block; margin: 8px 0 4px; }
svg text { fill: var(--fg); font: 12px system-ui, sans-serif; }
svg .bar-forbidden { fill: var(--forbidden); } svg .bar-allowed { fill: var(--allowed); }
svg .bar-dropped { fill: var(--dropped); } svg .bar-stopped { fill: var(--stopped); }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
details summary { cursor: pointer; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
"""


def _state(kind: str) -> str:
    return f'<span class="state {esc(kind)}">{esc(STATE_LABELS.get(kind, kind))}</span>'


# ----------------------------------------------------------------------------- charts

_LABEL_W = 380  # label column of a bar chart, in SVG units
_BAR_W = 440
_ROW_H = 24


def bar_chart(rows: Sequence[tuple[str, Sequence[tuple[int, str]], str]], title: str) -> str:
    """Horizontal (stacked) bars: one row per (label, [(value, css class), ...], tooltip)."""
    if not rows:
        return ""
    # Positive parts only: each bar's share is then at most 1, whatever the numbers.
    top = max(sum(v for v, _ in parts if v > 0) for _, parts, _ in rows) or 1
    height = len(rows) * _ROW_H + 8
    width = _LABEL_W + _BAR_W + 80
    out = [
        f'<svg role="img" aria-label="{esc(title)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}">',
        f"<title>{esc(title)}</title>",
    ]
    for i, (label, parts, tooltip) in enumerate(rows):
        y = 4 + i * _ROW_H
        out.append(f"<g><title>{esc(tooltip)}</title>")
        shown = esc(short(label, 56))
        out.append(f'<text x="{_LABEL_W - 8}" y="{y + 16}" text-anchor="end">{shown}</text>')
        x = float(_LABEL_W)
        total = 0
        for value, cls in parts:
            if value <= 0:
                continue
            w = max(1.0, _BAR_W * value / top)
            out.append(
                f'<rect class="{cls}" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" '
                f'height="{_ROW_H - 6}" rx="2"/>'
            )
            x += w
            total += value
        out.append(f'<text x="{x + 6:.1f}" y="{y + 16}">{total:,}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _legend(items: Sequence[tuple[str, str]]) -> str:
    spans = "".join(
        f'<span><i style="background:var(--{var})"></i>{esc(label)}</span>' for label, var in items
    )
    return f'<p class="legend muted">{spans}</p>'


# ----------------------------------------------------------------------------- sections


class _Words:
    """The page's words for what robots.txt did, or in observe mode would have done."""

    def __init__(self, observe: bool) -> None:
        self.observe = observe
        #: "7 forbidden" / "7 would have been forbidden" (cards, tooltips, notes).
        self.forbidden = "would have been forbidden" if observe else "forbidden"
        #: A table column or a legend entry.
        self.column = "would forbid" if observe else "forbidden"
        self.forbade = "would have forbidden" if observe else "forbade"
        self.held = "would have been held back" if observe else "held back"


def _observe_banner(data: dict[str, Any]) -> str:
    totals = data.get("totals", {})
    return (
        '<div class="banner" id="observe"><p><b>Observe mode</b> '
        "(<code>GBOT_ROBOTS_MODE = &quot;observe&quot;</code>): robots.txt forbade and dropped "
        "nothing in this crawl; every request it decided was let through and downloaded. "
        "The counts below are what Googlebot would have done: "
        f"<b>{_n(totals.get('forbidden', 0))} would have been forbidden</b> (by a rule, or by a "
        "content-usage signal), and "
        f"<b>{_n(totals.get('would_stop', 0))} would be stopped</b> (their origin's robots.txt "
        "was in server error, so Googlebot would not crawl it now).</p></div>"
    )


def _summary(data: dict[str, Any], words: _Words) -> str:
    totals = data.get("totals", {})
    by_state = data.get("origins_by_state", {})
    cards = [
        ("origins", totals.get("origins", 0), ""),
        ("requests checked", totals.get("checked", 0), ""),
        ("allowed", totals.get("allowed", 0), "allowed"),
        (words.forbidden, totals.get("forbidden", 0), "forbidden"),
    ]
    if words.observe or "would_stop" in totals:
        cards.append(("would be stopped (server error)", totals.get("would_stop", 0), "stopped"))
    cards += [
        ("dropped", totals.get("dropped", 0), "dropped"),
        ("parked first", totals.get("parked", 0), "parked"),
        ("deciding rules", totals.get("rules", 0), ""),
    ]
    out = ['<section id="summary"><h2>Summary</h2><div class="cards">']
    for label, value, cls in cards:
        out.append(
            f'<div class="card {cls}"><div class="n">{_n(value)}</div>'
            f'<div class="l">{esc(label)}</div></div>'
        )
    out.append("</div>")
    rows = [
        [_state(kind), _n(by_state.get(kind, 0))]
        for kind in STATE_LABELS
        if by_state.get(kind, 0) or kind != "unknown"
    ]
    out.append(_table([("origins by robots.txt state", ""), ("origins", "num")], rows))
    if words.observe:
        out.append(
            '<p class="muted">Every checked request was let through: Googlebot would have '
            "allowed it, forbidden it, or not crawled its origin yet (server error); a parked "
            "request waited while its origin's robots.txt was undecided, then was checked or "
            "dropped.</p>"
        )
    else:
        out.append(
            '<p class="muted">Every checked request was allowed or forbidden; a parked request '
            "waited while its origin's robots.txt was undecided, then was checked or dropped.</p>"
        )
    out.append("</section>")
    return "".join(out)


def _rule_cell(r: dict[str, Any], uses: Sequence[str]) -> str:
    cell = f"<code>{esc(r['rule']) or '(no rule)'}</code>"
    if r.get("by") == "usage" or is_usage_directive(r.get("directive")):
        named = f" (GBOT_ROBOTS_USAGE: {esc(', '.join(uses))})" if uses else ""
        cell += f'<div class="muted">forbidden by a content-usage signal{named}</div>'
    return cell


def _rules(data: dict[str, Any], words: _Words) -> str:
    rules: list[dict[str, Any]] = data.get("rules", [])
    folded = data.get("folded", {})
    would = " would have" if words.observe else ""
    out = [f'<section id="rules"><h2>The rules that{would} blocked the most requests</h2>']
    if not rules:
        none = "would have been" if words.observe else "was"
        out.append(f"<p>No request {none} forbidden by robots.txt.</p></section>")
        return "".join(out)
    bars = [
        (
            f"#{r['rank']} {r['rule']}  ({_host(r['origin'])} line {r['line']})",
            [(int(r["forbidden"]), "bar-forbidden")],
            f"{r['origin']} line {r['line']}: {r['rule']}: {r['forbidden']:,} {words.forbidden}",
        )
        for r in rules[:CHART_BARS]
    ]
    if words.observe:
        title = f"Requests that would have been forbidden, per rule (top {len(bars)})"
    else:
        title = f"Requests forbidden per rule (top {len(bars)})"
    out.append(bar_chart(bars, title))
    uses = [str(u) for u in (data.get("crawl", {}).get("uses") or ())]
    rows = []
    for r in rules[:HTML_ROWS]:
        examples = "".join(f"<li><code>{_url(u)}</code></li>" for u in r.get("examples", []))
        rows.append(
            [
                _n(r["rank"]),
                _n(r["forbidden"]),
                _rule_cell(r, uses),
                f"<code>{_url(r['origin'])}</code>",
                _n(r["line"]),
                esc(group_label(r.get("group"), r.get("token"))),
                f'<ul class="plain">{examples}</ul>' if examples else "",
            ]
        )
    if words.observe:
        caption = (
            "Ranked by requests each rule would have forbidden (observe mode: they were let "
            "through)."
        )
    else:
        caption = "Ranked by requests forbidden."
    caption += (
        " Group: whose group was in force, the crawler's token (its own group, which hides *) "
        "or the * group."
    )
    if len(rules) > HTML_ROWS:
        caption += f" The first {HTML_ROWS:,} of {len(rules):,}; the JSON report has them all."
    out.append(
        _table(
            [
                ("#", "num"),
                (words.column, "num"),
                ("rule", "rule"),
                ("origin", "url"),
                ("line", "num"),
                ("group", ""),
                ("example URLs", "url"),
            ],
            rows,
            caption,
        )
    )
    if folded.get("rules"):
        other = folded.get("other_rules", {})
        out.append(
            f'<p class="muted">{_n(folded["rules"])} less frequent rules were folded into '
            f"&ldquo;other&rdquo; (they {words.forbade} {_n(other.get('forbidden', 0))} "
            f"requests): the report keeps at most "
            f"{_n(data.get('limits', {}).get('max_rules'))}.</p>"
        )
    out.append("</section>")
    return "".join(out)


def _host(origin: str) -> str:
    return origin.split("://", 1)[-1]


def _chain(chain: Sequence[dict[str, Any]]) -> str:
    items = []
    for hop in chain:
        result = hop.get("status") if hop.get("status") is not None else hop.get("error")
        items.append(f"<li><code>{_url(hop.get('url'))}</code> &rarr; <b>{esc(result)}</b></li>")
    return f'<ul class="plain">{"".join(items)}</ul>' if items else ""


def _lint_cell(lint: dict[str, Any] | None) -> str:
    if not lint:
        return '<span class="muted">&ndash;</span>'
    counts = lint.get("counts", {})
    badges = " ".join(
        f'<span class="badge {sev}">{_n(counts.get(sev, 0))} {sev}</span>'
        for sev in ("error", "warning", "info")
        if counts.get(sev)
    )
    if not badges:
        return '<span class="muted">no findings</span>'
    codes = ", ".join(
        f"{esc(f['code'])}&nbsp;{esc(f['name'])}&times;{_n(f['count'])}"
        for f in lint.get("findings", [])
    )
    return f'{badges}<div class="muted">{codes}</div>'


def _usage_cell(usage: Any) -> str:
    """The content-usage statements of the group in force, one per line, with the group."""
    statements = usage_statements(usage)
    if not statements:
        return '<span class="muted">&ndash;</span>'
    items = "".join(
        f"<li>line {_n(line)}: <code>{esc(text)}</code></li>" for line, text, _ in statements
    )
    group = usage.get("group") if isinstance(usage, dict) else ""
    count = usage.get("count", 0) if isinstance(usage, dict) else 0
    shown = sum(1 for _ in usage.get("preferences", ())) if isinstance(usage, dict) else 0
    more = f'<div class="muted">{_n(count - shown)} more preferences</div>' if count > shown else ""
    return (
        f'<div class="muted">group {esc(group or "(none)")}</div>'
        f'<ul class="plain">{items}</ul>{more}'
    )


def _origins(data: dict[str, Any], words: _Words) -> str:
    origins: list[dict[str, Any]] = data.get("origins", [])
    folded = data.get("folded", {})
    out = ['<section id="origins"><h2>Origins</h2>']
    if not origins:
        out.append("<p>No origin was seen.</p></section>")
        return "".join(out)
    stops = words.observe or "would_stop" in data.get("totals", {})
    bars = []
    for o in origins[:CHART_BARS]:
        req = o.get("requests", {})
        stopped = f"{req.get('would_stop', 0):,} would be stopped, " if stops else ""
        bars.append(
            (
                _host(o["origin"]),
                [
                    (int(req.get("forbidden", 0)), "bar-forbidden"),
                    (int(req.get("would_stop", 0)), "bar-stopped"),
                    (int(req.get("dropped", 0)), "bar-dropped"),
                    (int(req.get("allowed", 0)), "bar-allowed"),
                ],
                f"{o['origin']}: {req.get('allowed', 0):,} allowed, "
                f"{req.get('forbidden', 0):,} {words.forbidden}, {stopped}"
                f"{req.get('dropped', 0):,} dropped",
            )
        )
    out.append(bar_chart(bars, f"Requests per origin (top {len(bars)})"))
    legend = [(words.column, "forbidden")]
    if stops:
        legend.append(("would stop (server error)", "stopped"))
    legend += [("dropped", "dropped"), ("allowed", "allowed")]
    out.append(_legend(legend))
    shown = origins[:HTML_ROWS]
    delays = any(o.get("crawl_delay") for o in shown)
    backoffs = any(backoff_text(o.get("backoff")) for o in shown)
    usages = any(usage_statements(o.get("usage")) for o in shown)
    facts = any(has_facts(o) for o in shown)
    rows = []
    for o in shown:
        req = o.get("requests", {})
        size = "" if o.get("bytes") is None else f"{o['bytes']:,}&nbsp;B"
        if o.get("truncated"):
            size += ' <span class="badge error">truncated</span>'
        when = ""
        if o.get("fetched_at"):
            until = _time(o.get("refresh_at") or "never")
            when = f'{_time(o["fetched_at"])}<br><span class="muted">until {until}</span>'
        fetches = o.get("fetches", 0) + o.get("from_store", 0)
        if fetches > 1:
            errors = o.get("server_errors", 0)
            of_which = f", {errors:,} server error{'s' if errors != 1 else ''}" if errors else ""
            when += f'<br><span class="muted">{fetches:,} states this crawl{of_which}</span>'
        reasons = o.get("drop_reasons") or {}
        dropped = _n(req.get("dropped", 0))
        if reasons:
            dropped += (
                '<div class="muted">'
                + "<br>".join(f"{esc(k)}: {_n(v)}" for k, v in reasons.items())
                + "</div>"
            )
        row = [
            f"<code>{_url(o['origin'])}</code>",
            f'{_state(o.get("state", "unknown"))}<div class="muted">{esc(o.get("summary"))}</div>',
            _chain(o.get("chain", [])),
            size,
            when,
            _lint_cell(o.get("lint")),
        ]
        if delays:
            delay = esc(delay_text(o.get("crawl_delay")))
            row.append(delay or '<span class="muted">&ndash;</span>')
        if backoffs:
            row.append(esc(backoff_text(o.get("backoff"))) or '<span class="muted">&ndash;</span>')
        if usages:
            row.append(_usage_cell(o.get("usage")))
        if facts:
            row.append(facts_cell(o))
        row += [_n(req.get("allowed", 0)), _n(req.get("forbidden", 0))]
        if stops:
            row.append(_n(req.get("would_stop", 0)))
        row += [_n(req.get("parked", 0)), dropped]
        rows.append(row)
    order = f"{words.column} + would stop" if stops else "forbidden"
    order += " + dropped + parked"
    caption = (
        f"Ordered by requests {words.held} ({order}), then by requests. "
        "Times are UTC; &ldquo;until&rdquo; is when robots.txt is fetched again."
    )
    if delays:
        caption += (
            " Crawl-delay (GBOT_ROBOTS_CRAWL_DELAY): what the group in force asks, and the "
            "floor the origin's download slot got."
        )
    if backoffs:
        caption += (
            " Back-off (GBOT_ROBOTS_BACKOFF): times the origin asked to slow down (429, 5xx), "
            "for how long in all and at most, and the requests that waited."
        )
    if usages:
        caption += (
            " Content usage: the Content-Signal and Content-Usage lines of the group in force "
            "for the crawl's token(s) (not part of Google's semantics)."
        )
    if facts:
        caption += (
            " AI crawlers: those of ai.robots.txt's list the file keeps out of / (gbot-robots "
            "agents), and its RSL License: lines."
        )
    if len(origins) > HTML_ROWS:
        caption += f" The first {HTML_ROWS:,} of {len(origins):,}; the JSON report has them all."
    headers = [
        ("origin", "origin"),
        ("state", ""),
        ("robots.txt fetch (status chain)", "chain"),
        ("size", "num"),
        ("fetched", ""),
        ("lint", ""),
    ]
    if delays:
        headers.append(("crawl-delay", ""))
    if backoffs:
        headers.append(("back-off", ""))
    if usages:
        headers.append(("content usage", "rule"))
    if facts:
        headers.append(("AI crawlers, licence", "rule"))
    headers += [("allowed", "num"), (words.column, "num")]
    if stops:
        headers.append(("would stop", "num"))
    headers += [("parked", "num"), ("dropped", "num")]
    out.append(_table(headers, rows, caption))
    if folded.get("origins"):
        other = folded.get("other_origins", {})
        stopped = f"{_n(other.get('would_stop', 0))} would be stopped, " if stops else ""
        out.append(
            f'<p class="muted">{_n(folded["origins"])} less eventful origins were folded into '
            f"&ldquo;other&rdquo; ({_n(other.get('allowed', 0))} allowed, "
            f"{_n(other.get('forbidden', 0))} {words.forbidden}, {stopped}"
            f"{_n(other.get('parked', 0))} parked, "
            f"{_n(other.get('dropped', 0))} dropped): the report keeps at most "
            f"{_n(data.get('limits', {}).get('max_origins'))}.</p>"
        )
    out.append("</section>")
    return "".join(out)


def _crawl(data: dict[str, Any]) -> str:
    crawl = data.get("crawl", {})
    stats = crawl.get("stats", {}) or {}
    out = ['<section id="crawl"><h2>The crawl</h2>']
    facts = [
        ("spider", crawl.get("spider")),
        ("mode", crawl.get("mode")),
        ("token(s) obeyed", tokens_text(crawl)),
        ("the * group applies", crawl.get("global_group")),
        ("uses of content (GBOT_ROBOTS_USAGE)", ", ".join(map(str, crawl.get("uses") or ()))),
        ("started", crawl.get("start_time")),
        ("finish reason", crawl.get("finish_reason")),
    ]
    facts = [(k, v) for k, v in facts if v not in (None, "") or k == "spider"]
    for key, value in sorted((crawl.get("settings") or {}).items()):
        facts.append((f"setting: {key}", value))
    for key, value in sorted((data.get("limits") or {}).items()):
        facts.append((f"report limit: {key}", value))
    out.append(_table([("", ""), ("", "")], [[esc(k), _n(v)] for k, v in facts]))
    if stats:
        out.append("<details><summary>robotstxt/* stats</summary>")
        out.append(
            _table(
                [("stat", "mono"), ("value", "num")],
                [[esc(k), _n(v)] for k, v in sorted(stats.items())],
            )
        )
        out.append("</details>")
    out.append("</section>")
    return "".join(out)


def _conformed(data: Any) -> dict[str, Any]:
    """The report as :func:`.schema.conform` leaves it, checked only where the page reads.

    The page shows the first ``HTML_ROWS`` rules and origins and counts the rest: only those
    are checked (a full report's 10,000 origins would cost the page several times its own
    rendering), the others are carried as they are, for their number.
    """
    if not isinstance(data, dict):
        return conform(data)
    rows = {
        name: data[name]
        for name in ("rules", "origins")
        if isinstance(data.get(name), list) and len(data[name]) > HTML_ROWS
    }
    out = conform({**data, **{name: rows[name][:HTML_ROWS] for name in rows}})
    for name, every in rows.items():
        out[name] = out[name] + every[HTML_ROWS:]  # never read: only len() is
    return out


def render(data: dict[str, Any]) -> str:
    """The whole page, from the JSON report (fields of the wrong type are left out)."""
    data = _conformed(upgraded(data))
    crawl = data.get("crawl", {})
    words = _Words(observed(data))
    title = f"robots.txt report: {crawl.get('spider', '')}"
    if words.observe:
        title += " (observe mode)"
    mode = " &middot; <b>observe mode</b>" if words.observe else ""
    meta = (
        f"spider <b>{esc(crawl.get('spider'))}</b>{mode} &middot; token "
        f"<b>{esc(tokens_text(crawl))}</b> &middot; finish reason "
        f"<b>{esc(crawl.get('finish_reason'))}</b> &middot; report generated "
        f"{esc(data.get('generated_at'))} &middot; schema <code>{esc(data.get('schema'))}</code>"
    )
    heading = (
        "What robots.txt would have done to the crawl"
        if words.observe
        else "What robots.txt did to the crawl"
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{heading}</h1>",
        f'<p class="meta">{meta}</p>',
        _observe_banner(data) if words.observe else "",
        '<p class="meta"><a href="#rules">rules</a> &middot; <a href="#origins">origins</a> '
        '&middot; <a href="#pages">page rules</a> &middot; <a href="#crawl">crawl</a></p>'
        "</header>",
        _summary(data, words),
        _rules(data, words),
        _origins(data, words),
        _pages(data),
        _crawl(data),
        "<footer>Written by scrapy-gbot-robots (GoogleRobotsTxtMiddleware, "
        "GBOT_ROBOTS_REPORT). Verdicts are Google's robots.txt matching; see docs/report.md."
        "</footer></body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"
