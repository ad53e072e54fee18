"""What a partition statement says, from its inputs (no database, no clock): the lines of
each section with their legal basis (Lei 7.542/1986 arts. 20–22; NORMAM-10 0303 c 2 I,
0305, 0306), the warnings and blockers, and the terms as stated. The arithmetic is
`valuation.partition.rules.partition`, run over one aggregate item per group (the chosen items
locked in, the rest locked out), so it costs the same for 10 or 10⁶ items. `statements`
gathers the inputs (`gather_inputs` → `StatementInputs`) and stores the result of
`build_statement`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.errors import (
    ConflictError,
)
from valuation.core.money import format_brl, format_count, format_share
from valuation.partition.choice import POOL_LABELS, STATUS_PT, percent
from valuation.partition.documents import (
    StatementLine,
    StatementSurveyLine,
)
from valuation.partition.pools import (
    Aggregates,
    SelectionRun,
    Targets,
)
from valuation.partition.rules import (
    ContractTerms,
    PartitionItem,
    PartitionResult,
)
from valuation.partition.survey_costs import BASIS_DEDUCTION
from valuation.partition.survey_sheets import (
    EXPENSE_BASIS,
    EXPENSE_LABELS,
    SurveyInputs,
)
from valuation.partition.terms import (
    TERMS_FIELDS,
    Compensation,
    partition_pt,
    stable_sha,
)

if TYPE_CHECKING:

    from valuation.db.store import Store, Tx

    Db = Store | Tx


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



@dataclass(frozen=True)
class StatementInputs:
    """Everything a statement is computed from, as `statements.gather_inputs` reads it."""

    contract: dict[str, Any]
    agg: Aggregates
    comp: Compensation | None
    terms: ContractTerms
    targets: Targets
    runs: dict[str, SelectionRun | None]       # current run per pool whose choice applies
    survey: SurveyInputs
    inspection: dict[str, Decimal]
    names: dict[str, str]

    def fingerprint(self) -> str:
        c = self.contract
        return stable_sha({
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


def _historical_lines(out: _Lines, inputs: StatementInputs, res: PartitionResult) -> None:
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


def _other_payment(inputs: StatementInputs, res: PartitionResult) -> tuple[str, str | None]:
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


def _total_lines(out: _Lines, inputs: StatementInputs, res: PartitionResult) -> None:
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


def _notes(inputs: StatementInputs, res: PartitionResult) -> tuple[list[str], list[str]]:
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


def _snapshot(inputs: StatementInputs) -> dict[str, Any]:
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


def build_statement(inputs: StatementInputs, as_of: date) -> StatementData:
    """The statement computed from `inputs` (nothing read, nothing written)."""
    c, agg, terms = inputs.contract, inputs.agg, inputs.terms
    missing = [p for p, r in inputs.runs.items() if r is None]
    if missing:
        raise ConflictError(f"Contrato {c['code']}: a escolha da União ({', '.join(POOL_LABELS[p] for p in missing)}) "
                            "não foi gravada ou está desatualizada; grave-a na página Escolha da União "
                            "(ou gere o rascunho, que a calcula com as travas gravadas).")
    items = (_group_items("historical", agg.h_total, "historical" in inputs.runs, inputs.runs.get("historical"))
             + _group_items("other", agg.o_total, "other" in inputs.runs, inputs.runs.get("other")))
    res = partition_pt(terms, items)
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


