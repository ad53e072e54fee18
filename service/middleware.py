"""Security headers on every HTTP response (issue 13, item 7), as plain ASGI middleware.

Content-Security-Policy keeps everything on the app's own origin: no external script, style,
font, image or connection. Streamlit's frontend needs `style-src 'unsafe-inline'` (its
emotion styles and element `style` attributes) and `data:`/`blob:` images and fonts; WebSocket
connections to the same origin are 'self'. Framing is refused (frame-ancestors 'none' and
X-Frame-Options DENY). Checked in Chromium for every page (tests/service/test_service.py).

`AllowedHosts` refuses, on every HTTP route and WebSocket, a request whose Host header is not one of
the service's names (`service.hosts`, issue 24 item 13: DNS rebinding).

`WebSocketGuard` stands in front of Streamlit's WebSocket (issue 45, items 10 and 11): a browser's `Origin`
must be the request's own origin — scheme, name and port (`hosts.same_origin`; Streamlit's own check compares
names only) — and a text frame (Streamlit speaks binary protobufs only) closes the connection with one log
line, where Streamlit raised and uvicorn logged a traceback; a binary frame that is not a Streamlit message is
made one line by `console.one_line_frames`.
"""
from __future__ import annotations

import base64
import hashlib
import logging
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service import front_end_base
from service.hosts import allowed_hosts, host_allowed, same_origin

log = logging.getLogger("valuation.service")


def _inline_script_hashes() -> str:
    """CSP hashes of the inline scripts of the index.html the service serves (service/front_end_base.py):
    Streamlit's own (one line setting window.prerenderReady), computed from the installed file so an upgrade
    keeps working, and the service's base-path script — Streamlit's unchanged page, served for any other
    address, holds a subset of them."""
    page = front_end_base.page()[0].decode("utf-8")
    bodies = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", page, flags=re.S)
    return " ".join("'sha256-" + base64.b64encode(hashlib.sha256(b.encode("utf-8")).digest()).decode() + "'"
                    for b in bodies if b.strip())


CSP = "; ".join((
    "default-src 'self'",
    f"script-src 'self' {_inline_script_hashes()}",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "media-src 'self' blob:",
    "worker-src 'self' blob:",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *[(k, v) for k, v in HEADERS if k not in names]]
            await send(message)

        await self.app(scope, receive, send_with_headers)


HOST_REFUSED = "Host não reconhecido: este serviço não atende por este endereço.\n".encode()


class AllowedHosts:
    """400 (HTTP) or a refused handshake (WebSocket) for a Host header outside the allowed names."""

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...] | None = None) -> None:
        import os

        self.app = app
        self.hosts = hosts if hosts is not None else allowed_hosts(os.environ)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        values = [v for k, v in scope.get("headers", []) if k == b"host"]
        host = values[0].decode("latin-1") if len(values) == 1 else None
        if host_allowed(host, self.hosts):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})     # before accept: HTTP 403
            return
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(HOST_REFUSED)).encode()),
                                (b"cache-control", b"no-store")]})
        await send({"type": "http.response.body", "body": HOST_REFUSED})


def _header(scope: Scope, name: bytes) -> str | None:
    values = [v for k, v in scope.get("headers", []) if k == name]
    return values[0].decode("latin-1") if len(values) == 1 else None


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


class WebSocketGuard:
    """A WebSocket whose Origin is not the request's own origin is refused before its handshake (403); a text
    frame closes the connection (1003) with one log line, and the app's later sends on it are dropped."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        origins = [v for k, v in scope.get("headers", []) if k == b"origin"]
        if origins and (len(origins) > 1 or not same_origin(origins[0].decode("latin-1"), _header(scope, b"host"),
                                                             str(scope.get("scheme", "ws")))):
            log.warning("WebSocket refused from %s: Origin %.120r is not this service's origin", _client(scope),
                        b", ".join(origins).decode("latin-1"))
            await send({"type": "websocket.close", "code": 1008})     # before accept: HTTP 403
            return
        closed = False

        async def guarded_receive() -> Message:
            nonlocal closed
            message = await receive()
            if message["type"] == "websocket.receive" and message.get("text") is not None and not closed:
                log.warning("WebSocket from %s: a text frame (this service speaks binary frames only); "
                            "connection closed", _client(scope))
                closed = True
                await send({"type": "websocket.close", "code": 1003})
                return {"type": "websocket.disconnect", "code": 1003}
            return message

        async def guarded_send(message: Message) -> None:
            if not closed:
                await send(message)

        await self.app(scope, guarded_receive, guarded_send)


CALLBACK_PATH = "/oauth2callback"            # Streamlit's st.login callback (streamlit.web.server.starlette)
LOGIN_FAILED_FLAG = b"login=govbr-falhou"     # ui.session reads it and says why nobody was signed in
_IDENTITY_COOKIE = re.compile(rb'^_streamlit_user(_\d+)?=(?!""|;)', re.I)


class LoginCallbackOutcome:
    """Marks the redirect of a failed gov.br callback (`LOGIN_FAILED_FLAG` in its query), so the login page can say
    so in Portuguese: Streamlit answers a callback whose ID token fails Authlib's checks (signature, issuer,
    audience, nonce, expiry), or that the provider refused or the person cancelled, with a plain redirect to the
    home page and no identity cookie. Only a callback that came back with `code` or `error` counts (the return
    from the provider's logout has neither)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = scope.get("query_string", b"")
        if scope["type"] != "http" or scope.get("path") != CALLBACK_PATH or not re.search(rb"(^|&)(code|error)=",
                                                                                          query):
            await self.app(scope, receive, send)
            return

        async def send_marked(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status") in (302, 303, 307):
                headers = list(message.get("headers", []))
                signed_in = any(k.lower() == b"set-cookie" and _IDENTITY_COOKIE.match(v) for k, v in headers)
                if not signed_in:
                    message["headers"] = [(k, v + (b"&" if b"?" in v else b"?") + LOGIN_FAILED_FLAG
                                           if k.lower() == b"location" else v) for k, v in headers]
            await send(message)

        await self.app(scope, receive, send_marked)
