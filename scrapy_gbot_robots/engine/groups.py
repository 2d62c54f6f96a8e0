"""Lines to the group in force: Google's group logic, and which group a crawler obeys.

A robots.txt is a list of groups, each its user-agent lines and then its rules; a crawler
obeys the groups that name one of its tokens (merged), else the ``*`` groups.
:func:`walk_groups` is Google's group logic for one token, on the tokenizer's lines
(:func:`.lines.directives`), with line numbers and the other lines of each group;
:func:`fast_select` is the same walk on the one-regex lines of a plain body
(:func:`.lines.fast_matcher_lines`), giving the patterns alone, which is all a verdict
needs.  For a crawler with several tokens, most specific first, the first token that a group
names decides, and ``*`` applies only when none does (:func:`group_in_force`,
:func:`patterns_in_force`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .lines import (
    WS,
    FastLine,
    LineKind,
    colonless_line,
    escape_pattern,
    fast_matcher_lines,
    matcher_directives,
)
from .tokens import TOKEN_PREFIX_RE, is_valid_token, names_everyone

#: A rule as the group walk yields it: (line, is_allow, normalised pattern, key, value as
#: written).
Rule = tuple[int, bool, str, bytes, bytes]
#: An unknown line: (its group names the token, its group names "*", line, key, value).
Unknown = tuple[bool, bool, int, bytes, bytes]
#: A line as the tokenizer gives it: (line number, kind, key, value).
Entry = tuple[int, LineKind, bytes, bytes]
#: What one token's group gives a matcher: (a group names it, allow patterns, disallow ones).
Patterns = tuple[bool, list[str], list[str]]

_MAX_TOKENS = 16  # tokens whose key is remembered; a crawl asks with one token or a few


def token_key(token: str) -> str | None:
    """What file tokens are compared with; None when no token can ever equal this one."""
    if token == "" or is_valid_token(token):
        return token.lower()
    return None


_KEYS: dict[str, tuple[str | None, bytes]] = {}


def _token_bytes(token: str) -> tuple[str | None, bytes]:
    """:func:`token_key` and its ASCII bytes, remembered for a few tokens."""
    known = _KEYS.get(token)
    if known is None:
        key = token_key(token)
        known = (key, key.encode("ascii") if key else b"")
        if len(_KEYS) < _MAX_TOKENS:
            _KEYS[token] = known
    return known


def walk_groups(
    entries: list[Entry], key: str | None
) -> tuple[bool, list[Rule], list[Rule], list[Unknown]]:
    """Google's group logic for one token (its :func:`token_key`), the only place it lives.

    Returns whether any group names the token (then only its rules count and every ``*``
    rule is ignored), the token's rules, the ``*`` rules, and the unknown lines (with their
    line numbers) with whether their group names the token and whether it names ``*``
    (known only once the group's user-agent lines are all read: an unknown line does not
    split them; one before the first user-agent line is in no group).  A group
    ends only when a user-agent line follows an allow or disallow line; rules before any
    user-agent line, or under tokens that are neither ``*`` nor this one, are ignored.
    Values are bytes as written: user-agent values are compared raw, rule values get
    normalised here.
    """
    specific_rules: list[Rule] = []
    global_rules: list[Rule] = []
    # Unknown lines wait, with their group's number, until the group's tokens are known.
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
    for line, kind, written, value in entries:
        if kind is user_agent:
            if seen_separator:
                seen_global = seen_specific = seen_separator = False
            if boundary:
                boundary = False
                group_kinds.append((False, False))
            text = value.decode("latin-1")
            if names_everyone(text):
                seen_global = True
            elif key is not None:
                match = token_of(text)
                if match is not None and match.group().lower() == key:
                    seen_specific = ever_specific = True
            group_kinds[-1] = (seen_specific, seen_global)
        elif kind is allow or kind is disallow:
            boundary = True
            if not (seen_specific or seen_global):
                continue
            seen_separator = True
            rule = (line, kind is allow, escape_pattern(value), written, value)
            (specific_rules if seen_specific else global_rules).append(rule)
        elif kind is LineKind.UNKNOWN:
            pending.append((len(group_kinds) - 1, line, written, value))
    unknown = [(*group_kinds[at], line, written, value) for at, line, written, value in pending]
    return ever_specific, specific_rules, global_rules, unknown


def fast_select(lines: list[FastLine], key: str | None) -> Patterns:
    """:func:`walk_groups` for the matcher's fast path: allow and disallow patterns only.

    The same state machine, specialised to the tuples of :func:`.lines.fast_matcher_lines`
    so that the first check of a site does no per-line bookkeeping it does not need (a third
    of the time of a first check).  ``tests/engine/test_groups.py`` pins it to
    :func:`walk_groups` on random bodies; keep the two in step.
    """
    specific_allows: list[str] = []
    specific_disallows: list[str] = []
    global_allows: list[str] = []
    global_disallows: list[str] = []
    seen_global = seen_specific = seen_separator = ever_specific = False
    token_of = TOKEN_PREFIX_RE.match
    size = len(key) if key is not None else 0
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
            elif key is not None and value[:size].lower() == key:
                # (A value whose token is this one starts with it: one slice and compare
                # turn most lines away before the token regex.)
                match = token_of(value)
                if match is not None and match.group().lower() == key:
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


class GroupInForce(NamedTuple):
    """The group whose rules apply to a crawler, as :func:`group_in_force` picks it."""

    token: str  # the token (as given) whose group it is, "*" for the global group, "" none
    specific: bool  # a token's own group (the * group is then hidden)
    rules: list[Rule]
    unknown: list[tuple[int, bytes, bytes]]  # (line, key, value) of its other lines


def group_in_force(entries: list[Entry], tokens: Sequence[str], global_group: bool) -> GroupInForce:
    """Google's group selection for a token list, the one place it lives.

    The first token that a group names wins, with all of its groups merged (a group with no
    rules counts: it hides ``*`` all the same); else the ``*`` groups, unless
    ``global_group`` is False; else nothing.  One :func:`walk_groups` per token tried.
    """
    walked = None
    for token in tokens:
        walked = walk_groups(entries, token_key(token))
        specific, token_rules, _, unknown = walked
        if specific:
            mine = [(line, key, value) for named, _, line, key, value in unknown if named]
            return GroupInForce(token, True, token_rules, mine)
    if not global_group:
        return GroupInForce("", False, [], [])
    if walked is None:
        walked = walk_groups(entries, None)
    _, _, global_rules, unknown = walked
    star = any(
        kind is LineKind.USER_AGENT and names_everyone(value.decode("latin-1"))
        for _, kind, _, value in entries
    )
    theirs = [(line, key, value) for _, global_, line, key, value in unknown if global_]
    return GroupInForce("*" if star else "", False, global_rules, theirs)


def patterns_in_force(body: bytes, tokens: Sequence[str], global_group: bool) -> Patterns:
    """The allow and disallow patterns of the group in force (:func:`group_in_force`'s
    choice), by the fast path when the body allows: what a verdict's matcher is built from."""
    lines = fast_matcher_lines(body)
    entries = matcher_directives(body) if lines is None else None
    lowered: bytes | None = None
    fallback: Patterns | None = None
    single = len(tokens) == 1
    for token in tokens:
        key, spelled = _token_bytes(token)
        # One token on the fast path (a crawl's question): fast_select's own test of each
        # user-agent line costs less than lowering the body to search it.  For a token
        # list, the search spares a walk per token the file never names.
        if key and not (single and lines is not None):
            if lowered is None:
                lowered = body.lower()
            if lowered.find(spelled) < 0:  # (see fast_matcher_lines: not "in")
                key = None  # no line can name it: skip every token comparison
        if key is None and fallback is not None:
            continue  # it names no group, and the * rules are already known
        # (fast_select called here, not through _select: one call less per first check)
        selected = fast_select(lines, key) if lines is not None else _select(None, entries, key)
        if selected[0]:
            return selected
        fallback = selected  # not named: what it got are the * rules
    if not global_group:
        return False, [], []
    if fallback is None:
        fallback = _select(lines, entries, None)
    return fallback


def _select(lines: list[FastLine] | None, entries: list[Entry] | None, key: str | None) -> Patterns:
    """One token's allow and disallow patterns: the fast path when the body allows."""
    if lines is not None:
        return fast_select(lines, key)
    assert entries is not None
    specific, token_rules, global_rules, _ = walk_groups(entries, key)
    rules = token_rules if specific else global_rules
    return specific, [rule[2] for rule in rules if rule[1]], [r[2] for r in rules if not r[1]]
