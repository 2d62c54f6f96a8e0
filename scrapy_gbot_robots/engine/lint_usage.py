"""The linter's ``GR6xx`` checks: Content-Signal and Content-Usage lines.

Google ignores both; crawlers that read AI preferences use them. Each line is parsed by
``engine/usage.py``, the module the crawl's verdicts use, so the linter reports exactly what
those crawlers would read.
"""

from __future__ import annotations

from .._safetext import display
from .lines import LineKind, LineReport
from .lint_checks import Emit
from .usage import (
    CONTENT_SIGNAL,
    CONTENT_USAGE,
    RETIRED,
    SIGNAL_EXTRAS,
    SIGNALS,
    VOCAB,
    Mechanism,
    parse_statement,
)
from .usage import (
    KEYS as USAGE_KEYS,
)

_OTHER_VOCABULARY = {
    CONTENT_USAGE: {"ai-train": "train-ai", "ai-input": None},
    CONTENT_SIGNAL: {"train-ai": "ai-train", "train-genai": "ai-train", "all": None},
}
_NAMES = {CONTENT_USAGE: "Content-Usage", CONTENT_SIGNAL: "Content-Signal"}


def usage_mechanism(r: LineReport) -> Mechanism | None:
    """The content-usage mechanism of an unknown line, by its exact key; else None."""
    return USAGE_KEYS.get(r.key.lower()) if r.kind is LineKind.UNKNOWN else None


def usage_findings(r: LineReport, mechanism: Mechanism, group: int, emit: Emit) -> None:
    """Findings of one Content-Signal or Content-Usage line (engine.usage parses it)."""
    n = r.number
    name = _NAMES[mechanism]
    statement = parse_statement(mechanism, r.value)
    convention = (
        "Cloudflare's convention" if mechanism == CONTENT_SIGNAL else "an IETF draft"
    )
    emit(
        "GR601",
        n,
        f"{name} ({convention}) says how content may be used; Google ignores it, crawlers "
        "that read AI preferences use it",
    )
    if not group:
        emit(
            "GR602",
            n,
            f"{name} before any User-agent line belongs to no group: no crawler reads it; "
            "put it inside a group (e.g. after 'User-agent: *')",
        )
    if statement.error is not None:
        hint = ""
        if any("A" <= c <= "Z" for c in display(r.value)):
            hint = " (keys are lower-case: train-ai, not Train-AI)"
        emit(
            "GR603",
            n,
            f"{name} value is not a Structured Field dictionary ({statement.error}){hint}: "
            "it expresses no preference at all; write e.g. 'train-ai=n, search=y'",
        )
        return
    for problem in statement.problems:
        emit("GR608", n, f"{name}: {problem}; the entry is ignored, write name=yes or name=no")
    if not statement.entries:
        where = f" for {statement.path}" if statement.path else ""
        emit("GR607", n, f"{name}{where} states no preference (nothing after the path?)")
        return
    seen: set[str] = set()
    for entry in statement.entries:
        if entry.key in seen:
            emit(
                "GR606",
                n,
                f"{entry.key!r} appears twice: only its last value counts"
                + (" (RFC 9651 dictionary)" if mechanism == CONTENT_USAGE else ""),
            )
        seen.add(entry.key)
        _usage_entry_findings(n, mechanism, entry.key, entry.value, entry.allowed, emit)


def _usage_entry_findings(
    n: int, mechanism: Mechanism, key: str, value: str, allowed: bool | None, emit: Emit
) -> None:
    name = _NAMES[mechanism]
    known = VOCAB if mechanism == CONTENT_USAGE else SIGNALS
    if mechanism == CONTENT_SIGNAL and key in SIGNAL_EXTRAS:
        if value.lower() not in SIGNAL_EXTRAS[key]:
            allowed_values = ", ".join(sorted(SIGNAL_EXTRAS[key]))
            emit("GR604", n, f"{name} {key}={value!r}: expected one of {allowed_values}")
        return
    if key not in known:
        other = _OTHER_VOCABULARY[mechanism]
        if mechanism == CONTENT_USAGE and key in RETIRED:
            hint = (
                f"; {RETIRED[key]}: draft-ietf-aipref-vocab-08 does not define it, so it "
                "states nothing"
            )
        elif key in other:
            suggestion = other[key]
            theirs = _NAMES[CONTENT_SIGNAL if mechanism == CONTENT_USAGE else CONTENT_USAGE]
            hint = f"; that is {theirs}'s name" + (
                f", {name} calls it {suggestion!r}" if suggestion else ""
            )
        else:
            hint = ""
        names = ", ".join(sorted(known))
        emit(
            "GR605",
            n,
            f"{name} {key!r} is not a known name ({names}){hint}; crawlers ignore names they "
            "do not know",
        )
    if allowed is None:
        if mechanism == CONTENT_USAGE:
            expected = "the token y or n (e.g. train-ai=n)"
            if value.lower() in ("no", "yes", '"n"', '"y"', "?0", "?1", ""):
                expected += f", not {value or 'a bare key'!r}"
        else:
            expected = "yes or no"
        emit(
            "GR604", n, f"{name} {key}={value!r} states no preference: the value must be {expected}"
        )
