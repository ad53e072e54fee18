"""Issue 24, item 2 — a restore reads only regular files inside the backup folder and changes
nothing outside the new database's own folder.

Reproduction (failed before the fix): a symbolic link in the backup's `files/` (named by the sha256
of a host file, listed in the manifest) was followed: `os.link` hard-linked the host file into the
new database's files folder and `chmod 0640` changed the host file's mode; the restored attachment
pointed at the host file. Now every entry of the folder is checked with `lstat` (no symbolic link,
no device, FIFO or socket, nothing leaving the folder), files are opened with O_NOFOLLOW and copied
(never linked) with explicit modes, and the new database's files folder is written only through
real directories.
"""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.support import attachments as F
from tests.support import backup as B
from valuation.attachments import records
from valuation.core.errors import InputError
from valuation.db.backup import backup, restore
from valuation.db.blobs import files_root

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


@pytest.fixture
def folder(small_world: Any, tmp_path: Path) -> Path:
    w = small_world
    records.attach(w.store, w.principal("explorer_a"), "item", w.ids["A1-001"], "photo",
                   [records.Upload("moeda.jpg", F.jpeg((300, 200)))])
    backup(w.store, tmp_path / "b")
    w.store.close()
    return tmp_path / "b"


@pytest.fixture
def host(tmp_path: Path) -> Path:
    """A host file the backup must never touch: private mode, known content."""
    (tmp_path / "host").mkdir()
    secret = tmp_path / "host" / "secret.txt"
    secret.write_bytes(b"a host file the service user can read\n")
    secret.chmod(0o600)
    return secret


def _blob(root: Path, digest: str) -> Path:
    return root / digest[:2] / digest[2:4] / digest


def _list_digest(folder: Path, digest: str) -> None:
    def change(doc: dict[str, Any]) -> None:
        listed = sorted([*doc["attachment_files"]["sha256"], digest])
        doc["attachment_files"] = {**doc["attachment_files"], "sha256": listed, "count": len(listed),
                                   "digest": None}
    B.edit_manifest(folder, change)


def _refused(folder: Path, tmp_path: Path, word: str, host: Path, target_dir: Path | None = None) -> None:
    before = (host.stat().st_mode, host.read_bytes(), host.stat().st_nlink)
    target_dir = target_dir or tmp_path / "r"
    target_dir.mkdir(exist_ok=True)
    with pytest.raises(InputError) as refused:
        restore(folder, target_dir / "restored.duckdb")
    assert word in str(refused.value), str(refused.value)
    assert (host.stat().st_mode, host.read_bytes(), host.stat().st_nlink) == before       # the host file untouched
    assert not (target_dir / "restored.duckdb").exists()
    assert not any(p.stat().st_ino == host.stat().st_ino for p in target_dir.rglob("*") if p.is_file())
    TAMPER.count(f"restore:links:{word.split()[0]}", outcome="refused")


def test_a_linked_blob_named_by_a_host_files_digest_is_refused(folder: Path, tmp_path: Path, host: Path) -> None:
    digest = B.sha(host)
    link = _blob(folder / "files", digest)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(host)
    _list_digest(folder, digest)
    _refused(folder, tmp_path, "symbolic link", host)


def test_a_genuine_blob_replaced_by_a_link_to_a_copy_outside_is_refused(folder: Path, tmp_path: Path,
                                                                       host: Path) -> None:
    blob = next(p for p in (folder / "files").rglob("*") if p.is_file())
    outside = host.parent / "copy-of-blob"
    shutil.copyfile(blob, outside)
    blob.unlink()
    blob.symlink_to(outside)
    _refused(folder, tmp_path, "symbolic link", outside)


def test_a_table_file_linked_to_a_parquet_outside_is_refused(folder: Path, tmp_path: Path, host: Path) -> None:
    outside = host.parent / "owners.parquet"
    shutil.move(folder / "owners.parquet", outside)
    (folder / "owners.parquet").symlink_to(outside)
    _refused(folder, tmp_path, "symbolic link", host)


def test_the_files_folder_linked_elsewhere_is_refused(folder: Path, tmp_path: Path, host: Path) -> None:
    shutil.move(folder / "files", host.parent / "files")
    (folder / "files").symlink_to(host.parent / "files")
    _refused(folder, tmp_path, "symbolic link", host)


@pytest.mark.timeout(120)
def test_a_fifo_in_the_backup_is_refused_without_blocking(folder: Path, tmp_path: Path, host: Path) -> None:
    blob = next(p for p in (folder / "files").rglob("*") if p.is_file())
    blob.unlink()
    os.mkfifo(blob)                       # reading it would block the restore forever
    _refused(folder, tmp_path, "not a regular file", host)
    manifest = folder / "manifest.json"
    manifest.unlink()
    os.mkfifo(manifest)
    _refused(folder, tmp_path, "not a regular file", host)


def test_a_link_in_the_new_databases_files_folder_is_never_written_through(folder: Path, tmp_path: Path,
                                                                           host: Path) -> None:
    """The target folder already holds `files/ab` as a link to a host folder: the restore must not
    write into it (nor follow it to decide that a file is already there)."""
    digest = B.manifest(folder)["attachment_files"]["sha256"][0]
    target_dir = tmp_path / "r"
    (target_dir / "files").mkdir(parents=True)
    (target_dir / "files" / digest[:2]).symlink_to(host.parent, target_is_directory=True)
    before = sorted(p.name for p in host.parent.iterdir())
    _refused(folder, tmp_path, "symbolic link", host, target_dir)
    assert sorted(p.name for p in host.parent.iterdir()) == before


def test_a_plain_restore_writes_regular_files_with_explicit_modes(folder: Path, tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    restore(folder, tmp_path / "r" / "restored.duckdb")
    assert stat.S_IMODE(os.stat(tmp_path / "r" / "restored.duckdb").st_mode) == 0o600
    for p in files_root(tmp_path / "r" / "restored.duckdb").rglob("*"):
        st = os.lstat(p)
        assert stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)
        assert stat.S_IMODE(st.st_mode) == (0o700 if stat.S_ISDIR(st.st_mode) else 0o600)
