"""``_redact.redacted``: the one function that takes the secrets out of a store's URL (issue 24).

Every form redis-py reads a password from, malformed URLs that must keep their shape (and must
not make the function raise), and messages that quote a URL.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from scrapy_gbot_robots._redact import redacted, secret_pieces


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://user:secret@h:6380/2", "redis://user:***@h:6380/2"),
        ("rediss://:pw@h/0", "rediss://:***@h/0"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("redis://user@h/0", "redis://user@h/0"),  # a user name alone is no secret
        # The cases: a malformed port raised ValueError, IPv6 lost its brackets.
        ("redis://u:pw@127.0.0.1:63a9/0", "redis://u:***@127.0.0.1:63a9/0"),
        ("redis://u:pw@[::1]:6379/0", "redis://u:***@[::1]:6379/0"),
        ("redis://u:pw@[::1:6379/0", "redis://u:***@[::1:6379/0"),
        # redis-py's documented form for unix sockets, and the same keys on TCP.
        ("unix:///run/redis.sock?password=pw&db=0", "unix:///run/redis.sock?password=***&db=0"),
        ("unix://:pw@/run/redis.sock?db=1", "unix://:***@/run/redis.sock?db=1"),
        ("redis://h/0?username=alice&password=pw", "redis://h/0?username=***&password=***"),
        ("redis://h/0?db=1&PASSWORD=pw", "redis://h/0?db=1&PASSWORD=***"),
        ("redis://h/0?pass%77ord=pw", "redis://h/0?pass%77ord=***"),  # the key %-encoded
        ("redis://h/0?password=", "redis://h/0?password="),
        ("redis://h/0?passwords=x&socket_timeout=5", "redis://h/0?passwords=x&socket_timeout=5"),
        # A password holding what a URL should encode: hidden whole.
        ("redis://:p@ss/w@h:1/0", "redis://:***@h:1/0"),
        ("redis://:p%40ss@h/0", "redis://:***@h/0"),
        # Issue 46, item 2: the TLS key's passphrase, and a password with an unencoded '#' or
        # '?' (a parser ends the authority there), hidden whole; an '@' in a query value
        # ends no userinfo.
        ("rediss://h/0?ssl_password=S", "rediss://h/0?ssl_password=***"),
        (
            "rediss://h/0?ssl_keyfile=/k.pem&SSL_PASSWORD=S",
            "rediss://h/0?ssl_keyfile=/k.pem&SSL_PASSWORD=***",
        ),
        ("redis://u:pw#S@host/0", "redis://u:***@host/0"),
        ("redis://u:pw?S@host:1/0?db=2", "redis://u:***@host:1/0?db=2"),
        ("redis://:a#b?c/d@e@host/0", "redis://:***@host/0"),
        ("redis://h:1/0?db=1&password=a@b&x=1", "redis://h:1/0?db=1&password=***&x=1"),
        ("", ""),
        ("memory", "memory"),
        ("sqlite:///var/lib/robots.db", "sqlite:///var/lib/robots.db"),
    ],
)
def test_redacted(url: str, shown: str) -> None:
    assert redacted(url) == shown


def test_a_message_quoting_urls_loses_every_secret_and_nothing_else() -> None:
    text = (
        "GBOT_ROBOTS_STORE: redis://:pw1@h:1/0 needs Scrapy's asyncio reactor; "
        "also unix:///s.sock?db=0&password=pw2 (got 3 = 3)"
    )
    assert redacted(text) == (
        "GBOT_ROBOTS_STORE: redis://:***@h:1/0 needs Scrapy's asyncio reactor; "
        "also unix:///s.sock?db=0&password=*** (got 3 = 3)"
    )
    # A quote may be part of a password (a query allows it unencoded): hidden with it.
    assert redacted("got 'redis://h/0?password=a'b'") == "got 'redis://h/0?password=***"


def test_anything_is_accepted() -> None:
    assert redacted(None) == "None"
    assert redacted(ValueError("redis://:pw@h/0")) == "redis://:***@h/0"
    assert redacted(b"redis://:pw@h") == "b'redis://:***@h'"


_SECRET = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Cc"), blacklist_characters="?#&;"),
    min_size=4,
    max_size=20,
).map(lambda s: "Zq" + s)
_HOST = st.sampled_from(["h", "127.0.0.1", "[::1]", "[::1", "redis.example", ""])
_PORT = st.sampled_from(["", ":6379", ":63a9", ":99999", ":"])


@given(_SECRET, _HOST, _PORT, st.sampled_from(["redis", "rediss", "unix"]))
def test_a_userinfo_password_never_shows(secret: str, host: str, port: str, scheme: str) -> None:
    url = f"{scheme}://user:{secret}@{host}{port}/0?db=1"
    assume(secret not in f"{scheme}://user:@{host}{port}/0?db=1")
    shown = redacted(url)
    assert secret not in shown
    assert shown == f"{scheme}://user:***@{host}{port}/0?db=1"  # the rest as written


@given(_SECRET, st.sampled_from(["password", "username", "Password"]), _HOST, _PORT)
def test_a_query_password_never_shows(secret: str, key: str, host: str, port: str) -> None:
    assume("=" not in secret)
    url = f"redis://{host}{port}/0?db=1&{key}={secret}&ssl=false"
    shown = redacted(url)
    assert secret not in shown
    assert shown == f"redis://{host}{port}/0?db=1&{key}=***&ssl=false"


@given(st.text(max_size=80))
def test_never_raises(text: str) -> None:
    assert isinstance(redacted(text), str)


@given(_SECRET, st.sampled_from(["#", "?", "#?", "?#/"]), _HOST, _PORT)
def test_a_password_with_an_unencoded_hash_or_question_mark_never_shows(
    secret: str, cut: str, host: str, port: str
) -> None:
    """Issue 46, item 2: the parser's error quotes the piece before the ``#`` or ``?``; the
    URL and that message, redacted with the URL's pieces, show no piece of the password."""
    password = secret[:3] + cut + secret[3:]
    url = f"redis://u:{password}@{host}{port}/0"
    assume(secret[:3] not in f"redis://u:@{host}{port}/0")
    assert redacted(url) == f"redis://u:***@{host}{port}/0"
    message = f"{url} is not usable (cast to integer value as '{secret[:3]}')"
    shown = redacted(message, secret_pieces(url))
    assert password not in shown and secret[:3] not in shown and secret[3:] not in shown


def test_secret_pieces_name_every_secret_and_nothing_else() -> None:
    assert secret_pieces("redis://h:1/0?db=1") == ()
    assert secret_pieces("redis://u@h/0") == ()
    assert secret_pieces("rediss://u:a#b@h/0?ssl_password=k&db=1") == ("a#b", "a", "b", "k")
