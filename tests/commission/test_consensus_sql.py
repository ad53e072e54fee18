"""The stored SQL consensus (valuation.commission.consensus_sql) equals `consensus.decide_item`.

For every item of random rounds — entered through the store's own API, converted with
the stored rates — the row in `item_consensus` must agree with the single-case rules
on the same data: historical, decided_by, votes, quorum_met, value_brl (exactly),
flagged, and the spread within 1e-9; for the three methods, with ties (president
voting or not), no quorum, zero medians, equal values, single values and no values.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from valuation.commission import consensus_sql
from valuation.commission.consensus import (
    ItemInput,
    Member,
    ValueEntry,
    consensus_value,
    decide_item,
    round_cents,
)
from valuation.commission.consensus_sql import compute_round_consensus, update_consensus
from valuation.commission.entries import record_assessment, record_assessments_bulk
from valuation.commission.fx import Rate, RateTable
from valuation.commission.rounds import close_round, open_round
from valuation.commission.sheet_import import import_assessments
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.policies.defaults import ConsensusPolicy

D = Decimal
MEMBER_KEYS = ("pres", "navy1", "navy2", "cult1", "cult2", "cult3")
PRICE_DAYS = [date(2025, 3, 3) + timedelta(days=k) for k in range(10)]
RATES = [Rate("USD", date(2025, 3, 3), D("5.781234")), Rate("USD", date(2025, 3, 7), D("5.812345")),
         Rate("EUR", date(2025, 3, 3), D("6.250001")), Rate("EUR", date(2025, 3, 10), D("6.333333"))]


@dataclass
class World:
    store: Store
    contract: str
    items: list[int]
    members: dict[str, Principal]


def _build(path: Path, n_items: int) -> World:
    store = Store(path)

    def fill(tx: Any) -> tuple[list[int], dict[str, Principal]]:
        tx.execute("INSERT INTO offices (code, name, kind, state, city, naval_district) "
                   "VALUES ('CPRJ', 'Capitania dos Portos do Rio de Janeiro', 'CP', 'RJ', "
                   "'Rio de Janeiro', 1)")
        org = tx.scalar("INSERT INTO organisations (name, nationality, address, city, representative_name, "
                        "registered_on) VALUES ('Org', 'brasileira', 'Rua 1', 'Rio', 'Rep', DATE '2020-01-01') "
                        "RETURNING id")
        wreck = tx.scalar("INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_precision, "
                          "casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
                          "situation) VALUES ('W1', 'Galeão', 'madeira', 1650, 'year', 'naufrágio', 22, 0, 'S', 43, "
                          "0, 'W', 'WGS-84', 'CPRJ', 'soçobrada') RETURNING id")
        cid = tx.scalar("INSERT INTO contracts (code, kind, act, organisation_id, wreck_id, office_code, status) "
                        "VALUES ('C-1', 'exploração', 'contrato', ?, ?, 'CPRJ', 'vigente') RETURNING id",
                        [org, wreck])
        frame = pd.DataFrame({
            "contract_id": np.full(n_items, cid, dtype=np.int64),
            "item_code": [f"IT-{k:07d}" for k in range(n_items)],
            "description": "Item", "category": "moeda", "material": "prata",
            "quantity": np.ones(n_items, dtype=np.int32), "recovered_on": date(2025, 1, 10),
        })
        tx.insert_frame("items", frame)
        ids = [int(r["id"]) for r in tx.execute("SELECT id FROM items ORDER BY id")]
        members: dict[str, Principal] = {}
        for key in MEMBER_KEYS:
            role = "commission_president" if key == "pres" else "commission"
            body = "navy" if key.startswith(("pres", "navy")) else "culture"
            uid = tx.scalar("INSERT INTO users (username, full_name, role, commission_body, password_hash) "
                            "VALUES (?, ?, ?, ?, 'x') RETURNING id", [f"m.{key}", f"Membro {key}", role, body])
            members[key] = Principal(int(uid), f"m.{key}", f"Membro {key}", role, None, body)
        for r in RATES:
            tx.execute("INSERT INTO fx_rates (currency, day, brl, recorded_by) VALUES (?, ?, ?, 'fixture')",
                       [r.currency, r.date, r.brl])
        return ids, members

    ids, members = store.write("fixture", fill)
    return World(store, "C-1", ids, members)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    w = _build(tmp_path_factory.mktemp("agree") / "agree.duckdb", 400)
    yield w
    w.store.close()


def _set_policy(store: Store, policy: ConsensusPolicy) -> None:
    def run(tx: Any) -> None:
        for key, value in (("consensus_method", f'"{policy.method}"'), ("quorum", str(policy.quorum)),
                           ("spread_threshold", f'"{policy.spread_threshold}"')):
            tx.execute("INSERT INTO policies (key, value_json, set_by) VALUES (?, ?, 'test')", [key, value])
    store.write("test", run)


# -- generating a round ---------------------------------------------------------------------
Entry = tuple[bool | None, Decimal | None, str, date]   # vote, amount, currency, price date


def _random_amount(rng: random.Random) -> Decimal:
    kind = rng.random()
    if kind < 0.1:
        return D(0)
    if kind < 0.2:
        return D(rng.randint(1, 9)) / 100                 # cents: half-cent means
    if kind < 0.3:
        return D(rng.randint(10**12, 10**13)) / 100       # large values stay exact
    return D(rng.randint(100, 10**7)) / 100


def _random_item(rng: random.Random) -> dict[str, Entry]:
    """One item's entries by member (members absent from the dict entered nothing)."""
    shape = rng.random()
    members = list(MEMBER_KEYS)
    out: dict[str, Entry] = {}
    if shape < 0.05:
        return out                                          # nobody entered anything
    if shape < 0.15:                                        # a 3–3 tie, president voting or not
        votes = [True, True, True, False, False, False]
        rng.shuffle(votes)
        for m, v in zip(members, votes):
            out[m] = (v, None, "BRL", PRICE_DAYS[0])
        if rng.random() < 0.5:
            out["pres"] = (None, None, "BRL", PRICE_DAYS[0])
            out[rng.choice(members[1:])] = (None, None, "BRL", PRICE_DAYS[0])
    base = _random_amount(rng)
    same = rng.random() < 0.15
    for m in members:
        if m in out and out[m][1] is None and rng.random() < 0.5:
            vote = out[m][0]
        else:
            vote = rng.choice([True, False, None, True, False])
        amount = None
        currency = "BRL"
        if rng.random() < 0.75:
            amount = base if same else (_random_amount(rng) if rng.random() < 0.3 else
                                        max(D(0), base + D(rng.randint(-500, 500)) / 100))
            currency = rng.choice(["BRL", "BRL", "USD", "EUR"])
        if vote is None and amount is None:
            if rng.random() < 0.5:
                continue
            vote = rng.choice([True, False])
        out[m] = (vote, amount, currency, rng.choice(PRICE_DAYS))
    # Neither vote nor value is not an entry (the store refuses it): that member is just absent.
    return {m: e for m, e in out.items() if e[0] is not None or e[1] is not None}


def _sheet(rows: list[tuple[str, Entry, int | None]]) -> bytes:
    lines = ["codigo;historico;valor;moeda;data_do_preco;significancia;fonte"]
    for code, (vote, amount, currency, day), sig in rows:
        v = "" if vote is None else ("sim" if vote else "não")
        a = "" if amount is None else str(amount).replace(".", ",")
        lines.append(";".join([code, v, a, currency if amount is not None else "",
                               day.strftime("%d/%m/%Y") if amount is not None else "",
                               "" if sig is None else str(sig), "catalogo" if amount is not None else ""]))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _bulk(rows: list[tuple[int, Entry, int | None]]) -> pa.Table:
    return pa.table({
        "item_id": pa.array([r[0] for r in rows], type=pa.int64()),
        "historical": pa.array([r[1][0] for r in rows], type=pa.bool_()),
        "amount": pa.array([r[1][1] for r in rows], type=pa.decimal128(18, 2)),
        "currency": pa.array([r[1][2] if r[1][1] is not None else None for r in rows], type=pa.string()),
        "price_date": pa.array([r[1][3] if r[1][1] is not None else None for r in rows], type=pa.date32()),
        "significance": pa.array([r[2] for r in rows], type=pa.int64()),
        "source": pa.array(["catalogo" if r[1][1] is not None else None for r in rows], type=pa.string()),
    })


def _run_round(world: World, policy: ConsensusPolicy, data: dict[int, dict[str, Entry]],
               corrections: dict[int, dict[str, Entry]] | None = None, *, via: str = "bulk") -> int:
    """Open a round over the items of `data`, enter everything through the API (a CSV sheet
    per member, or typed bulk entries), correct some entries one at a time, close it."""
    s = world.store
    _set_policy(s, policy)
    rnd = open_round(s, world.members["pres"], world.contract, sorted(data))
    codes = {r["id"]: r["item_code"] for r in s.fetch("SELECT id, item_code FROM items")}
    for key, user in world.members.items():
        rows = [(i, entries[key], 3 if entries[key][0] else None) for i, entries in data.items() if key in entries]
        if rows and via == "sheet":
            import_assessments(s, user, rnd.id, _sheet([(codes[i], e, sig) for i, e, sig in rows]), f"{key}.csv")
        elif rows:
            record_assessments_bulk(s, user, rnd.id, _bulk(rows))
    for item, by_member in (corrections or {}).items():
        for key, (vote, amount, currency, day) in by_member.items():
            record_assessment(s, world.members[key], rnd.id, item, historical=vote, amount=amount,
                                 currency=currency if amount is not None else None,
                                 price_date=day if amount is not None else None,
                                 significance=2 if vote else None, must_keep=None,
                                 source="catalogo" if amount is not None else None)
    close_round(s, world.members["pres"], rnd.id)
    return rnd.id


def _check_round(world: World, round_id: int, policy: ConsensusPolicy, data: dict[int, dict[str, Entry]]) -> int:
    members = [Member(k, "navy" if k.startswith(("pres", "navy")) else "culture", president=k == "pres")
               for k in MEMBER_KEYS]
    table = RateTable(RATES)
    stored = {int(r["item_id"]): r for r in world.store.fetch("SELECT * FROM item_consensus WHERE round_id = ?",
                                                              [round_id])}
    assert set(stored) == set(data)
    for item, entries in data.items():
        expected = decide_item(
            ItemInput(id=str(item), votes={k: e[0] for k, e in entries.items()},
                      values=[ValueEntry(k, e[1], e[2], e[3]) for k, e in entries.items() if e[1] is not None]),
            members, table, policy)
        got = stored[item]
        context = (item, entries, got)
        assert got["historical"] == expected.historical, context
        assert got["decided_by"] == expected.decided_by, context
        assert (got["votes_for"], got["votes_against"]) == (expected.votes_for, expected.votes_against), context
        assert got["quorum_met"] == expected.quorum_met, context
        assert got["value_brl"] == expected.value_brl, context
        assert got["flagged"] == expected.flagged, context
        if expected.spread is None:
            assert got["spread"] is None, context
        else:
            assert math.isclose(got["spread"], float(expected.spread), rel_tol=1e-9, abs_tol=1e-12), context
        converted = [table.to_brl(e[1], e[2], e[3])[0] for e in entries.values() if e[1] is not None]
        assert got["n_values"] == len(converted)
        median = consensus_value(converted, "median")
        assert got["median_brl"] == (None if median is None else round_cents(median)), context
    return len(data)


POLICIES = [
    ConsensusPolicy("median", 4, D("0.5")),
    ConsensusPolicy("mean", 4, D("0.25")),
    ConsensusPolicy("trimmed_mean", 4, D("0.5")),
    ConsensusPolicy("median", 1, D("0")),
    ConsensusPolicy("trimmed_mean", 6, D("1.0000")),
    ConsensusPolicy("mean", 3, D("0.0001")),
]


@pytest.mark.parametrize("seed, policy", list(enumerate(POLICIES)))
def test_random_rounds_agree_item_by_item(world: World, seed: int, policy: ConsensusPolicy) -> None:
    rng = random.Random(1000 + seed)
    chosen = rng.sample(world.items, 120)
    data = {item: _random_item(rng) for item in chosen}
    # A few corrections entered one at a time after the sheets.
    corrections: dict[int, dict[str, Entry]] = {}
    for item in rng.sample(chosen, 4):
        key = rng.choice(MEMBER_KEYS)
        entry: Entry = (rng.choice([True, False]), _random_amount(rng), "USD", PRICE_DAYS[-1])
        corrections[item] = {key: entry}
        data[item] = {**data[item], key: entry}
    round_id = _run_round(world, policy, data, corrections, via="sheet" if seed == 0 else "bulk")
    assert _check_round(world, round_id, policy, data) == 120      # stored by the entries, checked at the close
    # Recomputing listed items, or the whole round, must store the very same rows.
    before = world.store.fetch("SELECT * EXCLUDE (computed_at) FROM item_consensus WHERE round_id = ? "
                               "ORDER BY item_id", [round_id])
    world.store.write("test", lambda tx: update_consensus(tx, round_id, sorted(data)[::2]))
    world.store.write("test", lambda tx: update_consensus(tx, round_id, [sorted(data)[1]]))
    world.store.write("test", lambda tx: update_consensus(tx, round_id, force=True))   # the whole round
    after = world.store.fetch("SELECT * EXCLUDE (computed_at) FROM item_consensus WHERE round_id = ? "
                              "ORDER BY item_id", [round_id])
    assert after == before


def test_full_recompute_without_the_pivot_agrees(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(consensus_sql, "MAX_PIVOT_MEMBERS", 0)    # the ordered-list path for a whole round
    rng = random.Random(77)
    data = {item: _random_item(rng) for item in rng.sample(world.items, 80)}
    policy = ConsensusPolicy("trimmed_mean", 4, D("0.5"))
    round_id = _run_round(world, policy, data)
    _check_round(world, round_id, policy, data)


# Designed edge cases, each item with its entries (vote, amount, currency, day).
def _e(vote: bool | None, amount: str | None, currency: str = "BRL", day: date = PRICE_DAYS[5]) -> Entry:
    return (vote, None if amount is None else D(amount), currency, day)


EDGE_ITEMS: list[dict[str, Entry]] = [
    {},                                                                       # nothing at all
    {"navy1": _e(True, "10")},                                                # a single value, no quorum
    {k: _e(k in ("pres", "navy1", "navy2"), "0") for k in MEMBER_KEYS},       # tie, president True, all zero
    {k: _e(k in ("navy1", "navy2", "cult1"), "5") for k in MEMBER_KEYS},      # tie, president False
    {**{k: _e(k in ("navy1", "cult1"), None) for k in MEMBER_KEYS if k != "pres"},
     "pres": _e(None, "1")},                                                  # 2–2 tie, president abstains
    {"navy1": _e(True, "0"), "navy2": _e(True, "0"), "cult1": _e(True, "0"),
     "cult2": _e(False, "3"), "cult3": _e(False, "0")},                       # median 0, max > 0
    {"navy1": _e(True, "0.01"), "navy2": _e(True, "0.02")},                   # mean 0.015 → 0.02
    {"navy1": _e(True, "75"), "navy2": _e(True, "100"), "cult1": _e(True, "125"),
     "cult2": _e(True, "100"), "cult3": _e(False, "100")},                   # spread exactly 0.5: not flagged
    {"navy1": _e(True, "0.01", "USD", PRICE_DAYS[0]), "navy2": _e(True, "0.03", "EUR", PRICE_DAYS[9]),
     "cult1": _e(True, "0.07", "USD", PRICE_DAYS[6]), "cult2": _e(True, "0.01")},   # sub-cent conversions
    {k: _e(True, "99999999999.99", "EUR") for k in MEMBER_KEYS},             # large equal values
    {k: _e(None, str(100 + n)) for n, k in enumerate(MEMBER_KEYS)},          # values without any vote
]


@pytest.mark.parametrize("policy", POLICIES[:3])
def test_designed_edge_cases_agree(world: World, policy: ConsensusPolicy) -> None:
    items = world.items[-len(EDGE_ITEMS):]
    data = dict(zip(items, EDGE_ITEMS))
    round_id = _run_round(world, policy, data)
    _check_round(world, round_id, policy, data)
    stored = {int(r["item_id"]): r for r in world.store.fetch("SELECT * FROM item_consensus WHERE round_id = ?",
                                                              [round_id])}
    assert stored[items[0]]["flagged"] is True and stored[items[0]]["n_values"] == 0   # no entries: still a row
    assert stored[items[7]]["spread"] == 0.5
    assert stored[items[7]]["flagged"] is (policy.spread_threshold < D("0.5"))   # equal to the threshold: not


entry_st = st.tuples(st.sampled_from([True, False, None]),
                     st.one_of(st.none(), st.decimals(min_value=0, max_value=10**6, places=2)),
                     st.sampled_from(["BRL", "USD", "EUR"]), st.sampled_from(PRICE_DAYS))
item_st = st.dictionaries(st.sampled_from(MEMBER_KEYS), entry_st, max_size=6).map(
    lambda d: {k: (v if v[0] is not None or v[1] is not None else (True, v[1], v[2], v[3])) for k, v in d.items()})


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(item_st, min_size=1, max_size=12),
       policy=st.builds(ConsensusPolicy, st.sampled_from(["median", "mean", "trimmed_mean"]),
                        st.integers(1, 6), st.sampled_from([D("0"), D("0.5"), D("0.3333"), D("2")])))
def test_hypothesis_rounds_agree(world: World, items: list[dict[str, Entry]], policy: ConsensusPolicy) -> None:
    data = dict(zip(world.items[200:200 + len(items)], items))
    round_id = _run_round(world, policy, data)
    _check_round(world, round_id, policy, data)


# -- scale ----------------------------------------------------------------------------------------
def _cents_array(cents: np.ndarray) -> pa.Array:
    """decimal128(18, 2) from non-negative integer cents, without a Python Decimal per value."""
    words = np.zeros((len(cents), 2), dtype=np.int64)   # little-endian int128: low word, high word 0
    words[:, 0] = cents
    return pa.Array.from_buffers(pa.decimal128(18, 2), len(cents), [None, pa.py_buffer(words.tobytes())])


@pytest.mark.slow
def test_scale_100k_items_by_6_members(tmp_path: Path) -> None:
    """100 000 items × 6 members: bulk entry through Arrow, a forced full recompute and a
    one-item update; the stored row count and a sample of items agree with decide_item.
    (Speed is shown by bench/run.py, never timed here.)"""
    n = 100_000
    w = _build(tmp_path / "scale.duckdb", n)
    s = w.store
    try:
        _set_policy(s, ConsensusPolicy("median", 4, D("0.5")))
        rnd = open_round(s, w.members["pres"], w.contract)
        assert rnd.item_count == n
        rng = np.random.default_rng(42)
        ids = np.array(w.items, dtype=np.int64)
        amounts: dict[str, np.ndarray] = {}
        votes: dict[str, np.ndarray] = {}
        for key, user in w.members.items():
            cents = rng.integers(0, 10**7, n)
            vote = rng.integers(0, 3, n)            # 0 no vote, 1 historical, 2 not
            amounts[key], votes[key] = cents, vote
            hist = pa.array(np.where(vote == 1, True, False), mask=vote == 0)
            record_assessments_bulk(s, user, rnd.id, pa.table({
                "item_id": ids, "historical": hist,
                "amount": _cents_array(cents),
                "currency": pa.array(["BRL"] * n), "price_date": pa.array([PRICE_DAYS[0]] * n, type=pa.date32()),
                "significance": pa.array(np.where(vote == 1, 3, 0), mask=vote != 1),
                "source": pa.array(["catalogo"] * n)}))
        assert s.scalar("SELECT count(*) FROM assessment_current WHERE round_id = ?", [rnd.id]) == 6 * n

        assert compute_round_consensus(s, rnd.id, force=True) == n
        assert s.scalar("SELECT count(*) FROM item_consensus WHERE round_id = ?", [rnd.id]) == n

        record_assessment(s, w.members["cult2"], rnd.id, int(ids[7]), historical=True, amount=D("123456.78"),
                             currency="BRL", price_date=PRICE_DAYS[0], significance=5, must_keep=True,
                             source="catalogo")
        amounts["cult2"][7] = 12345678
        votes["cult2"][7] = 1

        members = [Member(k, "navy" if k.startswith(("pres", "navy")) else "culture", president=k == "pres")
                   for k in MEMBER_KEYS]
        stored = {int(r["item_id"]): r for r in s.fetch(
            "SELECT * FROM item_consensus WHERE round_id = ? AND (item_id % 997 = 0 OR item_id = ?)",
            [rnd.id, int(ids[7])])}
        assert len(stored) > 90
        for item, got in stored.items():
            k = int(np.flatnonzero(ids == item)[0])
            inp = ItemInput(str(item), {m: {0: None, 1: True, 2: False}[int(votes[m][k])] for m in MEMBER_KEYS},
                            [ValueEntry(m, D(int(amounts[m][k])).scaleb(-2), "BRL", PRICE_DAYS[0])
                             for m in MEMBER_KEYS])
            exp = decide_item(inp, members, RateTable(RATES), ConsensusPolicy("median", 4, D("0.5")))
            assert (got["historical"], got["decided_by"], got["value_brl"], got["flagged"]) == \
                (exp.historical, exp.decided_by, exp.value_brl, exp.flagged)
            assert math.isclose(got["spread"], float(exp.spread), rel_tol=1e-9)
    finally:
        s.close()
