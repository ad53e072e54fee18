"""The demo data set (valuation.demo.base): minimums, determinism, geography and legal consistency.

Seeds a real Store (valuation.db.store) in a temporary folder; the checks read the
tables back with SQL and recompute what they assert (check digits through
valuation.core.ids, caps through valuation.core.law, domain status through
valuation.registry.domain.status), so a careless edit of the data fails here.
"""
from __future__ import annotations

import hashlib
import math
import re
import time
from collections import Counter
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from valuation.core import ids, law
from valuation.core.calendar import BusinessCalendar
from valuation.core.casualty import casualty_bounds
from valuation.core.errors import ConflictError
from valuation.core.positions import DATUMS
from valuation.db.audit import verify_chain
from valuation.db.store import Store
from valuation.demo.base import (
    DEMO_TODAY,
    DEMO_USERNAMES_BY_ROLE,
    content_digest,
    seed_demo,
)
from valuation.registry.domain.status import domain_status_range

TODAY = date(2026, 11, 30)

# --------------------------------------------------------------------------------------
# Geography used by the checks.
#
# A hand-made outline of the Brazilian mainland coast (lon, lat), north to south. Its
# vertices sit on headlands, river mouths and beaches known to lie on the coast; between
# two vertices the chord runs across bays and estuaries, so water inside a bay counts as
# "land" (too strict, never too lenient) except where a cape bulges between vertices —
# hence the vertices at the capes and a safety margin. Oceanic islands (Atol das Rocas)
# are not land here; a wreck on their reef is at sea.
# --------------------------------------------------------------------------------------

COASTLINE: list[tuple[float, float]] = [
    (-51.63, 4.30), (-51.53, 4.40), (-51.18, 3.90), (-50.95, 3.10), (-50.80, 2.50), (-50.45, 2.10),
    (-49.93, 1.68), (-48.37, -0.28), (-47.57, -0.58), (-47.33, -0.60), (-46.62, -0.83), (-45.30, -1.20),
    (-44.60, -1.80), (-44.42, -2.20), (-44.20, -2.47), (-44.05, -2.45), (-43.65, -2.30), (-43.20, -2.40),
    (-42.74, -2.55), (-42.27, -2.74), (-41.85, -2.72), (-41.66, -2.87), (-41.41, -2.90), (-40.85, -2.87),
    (-40.51, -2.79), (-40.12, -2.85), (-39.91, -2.91), (-39.35, -3.18), (-39.03, -3.40), (-38.83, -3.54),
    (-38.47, -3.71), (-38.28, -3.89), (-38.07, -4.17), (-37.70, -4.52), (-37.32, -4.67), (-37.25, -4.83),
    (-37.03, -4.93), (-36.63, -5.07), (-36.27, -5.08), (-36.07, -5.05), (-35.64, -5.11), (-35.49, -5.15),
    (-35.38, -5.27), (-35.21, -5.68), (-35.16, -5.88), (-35.05, -6.22), (-35.00, -6.37), (-34.93, -6.69),
    (-34.83, -6.97), (-34.79, -7.15), (-34.80, -7.47), (-34.82, -7.75), (-34.84, -8.01), (-34.89, -8.13),
    (-34.94, -8.35), (-35.00, -8.50), (-35.10, -8.76), (-35.22, -9.01), (-35.50, -9.40), (-35.69, -9.67),
    (-35.90, -9.84), (-36.15, -10.16), (-36.40, -10.50), (-37.03, -10.99), (-37.36, -11.47),
    (-37.75, -12.23), (-38.00, -12.58), (-38.16, -12.77), (-38.36, -12.96), (-38.53, -13.01),
    (-38.91, -13.38), (-38.93, -13.87), (-38.99, -14.28), (-39.03, -14.79), (-39.01, -14.95),
    (-38.95, -15.67), (-38.87, -15.86), (-39.02, -16.25), (-39.06, -16.45), (-39.09, -16.59),
    (-39.11, -16.90), (-39.22, -17.34), (-39.19, -17.52), (-39.25, -17.73), (-39.37, -17.89),
    (-39.55, -18.09), (-39.73, -18.59), (-39.71, -19.18), (-39.81, -19.65), (-40.04, -19.83),
    (-40.19, -20.06), (-40.24, -20.29), (-40.35, -20.53), (-40.49, -20.67), (-40.64, -20.81),
    (-40.82, -21.04), (-40.96, -21.30), (-41.02, -21.63), (-41.05, -22.04), (-41.35, -22.20),
    (-41.77, -22.38), (-41.93, -22.53), (-41.87, -22.75), (-42.00, -23.01), (-42.50, -22.94),
    (-42.70, -22.97), (-43.04, -22.98), (-43.19, -22.99), (-43.29, -23.02), (-43.57, -23.07),
    (-43.95, -23.07), (-44.10, -23.16), (-44.20, -23.20), (-44.33, -23.20), (-44.50, -23.30),
    (-44.72, -23.35), (-44.84, -23.38), (-45.02, -23.47), (-45.06, -23.55), (-45.22, -23.75),
    (-45.22, -23.85), (-45.25, -23.95), (-45.40, -23.83), (-45.85, -23.77), (-46.13, -23.85),
    (-46.20, -23.99), (-46.26, -24.05), (-46.38, -24.02), (-46.62, -24.10), (-46.78, -24.19),
    (-47.00, -24.32), (-47.20, -24.55), (-47.43, -24.70), (-47.70, -24.90), (-47.90, -25.05),
    (-47.95, -25.20), (-48.05, -25.30), (-48.15, -25.45), (-48.30, -25.55), (-48.35, -25.58),
    (-48.52, -25.82), (-48.57, -25.88), (-48.60, -26.10), (-48.50, -26.22), (-48.63, -26.45),
    (-48.68, -26.63), (-48.64, -26.91), (-48.62, -27.00), (-48.48, -27.15), (-48.42, -27.38),
    (-48.38, -27.50), (-48.44, -27.63), (-48.47, -27.68), (-48.50, -27.78), (-48.56, -27.83),
    (-48.62, -28.03), (-48.64, -28.23), (-48.75, -28.49), (-48.81, -28.60), (-49.72, -29.34),
    (-50.13, -29.98), (-50.21, -30.18), (-50.75, -31.10), (-51.95, -32.08), (-52.15, -32.20),
    (-52.70, -33.20), (-53.37, -33.74),
]
# The land polygon: the coast closed through the interior (Uruguay border, far west).
LAND = COASTLINE + [(-53.6, -33.2), (-57.6, -30.2), (-60.0, -10.0), (-60.0, 2.0)]
MIN_OFFSHORE_NM = 3.0     # margin for the chords' error at the capes
EEZ_NM = 200.0            # Brazilian jurisdictional waters reach 200 nm (Lei 8.617/1993 art. 6)
MAX_FROM_OFFICE_NM = 160.0

# Where the offices sit (lon, lat): the wreck must lie within reach of its office.
OFFICE_CITY: dict[str, tuple[float, float]] = {
    "AGOIAPOQUE": (-51.83, 3.84), "CPAP": (-51.18, -0.06), "CPAOR": (-48.50, -1.45), "CPMA": (-44.30, -2.53),
    "CPPI": (-41.78, -2.90), "AGCAMOCIM": (-40.84, -2.90), "CPCE": (-38.52, -3.72), "AGARACATI": (-37.77, -4.56),
    "AGAREIABRANCA": (-37.13, -4.95), "CPRN": (-35.21, -5.79), "CPPB": (-34.86, -7.12), "CPPE": (-34.88, -8.05),
    "CPAL": (-35.73, -9.67), "CPSE": (-37.07, -10.91), "CPBA": (-38.51, -12.97), "DELILHEUS": (-39.05, -14.79),
    "DELPSEGURO": (-39.07, -16.45), "CPES": (-40.34, -20.32), "AGSJBARRA": (-41.05, -21.64),
    "CPMACAE": (-41.79, -22.37), "DELCFRIO": (-42.02, -22.88), "CPRJ": (-43.17, -22.91),
    "DELITACURUCA": (-43.91, -22.93), "DELAREIS": (-44.32, -23.01), "AGPARATY": (-44.71, -23.22),
    "DELSSEBASTIAO": (-45.41, -23.80), "CPSP": (-46.33, -23.96), "CPPR": (-48.51, -25.52),
    "DELSFSUL": (-48.64, -26.24), "DELITAJAI": (-48.66, -26.91), "CPSC": (-48.55, -27.60),
    "DELLAGUNA": (-48.78, -28.48), "AGTRAMANDAI": (-50.13, -29.98), "CPRS": (-52.10, -32.04),
}

# Naval districts by state (Decreto 92.607/1986 and later changes: SP in the 8º DN, PR from 2016).
DISTRICT_OF_STATE = {"RJ": 1, "ES": 1, "MG": 1, "BA": 2, "SE": 2, "AL": 3, "PE": 3, "PB": 3, "RN": 3, "CE": 3,
                     "PA": 4, "AP": 4, "MA": 4, "PI": 4, "SC": 5, "RS": 5, "MS": 6, "MT": 6, "DF": 7, "TO": 7,
                     "SP": 8, "PR": 8, "AM": 9, "AC": 9, "RO": 9, "RR": 9}

CAPITANIAS_BY_STATE = {"CPRJ": "RJ", "CPSP": "SP", "CPPR": "PR", "CPSC": "SC", "CPRS": "RS", "CPES": "ES",
                       "CPBA": "BA", "CPSE": "SE", "CPAL": "AL", "CPPE": "PE", "CPPB": "PB", "CPRN": "RN",
                       "CPCE": "CE", "CPPI": "PI", "CPMA": "MA", "CPAOR": "PA", "CPAP": "AP"}

RECOVERY_KINDS = ("exploração", "remoção", "demolição")
PAYMENT_TERMS = ("modality", "historical_share", "historical_payment", "other_share", "fixed_amount",
                 "salvage_award", "value_fixed")
CONTENT_TABLES = ("offices", "local_holidays", "owners", "organisations", "wrecks", "wreck_suspensions",
                  "contracts", "items", "item_deliveries", "users")


def _decimal_degrees(deg: int, minutes: Decimal, hem: str) -> float:
    value = deg + float(minutes) / 60
    return -value if hem in ("S", "W") else value


def _nm(p: tuple[float, float], q: tuple[float, float]) -> float:
    """Great-circle distance in nautical miles (1 nm = 1 minute of arc)."""
    lon1, lat1, lon2, lat2 = map(math.radians, (*p, *q))
    a = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return math.degrees(2 * math.asin(math.sqrt(a))) * 60


def _segment_nm(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance from p to segment ab, in nm, on a local equirectangular plane (fine at these scales)."""
    k = math.cos(math.radians(p[1])) * 60
    px, py, ax, ay, bx, by = p[0] * k, p[1] * 60, a[0] * k, a[1] * 60, b[0] * k, b[1] * 60
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def _coast_nm(p: tuple[float, float]) -> float:
    return min(_segment_nm(p, a, b) for a, b in zip(COASTLINE, COASTLINE[1:]))


def _on_land(p: tuple[float, float]) -> bool:
    x, y, inside = p[0], p[1], False
    for (x1, y1), (x2, y2) in zip(LAND, LAND[1:] + LAND[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _content_hash(store: Store) -> str:
    h = hashlib.sha256()
    for table in CONTENT_TABLES:
        h.update(table.encode())
        for row in store.fetch(f"SELECT * FROM {table} ORDER BY ALL"):
            h.update(repr(sorted(row.items())).encode())
    for row in store.fetch("SELECT actor, action, entity, entity_id, after_json FROM audit_log ORDER BY id"):
        h.update(repr(sorted(row.items())).encode())
    return h.hexdigest()


# --------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, dict[str, int], float]:
    path = Path(tmp_path_factory.mktemp("demo")) / "demo.duckdb"
    store = Store(path)
    started = time.perf_counter()
    counts = seed_demo(store)
    elapsed = time.perf_counter() - started
    yield store, counts, elapsed
    store.close()


@pytest.fixture(scope="module")
def store(seeded: tuple[Store, dict[str, int], float]) -> Store:
    return seeded[0]


# --------------------------------------------------------------------------------------
# Size, speed, determinism
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("table, minimum", [
    ("offices", 17), ("local_holidays", 3), ("owners", 5), ("organisations", 5), ("wrecks", 30),
    ("wreck_suspensions", 3), ("contracts", 10), ("items", 20_000), ("item_deliveries", 1), ("users", 12),
])
def test_counts_meet_the_minimums_and_match_the_tables(seeded, table, minimum):
    store, counts, _ = seeded
    in_table = store.scalar(f"SELECT count(*) FROM {table}")
    assert counts[table] == in_table
    assert in_table >= minimum


def test_same_seed_same_content(store, tmp_path):
    other = Store(tmp_path / "again.duckdb")
    try:
        seed_demo(other)
        assert _content_hash(other) == _content_hash(store)
        assert content_digest(other) == content_digest(store)
    finally:
        other.close()


def test_a_second_seed_into_the_same_database_is_refused(store):
    before = store.scalar("SELECT count(*) FROM items")
    with pytest.raises(ConflictError):
        seed_demo(store)
    assert store.scalar("SELECT count(*) FROM items") == before


def test_the_audit_chain_starts_with_one_row_per_table(store):
    rows = store.fetch("SELECT entity, after_json FROM audit_log WHERE action = 'demo.seed' ORDER BY id")
    assert [r["entity"] for r in rows] == list(CONTENT_TABLES)
    items = next(r for r in rows if r["entity"] == "items")
    assert f'"rows":{store.scalar("SELECT count(*) FROM items")}' in items["after_json"]
    ok, bad_id, message = verify_chain(store)
    assert ok, message


# --------------------------------------------------------------------------------------
# Offices and holidays
# --------------------------------------------------------------------------------------

def test_every_coastal_capitania_is_there_with_its_state_and_district(store):
    offices = {r["code"]: r for r in store.fetch("SELECT * FROM offices")}
    for code, state in CAPITANIAS_BY_STATE.items():
        assert offices[code]["kind"] == "CP"
        assert offices[code]["state"] == state
    for office in offices.values():
        assert office["naval_district"] == DISTRICT_OF_STATE[office["state"]], office["code"]
    kinds = Counter(o["kind"] for o in offices.values())
    assert kinds["DL"] >= 5 and kinds["AG"] >= 3


def test_local_holidays_include_rio_de_janeiro_sao_sebastiao(store):
    rows = store.fetch("SELECT day FROM local_holidays WHERE office_code = 'CPRJ'")
    assert date(2026, 1, 20) in {r["day"] for r in rows}
    assert store.scalar("SELECT count(DISTINCT office_code) FROM local_holidays") >= 5


# --------------------------------------------------------------------------------------
# Wrecks: positions at sea, near their office; variety of the record
# --------------------------------------------------------------------------------------

def _wrecks(store: Store) -> list[dict]:
    return store.fetch("SELECT * FROM wrecks ORDER BY code")


def test_every_wreck_lies_at_sea_in_brazilian_waters_near_its_office(store):
    for w in _wrecks(store):
        p = (_decimal_degrees(w["lon_deg"], w["lon_min"], w["lon_hem"]),
             _decimal_degrees(w["lat_deg"], w["lat_min"], w["lat_hem"]))
        assert -34.0 <= p[1] <= 5.3 and -54.0 <= p[0] <= -28.0, w["code"]      # Brazilian waters box
        assert not _on_land(p), f"{w['code']} falls on land"
        offshore = _coast_nm(p)
        assert MIN_OFFSHORE_NM <= offshore <= EEZ_NM, f"{w['code']}: {offshore:.1f} nm from the coast"
        assert _nm(p, OFFICE_CITY[w["office_code"]]) <= MAX_FROM_OFFICE_NM, w["code"]


def test_the_coast_check_rejects_points_on_land_and_in_bays():
    # sanity of the check itself: city centres are land, the open sea off them is not
    for lon, lat in [(-43.20, -22.90), (-38.50, -12.97), (-46.63, -23.55), (-48.50, -1.45), (-51.2, -30.0)]:
        assert _on_land((lon, lat))
    for lon, lat in [(-42.5, -23.5), (-34.0, -8.0), (-47.0, 1.0), (-50.0, -32.0)]:
        assert not _on_land((lon, lat))


def test_positions_are_degrees_minutes_hundredths_with_a_datum(store):
    wrecks = _wrecks(store)
    for w in wrecks:
        for m in (w["lat_min"], w["lon_min"]):
            assert Decimal(0) <= m < Decimal(60) and m == m.quantize(Decimal("0.01"))
        assert w["datum"] in DATUMS
    assert {w["datum"] for w in wrecks} >= {"WGS-84", "SIRGAS 2000", "SAD-69"}
    assert any(w["position_approximate"] for w in wrecks)
    assert any(not w["position_approximate"] for w in wrecks)


def test_casualty_dates_match_their_precision_and_lie_in_the_past(store):
    for w in _wrecks(store):
        precision = w["casualty_precision"]
        assert (w["casualty_month"] is not None) == (precision in ("day", "month")), w["code"]
        assert (w["casualty_day"] is not None) == (precision == "day"), w["code"]
        earliest, latest = casualty_bounds(w["casualty_year"], w["casualty_month"], w["casualty_day"], precision)
        assert latest <= TODAY
        if w["court_known_on"] is not None and precision == "day":
            assert w["court_known_on"] >= earliest


def test_the_wrecks_cover_every_type_situation_period_and_owner_kind(store):
    wrecks = _wrecks(store)
    assert {w["casualty_type"] for w in wrecks} == set(law.CASUALTY_TYPES)
    assert {w["situation"] for w in wrecks} == {"encalhada", "soçobrada"}
    assert {w["casualty_precision"] for w in wrecks} == {"day", "month", "year", "century"}
    wooden_16_18 = [w for w in wrecks if w["hull_material"] == "madeira" and 1501 <= w["casualty_year"] <= 1800]
    assert {w["flag"] for w in wooden_16_18} >= {"Portugal", "Espanha", "Províncias Unidas dos Países Baixos"}
    assert any(1801 <= w["casualty_year"] <= 1900 and w["hull_material"] == "ferro" for w in wrecks)
    modern = [w for w in wrecks if w["casualty_year"] >= 1901]
    assert modern and all(w["casualty_precision"] == "day" for w in modern if w["casualty_year"] >= 1990)
    assert any(w["visible_low_tide"] for w in wrecks) and any(w["visible_high_tide"] for w in wrecks)
    assert any(w["signalling"] for w in wrecks) and any(w["protected_area"] for w in wrecks)
    assert any(w["owner_declared_lost"] for w in wrecks) and any(w["owner_licence_requested"] for w in wrecks)
    owners = store.fetch("SELECT doc_kind, whereabouts_known FROM owners")
    assert {o["doc_kind"] for o in owners} == {"CPF", "CNPJ", "estrangeiro", "desconhecido"}
    assert {o["whereabouts_known"] for o in owners} == {True, False}
    grounds = {r["ground"] for r in store.fetch("SELECT ground FROM wreck_suspensions")}
    assert grounds == {"I", "II", "III", "tribunal"}


def test_dates_given_by_owners_follow_the_casualty(store):
    for w in _wrecks(store):
        earliest, _ = casualty_bounds(w["casualty_year"], w["casualty_month"], w["casualty_day"],
                                      w["casualty_precision"])
        for field in ("owner_declared_lost", "owner_licence_requested"):
            if w[field] is not None:
                assert earliest <= w[field] <= TODAY, (w["code"], field)


# --------------------------------------------------------------------------------------
# Registry numbers
# --------------------------------------------------------------------------------------

def test_every_cpf_and_cnpj_has_valid_check_digits(store):
    for o in store.fetch("SELECT * FROM owners"):
        if o["doc_kind"] == "CPF":
            assert ids.cpf_is_valid(o["doc_number"]), o["name"]
        elif o["doc_kind"] == "CNPJ":
            assert ids.cnpj_is_valid(o["doc_number"]), o["name"]
        else:
            assert o["doc_number"] is None
    orgs = store.fetch("SELECT * FROM organisations")
    for org in orgs:
        if org["cnpj"] is None:
            assert org["country"] != "Brasil", org["name"]          # only a foreign entity has no CNPJ
        else:
            assert ids.cnpj_is_valid(org["cnpj"]), org["name"]
        assert org["representative_cpf"] is None or ids.cpf_is_valid(org["representative_cpf"])
    assert any(org["cnpj"] is None for org in orgs)


def test_a_corrupted_check_digit_would_be_caught():
    # the validator the checks rely on is not a rubber stamp
    assert not ids.cpf_is_valid("11144477736")
    assert not ids.cnpj_is_valid("11222333000182")


# --------------------------------------------------------------------------------------
# Contracts
# --------------------------------------------------------------------------------------

def _contracts(store: Store) -> list[dict]:
    # the share of a contract under the original art. 21 is kept in other_share_original (migration 022)
    return store.fetch("SELECT * REPLACE (coalesce(other_share, other_share_original) AS other_share) "
                       "FROM contracts ORDER BY code")


def test_every_kind_and_every_status_occur(store):
    contracts = _contracts(store)
    assert {c["kind"] for c in contracts} == set(law.CONTRACT_KINDS)
    assert {c["status"] for c in contracts} == {"solicitado", "vigente", "suspenso", "concluído", "cancelado",
                                                "expirado"}


def test_contract_dates_agree_with_the_status(store):
    for c in _contracts(store):
        code, status = c["code"], c["status"]
        if status == "solicitado":
            assert c["signed_on"] is None and c["starts_on"] is None and c["requested_on"] <= TODAY, code
            continue
        assert c["requested_on"] <= c["signed_on"] <= c["starts_on"] < c["expires_on"], code
        if status in ("vigente", "suspenso"):
            assert c["starts_on"] <= TODAY <= c["expires_on"] and c["work_ended_on"] is None, code
        if status == "concluído":
            assert c["starts_on"] <= c["work_ended_on"] <= min(c["expires_on"], TODAY), code
        if status == "expirado":
            assert c["expires_on"] < TODAY and c["work_ended_on"] is None, code
        assert (c["cancelled_on"] is not None) == (status == "cancelado") == bool(c["cancel_reason"]), code
        if status == "cancelado":
            assert c["signed_on"] <= c["cancelled_on"] <= TODAY


def test_payment_terms_only_where_meaningful_and_within_the_caps(store):
    texts = set()
    for c in _contracts(store):
        code, terms = c["code"], {k: c[k] for k in PAYMENT_TERMS}
        art16 = c["kind"] in ("exploração", "remoção") and c["act"] != "licença" and c["status"] != "solicitado"
        if not art16:
            assert all(v is None for v in terms.values()), code
        else:
            assert c["modality"] in ("I", "II", "III", "IV"), code
            texts.add("original" if c["signed_on"] < law.L10166_IN_FORCE else "amended")
        # the caps of the contract's text (Lei 7.542 arts. 20–21): 40 % and 70 % as amended by Lei 10.166/2000,
        # no reward and no 70 % cap under the original text (signed before 28/12/2000)
        original = c["signed_on"] is not None and c["signed_on"] < law.L10166_IN_FORCE
        hist_cap = Decimal(0) if original else law.HISTORICAL_REWARD_CAP.value
        other_cap = Decimal(1) if original else law.OTHER_SHARE_CAP.value
        if original and c["historical_share"] is None and c["modality"] is not None:
            assert c["historical_payment"] is None, code
        if c["historical_share"] is not None:
            assert Decimal(0) <= c["historical_share"] <= hist_cap, code
        assert (c["historical_share"] is None) == (c["historical_payment"] is None), code
        if c["other_share"] is not None:
            assert Decimal(0) <= c["other_share"] <= other_cap, code
        m = c["modality"]
        assert (c["fixed_amount"] is not None) == (m == "I"), code
        assert (c["other_share"] is not None) == (m in ("II", "III")), code
        assert c["salvage_award"] is None or m == "IV", code
        assert c["value_fixed"] is None or m in ("II", "III"), code
        assert c["caution_amount"] is None or (c["kind"] == "pesquisa" and c["signed_on"] is not None), code
    contracts = _contracts(store)
    assert {c["modality"] for c in contracts} >= {"I", "II", "III", "IV"}
    assert any(c["caution_amount"] for c in contracts)
    assert texts == {"original", "amended"}   # one contract of the 1990s (issue 25, rule 1)
    assert any(c["other_share"] is not None and c["other_share"] > law.OTHER_SHARE_CAP.value for c in contracts)


def test_exploration_and_removal_follow_a_survey_and_one_winner_is_not_the_surveyor(store):
    contracts = _contracts(store)
    surveys = [c for c in contracts if c["kind"] == "pesquisa"]
    for c in contracts:
        if c["kind"] in ("exploração", "remoção") and c["act"] != "licença":
            prior = [s for s in surveys if s["wreck_id"] == c["wreck_id"] and s["requested_on"] < c["requested_on"]]
            assert prior, f"{c['code']}: no survey before (art. 16 §1)"
            assert c["surveyor_organisation_id"] in {s["organisation_id"] for s in prior}, c["code"]
    different = [c for c in contracts if c["surveyor_organisation_id"] is not None
                 and c["surveyor_organisation_id"] != c["organisation_id"]]
    assert different
    for c in different:
        assert any(s["organisation_id"] == c["surveyor_organisation_id"] and s["wreck_id"] == c["wreck_id"]
                   and s["status"] == "concluído" for s in surveys)


def test_union_things_only_are_explored_removed_or_demolished_by_third_parties(store):
    wrecks = {w["id"]: w for w in _wrecks(store)}
    suspensions: dict[int, list[tuple[date, date]]] = {}
    for s in store.fetch("SELECT wreck_id, starts_on, ends_on FROM wreck_suspensions WHERE ground <> 'tribunal'"):
        suspensions.setdefault(s["wreck_id"], []).append((s["starts_on"], s["ends_on"]))
    checked = 0
    for c in _contracts(store):
        if c["kind"] == "pesquisa":
            continue
        w = wrecks[c["wreck_id"]]
        on = c["signed_on"] or c["requested_on"]
        lo, hi = casualty_bounds(w["casualty_year"], w["casualty_month"], w["casualty_day"],
                                 w["casualty_precision"])
        status = domain_status_range(on, lo, hi, w["hull_material"], w["owner_declared_lost"],
                                     w["owner_licence_requested"], suspensions.get(w["id"], []),
                                     BusinessCalendar(state=None))
        expected = "private" if c["act"] == "licença" else "union"   # art. 4 licence vs art. 16
        assert status.owner == expected, (c["code"], status.owner)
        checked += 1
    assert checked >= 8


def _status_today(store: Store, code: str):
    w = store.fetch("SELECT * FROM wrecks WHERE code = ?", [code])[0]
    susp = [(s["starts_on"], s["ends_on"]) for s in store.fetch(
        "SELECT starts_on, ends_on FROM wreck_suspensions WHERE wreck_id = ? AND ground <> 'tribunal'", [w["id"]])]
    lo, hi = casualty_bounds(w["casualty_year"], w["casualty_month"], w["casualty_day"], w["casualty_precision"])
    return domain_status_range(TODAY, lo, hi, w["hull_material"], w["owner_declared_lost"],
                               w["owner_licence_requested"], susp, BusinessCalendar(state=None))


@pytest.mark.parametrize("code, owner, differs, basis_part", [
    ("ES-003", "private", False, "art. 32 caput"),  # old casualty, owner asked in time (by 29/09/1987)
    ("RJ-005", "union", True, None),                # only the year 1966 known: straddles 29/09/1966,
                                                    # so the União's acquisition date is a range
    ("BA-006", "union", False, "art. 32 caput"),    # wooden, but 1500 is the 15th century: not art. 32 §1
    ("BA-001", "union", False, "art. 32 §1"),       # 17th-century wooden hull
    ("CE-002", "private", False, "arts. 6 e 7"),    # five years still running
    ("SP-002", "union", False, "art. 3 I"),         # declared lost by the owner
    ("AP-001", "private", False, "parágrafo único"),  # removal ordered 15/09/2025, no end yet: the five years
                                                    # (due 17/06/2026) are stopped, so still private today
])
def test_the_data_exercise_the_domain_status_rules(store, code, owner, differs, basis_part):
    status = _status_today(store, code)
    assert status.owner == owner
    assert status.differs == differs
    if basis_part is not None:
        assert any(basis_part in b for b in status.latest.basis), status.latest.basis


# --------------------------------------------------------------------------------------
# Items and deliveries
# --------------------------------------------------------------------------------------

def test_items_only_on_recovery_contracts_that_operated(store):
    rows = store.fetch("SELECT c.kind, c.status, count(*) AS n FROM items i JOIN contracts c ON c.id = i.contract_id "
                       "GROUP BY ALL")
    assert rows and all(r["kind"] in RECOVERY_KINDS for r in rows)        # art. 18 sole paragraph
    assert all(r["status"] != "solicitado" for r in rows)
    assert {r["kind"] for r in rows} == set(RECOVERY_KINDS)
    assert store.scalar("SELECT count(*) FROM items i LEFT JOIN contracts c ON c.id = i.contract_id "
                        "WHERE c.id IS NULL") == 0


def test_recovery_dates_lie_within_the_operations_and_not_after_today(store):
    bad = store.fetch("""
        SELECT c.code, i.item_code, i.recovered_on FROM items i JOIN contracts c ON c.id = i.contract_id
        WHERE i.recovered_on < c.starts_on
           OR i.recovered_on > least(coalesce(c.work_ended_on, c.cancelled_on, c.expires_on), c.expires_on)
           OR i.recovered_on > ?""", [TODAY])
    assert bad == []
    assert store.scalar("SELECT max(recovered_on) FROM items") <= DEMO_TODAY


def test_items_look_like_a_real_inventory(store):
    cats = {r["category"] for r in store.fetch("SELECT DISTINCT category FROM items")}
    assert cats >= {"moedas", "cerâmica", "artilharia", "lingotes", "instrumentos de navegação",
                    "objetos pessoais", "ferragens", "vidro", "armamento portátil"}
    mats = {r["material"] for r in store.fetch("SELECT DISTINCT material FROM items")}
    assert mats >= {"prata", "ouro", "bronze", "ferro", "faiança", "porcelana", "vidro", "madeira", "cobre",
                    "chumbo"}
    coins = store.fetch("SELECT count(*) FILTER (WHERE quantity > 1) AS lots, count(*) AS n, "
                        "min(weight_g) AS wmin FROM items WHERE category = 'moedas'")[0]
    assert coins["lots"] > 0 and coins["lots"] < coins["n"] and coins["wmin"] > 0
    per_contract = store.fetch("SELECT contract_id, count(*) AS n, count(DISTINCT item_code) AS codes "
                               "FROM items GROUP BY contract_id")
    assert len(per_contract) >= 5 and all(r["n"] == r["codes"] for r in per_contract)
    assert store.scalar("SELECT count(*) FROM items WHERE depth_m IS NULL OR depth_m <= 0") == 0


def test_some_items_were_delivered_and_many_were_not(store):
    delivered = store.scalar("SELECT count(DISTINCT item_id) FROM item_deliveries")
    total = store.scalar("SELECT count(*) FROM items")
    assert 0 < delivered < total and total - delivered >= 1000
    bad = store.fetch("""
        SELECT d.id FROM item_deliveries d JOIN items i ON i.id = d.item_id
        WHERE d.delivered_on < i.recovered_on OR d.delivered_on > ?""", [TODAY])
    assert bad == []


# --------------------------------------------------------------------------------------
# Users
# --------------------------------------------------------------------------------------

def test_users_of_every_role(store):
    users = store.fetch("SELECT * FROM users ORDER BY id")
    by_role = Counter(u["role"] for u in users)
    assert by_role["commission_president"] == 1 and by_role["commission"] == 5
    assert by_role["dpc"] == 2 and by_role["admin"] == 1
    commission = [u for u in users if u["role"] in ("commission", "commission_president")]
    assert Counter(u["commission_body"] for u in commission) == {"navy": 3, "culture": 3}
    assert next(u for u in commission if u["role"] == "commission_president")["commission_body"] == "navy"
    assert all(u["commission_body"] is None for u in users if u["role"] not in ("commission",
                                                                                   "commission_president"))
    holders = {r["organisation_id"] for r in store.fetch("SELECT DISTINCT organisation_id FROM contracts")}
    explorers = [u for u in users if u["role"] == "explorer"]
    assert sorted(u["organisation_id"] for u in explorers) == sorted(holders)        # one per holder
    assert {role: sorted(names) for role, names in DEMO_USERNAMES_BY_ROLE.items()} == \
        {role: sorted(u["username"] for u in users if u["role"] == role) for role in by_role}


def test_password_hashes_are_argon2id_and_distinct(store):
    hashes = [r["password_hash"] for r in store.fetch("SELECT password_hash FROM users")]
    assert all(re.match(r"^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$", h) for h in hashes)
    assert len(set(hashes)) == len(hashes)
    source = Path(__import__("valuation.demo.base", fromlist=["x"]).__file__).read_text(encoding="utf-8")
    assert "password=" not in source.lower() and "senha:" not in source.lower()
