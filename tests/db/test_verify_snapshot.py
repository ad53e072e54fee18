"""A write committed while the chain is being verified is not a tampering (CI, 2026-12-05: `audit verify`
through the running service reported "chain broken at row 4" on a restored database — its rows 1–3 were
read before the service's start-up backup committed row 4, its anchor after). The check reads the rows, the
anchor and the row seals in one snapshot: what was committed before it began, nothing after.

The write lands at a fixed point of the check — just before the anchor is read (`_RacingStore`), between
two batches of rows (the check's own progress callback) — so the interleaving is certain, not a matter of
timing."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from valuation.db import audit
from valuation.db.access import Principal
from valuation.db.audit_log import check_chain
from valuation.db.store import Store

ROWS = 6
ADMIN = Principal(id=1, username="ana.admin", full_name="Ana", role="admin", organisation_id=None,
                  commission_body=None)


def _touch(store: Store, i: int) -> None:
    store.write("ana.admin", lambda tx: tx.audit("touch", "test", i, {"v": i}, {"v": i + 1}))


def _store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "v.duckdb")
    for i in range(ROWS):
        _touch(store, i)
    return store


class _RacingStore(Store):
    """A Store on which one write commits just before the check reads the chain's anchor — where the CI's
    start-up backup landed. Its cursors pass every statement through, but the first that reads
    audit_head first commits another audited write (on a cursor of its own: a write's cursors are plain)."""

    fired: list[str]

    armed = False

    def cursor(self) -> Any:
        real = super().cursor()
        return _Cursor(real, self) if self.armed and not getattr(self._local, "in_tx", False) else real


class _Cursor:
    def __init__(self, real: Any, store: _RacingStore):
        self._real, self._store = real, store

    def execute(self, sql: str, *args: Any) -> Any:
        store = self._store
        if "FROM audit_head" in sql and not store.fired:
            store.fired.append(sql)
            _touch(store, 100)
        return self._real.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def test_a_write_committed_before_the_anchor_is_read_is_not_a_removal(tmp_path: Path) -> None:
    with _RacingStore(tmp_path / "v.duckdb") as store:
        store.fired = []
        for i in range(ROWS):
            _touch(store, i)
        store.armed = True
        ok, bad, message = audit.verify_chain(store)
        assert len(store.fired) == 1                       # the write did land between the two reads
        assert (ok, bad) == (True, None), message          # before: "removido(s) do fim", first bad row 7
        assert f"{ROWS} registros" in message
        assert store.scalar("SELECT count(*) FROM audit_log") == ROWS + 1
        assert audit.verify_chain(store)[:2] == (True, None)


def test_a_write_between_two_batches_is_not_part_of_the_check(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        wrote: list[int] = []

        def progress(checked: int, total: int) -> None:
            if not wrote:
                _touch(store, 100)
                wrote.append(checked)

        ok, bad, message = audit.verify_chain(store, progress=progress, batch=ROWS)
        assert wrote == [ROWS]
        assert (ok, bad) == (True, None), message
        assert f"{ROWS} registros" in message                # the snapshot's rows: the write came after it began


def test_the_admin_page_check_reads_one_snapshot_too(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        done: list[int] = []

        def progress(checked: int, total: int) -> None:
            if checked == 2 and not done:                  # between two batches
                _touch(store, 200)
                done.append(checked)

        result = check_chain(store, ADMIN, progress=progress, batch=2)
        assert done == [2]
        assert (result.ok, result.bad_id, result.checked) == (True, None, ROWS), result.message
