"""An act is issued once (issue 43, item 3): every 'Baixar ata (PDF)' minted a new issued copy with a new code, so
signatures split across copies (YEN7P at 5 of 6, one more download made E9GTM at 0 of 6). Now the first download
registers the minutes and keeps their copy; later downloads serve that copy until what the minutes say changes.
Real minutes on a real DuckDB file; the kept files go into every backup."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.commission import run_round
from valuation.authenticity import registry
from valuation.commission import minutes
from valuation.commission.rounds import publish_round
from valuation.db import backup_files, seals
from valuation.db.blobs import sha256_hex
from valuation.db.store import Store
from valuation.exports import PdfReport


def _issued(store: Store, round_id: int) -> list[dict[str, Any]]:
    return store.fetch("SELECT id, code, sha256 FROM issued_documents WHERE record_table = 'assessment_rounds' AND "
                       "record_id = ? ORDER BY id", [round_id])


def test_downloading_the_minutes_twice_gives_one_issue_and_the_same_bytes(small_world: Any) -> None:
    panel, rid = run_round(small_world)
    first = minutes.round_minutes_pdf(small_world.store, panel["pres"], rid)
    again = minutes.round_minutes_pdf(small_world.store, panel["navy1"], rid)     # another member, later
    assert again == first
    (doc,) = _issued(small_world.store, rid)
    assert doc["sha256"] == sha256_hex(first)
    assert small_world.store.scalar("SELECT content_key FROM issued_copies WHERE id = ?", [doc["id"]]) == \
        minutes.minutes_key(minutes.minutes_data(small_world.store, panel["pres"], rid))


def test_minutes_that_say_something_new_are_a_new_issue(small_world: Any) -> None:
    panel, rid = run_round(small_world, until="decided")
    decided = minutes.round_minutes_pdf(small_world.store, panel["pres"], rid)
    publish_round(small_world.store, panel["pres"], rid)          # 'Publicada em …': the minutes changed
    published = minutes.round_minutes_pdf(small_world.store, panel["pres"], rid)
    assert published != decided
    assert [d["sha256"] for d in _issued(small_world.store, rid)] == [sha256_hex(decided), sha256_hex(published)]
    assert minutes.round_minutes_pdf(small_world.store, panel["pres"], rid) == published


def test_two_downloads_at_once_keep_one_copy(small_world: Any) -> None:
    """Both rendered before either registered: the second write finds the first one's copy and serves it."""
    store = small_world.store
    record = ("assessment_rounds", 999)
    copies = []
    for _ in range(2):
        stamp = registry.new_stamp()
        copies.append((stamp, PdfReport("Ata", stamp=stamp).paragraph("o mesmo ato").bytes()))
    served = [registry.issue_once(store, "admin", stamp, data, content_key="a" * 64, kind="minutes", record=record,
                                  office="Comissão") for stamp, data in copies]
    assert served == [copies[0][1], copies[0][1]]
    assert store.scalar("SELECT count(*) FROM issued_documents WHERE record_id = 999") == 1
    assert seals.verify(store)[0]


def test_every_backup_carries_the_kept_copies_and_the_signed_revisions(small_world: Any, tmp_path: Path) -> None:
    panel, rid = run_round(small_world)
    data = minutes.round_minutes_pdf(small_world.store, panel["pres"], rid)
    small_world.store.close()
    con = duckdb.connect(str(small_world.path), read_only=True)
    try:
        assert sha256_hex(data) in backup_files.referenced_digests(con)
    finally:
        con.close()


def test_migration_078_keeps_the_registry_and_admits_the_removal_order(tmp_path: Path) -> None:
    """The rows issued before 078 (written here as they were, below the seals, which know 078's table) keep their
    ids and values; the sequence goes on; 'removal_order' is a kind now and an unknown kind is still refused."""
    path = tmp_path / "old.duckdb"
    with Store(path, migrate=False) as store:
        store.migrate(up_to=77)
    con = duckdb.connect(str(path))
    try:
        con.execute("INSERT INTO issued_documents (code, kind, record_table, record_id, office, issued_at, crc, "
                    "sha256, size, issued_by) VALUES ('ABCDE12345', 'statement', 'statements', 1, 'DPC', TIMESTAMP "
                    "'2026-05-01 12:00:00', '1A2B3C4D', ?, 10, 'dpc.silva')", ["a" * 64])
        with pytest.raises(duckdb.ConstraintException):
            con.execute("INSERT INTO issued_documents (code, kind, record_table, office, issued_at, crc, sha256, size, "
                        "issued_by) VALUES ('ABCDE12346', 'removal_order', 'removal_orders', 'DPC', now(), "
                        "'1A2B3C4D', ?, 10, 'x')", ["b" * 64])
        old = con.execute("SELECT * FROM issued_documents ORDER BY id").fetchall()
    finally:
        con.close()
    with Store(path) as store:
        assert [tuple(r.values()) for r in store.fetch("SELECT * FROM issued_documents ORDER BY id")] == old
        stamp = registry.new_stamp()
        registry.issue(store, "admin", stamp, PdfReport("Depois", stamp=stamp).paragraph("x").bytes(),
                       kind="removal_order", record=("removal_orders", 1, None), office="DPC")
        assert store.scalar("SELECT max(id) FROM issued_documents") > old[-1][0]     # the sequence goes on
        assert seals.verify(store)[0]
        stamp = registry.new_stamp()
        with pytest.raises(ValueError, match="not a kind"):    # since 083 the one list is the code's (KIND_LABELS)
            registry.issue(store, "admin", stamp, PdfReport("Outro", stamp=stamp).paragraph("x").bytes(), kind="mapa",
                           record=("x", 1, None), office="DPC")
