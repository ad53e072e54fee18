"""Reading the audit log for the admin's page: filters, pages, exports, the whole-chain check.

The chain itself (append, anchor, verify, seal) is `valuation.db.audit`; this module only reads,
and only for a user whose role may `read_audit`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core.clock import brasilia, utc_bounds
from valuation.core.errors import InputError, Problem
from valuation.db.access import Principal, require
from valuation.db.audit import VERIFY_BATCH, ChainCheck, chain_check
from valuation.db.paging import check_page

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

MAX_EXPORT_ROWS = 100_000  # an export beyond this is refused: narrow the filters (or use db backup)
_LOG_COLUMNS = 'id, "at", actor, action, entity, entity_id, before_json, after_json, hash'


@dataclass(frozen=True)
class AuditFilter:
    """What the admin narrows the log to: a period of Brasília calendar days (inclusive), the user
    who acted, the kind of object and the action. None means any."""
    start: date | None = None
    end: date | None = None
    actor: str | None = None
    entity: str | None = None
    action: str | None = None


def count_audit(store: Any, user: Principal, *, entity: str | None = None, actor: str | None = None,
                filters: AuditFilter | None = None) -> int:
    require(user, "read_audit")
    where, params = _where(_merge(filters, entity, actor))
    return int(store.scalar(f"SELECT count(*) FROM audit_log{where}", params))


def page_audit(store: Any, user: Principal, *, entity: str | None = None, actor: str | None = None,
               page: int = 1, page_size: int = 50, filters: AuditFilter | None = None) -> pd.DataFrame:
    """Newest first, paginated in SQL (admin only)."""
    require(user, "read_audit")
    check_page(page, page_size)
    where, params = _where(_merge(filters, entity, actor))
    return store.fetch_df(f"SELECT {_LOG_COLUMNS} FROM audit_log{where} ORDER BY id DESC LIMIT ? OFFSET ?",
                          [*params, page_size, (page - 1) * page_size])


def export_audit(store: Any, user: Principal, filters: AuditFilter | None = None) -> pd.DataFrame:
    """Every row matching `filters`, oldest first, for an export (admin only; at most MAX_EXPORT_ROWS)."""
    require(user, "read_audit")
    where, params = _where(filters or AuditFilter())
    n = int(store.scalar(f"SELECT count(*) FROM audit_log{where}", params))
    if n > MAX_EXPORT_ROWS:
        raise InputError(Problem("filters", f"Exportação: {n} registros passam do limite de {MAX_EXPORT_ROWS}; "
                                            f"escolha um período menor ou filtre por usuário, objeto ou ação."))
    return store.fetch_df(f"SELECT {_LOG_COLUMNS} FROM audit_log{where} ORDER BY id", params)


def audit_choices(store: Any, user: Principal) -> dict[str, list[str]]:
    """The values the filters can take: actors, entities and actions present in the log (admin only)."""
    require(user, "read_audit")
    return {col: [r[col] for r in store.fetch(f"SELECT DISTINCT {col} FROM audit_log WHERE {col} IS NOT NULL "
                                              f"ORDER BY {col}")]
            for col in ("actor", "entity", "action")}


def log_period(store: Any, user: Principal) -> tuple[date, date]:
    """The Brasília days of the first and the newest record (today for an empty log; admin only)."""
    require(user, "read_audit")
    row = store.fetch_one('SELECT min("at") AS first, max("at") AS last FROM audit_log')
    today = store.today()
    if row is None or row["first"] is None:
        return today, today
    return brasilia(row["first"]).date(), max(today, brasilia(row["last"]).date())


def check_chain(store: Any, user: Principal, *, progress: Callable[[int, int], None] | None = None,
                batch: int = VERIFY_BATCH) -> ChainCheck:
    """The whole-chain check for the admin's page (admin only), with progress per batch."""
    require(user, "read_audit")
    return chain_check(store, progress, batch)


def _merge(filters: AuditFilter | None, entity: str | None, actor: str | None) -> AuditFilter:
    f = filters or AuditFilter()
    return AuditFilter(start=f.start, end=f.end, actor=actor or f.actor, entity=entity or f.entity, action=f.action)


def _where(f: AuditFilter) -> tuple[str, list[Any]]:
    if f.start is not None and f.end is not None and f.start > f.end:
        raise InputError(Problem("start", "Período: a data inicial é posterior à final."))
    clauses, params = [], []
    for col in ("entity", "actor", "action"):
        value = getattr(f, col)
        if value:
            clauses.append(f"{col} = ?")
            params.append(value)
    since, until = utc_bounds(f.start, f.end)
    if since is not None:
        clauses.append('"at" >= ?')
        params.append(since)
    if until is not None:
        clauses.append('"at" < ?')
        params.append(until)
    return ((" WHERE " + " AND ".join(clauses)) if clauses else ""), params
