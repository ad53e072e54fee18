"""Content-addressed file storage beside the database: `<db dir>/files/ab/cd/<sha256>`.

A file's name is the sha256 of its bytes, so a file is written once and never changed (two
uploads of the same bytes share one file) and every read can check what it returns. Files
are first written to a staging folder (`files/.staging/<random>/`), checked, and only moved
into place by `Staging.publish()` when the database rows that reference them are being
committed; a refused upload leaves nothing behind (`Staging.discard()`). A crash between the
move and the commit leaves an unreferenced file (harmless); never a reference without its
file. Nothing here ever deletes a published file.

The folder is not served by the web server: files reach a user only through
`valuation.attachments.records.open_attachment`, which takes the user.
"""
from __future__ import annotations

import hashlib
import re
import secrets
import shutil
from pathlib import Path

from valuation.core.errors import StoreError
from valuation.db import safe_files

FILES_DIR = "files"
STAGING_DIR = ".staging"
_SHA = re.compile(r"^[0-9a-f]{64}$")
_CHUNK = 1 << 20


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def files_root(db_path: str | Path) -> Path:
    """The folder of the attached files of the database at `db_path`."""
    text = str(db_path)
    if text == ":memory:" or not text:
        raise StoreError("anexos exigem um banco de dados em arquivo (não em memória)")
    return Path(text).resolve().parent / FILES_DIR


def blob_path(root: Path, sha: str) -> Path:
    """`root/ab/cd/<sha>`; refuses anything that is not a sha256 in hex (no path from outside)."""
    if not isinstance(sha, str) or not _SHA.match(sha):
        raise StoreError("identificador de arquivo inválido")
    return root / sha[:2] / sha[2:4] / sha


class BlobStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    @classmethod
    def for_database(cls, db_path: str | Path) -> BlobStore:
        return cls(files_root(db_path))

    def path(self, sha: str) -> Path:
        return blob_path(self.root, sha)

    def exists(self, sha: str) -> bool:
        return self.path(sha).is_file()

    def read(self, sha: str) -> bytes:
        """The bytes of `sha`, checked against their name (StoreError when missing or altered)."""
        path = self.path(sha)
        try:
            data = path.read_bytes()
        except FileNotFoundError as exc:
            raise StoreError(f"arquivo anexado ausente no disco ({sha[:12]}…): restaure-o do backup") from exc
        except OSError as exc:
            raise StoreError(f"arquivo anexado ilegível ({sha[:12]}…): {exc.strerror or exc}") from exc
        if sha256_hex(data) != sha:
            raise StoreError(f"arquivo anexado alterado no disco ({sha[:12]}…): o conteúdo não confere com o "
                             "sha256 registrado; restaure-o do backup")
        return data

    def check(self, sha: str) -> str | None:
        """None when the file of `sha` is there and intact; else 'missing' or 'altered'."""
        path = self.path(sha)
        if not path.is_file():
            return "missing"
        return None if file_sha256(path) == sha else "altered"

    def staging(self) -> Staging:
        return Staging(self)

    def place(self, sha: str, source: Path, *, mode: int = safe_files.FILE_MODE) -> int:
        """Put a copy of the regular file `source` (whose sha256 must be `sha`, checked while it is
        copied) at its place; an intact file already there is kept, an altered one is repaired.
        Never a hard link (issue 24, item 4: a backup sharing inodes with the live store is damaged
        with it) and never through a symbolic link, at the source or in this folder (item 2): the
        folders are created level by level with explicit modes. Returns the file's size."""
        final = blob_path(self.root, sha)
        safe_files.make_dirs(self.root, (sha[:2], sha[2:4]))
        if safe_files.intact(final, sha):
            return final.stat().st_size
        return safe_files.copy_checked(source, final, sha, mode=mode)


class Staging:
    """Files written for one upload, published together or discarded together."""

    def __init__(self, blobs: BlobStore):
        self.blobs = blobs
        self.dir = blobs.root / STAGING_DIR / secrets.token_hex(12)
        self.files: dict[str, Path] = {}

    def put(self, data: bytes) -> str:
        sha = sha256_hex(data)
        if sha not in self.files:
            safe_files.make_dirs(self.blobs.root, (STAGING_DIR, self.dir.name))   # 0700 each (issue 45, item 14)
            path = self.dir / sha
            path.write_bytes(data)            # synced when published (`BlobStore.place`)
            self.files[sha] = path
        return sha

    def publish(self) -> None:
        for sha, path in self.files.items():
            self.blobs.place(sha, path)

    def discard(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
        self.files = {}

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()
