"""The owner row of an attached file: checks of its kind and id, and the lookups that apply the
access rules of `valuation.db.access` (who reads and attaches what: `attachment_owner_scope`,
`attachment_scope`, `may_attach`; issue 16 §4).

An owner outside the user's scope is "não encontrado", exactly like one that does not exist: ids of
another company's rows reveal nothing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from valuation.attachments.kinds import KINDS_BY_OWNER, OWNER_KINDS, OWNER_LABELS
from valuation.core.errors import InputError, NotFound, Problem
from valuation.db.access import (
    Principal,
    allowed,
    attachment_owner_scope,
    deny,
    may_attach,
    require,
    require_own,
)

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx


def not_found(owner_kind: str, owner_id: object) -> NotFound:
    label = OWNER_LABELS.get(owner_kind, "Registro")
    return NotFound(f"{label} {owner_id} não encontrado.", what=owner_kind, key=owner_id)


def attachment_not_found(attachment_id: object) -> NotFound:
    return NotFound(f"Arquivo anexado {attachment_id} não encontrado.", what="attachment", key=attachment_id)


def check_owner_kind(owner_kind: object) -> str:
    if owner_kind not in OWNER_KINDS:
        raise InputError(Problem("owner_kind", "Tipo de registro do anexo desconhecido."))
    return str(owner_kind)


def check_id(value: object, field: str, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(Problem(field, f"{label}: identificador inválido."))
    return value


def owner_contract(db: Store | Tx, owner_kind: str, owner_id: int) -> dict[str, Any] | None:
    """The owner row's contract (id, organisation_id) — None for a wreck; NotFound when the
    owner does not exist (or, for an event, has no contract and the caller is not dpc)."""
    if owner_kind == "wreck":
        if db.fetch_one("SELECT id FROM wrecks WHERE id = ?", [owner_id]) is None:
            raise not_found(owner_kind, owner_id)
        return None
    sql = {"item": "SELECT c.id, c.organisation_id FROM items i JOIN contracts c ON c.id = i.contract_id "
                   "WHERE i.id = ?",
           "deadline_event": "SELECT c.id, c.organisation_id FROM deadline_events e "
                             "LEFT JOIN contracts c ON c.id = e.contract_id WHERE e.id = ?",
           "contract": "SELECT c.id, c.organisation_id FROM contracts c WHERE c.id = ?"}[owner_kind]
    row = db.fetch_one(sql, [owner_id])
    if row is None:
        raise not_found(owner_kind, owner_id)
    return row


def require_readable_owner(db: Store | Tx, user: Principal, owner_kind: str, owner_id: int) -> None:
    """NotFound unless the owner exists and the user may read its files."""
    require(user, "read_attachments")
    sql, params = attachment_owner_scope(user, owner_kind)
    if db.fetch_one(f"SELECT 1 AS ok WHERE ? IN ({sql})", [owner_id, *params]) is None:
        raise not_found(owner_kind, owner_id)


def require_attach(db: Store | Tx, user: Principal, owner_kind: str, owner_id: int, kind: str) -> None:
    """AccessDenied / NotFound / InputError unless `user` may attach a `kind` file to this owner."""
    if owner_kind not in KINDS_BY_OWNER:
        raise InputError(Problem("owner_kind", f"Anexo: dono desconhecido ({str(owner_kind)[:40]})."))
    if kind not in KINDS_BY_OWNER[owner_kind]:
        kinds = ", ".join(KINDS_BY_OWNER[owner_kind])
        raise InputError(Problem("kind", f"Tipo de anexo não cabe em {OWNER_LABELS[owner_kind].lower()}: "
                                         f"use {kinds}."))
    if allowed(user, "attach_any_file"):
        owner_contract(db, owner_kind, owner_id)
        sql, params = attachment_owner_scope(user, owner_kind)      # an office officer: its office's rows
        if db.fetch_one(f"SELECT 1 AS ok WHERE ? IN ({sql})", [owner_id, *params]) is None:
            raise not_found(owner_kind, owner_id)
        return
    if not may_attach(user, owner_kind, kind):
        deny(user, "attach_files")
    row = owner_contract(db, owner_kind, owner_id)
    require_own(user, None if row is None else row.get("organisation_id"), not_found(owner_kind, owner_id))
