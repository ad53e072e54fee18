"""Login: local passwords with lock-out, single sign-on by e-mail, and the idle rule of a session.

After `MAX_FAILED_ATTEMPTS` consecutive failures the account is locked for `LOCKOUT_MINUTES`
(users.failed_attempts / users.locked_until). A wrong username and a wrong password give the same
message, and an unknown username costs the same hashing work (accounts.passwords). Logins,
failures and locks are audited; hashes never are. Timestamps are naive UTC (an aware `now` is
converted). Who may do what once logged in is decided in db.access.
"""
from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from valuation.accounts.passwords import (
    _dummy_hash,
    hash_password,
    needs_rehash,
    verify_password,
)
from valuation.core.errors import ValuationError
from valuation.db.access import Principal

if TYPE_CHECKING:  # the store imports this module, never the reverse at run time
    from valuation.db.store import Store, Tx


MAX_FAILED_ATTEMPTS = 5          # consecutive failures before the lock (issue: foundation)
LOCKOUT_MINUTES = 15             # how long the lock lasts
SESSION_IDLE_MINUTES = 30        # a session idle this long must log in again
USERNAME_PATTERN = r"[a-z0-9][a-z0-9._-]{2,31}"

LOGIN_FAILED_MESSAGE = "Usuário ou senha incorretos."
INACTIVE_MESSAGE = "Este usuário está desativado. Procure o administrador do sistema."




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


def principal_from_row(row: dict[str, Any]) -> Principal:
    """The Principal of a `users` row (id, username, full_name, role, organisation_id, commission_body)."""
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
        rehash = hash_password(plain) if needs_rehash(row["password_hash"]) else None

        def succeed(tx: Tx) -> None:
            tx.execute("UPDATE users SET failed_attempts = 0, locked_until = NULL WHERE id = ?", [row["id"]])
            if rehash is not None:
                tx.execute("UPDATE users SET password_hash = ? WHERE id = ?", [rehash, row["id"]])
            tx.audit("login", "user", row["id"], None, {"username": uname})

        store.write(uname, succeed)
        return principal_from_row(row)

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
    return principal_from_row(row)


def session_expired(last_seen: datetime, now: datetime) -> bool:
    """True once a session has been idle for `SESSION_IDLE_MINUTES` or more."""
    return naive_utc(now) - naive_utc(last_seen) >= timedelta(minutes=SESSION_IDLE_MINUTES)












