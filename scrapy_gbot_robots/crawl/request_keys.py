"""What a request is checked as: its origin key and the product token it obeys.

Both are asked on every request, so both are memoised (bounded) by the text they come
from: the URL's ``scheme://netloc`` and the ``User-Agent`` header or meta value.
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, TypeVar

from scrapy.exceptions import ScrapyDeprecationWarning

from .._meta import OLD_TOKEN_META, TOKEN_META
from ..engine.rules import Tokens  # one product token, or several, most specific first
from ..engine.tokens import is_valid_token, product_token
from ..policy.origin import origin_of

if TYPE_CHECKING:
    from scrapy.http import Request

#: Memo value for scheme/netloc pairs without robots.txt scope (not http(s), no host).
NOT_OBEYED = ""
_SCHEME_NETLOC = re.compile(r"[^:/?#]*://[^/?#]*").match
#: Bounds of the memos: a broad crawl sees many origins, few User-Agent values.
ORIGIN_MEMO = 100_000
TOKEN_MEMO = 1_000

_K = TypeVar("_K", str, bytes)


class RequestKeys:
    """Origin keys and tokens of requests, memoised."""

    __slots__ = ("_fixed", "_meta_tokens", "_old_meta_told", "_origins", "_ua_tokens", "token")

    def __init__(self, token: Tokens, *, fixed: bool) -> None:
        #: The crawler-wide token (``ROBOTSTXT_USER_AGENT``, else from ``USER_AGENT``), or
        #: tokens, most specific first (a list-valued ``ROBOTSTXT_USER_AGENT``).
        self.token = token
        # ROBOTSTXT_USER_AGENT fixes the token; otherwise each request's User-Agent header
        # (falling back to USER_AGENT) is reduced.
        self._fixed = token if fixed else None
        self._origins: dict[str, str] = {}
        self._ua_tokens: dict[bytes, str] = {}
        self._meta_tokens: dict[str, str] = {}
        self._old_meta_told = False  # meta["robotstxt_user_agent"] warned about once

    def origin(self, url: str) -> str:
        """The origin key of ``url``; empty when robots.txt does not apply (a regex match)."""
        match = _SCHEME_NETLOC(url)
        if match is None:
            return NOT_OBEYED
        prefix = match.group()
        origin = self._origins.get(prefix)
        if origin is None:
            origin = origin_of(prefix) or NOT_OBEYED
            if len(self._origins) >= ORIGIN_MEMO:
                self._origins.clear()
            self._origins[prefix] = origin
        return origin

    def token_of(self, request: Request) -> Tokens:
        """The token ``request`` obeys: its meta, ``ROBOTSTXT_USER_AGENT``, or its header."""
        meta = request.meta
        override = meta.get(TOKEN_META)
        if override is None and OLD_TOKEN_META in meta:
            override = self._old_meta(meta)
        if override:
            if not isinstance(override, str):  # tokens, most specific first
                return _tokens(override)
            token = self._meta_tokens.get(override)
            if token is None:
                token = override if is_valid_token(override) else product_token(override)
                _remember(self._meta_tokens, override, token)
            return token
        if self._fixed is not None:
            return self._fixed
        headers = request.headers
        if not headers:  # usual here: Scrapy's UserAgentMiddleware runs after us
            return self.token
        header = headers.get(b"User-Agent")
        if not header:
            return self.token
        token = self._ua_tokens.get(header)
        if token is None:
            token = product_token(header.decode("latin-1"))
            _remember(self._ua_tokens, header, token)
        return token


    def _old_meta(self, meta: dict[str, object]) -> object:
        """``meta["robotstxt_user_agent"]``, 0.2's name of the key: read until 0.4, and a
        deprecation warning the first time."""
        if not self._old_meta_told:
            self._old_meta_told = True
            warnings.warn(
                f"meta[{OLD_TOKEN_META!r}] is deprecated: use meta[{TOKEN_META!r}], its name "
                "since 0.3",
                ScrapyDeprecationWarning,
                stacklevel=2,
            )
        return meta.get(OLD_TOKEN_META)


def _tokens(values: object) -> Tokens:
    """A meta list or tuple of tokens (anything else: its text), each reduced to a token."""
    if not isinstance(values, (list, tuple)):
        return product_token(str(values))
    tokens = tuple(v if is_valid_token(v) else product_token(str(v)) for v in values if v)
    return tokens if len(tokens) != 1 else tokens[0]


def _remember(memo: dict[_K, str], key: _K, token: str) -> None:
    if len(memo) >= TOKEN_MEMO:
        memo.clear()
    memo[key] = token
