"""Annulment of a record made by mistake (issue 42 item 5; migration 080; docs/decisions/142-annulment.md).

A step or event of the administrative process recorded by mistake is annulled, never deleted nor changed: a row of
`annulments` (record_table, record_id, reason, who, when) says so, and every reader of the annulled record's table
leaves it out through ONE predicate, `not_annulled` — so the deadlines it started are computed again without it —
while the record's history shows it with its annulment (`annulments_of`). The Administration must annul its own
acts when illegal (Lei 9.784/1999 art. 53), with the reason written (art. 50).

    ANNULLABLE                                 the tables whose rows may be annulled → pt-BR name of a row
    not_annulled(table, alias) -> SQL          predicate: the row `alias` of `table` is not annulled
    annulments_of(db, table, ids) -> {id: row} the annulments of those rows (reason, annulled_by, annulled_at)
    reason_text(raw) -> str                    the written reason, bounded, one line (InputError names the field)
    annul(tx, actor, table, record_id, reason, …) -> id   the annulment, once per record, audited in the same write

Who may annul which record is decided by the capability that owns the table, through `db.access`
(`annul_records` and the table's own recording right, in the record's scope); this module knows no capability.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from valuation.core.errors import ConflictError, InputError, Problem
from valuation.core.forms import Form
from valuation.core.money import format_date_br

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

# table → how one of its rows is named to a person (pt-BR), and the audit action of its annulment
ANNULLABLE: dict[str, str] = {"deadline_events": "Evento de prazo", "request_steps": "Etapa de requerimento",
                              "appeal_steps": "Etapa de recurso"}
ACTIONS: dict[str, str] = {"deadline_events": "annul_deadline_event", "request_steps": "annul_request_step",
                           "appeal_steps": "annul_appeal_step"}
REASON_LABEL = "Motivo da anulação"
MIN_REASON, MAX_REASON = 5, 500
FIELDS = ("reason",)


def not_annulled(table: str, alias: str) -> str:
    """SQL predicate: the row `alias` of `table` has no annulment (the one definition every reader uses)."""
    if table not in ANNULLABLE:
        raise ValueError(f"not an annullable table: {table}")
    return (f"NOT EXISTS (SELECT 1 FROM annulments an_ WHERE an_.record_table = '{table}' "
            f"AND an_.record_id = {alias}.id)")


def annulments_of(db: Store | Tx, table: str, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """record id → its annulment (id, reason, annulled_by, annulled_by_name — the agent's name, who the act states
    as its author —, annulled_at), for those of `ids` that have one."""
    wanted = [int(i) for i in ids]
    if not wanted:
        return {}
    return {int(r["record_id"]): r for r in db.fetch(
        "SELECT a.id, a.record_id, a.reason, a.annulled_by, coalesce(u.full_name, a.annulled_by) AS annulled_by_name, "
        "a.annulled_at FROM annulments a LEFT JOIN users u ON u.username = a.annulled_by WHERE a.record_table = ? "
        "AND a.record_id IN (SELECT UNNEST(?))", [table, wanted])}


def annulment_text(annulment: Mapping[str, Any]) -> str:
    """How a record's annulment reads beside it (pt-BR): 'Anulado em dd/mm/aaaa por <name>: <reason>'."""
    return (f"Anulado em {format_date_br(annulment['annulled_at'].date())} por {annulment['annulled_by_name']}: "
            f"{annulment['reason']}")


def reason_text(raw: object) -> str:
    """The written reason (Lei 9.784/1999 art. 50): required, MIN_REASON to MAX_REASON characters, one line."""
    f = Form({"reason": raw}, allowed=FIELDS)
    text = f.text("reason", REASON_LABEL, max_len=MAX_REASON, multiline=False)
    if text is not None and len(text) < MIN_REASON:
        f.fail("reason", f"{REASON_LABEL}: diga por que o registro é anulado (ao menos {MIN_REASON} caracteres).")
    f.done()
    assert text is not None
    return text


def refusal_if_annulled(db: Store | Tx, table: str, record_id: int) -> str | None:
    """The pt-BR refusal when the record is annulled already (who, when, why), else None."""
    done = annulments_of(db, table, [record_id]).get(int(record_id))
    if done is None:
        return None
    return (f"{ANNULLABLE[table]} nº {record_id}: já anulado em {format_date_br(done['annulled_at'].date())} por "
            f"{done['annulled_by']} ({done['reason']}); um registro é anulado uma só vez.")


def annul(tx: Tx, actor: str, table: str, record_id: int, reason: str, *, entity: str, entity_id: object,
          before: Mapping[str, Any], now: Any) -> int:
    """Annul the record (once: ConflictError names who annulled it already), audited as `ACTIONS[table]` on
    (`entity`, `entity_id`) with the record as it was (`before`); returns the annulment's id. The caller has
    checked the user's right and scope and validated `reason` (`reason_text`)."""
    refused = refusal_if_annulled(tx, table, record_id)
    if refused is not None:
        raise ConflictError(refused)
    if not MIN_REASON <= len(reason) <= MAX_REASON:
        raise InputError(Problem("reason", f"{REASON_LABEL}: de {MIN_REASON} a {MAX_REASON} caracteres."))
    new_id = int(tx.scalar(
        "INSERT INTO annulments (record_table, record_id, reason, annulled_by, annulled_at) VALUES (?, ?, ?, ?, ?) "
        "RETURNING id", [table, int(record_id), reason, actor, now]))
    tx.audit(ACTIONS[table], entity, entity_id, dict(before),
             {"annulment_id": new_id, "reason": reason})
    return new_id
