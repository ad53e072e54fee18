"""Issue 24, item 4 — a backup never shares an inode with the live store (nor a restore with the backup).

Reproduction (failed before the fix): `BlobStore.place` hard-linked the attached files when the backup
was on the same file system, so the backup's `files/` and the live `files/` were the same inodes: one
byte changed in a live file changed it in every backup, and the earlier backup no longer restored
("was altered or corrupted"). The same held between a backup and the database restored from it. Now
every file is copied (and checked while it is copied); a test changes a live file in place and
restores the earlier backup.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.support import attachments as F
from valuation.attachments import records
from valuation.db.backup import backup, restore
from valuation.db.blobs import files_root
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


def _attach(world: Any) -> int:
    return records.attach(world.store, world.principal("explorer_a"), "item", world.ids["A1-001"], "photo",
                          [records.Upload("moeda.jpg", F.jpeg((900, 600)))])[0]


def _inodes(root: Path) -> dict[str, tuple[int, int, int]]:
    """name → (device, inode, link count) of every file under `root` (staging excluded)."""
    out = {}
    for p in root.rglob("*"):
        if p.is_file() and ".staging" not in p.parts:
            st = p.stat()
            out[p.name] = (st.st_dev, st.st_ino, st.st_nlink)
    return out


def _flip_one_byte_in_place(path: Path) -> None:
    """What a failing disk or a careless editor does: the same inode, one byte different."""
    with path.open("r+b") as fh:
        fh.seek(100)
        byte = fh.read(1)
        fh.seek(100)
        fh.write(bytes([byte[0] ^ 0xFF]))


def test_a_live_file_damaged_in_place_leaves_the_earlier_backup_restorable(small_world: Any, tmp_path: Path) -> None:
    w = small_world
    aid = _attach(w)
    original = records.open_attachment(w.store, w.principal("dpc"), aid).data
    manifest = backup(w.store, tmp_path / "earlier")
    live, copied = _inodes(files_root(w.path)), _inodes(tmp_path / "earlier" / "files")
    assert set(live) == set(copied) == set(manifest["attachment_files"]["sha256"])
    for name in live:
        TAMPER.count("backup:inode", outcome="separate" if live[name][:2] != copied[name][:2] else "shared")
    shared = sorted(n for n in live if live[n][:2] == copied[n][:2])
    assert shared == [], f"backup shares {len(shared)} inode(s) with the live store"
    assert all(n == 1 for _d, _i, n in copied.values())

    sha = w.store.scalar("SELECT sha256 FROM attachments WHERE id = ?", [aid])
    _flip_one_byte_in_place(files_root(w.path) / sha[:2] / sha[2:4] / sha)
    w.store.close()
    (tmp_path / "r").mkdir()
    restore(tmp_path / "earlier", tmp_path / "r" / "restored.duckdb")     # refused before: the backup was damaged too
    with Store(tmp_path / "r" / "restored.duckdb") as s:
        assert records.open_attachment(s, w.principal("dpc"), aid).data == original


def test_the_restored_files_do_not_share_inodes_with_the_backup(small_world: Any, tmp_path: Path) -> None:
    w = small_world
    aid = _attach(w)
    backup(w.store, tmp_path / "b")
    w.store.close()
    (tmp_path / "r").mkdir()
    restore(tmp_path / "b", tmp_path / "r" / "one.duckdb")
    restored, kept = _inodes(tmp_path / "r" / "files"), _inodes(tmp_path / "b" / "files")
    for name in restored:
        TAMPER.count("restore:inode", outcome="separate" if restored[name][:2] != kept[name][:2] else "shared")
    assert not [n for n in restored if restored[n][:2] == kept[n][:2]]
    for p in (tmp_path / "r" / "files").rglob("*"):                        # explicit modes, whatever the umask
        mode = os.stat(p).st_mode & 0o777
        assert mode == (0o700 if p.is_dir() else 0o600), (p, oct(mode))
    with Store(tmp_path / "r" / "one.duckdb") as s:
        sha = s.scalar("SELECT sha256 FROM attachments WHERE id = ?", [aid])
    _flip_one_byte_in_place(tmp_path / "r" / "files" / sha[:2] / sha[2:4] / sha)
    (tmp_path / "r2").mkdir()
    restore(tmp_path / "b", tmp_path / "r2" / "two.duckdb")               # the backup is still whole
