"""The demo data set: a realistic, deterministic picture of wrecks, contracts and recovered items.

`seed_demo(store)` fills an empty database (schema 001+) in one transaction and
returns the row counts per table. Same seed (7542, the law's number), same
content on every run: ids come from the sequences of a fresh database in a fixed
order and every timestamp is written explicitly. Today, for the demo, is
`DEMO_TODAY` (30/11/2026): no recovery, delivery or decision lies after it.

What is real and what is not:

- Real: the Navy's offices on the coast (Capitanias, Delegacias, Agências), their
  states and naval districts (Decreto 92.607/1986 as changed since: São Paulo and,
  from 2016, Paraná in the 8º DN), a few municipal holidays of the offices' cities,
  the marine protected areas named in the notes, and the shape of the law
  (Lei 7.542/1986 as amended by Lei 10.166/2000; NORMAM-10).
- Fictional: every vessel, person, company, number and event. Ship names only
  look period-plausible. CPFs and CNPJs are made up but carry valid check digits.
  E-mail addresses use the reserved `.example` domain.

Positions are at sea, a few to tens of nautical miles off the coast of the
office that has jurisdiction (checked in tests/demo/test_demo.py against a hand-made
coastline), with degrees, minutes and hundredths, hemisphere and datum
(NORMAM-10 0403 a); some carry "posição aproximada".

Legal consistency kept by the data (rules.md):

- exploração/remoção only of things in the União's domain (L7542 art. 16), each
  preceded by a survey of the same wreck (art. 16 §1); one exploração went to a
  bidder other than the surveyor who located the wreck (art. 16 §2 I; NORMAM 0303 c 2);
- a survey removes nothing (art. 18 sole paragraph): items belong to
  exploração/remoção/demolição contracts only, recovered within the operations;
- payment terms (arts. 20–21, caps 40 % / 70 % since Lei 10.166/2000) only on signed
  exploração/remoção contracts under art. 16; NULL on surveys (which may carry the
  caução of art. 26), on requests not yet decided, on the owner's own removal
  licence (art. 4) and on demolitions (done on the owner's account or after a sale
  under art. 27, not paid with a share of the things);
- deliveries to the Naval Authority (art. 23) recorded for part of the items only,
  so that the pages show items still held by the explorer as depositary.

Passwords are not here: only their argon2id hashes. The logins live in the README.

The data live in one module per thing seeded (`offices`, `parties`, `wrecks`, `contracts`, `items`);
this module loads them in that order, one step per table group, in one transaction. The records of
the capabilities built on them (deadline events, the Commission's rounds, statements, the legal
records of issue 15) are the later steps of `valuation.demo.suite`.
"""
from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from valuation.core.errors import ConflictError
from valuation.demo.constants import DEMO_ACTOR, DEMO_SEED, DEMO_TODAY
from valuation.demo.contracts import CONTRACT_FIELDS, CONTRACTS, OPS_END
from valuation.demo.items import (
    CONDITION_P,
    CONDITIONS,
    DELIVERY_UNTIL,
    ITEM_NOTES,
    ITEM_PLAN,
    ITEM_TEMPLATES,
    item_frame,
)
from valuation.demo.parties import (
    DEMO_CPFS,
    DEMO_USERNAMES_BY_ROLE,
    OFFICE_OF,
    ORGANISATIONS,
    OWNERS,
    PASSWORD_HASHES,
    USERS,
)
from valuation.demo.wrecks import SUSPENSIONS, WRECK_FIELDS, WRECKS
from valuation.partition.contract_law import law_text_of
from valuation.registry.office_directory import OFFICES
from valuation.registry.offices import load_directory

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

_SYSTEM_START = date(2010, 3, 1)      # wrecks known before it were registered on this day

# Tables the demo fills, in insertion order.
DEMO_TABLES: tuple[str, ...] = ("offices", "local_holidays", "owners", "organisations", "wrecks",
                                "wreck_suspensions", "contracts", "items", "item_deliveries", "users")


def is_seeded(store: Store) -> bool:
    """True when the database already holds wrecks or companies (the demo's or anyone's); the offices are reference
    data every database holds (valuation.registry.offices.load_directory)."""
    rows = store.fetch("SELECT (SELECT count(*) FROM organisations) + (SELECT count(*) FROM wrecks) AS n")
    return bool(rows[0]["n"])


def _reserve_ids(cur: Any, sequence: str, n: int) -> list[int]:
    """n consecutive ids taken from `sequence` (deterministic on a database nobody else writes to)."""
    if n == 0:
        return []
    lo, hi, count = cur.execute(
        f"SELECT min(v), max(v), count(*) FROM (SELECT nextval('{sequence}') AS v FROM range({n}))").fetchall()[0]
    if hi - lo + 1 != count:  # another writer took values in between: ids would not be consecutive
        raise ConflictError(f"a sequência {sequence} foi usada por outra gravação durante a carga da demonstração")
    return list(range(int(lo), int(hi) + 1))


def _insert_rows(cur: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> int:
    if rows:
        marks = ", ".join("?" for _ in columns)
        cur.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", [list(r) for r in rows])
    return len(rows)


def _insert_arrow(cur: Any, table: str, arrow: pa.Table, select: str) -> int:
    """INSERT INTO table SELECT … FROM an Arrow table: one statement for the whole batch."""
    view = f"_demo_{table}"
    cur.register(view, arrow)
    try:
        cur.execute(f"INSERT INTO {table} {select.format(view=view)}").fetchall()
    finally:
        cur.unregister(view)
    return arrow.num_rows


def _position(axis: tuple[int, str, str]) -> tuple[int, Decimal, str]:
    deg, minutes, hem = axis
    return deg, Decimal(minutes), hem


def _at(day: date, hour: int = 9, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute))


class _Ids:
    """The ids the steps hand on to each other (owner, organisation, wreck and contract by key)."""

    def __init__(self) -> None:
        self.owner: dict[str, int] = {}
        self.org: dict[str, int] = {}
        self.wreck: dict[str, int] = {}
        self.contract: dict[str, int] = {}
        self.depth: dict[str, Decimal] = {}


def _seed_offices(store: Store, counts: dict[str, int]) -> None:
    """The offices are the directory every database gets (`db init` loads it; here too, for a demo built by a test
    or the benchmark without `db init`)."""
    load_directory(store)
    counts["offices"] = int(store.scalar("SELECT count(*) FROM offices"))
    counts["local_holidays"] = int(store.scalar("SELECT count(*) FROM local_holidays"))


def _seed_parties(cur: Any, counts: dict[str, int], ids: _Ids) -> None:
    """Owners (arts. 3–9) and the explorers' organisations (NORMAM-10 0401)."""
    owner_keys = list(OWNERS)
    ids.owner = dict(zip(owner_keys, _reserve_ids(cur, "seq_owners", len(owner_keys))))
    counts["owners"] = _insert_rows(
        cur, "owners", ("id", "name", "doc_kind", "doc_number", "nationality", "whereabouts_known", "address", "notes"),
        [(ids.owner[k], *OWNERS[k]) for k in owner_keys])
    org_keys = list(ORGANISATIONS)
    ids.org = dict(zip(org_keys, _reserve_ids(cur, "seq_organisations", len(org_keys))))
    org_cols = ("name", "trade_name", "cnpj", "nationality", "address", "city", "state", "country", "email",
                "phone", "representative_name", "representative_cpf", "experience", "registered_on", "status")
    counts["organisations"] = _insert_rows(
        cur, "organisations", ("id",) + org_cols,
        [(ids.org[k], *(ORGANISATIONS[k][c] for c in org_cols)) for k in org_keys])


def _seed_wrecks(cur: Any, counts: dict[str, int], ids: _Ids) -> None:
    """Wrecks with their positions (NORMAM-10 0403 a) and the suspensions of their five years (art. 6)."""
    ids.wreck = dict(zip((w[0] for w in WRECKS), _reserve_ids(cur, "seq_wrecks", len(WRECKS))))
    rows = []
    for w in WRECKS:
        r = dict(zip(WRECK_FIELDS, w))
        lat, lon = _position(r["lat"]), _position(r["lon"])
        depth = Decimal(r["depth"]) if r["depth"] is not None else None
        ids.depth[r["code"]] = depth or Decimal("10")
        created = _at(max(r["court_known_on"] or _SYSTEM_START, _SYSTEM_START), 10)
        rows.append((
            ids.wreck[r["code"]], r["code"], r["name"], r["vessel_type"], r["flag"], r["hull_material"],
            r["year"], r["month"], r["day"], r["precision"], r["casualty_type"], *lat, *lon, r["datum"],
            r["approx"], depth, r["office"], r["situation"], r["visible_high_tide"], r["visible_low_tide"],
            r["signalling"], r["protected"], ids.owner[r["owner"]] if r["owner"] else None,
            r["declared_lost"], r["licence_requested"], r["court_known_on"], r["notes"], created))
    counts["wrecks"] = _insert_rows(cur, "wrecks", (
        "id", "code", "name", "vessel_type", "flag", "hull_material", "casualty_year", "casualty_month",
        "casualty_day", "casualty_precision", "casualty_type", "lat_deg", "lat_min", "lat_hem", "lon_deg",
        "lon_min", "lon_hem", "datum", "position_approximate", "depth_m", "office_code", "situation",
        "visible_high_tide", "visible_low_tide", "signalling", "protected_area", "owner_id",
        "owner_declared_lost", "owner_licence_requested", "court_known_on", "notes", "created_at"), rows)
    susp_ids = _reserve_ids(cur, "seq_suspensions", len(SUSPENSIONS))
    counts["wreck_suspensions"] = _insert_rows(
        cur, "wreck_suspensions", ("id", "wreck_id", "ground", "starts_on", "ends_on", "reason"),
        [(i, ids.wreck[s[0]], *s[1:]) for i, s in zip(susp_ids, SUSPENSIONS)])


def _share_columns(signed_on: date | None, share: Decimal | None) -> tuple[Decimal | None, Decimal | None]:
    """(other_share, other_share_original): a contract under the original art. 21 keeps its share in the
    second (migration 022; `valuation.partition.contract_law`)."""
    return (None, share) if law_text_of(signed_on) == "original" else (share, None)


def _seed_contracts(cur: Any, counts: dict[str, int], ids: _Ids) -> None:
    ids.contract = dict(zip((c[0] for c in CONTRACTS), _reserve_ids(cur, "seq_contracts", len(CONTRACTS))))
    rows = []
    for c in CONTRACTS:
        r = dict(zip(CONTRACT_FIELDS, c))
        rows.append((
            ids.contract[r["code"]], r["code"], r["kind"], r["act"], r["act_number"], ids.org[r["org"]],
            ids.wreck[r["wreck"]], r["office"], r["requested_on"], r["signed_on"], r["starts_on"],
            r["expires_on"], r["work_ended_on"], r["status"], r["cancelled_on"], r["cancel_reason"],
            ids.org[r["surveyor"]] if r["surveyor"] else None, r["modality"], r["historical_share"],
            r["historical_payment"], *_share_columns(r["signed_on"], r["other_share"]), r["fixed_amount"],
            r["salvage_award"], r["value_fixed"], r["caution_amount"], _at(r["requested_on"], 9, 30)))
    counts["contracts"] = _insert_rows(cur, "contracts", (
        "id", "code", "kind", "act", "act_number", "organisation_id", "wreck_id", "office_code",
        "requested_on", "signed_on", "starts_on", "expires_on", "work_ended_on", "status", "cancelled_on",
        "cancel_reason", "surveyor_organisation_id", "modality", "historical_share", "historical_payment",
        "other_share", "other_share_original", "fixed_amount", "salvage_award", "value_fixed", "caution_amount",
        "created_at"), rows)


def _item_parts(rnd: random.Random, rng: np.random.Generator, ids: _Ids) -> tuple[list[dict[str, Any]],
                                                                                    list[dict[str, Any]]]:
    office_by_code = {o[0]: o for o in OFFICES}
    office_of = {c[0]: c[6] for c in CONTRACTS}
    wreck_of = {c[0]: c[5] for c in CONTRACTS}
    starts_of = {c[0]: c[9] for c in CONTRACTS}
    item_parts: list[dict[str, Any]] = []
    delivery_parts: list[dict[str, Any]] = []
    for code, (n, profile) in ITEM_PLAN.items():
        office = office_by_code[office_of[code]]
        place = f"Depósito de bens resgatados — {office[1]}, {office[4]}/{office[3]}"
        receiver = rnd.choice(("CT (T) Renata Moura Lisboa", "CC (T) André Fontes Carvalho",
                               "1T (RM2-T) Priscila Ramos Duarte", "SO-MO Valdir Souza Bezerra"))
        items, deliveries = item_frame(rng, ids.contract[code], code, starts_of[code], OPS_END[code],
                                       ids.depth[wreck_of[code]], n, profile, DELIVERY_UNTIL[code],
                                       place, f"{receiver} — Encarregado(a) do depósito")
        item_parts.append(items)
        delivery_parts.append(deliveries)
    return item_parts, delivery_parts


def _seed_items(cur: Any, counts: dict[str, int], ids: _Ids, rnd: random.Random, rng: np.random.Generator) -> None:
    """Recovered items and their deliveries (art. 23), in bulk through Arrow."""
    item_parts, delivery_parts = _item_parts(rnd, rng, ids)
    item_ids = _reserve_ids(cur, "seq_items", sum(len(p["item_code"]) for p in item_parts))
    items_tbl = pa.table({
        "id": pa.array(item_ids, pa.int64()),
        **{col: pa.array(np.concatenate([p[col] for p in item_parts])) if col in ("contract_id", "quantity")
           else pa.array([v for p in item_parts for v in p[col]]) for col in item_parts[0]},
    })
    counts["items"] = _insert_arrow(cur, "items", items_tbl, (
        "(id, contract_id, item_code, description, category, material, quantity, weight_g, recovered_on, "
        "depth_m, lot, condition, notes) SELECT id, contract_id, item_code, description, category, material, "
        "quantity, CAST(weight_g AS DECIMAL(12,2)), recovered_on, CAST(depth_m AS DECIMAL(7,2)), lot, "
        "condition, notes FROM {view}"))
    code_to_item = dict(zip(items_tbl.column("item_code").to_pylist(), item_ids))
    d_codes = [c for p in delivery_parts for c in p["item_code"]]
    d_ids = _reserve_ids(cur, "seq_deliveries", len(d_codes))
    d_days = [d for p in delivery_parts for d in p["delivered_on"]]
    recorder = DEMO_USERNAMES_BY_ROLE["dpc"]
    deliveries_tbl = pa.table({
        "id": pa.array(d_ids, pa.int64()),
        "item_id": pa.array([code_to_item[c] for c in d_codes], pa.int64()),
        "delivered_on": pa.array(d_days, pa.date32()),
        "received_by": pa.array([v for p in delivery_parts for v in p["received_by"]]),
        "place": pa.array([v for p in delivery_parts for v in p["place"]]),
        "recorded_by": pa.array([recorder[i % len(recorder)] for i in range(len(d_codes))]),
        "recorded_at": pa.array([_at(d, 16, 30) for d in d_days], pa.timestamp("us")),
    })
    counts["item_deliveries"] = _insert_arrow(cur, "item_deliveries", deliveries_tbl, (
        "(id, item_id, delivered_on, received_by, place, recorded_by, recorded_at) "
        "SELECT id, item_id, delivered_on, received_by, place, recorded_by, recorded_at FROM {view}"))


def _seed_users(cur: Any, counts: dict[str, int], ids: _Ids) -> None:
    user_ids = _reserve_ids(cur, "seq_users", len(USERS))
    counts["users"] = _insert_rows(cur, "users", (
        "id", "username", "full_name", "email", "cpf", "role", "organisation_id", "commission_body", "password_hash",
        "created_at", "office_code"),
        [(uid, u, name, email, DEMO_CPFS.get(u), role, ids.org[org] if org else None, body, PASSWORD_HASHES[u],
          _at(date(2026, 1, 5), 8, 0), OFFICE_OF.get(u)) for uid, (u, name, email, role, org, body) in
         zip(user_ids, USERS)])


def seed_demo(store: Store) -> dict[str, int]:
    """Fill an empty database with the demo data set in one transaction; returns rows per table.

    Raises ConflictError when the database already holds offices or wrecks (the demo
    is loaded once, into a fresh database). Deterministic: same content every run."""
    if is_seeded(store):
        raise ConflictError("O banco de dados já contém dados: a demonstração só é carregada num banco vazio.")
    rnd = random.Random(DEMO_SEED)
    rng = np.random.default_rng(DEMO_SEED)
    counts: dict[str, int] = {}
    ids = _Ids()
    _seed_offices(store, counts)
    with store.transaction(actor=DEMO_ACTOR) as tx:
        cur = tx.cur
        _seed_parties(cur, counts, ids)
        _seed_wrecks(cur, counts, ids)
        _seed_contracts(cur, counts, ids)
        _seed_items(cur, counts, ids, rnd, rng)
        _seed_users(cur, counts, ids)
        _audit(tx, counts)
    return counts


def _audit(tx: Tx, counts: dict[str, int]) -> None:
    """The audit trail starts here: one row per table loaded."""
    for table in DEMO_TABLES:
        tx.audit("demo.seed", table, "*", None, {"rows": counts[table], "seed": DEMO_SEED})


def content_digest(store: Store) -> str:
    """sha256 of the demo tables' content in a canonical order (for determinism checks)."""
    h = hashlib.sha256()
    for table in DEMO_TABLES:
        cur = store.cursor()
        try:
            rows = cur.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
        finally:
            cur.close()
        h.update(table.encode())
        for row in rows:
            h.update(repr(row).encode("utf-8"))
    return h.hexdigest()


# re-exported for the benchmark's generator (bench/generate.py) and the demo steps
__all__ = ["CONDITIONS", "CONDITION_P", "CONTRACTS", "DEMO_ACTOR", "DEMO_SEED", "DEMO_TABLES", "DEMO_TODAY",
           "DEMO_USERNAMES_BY_ROLE", "ITEM_NOTES", "ITEM_TEMPLATES", "OFFICES", "ORGANISATIONS", "OWNERS",
           "SUSPENSIONS", "USERS", "WRECKS", "content_digest", "is_seeded", "seed_demo"]
