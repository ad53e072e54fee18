"""Issue 45, item 1 — every file the store references, whatever table references it, is backed up, restored
and checked by `audit verify`.

Reproduction (failed before the fix): the signed PDFs of issued acts (`document_signatures`, an accepted
upload's file) are kept in the content-addressed store beside the database, but backups, restores and `audit
verify` knew only the files `attachments` lists: deleting one left `audit verify` at exit 0, and after a
restore "Baixar a versão assinada mais recente" failed with "arquivo anexado ausente … restaure-o do backup" —
which the backup did not have. Now `backup_files.STORED_FILES` lists every column naming a stored file, and:

- a column of the schema holding a sha256 is in that list or in `NOT_STORED` with its reason (a new table's
  column cannot be forgotten: this test fails on it);
- every value of any table that is the name of a file in the store is read through that list (a column named
  otherwise, storing files, fails too);
- the signed PDF is in the backup, comes back with the restore, and its loss is named by `audit verify`.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support import attachments as F  # noqa: E402
from tests.support.commission import run_round  # noqa: E402
from tests.support.fuzz_report import FIGURES, TAMPER  # noqa: E402
from tests.support.pki import TestPki, sign  # noqa: E402
from valuation.accounts import users  # noqa: E402
from valuation.attachments import records as attachments  # noqa: E402
from valuation.cli.main import main  # noqa: E402
from valuation.commission import minutes  # noqa: E402
from valuation.db import backup_files  # noqa: E402
from valuation.db.blobs import STAGING_DIR, BlobStore  # noqa: E402
from valuation.db.store import Store  # noqa: E402
from valuation.signatures import listing, records  # noqa: E402
from valuation.signatures.trust import load_trust  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
_HEX = re.compile(r"^[0-9a-f]{64}$")


def test_every_column_holding_a_sha256_is_a_stored_file_or_says_why_not(store: Store) -> None:
    columns = {(r["table_name"], r["column_name"]) for r in store.fetch(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' AND database_name = "
        "current_database() AND (column_name LIKE '%sha256%' OR column_name LIKE '%digest%')")}
    listed = {(f.table, f.column) for f in backup_files.STORED_FILES}
    unexplained = columns - listed - set(backup_files.NOT_STORED)
    assert not unexplained, ("columns holding a digest that are neither a stored file (backup_files.STORED_FILES) "
                             f"nor explained (NOT_STORED): {sorted(unexplained)}")
    stale = (listed | set(backup_files.NOT_STORED)) - columns
    assert not stale, f"listed columns the schema does not have: {sorted(stale)}"
    FIGURES.record("stored files: columns naming a stored file / holding another digest",
                   f"{len(listed)} / {len(backup_files.NOT_STORED)}")


@pytest.fixture
def signed(small_world: Any, tmp_path: Path) -> dict[str, Any]:
    """A photo attached to an item (3 files) and the minutes of a published round signed by its president (one
    accepted signed revision), in the world's store."""
    w = small_world
    attachments.attach(w.store, w.principal("explorer_a"), "item", w.ids["A1-001"], "photo",
                       [attachments.Upload("moeda.jpg", F.jpeg((900, 600)))])
    pki = TestPki.build()
    panel, round_id = run_round(w)
    users.set_cpf(w.store, w.principal("admin"), panel["pres"].id, pki.person("ana").cpf)
    pdf = minutes.round_minutes_pdf(w.store, panel["pres"], round_id)
    code = str(w.store.scalar("SELECT code FROM issued_documents WHERE kind = 'minutes' ORDER BY id DESC LIMIT 1"))
    trust = load_trust(pki.install(tmp_path / "trust"))
    done = records.record_signed_upload(w.store, panel["pres"], code, sign(pdf, pki.person("ana")), trust=trust)
    assert done.valid, done.verification.reasons
    sha = str(w.store.scalar("SELECT file_sha256 FROM document_signatures WHERE outcome = 'valid'"))
    return {"world": w, "panel": panel, "round_id": round_id, "code": code, "sha": sha}


def test_every_value_naming_a_stored_file_is_read_through_the_list(signed: dict[str, Any]) -> None:
    s = signed["world"].store
    root = BlobStore.for_database(s.path).root
    on_disk = {p.name for p in root.rglob("*") if p.is_file() and STAGING_DIR not in p.parts}
    listed = {(f.table, f.column) for f in backup_files.STORED_FILES}
    # a value outside the list may name a file a listed column names too (an issued act's digest and its kept copy)
    cur = s.cursor()
    try:
        through_the_list = set(backup_files.referenced_digests(cur))
    finally:
        cur.close()
    found: dict[tuple[str, str], int] = {}
    for col in s.fetch("SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' AND "
                       "database_name = current_database() AND data_type = 'VARCHAR' AND table_name NOT IN "
                       "(SELECT view_name FROM duckdb_views())"):
        values = s.fetch(f'SELECT DISTINCT "{col["column_name"]}" AS v FROM "{col["table_name"]}" '
                         f'WHERE length("{col["column_name"]}") = 64')
        named = on_disk if (col["table_name"], col["column_name"]) in listed else on_disk - through_the_list
        hits = sum(1 for r in values if _HEX.match(str(r["v"])) and r["v"] in named)
        if hits:
            found[(col["table_name"], col["column_name"])] = hits
    assert set(found) - listed == set(), f"stored files named by columns outside STORED_FILES: {found}"
    assert ("document_signatures", "file_sha256") in found and ("attachments", "thumb_sha256") in found
    cur = s.cursor()
    try:
        referenced = set(backup_files.referenced_digests(cur))
    finally:
        cur.close()
    assert on_disk == referenced, on_disk ^ referenced                   # every file is a referenced one


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    rc = main(list(args))
    out = capsys.readouterr().out
    return rc, json.loads(out) if out.strip().startswith("{") else {}


def test_a_signed_pdf_is_backed_up_restored_and_its_loss_named(signed: dict[str, Any], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    w, sha = signed["world"], signed["sha"]
    w.store.close()
    db = str(w.path)
    rc, doc = _cli(capsys, "db", "backup", "--db", db, "--to", str(tmp_path / "copia"))
    assert rc == 0
    manifest = json.loads((tmp_path / "copia" / "manifest.json").read_text(encoding="utf-8"))
    assert sha in manifest[backup_files.MANIFEST_KEY]["sha256"]
    assert (tmp_path / "copia" / "files" / sha[:2] / sha[2:4] / sha).is_file()

    (tmp_path / "r").mkdir()
    rc, _ = _cli(capsys, "db", "restore", "--from", str(tmp_path / "copia"), "--db", str(tmp_path / "r" / "r.duckdb"))
    assert rc == 0
    with Store(tmp_path / "r" / "r.duckdb") as restored:                 # the next signer downloads it
        latest = listing.latest_signed(restored, signed["panel"]["navy1"], "assessment_rounds", signed["round_id"],
                                       f"{signed['code'][:5]}-{signed['code'][5:]}")
    assert latest is not None and BlobStore.for_database(db).read(sha) == latest

    victim = BlobStore.for_database(db).path(sha)
    kept = victim.read_bytes()
    victim.unlink()
    rc, doc = _cli(capsys, "audit", "verify", "--db", db)
    TAMPER.count("stored_file:signed_pdf_removed", outcome="named" if rc == 1 else "missed")
    assert rc == 1 and doc["files"]["missing"] == [sha], doc
    assert "versão assinada de documento emitido" in doc["files"]["message"] and "document_signatures" in \
        doc["files"]["message"]
    victim.write_bytes(kept[:-1] + bytes([kept[-1] ^ 1]))
    rc, doc = _cli(capsys, "audit", "verify", "--db", db)
    TAMPER.count("stored_file:signed_pdf_altered", outcome="named" if rc == 1 else "missed")
    assert rc == 1 and doc["files"]["altered"] == [sha], doc
    victim.write_bytes(kept)
    rc, doc = _cli(capsys, "audit", "verify", "--db", db)
    assert rc == 0 and doc["files"]["checked"] == 4, doc      # the photo and its thumbnail (no display copy below
                                                              # 1600 px), the signed PDF and the minutes' kept copy
    shutil.rmtree(tmp_path / "r")
