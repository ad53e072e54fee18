"""The nightly audit-chain check and what /saude reads of the backup folder (the backups themselves:
jobs/backups.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from valuation.core.errors import ValuationError


class JobFailed(ValuationError):
    """A job ran and found something wrong (the message says what, in Portuguese)."""


def partial_copies(backup_dir: Path, db_path: str | Path, mirror: Path | None = None) -> dict[str, int]:
    """For /saude (issue 24, item 15): partial copies of killed backups, restores and drills removed by
    this process, and those left now in the backup folder, its mirror, beside the database and in the folders
    its backups noted (issue 45, item 13) — stale or running."""
    from valuation.db import leftovers

    return leftovers.census(backup_dir, Path(db_path).resolve().parent, *(() if mirror is None else (mirror,)),
                            db_path=db_path)


def verify_audit(store: Any) -> str:
    """The nightly verification: what `audit verify` proves (jobs/integrity.py) — the chain and the row seals,
    every stored file, the derived tables."""
    from valuation.jobs.integrity import verify_everything

    v = verify_everything(store)
    if not v.chain_ok:
        where = f" a partir do registro {v.first_bad_id}" if v.first_bad_id is not None else ""
        raise JobFailed(f"A cadeia de auditoria não confere{where}: {v.chain_message}")
    if not v.ok:
        raise JobFailed(f"A verificação de auditoria falha: {v.message}")
    return (f"Cadeia de auditoria íntegra ({0 if v.head is None else int(v.head['id'])} registros); "
            f"{v.files.checked} arquivo(s) guardado(s) e {v.derived_rows} linha(s) derivada(s) conferidos.")
