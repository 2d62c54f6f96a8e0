"""A page's rules for one crawler: :class:`PageRules`, read from its headers and its head.

Which rules apply (Google's page, "Robots meta tag, data-nosnippet, and X-Robots-Tag
specifications"):

* ``<meta name="robots">`` applies to every crawler; ``<meta name="TOKEN">`` to the crawler
  with that token only. ``X-Robots-Tag: rules`` applies to every crawler,
  ``X-Robots-Tag: TOKEN: rules`` to that crawler only.
* **A crawler with several tokens** (``("Googlebot-Image", "Googlebot")``, most specific
  first) reads the rules addressed to **each** of them. Google's page says ``googlebot``
  applies to all text results and ``googlebot-news`` to news results, so a news crawler
  obeys both; robots.txt's "first token with a group" has no counterpart here, since the
  page's conflict rule below already decides between sources. A request's own token
  (``meta["gbot_robots_token"]``) replaces the crawler's, as for robots.txt.
* **Conflicts**: rules from every source that applies combine, and the most restrictive wins
  ("In the case of conflicting robots rules, the more restrictive rule applies"): any
  ``noindex`` beats ``all``/``index``; the smallest ``max-snippet`` and ``max-video-preview``
  win (``-1``, no limit, is the largest); ``none`` < ``standard`` < ``large`` for
  ``max-image-preview``; the earliest ``unavailable_after``. ``none`` is ``noindex,
  nofollow``. ``indexifembedded`` holds when any source says it (it only has an effect with
  ``noindex``). Fields are kept apart as written: ``nosnippet`` with ``max-snippet: 50``
  keeps both, and Google's "nosnippet wins" is :attr:`PageRules.snippet_limit`.
* Rules Google does not define, and rules with a value Google would not read (an unknown
  date, ``max-snippet: lots``), are kept as written in :attr:`PageRules.other` and change
  nothing.

Sources are named ``meta:robots``, ``meta:TOKEN``, ``header``, ``header:TOKEN`` (lower case).

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from .directives import IMAGE_PREVIEWS, Directive, split_rules, user_agent_prefix
from .head import read_metas

__all__ = ["NO_RULES", "PageRules", "read_page_rules"]

#: ``X-Robots-Tag`` values read, at most: those addressed to this crawler or to every
#: crawler (a value for other crawlers only is skipped without being read, and does not
#: count), and characters read of each.
MAX_HEADERS = 32
HEADER_CHARS = 4_096
#: ``X-Robots-Tag`` values looked at, at most, whoever they address.
MAX_HEADER_LINES = 1_000
#: Characters of ``X-Robots-Tag`` values read, at most (what the 32 values cost at most
#: before 0.3.0): values of unknown rules only are read but not counted in ``MAX_HEADERS``,
#: and this bounds them.
HEADER_BUDGET = MAX_HEADERS * HEADER_CHARS
#: Rules kept as written (``other``), at most, per page.
MAX_OTHER = 32
#: Meta tags read, at most, per page (those addressed to this crawler or to every crawler:
#: another crawler's are never read, so they cannot push these out).
MAX_METAS = 32

#: The bounds a page can reach (:attr:`PageRules.capped`): what past them was not read.
CAP_HEADERS = "headers"  # more X-Robots-Tag values, or a longer one, than read
CAP_HEAD = "head"  # more robots meta tags, or a longer head, than read
CAP_OTHER = "other"  # more rules Google does not read than kept

#: The boolean rules, in the order the JSON and the CLI show them.
FLAG_FIELDS = (
    "noindex",
    "nofollow",
    "nosnippet",
    "noimageindex",
    "notranslate",
    "indexifembedded",
)
#: Every rule name :attr:`PageRules.sources` may hold, in display order.
RULE_NAMES = (
    *FLAG_FIELDS,
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "unavailable_after",
    "all",
    "index",
    "follow",
)


@dataclass(frozen=True, slots=True)
class PageRules:
    """The page-level rules in force for one crawler on one page (see the module doc).

    ``sources`` maps each rule present to the sources that said it (for a value, those that
    said the winning value), as pairs in :data:`RULE_NAMES` order; ``other`` holds
    (rule as written, source) for what changed nothing.
    """

    noindex: bool = False
    nofollow: bool = False
    nosnippet: bool = False
    noimageindex: bool = False
    notranslate: bool = False
    indexifembedded: bool = False
    max_snippet: int | None = None  # -1: no limit
    max_image_preview: str | None = None  # "none", "standard" or "large"
    max_video_preview: int | None = None  # -1: no limit
    unavailable_after: datetime | None = None  # aware, UTC
    sources: tuple[tuple[str, tuple[str, ...]], ...] = ()
    other: tuple[tuple[str, str], ...] = ()
    #: The bounds the page reached (``CAP_*``): a rule past one was not read.
    capped: tuple[str, ...] = ()

    def source(self, rule: str) -> tuple[str, ...]:
        """Where ``rule`` (``"noindex"``, ``"max-snippet"``...) came from; () when absent."""
        for name, where in self.sources:
            if name == rule:
                return where
        return ()

    @property
    def empty(self) -> bool:
        """No rule at all, known or not: the page said nothing to this crawler."""
        return not self.sources and not self.other

    @property
    def follow(self) -> bool:
        """Whether the page's links may be followed (no ``nofollow``, no ``none``)."""
        return not self.nofollow

    @property
    def snippet_limit(self) -> int | None:
        """The text snippet Google may show, in characters: 0 with ``nosnippet`` (which wins
        over ``max-snippet``), else ``max-snippet`` (-1: no limit), None when unsaid."""
        return 0 if self.nosnippet else self.max_snippet

    def expired(self, now: float | datetime) -> bool:
        """Whether ``unavailable_after`` has passed at ``now`` (seconds, or a datetime)."""
        if self.unavailable_after is None:
            return False
        return _as_datetime(now) >= self.unavailable_after

    def indexable(self, now: float | datetime) -> bool:
        """Whether the page may be indexed at ``now``: no ``noindex``, and not past its
        ``unavailable_after`` date (then it is a ``noindex``)."""
        return not self.noindex and not self.expired(now)

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``response.meta`` users, feeds, the report, ``--json``)."""
        after = self.unavailable_after
        return {
            **{name: getattr(self, name) for name in FLAG_FIELDS},
            "max_snippet": self.max_snippet,
            "max_image_preview": self.max_image_preview,
            "max_video_preview": self.max_video_preview,
            "unavailable_after": (
                None if after is None else after.isoformat().replace("+00:00", "Z")
            ),
            "sources": {name: list(where) for name, where in self.sources},
            "other": [{"rule": text, "source": where} for text, where in self.other],
            "capped": list(self.capped),
        }


#: A page that says nothing (no header, no meta tag for this crawler).
NO_RULES = PageRules()


def _as_datetime(now: float | datetime) -> datetime:
    if isinstance(now, datetime):
        return now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    return datetime.fromtimestamp(now, timezone.utc)


#: Token sets remembered (a crawl has one or a few): (tokens, meta names to read).
_TOKEN_MEMO: dict[str | tuple[str, ...], tuple[frozenset[str], frozenset[str]]] = {}
TOKEN_MEMO = 256


def _tokens(tokens: str | Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The crawler's tokens, lower-cased, and the meta names that address it (``robots``
    too); memoised, since every page of a crawl asks with the same few token sets."""
    key = tokens if isinstance(tokens, str) else tuple(tokens)
    found = _TOKEN_MEMO.get(key)
    if found is None:
        values = (key,) if isinstance(key, str) else key
        wanted = frozenset(t.strip().lower() for t in values if t and t.strip())
        found = (wanted, wanted | {"robots"})
        if len(_TOKEN_MEMO) >= TOKEN_MEMO:
            _TOKEN_MEMO.clear()
        _TOKEN_MEMO[key] = found
    return found


def _header_text(value: bytes | str) -> str:
    if isinstance(value, bytes):
        return value[:HEADER_CHARS].decode("latin-1")
    return value[:HEADER_CHARS]


class _Combined:
    """The rules of every applicable source, folded into the most restrictive (mutable)."""

    __slots__ = ("capped", "dates", "flags", "numbers", "other", "previews")

    def __init__(self) -> None:
        self.flags: dict[str, list[str]] = {}
        self.numbers: dict[str, dict[int, list[str]]] = {}
        self.previews: dict[str, list[str]] = {}
        self.dates: dict[datetime, list[str]] = {}
        self.other: list[tuple[str, str]] = []
        self.capped: tuple[str, ...] = ()

    def cap(self, bound: str) -> None:
        if bound not in self.capped:
            self.capped = (*self.capped, bound)

    def add(self, directive: Directive, source: str) -> None:
        name = directive.name
        if not name:
            if len(self.other) < MAX_OTHER:
                self.other.append((directive.text, source))
            else:
                self.cap(CAP_OTHER)
        elif name == "none":
            _note(self.flags.setdefault("noindex", []), source)
            _note(self.flags.setdefault("nofollow", []), source)
        elif directive.number is not None:
            _note(self.numbers.setdefault(name, {}).setdefault(directive.number, []), source)
        elif directive.setting is not None:
            _note(self.previews.setdefault(directive.setting, []), source)
        elif directive.date is not None:
            _note(self.dates.setdefault(directive.date, []), source)
        else:
            _note(self.flags.setdefault(name, []), source)

    def rules(self) -> PageRules:
        sources: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in self.flags.items()}
        numbers: dict[str, int] = {}
        for name, by_value in self.numbers.items():
            # -1 is "no limit": the least restrictive value, whatever its sign.
            value = min(by_value, key=lambda n: float("inf") if n == -1 else n)
            numbers[name] = value
            sources[name] = tuple(by_value[value])
        preview = None
        if self.previews:
            preview = min(self.previews, key=IMAGE_PREVIEWS.index)
            sources["max-image-preview"] = tuple(self.previews[preview])
        date = None
        if self.dates:
            date = min(self.dates)
            sources["unavailable_after"] = tuple(self.dates[date])
        flags = self.flags
        # Positional, in PageRules' field order (FLAG_FIELDS is that order): once per page,
        # and keyword arguments built from a dict cost a third of this method.
        return PageRules(
            "noindex" in flags,
            "nofollow" in flags,
            "nosnippet" in flags,
            "noimageindex" in flags,
            "notranslate" in flags,
            "indexifembedded" in flags,
            numbers.get("max-snippet"),
            preview,
            numbers.get("max-video-preview"),
            date,
            tuple([(n, sources[n]) for n in RULE_NAMES if n in sources]),
            tuple(self.other),
            self.capped,
        )


def _note(where: list[str], source: str) -> None:
    if source not in where:
        where.append(source)


def read_page_rules(
    tokens: str | Sequence[str],
    headers: Iterable[bytes | str] = (),
    body: bytes | None = None,
) -> PageRules:
    """The rules a page sets for the crawler with ``tokens``.

    ``headers``: the response's ``X-Robots-Tag`` values (each header line one value, as
    ``response.headers.getlist(b"X-Robots-Tag")`` gives them). ``body``: an HTML page's
    body, whose head is read for meta tags (:mod:`.head`); None for anything that is not
    HTML (a PDF, an image), whose rules only a header can give. Never raises.
    """
    wanted, names = _tokens(tokens)
    combined: _Combined | None = None
    capped: tuple[str, ...] = ()
    if headers:
        combined, capped = _read_headers(headers, wanted)
    if body:
        metas, cut = read_metas(body, names, MAX_METAS)
        if cut:
            capped = (*capped, CAP_HEAD)
        for name, content in metas:
            source = f"meta:{name}"
            for _, directive in split_rules(content):
                combined = combined or _Combined()
                combined.add(directive, source)
    if combined is None:
        return PageRules(capped=capped) if capped else NO_RULES
    for bound in capped:
        combined.cap(bound)
    return combined.rules()


def _read_headers(
    headers: Iterable[bytes | str], wanted: frozenset[str]
) -> tuple[_Combined | None, tuple[str, ...]]:
    """The ``X-Robots-Tag`` values' rules for ``wanted``, and ``(CAP_HEADERS,)`` when a bound
    stopped the reading (see the bounds above)."""
    combined: _Combined | None = None
    capped = False
    read = 0
    budget = HEADER_BUDGET
    for n, value in enumerate(headers):
        if n >= MAX_HEADER_LINES or read >= MAX_HEADERS or budget <= 0:
            capped = True
            break
        text = _header_text(value)
        capped = capped or len(text) < len(value)  # a value past HEADER_CHARS
        if ":" in text and _for_others_only(text, wanted):
            continue  # not read, not counted: another crawler's line pushes out nothing
        budget -= len(text)
        applied = False
        for agent, directive in split_rules(text, agents=True):
            if agent is None:
                source = "header"
            elif agent in wanted:
                source = f"header:{agent}"
            else:
                continue  # addressed to another crawler
            combined = combined or _Combined()
            combined.add(directive, source)
            if directive.name:
                applied = True
        read += applied  # a line of unknown rules only is kept in `other`, and pushes nothing
    return combined, (CAP_HEADERS,) if capped else ()


def _for_others_only(text: str, wanted: frozenset[str]) -> bool:
    """Whether an ``X-Robots-Tag`` value addresses other crawlers only, told without reading
    it: it starts with another crawler's ``NAME:`` (a user agent holds until the next one,
    so nothing after it is for every crawler) and names none of this crawler's tokens."""
    prefixed = user_agent_prefix(text.partition(",")[0])
    if prefixed is None or prefixed[0] in wanted:
        return False
    lowered = text.lower()
    return not any(token in lowered for token in wanted)
