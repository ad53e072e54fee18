"""The pre-pivoted entries of a round (migration 011, valuation.commission.consensus_pivot):
the slots mirror assessment_current, a whole-round recompute finds exactly the rows out of
step, a seventh member moves the round to the GROUP BY over assessment_current (still
equal to `decide_item`), and the migration carries an older database's rounds over.

The rule-by-rule agreement of the stored consensus with `decide_item` on random rounds is
tests/commission/test_consensus_sql.py; these tests reuse its world and checks.
"""
from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.commission.test_consensus_sql import (
    PRICE_DAYS,
    World,
    _build,
    _check_round,
    _random_item,
)
from valuation.commission import consensus_sql, entry_codes
from valuation.commission.agreement_queries import agreement
from valuation.commission.consensus import (
    classify,
    consensus_value,
    is_flagged,
    round_cents,
)
from valuation.commission.entries import record_assessment
from valuation.commission.fx import RateTable
from valuation.commission.rounds import close_round, fetch_round, open_round
from valuation.db import store as store_db
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.policies.defaults import ConsensusPolicy

D = Decimal
POLICY = ConsensusPolicy("median", 4, D("0.5"))


@pytest.fixture()
def world(tmp_path: Path) -> World:
    w = _build(tmp_path / "pivot.duckdb", 60)
    yield w
    w.store.close()


def _policy(store: Store, policy: ConsensusPolicy) -> None:
    def run(tx: Any) -> None:
        for key, value in (("consensus_method", f'"{policy.method}"'), ("quorum", str(policy.quorum)),
                           ("spread_threshold", f'"{policy.spread_threshold}"')):
            tx.execute("INSERT INTO policies (key, value_json, set_by) VALUES (?, ?, 'test')", [key, value])
    store.write("test", run)


def _enter(world: World, round_id: int, data: dict[int, dict[str, Any]]) -> None:
    for item, entries in data.items():
        for key, (vote, amount, currency, day) in entries.items():
            record_assessment(world.store, world.members[key], round_id, item, historical=vote, amount=amount,
                                 currency=currency if amount is not None else None,
                                 price_date=day if amount is not None else None,
                                 significance=3 if vote else None, must_keep=None,
                                 source="catalogo" if amount is not None else None)


def _pivot(store: Store, round_id: int) -> dict[int, dict[str, Any]]:
    return {int(r["item_id"]): r for r in store.fetch("SELECT * FROM consensus_pivot WHERE round_id = ?", [round_id])}


def _stored(store: Store, round_id: int) -> dict[int, dict[str, Any]]:
    rows = store.fetch("SELECT * FROM item_consensus WHERE round_id = ?", [round_id])
    out = {int(r["item_id"]): r for r in rows}
    assert len(out) == len(rows) == store.scalar("SELECT count(*) FROM round_consensus WHERE round_id = ?",
                                                 [round_id])          # one row per round item
    return out


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {k: v for k, v in a.items() if k != "computed_at"} == {k: v for k, v in b.items() if k != "computed_at"}


def test_the_slots_mirror_the_entries_in_force(world: World) -> None:
    s = world.store
    _policy(s, POLICY)
    rng = random.Random(5)
    items = world.items[:20]
    rnd = open_round(s, world.members["pres"], world.contract, items)
    data = {i: _random_item(rng) for i in items}
    _enter(world, rnd.id, data)
    _enter(world, rnd.id, {items[0]: {"navy1": (True, D("77.77"), "BRL", PRICE_DAYS[2])}})   # a correction
    slots = {int(r["member_id"]): r["slot"] for r in s.fetch("SELECT * FROM round_members WHERE round_id = ?",
                                                              [rnd.id])}
    assert sorted(v for v in slots.values()) == list(range(len(slots)))          # 0, 1, … in order of first entry
    current = s.fetch("SELECT * FROM assessment_current WHERE round_id = ?", [rnd.id])
    pivot = _pivot(s, rnd.id)
    for row in current:
        p = pivot[int(row["item_id"])]
        k = slots[int(row["member_id"])]
        want = None if row["value_brl"] is None else int(row["value_brl"] * 10**8)
        assert (p[f"u{k}"], p[f"c{k}"], p[f"g{k}"]) == (want, row["vote_code"], row["score_code"])
    for item, p in pivot.items():
        newest = s.scalar("SELECT max(log_id) FROM assessment_current WHERE round_id = ? AND item_id = ?",
                          [rnd.id, item])
        assert p["rev"] == newest and p["basis"] == newest                        # every entry recomputed its item
    _check_round(world, rnd.id, POLICY, {**data, items[0]: {**data[items[0]], "navy1": (True, D("77.77"), "BRL",
                                                                                          PRICE_DAYS[2])}})


def _spoil(store: Store, round_id: int, items: list[int]) -> None:
    """Wrong stored consensus for `items`, marked out of step."""
    listed = ", ".join(map(str, items))

    def run(tx: Any) -> None:
        tx.execute(f"UPDATE round_consensus SET code = (code & ~4095) | 99, value_brl = 0.01 WHERE round_id = ? "
                   f"AND item_id IN ({listed})", [round_id])
        tx.execute(f"UPDATE consensus_pivot SET basis = NULL WHERE round_id = ? AND item_id IN ({listed})", [round_id])

    store.write("test", run)


def test_a_whole_round_recomputes_exactly_the_rows_out_of_step(world: World) -> None:
    s = world.store
    _policy(s, POLICY)
    rng = random.Random(6)
    items = world.items[:30]
    rnd = open_round(s, world.members["pres"], world.contract, items)
    data = {i: _random_item(rng) for i in items}
    _enter(world, rnd.id, data)
    good = _stored(s, rnd.id)
    _spoil(s, rnd.id, items[3:9])                 # a few rows out of step: updated by key
    s.write("test", lambda tx: tx.execute("UPDATE round_consensus SET code = (code & ~(4095 << 12)) | (77 << 12) "
                                          "WHERE round_id = ? AND item_id = ?", [rnd.id, items[20]]))  # wrong, in step
    assert consensus_sql.compute_round_consensus(s, rnd.id) == len(items)
    after = _stored(s, rnd.id)
    assert all(_same(after[i], good[i]) for i in items[3:9])
    assert after[items[20]]["votes_against"] == 77                                 # in step: not recomputed
    assert after[items[0]]["computed_at"] == good[items[0]]["computed_at"]          # nothing written
    assert all(p["rev"] == p["basis"] for p in _pivot(s, rnd.id).values())
    _spoil(s, rnd.id, items[10:25])               # half the round out of step: the round is rewritten
    assert consensus_sql.compute_round_consensus(s, rnd.id) == len(items)
    after = _stored(s, rnd.id)
    assert all(_same(after[i], good[i]) for i in items if i != items[20])
    assert after[items[20]]["votes_against"] == good[items[20]]["votes_against"]   # rewritten with the rest
    consensus_sql.compute_round_consensus(s, rnd.id, force=True)                   # every row
    assert all(_same(r, good[i]) for i, r in _stored(s, rnd.id).items())
    _check_round(world, rnd.id, POLICY, data)


def _seventh_member(world: World) -> Principal:
    uid = world.store.write("fixture", lambda tx: tx.scalar(
        "INSERT INTO users (username, full_name, role, commission_body, password_hash) "
        "VALUES ('m.subst', 'Membro substituto', 'commission', 'culture', 'x') RETURNING id"))
    return Principal(int(uid), "m.subst", "Membro substituto", "commission", None, "culture")


def test_a_seventh_member_is_computed_from_the_entries_and_still_agrees(world: World) -> None:
    s = world.store
    _policy(s, POLICY)
    rng = random.Random(7)
    items = world.items[:25]
    rnd = open_round(s, world.members["pres"], world.contract, items)
    data = {i: _random_item(rng) for i in items}
    _enter(world, rnd.id, data)
    subst = _seventh_member(world)          # joins the panel after the round was opened (a substitution)
    world.members["subst"] = subst
    try:
        extra = {i: {"subst": (rng.choice([True, False]), D(rng.randint(1, 10**6)) / 100, "BRL", PRICE_DAYS[1])}
                 for i in items[::3]}
        _enter(world, rnd.id, extra)
        assert s.scalar("SELECT slot FROM round_members WHERE round_id = ? AND member_id = ?",
                        [rnd.id, subst.id]) is None
        close_round(s, world.members["pres"], rnd.id)
        consensus_sql.compute_round_consensus(s, rnd.id, force=True)
        # decide_item refuses a panel of seven (NORMAM-10 0303 c 1 I): the oracle is its rule functions.
        table = RateTable(_rates())
        stored = {int(r["item_id"]): r for r in s.fetch("SELECT * FROM item_consensus WHERE round_id = ?", [rnd.id])}
        for item in items:
            entries = {**data[item], **extra.get(item, {})}
            vf = sum(e[0] is True for e in entries.values())
            va = sum(e[0] is False for e in entries.values())
            pres = entries.get("pres", (None,))[0]
            historical, decided_by, quorum_met = classify(vf, va, pres, POLICY.quorum)
            values = [table.to_brl(e[1], e[2], e[3])[0] for e in entries.values() if e[1] is not None]
            exact = consensus_value(values, POLICY.method)
            want = (historical, decided_by, vf, va, quorum_met, None if exact is None else round_cents(exact),
                    is_flagged(values, POLICY.spread_threshold, vf, va), len(values))
            got = stored[item]
            assert (got["historical"], got["decided_by"], got["votes_for"], got["votes_against"], got["quorum_met"],
                    got["value_brl"], got["flagged"], got["n_values"]) == want, (item, entries)
    finally:
        world.members.pop("subst")


def _rates() -> list[Any]:
    from tests.commission.test_consensus_sql import RATES
    return RATES


# -- the migration ------------------------------------------------------------------------------
def test_migration_011_carries_older_rounds_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database at migration 010 with a round entered by the older code (consensus in the
    item_consensus table) opens with its slots, rev/basis and consensus in consensus_pivot,
    and item_consensus reads the very same rows."""
    path = tmp_path / "old.duckdb"
    shipped = store_db.available_migrations()
    monkeypatch.setattr(store_db, "available_migrations", lambda: [m for m in shipped if m.version < 11])
    w = _build(path, 12)
    s = w.store
    rid = s.write("seed", lambda tx: _old_round(tx, w))
    before = s.fetch("SELECT * FROM item_consensus WHERE round_id = ? ORDER BY item_id", [rid])
    s.close()
    monkeypatch.setattr(store_db, "available_migrations", lambda: shipped)
    with Store(path) as s2:
        assert 11 in s2.applied_now
        assert s2.fetch("SELECT * FROM item_consensus WHERE round_id = ? ORDER BY item_id", [rid]) == before
        assert [(r["member_id"], r["slot"]) for r in s2.fetch(
            "SELECT member_id, slot FROM round_members WHERE round_id = ? ORDER BY slot", [rid])] == \
            [(w.members[k].id, n) for n, k in enumerate(("navy1", "cult1", "pres"))]
        rows = _pivot(s2, rid)
        assert rows[w.items[0]]["u1"] == 1234567800000 and rows[w.items[0]]["u0"] == 5 * 10**8
        assert rows[w.items[0]]["rev"] == rows[w.items[0]]["basis"] is not None
        assert rows[w.items[5]]["rev"] is None                                     # an item nobody entered
        # the carried-over round goes on: a new entry recomputes its item from the slots
        assert s2.scalar("SELECT count(*) FROM consensus_pivot WHERE rev IS DISTINCT FROM basis") == 0


def _old_round(tx: Any, w: World) -> int:
    """A round as the code before migration 011 wrote it: log, current rows with their codes,
    and the consensus in the item_consensus table."""
    rid = int(tx.scalar("INSERT INTO assessment_rounds (contract_id, number, status, method, quorum, "
                        "spread_threshold, opened_by, president_id) SELECT id, 1, 'aberta', 'median', 1, 0.5, "
                        "'m.pres', ? FROM contracts RETURNING id", [w.members["pres"].id]))
    for item in w.items[:6]:
        tx.execute("INSERT INTO round_items VALUES (?, ?)", [rid, item])
    entries = [("navy1", w.items[0], True, D("5")), ("cult1", w.items[0], False, D("12345.678")),
               ("pres", w.items[0], True, None), ("navy1", w.items[1], None, D("7.5"))]
    for key, item, vote, value in entries:
        m = w.members[key]
        log = int(tx.scalar(
            "INSERT INTO assessment_log (round_id, item_id, member_id, historical, amount, currency, price_date, "
            "rate, value_brl, significance, entered_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [rid, item, m.id, vote, value, None if value is None else "BRL", None if value is None else PRICE_DAYS[0],
             None if value is None else D("1"), value, 3 if vote else None, m.username]))
        code = entry_codes.vote_code(vote, False, key == "pres")
        tx.execute("INSERT INTO assessment_current VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [rid, item, m.id, log, vote, value, 3 if vote else None, False, code,
                    entry_codes.score_code(3 if vote else None)])
    for item in w.items[:6]:
        tx.execute("INSERT INTO item_consensus (round_id, item_id, votes_for, votes_against, quorum_met, "
                   "decided_by, n_values, flagged, value_brl) VALUES (?, ?, ?, 0, TRUE, 'undecided', 0, TRUE, ?)",
                   [rid, item, item % 3, D("1.23") if item == w.items[0] else None])
    return rid


# -- the agreement statistics from the slots ----------------------------------------------------
def test_the_agreement_from_the_slots_equals_the_one_from_the_entries(world: World) -> None:
    from valuation.commission import agreement_queries as ca

    s = world.store
    _policy(s, POLICY)
    rng = random.Random(9)
    items = world.items[:40]
    rnd = open_round(s, world.members["pres"], world.contract, items)
    data = {i: {k: (rng.choice([True, False, None]), D(rng.randint(1, 5000)), "BRL", PRICE_DAYS[0])
                for k in world.members if rng.random() < 0.9} for i in items}
    _enter(world, rnd.id, data)
    close_round(s, world.members["pres"], rnd.id)
    row = fetch_round(s, rnd.id)
    for user in (world.members["cult1"], Principal(999, "dpc.x", "DPC", "dpc", None, None)):
        a = ca._from_pivot(s, user, rnd.id, row)
        b = ca._from_entries(s, user, rnd.id, row)
        assert a.alpha_votes == pytest.approx(b.alpha_votes, abs=1e-12)
        assert a.icc_log_values == pytest.approx(b.icc_log_values, abs=1e-9) and a.icc_items == b.icc_items
        assert (a.n_items, a.n_members, a.flagged_total) == (b.n_items, b.n_members, b.flagged_total)
        assert [d.member for d in a.deviations] == [d.member for d in b.deviations]
        for x, y in zip(a.deviations, b.deviations):
            assert x.n == y.n and x.member_id == y.member_id
            for f in ("mean", "median", "p25", "p75", "minimum", "maximum"):
                assert getattr(x, f) == pytest.approx(getattr(y, f), abs=1e-12), (x, y, f)
        assert a.flagged.equals(b.flagged)
    # kept until the round's entries or stored consensus change
    first = agreement(s, world.members["cult1"], rnd.id)
    assert agreement(s, world.members["cult1"], rnd.id) is first
    consensus_sql.compute_round_consensus(s, rnd.id, force=True)          # rewritten: computed again
    again = agreement(s, world.members["cult1"], rnd.id)
    # same data; the float sums may run in another order
    assert again is not first and again.alpha_votes == pytest.approx(first.alpha_votes, abs=1e-12)
