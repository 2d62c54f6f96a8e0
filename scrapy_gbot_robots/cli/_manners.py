"""A crawler's manners, read from its effective settings: what ``gbot-robots doctor`` checks.

The duties are those of the IETF draft "Crawler best practices"
(draft-illyes-webbotauth-cbcp-01, October 2026: respect the Robots Exclusion Protocol,
be identifiable through the user agent string, do not interfere with a site's regular
operation, support HTTP caching) and Google's behaviour as this plugin reproduces it
(robots.txt as Googlebot reads it, ``X-Robots-Tag`` and robots meta tags, back-off on
429/5xx). Each check reads settings only: nothing is downloaded, no crawl runs.

A finding says what is wrong (``level``: ``error``, ``warning`` or ``info``), what it means,
and the setting that fixes it. Only errors and warnings make ``doctor`` exit 1: an ``info``
is something to know, true of many good crawls.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: The revision of the draft the checks were written against.
DRAFT = "draft-illyes-webbotauth-cbcp-01"
DRAFT_URL = "https://datatracker.ietf.org/doc/html/draft-illyes-webbotauth-cbcp-01"

LEVELS = ("error", "warning", "info")
#: Scrapy's default ``USER_AGENT``: ``Scrapy/<version> (+https://scrapy.org)``.
_SCRAPY_DEFAULT_UA = re.compile(r"Scrapy/[0-9][0-9A-Za-z.+-]*\s*\(\+https?://scrapy\.org/?\)")
_URL = re.compile(r"https?://[^\s;()]+", re.IGNORECASE)
#: Above this, one site gets more requests at once than Scrapy's own default (8) allows.
MAX_PER_DOMAIN = 8
#: The add-on and our middleware, as a project names them.
ADDON_NAMES = ("scrapy_gbot_robots.Addon", "scrapy_gbot_robots.addon.Addon")
RFC2616 = "scrapy.extensions.httpcache.RFC2616Policy"
#: The middleware that counts a page's network errors toward the back-off.
NETWORK_ERRORS = "scrapy_gbot_robots.crawl.network_errors_middleware.NetworkErrorsMiddleware"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the doctor found: its stable ``code``, ``level``, the ``setting`` (and its
    ``value``) involved, what it ``means``, and the ``fix``."""

    code: str
    level: str
    setting: str
    value: str
    means: str
    fix: str

    def as_json(self) -> dict[str, str]:
        return {
            "code": self.code,
            "level": self.level,
            "setting": self.setting,
            "value": self.value,
            "means": self.means,
            "fix": self.fix,
        }


@dataclass(frozen=True, slots=True)
class Project:
    """What the checks read: the effective settings, and which of our parts are installed.

    ``addon``: ``ADDONS`` holds our add-on; ``middleware``: ``DOWNLOADER_MIDDLEWARES``
    names our middleware (the smallest adoption, without the add-on).
    """

    settings: BaseSettings
    addon: bool
    middleware: bool


def examine(project: Project) -> list[Finding]:
    """Every finding for ``project``, errors first."""
    found: list[Finding] = []
    for check in CHECKS:
        found.extend(check(project))
    return sorted(found, key=lambda f: LEVELS.index(f.level))


def _valid(project: Project) -> list[Finding]:
    """A setting the plugin cannot use stops the crawl at start-up: say so first."""
    if not (project.addon or project.middleware):
        return []
    from .._settings import ConfigError, load

    try:
        load(project.settings.get)
    except ConfigError as exc:
        return [
            Finding(
                "bad-setting",
                "error",
                exc.setting,
                repr(project.settings.get(exc.setting)),
                f"The crawl would not start: {exc}.",
                f"a valid {exc.setting} (docs/settings.md)",
            )
        ]
    return []


def _identity(project: Project) -> list[Finding]:
    """cbcp 2.2: a crawler is identifiable by its user agent, which names a page about it."""
    ua = project.settings.get("USER_AGENT")
    text = ua if isinstance(ua, str) else ""
    if _SCRAPY_DEFAULT_UA.fullmatch(text.strip()):
        return [
            Finding(
                "default-user-agent",
                "error",
                "USER_AGENT",
                text,
                "Sites see Scrapy's default user agent: they cannot tell this crawler from "
                "any other Scrapy crawl, write robots.txt rules for it, nor reach its operator "
                f"({DRAFT}, 2.2).",
                'USER_AGENT = "MyBot/1.0 (+https://example.com/bot)": your token and a URL '
                "that explains the crawler and how to reach you",
            )
        ]
    if not text.strip():
        return [
            Finding(
                "no-user-agent",
                "error",
                "USER_AGENT",
                repr(ua),
                "Requests carry no user agent of the crawler's: sites cannot identify it "
                f"({DRAFT}, 2.2).",
                'USER_AGENT = "MyBot/1.0 (+https://example.com/bot)"',
            )
        ]
    if not _URL.search(text):
        return [
            Finding(
                "no-url-in-user-agent",
                "warning",
                "USER_AGENT",
                text,
                "The user agent names no URL: a site owner has nowhere to learn what the "
                f"crawler does or how to reach its operator ({DRAFT}, 2.2).",
                "add '(+https://example.com/bot)' to USER_AGENT, a page about the crawler",
            )
        ]
    return []


def _tokens(project: Project) -> list[Finding]:
    """The token robots.txt is read for, and whether the user agent carries it."""
    settings = project.settings
    configured = settings.get("ROBOTSTXT_USER_AGENT")
    ua = settings.get("USER_AGENT")
    ua_text = ua if isinstance(ua, str) else ""
    if _SCRAPY_DEFAULT_UA.fullmatch(ua_text.strip()) and not configured:
        return []  # the default user agent is the finding; its token follows from it
    from ..engine.tokens import product_token

    if not configured:
        token = product_token(ua_text)
        return [
            Finding(
                "token-from-user-agent",
                "info",
                "ROBOTSTXT_USER_AGENT",
                "(unset)",
                f"robots.txt is obeyed for the token {token!r}, taken from USER_AGENT.",
                f'ROBOTSTXT_USER_AGENT = "{token}" to say so, or to obey another token',
            )
        ]
    values = [configured] if isinstance(configured, str) else list(configured)
    tokens = [t.strip() for v in values for t in str(v).split(",") if t.strip()]
    first = tokens[0] if tokens else ""
    if tokens and not any(t.lower() in ua_text.lower() for t in tokens):
        return [
            Finding(
                "token-not-in-user-agent",
                "warning",
                "ROBOTSTXT_USER_AGENT",
                str(configured),
                f"robots.txt is obeyed for {first!r}, which the user agent does not carry: "
                "a site that writes rules for the crawler it sees in its logs writes them "
                "for another name.",
                f"put {first!r} in USER_AGENT (e.g. '{first}/1.0 (+https://example.com/bot)')",
            )
        ]
    return []


def _robots(project: Project) -> list[Finding]:
    """cbcp 2.1: the Robots Exclusion Protocol, here as Googlebot reads it."""
    settings = project.settings
    if not settings.getbool("ROBOTSTXT_OBEY"):
        return [
            Finding(
                "robots-not-obeyed",
                "error",
                "ROBOTSTXT_OBEY",
                "False",
                f"robots.txt is not obeyed at all ({DRAFT}, 2.1).",
                "ROBOTSTXT_OBEY = True",
            )
        ]
    found = []
    if not project.addon and not project.middleware:
        found.append(
            Finding(
                "not-googles-rules",
                "warning",
                "ADDONS",
                str(dict(settings.getdict("ADDONS"))),
                "robots.txt is obeyed by Scrapy's built-in middleware, not as Googlebot reads "
                "it (matching, redirects, 5xx and 24 h rules): a site's rules may be read "
                "otherwise than its owner tested them.",
                'ADDONS = {"scrapy_gbot_robots.Addon": 0}',
            )
        )
    if str(settings.get("GBOT_ROBOTS_MODE") or "enforce") == "observe":
        found.append(
            Finding(
                "observe-mode",
                "warning",
                "GBOT_ROBOTS_MODE",
                "observe",
                "robots.txt is read but not enforced: disallowed pages are downloaded.",
                'GBOT_ROBOTS_MODE = "enforce" (the default) once the audit is done',
            )
        )
    return found


def _page_rules(project: Project) -> list[Finding]:
    """``X-Robots-Tag`` and robots meta tags: the page-level half of the protocol."""
    if not (project.addon or project.middleware):
        return []  # the add-on is the finding
    value = str(project.settings.get("GBOT_ROBOTS_PAGE_RULES") or "")
    if value == "obey":
        return []
    if value == "read":
        return [
            Finding(
                "page-rules-read-only",
                "info",
                "GBOT_ROBOTS_PAGE_RULES",
                value,
                "X-Robots-Tag and robots meta tags are read into response.meta, but links "
                "of a nofollow page are still followed.",
                'GBOT_ROBOTS_PAGE_RULES = "obey"',
            )
        ]
    observing = str(project.settings.get("GBOT_ROBOTS_MODE") or "") == "observe"
    if not value and observing:
        return []  # an observe-mode crawl reads them by default
    return [
        Finding(
            "page-rules-off",
            "warning",
            "GBOT_ROBOTS_PAGE_RULES",
            value or "(unset: off)",
            "X-Robots-Tag headers and robots meta tags are not read: a page's noindex or "
            "nofollow changes nothing.",
            'GBOT_ROBOTS_PAGE_RULES = "obey"',
        )
    ]


def _backoff(project: Project) -> list[Finding]:
    """cbcp 2.3: slow down when a site says it is overloaded (429, 5xx, Retry-After)."""
    if not (project.addon or project.middleware):
        return []
    value = project.settings.get("GBOT_ROBOTS_BACKOFF")
    if value is None or project.settings.getbool("GBOT_ROBOTS_BACKOFF", True):
        # Unknown to this release, or on: the add-on backs off; a chain written by hand
        # may lack the middleware that counts network errors.
        mws = project.settings.getdict("DOWNLOADER_MIDDLEWARES")
        if project.addon or any(path_of(k) == NETWORK_ERRORS for k in mws):
            return []
        return [
            Finding(
                "network-errors-unseen",
                "info",
                "DOWNLOADER_MIDDLEWARES",
                NETWORK_ERRORS.rsplit(".", 1)[1] + " missing",
                "A page that times out or whose connection fails does not slow the crawl "
                "of its site (only 429 and 5xx answers do), where Googlebot slows down.",
                f'DOWNLOADER_MIDDLEWARES["{NETWORK_ERRORS}"] = 580 (the add-on adds it)',
            )
        ]
    return [
        Finding(
            "backoff-off",
            "warning",
            "GBOT_ROBOTS_BACKOFF",
            str(value),
            "A site that answers 429 or 503 (with Retry-After) is not given the pause it "
            f"asks for; Scrapy retries at once ({DRAFT}, 2.3).",
            "GBOT_ROBOTS_BACKOFF = True (the default)",
        )
    ]


def _pace(project: Project) -> list[Finding]:
    """cbcp 2.3: no crawl should weigh on a site's regular operation."""
    settings = project.settings
    with warnings.catch_warnings():  # deprecated by Scrapy 2.19, still read by the downloader
        warnings.simplefilter("ignore")
        per_ip = settings.getint("CONCURRENT_REQUESTS_PER_IP")
    per_site = per_ip or settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN")
    name = "CONCURRENT_REQUESTS_PER_IP" if per_ip else "CONCURRENT_REQUESTS_PER_DOMAIN"
    delay = settings.getfloat("DOWNLOAD_DELAY")
    throttled = settings.getbool("AUTOTHROTTLE_ENABLED")
    found = []
    if per_site > MAX_PER_DOMAIN:
        found.append(
            Finding(
                "many-requests-per-site",
                "warning",
                name,
                str(per_site),
                f"Up to {per_site} requests at once to one site: more than Scrapy's own "
                f"default ({MAX_PER_DOMAIN}), a load a small site may not bear ({DRAFT}, 2.3).",
                f"{name} = {min(per_site, 2)} (a broad crawl gets its speed from many sites)",
            )
        )
    if delay <= 0 and not throttled and per_site > 1:
        found.append(
            Finding(
                "no-delay",
                "warning",
                "DOWNLOAD_DELAY",
                f"{delay:g}",
                f"Requests to one site go {per_site} at a time with no pause between them: "
                "the site's pace is whatever it can answer.",
                "DOWNLOAD_DELAY = 1 (or AUTOTHROTTLE_ENABLED = True, which adapts the delay "
                "to the site's latency)",
            )
        )
    return found


def _conditional_requests(project: Project) -> list[Finding]:
    """cbcp: support HTTP caching; Google's crawlers use ETag / Last-Modified."""
    settings = project.settings
    if not settings.getbool("HTTPCACHE_ENABLED"):
        return [
            Finding(
                "http-cache-off",
                "info",
                "HTTPCACHE_ENABLED",
                "False",
                "Pages are downloaded in full on every crawl (robots.txt is revalidated by "
                "the plugin itself); a crawl run again would save the sites' bandwidth with "
                "conditional requests.",
                f'HTTPCACHE_ENABLED = True with HTTPCACHE_POLICY = "{RFC2616}"',
            )
        ]
    policy = settings.get("HTTPCACHE_POLICY")
    name = policy if isinstance(policy, str) else getattr(policy, "__name__", str(policy))
    if not name.endswith("RFC2616Policy"):
        return [
            Finding(
                "http-cache-ignores-headers",
                "info",
                "HTTPCACHE_POLICY",
                name,
                "The HTTP cache replays what it stored without asking the site (no "
                "If-None-Match, Cache-Control not read): a development cache, not the caching "
                f"a crawler owes the sites ({DRAFT}).",
                f'HTTPCACHE_POLICY = "{RFC2616}"',
            )
        ]
    return []


CHECKS: tuple[Callable[[Project], list[Finding]], ...] = (
    _valid,
    _identity,
    _tokens,
    _robots,
    _page_rules,
    _backoff,
    _pace,
    _conditional_requests,
)


def path_of(component: Any) -> str:
    """A component key (an import path or a class) as an import path."""
    if isinstance(component, str):
        return component
    return f"{component.__module__}.{component.__qualname__}"


def names_ours(value: Any, names: tuple[str, ...], cls: type) -> bool:
    """Whether a component key (an import path or the class itself) is ``cls``."""
    if isinstance(value, str):
        if value in names:
            return True
        from scrapy.utils.misc import load_object

        try:
            value = load_object(value)
        except (ImportError, NameError, ValueError, AttributeError):
            return False
    return isinstance(value, type) and issubclass(value, cls)
