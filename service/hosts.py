"""The names this service answers to (issue 24, item 13).

A request whose Host header names anything else is refused on every route and WebSocket
(`middleware.AllowedHosts`): that is what a DNS-rebinding page sends (its own name, made to resolve
to the server), and it must not reach the app, the cookie routes or the CLI bridge. The list:

- the loopback names (127.0.0.1, ::1, localhost) — the command line's bridge and local checks;
- the address uvicorn listens on (`VALUATION_HOST`), unless it is a wildcard (0.0.0.0, ::), in which
  case the machine's own host name and fully qualified name;
- `VALUATION_ALLOWED_HOSTS`, comma-separated: the name(s) the reverse proxy serves (nginx passes
  `Host $host`), e.g. `valuation.dpc.mar.mil.br`.

Ports are ignored, names compared case-insensitively without a trailing dot, as Streamlit's own
`server.allowedHosts` (set to the same list at start-up) does for its WebSocket. The list is
`valuation.core.address.allowed_hosts`, which the public address is checked against too.

`same_origin` is the one definition of "this request's own origin" that the cookie routes and the WebSocket
compare a browser's `Origin` with (issue 45, item 10: Streamlit's WebSocket check compared names only, so
`http://127.0.0.1:9999` and `https://127.0.0.1:PORT` were let in): scheme, name and port, all three.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from valuation.core.address import LOOPBACK_NAMES, allowed_hosts, name_key

__all__ = ["LOOPBACK_NAMES", "allowed_hosts", "host_allowed", "hostname"]


_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::(?P<port>[0-9]{1,5}))?")


def hostname(host: str | None) -> str | None:
    """The name of a Host header value ('example.org:443' → 'example.org', '[::1]:8501' → '::1'), None
    when it is not one (user info, a path, spaces, anything after a bracketed address, a bad port)."""
    m = _HOST.fullmatch(host or "")           # fullmatch: no trailing newline slips through `$`
    if m is None or (m["port"] is not None and not 0 < int(m["port"]) < 65536):
        return None
    return name_key(m["v6"] or m["name"])


def host_allowed(host: str | None, allowed: Iterable[str]) -> bool:
    name = hostname(host)
    return name is not None and name in set(allowed)


_ORIGIN = re.compile(r"(?P<scheme>https?)://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(?P<port>[0-9]{1,5}))?",
                     re.I)
_DEFAULT_PORT = {"http": 80, "https": 443}


def _port(text: str | None, scheme: str) -> int | None:
    port = _DEFAULT_PORT[scheme] if text is None else int(text)
    return port if 0 < port < 65536 else None


def same_origin(origin: str | None, host: str | None, scheme: str) -> bool:
    """Whether the `Origin` header `origin` is exactly the origin of a request for the Host header `host` made
    over `scheme` (the ASGI scope's: http/ws, or https/wss — behind the TLS proxy, from X-Forwarded-Proto):
    the same scheme, name and port (a missing port is the scheme's default). Anything else — another port or
    scheme, `null`, a path, user info — is another origin."""
    m = _ORIGIN.fullmatch(origin or "")
    h = _HOST.fullmatch(host or "")
    if m is None or h is None:
        return False
    expected = "https" if scheme in ("https", "wss") else "http"
    given = m["scheme"].lower()
    if given != expected or name_key(m["host"]) != hostname(host):
        return False
    return _port(m["port"], given) == _port(h["port"], expected) is not None
