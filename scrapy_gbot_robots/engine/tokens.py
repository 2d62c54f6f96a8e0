"""Product tokens: the name a crawler obeys robots.txt under.

Google's parser compares a group's user-agent token with the crawler's token by whole-token,
ASCII case-insensitive equality, where a token is ``[A-Za-z_-]+``.  A full User-Agent header
is not a token, so the middleware needs :func:`product_token` to derive one.
"""

from __future__ import annotations

import re

_TOKEN_RE = re.compile(r"[A-Za-z_-]+")
# Shared with the matcher's group walk, which calls .match itself on its hot loop.
TOKEN_PREFIX_RE = re.compile(r"[A-Za-z_-]*")

# Products that browsers and crawlers put in their headers for compatibility, never the
# crawler's own name.
_COMPAT_PRODUCTS = frozenset(
    name.lower()
    for name in (
        "Mozilla",
        "AppleWebKit",
        "Chrome",
        "Chromium",
        "Safari",
        "Gecko",
        "Firefox",
        "KHTML",
        "Version",
        "Mobile",
        "Edg",
        "Edge",
        "OPR",
        "Opera",
        "like",
        "compatible",
        "HeadlessChrome",
        "Trident",
        "MSIE",
    )
)

# A header is a sequence of products ("Name/version") and comments ("(...)").
_PART_RE = re.compile(r"\(([^()]*)\)|([^\s()]+)")
# One entry of a comment, or a word of it, shaped like "Token" or "Token/version".
_ENTRY_RE = re.compile(r"([A-Za-z_-]+)(?:/\S*)?")


def is_valid_token(value: str) -> bool:
    """True when ``value`` is a product token Google's parser can match (``[A-Za-z_-]+``)."""
    return _TOKEN_RE.fullmatch(value) is not None


def names_everyone(value: str) -> bool:
    """Whether a (stripped) user-agent value is the global agent, as Google reads it.

    ``*`` alone or followed by whitespace is global; ``*foo``, ``**`` and ``*/*`` name nobody.
    """
    return value[:1] == "*" and (len(value) == 1 or value[1] in " \t\n\v\f\r")


def token_prefix(value: str) -> str:
    """The leading ``[A-Za-z_-]`` run: what Google's parser keeps of a user-agent value."""
    match = TOKEN_PREFIX_RE.match(value)
    return match.group() if match else ""


def _comment_token(comment: str) -> str | None:
    """The crawler's name inside a ``(compatible; Name/1.0; +http://...)`` comment, if any."""
    entries = [entry.strip() for entry in comment.split(";")]
    looks_like_bot_comment = any(
        entry.lower() == "compatible" or "http" in entry.lower() for entry in entries
    )
    if not looks_like_bot_comment:
        return None
    for entry in entries:
        if not entry or "http" in entry.lower() or entry.lower() == "compatible":
            continue
        for candidate in (entry, entry.split()[-1]):
            match = _ENTRY_RE.fullmatch(candidate)
            if match and match.group(1).lower() not in _COMPAT_PRODUCTS:
                return match.group(1)
    return None


def _comment_product(header: str) -> str | None:
    """A ``Name/version`` comment entry, e.g. ``(X11; Linux x86_64; Storebot-Google/1.0)``."""
    for comment in re.findall(r"\(([^()]*)\)", header):
        for entry in comment.split(";"):
            match = _ENTRY_RE.fullmatch(entry.strip())
            if match and "/" in entry and match.group(1).lower() not in _COMPAT_PRODUCTS:
                return match.group(1)
    return None


def product_token(user_agent_header: str) -> str:
    """Derive the robots.txt token a crawler with this User-Agent header should obey.

    The rule, in order:

    1. a header that is itself a token is returned as is;
    2. else the first token-shaped entry (``Name`` or ``Name/version``, or an entry whose last
       word is so shaped) of a parenthesised comment that contains ``compatible`` or a URL,
       e.g. ``Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)``;
       (words that browsers use, such as ``Gecko`` or ``Linux``-like single words outside
       such a comment, are skipped);
    3. else the first comment entry that is exactly ``Name/version`` with a name that is not
       a browser word, e.g. ``(X11; Linux x86_64; Storebot-Google/1.0)``;
    4. else the first top-level product ``Name/version`` whose name is not a browser
       compatibility token (Mozilla, AppleWebKit, Chrome, Safari, Gecko, ...);
    5. else the first top-level product's token (``Mozilla`` for a plain browser header);
    6. else the header's leading ``[A-Za-z_-]`` run (possibly empty).

    The token is the product name's leading ``[A-Za-z_-]`` run, as Google's parser extracts it.
    """
    header = user_agent_header.strip()
    if is_valid_token(header):
        return header
    products: list[str] = []
    for match in _PART_RE.finditer(header):
        comment, product = match.group(1), match.group(2)
        if comment is not None:
            token = _comment_token(comment)
            if token:
                return token
        elif product is not None:
            products.append(product)
    token = _comment_product(header)
    if token:
        return token
    first_token = ""
    for product in products:
        token = token_prefix(product)
        if not token:
            continue
        if not first_token:
            first_token = token
        if token.lower() not in _COMPAT_PRODUCTS and "http" not in product.lower():
            return token
    return first_token or token_prefix(header)
