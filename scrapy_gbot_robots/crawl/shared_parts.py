"""What both of our Scrapy components use, built once per crawler: the settings, the token(s),
the request keys, the one telemetry (and so one stats home and one report).

The robots.txt downloader middleware and the page-rules spider middleware are built by
Scrapy, in the engine's order, each through its own ``from_crawler``. Whichever is built
first builds the :class:`Shared` parts and answers a private signal of the crawler's with
them; the other sends that signal and takes the answer. So no registry outlives the crawl
and nothing is set on Scrapy's crawler: the answer comes from the crawler's own signal
manager, which holds its receiver weakly, and the component that built the parts holds them
(the coordinator, or the page-rules middleware) for the crawl's life. When robots.txt is not
obeyed, the first says so once and answers the others "not obeyed" (:data:`NOT_OBEYED`): the
settings are read, and their start-up lines logged, once per crawler ("ROBOTSTXT_OBEY is
False" was logged once per component).
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy.exceptions import NotConfigured, ScrapyDeprecationWarning

from .._settings import (
    Config,
    configured_token,
    default_token_notice,
    load,
    renamed_settings,
    unknown_settings,
)
from ..engine.rules import Tokens
from .request_keys import RequestKeys
from .telemetry import Telemetry

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: Scrapy's default parser, and ours: replacing them changes nothing the user asked for.
_PARSERS_WE_REPLACE_QUIETLY = frozenset({"ProtegoRobotParser", "GoogleRobotParser"})

#: The private signal the second component sends: "which parts did the first one build?"
PARTS_WANTED = object()

#: Its answer when the first component found robots.txt not obeyed.
NOT_OBEYED = object()


@dataclass(frozen=True, eq=False)
class Shared:
    """The parts; see the module docstring."""

    config: Config
    token: Tokens
    token_source: str
    keys: RequestKeys
    telemetry: Telemetry

    def answer(self) -> Shared:
        """The receiver of :data:`PARTS_WANTED`."""
        return self


def shared(crawler: Crawler) -> Shared:
    """The crawler's :class:`Shared` parts, built by the first component that asks
    (``NotConfigured`` when robots.txt is not obeyed, ``ConfigError`` for a bad setting).
    The caller holds them: the answer to the others lives as long as they do."""
    for _, answer in crawler.signals.send_catch_log(PARTS_WANTED):
        if isinstance(answer, Shared):
            return answer
        if answer is NOT_OBEYED:
            raise NotConfigured
    try:
        config = configure(crawler)
    except NotConfigured:
        crawler.signals.connect(_not_obeyed, signal=PARTS_WANTED)  # a module's: never collected
        raise
    token, source, warning = configured_token(config)
    if warning:
        logger.warning(warning)
    if (notice := default_token_notice(token)) is not None:
        logger.info(notice)
    report = None
    if config.report:
        from ..report.collector import ReportCollector  # only when asked for

        report = ReportCollector(
            max_origins=config.report_max_origins,
            max_rules=config.report_max_rules,
            examples=config.report_examples,
            error_stop=config.policy.error_stop,
            mode=config.mode,
            tokens=token,
            global_group=config.global_group,
            uses=config.usage,
            page_rules=config.page_rules,
        )
    parts = Shared(
        config=config,
        token=token,
        token_source=source,
        keys=RequestKeys(token, fixed=source == "ROBOTSTXT_USER_AGENT"),
        telemetry=Telemetry(
            crawler, report, debug=_debug_visible(crawler), diagnostic=config.diagnostic_stats
        ),
    )
    crawler.signals.connect(parts.answer, signal=PARTS_WANTED)
    return parts


def _not_obeyed() -> object:
    """The receiver of :data:`PARTS_WANTED` once robots.txt is found not obeyed."""
    return NOT_OBEYED


def configure(crawler: Crawler) -> Config:
    """The crawler's :class:`Config`; ``NotConfigured`` when robots.txt is not obeyed."""
    for name, suggestion in unknown_settings(crawler.settings.attributes):
        hint = f"; did you mean {suggestion}?" if suggestion else ""
        logger.warning(
            "Unknown setting %(name)s is ignored (not a scrapy-gbot-robots setting)%(hint)s",
            {"name": name, "hint": hint},
        )
    for old, new in renamed_settings(crawler.settings.attributes):
        also = f" ({new} is set too, and wins)" if crawler.settings.get(new) is not None else ""
        warnings.warn(
            f"{old} is deprecated: use {new}, its name since 0.3{also}",
            ScrapyDeprecationWarning,
            stacklevel=2,
        )
    config = load(crawler.settings.get)
    if not config.obey:
        logger.info("ROBOTSTXT_OBEY is False: robots.txt is not fetched nor obeyed")
        raise NotConfigured
    parser = crawler.settings.get("ROBOTSTXT_PARSER")
    name = parser if isinstance(parser, str) else getattr(parser, "__qualname__", repr(parser))
    if parser and name.rpartition(".")[2] not in _PARSERS_WE_REPLACE_QUIETLY:
        logger.warning(
            "ROBOTSTXT_PARSER = %(parser)r is not used: with scrapy-gbot-robots, robots.txt is "
            "matched by Google's rules (scrapy_gbot_robots.GoogleRobotsTxtMiddleware), "
            "whatever ROBOTSTXT_PARSER says",
            {"parser": name},
        )
    return config


def _debug_visible(crawler: Crawler) -> bool:
    """Whether per-request DEBUG lines can be seen (Scrapy filters at its handler)."""
    level = crawler.settings.get("LOG_LEVEL", "DEBUG")
    numeric = logging.getLevelName(level) if isinstance(level, str) else level
    return not crawler.settings.getbool("LOG_ENABLED", True) or (
        isinstance(numeric, int) and numeric <= logging.DEBUG
    )
