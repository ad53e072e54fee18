"""Partition statements: built from stored results and issued (Lei 7.542/1986 arts. 20–22;
NORMAM-10 0303 c 2 I, 0306; rules.md §4–§5).

A statement is computed from stored results: the totals are SQL sums over `item_valuation`
(two scans, `pools.aggregates`), the chosen items come from the current stored runs, the
survey lines from `valuation.partition.survey_sheets`; the arithmetic is
`valuation.partition.rules.partition`, run over one aggregate item per group (the chosen items
locked in, the rest locked out), so it costs the same for 10 or 10⁶ items (timings:
bench/README.md).

Statements are append-only (architecture.md "Storage"): a draft is a row
(`status = 'rascunho'`); issuing INSERTs a new row `emitido`, numbered 'DP-YYYY/NNNN'
version 1, with its PDF and sha256; a correction issues version n+1 of the same number
pointing at the version it replaces. Nothing here ever UPDATEs or DELETEs a statement row,
and a draft is issued only while the data it was computed from is unchanged. What a
statement says is built in `statement_lines`; reading them: `statement_reads`.

Access: `issue_statements` (dpc).
"""
from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.authenticity import registry
from valuation.commission import derived
from valuation.core import nup
from valuation.core.errors import (
    ConflictError,
    InputError,
    NotFound,
    Problem,
)
from valuation.core.statuses import STATEMENT_DRAFT, STATEMENT_ISSUED
from valuation.db.access import Principal, require
from valuation.notices import events
from valuation.partition.choice import save_selection
from valuation.partition.documents import (
    PDF_ITEM_LIMIT,
    StatementDoc,
    render_pdf,
)
from valuation.partition.pools import (
    MEMO_PER_STORE,
    SelectionRun,
    aggregates,
    cached_aggregates,
    forget_aggregates,
    pool_fingerprint,
    pool_targets,
    run_from_row,
    stored_locks,
)
from valuation.partition.salvage import current_assessment
from valuation.partition.statement_lines import StatementData, StatementInputs, build_statement
from valuation.partition.statement_reads import load_statement
from valuation.partition.survey_sheets import (
    SurveyInputs,
    inspection_totals,
    survey_inputs_for,
)
from valuation.partition.terms import (
    MIN_CORRECTION_REASON,
    TERMS_KINDS,
    Compensation,
    compensation_of,
    contract_for,
    stable_json,
    stored_terms,
)
from valuation.process import numbers

if TYPE_CHECKING:

    from valuation.db.store import Store, Tx

    Db = Store | Tx

NUMBER_PREFIX = "DP"


# ======================================================================================
# Statements
# ======================================================================================
@dataclass(frozen=True)
class _Lookups:
    """The small per-contract state a statement reads besides the contract row and the sums."""

    comp: Compensation | None
    survey: SurveyInputs
    locks: dict[str, dict[int, str]]
    run_rows: tuple[dict[str, Any], ...]
    inspection: dict[str, Decimal]
    names: dict[str, str]          # organisation_name, wreck_code, wreck_name


# Memo of _Lookups per Store and contract, valid while the audit log's head is unchanged: every
# write to the tables behind _Lookups (compensation, survey sheets, locks, runs, inspection
# expenses) is made by this package's functions and audited in the same transaction, so any such
# write moves the head. The contract row and the sums over the decisions are read every time.
_MEMO: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], tuple[int, _Lookups]]] = weakref.WeakKeyDictionary()
_MEMO_LOCK = threading.Lock()


def forget_memos() -> None:
    """Drop the memoised sums and lookups of every store (they are rebuilt on the next statement)."""
    with _MEMO_LOCK:
        _MEMO.clear()
    forget_aggregates()


def _read_lookups(db: Db, c: Mapping[str, Any]) -> _Lookups:
    return _Lookups(comp=compensation_of(db, c["id"]), survey=survey_inputs_for(db, c), locks=stored_locks(db, c["id"]),
                    run_rows=tuple(db.fetch("SELECT * FROM selection_runs WHERE contract_id = ?", [c["id"]])),
                    inspection=inspection_totals(db, c["id"]),
                    names=db.fetch_one("SELECT o.name AS organisation_name, w.code AS wreck_code, w.name AS wreck_name "
                                       "FROM organisations o, wrecks w WHERE o.id = ? AND w.id = ?",
                                       [c["organisation_id"], c["wreck_id"]]) or {})


def _lookups(db: Db, c: Mapping[str, Any], in_tx: bool) -> _Lookups:
    if in_tx:
        return _read_lookups(db, c)
    head = int(db.scalar("SELECT coalesce(max(id), 0) FROM audit_log"))  # read before the lookups
    key = (c["id"], c["wreck_id"], c["organisation_id"], c["surveyor_organisation_id"])  # what the survey depends on
    with _MEMO_LOCK:
        hit = _MEMO.get(db, {}).get(key)
    if hit is not None and hit[0] == head:
        return hit[1]
    fresh = _read_lookups(db, c)
    with _MEMO_LOCK:
        per_store = _MEMO.setdefault(db, {})
        if len(per_store) >= MEMO_PER_STORE:
            per_store.clear()
        per_store[key] = (head, fresh)
    return fresh


def gather_inputs(db: Db, c: dict[str, Any]) -> StatementInputs:
    """Everything a statement is computed from (`statement_lines.build_statement` turns it into the
    statement): the sums of `pools.aggregates`, the stored terms and compensation, the current run
    of each pool whose choice applies, the surveyor's cost lines, the inspection expenses and the
    names. From a Store the sums and the small lookups are memoised while what they depend on is
    unchanged; inside a transaction (a Tx) everything is read afresh on its cursor. No access check:
    `c` is a contract row the caller may read."""
    in_tx = getattr(db, "cur", None) is not None
    look = _lookups(db, c, in_tx)
    agg = aggregates(db, c["id"]) if in_tx else cached_aggregates(db, c["id"])  # type: ignore[arg-type]
    terms = replace(stored_terms(c, look.comp), winner_is_surveyor=look.survey.winner_is_surveyor,
                    survey_costs=look.survey.cost_lines)
    targets = pool_targets(terms, agg)
    by_fp: dict[tuple[str, str], dict[str, Any]] = {}
    for r in sorted(look.run_rows, key=lambda row: row["id"]):
        by_fp[(r["pool"], r["fingerprint"])] = r  # the latest run of each fingerprint wins
    runs: dict[str, SelectionRun | None] = {}
    for pool, target, n in (("historical", targets.historical, agg.h_n), ("other", targets.other, agg.o_n)):
        if target is not None and target > 0 and n > 0:
            row = by_fp.get((pool, pool_fingerprint(pool, agg, target, look.locks[pool])))
            runs[pool] = None if row is None else run_from_row(row, current=True)
    if c.get("modality") == "IV":   # the factors the Authority recorded (Lei 7.203/1984 art. 10), printed
        c = {**c, "salvage_assessment": current_assessment(db, int(c["id"]))}
    return StatementInputs(contract=c, agg=agg, comp=look.comp, terms=terms, targets=targets, runs=runs,
                           survey=look.survey, inspection=look.inspection, names=look.names)


def _statement_contract(db: Db, user: Principal, code: str) -> dict[str, Any]:
    c = contract_for(db, user, code)
    if c["kind"] not in TERMS_KINDS:
        raise InputError(Problem("contract", f"Contrato {code}: demonstrativo de partilha só para contratos de "
                                             f"exploração ou remoção (este é de {c['kind']})."))
    return c


def compute_statement(store: Store, user: Principal, code: str, *, as_of: date) -> StatementData:
    """The statement of a contract computed from stored results (nothing written): SQL totals
    over `item_valuation`, the current stored choice, the surveyor's cost lines, the terms
    (Lei 7.542 arts. 20–22; NORMAM-10 0303 c 2 I). ConflictError when a choice the terms
    need is not stored or is out of date."""
    require(user, "issue_statements")
    c = _statement_contract(store, user, code)
    return build_statement(gather_inputs(store, c), as_of)


def _ensure_choices(store: Store, user: Principal, c: dict[str, Any], now: datetime | None) -> None:
    """Store the choice of each pool that needs one and has no current run (stored locks,
    tolerance policy)."""
    inputs = gather_inputs(store, c)
    for pool, run in inputs.runs.items():
        if run is None:
            save_selection(store, user, c["code"], pool=pool, label="automática (rascunho do demonstrativo)",
                           now=now)


def _insert_statement(tx: Tx, data: StatementData, user: Principal, moment: datetime) -> int:
    """The draft's row (its amounts: `data.result`, what `rules.partition` returned), lines, survey
    lines and adjudicated items; an issue copies them (`_copy_draft`)."""
    res = data.result
    new_id = int(tx.scalar("SELECT nextval('seq_statements')"))
    tx.execute(
        """INSERT INTO statements (id, contract_id, status, as_of, cancelled, terms_json, fingerprint,
               historical_items, other_items, historical_total, historical_reward, adjudicated_value, cash_balance,
               unpaid_residual, other_total, other_payment, gross, survey_deduction, survey_uncovered, net,
               surveyor_organisation_id, warnings_json, blockers_json, created_by, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [new_id, data.contract_id, STATEMENT_DRAFT, data.as_of, res.cancelled, stable_json(data.terms),
         data.fingerprint, data.historical_items, data.other_items, res.historical_total, res.historical_reward,
         res.adjudicated_value, res.cash_balance, res.unpaid_residual, res.other_total, res.other_payment,
         res.gross, res.survey_deduction, res.survey_uncovered, res.net, data.surveyor_organisation_id,
         stable_json(list(data.warnings)), stable_json(list(data.blockers)), user.username, moment])
    for ln in data.lines:
        tx.execute("INSERT INTO statement_lines VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   [new_id, ln.line_no, ln.section, ln.key, ln.label, ln.amount, ln.detail, ln.basis])
    for s in data.survey_lines:
        tx.execute("INSERT INTO statement_survey_lines VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [new_id, s.line_no, s.survey_contract, s.line, s.planned, s.actual, s.approved_overrun,
                    s.overrun_reason, s.accepted, s.variance])
    for pool, run in data.runs.items():
        tx.execute("INSERT INTO statement_items SELECT ?, ri.item_id, ?, iv.value_brl, iv.significance "
                   "FROM selection_run_items ri JOIN item_valuation iv ON iv.item_id = ri.item_id "
                   "WHERE ri.run_id = ?", [new_id, pool, run.id])
    return new_id


def create_draft(store: Store, user: Principal, code: str, *, as_of: date, now: datetime | None = None) -> int:
    """Compute the contract's statement from stored results and store it as a draft
    (storing first the União's choice when the terms need one and none is current).
    Returns the draft's id. Append-only: an older draft stays as it was."""
    require(user, "issue_statements")
    if not isinstance(as_of, date):
        raise InputError(Problem("as_of", "Data-base: informe a data do demonstrativo."))
    c = _statement_contract(store, user, code)
    derived.require_proven(store, "item_valuation", int(c["id"]))   # issue 45, item 2: the decided values it pays
    _ensure_choices(store, user, c, now)
    data = build_statement(gather_inputs(store, c), as_of)
    moment = now or store.now()

    def run(tx: Tx) -> int:
        derived.require_proven(tx, "item_valuation", int(c["id"]))
        if gather_inputs(tx, contract_for(tx, user, code)).fingerprint() != data.fingerprint:
            raise ConflictError("Os dados do contrato mudaram durante o cálculo; gere o rascunho de novo.")
        new_id = _insert_statement(tx, data, user, moment)
        tx.audit("statement_drafted", "statement", new_id, None,
                 {"contract": c["code"], "as_of": as_of, "net": data.net, "blockers": len(data.blockers)})
        return new_id

    return store.write(user.username, run)


def _next_number(tx: Tx, year: int) -> str:
    prefix = f"{NUMBER_PREFIX}-{year}/"
    n = int(tx.scalar("SELECT count(DISTINCT number) FROM statements WHERE starts_with(number, ?)", [prefix]))
    return f"{prefix}{n + 1:04d}"


_COPIED_COLS = ("as_of, cancelled, terms_json, fingerprint, historical_items, other_items, historical_total, "
                "historical_reward, adjudicated_value, cash_balance, unpaid_residual, other_total, other_payment, "
                "gross, survey_deduction, survey_uncovered, net, surveyor_organisation_id, warnings_json, "
                "blockers_json")


def _issuable_draft(tx: Tx, user: Principal, draft_id: int) -> dict[str, Any]:
    """The draft row if it may be issued now: a draft, the contract's latest statement, without
    blockers, computed from the data as it still is. Else NotFound / ConflictError / InputError."""
    d = tx.fetch_one("SELECT id, contract_id, status, blockers_json, fingerprint FROM statements WHERE id = ?",
                     [draft_id])
    if d is None:
        raise NotFound(f"Demonstrativo {draft_id} não encontrado.", what="statement", key=draft_id)
    if d["status"] != STATEMENT_DRAFT:
        raise ConflictError("Este demonstrativo já foi emitido e não se altera. Para corrigi-lo, gere um novo "
                            "rascunho e emita-o como nova versão.")
    code = tx.scalar("SELECT code FROM contracts WHERE id = ?", [d["contract_id"]])
    if tx.scalar("SELECT count(*) FROM statements WHERE contract_id = ? AND id > ?", [d["contract_id"], draft_id]):
        raise ConflictError("Há um rascunho ou uma emissão mais recente deste contrato; emita o mais recente.")
    blockers = json.loads(d["blockers_json"])
    if blockers:
        raise InputError([Problem("blockers", b) for b in blockers])
    derived.require_proven(tx, "item_valuation", int(d["contract_id"]))   # issue 45, item 2: what it pays
    if gather_inputs(tx, contract_for(tx, user, code)).fingerprint() != d["fingerprint"]:
        raise ConflictError("Os dados mudaram desde o rascunho (decisões, termos, escolha da União, custos ou "
                            "despesas); gere um novo rascunho.")
    return d


def _numbering(tx: Tx, contract_id: int, reason: str | None, moment: datetime
               ) -> tuple[str, int, dict[str, Any] | None, str | None]:
    """(number, version, the issued version it replaces, correction reason) of the next issue:
    'DP-YYYY/NNNN' v1 for a contract's first, v n+1 of the same number (with its reason) after."""
    prev = tx.fetch_one("SELECT id, number, version FROM statements WHERE contract_id = ? AND status = ? "
                        "ORDER BY version DESC LIMIT 1", [contract_id, STATEMENT_ISSUED])
    if prev is None:
        return _next_number(tx, moment.year), 1, None, None
    if not reason or len(reason) < MIN_CORRECTION_REASON:
        raise InputError(Problem("correction_reason", f"Motivo da correção: obrigatório ao emitir nova versão "
                                                      f"de {prev['number']} v{prev['version']} (ao menos "
                                                      f"{MIN_CORRECTION_REASON} caracteres)."))
    return prev["number"], int(prev["version"]) + 1, prev, reason


def _copy_draft(tx: Tx, new_id: int, draft_id: int) -> None:
    """The draft's lines, survey lines and adjudicated items, copied to the issued statement."""
    tx.execute("INSERT INTO statement_lines SELECT ?, line_no, section, key, label, amount, detail, basis "
               "FROM statement_lines WHERE statement_id = ?", [new_id, draft_id])
    tx.execute("INSERT INTO statement_survey_lines SELECT ?, line_no, survey_contract, line, planned, actual, "
               "approved_overrun, overrun_reason, accepted, variance FROM statement_survey_lines "
               "WHERE statement_id = ?", [new_id, draft_id])
    tx.execute("INSERT INTO statement_items SELECT ?, item_id, grp, value_brl, significance FROM statement_items "
               "WHERE statement_id = ?", [new_id, draft_id])


def issue_statement(store: Store, user: Principal, draft_id: int, *, correction_reason: str | None = None,
                    now: datetime | None = None) -> StatementDoc:
    """Issue a draft: a new row 'emitido' with its number and version, its lines and items
    copied from the draft, and its PDF (kept with its sha256). The first issue of a contract
    is 'DP-YYYY/NNNN v1'; a later one is a correction — version n+1 of the same number,
    referencing the version it replaces, with its reason. The issued rows are never changed.
    Refused when the draft is not the contract's latest statement, when the data changed
    since the draft, or while it has blockers."""
    require(user, "issue_statements")
    moment = now or store.now()
    reason = correction_reason.strip() if isinstance(correction_reason, str) else None

    def run(tx: Tx) -> int:
        d = _issuable_draft(tx, user, draft_id)
        number, version, prev, why = _numbering(tx, d["contract_id"], reason, moment)
        supersedes = None if prev is None else int(prev["id"])
        new_id = int(tx.scalar("SELECT nextval('seq_statements')"))
        office = str(tx.scalar("SELECT office_code FROM contracts WHERE id = ?", [d["contract_id"]]))
        given = numbers.assign(tx, "statement", new_id, office, moment.date())   # its NUP, printed in its PDF
        doc = replace(load_statement(tx, draft_id, item_limit=PDF_ITEM_LIMIT), id=new_id, status=STATEMENT_ISSUED,
                      number=number, version=version,
                      supersedes_label=f"{prev['number']} v{prev['version']}" if prev else None,
                      correction_reason=why, created_at=moment, created_by=user.username, superseded_by=None,
                      issuer_name=user.full_name, nup=nup.format_nup(given) if given else None)
        stamp = registry.new_stamp(nup.format_nup(given) if given else None)
        pdf = render_pdf(doc, stamp)
        sha = hashlib.sha256(pdf).hexdigest()
        tx.execute(f"INSERT INTO statements (id, contract_id, status, number, version, supersedes, draft_id, "
                   f"correction_reason, {_COPIED_COLS}, pdf, pdf_sha256, created_by, created_at) "
                   f"SELECT ?, contract_id, ?, ?, ?, ?, id, ?, {_COPIED_COLS}, ?, ?, ?, ? FROM statements "
                   "WHERE id = ?",
                   [new_id, STATEMENT_ISSUED, number, version, supersedes, why, pdf, sha, user.username, moment,
                    draft_id])
        _copy_draft(tx, new_id, draft_id)
        registry.register(tx, stamp, pdf, kind="statement", record=("statements", new_id, None), office=registry.DPC,
                          actor=user.username)
        tx.audit("statement_issued", "statement", new_id, None,
                 {"number": number, "version": version, "supersedes": supersedes, "draft": draft_id,
                  "net": doc.net, "pdf_sha256": sha, "correction_reason": why})
        events.statement_issued(tx, statement_id=new_id)    # issue 42 item 4: the company's people
        return new_id

    new_id = store.write(user.username, run)
    return load_statement(store, new_id, item_limit=PDF_ITEM_LIMIT)
