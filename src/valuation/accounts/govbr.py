"""Logging in with gov.br (Login Único): the signed-in person's CPF, e-mail and account level, mapped to a local user.

What gov.br sends (roteiro técnico do Login Único, acesso.gov.br/roteiro-tecnico/iniciarintegracao.html): standard
OpenID Connect (authorization code, PKCE S256, `/authorize`, `/token`, `/jwk`), with
- `sub`: the person's CPF (11 digits, no punctuation);
- the account's trust level (bronze, prata, ouro). With the scope `govbr_confiabilidades_idtoken` the ID token
  itself carries `reliability_info` = {"level": "bronze" | "silver" | "gold", "reliabilities": [...]}: that is the
  one read here, because the ID token is the signed statement the callback verified. The same level is also
  offered by the níveis API (`/confiabilidades/v3/contas/{cpf}/niveis?response-type=ids`, ids "1" bronze,
  "2" prata, "3" ouro) — one more call with the access token, which st.login does not keep: not used;
- `amr`: the factors of *this* login (passwd, x509, bank, app…), not the account's level: not used for the level.

The token's signature (the provider's JWKS), issuer, audience (our client_id), nonce and expiry are checked by
Authlib in Streamlit's `/oauth2callback` before any claim reaches `st.user`; a token that fails any of them never
signs anybody in (the login page then says so, `ui.session`). Here the claims are only read:
- the person maps to the active local user with that CPF (users.cpf, set by the admin), else to the one
  active user with that e-mail when the token does not mark it unverified and that user has no other CPF;
  nobody else gets in, with a Portuguese message;
- roles that sign acts (`access.signs_acts`: Commission members and president, DPC) need an account level of
  at least the dated policy `govbr_min_level_signers` in force today (Lei 14.063/2020 art. 5; Decreto
  10.543/2020 art. 4: the advanced signature needs an identity-checked registration — prata or ouro);
- an identity older than `MAX_IDENTITY_AGE` (its `iat`) is refused: Streamlit keeps the identity cookie for 30
  days, and our own session (30 minutes idle, "Sair") must not be re-opened by it.
Every outcome is audited (never the CPF of an unknown person).
"""
from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from valuation.accounts import login, throttle
from valuation.accounts.login import AuthenticationFailed
from valuation.accounts.users import user_by_cpf, users_by_email
from valuation.core import clock
from valuation.core.ids import cpf_is_valid, normalise_digits
from valuation.db.access import ROLE_LABELS, Principal, signs_acts
from valuation.policies.defaults import GOVBR_LEVEL_LABELS, GOVBR_LEVELS
from valuation.policies.values import policy_in_force

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

LEVEL_POLICY = "govbr_min_level_signers"
MAX_IDENTITY_AGE = timedelta(minutes=10)
MAX_CLAIM_CHARS = 320
# what the ID token's reliability_info.level may say (gov.br's English codes; the níveis API's ids; pt-BR names)
_LEVEL_ALIASES = {"bronze": "bronze", "silver": "silver", "gold": "gold", "1": "bronze", "2": "silver", "3": "gold",
                  "prata": "silver", "ouro": "gold"}

NO_USER_MESSAGE = ("Login pelo gov.br reconhecido, mas não há usuário ativo neste sistema com o seu CPF (nem com o "
                   "seu e-mail). Peça ao administrador do sistema o cadastro do seu CPF.")
STALE_MESSAGE = ("O login pelo gov.br desta janela já foi usado ou expirou. Clique em “Entrar com gov.br” para "
                 "entrar de novo.")
FAILED_MESSAGE = ("Não foi possível confirmar o seu login pelo gov.br (a resposta do gov.br não pôde ser validada "
                  "ou o login foi cancelado). Tente de novo; se persistir, procure o administrador do sistema.")


class LevelTooLow(AuthenticationFailed):
    """A role that signs acts, and a gov.br account below the level the policy in force requires."""

    def __init__(self, role: str, level: str | None, minimum: str):
        self.role, self.level, self.minimum = role, level, minimum
        have = (f"A sua conta gov.br é de nível {GOVBR_LEVEL_LABELS[level]}." if level is not None
                else "O gov.br não informou o nível da sua conta.")
        super().__init__(
            f"{have} O perfil {ROLE_LABELS.get(role, role)} assina atos neste sistema e exige "
            f"conta gov.br de nível {GOVBR_LEVEL_LABELS[minimum]} ou superior (Decreto 10.543/2020, art. 4). Eleve o "
            "nível da sua conta em gov.br (selos de confiabilidade) e entre de novo.")


class IdentitySpent(AuthenticationFailed):
    """The identity already opened a session here, or is older than MAX_IDENTITY_AGE: log in with gov.br again."""

    def __init__(self) -> None:
        super().__init__(STALE_MESSAGE)


@dataclass(frozen=True)
class Identity:
    """What a verified gov.br ID token says about the person (None: not said, or not usable)."""
    cpf: str | None
    email: str | None
    level: str | None            # one of GOVBR_LEVELS
    issued_at: datetime | None   # aware UTC


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and 0 < len(value.strip()) <= MAX_CLAIM_CHARS else None


def level_of(claims: Mapping[str, Any]) -> str | None:
    """The account level the ID token states (`reliability_info.level`), or None."""
    info = claims.get("reliability_info")
    raw = info.get("level") if isinstance(info, Mapping) else None
    text = _text(raw if not isinstance(raw, int) or isinstance(raw, bool) else str(raw))
    return _LEVEL_ALIASES.get(text.lower()) if text else None


def identity_from_claims(claims: Mapping[str, Any]) -> Identity:
    """The CPF (a valid `sub`), the e-mail (unless marked unverified), the level and the issue instant."""
    sub = _text(claims.get("sub"))
    cpf = normalise_digits(sub) if sub and sub.isdigit() and cpf_is_valid(sub) else None
    email = _text(claims.get("email"))
    if email is None or "@" not in email or claims.get("email_verified") is False:
        email = None
    iat = claims.get("iat")
    issued = (datetime.fromtimestamp(iat, clock.UTC) if isinstance(iat, (int, float)) and not isinstance(iat, bool)
              and 0 < iat < 10 ** 11 else None)
    return Identity(cpf=cpf, email=email.lower() if email else None, level=level_of(claims), issued_at=issued)


def level_meets(level: str | None, minimum: str) -> bool:
    """bronze < prata (silver) < ouro (gold); an unknown level meets nothing."""
    return level in GOVBR_LEVELS and GOVBR_LEVELS.index(level) >= GOVBR_LEVELS.index(minimum)


def is_fresh(identity: Identity, now: datetime) -> bool:
    """Issued within MAX_IDENTITY_AGE of `now` (aware), and not in the future beyond a minute of clock skew."""
    at = identity.issued_at
    return at is not None and -timedelta(minutes=1) <= now - at <= MAX_IDENTITY_AGE


def _user_row(store: Store, identity: Identity) -> tuple[dict[str, Any] | None, str]:
    """(the active user's row, how it was found: 'cpf' | 'email' | '')."""
    if identity.cpf is not None:
        row = user_by_cpf(store, identity.cpf)
        if row is not None:
            return row, "cpf"
    if identity.email is not None:
        rows = users_by_email(store, identity.email)
        if len(rows) == 1 and rows[0]["cpf"] in (None, identity.cpf):
            return rows[0], "email"
    return None, ""


class IdentityBook:
    """The gov.br identities that already opened a session in this process: each opens one (after "Sair", or
    after the session ended, the identity cookie Streamlit keeps must not open another). Kept for
    MAX_IDENTITY_AGE, after which `is_fresh` refuses the identity anyway."""

    def __init__(self) -> None:
        self._used: dict[str, datetime] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(claims: Mapping[str, Any]) -> str:
        parts = [str(claims.get(k, ""))[:MAX_CLAIM_CHARS] for k in ("iss", "sub", "iat", "nonce")]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()

    def used(self, claims: Mapping[str, Any]) -> bool:
        with self._lock:
            return self.key(claims) in self._used

    def consume(self, claims: Mapping[str, Any], now: datetime) -> bool:
        """Mark the identity used; False when it already was."""
        with self._lock:
            for k in [k for k, at in self._used.items() if now - at > MAX_IDENTITY_AGE * 2]:
                del self._used[k]
            key = self.key(claims)
            if key in self._used:
                return False
            self._used[key] = now
            return True


IDENTITIES = IdentityBook()   # the process's book (the service is one process)


def principal_for_govbr(store: Store, claims: Mapping[str, Any], *, now: datetime, client: str | None = None,
                        book: IdentityBook = IDENTITIES) -> Principal:
    """The local user (and so the role) for the claims of a gov.br ID token Streamlit verified, or
    AuthenticationFailed with the Portuguese reason (LevelTooLow for a signing role below the policy).
    A mapped identity is consumed from `book`: it opens one session."""
    identity = identity_from_claims(claims)
    if not is_fresh(identity, now) or book.used(claims):
        raise IdentitySpent()
    row, via = _user_row(store, identity)
    if row is None:
        _audit(store, None, "anônimo", {"reason": "no_user", "level": identity.level}, client, refused=True)
        raise AuthenticationFailed(NO_USER_MESSAGE)
    if signs_acts(row["role"]):
        minimum = str(policy_in_force(store, LEVEL_POLICY, as_of=clock.today_brasilia(now)).value)
        if not level_meets(identity.level, minimum):
            _audit(store, row, row["username"], {"reason": "level", "level": identity.level, "minimum": minimum},
                   client, refused=True)
            raise LevelTooLow(row["role"], identity.level, minimum)
    if not book.consume(claims, now):
        raise IdentitySpent()
    _audit(store, row, row["username"], {"via": via, "level": identity.level}, client, refused=False)
    return login.principal_from_row(row)


def _audit(store: Store, row: dict[str, Any] | None, actor: str, detail: dict[str, Any], client: str | None, *,
           refused: bool) -> None:
    def run(tx: Tx, audited: bool = True) -> None:
        if audited:
            tx.audit("login_govbr_refused" if refused else "login_govbr", "user", None if row is None else row["id"],
                     None, {**detail, "client": throttle.client_key(client)})

    login.write_audited(store, actor, run)
