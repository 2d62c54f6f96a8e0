"""Content-usage statements in robots.txt: how fetched content may be *used*, not where to go.

Two conventions put such statements inside user-agent groups, and Google's matcher ignores
both (they never change a crawl verdict):

* ``Content-Signal: search=yes, ai-input=no, ai-train=no``, Cloudflare's vendor convention
  (contentsignals.org, September 2025): signals ``search``, ``ai-input`` and ``ai-train``,
  values ``yes`` and ``no``, an omitted signal grants and restricts nothing.
* ``Content-Usage: [PATH] train-ai=n``, the rule of the IETF AI Preferences working group's
  draft-ietf-aipref-attach (-05, 2026-08-18), whose value is a Structured Field Dictionary
  (RFC 9651) in the vocabulary of draft-ietf-aipref-vocab (-08, 2026-09-13): two categories,
  ``train-ai`` and ``search``, not nested; values the tokens ``y`` and ``n``.  A label the
  vocabulary does not define states nothing (:data:`RETIRED` names the earlier drafts'
  ``all`` and ``train-genai``, which -05 and later no longer define).

This module parses one statement (the value of one line) and answers questions about the
statements of a group; which group, and which lines, is the rules' business
(:mod:`.rules`, the same group walk and group selection as the verdicts).  Pure Python.

Design choices (docs/cli.md says the same to users):

* **Path form.**  The attach draft lets a Content-Usage value start with a path (a value that
  starts with ``/``; the path ends at the first space or tab).  Its preferences apply to the
  paths it matches "using the same path prefix matching rules as defined for Allow and
  Disallow": Google's matching and priority (the byte length of the %-normalised pattern,
  ``*`` and ``$`` included), longest match wins.  A statement without a path applies to every
  path, like ``/`` (the draft's own example changed from ``/ train-ai=n`` to ``train-ai=n``
  between revisions).  Statements whose paths tie are all in force and combined, most
  restrictive first (the vocabulary's combination rule, which the draft names for identical
  paths).  The same form is accepted for Content-Signal (crawler-commons documents it).
* **Two mechanisms, one question.**  Each mechanism selects its own statements for a path;
  the crawl's question "may I use this for X?" is then asked of every statement in force,
  and any "no" wins (the vocabulary's combination rule for several statements).
* **Equivalences** (:data:`USES`): ``ai-train`` (Cloudflare: "training or fine-tuning AI
  models") and ``train-ai`` (IETF) name the same use, and so do the two ``search`` signals
  (Cloudflare's own IETF proposal, draft-romm-aipref-contentsignals, says its Search
  definition "may be replaced with" the vocabulary's).  The IETF vocabulary names no
  ``ai-input``; it is asked of Content-Signal only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from .lines import escape_pattern
from .path_match import wildcard_match
from .structured_fields import StructuredFieldError, Token, parse_dictionary

Mechanism = Literal["content-usage", "content-signal"]
CONTENT_USAGE: Final = "content-usage"
CONTENT_SIGNAL: Final = "content-signal"
#: The robots.txt keys, lower-cased, and the mechanism each one is.
KEYS: Final[Mapping[bytes, Mechanism]] = {
    b"content-usage": CONTENT_USAGE,
    b"content-signal": CONTENT_SIGNAL,
}

#: IETF categories (draft-ietf-aipref-vocab-08, 2026-09-13, and the editor's copy of
#: 2026-08-19): each is decided by an explicit preference for it, else unknown (no nesting).
VOCAB: Final = frozenset({"train-ai", "search"})
#: Labels of earlier revisions that the current vocabulary no longer defines: they state
#: nothing (the vocabulary's rule for unknown labels), and ``GBOT_ROBOTS_USAGE`` refuses them.
RETIRED: Final[Mapping[str, str]] = {
    "all": "automated processing, in the vocabulary until -04 (2025); gone from -05",
    "train-genai": "generative AI training, in the vocabulary until -04 (2025); gone from -05",
}
#: Cloudflare's content signals (contentsignals.org policy text).
SIGNALS: Final = frozenset({"search", "ai-input", "ai-train"})
#: A key Cloudflare-managed files add beside the signals ("how AI systems may consume the
#: content"): known, but it grants or restricts no use.
SIGNAL_EXTRAS: Final[Mapping[str, frozenset[str]]] = {
    "use": frozenset({"immediate", "reference", "full"})
}

#: What to ask of each mechanism for a use the crawl makes: the one label that decides it
#: under each (the current vocabulary has no parent categories).  ``ai-train`` (Cloudflare:
#: "training or fine-tuning AI models") and ``train-ai`` (IETF: "modify the learned
#: parameters of an AI model") name the same use, as do the two ``search``; ``ai-input``
#: has no IETF category.  A use not listed here is looked up under both mechanisms as written.
USES: Final[Mapping[str, Mapping[Mechanism, tuple[str, ...]]]] = {
    "ai-train": {CONTENT_SIGNAL: ("ai-train",), CONTENT_USAGE: ("train-ai",)},
    "train-ai": {CONTENT_SIGNAL: ("ai-train",), CONTENT_USAGE: ("train-ai",)},
    "search": {CONTENT_SIGNAL: ("search",), CONTENT_USAGE: ("search",)},
    "ai-input": {CONTENT_SIGNAL: ("ai-input",)},
}

_WS = " \t"


def consult(use: str) -> Mapping[Mechanism, tuple[str, ...]]:
    """The labels to consult for ``use`` under each mechanism (see :data:`USES`)."""
    known = USES.get(use)
    if known is not None:
        return known
    return {CONTENT_SIGNAL: (use,), CONTENT_USAGE: (use,)}


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class UsagePreference:
    """One explicit preference a site states: a category, yes or no, and where it says so."""

    category: str  # the label as the site wrote it: "ai-train", "train-ai", ...
    allowed: bool  # yes / y
    mechanism: Mechanism  # "content-signal" or "content-usage"
    line: int  # 1-based line of the statement
    text: str  # that line as written (surrounding whitespace removed)
    path: str = ""  # the statement's path as written; "" when it names none (every path)

    @property
    def value(self) -> str:
        """The value in the mechanism's own words: ``yes``/``no`` or ``y``/``n``."""
        if self.mechanism == CONTENT_SIGNAL:
            return "yes" if self.allowed else "no"
        return "y" if self.allowed else "n"

    def as_json(self) -> dict[str, object]:
        return {
            "category": self.category,
            "allowed": self.allowed,
            "value": self.value,
            "mechanism": self.mechanism,
            "line": self.line,
            "text": self.text,
            "path": self.path,
        }


@dataclass(frozen=True, slots=True)
class Usage:
    """What a site's robots.txt says about using one URL's content, for one crawler.

    ``preferences`` are the explicit ones of the statements in force for the URL, in file
    order (for each mechanism the statements whose path matches longest; see the module
    docstring).  ``token`` names the group they come from, as ``Decision.token`` does:
    the crawler's token, ``"*"``, or ``""`` when no group applies.  These statements are a
    vendor convention and a draft, not part of Google's robots.txt semantics.
    """

    token: str = ""
    preferences: tuple[UsagePreference, ...] = ()

    def get(self, use: str) -> UsagePreference | None:
        """The preference that answers "may this content be used for ``use``?", or None.

        Each statement answers with the label that names the use (see :data:`USES` for the
        equivalences between the two vocabularies); any "no" wins over every "yes" (the
        earliest in the file decides), and None means no statement in force says anything
        about the use.
        """
        chain = consult(use)
        statements: dict[tuple[Mechanism, int], dict[str, UsagePreference]] = {}
        for pref in self.preferences:
            statements.setdefault((pref.mechanism, pref.line), {})[pref.category] = pref
        return _combine(statements.items(), chain)

    def refuses(self, uses: Iterable[str]) -> UsagePreference | None:
        """The first "no" among ``uses`` (e.g. ``["ai-train"]``), or None."""
        for use in uses:
            pref = self.get(use)
            if pref is not None and not pref.allowed:
                return pref
        return None

    def as_json(self) -> dict[str, object]:
        return {"group": self.token, "preferences": [p.as_json() for p in self.preferences]}


def _combine(
    statements: Iterable[tuple[tuple[Mechanism, int], Mapping[str, UsagePreference]]],
    chain: Mapping[Mechanism, tuple[str, ...]],
) -> UsagePreference | None:
    first_yes: UsagePreference | None = None
    for (mechanism, _), prefs in statements:
        for label in chain.get(mechanism, ()):
            pref = prefs.get(label)
            if pref is None:
                continue
            if not pref.allowed:
                return pref
            if first_yes is None:
                first_yes = pref
            break
    return first_yes


# ----------------------------------------------------------------------------- parsing


@dataclass(frozen=True, slots=True)
class Entry:
    """One ``key=value`` of a statement, as the linter reports it."""

    key: str
    value: str  # as written ("" for a bare key)
    allowed: bool | None  # the preference, None when the value is neither yes nor no


@dataclass(frozen=True, slots=True)
class Statement:
    """One Content-Usage or Content-Signal line, parsed."""

    mechanism: Mechanism
    path: str  # as written, "" when absent
    entries: tuple[Entry, ...]  # every key=value in order (duplicates included)
    error: str | None  # why the value says nothing at all (a syntax error), else None
    problems: tuple[str, ...]  # entries skipped for their syntax (Content-Signal only)

    @property
    def pattern(self) -> str:
        """The path as matched: %-normalised like an allow/disallow pattern, ``/`` if absent."""
        return escape_pattern(self.path.encode("utf-8", "surrogateescape")) if self.path else "/"

    def preferences(self) -> dict[str, bool]:
        """Explicit preferences by label; a repeated key counts once, its last value."""
        out: dict[str, bool] = {}
        if self.error is not None:
            return out
        for entry in self.entries:
            out.pop(entry.key, None)  # the last one decides (and keeps no stale value)
            if entry.allowed is not None:
                out[entry.key] = entry.allowed
        return out


def split_path(value: bytes) -> tuple[bytes, bytes]:
    """(path, rest): a value starting with ``/`` names a path up to the first space or tab."""
    if not value.startswith(b"/"):
        return b"", value
    ends = [at for at in (value.find(b" "), value.find(b"\t")) if at >= 0]
    if not ends:
        return value, b""
    end = min(ends)
    return value[:end], value[end:].lstrip(b" \t")


def parse_statement(mechanism: Mechanism, value: bytes) -> Statement:
    """Parse one line's value (as the tokenizer gives it: stripped, comment removed)."""
    path, rest = split_path(value)
    written = path.decode("utf-8", "surrogateescape")
    if mechanism == CONTENT_USAGE:
        entries, error = _content_usage(rest)
        return Statement(mechanism, written, entries, error, ())
    entries, problems = _content_signal(rest)
    return Statement(mechanism, written, entries, None, problems)


def _content_usage(expression: bytes) -> tuple[tuple[Entry, ...], str | None]:
    """A Structured Field Dictionary (``engine/structured_fields.py``); a parse failure says
    nothing. Only the tokens ``y`` and ``n`` state a preference (not ``"y"``, not ``?1``)."""
    try:
        members = parse_dictionary(expression)
    except StructuredFieldError as exc:
        return (), str(exc)
    entries = []
    for member in members:
        token = member.value if isinstance(member.value, Token) else None
        allowed = {"y": True, "n": False}.get(token) if token is not None else None
        entries.append(Entry(member.key, member.written, allowed))
    return tuple(entries), None


def _content_signal(expression: bytes) -> tuple[tuple[Entry, ...], tuple[str, ...]]:
    """Cloudflare's comma-separated ``name=yes|no`` list, read leniently (case-insensitive)."""
    text = expression.decode("utf-8", "backslashreplace")
    entries: list[Entry] = []
    problems: list[str] = []
    if not text.strip(_WS):
        return (), ()
    for part in text.split(","):
        item = part.strip(_WS)
        key, equals, value = item.partition("=")
        key, value = key.strip(_WS).lower(), value.strip(_WS)
        if not item:
            problems.append("an empty entry (two commas, or a comma at an end)")
        elif not equals or not key:
            problems.append(f"{item!r} is not name=value")
        else:
            entries.append(Entry(key, value, {"yes": True, "no": False}.get(value.lower())))
    return tuple(entries), tuple(problems)


# ----------------------------------------------------------------------------- per group


@dataclass(frozen=True, slots=True)
class _Statement:
    """A statement of the group in force, ready to be matched."""

    mechanism: Mechanism
    pattern: str
    preferences: tuple[UsagePreference, ...]
    by_label: Mapping[str, UsagePreference]
    # The pattern split for matching: its literal prefix, its pieces around "*", a final "$".
    first: str = ""
    pieces: tuple[str, ...] = ()
    anchored: bool = False

    def matches(self, path: str) -> bool:
        """Google's matching of the pattern (whose priority is its length) against a path."""
        if not path.startswith(self.first):
            return False
        return not self.pieces or wildcard_match(path, self.pieces, self.anchored)


def _in_force_statement(
    mechanism: Mechanism, pattern: str, preferences: tuple[UsagePreference, ...]
) -> _Statement:
    by_label = {pref.category: pref for pref in preferences}
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    if "*" not in body and not anchored:  # a plain prefix: startswith alone decides
        return _Statement(mechanism, pattern, preferences, by_label, body)
    pieces = tuple(body.split("*"))
    return _Statement(mechanism, pattern, preferences, by_label, pieces[0], pieces, anchored)


# For each use of a tuple of uses, the labels to consult per mechanism.
_Chains = tuple[Mapping[Mechanism, tuple[str, ...]], ...]


class UsageIndex:
    """The statements of one crawler's group in force, arranged to answer per URL path.

    Built once per (file, token list, global flag) by ``RobotsTxt`` and kept beside the
    matchers.  With no statement (most files) every question costs one attribute read;
    when every statement applies to every path (the usual Cloudflare line) the answer for
    a tuple of uses is computed once and remembered.
    """

    __slots__ = ("_answers", "_chains", "_statements", "constant", "empty", "token")

    def __init__(self, token: str, statements: Sequence[_Statement]) -> None:
        self.token = token
        self._statements = tuple(statements)
        self.empty = not self._statements
        #: Whether the answer is the same for every path (no statement names a path).
        self.constant = all(s.pattern == "/" for s in self._statements)
        self._answers: dict[tuple[str, ...], UsagePreference | None] = {}
        self._chains: dict[tuple[str, ...], _Chains] = {}

    def _for_path(self, path: str) -> Sequence[_Statement]:
        """Per mechanism, the statements whose path matches longest (ties all kept)."""
        if self.constant:
            return self._statements
        best: dict[str, int] = {}
        scored = []
        for statement in self._statements:
            if statement.matches(path):
                score = len(statement.pattern)
                scored.append((score, statement))
                if score > best.get(statement.mechanism, 0):
                    best[statement.mechanism] = score
        return [s for score, s in scored if score == best[s.mechanism]]

    def every(self) -> Usage:
        """Every statement of the group, whatever path it names (each preference says its
        ``path``): what the group says as a whole, for a per-site view such as the report."""
        prefs = [p for s in self._statements for p in s.preferences]
        prefs.sort(key=lambda p: p.line)
        return Usage(self.token, tuple(prefs))

    def usage(self, path: str) -> Usage:
        prefs = [p for s in self._for_path(path) for p in s.preferences]
        prefs.sort(key=lambda p: p.line)
        return Usage(self.token, tuple(prefs))

    def refuses(self, path: str | None, uses: tuple[str, ...]) -> UsagePreference | None:
        """The preference refusing one of ``uses`` for ``path`` (None: the path is unknown
        and the index must be constant)."""
        if self.empty:
            return None
        if self.constant:
            try:
                return self._answers[uses]
            except KeyError:
                pass
        chains = self._chains.get(uses)
        if chains is None:
            chains = tuple(consult(use) for use in uses)
            if len(self._chains) < 16:
                self._chains[uses] = chains
        statements = self._statements if path is None else self._for_path(path)
        answer = _first_refusal(statements, chains)
        if self.constant and len(self._answers) < 16:
            self._answers[uses] = answer
        return answer


def _first_refusal(statements: Sequence[_Statement], chains: _Chains) -> UsagePreference | None:
    """:meth:`Usage.refuses` over statements (the same rule as :func:`_combine`: per use, each
    statement answers with the label that names it, and a "no" wins)."""
    for chain in chains:
        for statement in statements:
            for label in chain.get(statement.mechanism, ()):
                pref = statement.by_label.get(label)
                if pref is None:
                    continue
                if not pref.allowed:
                    return pref
                break
    return None


def in_force(
    token: str, lines: Iterable[tuple[int, bytes, bytes]], texts: Sequence[bytes]
) -> UsageIndex:
    """A :class:`UsageIndex` from the unknown lines ``(line, key, value)`` of a group in force.

    ``texts`` are the file's physical lines (1-based ``line`` indexes them) for the
    "as written" text of each preference.
    """
    statements: list[_Statement] = []
    for line, key, value in lines:
        mechanism = KEYS.get(key.lower())
        if mechanism is None:
            continue
        parsed = parse_statement(mechanism, value)
        prefs = parsed.preferences()
        if not prefs:
            continue
        raw = texts[line - 1] if 0 < line <= len(texts) else b""
        text = raw.strip(b" \t\n\v\f\r").decode("utf-8", "backslashreplace")
        preferences = tuple(
            UsagePreference(label, allowed, mechanism, line, text, parsed.path)
            for label, allowed in prefs.items()
        )
        statements.append(_in_force_statement(mechanism, parsed.pattern, preferences))
    return UsageIndex(token, statements)
