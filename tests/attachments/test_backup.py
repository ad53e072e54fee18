"""Issue 16 §6: backup and restore carry the attached files with their digests; `audit verify`
checks that every referenced file exists and matches its digest."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support import attachments as F
from valuation.attachments import records
from valuation.cli.main import main
from valuation.core.errors import InputError, StoreError
from valuation.db.backup import backup, restore
from valuation.db.blobs import files_root
from valuation.db.store import Store


def _attach(world: Any) -> dict[str, int]:
    dpc, exp = world.principal("dpc"), world.principal("explorer_a")
    return {
        "photo": records.attach(world.store, exp, "item", world.ids["A1-001"], "photo",
                                [records.Upload("moeda.jpg", F.jpeg((1800, 1200)))])[0],
        "edital": records.attach(world.store, dpc, "contract", world.ids["A-1"], "edital",
                                 [records.Upload("edital.pdf", F.pdf())])[0],
    }


def _files(root: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()
            and ".staging" not in p.parts}


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    capsys.readouterr()
    rc = main(["audit", "verify", "--db", str(path)])
    out = capsys.readouterr()
    return rc, json.loads(out.out), out.err


def test_a_round_trip_carries_every_file_with_its_digest(small_world, tmp_path, capsys):
    w = small_world
    ids = _attach(w)
    originals = {k: records.open_attachment(w.store, w.principal("dpc"), v).data for k, v in ids.items()}
    manifest = backup(w.store, tmp_path / "backup")
    entry = manifest["attachment_files"]
    assert entry["count"] == 4            # photo, its display copy (> 1 600 px) and thumbnail, the edital
    assert _files(tmp_path / "backup" / "files") == {sha: sha for sha in entry["sha256"]}
    (tmp_path / "elsewhere").mkdir()
    summary = restore(tmp_path / "backup", tmp_path / "elsewhere" / "restored.duckdb")
    assert summary["attachment_files"]["count"] == 4
    assert _files(tmp_path / "elsewhere" / "files") == _files(files_root(w.path))
    with Store(tmp_path / "elsewhere" / "restored.duckdb") as restored:
        for key, aid in ids.items():
            assert records.open_attachment(restored, w.principal("dpc"), aid).data == originals[key]
    rc, doc, _ = verify(tmp_path / "elsewhere" / "restored.duckdb", capsys)
    assert rc == 0 and doc["files"]["checked"] == 4


@pytest.mark.parametrize("damage, words", [
    ("alter", "was altered or corrupted"),
    ("remove", "is missing from the backup"),
    ("extra", "is in the backup but not in manifest.json"),
])
def test_a_backup_whose_files_were_touched_is_refused(small_world, tmp_path, damage, words):
    w = small_world
    _attach(w)
    manifest = backup(w.store, tmp_path / "backup")
    sha = manifest["attachment_files"]["sha256"][0]
    path = tmp_path / "backup" / "files" / sha[:2] / sha[2:4] / sha
    if damage == "alter":
        path.write_bytes(path.read_bytes() + b"x")
    elif damage == "remove":
        path.unlink()
    else:
        (path.parent / ("0" * 64)).write_bytes(b"intruso")
    with pytest.raises(InputError) as exc:
        restore(tmp_path / "backup", tmp_path / "restored.duckdb")
    assert any(words in p.message for p in exc.value.problems)
    assert not (tmp_path / "restored.duckdb").exists()


def test_audit_verify_checks_every_referenced_file(small_world, capsys):
    w = small_world
    ids = _attach(w)
    w.store.close()
    rc, doc, _ = verify(w.path, capsys)
    assert rc == 0 and doc["ok"] and doc["files"] == {"ok": True, "checked": 4, "missing": [], "altered": [],
                                                      "message": "Arquivos guardados íntegros: 4 conferido(s)."}
    with Store(w.path) as s:
        row = s.fetch_one("SELECT sha256, thumb_sha256 FROM attachments WHERE id = ?", [ids["photo"]])
    root = files_root(w.path)
    (root / row["sha256"][:2] / row["sha256"][2:4] / row["sha256"]).write_bytes(b"trocado")
    (root / row["thumb_sha256"][:2] / row["thumb_sha256"][2:4] / row["thumb_sha256"]).unlink()
    rc, doc, err = verify(w.path, capsys)
    assert rc == 1 and not doc["ok"] and doc["first_bad_id"] is None          # the chain is intact; files are not
    assert doc["files"]["missing"] == [row["thumb_sha256"]] and doc["files"]["altered"] == [row["sha256"]]
    assert "1 missing, 1 altered" in err


def test_a_backup_refuses_to_copy_a_damaged_file(small_world, tmp_path):
    w = small_world
    _attach(w)
    sha = w.store.scalar("SELECT sha256 FROM attachments WHERE kind = 'edital'")
    (files_root(w.path) / sha[:2] / sha[2:4] / sha).unlink()
    with pytest.raises(StoreError, match="ausente"):
        backup(w.store, tmp_path / "backup")
    assert not (tmp_path / "backup").exists()


def test_a_database_without_attachments_backs_up_as_before(small_world, tmp_path):
    w = small_world
    manifest = backup(w.store, tmp_path / "backup")
    assert manifest["attachment_files"]["count"] == 0 and not (tmp_path / "backup" / "files").exists()
    restore(tmp_path / "backup", tmp_path / "r.duckdb")
    shutil.rmtree(tmp_path / "backup")
