"""Login sessions that outlive a browser connection (issue 13).

A successful login (local password or single sign-on) issues an opaque random token;
the store keeps only its SHA-256 with the user, when it was created and last seen, and
whether it was revoked. The browser holds the token in an HttpOnly cookie set by the
service's own route (a Streamlit script cannot set an HttpOnly cookie); every script
run validates it here:

    session_id, token = issue(store, user, now=now)      # at login
    found = validate(store, token, now=now)              # on a reload, a new tab, after a restart
    principal, why = validate_id(store, session_id, now=now)   # on every run of an open connection
    revoke(store, session_id, reason="logout", now=now)  # "Sair"
    revoke_user(tx, user_id, reason="deactivated", now=now)    # inside the admin's transaction

Every `now` is an aware instant (`valuation.core.clock.now_utc()`); a naive one is refused.
Expiry is the idle rule of `valuation.accounts.login.session_expired` (30 minutes since last seen);
`last_seen` is written at most once per `TOUCH_SECONDS` so a busy page does not write on
every rerun. A session of a user who was deactivated is refused even if it was not revoked.

The cookie's token never reaches a URL, a log or the audit log: the script hands the
browser a short-lived single-use *ticket* (`TicketBook`, in the service process's memory
only) that the browser POSTs to the cookie route, which redeems it for the token.
"""
from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from valuation.accounts import login
from valuation.core import clock
from valuation.db.access import Principal

COOKIE_NAME = "valuation_sessao"
TOKEN_BYTES = 32                  # 256 bits, URL-safe base64 (43 characters)
TICKET_SECONDS = 60               # a ticket not redeemed within this is void
TOUCH_SECONDS = 60                # last_seen is written at most this often
REVOKE_REASONS = ("logout", "deactivated", "role_changed", "password_reset")
_MAX_TOKEN_CHARS = 128            # anything longer is not one of ours: refused without hashing work

EXPIRED = "expired"
REVOKED = "revoked"
INACTIVE = "inactive"


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _valid_shape(token: object) -> bool:
    return isinstance(token, str) and 20 <= len(token) <= _MAX_TOKEN_CHARS and token.isascii()


@dataclass(frozen=True)
class Session:
    id: int
    principal: Principal


_USER_SQL = ("SELECT s.id AS session_id, s.last_seen, s.revoked_at, u.id, u.username, u.full_name, u.role, "
             "u.organisation_id, u.commission_body, u.office_code, u.active "
             "FROM sessions s JOIN users u ON u.id = s.user_id ")


def issue(store: Any, user: Principal, *, now: datetime) -> tuple[int, str]:
    """A new session for `user`: (its id, the token for the cookie). Only the hash is stored."""
    token = new_token()
    at = clock.stored(now)
    sid = store.write(user.username, lambda tx: int(tx.scalar(
        "INSERT INTO sessions (token_sha256, user_id, created_at, last_seen) VALUES (?, ?, ?, ?) RETURNING id",
        [token_hash(token), user.id, at, at])))
    return sid, token


def _check(store: Any, row: dict[str, Any] | None, now: datetime) -> tuple[Principal | None, str | None]:
    if row is None:
        return None, REVOKED
    if row["revoked_at"] is not None:
        return None, REVOKED
    if not row["active"]:
        return None, INACTIVE
    if login.session_expired(row["last_seen"], now):
        return None, EXPIRED
    if (clock.stored(now) - row["last_seen"]).total_seconds() >= TOUCH_SECONDS:
        store.write(row["username"], lambda tx: tx.execute(
            "UPDATE sessions SET last_seen = ? WHERE id = ? AND revoked_at IS NULL",
            [clock.stored(now), row["session_id"]]), bookkeeping=True)  # no page shows it: cached pages stay
    return login.principal_from_row(row), None


def validate(store: Any, token: object, *, now: datetime) -> Session | None:
    """The live session of a cookie's token (touching last_seen), or None."""
    if not _valid_shape(token):
        return None
    row = store.fetch_one(_USER_SQL + "WHERE s.token_sha256 = ?", [token_hash(str(token))])
    principal, _why = _check(store, row, now)
    return None if principal is None else Session(int(row["session_id"]), principal)


def validate_id(store: Any, session_id: int, *, now: datetime) -> tuple[Principal | None, str | None]:
    """(the user as stored now, None) for a live session; (None, EXPIRED | REVOKED | INACTIVE) otherwise."""
    row = store.fetch_one(_USER_SQL + "WHERE s.id = ?", [int(session_id)])
    return _check(store, row, now)


def revoke(store: Any, session_id: int, *, reason: str, now: datetime, actor: str = "sistema") -> None:
    """End one session (logout)."""
    def run(tx: Any, audited: bool = True) -> None:
        row = tx.fetch_one("SELECT s.user_id, u.username FROM sessions s JOIN users u ON u.id = s.user_id "
                           "WHERE s.id = ? AND s.revoked_at IS NULL", [int(session_id)])
        if row is None:
            return
        tx.execute("UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ?",
                   [clock.stored(now), reason, int(session_id)])
        if reason == "logout" and audited:
            tx.audit("logout", "user", row["user_id"], None, {"username": row["username"]})

    login.write_audited(store, actor, run)   # "Sair" works even while the audit chain refuses writes


def revoke_token(store: Any, token: object, *, now: datetime) -> None:
    """End the session of a cookie's token (the logout route), if it is ours and live."""
    if not _valid_shape(token):
        return
    row = store.fetch_one("SELECT id FROM sessions WHERE token_sha256 = ? AND revoked_at IS NULL",
                          [token_hash(str(token))])
    if row is not None:
        revoke(store, int(row["id"]), reason="logout", now=now)


def revoke_user(tx: Any, user_id: int, *, reason: str, now: datetime) -> int:
    """End every live session of a user inside the caller's transaction; returns how many."""
    n = int(tx.scalar("SELECT count(*) FROM sessions WHERE user_id = ? AND revoked_at IS NULL", [user_id]))
    if n:
        tx.execute("UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE user_id = ? AND revoked_at IS NULL",
                   [clock.stored(now), reason, user_id])
    return n


def live_count(store: Any, user_id: int) -> int:
    return int(store.scalar("SELECT count(*) FROM sessions WHERE user_id = ? AND revoked_at IS NULL", [user_id]))


class TicketBook:
    """Single-use tickets that stand for a session token for `TICKET_SECONDS` (process memory only).

    The script puts a ticket (not the token) into the page; the browser POSTs it to the
    cookie route, which calls `redeem` and sets the cookie. A ticket works once.
    """

    def __init__(self, seconds: float = TICKET_SECONDS, clock: Any = time.monotonic) -> None:
        self._seconds = seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._tickets: dict[str, tuple[str, float]] = {}

    def issue(self, token: str) -> str:
        ticket = secrets.token_urlsafe(24)
        with self._lock:
            self._purge()
            self._tickets[token_hash(ticket)] = (token, self._clock() + self._seconds)
        return ticket

    def redeem(self, ticket: object) -> str | None:
        if not _valid_shape(ticket):
            return None
        with self._lock:
            self._purge()
            entry = self._tickets.pop(token_hash(str(ticket)), None)
        return None if entry is None else entry[0]

    def _purge(self) -> None:
        now = self._clock()
        for key in [k for k, (_, until) in self._tickets.items() if until <= now]:
            del self._tickets[key]
