"""A real OpenID provider on 127.0.0.1 for the gov.br login tests: `oidc-provider-mock` (Flask + Authlib: discovery,
JWKS, authorization form, token endpoint, RS256 ID tokens) in a thread, with gov.br's claims.

    with govbr_provider([GovbrPerson(cpf, "silver", "Nome", "email@…")]) as idp:   # idp.base, idp.metadata_url
        idp.tamper = "forged" | "expired" | "audience" | None   # how the next ID tokens leave the token endpoint

Each person is one button of the provider's form (its CPF: gov.br's `sub`); the ID token carries `name`, `email`
and gov.br's `reliability_info` {"level": …}. `tamper` re-issues the token endpoint's ID token: "forged" signs it
with another key (same `kid`), "expired" moves `exp` an hour back, "audience" names another client — the last two
signed with the provider's own key, so only that one claim is wrong. The provider's pages are served without their
stylesheet from a CDN (nothing leaves 127.0.0.1).
"""
from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BASE_TEMPLATE = ('<!doctype html><html lang="pt-BR"><title>Provedor OpenID de teste</title>'
                 '<main>{% block content %}{{ content }}{% endblock %}</main></html>')
TAMPERS = ("forged", "expired", "audience")


@dataclass(frozen=True)
class GovbrPerson:
    cpf: str
    level: str | None      # gov.br's reliability_info.level: bronze | silver | gold (None: not sent)
    name: str
    email: str


@dataclass
class Provider:
    base: str
    tamper: str | None = None

    @property
    def metadata_url(self) -> str:
        return f"{self.base}/.well-known/openid-configuration"


def _b64(part: str) -> dict[str, Any]:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def _retamper(id_token: str, how: str, provider_key: Any) -> str:
    from joserfc import jwt
    from joserfc.jwk import RSAKey

    header_part, claims_part, _ = id_token.split(".")
    header, claims = _b64(header_part), _b64(claims_part)
    key = RSAKey.import_key(provider_key.as_dict(is_private=True))
    if how == "forged":
        key = RSAKey.generate_key(2048)
    elif how == "expired":
        claims = {**claims, "iat": int(time.time()) - 7200, "exp": int(time.time()) - 3600}
    elif how == "audience":
        claims = {**claims, "aud": "outro-sistema"}
    return jwt.encode(header, claims, key)


def _app(people: Sequence[GovbrPerson], templates: Path, provider: Provider) -> Any:
    import flask
    import jinja2
    import oidc_provider_mock

    users = [oidc_provider_mock.User(sub=p.cpf, claims={
        "name": p.name, "email": p.email, "email_verified": True, "amr": ["passwd"],
        **({"reliability_info": {"level": p.level, "reliabilities": []}} if p.level else {})}) for p in people]
    app = flask.Flask("govbr_test_provider")
    app.jinja_loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(templates)),   # our _base.html first
                                            jinja2.PackageLoader("oidc_provider_mock", "templates")])
    oidc_provider_mock.init_app(app, user_claims=users, issue_refresh_token=False)
    app.secret_key = b"test-provider-session-key-000000"

    @app.after_request
    def tamper(response: Any) -> Any:
        if flask.request.path == "/oauth2/token" and provider.tamper in TAMPERS and response.status_code == 200:
            body = response.get_json()
            body["id_token"] = _retamper(body["id_token"], provider.tamper, flask.g.oidc_provider_mock_storage.jwk)
            response.set_data(json.dumps(body))
        return response

    return app


@contextlib.contextmanager
def govbr_provider(people: Sequence[GovbrPerson], templates: Path) -> Iterator[Provider]:
    """The provider on 127.0.0.1 and a free port, stopped on exit. `templates`: a scratch folder."""
    import logging

    import werkzeug.serving

    logging.getLogger("werkzeug").setLevel(logging.WARNING)     # one line per request otherwise
    templates.mkdir(parents=True, exist_ok=True)
    (templates / "_base.html").write_text(BASE_TEMPLATE, encoding="utf-8")
    provider = Provider(base="")
    server = werkzeug.serving.make_server("127.0.0.1", 0, _app(people, templates, provider), threaded=True)
    provider.base = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        thread.join(5)
        server.server_close()
