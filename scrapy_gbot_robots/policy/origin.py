"""URL -> robots.txt origin key, as Google scopes a robots.txt file.

A robots.txt file is valid for one scheme, host and port (Google's page, "File location and
range of validity"). The key is a plain ``str`` such as ``"http://example.com:8080"`` because
it is looked up on every request and a string hashes and compares fastest. Default ports are
dropped (``http://h`` and ``http://h:80`` share one file) and IDN hosts are punycoded
(``exämple.com`` and ``xn--exmple-cua.com`` share one file).

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from urllib.parse import urlsplit

#: Schemes whose robots.txt we fetch; other schemes (data:, file:, s3:, ftp: ...) are not checked.
OBEYED_SCHEMES = frozenset({"http", "https"})

DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}


def _punycode(host: str) -> str | None:
    """Lower-cased ASCII host; IDN labels become ``xn--`` labels. None when unencodable."""
    host = host.lower()
    if host.isascii():
        return host
    try:
        # IDNA 2003 from the standard library: what browsers and w3lib produce for the
        # common cases, and no extra dependency in a pure module.
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return None


def origin_from_parts(scheme: str, netloc: str) -> str | None:
    """Origin key for a URL's scheme and netloc, or None when it has no robots.txt scope.

    None for non-HTTP(S) schemes, an empty host or an unparsable port: such requests are not
    checked (their download fails or needs no robots.txt).
    """
    scheme = scheme.lower()
    if scheme not in OBEYED_SCHEMES:
        return None
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return None
        host, rest = hostport[: end + 1].lower(), hostport[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:]
    else:
        host_raw, sep, port_text = hostport.partition(":")
        if sep and ":" in port_text:
            return None
        encoded = _punycode(host_raw)
        if encoded is None:
            return None
        host = encoded
    if not host or host == "[]":
        return None
    if port_text:
        if not port_text.isdigit() or not port_text.isascii():
            return None
        port = int(port_text)
        if port > 65535:
            return None
        if port != DEFAULT_PORTS[scheme]:
            return f"{scheme}://{host}:{port}"
    return f"{scheme}://{host}"


def origin_of(url: str) -> str | None:
    """Origin key of an absolute URL (see :func:`origin_from_parts`)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return origin_from_parts(parts.scheme, parts.netloc)


def robots_url(origin: str) -> str:
    """The one robots.txt URL of an origin: always at the top level."""
    return origin + "/robots.txt"
