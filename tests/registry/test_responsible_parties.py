"""A wreck's responsible parties (Lei 7.542 arts. 8, 13 §1, 14): cessions — of no effect against the Authority
until communicated (§2: "sob pena de ser anulado o ato"), cedente and cessionário jointly liable from the cession
(§1; docs/decisions/102-cession-joint-liability.md), the cessionário's requests, deadlines and notices counting
from the communication — and the vessel and its cargo, two responsible parties whose five
years run apart. Pure rules first (table-driven), then the store, the domain status and the deadline engine.
Expected dates are worked out by hand beside each case."""
from __future__ import annotations

from datetime import date, datetime

import pytest

from valuation.core import responsible as rp
from valuation.core.errors import InputError
from valuation.deadlines import engine
from valuation.registry import owners, parties, removal_orders
from valuation.registry.domain.queries import domain_statuses

D = date
A, B, C, X = 1, 2, 3, 9     # owners: A the original responsible, B and C cessionários, X a stranger
AS_OF = D(2025, 6, 30)


def cession(cedent, cessionary, ceded, communicated=None, part=rp.VESSEL):
    return rp.Cession(part, cedent, cessionary, ceded, communicated)


# name, cessions, day → the responsible the Authority deals with (art. 8 §2), who answers jointly (§1: from the
# cession itself — §2's sanction is the act's annulment, not its nullity from the start)
RESPONSIBLE = [
    ("no cession", [], D(2024, 1, 1), A, (A,)),
    ("not communicated: the Authority deals with the cedente, the cessionário answers jointly from the cession",
     [cession(A, B, D(2023, 1, 10))], D(2024, 1, 1), A, (A, B)),
    ("not yet ceded on the day: the cessionário answers for nothing", [cession(A, B, D(2023, 1, 10))],
     D(2023, 1, 9), A, (A,)),
    ("communicated later than the day", [cession(A, B, D(2023, 1, 10), D(2024, 2, 1))], D(2024, 1, 31), A, (A, B)),
    ("communicated on the day", [cession(A, B, D(2023, 1, 10), D(2024, 2, 1))], D(2024, 2, 1), B, (A, B)),
    ("a chain A → B → C", [cession(A, B, D(2023, 1, 10), D(2023, 2, 1)), cession(B, C, D(2024, 3, 1), D(2024, 3, 5))],
     D(2024, 6, 1), C, (A, B, C)),
    ("a chain whose second link is not communicated", [cession(A, B, D(2023, 1, 10), D(2023, 2, 1)),
                                                        cession(B, C, D(2024, 3, 1))], D(2024, 6, 1), B, (A, B, C)),
    ("a cession by a stranger binds no one", [cession(X, B, D(2023, 1, 10), D(2023, 2, 1))], D(2024, 1, 1), A, (A,)),
    ("the cargo's cession leaves the vessel alone", [cession(A, B, D(2023, 1, 10), D(2023, 2, 1), rp.CARGO)],
     D(2024, 1, 1), A, (A,)),
]


@pytest.mark.parametrize("name, cessions, day, responsible, liable", RESPONSIBLE, ids=[r[0] for r in RESPONSIBLE])
def test_who_answers(name, cessions, day, responsible, liable):
    assert rp.responsible_on(A, cessions, rp.VESSEL, day) == responsible
    assert rp.liable_on(A, cessions, rp.VESSEL, day) == liable


COMMUNICATED = [cession(A, B, D(2023, 1, 10), D(2023, 2, 1))]
# name, cessions, requests, recorded (wrecks.owner_licence_requested) → the request that counts (arts. 4, 8 §2),
# how many of the vessel's requests do not count
REQUESTS = [
    ("the cessionário's, after the communication", COMMUNICATED, [rp.Request(rp.VESSEL, B, D(2023, 5, 5))], None,
     D(2023, 5, 5), 0),
    ("the cessionário's, before it: not yet the responsible", COMMUNICATED,
     [rp.Request(rp.VESSEL, B, D(2023, 1, 20))], None, None, 1),
    ("the cedente's, after the communication: no longer the responsible", COMMUNICATED,
     [rp.Request(rp.VESSEL, A, D(2023, 5, 5))], None, None, 1),
    ("an uncommunicated cessionário's", [cession(A, B, D(2023, 1, 10))], [rp.Request(rp.VESSEL, B, D(2023, 5, 5))],
     None, None, 1),
    ("the earliest that counts", COMMUNICATED, [rp.Request(rp.VESSEL, A, D(2023, 1, 12)),
                                                rp.Request(rp.VESSEL, B, D(2023, 6, 1))], None, D(2023, 1, 12), 0),
    ("the registry's own date counts as the responsible's", [], [], D(2022, 9, 9), D(2022, 9, 9), 0),
    ("a cargo request is not the vessel's", [], [rp.Request(rp.CARGO, A, D(2023, 5, 5))], None, None, 0),
]


@pytest.mark.parametrize("name, cessions, requests, recorded, counted, skipped", REQUESTS,
                         ids=[r[0] for r in REQUESTS])
def test_whose_request_counts(name, cessions, requests, recorded, counted, skipped):
    day, steps = rp.counted_request(A, cessions, requests, rp.VESSEL, recorded)
    assert (day, len(steps)) == (counted, skipped)
    assert all("não conta" in step for step in steps)


# requester, vessel's responsible, cargo's responsible, cargo's interest shown → allowed (art. 14 I–II)
@pytest.mark.parametrize("requester, vessel, cargo, interest, allowed", [
    (C, A, C, False, True),      # II: the cargo's responsible, independently of the vessel's
    (C, A, C, True, True),
    (A, A, C, False, True),      # I: the vessel's, when the cargo's shows no interest
    (A, A, C, True, False),      # I: not once the cargo's responsible has asked
    (X, A, C, False, False),     # a stranger never
    (A, A, None, False, True),   # unknown cargo responsible: no interest shown
])
def test_who_may_ask_for_the_cargo(requester, vessel, cargo, interest, allowed):
    problem = rp.cargo_request_problem(requester, vessel, cargo, interest)
    assert (problem is None) is allowed
    if not allowed:
        assert "art. 14" in problem


# -- the store ----------------------------------------------------------------------------------------------------
def _wreck(world, code: str, casualty: date, owner: int) -> None:
    world.store.write("test", lambda tx: tx.execute(
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, casualty_day, "
        "casualty_precision, casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
        "situation, owner_id) VALUES (?, 'N/M Cabo Branco', 'aço', ?, ?, ?, 'day', 'naufrágio', 12, 58, 'S', 38, 30, "
        "'W', 'WGS-84', 'CPBA', 'soçobrada', ?)", [code, casualty.year, casualty.month, casualty.day, owner]))


def _owner(world, name: str, *, known: bool = True, nationality: str = "brasileira") -> int:
    return owners.create_owner(world.store, world.principal("dpc"), {
        "name": name, "doc_kind": "estrangeiro" if nationality != "brasileira" else "desconhecido",
        "doc_number": "X-1" if nationality != "brasileira" else None, "nationality": nationality,
        "whereabouts_known": known, "address": "Rua do Cais, 5" if known else None})


@pytest.fixture
def world(small_world):
    small_world.store._clock = lambda: datetime(2025, 6, 30, 12)   # a known "today"
    return small_world


def test_a_cession_decides_whose_request_counts(world):
    """Casualty 12/03/2019: the five years end on Tuesday 12/03/2024. CES-1: A ceded to B on 10/01/2023,
    communicated 01/02/2023, B asked on 05/05/2023 → counts, private, B the responsible. CES-2: the same
    cession never communicated (void against the Authority, art. 8 §2) → B's request does not count, nobody
    asked in time: União since 13/03/2024."""
    dpc, store = world.principal("dpc"), world.store
    a = world.ids["owner1"]
    b = _owner(world, "Seguradora Atlântico Sul S.A.")
    for code, communicated in (("CES-1", D(2023, 2, 1)), ("CES-2", None)):
        _wreck(world, code, D(2019, 3, 12), a)
        parties.record_cession(store, dpc, {"wreck_code": code, "part": rp.VESSEL, "cedent_id": a, "cessionary_id": b,
                                            "ceded_on": D(2023, 1, 10), "communicated_on": communicated,
                                            "act": "Escritura de cessão de direitos, 2º Ofício de Salvador"})
        parties.record_licence_request(store, dpc, {"wreck_code": code, "part": rp.VESSEL, "requester_id": b,
                                                    "requested_on": D(2023, 5, 5)})
    df = domain_statuses(store, dpc, AS_OF).set_index("code")
    assert (df.loc["CES-1", "owner"], df.loc["CES-1", "since"]) == ("private", None), df.loc["CES-1", "steps"]
    assert df.loc["CES-1", "owner_name"].startswith("Seguradora Atlântico Sul S.A. (cessionário")
    assert (df.loc["CES-2", "owner"], df.loc["CES-2", "since"]) == ("union", D(2024, 3, 13)), df.loc["CES-2", "steps"]
    assert "não conta (art. 8 §2)" in df.loc["CES-2", "steps"]
    rows = engine.compute_deadlines(store, dpc, as_of=AS_OF).set_index("key")
    assert rows.loc["five_year_lapse:CES-1", "state"] == "met"
    assert rows.loc["five_year_lapse:CES-2", "state_pt"].endswith("União desde 13/03/2024")
    wid = store.scalar("SELECT id FROM wrecks WHERE code = 'CES-2'")
    shown = parties.responsible_parties(store, dpc, int(wid), AS_OF)
    assert [r["responsible"] for r in shown["rows"]] == [True, False]
    assert "não vale perante a Autoridade Naval, que trata com o cedente" in shown["rows"][1]["role"]
    assert "responde solidariamente desde a cessão" in shown["rows"][1]["role"]
    assert shown["requests"][0]["counts"].startswith("não conta")
    wid1 = int(store.scalar("SELECT id FROM wrecks WHERE code = 'CES-1'"))
    one = parties.responsible_parties(store, dpc, wid1, AS_OF)["rows"]
    assert one[0]["role"].startswith("cedente — responde solidariamente") and one[1]["responsible"]


def test_the_notice_goes_to_the_cessionario(world):
    """A communicated cession to a foreign cessionário: the removal order's notice is by edital (art. 9 §1),
    personal notice is refused although the cedente's whereabouts in the country are known."""
    dpc, store = world.principal("dpc"), world.store
    b = _owner(world, "Nordic Salvage AS", nationality="norueguesa")
    _wreck(world, "CES-3", D(2021, 6, 1), world.ids["owner1"])
    parties.record_cession(store, dpc, {"wreck_code": "CES-3", "part": rp.VESSEL, "cedent_id": world.ids["owner1"],
                                        "cessionary_id": b, "ceded_on": D(2024, 1, 10),
                                        "communicated_on": D(2024, 1, 20), "act": "Contrato de cessão"})
    order = {"wreck_code": "CES-3", "kind": "remoção", "act": "Ofício nº 9/2025-CPBA", "ordered_on": D(2025, 3, 3),
             "notice": "pessoal", "notified_on": D(2025, 3, 4), "starts_by": D(2025, 4, 1), "ends_by": D(2025, 8, 1),
             "reason": "Casco no canal: perigo à navegação."}
    with pytest.raises(InputError) as refused:
        removal_orders.record_removal_order(store, dpc, order)
    assert [p.path for p in refused.value.problems] == ["notice"]
    assert removal_orders.record_removal_order(store, dpc, {**order, "notice": "edital", "notified_on": None,
                                                            "published_on": D(2025, 3, 5)}) > 0


def test_the_cargo_runs_apart(world):
    """Casualty 10/03/2020: the five years end on Monday 10/03/2025. The vessel's responsible asked on
    02/05/2024 (timely: private); the cargo's responsible declared the cargo lost on 15/01/2023 (art. 3 I):
    the cargo is the União's since then, the vessel stays private. The vessel's responsible may ask for the
    cargo's removal only while the cargo's shows no interest (art. 14 I); it does not count for the cargo."""
    dpc, store = world.principal("dpc"), world.store
    a = world.ids["owner1"]
    c = _owner(world, "Exportadora de Cacau do Sul Ltda.")
    _wreck(world, "CAR-1", D(2020, 3, 10), a)
    parties.record_cargo(store, dpc, {"wreck_code": "CAR-1", "description": "1.200 t de cacau em sacas",
                                      "owner_id": c, "declared_lost": D(2023, 1, 15)})
    parties.record_licence_request(store, dpc, {"wreck_code": "CAR-1", "part": rp.VESSEL, "requester_id": a,
                                                "requested_on": D(2024, 5, 2)})
    parties.record_licence_request(store, dpc, {"wreck_code": "CAR-1", "part": rp.CARGO, "requester_id": a,
                                                "requested_on": D(2024, 5, 2), "note": "art. 14 I"})
    _wreck(world, "CAR-2", D(2020, 3, 10), a)   # here the cargo's responsible asks first (art. 14 II)
    parties.record_cargo(store, dpc, {"wreck_code": "CAR-2", "description": "Contêineres de eletrônicos",
                                      "owner_id": c, "declared_lost": None})
    parties.record_licence_request(store, dpc, {"wreck_code": "CAR-2", "part": rp.CARGO, "requester_id": c,
                                                "requested_on": D(2024, 6, 3)})
    with pytest.raises(InputError) as late:   # the cargo's responsible has shown interest (art. 14 I)
        parties.record_licence_request(store, dpc, {"wreck_code": "CAR-2", "part": rp.CARGO, "requester_id": a,
                                                    "requested_on": D(2024, 7, 1)})
    assert "art. 14 I" in late.value.problems[0].message
    row = domain_statuses(store, dpc, AS_OF).set_index("code").loc["CAR-1"]
    assert (row["owner"], row["since"]) == ("private", None)
    assert (row["cargo_owner_pt"], row["cargo_since"]) == ("União", D(2023, 1, 15)), row["steps"]
    assert row["cargo"].startswith("1.200 t de cacau em sacas — responsável: Exportadora de Cacau")
    rows = engine.compute_deadlines(store, dpc, as_of=AS_OF).set_index("key")
    assert rows.loc["five_year_lapse:CAR-1", "state"] == "met"
    assert rows.loc["cargo_lapse:CAR-1", "state"] == "waived" and "declarou" in rows.loc["cargo_lapse:CAR-1", "reason"]
    wid = int(store.scalar("SELECT id FROM wrecks WHERE code = 'CAR-1'"))
    shown = parties.responsible_parties(store, dpc, wid, AS_OF)
    cargo_rows = [r for r in shown["rows"] if r["part"] == "carga"]
    assert [r["name"] for r in cargo_rows] == ["Exportadora de Cacau do Sul Ltda.", "Companhia de Navegação Bahiana"]
    assert "art. 13 §1" in cargo_rows[1]["basis"]
    assert [r["counts"][:9] for r in shown["requests"]] == ["conta (o ", "não conta"]
    assert "art. 14 I" in shown["requests"][1]["counts"]
    assert rows.loc["cargo_lapse:CAR-2", "state"] == "met"   # its own timely request (art. 14 II)


@pytest.mark.parametrize("change, field", [
    ({"cedent_id": 999}, "cedent_id"),                          # no such owner
    ({"communicated_on": D(2022, 12, 1)}, "communicated_on"),   # before the cession
    ({"ceded_on": D(2025, 7, 1)}, "ceded_on"),                  # in the future
    ({"part": rp.CARGO}, "part"),                               # no cargo recorded
    ({"part": "casco"}, "part"),
])
def test_a_bad_cession_names_the_field_and_writes_nothing(world, change, field):
    b = _owner(world, "Cessionária Ltda.")
    data = {"wreck_code": "NAU-1890-02", "part": rp.VESSEL, "cedent_id": world.ids["owner1"], "cessionary_id": b,
            "ceded_on": D(2023, 1, 10), "communicated_on": None, "act": "Escritura", **change}
    with pytest.raises(InputError) as exc:
        parties.record_cession(world.store, world.principal("dpc"), data)
    assert field in {p.path for p in exc.value.problems}
    assert world.store.scalar("SELECT count(*) FROM cessions") == 0


def test_the_vessel_owners_removal_does_not_suspend_the_cargos_five_years(world):
    """Art. 6 sole paragraph I ("o responsável iniciar a remoção ou demolição") is personal: the removal the vessel's
    responsible started suspends its own five years, not the cargo responsible's; an order of the Authority (II)
    suspends both (docs/decisions/103-cargo-lapse-personal-suspension.md). Casualty 10/03/2020 (CPBA): the five
    years end on Monday 10/03/2025. Ground I 01–30/06/2021 (30 days), ground II 01–10/09/2021 (10 days):
    the vessel 10/03/2025 + 40 = Sat 19/04 → Sun 20 → Mon 21 Tiradentes → Tue 22/04/2025 (the União's from 23/04);
    the cargo 10/03/2025 + 10 = Thu 20/03/2025 (the União's from 21/03)."""
    dpc, store = world.principal("dpc"), world.store
    a = world.ids["owner1"]
    c = _owner(world, "Exportadora de Cacau do Sul Ltda.")
    _wreck(world, "CAR-S", D(2020, 3, 10), a)
    parties.record_cargo(store, dpc, {"wreck_code": "CAR-S", "description": "1.200 t de cacau em sacas",
                                      "owner_id": c, "declared_lost": None})
    wid = store.scalar("SELECT id FROM wrecks WHERE code = 'CAR-S'")
    store.write("test", lambda tx: tx.execute(
        "INSERT INTO wreck_suspensions (wreck_id, ground, starts_on, ends_on, reason) VALUES "
        "(?, 'I', DATE '2021-06-01', DATE '2021-06-30', 'Remoção iniciada pelo armador'), "
        "(?, 'II', DATE '2021-09-01', DATE '2021-09-10', 'Remoção determinada pela Autoridade Naval')", [wid, wid]))
    rows = engine.compute_deadlines(store, dpc, as_of=AS_OF).set_index("key")
    assert rows.loc["five_year_lapse:CAR-S", "due"] == D(2025, 4, 22)
    assert rows.loc["cargo_lapse:CAR-S", "due"] == D(2025, 3, 20)
    assert "não suspende o prazo do responsável pela carga" in str(rows.loc["cargo_lapse:CAR-S", "steps"])
    row = domain_statuses(store, dpc, AS_OF).set_index("code").loc["CAR-S"]
    assert (row["owner"], row["since"], row["lapse_due"]) == ("union", D(2025, 4, 23), D(2025, 4, 22))
    assert row["cargo_since"] == D(2025, 3, 21), row["steps"]
    assert "não suspende o prazo do responsável pela carga" in row["steps"]
