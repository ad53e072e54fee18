"""One process, many documents (issue 42 item 2) and the decision's intimation (item 3), on a real DuckDB file.

Reproduction (issue 42): "every act (request, round, statement, decision, appeal) gets a NUP of its own, so one case
is scattered over several numbers; the number the protocol system (SEI/SiGDEM) already gave a case cannot be
recorded"; the decision's notification — which starts the 10 days of an appeal — was typed back by DPC."""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from tests.support.attachments import pdf
from valuation.attachments.records import Upload
from valuation.core import nup
from valuation.core.errors import InputError
from valuation.deadlines.calendars import office_calendars
from valuation.proceedings import appeal_records as ar
from valuation.proceedings import appeals as ap
from valuation.proceedings import filings, intimations
from valuation.proceedings import requests as rq
from valuation.process import cases, documents, numbers


def _units(world: Any) -> None:
    numbers.set_protocol_unit(world.store, world.principal("dpc"), "CPRJ", "64120")


def _file(world: Any, kind: str, request_id: int | None = None, subject: str = "Documento") -> filings.Filed:
    data: dict[str, Any] = {"kind": kind, "subject": subject}
    if request_id is None:
        data.update(wreck_code="NAU-1890-02", matter="pesquisa")
    else:
        data["request_id"] = request_id
    return filings.file_electronic(world.store, world.principal("explorer_b"), data, [Upload("peca.pdf", pdf())])


def _intimate(world: Any, request_id: int, act: str, text: str) -> intimations.Issued:
    return intimations.issue_intimation(world.store, world.principal("office_rj"), request_id,
                                        {"act": act, "text": text, "delivery": "sistema"})


def _decide(world: Any, request_id: int, day: date) -> None:
    rq.record_step(world.store, world.principal("office_rj"), request_id, {"kind": "decided", "day": day})


def _move_clock(world: Any, days: int) -> date:
    base = world.store.now_utc()
    world.store._clock = lambda: base + timedelta(days=days)
    return world.store.today()


def test_a_case_is_one_nup_from_the_first_filing_to_the_appeal(small_world: Any) -> None:
    s = small_world.store
    _units(small_world)
    opened = _file(small_world, "requerimento", subject="Pesquisa no Vapor Bahia")
    rid = opened.request_id
    asked = _intimate(small_world, rid, "information_requested", "Apresente as plantas do casco.")
    intimations.open_intimation(s, small_world.principal("explorer_b"), asked.intimation_id)
    answer = _file(small_world, "informações", rid, "Plantas do casco")
    _decide(small_world, rid, s.today())
    told = _intimate(small_world, rid, intimations.DECISION, "Licença de pesquisa deferida por 12 meses.")
    intimations.open_intimation(s, small_world.principal("explorer_b"), told.intimation_id)
    appealed = _file(small_world, "recurso", rid, "Recurso quanto ao prazo da licença")

    assert opened.nup and answer.nup == appealed.nup == opened.nup
    assert (opened.document_no, answer.document_no, appealed.document_no) == (1, 3, 6)
    case = cases.find_case(s, small_world.principal("explorer_b"), opened.nup)
    assert [(d["document_no"], d["subject"]) for d in case["documents"]] == [
        (1, "filing"), (2, "intimation"), (3, "filing"), (4, "intimation"), (5, "administrative_decision"),
        (6, "filing"), (7, "appeal")]
    assert case["documents"][4]["what"] == "Licença de pesquisa deferida por 12 meses."
    # nothing of the case has a number of its own any more: the decision and the appeal are read under the request's
    decision = ar.decision_of(s, small_world.principal("dpc"), "requests", rid)
    assert decision is not None and decision["nup"] == opened.nup and decision["notified_on"] == s.today()
    appeal_id = int(s.scalar("SELECT id FROM appeals WHERE decision_id = ?", [decision["id"]]))
    assert numbers.nup_of(s, "appeal", appeal_id) is None
    assert numbers.nup_of(s, "administrative_decision", int(decision["id"])) is None
    assert s.scalar("SELECT count(*) FROM process_numbers") == 1
    row = ar.appeals_of(s, small_world.principal("dpc"), as_of=s.today())[0]["appeals"][0]
    assert row["nup"] == opened.nup and row["on_time"] is True and row["appellant"] == "Beta Salvatagem S.A."
    assert documents.process_of(s, "appeal", appeal_id) == ("request", rid)


def test_an_unopened_decision_is_known_tacitly_and_the_appeal_period_runs_from_then(small_world: Any) -> None:
    s = small_world.store
    rid = _file(small_world, "requerimento").request_id
    _decide(small_world, rid, s.today())
    issued_on = s.today()
    _intimate(small_world, rid, intimations.DECISION, "Pedido indeferido: área de sítio arqueológico.")
    waiting = intimations.intimations_of(s, small_world.principal("explorer_b"))[0]
    assert waiting["ciencia_pt"].startswith("aguardando ciência")
    assert ar.decision_of(s, small_world.principal("dpc"), "requests", rid) is None     # no period runs yet
    waits = [r for r in rq.authority_deadlines(s, small_world.principal("explorer_b"), as_of=s.today(), owed_by=None)
             if r["request_id"] == rid]
    assert [(r["state_pt"], r["due"], r["owed_by"]) for r in waits] == [
        ("aguardando ciência", intimations.tacit_day(issued_on, 10), "party")]
    assert "recurso em até 10 dias" in waits[0]["label"]
    assert rq.authority_deadlines(s, small_world.principal("explorer_a"), as_of=s.today(), owed_by=None) == []
    with pytest.raises(InputError, match="aguarda a ciência"):                          # one intimation of it
        _intimate(small_world, rid, intimations.DECISION, "De novo.")

    today = _move_clock(small_world, 12)
    assert intimations.record_tacit(s, today) == 1
    tacit = intimations.tacit_day(issued_on, 10)
    decision = ar.decision_of(s, small_world.principal("dpc"), "requests", rid)
    assert decision is not None and decision["notified_on"] == tacit
    cal = office_calendars(s, ["CPRJ"], on=tacit)["CPRJ"]
    due = ap.filing_deadline(tacit, cal).due
    party = [r for r in rq.authority_deadlines(s, small_world.principal("explorer_b"), as_of=today, owed_by=None)
             if r["decision_id"] == decision["id"]]
    assert [r["due"] for r in party] == [due]
    assert not [r for r in rq.authority_deadlines(s, small_world.principal("dpc"), as_of=today, owed_by=None)
                if r["state_pt"] == "aguardando ciência"]
    assert s.scalar("SELECT kind FROM intimation_ciencias") == "tácita"
    appealed = _file(small_world, "recurso", rid, "Recurso")
    assert s.scalar("SELECT on_time FROM appeals") is True and appealed.request_id == rid


def test_an_appeal_filed_before_the_ciencia_supplies_it(small_world: Any) -> None:
    """Lei 9.784/1999 art. 26 §5: the party's appearance supplies the intimation — the appeal is on time, the
    ciência recorded on the day it was filed."""
    s = small_world.store
    rid = _file(small_world, "requerimento").request_id
    _decide(small_world, rid, s.today())
    _intimate(small_world, rid, intimations.DECISION, "Pedido indeferido.")
    _file(small_world, "recurso", rid, "Recurso")
    assert s.fetch_one("SELECT kind, day FROM intimation_ciencias") == {"kind": "comparecimento", "day": s.today()}
    assert s.scalar("SELECT on_time FROM appeals") is True


def test_an_appeal_needs_a_decided_and_intimated_request(small_world: Any) -> None:
    s = small_world.store
    rid = _file(small_world, "requerimento").request_id
    before = s.scalar("SELECT count(*) FROM filings")
    with pytest.raises(InputError, match="ainda não foi decidido"):
        _file(small_world, "recurso", rid)
    _decide(small_world, rid, s.today())
    with pytest.raises(InputError, match="ainda não foi intimada"):
        _file(small_world, "recurso", rid)
    with pytest.raises(InputError, match="já foi decidido"):
        _file(small_world, "informações", rid)
    with pytest.raises(InputError, match="ainda não foi decidido"):
        _intimate(small_world, _file(small_world, "requerimento").request_id, intimations.DECISION, "Cedo demais.")
    assert s.scalar("SELECT count(*) FROM filings") == before + 1 and s.scalar("SELECT count(*) FROM appeals") == 0


def _valid(unit: str, sequence: int, year: int) -> str:
    return str(nup.make(unit, sequence, year))


def test_a_case_begun_in_the_protocol_system_keeps_its_nup(small_world: Any) -> None:
    s = small_world.store
    _units(small_world)
    dpc = small_world.principal("dpc")
    sei = _valid("64120", 2, s.today().year)         # SEI gave the unit's own sequence nº 2
    base = {"wreck_code": "NAU-1890-02", "matter": "remoção", "organisation_id": small_world.ids["org_b"],
            "filed_on": s.today()}
    first = rq.file_request(s, dpc, {**base, "nup": sei})
    assert rq.request_history(s, dpc, first)["request"]["nup"] == sei
    assert s.scalar("SELECT count(*) FROM adopted_numbers") == 1
    # the office's own sequence neither moves for it nor gives it again: 1, then 3
    own = [rq.file_request(s, dpc, base) for _ in range(2)]
    got = [rq.request_history(s, dpc, i)["request"]["nup"] for i in own]
    assert got == [_valid("64120", 1, s.today().year), _valid("64120", 3, s.today().year)]
    # a paper filing of a new request received from SEI brings its number too
    other = _valid("00190", 4567, 2025)
    filed = filings.record_received(s, small_world.principal("office_rj"), {
        "kind": "requerimento", "subject": "Pedido pelo SEI", "wreck_code": "NAU-1890-02", "matter": "pesquisa",
        "organisation_id": small_world.ids["org_b"], "channel": "SEI", "received_on": s.today(), "nup": other},
        [Upload("sei.pdf", pdf())])
    assert filed.nup == other
    assert cases.find_case(s, dpc, other)["documents"][0]["subject"] == "filing"


@pytest.mark.parametrize(("typed", "says"), [
    ("64120.000002/2026-00", "Dígito verificador"),
    ("64120.2/2026", "17 dígitos"),
    ("x" * 60, "no máximo 40 caracteres"),
])
def test_a_bad_or_taken_protocol_nup_is_refused_by_its_field(small_world: Any, typed: str, says: str) -> None:
    s = small_world.store
    before = s.scalar("SELECT count(*) FROM requests")
    data = {"wreck_code": "NAU-1890-02", "matter": "remoção", "organisation_id": small_world.ids["org_b"],
            "filed_on": s.today(), "nup": typed}
    with pytest.raises(InputError) as err:
        rq.file_request(s, small_world.principal("dpc"), data)
    assert [p.path for p in err.value.problems] == ["nup"] and says in str(err.value)
    assert s.scalar("SELECT count(*) FROM requests") == before


def test_a_nup_another_case_holds_is_refused(small_world: Any) -> None:
    s = small_world.store
    _units(small_world)
    dpc = small_world.principal("dpc")
    data = {"wreck_code": "NAU-1890-02", "matter": "remoção", "organisation_id": small_world.ids["org_b"],
            "filed_on": s.today()}
    held = rq.request_history(s, dpc, rq.file_request(s, dpc, data))["request"]["nup"]
    with pytest.raises(InputError, match="já é o número de outro processo") as err:
        rq.file_request(s, dpc, {**data, "nup": held})
    assert [p.path for p in err.value.problems] == ["nup"]
    with pytest.raises(InputError, match="só um requerimento novo"):
        filings.record_received(s, small_world.principal("office_rj"), {
            "kind": "documento", "subject": "Anexo", "request_id": 1, "organisation_id": small_world.ids["org_b"],
            "channel": "SEI", "received_on": s.today(), "nup": _valid("00190", 99, 2025)}, [Upload("a.pdf", pdf())])


def test_process_documents_are_sealed(small_world: Any) -> None:
    import duckdb

    from valuation.db import seals
    from valuation.db.store import Store

    s = small_world.store
    _file(small_world, "requerimento")
    assert seals.verify(s)[0] is True
    s.close()
    con = duckdb.connect(str(small_world.path))
    con.execute("UPDATE process_documents SET document_no = 9")
    con.close()
    with Store(small_world.path) as again:
        ok, text = seals.verify(again)
    assert ok is False and text.startswith("Documento de processo nº 1 (documento de processo): foi alterado"), text
    small_world.store = Store(small_world.path)
