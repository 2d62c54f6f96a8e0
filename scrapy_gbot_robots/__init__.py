"""Obey robots.txt in Scrapy exactly the way Googlebot does.

Everything a user may import, catch, implement or receive is re-exported here, and
``__all__`` is the list of what is public; modules with a leading underscore are private.
The engine (``parse``, ``RobotsTxt``, ``Decision``, ``Usage``, ``product_token``) and the
state types are pure Python and import nothing from Scrapy or Twisted; the Scrapy adapters
are imported lazily so that the engine and the CLI start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._settings import ConfigError
from .engine.decision import Decision
from .engine.rules import RobotsTxt, parse
from .engine.tokens import is_valid_token, product_token
from .engine.url import crawler_url
from .engine.usage import Usage, UsagePreference
from .page.rules import PageRules, read_page_rules
from .policy.states import Kind, Mode, OriginState, PolicyConfig
from .stores.base import OriginStore
from .stores.memory import MemoryStore

#: The one version source: pyproject.toml reads it (``[tool.setuptools.dynamic]``).
__version__ = "0.3.0.dev0"

if TYPE_CHECKING:
    from . import signals
    from .addon import Addon
    from .crawl.body import RobotsBodyError, RobotsBodyMiddleware
    from .crawl.middleware import GoogleRobotsTxtMiddleware
    from .crawl.page_rules_middleware import PageRulesMiddleware, page_rules
    from .scrapy_parser import GoogleRobotParser

__all__ = [
    "Addon",
    "ConfigError",
    "Decision",
    "GoogleRobotParser",
    "GoogleRobotsTxtMiddleware",
    "Kind",
    "MemoryStore",
    "Mode",
    "OriginState",
    "OriginStore",
    "PageRules",
    "PageRulesMiddleware",
    "PolicyConfig",
    "RobotsBodyError",
    "RobotsBodyMiddleware",
    "RobotsTxt",
    "Usage",
    "UsagePreference",
    "__version__",
    "crawler_url",
    "is_valid_token",
    "page_rules",
    "parse",
    "product_token",
    "read_page_rules",
    "signals",
]

_LAZY = {
    "Addon": ".addon",
    "GoogleRobotsTxtMiddleware": ".middleware",
    "GoogleRobotParser": ".scrapy_parser",
    "PageRulesMiddleware": ".crawl.page_rules_middleware",
    "page_rules": ".crawl.page_rules_middleware",
    "RobotsBodyError": ".body",
    "RobotsBodyMiddleware": ".body",
}


def __getattr__(name: str) -> Any:
    """Import the Scrapy adapters on first use, keeping ``import scrapy_gbot_robots`` light."""
    from importlib import import_module

    if name == "signals":
        value = import_module(".signals", __name__)
    else:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
