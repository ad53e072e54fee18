"""The Maritime Court's pending decision suspends the five years by default (issue 44, wrong item 6): Lei 2.180/1954
art. 20 — "Não corre a prescrição contra qualquer dos interessados na apuração e nas conseqüências dos acidentes e
fatos da navegação por água enquanto não houver decisão definitiva do Tribunal Marítimo" — and Lei 7.542 art. 6 says
the owner's right "prescreverá" in five years. The policy `court_pending_suspends_lapse` is on unless DPC records it
off; the office records the Court's final decision (the event "Decisão do Tribunal Marítimo"), which ends the
suspension.

In the store (`small_world`). Casualty 12/03/2019, the office learned of it on 20/03/2019 (the Court's case pending
from then). Worked by hand:
- no decision by 30/06/2025: the five years are stopped, the wreck stays the owner's ("suspenso"), no due date;
- the Court decided on 19/03/2020: 20/03/2019–19/03/2020 are 366 days (29/02/2020 among them); 12/03/2024 + 366
  days = Thursday 13/03/2025, the last day to ask; the União's from 14/03/2025;
- with the policy recorded off: 12/03/2024 (Tuesday), the União's from 13/03/2024.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from valuation.deadlines import engine
from valuation.deadlines.events import record_event
from valuation.policies.defaults import DEFAULT_BY_KEY
from valuation.policies.values import policy_in_force, set_policy
from valuation.registry.domain.queries import domain_statuses

AS_OF = date(2025, 6, 30)
CODE = "NAU-2019-TM"


def _wreck(world: Any) -> None:
    world.store.write("test", lambda tx: tx.execute(
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, casualty_day, "
        "casualty_precision, casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
        "situation, court_known_on) VALUES (?, 'Rebocador Itaipu', 'aço', 2019, 3, 12, 'day', 'naufrágio', 23, 1, "
        "'S', 43, 2, 'W', 'WGS-84', 'CPRJ', 'soçobrada', DATE '2019-03-20')", [CODE]))


def _status(world: Any) -> dict[str, Any]:
    return dict(domain_statuses(world.store, world.principal("dpc"), AS_OF).set_index("code").loc[CODE])


def _lapse_row(world: Any) -> dict[str, Any]:
    df = engine.compute_deadlines(world.store, world.principal("dpc"), as_of=AS_OF)
    return dict(df[df["key"] == f"five_year_lapse:{CODE}"].iloc[0])


def test_the_policy_is_on_by_default_and_cites_the_court_law():
    spec = DEFAULT_BY_KEY["court_pending_suspends_lapse"]
    assert spec.value is True
    assert "Lei 2.180/1954 art. 20" in spec.basis


def test_a_pending_case_stops_the_five_years_without_any_policy_recorded(small_world):
    _wreck(small_world)
    assert policy_in_force(small_world.store, "court_pending_suspends_lapse", as_of=AS_OF).is_default
    row = _status(small_world)
    assert (row["owner"], row["since"], row["lapse_due"], row["lapse_suspended"]) == ("private", None, None, True)
    assert row["court_pending"] == "desde 20/03/2019 (pendente)"
    assert "Lei 2.180/1954 art. 20" in row["steps"]
    lapse = _lapse_row(small_world)
    assert lapse["state"] == "suspended" and "Tribunal Marítimo" in lapse["reason"]


def test_the_courts_final_decision_ends_the_suspension(small_world):
    _wreck(small_world)
    record_event(small_world.store, small_world.principal("dpc"),
                 {"kind": "decisão_do_tribunal", "wreck_code": CODE, "event_date": date(2020, 3, 19)})
    row = _status(small_world)
    assert (row["owner"], row["since"], row["lapse_due"]) == ("union", date(2025, 3, 14), date(2025, 3, 13))
    assert row["court_pending"] == "desde 20/03/2019 até 19/03/2020"
    assert _lapse_row(small_world)["due"] == date(2025, 3, 13)


def test_dpc_may_record_the_policy_off(small_world):
    _wreck(small_world)
    set_policy(small_world.store, small_world.principal("dpc"), "court_pending_suspends_lapse", False,
               "A DPC decidiu não aplicar a suspensão do art. 20 da Lei 2.180.", effective_from=date(2019, 1, 1))
    row = _status(small_world)
    assert (row["owner"], row["since"], row["lapse_due"]) == ("union", date(2024, 3, 13), date(2024, 3, 12))
