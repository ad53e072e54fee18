"""The documents a DPC office files about its requests (issue 26 §4): the Authority's own deadlines as sections of
the office's deadlines PDF, and the history of one case as an issued PDF (NUP, office, parties, steps, the
deadlines each step started with their bases), registered and stamped on every page; access as the history's.

The case is the one of tests/proceedings/test_requests.py, dates worked by hand there (w2, CPRJ, RJ calendar):
filed Tue 01/09/2026 → first act 01/09 + 5 = Sun 06/09, Mon 07/09 Independência → Tue 08/09 (art. 24), met 03/09;
opinion asked 10/09 + 15 = 25/09 (art. 42), never given: overdue on 30/11 by 66 days; instruction ended 01/10, the
party notified 02/10: allegations → Tue 13/10 (art. 44 from the ciência, the party's), 48 days late; decision →
Tue 03/11 (art. 49), 27 days late; a hearing on Fri 04/12 set on 20/11 → intimate by Tue 01/12 (arts. 26 §2 and
41), due soon.
"""
from __future__ import annotations

import hashlib
import io
from datetime import date, datetime
from typing import Any

import pypdf
import pytest

from tests.authenticity.test_issued_pdfs import CODE_LINE
from tests.proceedings.test_periods import RJ
from valuation.authenticity import registry
from valuation.core.errors import AccessDenied, NotFound
from valuation.db import seals
from valuation.deadlines.office_report import Section
from valuation.proceedings import periods, reports, requests

AS_OF = date(2026, 11, 30)
OWNER = "Companhia de Navegação Bahiana"   # the responsible of w2 (tests/conftest.py): a person's data
AT = datetime(2026, 12, 1, 9, 0)


def filed_case(world: Any) -> int:
    dpc = world.principal("dpc")
    request_id = requests.file_request(world.store, dpc, {
        "wreck_code": "NAU-1890-02", "requester_id": world.ids["owner1"], "filed_on": date(2026, 9, 1),
        "matter": "remoção", "organisation_id": world.ids["org_b"]})
    for kind, day, ref in (("instruction_opened", date(2026, 9, 3), None),
                           ("opinion_requested", date(2026, 9, 10), None),
                           ("instruction_ended", date(2026, 10, 1), None),
                           ("instruction_end_notified", date(2026, 10, 2), None),
                           ("hearing_set", date(2026, 11, 20), date(2026, 12, 4))):
        requests.record_step(world.store, dpc, request_id, {"kind": kind, "day": day, "reference_day": ref})
    return request_id


def pages(data: bytes) -> list[str]:
    return [" ".join(p.extract_text().split()) for p in pypdf.PdfReader(io.BytesIO(data)).pages]


# -- pure ------------------------------------------------------------------------------------------------------
def test_each_deadline_names_the_step_that_started_it() -> None:
    steps = [periods.Step("instruction_opened", date(2026, 9, 3)), periods.Step("opinion_requested", date(2026, 9, 10)),
             periods.Step("instruction_ended", date(2026, 10, 1)),
             periods.Step("instruction_end_notified", date(2026, 10, 2)),
             periods.Step("hearing_set", date(2026, 11, 20), date(2026, 12, 4))]
    got = {d.kind: d.started for d in periods.request_deadlines(date(2026, 9, 1), steps, RJ)}
    assert got == {"process_act": None, "process_opinion": steps[1], "process_intimation": steps[4],
                   "process_allegations": steps[3], "process_decision": steps[2]}


def _owed(rule: str, owed_by: str, state: str, due: date, late: int, basis: str) -> dict[str, Any]:
    return {"request_id": 7, "case_pt": "requerimento nº 7", "wreck": "NAU-1", "matter_pt": requests.MATTERS["remoção"],
            "organisation": "Beta S.A.",
            "label": periods.PERIOD_LABELS[rule], "owed_by": owed_by, "owed_by_pt": periods.OWED_BY_LABELS[owed_by],
            "due": due, "state": state, "days_late": late, "basis": basis}


def test_the_authoritys_deadlines_become_sections_with_who_owes_and_the_article() -> None:
    rows = [_owed("process_decision", periods.AUTHORITY, "overdue", date(2026, 11, 3), 27, "Lei 9.784/1999 art. 49"),
            _owed("process_opinion", periods.AUTHORITY, "overdue", date(2026, 9, 25), 66, "Lei 9.784/1999 art. 42"),
            _owed("process_intimation", periods.AUTHORITY, "due_soon", date(2026, 12, 1), 0,
                  "Lei 9.784/1999 arts. 26 §2 e 41"),
            _owed("process_allegations", periods.PARTY, "overdue", date(2026, 10, 13), 48, "Lei 9.784/1999 art. 44"),
            _owed("process_act", periods.AUTHORITY, "upcoming", date(2027, 1, 4), 0, "Lei 9.784/1999 art. 24")]
    overdue, soon, parties = reports.owed_sections(rows, {7: "60000.000123/2026-45"})
    assert overdue.heading == "Vencidos — a Autoridade Naval deve, nos requerimentos e recursos (2)"
    assert overdue.columns == reports.OWED_COLUMNS
    assert overdue.rows == (   # by due date; the case with its NUP, matter and wreck
        ("Emitir o parecer", "Requerimento nº 7, NUP 60000.000123/2026-45 — Autorização de remoção / NAU-1",
         "Beta S.A.", "Autoridade Naval", "25/09/2026 (66 dias de atraso)", "Lei 9.784/1999 art. 42"),
        ("Decidir o requerimento", "Requerimento nº 7, NUP 60000.000123/2026-45 — Autorização de remoção / NAU-1",
         "Beta S.A.", "Autoridade Naval", "03/11/2026 (27 dias de atraso)", "Lei 9.784/1999 art. 49"))
    assert soon.heading == "Vencem em breve — a Autoridade Naval deve, nos requerimentos e recursos (1)"
    assert soon.rows[0][4] == "01/12/2026" and soon.rows[0][5] == "Lei 9.784/1999 arts. 26 §2 e 41"
    assert parties.heading.endswith("(1)") and parties.rows[0][3] == "Interessado"
    assert parties.rows[0][5] == "Lei 9.784/1999 art. 44"
    assert reports.owed_sections([])[0].rows == ()   # an empty list still has its heading (0)


# -- the case's history ----------------------------------------------------------------------------------------
def test_the_history_lists_the_steps_and_the_deadlines_each_started_with_their_bases(small_world: Any) -> None:
    request_id = filed_case(small_world)
    dpc = small_world.principal("dpc")
    history = requests.request_history(small_world.store, dpc, request_id)
    deadlines = periods.request_deadlines(date(2026, 9, 1), periods.as_steps(history["steps"]),
                                          RJ)
    steps, owed, counted = reports.history_sections(history, deadlines, as_of=AS_OF, due_soon_days=7)
    assert [r[:3] for r in steps.rows] == [
        ("01/09/2026", "Protocolado", "—"), ("03/09/2026", "Instrução aberta", "—"),
        ("10/09/2026", "Parecer solicitado", "—"), ("01/10/2026", "Instrução encerrada", "—"),
        ("02/10/2026", "Interessado cientificado do encerramento da instrução (art. 44)", "—"),
        ("20/11/2026", "Comparecimento ou diligência marcada", "04/12/2026")]
    by_what = {r[1]: r for r in owed.rows}
    assert by_what["Primeiro ato da Autoridade (abrir a instrução)"][:5] == (
        "Protocolado em 01/09/2026", "Primeiro ato da Autoridade (abrir a instrução)", "Autoridade Naval",
        "08/09/2026, prorrogado de 06/09/2026 (domingo)", "Cumprido em 03/09/2026, no prazo")
    assert by_what["Emitir o parecer"][0] == "Parecer solicitado em 10/09/2026"
    assert by_what["Emitir o parecer"][3:5] == ("25/09/2026", "Vencido há 66 dias")
    assert "Lei 9.784/1999 art. 42" in by_what["Emitir o parecer"][5]
    assert by_what["Alegações finais do interessado"][0] == ("Interessado cientificado do encerramento da instrução "
                                                             "(art. 44) em 02/10/2026")
    assert by_what["Alegações finais do interessado"][2:5] == ("Interessado", "13/10/2026, prorrogado de 12/10/2026 "
                                                               "(segunda-feira)", "Vencido há 48 dias")
    assert by_what["Decidir o requerimento"][0] == "Instrução encerrada em 01/10/2026"
    assert by_what["Decidir o requerimento"][4] == "Vencido há 27 dias" and "art. 49" in by_what[
        "Decidir o requerimento"][5]
    assert by_what["Intimar o interessado"][0] == "Comparecimento ou diligência marcada em 20/11/2026"
    assert by_what["Intimar o interessado"][3:5] == ("01/12/2026", "Vence em breve")
    assert "arts. 26 §2 e 41" in by_what["Intimar o interessado"][5]
    assert len(counted.rows) == len(owed.rows) == 5 and "Vencimento: 25/09/2026" in counted.rows[1][1]
    decided = {**history, "steps": [*history["steps"], {"kind": "decided", "day": date(2026, 11, 25),
                                                        "label": "Decidido"}]}
    later = reports.history_sections(decided, deadlines, as_of=AS_OF, due_soon_days=7)[1]
    assert {r[1]: r[4] for r in later.rows}["Emitir o parecer"] == "Sem objeto: requerimento decidido em 25/11/2026"


def test_the_dpc_issues_the_case_history_stamped_on_every_page_and_registered(small_world: Any) -> None:
    request_id = filed_case(small_world)
    dpc, store = small_world.principal("dpc"), small_world.store
    extra = Section("Decisões e recursos (1)", (("25/11/2026", "Decisão de teste", "Lei 9.784/1999 art. 48"),),
                    ("Data", "Decisão", "Fundamento"))
    data = reports.case_history_pdf(store, dpc, request_id, as_of=AS_OF, extra=[extra], generated_at=AT,
                                    nup="60000.000123/2026-45")
    row = store.fetch_one("SELECT * FROM issued_documents WHERE kind = 'case_history' AND record_id = ?",
                          [request_id])
    assert row is not None and row["record_table"] == "requests" and row["sha256"] == hashlib.sha256(data).hexdigest()
    assert row["office"] == "Capitania dos Portos do Rio de Janeiro (CPRJ)" and row["nup"] == "60000.000123/2026-45"
    texts = pages(data)
    for text in texts:   # the code, the CRC and the NUP on every page
        found = CODE_LINE.search(text)
        assert found and found.group(1) + found.group(2) == row["code"] and row["crc"] in text
        assert "NUP 60000.000123/2026-45" in text
    whole = " ".join(texts)
    for shown in ("Histórico do processo administrativo", "Requerimento nº", "Capitania dos Portos do Rio de Janeiro "
                  "(CPRJ)", "NAU-1890-02", "Autorização de remoção", "Protocolado em 01/09/2026", OWNER,
                  "Beta Salvatagem S.A.", "Etapas do processo (6)", "Parecer solicitado", "Vencido há 66 dias",
                  "Lei 9.784/1999 art. 42", "Lei 9.784/1999 art. 49", "Lei 9.784/1999 art. 44",
                  "Decisões e recursos (1)", "Decisão de teste", "Lei 9.784/1999 art. 48"):
        assert shown in whole, shown
    assert whole.index("Prazos iniciados pelas etapas") < whole.index("Decisões e recursos (1)")
    answer = registry.lookup(store, row["code"])
    assert answer is not None
    assert answer.kind_label == "Histórico do processo administrativo (requerimento ou decisão e recursos)"
    assert answer.nup == "60000.000123/2026-45"
    assert seals.verify(store)[0]


def test_an_explorer_gets_its_own_companys_case_without_the_responsibles_name(small_world: Any) -> None:
    request_id = filed_case(small_world)
    store = small_world.store
    own = reports.case_history_pdf(store, small_world.principal("explorer_b"), request_id, as_of=AS_OF)
    whole = " ".join(pages(own))
    assert "NAU-1890-02" in whole and "Beta Salvatagem S.A." in whole
    assert OWNER not in whole and "nome não exibido" in whole
    assert "sem NUP" in whole or "NUP " in whole
    before = store.scalar("SELECT count(*) FROM issued_documents")
    with pytest.raises(NotFound):   # another company's case answers as missing, nothing is issued
        reports.case_history_pdf(store, small_world.principal("explorer_a"), request_id, as_of=AS_OF)
    for role in ("admin", "commission"):
        with pytest.raises(AccessDenied):
            reports.case_history_pdf(store, small_world.principal(role), request_id, as_of=AS_OF)
    with pytest.raises(NotFound):
        reports.case_history_pdf(store, small_world.principal("dpc"), 10 ** 9, as_of=AS_OF)
    assert store.scalar("SELECT count(*) FROM issued_documents") == before


# -- the office's PDF on the full demo ---------------------------------------------------------------------------
def test_the_office_pdf_of_the_full_demo_carries_the_authoritys_overdue_deadline(full_demo_db: Any,
                                                                                tmp_path: Any) -> None:
    from tests.support.db_copies import copy_database
    from tests.support.ui import first_user
    from valuation.db.store import Store
    from valuation.deadlines import office_report

    path = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    dpc = first_user(path, "dpc")
    with Store(path) as store:
        overdue = [r for r in requests.authority_deadlines(store, dpc, as_of=AS_OF) if r["state"] == "overdue"]
        assert overdue, "the demo has overdue deadlines of the Authority"
        office = overdue[0]["office_code"]
        mine = [r for r in overdue if r["office_code"] == office]
        data = office_report.office_deadlines_pdf(
            store, dpc, office=office, as_of=AS_OF,
            extra=reports.authority_sections(store, dpc, office=office, as_of=AS_OF))
        assert seals.verify(store)[0]
    whole = " ".join(pages(data))
    assert f"Vencidos — a Autoridade Naval deve, nos requerimentos e recursos ({len(mine)})" in whole
    for r in mine:
        case = f"Requerimento nº {r['request_id']}" if r["request_id"] is not None else r["case_pt"].capitalize()
        assert r["label"] in whole and case in whole
        assert " ".join(r["basis"].split()) in whole, r["basis"]
    assert "Autoridade Naval" in whole and "Vencidos (" in whole   # the engine's lists are still there


def test_once_requests_are_numbered_the_history_prints_the_requests_nup(small_world: Any) -> None:
    """Without a protocol unit the history says why it has no NUP; once the office's unit numbers the request
    the NUP is in the body, in every page's footer and in the registry (what /verificar answers)."""
    from valuation.process import numbers

    request_id = filed_case(small_world)
    store, dpc = small_world.store, small_world.principal("dpc")
    assert reports.nup_text(store, dpc, request_id)[1] == numbers.NO_UNIT_TEXT.format(office="CPRJ")
    numbers.set_protocol_unit(store, dpc, "CPRJ", "60000")
    store.write(dpc.username, numbers.number_missing)
    given = reports.nup_text(store, dpc, request_id)[0]   # a licence request: its licence's NUP (one document)
    assert given is not None and given.startswith("60000.")
    data = reports.case_history_pdf(store, dpc, request_id, as_of=AS_OF)
    texts = pages(data)
    assert all(f"NUP {given}" in t for t in texts) and f"Requerimento nº {request_id} — NUP {given}" in texts[0]
    assert store.scalar("SELECT nup FROM issued_documents WHERE kind = 'case_history' AND record_id = ?",
                        [request_id]) == given
    (row,) = reports.authority_sections(store, dpc, office="CPRJ", as_of=AS_OF)[0].rows[:1]
    assert f"NUP {given}" in row[1]
