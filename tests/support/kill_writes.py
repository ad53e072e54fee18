"""The writes that tests/db/test_kill_campaign.py interrupts, runnable in-process (the reference run) and as
a child process (`python -m tests.support.kill_writes WRITE DB EXTRA`, killed after it prints GO).

- import: an items file (EXTRA) into the demo's first recovery contract in force, through the store;
- statement: the newest draft statement issued (number, lines, items, PDF);
- round: the first open round closed (the whole round's consensus);
- backup: the database and its attached files backed up into the new directory EXTRA.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from valuation.db.access import Principal
from valuation.db.store import Store

WRITES = ("import", "statement", "round", "backup")
TODAY = date(2026, 11, 30)


def _who(store: Store, role: str) -> Principal:
    r = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                        "WHERE role = ? AND active ORDER BY id LIMIT 1", [role])
    assert r is not None, role
    return Principal(id=int(r["id"]), username=r["username"], full_name=r["full_name"], role=r["role"],
                     organisation_id=r["organisation_id"], commission_body=r["commission_body"])


def prepare(store: Store, write: str, extra: str) -> Callable[[], Any]:
    """Everything looked up and imported; the returned call is the write itself."""
    from valuation.commission import rounds
    from valuation.db import backup as bk
    from valuation.inventory import item_import as inv
    from valuation.partition import statements

    if write == "statement":
        draft, dpc = int(store.scalar("SELECT max(id) FROM statements WHERE status = 'rascunho'")), _who(store, "dpc")
        return lambda: statements.issue_statement(store, dpc, draft)
    if write == "round":
        rid = int(store.scalar("SELECT min(id) FROM assessment_rounds WHERE status = 'aberta'"))
        president = _who(store, "commission_president")
        return lambda: rounds.close_round(store, president, rid)
    if write == "backup":
        return lambda: bk.backup(store, extra)
    data, dpc = Path(extra).read_bytes(), _who(store, "dpc")
    code = str(store.scalar("SELECT code FROM contracts WHERE status = 'vigente' AND kind IN ('exploração', "
                            "'remoção', 'demolição') ORDER BY id LIMIT 1"))
    return lambda: inv.import_items(store, dpc, code, data, "itens.csv", today=TODAY)


def run(write: str, path: str | Path, extra: str, *, announce: bool = False) -> None:
    with Store(path, migrate=False) as store:
        call = prepare(store, write, extra)
        if announce:
            print("GO", flush=True)
        call()
    if announce:
        print("DONE", flush=True)


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2], sys.argv[3], announce=True)
