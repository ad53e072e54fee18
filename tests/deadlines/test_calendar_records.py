"""The calendar DPC keeps (issue 44): dated records with their source over the `holidays` library — the federal
calendar's closures and moved days for every office, and per office a library holiday switched off or a day switched
on —, every change audited, every count crossing a recorded day saying so with the day's source, and the DPC page
(strict dates, sources). docs/decisions/104-calendar-records.md.

Worked by hand (2025): Portaria MGI nº 9.783/2024 closes Friday 20/06/2025 (after Corpus Christi, Thursday 19/06) and
moves the Dia do Servidor from Tuesday 28/10 to Monday 27/10/2025; RJ's library holiday São Jorge falls on Wednesday
23/04/2025. A final report 90 days after 22/03/2025 falls on 20/06/2025: a business day without the record, and with
it Sat 21 → Sun 22 → Monday 23/06/2025.
"""
from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.ui import ROOT, fresh_app, page_as, refused, set_date
from ui.session import SEEN_KEY, USER_KEY
from valuation.core.calendar import CLOSED, OPEN, BusinessCalendar, CalendarRecord
from valuation.core.errors import AccessDenied, InputError, NotFound
from valuation.deadlines import calendar_records as cr
from valuation.deadlines import calendars
from valuation.deadlines import rules as dl

D = date
MGI = "Portaria MGI nº 9.783/2024"
CLOSURE = CalendarRecord(D(2025, 6, 20), CLOSED, "Ponto facultativo", MGI)
MOVED = CalendarRecord(D(2025, 10, 27), CLOSED, "Dia do Servidor Público", MGI, D(2025, 10, 28))
SAO_JORGE_OFF = CalendarRecord(D(2025, 4, 23), OPEN, "São Jorge", "Lei 9.093/1995 art. 1º II")
SERVANT = ("carnival_monday", "carnival_tuesday", "corpus_christi", "public_servant_day")


def ids(cases):
    return [c[0] for c in cases]


# input: (calendar, day); expected: business day?, and the reason when closed (its source included)
DAYS = [
    ("20/06/2025 without the record: a business day", (BusinessCalendar("RJ"), D(2025, 6, 20)), (True, None)),
    ("20/06/2025 closed by the federal calendar, its source in the reason",
     (BusinessCalendar("RJ", records=[CLOSURE]), D(2025, 6, 20)),
     (False, "registro da DPC: Ponto facultativo — Portaria MGI nº 9.783/2024")),
    ("the Dia do Servidor moved: 27/10/2025 closed", (BusinessCalendar(None, policy_days=SERVANT, records=[MOVED]),
                                                     D(2025, 10, 27)),
     (False, "registro da DPC: Dia do Servidor Público, transferido de 28/10/2025 — Portaria MGI nº 9.783/2024")),
    ("… and 28/10/2025, which the policy closed, opens", (BusinessCalendar(None, policy_days=SERVANT, records=[MOVED]),
                                                          D(2025, 10, 28)), (True, None)),
    ("RJ's São Jorge (23/04/2025) from the library", (BusinessCalendar("RJ"), D(2025, 4, 23)), (False, "São Jorge")),
    ("… switched off at one office: a business day", (BusinessCalendar("RJ", records=[SAO_JORGE_OFF]),
                                                      D(2025, 4, 23)), (True, None)),
]


@pytest.mark.parametrize("name, given, expected", DAYS, ids=ids(DAYS))
def test_a_record_fixes_its_day_over_the_library_and_the_policies(name, given, expected):
    cal, day = given
    assert (cal.is_business_day(day), cal.reason_closed(day)) == expected


def test_a_count_crossing_a_recorded_day_says_so_with_its_source():
    plain = dl.final_report(D(2025, 3, 22), BusinessCalendar("RJ"))
    assert (plain.due, plain.moved_from) == (D(2025, 6, 20), None)
    assert not any("fixados pela DPC" in s for s in plain.steps)
    cal = BusinessCalendar("RJ", records=[CLOSURE, SAO_JORGE_OFF])
    d = dl.final_report(D(2025, 3, 22), cal)
    assert (d.due, d.moved_from) == (D(2025, 6, 23), D(2025, 6, 20))
    note = next(s for s in d.steps if s.startswith("Dias do calendário fixados pela DPC no período"))
    assert "23/04/2025 com expediente (São Jorge: feriado desligado — Lei 9.093/1995 art. 1º II)" in note
    assert "20/06/2025 sem expediente (Ponto facultativo — Portaria MGI nº 9.783/2024)" in note
    assert d.steps[-1] == "Vencimento: 23/06/2025"
    # a business-day count: the tourism notice of an excursion on Saturday 21/06/2025 loses 20/06 too
    t = dl.tourism_notice(D(2025, 6, 21), cal)
    assert t.due == D(2025, 6, 4) and any("Portaria MGI" in s for s in t.steps)


# -- the store -----------------------------------------------------------------------------------------------------
GOOD = {"scope": "BR", "kind": "closed", "day": "20/06/2025", "name": "Ponto facultativo", "source": MGI}
REFUSED = [
    ("closing a Saturday", {"day": "21/06/2025"}, "day", "já não tem expediente (sábado)"),
    ("closing a library holiday", {"day": "21/04/2025"}, "day", "já não tem expediente (Tiradentes)"),
    ("an impossible day", {"day": "31/02/2025"}, "day", "Data"),
    ("a day outside 1900–2100", {"day": "01/01/1850"}, "day", "1900"),
    ("a source too short", {"source": "MGI"}, "source", "ao menos 5"),
    ("no name", {"name": None}, "name", "Nome do dia"),
    ("an unknown office", {"scope": "CPXX"}, "scope", "desconhecida"),
    ("switching off a holiday for every office", {"kind": "open", "day": "21/04/2025"}, "kind", "para Todas as OM"),
    ("switching off a day that is no library holiday", {"scope": "CPRJ", "kind": "open", "day": "22/04/2025"}, "day",
     "não é feriado da biblioteca"),
    ("a moved day without its origin", {"kind": "moved", "day": "27/10/2025"}, "moved_from", "informe o dia"),
    ("a moved day from another year", {"kind": "moved", "day": "27/10/2025", "moved_from": "28/10/2024"},
     "moved_from", "mesmo ano"),
    ("an origin on a day that was not moved", {"moved_from": "28/10/2025"}, "moved_from", "só um dia transferido"),
]


@pytest.mark.parametrize("name, change, field, words", REFUSED, ids=ids(REFUSED))
def test_a_bad_record_is_refused_naming_the_field_and_nothing_is_written(small_world: Any, name, change, field,
                                                                         words) -> None:
    data = {**GOOD, **change}
    with pytest.raises(InputError) as refused_:
        cr.add_calendar_record(small_world.store, small_world.principal("dpc"), data)
    problems = {p.path: p.message for p in refused_.value.problems}
    assert field in problems and words in problems[field], problems
    assert small_world.store.scalar("SELECT count(*) FROM calendar_records") == 0


def test_records_change_the_offices_calendars_audited_and_withdrawn_with_a_reason(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    closure = cr.add_calendar_record(s, dpc, GOOD)
    cr.add_calendar_record(s, dpc, {"scope": "BR", "kind": "moved", "day": "27/10/2025", "moved_from": "28/10/2025",
                                    "name": "Dia do Servidor Público", "source": MGI})
    cr.add_calendar_record(s, dpc, {"scope": "CPRJ", "kind": "open", "day": "23/04/2025", "name": "São Jorge",
                                    "source": "Lei 9.093/1995 art. 1º II"})
    with pytest.raises(InputError) as twice:
        cr.add_calendar_record(s, dpc, GOOD)
    assert "já tem registro em vigor" in twice.value.problems[0].message
    rj = calendars.office_calendar(s, "CPRJ", on=D(2025, 6, 1))
    ba = calendars.office_calendar(s, "CPBA", on=D(2025, 6, 1))
    assert not rj.is_business_day(D(2025, 6, 20)) and not ba.is_business_day(D(2025, 6, 20))   # every office
    assert not ba.is_business_day(D(2025, 10, 27))
    assert rj.is_business_day(D(2025, 4, 23))                              # the CPRJ's own
    shown = calendars.closed_days(s, dpc, "CPRJ", 2025)
    by_day = {r.day: (r.kind, r.reason) for r in shown.itertuples()}
    assert by_day[D(2025, 6, 20)] == ("record", "registro da DPC: Ponto facultativo — Portaria MGI nº 9.783/2024")
    assert by_day[D(2025, 4, 23)] == ("opened", "São Jorge: feriado desligado — Lei 9.093/1995 art. 1º II")
    rows = cr.calendar_records(s, dpc, year=2025, scope="CPBA")
    assert [(r["day"], r["scope_pt"], r["kind_pt"]) for r in rows] == [
        (D(2025, 6, 20), cr.NATIONAL_LABEL, "Dia sem expediente"),
        (D(2025, 10, 27), cr.NATIONAL_LABEL, "Dia sem expediente transferido de outro dia")]
    with pytest.raises(InputError) as short:
        cr.withdraw_calendar_record(s, dpc, closure, "erro")
    assert short.value.problems[0].path == "reason"
    cr.withdraw_calendar_record(s, dpc, closure, "Portaria revogada pela Portaria MGI seguinte.")
    assert calendars.office_calendar(s, "CPRJ", on=D(2025, 6, 1)).is_business_day(D(2025, 6, 20))
    (gone,) = [r for r in cr.calendar_records(s, dpc, year=2025) if r["id"] == closure]
    assert gone["state_pt"].startswith("retirado em ") and "Portaria revogada" in gone["state_pt"]
    with pytest.raises(NotFound):
        cr.withdraw_calendar_record(s, dpc, closure, "De novo, por engano.")
    actions = [r["action"] for r in s.fetch("SELECT action FROM audit_log WHERE entity = 'calendar_record' "
                                            "ORDER BY id")]
    assert actions == ["add_calendar_record"] * 3 + ["withdraw_calendar_record"]


def test_only_dpc_records_and_anyone_who_reads_offices_reads(small_world: Any) -> None:
    for who in ("explorer", "commission", "admin"):
        with pytest.raises(AccessDenied):
            cr.add_calendar_record(small_world.store, small_world.principal(who), GOOD)
    assert cr.calendar_records(small_world.store, small_world.principal("explorer")) == []


def test_the_engine_explains_a_deadline_crossing_a_recorded_day(small_world: Any) -> None:
    from valuation.deadlines import engine

    s, dpc = small_world.store, small_world.principal("dpc")
    s.write("test", lambda tx: tx.execute("UPDATE contracts SET status = 'vigente', work_ended_on = DATE '2025-03-22' "
                                          "WHERE code = 'A-2'"))
    before = engine.compute_deadlines(s, dpc, as_of=D(2025, 7, 1)).set_index("key").loc["final_report:A-2"]
    cr.add_calendar_record(s, dpc, GOOD)
    after = engine.compute_deadlines(s, dpc, as_of=D(2025, 7, 1)).set_index("key").loc["final_report:A-2"]
    assert before["due"] == D(2025, 6, 20) and after["due"] == D(2025, 6, 23)
    assert "Portaria MGI nº 9.783/2024" in str(after["steps"])


# -- the page --------------------------------------------------------------------------------------------------
def test_the_dpc_page_records_a_day_with_its_source_and_refuses_a_bad_one(small_world: Any) -> None:
    at = page_as(small_world.path, small_world.principal("dpc"), "calendar_records")
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Registros do calendário"
    next(s for s in at.number_input if s.label == "Ano").set_value(2025).run()
    next(s for s in at.selectbox if s.label == "Registro").set_value("closed")
    set_date(at, "Data", D(2025, 6, 20))
    next(t for t in at.text_input if t.label == "Nome do dia").set_value("Ponto facultativo")
    next(t for t in at.text_input if t.label == "Fonte (ato que o fixa)").set_value(MGI)
    next(b for b in at.button if b.label == "Registrar o dia").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Dia registrado" in s.value for s in at.success)
    cells = "\n".join(df.value.to_string() for df in at.dataframe)
    assert "Portaria MGI nº 9.783/2024" in cells and "20/06/2025" in cells
    next(s for s in at.selectbox if s.label == "Registro").set_value("closed")
    set_date(at, "Data", D(2025, 6, 21))
    next(t for t in at.text_input if t.label == "Nome do dia").set_value("Sábado")
    next(t for t in at.text_input if t.label == "Fonte (ato que o fixa)").set_value(MGI)
    next(b for b in at.button if b.label == "Registrar o dia").click().run()
    assert any("sábado" in str(e.value) for e in at.error), [e.value for e in at.error]


@pytest.mark.parametrize("role", ["explorer", "commission", "admin"])
def test_the_page_is_dpcs(small_world: Any, role: str) -> None:
    """Not offered to another role, and refused when its file is reached directly (a URL typed by hand)."""
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        page_as(small_world.path, small_world.principal(role), "calendar_records")
    fresh_app(small_world.path)
    at = AppTest.from_file(str(ROOT / "pages" / "calendar_records.py"), default_timeout=60)
    at.session_state[USER_KEY] = small_world.principal(role)
    at.session_state[SEEN_KEY] = datetime.now()
    at.run()
    assert not at.exception and refused(at)
