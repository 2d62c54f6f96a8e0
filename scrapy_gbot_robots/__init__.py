"""Obey robots.txt in Scrapy exactly the way Googlebot does.

The engine (``parse``, ``RobotsTxt``, ``Decision``, ``product_token``) is pure Python and
imports nothing from Scrapy or Twisted; the Scrapy adapters are imported lazily so that the
engine and the CLI start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._agent import is_valid_token, product_token
from ._rules import Decision, RobotsTxt, parse

if TYPE_CHECKING:
    from .addon import Addon
    from .middleware import GoogleRobotsTxtMiddleware
    from .scrapy_parser import GoogleRobotParser

__all__ = [
    "Addon",
    "Decision",
    "GoogleRobotParser",
    "GoogleRobotsTxtMiddleware",
    "RobotsTxt",
    "is_valid_token",
    "parse",
    "product_token",
]

_LAZY = {
    "Addon": ".addon",
    "GoogleRobotsTxtMiddleware": ".middleware",
    "GoogleRobotParser": ".scrapy_parser",
}


def __getattr__(name: str) -> Any:
    """Import the Scrapy adapters on first use, keeping ``import scrapy_gbot_robots`` light."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
