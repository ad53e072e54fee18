"""Issue 13 item 2 — login sessions in the store: only the token's hash is kept, the 30-minute idle rule,
revocation by "Sair" and by the admin (deactivation, role change, password reset), single-use tickets,
and the in-script login form (AppTest) issuing and ending a server-side session. The cookie itself is
exercised against the real service in tests/service/test_service.py."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.conftest import NOW
from tests.support.ui import fresh_app, texts
from ui.session import SEEN_KEY, SESSION_KEY, USER_KEY
from valuation.accounts import login, sessions, users
from valuation.core import clock
from valuation.db.shared import close_shared, open_shared


def _everything(store: Any) -> str:
    rows = store.fetch("SELECT * FROM sessions") + store.fetch("SELECT * FROM audit_log")
    return "\n".join(str(r) for r in rows)


def test_only_the_hash_of_the_token_is_stored(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    sid, token = sessions.issue(s, dpc, now=NOW)
    assert len(token) >= 40
    row = s.fetch_one("SELECT * FROM sessions WHERE id = ?", [sid])
    assert row["token_sha256"] == sessions.token_hash(token) != token
    assert row["user_id"] == dpc.id and row["created_at"] == row["last_seen"] == clock.stored(NOW)
    sessions.revoke(s, sid, reason="logout", now=NOW)
    assert token not in _everything(s)
    assert "logout" in {r["action"] for r in s.fetch("SELECT action FROM audit_log")}


def test_a_session_expires_after_the_idle_rule_and_touches_last_seen(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    sid, token = sessions.issue(s, dpc, now=NOW)
    later = NOW + timedelta(minutes=login.SESSION_IDLE_MINUTES - 1)
    found = sessions.validate(s, token, now=later)
    assert found is not None and found.id == sid and found.principal.username == dpc.username
    assert s.scalar("SELECT last_seen FROM sessions WHERE id = ?", [sid]) == clock.stored(later)   # touched
    still = later + timedelta(minutes=login.SESSION_IDLE_MINUTES - 1)                    # idle from `later`
    assert sessions.validate_id(s, sid, now=still)[0] is not None
    gone = still + timedelta(minutes=login.SESSION_IDLE_MINUTES)
    assert sessions.validate_id(s, sid, now=gone) == (None, sessions.EXPIRED)
    assert sessions.validate(s, token, now=gone) is None
    assert sessions.validate(s, "not-our-token-" * 3, now=NOW) is None
    assert sessions.validate(s, None, now=NOW) is None


@pytest.mark.parametrize("change, reason", [
    (lambda s, admin, uid: users.set_active(s, admin, uid, False), "deactivated"),
    (lambda s, admin, uid: users.set_role(s, admin, uid, "admin"), "role_changed"),
    (lambda s, admin, uid: users.reset_password(s, admin, uid, "uma-senha-nova-123"), "password_reset"),
])
def test_the_admin_revokes_a_users_sessions_at_once(small_world: Any, change: Any, reason: str) -> None:
    s, dpc, admin = small_world.store, small_world.principal("dpc"), small_world.principal("admin")
    first, t1 = sessions.issue(s, dpc, now=NOW)
    second, _t2 = sessions.issue(s, dpc, now=NOW)
    other, _t3 = sessions.issue(s, small_world.principal("explorer_a"), now=NOW)
    change(s, admin, dpc.id)
    for sid in (first, second):
        assert sessions.validate_id(s, sid, now=NOW)[0] is None
    assert sessions.validate(s, t1, now=NOW) is None
    assert {r["revoked_reason"] for r in s.fetch("SELECT revoked_reason FROM sessions WHERE user_id = ?",
                                                    [dpc.id])} == {reason}
    assert sessions.validate_id(s, other, now=NOW)[0] is not None        # nobody else's


def test_a_reactivation_or_an_unchanged_role_revokes_nothing(small_world: Any) -> None:
    s, dpc, admin = small_world.store, small_world.principal("dpc"), small_world.principal("admin")
    sid, _ = sessions.issue(s, dpc, now=NOW)
    users.set_active(s, admin, dpc.id, True)
    users.set_role(s, admin, dpc.id, "dpc")
    assert sessions.validate_id(s, sid, now=NOW)[0] is not None


def test_tickets_work_once_and_expire() -> None:
    clock = [0.0]
    book = sessions.TicketBook(seconds=60, clock=lambda: clock[0])
    ticket = book.issue("the-token")
    assert "the-token" not in ticket
    assert book.redeem(ticket) == "the-token"
    assert book.redeem(ticket) is None                                   # single use
    late = book.issue("other-token")
    clock[0] = 61
    assert book.redeem(late) is None                                     # expired
    assert book.redeem("x" * 500) is None and book.redeem(None) is None


def test_the_script_and_the_service_share_one_store(small_world: Any) -> None:
    small_world.store.close()
    close_shared()
    a = open_shared(small_world.path)
    assert open_shared(str(small_world.path)) is a
    close_shared(small_world.path)
    assert a.closed and open_shared(small_world.path) is not a
    close_shared()


def _login(at: Any, username: str, password: str) -> None:
    at.text_input(key="login_username").set_value(username)
    at.text_input(key="login_password").set_value(password)
    at.button[0].click().run()


def test_the_login_form_issues_a_server_side_session(small_world: Any) -> None:
    small_world.store.close()
    username = small_world.username("dpc")
    at = fresh_app(small_world.path)
    at.run()
    _login(at, username, small_world.passwords[username])
    assert not at.exception and at.session_state[USER_KEY].username == username
    row = open_shared(small_world.path).fetch_one("SELECT * FROM sessions WHERE id = ?",
                                                  [at.session_state[SESSION_KEY]])
    assert row["user_id"] == small_world.principal("dpc").id and row["revoked_at"] is None


def _signed_in(small_world: Any, key: str) -> tuple[Any, int]:
    """An app whose connection holds a live server-side session of `key` (as after the login form)."""
    from datetime import datetime

    small_world.store.close()
    at = fresh_app(small_world.path)
    store = open_shared(small_world.path)
    sid, _token = sessions.issue(store, small_world.principal(key), now=store.now_utc())
    at.session_state[USER_KEY] = small_world.principal(key)
    at.session_state[SESSION_KEY] = sid
    at.session_state[SEEN_KEY] = datetime.now()
    at.run()
    assert not at.exception and any(b.label == "Sair" for b in at.button)
    return at, sid


def test_an_open_connection_is_logged_out_when_the_admin_deactivates_the_user(small_world: Any) -> None:
    at, sid = _signed_in(small_world, "explorer_a")
    users.set_active(open_shared(small_world.path), small_world.principal("admin"),
                     small_world.principal("explorer_a").id, False)
    at.run()                                                             # the user's next interaction
    assert not at.exception and USER_KEY not in at.session_state
    # the login form comes back with the reason (the flash is shown once, then gone)
    assert any(w.value == "Sua sessão foi encerrada. Entre novamente." for w in at.warning), texts(at)
    assert "valuation_flash" not in at.session_state and len(at.text_input) >= 2   # nothing of the page
