"""Process numbers on the full demo (issue 26 §3): every request, decision, issued statement and removal order
has a NUP; the statement's PDF and the minutes print it; Prazos finds a case by its NUP (with or without
punctuation; a wrong check digit refused naming the field; an explorer never finds a DPC record)."""
from __future__ import annotations

import io
from pathlib import Path

import openpyxl
import pypdf
import pytest

from tests.support.db_copies import copy_database
from tests.support.ui import first_user, open_expander, page_as, texts
from valuation.commission.minutes import round_minutes_pdf
from valuation.core import nup
from valuation.db.store import Store
from valuation.partition.documents import render_xlsx
from valuation.partition.statement_reads import load_statement
from valuation.process import cases
from valuation.process.numbers import SUBJECTS


@pytest.fixture(scope="module")
def demo_numbers(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory):
    # a copy of its own: drawing the minutes registers the issued document (a write)
    db = copy_database(full_demo_db, tmp_path_factory.mktemp("numbers") / "demo.duckdb")
    dpc = first_user(db, "dpc")
    with Store(db) as s:
        counts = {k: (int(s.scalar(f"SELECT count(*) FROM ({sub.rows_sql})")),
                      int(s.scalar("SELECT count(*) FROM process_numbers WHERE subject = ?", [k])))
                  for k, sub in SUBJECTS.items() if k != "appeal"}
        # an appeal is a document of its decision's process (issue 42 item 2): no NUP of its own
        counts["appeal documents"] = (int(s.scalar("SELECT count(*) FROM appeals")),
                                      int(s.scalar("SELECT count(*) FROM process_documents WHERE subject = 'appeal'")))
        assert not s.scalar("SELECT count(*) FROM process_numbers WHERE subject = 'appeal'")
        given = s.fetch("SELECT nup, subject, subject_id FROM process_numbers ORDER BY id")
        pdf = s.scalar("SELECT s.pdf FROM statements s WHERE s.status = 'emitido' ORDER BY s.id LIMIT 1")
        statement = s.scalar("SELECT nup FROM process_numbers WHERE subject = 'statement' ORDER BY id LIMIT 1")
        round_id = s.scalar("SELECT subject_id FROM process_numbers WHERE subject = 'round' ORDER BY id LIMIT 1")
        minutes = round_minutes_pdf(s, dpc, int(round_id))
        issued = int(s.scalar("SELECT subject_id FROM process_numbers WHERE subject = 'statement' ORDER BY id LIMIT 1"))
        doc = load_statement(s, issued, item_limit=10)
        xlsx = render_xlsx(doc, doc.items)
    yield counts, given, pdf, statement, minutes, round_id, xlsx


def _pdf_text(data: bytes) -> str:
    return " ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)


def test_every_numbered_record_of_the_demo_has_a_valid_nup(demo_numbers):
    counts, given, pdf, statement, minutes, round_id, xlsx = demo_numbers
    assert all(total == numbered and total > 0 for total, numbered in counts.values()), counts
    assert all(nup.is_valid(r["nup"]) for r in given)
    assert nup.format_nup(statement) in _pdf_text(pdf)                      # the issued statement's PDF
    numbered_round = next(r["nup"] for r in given if r["subject"] == "round" and r["subject_id"] == round_id)
    assert nup.format_nup(numbered_round) in _pdf_text(minutes)            # the Commission's minutes
    summary = openpyxl.load_workbook(io.BytesIO(xlsx)).worksheets[0]
    assert ["NUP", nup.format_nup(statement)] in [[c.value for c in row][:2] for row in summary.iter_rows()]


def test_prazos_finds_a_case_by_its_nup(demo_numbers, full_demo_db: Path, tmp_path: Path):
    _, given, *_ = demo_numbers
    order = next(r["nup"] for r in given if r["subject"] == "removal_order")
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    at = open_expander(page_as(db, first_user(db, "dpc"), "deadlines"), "Buscar processo pelo NUP")
    box = next(t for t in at.text_input if t.label == cases.FIELD)
    box.set_value(order).run()                                  # the 17 digits, no punctuation
    assert not at.exception, at.exception
    shown = texts(at)
    assert f"NUP {nup.format_nup(order)}" in shown and "Determinação de remoção" in shown
    wrong = nup.format_nup(order)[:-1] + str((int(order[-1]) + 1) % 10)
    next(t for t in at.text_input if t.label == cases.FIELD).set_value(wrong).run()
    errors = " ".join(str(e.value) for e in at.error).replace("\\", "")   # as Markdown renders it
    assert f"{cases.FIELD}: Dígito verificador" in errors
    explorer = open_expander(page_as(db, first_user(db, "explorer"), "deadlines"), "Buscar processo pelo NUP")
    next(t for t in explorer.text_input if t.label == cases.FIELD).set_value(nup.format_nup(order)).run()
    assert "Nenhum processo com o NUP" in texts(explorer) and "Determinação de remoção" not in texts(explorer)


def test_the_removal_orders_show_their_nup(demo_numbers, full_demo_db: Path, tmp_path: Path):
    _, given, *_ = demo_numbers
    orders = {nup.format_nup(r["nup"]) for r in given if r["subject"] == "removal_order"}
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    at = page_as(db, first_user(db, "dpc"), "domain")
    assert not at.exception, at.exception
    shown = {v for df in at.dataframe if "NUP" in df.value.columns for v in df.value["NUP"]}
    assert orders <= shown, (orders, shown)


def test_the_calendar_page_shows_and_sets_an_offices_protocol_unit(full_demo_db: Path, tmp_path: Path):
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    at = page_as(db, first_user(db, "dpc"), "calendar")
    assert not at.exception, at.exception
    next(s for s in at.selectbox if s.label == "Capitania/Delegacia/Agência").set_value("CPRJ").run()
    assert "Código 64101" in texts(at)                  # CPRJ, the demo's first office, with its demo code
    box = next(t for t in at.text_input if t.label == "Código da unidade protocolizadora")
    box.set_value("12a45")
    next(b for b in at.button if b.label == "Gravar código").click().run()
    assert "Código da unidade protocolizadora: informe os 5 dígitos" in " ".join(str(e.value) for e in at.error
                                                                                 ).replace("\\", "")
    # CPRJ's unit numbered the demo's acts (its requests and appeals among them): its code no longer changes
    next(t for t in at.text_input if t.label == "Código da unidade protocolizadora").set_value("77777")
    next(b for b in at.button if b.label == "Gravar código").click().run()
    assert "já numerou processos: seu código não muda" in " ".join(str(e.value) for e in at.error).replace("\\", "")
    with Store(db, migrate=False) as s:   # an office whose unit numbered nothing yet may correct its code
        idle = s.scalar("SELECT min(u.office_code) FROM protocol_units u WHERE u.unit_code NOT IN "
                        "(SELECT unit_code FROM process_numbers)")
    next(s for s in at.selectbox if s.label == "Capitania/Delegacia/Agência").set_value(idle).run()
    next(t for t in at.text_input if t.label == "Código da unidade protocolizadora").set_value("77777")
    next(b for b in at.button if b.label == "Gravar código").click().run()
    assert not at.exception, at.exception
    assert "Código 77777" in texts(at)
