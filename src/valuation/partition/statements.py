"""Partition statements: built from stored results and issued (Lei 7.542/1986 arts. 20–22;
NORMAM-10 0303 c 2 I, 0306; rules.md §4–§5).

A statement is computed from stored results: the totals are SQL sums over `item_valuation`
(two scans, `choice._aggregates`), the chosen items come from the current stored runs, the
survey lines from `valuation.partition.survey_sheets`; the arithmetic is
`valuation.partition.rules.partition`, run over one aggregate item per group (the chosen items
locked in, the rest locked out), so it costs the same for 10 or 10⁶ items (timings:
bench/README.md).

Statements are append-only (architecture.md "Storage"): a draft is a row
(`status = 'rascunho'`); issuing INSERTs a new row `emitido`, numbered 'DP-YYYY/NNNN'
version 1, with its PDF and sha256; a correction issues version n+1 of the same number
pointing at the version it replaces. Nothing here ever UPDATEs or DELETEs a statement row,
and a draft is issued only while the data it was computed from is unchanged. Reading them:
`statement_reads`.

Access: `issue_statements` (dpc).
"""
from __future__ import annotations

import hashlib
import json
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.errors import (
    ConflictError,
    InputError,
    NotFound,
    Problem,
)
from valuation.core.money import format_brl, format_count, format_share
from valuation.db.access import Principal, require
from valuation.partition.choice import (
    _AGG_MEMO,
    _MEMO_LOCK,
    _MEMO_PER_STORE,
    POOL_LABELS,
    STATUS_PT,
    SelectionRun,
    _Agg,
    _aggregates,
    _aggregates_memo,
    _locks,
    _pool_fingerprint,
    _run,
    _Targets,
    _targets,
    percent,
    save_selection,
)
from valuation.partition.documents import (
    PDF_ITEM_LIMIT,
    StatementDoc,
    StatementLine,
    StatementSurveyLine,
    render_pdf,
)
from valuation.partition.rules import (
    ContractTerms,
    PartitionItem,
    PartitionResult,
)
from valuation.partition.statement_reads import _load_doc
from valuation.partition.survey_costs import BASIS_DEDUCTION
from valuation.partition.survey_sheets import (
    EXPENSE_BASIS,
    EXPENSE_LABELS,
    SurveyInputs,
    inspection_totals,
    survey_inputs_for,
)
from valuation.partition.terms import (
    MIN_CORRECTION_REASON,
    TERMS_FIELDS,
    TERMS_KINDS,
    Compensation,
    _base_terms,
    _compensation,
    _contract,
    _json,
    _partition,
    _sha,
)

if TYPE_CHECKING:

    from valuation.db.store import Store, Tx

    Db = Store | Tx

NUMBER_PREFIX = "DP"


@dataclass(frozen=True)
class StatementData:
    """A statement computed from stored results (not yet stored)."""

    contract_id: int
    contract_code: str
    as_of: date
    terms: dict[str, Any]
    result: PartitionResult
    lines: tuple[StatementLine, ...]
    survey_lines: tuple[StatementSurveyLine, ...]
    historical_items: int
    other_items: int
    runs: dict[str, SelectionRun]
    warnings: tuple[str, ...]
    blockers: tuple[str, ...]
    fingerprint: str
    surveyor_organisation_id: int | None

    @property
    def net(self) -> Decimal:
        return self.result.net



# ======================================================================================
# Statements
# ======================================================================================
@dataclass(frozen=True)
class _Inputs:
    contract: dict[str, Any]
    agg: _Agg
    comp: Compensation | None
    terms: ContractTerms
    targets: _Targets
    runs: dict[str, SelectionRun | None]       # current run per pool whose choice applies
    survey: SurveyInputs
    inspection: dict[str, Decimal]
    names: dict[str, str]

    def fingerprint(self) -> str:
        c = self.contract
        return _sha({
            "contract": {k: c[k] for k in ("id", "status", "organisation_id", "surveyor_organisation_id",
                                           *TERMS_FIELDS)},
            "agg": [self.agg.items, self.agg.h_n, str(self.agg.h_total), self.agg.o_n, str(self.agg.o_total),
                    self.agg.unpublished, self.agg.last_decision],
            "comp": self.comp.id if self.comp else None,
            "runs": {p: (r.id if r else None) for p, r in sorted(self.runs.items())},
            "survey": [[str(x) for x in (ln.line, ln.planned, ln.actual, ln.approved_overrun)]
                       for ln in self.survey.cost_lines] + [list(map(str, ref)) for ref in self.survey.line_refs],
            "inspection": {k: str(v) for k, v in sorted(self.inspection.items())},
        })


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


def forget_memos() -> None:
    """Drop the memoised sums and lookups of every store (they are rebuilt on the next statement)."""
    with _MEMO_LOCK:
        _MEMO.clear()
        _AGG_MEMO.clear()


def _read_lookups(db: Db, c: Mapping[str, Any]) -> _Lookups:
    return _Lookups(comp=_compensation(db, c["id"]), survey=survey_inputs_for(db, c), locks=_locks(db, c["id"]),
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
        if len(per_store) >= _MEMO_PER_STORE:
            per_store.clear()
        per_store[key] = (head, fresh)
    return fresh


def _gather(db: Db, c: dict[str, Any]) -> _Inputs:
    """Everything a statement is computed from. From a Store the sums and the small lookups are
    memoised while what they depend on is unchanged; inside a transaction (a Tx) everything is
    read afresh on its cursor."""
    in_tx = getattr(db, "cur", None) is not None
    look = _lookups(db, c, in_tx)
    agg = _aggregates(db, c["id"]) if in_tx else _aggregates_memo(db, c["id"])  # type: ignore[arg-type]
    terms = replace(_base_terms(c, look.comp), winner_is_surveyor=look.survey.winner_is_surveyor,
                    survey_costs=look.survey.cost_lines)
    targets = _targets(terms, agg)
    by_fp: dict[tuple[str, str], dict[str, Any]] = {}
    for r in sorted(look.run_rows, key=lambda row: row["id"]):
        by_fp[(r["pool"], r["fingerprint"])] = r  # the latest run of each fingerprint wins
    runs: dict[str, SelectionRun | None] = {}
    for pool, target, n in (("historical", targets.historical, agg.h_n), ("other", targets.other, agg.o_n)):
        if target is not None and target > 0 and n > 0:
            row = by_fp.get((pool, _pool_fingerprint(pool, agg, target, look.locks[pool])))
            runs[pool] = None if row is None else _run(row, current=True)
    return _Inputs(contract=c, agg=agg, comp=look.comp, terms=terms, targets=targets, runs=runs,
                   survey=look.survey, inspection=look.inspection, names=look.names)


def _group_items(pool: str, total: Decimal, needed: bool, run: SelectionRun | None) -> list[PartitionItem]:
    """One aggregate item per group: the stored choice locked in, the rest locked out."""
    hist = pool == "historical"
    if needed:
        assert run is not None
        return [PartitionItem(f"{pool}:escolhidos", hist, run.selected_value, 0, False, "give"),
                PartitionItem(f"{pool}:demais", hist, total - run.selected_value, 0, False, "keep")]
    return [PartitionItem(f"{pool}:todos", hist, total, 0, False, None)]


class _Lines:
    """The statement's lines as they are added, numbered in order."""

    def __init__(self, basis: Mapping[str, str]) -> None:
        self.basis = basis
        self.lines: list[StatementLine] = []

    def add(self, section: str, key: str, label: str, amount: Decimal | None, art: str | None = None,
            detail: str | None = None) -> None:
        """One line; `art` defaults to the basis `partition` gave for `key`."""
        self.lines.append(StatementLine(len(self.lines) + 1, section, key, label, amount, detail,
                                        self.basis[key] if art is None else art))


def _historical_lines(out: _Lines, inputs: _Inputs, res: PartitionResult) -> None:
    """Section 1: the historical items, the reward and how it is paid (art. 20)."""
    terms, s1 = inputs.terms, "Bens de valor histórico (art. 20)"
    out.add(s1, "historical_total", "Valor total atribuído aos bens históricos", res.historical_total,
            detail=f"{format_count(inputs.agg.h_n)} bem(ns) classificado(s) pela Comissão de peritos")
    if res.cancelled:
        out.add(s1, "historical_reward", "Recompensa pelos bens históricos: nenhuma (contrato cancelado)",
                res.historical_reward)
        return
    out.add(s1, "historical_reward", f"Recompensa: {format_share(terms.historical_share)} do valor dos bens "
            "históricos", res.historical_reward)
    if terms.historical_payment == "cash":
        out.add(s1, "cash_balance", "Recompensa paga em dinheiro", res.cash_balance)
        return
    hrun = inputs.runs.get("historical")
    detail = "nenhum bem a adjudicar"
    if hrun is not None:
        detail = (f"{format_count(hrun.selected_count)} bem(ns) escolhido(s) pela União; significância "
                  f"entregue {hrun.significance_handed}; solução {STATUS_PT.get(hrun.status, hrun.status)}"
                  + (f", lacuna certificada ≤ {percent(hrun.gap, 4)}" if hrun.status != "optimal" else ""))
    out.add(s1, "adjudicated", "Bens históricos adjudicados ao concessionário (escolha da União)",
            res.adjudicated_value, detail=detail)
    if terms.historical_payment == "adjudication_with_cash_balance":
        out.add(s1, "cash_balance", "Saldo da recompensa pago em dinheiro", res.cash_balance)
    else:
        out.add(s1, "unpaid_residual", "Resíduo da recompensa não pago (contrato sem saldo em dinheiro)",
                res.unpaid_residual)


def _other_payment(inputs: _Inputs, res: PartitionResult) -> tuple[str, str | None]:
    """The label and detail of the payment for the other items (art. 21 I–IV; art. 22 p.u.)."""
    terms, orun, comp = inputs.terms, inputs.runs.get("other"), inputs.comp
    adjudicated = f"{format_count(orun.selected_count)} bem(ns) adjudicado(s)" if orun else None
    if res.cancelled:
        if comp is None:
            return "Compensação no cancelamento: nenhuma concedida", None
        if comp.form == "sale_proceeds":
            return (f"Compensação: {format_share(comp.share)} do produto da venda "
                    f"({format_brl(comp.sale_proceeds)})"), None
        return f"Compensação: bens adjudicados até {format_share(comp.share)} do valor dos demais bens", adjudicated
    if terms.modality == "I":
        return "Soma em dinheiro (modalidade I)", None
    if terms.modality == "II":
        return f"{format_share(terms.other_share)} do valor de mercado dos demais bens (modalidade II)", None
    if terms.modality == "III":
        return (f"Bens adjudicados até {format_share(terms.other_share)} do valor dos demais bens (modalidade III)",
                f"alvo {format_brl(res.other_target)}; " + (adjudicated or "nenhum bem a adjudicar"))
    return "Pagamento por assistência e salvamento (modalidade IV)", None


def _total_lines(out: _Lines, inputs: _Inputs, res: PartitionResult) -> None:
    """Sections 2–5: the other items, gross → net, the surveyor's credit, the inspection expenses."""
    s2 = "Demais bens recuperados (art. 21)"
    out.add(s2, "other_total", "Valor de mercado dos demais bens", res.other_total,
            detail=f"{format_count(inputs.agg.o_n)} bem(ns)")
    label, detail = _other_payment(inputs, res)
    out.add(s2, "other_payment", label, res.other_payment, detail=detail)
    s3, survey = "Totais", inputs.survey
    out.add(s3, "gross", "Valor bruto devido ao concessionário", res.gross)
    if survey.applies and survey.cost_lines:
        out.add(s3, "survey_deduction", f"(−) Dedução dos gastos do pesquisador ({survey.surveyor_name})",
                -res.survey_deduction, detail=f"gastos aceitos {format_brl(res.survey_accepted_total)}")
    elif survey.winner_is_surveyor:
        out.add(s3, "survey_deduction", "(−) Dedução dos gastos do pesquisador: não se aplica (o concessionário é "
                "o próprio pesquisador)", -res.survey_deduction)
    out.add(s3, "net", "Valor líquido em favor do concessionário", res.net)
    if survey.applies and survey.cost_lines:
        s4 = "Crédito ao pesquisador (NORMAM-10 0303 c 2 I)"
        out.add(s4, "surveyor_credit", f"Crédito ao pesquisador {survey.surveyor_name} (gastos de localização do "
                "bem)", res.survey_deduction, BASIS_DEDUCTION)
        if res.survey_uncovered > 0:
            out.add(s4, "survey_uncovered", "Gastos aceitos não cobertos pelo valor bruto (não pagos pelo "
                    "concessionário)", res.survey_uncovered, BASIS_DEDUCTION)
    for kind, total in inputs.inspection.items():
        out.add("Despesas de fiscalização (NORMAM-10 0306) — a cargo do autorizado, informativo",
                f"inspection:{kind}", EXPENSE_LABELS.get(kind, kind), total, EXPENSE_BASIS.get(kind, "NORMAM-10 0306"))


def _notes(inputs: _Inputs, res: PartitionResult) -> tuple[list[str], list[str]]:
    """(warnings, blockers) of the statement: what it leaves out and what stops its issue."""
    c, agg, survey = inputs.contract, inputs.agg, inputs.survey
    warnings: list[str] = []
    blockers: list[str] = []
    undecided = agg.items - agg.h_n - agg.o_n
    if undecided > 0:
        warnings.append(f"{format_count(undecided)} bem(ns) do contrato ainda sem decisão da Comissão (art. 20 §3): "
                        "fora deste demonstrativo.")
    if agg.unpublished:
        blockers.append(f"{format_count(agg.unpublished)} decisão(ões) da Comissão ainda não publicada(s): publique "
                        "a rodada antes de emitir o demonstrativo.")
    for pool, run in inputs.runs.items():
        if run is not None and run.status != "optimal":
            warnings.append(f"Escolha da União ({POOL_LABELS[pool]}): {run.message}.")
    if c["value_fixed"] == "depois" and c["work_ended_on"] is None and not res.cancelled:
        warnings.append("Valor a fixar depois do término das operações (art. 21 §3), ainda não encerradas: "
                        "demonstrativo parcial.")
    if survey.applies and survey.no_sheet:
        warnings.append(f"O pesquisador {survey.surveyor_name} não entregou planilha de custos "
                        "(NORMAM-10 0301 a 6): nada a deduzir.")
    if survey.applies and survey.missing_actual:
        shown = "; ".join(survey.missing_actual[:10]) + (" …" if len(survey.missing_actual) > 10 else "")
        blockers.append(f"Custo real do relatório final (NORMAM-10 0301 c) não informado: {shown}. "
                        "Calculado provisoriamente pelo custo previsto.")
    # partition's own notes, except those the lines above already state (choice status, uncovered costs)
    warnings += [m[:1].upper() + m[1:] + ("." if not m.endswith(".") else "") for m in res.messages
                 if not m.startswith(("escolha", "gastos"))]
    return warnings, blockers


def _text(v: Decimal | None) -> str | None:
    return None if v is None else str(v)


def _snapshot(inputs: _Inputs) -> dict[str, Any]:
    """The terms as the statement states them (stored as its `terms_json`)."""
    c, terms, comp, names = inputs.contract, inputs.terms, inputs.comp, inputs.names
    return {
        "contract": {"code": c["code"], "kind": c["kind"], "act": c["act_number"], "status": c["status"],
                     "organisation": names.get("organisation_name"), "wreck_code": names.get("wreck_code"),
                     "wreck_name": names.get("wreck_name"), "surveyor": inputs.survey.surveyor_name},
        "modality": terms.modality, "historical_share": str(terms.historical_share),
        "historical_payment": terms.historical_payment, "other_share": _text(terms.other_share),
        "fixed_amount": _text(terms.fixed_amount), "salvage_award": _text(terms.salvage_award),
        "value_fixed": c["value_fixed"],
        "compensation": None if comp is None else {
            "share": str(comp.share), "form": comp.form, "sale_proceeds": _text(comp.sale_proceeds),
            "reason": comp.reason},
        "runs": {p: {"id": r.id, "target": str(r.target), "tolerance": str(r.tolerance), "status": r.status,
                     "gap": str(r.gap), "method": r.method} for p, r in inputs.runs.items() if r is not None},
    }


def _statement(inputs: _Inputs, as_of: date) -> StatementData:
    """The statement computed from `inputs` (nothing read, nothing written)."""
    c, agg, terms = inputs.contract, inputs.agg, inputs.terms
    missing = [p for p, r in inputs.runs.items() if r is None]
    if missing:
        raise ConflictError(f"Contrato {c['code']}: a escolha da União ({', '.join(POOL_LABELS[p] for p in missing)}) "
                            "não foi gravada ou está desatualizada; grave-a na página Escolha da União "
                            "(ou gere o rascunho, que a calcula com as travas gravadas).")
    items = (_group_items("historical", agg.h_total, "historical" in inputs.runs, inputs.runs.get("historical"))
             + _group_items("other", agg.o_total, "other" in inputs.runs, inputs.runs.get("other")))
    res = _partition(terms, items)
    out = _Lines({b.field: b.article for b in res.basis})
    _historical_lines(out, inputs, res)
    _total_lines(out, inputs, res)
    survey_lines = tuple(
        StatementSurveyLine(i + 1, ref[0], s.line, s.planned, s.actual, s.approved_overrun, ref[2], s.accepted,
                            s.variance)
        for i, (s, ref) in enumerate(zip(res.survey_lines, inputs.survey.line_refs)))
    warnings, blockers = _notes(inputs, res)
    return StatementData(
        contract_id=c["id"], contract_code=c["code"], as_of=as_of, terms=_snapshot(inputs), result=res,
        lines=tuple(out.lines), survey_lines=survey_lines, historical_items=agg.h_n, other_items=agg.o_n,
        runs={p: r for p, r in inputs.runs.items() if r is not None}, warnings=tuple(warnings),
        blockers=tuple(blockers), fingerprint=inputs.fingerprint(),
        surveyor_organisation_id=c["surveyor_organisation_id"])


def _statement_contract(db: Db, user: Principal, code: str) -> dict[str, Any]:
    c = _contract(db, user, code)
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
    return _statement(_gather(store, c), as_of)


def _ensure_choices(store: Store, user: Principal, c: dict[str, Any], now: datetime | None) -> None:
    """Store the choice of each pool that needs one and has no current run (stored locks,
    tolerance policy)."""
    inputs = _gather(store, c)
    for pool, run in inputs.runs.items():
        if run is None:
            save_selection(store, user, c["code"], pool=pool, label="automática (rascunho do demonstrativo)",
                           now=now)


def _insert_statement(tx: Tx, data: StatementData, user: Principal, moment: datetime) -> int:
    res = data.result
    new_id = int(tx.scalar("SELECT nextval('seq_statements')"))
    tx.execute(
        """INSERT INTO statements (id, contract_id, status, as_of, cancelled, terms_json, fingerprint,
               historical_items, other_items, historical_total, historical_reward, adjudicated_value, cash_balance,
               unpaid_residual, other_total, other_payment, gross, survey_deduction, survey_uncovered, net,
               surveyor_organisation_id, warnings_json, blockers_json, created_by, created_at)
           VALUES (?, ?, 'rascunho', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [new_id, data.contract_id, data.as_of, res.cancelled, _json(data.terms), data.fingerprint,
         data.historical_items, data.other_items, res.historical_total, res.historical_reward,
         res.adjudicated_value, res.cash_balance, res.unpaid_residual, res.other_total, res.other_payment,
         res.gross, res.survey_deduction, res.survey_uncovered, res.net, data.surveyor_organisation_id,
         _json(list(data.warnings)), _json(list(data.blockers)), user.username, moment])
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
    _ensure_choices(store, user, c, now)
    data = _statement(_gather(store, c), as_of)
    moment = now or store.now()

    def run(tx: Tx) -> int:
        if _gather(tx, _contract(tx, user, code)).fingerprint() != data.fingerprint:
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
    if d["status"] != "rascunho":
        raise ConflictError("Este demonstrativo já foi emitido e não se altera. Para corrigi-lo, gere um novo "
                            "rascunho e emita-o como nova versão.")
    code = tx.scalar("SELECT code FROM contracts WHERE id = ?", [d["contract_id"]])
    if tx.scalar("SELECT count(*) FROM statements WHERE contract_id = ? AND id > ?", [d["contract_id"], draft_id]):
        raise ConflictError("Há um rascunho ou uma emissão mais recente deste contrato; emita o mais recente.")
    blockers = json.loads(d["blockers_json"])
    if blockers:
        raise InputError([Problem("blockers", b) for b in blockers])
    if _gather(tx, _contract(tx, user, code)).fingerprint() != d["fingerprint"]:
        raise ConflictError("Os dados mudaram desde o rascunho (decisões, termos, escolha da União, custos ou "
                            "despesas); gere um novo rascunho.")
    return d


def _numbering(tx: Tx, contract_id: int, reason: str | None, moment: datetime
               ) -> tuple[str, int, dict[str, Any] | None, str | None]:
    """(number, version, the issued version it replaces, correction reason) of the next issue:
    'DP-YYYY/NNNN' v1 for a contract's first, v n+1 of the same number (with its reason) after."""
    prev = tx.fetch_one("SELECT id, number, version FROM statements WHERE contract_id = ? AND status = 'emitido' "
                        "ORDER BY version DESC LIMIT 1", [contract_id])
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
        doc = replace(_load_doc(tx, draft_id, item_limit=PDF_ITEM_LIMIT), id=new_id, status="emitido",
                      number=number, version=version,
                      supersedes_label=f"{prev['number']} v{prev['version']}" if prev else None,
                      correction_reason=why, created_at=moment, created_by=user.username, superseded_by=None,
                      issuer_name=user.full_name)
        pdf = render_pdf(doc)
        sha = hashlib.sha256(pdf).hexdigest()
        tx.execute(f"INSERT INTO statements (id, contract_id, status, number, version, supersedes, draft_id, "
                   f"correction_reason, {_COPIED_COLS}, pdf, pdf_sha256, created_by, created_at) "
                   f"SELECT ?, contract_id, 'emitido', ?, ?, ?, id, ?, {_COPIED_COLS}, ?, ?, ?, ? FROM statements "
                   "WHERE id = ?",
                   [new_id, number, version, supersedes, why, pdf, sha, user.username, moment, draft_id])
        _copy_draft(tx, new_id, draft_id)
        tx.audit("statement_issued", "statement", new_id, None,
                 {"number": number, "version": version, "supersedes": supersedes, "draft": draft_id,
                  "net": doc.net, "pdf_sha256": sha, "correction_reason": why})
        return new_id

    new_id = store.write(user.username, run)
    return _load_doc(store, new_id, item_limit=PDF_ITEM_LIMIT)
