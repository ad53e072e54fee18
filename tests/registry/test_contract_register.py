"""Contracts and authorisations registered, corrected and moved between states through the store alone: every
field named on a refusal, nothing written; the state changes only by a dated act, and the deadlines read it."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest

from valuation.core.errors import AccessDenied, InputError, NotFound
from valuation.registry import contract_register as cr
from valuation.registry.contracts import get_contract


def _form(world: Any, **changes: Any) -> dict[str, Any]:
    base = {"code": "DPC-EX-2026/07", "kind": "exploração", "act": "contrato", "act_number": "Contrato nº 07/2026",
            "organisation_id": world.ids["org_b"], "wreck_id": world.ids["w4"], "requested_on": date(2026, 1, 10),
            "signed_on": date(2026, 3, 2), "starts_on": date(2026, 4, 1), "expires_on": date(2028, 4, 1),
            "caution_amount": "25.000,00"}
    return {**base, **changes}


def _audit(world: Any) -> int:
    return int(world.store.scalar("SELECT count(*) FROM audit_log"))


def test_a_contract_is_registered_in_force_with_its_office_and_first_act(small_world: Any) -> None:
    dpc = small_world.principal("dpc")
    code = cr.create_contract(small_world.store, dpc, _form(small_world))
    c = get_contract(small_world.store, dpc, code)
    assert (c["status"], c["office_code"], c["caution_amount"]) == ("vigente", "CPRJ", Decimal("25000.00"))
    acts = cr.contract_acts(small_world.store, dpc, code)
    assert [(a["act"], a["to_status"], a["effective_on"]) for a in acts] == [("registro", "vigente", date(2026, 3, 2))]
    # the officer of CPRJ reads it (its office), the officer's scope never reaches A-1 (CPBA)
    officer = small_world.principal("office_rj")
    assert get_contract(small_world.store, officer, code)["code"] == code
    with pytest.raises(NotFound):
        get_contract(small_world.store, officer, "A-1")


@pytest.mark.parametrize("changes, field", [
    ({"code": ""}, "code"), ({"code": "A-1"}, "code"), ({"code": "com espaço"}, "code"),
    ({"kind": "salvamento"}, "kind"), ({"act": "ofício"}, "act"), ({"organisation_id": 999}, "organisation_id"),
    ({"wreck_id": 999}, "wreck_id"), ({"office_code": "CPXX"}, "office_code"),
    ({"signed_on": "31/02/2026"}, "signed_on"), ({"requested_on": date(1850, 1, 1)}, "requested_on"),
    ({"starts_on": date(2026, 1, 1)}, "starts_on"), ({"caution_amount": "1.2.3"}, "caution_amount"),
    ({"caution_amount": "-5,00"}, "caution_amount"),
])
def test_a_bad_field_is_named_and_nothing_is_written(small_world: Any, changes: dict[str, Any], field: str) -> None:
    before = _audit(small_world)
    with pytest.raises(InputError) as err:
        cr.create_contract(small_world.store, small_world.principal("dpc"), _form(small_world, **changes))
    assert field in [p.where for p in err.value.problems]
    assert _audit(small_world) == before


def test_a_signing_day_in_the_future_is_refused(small_world: Any) -> None:
    tomorrow = small_world.store.today() + timedelta(days=1)
    with pytest.raises(InputError) as err:
        cr.create_contract(small_world.store, small_world.principal("dpc"),
                           _form(small_world, signed_on=tomorrow, starts_on=None, expires_on=None))
    assert [p.where for p in err.value.problems] == ["signed_on"]


def test_only_headquarters_registers_and_corrects_contracts(small_world: Any) -> None:
    for key in ("office_rj", "explorer_b", "commission", "admin"):
        with pytest.raises(AccessDenied):
            cr.create_contract(small_world.store, small_world.principal(key), _form(small_world))


def test_a_requested_contract_enters_into_force_ends_and_is_never_edited_back(small_world: Any) -> None:
    dpc = small_world.principal("dpc")
    code = cr.create_contract(small_world.store, dpc, _form(small_world, signed_on=None, starts_on=None))
    assert get_contract(small_world.store, dpc, code)["status"] == "solicitado"
    assert cr.next_acts("solicitado") == ["vigencia", "cancelamento"]
    with pytest.raises(InputError) as err:          # a suspension does not follow a request
        cr.record_contract_act(small_world.store, dpc, code, {"act": "suspensao", "effective_on": date(2026, 3, 1),
                                                              "reason": "teste"})
    assert err.value.problems[0].where == "act"
    assert cr.record_contract_act(small_world.store, dpc, code, {"act": "vigencia", "effective_on": date(2026, 3, 5),
                                                                 "reference": "Portaria DPC nº 31/2026"}) == "vigente"
    c = get_contract(small_world.store, dpc, code)
    assert c["signed_on"] == date(2026, 3, 5)
    with pytest.raises(InputError) as err:          # a cancellation needs its reason
        cr.record_contract_act(small_world.store, dpc, code, {"act": "cancelamento", "effective_on": date(2026, 6, 1)})
    assert err.value.problems[0].where == "reason"
    with pytest.raises(InputError) as err:          # not before the last act
        cr.record_contract_act(small_world.store, dpc, code, {"act": "conclusao", "effective_on": date(2026, 3, 1)})
    assert err.value.problems[0].where == "effective_on"
    assert cr.record_contract_act(small_world.store, dpc, code,
                                  {"act": "conclusao", "effective_on": date(2026, 9, 30)}) == "concluído"
    c = get_contract(small_world.store, dpc, code)
    assert (c["status"], c["work_ended_on"]) == ("concluído", date(2026, 9, 30))
    assert [a["act"] for a in cr.contract_acts(small_world.store, dpc, code)] == ["registro", "vigencia", "conclusao"]


def test_correcting_a_contract_keeps_its_code_and_versions(small_world: Any) -> None:
    dpc = small_world.principal("dpc")
    code = cr.create_contract(small_world.store, dpc, _form(small_world))
    rec = cr.contract_record(small_world.store, dpc, code)
    form = {k: rec[k] for k in cr.CONTRACT_FIELDS}
    with pytest.raises(InputError) as err:
        cr.correct_contract(small_world.store, dpc, code, {**form, "code": "OUTRO"}, "renomear")
    assert err.value.problems[0].where == "code"
    assert cr.correct_contract(small_world.store, dpc, code, {**form, "expires_on": date(2028, 10, 1)},
                               "Termo aditivo nº 1: prorrogação") == 2
    history = cr.contract_history(small_world.store, dpc, code)
    assert [v.data["expires_on"] for v in history] == ["2028-04-01", "2028-10-01"]
    assert history[1].reason == "Termo aditivo nº 1: prorrogação"
