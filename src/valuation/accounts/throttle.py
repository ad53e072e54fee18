"""Login throttling (issue 14, item 3): growing delays per client address, per account and per
(account, client) pair, instead of a lock that anyone who knows a username controls.

Following OWASP's Authentication Cheat Sheet ("account lockout" → exponential delays, keyed by
more than the account):

- `pair` — this username from this client: the attacker's own client is slowed first
  (after `RULES["pair"].free` failures, then 2 s, 4 s, 8 s … up to 15 minutes);
- `client` — every username from this client: password spraying from one address;
- `account` — this username from any client: a distributed attack. It starts late and its delay is
  short (at most a minute), so the real owner, on their own client, gets in while the attacking
  client's `pair`/`client` throttle is the one that bites.

A failure counts on the three keys; an attempt refused while throttled counts on the `client` key
only (it hurts nobody but its sender). Counts are forgotten `FORGET_AFTER` after the last failure;
a success clears the `pair` and `account` keys (never the `client` key: an attacker holding an
account of its own cannot reset its throttle by logging in). A username is a key whether or not
it exists, so a throttled unknown username looks exactly like a throttled real one. Every delay
imposed and every refused attempt is written to the audit log (the admin's Auditoria page) and
the throttles in force are listed on the Usuários page (`active_throttles`).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from valuation.core import clock
from valuation.db.access import Principal, require

LOCAL_CLIENT = "local"          # no address known (development server, tests, the command line)
MAX_KEY_CHARS = 64              # a typed username or an address is cut here: bounded rows
FORGET_AFTER = timedelta(hours=24)


@dataclass(frozen=True)
class Rule:
    free: int      # failures allowed before the first delay
    base_s: int    # the first delay, doubled at each further failure
    cap_s: int     # the longest delay


RULES: dict[str, Rule] = {
    "pair": Rule(free=5, base_s=2, cap_s=15 * 60),
    "client": Rule(free=20, base_s=2, cap_s=15 * 60),
    "account": Rule(free=50, base_s=2, cap_s=60),
}
SCOPE_LABELS: dict[str, str] = {"pair": "usuário neste endereço", "client": "endereço de origem",
                                "account": "usuário (qualquer endereço)"}


def client_key(client: object) -> str:
    """The client's address as a throttle key ('local' when unknown)."""
    text = str(client).strip() if isinstance(client, str) else ""
    return text[:MAX_KEY_CHARS] if text else LOCAL_CLIENT


def keys(username: str, client: object) -> list[tuple[str, str]]:
    """The (scope, key) pairs of one attempt: pair, client, account."""
    who = username[:MAX_KEY_CHARS]
    where = client_key(client)
    return [("pair", f"{who}|{where}"), ("client", where), ("account", who)]


def delay(scope: str, failures: int) -> timedelta | None:
    """How long the key waits after `failures` counted failures (None: no wait)."""
    rule = RULES[scope]
    over = failures - rule.free
    if over < 0:
        return None
    return timedelta(seconds=min(rule.cap_s, rule.base_s * 2 ** min(over, 20)))


def _rows(db: Any, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
    where = " OR ".join("(scope = ? AND key = ?)" for _ in pairs)
    params = [v for pair in pairs for v in pair]
    rows = db.fetch(f"SELECT scope, key, failures, last_failure_at, blocked_until FROM login_throttle "
                    f"WHERE {where}", params)
    return {(r["scope"], r["key"]): r for r in rows}


def blocking(db: Any, pairs: list[tuple[str, str]], at: datetime) -> tuple[str, datetime] | None:
    """(scope, until) of the first key that is waiting at `at` (stored UTC), else None."""
    found = _rows(db, pairs)
    for pair in pairs:
        row = found.get(pair)
        if row is not None and row["blocked_until"] is not None and at < row["blocked_until"]:
            return pair[0], row["blocked_until"]
    return None


def count(tx: Any, pairs: list[tuple[str, str]], at: datetime, *, scopes: frozenset[str]) -> list[dict[str, Any]]:
    """Add one failure to the keys of `scopes` (the others are read and rewritten unchanged: the same
    work whatever the outcome); returns the delays imposed now: [{scope, key, failures, until}]."""
    tx.execute("DELETE FROM login_throttle WHERE last_failure_at < ? AND (blocked_until IS NULL OR "
               "blocked_until < ?)", [at - FORGET_AFTER, at])
    found = _rows(tx, pairs)
    imposed = []
    for scope, key in pairs:
        row = found.get((scope, key))
        failures = 0 if row is None else int(row["failures"])
        last = None if row is None else row["last_failure_at"]
        until = None if row is None else row["blocked_until"]
        if scope in scopes:
            failures, last = failures + 1, at
            wait = delay(scope, failures)
            if wait is not None:
                until = max(until or at, at + wait)
                imposed.append({"scope": scope, "key": key, "failures": failures, "until": until})
        tx.execute("DELETE FROM login_throttle WHERE scope = ? AND key = ?", [scope, key])
        if last is not None:
            tx.execute("INSERT INTO login_throttle VALUES (?, ?, ?, ?, ?)", [scope, key, failures, last, until])
    return imposed


def clear(tx: Any, pairs: list[tuple[str, str]], *, scopes: frozenset[str]) -> None:
    for scope, key in pairs:
        if scope in scopes:
            tx.execute("DELETE FROM login_throttle WHERE scope = ? AND key = ?", [scope, key])


def active_throttles(store: Any, user: Principal, *, now: datetime | None = None) -> list[dict[str, Any]]:
    """The keys waiting at `now` (aware; default now), longest wait first: scope, key, failures, last
    failure, until (admin only)."""
    require(user, "manage_users")
    at = store.now() if now is None else clock.stored(now)
    return store.fetch("SELECT scope, key, failures, last_failure_at, blocked_until FROM login_throttle "
                       "WHERE blocked_until > ? ORDER BY blocked_until DESC, scope, key", [at])


def clear_for_username(tx: Any, username: str) -> int:
    """Lift every throttle of a username (its account key and its pairs); the admin's "desbloquear"."""
    who = username[:MAX_KEY_CHARS]
    n = int(tx.scalar("SELECT count(*) FROM login_throttle WHERE (scope = 'account' AND key = ?) OR "
                      "(scope = 'pair' AND starts_with(key, ?))", [who, who + "|"]))
    tx.execute("DELETE FROM login_throttle WHERE (scope = 'account' AND key = ?) OR "
               "(scope = 'pair' AND starts_with(key, ?))", [who, who + "|"])
    return n
