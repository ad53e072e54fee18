"""Reading partition statements (issue 5): the list, one statement with its lines and items,
its PDF and XLSX.

Access (the rule that stops an explorer reading another company's statement): dpc reads every
statement, drafts included (`read_statement_drafts`); an explorer reads only the ISSUED
statements of its own organisation (`read_statements` + `access.contract_scope`) — any other
statement is "not found"; the other roles are refused.
"""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.authenticity import registry
from valuation.core import clock, nup
from valuation.core.errors import (
    NotFound,
)
from valuation.core.money import format_date_br
from valuation.core.statuses import STATEMENT_ISSUED
from valuation.db import access
from valuation.db.access import Principal, require
from valuation.db.paging import MAX_PAGE_SIZE, check_page
from valuation.partition.documents import (
    PDF_ITEM_LIMIT,
    StatementDoc,
    StatementItem,
    StatementLine,
    StatementSurveyLine,
    render_pdf,
    render_xlsx,
)
from valuation.partition.terms import TERMS_KINDS

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

    Db = Store | Tx


# -- reading statements ------------------------------------------------------------------------
def _readable(db: Db, user: Principal, statement_id: int) -> dict[str, Any]:
    """The statement's head row if `user` may read it: dpc any; explorer only ISSUED ones of
    its own organisation (anything else is 'not found')."""
    require(user, "read_statements")
    row = db.fetch_one("SELECT s.id, s.status, c.organisation_id, c.office_code FROM statements s JOIN contracts c "
                       "ON c.id = s.contract_id WHERE s.id = ?", [statement_id]) \
        if isinstance(statement_id, int) and not isinstance(statement_id, bool) else None
    if row is None or not access.organisation_cleared(user, row["organisation_id"], row["office_code"]) or (
            row["status"] != STATEMENT_ISSUED and not access.allowed(user, "read_statement_drafts")):
        raise NotFound(f"Demonstrativo {statement_id} não encontrado.", what="statement", key=statement_id)
    return row


_HEAD_COLS = ("s.id, s.contract_id, s.status, s.number, s.version, s.supersedes, s.correction_reason, s.as_of, "
              "s.cancelled, s.terms_json, s.gross, s.net, s.warnings_json, s.blockers_json, s.pdf_sha256, "
              "s.created_by, s.created_at")


def load_statement(db: Db, statement_id: int, *, item_limit: int) -> StatementDoc:
    """The stored statement `statement_id` with its lines, survey lines and first `item_limit` items
    (NotFound when there is none). No access check: `get_statement` checks for a user; `statements`
    reads the draft it issues.

    The amounts are the row's own (`statements.gross`, `.net`, the lines' `amount`): written once, when
    the draft is stored (`statements.create_draft`: `statement_lines.build_statement` over
    `statements.gather_inputs`, i.e. `rules.partition` over the SQL sums of `pools.aggregates`), and
    copied unchanged into the issued row."""
    h = db.fetch_one(
        f"SELECT {_HEAD_COLS}, c.code AS contract_code, c.kind AS contract_kind, "
        "p.number || ' v' || p.version AS supersedes_label, "
        "(SELECT g.nup FROM process_numbers g WHERE g.subject = 'statement' AND g.subject_id = s.id) AS nup, "
        "(SELECT u.full_name FROM users u WHERE u.username = s.created_by) AS issuer_name, "
        "(SELECT n.number || ' v' || n.version FROM statements n WHERE n.supersedes = s.id LIMIT 1) AS superseded_by "
        "FROM statements s JOIN contracts c ON c.id = s.contract_id LEFT JOIN statements p ON p.id = s.supersedes "
        "WHERE s.id = ?", [statement_id])
    if h is None:
        raise NotFound(f"Demonstrativo {statement_id} não encontrado.", what="statement", key=statement_id)
    terms = json.loads(h["terms_json"])
    snap = terms.get("contract", {})
    lines = tuple(StatementLine(r["line_no"], r["section"], r["key"], r["label"], r["amount"], r["detail"], r["basis"])
                  for r in db.fetch("SELECT * FROM statement_lines WHERE statement_id = ? ORDER BY line_no",
                                    [statement_id]))
    survey = tuple(StatementSurveyLine(r["line_no"], r["survey_contract"], r["line"], r["planned"], r["actual"],
                                       r["approved_overrun"], r["overrun_reason"], r["accepted"], r["variance"])
                   for r in db.fetch("SELECT * FROM statement_survey_lines WHERE statement_id = ? ORDER BY line_no",
                                     [statement_id]))
    agg = db.fetch_one("SELECT count(*) AS n, coalesce(sum(value_brl), 0) AS v FROM statement_items "
                       "WHERE statement_id = ?", [statement_id]) or {"n": 0, "v": Decimal(0)}
    items = _items(db, statement_id, item_limit, 0)
    return StatementDoc(
        id=int(h["id"]), status=h["status"], number=h["number"], version=h["version"],
        supersedes_label=h["supersedes_label"], correction_reason=h["correction_reason"],
        contract_code=snap.get("code", h["contract_code"]), contract_act=snap.get("act"),
        contract_kind=snap.get("kind", h["contract_kind"]), contract_status=snap.get("status", "—"),
        organisation_name=snap.get("organisation", "—"), wreck_code=snap.get("wreck_code", "—"),
        wreck_name=snap.get("wreck_name", "—"), surveyor_name=snap.get("surveyor"), as_of=h["as_of"],
        created_at=h["created_at"], created_by=h["created_by"], cancelled=bool(h["cancelled"]), terms=terms,
        net=h["net"], gross=h["gross"], lines=lines, survey_lines=survey, items=items, items_total=int(agg["n"]),
        items_value=Decimal(agg["v"]).quantize(Decimal("0.01")),
        warnings=tuple(json.loads(h["warnings_json"])), blockers=tuple(json.loads(h["blockers_json"])),
        pdf_sha256=h["pdf_sha256"], superseded_by=h["superseded_by"], issuer_name=h["issuer_name"],
        nup=nup.format_nup(h["nup"]) if h["nup"] else None)


def _items(db: Db, statement_id: int, limit: int, offset: int) -> tuple[StatementItem, ...]:
    rows = db.fetch("SELECT si.item_id, i.item_code, i.description, si.grp, si.significance, si.value_brl "
                    "FROM statement_items si JOIN items i ON i.id = si.item_id WHERE si.statement_id = ? "
                    "ORDER BY si.value_brl DESC, i.item_code LIMIT ? OFFSET ?", [statement_id, limit, offset])
    return tuple(StatementItem(int(r["item_id"]), r["item_code"], r["description"], r["grp"], r["significance"],
                               r["value_brl"]) for r in rows)


def list_statements(store: Store, user: Principal, code: str | None = None) -> pd.DataFrame:
    """Statements the user may read, newest first: dpc all (drafts too); an explorer only the
    issued statements of its own organisation. Columns: id, contract_code, status, label,
    number, version, as_of, net, created_at, created_by, superseded (a later version exists), nup ('—': none)."""
    require(user, "read_statements")
    scope, scope_params = access.contract_scope(user, "c")
    where: list[str] = [scope]
    params: list[Any] = list(scope_params)
    if not access.allowed(user, "read_statement_drafts"):
        where.append(f"s.status = '{STATEMENT_ISSUED}'")
    if code:
        where.append("c.code = ?")
        params.append(code)
    df = store.fetch_df(
        "SELECT s.id, c.code AS contract_code, o.name AS organisation_name, s.status, "
        "(SELECT g.nup FROM process_numbers g WHERE g.subject = 'statement' AND g.subject_id = s.id) AS nup, "
        f"CASE WHEN s.status = '{STATEMENT_ISSUED}' THEN s.number || ' v' || s.version "
        "ELSE 'Rascunho nº ' || s.id END AS label, "
        "s.number, s.version, s.as_of, s.gross, s.net, s.created_at, s.created_by, "
        "EXISTS (SELECT 1 FROM statements n WHERE n.supersedes = s.id) AS superseded, "
        "json_array_length(s.blockers_json) AS blockers "
        "FROM statements s JOIN contracts c ON c.id = s.contract_id JOIN organisations o ON o.id = c.organisation_id "
        f"WHERE {' AND '.join(where)} ORDER BY s.id DESC", params)
    df["nup"] = [nup.format_nup(v) if isinstance(v, str) else "—" for v in df["nup"]]
    return df


def statement_contracts(store: Store, user: Principal) -> pd.DataFrame:
    """Contracts whose statements the user works with: dpc every exploration/removal contract
    (with whether terms are recorded and its decided items); explorer its own contracts that
    have an issued statement."""
    require(user, "read_statements")
    if not access.allowed(user, "issue_statements"):
        own, params = access.contract_scope(user, "c")      # its company's, or its office's
        return store.fetch_df(
            "SELECT DISTINCT c.code, w.name AS wreck_name FROM statements s JOIN contracts c ON c.id = s.contract_id "
            f"JOIN wrecks w ON w.id = c.wreck_id WHERE s.status = '{STATEMENT_ISSUED}' AND {own} ORDER BY c.code",
            params)
    return store.fetch_df(
        "SELECT c.code, o.name AS organisation_name, w.name AS wreck_name, c.status, c.modality, "
        "(SELECT count(*) FROM item_valuation iv WHERE iv.contract_id = c.id) AS decided, "
        f"(SELECT count(*) FROM statements s WHERE s.contract_id = c.id AND s.status = '{STATEMENT_ISSUED}') AS issued "
        "FROM contracts c JOIN organisations o ON o.id = c.organisation_id JOIN wrecks w ON w.id = c.wreck_id "
        f"WHERE c.kind IN {tuple(TERMS_KINDS)} ORDER BY c.code")


def ready_contract(contracts: pd.DataFrame) -> str | None:
    """Where the statement and choice pages open: the first of `statement_contracts` (dpc) whose
    terms are recorded and which has decided items; None when there is none."""
    for code, modality, decided in zip(contracts["code"], contracts["modality"], contracts["decided"]):
        if isinstance(modality, str) and decided:
            return str(code)
    return None


def next_version(store: Store, user: Principal, code: str) -> tuple[str, int] | None:
    """(the issued version in force, e.g. 'DP-2026/0001 v1', and the version a new issue gets) for
    contract `code`; None while nothing is issued (the next issue is then v1 of a new number)."""
    require(user, "issue_statements")
    row = store.fetch_one("SELECT s.number, s.version FROM statements s JOIN contracts c ON c.id = s.contract_id "
                          "WHERE c.code = ? AND s.status = ? ORDER BY s.version DESC LIMIT 1", [code, STATEMENT_ISSUED])
    return None if row is None else (f"{row['number']} v{row['version']}", int(row["version"]) + 1)


def get_statement(store: Store, user: Principal, statement_id: int, *, item_limit: int = 50) -> StatementDoc:
    """One statement with its lines, survey lines and its first `item_limit` adjudicated items."""
    _readable(store, user, statement_id)
    return load_statement(store, statement_id, item_limit=item_limit)


def statement_items(store: Store, user: Principal, statement_id: int, *, page: int = 1,
                    page_size: int = 50) -> tuple[tuple[StatementItem, ...], int]:
    """One page of the adjudicated items (by value, descending) and their number."""
    _readable(store, user, statement_id)
    check_page(page, page_size, MAX_PAGE_SIZE)
    total = int(store.scalar("SELECT count(*) FROM statement_items WHERE statement_id = ?", [statement_id]))
    return _items(store, statement_id, page_size, (page - 1) * page_size), total


def statement_pdf(store: Store, user: Principal, statement_id: int) -> bytes:
    """The PDF: for an issued statement the very bytes stored at issue; a draft is rendered now
    (marked RASCUNHO; dpc only)."""
    row = _readable(store, user, statement_id)
    if row["status"] == STATEMENT_ISSUED:
        return bytes(store.scalar("SELECT pdf FROM statements WHERE id = ?", [statement_id]))
    require(user, "read_statement_drafts")  # unreachable through _readable; kept as the rule's statement
    return render_pdf(load_statement(store, statement_id, item_limit=PDF_ITEM_LIMIT))


def superseding_version(db: Db, statement_id: object) -> tuple[int, date] | None:
    """(version, day of issue in Brasília) of the latest issued version that replaces the issued statement
    `statement_id`, None when it is in force (or is no issued statement). No user: /verificar says it to whoever holds
    the statement's code (issue 43, item 12) — a version number and a day, nothing of the statement."""
    if not isinstance(statement_id, int) or isinstance(statement_id, bool):
        return None
    row = db.fetch_one("SELECT later.version, later.created_at FROM statements s JOIN statements later ON "
                       "later.number = s.number AND later.version > s.version AND later.status = ? "
                       "WHERE s.id = ? AND s.status = ? ORDER BY later.version DESC LIMIT 1",
                       [STATEMENT_ISSUED, statement_id, STATEMENT_ISSUED])
    return None if row is None else (int(row["version"]), clock.brasilia(row["created_at"]).date())


def statement_code(store: Store, user: Principal, statement_id: int) -> str | None:
    """The verification code ('XXXXX-XXXXX') of an issued statement's PDF (its registered copy), None for a draft."""
    _readable(store, user, statement_id)
    stamp = registry.stamp_of(store, "statements", statement_id)
    return None if stamp is None else stamp.printed_code


def statement_xlsx(store: Store, user: Principal, statement_id: int) -> bytes:
    """The statement as XLSX, with every adjudicated item (rendered from the stored rows)."""
    _readable(store, user, statement_id)
    doc = load_statement(store, statement_id, item_limit=0)
    stamp = registry.stamp_of(store, "statements", statement_id) if doc.is_issued else None
    return render_xlsx(doc, _items(store, statement_id, 1_048_000, 0), stamp)


def later_facts(store: Store, user: Principal, statement_id: int) -> list[str]:
    """What was recorded after an issued statement about the facts it rests on — a correction of its contract's,
    wreck's or company's registration, an act that changed the contract's state —, one pt-BR line each, oldest
    first. An issued statement is never changed (docs/decisions/001-registry-corrections.md): it says that a later
    fact exists, and DPC decides whether to issue a new version. [] for a draft."""
    from valuation.registry.contract_register import ACT_LABELS
    from valuation.registry.versions import corrected_since

    _readable(store, user, statement_id)
    head = store.fetch_one("SELECT s.status, s.created_at, c.id AS contract_id, c.code, c.wreck_id, c.organisation_id "
                           "FROM statements s JOIN contracts c ON c.id = s.contract_id WHERE s.id = ?", [statement_id])
    if head is None or head["status"] != STATEMENT_ISSUED:
        return []
    since = head["created_at"]
    found: list[tuple[Any, str]] = []
    for entity, key, what in (("contract", head["contract_id"], f"do contrato {head['code']}"),
                              ("wreck", head["wreck_id"], "do naufrágio"),
                              ("organisation", head["organisation_id"], "da ficha da empresa")):
        for r in corrected_since(store, entity, [key], since):
            found.append((r["changed_at"], f"Correção {what} (versão {r['version']}) registrada em "
                                           f"{format_date_br(clock.today_brasilia(r['changed_at']))}: "
                                           f"{r['reason']}"))
    for r in store.fetch("SELECT act, effective_on, recorded_at, reason FROM contract_acts WHERE contract_id = ? "
                         "AND recorded_at > ? ORDER BY id", [head["contract_id"], since]):
        found.append((r["recorded_at"], f"{ACT_LABELS.get(r['act'], r['act'])} do contrato em "
                                        f"{format_date_br(r['effective_on'])}"
                                        + (f": {r['reason']}" if r["reason"] else "")))
    return [line for _, line in sorted(found, key=lambda x: x[0])]
