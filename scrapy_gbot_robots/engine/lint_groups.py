"""The linter's view of groups, and its checks of them (``GR401`` to ``GR405``, ``GR408``).

Lines are grouped the way the reference parser groups them; which group applies to a crawler
is always asked of the engine (``RobotsTxt.names_agent``), so a finding about a group can
never disagree with a verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from .._safetext import display, short
from .lines import LineKind, LineReport
from .lint_checks import Emit
from .lint_lines import DISPLAY_KEY, RULES, agent_is_global, agent_token
from .rules import parse
from .tokens import is_valid_token


@dataclass(slots=True)
class Group:
    """A run of user-agent lines and the rules after it, as the reference parser groups them."""

    index: int
    agent_lines: list[LineReport] = field(default_factory=list)
    rule_lines: list[LineReport] = field(default_factory=list)

    @property
    def first_line(self) -> int:
        return self.agent_lines[0].number

    @property
    def last_line(self) -> int:
        last = self.rule_lines[-1] if self.rule_lines else self.agent_lines[-1]
        return last.number

    @property
    def is_global(self) -> bool:
        return any(agent_is_global(a.value) for a in self.agent_lines)

    @property
    def tokens(self) -> list[str]:
        """Lower-cased product tokens this group names (without '*'), in file order, unique."""
        seen: list[str] = []
        for a in self.agent_lines:
            tok = agent_token(a.value)
            if tok and tok not in seen:
                seen.append(tok)
        return seen

    def as_json(self) -> dict[str, object]:
        return {
            "group": self.index,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "user_agents": [display(a.value) for a in self.agent_lines],
            "tokens": self.tokens,
            "global": self.is_global,
            "rule_lines": [r.number for r in self.rule_lines],
        }


def group_lines(reports: Sequence[LineReport]) -> tuple[list[Group], list[LineReport]]:
    """Split the tokenized lines into groups the way the reference parser does.

    A group ends only when a user-agent line follows an allow/disallow line; rules before the
    first user-agent line belong to no group and are returned separately (Google ignores them).
    """
    groups: list[Group] = []
    orphans: list[LineReport] = []
    current: Group | None = None
    for r in reports:
        if r.kind is LineKind.USER_AGENT:
            if current is None or current.rule_lines:
                current = Group(index=len(groups) + 1)
                groups.append(current)
            current.agent_lines.append(r)
        elif r.kind in RULES:
            if current is None:
                orphans.append(r)
            else:
                current.rule_lines.append(r)
    return groups, orphans


def _lines_list(numbers: Iterable[int]) -> str:
    nums = sorted(set(numbers))
    label = "line" if len(nums) == 1 else "lines"
    if len(nums) > 8:
        return f"{label} {', '.join(map(str, nums[:8]))}, … ({len(nums)} in all)"
    return f"{label} {', '.join(map(str, nums))}"


def _rule_text(r: LineReport) -> str:
    key = DISPLAY_KEY.get(r.kind, display(r.key)) if r.kind is not None else display(r.key)
    return f"'{key}: {short(display(r.value))}'" if r.value else f"'{key}:'"


def orphan_findings(orphans: Sequence[LineReport], emit: Emit) -> None:
    """GR401: the rules before any user-agent line, which Google ignores."""
    for r in orphans:
        emit(
            "GR401",
            r.number,
            f"{_rule_text(r)} comes before any User-agent line: Google ignores it "
            "(each group must begin with a User-agent line)",
        )


def joined_findings(reports: Sequence[LineReport], groups: Sequence[Group], emit: Emit) -> None:
    """GR408: user-agent lines that a line other than a rule (a ``Crawl-delay``, a
    ``Sitemap``, an unknown key) stands between, which still form one group: only an
    allow/disallow line followed by a user-agent line ends a group (Google's parser, RFC
    9309), so the rules after the last of them apply to every one of them. The most-asked
    trap: ``User-agent: *`` / ``Crawl-delay: 10`` / ``User-agent: badbot`` / ``Disallow: /``
    disallows everything for every crawler."""
    kinds = {r.number: r for r in reports if r.kind is not None}
    for g in groups:
        agents = g.agent_lines
        for before, after in pairwise(agents):
            between = [
                kinds[n]
                for n in range(before.number + 1, after.number)
                if n in kinds and kinds[n].kind is not LineKind.USER_AGENT
            ]
            if not between:
                continue
            who = _agents_text(agents)
            rules = (
                f"its rules ({_lines_list(r.number for r in g.rule_lines)}) apply to each of them"
                if g.rule_lines
                else "it has no rule: each of them may crawl everything"
            )
            emit(
                "GR408",
                after.number,
                f"'User-agent: {short(display(after.value))}' joins the group of line "
                f"{agents[0].number}: {_line_list_text(between)} between them is not an "
                "allow/disallow line, so it ends no group; the group's user agents are "
                f"{who}, and {rules}",
            )


def _agents_text(agents: Sequence[LineReport]) -> str:
    names = list(dict.fromkeys(short(display(a.value), 40) or "''" for a in agents))
    if len(names) > 8:
        return f"{', '.join(names[:8])}, … ({len(names)} in all)"
    return ", ".join(names)


def _line_list_text(lines: Sequence[LineReport]) -> str:
    first = lines[0]
    key = DISPLAY_KEY.get(first.kind, display(first.key)) if first.kind else display(first.key)
    shown = f"line {first.number} ({short(key)}: {short(display(first.value))})"
    more = len(lines) - 1
    return shown + (f" and {more} more line{'s' if more > 1 else ''}" if more else "")


def group_findings(parsed: bytes, groups: Sequence[Group], emit: Emit) -> None:
    """GR402 to GR405: what one group does to another, and rules repeated or in conflict."""
    rt = parse(parsed)
    global_rules = [r for g in groups if g.is_global for r in g.rule_lines if r.pattern]
    # Every agent that has its own group(s): merged rules, first naming line.
    named: dict[str, list[Group]] = {}
    for g in groups:
        for tok in g.tokens:
            named.setdefault(tok, []).append(g)

    if global_rules:
        for tok, gs in named.items():
            if not is_valid_token(tok) or not rt.names_agent(tok):
                continue
            # The * rules in a group that also names tok apply to it (GR408 says why): only
            # those of the other * groups are hidden from it.
            hidden_rules = [
                r for g in groups if g.is_global and g not in gs for r in g.rule_lines if r.pattern
            ]
            if not hidden_rules:
                continue
            own = [r for g in gs for r in g.rule_lines]
            first = min(a.number for g in gs for a in g.agent_lines if agent_token(a.value) == tok)
            hidden = _lines_list(r.number for r in hidden_rules)
            if own:
                allows_all = (
                    "" if any(r.pattern for r in own) else " (its own group allows everything)"
                )
                emit(
                    "GR402",
                    first,
                    f"{tok!r} has its own group, so Google ignores the * group for it: the * "
                    f"rules ({hidden}) do not apply to {tok}{allows_all}",
                )
            else:
                # A trailing "User-agent: X" with no rule after it: usually a mistake.
                emit(
                    "GR403",
                    first,
                    f"{tok!r} has its own group but no allow/disallow line in it: {tok} may "
                    f"crawl everything, the * rules ({hidden}) do not apply to it",
                )

    # Duplicates and conflicts, per merged rule set (each named agent, and '*').
    sets: list[tuple[str, list[LineReport]]] = [
        (tok, [r for g in gs for r in g.rule_lines]) for tok, gs in named.items()
    ]
    if any(g.is_global for g in groups):
        sets.append(("*", [r for g in groups if g.is_global for r in g.rule_lines]))
    reported: dict[tuple[str, int, int], list[str]] = {}
    for agent, rules in sets:
        first_seen: dict[tuple[LineKind | None, str], LineReport] = {}
        for r in sorted(rules, key=lambda x: x.number):
            if not r.pattern:
                continue
            same = first_seen.get((r.kind, r.pattern))
            other_kind = LineKind.ALLOW if r.kind is LineKind.DISALLOW else LineKind.DISALLOW
            other = first_seen.get((other_kind, r.pattern))
            if same is not None:
                reported.setdefault(("GR404", r.number, same.number), []).append(agent)
            if other is not None:
                reported.setdefault(("GR405", r.number, other.number), []).append(agent)
            first_seen.setdefault((r.kind, r.pattern), r)
    for (code, line, earlier), agents in reported.items():
        who = ", ".join(agents)
        if code == "GR404":
            emit("GR404", line, f"the same rule as line {earlier} (for {who}); remove one")
        else:
            emit(
                "GR405",
                line,
                f"conflicts with line {earlier} (same pattern, for {who}): Google resolves the "
                "tie in favour of Allow",
            )
