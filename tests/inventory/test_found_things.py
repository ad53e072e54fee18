"""Found things (Lei 7.542/1986 arts. 28–30): registration, the 30-day window on the office calendar,
declaration of loss, sale and proceeds held six months, União revenue, Federal Revenue, owner reclaim.

Due dates are worked out by hand in the comments (weekdays and holidays of 2026/2027), not by the code.
"""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest

from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import AccessDenied, InputError, NotFound
from valuation.inventory import found_things as ft

TODAY = date(2027, 6, 30)
THING = {"office_code": "CPRJ", "description": "Sino de bronze com inscrição", "place": "Praia Vermelha, Urca",
         "collected_on": date(2026, 10, 1), "finder_name": "João Pescador", "finder_document": "52998224725"}


def register(world, **changes) -> int:
    return ft.register_found_thing(world.store, world.principal("dpc"), {**THING, **changes}, today=TODAY)


def event(world, found_id: int, **data) -> int:
    return ft.record_found_event(world.store, world.principal("dpc"), found_id, data, today=TODAY)


def state_of(world, found_id: int) -> str:
    return ft.get_found_thing(world.store, world.principal("dpc"), found_id, as_of=TODAY)["state"]


def counts(store) -> tuple[int, int, int]:
    row = store.fetch_one("SELECT (SELECT count(*) FROM found_things) AS t, (SELECT count(*) FROM found_thing_events) "
                          "AS e, (SELECT count(*) FROM audit_log) AS a")
    return row["t"], row["e"], row["a"]


# -- the 30-day window (art. 29 §2) on the office calendar ---------------------------------------------
def test_unclaimed_window_moves_past_weekend_and_holiday(small_world):
    # 01/10/2026 + 30 days = 31/10/2026, a Saturday; 01/11 is Sunday; 02/11 is Finados (national) → 03/11/2026.
    found_id = register(small_world)
    thing = ft.get_found_thing(small_world.store, small_world.principal("dpc"), found_id, as_of=date(2026, 10, 15))
    assert thing["unclaimed"].due == date(2026, 11, 3)
    assert thing["unclaimed"].moved_from == date(2026, 10, 31)
    assert "art. 29 §2" in thing["unclaimed"].basis
    assert "03/11/2026" in thing["next_step"]


def test_a_local_holiday_of_the_office_moves_the_window(small_world):
    # CPRJ closes on 03/11/2026 (a municipal holiday): the window ends on Wednesday 04/11/2026.
    small_world.store.write("t", lambda tx: tx.execute(
        "INSERT INTO local_holidays VALUES ('CPRJ', DATE '2026-11-03', 'Feriado municipal de teste')"))
    found_id = register(small_world)
    assert ft.get_found_thing(small_world.store, small_world.principal("dpc"), found_id,
                              as_of=TODAY)["unclaimed"].due == date(2026, 11, 4)
    # another office's calendar is not affected
    other = register(small_world, office_code="CPSP")
    assert ft.get_found_thing(small_world.store, small_world.principal("dpc"), other,
                              as_of=TODAY)["unclaimed"].due == date(2026, 11, 3)


def test_declaration_of_loss_only_after_the_window(small_world):
    found_id = register(small_world)
    before = counts(small_world.store)
    with pytest.raises(InputError) as info:
        event(small_world, found_id, kind="declared_lost", event_date=date(2026, 11, 3))   # the last day: still open
    assert "03/11/2026" in str(info.value) and "art. 29 §2" in str(info.value)
    assert counts(small_world.store) == before
    event(small_world, found_id, kind="declared_lost", event_date=date(2026, 11, 4))
    assert state_of(small_world, found_id) == "declarado_perdido"
    # the declaration does not end the owner's claim: not yet sold, the thing is still reclaimed (art. 29 §1)
    event(small_world, found_id, kind="reclaimed", event_date=date(2026, 11, 5), party="Dono", amount="0")
    assert state_of(small_world, found_id) == "devolvido"


# -- sale and proceeds (art. 29 §3) ----------------------------------------------------------------------
def test_sale_proceeds_held_six_months_then_union_revenue(small_world):
    found_id = register(small_world)
    with pytest.raises(InputError) as info:          # no tender, no reason, no amount
        event(small_world, found_id, kind="sold", event_date=date(2026, 11, 10))
    assert {p.path for p in info.value.problems} == {"amount", "reference", "note"}
    event(small_world, found_id, kind="sold", event_date=date(2026, 11, 10), amount="1234,56",
          reference="Hasta pública 3/2026", note="Oxidação acelerada fora d'água", party="Antiquário Silva")
    stored = small_world.store.scalar("SELECT amount FROM found_thing_events WHERE kind = 'sold'")
    assert stored == Decimal("1234.56") and isinstance(stored, Decimal)
    thing = ft.get_found_thing(small_world.store, small_world.principal("dpc"), found_id, as_of=TODAY)
    # 10/11/2026 + 6 months = 10/05/2027, a Monday (a business day): not moved.
    assert thing["proceeds_deadline"].due == date(2027, 5, 10) and thing["proceeds"] == Decimal("1234.56")
    with pytest.raises(InputError) as info:
        event(small_world, found_id, kind="proceeds_to_union", event_date=date(2027, 5, 10))
    assert "10/05/2027" in str(info.value)
    with pytest.raises(InputError):                  # the owner may claim them up to the last day only
        event(small_world, found_id, kind="proceeds_claimed", event_date=date(2027, 5, 11), party="Dono")
    event(small_world, found_id, kind="proceeds_to_union", event_date=date(2027, 5, 11), reference="GRU 77")
    assert state_of(small_world, found_id) == "receita_uniao"
    with pytest.raises(InputError):                  # nothing follows
        event(small_world, found_id, kind="proceeds_claimed", event_date=date(2027, 5, 12), party="Dono")


def test_owner_claims_the_proceeds_within_six_months(small_world):
    found_id = register(small_world)
    event(small_world, found_id, kind="sold", event_date=date(2026, 10, 5), amount="50", reference="Leilão 1",
          note="perecível")
    event(small_world, found_id, kind="proceeds_claimed", event_date=date(2027, 4, 5), party="Maria Dona")
    assert state_of(small_world, found_id) == "produto_devolvido"


# -- origin: owner reclaim (art. 29 caput, §1) and Federal Revenue (art. 30) ------------------------------
def test_foreign_things_go_to_the_federal_revenue_not_to_an_owner(small_world):
    found_id = register(small_world)
    with pytest.raises(InputError) as info:
        event(small_world, found_id, kind="sent_to_revenue", event_date=date(2026, 10, 20), reference="Ofício 9")
    assert "art. 30" in str(info.value)
    event(small_world, found_id, kind="origin_identified", event_date=date(2026, 10, 10), origin="estrangeira")
    with pytest.raises(InputError) as info:
        event(small_world, found_id, kind="reclaimed", event_date=date(2026, 10, 12), party="Dono", amount="0")
    assert "art. 30" in str(info.value)
    event(small_world, found_id, kind="sent_to_revenue", event_date=date(2026, 10, 20), reference="Ofício 9/2026")
    assert state_of(small_world, found_id) == "encaminhado_receita"


def test_a_national_thing_is_reclaimed_by_its_owner_paying_costs(small_world):
    found_id = register(small_world, origin="nacional")
    with pytest.raises(InputError) as info:
        event(small_world, found_id, kind="reclaimed", event_date=date(2026, 10, 8))
    assert {p.path for p in info.value.problems} == {"party", "amount"}
    event(small_world, found_id, kind="reclaimed", event_date=date(2026, 10, 8), party="Clube Náutico",
          amount="350,00", reference="Recibo 12")
    assert state_of(small_world, found_id) == "devolvido"
    listed = ft.list_found_things(small_world.store, small_world.principal("dpc"), as_of=TODAY, state="devolvido")
    assert listed["id"].tolist() == [found_id] and listed["next_step"].iloc[0] == "encerrado"


@pytest.mark.parametrize("data, path", [
    ({"kind": "declared_lost", "event_date": date(2026, 9, 30)}, "event_date"),     # before the collection
    ({"kind": "declared_lost", "event_date": date(2027, 7, 1)}, "event_date"),      # future
    ({"kind": "origin_identified", "event_date": date(2026, 10, 2)}, "origin"),
    ({"kind": "proceeds_to_union", "event_date": date(2027, 6, 1)}, "kind"),        # nothing was sold
    ({"kind": "descartado", "event_date": date(2026, 10, 2)}, "kind"),
    ({"kind": "sold", "event_date": date(2026, 10, 2), "amount": "-5", "reference": "x", "note": "y"}, "amount"),
    ({"kind": "sold", "event_date": "31/02/2026", "amount": "5", "reference": "x", "note": "y"}, "event_date"),
    ({"kind": "sold", "event_date": date(2026, 10, 2), "amount": "5", "reference": "x", "note": "y", "x": 1}, "x"),
])
def test_bad_events_are_refused_and_write_nothing(small_world, data, path):
    found_id = register(small_world)
    before = counts(small_world.store)
    with pytest.raises(InputError) as info:
        event(small_world, found_id, **data)
    assert path in {p.path for p in info.value.problems}
    assert counts(small_world.store) == before


# -- registration, trail and access ----------------------------------------------------------------------
def test_registration_is_validated_field_by_field(small_world):
    before = counts(small_world.store)
    with pytest.raises(InputError) as info:
        register(small_world, office_code="XXXX", collected_on=date(2027, 7, 1), found_on=date(2027, 7, 2),
                 finder_name="", origin="marciana", wreck_code="NAU-0000-00")
    assert {p.path for p in info.value.problems} == {"office_code", "collected_on", "found_on", "finder_name",
                                                     "origin", "wreck_code"}
    assert counts(small_world.store) == before


def test_registration_and_events_are_audited_and_listed(small_world):
    found_id = register(small_world, wreck_code="NAU-1890-02", quantity="3", found_on=date(2026, 9, 28))
    row = small_world.store.fetch_one("SELECT * FROM found_things WHERE id = ?", [found_id])
    assert (row["wreck_id"], row["quantity"], row["origin"], row["recorded_by"]) == \
        (small_world.ids["w2"], 3, "a_identificar", "dpc.silva")
    event(small_world, found_id, kind="origin_identified", event_date=date(2026, 10, 3), origin="nacional")
    audit = small_world.store.fetch("SELECT action, entity_id, before_json, after_json FROM audit_log "
                                    "WHERE entity = 'found_thing' ORDER BY id")
    assert [a["action"] for a in audit] == ["found_thing_registered", "found_thing_event"]
    assert json.loads(audit[1]["before_json"]) == {"state": "sob_custodia"}
    listed = ft.list_found_things(small_world.store, small_world.principal("dpc"), as_of=date(2026, 10, 15))
    first = listed.iloc[0]
    assert (first["id"], first["origin"], first["state"]) == (found_id, ft.ORIGIN_LABELS["nacional"], "sob_custodia")
    assert first["unclaimed_due"] == date(2026, 11, 3)
    assert "aguardando o responsável até 03/11/2026 (19 dias)" == first["next_step"]
    with pytest.raises(NotFound):
        event(small_world, 99999, kind="declared_lost", event_date=date(2026, 12, 1))


@pytest.mark.parametrize("key", ["commission", "commission_president", "explorer_a", "admin"])
def test_found_things_are_dpc_only(small_world, key):
    found_id = register(small_world)
    user = small_world.principal(key)
    calls = [
        lambda: ft.list_found_things(small_world.store, user, as_of=TODAY),
        lambda: ft.get_found_thing(small_world.store, user, found_id, as_of=TODAY),
        lambda: ft.register_found_thing(small_world.store, user, THING, today=TODAY),
        lambda: ft.record_found_event(small_world.store, user, found_id,
                                      {"kind": "declared_lost", "event_date": date(2026, 12, 1)}, today=TODAY),
    ]
    for call in calls:
        with pytest.raises(AccessDenied):
            call()


# -- the pure rules, table-driven ----------------------------------------------------------------------------
RJ = BusinessCalendar("RJ")
COLLECTED = date(2026, 10, 1)


@pytest.mark.parametrize("history, origin, kind, allowed", [
    ([], "a_identificar", "reclaimed", True),
    ([], "estrangeira", "reclaimed", False),
    ([], "nacional", "sent_to_revenue", False),
    ([("origin_identified", "estrangeira")], "nacional", "sent_to_revenue", True),
    ([("declared_lost", None)], "nacional", "reclaimed", True),      # art. 29 §1: until the sale (issue 25)
    ([("declared_lost", None)], "estrangeira", "reclaimed", False),
    ([("declared_lost", None)], "nacional", "sold", True),
    ([("sold", None)], "nacional", "sold", False),
    ([("sold", None)], "nacional", "reclaimed", False),
    ([("reclaimed", None)], "nacional", "declared_lost", False),
    ([("sent_to_revenue", None)], "estrangeira", "sold", False),
])
def test_what_may_follow_what(history, origin, kind, allowed):
    events = [ft.FoundEvent(k, date(2026, 11, 5), Decimal("10"), origin=o) for k, o in history]
    current = ft.derive_state(COLLECTED, origin, events)
    candidate = ft.FoundEvent(kind, date(2026, 11, 20), Decimal("10"), party="Dono", reference="Doc",
                              note="motivo")
    problems = ft.event_problems(COLLECTED, current, candidate, RJ, today=date(2026, 11, 30))
    assert (problems == []) is allowed, problems
