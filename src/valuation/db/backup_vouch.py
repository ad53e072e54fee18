"""What a backup vouches for, table by table (issue 24, item 1).

A backup folder can be rewritten by whoever can write it, manifest included. What a restore may trust:

- `sessions`, `login_throttle` (ephemeral security state, `EPHEMERAL_TABLES`): never written into a
  backup and never loaded from one — a restored database starts with no sessions and no throttles; a
  backup that lists them has them ignored (counted in the restore summary's `not_restored`);
- `audit_log`, `audit_head` (the chain): its hashes, its anchor and, with VALUATION_AUDIT_KEY, the
  anchor's HMAC seal are verified;
- the row-sealed tables (`db/seals.py`: issued statements with their content, decisions, assessments,
  users): every row re-hashed against its seal, the seals against the chain;
- every table but the ephemeral ones — wrecks and their positions, items, organisations, contracts,
  deadlines, calendar feeds, job runs, the chain and the sealed tables too — is covered by the vouch.

The **vouch** is taken in the backup's snapshot: the chain's head (id, hash, row count) and one
sha256 over every table's row count and content digest (`vouch_digest`: all tables but the
ephemeral ones), HMAC-SHA256-sealed under VALUATION_AUDIT_KEY when the backing-up process holds it.
It goes into the manifest, and the backup is then recorded in the live chain by a `backup_taken`
row carrying the same digest (`record`). A restore (`check`) recomputes the digest from the restored
tables and requires the restored chain's head; with the key configured it also requires the seal.
A backup without a vouch (formats 1 and 2), or whose vouch does not cover what is restored, is
refused unless --accept-broken-chain, which the restored chain then reports forever.

What the vouch cannot do: without the key, whoever can rewrite the folder can also recompute the vouch
(as they could re-hash the chain); compare its digest, printed by `db backup` and `db restore`, with
the `backup_taken` row of the live chain, or with a copy kept elsewhere (SECURITY.md).
"""
from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

EPHEMERAL_TABLES = ("login_throttle", "sessions")
VOUCH_ACTION = "backup_taken"
VOUCH_ENTITY = "backup"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_SEALED_KEYS = ("format", "head_id", "head_hash", "chain_rows", "digest")


def vouch_digest(tables: Mapping[str, Any]) -> str:
    """One sha256 over `table rows digest` lines of every table but the ephemeral ones, sorted."""
    lines = sorted(f"{t} {e['rows']} {e['digest']}" for t, e in tables.items()
                   if t not in EPHEMERAL_TABLES and isinstance(e, Mapping))
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _seal(key: bytes, vouch: Mapping[str, Any]) -> str:
    from valuation.db.audit import canonical_json

    message = "valuation-backup-vouch:" + canonical_json({k: vouch.get(k) for k in _SEALED_KEYS})
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()


def make(fmt: str, tables: Mapping[str, Any], audit_state: Mapping[str, Any]) -> dict[str, Any]:
    """The vouch of a backup whose snapshot holds `tables` (the manifest's entries) and `audit_state`."""
    from valuation.db.audit import audit_key

    vouch: dict[str, Any] = {"format": fmt, "head_id": audit_state.get("head_id"),
                             "head_hash": audit_state.get("head_hash"), "chain_rows": audit_state.get("rows"),
                             "digest": vouch_digest(tables)}
    key = audit_key()
    vouch["seal"] = None if key is None else _seal(key, vouch)
    return vouch


def check(vouch: Any, restored: Mapping[str, Any], audit_state: Mapping[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """(why the restored data is not what `vouch` covers, or None; a summary for the restore's output).
    `restored`: the restored tables' {rows, digest}; `audit_state`: the restored chain's head."""
    from valuation.db.audit import AUDIT_KEY_ENV, audit_key

    if not isinstance(vouch, dict):
        return ("this backup has no vouch (it was written before backups were vouched, or the vouch was "
                "removed): its tables are not covered by anything the audit chain or its key can check."), {}
    summary = {"head_id": vouch.get("head_id"), "digest": vouch.get("digest"), "seal": "absent"}
    if not isinstance(vouch.get("digest"), str) or not _HEX64.match(vouch["digest"]):
        return "the backup's vouch is malformed.", summary
    if (vouch.get("head_id"), vouch.get("head_hash"), vouch.get("chain_rows")) != \
            (audit_state.get("head_id"), audit_state.get("head_hash"), audit_state.get("rows")):
        return ("the backup's vouch was taken at another audit head than the restored chain's: the chain or "
                "the vouch was changed after the backup."), summary
    if not hmac.compare_digest(vouch["digest"], vouch_digest(restored)):
        return ("the restored tables are not the ones the backup's vouch covers (the digest of every table "
                "at backup time): a table was changed, or a row planted, after the backup was taken."), summary
    key = audit_key()
    seal = vouch.get("seal")
    if key is None:
        summary["seal"] = "not checked (no key)" if seal else "absent"
        return None, summary
    if not isinstance(seal, str) or not seal:
        return (f"the backup's vouch has no seal, but {AUDIT_KEY_ENV} is set: it was written without the key "
                "or its seal was removed."), summary
    if not hmac.compare_digest(seal, _seal(key, vouch)):
        return (f"the backup's vouch seal does not match under {AUDIT_KEY_ENV}: the vouch was rewritten by "
                "someone without the key (or the key is another)."), summary
    summary["seal"] = "verified"
    return None, summary


def record(store: Any, vouch: Mapping[str, Any], audit_state: Mapping[str, Any], dest: Path, actor: str) -> bool:
    """Record the backup in the live chain (`backup_taken`, the vouch's head and digest): only on an
    intact chain whose anchor this process may extend — a backup of a damaged file (evidence) never
    writes into it. True when recorded."""
    from valuation.core.errors import StoreError
    from valuation.db import audit

    if getattr(store, "read_only", True) or not audit_state.get("ok"):
        return False
    if not audit.may_extend(store):
        return False
    after = {"head_id": vouch.get("head_id"), "digest": vouch.get("digest"), "sealed": bool(vouch.get("seal"))}
    try:
        store.write(actor, lambda tx: tx.audit("backup_taken", "backup", dest.name, None, after))   # VOUCH_ACTION
    except StoreError:
        return False
    return True


def find_record(store: Any, digest: str) -> dict[str, Any] | None:
    """The live chain's `backup_taken` row whose vouch digest is `digest` (id, at, actor, folder), or None:
    a restore drill proves with it that a backup is the one this database recorded."""
    rows = store.fetch("SELECT id, \"at\", actor, entity_id AS folder FROM audit_log WHERE action = ? AND entity = ? "
                       "AND json_extract_string(after_json, '$.digest') = ? ORDER BY id DESC LIMIT 1",
                       [VOUCH_ACTION, VOUCH_ENTITY, digest])
    return rows[0] if rows else None
