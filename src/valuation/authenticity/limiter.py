"""/verificar's rate limit per client address (issue 27, section 1), shaped like the login's
(`accounts.throttle`): a code that is unknown or malformed is a *failure*; after `FAILURES.free`
failures an address waits 2 s, then 4 s, 8 s … up to 15 minutes before its next lookup, and its
failures are forgotten `FORGET_AFTER` after the last one. Besides, an address gets at most
`LOOKUPS_PER_HOUR` lookups of any kind (known codes too: nobody reads the registry out by scraping).

Kept in the service's memory, not in the database: ephemeral security state, like the login throttle
never restored from a backup; a restart forgets it (SECURITY.md gives the guessing figures). At most
`MAX_ADDRESSES` addresses are remembered (the least recently seen is forgotten first), so a flood of
addresses cannot grow it without bound.
"""
from __future__ import annotations

import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from valuation.accounts.throttle import Rule, client_key, rule_delay

FAILURES = Rule(free=5, base_s=2, cap_s=15 * 60)
LOOKUPS_PER_HOUR = 60
FORGET_AFTER = timedelta(hours=24)
MAX_ADDRESSES = 20_000


@dataclass
class _Address:
    failures: int = 0
    last_failure: datetime | None = None
    blocked_until: datetime | None = None
    lookups: deque[datetime] = field(default_factory=deque)


class Limiter:
    """`admit(address, at)` → None (go on) or the moment the address may try again; then
    `count(address, at, failed=…)` after the lookup."""

    def __init__(self) -> None:
        self._seen: OrderedDict[str, _Address] = OrderedDict()
        self._lock = threading.Lock()

    def _entry(self, address: object, at: datetime) -> _Address:
        key = client_key(address)
        entry = self._seen.pop(key, None) or _Address()
        if entry.last_failure is not None and at - entry.last_failure > FORGET_AFTER:
            entry = _Address(lookups=entry.lookups)
        while entry.lookups and at - entry.lookups[0] >= timedelta(hours=1):
            entry.lookups.popleft()
        self._seen[key] = entry
        while len(self._seen) > MAX_ADDRESSES:
            self._seen.popitem(last=False)
        return entry

    def admit(self, address: object, at: datetime) -> datetime | None:
        with self._lock:
            entry = self._entry(address, at)
            if entry.blocked_until is not None and at < entry.blocked_until:
                return entry.blocked_until
            if len(entry.lookups) >= LOOKUPS_PER_HOUR:
                return entry.lookups[0] + timedelta(hours=1)
            return None

    def count(self, address: object, at: datetime, *, failed: bool) -> None:
        with self._lock:
            entry = self._entry(address, at)
            entry.lookups.append(at)
            if failed:
                entry.failures += 1
                entry.last_failure = at
                wait = rule_delay(FAILURES, entry.failures)
                if wait is not None:
                    entry.blocked_until = at + wait
