"""Issue 42 item 5 — a step or event recorded by mistake is annulled with its reason, never deleted.

Reproduction (failed before): "Registrar etapa" pre-selected the first open request, so a step meant for one
request landed on another company's and started a real deadline of the Authority; nothing withdrew it — the store
had no way to annul a request's step (`requests.annul_step` did not exist) and a company could withdraw its own
deadline events. Now an annulment is a row of its own (`annulments`, migration 080; Lei 9.784/1999 arts. 50 and
53): the record stays, every reader leaves it out (the deadlines it started are computed again without it), the
history shows both, the audit log names the act, a second annulment is refused, a company or the Commission annuls
nothing, an office officer annuls in its office only, and the row is sealed.

Dates on the 2026 calendar of the CPRJ (Rio de Janeiro): both requests filed Tue 01/09, instruction opened Thu 03/09
(the first act, art. 24, met); the opinion asked Thu 10/09 on the wrong request: due 10/09 + 15 = Fri 25/09 (art.
42), overdue on 30/11 — gone once the step is annulled.
"""
from __future__ import annotations

import json
from datetime import date
from typing import Any

import duckdb
import pytest

from valuation.cli.main import main
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound
from valuation.db import seals
from valuation.db.audit import verify_chain
from valuation.deadlines import engine, events
from valuation.oversight import audit_text
from valuation.proceedings import appeal_records as ar
from valuation.proceedings import requests

AS_OF = date(2026, 11, 30)
REASON = "Etapa lançada no requerimento errado (era o nº do Vapor Bahia)."


def _file(world: Any, wreck: str, org: str) -> int:
    rid = requests.file_request(world.store, world.principal("dpc"), {
        "wreck_code": wreck, "matter": "pesquisa", "organisation_id": world.ids[org], "filed_on": date(2026, 9, 1)})
    requests.record_step(world.store, world.principal("dpc"), rid, {"kind": "instruction_opened",
                                                                    "day": date(2026, 9, 3)})
    return rid


def _opinion_rows(world: Any, request_id: int, who: str = "dpc") -> list[dict[str, Any]]:
    return [r for r in requests.authority_deadlines(world.store, world.principal(who), as_of=AS_OF)
            if r["request_id"] == request_id and r["rule"] == "process_opinion"]


@pytest.fixture
def wrong_step(small_world: Any) -> tuple[int, int]:
    """(the request that received the step by mistake, the step): a request of org_a on NAU-1750-04 (CPRJ)."""
    small_world.ids["right"] = _file(small_world, "NAU-1890-02", "org_b")
    wrong = _file(small_world, "NAU-1750-04", "org_a")
    step = requests.record_step(small_world.store, small_world.principal("dpc"), wrong,
                                {"kind": "opinion_requested", "day": date(2026, 9, 10)})
    return wrong, step


def test_a_step_on_the_wrong_request_is_annulled_and_the_deadline_it_started_is_gone(small_world: Any,
                                                                                      wrong_step: tuple[int, int]
                                                                                      ) -> None:
    wrong, step = wrong_step
    s, dpc = small_world.store, small_world.principal("dpc")
    (row,) = _opinion_rows(small_world, wrong)
    assert (row["due"], row["state"]) == (date(2026, 9, 25), "overdue")
    rows_before = s.scalar("SELECT count(*) FROM request_steps")
    annulment = requests.annul_step(s, dpc, step, f"  {REASON}  ")
    assert _opinion_rows(small_world, wrong) == []                 # computed again without it
    assert s.scalar("SELECT count(*) FROM request_steps") == rows_before   # never deleted
    history = requests.request_history(s, dpc, wrong)
    assert [x["kind"] for x in history["steps"]] == ["instruction_opened"]
    (gone,) = history["annulled_steps"]
    assert (gone["id"], gone["kind"], gone["day"], gone["label"]) == (step, "opinion_requested", date(2026, 9, 10),
                                                                      "Parecer solicitado")
    assert (gone["annulment"]["reason"], gone["annulment"]["annulled_by"]) == (REASON, "dpc.silva")
    audited = s.fetch_one("SELECT entity, entity_id, before_json, after_json FROM audit_log "
                          "WHERE action = 'annul_request_step'")
    assert audited is not None and (audited["entity"], audited["entity_id"]) == ("request", str(wrong))
    assert json.loads(audited["after_json"]) == {"annulment_id": annulment, "reason": REASON}
    assert json.loads(audited["before_json"])["kind"] == "opinion_requested"
    assert "anulada" in audit_text.action_label("annul_request_step")
    with pytest.raises(ConflictError, match="já anulado em .* por dpc.silva"):   # once only
        requests.annul_step(s, dpc, step, "De novo, por engano.")
    # the step is recorded again on the right request: its deadline is there
    requests.record_step(s, dpc, small_world.ids["right"], {"kind": "opinion_requested", "day": date(2026, 9, 10)})
    assert [r["due"] for r in _opinion_rows(small_world, small_world.ids["right"])] == [date(2026, 9, 25)]


@pytest.mark.parametrize("reason, message", [
    ("", "Motivo da anulação: campo obrigatório."),
    ("erro", "ao menos 5 caracteres"),
    ("x" * 501, "no máximo 500 caracteres"),
    ("linha um\nlinha dois", "uma só linha"),
    (None, "Motivo da anulação: campo obrigatório."),
])
def test_the_reason_is_required_bounded_and_one_line(small_world: Any, wrong_step: tuple[int, int], reason: Any,
                                                     message: str) -> None:
    wrong, step = wrong_step
    with pytest.raises(InputError) as refused:
        requests.annul_step(small_world.store, small_world.principal("dpc"), step, reason)
    assert refused.value.problems[0].path == "reason" and message in refused.value.problems[0].message
    assert small_world.store.scalar("SELECT count(*) FROM annulments") == 0
    assert len(_opinion_rows(small_world, wrong)) == 1


def test_who_may_annul_a_step(small_world: Any, wrong_step: tuple[int, int]) -> None:
    """A company and the Commission annul nothing; an office officer its office's steps (CPRJ), and another office's
    request does not exist for it."""
    _wrong, step = wrong_step
    s = small_world.store
    for who in ("explorer_a", "explorer_b", "commission", "commission_president", "admin"):
        with pytest.raises(AccessDenied):
            requests.annul_step(s, small_world.principal(who), step, REASON)
    assert s.scalar("SELECT count(*) FROM annulments") == 0
    bahia = requests.file_request(s, small_world.principal("dpc"), {
        "wreck_code": "NAU-1668-01", "matter": "pesquisa", "organisation_id": small_world.ids["org_a"],
        "filed_on": date(2026, 9, 1)})
    there = requests.record_step(s, small_world.principal("dpc"), bahia, {"kind": "instruction_opened",
                                                                         "day": date(2026, 9, 3)})
    officer = small_world.principal("office_rj")
    with pytest.raises(NotFound, match="não encontrada"):
        requests.annul_step(s, officer, there, REASON)
    with pytest.raises(NotFound):
        requests.annul_step(s, officer, 10 ** 9, REASON)
    requests.annul_step(s, officer, step, REASON)
    assert s.scalar("SELECT annulled_by FROM annulments") == "om.rio"


# -- deadline events ------------------------------------------------------------------------------------------
@pytest.fixture
def contracts(small_world: Any) -> Any:
    small_world.store.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET starts_on = DATE '2025-01-06', expires_on = DATE '2026-01-05' "
        "WHERE code IN ('A-1', 'B-1')"))
    return small_world


def _feb_report(world: Any, as_of: date) -> dict[str, Any]:
    df = engine.compute_deadlines(world.store, world.principal("dpc"), as_of=as_of)
    return df[df["key"] == "monthly_report:A-1:2025-02"].iloc[0].to_dict()


def test_an_event_is_annulled_with_its_reason_and_the_deadline_counts_again(contracts: Any) -> None:
    world, as_of = contracts, date(2025, 3, 25)
    s, dpc = world.store, world.principal("dpc")
    event = events.record_event(s, dpc, {"kind": "relatório_mensal_entregue", "contract_code": "A-1",
                                         "reference": "2025-02", "event_date": date(2025, 3, 10)})
    assert _feb_report(world, as_of)["state"] == "met"
    with pytest.raises(AccessDenied):        # a company never annuls, not even its own delivery
        events.annul_event(s, world.principal("explorer_a"), event, REASON)
    with pytest.raises(AccessDenied):
        events.annul_event(s, world.principal("commission"), event, REASON)
    with pytest.raises(NotFound):            # A-1 is filed at CPBA: not the Rio officer's
        events.annul_event(s, world.principal("office_rj"), event, REASON)
    events.annul_event(s, dpc, event, REASON)
    assert _feb_report(world, as_of)["state"] == "overdue"
    shown = events.list_events(s, dpc).set_index("id").loc[event]
    assert (bool(shown["current"]), shown["annulled_reason"], shown["annulled_by"]) == (False, REASON, "dpc.silva")
    with pytest.raises(ConflictError, match="Evento de prazo nº .*já anulado"):
        events.annul_event(s, dpc, event, REASON)
    with pytest.raises(InputError):          # an annulled event is not corrected either
        events.record_event(s, dpc, {"kind": "relatório_mensal_entregue", "contract_code": "A-1",
                                     "reference": "2025-02", "event_date": date(2025, 3, 11), "supersedes": event})
    # recorded again, properly: not a duplicate of the annulled one
    events.record_event(s, dpc, {"kind": "relatório_mensal_entregue", "contract_code": "A-1",
                                 "reference": "2025-02", "event_date": date(2025, 3, 12)})
    assert _feb_report(world, as_of)["met_on"] == date(2025, 3, 12)
    assert s.scalar("SELECT count(*) FROM audit_log WHERE action = 'annul_deadline_event' AND entity_id = ?",
                    [str(event)]) == 1


# -- appeal steps ---------------------------------------------------------------------------------------------
def test_an_appeal_step_is_annulled_but_never_a_ruling_that_granted_it(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    decision = ar.record_decision(s, dpc, {
        "kind": "preference", "wreck_code": "NAU-1890-02", "organisation_id": small_world.ids["org_b"],
        "summary": "Preferência reconhecida ao pedido anterior.", "authority": "Capitão dos Portos do RJ",
        "decided_on": date(2026, 9, 30), "notice": "notificação", "notified_on": date(2026, 10, 1)})
    appeal = ar.file_appeal(s, dpc, decision, {"filed_on": date(2026, 10, 8), "appellant": "Empresa Beta",
                                               "grounds": "A preferência é nossa."})
    forwarded = ar.record_appeal_step(s, dpc, appeal, {"kind": "forwarded", "day": date(2026, 10, 13)})

    def case() -> dict[str, Any]:
        (d,) = ar.appeals_of(s, dpc, as_of=AS_OF, decision_id=decision)
        return d["appeals"][0]

    assert [x["kind"] for x in case()["steps"]] == ["forwarded"]
    with pytest.raises(AccessDenied):        # an office officer does not record appeals, so does not annul them
        ar.annul_appeal_step(s, small_world.principal("office_rj"), forwarded, REASON)
    ar.annul_appeal_step(s, dpc, forwarded, REASON)
    now = case()
    assert now["steps"] == [] and [x["id"] for x in now["annulled_steps"]] == [forwarded]
    assert now["annulled_steps"][0]["annulment"]["reason"] == REASON
    with pytest.raises(ConflictError):
        ar.annul_appeal_step(s, dpc, forwarded, REASON)
    granted = ar.record_appeal_step(s, dpc, appeal, {"kind": "reconsidered", "day": date(2026, 10, 12),
                                                     "outcome": "provido"})
    with pytest.raises(ConflictError, match="não se anula"):
        ar.annul_appeal_step(s, dpc, granted, REASON)


# -- the seal ---------------------------------------------------------------------------------------------------
def test_the_annulments_are_sealed(small_world: Any, wrong_step: tuple[int, int],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert any(x.table == "annulments" for x in seals.SEALED)
    _wrong, step = wrong_step
    requests.annul_step(small_world.store, small_world.principal("dpc"), step, REASON)
    assert verify_chain(small_world.store)[0]
    small_world.store.close()
    con = duckdb.connect(str(small_world.path))
    try:      # behind the application's back: the reason rewritten
        con.execute("UPDATE annulments SET reason = 'Outro motivo qualquer.'")
    finally:
        con.close()
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(small_world.path)]) == 1
    assert "annulments" in json.loads(capsys.readouterr().out)["message"]
