"""The report page's section on page-level rules (robots meta tags and ``X-Robots-Tag``).

A function of the JSON report (``page_rules`` and each origin's ``pages``), like the rest of
the page; everything from the crawl goes through :func:`~.markup.esc`. Its own module so the
page's main module stays small. Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .markup import esc, table, url
from .markup import number as n

#: Rows of the section's table; the JSON report has every kept origin.
ROWS = 1000

#: What each kind of page is called in the section's headings and cells.
_KINDS = (
    ("disallowed_noindex", "disallowed by robots.txt, with noindex"),
    ("noindex", "noindex"),
    ("nofollow", "nofollow"),
)


def _examples(urls: Sequence[Any]) -> str:
    if not urls:
        return ""
    items = "".join(f"<li><code>{url(u)}</code></li>" for u in urls)
    return f'<ul class="plain">{items}</ul>'


def _count(pages: dict[str, Any], kind: str) -> str:
    cell = n(pages.get(kind, 0))
    return cell + _examples((pages.get("examples") or {}).get(kind) or ())


def _sources(pages: dict[str, Any]) -> str:
    """Each rule with its sources and their page counts, one line per rule."""
    lines = []
    for rule, counts in (pages.get("sources") or {}).items():
        if not isinstance(counts, dict):
            continue
        said = ", ".join(f"<code>{esc(src)}</code>&nbsp;&times;{n(c)}" for src, c in counts.items())
        lines.append(f"<li><b>{esc(rule)}</b>: {said}</li>")
    if not lines:
        return '<span class="muted">&ndash;</span>'
    return f'<ul class="plain">{"".join(lines)}</ul>'


def _rank(origin: dict[str, Any]) -> tuple[int, int, int]:
    pages = origin.get("pages") or {}
    return (
        -int(pages.get("disallowed_noindex", 0)),
        -int(pages.get("noindex", 0)) - int(pages.get("nofollow", 0)),
        -int(pages.get("read", 0)),
    )


def _finding(count: int) -> str:
    return (
        '<div class="banner" id="disallowed-noindex"><p><b>'
        f"{n(count)} page{'s' if count != 1 else ''} disallowed by robots.txt "
        f"carr{'ies' if count == 1 else 'y'} a noindex."
        "</b> Googlebot does not fetch a disallowed page, so it never reads its "
        "<code>noindex</code>; the URL can still be indexed from links to it, without its "
        "content. To keep such a page out of Google's index, let Googlebot fetch it (remove "
        "the disallow rule) so that it sees the <code>noindex</code>. This crawl saw them "
        "because observe mode fetches disallowed pages.</p></div>"
    )


def section(data: dict[str, Any]) -> str:
    """The ``#pages`` section: totals, the audit finding, and a row per origin."""
    totals = data.get("page_rules") or {}
    level = totals.get("level", "off")
    out = ['<section id="pages"><h2>Page-level rules: robots meta tags and X-Robots-Tag</h2>']
    if not totals.get("read"):
        if level == "off":
            out.append(
                '<p class="muted">Not read in this crawl (<code>GBOT_ROBOTS_PAGE_RULES = '
                "&quot;off&quot;</code>): set it to <code>&quot;read&quot;</code> or "
                "<code>&quot;obey&quot;</code>, or crawl in observe mode, to see what each "
                "page's robots meta tags and X-Robots-Tag headers say.</p>"
            )
        else:
            out.append("<p>No page was read.</p>")
        out.append("</section>")
        return "".join(out)
    cards = [
        ("pages read", totals.get("read", 0), ""),
        ("noindex (or past unavailable_after)", totals.get("noindex", 0), "forbidden"),
        ("nofollow", totals.get("nofollow", 0), "dropped"),
        ("disallowed by robots.txt, with noindex", totals.get("disallowed_noindex", 0), "stopped"),
    ]
    if level == "obey" or totals.get("dropped_nofollow"):
        cards.append(("requests dropped (nofollow)", totals.get("dropped_nofollow", 0), "dropped"))
    out.append('<div class="cards">')
    for label, value, cls in cards:
        out.append(
            f'<div class="card {cls}"><div class="n">{n(value)}</div>'
            f'<div class="l">{esc(label)}</div></div>'
        )
    out.append("</div>")
    if totals.get("disallowed_noindex"):
        out.append(_finding(int(totals["disallowed_noindex"])))
    origins = sorted(
        (o for o in data.get("origins", []) if (o.get("pages") or {}).get("read")),
        key=lambda o: (_rank(o), str(o.get("origin"))),
    )
    rows = []
    for o in origins[:ROWS]:
        pages = o["pages"]
        rows.append(
            [
                f"<code>{url(o.get('origin'))}</code>",
                n(pages.get("read", 0)),
                *(_count(pages, kind) for kind, _ in _KINDS),
                n(pages.get("dropped_nofollow", 0)),
                _sources(pages),
            ]
        )
    caption = (
        "Pages per origin, counted once each: noindex means not indexable when read "
        "(noindex, none, or past unavailable_after); sources say where each rule came from "
        "(meta:robots, meta:&lt;token&gt;, header, header:&lt;token&gt;), in pages."
    )
    if len(origins) > ROWS:
        caption += f" The first {ROWS:,} of {len(origins):,}; the JSON report has them all."
    headers = [
        ("origin", "origin"),
        ("pages read", "num"),
        *((label, "url") for _, label in _KINDS),
        ("dropped (nofollow)", "num"),
        ("sources", "rule"),
    ]
    out.append(table(headers, rows, caption))
    other = ((data.get("folded") or {}).get("other_origins") or {}).get("pages") or {}
    if other.get("read"):
        out.append(
            f'<p class="muted">The folded origins\' pages: {n(other.get("read", 0))} read, '
            f"{n(other.get('noindex', 0))} noindex, {n(other.get('nofollow', 0))} nofollow, "
            f"{n(other.get('disallowed_noindex', 0))} disallowed with noindex.</p>"
        )
    out.append("</section>")
    return "".join(out)
