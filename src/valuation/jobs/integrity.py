"""What `audit verify` proves, in one place (issue 45, items 1 and 2): the command line's `audit verify`, the
nightly verification job and the restore drill all run `verify_everything`.

- the audit chain, its anchor and seal, and the row seals of the sealed tables (db/audit.py, db/seals.py);
- every stored file any table references exists and is intact (db/backup_files.py, `STORED_FILES`);
- every derived copy of a sealed fact is what its sealed sources give (commission/derived.py).

The chain, the seals and the derived tables are read in one snapshot (a write the service commits meanwhile
is in none of them or in all); the files are immutable and read after it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuation.db.backup_files import FilesCheck


@dataclass(frozen=True)
class Verification:
    chain_ok: bool
    first_bad_id: int | None
    chain_message: str
    head: dict[str, Any] | None
    files: FilesCheck
    derived_ok: bool
    derived_message: str
    derived_rows: int

    @property
    def ok(self) -> bool:
        return self.chain_ok and self.files.ok and self.derived_ok

    @property
    def message(self) -> str:
        """The first failure's message in pt-BR (the chain's, the files', the derived tables'), or every verdict."""
        if not self.chain_ok:
            return self.chain_message
        if not self.derived_ok:
            return self.derived_message
        if not self.files.ok:
            return self.files.message
        return f"{self.chain_message} {self.derived_message} {self.files.message}"


def verify_everything(store: Any) -> Verification:
    """The whole verification of the database `store` holds (a Store)."""
    from valuation.commission import derived
    from valuation.db.audit import chain_head, verify_chain
    from valuation.db.backup_files import verify_files

    with store.snapshot() as snap:          # the head of the chain just verified, not of a later write
        ok, bad, message = verify_chain(snap)
        head = chain_head(snap)
        derived_ok, derived_message, rows = derived.verify(snap) if ok else (True, "", 0)
    files = verify_files(store)             # issue 16; issue 45, item 1: every table's stored files
    return Verification(ok, bad, message, head, files, derived_ok, derived_message, rows)
