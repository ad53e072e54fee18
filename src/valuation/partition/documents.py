"""The partition statement as a document: its record types and its PDF and XLSX renderings.

A statement (demonstrativo de partilha, Lei 7.542/1986 arts. 20–22; NORMAM-10 0303 c 2 I
and 0305) is stored by `valuation.partition.statements`; this module only renders what was
stored, so an issued statement renders from immutable rows. Every amount line carries
its legal basis. The PDF lists the adjudicated items up to `PDF_ITEM_LIMIT` (fpdf2 lays
out ~150 table rows per second); the XLSX annex always lists them all.

Pure: no database, no clock (`generated_at` is the statement's own timestamp).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from valuation.core.money import format_brl, format_count, format_date_br, format_share
from valuation.core.statuses import STATEMENT_DRAFT, STATEMENT_ISSUED
from valuation.exports import PdfReport, brasilia_text, brasilia_time, to_xlsx_bytes
from valuation.partition.contract_law import modality_labels
from valuation.partition.salvage import factor_rows

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
STATUS_LABELS: dict[str, str] = {STATEMENT_DRAFT: "rascunho", STATEMENT_ISSUED: "emitido"}
# Who issues: the DPC, on behalf of the Naval Authority (Lei 7.542/1986 art. 20 ss.; NORMAM-10 0303).
ISSUER_POST = "Diretoria de Portos e Costas — Autoridade Naval"
DEDUCTION_KEYS = ("survey_deduction",)
CREDIT_KEYS = ("surveyor_credit", "survey_uncovered")
TOTAL_KEYS = ("gross", "net")
INSPECTION_PREFIX = "inspection:"
INSPECTION_EFFECT = "nenhum: a cargo do concessionário"
INSPECTION_NOTE = ("As despesas de deslocamento, alimentação e pousada dos fiscais designados pela Marinha e o seguro "
                   "obrigatório em favor deles são de responsabilidade do concessionário (NORMAM-10 (ed. 2002) 0306 a "
                   "e b): "
                   "pagas por ele, não entram no valor bruto nem são deduzidas do valor líquido; constam aqui "
                   "para registro.")


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
    issuer_name: str | None = None    # full name of created_by (the username is never printed)
    nup: str | None = None            # an issued statement's process number (Portaria Interministerial 11/2019)

    @property
    def label(self) -> str:
        if self.status == STATEMENT_ISSUED:
            return f"{self.number} v{self.version}"
        return f"Rascunho nº {self.id}"

    @property
    def is_issued(self) -> bool:
        return self.status == STATEMENT_ISSUED

    @property
    def issuer(self) -> str:
        """'CF Fulano de Tal (DPC), Diretoria de Portos e Costas — Autoridade Naval'."""
        return f"{self.issuer_name or 'Diretoria de Portos e Costas'}, {ISSUER_POST}"


@dataclass(frozen=True)
class StatementParts:
    """The statement in the order an auditor reads it: what makes the gross value, the deductions,
    the net, how the net is paid (in items, in cash), the surveyor's credit and the inspection
    expenses, which the concessionaire bears outside the net (NORMAM-10 0306)."""

    gross_lines: tuple[StatementLine, ...]
    gross: Decimal
    deduction_lines: tuple[StatementLine, ...]
    net: Decimal
    credit_lines: tuple[StatementLine, ...]
    inspection_lines: tuple[StatementLine, ...]
    in_items: Decimal           # value of the adjudicated items (paid in kind)
    items: int

    @property
    def deductions(self) -> Decimal:
        return sum((ln.amount or Decimal("0.00") for ln in self.deduction_lines), Decimal("0.00"))

    @property
    def in_cash(self) -> Decimal:
        return self.net - self.in_items

    @property
    def inspection_total(self) -> Decimal:
        return sum((ln.amount or Decimal("0.00") for ln in self.inspection_lines), Decimal("0.00"))


def statement_parts(doc: StatementDoc) -> StatementParts:
    """`doc`'s lines grouped as `StatementParts` (by their stored keys, so issued statements group too)."""
    def pick(test: Callable[[str], bool]) -> tuple[StatementLine, ...]:
        return tuple(ln for ln in doc.lines if test(ln.key))

    inspection = pick(lambda k: k.startswith(INSPECTION_PREFIX))
    return StatementParts(
        gross_lines=pick(lambda k: k not in (*DEDUCTION_KEYS, *CREDIT_KEYS, *TOTAL_KEYS)
                         and not k.startswith(INSPECTION_PREFIX)),
        gross=doc.gross, deduction_lines=pick(lambda k: k in DEDUCTION_KEYS), net=doc.net,
        credit_lines=pick(lambda k: k in CREDIT_KEYS), inspection_lines=inspection,
        in_items=doc.items_value, items=doc.items_total)


def payment_rows(doc: StatementDoc, parts: StatementParts) -> list[tuple[str, Decimal, str]]:
    """How the net is paid: (form, amount, note) — in adjudicated items, then in cash."""
    items = f"{format_count(parts.items)} bem(ns), listados adiante" if parts.items else "nenhum bem adjudicado"
    cash = "saldo do valor líquido" if parts.in_cash >= 0 else \
        "a dedução excede a parte em dinheiro: a diferença não é paga em dinheiro por este demonstrativo"
    return [("Em bens adjudicados (entregues ao concessionário)", parts.in_items, items),
            ("Em dinheiro", parts.in_cash, cash)]


# One sentence of the explanation: (text, emphasised) segments, so that a page can escape the
# text it did not write (a wreck's name) and still set the amounts in bold.
Sentence = tuple[tuple[str, bool], ...]


def _brl_text(amount: Decimal | None) -> str:
    """'R$\u00a01.234,56': in running text 'R$' never parts from its amount at a line break."""
    return format_brl(amount).replace("R$ ", "R$\u00a0")


def net_explanation(doc: StatementDoc) -> tuple[Sentence, ...]:
    """The net amount in plain words, for the concessionaire (what it receives, what is deducted,
    what comes as items): the explorer's view of its statement."""
    deduction = next((ln.amount for ln in doc.lines if ln.key == "survey_deduction"), None)
    out: list[Sentence] = [(("Pelo contrato ", False), (doc.contract_code, True), (f" ({doc.wreck_name}), a sua "
                            "empresa tem direito a ", False), (_brl_text(doc.gross), True),
                            (" no total (valor bruto).", False))]
    if deduction:
        out.append((("Desse valor são descontados ", False), (_brl_text(-deduction), True),
                    (" dos gastos do pesquisador que localizou o naufrágio (NORMAM-10 (ed. 2002) 0303 c 2 I).", False)))
    out.append((("Valor líquido: ", False), (_brl_text(doc.net), True),
                (f", na data-base de {format_date_br(doc.as_of)}.", False)))
    if doc.items_total:
        out.append((("Desse total, ", False), (f"{format_count(doc.items_total)} bem(ns)", True),
                    (" no valor de ", False), (_brl_text(doc.items_value), True),
                    (" lhe são entregues (adjudicados) em vez de dinheiro; a lista está abaixo. Em dinheiro: ", False),
                    (_brl_text(doc.net - doc.items_value), True), (".", False)))
    if doc.cancelled:
        out.append((("O contrato foi cancelado: não há recompensa, salvo a compensação indicada (art. 22).", False),))
    return tuple(out)


def _terms_rows(doc: StatementDoc) -> list[tuple[str, object]]:
    t = doc.terms
    rows: list[tuple[str, object]] = []
    modality = t.get("modality")
    label = (modality_labels(t.get("law_text"), MODALITY_LABELS).get(modality) if isinstance(modality, str)
             else None)
    if t.get("law_text_line"):   # statements issued before the law of the contract's date was stated lack it
        rows.append(("Texto legal aplicado (arts. 20–21)", t["law_text_line"]))
    rows.append(("Modalidade (art. 21)", label or modality or "—"))
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
        rows += factor_rows(t.get("salvage_assessment"))   # the factors the Authority weighed (Lei 7.203/1984 art. 10)
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
    """The statement in Portuguese, in the order an auditor checks it: header (issuer by name and
    post), terms, gross value, deductions, net, how the net is paid (items / cash), the surveyor's
    credit, the inspection expenses borne by the concessionaire, the surveyor's cost lines, the
    adjudicated items and the notes; every amount line with its legal basis."""
    title = (f"Demonstrativo de partilha {doc.label}" if doc.is_issued
             else f"RASCUNHO — Demonstrativo de partilha (nº {doc.id}, sem valor de documento emitido)")
    report = PdfReport(title, f"Contrato {doc.contract_code} — {doc.wreck_name} ({doc.wreck_code})",
                       generated_at=brasilia_time(doc.created_at))
    parts = statement_parts(doc)
    report.key_values(_header_rows(doc))
    n = iter(range(1, 20))
    report.heading(f"{next(n)}. Termos do contrato")
    report.key_values(_terms_rows(doc))
    if doc.cancelled:
        report.paragraph("Contrato cancelado (Lei 7.542/1986 art. 22 parágrafo único; NORMAM-10 (ed. 2002) 0305): "
                         "nenhum "
                         "pagamento é devido, salvo a compensação com bens desprovidos de valor histórico ou o "
                         "produto de sua venda, mesmo em proporção inferior à contratada.")
    report.heading(f"{next(n)}. Valor bruto")
    _lines_table(report, parts.gross_lines)
    report.totals([("Valor bruto devido ao concessionário", parts.gross)])
    report.heading(f"{next(n)}. Deduções")
    if parts.deduction_lines:
        _lines_table(report, parts.deduction_lines)
    else:
        report.paragraph("Nenhuma dedução.")
    report.totals([("Valor bruto", parts.gross), ("(−) Deduções", parts.deductions),
                   ("Valor líquido em favor do concessionário", parts.net)])
    report.heading(f"{next(n)}. Forma de pagamento do valor líquido")
    report.table(["Forma", "Valor", "Observação"], payment_rows(doc, parts), col_widths=[5, 2.6, 6],
                 align=["L", "R", "L"])
    report.totals([("Valor líquido (em bens + em dinheiro)", parts.net)])
    if parts.credit_lines:
        report.heading(f"{next(n)}. Crédito ao pesquisador (NORMAM-10 (ed. 2002) 0303 c 2 I)")
        _lines_table(report, parts.credit_lines)
    report.heading(f"{next(n)}. Despesas de fiscalização e seguro dos fiscais (NORMAM-10 (ed. 2002) 0306)")
    report.paragraph(INSPECTION_NOTE)
    if parts.inspection_lines:
        report.table(["Despesa", "Valor", "Efeito no valor líquido", "Fundamento legal"],
                     [(ln.label, ln.amount, INSPECTION_EFFECT, ln.basis) for ln in parts.inspection_lines],
                     col_widths=[3.4, 2.4, 3.4, 4.8], align=["L", "R", "L", "L"])
        report.totals([("Total a cargo do concessionário (fora do valor líquido)", parts.inspection_total)])
    else:
        report.paragraph("Nenhuma despesa de fiscalização registrada para este contrato.")
    if doc.survey_lines:
        report.heading(f"{next(n)}. Gastos do pesquisador (NORMAM-10 (ed. 2002) 0301 a 6 e 0301 c)")
        _survey_table(report, doc.survey_lines)
    _items_section(report, doc, next(n))
    if doc.warnings or doc.blockers:
        report.heading("Observações")
        for text in (*doc.blockers, *doc.warnings):
            report.paragraph(f"• {text}")
    report.signature_lines([(doc.issuer_name or "Diretoria de Portos e Costas", ISSUER_POST),
                            (doc.organisation_name, "Concessionário")])
    return report.bytes()


def _header_rows(doc: StatementDoc) -> list[tuple[str, object]]:
    rows: list[tuple[str, object]] = [("NUP", doc.nup)] if doc.nup else []
    rows += [
        ("Contrato", f"{doc.contract_code} ({doc.contract_kind}; {doc.contract_act or 'ato sem número'})"),
        ("Concessionário", doc.organisation_name),
        ("Naufrágio", f"{doc.wreck_name} ({doc.wreck_code})"),
        ("Situação do contrato", doc.contract_status),
        ("Data-base", doc.as_of),
        ("Emitido em" if doc.is_issued else "Rascunho gerado em", brasilia_text(doc.created_at)),
        ("Emitido por" if doc.is_issued else "Rascunho gerado por", doc.issuer),
    ]
    if doc.surveyor_name:
        rows.append(("Pesquisador que localizou o bem", doc.surveyor_name))
    if doc.supersedes_label:
        rows.append(("Substitui", doc.supersedes_label))
        rows.append(("Motivo da correção", doc.correction_reason or "—"))
    return rows


def _lines_table(report: PdfReport, lines: Sequence[StatementLine]) -> None:
    report.table(["Descrição", "Valor", "Fundamento legal"], [(_line_text(ln), ln.amount, ln.basis) for ln in lines],
                 col_widths=[6, 2.4, 5.5], align=["L", "R", "L"])


def _survey_table(report: PdfReport, lines: Sequence[StatementSurveyLine]) -> None:
    """The surveyor's cost lines; the survey contract is named once when all lines share it."""
    surveys = sorted({s.survey_contract for s in lines})
    amounts = ["Previsto", "Real", "Excesso aprovado", "Aceito", "Variação"]
    if len(surveys) == 1:
        report.paragraph(f"Planilha de custos da pesquisa {surveys[0]}; aceito = o menor entre o real e o previsto "
                         "mais o excesso aprovado.")
        report.table(["Linha", *amounts], [(s.line, s.planned, s.actual, s.approved_overrun, s.accepted, s.variance)
                                           for s in lines], col_widths=[4, 2.2, 2.2, 2.2, 2.2, 2.2])
        return
    report.table(["Pesquisa", "Linha", *amounts],
                 [(s.survey_contract, s.line, s.planned, s.actual, s.approved_overrun, s.accepted, s.variance)
                  for s in lines], col_widths=[3, 4, 2.2, 2.2, 2.2, 2.2, 2.2])


def _items_section(report: PdfReport, doc: StatementDoc, number: int) -> None:
    report.heading(f"{number}. Bens adjudicados ao concessionário")
    if doc.items_total == 0:
        report.paragraph("Nenhum bem adjudicado.")
        return
    report.paragraph(f"{format_count(doc.items_total)} bem(ns), valor total {format_brl(doc.items_value)}.")
    report.table(["Item", "Descrição", "Grupo", "Signif.", "Valor"],
                 [(it.item_code, it.description, GROUP_LABELS.get(it.grp, it.grp),
                   "—" if it.significance is None else str(it.significance), it.value_brl)
                  for it in doc.items[:PDF_ITEM_LIMIT]],
                 col_widths=[2.2, 6.5, 3.2, 1.2, 2.4], align=["L", "L", "L", "C", "R"])
    shown = min(len(doc.items), PDF_ITEM_LIMIT)
    if doc.items_total > shown:
        report.paragraph(f"Listados acima os {format_count(shown)} primeiros bens por valor; a lista completa "
                         f"({format_count(doc.items_total)} bens) está no anexo XLSX deste demonstrativo "
                         f"({doc.label}).")


def _line_text(ln: StatementLine) -> str:
    return ln.label if not ln.detail else f"{ln.label}\n{ln.detail}"


def render_xlsx(doc: StatementDoc, items: Sequence[StatementItem]) -> bytes:
    """The statement as a workbook: a summary whose amounts and dates are numbers and dates (with
    formats, never text), the lines in the PDF's order with their basis, survey lines, every
    adjudicated item."""
    import pandas as pd

    parts = statement_parts(doc)
    summary_rows: list[tuple[str, object]] = [
        ("Demonstrativo", doc.label), ("Situação", STATUS_LABELS.get(doc.status, doc.status)),
        ("NUP", doc.nup or "—"), ("Contrato", doc.contract_code), ("Concessionário", doc.organisation_name),
        ("Naufrágio", f"{doc.wreck_name} ({doc.wreck_code})"), ("Data-base", doc.as_of),
        ("Emitido em (horário de Brasília)" if doc.is_issued else "Gerado em (horário de Brasília)",
         brasilia_time(doc.created_at)),
        ("Emitido por" if doc.is_issued else "Gerado por", doc.issuer),
        ("Valor bruto", parts.gross), ("(−) Deduções", parts.deductions),
        ("Valor líquido em favor do concessionário", parts.net),
        ("Pago em bens adjudicados", parts.in_items), ("Pago em dinheiro", parts.in_cash),
        ("Bens adjudicados (quantidade)", parts.items),
        ("Despesas de fiscalização a cargo do concessionário (fora do valor líquido)", parts.inspection_total),
    ]
    summary = pd.DataFrame({"Campo": [k for k, _ in summary_rows], "Valor": [v for _, v in summary_rows]})
    ordered = [("Valor bruto", ln) for ln in parts.gross_lines] \
        + [("Valor bruto", ln) for ln in doc.lines if ln.key == "gross"] \
        + [("Deduções", ln) for ln in parts.deduction_lines] \
        + [("Valor líquido", ln) for ln in doc.lines if ln.key == "net"] \
        + [("Crédito ao pesquisador", ln) for ln in parts.credit_lines] \
        + [("Despesas de fiscalização (fora do valor líquido)", ln) for ln in parts.inspection_lines]
    lines = pd.DataFrame({
        "Nº": [ln.line_no for _, ln in ordered],
        "Parte": [part for part, _ in ordered],
        "Descrição": [ln.label for _, ln in ordered],
        "Detalhe": [ln.detail or "" for _, ln in ordered],
        "Valor": [ln.amount for _, ln in ordered],
        "Fundamento legal": [ln.basis for _, ln in ordered],
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
                                        "Resumo": ["Valor"], "Observações": []})
