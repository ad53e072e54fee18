"""Calendar subscriptions (issue 13, item 5): `/calendario/<token>.ics` per user.

A DPC user subscribes to one office's deadlines or to every office's; an explorer to its own
company's. The token is long and random (256 bits); the store keeps only its SHA-256, so the
address is shown once, when it is made — making a new one revokes the old. The feed reads
with the rights of the user who made it, as they are *now*: a deactivated user's feed, or
one whose role no longer reads deadlines, answers "not found". Every event carries one
VALARM per day count of the policy `calendar_alarm_days` (default 5 and 1 days before).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from valuation.accounts import login
from valuation.accounts.sessions import new_token, token_hash
from valuation.core.errors import InputError, Problem
from valuation.db.access import Principal, allowed, chosen_office, office_match, require

ROUTE_PREFIX = "/calendario/"
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{40,128}$")


@dataclass(frozen=True)
class Feed:
    principal: Principal
    office: str | None


def office_choices(store: Any, user: Principal) -> dict[str, str]:
    """code → name of the offices a subscription may be limited to (and named by), by code: every office, or an
    office officer's own."""
    require(user, "subscribe_deadlines")
    office, params = office_match(user, "code")
    return {r["code"]: r["name"] for r in store.fetch(f"SELECT code, name FROM offices WHERE {office} ORDER BY code",
                                                      params)}


def feed_url(base_url: str, token: str) -> str:
    return f"{base_url.rstrip('/')}{ROUTE_PREFIX}{token}.ics"


def create_feed(store: Any, user: Principal, *, office: str | None = None, now: datetime) -> str:
    """A new subscription token for `user` (the previous ones are revoked); shown once."""
    require(user, "subscribe_deadlines")
    office = chosen_office(user, office)           # an office officer subscribes to its own office's
    if office and not allowed(user, "read_all_deadlines"):
        raise InputError(Problem("office", "Capitania: a empresa assina os prazos dos seus próprios contratos."))
    if office and store.scalar("SELECT count(*) FROM offices WHERE code = ?", [office]) == 0:
        raise InputError(Problem("office", f"Capitania desconhecida: {office}."))
    token = new_token()
    at = login.naive_utc(now)

    def run(tx: Any) -> None:
        tx.execute("UPDATE calendar_feeds SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL", [at, user.id])
        tx.execute("INSERT INTO calendar_feeds (token_sha256, user_id, office_code, created_at) VALUES (?, ?, ?, ?)",
                   [token_hash(token), user.id, office or None, at])
        tx.audit("calendar_feed_created", "user", user.id, None, {"office": office or None})

    store.write(user.username, run)
    return token


def revoke_feeds(store: Any, user: Principal, *, now: datetime) -> int:
    """Revoke every live subscription of `user`; returns how many."""
    def run(tx: Any) -> int:
        n = int(tx.scalar("SELECT count(*) FROM calendar_feeds WHERE user_id = ? AND revoked_at IS NULL", [user.id]))
        if n:
            tx.execute("UPDATE calendar_feeds SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
                       [login.naive_utc(now), user.id])
            tx.audit("calendar_feed_revoked", "user", user.id, None, {"count": n})
        return n

    return store.write(user.username, run)


def active_feed(store: Any, user: Principal) -> dict[str, Any] | None:
    """The user's live subscription (created_at, office_code), never its token."""
    return store.fetch_one("SELECT created_at, office_code FROM calendar_feeds WHERE user_id = "
                           "? AND revoked_at IS NULL "
                           "ORDER BY id DESC LIMIT 1", [user.id])


def resolve(store: Any, token: str) -> Feed | None:
    if not isinstance(token, str) or not TOKEN_PATTERN.match(token):
        return None
    row = store.fetch_one(
        "SELECT f.office_code AS feed_office, u.id, u.username, u.full_name, u.role, u.organisation_id, "
        "u.commission_body, u.office_code, u.active FROM calendar_feeds f JOIN users u ON u.id = f.user_id "
        "WHERE f.token_sha256 = ? AND f.revoked_at IS NULL",
        [token_hash(token)])
    if row is None or not row["active"]:
        return None
    principal = login.principal_from_row(row)
    return Feed(principal, row["feed_office"]) if allowed(principal, "read_deadlines") else None


def alarm_days(store: Any) -> tuple[int, ...]:
    """The reminders of the policy `calendar_alarm_days` in force today (valuation.policies.values)."""
    from valuation.policies.values import policy_in_force

    return tuple(policy_in_force(store, "calendar_alarm_days").value)


def alarms_text(days: tuple[int, ...]) -> str:
    """The reminders as people read them: '5 dias e 1 dia antes'; none: 'nenhum'."""
    return " e ".join(f"{d} dia" + ("s" if d != 1 else "") for d in days) + " antes" if days else "nenhum"


def feed_ics(store: Any, token: str, *, as_of: date,
             extra: Callable[[Any, Principal, date, str | None], Sequence[Any]] | None = None) -> bytes | None:
    """The iCalendar body of a subscription, or None for an unknown or revoked token. `extra(store, principal,
    as_of, office)`: more events the caller adds with the subscriber's rights (the service adds the Authority's
    own deadlines in the requests: valuation.proceedings.feeds.authority_events)."""
    from valuation.deadlines.frames import deadlines_ics

    feed = resolve(store, token)
    if feed is None:
        return None
    stamp = datetime(as_of.year, as_of.month, as_of.day, tzinfo=UTC)  # stable within a day (ETag)
    more = extra(store, feed.principal, as_of, feed.office) if extra is not None else ()
    return deadlines_ics(store, feed.principal, as_of=as_of, office=feed.office, now=stamp,
                         alarm_days=alarm_days(store), extra=more)
