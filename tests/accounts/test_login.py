"""Login (argon2id, throttled by growing delays: tests/accounts/test_throttle.py for issue 14), sessions, pages
by role."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from tests.conftest import NOW, REAL_HASHER
from valuation.accounts import login, passwords, throttle, users
from valuation.accounts.login import (
    AccountInactive,
    AuthenticationFailed,
    LoginThrottled,
    authenticate,
    session_expired,
)
from valuation.accounts.passwords import hash_password, verify_password
from valuation.core import clock
from valuation.db import access
from valuation.db.access import PAGES_BY_ROLE, Principal, may_view_page


def test_hashes_are_argon2id_salted_and_verifiable():
    h1, h2 = hash_password("uma senha longa"), hash_password("uma senha longa")
    assert h1.startswith("$argon2id$") and h1 != h2
    assert verify_password(h1, "uma senha longa")
    assert not verify_password(h1, "uma senha longA")
    assert not verify_password("not a hash", "x")
    assert not verify_password("", "")


def test_the_product_hasher_is_argon2id_at_rfc9106_cost():
    params = REAL_HASHER  # the module's own hasher (tests swap in a cheap one)
    assert params.type.name == "ID"
    assert params.memory_cost >= 64 * 1024 and params.time_cost >= 3


def test_login_returns_the_principal_without_the_hash(small_world):
    p = authenticate(small_world.store, "dpc.silva", small_world.passwords["dpc.silva"], now=NOW)
    assert p == small_world.principal("dpc")
    assert isinstance(p, Principal)
    assert not any("argon" in str(v) for v in vars(p).values())


def test_username_is_case_and_space_insensitive(small_world):
    p = authenticate(small_world.store, "  Exp.Alfa ", small_world.passwords["exp.alfa"], now=NOW)
    assert p.role == "explorer" and p.organisation_id == small_world.ids["org_a"]


def test_wrong_username_and_wrong_password_give_the_same_message(small_world):
    s = small_world.store
    with pytest.raises(AuthenticationFailed) as wrong_pw:
        authenticate(s, "dpc.silva", "errada", now=NOW)
    with pytest.raises(AuthenticationFailed) as wrong_user:
        authenticate(s, "ninguem", "errada", now=NOW)
    with pytest.raises(AuthenticationFailed) as empty:
        authenticate(s, "", "", now=NOW)
    assert type(wrong_pw.value) is type(wrong_user.value) is type(empty.value) is AuthenticationFailed
    assert str(wrong_pw.value) == str(wrong_user.value) == str(empty.value) == login.LOGIN_FAILED_MESSAGE


def _fail(s, username, n, now, client="10.0.0.9"):
    for _ in range(n):
        with pytest.raises(AuthenticationFailed):
            authenticate(s, username, "senha-errada", now=now, client=client)


def _waiting(s, scope, key):
    return s.scalar("SELECT blocked_until FROM login_throttle WHERE scope = ? AND key = ?", [scope, key])


def test_failures_slow_the_account_from_that_client_with_growing_delays(small_world):
    s, name, pw = small_world.store, "com.navy", small_world.passwords["com.navy"]
    free = throttle.RULES["pair"].free
    _fail(s, name, free - 1, NOW)
    assert _waiting(s, "pair", f"{name}|10.0.0.9") is None
    _fail(s, name, 1, NOW)                                              # the free-th failure: 2 s
    assert _waiting(s, "pair", f"{name}|10.0.0.9") == clock.stored(NOW + timedelta(seconds=2))
    with pytest.raises(LoginThrottled):                                 # even the right password waits
        authenticate(s, name, pw, now=NOW + timedelta(seconds=1), client="10.0.0.9")
    _fail(s, name, 1, NOW + timedelta(seconds=2))                       # next failure: 4 s, then 8 s…
    assert _waiting(s, "pair", f"{name}|10.0.0.9") == clock.stored(NOW + timedelta(seconds=6))
    assert authenticate(s, name, pw, now=NOW + timedelta(seconds=6), client="10.0.0.9").username == name
    assert _waiting(s, "pair", f"{name}|10.0.0.9") is None              # a success clears the pair


def test_the_delay_grows_to_its_cap_and_is_forgotten_a_day_later(small_world):
    assert throttle.delay("pair", throttle.RULES["pair"].free - 1) is None
    assert throttle.delay("pair", throttle.RULES["pair"].free) == timedelta(seconds=2)
    assert throttle.delay("pair", 10_000) == timedelta(minutes=15)
    assert throttle.delay("account", 10_000) == timedelta(minutes=1)
    s, name = small_world.store, "com.pres"
    _fail(s, name, throttle.RULES["pair"].free, NOW)
    later = NOW + throttle.FORGET_AFTER + timedelta(minutes=1)
    _fail(s, name, 1, later)
    assert s.scalar("SELECT failures FROM login_throttle WHERE scope = 'pair' AND key = ?",
                    [f"{name}|10.0.0.9"]) == 1


def test_failures_of_one_user_do_not_slow_another(small_world):
    s = small_world.store
    _fail(s, "com.navy", 6, NOW)
    assert authenticate(s, "com.culture", small_world.passwords["com.culture"], now=NOW,
                        client="10.0.0.9").username == "com.culture"


def test_an_aware_now_is_taken_as_utc_and_a_naive_one_refused(small_world):
    s = small_world.store
    aware = datetime(2025, 6, 30, 9, 0, tzinfo=timezone(timedelta(hours=-3)))   # 12:00 UTC
    _fail(s, "com.navy", throttle.RULES["pair"].free, aware)
    assert _waiting(s, "pair", "com.navy|10.0.0.9") == datetime(2025, 6, 30, 12, 0, 2)
    with pytest.raises(TypeError):
        authenticate(s, "com.navy", "x", now=datetime(2025, 6, 30, 12, 0))


def test_admin_unlock_lifts_the_throttle(small_world):
    s, name = small_world.store, "exp.alfa"
    _fail(s, name, 8, NOW)
    users.unlock_user(s, small_world.principal("admin"), small_world.ids[name])
    assert authenticate(s, name, small_world.passwords[name], now=NOW, client="10.0.0.9").username == name


def test_inactive_user_cannot_log_in(small_world):
    s = small_world.store
    with pytest.raises(AccountInactive, match="desativado"):
        authenticate(s, "inactive", small_world.passwords["inactive"], now=NOW)
    with pytest.raises(AuthenticationFailed) as wrong:
        authenticate(s, "inactive", "errada", now=NOW)
    assert type(wrong.value) is AuthenticationFailed        # a wrong password reveals nothing more


def test_logins_are_audited_without_the_hash(small_world):
    s = small_world.store
    authenticate(s, "dpc.silva", small_world.passwords["dpc.silva"], now=NOW)
    free = throttle.RULES["pair"].free
    _fail(s, "com.navy", free, NOW)
    with pytest.raises(AuthenticationFailed):
        authenticate(s, "nobody", "x", now=NOW)
    log = s.fetch("SELECT actor, action, entity, entity_id, after_json FROM audit_log WHERE action <> 'rows_sealed' "
                  "ORDER BY id")      # the fixture's rows are sealed by the first write (an attempt's reservation)
    # one row for the first refusal of each address's burst, one when a delay starts (issue 24, item 9)
    assert [r["action"] for r in log] == ["login", "login_failed", "login_throttle", "login_failed"]
    assert log[0]["actor"] == "dpc.silva" and log[0]["entity_id"] == str(small_world.ids["dpc.silva"])
    assert json.loads(log[-2]["after_json"])["failures"] == free
    text = json.dumps(log, default=str)
    assert "argon2" not in text and small_world.passwords["com.navy"] not in text and "senha-errada" not in text


def test_a_weak_stored_hash_is_upgraded_on_login(small_world, monkeypatch):
    from argon2 import PasswordHasher
    s, name, pw = small_world.store, "dpc.silva", small_world.passwords["dpc.silva"]
    stronger = PasswordHasher(time_cost=2, memory_cost=16, parallelism=1)
    monkeypatch.setattr(passwords, "_hasher", stronger)
    old = s.scalar("SELECT password_hash FROM users WHERE username = ?", [name])
    authenticate(s, name, pw, now=NOW)
    new = s.scalar("SELECT password_hash FROM users WHERE username = ?", [name])
    assert new != old and "t=2" in new and verify_password(new, pw)


@pytest.mark.parametrize("idle, expired", [
    (timedelta(0), False),
    (timedelta(minutes=29, seconds=59), False),
    (timedelta(minutes=30), True),
    (timedelta(hours=5), True),
])
def test_session_expires_after_30_idle_minutes(idle, expired):
    assert login.SESSION_IDLE_MINUTES == 30
    assert session_expired(clock.stored(NOW), NOW + idle) is expired


def test_session_expiry_with_aware_datetimes():
    seen = datetime(2025, 6, 30, 9, 0, tzinfo=timezone(timedelta(hours=-3)))
    assert session_expired(seen, datetime(2025, 6, 30, 12, 29, tzinfo=UTC)) is False
    assert session_expired(seen, datetime(2025, 6, 30, 12, 30, tzinfo=UTC)) is True


PAGES = {
    # page → roles that see it (issue: foundation)
    "overview": {"commission", "commission_president", "dpc", "officer", "explorer", "admin"},
    "wrecks": {"commission", "commission_president", "dpc", "officer", "explorer"},
    "organisations": {"commission", "commission_president", "dpc", "officer", "explorer"},
    "users": {"admin"},
}


@pytest.mark.parametrize("role", access.ROLES)
@pytest.mark.parametrize("page", sorted(PAGES))
def test_pages_by_role(role, page):
    user = Principal(1, "u", "U", role, 1 if role == "explorer" else None, None)
    assert may_view_page(user, page) is (role in PAGES[page])


def test_every_role_has_pages_and_unknown_pages_are_refused():
    assert set(PAGES_BY_ROLE) == set(access.ROLES)
    assert not may_view_page(Principal(1, "u", "U", "dpc", None, None), "secret")
    assert not may_view_page(Principal(1, "u", "U", "king", None, None), "overview")
