"""Users, roles, password hashing, login with lock-out, sessions and the access policy.

Roles (architecture.md "Roles and access"):

    commission            reads the contracts under assessment, their items, their wrecks' positions
    commission_president  as commission (closes rounds, records decisions: later issues)
    dpc                   management: reads everything, positions included; creates wrecks, owners, organisations
    explorer              only its own organisation: its contracts and items, the positions of its own wrecks
    admin                 users and the audit log only: no wreck, contract, item or position

The policy is enforced by the store's query functions (every one takes the
`Principal`); `PAGES_BY_ROLE` only decides which pages the navigation offers.

Positions (rules.md §8; NORMAM-10 0105: "sigilo confidencial acerca da posição dos
bens e coisas afundados, quando localizados") — `position_cleared`:
dpc every wreck; commission roles the wrecks of contracts under assessment
(contracts with recovered items); explorer the wrecks of its own organisation's
contracts; admin none.

Login: argon2id hashes (argon2-cffi defaults, RFC 9106 low-memory profile);
after `MAX_FAILED_ATTEMPTS` consecutive failures the account is locked for
`LOCKOUT_MINUTES` (users.failed_attempts / users.locked_until). A wrong username
and a wrong password give the same message, and an unknown username costs the
same hashing work. Hashes are never logged, returned or audited. Timestamps are
naive UTC (an aware `now` is converted).
"""
from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from valuation.errors import AccessDenied, ValuationError

if TYPE_CHECKING:  # the store imports this module, never the reverse at run time
    from valuation.store.db import Store, Tx

ROLES: tuple[str, ...] = ("commission", "commission_president", "dpc", "explorer", "admin")
COMMISSION_ROLES: tuple[str, ...] = ("commission", "commission_president")
COMMISSION_BODIES: tuple[str, ...] = ("navy", "culture")
ROLE_LABELS: dict[str, str] = {
    "commission": "Comissão",
    "commission_president": "Presidente da Comissão",
    "dpc": "DPC (gestão)",
    "explorer": "Empresa exploradora",
    "admin": "Administrador",
}
COMMISSION_BODY_LABELS: dict[str, str] = {"navy": "Marinha (DPHCM)", "culture": "Ministério da Cultura"}

MAX_FAILED_ATTEMPTS = 5          # consecutive failures before the lock (issue: foundation)
LOCKOUT_MINUTES = 15             # how long the lock lasts
SESSION_IDLE_MINUTES = 30        # a session idle this long must log in again
MIN_PASSWORD_LENGTH = 10         # NIST SP 800-63B asks for at least 8; we ask a little more
USERNAME_PATTERN = r"[a-z0-9][a-z0-9._-]{2,31}"

LOGIN_FAILED_MESSAGE = "Usuário ou senha incorretos."
INACTIVE_MESSAGE = "Este usuário está desativado. Procure o administrador do sistema."


@dataclass(frozen=True)
class Principal:
    """The logged-in user, passed to every store query."""

    id: int
    username: str
    full_name: str
    role: str                     # one of ROLES
    organisation_id: int | None   # explorers: their organisation
    commission_body: str | None   # 'navy' | 'culture' for commission roles

    @property
    def is_commission(self) -> bool:
        return self.role in COMMISSION_ROLES

    @property
    def role_label(self) -> str:
        return ROLE_LABELS.get(self.role, self.role)


class AuthenticationFailed(ValuationError):
    """Login refused. The message (pt-BR) never tells whether the username exists."""

    def __init__(self, message: str = LOGIN_FAILED_MESSAGE):
        super().__init__(message)


class AccountLocked(AuthenticationFailed):
    """Too many consecutive failures: the account is locked until `.until` (naive UTC)."""

    def __init__(self, until: datetime, now: datetime):
        self.until = until
        minutes = max(1, math.ceil((until - now).total_seconds() / 60))
        super().__init__(
            f"Conta bloqueada após {MAX_FAILED_ATTEMPTS} tentativas sem sucesso. "
            f"Tente novamente em {minutes} minuto{'s' if minutes != 1 else ''} "
            "ou peça o desbloqueio ao administrador."
        )


class AccountInactive(AuthenticationFailed):
    """Right password, but the account was deactivated by the administrator."""

    def __init__(self) -> None:
        super().__init__(INACTIVE_MESSAGE)


# -- passwords --------------------------------------------------------------------
_hasher = PasswordHasher()  # argon2id; t=3, m=64 MiB, p=4 (RFC 9106 low-memory profile)


def hash_password(plain: str) -> str:
    """An argon2id hash of `plain` (salted; two calls give different strings)."""
    return _hasher.hash(plain)


def verify_password(hash_: str, plain: str) -> bool:
    """True when `plain` matches `hash_`; False for a mismatch or a malformed hash."""
    try:
        return _hasher.verify(hash_, plain)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return _hasher.hash("valuation: no such user")


def password_problem(plain: object) -> str | None:
    """Why a new password is refused (pt-BR), or None when acceptable."""
    if not isinstance(plain, str) or len(plain) < MIN_PASSWORD_LENGTH:
        return f"A senha deve ter pelo menos {MIN_PASSWORD_LENGTH} caracteres."
    if len(plain) > 256:
        return "A senha deve ter no máximo 256 caracteres."
    if plain.strip() != plain:
        return "A senha não pode começar nem terminar com espaço."
    return None


def normalise_username(username: object) -> str:
    return username.strip().lower() if isinstance(username, str) else ""


def username_is_valid(username: str) -> bool:
    return re.fullmatch(USERNAME_PATTERN, username) is not None


def naive_utc(moment: datetime) -> datetime:
    """The store keeps naive UTC timestamps: convert an aware datetime, keep a naive one."""
    if moment.tzinfo is not None:
        return moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment


# -- login ------------------------------------------------------------------------
_USER_COLUMNS = ("id, username, full_name, role, organisation_id, commission_body, password_hash, "
                 "failed_attempts, locked_until, active")


def _principal(row: dict[str, Any]) -> Principal:
    return Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"],
                     role=row["role"], organisation_id=row["organisation_id"],
                     commission_body=row["commission_body"])


def authenticate(store: Store, username: str, password: str, *, now: datetime) -> Principal:
    """The Principal for a right username and password, else AuthenticationFailed (pt-BR message).

    - Unknown username or wrong password: `AuthenticationFailed` with the same message.
    - `MAX_FAILED_ATTEMPTS` consecutive failures lock the account for `LOCKOUT_MINUTES`
      (`AccountLocked`, raised on the failure that locks and on every attempt while
      locked, without checking the password). When the lock has expired the count
      starts again from zero. A success resets the count.
    - Deactivated account: `AccountInactive` only when the password is right,
      otherwise the generic message.
    Logins, failures and locks are written to the audit log (never the hash).
    """
    now = naive_utc(now)
    uname = normalise_username(username)
    row = store.fetch_one(f"SELECT {_USER_COLUMNS} FROM users WHERE username = ?", [uname]) if uname else None
    if row is None:
        verify_password(_dummy_hash(), password if isinstance(password, str) else "")
        raise AuthenticationFailed()
    plain = password if isinstance(password, str) else ""
    if not row["active"]:
        if verify_password(row["password_hash"], plain):
            raise AccountInactive()
        raise AuthenticationFailed()
    locked_until = row["locked_until"]
    if locked_until is not None and now < locked_until:
        raise AccountLocked(locked_until, now)

    if verify_password(row["password_hash"], plain):
        rehash = hash_password(plain) if _hasher.check_needs_rehash(row["password_hash"]) else None

        def succeed(tx: Tx) -> None:
            tx.execute("UPDATE users SET failed_attempts = 0, locked_until = NULL WHERE id = ?", [row["id"]])
            if rehash is not None:
                tx.execute("UPDATE users SET password_hash = ? WHERE id = ?", [rehash, row["id"]])
            tx.audit("login", "user", row["id"], None, {"username": uname})

        store.write(uname, succeed)
        return _principal(row)

    def fail(tx: Tx) -> datetime | None:
        # Re-read inside the transaction: concurrent failures must all count.
        cur = tx.fetch_one("SELECT failed_attempts, locked_until FROM users WHERE id = ?", [row["id"]]) or {}
        still_locked = cur.get("locked_until") is not None and now < cur["locked_until"]
        if still_locked:
            return cur["locked_until"]
        expired = cur.get("locked_until") is not None
        attempts = (0 if expired else int(cur.get("failed_attempts") or 0)) + 1
        if attempts >= MAX_FAILED_ATTEMPTS:
            until = now + timedelta(minutes=LOCKOUT_MINUTES)
            tx.execute("UPDATE users SET failed_attempts = ?, locked_until = ? WHERE id = ?",
                       [attempts, until, row["id"]])
            tx.audit("account_locked", "user", row["id"], None,
                     {"username": uname, "failed_attempts": attempts, "locked_until": until})
            return until
        tx.execute("UPDATE users SET failed_attempts = ?, locked_until = NULL WHERE id = ?", [attempts, row["id"]])
        tx.audit("login_failed", "user", row["id"], None, {"username": uname, "failed_attempts": attempts})
        return None

    until = store.write(uname, fail)
    if until is not None:
        raise AccountLocked(until, now)
    raise AuthenticationFailed()


SSO_NO_USER_MESSAGE = ("Login único reconhecido, mas não há usuário ativo com este e-mail neste sistema. "
                       "Peça ao administrador o cadastro do seu e-mail.")


def principal_for_email(store: Store, email: str) -> Principal:
    """The local user (and so the role) for an e-mail confirmed by single sign-on (OIDC via st.login).

    The identity provider proves who the person is; what they may do comes only from the
    local user with that e-mail (case-insensitive), which must be active and not locked.
    Several active users with one e-mail are refused (ambiguous role). Audited like a login.
    """
    address = email.strip().lower() if isinstance(email, str) else ""
    if "@" not in address:
        raise AuthenticationFailed(SSO_NO_USER_MESSAGE)
    rows = store.fetch(f"SELECT {_USER_COLUMNS} FROM users WHERE lower(email) = ? AND active", [address])
    if len(rows) != 1:
        raise AuthenticationFailed(SSO_NO_USER_MESSAGE)
    row = rows[0]
    if row["locked_until"] is not None and naive_utc(store.now()) < row["locked_until"]:
        raise AccountLocked(row["locked_until"], naive_utc(store.now()))
    store.write(row["username"], lambda tx: tx.audit("login_sso", "user", row["id"], None, {"email": address}))
    return _principal(row)


def session_expired(last_seen: datetime, now: datetime) -> bool:
    """True once a session has been idle for `SESSION_IDLE_MINUTES` or more."""
    return naive_utc(now) - naive_utc(last_seen) >= timedelta(minutes=SESSION_IDLE_MINUTES)


# -- access policy ----------------------------------------------------------------
_READERS = ("commission", "commission_president", "dpc", "explorer")

PAGES_BY_ROLE: dict[str, tuple[str, ...]] = {
    # explorers: organisations, inventory, decisions, statements… show their own only (the store scopes rows)
    "commission": ("overview", "wrecks", "organisations", "inventory", "commission", "rates"),
    "commission_president": ("overview", "wrecks", "organisations", "inventory", "commission", "rates"),
    "dpc": ("overview", "deadlines", "calendar", "domain", "wrecks", "organisations", "inventory", "custody",
            "found_things", "commission", "rates", "decisions", "contract_terms", "selection", "survey_costs",
            "statements", "policies", "documents"),
    "explorer": ("overview", "deadlines", "calendar", "wrecks", "organisations", "inventory", "custody", "decisions",
                 "survey_costs", "statements", "documents"),
    "admin": ("overview", "users", "audit"),
}

# What each role may do in the store; the query functions call `require`.
PERMISSIONS: dict[str, tuple[str, ...]] = {
    "read_offices": ROLES,
    "read_wrecks": _READERS,
    "create_wreck": ("dpc",),
    "read_organisations": _READERS,
    "create_organisation": ("dpc",),
    "read_owners": ("dpc",),
    "create_owner": ("dpc",),
    "read_contracts": _READERS,
    "read_items": _READERS,
    "read_overview": ROLES,
    "manage_users": ("admin",),
    "read_audit": ("admin",),
    # issue 4 (inventory): explorers import into their own contracts only (the store checks the organisation)
    "import_items": ("dpc", "explorer"),
    "read_custody": ("dpc", "explorer"),
    "record_deliveries": ("dpc",),
    "read_found_things": ("dpc",),
    "manage_found_things": ("dpc",),
    # issue 5 (partition): explorers read their own issued statements and file their own cost sheets
    "manage_partition": ("dpc",),
    "read_statements": ("dpc", "explorer"),
    "file_survey_costs": ("dpc", "explorer"),
    "record_inspection_expenses": ("dpc", "explorer"),
}
_ACTION_LABELS: dict[str, str] = {
    "manage_partition": "registrar termos, escolhas e demonstrativos de partilha",
    "read_statements": "consultar demonstrativos de partilha",
    "file_survey_costs": "registrar planilhas de custos de pesquisa",
    "record_inspection_expenses": "registrar despesas de fiscalização",
    "import_items": "importar bens resgatados",
    "read_custody": "consultar a custódia dos bens",
    "record_deliveries": "registrar entregas à Autoridade Naval",
    "read_found_things": "consultar coisas achadas",
    "manage_found_things": "registrar coisas achadas",
    "read_offices": "consultar as Capitanias",
    "read_wrecks": "consultar naufrágios",
    "create_wreck": "cadastrar naufrágios",
    "read_organisations": "consultar empresas",
    "create_organisation": "cadastrar empresas",
    "read_owners": "consultar responsáveis",
    "create_owner": "cadastrar responsáveis",
    "read_contracts": "consultar contratos",
    "read_items": "consultar bens resgatados",
    "read_overview": "ver a visão geral",
    "manage_users": "administrar usuários",
    "read_audit": "consultar o registro de auditoria",
}


def allowed(user: Principal, action: str) -> bool:
    """True when the user's role may perform `action` (a key of PERMISSIONS)."""
    return user.role in PERMISSIONS.get(action, ())


def require(user: Principal, action: str) -> None:
    """Raise AccessDenied (pt-BR) unless the user's role may perform `action`."""
    if not allowed(user, action):
        label = _ACTION_LABELS.get(action, action)
        raise AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite {label}.",
                           user=user.username, action=action)


def may_view_page(user: Principal, page_key: str) -> bool:
    """True when the navigation should offer `page_key` to this user's role."""
    return page_key in PAGES_BY_ROLE.get(user.role, ())


def position_cleared(user: Principal, *, contract_organisation_ids: Collection[int],
                     under_assessment: bool) -> bool:
    """May this user see a wreck's position? (rules.md §8; NORMAM-10 0105 and 0403 a)

    `contract_organisation_ids`: the organisations holding a contract on the wreck;
    `under_assessment`: some contract on the wreck has recovered items before the
    commission. dpc: always; commission roles: when under assessment; explorer: when
    its organisation holds a contract on the wreck; admin and anyone else: never.
    The store applies the same rule in SQL (`valuation.store.scope`).
    """
    if user.role == "dpc":
        return True
    if user.role in COMMISSION_ROLES:
        return under_assessment
    if user.role == "explorer":
        return user.organisation_id is not None and user.organisation_id in set(contract_organisation_ids)
    return False
