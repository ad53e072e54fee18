"""The attached files in backups, restores and `audit verify` (issue 16 §6).

Backup: the digests referenced by `attachments` (stored file, display copy, thumbnail of every
version), by the accepted signed revisions (`document_signatures`) and by the kept copies of issued acts
(`issued_copies`) are read inside the backup's snapshot transaction (`referenced_digests`); after it the
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
from valuation.db import safe_files
from valuation.db.blobs import FILES_DIR, BlobStore, blob_path, files_root

MANIFEST_KEY = "attachment_files"
# the tables whose rows name a file of files/: the attachments (file, display copy, thumbnail), the accepted signed
# revisions of issued acts and the kept copies of acts issued once (issue 43: a download serves them, so a restore
# must bring them back)
_DIGEST_SOURCES = {
    "attachments": "SELECT sha256 AS d FROM attachments UNION ALL SELECT preview_sha256 FROM attachments "
                   "UNION ALL SELECT thumb_sha256 FROM attachments",
    "document_signatures": "SELECT file_sha256 AS d FROM document_signatures WHERE outcome = 'valid'",
    "issued_copies": "SELECT sha256 AS d FROM issued_copies",
}


def _tables(cur: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in cur.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND "
                                      "database_name = current_database() AND list_contains(?, table_name)",
                                      [list(_DIGEST_SOURCES)]).fetchall()}


def referenced_digests(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """Every file digest the database references (empty for a database without attachments)."""
    sources = [sql for table, sql in _DIGEST_SOURCES.items() if table in _tables(cur)]
    if not sources:
        return []
    union = " UNION ALL ".join(f"({sql})" for sql in sources)
    return [r[0] for r in cur.execute(f"SELECT DISTINCT d FROM ({union}) WHERE d IS NOT NULL ORDER BY d").fetchall()]


def _list_digest(digests: list[str]) -> str:
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()


def copy_into_backup(db_path: str, digests: list[str], dest: Path) -> dict[str, Any]:
    """Copy the referenced files into `dest/files` (copies, never links: issue 24 item 4), each
    checked while it is copied; the manifest entry."""
    blobs = BlobStore.for_database(db_path)
    target = BlobStore(dest / FILES_DIR)
    problems = []
    total = 0
    for sha in digests:
        try:
            total += target.place(sha, blobs.path(sha), mode=0o600)
        except FileNotFoundError:
            problems.append(f"{sha} (ausente)")
        except StoreError:
            problems.append(f"{sha} (alterado)")
    if problems:
        raise StoreError("backup recusado: arquivo(s) anexado(s) com problema no disco: " + ", ".join(problems[:10])
                         + (f" e mais {len(problems) - 10}" if len(problems) > 10 else "")
                         + "; rode `audit verify` e restaure-os antes")
    return {"count": len(digests), "bytes": total, "digest": _list_digest(digests), "sha256": digests}


def backup_listing(source: Path) -> tuple[set[str], list[str]]:
    """(relative paths of the regular files under `source/files` ('ab/cd/<sha>'), problems: every
    entry that is a link, FIFO, device or socket), never following a link (issue 24, item 2)."""
    root = source / FILES_DIR
    try:
        safe_files.check_entry(root, folder=True)
    except FileNotFoundError:
        return set(), []
    except safe_files.UnsafeEntry as exc:
        return set(), [str(exc)]
    files, problems = safe_files.scan(root)
    return set(files), [f"{FILES_DIR}/{p}" for p in problems]


def check_backup(source: Path, manifest: dict[str, Any], restored: duckdb.DuckDBPyConnection) -> list[Problem]:
    """Problems of the backup's files against its manifest and the restored tables."""
    entry = manifest.get(MANIFEST_KEY) or {"sha256": []}
    listed = entry.get("sha256") if isinstance(entry, dict) else None
    if not isinstance(listed, list) or not all(isinstance(s, str) for s in listed):
        return [Problem("--from", f"manifest.json: {MANIFEST_KEY} is malformed")]
    present, unsafe = backup_listing(source)
    problems = [Problem("--from", f"{p}: a backup holds regular files only (refused)") for p in unsafe]
    if entry.get("digest") not in (None, _list_digest(sorted(listed))):
        problems.append(Problem("--from", f"manifest.json: {MANIFEST_KEY} list does not match its digest"))
    root = source / FILES_DIR
    expected: set[str] = set()
    total = 0
    for sha in listed:
        try:
            path = blob_path(root, sha)
        except StoreError:
            problems.append(Problem("--from", f"manifest.json lists an invalid file digest {sha!r}"))
            continue
        rel = str(path.relative_to(root))
        expected.add(rel)
        if rel not in present:
            if not any(rel in p for p in unsafe):
                problems.append(Problem("--from", f"files/{rel} is missing from the backup"))
        elif not safe_files.intact(path, sha):
            problems.append(Problem("--from", f"files/{rel} was altered or corrupted"))
        else:
            total += path.stat().st_size
    if not problems:
        problems += _counts_problems(entry, listed, total)
    for extra in sorted(present - expected):
        problems.append(Problem("--from", f"files/{extra} is in the backup but not in manifest.json"))
    missing = sorted(set(referenced_digests(restored)) - set(listed))
    for sha in missing[:20]:
        problems.append(Problem("--from", f"the restored attachments reference {sha}, which the backup does not hold"))
    return problems


def _counts_problems(entry: dict[str, Any], listed: list[str], total: int) -> list[Problem]:
    """The entry's count and bytes, when given, agree with its list and the files (issue 24, item 11)."""
    count, size = entry.get("count"), entry.get("bytes")
    if count is not None and (isinstance(count, bool) or count != len(listed)):
        return [Problem("--from", f"manifest.json: {MANIFEST_KEY} count {str(count)[:20]!r} differs from the "
                                  f"{len(listed)} file(s) it lists")]
    if size is not None and (isinstance(size, bool) or size != total):
        return [Problem("--from", f"manifest.json: {MANIFEST_KEY} bytes {str(size)[:20]!r} differ from the "
                                  f"{total} bytes of the files it lists")]
    return []


def restore_files(source: Path, manifest: dict[str, Any], target_db: Path) -> dict[str, int]:
    """Copy the backup's files into the files folder of the new database `target_db`: copies with
    explicit modes, written only through real folders (a link there is refused, never followed)."""
    listed = (manifest.get(MANIFEST_KEY) or {}).get("sha256") or []
    target = BlobStore(files_root(target_db))
    total = 0
    try:
        for sha in listed:
            total += target.place(sha, blob_path(source / FILES_DIR, sha))
    except safe_files.UnsafeEntry as exc:
        raise InputError(Problem("--db", f"{target.root}: {exc}: a restore writes only through real folders "
                                         "(refused)")) from exc
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
