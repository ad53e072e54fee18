"""A registered archaeological site is the União's whatever the five years (Constituição art. 20 X; Lei
3.924/1961): the pure rule, the registry's record, the domain status and the deadline engine's lapse row.
Expected dates are worked out by hand beside each case."""
from __future__ import annotations

from datetime import date, datetime

import pytest

from valuation.core.archaeology import SiteRegistration, site_moots_lapse
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import AccessDenied, ConflictError, InputError
from valuation.deadlines import engine
from valuation.registry.domain.queries import domain_statuses
from valuation.registry.domain.status import domain_status
from valuation.registry.sites import record_site, site_of

D = date
NAT = BusinessCalendar(None)
AS_OF = D(2025, 6, 30)


def _site(day: date) -> SiteRegistration:
    return SiteRegistration("IPHAN", "CNSA BA-00412", day)


# name, casualty, hull, licence requested, suspensions, site registered on → owner, since
CASES = [
    # a timely licence request keeps the five years' owner (art. 4), but not against the site's registration
    ("timely request", D(1995, 4, 30), "aço", D(1998, 1, 10), [], D(2019, 3, 14), "union", D(2019, 3, 14)),
    # a removal order still running stops the five years (art. 6 sole paragraph II): the site is União's anyway
    ("open suspension", D(2018, 6, 1), "aço", None, [(D(2020, 2, 1), None)], D(2022, 5, 2), "union", D(2022, 5, 2)),
    # art. 32 §1: a wooden hull sunk in 1712 was the União's from 29/09/1986; the later registration changes nothing
    ("wooden hull first", D(1712, 5, 2), "madeira", None, [], D(2019, 3, 14), "union", D(1986, 9, 29)),
    # the five years ran out on 10/03/1995 (a Friday) without a request: União from 11/03/1995, before the site
    ("lapse first", D(1990, 3, 10), "aço", None, [], D(2019, 3, 14), "union", D(1995, 3, 11)),
    # registered in 1987, under Lei 3.924 alone: União by the Constitution from 05/10/1988 (the request of
    # 1990 was timely: the five years from 29/09/1986 end on Monday 30/09/1991)
    ("before the Constitution", D(1980, 1, 15), "aço", D(1990, 5, 2), [], D(1987, 6, 1), "union", D(1988, 10, 5)),
    # registered after the reference date: not yet; the timely request keeps it private
    ("registered later", D(1995, 4, 30), "aço", D(1998, 1, 10), [], D(2026, 1, 5), "private", None),
    # no registration: the five years decide alone
    ("no site", D(1995, 4, 30), "aço", D(1998, 1, 10), [], None, "private", None),
]


@pytest.mark.parametrize("name, casualty, hull, requested, suspensions, registered, owner, since", CASES,
                         ids=[c[0] for c in CASES])
def test_domain_status_with_a_registered_site(name, casualty, hull, requested, suspensions, registered, owner, since):
    site = _site(registered) if registered else None
    s = domain_status(AS_OF, casualty, hull, None, requested, suspensions, NAT, site=site)
    assert (s.owner, s.since) == (owner, since), s.steps
    if registered is not None and registered <= AS_OF:
        assert any("sítio arqueológico" in step.lower() for step in s.steps)
    if registered is not None and since == registered:
        assert any("Constituição Federal art. 20 X" in b for b in s.basis), s.basis


@pytest.mark.parametrize("registered, due, moots", [
    (D(2019, 3, 14), D(2020, 5, 4), True),     # before the last day: the lapse row is moot
    (D(2020, 5, 4), D(2020, 5, 4), True),      # on the last day
    (D(2020, 5, 5), D(2020, 5, 4), False),     # after: the five years had run out, the União had it already
    (D(2019, 3, 14), None, True),              # the clock is stopped (open suspension)
    (D(2026, 1, 5), None, False),              # after the reference date
    (None, D(2020, 5, 4), False),
])
def test_site_moots_lapse(registered, due, moots):
    assert site_moots_lapse(registered, due, AS_OF) is moots


def _wreck(world, code: str, casualty: date, requested: date | None) -> None:
    world.store.write("test", lambda tx: tx.execute(
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, casualty_day, "
        "casualty_precision, casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
        "situation, owner_licence_requested) VALUES (?, 'Vapor Itapagé', 'aço', ?, ?, ?, 'day', 'naufrágio', 13, 1, "
        "'S', 38, 30, 'W', 'WGS-84', 'CPBA', 'soçobrada', ?)", [code, casualty.year, casualty.month, casualty.day,
                                                                 requested]))


def test_the_registry_records_a_site_and_every_reader_follows_it(small_world):
    """Casualty 30/04/2019, no request, the five years running until 30/04/2024 (a Tuesday); registered on
    14/03/2022: União since 14/03/2022 in the registry, and the engine's lapse row is moot (waived) by the site."""
    dpc = small_world.principal("dpc")
    _wreck(small_world, "SIT-2019-01", D(2019, 4, 30), None)
    small_world.store._clock = lambda: datetime(2025, 6, 30, 12)   # a known "today": the form refuses the future
    data = {"wreck_code": "SIT-2019-01", "authority": "IPHAN", "number": "CNSA BA-00412",
            "registered_on": D(2022, 3, 14), "note": "Vapor de 2019 com carga de interesse histórico."}
    wreck_id = record_site(small_world.store, dpc, data)
    assert site_of(small_world.store, dpc, wreck_id)["text"] == "IPHAN nº CNSA BA-00412, registrado em 14/03/2022"
    row = domain_statuses(small_world.store, dpc, AS_OF).set_index("code").loc["SIT-2019-01"]
    assert (row["owner"], row["since"]) == ("union", D(2022, 3, 14)), row["steps"]
    assert row["site"] == "IPHAN nº CNSA BA-00412, registrado em 14/03/2022"
    assert "Constituição Federal art. 20 X" in row["basis"]
    lapse = engine.compute_deadlines(small_world.store, dpc, as_of=AS_OF).set_index("key").loc[
        "five_year_lapse:SIT-2019-01"]
    assert lapse["state"] == "waived" and "sítio arqueológico registrado em 14/03/2022" in lapse["reason"], lapse
    audit = small_world.store.fetch("SELECT action, entity FROM audit_log ORDER BY id DESC LIMIT 1")
    assert audit == [{"action": "record_archaeological_site", "entity": "archaeological_site"}]
    with pytest.raises(ConflictError):
        record_site(small_world.store, dpc, data)


@pytest.mark.parametrize("change, field", [
    ({"wreck_code": "NÃO-EXISTE"}, "wreck_code"),
    ({"registered_on": D(2025, 7, 1)}, "registered_on"),        # in the future
    ({"registered_on": D(1890, 1, 1)}, "registered_on"),        # before the casualty (1995)
    ({"number": ""}, "number"),
    ({"authority": "x" * 201}, "authority"),
])
def test_a_bad_registration_names_the_field_and_writes_nothing(small_world, change, field):
    small_world.store._clock = lambda: datetime(2025, 6, 30, 12)
    data = {"wreck_code": "NAU-1995-03", "authority": "IPHAN", "number": "CNSA SP-00001",
            "registered_on": D(2020, 1, 2), **change}
    with pytest.raises(InputError) as exc:
        record_site(small_world.store, small_world.principal("dpc"), data)
    assert field in {p.path for p in exc.value.problems}
    assert small_world.store.scalar("SELECT count(*) FROM archaeological_sites") == 0


def test_only_dpc_records_a_site(small_world):
    with pytest.raises(AccessDenied):
        record_site(small_world.store, small_world.principal("explorer_a"),
                    {"wreck_code": "NAU-1995-03", "authority": "IPHAN", "number": "1", "registered_on": D(2020, 1, 2)})
