"""Every issued PDF carries its verification code, CRC and QR on every page, and is registered (issue 27).

Read back with independent readers: pypdf's text extraction for the footer, and the QR image of each
page read module by module and compared with the matrix segno makes of the expected address (no QR
decoder is installed on this machine: the image must *be* that code's QR).
"""
from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path
from typing import Any

import duckdb
import openpyxl
import pypdf
import pytest
import segno

import valuation
from tests.support.commission import run_round
from tests.support.partition import AS_OF, T1, prepare, ready_a1
from valuation.authenticity import registry
from valuation.authenticity.codes import ALPHABET, Stamp, crc_of
from valuation.commission import minutes
from valuation.db import seals
from valuation.db.store import Store
from valuation.exports import PdfReport
from valuation.exports import stamp as stamping
from valuation.partition import statement_reads, statements

CODE_LINE = re.compile(r"Código de verificação ([0-9A-Z]{5})-([0-9A-Z]{5}) · CRC")


def pages_text(data: bytes) -> list[str]:
    return [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages]


def qr_modules(data: bytes) -> list[list[list[bool]]]:
    """Per page, the dark/light modules of its one QR image (scale 4, quiet zone 4, as exports.stamp)."""
    out = []
    for page in pypdf.PdfReader(io.BytesIO(data)).pages:
        images = list(page.images)
        assert len(images) == 1, len(images)
        img = images[0].image.convert("L")
        side = img.width // 4 - 8
        out.append([[img.getpixel((4 * (4 + c) + 2, 4 * (4 + r) + 2)) < 128 for c in range(side)]
                    for r in range(side)])
    return out


def expected_modules(payload: str) -> list[list[bool]]:
    return [[bool(v) for v in row] for row in segno.make_qr(payload, error="m").matrix]


def assert_stamped(data: bytes, code: str, crc: str, payload: str) -> None:
    texts = pages_text(data)
    assert len(texts) >= 1
    for n, text in enumerate(texts, start=1):
        found = CODE_LINE.search(text)
        assert found and found.group(1) + found.group(2) == code, (n, text[-400:])
        assert crc in text and "/verificar" in text, (n, text[-400:])
    want = expected_modules(payload)
    assert all(page == want for page in qr_modules(data))


def test_a_report_with_a_stamp_carries_code_crc_and_qr_on_every_page(monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import datetime

    def build(stamp: Stamp) -> bytes:
        report = PdfReport("Relatório de teste", "três páginas", generated_at=datetime(2026, 12, 2, 9, 0), stamp=stamp)
        for i in range(130):
            report.paragraph(f"Linha {i} do corpo do relatório.")
        return report.bytes()

    stamp = Stamp("ABCDE12345", "https://painel.exemplo", nup="60000.000123/2026-45")
    data = build(stamp)
    assert stamp.crc is not None and len(pages_text(data)) >= 3
    assert_stamped(data, "ABCDE12345", stamp.crc, "https://painel.exemplo/verificar?codigo=ABCDE-12345")
    assert all("NUP 60000.000123/2026-45" in t for t in pages_text(data))
    # the CRC is the CRC-32 of the same document before the CRC was stamped
    monkeypatch.setattr(stamping, "stamp_crc", lambda data, *a: data)
    before = build(Stamp("ABCDE12345", "https://painel.exemplo", nup="60000.000123/2026-45"))
    assert crc_of(before) == stamp.crc and before != data
    assert stamp.crc not in "".join(pages_text(before)).split("CRC", 1)[1][:20]


def test_a_report_without_a_stamp_has_no_code_and_no_nup_line() -> None:
    data = PdfReport("Sem código").paragraph("x").bytes()
    text = pages_text(data)[0]
    assert "Código de verificação" not in text and "NUP" not in text
    assert not list(pypdf.PdfReader(io.BytesIO(data)).pages[0].images)


@pytest.fixture
def issued(small_world: Any) -> tuple[Any, Any]:
    prepare(small_world)
    ready_a1(small_world)
    dpc = small_world.principal("dpc")
    draft = statements.create_draft(small_world.store, dpc, "A-1", as_of=AS_OF, now=T1)
    return small_world, statements.issue_statement(small_world.store, dpc, draft, now=T1)


def test_an_issued_statement_is_registered_with_the_digest_of_its_stored_pdf(issued: tuple[Any, Any]) -> None:
    world, doc = issued
    dpc = world.principal("dpc")
    pdf = statement_reads.statement_pdf(world.store, dpc, doc.id)
    row = world.store.fetch_one("SELECT * FROM issued_documents WHERE record_table = 'statements' AND record_id = ?",
                                [doc.id])
    assert row is not None and row["kind"] == "statement" and row["office"] == registry.DPC
    assert row["sha256"] == hashlib.sha256(pdf).hexdigest() == doc.pdf_sha256 and row["size"] == len(pdf)
    assert set(row["code"]) <= set(ALPHABET)
    assert_stamped(pdf, row["code"], row["crc"], f"http://127.0.0.1:8501/verificar?codigo={row['code'][:5]}-"
                                                 f"{row['code'][5:]}")
    answer = registry.lookup(world.store, f"{row['code'][:5]}-{row['code'][5:]}".lower())
    assert answer is not None and answer.kind == "statement" and answer.sha256 == row["sha256"]
    assert answer.nup is None and answer.signature == "sem assinatura eletrônica registrada"
    assert registry.same_bytes(world.store, row["code"], pdf) is True
    assert registry.same_bytes(world.store, row["code"], pdf + b"% acrescentado\n") is False
    assert registry.lookup(world.store, "ZZZZZ-ZZZZZ") is None


def test_the_statements_xlsx_carries_its_code_in_its_properties_and_first_sheet(issued: tuple[Any, Any]) -> None:
    world, doc = issued
    code = world.store.scalar("SELECT code FROM issued_documents WHERE record_id = ?", [doc.id])
    book = openpyxl.load_workbook(io.BytesIO(statement_reads.statement_xlsx(world.store, world.principal("dpc"),
                                                                             doc.id)))
    printed = f"{code[:5]}-{code[5:]}"
    assert printed in (book.properties.keywords or "")
    first = book.worksheets[0]
    assert first.title == "Resumo" and first["A2"].value == "Código de verificação" and first["B2"].value == printed


def test_the_minutes_are_issued_with_a_code_on_every_page(small_world: Any) -> None:
    panel, round_id = run_round(small_world, until="published")
    data = minutes.round_minutes_pdf(small_world.store, panel["navy1"], round_id)
    row = small_world.store.fetch_one("SELECT * FROM issued_documents WHERE kind = 'minutes' AND record_id = ?",
                                      [round_id])
    assert row is not None and row["sha256"] == hashlib.sha256(data).hexdigest()
    assert_stamped(data, row["code"], row["crc"], f"http://127.0.0.1:8501/verificar?codigo={row['code'][:5]}-"
                                                  f"{row['code'][5:]}")


def test_a_registry_row_changed_behind_the_applications_back_is_named(issued: tuple[Any, Any]) -> None:
    world, doc = issued
    row_id = int(world.store.scalar("SELECT id FROM issued_documents WHERE record_id = ?", [doc.id]))
    assert seals.verify(world.store)[0]
    world.store.close()
    con = duckdb.connect(str(world.path))
    con.execute("UPDATE issued_documents SET sha256 = repeat('0', 64) WHERE id = ?", [row_id])
    con.close()
    with Store(world.path) as s:
        ok, message = seals.verify(s)
    assert not ok and f"Tabela issued_documents, registro {row_id}" in message, message



def test_a_record_with_a_nup_prints_it_in_the_footer_and_verificar_answers_it(small_world: Any) -> None:
    """An act numbered by its office's protocol unit (process.numbers, Portaria Interministerial 11/2019)
    prints its NUP in the footer of every page, and /verificar's answer carries it; without a unit
    nothing is printed (the tests above)."""
    from valuation.process import numbers

    prepare(small_world)
    ready_a1(small_world)
    dpc = small_world.principal("dpc")
    s = small_world.store
    office = str(s.scalar("SELECT office_code FROM contracts WHERE code = 'A-1'"))
    numbers.set_protocol_unit(s, dpc, office, "60000")
    draft = statements.create_draft(s, dpc, "A-1", as_of=AS_OF, now=T1)
    doc = statements.issue_statement(s, dpc, draft, now=T1)
    pdf = statement_reads.statement_pdf(s, dpc, doc.id)
    code = s.scalar("SELECT code FROM issued_documents WHERE record_id = ?", [doc.id])
    answer = registry.lookup(s, code)
    given = numbers.nup_of(s, "statement", doc.id)
    assert given is not None and given.startswith("60000.")
    assert all(f"NUP {given}" in t for t in pages_text(pdf))
    assert answer is not None and answer.nup == given


def _footer_runs(data: bytes) -> tuple[tuple[float, str], tuple[float, str]]:
    """(x in points, text) of the footer's '… · CRC ' run and of the stamped CRC run, on page 1."""
    runs: list[tuple[float, str]] = []
    pypdf.PdfReader(io.BytesIO(data)).pages[0].extract_text(
        visitor_text=lambda text, cm, tm, font, size: runs.append((float(tm[4]), text)) if text.strip() else None)
    label = next(r for r in runs if r[1].startswith("Código de verificação"))
    return label, runs[-1]


def test_the_crc_is_printed_one_space_after_its_label() -> None:
    """Issue 43, item 12: the footer read 'CRC12E6B229' — the CRC was drawn where the label's cell ended, and that
    cell's text starts a cell margin in, so the CRC covered the space after 'CRC'."""
    from fpdf import FPDF

    stamp = Stamp("ABCDE12345", "https://painel.exemplo")
    data = PdfReport("Rodapé", stamp=stamp).paragraph("corpo").bytes()
    (label_x, label), (crc_x, crc) = _footer_runs(data)
    assert crc == stamp.crc and label.endswith("· CRC ")
    measure = FPDF(unit="pt")
    measure.add_font("DejaVu", "B", str(Path(valuation.__file__).parent / "fonts" / "DejaVuSans-Bold.ttf"))
    measure.set_font("DejaVu", "B", stamping.TEXT_PT)
    label_end, space = label_x + measure.get_string_width(label), measure.get_string_width(" ")
    assert label_end - 0.01 <= crc_x <= label_end + space, (label_end, crc_x)
