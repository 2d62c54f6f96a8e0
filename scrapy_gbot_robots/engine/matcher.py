"""The verdicts for one crawler's group in force: :class:`Matcher`.

Built from the group's allow and disallow patterns (:func:`.groups.patterns_in_force`),
arranged so that most checks cost one C call: plain patterns are a sorted tuple searched by
the path, wildcard ones are shaped (:mod:`.shapes`) and screened by what a path they match
must hold, and past :data:`.wild_index.INDEXED` of them a :class:`.wild_index.WildIndex`
picks the few a path could match.  ``RobotsTxt.allowed`` runs the first screens on the URL
itself and calls :meth:`Matcher.verdict`; ``decide`` asks :meth:`Matcher.decide`, which
hands what the matcher found to the line detail (:class:`.decision.LineDetail`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from itertools import repeat
from operator import getitem, itemgetter

from . import wild_index
from .decision import Decision, LineDetail
from .linear_find import risky
from .shapes import (
    MANY,
    NO_MATCH,
    ONE,
    ONE_END,
    PREFIX,
    Shaped,
    classify,
    first_match,
    index_htm_fallback,
)
from .wild_index import WildIndex

# A wildcard or anchored rule with its verdict (see shapes.Shaped): sorted, by priority,
# allow first on a tie, as Google ranks them.
_Wild = Shaped[bool]
_FREE = 64  # a prefilter longer than this is searched by bisection (see _prefix_free())
_HEADLESS = 12  # a prefilter this short is cheaper to try whole than by its heads
_SECOND = itemgetter(1)
_FEW_LENGTHS = 8  # this few plain lengths: looked up by length after one search (_longest)
_SHARED_LENGTH = 4  # a length with more plain patterns than this is searched by bisection
_DESCENT = 4  # steps of the longest-prefix search before it tries each length (see _longest)


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
# few (``_SHARED_LENGTH``), else None: see Matcher._longest.
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


class Matcher:
    """The rules of one crawler's group in force, arranged so most checks cost one C call.

    * ``prefilter``: the literal prefixes of every rule except the ``/*...`` kind; a URL
      path that starts with none of them (the usual case) needs nothing more, unless
      ``screen`` says there are ``/*...`` rules, which are then screened by ``tails``
      (``endswith`` for anchored ones) and ``_needles`` (substrings the others need).
      ``firsts`` holds the entries' second characters, and ``heads`` (or ``free`` for a
      long prefilter) their first few: most paths are turned away by one of these before
      any ``startswith``.
    * plain rules (no ``*`` or ``$``) are the first ``_plain_count`` entries of
      ``prefilter``, sorted; ``_allow_at`` holds the positions of the allows among them
      (most files have few).  The longest that prefixes the path is the key before it, when
      that key starts it (one search); otherwise it is found by each shorter distinct
      length (``_lengths``, when few), or by searches for what the path shares with that
      key (:meth:`_longest`).  One shared tuple and a few positions cost far less memory
      than a dict, and the search only runs on a prefix hit.
      ``Allow: /`` or ``Disallow: /`` is kept aside in ``_root``.
    * ``_wild``: the other rules, shaped (:func:`.shapes.classify`), by priority, allow
      first on ties, tried (:func:`.shapes.first_match`) only while they could still beat
      the best plain match.  Past :data:`.wild_index.INDEXED` of them, ``_index`` (a
      :class:`.wild_index.WildIndex`) picks the few a path could match, and only those
      are tried; it then also does the screening of ``tails`` and ``_needles``.

    The attributes without an underscore (``prefilter``, ``firsts``, ``heads``, ``head``,
    ``free``, ``screen``, ``tails``) are what ``RobotsTxt.allowed`` reads to run the first
    screens on the URL itself.  Only what verdicts need is kept; the first :meth:`decide`
    builds the line detail from where the rules came from (the body, the tokens as asked,
    ``global_group``: references, nothing copied), so a crawl that never asks for lines
    never pays for it.
    """

    __slots__ = (
        "_allow_at",
        "_body",
        "_detail",
        "_global_group",
        "_groups",
        "_home",
        "_index",
        "_lengths",
        "_needles",
        "_plain_count",
        "_root",
        "_tokens",
        "_wild",
        "_wild_firsts",
        "firsts",
        "free",
        "head",
        "heads",
        "prefilter",
        "screen",
        "specific",
        "tails",
    )
    _wild: tuple[_Wild, ...]
    _wild_firsts: tuple[str, ...]
    tails: tuple[str, ...]
    _needles: tuple[str, ...]

    def __init__(
        self,
        allows: list[str],
        disallows: list[str],
        specific: bool,
        body: bytes,
        tokens: str | tuple[str, ...],
        global_group: bool,
    ) -> None:
        self.specific = specific
        self._body, self._tokens, self._global_group = body, tokens, global_group
        self._detail: LineDetail | None = None  # built by the first decide()
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
                allow = plain.pop(pattern)
                entry = classify(pattern, allow, allow)
                if entry is not None:
                    wild.append(entry)
        if "/index.htm" in joined:
            for pattern in allows:
                fallback = index_htm_fallback(pattern)
                if fallback is not None:  # "/dir/$": anchored, so always a wild rule
                    entry = classify(fallback, True, True)
                    if entry is not None:
                        wild.append(entry)
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
            trivial = self._arrange_wild(wild, ordered)
        else:  # most files: what _arrange_wild() gives for no wildcard rule
            self._wild = self._wild_firsts = self.tails = ()
            trivial = root is False  # "Disallow: /" decides every other path
            self._needles = ("",) if root is False else ()
        self.prefilter = tuple(ordered)
        self.screen = self._needles if trivial else None  # what allowed() reads
        # The second character of each entry (all start with "/"; the others never match,
        # and "/" is the root rule).
        # (each entry is "/" and more; repeats are fine, but a long prefilter drops them)
        firsts = map(_SECOND, ordered)
        self.firsts = "".join(set(firsts) if len(ordered) > _FREE else firsts)
        # The prefilter's first characters, as many as its shortest entry has, one line each:
        # a path whose first characters are not a line of it starts with no entry.  One slice
        # and one search answer most checks (a startswith over every entry costs one compare
        # each), in one small string.  A path has no newline where its head is a line.
        # Past _FREE entries, the prefilter is searched as a sorted tuple with no entry that
        # starts with another: the one that can start a path is the path's predecessor.
        self.head = 0
        self.heads: str | None = None
        self.free: tuple[str, ...] | None = None
        if len(ordered) > _FREE:
            self.free = _prefix_free(ordered)
        elif len(ordered) > _HEADLESS:  # (an entry not starting with "/" only adds a head)
            self.head = head = min(map(len, ordered))
            self.heads = "\n".join(set(map(itemgetter(slice(0, head)), ordered)))

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
        for rank, shape, first, second, chain, _ in wild:
            firsts[first] = None
            if chain is not None:
                weight += len(chain.middle)
            if rank == -2:  # a disallow of priority 1 ("*")
                star_disallow = True
            if first == "/" or not first:
                trivial = True
                if shape == PREFIX:
                    every = True
                elif shape in (ONE, MANY):
                    # A risky piece is searched once, by its chain: no screen for it.
                    needles["" if len(second) >= 32 and risky(second) else second] = None
                elif shape == ONE_END:
                    tails[second] = None
                elif chain is not None:  # MANY_END
                    tails[chain.last] = None
                else:  # EXACT: "/$", which only "/" itself ends with
                    tails[first] = None
        self._wild_firsts = tuple(firsts)
        # "Allow: /" alone never changes a verdict unless a priority-1 disallow ("*") exists.
        root = self._root
        root_matters = root is False or star_disallow
        trivial = trivial or (root is not None and root_matters)
        always = (root is not None and root_matters) or every
        self.tails = () if always else tuple(tails)
        self._needles = ("",) if always else tuple(needles)
        firsts.pop("", None)
        firsts.pop("/", None)
        ordered.extend(firsts)
        if weight > wild_index.INDEXED:  # (read first: most files skip the call)
            self._index = wild_index.index_for(self._wild, weight)
            if trivial:  # the index screens "/*..." rules
                self.tails, self._needles = (), ("",)
        return trivial

    def _plain_lengths(self) -> tuple[int, ...]:
        """The plain patterns' distinct lengths, longest first (on the first search)."""
        lengths = tuple(sorted(set(map(len, self.prefilter[: self._plain_count])), reverse=True))
        self._lengths = lengths
        return lengths

    def _longest(self, path: str) -> int:
        """Where the longest plain pattern that starts ``path`` is in ``prefilter``; -1 if none.

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
        keys = self.prefilter
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

    def home(self) -> bool:
        """The verdict for "/": a site's home page, which its own links ask about again and
        again, and whose URL (``https://host``) has no path to find by the prefix."""
        home = self._home
        if home is None:  # no prefilter entry starts "/": each is "/" and more
            home = self._home = self.verdict("/", False)
        return home

    def allowed_path(self, path: str) -> bool:
        """The verdict for a path (which always starts with ``/``)."""
        free = self.free
        if free is None:
            prefixed = path.startswith(self.prefilter)
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
        if not prefixed and not path.endswith(self.tails):
            for needle in self._needles:
                if needle in path:
                    break
            else:
                return True
        best = NO_MATCH  # the rank of the best match: -(2 * priority + is_allow)
        best_allow = True
        if prefixed and self._plain_count:
            at = self._longest(path)
            if at >= 0:
                best_allow = at in self._allow_at
                best = -2 * len(self.prefilter[at]) - best_allow
        if best == NO_MATCH and self._root is not None:
            best_allow = self._root
            best = -2 - best_allow
        index = self._index
        if index is None:
            if not path.startswith(self._wild_firsts):
                return best_allow
            entries: Iterable[_Wild] = self._wild
        else:  # looked up as they are tried: the first that matches decides
            entries = map(getitem, repeat(self._wild), index.candidates(path))
        hit = first_match(entries, path, best)
        return best_allow if hit is None else hit

    def decide(self, path: str) -> Decision:
        """The :class:`.decision.Decision` for ``path``, with the line Google would report.

        The line detail is built on the first call; this matcher finds what
        the verdict rests on (the longest plain prefix; when no prefilter entry starts the
        path, whether the screens of "/*..." rules let them through) and the detail names
        the rule.
        """
        detail = self._detail
        if detail is None:
            detail = LineDetail.of(self._body, self._tokens, self._global_group)
            self._detail = detail
        free = self.free
        if free is None:
            prefixed = path.startswith(self.prefilter)
        else:
            at = bisect_right(free, path)
            prefixed = at > 0 and path.startswith(free[at - 1])
        if not prefixed:  # the screens of verdict(), inline: this is a per-request call
            if path.endswith(self.tails):
                return detail.decide(path, None, True)
            for needle in self._needles:
                if needle in path:
                    return detail.decide(path, None, True)
            return detail.decide(path, None, False)
        at = self._longest(path) if self._plain_count else -1
        return detail.decide(path, self.prefilter[at] if at >= 0 else None, True)
