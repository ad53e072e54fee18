"""The documents an auditor signs (issue 11 item 8), read back with independent readers:

- the statement PDF lists gross → deductions → net in that order, states how much of the net is paid
  in items and how much in cash, shows the inspection expenses in their own section with their
  effect (borne by the concessionaire, outside the net), names the issuer by full name and post
  (never the username) and prints Brasília time;
- PDF tables never break an item code or an amount inside, and "R$" stays with its amount;
- the XLSX "Resumo" holds amounts and dates as typed cells with formats, never text;
- the minutes print the time zone, their timestamps converted from the store's UTC.
"""
from __future__ import annotations

import io
import re
from datetime import date, datetime
from decimal import Decimal

import openpyxl
import pypdf
import pytest

from tests.support.commission import run_round
from tests.support.partition import A1_NET, AS_OF, T1, prepare, ready_a1
from valuation.commission import minutes
from valuation.core.money import format_brl
from valuation.exports import PdfReport
from valuation.partition import statement_reads, statements
from valuation.partition import survey_sheets as S
from valuation.partition.documents import statement_parts

D = Decimal


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages)


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.fixture
def issued(small_world):
    """A-1's first statement, with a travel expense and the inspectors' insurance recorded."""
    prepare(small_world)
    ready_a1(small_world)
    dpc = small_world.principal("dpc")
    S.record_inspection_expense(small_world.store, dpc, "A-1", {
        "kind": "deslocamento", "description": "Passagens do fiscal", "amount": "1.234,50",
        "incurred_on": date(2025, 5, 2)})
    S.record_inspection_expense(small_world.store, dpc, "A-1", {
        "kind": "seguro", "description": "Seguro de vida dos fiscais", "amount": "800,00",
        "incurred_on": date(2025, 5, 1), "policy_number": "AP-77", "coverage_from": date(2025, 5, 1),
        "coverage_to": date(2025, 12, 31)})
    draft = statements.create_draft(small_world.store, dpc, "A-1", as_of=AS_OF, now=T1)
    doc = statements.issue_statement(small_world.store, dpc, draft, now=T1)
    return small_world, doc


def test_the_statement_pdf_reads_in_the_auditors_order(issued):
    world, doc = issued
    dpc = world.principal("dpc")
    text = flat(pdf_text(statement_reads.statement_pdf(world.store, dpc, doc.id)))
    # gross → deductions → net, in that order, and the net is the page's
    gross, deductions, net = (text.index("2. Valor bruto"), text.index("3. Deduções"),
                              text.index("Valor líquido em favor do concessionário"))
    assert gross < deductions < net
    assert f"Valor líquido em favor do concessionário {format_brl(A1_NET)}" in text
    # how much is paid in items and how much in cash, adding up to the net
    parts = statement_parts(doc)
    assert parts.in_items == doc.items_value > 0 and parts.in_items + parts.in_cash == A1_NET
    assert f"Em bens adjudicados (entregues ao concessionário) {format_brl(parts.in_items)}" in text
    assert f"Em dinheiro {format_brl(parts.in_cash)}" in text
    assert text.index("4. Forma de pagamento do valor líquido") > net
    # inspection expenses in their own labelled section, with their effect on the net
    section = text[text.index("Despesas de fiscalização e seguro dos fiscais (NORMAM-10 0306)"):]
    assert "Deslocamento R$ 1.234,50 nenhum: a cargo do concessionário" in section
    assert "Seguro dos fiscais R$ 800,00 nenhum: a cargo do concessionário" in section
    assert "Total a cargo do concessionário (fora do valor líquido) R$ 2.034,50" in section
    assert "não entram no valor bruto nem são deduzidas do valor líquido" in section
    # ... and they are not inside the gross part
    assert "Deslocamento" not in text[gross:deductions]
    # the issuer by full name and post, never the username; Brasília time (T1 is 14:00 UTC)
    assert f"Emitido por {dpc.full_name}, Diretoria de Portos e Costas — Autoridade Naval" in text
    assert dpc.username not in text
    assert "Emitido em 10/03/2026 11:00 (horário de Brasília)" in text
    assert "Gerado em 10/03/2026 às 11:00 (horário de Brasília)" in text
    assert "V_h" not in text and "V_n" not in text


def test_pdf_tables_keep_codes_and_amounts_whole():
    codes = [f"DPC-EX-2015/01-{n:05d}" for n in (210, 141, 223)]
    amounts = [D("115666.14"), D("1234567.89"), D("-5500.00")]
    report = PdfReport("Bens", generated_at=datetime(2026, 1, 2, 3, 4))
    # weights that would cut the code and the amount columns (as the statement's item table did)
    report.table(["Item", "Descrição", "Grupo", "Signif.", "Valor"],
                 [(c, "Moeda de 8 reales (cunho de Potosí ou do México)", "histórico (art. 20 §4)", "3", a)
                  for c, a in zip(codes, amounts)], col_widths=[1, 8, 3.2, 1.2, 1], align=["L", "L", "L", "C", "R"])
    report.paragraph("Valor total " + "muito " * 14 + f"longo {format_brl(D('549717.90'))}.")
    lines = pdf_text(report.bytes()).splitlines()
    for code in codes:
        assert any(code in line for line in lines), (code, lines)
    for amount in amounts:
        assert any(format_brl(amount) in line for line in lines), (amount, lines)
    assert not any(line.rstrip().endswith("R$") for line in lines), lines


def test_the_xlsx_summary_holds_numbers_and_dates(issued):
    world, doc = issued
    xlsx = statement_reads.statement_xlsx(world.store, world.principal("dpc"), doc.id)
    book = openpyxl.load_workbook(io.BytesIO(xlsx))
    rows = {r[0].value: r[1] for r in book["Resumo"].iter_rows(min_row=2)}
    for field, expected in (("Valor bruto", doc.gross), ("Valor líquido em favor do concessionário", A1_NET),
                            ("Pago em bens adjudicados", doc.items_value),
                            ("Pago em dinheiro", A1_NET - doc.items_value),
                            ("Despesas de fiscalização a cargo do concessionário (fora do valor líquido)",
                             D("2034.50"))):
        cell = rows[field]
        assert isinstance(cell.value, (int, float)) and not isinstance(cell.value, bool), (field, cell.value)
        assert D(str(cell.value)).quantize(D("0.01")) == expected, field
        assert "R$" in cell.number_format, (field, cell.number_format)
    deductions = rows["(−) Deduções"]
    assert isinstance(deductions.value, (int, float)) and deductions.value < 0
    base = rows["Data-base"]
    assert isinstance(base.value, datetime) and base.value.date() == AS_OF and base.number_format == "dd/mm/yyyy"
    issued_at = rows["Emitido em (horário de Brasília)"]
    assert issued_at.value == datetime(2026, 3, 10, 11, 0) and "hh:mm" in issued_at.number_format
    count = rows["Bens adjudicados (quantidade)"]
    assert count.value == doc.items_total and "R$" not in count.number_format
    assert rows["Emitido por"].value.startswith(world.principal("dpc").full_name)
    # the lines sheet follows the PDF's order: gross part, deductions, net, then the rest
    parts = [r[1] for r in book["Demonstrativo"].iter_rows(min_row=2, values_only=True)]
    order = ["Valor bruto", "Deduções", "Valor líquido"]
    firsts = [parts.index(p) for p in order]
    assert firsts == sorted(firsts) and parts[-1] == "Despesas de fiscalização (fora do valor líquido)"


def test_the_minutes_print_brasilia_time(small_world):
    panel, round_id = run_round(small_world, until="published")
    rnd = small_world.store.fetch_one("SELECT opened_at FROM assessment_rounds WHERE id = ?", [round_id])
    text = flat(pdf_text(minutes.round_minutes_pdf(small_world.store, panel["navy1"], round_id,
                                                   generated_at=datetime(2026, 12, 1, 10, 0))))
    from valuation.exports import brasilia_time
    opened = brasilia_time(rnd["opened_at"]).strftime("%d/%m/%Y %H:%M")
    assert f"Aberta em {opened} (horário de Brasília)" in text
    assert "todos os horários desta ata estão no horário de Brasília" in text
    assert "Gerado em 01/12/2026 às 10:00 (horário de Brasília)" in text
