"""A verdict with its reason: :class:`Decision`, and the line detail that finds the rule.

``RobotsTxt.decide`` reports the rule Google's ``matching_line()`` names.  A verdict's
matcher (:mod:`.matcher`) keeps only what verdicts need, so the first ``decide`` for a
crawler builds a :class:`LineDetail` beside it: each pattern of the group in force with the
first rule that wrote it.  The winner is found as the verdict is (the matcher's screens and
longest plain prefix, then the wildcard rules by rank), and the detail names its line.
:func:`decide_reference` is the plain rule-by-rule replay of Google's matcher that the tests
hold it to.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .groups import GroupInForce, Rule, group_in_force
from .lines import directives
from .path_match import priority
from .shapes import NO_MATCH, Shaped, classify, first_match, index_htm_fallback
from .wild_index import WildIndex, index_for

Group = Literal["agent", "global", "none"]


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


class _Outcome:
    """What the first rule of a pattern decides, for one rank ``-(2 * priority + is_allow)``.

    ``decision`` is the rule as :func:`.groups.walk_groups` gave it (its pattern replaced by
    the index.htm fallback for one), made a :class:`Decision` on first use.  For a plain
    pattern, the first ``count`` of ``earlier`` are the wildcard patterns of the same rank
    whose first rule comes before this one, in file order: when one matches too, its rule
    is the one Google reports.
    """

    __slots__ = ("count", "decision", "earlier", "rank")

    def __init__(self, rank: int, decision: Decision | Rule) -> None:
        self.rank = rank
        self.decision = decision
        self.earlier: tuple[_Keyed, ...] = ()
        self.count = 0


# A wildcard or anchored pattern with the outcome of its first rule (see shapes.Shaped).
_Keyed = Shaped[_Outcome]


class LineDetail:
    """What ``decide`` needs beyond a verdict's matcher, for one crawler's group in force.

    The patterns are merged and classified exactly as the matcher does for its verdicts (so
    its screens hold for them), each with the outcome of its first rule: the plain patterns
    but ``/`` by pattern, the wildcard ones by rank then file order (with a
    :class:`.wild_index.WildIndex` when there are many), ``/`` apart, and the outcome when
    no pattern of positive priority matches.  A plain winner only needs the wildcard
    patterns of its rank before it: another plain pattern of that rank that matched would be
    equal to it (two plain prefixes of one length), and a pattern that is a wildcard one in
    the file but merged into an allow here cannot decide as a disallow (the allow, of the
    same length, would match too).
    """

    __slots__ = ("_firsts", "_group", "_index", "_none", "_plain", "_root", "_token", "_wild")

    def __init__(self, in_force: GroupInForce) -> None:
        rules, token = in_force.rules, in_force.token
        group: Group = "agent" if in_force.specific else "global"
        self._group = group
        self._token = token
        outcomes: dict[tuple[int, str], _Outcome] = {}  # (rank, pattern) -> its first rule's
        empty: dict[bool, Decision] = {}
        for rule in rules:
            line, allow, pattern, key, value = rule
            if not pattern:  # priority 0: matches every path, decides only when nothing else
                if allow not in empty:
                    written = value.decode("utf-8", "backslashreplace")
                    directive = key.decode("utf-8", "backslashreplace")
                    empty[allow] = Decision(True, line, directive, written, "", group, token)
                continue
            source: Rule = rule
            while True:
                rank = -2 * len(pattern) - allow
                # A pattern that starts with neither "/" nor "*" never matches a path, nor "$".
                if (rank, pattern) not in outcomes and pattern[0] in "/*" and pattern != "$":
                    outcomes[rank, pattern] = _Outcome(rank, source)
                if source is not rule or not allow or "/index.htm" not in pattern:
                    break
                fallback = index_htm_fallback(pattern)  # tried when the pattern fails; shorter
                if fallback is None:
                    break
                pattern = fallback
                source = (line, allow, fallback, key, value)
        order = {id(outcome): at for at, outcome in enumerate(outcomes.values())}
        # The patterns as the matcher has them: a pattern both allowed and disallowed is an
        # allow (priority ties go to allow); "" never decides; "/" is its root rule.
        merged = dict.fromkeys([rule[2] for rule in rules if not rule[1]], False)
        merged.update(dict.fromkeys([rule[2] for rule in rules if rule[1]], True))
        merged.pop("", None)
        plain: dict[str, _Outcome] = {}
        shaped: list[_Keyed] = []
        for pattern, allow in merged.items():
            while True:
                outcome = outcomes.get((-2 * len(pattern) - allow, pattern))
                if outcome is not None:
                    if "*" in pattern or pattern[-1] == "$":
                        entry = classify(pattern, allow, outcome)
                        if entry is not None:
                            shaped.append(entry)
                    elif pattern != "/":
                        plain[pattern] = outcome
                if not allow or "/index.htm" not in pattern:
                    break
                fallback = index_htm_fallback(pattern)
                if fallback is None:
                    break
                pattern = fallback  # "/dir/$": no "/index.htm" in it, so the loop ends
        # By rank, then file order.
        wild = sorted(shaped, key=lambda entry: (entry[0], order[id(entry[5])]))
        root = outcomes.get((-2 - merged["/"], "/")) if "/" in merged else None
        runs: dict[int, list[_Keyed]] = {}  # the wildcard patterns of each rank, in file order
        for entry in wild:
            runs.setdefault(entry[0], []).append(entry)
        shared = {rank: (tuple(run), [order[id(e[5])] for e in run]) for rank, run in runs.items()}
        for outcome in [*plain.values(), *([root] if root is not None else [])]:
            if outcome.rank in shared:
                outcome.earlier, orders = shared[outcome.rank]
                outcome.count = bisect_left(orders, order[id(outcome)])
        # No positive match: an empty allow beats an empty disallow (0 > 0 is false), and an
        # empty disallow alone is reported with the verdict still "allowed".
        nothing = Decision(True, 0, "", "", "", "none", token)  # no rule matched, not even ""
        self._none = _Outcome(NO_MATCH, empty.get(True) or empty.get(False) or nothing)
        self._plain = plain
        self._root = root
        self._wild = tuple(wild)
        self._firsts = tuple(dict.fromkeys(entry[2] for entry in wild))
        weight = len(wild) + sum(len(e[4].middle) for e in wild if e[4] is not None)
        self._index: WildIndex | None = index_for(wild, weight)

    @classmethod
    def of(cls, body: bytes, tokens: str | Sequence[str], global_group: bool) -> LineDetail:
        """The line detail of the group in force for a token (or tokens) in a body."""
        listed = (tokens,) if isinstance(tokens, str) else tokens
        return cls(group_in_force(directives(body), listed, global_group))

    def decide(self, path: str, plain: str | None, screened: bool) -> Decision:
        """The :class:`Decision` for ``path``: exactly what :func:`decide_reference` gives.

        The matcher has found ``plain``, the longest plain pattern that starts ``path`` (None
        when none does), and ``screened``, False when its screens showed that no wildcard
        rule can match.  The winner is ranked as the verdict is (higher priority first, an
        allow first on a tie).  Google reports the first rule in file order of the winner's
        kind whose pattern (or index.htm fallback) matches with the winner's priority: the
        wildcard patterns of one rank are tried in file order, so a wildcard winner is that
        rule, and a plain winner's outcome lists the wildcard patterns of its rank that come
        before it (most often none).
        """
        none = self._none
        found = none if plain is None else self._plain[plain]
        if found is none and self._root is not None:
            found = self._root
        wild: Sequence[_Keyed] = self._wild if screened else ()
        if wild:
            index = self._index
            if index is not None:
                wild = [wild[at] for at in index.candidates(path)]
            elif not path.startswith(self._firsts):
                wild = ()
            hit = first_match(wild, path, found.rank) if wild else None
            if hit is not None:
                found = hit
        if found.count:  # a plain winner: wildcard patterns of its rank, earlier in the file
            hit = first_match(found.earlier[: found.count], path, NO_MATCH)
            if hit is not None:
                found = hit
        decision = found.decision
        if not isinstance(decision, Decision):  # built on first use: most rules never are
            line, allow, pattern, key, value = decision
            decision = found.decision = Decision(
                allow,
                line,
                key.decode("utf-8", "backslashreplace"),
                value.decode("utf-8", "backslashreplace"),
                pattern,
                self._group,
                self._token,
            )
        return decision


def decide_reference(path: str, rules: list[Rule], specific: bool) -> Decision:
    """Replay Google's matcher over a group's rules, rule by rule: what ``decide`` gives.

    The plain transcription of ``RobotsMatcher`` (each rule checked, the index.htm fallback
    tried when an allow fails, ``matching_line()``), kept as the tests' reference.
    """
    best = {True: (-1, 0), False: (-1, 0)}  # is_allow -> (priority, line)
    chosen: dict[bool, tuple[str, bytes, bytes]] = {}
    for line, allow, pattern, key, value in rules:
        found = priority(path, pattern)
        if found < 0 and allow:
            fallback = index_htm_fallback(pattern)
            if fallback is not None:
                pattern = fallback
                found = priority(path, fallback)
        if found > best[allow][0]:
            best[allow] = (found, line)
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
