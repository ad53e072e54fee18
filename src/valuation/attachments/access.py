"""Who may read and attach which files: the owner row decides (issue 16 §4).

Reading follows the owner through the store's scopes (`valuation.db.access.contract_scope`):

    item            dpc; explorer: items of its own organisation's contracts; commission roles:
                    items under assessment (scope.UNDER_ASSESSMENT)
    deadline_event  dpc; explorer: events of its own contracts
    contract        dpc; explorer: its own contracts
    wreck           dpc only
    (admin: nothing)

Attaching: dpc everything; an explorer photos of its own contracts' items, reports on its own
contracts' deadline events and cost sheets of its own contracts. The commission attaches
nothing. An owner outside the user's scope is "não encontrado", exactly like one that does
not exist: ids of another company's rows reveal nothing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from valuation.attachments.kinds import KINDS_BY_OWNER, OWNER_KINDS, OWNER_LABELS
from valuation.core.errors import AccessDenied, InputError, NotFound, Problem
from valuation.db.access import COMMISSION_ROLES, Principal, contract_scope

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

READERS: tuple[str, ...] = ("dpc", "explorer", *COMMISSION_ROLES)
EXPLORER_KINDS: dict[str, tuple[str, ...]] = {"item": ("photo",), "deadline_event": ("report",),
                                              "contract": ("cost_sheet",)}


def not_found(owner_kind: str, owner_id: object) -> NotFound:
    label = OWNER_LABELS.get(owner_kind, "Registro")
    return NotFound(f"{label} {owner_id} não encontrado.", what=owner_kind, key=owner_id)


def attachment_not_found(attachment_id: object) -> NotFound:
    return NotFound(f"Arquivo anexado {attachment_id} não encontrado.", what="attachment", key=attachment_id)


def require_reader(user: Principal) -> None:
    if user.role not in READERS:
        raise AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite consultar arquivos anexados.",
                           user=user.username, action="read_attachments")


def check_owner_kind(owner_kind: object) -> str:
    if owner_kind not in OWNER_KINDS:
        raise InputError(Problem("owner_kind", "Tipo de registro do anexo desconhecido."))
    return str(owner_kind)


def check_id(value: object, field: str, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(Problem(field, f"{label}: identificador inválido."))
    return value


def owner_ids_sql(user: Principal, owner_kind: str) -> tuple[str, list[Any]]:
    """(SQL selecting the ids of `owner_kind` rows the user may read, params); 'SELECT NULL
    WHERE FALSE' when none."""
    none = "SELECT NULL::BIGINT WHERE FALSE", []
    if user.role == "dpc":
        return {"item": ("SELECT id FROM items", []), "deadline_event": ("SELECT id FROM deadline_events", []),
                "contract": ("SELECT id FROM contracts", []), "wreck": ("SELECT id FROM wrecks", [])}[owner_kind]
    if user.role not in READERS or owner_kind == "wreck":
        return none
    if user.role in COMMISSION_ROLES and owner_kind != "item":
        return none
    scope, params = contract_scope(user, "c")
    if owner_kind == "item":
        return f"SELECT i.id FROM items i JOIN contracts c ON c.id = i.contract_id WHERE {scope}", params
    if owner_kind == "deadline_event":
        return (f"SELECT e.id FROM deadline_events e JOIN contracts c ON c.id = e.contract_id WHERE {scope}",
                params)
    return f"SELECT c.id FROM contracts c WHERE {scope}", params


def readable_sql(user: Principal, alias: str = "a") -> tuple[str, list[Any]]:
    """(boolean SQL over attachments `alias`, params): may the user read this row?"""
    if user.role == "dpc":
        return "TRUE", []
    parts: list[str] = []
    params: list[Any] = []
    for kind in OWNER_KINDS:
        sql, p = owner_ids_sql(user, kind)
        if "WHERE FALSE" in sql:
            continue
        parts.append(f"({alias}.owner_kind = '{kind}' AND {alias}.owner_id IN ({sql}))")
        params += p
    return ("(" + " OR ".join(parts) + ")" if parts else "FALSE"), params


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
    require_reader(user)
    sql, params = owner_ids_sql(user, owner_kind)
    if db.fetch_one(f"SELECT 1 AS ok WHERE ? IN ({sql})", [owner_id, *params]) is None:
        raise not_found(owner_kind, owner_id)


def require_attach(db: Store | Tx, user: Principal, owner_kind: str, owner_id: int, kind: str) -> None:
    """AccessDenied / NotFound / InputError unless `user` may attach a `kind` file to this owner."""
    if owner_kind not in KINDS_BY_OWNER:
        raise InputError(Problem("owner_kind", f"Anexo: dono desconhecido ({str(owner_kind)[:40]})."))
    if kind not in KINDS_BY_OWNER[owner_kind]:
        allowed = ", ".join(KINDS_BY_OWNER[owner_kind])
        raise InputError(Problem("kind", f"Tipo de anexo não cabe em {OWNER_LABELS[owner_kind].lower()}: "
                                         f"use {allowed}."))
    if user.role == "dpc":
        owner_contract(db, owner_kind, owner_id)
        return
    if user.role != "explorer" or kind not in EXPLORER_KINDS.get(owner_kind, ()):
        raise AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite anexar este arquivo.",
                           user=user.username, action=f"attach:{owner_kind}:{kind}")
    row = owner_contract(db, owner_kind, owner_id)
    if row is None or row.get("organisation_id") != user.organisation_id:
        raise not_found(owner_kind, owner_id)
