"""Login throttling: growing delays per client address, per account and per (account, client) pair,
never a lock that others control, and never a refusal of the right password for ever (issues 14, 24).

Following OWASP's Authentication Cheat Sheet ("account lockout" → exponential delays, keyed by
more than the account; "device cookies" → the places the owner logged in from):

- `pair` — this username from this client: the attacker's own client is slowed first
  (after `RULES["pair"].free` failures, then 2 s, 4 s, 8 s … up to 15 minutes);
- `client` — every username from this client: password spraying from one address;
- `account` — this username from any client: a distributed attack. It starts late, its delay is
  short (at most `ACCOUNT_CAP`) and it can never keep the right password out (issue 24, item 6):
  * an address that logged in to the account within `KNOWN_FOR` (a `known` row) is not subject
    to it at all — failures from elsewhere never refuse the owner at home;
  * any other address waits its *turn*: its first attempt refused by the account's delay is
    given the moment that delay ends (a `turn` row, at most `ACCOUNT_CAP` away), and from then
    on one attempt of that address is checked whatever other addresses do meanwhile; a wrong
    password spends the turn (the next attempt asks for a new one), so an address let through
    still guesses at most once per turn.

A failure counts on the three keys; an attempt refused unchecked counts on the `client` key only
(it hurts nobody but its sender). An attempt is counted *before* its password is checked, in the same
write as the verdict on it (`reserve`; issue 45, item 4: the verdict was read before hashing and the
failure counted after, so 60 attempts in flight together were all checked where 5 are allowed); an
attempt that turns out not to be a failure — the right password, every argon2 slot busy — gives its
count back (`refund`). Counts are forgotten `FORGET_AFTER` after the last failure; a
success clears the `pair` key and records the address as `known` (the `account` key keeps
counting the others' failures: the owner does not need it cleared to get in, and a login of the
owner no longer hands the attackers a fresh budget). A username is a key whether or not it
exists, so a throttled unknown username looks exactly like a throttled real one.

The audit log gets one row per *burst* (issue 24, item 9): the first refusal from an address is
audited as it happens; the refusals that follow it from the same address within `BURST_GAP` of
each other are counted on a `burst` row and written as one summary row (`login_failed_burst`:
failures, refused unchecked, the usernames tried, first and last) when the burst ends — at the
next success from that address, or at the first login attempt (anyone's) after the burst has
been quiet for `BURST_GAP`. A delay is audited when a key first waits (`login_throttle`), not at
each doubling. The throttles in force are listed on the Usuários page (`active_throttles`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from valuation.core import clock
from valuation.db.access import Principal, require

LOCAL_CLIENT = "local"          # no address known (development server, tests, the command line)
MAX_KEY_CHARS = 64              # a typed username or an address is cut here: bounded rows
FORGET_AFTER = timedelta(hours=24)
KNOWN_FOR = timedelta(days=30)          # an address the owner logged in from stays "known" this long
TURN_KEPT = timedelta(minutes=10)       # a turn not used this long after it came is forgotten
BURST_GAP = timedelta(minutes=15)       # refusals from one address closer than this are one burst
BURST_NAMES = 8                         # usernames named in a burst's summary
SWEEP_LIMIT = 20                        # quiet bursts summarised by one login transaction


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
COUNTED: tuple[str, ...] = ("pair", "client", "account")
ACCOUNT_CAP = timedelta(seconds=RULES["account"].cap_s)   # the longest wait others can impose on the owner
SCOPE_LABELS: dict[str, str] = {"pair": "usuário neste endereço", "client": "endereço de origem",
                                "account": "usuário (qualquer endereço)"}


@dataclass(frozen=True)
class Verdict:
    """What the throttle says of one attempt before its password is looked at."""

    scope: str | None = None                # the key whose delay refuses it unchecked (None: check it)
    until: datetime | None = None           # … until then (stored UTC)
    turn_used: bool = False                 # checked on its turn under the account's delay (spent by it)
    turn_given: datetime | None = None      # refused by the account's delay: its turn comes then

    @property
    def refused(self) -> bool:
        return self.scope is not None


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
    return rule_delay(RULES[scope], failures)


def rule_delay(rule: Rule, failures: int) -> timedelta | None:
    """`rule`'s wait after `failures` failures: none while within `free`, then base_s doubled, up to cap_s."""
    over = failures - rule.free
    if over < 0:
        return None
    return timedelta(seconds=min(rule.cap_s, rule.base_s * 2 ** min(over, 20)))


def _rows(db: Any, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
    where = " OR ".join("(scope = ? AND key = ?)" for _ in pairs)
    params = [v for pair in pairs for v in pair]
    rows = db.fetch(f"SELECT scope, key, failures, last_failure_at, blocked_until, started_at, refused, detail "
                    f"FROM login_throttle WHERE {where}", params)
    return {(r["scope"], r["key"]): r for r in rows}


def _waiting(row: dict[str, Any] | None, at: datetime) -> bool:
    return row is not None and row["blocked_until"] is not None and at < row["blocked_until"]


def admit(db: Any, pairs: list[tuple[str, str]], at: datetime) -> Verdict:
    """The throttle's verdict on an attempt with these keys at `at` (stored UTC): refused unchecked by
    a key's delay, or to be checked (module docstring: the account's delay, known addresses, turns)."""
    pair_key = pairs[0][1]
    found = _rows(db, [*pairs, ("known", pair_key), ("turn", pair_key)])
    for scope, key in pairs:
        row = found.get((scope, key))
        if scope != "account" and _waiting(row, at):
            return Verdict(scope, row["blocked_until"] if row else None)
    account = found.get(pairs[2])
    if account is None or not _waiting(account, at):
        return Verdict()
    known = found.get(("known", pair_key))
    if known is not None and at - known["last_failure_at"] < KNOWN_FOR:
        return Verdict()                                      # the owner's own address
    turn = found.get(("turn", pair_key))
    if turn is not None and turn["blocked_until"] <= at < turn["blocked_until"] + TURN_KEPT:
        return Verdict(turn_used=True)                        # its turn has come: one attempt is checked
    if turn is not None and at < turn["blocked_until"]:
        return Verdict("account", turn["blocked_until"])      # still waiting for the turn it was given
    return Verdict("account", account["blocked_until"], turn_given=account["blocked_until"])


def blocking(db: Any, pairs: list[tuple[str, str]], at: datetime) -> tuple[str, datetime] | None:
    """(scope, until) of the delay that refuses an attempt with these keys at `at`, else None."""
    verdict = admit(db, pairs, at)
    return (verdict.scope, verdict.until) if verdict.scope is not None and verdict.until is not None else None


def _forget(tx: Any, at: datetime) -> None:
    tx.execute("DELETE FROM login_throttle WHERE (scope IN ('pair', 'client', 'account') AND last_failure_at < ? "
               "AND (blocked_until IS NULL OR blocked_until < ?)) OR (scope = 'known' AND last_failure_at < ?) "
               "OR (scope = 'turn' AND blocked_until < ?)", [at - FORGET_AFTER, at, at - KNOWN_FOR, at - TURN_KEPT])


def _put(tx: Any, scope: str, key: str, failures: int, last: datetime, until: datetime | None) -> None:
    tx.execute("DELETE FROM login_throttle WHERE scope = ? AND key = ?", [scope, key])
    tx.execute("INSERT INTO login_throttle (scope, key, failures, last_failure_at, blocked_until) "
               "VALUES (?, ?, ?, ?, ?)", [scope, key, failures, last, until])


def count(tx: Any, pairs: list[tuple[str, str]], at: datetime, *, scopes: frozenset[str],
          verdict: Verdict | None = None) -> list[dict[str, Any]]:
    """Add one failure to the keys of `scopes`, spend or give the attempt's turn (`verdict`); returns
    the delays that start now (a key's first wait since it was last clear): [{scope, key, failures, until}]."""
    _forget(tx, at)
    found = _rows(tx, pairs)
    started = []
    for scope, key in pairs:
        row = found.get((scope, key))
        if scope not in scopes:
            continue
        failures = 1 + (0 if row is None else int(row["failures"]))
        until = None if row is None else row["blocked_until"]
        wait = delay(scope, failures)
        if wait is not None:
            until = max(until or at, at + wait)
            if failures == RULES[scope].free:
                started.append({"scope": scope, "key": key, "failures": failures, "until": until})
        _put(tx, scope, key, failures, at, until)
    if verdict is not None and verdict.turn_used:
        tx.execute("DELETE FROM login_throttle WHERE scope = 'turn' AND key = ?", [pairs[0][1]])
    if verdict is not None and verdict.turn_given is not None:
        _put(tx, "turn", pairs[0][1], 0, at, verdict.turn_given)
    return started


@dataclass(frozen=True)
class Reservation:
    """An attempt counted as a failure before its check (`reserve`): what its keys held before, to give the
    count back (`refund`), and the delays its count started (audited only if it is a failure)."""

    verdict: Verdict
    before: dict[tuple[str, str], tuple[int, datetime, datetime | None] | None] = field(default_factory=dict)
    started: list[dict[str, Any]] = field(default_factory=list)


def reserve(tx: Any, pairs: list[tuple[str, str]], at: datetime) -> Reservation:
    """The verdict on an attempt and, when it is to be checked, its failure counted on every key — in one
    write, so that attempts in flight together are each judged with the others counted (issue 45, item 4).
    A refused verdict counts nothing here (the caller counts the refusal on the `client` key)."""
    verdict = admit(tx, pairs, at)
    if verdict.refused:
        return Reservation(verdict)
    found = _rows(tx, pairs)
    before = {pair: None if (row := found.get(pair)) is None else
              (int(row["failures"]), row["last_failure_at"], row["blocked_until"]) for pair in pairs}
    started = count(tx, pairs, at, scopes=frozenset(COUNTED), verdict=verdict)
    return Reservation(verdict, before, started)


def refund(tx: Any, reservation: Reservation) -> None:
    """Give back the failure `reserve` counted for an attempt that was not one: a key nobody counted on since
    gets exactly what it held before; one others counted on meanwhile loses this one failure only."""
    found = _rows(tx, list(reservation.before))
    for (scope, key), prior in reservation.before.items():
        row = found.get((scope, key))
        if row is None:
            continue                                       # forgotten or cleared meanwhile
        failures = int(row["failures"])
        if prior is not None and failures == prior[0] + 1:
            _put(tx, scope, key, prior[0], prior[1], prior[2])
        elif failures <= 1:
            tx.execute("DELETE FROM login_throttle WHERE scope = ? AND key = ?", [scope, key])
        else:                                              # a delay stays only while its failures call for one
            until = row["blocked_until"] if delay(scope, failures - 1) is not None else None
            tx.execute("UPDATE login_throttle SET failures = ?, blocked_until = ? WHERE scope = ? AND key = ?",
                       [failures - 1, until, scope, key])


def succeed(tx: Any, pairs: list[tuple[str, str]], at: datetime) -> None:
    """A right password: the pair's count and turn go, the address becomes known for the account."""
    pair_key = pairs[0][1]
    tx.execute("DELETE FROM login_throttle WHERE scope IN ('pair', 'turn') AND key = ?", [pair_key])
    _put(tx, "known", pair_key, 0, at, None)


def clear(tx: Any, pairs: list[tuple[str, str]], *, scopes: frozenset[str]) -> None:
    for scope, key in pairs:
        if scope in scopes:
            tx.execute("DELETE FROM login_throttle WHERE scope = ? AND key = ?", [scope, key])


# -- bursts: one audit row for a run of refusals from one address ----------------------------------------
def burst(tx: Any, client: object, username: str, at: datetime, *, checked: bool) -> tuple[bool, dict[str, Any] | None]:
    """Count a refusal on its address's burst. Returns (starts a burst: audit this refusal itself,
    the summary of the address's previous burst when that one had ended and held more than one)."""
    where = client_key(client)
    row = _rows(tx, [("burst", where)]).get(("burst", where))
    if row is not None and at - row["last_failure_at"] <= BURST_GAP:
        names = json.loads(row["detail"] or "[]")
        if username not in names and len(names) < BURST_NAMES:
            names.append(username)
        tx.execute("UPDATE login_throttle SET failures = failures + ?, refused = refused + ?, last_failure_at = ?, "
                   "detail = ? WHERE scope = 'burst' AND key = ?",
                   [int(checked), int(not checked), at, json.dumps(names, ensure_ascii=False), where])
        return False, None
    ended = close_burst(tx, where)
    tx.execute("INSERT INTO login_throttle (scope, key, failures, last_failure_at, started_at, refused, detail) "
               "VALUES ('burst', ?, ?, ?, ?, ?, ?)",
               [where, int(checked), at, at, int(not checked), json.dumps([username], ensure_ascii=False)])
    return True, ended


def _summary(row: dict[str, Any]) -> dict[str, Any] | None:
    failures, refused = int(row["failures"]), int(row["refused"])
    if failures + refused < 2:
        return None                                   # its one refusal was audited when it happened
    return {"client": row["key"], "failures": failures, "refused": refused,
            "usernames": json.loads(row["detail"] or "[]"), "first_at": row["started_at"],
            "last_at": row["last_failure_at"]}


def close_burst(tx: Any, client: object) -> dict[str, Any] | None:
    """End the address's burst, if any: its summary (None when it held one refusal or none)."""
    where = client_key(client)
    row = _rows(tx, [("burst", where)]).get(("burst", where))
    if row is None:
        return None
    tx.execute("DELETE FROM login_throttle WHERE scope = 'burst' AND key = ?", [where])
    return _summary(row)


def sweep(tx: Any, at: datetime) -> list[dict[str, Any]]:
    """End the bursts quiet for BURST_GAP (at most SWEEP_LIMIT of them): their summaries."""
    rows = tx.fetch("SELECT scope, key, failures, last_failure_at, blocked_until, started_at, refused, detail "
                    "FROM login_throttle WHERE scope = 'burst' AND last_failure_at < ? ORDER BY last_failure_at "
                    "LIMIT ?", [at - BURST_GAP, SWEEP_LIMIT])
    for row in rows:
        tx.execute("DELETE FROM login_throttle WHERE scope = 'burst' AND key = ?", [row["key"]])
    return [s for s in (_summary(r) for r in rows) if s is not None]


# -- the admin's view ------------------------------------------------------------------------------------
def active_throttles(store: Any, user: Principal, *, now: datetime | None = None) -> list[dict[str, Any]]:
    """The keys waiting at `now` (aware; default now), longest wait first: scope, key, failures, last
    failure, until (admin only)."""
    require(user, "manage_users")
    at = store.now() if now is None else clock.stored(now)
    return store.fetch("SELECT scope, key, failures, last_failure_at, blocked_until FROM login_throttle "
                       "WHERE scope IN ('pair', 'client', 'account') AND blocked_until > ? "
                       "ORDER BY blocked_until DESC, scope, key", [at])


def clear_for_username(tx: Any, username: str) -> int:
    """Lift every throttle of a username (its account key, its pairs and their turns); the admin's
    "desbloquear"."""
    who = username[:MAX_KEY_CHARS]
    where = ("(scope = 'account' AND key = ?) OR (scope IN ('pair', 'turn') AND starts_with(key, ?))")
    n = int(tx.scalar(f"SELECT count(*) FROM login_throttle WHERE ({where}) AND scope <> 'turn'", [who, who + "|"]))
    tx.execute(f"DELETE FROM login_throttle WHERE {where}", [who, who + "|"])
    return n
