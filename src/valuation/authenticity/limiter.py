"""/verificar's limits per client address (issue 27, section 1; issue 45, items 5 and 6), shaped like the
login's throttle (`accounts.throttle`):

- **Failures.** A code that is unknown or malformed is a *failure*; after `FAILURES.free` failures an
  address waits 2 s, then 4 s, 8 s … up to 15 minutes before its next lookup, and its failures are
  forgotten `FORGET_AFTER` after the last one. A lookup is counted as a failure *before* it is made
  (`Limiter.reserve`, under one lock: 200 unknown codes sent together from one address were 110 lookups,
  each judged before any was counted) and given back when the code was found (`Limiter.settle`).
- **No hourly cap on codes found** (issue 43, item 12: the cap of 60 lookups an hour counted the codes a
  citizen or an office found, and refused them). A found code teaches nothing its paper does not already
  print, and finding codes is what the failure rule bounds; what lookups cost the service is bounded by
  how many an address has in flight (`Slots`: `LOOKUPS_IN_FLIGHT`) and by the reverse proxy's rate limit.
- **Uploads in flight.** An upload holds up to 25 MB of the service's memory until it is answered: an
  address may have `UPLOADS_IN_FLIGHT` in flight, everyone together `UPLOADS_IN_ALL` (40 uploads sent
  together from one address took the service from 296 to 924 MB); the next is refused before its body is
  read.

Kept in the service's memory, not in the database: ephemeral security state, like the login throttle
never restored from a backup; a restart forgets it (SECURITY.md gives the guessing figures). At most
`MAX_ADDRESSES` addresses are remembered (the least recently seen is forgotten first), so a flood of
addresses cannot grow it without bound; `Slots` remembers only the addresses with something in flight.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

from valuation.accounts.throttle import Rule, client_key, rule_delay

FAILURES = Rule(free=5, base_s=2, cap_s=15 * 60)
FORGET_AFTER = timedelta(hours=24)
MAX_ADDRESSES = 20_000
LOOKUPS_IN_FLIGHT = 4       # lookups (with or without a file) one address may have in flight
UPLOADS_IN_FLIGHT = 2       # uploads one address may have in flight
UPLOADS_IN_ALL = 6          # uploads every address together may have in flight (6 × 25 MB)
BUSY_RETRY_S = 2            # what a refusal for what is in flight tells the client to wait (Retry-After)


@dataclass
class _Address:
    failures: int = 0
    last_failure: datetime | None = None
    blocked_until: datetime | None = None


@dataclass(frozen=True)
class Ticket:
    """A lookup counted as a failure before it is made (`Limiter.reserve`), with what its address held before."""

    key: str
    before: tuple[int, datetime | None, datetime | None]


class Limiter:
    """`reserve(address, at)` → a Ticket (go on: counted as a failure) or the moment the address may try again;
    `settle(ticket, failed=…)` once the lookup is answered."""

    def __init__(self) -> None:
        self._seen: OrderedDict[str, _Address] = OrderedDict()
        self._lock = threading.Lock()

    def _entry(self, key: str, at: datetime) -> _Address:
        entry = self._seen.pop(key, None) or _Address()
        if entry.last_failure is not None and at - entry.last_failure > FORGET_AFTER:
            entry = _Address()
        self._seen[key] = entry
        while len(self._seen) > MAX_ADDRESSES:
            self._seen.popitem(last=False)
        return entry

    def reserve(self, address: object, at: datetime) -> Ticket | datetime:
        with self._lock:
            key = client_key(address)
            entry = self._entry(key, at)
            if entry.blocked_until is not None and at < entry.blocked_until:
                return entry.blocked_until
            before = (entry.failures, entry.last_failure, entry.blocked_until)
            entry.failures += 1
            entry.last_failure = at
            wait = rule_delay(FAILURES, entry.failures)
            if wait is not None:
                entry.blocked_until = at + wait
            return Ticket(key, before)

    def settle(self, ticket: Ticket, *, failed: bool) -> None:
        """A failure stays counted; a code found gives its count back — what the address held before when
        nothing else was counted on it meanwhile, else one failure less."""
        if failed:
            return
        with self._lock:
            entry = self._seen.get(ticket.key)
            if entry is None or entry.failures == 0:
                return
            if entry.failures == ticket.before[0] + 1:
                entry.failures, entry.last_failure, entry.blocked_until = ticket.before
                return
            entry.failures -= 1
            if rule_delay(FAILURES, entry.failures) is None:
                entry.blocked_until = None


class Slots:
    """At most `per_address` things in flight for one address and `in_all` for everyone (None: no bound):
    `take(address)` → whether one is free (then held), `give(address)` when it is done."""

    def __init__(self, per_address: int, in_all: int | None = None) -> None:
        self.per_address = per_address
        self.in_all = in_all
        self._held: dict[str, int] = {}
        self._total = 0
        self._lock = threading.Lock()

    def take(self, address: object) -> bool:
        key = client_key(address)
        with self._lock:
            if self._held.get(key, 0) >= self.per_address or (self.in_all is not None and self._total >= self.in_all):
                return False
            self._held[key] = self._held.get(key, 0) + 1
            self._total += 1
            return True

    def give(self, address: object) -> None:
        key = client_key(address)
        with self._lock:
            held = self._held.get(key, 0)
            if held <= 1:
                self._held.pop(key, None)
            else:
                self._held[key] = held - 1
            self._total = max(self._total - (1 if held else 0), 0)

    def held(self) -> int:
        with self._lock:
            return self._total
