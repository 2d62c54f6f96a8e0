"""The old import path of :mod:`.tokens` (product tokens), kept for code outside the package.

``scrapy_gbot_robots.engine.agent`` was this module's name until 0.3.0; the glossary's word
for what a crawler obeys is *token*.  New code imports ``scrapy_gbot_robots.engine.tokens``
(or ``is_valid_token`` and ``product_token`` from ``scrapy_gbot_robots``); nothing in the
package imports this module.
"""

from __future__ import annotations

from .tokens import TOKEN_PREFIX_RE as TOKEN_PREFIX_RE
from .tokens import is_valid_token as is_valid_token
from .tokens import names_everyone as names_everyone
from .tokens import product_token as product_token
from .tokens import token_prefix as token_prefix
