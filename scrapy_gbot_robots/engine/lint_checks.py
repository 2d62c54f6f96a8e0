"""The linter's catalogue: every finding kind with its stable code and fixed severity.

Each finding kind has a stable code (``GR`` + three digits) and a fixed severity so that CI can
gate on it; codes are never reused or renumbered (see docs/cli.md for the catalogue). The
hundreds name the family, and each family's checks live in one module: ``GR1xx`` the file
(``engine/lint.py``, except ``GR103``, found line by line); ``GR2xx`` and ``GR3xx`` a line and
its pattern, ``GR406``/``GR407`` a user-agent value, ``GR5xx`` sitemaps and RSL licences
(``engine/lint_lines.py``); ``GR401`` to ``GR405`` and ``GR408`` groups
(``engine/lint_groups.py``);
``GR6xx`` content-usage statements (``engine/lint_usage.py``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

#: How a family of checks reports a finding: (code, line, message).
Emit = Callable[[str, int, str], None]


class Severity(enum.IntEnum):
    """Ordered so that ``--fail-on`` is a simple comparison."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Check:
    """One entry of the catalogue: the stable identity of a finding kind."""

    code: str
    name: str
    severity: Severity
    summary: str


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

#: The catalogue. Codes are stable: add new ones, never renumber or reuse.
CHECKS: tuple[Check, ...] = (
    # File level
    Check("GR101", "bom", _I, "UTF-8 byte order mark at the start of the file (Google skips it)"),
    Check("GR102", "partial-bom", _W, "a partial byte order mark at the start (Google skips it)"),
    Check("GR103", "non-utf8", _W, "a line is not valid UTF-8"),
    Check("GR104", "over-size-limit", _E, "content past 500 KiB, which Google ignores"),
    Check("GR105", "html", _W, "the file looks like HTML, not robots.txt"),
    Check("GR106", "no-user-agent", _I, "no user-agent line: the file restricts nobody"),
    # Line level
    Check("GR201", "typo-key", _W, "a key recognised through an accepted typo"),
    Check("GR202", "missing-colon", _W, "no colon after the key; whitespace accepted instead"),
    Check("GR203", "ignored-no-separator", _W, "line ignored: no colon and not two tokens"),
    Check("GR204", "ignored-too-many-tokens", _W, "line ignored: no colon and over two tokens"),
    Check("GR205", "ignored-empty-key", _W, "line ignored: nothing before the colon"),
    Check("GR206", "unknown-key", _W, "a key Google does not know; the line is ignored"),
    Check("GR207", "crawl-delay", _I, "crawl-delay, which Google ignores"),
    Check("GR208", "inexact-key", _W, "a key read by its prefix, e.g. 'Disallowed' as disallow"),
    Check("GR209", "line-too-long", _E, "a line cut at 16,663 bytes"),
    Check("GR210", "nul-byte", _W, "a NUL byte ends the line's content"),
    Check("GR211", "hash-in-value", _W, "'#' inside a value starts a comment"),
    Check("GR212", "empty-rule", _I, "an allow/disallow without a path, which matches nothing"),
    # Patterns
    Check("GR301", "never-matches", _E, "a pattern not starting with '/' or '*' never matches"),
    Check("GR302", "dollar-in-middle", _W, "'$' before the end of a pattern is a literal '$'"),
    Check("GR303", "pattern-normalised", _I, "a pattern is matched in its %-encoded form"),
    Check("GR304", "never-sent", _W, "a pattern with a character no URL Scrapy sends holds raw"),
    # Groups
    Check("GR401", "rule-before-user-agent", _E, "a rule before any user-agent line (ignored)"),
    Check("GR402", "hides-global-group", _I, "an agent's own group hides the * group from it"),
    Check("GR403", "empty-group-hides-global", _W, "an agent with no rules escapes the * rules"),
    Check("GR404", "duplicate-rule", _W, "the same rule twice for the same agent"),
    Check("GR405", "conflicting-rules", _W, "allow and disallow of the same pattern (allow wins)"),
    Check("GR406", "agent-matches-nobody", _W, "a user-agent value that matches no crawler"),
    Check("GR407", "agent-read-as-token", _I, "a user-agent value read as a shorter token"),
    Check("GR408", "joined-group", _W, "a non-rule line between user-agent lines ends no group"),
    # Sitemaps
    Check("GR501", "sitemap-not-absolute", _W, "a sitemap that is not an absolute URL"),
    # RSL 1.0's License: line, global like Sitemap:
    Check("GR502", "license", _I, "an RSL License line, which Google ignores"),
    Check("GR503", "license-not-absolute", _W, "a License line that is not an absolute URL"),
    # Content-usage statements (Content-Signal, Content-Usage): read by AI-preference-aware
    # crawlers, ignored by Google
    Check("GR601", "usage-statement", _I, "Content-Signal or Content-Usage, which Google ignores"),
    Check("GR602", "usage-outside-group", _W, "a usage statement before any user-agent line"),
    Check("GR603", "usage-syntax", _E, "a usage statement that cannot be parsed: it says nothing"),
    Check("GR604", "usage-value", _W, "a usage value neither yes nor no: no preference"),
    Check("GR605", "usage-unknown-name", _W, "a signal or category outside the known vocabulary"),
    Check("GR606", "usage-duplicate", _W, "the same name twice in one statement: the last counts"),
    Check("GR607", "usage-empty", _W, "a usage statement that states no preference at all"),
    Check("GR608", "usage-bad-entry", _W, "a Content-Signal entry that is not name=value"),
)

CHECKS_BY_CODE: dict[str, Check] = {c.code: c for c in CHECKS}
CHECKS_BY_NAME: dict[str, Check] = {c.name: c for c in CHECKS}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing worth telling the author, tied to a line (0 for the file as a whole)."""

    check: Check
    line: int
    message: str

    @property
    def code(self) -> str:
        return self.check.code

    @property
    def severity(self) -> Severity:
        return self.check.severity

    def as_json(self) -> dict[str, object]:
        return {
            "code": self.check.code,
            "name": self.check.name,
            "severity": self.check.severity.label,
            "line": self.line,
            "message": self.message,
        }
