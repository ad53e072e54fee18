"""The nightly maintenance jobs: a dated backup (keeping the newest N) and the audit-chain check."""
from __future__ import annotations

import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from valuation.core.errors import ValuationError

DATED = re.compile(r"^\d{4}-\d{2}-\d{2}(-\d{6})?$")


class JobFailed(ValuationError):
    """A job ran and found something wrong (the message says what, in Portuguese)."""


def dated_backup(store: Any, backup_dir: Path, *, keep: int, local_now: datetime) -> str:
    """`db backup` into backup_dir/AAAA-MM-DD (a second run that day adds -HHMMSS); keeps the newest `keep`."""
    from valuation.db.backup import backup

    backup_dir.mkdir(parents=True, exist_ok=True)
    dest = backup_dir / f"{local_now:%Y-%m-%d}"
    if dest.exists():
        dest = backup_dir / f"{local_now:%Y-%m-%d-%H%M%S}"
    manifest = backup(store, dest, actor="agenda")
    removed = prune(backup_dir, keep)
    rows = sum(t["rows"] for t in manifest["tables"].values())
    return (f"Cópia em {dest} ({len(manifest['tables'])} tabelas, {rows} linhas); "
            f"{len(removed)} cópia{'s' if len(removed) != 1 else ''} antiga{'s' if len(removed) != 1 else ''} "
            f"removida{'s' if len(removed) != 1 else ''}.")


def prune(backup_dir: Path, keep: int) -> list[Path]:
    """Remove the oldest dated backups beyond `keep` (only folders this job names and that hold a manifest)."""
    found = sorted(p for p in backup_dir.iterdir()
                   if p.is_dir() and DATED.match(p.name) and (p / "manifest.json").is_file())
    old = found[:-keep] if keep > 0 else found
    for p in old:
        shutil.rmtree(p)
    return old


def partial_copies(backup_dir: Path, db_path: str | Path) -> dict[str, int]:
    """For /saude (issue 24, item 15): partial copies of killed backups and restores removed by this
    process, and those left now in the backup folder and beside the database (stale or running)."""
    from valuation.db import leftovers

    return leftovers.census(backup_dir, Path(db_path).resolve().parent)


def verify_audit(store: Any) -> str:
    from valuation.db.audit import chain_head, verify_chain

    ok, bad, message = verify_chain(store)
    if not ok:
        where = f" a partir do registro {bad}" if bad is not None else ""
        raise JobFailed(f"A cadeia de auditoria não confere{where}: {message}")
    head = chain_head(store)
    return f"Cadeia de auditoria íntegra ({0 if head is None else int(head['id'])} registros)."
