"""Issue 45, item 4 — the login throttle holds when the attempts arrive together.

Reproduction (failed before the fix): the throttle's verdict was read before the password was hashed and
the failure counted after, so attempts in flight together were all judged before any was counted — 60
concurrent wrong passwords from one address were 60 argon2 checks where SECURITY.md allows 5 before the
delay (16 Chromium tabs: 16). Now an attempt is judged and counted in one write before its check
(`throttle.reserve`; writes are serialised), and the right password gives the count back (`throttle.refund`).
Real store, real threads, argon2id at the tests' cost with a pause so that the checks overlap.
"""
from __future__ import annotations

import threading
import time
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.conftest import FAST_HASHER, NOW  # noqa: E402
from tests.support.fuzz_report import FIGURES, LIMITS  # noqa: E402
from valuation.accounts import passwords, throttle  # noqa: E402
from valuation.accounts.login import AuthenticationFailed, LoginThrottled, authenticate  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
ADDRESS = "198.51.100.7"


class _Checks:
    """The tests' argon2id hasher, counting its verifications (each one paused: the real one takes ~0.2 s)."""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def verify(self, hash_: str, plain: str) -> bool:
        with self._lock:
            self.calls += 1
        time.sleep(0.02)
        return FAST_HASHER.verify(hash_, plain)

    def hash(self, plain: str) -> str:
        return FAST_HASHER.hash(plain)

    def check_needs_rehash(self, hash_: str) -> bool:
        return FAST_HASHER.check_needs_rehash(hash_)


def _together(n: int, attempt: Any) -> list[str]:
    """Run `attempt(i)` in n threads released at once; each one's outcome."""
    gate = threading.Barrier(n)
    out: list[str] = [""] * n

    def run(i: int) -> None:
        gate.wait()
        try:
            attempt(i)
            out[i] = "in"
        except LoginThrottled:
            out[i] = "throttled"
        except AuthenticationFailed as exc:
            out[i] = type(exc).__name__

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out


def test_sixty_wrong_passwords_sent_together_are_five_checks(small_world: Any,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    s = small_world.store
    checks = _Checks()
    monkeypatch.setattr(passwords, "_hasher", checks)
    outcomes = _together(60, lambda i: authenticate(s, "exp.alfa", f"errada-{i}", now=NOW, client=ADDRESS))
    for outcome in outcomes:
        LIMITS.count("login:concurrent_wrong", outcome=outcome)
    FIGURES.record("login: 60 wrong passwords sent together from one address, checked", checks.calls)
    assert checks.calls == throttle.RULES["pair"].free, outcomes
    assert outcomes.count("AuthenticationFailed") == 5 and outcomes.count("throttled") == 55
    pair = s.fetch_one("SELECT failures FROM login_throttle WHERE scope = 'pair' AND key = ?",
                       [f"exp.alfa|{ADDRESS}"])
    assert pair is not None and int(pair["failures"]) == 5           # counted once each, none lost
    with pytest.raises(LoginThrottled):                                # the right one waits its delay here
        authenticate(s, "exp.alfa", small_world.passwords["exp.alfa"], now=NOW, client=ADDRESS)


def test_right_passwords_sent_together_all_get_in_and_count_nothing(small_world: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    s = small_world.store
    checks = _Checks()
    monkeypatch.setattr(passwords, "_hasher", checks)
    right = small_world.passwords["exp.beta"]
    outcomes = _together(12, lambda i: authenticate(s, "exp.beta", right, now=NOW, client=f"192.0.2.{i + 1}"))
    for outcome in outcomes:
        LIMITS.count("login:concurrent_right", outcome=outcome)
    assert outcomes == ["in"] * 12 and checks.calls == 12
    counted = s.fetch("SELECT scope, key, failures FROM login_throttle WHERE scope IN ('pair', 'client', 'account')")
    assert counted == [], counted                                      # every reservation given back
