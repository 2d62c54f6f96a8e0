"""Google's page-level rules as text: one rule read, and a list of rules split.

A ``content`` attribute or an ``X-Robots-Tag`` value is a comma-separated list of rules
(Google: "If you have multiple content values, you must place a comma between them"). Two
things make the split less simple than ``split(",")``, and both live here:

* **Dates with commas.** ``unavailable_after: Friday, 25-Jun-10 15:00:00 PST`` (RFC 850) and
  ``unavailable_after: Fri, 25 Jun 2010 ...`` (RFC 822) hold a comma. When the text after
  ``unavailable_after:`` is not a date, the next pieces are joined to it (at most
  :data:`DATE_PIECES` in all) while the joined text is not yet a date and the next piece is
  not itself a rule: ``unavailable_after: junk, nofollow`` stays two rules.
* **User agents in headers.** ``X-Robots-Tag: googlebot: nofollow``: a piece ``NAME: rest``
  whose NAME is a product token (``[A-Za-z_-]+``) and not one of Google's rule names is a
  user agent, and it applies to ``rest`` and to the pieces after it in the same header
  value, until another one (``X-Robots-Tag: noindex, otherbot: nofollow``: ``noindex`` for
  every crawler, ``nofollow`` for otherbot only), as MDN describes the header. The rule names
  that take a value (``max-snippet``, ``unavailable_after``...) are never user agents, which
  is how ``unavailable_after: 25 Jun 2010 15:00:00 PST`` keeps its colons.

Everything is ASCII case-insensitive ("Both the name and the content attributes are
case-insensitive"; "The HTTP header, the user agent name, and the specified values are not
case sensitive"). Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from .dates import parse_date

#: Rules that stand alone. ``all`` (Google: "the default value and has no effect if
#: explicitly listed"), ``index`` and ``follow`` (the defaults, in Google's earlier text of
#: the page) are known and change nothing.
FLAGS = frozenset(
    {
        "all",
        "index",
        "follow",
        "noindex",
        "nofollow",
        "none",
        "nosnippet",
        "indexifembedded",
        "notranslate",
        "noimageindex",
    }
)
#: Rules that take a value after a colon.
VALUED = frozenset({"max-snippet", "max-image-preview", "max-video-preview", "unavailable_after"})
#: ``max-image-preview`` settings, least to most permissive.
IMAGE_PREVIEWS = ("none", "standard", "large")
#: Pieces an ``unavailable_after`` date may span (its own and two more: ``Fri, 25 Jun``).
DATE_PIECES = 3
#: A rule's text is kept (in ``other``) cut at this many characters.
RULE_CHARS = 200
#: The digits of a number value; more is not a snippet length anyone means.
NUMBER_DIGITS = 9

_TOKEN = re.compile(r"[A-Za-z_-]+")
_NUMBER = re.compile(rf"-1|\d{{1,{NUMBER_DIGITS}}}")
_SPACE = " \t\r\n\f\v"


@dataclass(frozen=True, slots=True)
class Directive:
    """One rule as read: its name (lower case) and its value (a number, a setting, a date).

    ``name`` is "" for text that is not one of Google's rules, or a known rule with a value
    Google would not read (``max-snippet: lots``, an unknown date): ``text`` keeps it as
    written, and it changes nothing.
    """

    name: str
    text: str
    number: int | None = None
    setting: str | None = None
    date: datetime | None = None

    @property
    def known(self) -> bool:
        return bool(self.name)


def _unknown(text: str) -> Directive:
    return Directive("", text[:RULE_CHARS])


def read_rule(text: str) -> Directive:
    """One rule's text (``noindex``, ``max-snippet: 50``) as a :class:`Directive`."""
    text = text.strip(_SPACE)
    lowered = text.lower()
    if lowered in FLAGS:
        return Directive(lowered, text)
    name, colon, value = lowered.partition(":")
    name = name.strip(_SPACE)
    if not colon or name not in VALUED:
        return _unknown(text)
    value = value.strip(_SPACE)
    if name == "unavailable_after":
        date = parse_date(text.partition(":")[2])
        return _unknown(text) if date is None else Directive(name, text, date=date)
    if name == "max-image-preview":
        if value in IMAGE_PREVIEWS:
            return Directive(name, text, setting=value)
        return _unknown(text)
    if _NUMBER.fullmatch(value):  # max-snippet, max-video-preview: -1 (no limit), 0, N
        return Directive(name, text, number=int(value))
    return _unknown(text)


def user_agent_prefix(piece: str) -> tuple[str, str] | None:
    """``googlebot: nofollow`` as (``googlebot``, ``nofollow``); None when ``piece`` does not
    start with a user agent (no colon, a rule name before it, or not a product token)."""
    name, colon, rest = piece.partition(":")
    if not colon:
        return None
    name = name.strip(_SPACE)
    lowered = name.lower()
    if lowered in VALUED or lowered in FLAGS or not _TOKEN.fullmatch(name):
        return None
    return lowered, rest


def _is_rule_or_agent(piece: str) -> bool:
    """Whether a piece stands on its own: a known rule, or a user agent with rules."""
    return read_rule(piece).known or user_agent_prefix(piece) is not None


def _is_undated(directive: Directive) -> bool:
    """``unavailable_after:`` whose text after the colon is not (yet) a date."""
    return not directive.known and (
        directive.text.partition(":")[0].strip(_SPACE).lower() == "unavailable_after"
    )


def split_rules(value: str, agents: bool = False) -> Iterator[tuple[str | None, Directive]]:
    """Each rule of a comma-separated list, with the user agent it is addressed to.

    ``agents``: the list is an ``X-Robots-Tag`` value, where ``NAME: rules`` addresses a
    user agent (see the module doc); in a meta tag's ``content`` the name says that, and
    such a piece is an unknown rule. The agent is None for rules addressed to every crawler.
    """
    pieces = value.split(",")
    agent: str | None = None
    i = 0
    while i < len(pieces):
        piece = pieces[i]
        i += 1
        if agents:
            prefixed = user_agent_prefix(piece)
            if prefixed is not None:
                agent, piece = prefixed
        if not piece.strip(_SPACE):
            continue
        directive = read_rule(piece)
        if _is_undated(directive):
            joined = piece
            for extra in range(1, DATE_PIECES):
                j = i + extra - 1
                if j >= len(pieces) or _is_rule_or_agent(pieces[j]):
                    break
                joined += "," + pieces[j]
                dated = read_rule(joined)
                if dated.known:
                    directive, i = dated, j + 1
                    break
        yield agent, directive
