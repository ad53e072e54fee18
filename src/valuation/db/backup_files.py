"""The attached files in backups, restores and `audit verify` (issue 16 §6).

Backup: the digests referenced by `attachments` (stored file, display copy, thumbnail of every
version) are read inside the backup's snapshot transaction (`referenced_digests`); after it the
files are copied — each one checked against its name — into `<backup>/files/ab/cd/<sha256>`,
and the manifest gets `attachment_files`: their count, total bytes and the sorted digests.
Files are immutable and never deleted, so copying after the snapshot is consistent.

Restore (`restore_files`): every listed file must be in the backup and match its digest, the
backup holds no other file, and the restored tables reference no digest the list lacks; then
the files are copied into the new database's files folder (a file already there with the
right content is kept). Any problem refuses the restore.

`verify_files(store)`: every file referenced by the database exists and matches its digest.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from valuation.core.errors import InputError, Problem, StoreError
from valuation.db.blobs import FILES_DIR, BlobStore, blob_path, file_sha256, files_root

MANIFEST_KEY = "attachment_files"
_DIGEST_SQL = """
SELECT DISTINCT d FROM (
    SELECT sha256 AS d FROM attachments UNION ALL SELECT preview_sha256 FROM attachments
    UNION ALL SELECT thumb_sha256 FROM attachments) WHERE d IS NOT NULL ORDER BY d"""


def _has_table(cur: duckdb.DuckDBPyConnection) -> bool:
    return bool(cur.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND "
                            "database_name = current_database() AND table_name = 'attachments'").fetchall()[0][0])


def referenced_digests(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """Every file digest the database references (empty for a database without attachments)."""
    if not _has_table(cur):
        return []
    return [r[0] for r in cur.execute(_DIGEST_SQL).fetchall()]


def _list_digest(digests: list[str]) -> str:
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()


def copy_into_backup(db_path: str, digests: list[str], dest: Path) -> dict[str, Any]:
    """Copy the referenced files into `dest/files`, each checked; the manifest entry."""
    blobs = BlobStore.for_database(db_path)
    target = BlobStore(dest / FILES_DIR)
    problems = []
    total = 0
    for sha in digests:
        state = blobs.check(sha)
        if state is not None:
            problems.append(f"{sha} ({'ausente' if state == 'missing' else 'alterado'})")
            continue
        target.place(sha, blobs.path(sha))
        total += blobs.path(sha).stat().st_size
    if problems:
        raise StoreError("backup recusado: arquivo(s) anexado(s) com problema no disco: " + ", ".join(problems[:10])
                         + (f" e mais {len(problems) - 10}" if len(problems) > 10 else "")
                         + "; rode `audit verify` e restaure-os antes")
    return {"count": len(digests), "bytes": total, "digest": _list_digest(digests), "sha256": digests}


def backup_listing(source: Path) -> set[str]:
    """Relative paths of every file under `source/files` ('ab/cd/<sha>')."""
    root = source / FILES_DIR
    if not root.is_dir():
        return set()
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def check_backup(source: Path, manifest: dict[str, Any], restored: duckdb.DuckDBPyConnection) -> list[Problem]:
    """Problems of the backup's files against its manifest and the restored tables."""
    entry = manifest.get(MANIFEST_KEY) or {"sha256": []}
    listed = entry.get("sha256")
    if not isinstance(listed, list) or not all(isinstance(s, str) for s in listed):
        return [Problem("--from", f"manifest.json: {MANIFEST_KEY} is malformed")]
    problems: list[Problem] = []
    if entry.get("digest") not in (None, _list_digest(sorted(listed))):
        problems.append(Problem("--from", f"manifest.json: {MANIFEST_KEY} list does not match its digest"))
    root = source / FILES_DIR
    expected: set[str] = set()
    for sha in listed:
        try:
            path = blob_path(root, sha)
        except StoreError:
            problems.append(Problem("--from", f"manifest.json lists an invalid file digest {sha!r}"))
            continue
        expected.add(str(path.relative_to(root)))
        if not path.is_file():
            problems.append(Problem("--from", f"files/{sha[:2]}/{sha[2:4]}/{sha} is missing from the backup"))
        elif file_sha256(path) != sha:
            problems.append(Problem("--from", f"files/{sha[:2]}/{sha[2:4]}/{sha} was altered or corrupted"))
    for extra in sorted(backup_listing(source) - expected):
        problems.append(Problem("--from", f"files/{extra} is in the backup but not in manifest.json"))
    missing = sorted(set(referenced_digests(restored)) - set(listed))
    for sha in missing[:20]:
        problems.append(Problem("--from", f"the restored attachments reference {sha}, which the backup does not hold"))
    return problems


def restore_files(source: Path, manifest: dict[str, Any], target_db: Path) -> dict[str, int]:
    """Copy the backup's files into the files folder of the new database `target_db`."""
    listed = (manifest.get(MANIFEST_KEY) or {}).get("sha256") or []
    target = BlobStore(files_root(target_db))
    total = 0
    for sha in listed:
        path = blob_path(source / FILES_DIR, sha)
        target.place(sha, path)
        total += path.stat().st_size
    return {"count": len(listed), "bytes": total}


@dataclass(frozen=True)
class FilesCheck:
    ok: bool
    checked: int
    missing: tuple[str, ...]
    altered: tuple[str, ...]

    @property
    def message(self) -> str:
        if self.ok:
            return f"Arquivos anexados íntegros: {self.checked} conferido(s)."
        parts = []
        if self.missing:
            parts.append(f"{len(self.missing)} ausente(s) (primeiro: {self.missing[0]})")
        if self.altered:
            parts.append(f"{len(self.altered)} alterado(s) (primeiro: {self.altered[0]})")
        return "Arquivos anexados com problema: " + "; ".join(parts) + "."


def verify_files(store: Any) -> FilesCheck:
    """Every file referenced by the database exists and matches its sha256."""
    cur = store.cursor()
    try:
        digests = referenced_digests(cur)
    finally:
        cur.close()
    if not digests:
        return FilesCheck(True, 0, (), ())
    blobs = BlobStore.for_database(store.path)
    missing, altered = [], []
    for sha in digests:
        state = blobs.check(sha)
        if state == "missing":
            missing.append(sha)
        elif state == "altered":
            altered.append(sha)
    return FilesCheck(not missing and not altered, len(digests), tuple(missing), tuple(altered))


def refuse(problems: list[Problem]) -> None:
    if problems:
        raise InputError(problems)
