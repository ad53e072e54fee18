"""Issue 8.3 — concurrency: threads writing (users, owners, audited updates and — when the
commission module exists — votes and values) while others read lose no write; readers
never see half a transaction; write-write conflicts are retried by `Store.write`; and
the single-process lock is reported plainly where tests/cli/test_db_commands.py does not look (the
dashboard itself, and the new `db backup` command).
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from valuation.accounts.users import create_user, list_users
from valuation.commission.entries import record_assessment
from valuation.commission.rounds import open_round
from valuation.core.errors import ConflictError
from valuation.db import audit
from valuation.db.store import Store
from valuation.registry.owners import create_owner, list_owners

PY = sys.executable


def _run_threads(targets: list[Any]) -> list[BaseException]:
    errors: list[BaseException] = []

    def guard(fn: Any) -> None:
        try:
            fn()
        except BaseException as exc:  # collected and asserted on by the test
            errors.append(exc)

    threads = [threading.Thread(target=guard, args=(fn,)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return errors


def test_writers_and_readers_at_the_same_time_lose_no_write(small_world: Any) -> None:
    s = small_world.store
    admin, dpc = small_world.principal("admin"), small_world.principal("dpc")
    base = {t: int(s.scalar(f"SELECT count(*) FROM {t}")) for t in ("users", "owners", "audit_log")}
    per_thread = 6
    writers: list[Any] = []
    expected_audit = 0

    for k in range(2):                                          # admins creating users
        def make_users(k: int = k) -> None:
            for j in range(per_thread):
                create_user(s, admin, {"username": f"conc.{k}.{j}", "full_name": f"Usuário {k} {j}", "role": "dpc",
                                       "password": f"senha-longa-{k}-{j}"})
        writers.append(make_users)
        expected_audit += per_thread
    for k in range(2):                                          # DPC registering owners
        def make_owners(k: int = k) -> None:
            for j in range(per_thread):
                create_owner(s, dpc, {"name": f"Dono {k}-{j}", "doc_kind": "desconhecido",
                                      "nationality": "brasileira", "whereabouts_known": False})
        writers.append(make_owners)
        expected_audit += per_thread

    votes = 0                                                   # members voting on one round, each on every item
    president = small_world.principal("commission_president")
    rnd = open_round(s, president, "A-1")
    expected_audit += 1
    items = [int(r["id"]) for r in s.fetch(
        "SELECT item_id AS id FROM round_items WHERE round_id = ? ORDER BY item_id", [rnd.id])]
    for key in ("commission", "commission_culture", "commission_president"):
        voter = small_world.principal(key)

        def vote(member: Any = voter, items: list[int] = items) -> None:
            for n, item in enumerate(items):
                record_assessment(s, member, rnd.id, item, historical=False,
                                  amount=Decimal(f"{100 + n}.10"), currency="BRL",
                                  price_date=date(2025, 3, 10), significance=None, must_keep=None,
                                  source="catalogo")
        writers.append(vote)
        votes += len(items)
    expected_audit += votes

    stop = threading.Event()
    observed: list[tuple[int, int, int]] = []

    def reader() -> None:
        last = (0, 0, 0)
        while not stop.is_set():
            # one statement = one snapshot: a user row and its audit row are visible together or not at all
            row = s.fetch_one(
                "SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM owners) AS owners, "
                "(SELECT count(*) FROM audit_log WHERE action = 'create' AND entity = 'user') AS user_rows, "
                "(SELECT count(*) FROM audit_log WHERE action = 'create' AND entity = 'owner') AS owner_rows, "
                "(SELECT count(*) FROM audit_log) AS audit_rows")
            assert row["users"] - base["users"] == row["user_rows"], row
            assert row["owners"] - base["owners"] == row["owner_rows"], row
            now = (row["users"], row["owners"], row["audit_rows"])
            assert all(a >= b for a, b in zip(now, last)), (now, last)   # nothing ever disappears
            last = now
            observed.append(now)
            list_users(s, admin)                                     # the pages' own queries, concurrently
            list_owners(s, dpc)

    reader_errors: list[BaseException] = []

    def guarded_reader() -> None:
        try:
            reader()
        except BaseException as exc:
            reader_errors.append(exc)
            stop.set()

    readers = [threading.Thread(target=guarded_reader) for _ in range(2)]
    for t in readers:
        t.start()
    try:
        errors = _run_threads(writers)
    finally:
        stop.set()
        for t in readers:
            t.join(timeout=60)
    assert not errors, errors
    assert not reader_errors, reader_errors
    assert len(observed) > 2, "the readers did run during the writes"
    assert s.scalar("SELECT count(*) FROM users") == base["users"] + 2 * per_thread
    assert s.scalar("SELECT count(*) FROM owners") == base["owners"] + 2 * per_thread
    assert s.scalar("SELECT count(*) FROM audit_log") == base["audit_log"] + expected_audit
    ids = [r["id"] for r in s.fetch("SELECT id FROM audit_log ORDER BY id")]
    assert ids == list(range(1, len(ids) + 1))
    assert audit.verify_chain(s)[0]
    assert votes == 3 * 6                                       # three members × the six items of A-1 (conftest)
    assert s.scalar("SELECT count(*) FROM assessment_log") == votes
    assert not reader_errors


def test_a_write_write_conflict_is_retried_and_succeeds(small_world: Any) -> None:
    """Two Stores on one file in one process (DuckDB shares the database between them) write the
    same row: the second conflicts while the first is open, is retried by Store.write, and wins."""
    path = small_world.path
    first, second = small_world.store, Store(path)
    holding, attempted = threading.Event(), threading.Event()
    attempts: list[int] = []

    def hold(tx: Any) -> None:
        tx.execute("UPDATE users SET full_name = 'Primeiro' WHERE username = 'com.navy'")
        tx.audit("update", "user", "com.navy", None, {"full_name": "Primeiro"})
        holding.set()
        assert attempted.wait(10)                         # keep the transaction open until the other one collided

    def contend(tx: Any) -> None:
        attempts.append(1)
        try:
            tx.execute("UPDATE users SET full_name = 'Segundo' WHERE username = 'com.navy'")
        finally:
            attempted.set()
        tx.audit("update", "user", "com.navy", None, {"full_name": "Segundo"})

    try:
        t = threading.Thread(target=lambda: first.write("a", hold))
        t.start()
        assert holding.wait(10)
        second.write("b", contend)
        t.join(10)
    finally:
        second.close()
    assert len(attempts) >= 2, "the conflicting write was retried"
    assert first.scalar("SELECT full_name FROM users WHERE username = 'com.navy'") == "Segundo"
    assert [r["actor"] for r in first.fetch("SELECT actor FROM audit_log ORDER BY id")] == ["a", "b"]
    assert audit.verify_chain(first)[0]


def test_under_contention_every_reported_success_is_stored_once_and_failures_write_nothing(small_world: Any) -> None:
    s1, s2 = small_world.store, Store(small_world.path)
    successes, failures, attempts = [], [], []
    lock = threading.Lock()

    def work(k: int) -> None:
        store = (s1, s2)[k % 2]
        for j in range(20):
            def bump(tx: Any, k: int = k, j: int = j) -> None:
                with lock:
                    attempts.append(1)
                tx.execute("UPDATE users SET failed_attempts = failed_attempts + 1 WHERE username = 'com.navy'")
                tx.audit("bump", "user", "com.navy", None, {"k": k, "j": j})
            try:
                store.write(f"w{k}", bump)
                with lock:
                    successes.append((k, j))
            except ConflictError as exc:                     # retries exhausted: a plain message, nothing written
                assert "tente novamente" in str(exc)
                with lock:
                    failures.append((k, j))

    try:
        errors = _run_threads([lambda k=k: work(k) for k in range(4)])
    finally:
        s2.close()
    assert not errors, errors
    assert len(successes) + len(failures) == 80
    assert s1.scalar("SELECT failed_attempts FROM users WHERE username = 'com.navy'") == len(successes)
    assert s1.scalar("SELECT count(*) FROM audit_log WHERE action = 'bump'") == len(successes)
    assert len(attempts) >= len(successes) + len(failures)
    assert audit.verify_chain(s1)[0]


# -- the single-process lock, where tests/cli/test_db_commands.py does not look --------------------------------
HOLDER = textwrap.dedent("""
    import sys
    from valuation.db.store import Store
    store = Store(sys.argv[1])
    print("ready", flush=True)
    sys.stdin.readline()
    store.close()
""")


@pytest.fixture
def held_db(small_world: Any):
    small_world.store.close()
    holder = subprocess.Popen([PY, "-c", HOLDER, str(small_world.path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        yield small_world.path, holder.pid
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_backup_of_a_file_held_by_the_dashboard_is_refused_plainly(held_db: tuple[Path, int], tmp_path: Path) -> None:
    path, pid = held_db
    proc = subprocess.run([PY, "-m", "valuation", "db", "backup", "--db", str(path), "--to", str(tmp_path / "b")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert f"PID {pid}" in proc.stderr and "stop the dashboard" in proc.stderr
    assert not (tmp_path / "b").exists()


def test_the_dashboard_reports_a_held_file_instead_of_crashing(held_db: tuple[Path, int]) -> None:
    from tests.support.ui import fresh_app

    path, pid = held_db
    at = fresh_app(path)
    at.run()
    at.text_input(key="login_username").input("dpc.silva")
    at.text_input(key="login_password").input("dpc-senha-forte-1")
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception
    shown = " ".join(e.value for e in at.error)
    assert "em uso por outro processo" in shown and f"PID {pid}" in shown


def test_reads_during_a_long_write_see_the_state_before_it(small_world: Any) -> None:
    """A reader never waits for, nor sees part of, an open bulk write (snapshot isolation)."""
    s = small_world.store
    started, release = threading.Event(), threading.Event()

    def long_write(tx: Any) -> None:
        tx.execute("UPDATE items SET notes = 'em revisão'")
        started.set()
        assert release.wait(10)

    t = threading.Thread(target=lambda: s.write("bulk", long_write))
    t.start()
    assert started.wait(10)
    t0 = time.monotonic()
    during = s.scalar("SELECT count(*) FROM items WHERE notes = 'em revisão'")
    assert time.monotonic() - t0 < 2
    release.set()
    t.join(10)
    assert during == 0
    assert s.scalar("SELECT count(*) FROM items WHERE notes = 'em revisão'") == 10
