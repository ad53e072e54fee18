"""Copying a database for a test: the DuckDB file and the attached files kept beside it
(`<db dir>/files/`, content-addressed), so a copy of the demo shows its photos and reports."""
from __future__ import annotations

import shutil
from pathlib import Path

from valuation.db.blobs import BlobStore


def copy_database(source: Path | str, target: Path | str) -> Path:
    source, target = Path(source), Path(target)
    shutil.copyfile(source, target)
    src_files = BlobStore.for_database(source).root
    if src_files.is_dir():
        dst_files = BlobStore.for_database(target).root
        if dst_files.resolve() != src_files.resolve():
            shutil.copytree(src_files, dst_files, dirs_exist_ok=True)
    return target
