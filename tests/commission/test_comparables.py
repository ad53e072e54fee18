"""Comparables (issue 16 §§8–10): the same numbers as a pandas computation on generated
decisions; only published decisions of other contracts; the outlier flag at the close."""
from __future__ import annotations

import random
import re
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.support.commission import enter, full_panel, item_ids, run_round
from valuation.commission import comparables as cp
from valuation.commission.rounds import close_round, open_round, publish_round
from valuation.core.errors import AccessDenied, ConflictError, NotFound
from valuation.db.store import Store

MIGRATION = Path(__file__).resolve().parents[2] / "src/valuation/db/migrations/012_attachments.sql"

# (category, material, description, the key a person reads in it): written by hand, not by the rule.
KINDS: list[tuple[str, str, str, tuple[str, str, str | None]]] = [
    ("moeda", "prata", "Moeda de prata de 8 reales", ("moeda", "prata", "8 real")),
    ("Moeda", "Prata ", "Moeda de 8 Reales (Potosí)", ("moeda", "prata", "8 real")),
    ("moeda", "prata", "Moeda de 4 reales", ("moeda", "prata", "4 real")),
    ("moeda", "prata", "Pataca portuguesa (640 réis)", ("moeda", "prata", "640 reis")),
    ("moeda", "prata", "Pataca portuguesa", ("moeda", "prata", "pataca")),
    ("moeda", "prata", "Moeda de cobre (X réis)", ("moeda", "prata", None)),
    ("moeda", "ouro", "Moeda de ouro (4.000 réis)", ("moeda", "ouro", "4000 reis")),
    ("moeda", "ouro", "Peça de 4$000 réis", ("moeda", "ouro", "4000 reis")),
    ("moeda", "ouro", "Moeda de ouro de 4 escudos", ("moeda", "ouro", "4 escudo")),
    ("cerâmica", "faiança", "Prato de faiança portuguesa", ("ceramica", "faianca", None)),
    ("Ceramica", "Faiança", "Fragmentos de faiança", ("ceramica", "faianca", None)),
    ("vidro", "vidro", "Garrafa de vidro", ("vidro", "vidro", None)),
]
T0 = datetime(2024, 1, 10, 10, 0)


def _contract(tx: Any, code: str, org: int, wreck: int) -> int:
    return int(tx.scalar("INSERT INTO contracts (code, kind, act, organisation_id, wreck_id, office_code, status) "
                         "VALUES (?, 'exploração', 'contrato', ?, ?, 'CPBA', 'vigente') RETURNING id",
                         [code, org, wreck]))


def generate(world: Any, *, seed: int = 16, per_contract: int = 320) -> dict[str, Any]:
    """Four contracts with published rounds, one decided but unpublished, one with an open round's
    entries (all with the same kinds of item). Returns what a reference computation needs."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    ids = world.ids

    def fill(tx: Any) -> None:
        for c_no, status in enumerate(["publicada"] * 4 + ["decidida", "aberta"]):
            cid = _contract(tx, f"G-{c_no}", ids["org_c"], ids["w4"])
            rid = int(tx.scalar("INSERT INTO assessment_rounds (contract_id, number, status, method, quorum, "
                                "spread_threshold, opened_by, published_at) VALUES (?, 1, ?, 'median', 4, 0.5, 'x', ?) "
                                "RETURNING id", [cid, status, T0 + timedelta(days=40 * c_no)
                                                 if status == "publicada" else None]))
            for k in range(per_contract):
                cat, mat, desc, key = KINDS[rng.randrange(len(KINDS))]
                iid = int(tx.scalar("INSERT INTO items (contract_id, item_code, description, category, material, "
                                    "quantity, recovered_on) VALUES (?, ?, ?, ?, ?, 1, DATE '2023-05-01') RETURNING id",
                                    [cid, f"G{c_no}-{k:04d}", desc, cat, mat]))
                value = Decimal(rng.randint(1, 5_000_000)) / 100 if status == "publicada" else Decimal("99999999.99")
                at = T0 + timedelta(days=40 * c_no, minutes=rng.randrange(10_000))
                if status == "aberta":   # an open round: values entered, nothing decided
                    tx.execute("INSERT INTO round_items VALUES (?, ?)", [rid, iid])
                    tx.execute("INSERT INTO assessment_current (round_id, item_id, member_id, log_id, value_brl) "
                               "VALUES (?, ?, 1, 1, ?)", [rid, iid, value])
                    continue
                did = int(tx.scalar("INSERT INTO decisions (round_id, item_id, historical, value_brl, basis, "
                                    "decided_by, decided_at) VALUES (?, ?, true, ?, 'x', 'x', ?) RETURNING id",
                                    [rid, iid, value, at]))
                tx.execute("INSERT INTO item_valuation VALUES (?, ?, ?, ?, true, ?, NULL, false, ?)",
                           [iid, cid, did, rid, value, status == "publicada"])
                rows.append({"item_id": iid, "contract_id": cid, "contract_code": f"G-{c_no}", "item_code":
                             f"G{c_no}-{k:04d}", "ck": key[0], "mk": key[1], "dn": key[2], "value": value,
                             "decided_at": at, "published": status == "publicada"})
            if status == "publicada":
                cp.record_published(tx, rid)

    world.store.write("fixture", fill)
    return {"rows": pd.DataFrame(rows)}


def reference(rows: pd.DataFrame, key: tuple[str, str, str | None], own_contract: int) -> dict[str, Any]:
    """What pandas says: same category and material, same denomination when the target shows one."""
    ck, mk, dn = key
    m = rows[rows["published"] & (rows["ck"] == ck) & (rows["mk"] == mk) & (rows["contract_id"] != own_contract)]
    if dn is not None:
        m = m[m["dn"] == dn]
    cents = m["value"].map(lambda v: float(v * 100))
    q = cents.quantile([0.25, 0.5, 0.75]) if len(m) else None     # linear interpolation, pandas' default
    recent = m.sort_values(["decided_at", "item_id"], ascending=False).head(cp.RECENT)
    as_brl = (lambda x: (Decimal(str(x)) / 100)) if q is not None else None
    return {"count": len(m), "q": None if q is None else [as_brl(x) for x in q.tolist()],
            "recent": list(zip(recent["contract_code"], recent["item_code"], recent["value"]))}


def _target(world: Any, code: str, desc: str, cat: str, mat: str) -> int:
    return int(world.store.write("fixture", lambda tx: tx.scalar(
        "INSERT INTO items (contract_id, item_code, description, category, material, quantity, recovered_on) "
        "VALUES (?, ?, ?, ?, ?, 1, DATE '2025-02-10') RETURNING id", [world.ids["A-1"], code, desc, cat, mat])))


def test_comparables_equal_a_pandas_computation_on_generated_decisions(small_world):
    w = small_world
    data = generate(w)
    member = w.principal("commission")
    checked = 0
    for n, (cat, mat, desc, key) in enumerate(KINDS):
        item = _target(w, f"T-{n}", desc, cat, mat)
        got = cp.comparables_for_item(w.store, member, item)
        want = reference(data["rows"], key, w.ids["A-1"])
        assert (got.category, got.material, got.denomination) == (cat, mat, key[2])
        assert got.count == want["count"], desc
        if want["count"]:
            assert [got.q1, got.median, got.q3] == want["q"], desc          # exact, to the quarter-cent
            checked += 1
        assert [(r.contract_code, r.item_code, r.value_brl) for r in got.recent] == want["recent"], desc
    assert checked >= 10


def test_nothing_from_an_open_or_unpublished_round_and_nothing_of_the_same_contract(small_world):
    w = small_world
    data = generate(w, per_contract=60)
    rows = data["rows"]
    assert (rows["value"] == Decimal("99999999.99")).sum() > 0            # the unpublished decisions exist…
    item = _target(w, "T-x", "Moeda de prata de 8 reales", "moeda", "prata")
    got = cp.comparables_for_item(w.store, w.principal("dpc"), item)
    assert got.q3 is not None and got.q3 < Decimal("50000")                  # …and never count
    same = w.store.fetch_one("SELECT contract_id FROM items WHERE item_code = 'G0-0000'")["contract_id"]
    own = int(w.store.scalar("SELECT id FROM items WHERE contract_id = ? LIMIT 1", [same]))
    mine = cp.comparables_for_item(w.store, w.principal("dpc"), own)
    assert "G-0" not in {r.contract_code for r in mine.recent}


def test_decisions_count_only_once_their_round_is_published(small_world):
    w = small_world
    b_item = item_ids(w, "B-1")["B1-001"]    # Sino de bordo, equipamento/bronze (A1-004 is armamento/bronze)
    w.store.write("fixture", lambda tx: tx.execute(
        "UPDATE items SET category = 'armamento' WHERE id = ?", [b_item]))
    member = w.principal("commission")
    _, rid = run_round(w, until="decided")
    assert cp.comparables_for_item(w.store, member, b_item).count == 0       # decided, not published
    publish_round(w.store, w.principal("commission_president"), rid)
    got = cp.comparables_for_item(w.store, member, b_item)
    assert got.count == 1 and got.recent[0].item_code == "A1-004" and got.median == Decimal("320000.00")


def test_the_published_comparables_are_read_once_per_publication_and_the_codes_each_time(small_world):
    """A member's entry (a new revision of the file) keeps what the published comparables gave — they change
    only when a round is published (`record_published` names the Store topic) —, while the items' codes
    shown beside them are read each time."""
    w = small_world
    b_item = item_ids(w, "B-1")["B1-001"]
    w.store.write("fixture", lambda tx: tx.execute("UPDATE items SET category = 'armamento' WHERE id = ?", [b_item]))
    member = w.principal("commission")
    _, rid = run_round(w, until="published")
    first = cp.comparables_for_item(w.store, member, b_item)
    assert first.count == 1 and first.recent[0].item_code == "A1-004"
    generation, revision = w.store.generation(cp.PUBLISHED), w.store.revision
    kept = {k: v for k, v in cp._FOUND.items() if v[0] == generation}
    w.store.write("fixture", lambda tx: tx.execute("UPDATE items SET item_code = 'A1-004b' WHERE id = ?",
                                                   [w.ids["A1-004"]]))
    again = cp.comparables_for_item(w.store, member, b_item)
    assert w.store.revision != revision and w.store.generation(cp.PUBLISHED) == generation
    assert all(cp._FOUND[k] is v for k, v in kept.items())           # nothing of the table read again…
    assert again.recent[0].item_code == "A1-004b" and again.median == first.median      # …the code is


def test_only_the_commission_and_dpc_read_comparables(small_world):
    w = small_world
    item = w.ids["A1-001"]
    for key in ("explorer_a", "explorer_b", "admin"):
        with pytest.raises(AccessDenied):
            cp.comparables_for_item(w.store, w.principal(key), item)
    with pytest.raises(NotFound):
        cp.comparables_for_item(w.store, w.principal("commission"), 10_000_000)


def _published_peers(world: Any, values: list[str]) -> None:
    """Published decisions on 8-reales silver coins of another contract."""
    def fill(tx: Any) -> None:
        cid = _contract(tx, "P-1", world.ids["org_c"], world.ids["w4"])
        rid = int(tx.scalar("INSERT INTO assessment_rounds (contract_id, number, status, method, quorum, "
                            "spread_threshold, opened_by, published_at) VALUES (?, 1, 'publicada', 'median', 4, 0.5, "
                            "'x', ?) RETURNING id", [cid, T0]))
        for k, v in enumerate(values):
            iid = int(tx.scalar("INSERT INTO items (contract_id, item_code, description, category, material, quantity, "
                                "recovered_on) VALUES (?, ?, 'Moeda de 8 reales', 'moeda', 'prata', 1, "
                                "DATE '2020-01-01') RETURNING id", [cid, f"P-{k}"]))
            did = int(tx.scalar("INSERT INTO decisions (round_id, item_id, historical, value_brl, basis, decided_by, "
                                "decided_at) VALUES (?, ?, true, ?, 'x', 'x', ?) RETURNING id", [rid, iid, v, T0]))
            tx.execute("INSERT INTO item_valuation VALUES (?, ?, ?, ?, true, ?, NULL, false, true)",
                       [iid, cid, did, rid, v])
        cp.record_published(tx, rid)

    world.store.write("fixture", fill)


def test_a_consensus_far_outside_its_comparables_is_flagged_at_the_close_with_the_reason(small_world):
    w = small_world
    peers = ["900.00", "1000.00", "1000.00", "1100.00", "1200.00", "1300.00"]
    _published_peers(w, peers)
    panel = full_panel(w)
    rnd = open_round(w.store, panel["pres"], "A-1")
    codes = item_ids(w)
    for member in panel.values():   # A1-001 (8 reales) valued 9 000: far above; A1-006 (no peers): not flagged
        enter(w.store, member, rnd.id, codes["A1-001"], historical=True, amount="9000")
        enter(w.store, member, rnd.id, codes["A1-006"], historical=True, amount="9000")
    assert cp.round_flags(w.store, panel["pres"], rnd.id).empty              # nothing before the close
    close_round(w.store, panel["pres"], rnd.id)
    flags = cp.round_flags(w.store, panel["pres"], rnd.id)
    assert flags["item_code"].tolist() == ["A1-001"]
    s = pd.Series([float(Decimal(v)) for v in peers])
    q1, q3 = s.quantile(0.25), s.quantile(0.75)
    row = flags.iloc[0]
    assert Decimal(str(row["upper_brl"])) == Decimal(str(q3 + 1.5 * (q3 - q1)))   # 1 175 + 1,5 × 175 = 1 437,50
    assert row["reason"] == ("Consenso R$ 9.000,00 acima do limite superior R$ 1.437,50 (Q3 + 1,5 × IQR) de 6 "
                             "decisões publicadas de outros contratos (Q1 R$ 1.000,00, mediana R$ 1.050,00, "
                             "Q3 R$ 1.175,00).")
    assert cp.flagged_ids(w.store, w.principal("dpc"), rnd.id) == {codes["A1-001"]}
    assert cp.flagged_ids(w.store, w.principal("dpc"), rnd.id, [codes["A1-001"], codes["A1-002"]]) == {codes["A1-001"]}
    assert cp.flagged_ids(w.store, w.principal("dpc"), rnd.id, [codes["A1-002"]]) == set()      # a page without it
    assert cp.flagged_ids(w.store, w.principal("dpc"), rnd.id, []) == set()
    assert cp.flagged_ids(w.store, panel["navy1"], rnd.id) == set()          # the reason is the president's
    with pytest.raises(AccessDenied):
        cp.round_flags(w.store, panel["navy1"], rnd.id)
    audit = w.store.fetch_one("SELECT after_json FROM audit_log WHERE action = 'round_closed' ORDER BY id DESC LIMIT 1")
    assert '"outside_comparables":1' in audit["after_json"]


def test_the_policies_set_the_factor_and_the_minimum_count(small_world):
    w = small_world
    _published_peers(w, ["900.00", "1000.00", "1000.00", "1100.00", "1200.00", "1300.00"])
    panel = full_panel(w)
    rnd = open_round(w.store, panel["pres"], "A-1")
    for member in panel.values():
        enter(w.store, member, rnd.id, item_ids(w)["A1-001"], historical=True, amount="1700")
    close_round(w.store, panel["pres"], rnd.id)
    assert len(cp.round_flags(w.store, panel["pres"], rnd.id)) == 1          # 1 700 > 1 437,50
    assert cp.outlier_policy(w.store) == cp.OutlierPolicy(Decimal("1.5"), 5)
    w.store.write("fixture", lambda tx: tx.execute(
        "INSERT INTO policies (key, value_json, set_by) VALUES ('comparables_outlier_factor', '3', 'dpc.silva'), "
        "('comparables_min_count', '7', 'dpc.silva')"))
    assert cp.outlier_policy(w.store) == cp.OutlierPolicy(Decimal("3"), 7)
    # k = 3: the bound is 1 175 + 3 × 175 = 1 700, not exceeded; at least 7 comparables: there are 6
    for policy, flagged in ((cp.OutlierPolicy(Decimal("3"), 5), 0), (cp.OutlierPolicy(Decimal("1.5"), 7), 0),
                            (cp.OutlierPolicy(Decimal("1.5"), 6), 1)):
        n = w.store.write("fixture", lambda tx, p=policy: cp.flag_round(tx, rnd.id, p))
        assert n == flagged, policy


def test_the_outlier_policy_is_the_one_in_force_a_scheduled_value_waits_for_its_day(small_world):
    """Issue 22: the factor and the minimum count are read through policies.values, so a value DPC
    schedules for a later day does not flag today's close (the latest row written used to apply)."""
    from valuation.policies import values as policies

    w = small_world
    dpc = w.principal("dpc")
    today = w.store.today()
    later = today + timedelta(days=90)
    reason = "Portaria DPC de revisão da faixa dos comparáveis"
    policies.set_policy(w.store, dpc, "comparables_outlier_factor", "3", reason, effective_from=later)
    policies.set_policy(w.store, dpc, "comparables_min_count", "7", reason, effective_from=later)
    assert cp.outlier_policy(w.store) == cp.OutlierPolicy(Decimal("1.5"), 5)
    assert cp.outlier_policy(w.store, as_of=later) == cp.OutlierPolicy(Decimal("3"), 7)
    _published_peers(w, ["900.00", "1000.00", "1000.00", "1100.00", "1200.00", "1300.00"])
    panel = full_panel(w)
    rnd = open_round(w.store, panel["pres"], "A-1")
    for member in panel.values():
        enter(w.store, member, rnd.id, item_ids(w)["A1-001"], historical=True, amount="1700")
    close_round(w.store, panel["pres"], rnd.id)
    assert len(cp.round_flags(w.store, panel["pres"], rnd.id)) == 1          # k = 1.5 today: 1 700 > 1 437,50


def test_an_unreadable_outlier_policy_stops_the_close_instead_of_being_ignored(small_world):
    w = small_world
    w.store.write("fixture", lambda tx: tx.execute(
        "INSERT INTO policies (key, value_json, set_by) VALUES ('comparables_min_count', '\"muitos\"', 'dpc.silva')"))
    with pytest.raises(ConflictError, match="Política de comparáveis ilegível no banco de dados"):
        cp.outlier_policy(w.store)


def test_the_migration_backfill_writes_what_publication_writes(small_world):
    w = small_world
    generate(w, per_contract=40)
    run_round(w)
    cols = ("item_id, contract_id, category_key, material_key, denomination, value_brl, historical, decision_id, "
            "round_id")
    by_publication = w.store.fetch(f"SELECT {cols} FROM published_comparables ORDER BY item_id")
    sql = MIGRATION.read_text(encoding="utf-8")
    backfill = sql[sql.index("INSERT INTO published_comparables"):].rsplit(";", 1)[0]
    w.store.write("fixture", lambda tx: (tx.execute("DELETE FROM published_comparables"), tx.execute(backfill)))
    assert w.store.fetch(f"SELECT {cols} FROM published_comparables ORDER BY item_id") == by_publication
    assert len(by_publication) > 150 and re.search(r"CREATE MACRO comparable_denomination", sql)


def test_a_restored_backup_keeps_the_comparable_rule(small_world, tmp_path):
    from valuation.db.backup import backup, restore

    w = small_world
    backup(w.store, tmp_path / "b")
    restore(tmp_path / "b", tmp_path / "r.duckdb")
    with Store(tmp_path / "r.duckdb") as restored:
        assert restored.scalar("SELECT comparable_denomination('Moeda de 4.000 réis')") == "4000 reis"
