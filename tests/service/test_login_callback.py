"""The gov.br callback's outcome (service.middleware.LoginCallbackOutcome): Streamlit answers a callback whose ID
token fails Authlib's checks with a bare redirect home; the middleware marks that redirect so the login page says so
in Portuguese — and leaves alone a successful callback (it sets the identity cookie) and the return from the
provider's logout (no code, no error). In Chromium with real tokens: tests/accounts/test_govbr_login.py."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from service.middleware import LOGIN_FAILED_FLAG, LoginCallbackOutcome


def _location(path: str, query: bytes, cookies: list[bytes]) -> bytes:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        headers = [(b"location", b"/"), *[(b"set-cookie", c) for c in cookies]]
        await send({"type": "http.response.start", "status": 302, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "path": path, "query_string": query, "headers": []}
    asyncio.run(LoginCallbackOutcome(app)(scope, None, send))
    return dict(sent[0]["headers"])[b"location"]


@pytest.mark.parametrize(("name", "path", "query", "cookies", "flagged"), [
    ("a token Authlib refused (cookies cleared)", "/oauth2callback", b"code=abc&state=xyz",
     [b'_streamlit_user=""; Max-Age=0; Path=/'], True),
    ("the person cancelled at the provider", "/oauth2callback", b"error=access_denied&state=xyz", [], True),
    ("signed in: the identity cookie is set", "/oauth2callback", b"code=abc&state=xyz",
     [b"_streamlit_user=eyJhbGc.signed; HttpOnly; Path=/", b"_streamlit_user_tokens=x; Path=/"], False),
    ("signed in with a chunked identity cookie", "/oauth2callback", b"code=abc&state=xyz",
     [b"_streamlit_user_1=part; HttpOnly; Path=/"], False),
    ("the return from the provider's logout", "/oauth2callback", b"", [], False),
    ("another route", "/auth/logout", b"code=abc", [], False),
])
def test_only_a_failed_callback_is_flagged(name: str, path: str, query: bytes, cookies: list[bytes],
                                           flagged: bool) -> None:
    location = _location(path, query, cookies)
    assert (location == b"/?" + LOGIN_FAILED_FLAG) if flagged else location == b"/", name
