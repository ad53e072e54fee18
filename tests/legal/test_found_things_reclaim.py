"""Issue 25, rule 7 — found things reclaimed until sold (Lei 7.542/1986 art. 29 §1): the owner may reclaim found
things not yet sold by the Naval Authority, paying the custody and conservation costs — also after they were
declared lost under §2, until the sale. The pure rules (table-driven), the store path (costs, declaration,
reclaim) and the page on the full demo (Coisas achadas: the demo's bell, declared lost, not yet sold).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import first_user, page_as
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError
from valuation.inventory import found_costs as fc
from valuation.inventory import found_things as ft

D, M = date, Decimal
COLLECTED, RJ = D(2026, 10, 1), BusinessCalendar("RJ")

# (name, events so far, origin, may reclaim, words of the text)
TERMS_CASES = [
    ("in custody", [], "nacional", True, "até a alienação"),
    ("declared lost, not sold: still reclaimable (§1)", ["declared_lost"], "nacional", True, "ainda não alienada"),
    ("declared lost, then sold: only the proceeds (§3)", ["declared_lost", "sold"], "nacional", False, "6 meses"),
    ("sold while in custody", ["sold"], "nacional", False, "Alienada"),
    ("foreign origin: the Federal Revenue (art. 30)", [], "estrangeira", False, "art. 30"),
    ("declared lost, foreign origin", ["declared_lost"], "estrangeira", False, "Receita Federal"),
    ("already returned", ["reclaimed"], "nacional", False, "Não pode mais"),
]


@pytest.mark.parametrize("name, kinds, origin, open_, words", TERMS_CASES, ids=[c[0] for c in TERMS_CASES])
def test_whether_the_owner_may_still_reclaim(name, kinds, origin, open_, words):
    current = ft.derive_state(COLLECTED, origin, [ft.FoundEvent(k, D(2026, 11, 5), M("10")) for k in kinds])
    terms = ft.reclaim_terms(current, M("3650.00"))
    assert terms.open is open_ and words in terms.text
    if open_:
        assert "R$ 3.650,00" in terms.text and "art. 29 §1" in terms.text


COSTS = [fc.Cost("conservação", D(2026, 10, 5), M("850.00")), fc.Cost("guarda", D(2026, 10, 31), M("1200.00")),
         fc.Cost("guarda", D(2026, 12, 31), M("1600.00"))]
# (name, day, costs due: every cost incurred up to that day)
DUE_CASES = [
    ("before any cost", D(2026, 10, 4), M("0.00")),
    ("on the day of the first", D(2026, 10, 5), M("850.00")),
    ("after two", D(2026, 11, 30), M("2050.00")),
    ("after all three", D(2027, 1, 4), M("3650.00")),
]


@pytest.mark.parametrize("name, day, due", DUE_CASES, ids=[c[0] for c in DUE_CASES])
def test_the_costs_due_on_a_day(name, day, due):
    assert fc.costs_due(COSTS, day) == due


# (name, events so far, amount paid, costs due, problem paths)
RECLAIM_CASES = [
    ("after the declaration of loss, paying the costs due", ["declared_lost"], M("2050.00"), M("2050.00"), []),
    ("after the declaration, paying less than due", ["declared_lost"], M("2049.99"), M("2050.00"), ["amount"]),
    ("in custody, paying more (costs not itemised)", [], M("2100.00"), M("2050.00"), []),
    ("in custody, nothing recorded, nothing paid", [], M("0"), M("0"), []),
    ("after the sale: no longer", ["sold"], M("2050.00"), M("0"), ["kind"]),
]


@pytest.mark.parametrize("name, kinds, paid, due, paths", RECLAIM_CASES, ids=[c[0] for c in RECLAIM_CASES])
def test_a_reclaim_pays_at_least_the_costs_due(name, kinds, paid, due, paths):
    current = ft.derive_state(COLLECTED, "nacional", [ft.FoundEvent(k, D(2026, 11, 5), M("10")) for k in kinds])
    event = ft.FoundEvent("reclaimed", D(2026, 11, 20), paid, party="Dono", reference="Recibo")
    problems = ft.event_problems(COLLECTED, current, event, RJ, today=D(2026, 11, 30), costs_due=due)
    assert [p.path for p in problems] == paths
    if paths == ["amount"]:
        assert "R$ 2.050,00" in problems[0].message and "art. 29 §1" in problems[0].message


# -- the store ---------------------------------------------------------------------------------------------
TODAY = D(2027, 1, 15)
THING = {"office_code": "CPRJ", "description": "Sino de bronze", "place": "Praia Vermelha", "origin": "nacional",
         "collected_on": COLLECTED, "finder_name": "João Pescador"}


def test_declared_lost_then_reclaimed_paying_the_costs(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    found_id = ft.register_found_thing(s, dpc, THING, today=TODAY)
    for kind, day, amount in (("conservação", D(2026, 10, 5), "850,00"), ("guarda", D(2026, 11, 30), "1.200,00")):
        fc.record_found_cost(s, dpc, found_id, {"kind": kind, "incurred_on": day, "amount": amount,
                                                "description": "Depósito da CPRJ"}, today=TODAY)
    with pytest.raises(InputError) as err:                       # a cost before the collection
        fc.record_found_cost(s, dpc, found_id, {"kind": "guarda", "incurred_on": D(2026, 9, 30), "amount": "1",
                                                "description": "x"}, today=TODAY)
    assert [p.path for p in err.value.problems] == ["incurred_on"]
    ft.record_found_event(s, dpc, found_id, {"kind": "declared_lost", "event_date": D(2026, 12, 1)}, today=TODAY)
    thing = ft.get_found_thing(s, dpc, found_id, as_of=TODAY)
    assert thing["state"] == "declarado_perdido" and "reclaimed" in thing["next_events"]
    assert thing["reclaim"].open and thing["reclaim"].costs_due == M("2050.00")
    listed = ft.list_found_things(s, dpc, as_of=TODAY)
    assert listed["costs_due"].tolist() == [M("2050.00")]
    before = s.scalar("SELECT count(*) FROM found_thing_events")
    with pytest.raises(InputError) as err:                       # less than the costs due
        ft.record_found_event(s, dpc, found_id, {"kind": "reclaimed", "event_date": D(2026, 12, 10),
                                                 "party": "Cia. de Navegação", "amount": "2.000,00"}, today=TODAY)
    assert [p.path for p in err.value.problems] == ["amount"]
    assert s.scalar("SELECT count(*) FROM found_thing_events") == before
    ft.record_found_event(s, dpc, found_id, {"kind": "reclaimed", "event_date": D(2026, 12, 10),
                                             "party": "Cia. de Navegação", "amount": "2.050,00"}, today=TODAY)
    assert ft.get_found_thing(s, dpc, found_id, as_of=TODAY)["state"] == "devolvido"
    with pytest.raises(InputError):                              # no more costs of a thing returned
        fc.record_found_cost(s, dpc, found_id, {"kind": "guarda", "incurred_on": D(2026, 12, 20), "amount": "5",
                                                "description": "x"}, today=TODAY)
    actions = [r["action"] for r in s.fetch("SELECT action FROM audit_log WHERE entity = 'found_thing' ORDER BY id")]
    assert actions.count("found_thing_cost") == 2 and actions[-1] == "found_thing_event"


def test_a_sold_thing_is_no_longer_reclaimed(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    found_id = ft.register_found_thing(s, dpc, THING, today=TODAY)
    ft.record_found_event(s, dpc, found_id, {"kind": "declared_lost", "event_date": D(2026, 12, 1)}, today=TODAY)
    ft.record_found_event(s, dpc, found_id, {"kind": "sold", "event_date": D(2026, 12, 5), "amount": "900",
                                             "reference": "Leilão 3/2026", "note": "bronze em corrosão"}, today=TODAY)
    with pytest.raises(InputError) as err:
        ft.record_found_event(s, dpc, found_id, {"kind": "reclaimed", "event_date": D(2026, 12, 10),
                                                 "party": "Dono", "amount": "0"}, today=TODAY)
    assert [p.path for p in err.value.problems] == ["kind"]
    assert not ft.get_found_thing(s, dpc, found_id, as_of=TODAY)["reclaim"].open


# -- the page on the full demo -------------------------------------------------------------------------------
def test_found_things_page_shows_the_demo_bell_reclaimable_with_its_costs(full_demo_db: Path) -> None:
    at = page_as(full_demo_db, first_user(full_demo_db, "dpc"), "found_things")
    assert not at.exception
    pick = next(s for s in at.selectbox if s.label == "Coisa achada")
    bell = next(o for o in pick.options if "Guarany" in str(o))
    pick.set_value(next(k for k in pick.options if k == bell)).run()
    shown = " ".join(str(i.value) for i in at.info)
    assert "Declarada perdida (art. 29 §2), mas ainda não alienada" in shown and "R$ 3.650,00" in shown
    assert "art. 29 §1" in shown
    assert any("Devolvida ao responsável" in str(o) for s in at.selectbox if s.label == "Registro"
               for o in s.options) or any("reclaimed" == o for s in at.selectbox if s.label == "Registro"
                                          for o in s.options)
