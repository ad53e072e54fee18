"""The partition statement as a document: its record types and its PDF and XLSX renderings.

A statement (demonstrativo de partilha, Lei 7.542/1986 arts. 20–22; NORMAM-10 0303 c 2 I
and 0305) is stored by `valuation.store.partition`; this module only renders what was
stored, so an issued statement renders from immutable rows. Every amount line carries
its legal basis. The PDF lists the adjudicated items up to `PDF_ITEM_LIMIT` (fpdf2 lays
out ~150 table rows per second); the XLSX annex always lists them all.

Pure: no database, no clock (`generated_at` is the statement's own timestamp).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from valuation.exports import PdfReport, to_xlsx_bytes
from valuation.money import format_brl, format_date_br, format_share

PDF_ITEM_LIMIT = 300

MODALITY_LABELS: dict[str, str] = {
    "I": "I — soma em dinheiro",
    "II": "II — soma proporcional ao valor de mercado (até 70 %)",
    "III": "III — adjudicação de parte dos bens (até 70 %)",
    "IV": "IV — regras de assistência e salvamento",
}
PAYMENT_LABELS: dict[str, str] = {
    "cash": "em dinheiro",
    "adjudication": "adjudicação de bens (sem saldo em dinheiro)",
    "adjudication_with_cash_balance": "adjudicação de bens com saldo em dinheiro",
}
VALUE_FIXED_LABELS: dict[str, str] = {"antes": "antes do início das operações",
                                      "depois": "depois do término das operações"}
GROUP_LABELS: dict[str, str] = {"historical": "histórico (art. 20 §4)", "other": "demais bens (art. 21 III / 22)"}
STATUS_LABELS: dict[str, str] = {"rascunho": "rascunho", "emitido": "emitido"}


@dataclass(frozen=True)
class StatementLine:
    line_no: int
    section: str
    key: str
    label: str
    amount: Decimal | None
    detail: str | None
    basis: str


@dataclass(frozen=True)
class StatementSurveyLine:
    line_no: int
    survey_contract: str
    line: str
    planned: Decimal
    actual: Decimal
    approved_overrun: Decimal
    overrun_reason: str | None
    accepted: Decimal
    variance: Decimal


@dataclass(frozen=True)
class StatementItem:
    item_id: int
    item_code: str
    description: str
    grp: str
    significance: int | None
    value_brl: Decimal


@dataclass(frozen=True)
class StatementDoc:
    """One stored statement (draft or issued) with everything its documents show."""

    id: int
    status: str                      # rascunho | emitido
    number: str | None               # 'DP-2026/0007' when issued
    version: int | None
    supersedes_label: str | None     # 'DP-2026/0007 v1' for a correction
    correction_reason: str | None
    contract_code: str
    contract_act: str | None
    contract_kind: str
    contract_status: str
    organisation_name: str
    wreck_code: str
    wreck_name: str
    surveyor_name: str | None
    as_of: date
    created_at: datetime
    created_by: str
    cancelled: bool
    terms: dict[str, Any]
    net: Decimal
    gross: Decimal
    lines: tuple[StatementLine, ...]
    survey_lines: tuple[StatementSurveyLine, ...]
    items: tuple[StatementItem, ...]   # possibly the first PDF_ITEM_LIMIT only
    items_total: int
    items_value: Decimal
    warnings: tuple[str, ...]
    blockers: tuple[str, ...]
    pdf_sha256: str | None = None
    superseded_by: str | None = None

    @property
    def label(self) -> str:
        if self.status == "emitido":
            return f"{self.number} v{self.version}"
        return f"Rascunho nº {self.id}"

    @property
    def is_issued(self) -> bool:
        return self.status == "emitido"


def _terms_rows(doc: StatementDoc) -> list[tuple[str, object]]:
    t = doc.terms
    rows: list[tuple[str, object]] = []
    modality = t.get("modality")
    rows.append(("Modalidade (art. 21)", MODALITY_LABELS.get(modality, modality or "—")))
    if t.get("historical_share") is not None:
        rows.append(("Recompensa pelos bens históricos (art. 20 §2)",
                     f"{format_share(Decimal(t['historical_share']))} do valor atribuído, "
                     f"{PAYMENT_LABELS.get(t.get('historical_payment') or 'cash', '—')}"))
    if t.get("other_share") is not None:
        rows.append(("Parcela dos demais bens (art. 21 §1)", format_share(Decimal(t["other_share"]))))
    if t.get("fixed_amount") is not None:
        rows.append(("Soma em dinheiro (art. 21 I)", format_brl(Decimal(t["fixed_amount"]))))
    if t.get("salvage_award") is not None:
        rows.append(("Valor por assistência e salvamento (art. 21 IV)", format_brl(Decimal(t["salvage_award"]))))
    if t.get("value_fixed"):
        rows.append(("Valor fixado (art. 21 §3)", VALUE_FIXED_LABELS.get(t["value_fixed"], t["value_fixed"])))
    if doc.cancelled:
        comp = t.get("compensation") or {}
        if comp:
            form = "adjudicação de bens" if comp.get("form") == "adjudication" else "produto da venda"
            rows.append(("Compensação no cancelamento (art. 22 p.u.)",
                         f"{format_share(Decimal(comp['share']))} por {form}"))
        else:
            rows.append(("Compensação no cancelamento (art. 22 p.u.)", "nenhuma registrada"))
    return rows


def render_pdf(doc: StatementDoc) -> bytes:
    """The statement in Portuguese: header, terms, every line with its legal basis, totals,
    the surveyor's cost lines, the adjudicated items and the warnings."""
    title = (f"Demonstrativo de partilha {doc.label}" if doc.is_issued
             else f"RASCUNHO — Demonstrativo de partilha (nº {doc.id}, sem valor de documento emitido)")
    report = PdfReport(title, f"Contrato {doc.contract_code} — {doc.wreck_name} ({doc.wreck_code})",
                       generated_at=doc.created_at)
    header: list[tuple[str, object]] = [
        ("Contrato", f"{doc.contract_code} ({doc.contract_kind}; {doc.contract_act or 'ato sem número'})"),
        ("Concessionário", doc.organisation_name),
        ("Naufrágio", f"{doc.wreck_name} ({doc.wreck_code})"),
        ("Situação do contrato", doc.contract_status),
        ("Data-base", doc.as_of),
        ("Emitido em" if doc.is_issued else "Rascunho gerado em",
         doc.created_at.strftime("%d/%m/%Y %H:%M") + f" por {doc.created_by}"),
    ]
    if doc.surveyor_name:
        header.append(("Pesquisador que localizou o bem", doc.surveyor_name))
    if doc.supersedes_label:
        header.append(("Substitui", doc.supersedes_label))
        header.append(("Motivo da correção", doc.correction_reason or "—"))
    report.key_values(header)
    report.heading("1. Termos do contrato")
    report.key_values(_terms_rows(doc))
    if doc.cancelled:
        report.paragraph("Contrato cancelado (Lei 7.542/1986 art. 22 parágrafo único; NORMAM-10 0305): nenhum "
                         "pagamento é devido, salvo a compensação com bens desprovidos de valor histórico ou o "
                         "produto de sua venda, mesmo em proporção inferior à contratada.")
    report.heading("2. Apuração")
    report.table(["Descrição", "Valor", "Fundamento legal"],
                 [(_line_text(ln), ln.amount, ln.basis) for ln in doc.lines],
                 col_widths=[6, 2.4, 5.5], align=["L", "R", "L"])
    report.totals([("Valor bruto", doc.gross), ("Valor líquido em favor do concessionário", doc.net)])
    if doc.survey_lines:
        report.heading("3. Gastos do pesquisador (NORMAM-10 0301 a 6 e 0301 c)")
        report.table(["Pesquisa", "Linha", "Previsto", "Real", "Excesso aprovado", "Aceito", "Variação"],
                     [(s.survey_contract, s.line, s.planned, s.actual, s.approved_overrun, s.accepted, s.variance)
                      for s in doc.survey_lines],
                     col_widths=[3, 4, 2.2, 2.2, 2.2, 2.2, 2.2])
    report.heading("4. Bens adjudicados ao concessionário")
    if doc.items_total == 0:
        report.paragraph("Nenhum bem adjudicado.")
    else:
        report.paragraph(f"{doc.items_total} bem(ns), valor total {format_brl(doc.items_value)}.")
        report.table(["Item", "Descrição", "Grupo", "Signif.", "Valor"],
                     [(it.item_code, it.description, GROUP_LABELS.get(it.grp, it.grp),
                       "—" if it.significance is None else str(it.significance), it.value_brl)
                      for it in doc.items[:PDF_ITEM_LIMIT]],
                     col_widths=[2.2, 6.5, 3.2, 1.2, 2.4], align=["L", "L", "L", "C", "R"])
        if doc.items_total > min(len(doc.items), PDF_ITEM_LIMIT):
            shown = min(len(doc.items), PDF_ITEM_LIMIT)
            report.paragraph(f"Listados acima os {shown} primeiros bens por valor; a lista completa "
                             f"({doc.items_total} bens) está no anexo XLSX deste demonstrativo ({doc.label}).")
    if doc.warnings or doc.blockers:
        report.heading("Observações")
        for text in (*doc.blockers, *doc.warnings):
            report.paragraph(f"• {text}")
    report.signature_lines([("Diretoria de Portos e Costas", "Autoridade Naval"),
                            (doc.organisation_name, "Concessionário")])
    return report.bytes()


def _line_text(ln: StatementLine) -> str:
    return ln.label if not ln.detail else f"{ln.label}\n{ln.detail}"


def render_xlsx(doc: StatementDoc, items: Sequence[StatementItem]) -> bytes:
    """The statement as a workbook: lines with their basis, survey lines, every adjudicated item."""
    import pandas as pd

    summary = pd.DataFrame({
        "Campo": ["Demonstrativo", "Contrato", "Concessionário", "Naufrágio", "Data-base", "Situação",
                  "Valor bruto", "Valor líquido"],
        "Valor": [doc.label, doc.contract_code, doc.organisation_name, f"{doc.wreck_name} ({doc.wreck_code})",
                  format_date_br(doc.as_of), STATUS_LABELS.get(doc.status, doc.status),
                  format_brl(doc.gross), format_brl(doc.net)],
    })
    lines = pd.DataFrame({
        "Nº": [ln.line_no for ln in doc.lines],
        "Seção": [ln.section for ln in doc.lines],
        "Descrição": [ln.label for ln in doc.lines],
        "Detalhe": [ln.detail or "" for ln in doc.lines],
        "Valor": [ln.amount for ln in doc.lines],
        "Fundamento legal": [ln.basis for ln in doc.lines],
    })
    survey = pd.DataFrame({
        "Pesquisa": [s.survey_contract for s in doc.survey_lines],
        "Linha": [s.line for s in doc.survey_lines],
        "Previsto": [s.planned for s in doc.survey_lines],
        "Real": [s.actual for s in doc.survey_lines],
        "Excesso aprovado": [s.approved_overrun for s in doc.survey_lines],
        "Motivo da aprovação": [s.overrun_reason or "" for s in doc.survey_lines],
        "Aceito": [s.accepted for s in doc.survey_lines],
        "Variação": [s.variance for s in doc.survey_lines],
    })
    adjudicated = pd.DataFrame({
        "Item": [it.item_code for it in items],
        "Descrição": [it.description for it in items],
        "Grupo": [GROUP_LABELS.get(it.grp, it.grp) for it in items],
        "Significância": [it.significance for it in items],
        "Valor": [it.value_brl for it in items],
    })
    notes = pd.DataFrame({"Observação": [*doc.blockers, *doc.warnings]})
    return to_xlsx_bytes({"Resumo": summary, "Demonstrativo": lines, "Gastos do pesquisador": survey,
                          "Bens adjudicados": adjudicated, "Observações": notes},
                         money_columns={"Demonstrativo": ["Valor"], "Bens adjudicados": ["Valor"],
                                        "Gastos do pesquisador": ["Previsto", "Real", "Excesso aprovado",
                                                                  "Aceito", "Variação"],
                                        "Resumo": [], "Observações": []})
