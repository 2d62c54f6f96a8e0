"""Lines to rules to verdicts: ``parse``, ``RobotsTxt`` and ``Decision``.

``parse`` only caps and keeps the bytes.  The first question for a user agent walks the
lines once (Google's group logic) and keeps, for that agent only, a compact matcher; a broad
crawl asks one agent per origin, so that is all it pays for.

A crawler may have several tokens, most specific first (Google's Googlebot-Image obeys a
``Googlebot`` group when the file has none of its own): the rules in force are those of the
first token that has a group, and only when none has one does ``*`` apply (and not even then
with ``global_group=False``, for crawlers that ignore it).  A one-token list is exactly its
token.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import getitem, itemgetter
from typing import Literal, NamedTuple

from .lines import (
    MAX_BODY_BYTES,
    WS,
    FastLine,
    LineKind,
    colonless_line,
    directives,
    escape_pattern,
    fast_matcher_lines,
    matcher_directives,
    physical_lines,
)
from .path_match import path_params_query
from .path_match import priority as _priority
from .tokens import TOKEN_PREFIX_RE, is_valid_token, names_everyone
from .usage import KEYS as USAGE_KEYS
from .usage import Usage, UsageIndex, UsagePreference, in_force
from .wild import EXACT as _EXACT
from .wild import MANY as _MANY
from .wild import MANY_END as _MANY_END
from .wild import ONE as _ONE
from .wild import ONE_END as _ONE_END
from .wild import PREFIX as _PREFIX
from .wild import Chain, Screened, WildIndex, risky, share_walks

Group = Literal["agent", "global", "none"]
#: A crawler's product token, or its tokens most specific first (``["Googlebot-Image",
#: "Googlebot"]``): what every ``user_agent`` argument below accepts.
Tokens = str | Sequence[str]

_MAX_AGENTS = 16  # per-agent matchers kept per file; more agents than this is unusual


@dataclass(frozen=True, slots=True)
class Decision:
    """A verdict with its reason: the deciding line as Google's ``matching_line()`` reports it."""

    allowed: bool
    line: int
    directive: str
    value: str
    pattern: str
    group: Group
    #: Whose group was in force: the crawler's token (from the list given) whose group it
    #: was, ``"*"`` for the global group, ``""`` when no group applies.  Not compared, so a
    #: Decision built without it still equals one that has it.
    token: str = field(default="", compare=False)

    @property
    def rule(self) -> str:
        """The deciding rule as written, e.g. ``Disallow: /private``; empty when none."""
        return f"{self.directive}: {self.value}" if self.directive else ""


# A rule as the group walk yields it: (line, is_allow, normalised pattern, key, value as
# written); line, key and value are only filled in when the caller reports lines.
_Rule = tuple[int, bool, str, bytes, bytes]
# A wildcard or anchored rule: (-priority, is_disallow, shape, first piece, second piece,
# chain); plain tuple order puts higher priority first and allow first on ties.  Only the
# many-piece shapes have a chain (the pieces after the first, see wild.Chain).
_Wild = tuple[int, bool, int, str, str, Chain | None]
_SCREENED = itemgetter(slice(2, None))  # what a wild.WildIndex files of a _Wild
# An unknown line: (its group names the agent, its group names "*", line, key, value).
_Unknown = tuple[bool, bool, int, bytes, bytes]
_INDEXED = 768  # wildcard rules (plus their pieces) past which a wild.WildIndex screens them
_FREE = 64  # a prefilter longer than this is searched by bisection (see _prefix_free())
_HEADLESS = 12  # a prefilter this short is cheaper to try whole than by its heads
_SECOND = itemgetter(1)
_FEW_LENGTHS = 8  # this few plain lengths: looked up by length after one search (_longest)
_SHARED_LENGTH = 4  # a length with more plain patterns than this is searched by bisection
_DESCENT = 4  # steps of the longest-prefix search before it tries each length (see _longest)


def _agent_key(user_agent: str) -> str | None:
    """What file tokens are compared with; None when no token can ever equal the agent."""
    if user_agent == "" or is_valid_token(user_agent):
        return user_agent.lower()
    return None


_KEYS: dict[str, tuple[str | None, bytes]] = {}  # a crawl asks with one token or a few


def _agent_bytes(user_agent: str) -> tuple[str | None, bytes]:
    """:func:`_agent_key` and its ASCII bytes, remembered for a few tokens."""
    known = _KEYS.get(user_agent)
    if known is None:
        key = _agent_key(user_agent)
        known = (key, key.encode("ascii") if key else b"")
        if len(_KEYS) < _MAX_AGENTS:
            _KEYS[user_agent] = known
    return known


def _prefix_free(prefixes: list[str]) -> tuple[str, ...]:
    """The prefixes that start paths, sorted, without one that starts with another.

    Whether any of ``prefixes`` starts a path is then whether the last of these that sorts
    at or before the path does: one that starts it sorts before it, and any entry after it
    and not after the path would start with it.
    """
    kept: list[str] = []
    for prefix in sorted(prefixes):
        if prefix[:1] == "/" and not (kept and prefix.startswith(kept[-1])):
            kept.append(prefix)
    return tuple(kept)


# The plain patterns' distinct lengths, longest first, each with its patterns when they are
# few (``_SHARED_LENGTH``), else None: see _AgentMatcher._longest.
_Lengths = tuple[tuple[int, tuple[str, ...] | None], ...]


def _by_length(patterns: Iterable[str]) -> _Lengths:
    """The distinct lengths of ``patterns``, longest first, as ``_longest`` reads them past
    its steps (a file that gets there: most never do, and pay nothing for it)."""
    by_length: dict[int, list[str]] = {}
    for pattern in patterns:
        by_length.setdefault(len(pattern), []).append(pattern)
    return tuple(
        (length, tuple(group) if len(group) <= _SHARED_LENGTH else None)
        for length, group in sorted(by_length.items(), reverse=True)
    )


def _shared(first: str, second: str) -> int:
    """How many characters ``first`` and ``second`` share at their start (in C, by halves)."""
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if second.startswith(first[:middle]):
            low = middle
        else:
            high = middle - 1
    return low


def _index_htm_fallback(pattern: str) -> str | None:
    """Google's rule: ``Allow: /d/index.htm*`` also allows ``/d/`` itself (as ``/d/$``)."""
    slash = pattern.rfind("/")
    if slash >= 0 and pattern.startswith("/index.htm", slash):
        return pattern[: slash + 1] + "$"
    return None


def _walk_groups(
    entries: list[tuple[int, LineKind, bytes, bytes]],
    agent: str | None,
) -> tuple[bool, list[_Rule], list[_Rule], list[_Unknown]]:
    """Google's group logic for one agent, the only place it lives.

    Returns whether any group names the agent (then only its rules count and every ``*``
    rule is ignored), the agent's rules, the ``*`` rules, and the unknown lines (with their
    line numbers) with whether their group names the agent and whether it names ``*``
    (known only once the group's user-agent lines are all read: an unknown line does not
    split them; one before the first user-agent line is in no group).  A group
    ends only when a user-agent line follows an allow or disallow line; rules before any
    user-agent line, or under agents that are neither ``*`` nor this one, are ignored.
    Values are bytes as written: user-agent values are compared raw, rule values get
    normalised here.
    """
    specific_rules: list[_Rule] = []
    global_rules: list[_Rule] = []
    # Unknown lines wait, with their group's number, until the group's agents are known.
    pending: list[tuple[int, int, bytes, bytes]] = []
    # The groups unknown lines are in, as written: a user-agent line after any allow or
    # disallow line starts one (Google's separator only counts rules of a group it reads,
    # which changes no rule set but would join a skipped group's lines to the next group).
    # Group 0 holds the lines before the first user-agent line, which are in no group.
    group_kinds: list[tuple[bool, bool]] = [(False, False)]
    boundary = True
    seen_global = seen_specific = seen_separator = ever_specific = False
    token_of = TOKEN_PREFIX_RE.match
    user_agent, allow, disallow = LineKind.USER_AGENT, LineKind.ALLOW, LineKind.DISALLOW
    for line, kind, key, value in entries:
        if kind is user_agent:
            if seen_separator:
                seen_global = seen_specific = seen_separator = False
            if boundary:
                boundary = False
                group_kinds.append((False, False))
            text = value.decode("latin-1")
            if names_everyone(text):
                seen_global = True
            elif agent is not None:
                match = token_of(text)
                if match is not None and match.group().lower() == agent:
                    seen_specific = ever_specific = True
            group_kinds[-1] = (seen_specific, seen_global)
        elif kind is allow or kind is disallow:
            boundary = True
            if not (seen_specific or seen_global):
                continue
            seen_separator = True
            rule = (line, kind is allow, escape_pattern(value), key, value)
            (specific_rules if seen_specific else global_rules).append(rule)
        elif kind is LineKind.UNKNOWN:
            pending.append((len(group_kinds) - 1, line, key, value))
    unknown = [(*group_kinds[group], line, key, value) for group, line, key, value in pending]
    return ever_specific, specific_rules, global_rules, unknown


def _fast_select(lines: list[FastLine], agent: str | None) -> tuple[bool, list[str], list[str]]:
    """:func:`_walk_groups` for the matcher's fast path: allow and disallow patterns only.

    The same state machine, specialised to the tuples of :func:`fast_matcher_lines` so that
    the first check of a site does no per-line bookkeeping it does not need (a third of the
    time of a first check).  ``tests/engine/test_engine_internal.py`` pins it to
    :func:`_walk_groups` on random bodies; keep the two in step.
    """
    specific_allows: list[str] = []
    specific_disallows: list[str] = []
    global_allows: list[str] = []
    global_disallows: list[str] = []
    seen_global = seen_specific = seen_separator = ever_specific = False
    token_of = TOKEN_PREFIX_RE.match
    size = len(agent) if agent is not None else 0
    for entry in lines:
        user_agent, allow, _, value, colonless = entry
        if colonless:
            fixed = colonless_line(entry)
            if fixed is None:
                continue
            user_agent, allow, _, value, _ = fixed
        if user_agent:
            if seen_separator:
                seen_global = seen_specific = seen_separator = False
            value = value.strip(WS)
            # names_everyone(), inlined: this loop runs once per line of a first check.
            if value[:1] == "*" and (len(value) == 1 or value[1] in WS):
                seen_global = True
            elif agent is not None and value[:size].lower() == agent:
                # (A token that is the agent starts the value: one slice and compare turn
                # most lines away before the token regex.)
                match = token_of(value)
                if match is not None and match.group().lower() == agent:
                    seen_specific = ever_specific = True
        elif seen_specific:
            seen_separator = True
            (specific_allows if allow else specific_disallows).append(value.strip(WS))
        elif seen_global:
            seen_separator = True
            (global_allows if allow else global_disallows).append(value.strip(WS))
    if ever_specific:
        return True, specific_allows, specific_disallows
    return False, global_allows, global_disallows


class _AgentMatcher:
    """The rules that apply to one agent, arranged so that most checks cost one C call.

    * ``_prefilter``: the literal prefixes of every rule except the ``/*...`` kind; a URL
      path that starts with none of them (the usual case) needs nothing more, unless
      ``_trivial`` says there are ``/*...`` rules, which are then screened by ``_tails``
      (``endswith`` for anchored ones) and ``_needles`` (substrings the others need).
      ``_firsts`` holds the entries' second characters, and ``_heads`` (or ``_free`` for a
      long prefilter) their first few: most paths are turned away by one of these before
      any ``startswith``.
    * plain rules (no ``*`` or ``$``) are the first ``_plain_count`` entries of
      ``_prefilter``, sorted; ``_allow_at`` holds the positions of the allows among them
      (most files have few).  The longest that prefixes the path is the key before it, when
      that key starts it (one search); otherwise it is found by each shorter distinct
      length (``_lengths``, when few), or by searches for what the path shares with that
      key (:meth:`_longest`).  One shared tuple and a few positions cost far less memory
      than a dict, and the search only runs on a prefix hit.
      ``Allow: /`` or ``Disallow: /`` is kept aside in ``_root``.
    * ``_wild``: the other rules, by priority, allow first on ties, each in one of a few
      shapes checked inline, only while they could still beat the best plain match.  Past
      ``_INDEXED`` of them, ``_index`` (a :class:`wild.WildIndex`) picks the few a path
      could match, and only those are checked; it then also does the screening of
      ``_tails`` and ``_needles``.

    Only what verdicts need is kept; the first ``decide`` builds ``_detail`` (see
    :func:`_build_detail`), so a crawl that never asks for lines never pays for it.
    """

    __slots__ = (
        "_allow_at",
        "_detail",
        "_firsts",
        "_free",
        "_groups",
        "_head",
        "_heads",
        "_home",
        "_index",
        "_lengths",
        "_needles",
        "_plain_count",
        "_prefilter",
        "_root",
        "_screen",
        "_tails",
        "_trivial",
        "_wild",
        "_wild_firsts",
        "specific",
    )
    _wild: tuple[_Wild, ...]
    _wild_firsts: tuple[str, ...]
    _tails: tuple[str, ...]
    _needles: tuple[str, ...]

    def __init__(self, allows: list[str], disallows: list[str], specific: bool) -> None:
        self.specific = specific
        self._detail: _Detail | None = None  # built by the first decide()
        self._home: bool | None = None  # the verdict for "/", on the first home page
        # Built with C-level dict operations: a tie between allow and disallow goes to allow.
        plain = dict.fromkeys(disallows, False)
        if allows:
            plain.update(dict.fromkeys(allows, True))
        plain.pop("", None)  # priority 0: never decides
        wild: list[_Wild] = []
        joined = "\n".join(plain)
        if "*" in joined or "$" in joined:
            for pattern in [p for p in plain if "*" in p or p[-1] == "$"]:
                _add_wild(pattern, plain.pop(pattern), wild)
        if "/index.htm" in joined:
            for pattern in allows:
                fallback = _index_htm_fallback(pattern)
                if fallback is not None:  # "/dir/$": anchored, so always a wild rule
                    _add_wild(fallback, True, wild)
        self._root = root = plain.pop("/", None)
        ordered = sorted(plain)
        # Only a pattern that starts with "/" can start a path: sorted, those are one run.
        if ordered and (ordered[0][0] != "/" or ordered[-1][0] != "/"):
            ordered = ordered[bisect_left(ordered, "/") : bisect_left(ordered, "0")]  # "0" > "/"
        self._plain_count = len(ordered)
        self._allow_at: tuple[int, ...] = ()
        if allows:
            at = {bisect_left(ordered, p) for p in allows if plain.get(p) and p[0] == "/"}
            self._allow_at = tuple(sorted(at))
        self._lengths: tuple[int, ...] | None = None
        self._groups: _Lengths | None = None  # built by the first search that needs it
        self._index: WildIndex | None = None
        if wild:
            self._trivial = self._arrange_wild(wild, ordered)
        else:  # most files: what _arrange_wild() gives for no wildcard rule
            self._wild = self._wild_firsts = self._tails = ()
            self._trivial = root is False  # "Disallow: /" decides every other path
            self._needles = ("",) if root is False else ()
        self._prefilter = tuple(ordered)
        self._screen = self._needles if self._trivial else None  # what allowed() reads
        # The second character of each entry (all start with "/"; the others never match,
        # and "/" is the root rule).
        # (each entry is "/" and more; repeats are fine, but a long prefilter drops them)
        firsts = map(_SECOND, ordered)
        self._firsts = "".join(set(firsts) if len(ordered) > _FREE else firsts)
        # The prefilter's first characters, as many as its shortest entry has, one line each:
        # a path whose first characters are not a line of it starts with no entry.  One slice
        # and one search answer most checks (a startswith over every entry costs one compare
        # each), in one small string.  A path has no newline where its head is a line.
        # Past _FREE entries, the prefilter is searched as a sorted tuple with no entry that
        # starts with another: the one that can start a path is the path's predecessor.
        self._head = 0
        self._heads: str | None = None
        self._free: tuple[str, ...] | None = None
        if len(ordered) > _FREE:
            self._free = _prefix_free(ordered)
        elif len(ordered) > _HEADLESS:  # (an entry not starting with "/" only adds a head)
            self._head = head = min(map(len, ordered))
            self._heads = "\n".join(set(map(itemgetter(slice(0, head)), ordered)))

    def _arrange_wild(self, wild: list[_Wild], ordered: list[str]) -> bool:
        """The wildcard rules' part of the matcher; their literal prefixes join ``ordered``.

        True when the matcher is trivial: a "/*..." rule, or a root rule that matters.
        """
        wild.sort()
        self._wild = tuple(wild)
        # One pass: the rules' prefixes; of the "/*..." ones (trivial prefix), the tails and
        # pieces that screen them, and whether one matches every path.
        firsts: dict[str, None] = {}
        tails: dict[str, None] = {}
        needles: dict[str, None] = {}
        trivial = every = star_disallow = False
        weight = len(wild)  # rules, and the pieces of the many-piece ones
        for negative, disallow, shape, first, second, chain in wild:
            firsts[first] = None
            if chain is not None:
                weight += len(chain.middle)
            if negative == -1 and disallow:
                star_disallow = True
            if first == "/" or not first:
                trivial = True
                if shape == _PREFIX:
                    every = True
                elif shape in (_ONE, _MANY):
                    # A risky piece is searched once, by its chain: no screen for it.
                    needles["" if len(second) >= 32 and risky(second) else second] = None
                elif shape == _ONE_END:
                    tails[second] = None
                elif chain is not None:  # _MANY_END
                    tails[chain.last] = None
                else:  # _EXACT: "/$", which only "/" itself ends with
                    tails[first] = None
        self._wild_firsts = tuple(firsts)
        # "Allow: /" alone never changes a verdict unless a priority-1 disallow ("*") exists.
        root = self._root
        root_matters = root is False or star_disallow
        trivial = trivial or (root is not None and root_matters)
        always = (root is not None and root_matters) or every
        self._tails = () if always else tuple(tails)
        self._needles = ("",) if always else tuple(needles)
        firsts.pop("", None)
        firsts.pop("/", None)
        ordered.extend(firsts)
        if weight > _INDEXED:
            self._index = _wild_index(list(map(_SCREENED, wild)))
            if trivial:  # the index screens "/*..." rules
                self._tails, self._needles = (), ("",)
        return trivial

    def _plain_lengths(self) -> tuple[int, ...]:
        """The plain patterns' distinct lengths, longest first (on the first search)."""
        lengths = tuple(sorted(set(map(len, self._prefilter[: self._plain_count])), reverse=True))
        self._lengths = lengths
        return lengths

    def _longest(self, path: str) -> int:
        """Where the longest plain pattern that starts ``path`` is in ``_prefilter``; -1 if none.

        Every key that sorts between a prefix of the path and the path starts with that
        prefix; so the key just before the path is the longest that starts it, when it does
        (most hits: one search), and otherwise the longest key that starts the path also
        starts the part the path shares with that key, before it.  A search for that part,
        shorter each time, finds it: a file of a thousand prefixes of distinct lengths costs
        a step or two, not a search per length.  With few lengths (``_FEW_LENGTHS``), those
        shorter than that key are looked up after the first step, longest first; past
        ``_DESCENT`` steps (keys built to shed one character a step), the lengths left are
        tried by ``startswith`` where few keys share one (``_groups``).
        """
        keys = self._prefilter
        at = bisect_right(keys, path, 0, self._plain_count)
        if not at:
            return -1
        key = keys[at - 1]
        if path.startswith(key):
            return at - 1
        high = at - 1
        lengths = self._lengths or self._plain_lengths()
        if len(lengths) <= _FEW_LENGTHS:
            size = min(len(path), len(key) - 1)  # a key that starts the path starts that one
            for length in lengths:
                if length <= size:
                    key = path[:length]
                    at = bisect_left(keys, key, 0, high)
                    if at < high and keys[at] == key:
                        return at
            return -1
        target = path[: _shared(key, path)]
        for _ in range(_DESCENT - 1):
            at = bisect_right(keys, target, 0, high)
            if not at:
                return -1
            key = keys[at - 1]
            if target.startswith(key):
                return at - 1
            target, high = target[: _shared(key, target)], at - 1
        groups = self._groups
        if groups is None:
            groups = self._groups = _by_length(keys[: self._plain_count])
        size = len(target)
        for length, group in groups:
            if length <= size:
                if group is not None and not target.startswith(group):
                    continue
                key = target[:length]
                at = bisect_left(keys, key, 0, high)
                if at < high and keys[at] == key:
                    return at
        return -1

    def _prefixed(self, path: str) -> bool:
        """Whether an entry of the prefilter starts ``path``."""
        free = self._free
        if free is None:
            return path.startswith(self._prefilter)
        at = bisect_right(free, path)
        return at > 0 and path.startswith(free[at - 1])

    def home(self) -> bool:
        """The verdict for "/": a site's home page, which its own links ask about again and
        again, and whose URL (``https://host``) has no path to find by the prefix."""
        home = self._home
        if home is None:  # no prefilter entry starts "/": each is "/" and more
            home = self._home = self.verdict("/", False)
        return home

    def allowed_path(self, path: str) -> bool:
        """The verdict for a path (which always starts with ``/``)."""
        free = self._free
        if free is None:
            prefixed = path.startswith(self._prefilter)
        else:
            at = bisect_right(free, path)
            prefixed = at > 0 and path.startswith(free[at - 1])
        return self.verdict(path, prefixed)

    def verdict(self, path: str, prefixed: bool) -> bool:
        """:meth:`allowed_path` for a caller that knows whether the prefilter starts ``path``.

        (:meth:`RobotsTxt.allowed` has found it on the URL: one search of the prefilter
        less per check that gets this far.)
        """
        # Past the prefilter only "/*..." rules can still match: screen them by what they need.
        if not prefixed and not path.endswith(self._tails):
            for needle in self._needles:
                if needle in path:
                    break
            else:
                return True
        best = -1
        best_allow = True
        if prefixed and self._plain_count:
            keys = self._prefilter
            at = self._longest(path)
            if at >= 0:
                best, best_allow = len(keys[at]), at in self._allow_at
        if best < 0 and self._root is not None:
            best, best_allow = 1, self._root
        index = self._index
        if index is None:
            if not path.startswith(self._wild_firsts):
                return best_allow
            entries: Iterable[_Wild] = self._wild
        else:  # looked up as they are tried: the first that matches decides
            entries = map(getitem, repeat(self._wild), index.candidates(path))
        size = len(path)
        for negative, disallow, shape, first, second, chain in entries:
            priority = -negative
            if priority < best or (priority == best and (best_allow or disallow)):
                break
            if first != "/" and not path.startswith(first):  # every path starts with "/"
                continue
            if shape == _ONE:
                hit = path.find(second, len(first)) >= 0
            elif shape == _ONE_END:
                hit = path.endswith(second) and size - len(second) >= len(first)
            elif shape == _PREFIX:
                hit = True
            elif shape == _EXACT:
                hit = size == len(first)
            else:
                assert chain is not None
                hit = chain.match(path)
            if hit:
                return not disallow
        return best_allow

    def decide(self, path: str, detail: _Detail) -> Decision:
        """The :class:`Decision` for ``path``: exactly what :func:`_decide_reference` gives.

        The winner is found as :meth:`allowed_path` finds the verdict (the same screens, the
        longest plain prefix, then the wildcard rules while they could still beat it), but
        ranked by the key ``2 * priority + is_allow`` (higher wins, so allow on equal
        priority) and with the matching pattern's :class:`_Outcome` kept.  Google reports
        the first rule in file order of the winner's kind whose pattern (or index.htm
        fallback) matches with the winner's priority.  The wildcard patterns of one key are
        tried in file order, so a wildcard winner is that rule; a plain winner's outcome
        lists the wildcard patterns of its key that come before it (most often none).
        """
        plain, wild_, root, none, group, token, index = detail
        wild: Sequence[_KeyedWild] = wild_
        found = none
        if self._prefixed(path):
            if plain and self._plain_count:
                keys = self._prefilter
                at = self._longest(path)
                if at >= 0:
                    found = plain[keys[at]]
        elif not path.endswith(self._tails):
            for needle in self._needles:
                if needle in path:
                    break
            else:  # as in allowed_path(): only the root rule can match
                wild = ()
        if found is none and root is not None:
            found = root
        if wild and index is not None:
            wild = [wild[at] for at in index.candidates(path)]
        elif wild and not path.startswith(self._wild_firsts):
            wild = ()
        if wild:
            best = found.key
            size = len(path)
            for key, shape, first, second, chain, outcome in wild:
                if key <= best:
                    break
                if first != "/" and not path.startswith(first):
                    continue
                if shape == _ONE:
                    matched = path.find(second, len(first)) >= 0
                elif shape == _ONE_END:
                    matched = path.endswith(second) and size - len(second) >= len(first)
                elif shape == _PREFIX:
                    matched = True
                elif shape == _EXACT:
                    matched = size == len(first)
                else:
                    assert chain is not None
                    matched = chain.match(path)
                if matched:
                    found = outcome
                    break
        if found.count:  # a plain winner: wildcard patterns of its key, earlier in the file
            for _, shape, first, second, chain, outcome in found.earlier[: found.count]:
                if path.startswith(first) and _shape_hit(path, shape, first, second, chain):
                    found = outcome
                    break
        decision = found.decision
        if not isinstance(decision, Decision):  # built on first use: most rules never are
            line, allow, pattern, key_, value = decision
            decision = found.decision = Decision(
                allow,
                line,
                key_.decode("utf-8", "backslashreplace"),
                value.decode("utf-8", "backslashreplace"),
                pattern,
                group,
                token,
            )
        return decision


class _Outcome:
    """What the first rule of a pattern decides, for one key ``2 * priority + is_allow``.

    ``decision`` is the rule as :func:`_walk_groups` gave it (its pattern replaced by the
    index.htm fallback for one), made a :class:`Decision` on first use.  For a plain
    pattern, the first ``count`` of ``earlier`` are the wildcard patterns of the same key
    whose first rule comes before this one, in file order: when one matches too, its rule
    is the one Google reports.
    """

    __slots__ = ("count", "decision", "earlier", "key")

    def __init__(self, key: int, decision: Decision | _Rule) -> None:
        self.key = key
        self.decision = decision
        self.earlier: tuple[_KeyedWild, ...] = ()
        self.count = 0


# A wildcard or anchored pattern for decide(): (key, shape, first piece, second piece,
# chain, outcome), in the shapes of _add_wild().
_KeyedWild = tuple[int, int, str, str, Chain | None, _Outcome]
# What decide() needs beyond the verdict's state, built on an agent's first decide() only:
# (plain patterns but "/" -> outcome, wildcard patterns by key then file order, the outcome
# of "/" or None, the outcome when no pattern of positive priority matches, the group, the
# token whose group is in force, the wildcard patterns' WildIndex when there are many).
_Detail = tuple[
    dict[str, _Outcome],
    tuple[_KeyedWild, ...],
    "_Outcome | None",
    _Outcome,
    Group,
    str,
    "WildIndex | None",
]


def _wild_index(rules: list[Screened]) -> WildIndex:
    """A :class:`wild.WildIndex` of (shape, first, second, chain), for more than _INDEXED.

    Their chains then share the walks they have in common (see :func:`wild.share_walks`).
    """
    share_walks(rule[3] for rule in rules if rule[3] is not None)
    return WildIndex(rules)


def _shape_hit(path: str, shape: int, first: str, second: str, chain: Chain | None) -> bool:
    """Whether a pattern in one of the shapes of :func:`_add_wild` matches (``first`` does)."""
    if shape == _ONE:
        return path.find(second, len(first)) >= 0
    if shape == _ONE_END:
        return path.endswith(second) and len(path) - len(second) >= len(first)
    if shape == _PREFIX:
        return True
    if shape == _EXACT:
        return len(path) == len(first)
    assert chain is not None
    return chain.match(path)


def _build_detail(rules: list[_Rule], specific: bool, token: str) -> _Detail:
    """Precompile an agent's rules, as :func:`_walk_groups` gives them, for ``decide``.

    The patterns are merged and classified exactly as :class:`_AgentMatcher` does for its
    verdicts (so its screens hold for them), each with the outcome of its first rule.
    A plain winner only needs the wildcard patterns of its key before it: another plain
    pattern of that key that matched would be equal to it (two plain prefixes of one
    length), and a pattern that is a wildcard one in the file but merged into an allow here
    cannot decide as a disallow (the allow, of the same length, would match too).
    """
    group: Group = "agent" if specific else "global"
    outcomes: dict[tuple[int, str], _Outcome] = {}  # (key, pattern) -> its first rule's
    empty: dict[bool, Decision] = {}
    for rule in rules:
        line, allow, pattern, key_, value = rule
        if not pattern:  # priority 0: matches every path, decides only when nothing else does
            if allow not in empty:
                written = value.decode("utf-8", "backslashreplace")
                directive = key_.decode("utf-8", "backslashreplace")
                empty[allow] = Decision(True, line, directive, written, "", group, token)
            continue
        source: _Rule = rule
        while True:
            key = 2 * len(pattern) + allow
            # A pattern that starts with neither "/" nor "*" never matches a path, nor "$".
            if (key, pattern) not in outcomes and pattern[0] in "/*" and pattern != "$":
                outcomes[key, pattern] = _Outcome(key, source)
            if source is not rule or not allow or "/index.htm" not in pattern:
                break
            fallback = _index_htm_fallback(pattern)  # tried when the pattern fails; shorter
            if fallback is None:
                break
            pattern = fallback
            source = (line, allow, fallback, key_, value)
    order = {id(outcome): at for at, outcome in enumerate(outcomes.values())}
    # The patterns as _AgentMatcher has them: a pattern both allowed and disallowed is an
    # allow (priority ties go to allow); "" never decides; "/" is its root rule.
    merged = dict.fromkeys([rule[2] for rule in rules if not rule[1]], False)
    merged.update(dict.fromkeys([rule[2] for rule in rules if rule[1]], True))
    merged.pop("", None)
    plain: dict[str, _Outcome] = {}
    shapes: list[_Wild] = []
    shaped: list[_Outcome] = []  # the outcome of each of shapes
    for pattern, allow in merged.items():
        while True:
            outcome = outcomes.get((2 * len(pattern) + allow, pattern))
            if outcome is not None:
                if "*" in pattern or pattern[-1] == "$":
                    _add_wild(pattern, allow, shapes)
                    shaped.extend([outcome] * (len(shapes) - len(shaped)))
                elif pattern != "/":
                    plain[pattern] = outcome
            if not allow or "/index.htm" not in pattern:
                break
            fallback = _index_htm_fallback(pattern)
            if fallback is None:
                break
            pattern = fallback  # "/dir/$": no "/index.htm" in it, so the loop ends
    wild = sorted(
        (
            (outcome.key, shape, first, second, chain, outcome)
            for (_, _, shape, first, second, chain), outcome in zip(shapes, shaped, strict=True)
        ),
        key=lambda entry: (-entry[0], order[id(entry[5])]),  # key first, then file order
    )
    root = outcomes.get((2 + merged["/"], "/")) if "/" in merged else None
    runs: dict[int, list[_KeyedWild]] = {}  # the wildcard patterns of each key, in file order
    for entry in wild:
        runs.setdefault(entry[0], []).append(entry)
    shared = {key: (tuple(run), [order[id(e[5])] for e in run]) for key, run in runs.items()}
    for outcome in [*plain.values(), *([root] if root is not None else [])]:
        if outcome.key in shared:
            outcome.earlier, orders = shared[outcome.key]
            outcome.count = bisect_left(orders, order[id(outcome)])
    # No positive match: an empty allow beats an empty disallow (0 > 0 is false), and an
    # empty disallow alone is reported with the verdict still "allowed".
    nothing = Decision(True, 0, "", "", "", "none", token)  # no rule matched, not even ""
    none = _Outcome(-1, empty.get(True) or empty.get(False) or nothing)
    weight = len(wild) + sum(len(e[4].middle) for e in wild if e[4] is not None)
    index = _wild_index([entry[1:5] for entry in wild]) if weight > _INDEXED else None
    return plain, tuple(wild), root, none, group, token, index


def _decide_reference(path: str, rules: list[_Rule], specific: bool) -> Decision:
    """Replay Google's matcher over an agent's rules, rule by rule: what ``decide`` gives.

    The plain transcription of ``RobotsMatcher`` (each rule checked, the index.htm fallback
    tried when an allow fails, ``matching_line()``), kept as the tests' reference.
    """
    best = {True: (-1, 0), False: (-1, 0)}  # is_allow -> (priority, line)
    chosen: dict[bool, tuple[str, bytes, bytes]] = {}
    for line, allow, pattern, key, value in rules:
        priority = _priority(path, pattern)
        if priority < 0 and allow:
            fallback = _index_htm_fallback(pattern)
            if fallback is not None:
                pattern = fallback
                priority = _priority(path, fallback)
        if priority > best[allow][0]:
            best[allow] = (priority, line)
            chosen[allow] = (pattern, key, value)
    d_priority, a_priority = best[False][0], best[True][0]
    disallowed = d_priority > a_priority if (d_priority > 0 or a_priority > 0) else False
    winner_allow = not d_priority > a_priority
    line = best[winner_allow][1]
    if not line:
        return Decision(not disallowed, 0, "", "", "", "none")
    pattern, key, value = chosen[winner_allow]
    return Decision(
        allowed=not disallowed,
        line=line,
        directive=key.decode("utf-8", "backslashreplace"),
        value=value.decode("utf-8", "backslashreplace"),
        pattern=pattern,
        group="agent" if specific else "global",
    )


def _add_wild(pattern: str, allow: bool, wild: list[_Wild]) -> None:
    """Classify a pattern with ``*`` or a final ``$`` into one of the inline shapes."""
    if pattern[0] != "/" and pattern[0] != "*":
        return  # a pattern that starts with neither "/" nor "*" can never match a path
    anchored = pattern[-1] == "$"
    parts = (pattern[:-1] if anchored else pattern).split("*")
    first = parts[0]
    # Only the many-piece shapes, and risky single pieces, have a chain.
    if len(parts) == 2:  # one "*": the usual "/a*", "/*x", "/*.pdf$"
        second = parts[1]
        if not second:  # "/a*", "/a*$": any tail
            wild.append((-len(pattern), not allow, _PREFIX, first, "", None))
        elif anchored:
            wild.append((-len(pattern), not allow, _ONE_END, first, second, None))
        elif len(second) >= 32 and risky(second):  # searched by a chain (see wild.risky)
            chain = Chain(first, (second,), False)
            wild.append((-len(pattern), not allow, _MANY, first, second, chain))
        else:
            wild.append((-len(pattern), not allow, _ONE, first, second, None))
        return
    if len(parts) == 1:  # "/a$" ("$" alone never gets here: it starts with "$")
        wild.append((-len(pattern), not allow, _EXACT, first, "", None))
        return
    pieces = tuple(filter(None, parts[1:]))
    if not pieces:  # "/a**", "/a**$": any tail
        wild.append((-len(pattern), not allow, _PREFIX, first, "", None))
        return
    if anchored and not parts[-1]:
        anchored = False  # "*$" at the end matches any tail
    if len(pieces) == 1:  # "/a**b", "/a*b*$"
        second = pieces[0]
        if anchored:
            wild.append((-len(pattern), not allow, _ONE_END, first, second, None))
        elif len(second) >= 32 and risky(second):
            chain = Chain(first, pieces, False)
            wild.append((-len(pattern), not allow, _MANY, first, second, chain))
        else:
            wild.append((-len(pattern), not allow, _ONE, first, second, None))
        return
    shape = _MANY_END if anchored else _MANY
    wild.append((-len(pattern), not allow, shape, first, pieces[0], Chain(first, pieces, anchored)))


class _InForce(NamedTuple):
    """The group whose rules apply to a crawler, as :func:`_group_in_force` picks it."""

    token: str  # the token (as given) whose group it is, "*" for the global group, "" none
    specific: bool  # a token's own group (the * group is then hidden)
    rules: list[_Rule]
    unknown: list[tuple[int, bytes, bytes]]  # (line, key, value) of its other lines


def _tokens(user_agent: Tokens) -> tuple[str, ...]:
    return (user_agent,) if isinstance(user_agent, str) else tuple(user_agent)


def _memo_key(user_agent: Tokens, global_group: bool) -> object:
    """What a crawler's matchers are remembered under: a token alone is its own key."""
    if isinstance(user_agent, str):
        return user_agent if global_group else ((user_agent,), False)
    return (tuple(user_agent), global_group)


def _group_in_force(
    entries: list[tuple[int, LineKind, bytes, bytes]], user_agent: Tokens, global_group: bool
) -> _InForce:
    """Google's group selection for a token list, the one place it lives.

    The first token that a group names wins, with all of its groups merged (a group with no
    rules counts: it hides ``*`` all the same); else the ``*`` groups, unless
    ``global_group`` is False; else nothing.  One :func:`_walk_groups` per token tried.
    """
    walked = None
    for token in _tokens(user_agent):
        walked = _walk_groups(entries, _agent_key(token))
        specific, agent_rules, _, unknown = walked
        if specific:
            mine = [(line, key, value) for named, _, line, key, value in unknown if named]
            return _InForce(token, True, agent_rules, mine)
    if not global_group:
        return _InForce("", False, [], [])
    if walked is None:
        walked = _walk_groups(entries, None)
    _, _, global_rules, unknown = walked
    star = any(
        kind is LineKind.USER_AGENT and names_everyone(value.decode("latin-1"))
        for _, kind, _, value in entries
    )
    theirs = [(line, key, value) for _, global_, line, key, value in unknown if global_]
    return _InForce("*" if star else "", False, global_rules, theirs)


def _select(
    lines: list[FastLine] | None,
    entries: list[tuple[int, LineKind, bytes, bytes]] | None,
    agent: str | None,
) -> tuple[bool, list[str], list[str]]:
    """One agent's allow and disallow patterns: the fast path when the body allows."""
    if lines is not None:
        return _fast_select(lines, agent)
    assert entries is not None
    specific, agent_rules, global_rules, _ = _walk_groups(entries, agent)
    rules = agent_rules if specific else global_rules
    return specific, [rule[2] for rule in rules if rule[1]], [r[2] for r in rules if not r[1]]


class RobotsTxt:
    """A parsed robots.txt body: ask it what Google's parser would decide.

    Every question takes the crawler's token, or its tokens most specific first (see the
    module docstring), and ``global_group=False`` for a crawler that ignores ``*``.  Matching
    state is built per token list on first use and kept for the last one in a fast slot (a
    crawl asks with one), others in a small bounded dict; content-usage statements likewise.
    """

    __slots__ = (
        "_agent",
        "_matcher",
        "_others",
        "_site",
        "_sitemaps",
        "_usage",
        "body",
        "truncated",
    )

    def __init__(self, body: bytes, truncated: bool = False) -> None:
        self.body = body
        self.truncated = truncated
        # The fast slot: the agent as given (a list is copied) and its matcher.
        self._agent: str | Sequence[str] | None = None
        self._matcher: _AgentMatcher | None = None
        self._others: dict[object, _AgentMatcher] | None = None
        self._usage: dict[object, UsageIndex] | None = None
        self._sitemaps: tuple[str, ...] | None = None
        # "scheme://host/" of the last http(s) URL and its length (just past the "/" that
        # starts the path), in one tuple read once per check (another thread may change
        # it).  Before the first: "\0/", which is itself a prefix whose path starts at its
        # "/" (a URL that starts with it has its path there).
        self._site = ("\0/", 2)

    def __repr__(self) -> str:
        return f"<RobotsTxt {len(self.body)} bytes{' (truncated)' if self.truncated else ''}>"

    # global_group is not keyword-only, on purpose: CPython fills a missing keyword-only
    # default through a dict lookup, which costs these per-request calls ~8 % (measured).
    # Pass it by name.

    def allowed(self, url: str, user_agent: Tokens, global_group: bool = True) -> bool:
        """Google's verdict for ``url`` (already percent-encoded) and a product token.

        ``user_agent`` may also be a list of tokens, most specific first; with
        ``global_group=False`` the ``*`` group never applies (no group: everything allowed).
        The URL is matched literally, as Google's library does; encode a raw URL first with
        ``scrapy_gbot_robots.engine.url.crawler_url`` (what Scrapy does to ``request.url``).
        """
        # The agent of the last question, as given (a crawl asks with one object): identity
        # is the cheap test, _matcher_for() the sure one.
        matcher: _AgentMatcher = (
            self._matcher  # type: ignore[assignment]  # set whenever _agent is
            if user_agent is self._agent and global_group
            else self._matcher_for(user_agent, global_group)
        )
        # (A matcher that can refuse nothing, an eighth of the corpus's files for Googlebot,
        # needs no test of its own: its _firsts is empty and its _screen None, so the first
        # test below answers.  One test less for the others, one step more for it.)
        # Fast path.  A site's URLs share "scheme://host/": once one URL showed where its
        # path starts, one comparison finds the path of the next (a slice and ==, which
        # cost less than str.startswith's argument parsing: ~3 % of a median check).
        site, cut = self._site  # cut: just past the path's "/"
        if url[:cut] != site:
            if url == site[:-1] and cut > 2:  # "https://host" alone: the home page, path "/"
                return matcher.home()
            cut = self._path_start(url) + 1
            if cut <= 0:  # -1: "https://host" alone (a site's home page), whose path is "/"
                return matcher.home() if cut == -1 else matcher.allowed_path(path_params_query(url))
        # The path is url[cut - 1:] up to "#" (or a NUL): a prefilter entry that starts the
        # path starts url[cut - 1:] (no pattern holds "#" or NUL), and has the path's second
        # character in _firsts.  Most checks end at that one index and one "in".
        try:
            second = url[cut]
        except IndexError:  # the path is "/": shorter than every entry
            second = "\n"  # which no pattern holds
        if second not in matcher._firsts:  # no entry starts the path
            needles = matcher._screen
            if needles is None:  # no "/*..." rule: nothing more can match
                return True
            prefixed = False
            # The screens of "/*..." rules (see allowed_path), on the URL: a piece that is
            # not in the URL is not in its path, and when nothing cuts the path short the
            # URL ends as it does.
            tails = matcher._tails
            if not tails or ("#" not in url and "\0" not in url and not url.endswith(tails)):
                for needle in needles:
                    if needle in url:
                        break
                else:
                    return True
        else:
            slash = cut - 1
            heads = matcher._heads
            if heads is not None:
                prefixed = url[slash : slash + matcher._head] in heads and url.startswith(
                    matcher._prefilter, slash
                )
            elif matcher._free is None:
                prefixed = url.startswith(matcher._prefilter, slash)
            else:  # the path's predecessor among them ("#..." after it changes nothing)
                rest = url[slash:]
                at = bisect_right(matcher._free, rest)
                prefixed = at > 0 and rest.startswith(matcher._free[at - 1])
            if not prefixed:  # the same screens as above (kept inline: this is per request)
                needles = matcher._screen
                if needles is None:
                    return True
                tails = matcher._tails
                if not tails or ("#" not in url and "\0" not in url and not url.endswith(tails)):
                    for needle in needles:
                        if needle in url:
                            break
                    else:
                        return True
        slash = cut - 1
        path = url[slash : url.find("#", slash)] if "#" in url else url[slash:]
        if "\0" in path:
            path = path[: path.index("\0")]
        # An entry that starts url[slash:] starts the path: no pattern holds "#" or NUL.
        return matcher.verdict(path, prefixed)

    def _path_start(self, url: str) -> int:
        """Where an http(s) URL's path starts (its first "/"), remembering the site prefix.

        -1 when the general extraction is needed: another scheme, or a "?", ";" or "#" before
        the first "/" (the path then starts there, or is "/"); -2 when the URL has no "/",
        "?" or ";" after its scheme, so that its path is "/" (``https://host``, a home page,
        usually a site's first URL; ``path_params_query`` gives "/" for it too).  A home page
        without "#" gives the prefix too: its URL and a "/", as the site's next URL would.
        """
        # Slices and "in", not startswith() and find(start, end): their argument parsing
        # was most of this function's cost, which every site pays on its first URL.  The
        # scheme holds no "?", ";" or "#", so a test of what includes it tests past it.
        if url[:8] == "https://":
            start = 8
        elif url[:7] == "http://":
            start = 7
        else:
            return -1
        slash = url.find("/", start)
        if slash < 0:
            if "?" in url or ";" in url:
                return -1
            if "#" not in url:  # the site's prefix is this URL and its "/"
                self._site = (url + "/", len(url) + 1)
            return -2
        site = url[: slash + 1]
        if "?" in site or ";" in site or "#" in site:
            return -1
        self._site = (site, slash + 1)
        return slash

    def _path_of(self, url: str) -> str:
        """The path Google matches (what :meth:`allowed` finds, without its shortcuts)."""
        site, cut = self._site
        slash = cut - 1
        if not url.startswith(site):
            slash = self._path_start(url)
            if slash < 0:
                return path_params_query(url)
        end = url.find("#", slash)
        path = url[slash:end] if end >= 0 else url[slash:]
        if "\0" in path:
            path = path[: path.index("\0")]
        return path

    def decide(self, url: str, user_agent: Tokens, global_group: bool = True) -> Decision:
        """The verdict with the deciding line, and (``Decision.token``) whose group it was.

        Like :meth:`allowed`, it expects a percent-encoded URL (see ``crawler_url`` in
        ``engine/url.py``). The first call for an agent precompiles its rules with their lines
        (see :func:`_build_detail`; nothing of it is built for :meth:`allowed` alone); later calls
        cost about what :meth:`allowed` costs.
        """
        matcher = self._matcher
        if user_agent != self._agent or matcher is None or not global_group:
            matcher = self._matcher_for(user_agent, global_group)
        detail = matcher._detail
        if detail is None:
            group = _group_in_force(directives(self.body), user_agent, global_group)
            detail = _build_detail(group.rules, group.specific, group.token)
            matcher._detail = detail
        # The path as allowed() finds it (_path_of(), inlined: this is a per-request call).
        site, cut = self._site
        slash = cut - 1
        if not url.startswith(site):
            slash = self._path_start(url)
            if slash < 0:
                return matcher.decide(path_params_query(url), detail)
        end = url.find("#", slash)
        path = url[slash:end] if end >= 0 else url[slash:]
        if "\0" in path:
            path = path[: path.index("\0")]
        return matcher.decide(path, detail)

    def names_agent(self, user_agent: Tokens) -> bool:
        """Whether a group names this agent (or one of these tokens): ``*`` is then hidden."""
        return self._matcher_for(user_agent).specific

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """Every sitemap URL in file order, from anywhere in the file."""
        if self._sitemaps is None:
            self._sitemaps = tuple(
                value.decode("utf-8", "backslashreplace")
                for _, kind, _, value in directives(self.body)
                if kind is LineKind.SITEMAP and value
            )
        return self._sitemaps

    def crawl_delay(self, user_agent: Tokens, global_group: bool = True) -> float | None:
        """The first valid ``Crawl-delay`` of the group in force (Google ignores it)."""
        group = _group_in_force(directives(self.body), user_agent, global_group)
        for _, key, value in group.unknown:
            if not key.lower().startswith(b"crawl-delay"):
                continue
            try:
                delay = float(value.decode("ascii"))
            except (UnicodeDecodeError, ValueError):
                continue
            if 0 <= delay < float("inf"):
                return delay
        return None

    def usage(self, url: str, user_agent: Tokens, global_group: bool = True) -> Usage:
        """What the group in force says about *using* the content of ``url``.

        Content-Signal and Content-Usage statements (a vendor convention and a draft; see
        :mod:`scrapy_gbot_robots.engine.usage`), chosen with the same group selection as the
        rules.  Google ignores them: they never change :meth:`allowed`.
        """
        index = self._usage_index(user_agent, global_group)
        if index.empty:
            return Usage(index.token)
        return index.usage(self._path_of(url))

    def usage_statements(self, user_agent: Tokens, global_group: bool = True) -> Usage:
        """Every content-usage statement of the group in force, whatever path it names.

        :meth:`usage` answers for one URL; this is the group's whole say, in file order
        (each preference's ``path`` is where it applies, ``""`` everywhere), for a view of a
        site rather than of a page (the audit report's per-origin column).
        """
        return self._usage_index(user_agent, global_group).every()

    def refuses(
        self,
        url: str,
        user_agent: Tokens,
        uses: Iterable[str],
        global_group: bool = True,
    ) -> UsagePreference | None:
        """The statement saying "no" to one of ``uses`` (e.g. ``("ai-train",)``) for ``url``.

        None when the site refuses none of them.  Built for a per-request check: the
        statements are parsed once per agent, a file without any costs a dict lookup, and
        when no statement names a path the answer per ``uses`` tuple is remembered (pass
        the same tuple each time).
        """
        index = self._usage_index(user_agent, global_group)
        if index.empty:
            return None
        wanted = uses if isinstance(uses, tuple) else tuple(uses)
        if index.constant:
            return index.refuses(None, wanted)
        return index.refuses(self._path_of(url), wanted)

    def _usage_index(self, user_agent: Tokens, global_group: bool) -> UsageIndex:
        key = _memo_key(user_agent, global_group)
        memo = self._usage
        index = memo.get(key) if memo is not None else None
        if index is None:
            group = _group_in_force(directives(self.body), user_agent, global_group)
            lines = [entry for entry in group.unknown if entry[1].lower() in USAGE_KEYS]
            texts = physical_lines(self.body) if lines else []
            index = in_force(group.token, lines, texts)
            if memo is None:
                memo = self._usage = {}
            elif len(memo) >= _MAX_AGENTS:
                del memo[next(iter(memo))]
            memo[key] = index
        return index

    def _matcher_for(self, user_agent: Tokens, global_group: bool = True) -> _AgentMatcher:
        if global_group and user_agent == self._agent and self._matcher is not None:
            return self._matcher
        if self._agent is None and global_group and isinstance(user_agent, str):
            # The first question, as a crawl asks it: nothing to remember aside.
            built = self._matcher = self._build_matcher(user_agent, True)
            self._agent = user_agent
            return built
        key = _memo_key(user_agent, global_group)
        others = self._others
        matcher = others.get(key) if others is not None else None
        if matcher is None:
            matcher = self._build_matcher(user_agent, global_group)
        if not global_group:  # kept aside: the fast slot answers global_group=True only
            if others is None:
                others = self._others = {}
            elif key not in others and len(others) >= _MAX_AGENTS:
                del others[next(iter(others))]
            others[key] = matcher
            return matcher
        # The newest agent takes the fast slot; the previous one moves to the bounded dict.
        if self._matcher is not None and self._agent is not None:
            if others is None:
                others = self._others = {}
            elif len(others) >= _MAX_AGENTS:
                del others[next(iter(others))]
            others[_memo_key(self._agent, True)] = self._matcher
        if others is not None:
            others.pop(key, None)
        # A list is copied: the caller may change it, and == still finds it next time.
        self._agent = user_agent if isinstance(user_agent, (str, tuple)) else list(user_agent)
        self._matcher = matcher
        return matcher

    def _build_matcher(self, user_agent: Tokens, global_group: bool) -> _AgentMatcher:
        """The matcher of the group in force (:func:`_group_in_force`), by the fast path."""
        lines = fast_matcher_lines(self.body)
        entries = matcher_directives(self.body) if lines is None else None
        lowered: bytes | None = None
        fallback: tuple[bool, list[str], list[str]] | None = None
        tokens = (user_agent,) if isinstance(user_agent, str) else user_agent
        single = len(tokens) == 1
        for token in tokens:
            agent, spelled = _agent_bytes(token)
            # One token on the fast path (a crawl's question): _fast_select's own test of
            # each user-agent line costs less than lowering the body to search it.  For a
            # token list, the search spares a walk per token the file never names.
            if agent and not (single and lines is not None):
                if lowered is None:
                    lowered = self.body.lower()
                if lowered.find(spelled) < 0:  # (see fast_matcher_lines: not "in")
                    agent = None  # no line can name it: skip every token comparison
            if agent is None and fallback is not None:
                continue  # it names no group, and the * rules are already known
            selected = _select(lines, entries, agent)
            if selected[0]:
                return _AgentMatcher(selected[1], selected[2], True)
            fallback = selected  # not named: what it got are the * rules
        if not global_group:
            return _AgentMatcher([], [], False)
        if fallback is None:
            fallback = _select(lines, entries, None)
        return _AgentMatcher(fallback[1], fallback[2], False)


def parse(body: bytes | str, *, max_bytes: int = MAX_BODY_BYTES) -> RobotsTxt:
    """Parse a robots.txt body (bytes; a ``str`` is UTF-8 encoded) with Google's 500 KiB cap.

    Never raises for any bytes: the cap is a plain byte cut, and a partial last line is
    still a line.
    """
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogateescape")
    elif not isinstance(body, bytes):
        body = bytes(body)
    truncated = len(body) > max_bytes
    if truncated:
        body = body[:max_bytes]
    return RobotsTxt(body, truncated)
