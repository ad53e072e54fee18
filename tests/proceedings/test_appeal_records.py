"""Decisions and appeals through the store (issue 26 §2): a decision with its notification, two appeals (the three
instances of Lei 9.784/1999 art. 57), a third only "não conhecido" (art. 63 IV) and a fourth refused, a late appeal
only "não conhecido"
(art. 63 I), a reconsideration that revokes a removal order in the same write (art. 56 §1; Lei 7.542 art. 6 sole
paragraph II), the Authority's appeal deadlines in "O que a Autoridade deve", NUPs, access.

Dates worked by hand on the 2026 calendar of the CPRJ (Rio de Janeiro; national holidays 12/10 Aparecida,
02/11 Finados, 15/11 Proclamação (a Sunday), 20/11 Consciência Negra):
- notified Thu 01/10; appeal filed Thu 08/10 (within 10 days: 01/10 + 10 = Sun 11/10 → Tue 13/10, Mon 12/10 being
  Aparecida), on time; reconsider by 08/10 + 5 = Tue 13/10 (art. 56 §1) — open on 30/11: overdue by 48 days;
- forwarded Tue 13/10 (the receipt): decide by 13/10 + 30 = Thu 12/11 (art. 59 §1); others intimated Wed 14/10:
  allege in 5 business days, 15, 16, 19, 20, 21 → Wed 21/10 (art. 62);
- decided "não provido" on Tue 10/11: the 2nd instance's filing runs from it, 10/11 + 10 = Fri 20/11 (a holiday,
  Consciência Negra) → Mon 23/11.
"""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from valuation.core.errors import InputError, NotFound
from valuation.proceedings import appeal_records as ar
from valuation.proceedings import periods, requests
from valuation.process import cases, numbers
from valuation.registry import removal_orders

AS_OF = date(2026, 11, 30)


def _units(world: Any) -> None:
    numbers.set_protocol_unit(world.store, world.principal("dpc"), "CPRJ", "64120")


def _decision(world: Any, **over: Any) -> int:
    data = {"kind": "preference", "wreck_code": "NAU-1890-02", "organisation_id": world.ids["org_b"],
            "summary": "Preferência reconhecida ao pedido anterior.", "authority": "Capitão dos Portos do RJ",
            "decided_on": date(2026, 9, 30), "notice": "notificação", "notified_on": date(2026, 10, 1), **over}
    return ar.record_decision(world.store, world.principal("dpc"), data)


def _step(world: Any, appeal_id: int, kind: str, day: date, **more: Any) -> int:
    return ar.record_appeal_step(world.store, world.principal("dpc"), appeal_id, {"kind": kind, "day": day, **more})


def _appeal(world: Any, decision_id: int, filed: date, **more: Any) -> int:
    return ar.file_appeal(world.store, world.principal("dpc"), decision_id,
                          {"filed_on": filed, "appellant": "Empresa Beta", "grounds": "A preferência é nossa.",
                           **more})


def _appeal_nup(world: Any, appeal_id: int) -> str:
    """The NUP an appeal is read under: its decision's process's (issue 42 item 2: an appeal has none of its own)."""
    assert numbers.nup_of(world.store, "appeal", appeal_id) is None
    rows = [a for d in ar.appeals_of(world.store, world.principal("dpc"), as_of=AS_OF) for a in d["appeals"]
            if a["id"] == appeal_id]
    assert len(rows) == 1 and rows[0]["nup"][0].isdigit()
    return str(rows[0]["nup"])


def _rows(world: Any, who: str = "dpc", **kw: Any) -> dict[str, dict[str, Any]]:
    rows = requests.authority_deadlines(world.store, world.principal(who), as_of=AS_OF, **kw)
    return {r["rule"]: r for r in rows if r["request_id"] is None}


def test_an_on_time_appeal_runs_its_path_with_the_authoritys_deadlines(small_world: Any) -> None:
    _units(small_world)
    decision = _decision(small_world)
    appeal = _appeal(small_world, decision, date(2026, 10, 8))
    got = _rows(small_world)
    assert got["appeal_reconsideration"]["due"] == date(2026, 10, 13)
    assert got["appeal_reconsideration"]["state"] == "overdue" and got["appeal_reconsideration"]["days_late"] == 48
    assert "art. 56 §1" in got["appeal_reconsideration"]["basis"]
    assert _appeal_nup(small_world, appeal) in got["appeal_reconsideration"]["case_pt"]

    _step(small_world, appeal, "forwarded", date(2026, 10, 13))
    _step(small_world, appeal, "others_intimated", date(2026, 10, 14))
    got = _rows(small_world, owed_by=None)
    assert "appeal_reconsideration" not in got          # met by the forwarding
    assert got["appeal_decision"]["due"] == date(2026, 11, 12) and got["appeal_decision"]["owed_by"] == "authority"
    assert got["appeal_allegations"]["due"] == date(2026, 10, 21) and got["appeal_allegations"]["owed_by"] == "party"

    _step(small_world, appeal, "decided", date(2026, 11, 10), outcome="não provido")
    got = _rows(small_world, owed_by=None)
    assert "appeal_decision" not in got
    # the next instance's period ran out on 23/11: lapsed, nothing owed and nothing shown
    assert "appeal_filing" not in got
    case = ar.appeals_of(small_world.store, small_world.principal("dpc"), as_of=AS_OF)[0]
    assert case["state_pt"] == "mantida" and case["appeals"][0]["stage_pt"] == "decidido em 10/11/2026: não provido"


def test_two_appeals_a_third_not_known_and_never_a_fourth(small_world: Any) -> None:
    decision = _decision(small_world)
    days = [(date(2026, 10, 5), date(2026, 10, 6), date(2026, 10, 20)),
            (date(2026, 10, 26), date(2026, 10, 27), date(2026, 11, 3))]
    for filed, forwarded, decided in days:
        appeal = _appeal(small_world, decision, filed)
        _step(small_world, appeal, "forwarded", forwarded)
        _step(small_world, appeal, "decided", decided, outcome="não provido")
    third = _appeal(small_world, decision, date(2026, 11, 9))
    _step(small_world, third, "decided", date(2026, 11, 17), outcome="não conhecido")
    appeals = ar.appeals_of(small_world.store, small_world.principal("dpc"), as_of=AS_OF)[0]["appeals"]
    assert [a["instance"] for a in appeals] == [1, 2, 3]
    assert [a["title_pt"] for a in appeals] == ["1º recurso (2ª instância)", "2º recurso (3ª instância)",
                                                 "3º recurso (esfera administrativa exaurida)"]
    with pytest.raises(InputError) as refused:
        _appeal(small_world, decision, date(2026, 11, 20))
    assert refused.value.problems[0].path == "filed_on"
    assert "não cabe o 4º recurso" in refused.value.problems[0].message
    assert "art. 57" in refused.value.problems[0].message
    assert small_world.store.scalar("SELECT count(*) FROM appeals") == 3


def test_a_late_appeal_is_recorded_and_only_not_known(small_world: Any) -> None:
    decision = _decision(small_world, decided_on=date(2026, 8, 31), notified_on=date(2026, 9, 1))
    appeal = _appeal(small_world, decision, date(2026, 10, 1))
    row = small_world.store.fetch_one("SELECT on_time FROM appeals WHERE id = ?", [appeal])
    assert row["on_time"] is False
    for kind, more in (("forwarded", {}), ("decided", {"outcome": "provido"})):
        with pytest.raises(InputError) as refused:
            _step(small_world, appeal, kind, date(2026, 10, 5), **more)
        assert "art. 63" in refused.value.problems[0].message, kind
    _step(small_world, appeal, "decided", date(2026, 10, 5), outcome="não conhecido")
    case = ar.appeals_of(small_world.store, small_world.principal("dpc"), as_of=AS_OF)[0]
    assert case["appeals"][0]["late_pt"].startswith("fora do prazo")
    with pytest.raises(InputError):   # not known: no further instance
        _appeal(small_world, decision, date(2026, 10, 6))


def test_a_reconsideration_revokes_the_removal_order_naming_the_appeal(small_world: Any) -> None:
    _units(small_world)
    dpc = small_world.principal("dpc")
    order = removal_orders.record_removal_order(small_world.store, dpc, {
        "wreck_code": "NAU-1890-02", "kind": "remoção", "act": "Portaria 12/2026-CPRJ",
        "ordered_on": date(2026, 10, 1), "notice": "edital", "published_on": date(2026, 10, 2),
        "starts_by": date(2026, 11, 1), "ends_by": date(2027, 3, 1), "reason": "Risco à navegação."})
    decision = _decision(small_world, kind="removal_order", record_id=order, wreck_code=None, organisation_id=None,
                         decided_on=date(2026, 10, 1), notice="publicação", notified_on=date(2026, 10, 2))
    assert ar.decisions(small_world.store, dpc)[0]["nup"] == numbers.nup_of(small_world.store, "removal_order", order)
    appeal = _appeal(small_world, decision, date(2026, 10, 9))
    _step(small_world, appeal, "reconsidered", date(2026, 10, 13), outcome="provido", reason="Risco afastado.")
    ended = small_world.store.fetch_one("SELECT ended_on, end_kind FROM removal_orders WHERE id = ?", [order])
    assert ended == {"ended_on": date(2026, 10, 13), "end_kind": "revogada"}
    audit = small_world.store.fetch("SELECT after_json FROM audit_log WHERE entity = 'removal_order' "
                                    "AND action = 'end_removal_order'")
    assert audit and str(_appeal_nup(small_world, appeal)) in str(audit[-1]["after_json"])
    case = ar.appeals_of(small_world.store, dpc, as_of=AS_OF)[0]
    assert case["state_pt"].startswith("reconsiderada pela autoridade")
    assert "reconsiderada" in case["appeals"][0]["stage_pt"]
    with pytest.raises(InputError):   # nothing after the end
        _step(small_world, appeal, "forwarded", date(2026, 10, 14))


def test_bad_input_names_the_field_and_writes_nothing(small_world: Any) -> None:
    before = small_world.store.scalar("SELECT count(*) FROM administrative_decisions")
    with pytest.raises(InputError) as refused:
        _decision(small_world, notified_on=date(2026, 9, 1), wreck_code="NAO-EXISTE")
    assert {p.path for p in refused.value.problems} >= {"wreck_code"}
    with pytest.raises(InputError) as refused:
        _decision(small_world, notified_on=date(2026, 9, 1))
    assert [p.path for p in refused.value.problems] == ["notified_on"]
    _units(small_world)             # issue 45, item 7: an act of 1899 cannot carry a NUP — a field error
    with pytest.raises(InputError) as refused:
        _decision(small_world, decided_on=date(1899, 12, 30), notified_on=date(1899, 12, 31))
    assert [p.path for p in refused.value.problems] == ["decided_on"] and "1900" in refused.value.problems[0].message
    decision = _decision(small_world)
    with pytest.raises(InputError) as refused:
        _appeal(small_world, decision, date(2026, 10, 8), suspensive=True, suspensive_reason="  ")
    assert [p.path for p in refused.value.problems] == ["suspensive_reason"]
    assert "art. 61" in refused.value.problems[0].message
    assert small_world.store.scalar("SELECT count(*) FROM administrative_decisions") == before + 1
    assert small_world.store.scalar("SELECT count(*) FROM appeals") == 0


def test_an_explorer_sees_its_own_companys_appeals_only(small_world: Any) -> None:
    _units(small_world)
    decision = _decision(small_world)
    appeal = _appeal(small_world, decision, date(2026, 10, 8))
    mine = ar.appeals_of(small_world.store, small_world.principal("explorer_b"), as_of=AS_OF)
    assert [d["id"] for d in mine] == [decision]
    assert ar.appeals_of(small_world.store, small_world.principal("explorer_a"), as_of=AS_OF) == []
    assert _rows(small_world, "explorer_a") == {}
    number = _appeal_nup(small_world, appeal)
    case = cases.find_case(small_world.store, small_world.principal("explorer_b"), number)
    assert case["subject"] == "administrative_decision"                       # the decision's process
    assert [(d["document_no"], d["subject"]) for d in case["documents"]] == [(1, "administrative_decision"),
                                                                             (2, "appeal")]
    with pytest.raises(NotFound):
        cases.find_case(small_world.store, small_world.principal("explorer_a"), number)
    with pytest.raises(NotFound):
        ar.record_appeal_step(small_world.store, small_world.principal("dpc"), 999, {"kind": "forwarded",
                                                                                     "day": date(2026, 10, 9)})
    assert periods.AUTHORITY == "authority"


def test_the_decisions_history_pdf_carries_its_nup_appeals_and_outcome(small_world: Any) -> None:
    import io

    import pypdf

    from valuation.proceedings import appeal_reports

    _units(small_world)
    decision = _decision(small_world)
    appeal = _appeal(small_world, decision, date(2026, 10, 8), suspensive=True,
                     suspensive_reason="Dano de difícil reparação.")
    _step(small_world, appeal, "forwarded", date(2026, 10, 13))
    _step(small_world, appeal, "decided", date(2026, 11, 10), outcome="parcialmente provido")
    data = appeal_reports.decision_history_pdf(small_world.store, small_world.principal("explorer_b"), decision,
                                               as_of=AS_OF)
    pages = [" ".join(p.extract_text().split()) for p in pypdf.PdfReader(io.BytesIO(data)).pages]
    whole = " ".join(pages)
    decision_nup = numbers.nup_of(small_world.store, "administrative_decision", decision)
    assert decision_nup and decision_nup in pages[0]
    assert _appeal_nup(small_world, appeal) in whole
    assert "1º recurso (2ª instância)" in whole and "Parcialmente provido" in whole
    assert "Dano de difícil reparação" in whole
    assert "reformada em parte" in whole
    assert all("Código de verificação" in p or "verificar" in p.lower() for p in pages)
    assert small_world.store.scalar("SELECT count(*) FROM issued_documents WHERE record_table = "
                                    "'administrative_decisions' AND record_id = ?", [decision]) == 1
    with pytest.raises(NotFound):   # another company's case answers as missing, and nothing is registered
        appeal_reports.decision_history_pdf(small_world.store, small_world.principal("explorer_a"), decision,
                                            as_of=AS_OF)
    assert small_world.store.scalar("SELECT count(*) FROM issued_documents") == 1


def test_the_appeals_deadlines_reach_the_calendar_feed_and_the_digest_with_their_nup(small_world: Any) -> None:
    from valuation.jobs import digest_mail
    from valuation.proceedings import feeds

    _units(small_world)
    appeal = _appeal(small_world, _decision(small_world), date(2026, 10, 8))
    number = _appeal_nup(small_world, appeal)
    events = [e for e in feeds.authority_events(small_world.store, small_world.principal("dpc"), AS_OF, None)
              if e.uid.startswith("appeal_reconsideration:")]
    assert len(events) == 1 and events[0].uid == f"appeal_reconsideration:recurso-{appeal}@valuation"
    assert number in events[0].summary and "art. 56 §1" in events[0].description
    assert feeds.authority_events(small_world.store, small_world.principal("explorer_b"), AS_OF, None) == []
    owed = digest_mail.authority_rows(small_world.store, AS_OF)
    assert [r["appeal_id"] for r in owed if r["rule"] == "appeal_reconsideration"] == [appeal]
    small_world.store.write("test", lambda tx: tx.execute("UPDATE users SET email = 'ana@dpc.mar.mil.br' "
                                                          "WHERE username = 'dpc.silva'"))
    mails = digest_mail.digest_mails(small_world.store, as_of=AS_OF, base_url="http://127.0.0.1:8501")
    assert any(number in m.text and "Reconsiderar ou encaminhar o recurso" in m.text for m in mails)
