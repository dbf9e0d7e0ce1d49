"""Where a credential may go: origins, loopback addresses and the forge's own URLs (pure).

A token is sent only to the configured forge: the same scheme, host and port as
``gitlab.url.api``. Plain ``http`` is accepted for the forge only when its host is a loopback
address, where nothing leaves the machine; anywhere else a token would cross the network in
clear text. A URL written into a message is shown through ``redact_urls``, because a
configured address can carry a credential of its own (``https://user:password@host/``, or a
token in its query string) and messages reach chat users, logs and the index database.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443, "ssh": 22}
# The HTTP statuses that send a request on to another address. Neither a forge token nor a
# question and its passages is ever sent on with them.
REDIRECTS = frozenset({301, 302, 303, 307, 308})
# A URL inside any text: scheme, optional user information (up to the last "@" before the
# path), the rest of the address and path, and an optional query. The query stops short of
# punctuation that ends the sentence around it, so "...?***." keeps its full stop.
_URL_IN_TEXT = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^\s/?#]*@)?"
    r"(?P<rest>[^\s?#]*)(?P<query>\?[^\s#]*?(?=[.,:;!?)\]'\"]*(?:[\s#]|$)))?"
)
# scp-like SSH addresses: [user@]host:path (no scheme, and the path does not start with //).
_SCP_LIKE = re.compile(
    r"^(?:(?P<user>[^@/:]+)@)?(?P<host>[^@/:\[\]]+|\[[^\]]+\]):(?!//)(?P<path>.+)$"
)


def origin(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of a URL, lowercased, default ports filled in; else ``None``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not scheme or not host:
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS.get(scheme, -1)


def redact_urls(text: str) -> str:
    """``text`` with the user information and query of every URL in it replaced by ``***``.

    What is left (scheme, host, port and path) says where a request went, which is all a
    reader of a message needs; a password or token in the address never gets that far.
    """

    def redact(match: re.Match[str]) -> str:
        userinfo = "***@" if match["userinfo"] else ""
        query = "?***" if match["query"] else ""
        return f"{match['scheme']}{userinfo}{match['rest']}{query}"

    return _URL_IN_TEXT.sub(redact, text)


def same_origin(url: str, reference: str) -> bool:
    """Whether ``url`` has exactly ``reference``'s scheme, host and port."""
    mine, theirs = origin(url), origin(reference)
    return mine is not None and mine == theirs


def is_loopback(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback IP address (127.0.0.0/8, ::1)."""
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def plain_text_allowed(url: str) -> bool:
    """Whether a credential may travel to ``url``: https, or http to a loopback host."""
    where = origin(url)
    if where is None:
        return False
    scheme, host, _ = where
    return scheme == "https" or (scheme == "http" and is_loopback(host))


def forge_root(api_url: str) -> str:
    """The forge's web root for ``api_url`` (``https://host[:port]/``), for git's URL match."""
    where = origin(api_url)
    if where is None:
        raise ValueError(f"not an absolute URL: {api_url}")
    scheme, host, port = where
    netloc = host if port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    if ":" in host:  # an IPv6 literal
        netloc = f"[{host}]" if port == _DEFAULT_PORTS.get(scheme) else f"[{host}]:{port}"
    return f"{scheme}://{netloc}/"


def ssh_host(url: str) -> str | None:
    """The host an SSH clone URL names (``ssh://[user@]host[:port]/path`` or ``user@host:path``)."""
    where = ssh_endpoint(url)
    return where[0] if where else None


def ssh_endpoint(url: str) -> tuple[str, int] | None:
    """``(host, port)`` of an SSH clone URL; scp-like addresses have no port, so always 22."""
    if url.startswith("ssh://"):
        where = origin(url)
        return (where[1], where[2]) if where else None
    if "://" in url:
        return None
    match = _SCP_LIKE.match(url)
    return (match.group("host").strip("[]").lower(), 22) if match else None
