"""The stored files in backups, restores and `audit verify` (issue 16 §6; issue 45, item 1).

Every file of the content-addressed store (db/blobs.py) is referenced by a column of some table:
`STORED_FILES` lists them all — an attachment's stored file, display copy and thumbnail, and the signed
revisions of issued documents that were accepted (`document_signatures.file_sha256` of a valid upload), the
kept copies of acts issued once (`issued_copies`, issue 43). The
signed PDFs were in no backup, not restored and not checked (issue 45, item 1: a restore could not serve the
latest signed version, nor accept the next signature); one list now drives the three. A column that holds a
sha256 but names no stored file says why in `NOT_STORED`; tests/db/test_stored_files.py fails on a column of
the schema in neither, and on any value of any table that is the name of a stored file outside the list.

Backup: the digests referenced by `STORED_FILES` are read inside the backup's snapshot transaction
(`referenced_digests`); after it the files are copied — each one checked against its name — into
`<backup>/files/ab/cd/<sha256>`, and the manifest gets `attachment_files` (the name kept for the backups
written before: every stored file): their count, total bytes and the sorted digests.
Files are immutable and never deleted, so copying after the snapshot is consistent.

Restore (`restore_files`): every listed file must be in the backup and match its digest, the
backup holds no other file, and the restored tables reference no digest the list lacks; then
the files are copied into the new database's files folder (a file already there with the
right content is kept). Any problem refuses the restore.

`verify_files(store)`: every file referenced by the database exists and matches its digest; a problem names
the file, the table and the row that reference it.
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


@dataclass(frozen=True)
class FileColumn:
    """A column whose value, in the rows `where` selects, is the sha256 — the name — of a stored file."""
    table: str
    column: str
    label: str                         # pt-BR: what the file is, for the verification message
    where: str = "true"


STORED_FILES: tuple[FileColumn, ...] = (
    FileColumn("attachments", "sha256", "arquivo anexado"),
    FileColumn("attachments", "preview_sha256", "cópia de exibição de foto anexada"),
    FileColumn("attachments", "thumb_sha256", "miniatura de foto anexada"),
    # issue 45, item 1: the accepted signed revisions of issued documents (a refused upload's file is not kept)
    FileColumn("document_signatures", "file_sha256", "versão assinada de documento emitido", "outcome = 'valid'"),
    # issue 43, items 3 and 15: the kept copy of an act issued once, which every later download serves
    FileColumn("issued_copies", "sha256", "cópia registrada de documento emitido"),
    FileColumn("filing_files", "sha256", "arquivo de protocolo (peticionamento)"),
)
# The columns that hold a sha256 but name no stored file, and why (tests/db/test_stored_files.py).
NOT_STORED: dict[tuple[str, str], str] = {
    ("attachments", "original_sha256"): "the bytes as uploaded: kept only when they are the stored file (sha256)",
    ("imports", "sha256"): "the imported spreadsheet is read and not kept",
    ("issued_documents", "sha256"): "the issued bytes: a statement's PDF is in its row; an act issued once is kept "
                                    "under the same digest by issued_copies (listed)",
    ("statements", "pdf_sha256"): "the PDF is the row's own `pdf` column (sealed with it)",
    ("sessions", "token_sha256"): "the hash of a session's token",
    ("calendar_feeds", "token_sha256"): "the hash of a calendar subscription's token",
    ("row_seals", "digest"): "a sealed row's digest (db/seals.py)",
    ("schema_migrations", "sha256"): "the digest of an applied migration's SQL",
    ("signed_upload_refusals", "file_sha256"): "a refused signed upload: its file is not kept",
}


def _tables(cur: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in cur.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND "
                                      "database_name = current_database()").fetchall()}


def _references_sql(cur: duckdb.DuckDBPyConnection, extra: str = "") -> str | None:
    """A UNION ALL of (digest, table, column, row id{extra}) over the STORED_FILES of the tables the database has
    (an older schema may lack one), or None when it has none."""
    have = _tables(cur)
    parts = [f"SELECT {f.column} AS d, '{f.table}' AS tbl, '{f.column}' AS col, id AS row_id{extra} FROM {f.table} "
             f"WHERE {f.column} IS NOT NULL AND ({f.where})" for f in STORED_FILES if f.table in have]
    return " UNION ALL ".join(parts) if parts else None


def referenced_digests(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """Every stored file's digest the database references, sorted (empty for a database without any)."""
    union = _references_sql(cur)
    if union is None:
        return []
    return [r[0] for r in cur.execute(f"SELECT DISTINCT d FROM ({union}) ORDER BY d").fetchall()]


def referenced_by(cur: duckdb.DuckDBPyConnection, digest: str) -> str:
    """Who references `digest`, in pt-BR: '<label> (tabela T, registro N)' of its first reference."""
    labels = {(f.table, f.column): f.label for f in STORED_FILES}
    union = _references_sql(cur)
    row = None if union is None else cur.execute(
        f"SELECT tbl, col, row_id FROM ({union}) WHERE d = ? ORDER BY tbl, row_id LIMIT 1", [digest]).fetchone()
    if row is None:
        return "sem referência"
    return f"{labels[(row[0], row[1])]} (tabela {row[0]}, registro {row[2]})"


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
        raise StoreError("backup recusado: arquivo(s) guardado(s) com problema no disco: " + ", ".join(problems[:10])
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
        problems.append(Problem("--from", f"the restored tables reference the stored file {sha}, which the backup "
                                          "does not hold"))
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
    where: dict[str, str] | None = None      # digest → who references it (the first missing and altered ones)

    @property
    def message(self) -> str:
        if self.ok:
            return f"Arquivos guardados íntegros: {self.checked} conferido(s)."
        where = self.where or {}
        parts = []
        for word, shas in (("ausente(s)", self.missing), ("alterado(s)", self.altered)):
            if shas:
                named = f"{shas[0]}, {where[shas[0]]}" if shas[0] in where else shas[0]
                parts.append(f"{len(shas)} {word} (primeiro: {named})")
        return "Arquivos guardados com problema: " + "; ".join(parts) + "."


def verify_files(store: Any) -> FilesCheck:
    """Every stored file the database references (`STORED_FILES`) exists and matches its sha256."""
    cur = store.cursor()
    try:
        digests = referenced_digests(cur)
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
        where = {sha: referenced_by(cur, sha) for sha in (missing[:1] + altered[:1])}
    finally:
        cur.close()
    return FilesCheck(not missing and not altered, len(digests), tuple(missing), tuple(altered), where)


def refuse(problems: list[Problem]) -> None:
    if problems:
        raise InputError(problems)
