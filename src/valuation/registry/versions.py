"""Versions of registry records: a correction keeps history, never overwrites.

The choice and its reasons: docs/decisions/001-registry-corrections.md.

A registry record (an office, a company, a responsible party, a wreck, a contract) lives in its own table as its
latest state; `registry_versions` (migration 070, sealed append-only in db/seals.py) holds every state it had:

- version 1, `created`: written with the record by the function that registers it;
- version 1, `found`: for a record registered before this table existed, the state found at its first correction
  (who registered it and when are in the audit log, not here);
- version n + 1, `corrected`: written with each correction — who, when and why (a reason is required).

The write functions of each entity (valuation.registry.wrecks, organisations, owners, offices, contracts) call
`created` and `corrected` inside their own audited transaction, so a version and its record change commit together.
Reading a record's history is checked by the entity's own module (the same right as reading the record; a wreck's
position and free texts are masked there for a reader not cleared for them) — `history` here reads no right.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from valuation.core.errors import InputError, Problem

# the audited transactions that write a version (tests/db/test_audit_tamper.py checks each)
AUDITED_BY = ("registry/owners", "registry/contract_register", "registry/offices", "registry/organisations",
              "registry/wrecks")

ENTITIES: tuple[str, ...] = ("office", "organisation", "owner", "wreck", "contract")
ORIGIN_LABELS: dict[str, str] = {"created": "cadastro", "found": "estado anterior à primeira correção",
                                 "corrected": "correção"}
REASON_MAX = 1000
REASON_LABEL = "Motivo da correção"


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return value


def encode(row: Mapping[str, Any]) -> str:
    """The stored JSON of a record's state: its columns by name (sorted), Decimals and dates as text."""
    return json.dumps({str(k): _plain(v) for k, v in row.items()}, ensure_ascii=False, sort_keys=True)


def checked_reason(reason: object) -> str:
    """The correction's reason, stripped, or InputError naming `reason` (required; one paragraph at most)."""
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        raise InputError(Problem("reason", f"{REASON_LABEL}: obrigatório — diga por que o registro é corrigido."))
    if len(text) > REASON_MAX:
        raise InputError(Problem("reason", f"{REASON_LABEL}: no máximo {REASON_MAX} caracteres."))
    if any(ord(c) < 32 and c not in "\n\t" for c in text) or "\u2028" in text or "\u2029" in text:
        raise InputError(Problem("reason", f"{REASON_LABEL}: contém caracteres de controle."))
    return text


def _insert(tx: Any, entity: str, key: object, version: int, row: Mapping[str, Any], *, origin: str,
            reason: str | None) -> None:
    if entity not in ENTITIES:
        raise ValueError(f"not a registry entity: {entity}")
    tx.execute("INSERT INTO registry_versions (entity, record_key, version, data_json, reason, origin, changed_by, "
               "changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
               [entity, str(key), version, encode(row), reason, origin, tx.actor, tx.store.now()])


def created(tx: Any, entity: str, key: object, row: Mapping[str, Any]) -> None:
    """Version 1 of a record being registered in this transaction (by its actor, now)."""
    _insert(tx, entity, key, 1, row, origin="created", reason=None)


def corrected(tx: Any, entity: str, key: object, before: Mapping[str, Any], after: Mapping[str, Any], *,
              reason: str) -> int:
    """Record a correction made in this transaction (`before` → `after`, the record's columns); returns the new
    version's number. A record without versions (registered before them) first gets `before` as version 1."""
    last = int(tx.scalar("SELECT coalesce(max(version), 0) FROM registry_versions WHERE entity = ? AND "
                         "record_key = ?", [entity, str(key)]))
    if last == 0:
        _insert(tx, entity, key, 1, before, origin="found", reason=None)
        last = 1
    _insert(tx, entity, key, last + 1, after, origin="corrected", reason=reason)
    return last + 1


@dataclass(frozen=True)
class Change:
    field: str
    label: str
    before: Any
    after: Any


@dataclass(frozen=True)
class Version:
    version: int
    origin: str
    origin_label: str
    reason: str | None
    changed_by: str               # the person's name where the login is known
    changed_at: datetime
    data: dict[str, Any]
    changes: tuple[Change, ...]   # what differs from the previous version (empty for version 1)


def history(store: Any, entity: str, key: object, labels: Mapping[str, str], *,
            hidden: Sequence[str] = (), mask: str = "sigilosa") -> list[Version]:
    """Every version of one record, oldest first, each with what changed from the one before. `labels`: the
    fields a person reads (column → pt-BR label); other columns are not compared. `hidden`: fields whose values
    the reader may not see (a wreck's position): their values read `mask`, a change of them still shows."""
    rows = store.fetch("SELECT v.version, v.origin, v.reason, v.data_json, v.changed_at, "
                       "coalesce(u.full_name, v.changed_by) AS changed_by FROM registry_versions v "
                       "LEFT JOIN users u ON u.username = v.changed_by "
                       "WHERE v.entity = ? AND v.record_key = ? ORDER BY v.version", [entity, str(key)])
    out: list[Version] = []
    previous: dict[str, Any] | None = None
    for r in rows:
        data = json.loads(r["data_json"])
        shown = {k: (mask if k in hidden and data.get(k) is not None else data.get(k)) for k in labels}
        changes: list[Change] = []
        if previous is not None:
            for k, label in labels.items():
                if data.get(k) != previous.get(k):
                    changes.append(Change(k, label, mask if k in hidden else previous.get(k),
                                          mask if k in hidden else data.get(k)))
        out.append(Version(int(r["version"]), r["origin"], ORIGIN_LABELS.get(r["origin"], r["origin"]), r["reason"],
                           r["changed_by"], r["changed_at"], shown, tuple(changes)))
        previous = data
    return out


def corrected_since(store: Any, entity: str, keys: Sequence[object], since: datetime) -> list[dict[str, Any]]:
    """The corrections of these records made after `since` (an issued act's instant): entity, record_key,
    version, reason, changed_at — what a statement issued before them says exists (it is never changed)."""
    if not keys:
        return []
    return store.fetch("SELECT entity, record_key, version, reason, changed_at FROM registry_versions "
                       "WHERE entity = ? AND origin = 'corrected' AND record_key IN (SELECT unnest(?::VARCHAR[])) "
                       "AND changed_at > ? ORDER BY changed_at", [entity, [str(k) for k in keys], since])
