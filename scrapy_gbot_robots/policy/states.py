"""An origin's robots.txt state, and the one answer to "which rules are in force now?".

:class:`OriginState` is what a fetch established (see :mod:`.fetch`); :func:`rules_in_force`
says what that means for a request at a given time, including Google's server-error
timeline: for ``error_stop`` (12 h) after the first error the origin is not crawled; then,
up to ``error_grace`` (30 d) after it, the last good copy is obeyed (no copy: no
restrictions); after that, no restrictions if other pages of the origin showed the site
serving (a 2xx, 3xx or 4xx other than 429), else still stopped.

No I/O and no clock: ``now`` is always an argument, so the 12 h and 30 d edges are tested
without sleeping. Imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field, replace

from ..engine.rules import RobotsTxt

INFINITY = math.inf


class Kind(str, enum.Enum):
    """What the latest robots.txt fetch of an origin established."""

    RULES = "rules"  # 2xx: the body is the rules
    ALLOW_ALL = "allow_all"  # 4xx (not 429) or too many redirects: no restrictions
    SERVER_ERROR = "server_error"  # 429, 5xx, network failure: see rules_in_force()


class Mode(str, enum.Enum):
    """What to do with a request of the origin right now."""

    RULES = "rules"  # obey OriginState.robots
    ALLOW_ALL = "allow_all"  # crawl anything
    STOPPED = "stopped"  # crawl nothing yet: wait for a successful retry


@dataclass(frozen=True, slots=True)
class PolicyConfig:
    """The durations and limits of the policy; defaults are Google's published values."""

    max_redirects: int = 5
    max_bytes: int = 512_000
    cache_ttl: float = 24 * 3600.0
    min_ttl: float = 60.0
    max_ttl: float = 30 * 86400.0
    error_stop: float = 12 * 3600.0
    error_grace: float = 30 * 86400.0
    retry_backoff: float = 60.0
    retry_backoff_max: float = 3600.0


@dataclass(frozen=True, slots=True)
class Validators:
    """What identifies a stored copy to its server: ``ETag``, ``Last-Modified`` (RFC 9110 8.8).

    Sent back as ``If-None-Match`` / ``If-Modified-Since`` when the copy is refreshed, so an
    unchanged file costs a 304 instead of its body. Each value is capped
    (:data:`.fetch.MAX_VALIDATOR`) before it is kept: two short strings per origin.
    """

    etag: str | None = None
    last_modified: str | None = None


@dataclass(frozen=True, slots=True)
class OriginState:
    """Everything remembered about one origin's robots.txt: small, and never a response.

    ``robots`` holds the raw capped body of the latest good copy (parsed lazily by the
    engine); None means "no restrictions" (a 4xx, a redirect loop, or no good copy yet).
    """

    kind: Kind
    reason: str  # "200", "404", "redirect limit", "503", "TimeoutError", ...
    fetched_at: float
    refresh_at: float  # from then on a fetch is due: the copy's expiry, or the next retry
    robots: RobotsTxt | None
    good_at: float | None = None  # when the good copy in ``robots`` was fetched
    error_since: float | None = None  # first server error of the current streak
    errors: int = 0  # server errors in a row: the backoff exponent
    status: int | None = None  # final HTTP status, None for network errors
    #: another page answered during this error streak (2xx, 3xx, 4xx but 429: the site serves)
    page_ok_at: float | None = None
    #: The validators of the copy in ``robots`` (None: the server sent none, or no copy).
    validators: Validators | None = None
    #: The answer of :func:`rules_in_force` when the clock cannot change it (rules, no
    #: restrictions), computed once here so the per-request question costs no allocation.
    fixed: InForce | None = field(init=False, repr=False, compare=False)

    @property
    def revalidated(self) -> bool:
        """Whether the latest fetch was a 304 that kept the stored copy (a revalidation)."""
        return self.kind is Kind.RULES and self.status == 304

    def __post_init__(self) -> None:
        fixed = None
        if self.kind is Kind.RULES:
            fixed = InForce(Mode.RULES, self.robots, INFINITY)
        elif self.kind is Kind.ALLOW_ALL:
            fixed = InForce(Mode.ALLOW_ALL, None, INFINITY)
        object.__setattr__(self, "fixed", fixed)


@dataclass(frozen=True, slots=True)
class InForce:
    """What obeys for an origin's requests now: :func:`rules_in_force`'s answer.

    ``robots`` is the file to obey when ``mode`` is ``RULES`` (None otherwise); ``until`` is
    when the clock alone may change the answer (``inf``: only a new fetch changes it).
    """

    mode: Mode
    robots: RobotsTxt | None
    until: float


def note_page_ok(state: OriginState, now: float) -> OriginState | None:
    """The state to store when another page of a failing origin answered, else None.

    The caller has established that the answer shows the site serving: pass every answer to
    :func:`.fetch.note_page_answer` instead, which reads the status (a 429 or a 5xx is not
    evidence of availability). Only the first answer of an error streak changes anything
    ("site generally available" needs one), so a store is written at most once per streak.
    """
    if state.kind is not Kind.SERVER_ERROR:
        return None
    since = state.error_since if state.error_since is not None else state.fetched_at
    if state.page_ok_at is not None and state.page_ok_at >= since:
        return None
    return replace(state, page_ok_at=now)


def rules_in_force(state: OriginState, now: float, cfg: PolicyConfig) -> InForce:
    """Which rules are in force for ``state`` at ``now``: the one place that answers it.

    Rules and "no restrictions" hold until the next fetch. A server error stops the crawl
    for ``error_stop`` (12 h) from the first error; then, up to ``error_grace`` (30 d), the
    last good copy is obeyed (no copy: no restrictions); after that, no restrictions if
    other pages of the origin answered (``page_ok_at``: "site generally available"), else
    still stopped.

    For rules and "no restrictions" the answer does not depend on ``now``: it is computed
    once, with the state, and kept in ``state.fixed``, which a per-request caller may read
    first to save the clock.
    """
    fixed = state.fixed
    if fixed is not None:
        return fixed
    since = now if state.error_since is None else state.error_since
    if now < since + cfg.error_stop:
        return InForce(Mode.STOPPED, None, since + cfg.error_stop)
    if now < since + cfg.error_grace:
        robots = state.robots
        mode = Mode.RULES if robots is not None else Mode.ALLOW_ALL
        return InForce(mode, robots, since + cfg.error_grace)
    last_page_ok = state.page_ok_at
    if last_page_ok is not None and last_page_ok >= since:
        return InForce(Mode.ALLOW_ALL, None, INFINITY)
    return InForce(Mode.STOPPED, None, INFINITY)
