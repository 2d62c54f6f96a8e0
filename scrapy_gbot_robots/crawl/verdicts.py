"""What the check of one request decides, once its origin's rules in force are known.

- **Enforce** (the default): a disallowed URL is :class:`Forbidden` (the coordinator raises
  ``IgnoreRequest``); with ``GBOT_ROBOTS_USAGE``, so is a URL whose content-usage signals say
  "no" to one of the crawl's uses. The usual case (one token, no usage, no report) is one
  ``allowed()`` call.
- **Observe** (``GBOT_ROBOTS_MODE = "observe"``): nothing is forbidden or dropped because of
  robots.txt; each request carries what Googlebot would have done in
  ``request.meta["gbot_robots_verdict"]`` (see docs/meta.md), and telemetry counts what
  would have been forbidden or stopped.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._meta import USAGE_META, VERDICT_META
from ..engine.decision import Decision
from ..policy.states import Kind, Mode, rules_in_force

if TYPE_CHECKING:
    from scrapy.http import Request

    from .._settings import Config
    from ..engine.rules import RobotsTxt
    from ..engine.usage import UsagePreference
    from ..stores.tiered import TieredStore
    from .request_keys import RequestKeys
    from .telemetry import RequestEvents

FORBIDDEN = "Forbidden by robots.txt"
FORBIDDEN_BY_USAGE = "Forbidden by a robots.txt content-usage signal"


class Checked(enum.Enum):
    """Two of the three answers of :meth:`Verdicts.check` (the third is :class:`Forbidden`)."""

    ALLOWED = "allowed"  # download it (observing: whatever robots.txt says)
    UNDECIDED = "undecided"  # no usable decision for its origin yet: it waits


@dataclass(frozen=True, slots=True)
class Forbidden:
    """The rules in force, or a content-usage signal, forbid the request: it is refused with
    ``IgnoreRequest(reason)`` (never in observe mode)."""

    reason: str


ALLOWED = Checked.ALLOWED
UNDECIDED = Checked.UNDECIDED
#: The usual refusal: one object, not one per forbidden request.
BY_RULES = Forbidden(FORBIDDEN)
#: What :meth:`Verdicts.check` answers.
CheckResult = Checked | Forbidden


class Verdicts:
    """The check's outcome for a request of a decided origin; see the module docstring."""

    __slots__ = (
        "_allowed_only",
        "_plain",
        "clock",
        "global_group",
        "keys",
        "observe",
        "policy",
        "store",
        "telemetry",
        "usage_meta",
        "uses",
    )

    def __init__(
        self, config: Config, keys: RequestKeys, store: TieredStore, telemetry: RequestEvents
    ) -> None:
        self.keys = keys
        self.store = store
        self.telemetry = telemetry
        self.clock = config.clock
        self.policy = config.policy
        self.observe = config.observe
        self.global_group = config.global_group
        self.uses = config.usage
        self.usage_meta = config.usage_meta
        # Nothing but the rules, with "*" as Google has it: the hot path.
        self._plain = not (self.observe or self.uses or self.usage_meta) and self.global_group
        # ...and no report: an allowed() call is the whole check.
        self._allowed_only = self._plain and telemetry.report is None

    def check(self, request: Request, origin: str, url: str) -> CheckResult:
        """What the rules in force say of ``request``: :data:`ALLOWED`, :data:`UNDECIDED`
        (its origin has no usable decision yet), or :class:`Forbidden` (never in observe
        mode), each counted by telemetry."""
        state = self.store.get(origin)
        if state is None:
            return UNDECIDED
        # state.fixed: rules_in_force's own answer for states the clock cannot change.
        force = state.fixed or rules_in_force(state, self.clock(), self.policy)
        if force.mode is Mode.STOPPED:
            return self._stopped(request, origin)
        telemetry = self.telemetry
        telemetry.checked()
        robots = force.robots
        if robots is None:
            telemetry.allowed(origin)
            if self.observe:
                request.meta[VERDICT_META] = _verdict(True, state.kind.value)
            return ALLOWED
        token = self.keys.token_of(request)
        if self._allowed_only:  # the usual case: one allowed() is the whole check
            if robots.allowed(url, token):
                return ALLOWED
            telemetry.forbidden(request, robots, token, origin)
            return BY_RULES
        if self._plain:
            # With the report on, one decide() is the check: it costs what allowed() costs
            # and names the deciding rule, so a forbidden request needs no second pass.
            decision = robots.decide(url, token)
            if decision.allowed:
                telemetry.allowed(origin)
                return ALLOWED
            telemetry.forbidden(request, robots, token, origin, decision)
            return BY_RULES
        return self._judge(request, origin, robots, token)

    def _judge(self, request: Request, origin: str, robots: RobotsTxt, token: Any) -> CheckResult:
        """Every option: the global group, usage signals, their meta, observe mode."""
        url, group, telemetry = request.url, self.global_group, self.telemetry
        decision = robots.decide(url, token, group)
        refused: UsagePreference | None = None
        if decision.allowed and self.uses:
            refused = robots.refuses(url, token, self.uses, group)
        if self.usage_meta or self.uses:  # the usage middleware reads it with the response
            request.meta[USAGE_META] = robots.usage(url, token, group).as_json()
        deciding = decision if refused is None else _usage_decision(refused, decision)
        if self.observe:
            request.meta[VERDICT_META] = _verdict(
                deciding.allowed, Kind.RULES.value, deciding, refused
            )
            if deciding.allowed:
                telemetry.allowed(origin)
            else:
                telemetry.would_forbid(request, origin, deciding, token)
            return ALLOWED
        if refused is not None:
            telemetry.forbidden(request, robots, token, origin, deciding, by_usage=True)
            return Forbidden(f"{FORBIDDEN_BY_USAGE} (line {refused.line}: {refused.text})")
        if not decision.allowed:
            telemetry.forbidden(request, robots, token, origin, decision)
            return BY_RULES
        telemetry.allowed(origin)
        return ALLOWED

    def _stopped(self, request: Request, origin: str) -> CheckResult:
        """An origin stopped by server errors: undecided, or, observing, let through."""
        if not self.observe:
            return UNDECIDED
        request.meta[VERDICT_META] = _verdict(False, Kind.SERVER_ERROR.value)
        self.telemetry.would_stop(request, origin)
        return ALLOWED


def _usage_decision(refused: UsagePreference, rules: Decision) -> Decision:
    """The usage line that refused, shaped as a ``Decision`` for the report and the signal."""
    key, _, value = refused.text.partition(":")
    return Decision(
        False, refused.line, key.strip(), value.strip(), refused.path, rules.group, rules.token
    )


def _verdict(
    allowed: bool,
    state: str,
    decision: Decision | None = None,
    refused: UsagePreference | None = None,
) -> dict[str, Any]:
    """The ``gbot_robots_verdict`` meta value (documented in docs/meta.md)."""
    return {
        "allowed": allowed,
        "state": state,
        "line": decision.line if decision else 0,
        "rule": decision.rule if decision else "",
        "group": decision.token if decision else "",
        "by": "usage" if refused is not None else ("rules" if decision else "state"),
    }
