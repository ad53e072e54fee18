"""Login: local passwords with throttling, and the idle rule of a session (gov.br's single sign-on: accounts.govbr).

Password guessing is slowed by growing delays per client address, per account and per (account,
client) pair (`valuation.accounts.throttle`, issues 14 and 24): no lock that an attacker could keep
on someone else's account, and the right password always gets in within a bounded time. An unknown
username and a wrong password get the same message and cost the same work — one argon2 verification
(against a dummy hash when there is no user) and one write transaction — so neither the answer nor
its time tells whether a username exists. A throttled attempt gets the same message too, but is
refused before any hashing (the throttle's keys do not depend on whether the user exists, so this
tells nothing either); at most `passwords.MAX_CONCURRENT_HASHES` argon2 checks run at once. An attempt
is judged and counted as a failure in one write before its password is checked (`throttle.reserve`),
so attempts sent together cannot all pass the verdict before any is counted (issue 45, item 4); the
right password gives the count back. Logins
are audited one row each, refusals one row per burst from an address (`throttle.burst`); hashes
never are. Instants are aware UTC (`valuation.core.clock`): a naive `now` is refused.
Who may do what once logged in is decided in db.access.
"""
from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from valuation.accounts import throttle
from valuation.accounts.passwords import (
    BUSY_MESSAGE,
    HashingBusy,
    dummy_hash,
    hash_password,
    needs_rehash,
    verify_password,
)
from valuation.core import clock
from valuation.core.errors import ValuationError
from valuation.db.access import Principal

if TYPE_CHECKING:  # the store imports this module, never the reverse at run time
    from valuation.db.store import Store, Tx


log = logging.getLogger("valuation.accounts")
SESSION_IDLE_MINUTES = 30        # a session idle this long must log in again
USERNAME_PATTERN = r"[a-z0-9][a-z0-9._-]{2,31}"
MAX_PASSWORD_CHARS = 1024        # longer is not a password of ours: verified as empty (same work)

LOGIN_FAILED_MESSAGE = ("Não foi possível entrar: usuário ou senha incorretos, ou tentativas demais em pouco "
                        "tempo. Confira os dados e tente de novo em alguns minutos.")
INACTIVE_MESSAGE = "Este usuário está desativado. Procure o administrador do sistema."
THROTTLE_NOTE = ("Após várias tentativas erradas, novas tentativas deste endereço ou para este usuário "
                 "esperam um intervalo que cresce a cada erro (de 2 segundos até 15 minutos).")


class AuthenticationFailed(ValuationError):
    """Login refused. The message (pt-BR) never tells whether the username exists."""

    def __init__(self, message: str = LOGIN_FAILED_MESSAGE):
        super().__init__(message)


class LoginThrottled(AuthenticationFailed):
    """Refused without checking the password: a throttle of this attempt's keys is waiting.
    Same message as a wrong password (the user cannot tell, and neither can an attacker)."""

    def __init__(self, scope: str, until: datetime):
        self.scope = scope
        self.until = until
        super().__init__()


AccountLocked = LoginThrottled   # the old name (there is no account lock any more)


class LoginBusy(AuthenticationFailed):
    """Refused without checking the password: every argon2 slot stayed busy (passwords.HASH_WAIT_S)."""

    def __init__(self) -> None:
        super().__init__(BUSY_MESSAGE)


class AccountInactive(AuthenticationFailed):
    """Right password, but the account was deactivated by the administrator."""

    def __init__(self) -> None:
        super().__init__(INACTIVE_MESSAGE)


def normalise_username(username: object) -> str:
    return username.strip().lower() if isinstance(username, str) else ""


def username_is_valid(username: str) -> bool:
    return re.fullmatch(USERNAME_PATTERN, username) is not None


def naive_utc(moment: datetime) -> datetime:
    """The stored (zone-less UTC) form of an instant. Aware instants are converted; a naive one is
    taken as already stored UTC (store values). New code: `valuation.core.clock.stored`."""
    return moment if moment.tzinfo is None else clock.stored(moment)


# -- login ------------------------------------------------------------------------
# what principal_from_row reads
PRINCIPAL_COLUMNS = "id, username, full_name, role, organisation_id, commission_body, office_code"
_USER_COLUMNS = f"{PRINCIPAL_COLUMNS}, password_hash, active"


def principal_from_row(row: dict[str, Any]) -> Principal:
    """The Principal of a `users` row (its PRINCIPAL_COLUMNS)."""
    return Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"],
                     role=row["role"], organisation_id=row["organisation_id"],
                     commission_body=row["commission_body"], office_code=row.get("office_code"))


def authenticate(store: Store, username: str, password: str, *, now: datetime, client: str | None = None) -> Principal:
    """The Principal for a right username and password, else AuthenticationFailed (pt-BR message).

    `now` is an aware instant (TypeError for a naive one); `client` the address of the browser
    (`st.context.ip_address` / the request's client; None when unknown).
    - Unknown username, wrong password: `AuthenticationFailed`, one message, the same work (one argon2
      check, against a dummy hash when there is no user).
    - Throttled attempt: `LoginThrottled` with the same message, refused before any hashing (issue 24,
      item 9); every argon2 slot busy for `passwords.HASH_WAIT_S`: `LoginBusy`, nothing counted.
    - Deactivated account: `AccountInactive` only when the password is right.
    """
    at = clock.stored(now)
    uname = normalise_username(username)[:throttle.MAX_KEY_CHARS]
    plain = password if isinstance(password, str) and len(password) <= MAX_PASSWORD_CHARS else ""
    pairs = throttle.keys(uname, client)
    row = store.fetch_one(f"SELECT {_USER_COLUMNS} FROM users WHERE username = ?", [uname]) if uname else None
    held = _reserve(store, uname, client, pairs, at, row)
    verdict = held.verdict
    if verdict.refused:
        raise LoginThrottled(str(verdict.scope), verdict.until or at)
    try:
        right = verify_password(row["password_hash"] if row is not None else dummy_hash(), plain)
    except HashingBusy:
        _refuse(store, uname, client, pairs, at, row, outcome="busy", held=held)
        raise LoginBusy() from None
    if right and row is not None:
        if not row["active"]:
            _refuse(store, uname, client, pairs, at, row, outcome="inactive", held=held)
            raise AccountInactive()
        _succeed(store, uname, client, pairs, at, plain, row, held)
        return principal_from_row(row)
    _refuse(store, uname, client, pairs, at, row, outcome="failed", held=held)
    raise AuthenticationFailed()


def _reserve(store: Store, uname: str, client: str | None, pairs: list[tuple[str, str]], at: datetime,
             row: dict[str, Any] | None) -> throttle.Reservation:
    """One write: the throttle's verdict and, for an attempt to be checked, its failure counted first
    (`throttle.reserve`); a refused attempt is counted and audited as a refusal in the same write."""

    def run(tx: Tx, audited: bool = True) -> throttle.Reservation:
        held = throttle.reserve(tx, pairs, at)
        if held.verdict.refused:
            _refusal(tx, uname, client, pairs, at, row, "throttled", held, audited)
        return held

    return write_audited(store, uname or "anônimo", run)


def _burst_summaries(tx: Tx, ended: list[dict[str, Any]]) -> None:
    for summary in ended:
        tx.audit("login_failed_burst", "login_throttle", summary["client"], None, summary)


def _succeed(store: Store, uname: str, client: str | None, pairs: list[tuple[str, str]], at: datetime, plain: str,
             row: dict[str, Any], held: throttle.Reservation) -> None:
    try:
        rehash = hash_password(plain) if needs_rehash(row["password_hash"]) else None
    except HashingBusy:
        rehash = None                        # re-hashed at a later login

    def run(tx: Tx, audited: bool = True) -> None:
        throttle.refund(tx, held)            # counted before the check: it was no failure
        throttle.succeed(tx, pairs, at)
        ended = [s for s in (throttle.close_burst(tx, client),) if s is not None] + throttle.sweep(tx, at)
        if rehash is not None and audited:
            tx.execute("UPDATE users SET password_hash = ? WHERE id = ?", [rehash, row["id"]])
        if audited:
            _burst_summaries(tx, ended)
            tx.audit("login", "user", row["id"], None, {"username": uname, "client": throttle.client_key(client)})

    write_audited(store, uname, run)


_ACTIONS = {"failed": "login_failed", "throttled": "login_throttled", "busy": "login_busy",
            "inactive": "login_inactive"}


def _refuse(store: Store, uname: str, client: str | None, pairs: list[tuple[str, str]], at: datetime,
            row: dict[str, Any] | None, *, outcome: str, held: throttle.Reservation) -> None:
    """The write of a checked attempt's refusal (`_refusal`): a wrong password keeps the failure counted
    before its check; every argon2 slot busy and a deactivated account give it back."""

    def run(tx: Tx, audited: bool = True) -> None:
        if outcome != "failed":
            throttle.refund(tx, held)
        _refusal(tx, uname, client, pairs, at, row, outcome, held, audited)

    write_audited(store, uname or "anônimo", run)


def _refusal(tx: Tx, uname: str, client: str | None, pairs: list[tuple[str, str]], at: datetime,
             row: dict[str, Any] | None, outcome: str, held: throttle.Reservation, audited: bool) -> None:
    """A refusal's books: an attempt refused unchecked counts on its address (`client`); the refusal is
    audited when it starts a burst from its address (the rest of the burst is one summary row,
    `throttle.burst`); a delay a failure started is audited (once, when it starts). A right password for a
    deactivated account is audited each time."""
    if outcome == "throttled":
        throttle.count(tx, pairs, at, scopes=frozenset({"client"}), verdict=held.verdict)
    started = held.started if outcome == "failed" else []
    first, ended = (True, None) if outcome == "inactive" else \
        throttle.burst(tx, client, uname, at, checked=outcome == "failed")
    swept = throttle.sweep(tx, at)
    if not audited:
        return
    _burst_summaries(tx, [s for s in (ended, *swept) if s is not None])
    if first:
        tx.audit(_ACTIONS[outcome], "user", None if row is None else row["id"], None,
                 {"username": uname, "client": throttle.client_key(client)})
    for event in started:
        tx.audit("login_throttle", "login_throttle", event["key"], None,
                 {"scope": event["scope"], "failures": event["failures"], "blocked_until": event["until"]})


def write_audited(store: Store, actor: str, run: Any) -> Any:
    """`run(tx)` in one write (its result); when the audit chain refuses every write (its seal does not
    verify: `db.audit.AuditSealError`, the admin is alerted), `run(tx, audited=False)` instead — the
    throttle keeps counting and the admin can still log in to see the alert, while nothing
    audited is written and the anchor is never extended."""
    from valuation.db.audit import AuditSealError

    try:
        return store.write(actor, run)
    except AuditSealError:
        log.error("audit seal does not verify: login activity of %r kept out of the audit log", actor)
        return store.write(actor, lambda tx: run(tx, audited=False))


def session_expired(last_seen: datetime, now: datetime) -> bool:
    """True once a session has been idle for `SESSION_IDLE_MINUTES` or more (`last_seen` as stored,
    zone-less UTC, or aware; `now` aware)."""
    return clock.stored(now) - naive_utc(last_seen) >= timedelta(minutes=SESSION_IDLE_MINUTES)
