"""The data generator of the benchmark (issue 7): deterministic, in bulk, never row by row.

`build_main(path, n_items)` writes a DuckDB file with the full demo (`seed_full_demo`) plus one
treasure-wreck contract: the Sumaca Nossa Senhora dos Remédios (RJ-007, lost in 1727 on the
gold route from Paraty to Rio de Janeiro — a wreck of the demo without a contract) gets a
concluded survey and an exploration contract in force, `TREASURE_CODE`, with `n_items`
recovered items (coins in lots, ceramics, gold bars, ordnance…; those recovered up to
`DELIVERED_UNTIL` delivered under art. 23). The president opens one round over every item
with the product's `open_round`; then each of the six demo members enters a vote and a value
for every item through the product's bulk entry (`record_assessments_bulk`: the same
validation, `assessment_log` + `assessment_current` rows and stored consensus as the pages
write) — values in BRL with a lognormal spread around the item's worth, votes mostly
agreeing, significance and "must keep" with the historical votes: 6 × n_items value rows.
The round stays open: the consensus measurements run on it. `decide_main` then closes it,
records the decisions (→ `item_valuation`), publishes them and drafts the statement (which
stores the União's choice) — all through the product's own functions.

`build_deadlines(path, n_contracts)` writes a second file: the full demo plus `n_contracts`
generated contracts with their deadline events (monthly reports delivered, mostly on time,
operations started, extension requests, final reports) for the deadline engine.

Randomness comes from numpy generators with fixed seeds; strings are built in DuckDB SQL
from small template tables; ids are reserved from the sequences in one statement.
"""
from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from valuation.commission.decisions import record_decisions
from valuation.commission.entries import record_assessments_bulk
from valuation.commission.rounds import close_round, open_round, publish_round
from valuation.commission.sheet import AMOUNT_TYPE
from valuation.db.access import Principal
from valuation.db.blobs import BlobStore
from valuation.db.store import Store, Tx
from valuation.demo import base as demo
from valuation.demo.suite import seed_full_demo

SEED = 7542
TODAY = demo.DEMO_TODAY                     # 30/11/2026: the demo's today
WRECK_CODE = "RJ-007"                       # Sumaca Nossa Senhora dos Remédios (1727), no contract in the demo
SURVEY_CODE = "AGPARATY-PQ-2022/02"
TREASURE_CODE = "DPC-EX-2024/07"
ORG_KEY = "salvamar"                        # located the wreck and explores it (no survey deduction)
OPS_START = date(2024, 4, 1)
OPS_LAST = date(2026, 11, 27)
DELIVERED_UNTIL = date(2026, 6, 30)         # items recovered up to here were delivered (art. 23)
ROUND_OPENED = datetime(2026, 10, 1, 9, 0)
PRICE_DAY = date(2026, 10, 15)
SNAPSHOT_TABLE = "bench_consensus_opened"   # item_consensus rows as open_round left them

Progress = Callable[[str], None]

# template key → (share of items, value base in BRL for one piece, P(historical), significance base,
#                 P(must keep | historical vote), lot exponent). Description/category/material come
# from the demo's templates (valuation.demo.base.ITEM_TEMPLATES); "barra_ouro" is the benchmark's own.
_EXTRA_TEMPLATES = {
    "barra_ouro": ("lingotes", "ouro", "Barra de ouro quintada (Casa de Fundição)", 1, 1, 1800.0, 0.3),
}
PROFILE: dict[str, tuple[float, float, float, int, float, float]] = {
    "moeda_ouro": (0.10, 18000.0, 0.97, 4, 0.04, 0.85),
    "pataca": (0.18, 1500.0, 0.95, 3, 0.0, 0.85),
    "x_reis": (0.10, 220.0, 0.90, 2, 0.0, 0.85),
    "8reales": (0.06, 3200.0, 0.95, 3, 0.0, 0.85),
    "barra_ouro": (0.004, 260000.0, 0.98, 5, 0.30, 1.0),
    "botija": (0.04, 2400.0, 0.90, 2, 0.0, 1.0),
    "ceramica_frag": (0.12, 60.0, 0.75, 1, 0.0, 0.5),
    "faianca_frag": (0.06, 110.0, 0.80, 1, 0.0, 0.5),
    "faianca_prato": (0.02, 5500.0, 0.95, 3, 0.02, 1.0),
    "porcelana_frag": (0.05, 140.0, 0.85, 2, 0.0, 0.5),
    "porcelana_taca": (0.01, 8500.0, 0.97, 4, 0.05, 1.0),
    "garrafa_cebola": (0.02, 1700.0, 0.92, 2, 0.0, 1.0),
    "vidro_frag": (0.04, 30.0, 0.60, 1, 0.0, 0.5),
    "bala_mosquete": (0.03, 70.0, 0.70, 1, 0.0, 0.6),
    "pederneira": (0.01, 35.0, 0.70, 1, 0.0, 0.6),
    "cravo": (0.03, 20.0, 0.40, 1, 0.0, 0.5),
    "lastro": (0.02, 10.0, 0.15, 1, 0.0, 0.5),
    "anel": (0.005, 28000.0, 0.98, 5, 0.20, 1.0),
    "rosario": (0.01, 850.0, 0.95, 3, 0.0, 0.7),
    "fivela": (0.01, 650.0, 0.90, 2, 0.0, 0.8),
    "medalha": (0.006, 1900.0, 0.96, 3, 0.02, 1.0),
    "astrolabio": (0.0002, 2400000.0, 1.0, 5, 0.90, 1.0),
    "canhao_bronze": (0.0005, 580000.0, 0.99, 5, 0.50, 1.0),
    "ancora": (0.0003, 140000.0, 0.97, 4, 0.10, 1.0),
    "sino": (0.0001, 330000.0, 0.99, 5, 0.80, 1.0),
    "madeira_casco": (0.0369, 380.0, 0.90, 2, 0.0, 1.0),
}
MEMBER_SPREAD = 0.12        # σ of a member's log-value around the item's worth
OUTLIER_P = 0.03            # a member far off (σ 0.7): the item may get flagged
AGREE_P = 0.93              # a member votes with the item's leaning
ABSTAIN_P = 0.01            # no vote (NULL)
NO_VALUE_P = 0.01           # no value


def _log(progress: Progress | None, text: str) -> None:
    if progress:
        progress(text)


def _reserve(tx: Tx, sequence: str, n: int) -> int:
    """The first of n consecutive ids taken from `sequence` (one statement; the file has one writer)."""
    lo, hi = tx.cur.execute(f"SELECT min(v), max(v) FROM (SELECT nextval('{sequence}') AS v FROM range({n}))"
                            ).fetchall()[0]
    if hi - lo + 1 != n:
        raise RuntimeError(f"the sequence {sequence} was used by another writer meanwhile")
    return int(lo)


def _principal(store: Store | Tx, username: str) -> Principal:
    row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                          "WHERE username = ?", [username])
    if row is None:
        raise RuntimeError(f"the demo user {username} is missing: was the demo seeded?")
    return Principal(**row)


def principals(store: Store) -> dict[str, Principal]:
    """The demo users the benchmark acts as: dpc, the president, the five members, the explorer, the officer."""
    out = {"dpc": _principal(store, demo.DEMO_USERNAMES_BY_ROLE["dpc"][0]),
           "president": _principal(store, demo.DEMO_USERNAMES_BY_ROLE["commission_president"][0]),
           "explorer": _principal(store, "exp." + ORG_KEY)}
    for i, name in enumerate(demo.DEMO_USERNAMES_BY_ROLE["commission"]):
        out[f"member{i + 1}"] = _principal(store, name)
    # the officer of the office of the treasure's wreck (its million items): the demo's officer, answering for it
    office = store.scalar("SELECT office_code FROM wrecks WHERE code = ?", [WRECK_CODE])
    out["officer"] = replace(_principal(store, demo.DEMO_USERNAMES_BY_ROLE["officer"][0]), office_code=office)
    return out


# ======================================================================================
# The main file: demo + treasure contract + an open round with six members' values
# ======================================================================================
@dataclass(frozen=True)
class MainInfo:
    path: str
    items: int
    contract_code: str
    contract_id: int
    round_id: int
    value_rows: int


def _contracts(tx: Tx) -> int:
    """The survey that located RJ-007 and the exploration contract in force; returns its id."""
    org = tx.scalar("SELECT id FROM organisations WHERE name = ?", [demo.ORGANISATIONS[ORG_KEY]["name"]])
    wreck = tx.scalar("SELECT id FROM wrecks WHERE code = ?", [WRECK_CODE])
    office = tx.scalar("SELECT office_code FROM wrecks WHERE code = ?", [WRECK_CODE])
    tx.execute(
        "INSERT INTO contracts (code, kind, act, act_number, organisation_id, wreck_id, office_code, requested_on, "
        "signed_on, starts_on, expires_on, work_ended_on, status, caution_amount, created_at) VALUES "
        "(?, 'pesquisa', 'autorização', ?, ?, ?, ?, DATE '2021-09-06', DATE '2022-02-14', DATE '2022-03-07', "
        "DATE '2023-03-06', DATE '2023-01-27', 'concluído', 45000.00, TIMESTAMP '2021-09-06 09:30:00')",
        [SURVEY_CODE, "Autorização nº 002/2022-AgParaty", org, wreck, office])
    cid = tx.scalar(
        "INSERT INTO contracts (code, kind, act, act_number, organisation_id, wreck_id, office_code, requested_on, "
        "signed_on, starts_on, expires_on, status, surveyor_organisation_id, modality, historical_share, "
        "historical_payment, other_share, value_fixed, created_at) VALUES "
        "(?, 'exploração', 'contrato', ?, ?, ?, ?, DATE '2023-05-15', DATE '2024-02-19', ?, DATE '2029-03-31', "
        "'vigente', ?, 'II', 0.4000, 'adjudication_with_cash_balance', 0.5000, 'depois', "
        "TIMESTAMP '2023-05-15 09:30:00') RETURNING id",
        [TREASURE_CODE, "Contrato nº 007/2024-DPC", org, wreck, office, OPS_START, org])
    tx.audit("bench.seed", "contract", TREASURE_CODE, None, {"survey": SURVEY_CODE, "wreck": WRECK_CODE})
    return int(cid)


def _template_table() -> tuple[pa.Table, np.ndarray, list[str]]:
    keys = list(PROFILE)
    tpl = {**demo.ITEM_TEMPLATES, **_EXTRA_TEMPLATES}
    table = pa.table({
        "tpl": pa.array(range(len(keys)), pa.int32()),
        "description": [tpl[k][2] for k in keys],
        "category": [tpl[k][0] for k in keys],
        "material": [tpl[k][1] for k in keys],
    })
    shares = np.array([PROFILE[k][0] for k in keys])
    return table, shares / shares.sum(), keys


def _items(tx: Tx, contract_id: int, n: int, progress: Progress | None
           ) -> tuple[int, np.ndarray, np.ndarray, list[str]]:
    """Insert n items (and the deliveries of those recovered up to DELIVERED_UNTIL); returns the
    first item id, each item's worth in cents and template index (for the members' entries),
    and the template keys."""
    rng = np.random.default_rng(SEED)
    templates, p, keys = _template_table()
    tpl_of = {**demo.ITEM_TEMPLATES, **_EXTRA_TEMPLATES}
    pick = rng.choice(len(keys), size=n, p=p).astype(np.int32)
    qmin = np.array([tpl_of[k][3] for k in keys])[pick]
    qmax = np.array([tpl_of[k][4] for k in keys])[pick]
    unit_g = np.array([tpl_of[k][5] for k in keys])[pick]
    spread = np.array([tpl_of[k][6] for k in keys])[pick]
    qty = qmin + np.floor((qmax - qmin + 1) * rng.random(n) ** 3).astype(np.int64)
    qty = np.where((rng.random(n) < 0.35) & (qmin == 1), 1, qty)
    weight_cg = np.rint(qty * unit_g * rng.lognormal(0.0, spread) * 100).astype(np.int64)
    weight_cg = np.where(rng.random(n) < 0.04, -1, weight_cg)           # a few not weighed yet
    span = (OPS_LAST - OPS_START).days
    day = np.sort(rng.integers(0, span + 1, size=n)).astype(np.int32)
    depth_cm = np.clip(np.rint((38.0 + rng.normal(0.0, 1.2, size=n)) * 100), 50, None).astype(np.int64)
    cond = rng.choice(5, size=n, p=[0.34, 0.30, 0.18, 0.12, 0.06]).astype(np.int8)
    grid = rng.integers(0, 96, size=n).astype(np.int16)
    note = np.where(rng.random(n) < 0.06, rng.integers(0, 4, size=n), -1).astype(np.int8)
    base = np.array([PROFILE[k][1] for k in keys])[pick]
    lot_exp = np.array([PROFILE[k][5] for k in keys])[pick]
    worth_cents = np.maximum(np.rint(base * qty ** lot_exp * rng.lognormal(0.0, 0.6, size=n) * 100), 100)

    first = _reserve(tx, "seq_items", n)
    gen = pa.table({
        "k": pa.array(np.arange(n, dtype=np.int64)), "tpl": pa.array(pick), "qty": pa.array(qty.astype(np.int32)),
        "weight_cg": pa.array(weight_cg), "day": pa.array(day), "depth_cm": pa.array(depth_cm),
        "cond": pa.array(cond), "grid": pa.array(grid), "note": pa.array(note),
    })
    tx.cur.register("_bench_items", gen)
    tx.cur.register("_bench_templates", templates)
    tx.cur.register("_bench_words", pa.table({"i": pa.array(range(5), pa.int8()),
                                              "cond": list(demo.CONDITIONS),
                                              "note": list(demo.ITEM_NOTES) + [None]}))
    try:
        tx.execute(
            f"""INSERT INTO items (id, contract_id, item_code, description, category, material, quantity, weight_g,
                                   recovered_on, depth_m, lot, condition, notes)
                SELECT {first} + g.k, {contract_id}, printf('%s-%07d', ?, g.k + 1), t.description, t.category,
                       t.material, g.qty,
                       CASE WHEN g.weight_cg >= 0
                            THEN CAST(CAST(g.weight_cg AS DECIMAL(16,0)) * 0.01 AS DECIMAL(12,2)) END,
                       CAST(? AS DATE) + g.day,
                       CAST(CAST(g.depth_cm AS DECIMAL(9,0)) * 0.01 AS DECIMAL(7,2)),
                       strftime(CAST(? AS DATE) + g.day, '%Y/%m') || ' · quadrícula '
                           || chr(65 + CAST(g.grid // 12 AS INTEGER)) || CAST(g.grid % 12 + 1 AS VARCHAR),
                       c.cond, nt.note
                FROM _bench_items g JOIN _bench_templates t ON t.tpl = g.tpl
                JOIN _bench_words c ON c.i = g.cond LEFT JOIN _bench_words nt ON nt.i = g.note
                ORDER BY g.k""", [TREASURE_CODE, OPS_START, OPS_START])
        _log(progress, f"{n:,} items inserted")
        n_del = int(np.searchsorted(day, (DELIVERED_UNTIL - OPS_START).days, side="right"))
        if n_del:
            d_first = _reserve(tx, "seq_deliveries", n_del)
            tx.execute(
                f"""INSERT INTO item_deliveries (id, item_id, delivered_on, received_by, place, recorded_by,
                                                 recorded_at, note)
                    SELECT {d_first} + g.k, {first} + g.k,
                           CAST(date_trunc('month', CAST(? AS DATE) + g.day) + INTERVAL 1 MONTH
                                + INTERVAL 9 DAY AS DATE),
                           'CT (T) Renata Moura Lisboa — Encarregada do depósito',
                           'Depósito de bens resgatados — Agência da Capitania dos Portos em Paraty',
                           ?, CAST(date_trunc('month', CAST(? AS DATE) + g.day) + INTERVAL 1 MONTH
                                   + INTERVAL 9 DAY + INTERVAL 16 HOUR AS TIMESTAMP),
                           'Termo de entrega mensal (art. 23)'
                    FROM _bench_items g WHERE g.k < {n_del} ORDER BY g.k""",
                [OPS_START, demo.DEMO_USERNAMES_BY_ROLE["dpc"][0], OPS_START])
        _log(progress, f"{n_del:,} deliveries inserted")
    finally:
        for view in ("_bench_items", "_bench_templates", "_bench_words"):
            tx.cur.unregister(view)
    tx.audit("bench.seed", "items", TREASURE_CODE, None, {"rows": n, "seed": SEED})
    return first, worth_cents.astype(np.int64), pick, keys


def _entries(worth: np.ndarray, pick: np.ndarray, keys: list[str], first_item: int, m: int) -> list[pa.Table]:
    """Each member's entries for every item, as the typed columns `record_assessments_bulk`
    takes: votes mostly agreeing with the item's leaning, values in BRL with a lognormal
    spread around its worth (a few far off), significance and "must keep" with the
    historical votes only."""
    rng = np.random.default_rng(SEED + 1)
    n = len(worth)
    p_hist = np.array([PROFILE[k][2] for k in keys])[pick]
    sig_base = np.array([PROFILE[k][3] for k in keys])[pick]
    keep_p = np.array([PROFILE[k][4] for k in keys])[pick]
    leaning = rng.random(n) < p_hist                                      # the item's likely classification
    item_ids = pa.array(np.arange(first_item, first_item + n, dtype=np.int64))
    cent = pa.scalar(Decimal("0.01"), pa.decimal128(3, 2))
    price_day = pa.scalar(PRICE_DAY, pa.date32())
    out = []
    for _ in range(m):
        vote = np.where(rng.random(n) < AGREE_P, leaning, ~leaning)
        abstain = rng.random(n) < ABSTAIN_P
        sigma = np.where(rng.random(n) < OUTLIER_P, 0.7, MEMBER_SPREAD)
        cents = np.maximum(np.rint(worth * np.exp(sigma * rng.normal(0.0, 1.0, size=n))), 1).astype(np.int64)
        no_value = (rng.random(n) < NO_VALUE_P) & ~abstain               # never an empty entry
        sig = np.clip(sig_base + np.rint(rng.normal(0.0, 0.6, size=n)), 1, 5).astype(np.int64)
        keep = rng.random(n) < keep_p
        source = np.where(rng.random(n) < 0.7, "catalogo", "venda_comparavel").astype(object)
        hist_vote = vote & ~abstain
        amount = pc.multiply(pa.array(cents).cast(pa.decimal128(20, 0)), cent).cast(AMOUNT_TYPE)
        none = pa.array(no_value)
        out.append(pa.table({
            "item_id": item_ids,
            "historical": pa.array(vote, mask=abstain),
            "amount": pc.if_else(none, pa.scalar(None, AMOUNT_TYPE), amount),
            "currency": pc.if_else(none, pa.scalar(None, pa.string()), pa.scalar("BRL")),
            "price_date": pc.if_else(none, pa.scalar(None, pa.date32()), price_day),
            "significance": pa.array(sig, mask=~hist_vote),
            "must_keep": pa.array(keep, mask=~hist_vote),
            "source": pa.array(source, type=pa.string(), mask=no_value),
        }))
    return out


def _snapshot_consensus(store: Store, round_id: int) -> None:
    """Keep the stored consensus rows as `open_round` wrote them (SNAPSHOT_TABLE): the
    benchmark resets the round to them before each full recompute. Only the keys and the
    columns a recompute writes (`consensus_sql.STORED_COLUMNS` of `CONSENSUS_TABLE`, when the
    store names them) are kept."""
    from valuation.commission import consensus_sql

    table = getattr(consensus_sql, "CONSENSUS_TABLE", "item_consensus")
    stored = getattr(consensus_sql, "STORED_COLUMNS", None)
    cols = "*" if stored is None else ", ".join(("round_id", "item_id", *stored))
    cur = store.cursor()
    try:
        cur.execute(f"CREATE TABLE {SNAPSHOT_TABLE} AS SELECT {cols} FROM {table} WHERE round_id = ?",
                    [round_id]).fetchall()
    finally:
        cur.close()


def _seeded(path: str, template: str | None, progress: Progress | None, t0: float) -> Store:
    """A Store on `path` holding the full demo: a copy of `template` (a file `seed_full_demo` wrote,
    closed) when one is given — the demo is deterministic, so both files start from the same bytes —
    else seeded here."""
    if template is not None:
        shutil.copyfile(template, path)
        files, own_files = BlobStore.for_database(template).root, BlobStore.for_database(path).root
        if files.is_dir() and files.resolve() != own_files.resolve():   # the demo's photos and reports
            shutil.copytree(files, own_files, dirs_exist_ok=True)
    store = Store(path, clock=lambda: datetime(2026, 11, 30, 10, 0))
    if template is None:
        seed_full_demo(store)
    _log(progress, f"demo {'copied' if template else 'seeded'} ({time.perf_counter() - t0:.1f} s)")
    return store


def seed_template(path: str, progress: Progress | None = None) -> str:
    """Write the full demo alone to `path` (closed and checkpointed), for `build_main` and
    `build_deadlines` to copy instead of seeding it twice."""
    _seeded(path, None, progress, time.perf_counter()).close()
    return path


def build_main(path: str, n_items: int, progress: Progress | None = None, template: str | None = None) -> MainInfo:
    """Write the main benchmark file (see the module docstring). `path` must not exist."""
    t0 = time.perf_counter()
    store = _seeded(path, template, progress, t0)
    try:
        users = principals(store)
        state: dict[str, Any] = {}

        def items(tx: Tx) -> None:
            state["cid"] = _contracts(tx)
            state["first"], state["worth"], state["pick"], state["keys"] = _items(tx, state["cid"], n_items, progress)

        store.write("bench", items)
        store.checkpoint()
        _log(progress, f"treasure contract {TREASURE_CODE}: {n_items:,} items ({time.perf_counter() - t0:.1f} s)")
        # The round, as the president opens it (round_items + one consensus row per item).
        rnd = open_round(store, users["president"], TREASURE_CODE)
        _snapshot_consensus(store, rnd.id)
        _log(progress, f"round {rnd.id} opened over {n_items:,} items ({time.perf_counter() - t0:.1f} s)")
        # Each member's values for every item, through the product's bulk entry (validation,
        # assessment_log + assessment_current, and the round's consensus recomputed and stored).
        members = [users["president"]] + [users[f"member{i}"] for i in range(1, 6)]
        rows = 0
        for member, table in zip(members, _entries(state["worth"], state["pick"], state["keys"], state["first"],
                                                  len(members))):
            rows += record_assessments_bulk(store, member, rnd.id, table).rows
            _log(progress, f"{member.username}: {table.num_rows:,} values entered ({time.perf_counter() - t0:.1f} s)")
        store.checkpoint()
        return MainInfo(path=path, items=n_items, contract_code=TREASURE_CODE, contract_id=state["cid"],
                        round_id=rnd.id, value_rows=rows)
    finally:
        store.close()


def decide_main(path: str, round_id: int, progress: Progress | None = None) -> dict[str, Any]:
    """Close the round, adopt the consensus as the decisions, publish them, store the União's
    choice of the historical items and draft the statement — the product's functions."""
    from valuation.partition import statements

    t0 = time.perf_counter()
    store = Store(path, clock=lambda: datetime(2026, 11, 30, 11, 0))
    try:
        users = principals(store)
        close_round(store, users["president"], round_id)
        result = record_decisions(store, users["president"], round_id)
        publish_round(store, users["president"], round_id)
        store.checkpoint()
        _log(progress, f"round {round_id} closed, {result.written:,} decisions recorded and published "
                       f"({time.perf_counter() - t0:.1f} s)")
        draft = statements.create_draft(store, users["dpc"], TREASURE_CODE, as_of=TODAY)
        store.checkpoint()
        runs = store.fetch("SELECT r.pool, r.candidates, r.status, r.gap, r.selected_count FROM selection_runs r "
                           "JOIN contracts c ON c.id = r.contract_id WHERE c.code = ?", [TREASURE_CODE])
        _log(progress, f"selection stored and statement draft {draft} created ({time.perf_counter() - t0:.1f} s)")
        return {"decisions": result.written, "draft_id": draft,
                "runs": [{k: (str(v) if isinstance(v, Decimal) else v) for k, v in r.items()} for r in runs]}
    finally:
        store.close()


# ======================================================================================
# The deadline file: demo + n generated contracts with their events
# ======================================================================================
_KINDS = (("pesquisa", "PQ", "autorização", 0.50), ("exploração", "EX", "contrato", 0.25),
          ("remoção", "RM", "contrato", 0.20), ("demolição", "DM", "portaria", 0.05))
_STATUSES = (("vigente", 0.45), ("concluído", 0.35), ("expirado", 0.08), ("cancelado", 0.06), ("suspenso", 0.06))
_EPOCH = date(2017, 1, 2)


# -- the deadline file's requests (issue 28): the contracts' parties ask the Authority ----------------------
_OTHER_MATTERS = (("prorrogação", 0.30), ("reclamação", 0.20), ("preferência", 0.15), ("coisa achada", 0.15),
                  ("saldo do responsável", 0.20))
_BY_OWNER = ("reclamação", "coisa achada", "saldo do responsável")   # asked by the wreck's responsible
# state of a request that is no licence: decided, just filed (first act owed), in instruction (an opinion, the
# party's information or a hearing's intimation owed), instruction ended (the decision owed), decision extended
_REQUEST_STATES = (("decided", 0.70), ("filed", 0.05), ("instruction", 0.10), ("ended", 0.12), ("extended", 0.03))
LICENCE_P = 0.4            # a contract's licence request (its kind) is on file, decided before the signature
OTHER_REQUESTS = 0.6       # Poisson mean of the other requests per contract
APPEAL_P = 0.06            # a decided request's decision is appealed
EXTENSION_REASON = "Aguardando manifestação do órgão ambiental sobre a área (Lei 9.784/1999 art. 49)."
GROUNDS = "Recurso gerado (benchmark): razões de fato e de direito juntadas ao processo."


def _request_plan(rng: np.random.Generator, kind: np.ndarray, signed: np.ndarray, as_of_day: int) -> pa.Table:
    """One row per request: its contract (k), matter, and the days of its steps in days before today
    (-1: no such step); the appealed decisions' days too. Steps follow `proceedings.periods.step_problem`."""
    n = len(kind)
    licence = rng.random(n) < LICENCE_P
    others = rng.poisson(OTHER_REQUESTS, size=n)
    ks = np.concatenate([np.flatnonzero(licence), np.repeat(np.arange(n), others)]).astype(np.int64)
    is_lic = np.concatenate([np.ones(int(licence.sum()), bool), np.zeros(int(others.sum()), bool)])
    m = len(ks)
    lic_matter = np.array(["pesquisa", "exploração", "remoção", "remoção"], dtype=object)[kind[ks]]
    other = np.array([x[0] for x in _OTHER_MATTERS], dtype=object)[
        rng.choice(len(_OTHER_MATTERS), size=m, p=[x[1] for x in _OTHER_MATTERS])]
    matter = np.where(is_lic, lic_matter, other)
    state = np.where(is_lic, 0, rng.choice(len(_REQUEST_STATES), size=m, p=[s[1] for s in _REQUEST_STATES]))

    def draw(lo: int, hi: int) -> np.ndarray:
        return rng.integers(lo, hi + 1, size=m)

    none = np.full(m, -1)
    u = rng.random((6, m))
    # decided: filed 150 … 1 500 days ago (a licence: 120 days before its contract's signature)
    filed = np.select([is_lic, state == 0, state == 1, state == 2], [
        as_of_day - (signed[ks] - 120), draw(150, 1500), draw(0, 12), draw(20, 120)], draw(60, 250))
    opened = np.where(state == 1, none, filed - np.where(u[0] < 0.1, draw(6, 12), draw(1, 5)))
    # decided: an opinion asked and given (40 %), the instruction ended, allegations (60 %), maybe extended
    d_opinion = (state == 0) & (u[1] < 0.4)
    op_req = np.where(d_opinion, opened - draw(3, 10), none)
    op_giv = np.where(d_opinion, op_req - draw(5, 20), none)
    ended_d = np.minimum(opened, np.where(d_opinion, op_giv, opened)) - draw(5, 40)
    # pending, ended or extended: the instruction ended 0 … 55 (extended: 31 … 70) days ago
    ended = np.select([state == 0, state == 3, state == 4], [ended_d, draw(0, 55), draw(31, 70)], none)
    ended = np.where(ended >= 0, np.minimum(ended, opened - 1), none)
    ended = np.where((state >= 3) & (ended < 0), 0, ended)   # never before the instruction opened
    extended = np.select([state == 4, (state == 0) & (u[2] < 0.06)], [ended - draw(20, 29), ended - draw(25, 29)],
                         none)
    decided = np.where(state == 0, ended - np.where(extended >= 0, draw(35, 55), draw(10, 40)), none)
    allegations = np.where((state == 0) & (u[3] < 0.6) | (state >= 3) & (u[3] < 0.5), ended - draw(1, 8), none)
    allegations = np.where((decided >= 0) & (allegations <= decided) | (allegations < 0), none, allegations)
    # the party's ciência that the instruction ended (Lei 9.784 arts. 44 and 66 caput): the day it ended or the next
    told = np.where(ended >= 0, np.maximum(ended - (u[5] < 0.5), 0), none)
    told = np.where((allegations >= 0) & (told < allegations), allegations, told)
    # in instruction: an opinion asked and not given (50 %), information asked of the party (30 %), a hearing set
    # for the coming days whose intimation is owed (25 %)
    cap = np.maximum(opened - 1, 0)
    i_op = np.where((state == 2) & (u[1] < 0.5), np.minimum(draw(2, 35), cap), op_req)
    info = np.where((state == 2) & (u[2] < 0.3), np.minimum(draw(2, 20), cap), none)
    info_fixed = np.where(info >= 0, info - draw(5, 25), none)   # the day the intimation fixed (after it)
    hearing = np.where((state == 2) & (u[4] < 0.25), np.minimum(draw(1, 10), cap), none)
    hearing_day = np.where(hearing >= 0, -draw(3, 20), none)     # days after today (negative "ago")
    # appeals against a decided request's decision (not a licence): most decided, a few still with the superior
    appealed = (state == 0) & ~is_lic & (u[5] < APPEAL_P) & (decided >= 40)
    notified = np.where(appealed, decided - draw(1, 5), none)
    a_filed = np.where(appealed, notified - draw(1, 9), none)
    a_path = rng.choice(3, size=m, p=[0.1, 0.7, 0.2])          # reconsidered, decided by the superior, pending
    a_path = np.where((a_path == 2) & (decided > 120), 1, a_path)   # pending with the superior: recent ones only
    a_recons = np.where(appealed & (a_path == 0), a_filed - draw(2, 5), none)
    a_fwd = np.where(appealed & (a_path > 0), a_filed - draw(1, 4), none)
    a_intim = np.where((a_fwd >= 0) & (u[0] < 0.5), a_fwd - draw(2, 6), none)
    a_alleg = np.where((a_intim >= 0) & (u[1] < 0.8), a_intim - draw(3, 5), none)
    a_dec = np.where(appealed & (a_path == 1), np.minimum(a_fwd, np.where(a_alleg >= 0, a_alleg, a_fwd))
                     - draw(10, 40), none)
    a_out = np.where(u[2] < 0.1, "provido", "não provido").astype(object)
    # no step in the future: a step that would fall after today is left out (its request stays open)
    cols = {"opened": opened, "op_req": i_op, "op_giv": op_giv, "ended": ended, "extended": extended,
            "decided": decided, "allegations": allegations, "told": told, "info": info, "hearing": hearing,
            "notified": notified, "a_filed": a_filed, "a_recons": a_recons, "a_fwd": a_fwd, "a_intim": a_intim,
            "a_alleg": a_alleg, "a_dec": a_dec}
    for name in ("a_recons", "a_fwd", "a_intim", "a_alleg", "a_dec"):
        cols[name] = np.where(cols[name] < 0, -1, cols[name])
    cols["info_fixed"] = np.where(info >= 0, info_fixed, -10 ** 6)
    cols["hearing_day"] = np.where(hearing >= 0, hearing_day, -10 ** 6)
    return pa.table({"q": pa.array(np.arange(m, dtype=np.int64)), "k": pa.array(ks), "matter": list(matter),
                     "by_owner": pa.array(np.isin(matter, _BY_OWNER) & ~is_lic), "filed": pa.array(filed),
                     **{name: pa.array(v.astype(np.int64)) for name, v in cols.items()},
                     "a_outcome": list(a_out), "a_u": pa.array(rng.random(m))})


def _insert_requests(tx: Tx, plan: pa.Table, actor: str) -> dict[str, int]:
    """Insert the planned requests of the contracts in `_bench_contracts` (joined on k), their steps, the
    appealed decisions with their appeals and steps, the NUPs of the requests and every act as a document of its
    process — set-based."""
    from valuation.core import nup
    from valuation.process import documents

    m = plan.num_rows
    today = f"DATE '{TODAY}'"
    q_first = _reserve(tx, "seq_requests", m)
    tx.cur.register("_bench_req", plan)
    try:
        tx.execute(
            f"""INSERT INTO requests (id, office_code, wreck_id, matter, requester_id, organisation_id, filed_on,
                                      note, recorded_by, recorded_at)
                SELECT {q_first} + r.q, c.office_code, c.wreck_id, r.matter,
                       CASE WHEN r.by_owner THEN w.owner_id END,
                       CASE WHEN NOT r.by_owner OR w.owner_id IS NULL THEN c.org_id END,
                       {today} - CAST(r.filed AS INTEGER), 'Requerimento gerado (benchmark, ' || r.matter || ').', ?,
                       CAST({today} - CAST(r.filed AS INTEGER) AS TIMESTAMP) + INTERVAL 9 HOUR
                FROM _bench_req r JOIN _bench_contracts c ON c.k = r.k JOIN wrecks w ON w.id = c.wreck_id
                ORDER BY r.q""", [actor])
        steps = (("instruction_opened", "opened", "NULL", "NULL"), ("opinion_requested", "op_req", "NULL", "NULL"),
                 ("opinion_given", "op_giv", "NULL", "NULL"),
                 ("information_requested", "info", f"{today} - CAST(r.info_fixed AS INTEGER)", "NULL"),
                 ("hearing_set", "hearing", f"{today} - CAST(r.hearing_day AS INTEGER)", "NULL"),
                 ("instruction_ended", "ended", "NULL", "NULL"), ("instruction_end_notified", "told", "NULL", "NULL"),
                 ("allegations_filed", "allegations", "NULL", "NULL"),
                 ("decision_extended", "extended", "NULL", "?"), ("decided", "decided", "NULL", "NULL"))
        union = " UNION ALL ".join(
            f"SELECT r.q, {i} AS o, '{kind}' AS kind, r.{col} AS ago, {ref} AS ref, {reason} AS reason "
            f"FROM _bench_req r WHERE r.{col} >= 0" for i, (kind, col, ref, reason) in enumerate(steps))
        tx.execute(
            f"""INSERT INTO request_steps (request_id, kind, day, reference_day, reason, recorded_by, recorded_at)
                SELECT {q_first} + s.q, s.kind, {today} - CAST(s.ago AS INTEGER), s.ref, s.reason, ?,
                       CAST({today} - CAST(s.ago AS INTEGER) AS TIMESTAMP) + INTERVAL 10 HOUR
                FROM ({union}) s ORDER BY s.ago DESC, s.q, s.o""", [EXTENSION_REASON, actor])
        n_app = int(tx.scalar("SELECT count(*) FROM _bench_req WHERE a_filed >= 0"))
        if n_app:
            d_first = _reserve(tx, "seq_administrative_decisions", n_app)
            a_first = _reserve(tx, "seq_appeals", n_app)
            tx.execute(
                f"""CREATE TEMP TABLE _bench_app AS
                    SELECT row_number() OVER (ORDER BY r.q) - 1 AS j, r.*, q.office_code, q.wreck_id,
                           q.organisation_id, g.name AS org_name
                    FROM _bench_req r JOIN requests q ON q.id = {q_first} + r.q
                    LEFT JOIN organisations g ON g.id = q.organisation_id WHERE r.a_filed >= 0""")
            tx.execute(
                f"""INSERT INTO administrative_decisions (id, kind, record_table, record_id, office_code, wreck_id,
                        organisation_id, summary, authority, decided_on, notice, notified_on, recorded_by,
                        recorded_at)
                    SELECT {d_first} + a.j, 'request', 'requests', {q_first} + a.q, a.office_code, a.wreck_id,
                           a.organisation_id, 'Requerimento indeferido (' || a.matter || ').',
                           'Capitão dos Portos (' || a.office_code || ')', {today} - CAST(a.decided AS INTEGER),
                           'notificação', {today} - CAST(a.notified AS INTEGER), ?,
                           CAST({today} - CAST(a.notified AS INTEGER) AS TIMESTAMP) + INTERVAL 11 HOUR
                    FROM _bench_app a ORDER BY a.j""", [actor])
            tx.execute(
                f"""INSERT INTO appeals (id, decision_id, instance, filed_on, appellant, organisation_id, grounds,
                                         on_time, suspensive, recorded_by, recorded_at)
                    SELECT {a_first} + a.j, {d_first} + a.j, 1, {today} - CAST(a.a_filed AS INTEGER),
                           coalesce(a.org_name, 'Responsável pelo naufrágio'), a.organisation_id, ?, TRUE, FALSE, ?,
                           CAST({today} - CAST(a.a_filed AS INTEGER) AS TIMESTAMP) + INTERVAL 11 HOUR
                    FROM _bench_app a ORDER BY a.j""", [GROUNDS, actor])
            a_steps = (("reconsidered", "a_recons", "'provido'"), ("forwarded", "a_fwd", "NULL"),
                       ("others_intimated", "a_intim", "NULL"), ("allegations_filed", "a_alleg", "NULL"),
                       ("decided", "a_dec", "a.a_outcome"))
            union = " UNION ALL ".join(
                f"SELECT a.j, {i} AS o, '{kind}' AS kind, a.{col} AS ago, {outcome} AS outcome "
                f"FROM _bench_app a WHERE a.{col} >= 0" for i, (kind, col, outcome) in enumerate(a_steps))
            tx.execute(
                f"""INSERT INTO appeal_steps (appeal_id, kind, day, outcome, recorded_by, recorded_at)
                    SELECT {a_first} + s.j, s.kind, {today} - CAST(s.ago AS INTEGER), s.outcome, ?,
                           CAST({today} - CAST(s.ago AS INTEGER) AS TIMESTAMP) + INTERVAL 11 HOUR
                    FROM ({union}) s ORDER BY s.ago DESC, s.j, s.o""", [actor])
            tx.execute("DROP TABLE _bench_app")
        # NUPs (Portaria 11/2019): each office's unit numbers its new requests after what it gave, year by year, in
        # the order of their days — what `process.numbers.assign` gives one by one; their decisions and appeals are
        # documents of the requests' processes (issue 42 item 2: `documents.document_missing`), numbered in them
        documents.document_missing(tx)
        todo = tx.fetch(
            f"""WITH x AS (SELECT 'request' AS subject, id, office_code, filed_on AS act_on FROM requests
                           WHERE id >= {q_first} AND licence_request_id IS NULL),
                    top AS (SELECT unit_code, year, max(sequence) AS s FROM process_numbers GROUP BY ALL)
                SELECT x.subject, x.id, x.office_code, x.act_on, u.unit_code, year(x.act_on) AS year,
                       coalesce(t.s, 0) + row_number() OVER (PARTITION BY u.unit_code, year(x.act_on)
                                                             ORDER BY x.act_on, x.subject DESC, x.id) AS sequence
                FROM x JOIN protocol_units u ON u.office_code = x.office_code
                LEFT JOIN top t ON t.unit_code = u.unit_code AND t.year = year(x.act_on)""")
        if todo:
            tx.cur.register("_bench_nups", pa.table({
                "subject": [r["subject"] for r in todo], "subject_id": [int(r["id"]) for r in todo],
                "office_code": [r["office_code"] for r in todo], "act_on": [r["act_on"] for r in todo],
                "unit_code": [r["unit_code"] for r in todo], "year": [int(r["year"]) for r in todo],
                "sequence": [int(r["sequence"]) for r in todo],
                "nup": [nup.make(r["unit_code"], int(r["sequence"]), int(r["year"])).digits for r in todo]}))
            try:
                tx.execute(
                    """INSERT INTO process_numbers (nup, unit_code, year, sequence, subject, subject_id, office_code,
                                                    act_on, assigned_by, assigned_at)
                       SELECT nup, unit_code, year, sequence, subject, subject_id, office_code, act_on, ?,
                              CAST(act_on AS TIMESTAMP) + INTERVAL 12 HOUR
                       FROM _bench_nups ORDER BY act_on, subject DESC, subject_id""", [actor])
            finally:
                tx.cur.unregister("_bench_nups")
    finally:
        tx.cur.unregister("_bench_req")
    counts = {"requests": m, "request_steps": int(tx.scalar(
        "SELECT count(*) FROM request_steps WHERE request_id >= ?", [q_first])),
              "requests_decided": int(tx.scalar(
                  "SELECT count(DISTINCT request_id) FROM request_steps WHERE kind = 'decided' AND request_id >= ?",
                  [q_first])),
              "appeals": n_app, "request_nups": sum(r["subject"] == "request" for r in todo)}
    counts["requests_pending"] = m - counts["requests_decided"]
    tx.audit("bench.seed", "requests", "*", None, counts)
    return counts


def build_deadlines(path: str, n_contracts: int, progress: Progress | None = None,
                    template: str | None = None) -> dict[str, int]:
    """Write the deadline benchmark file: full demo + n generated contracts and their events."""
    t0 = time.perf_counter()
    store = _seeded(path, template, progress, t0)
    try:
        rng = np.random.default_rng(SEED + 2)
        n = n_contracts
        kind = rng.choice(len(_KINDS), size=n, p=[k[3] for k in _KINDS]).astype(np.int8)
        status = rng.choice(len(_STATUSES), size=n, p=[s[1] for s in _STATUSES]).astype(np.int8)
        as_of_day = (TODAY - _EPOCH).days
        # vigente/suspenso: signed in the last 4 years, expiring after today; finished ones earlier.
        active = np.isin(status, (0, 4))
        signed = np.where(active, rng.integers(as_of_day - 4 * 365, as_of_day - 30, size=n),
                          rng.integers(0, as_of_day - 400, size=n))
        starts = signed + rng.integers(10, 60, size=n)
        length = rng.integers(300, 4 * 365, size=n)
        expires = np.where(active, np.maximum(starts + length, as_of_day + rng.integers(20, 700, size=n)),
                           starts + length)
        expires = np.where(status == 2, np.minimum(expires, as_of_day - rng.integers(1, 300, size=n)), expires)
        ended = np.where(status == 1, np.minimum(expires - rng.integers(0, 120, size=n), as_of_day - 5), -1)
        cancelled = np.where(status == 3, np.minimum(starts + rng.integers(60, 900, size=n), as_of_day - 1), -1)
        delivered_p = rng.choice([0.97, 0.9, 0.7], size=n, p=[0.7, 0.25, 0.05])
        ext_asked = rng.random(n) < 0.5
        final_done = rng.random(n) < 0.8
        started_rec = rng.random(n) < 0.95
        gen = pa.table({
            "k": pa.array(np.arange(n, dtype=np.int64)), "kind": pa.array(kind), "status": pa.array(status),
            "signed": pa.array(signed.astype(np.int32)), "starts": pa.array(starts.astype(np.int32)),
            "expires": pa.array(expires.astype(np.int32)), "ended": pa.array(ended.astype(np.int32)),
            "cancelled": pa.array(cancelled.astype(np.int32)), "delivered_p": pa.array(delivered_p),
            "ext_asked": pa.array(ext_asked), "final_done": pa.array(final_done),
            "started_rec": pa.array(started_rec),
            "wreck_pick": pa.array(rng.random(n)), "org_pick": pa.array(rng.random(n)),
            "u1": pa.array(rng.random(n)),
        })
        kinds = pa.table({"kind": pa.array(range(4), pa.int8()), "name": [k[0] for k in _KINDS],
                          "abbr": [k[1] for k in _KINDS], "act": [k[2] for k in _KINDS]})
        statuses = pa.table({"status": pa.array(range(5), pa.int8()), "name": [s[0] for s in _STATUSES]})
        dpc_user = demo.DEMO_USERNAMES_BY_ROLE["dpc"][0]
        plan = _request_plan(np.random.default_rng(SEED + 4), kind, signed, as_of_day)

        def fill(tx: Tx) -> dict[str, int]:
            first = _reserve(tx, "seq_contracts", n)
            for name, table in (("_bench_c", gen), ("_bench_kinds", kinds), ("_bench_status", statuses)):
                tx.cur.register(name, table)
            try:
                tx.execute(
                    f"""CREATE TEMP TABLE _bench_contracts AS
                        WITH w AS (SELECT id, office_code, row_number() OVER (ORDER BY id) - 1 AS r,
                                          count(*) OVER () AS n FROM wrecks),
                             o AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS r, count(*) OVER () AS n
                                   FROM organisations)
                        SELECT {first} + g.k AS id, g.*, kd.name AS kind_name, kd.abbr, kd.act, st.name AS status_name,
                               w.id AS wreck_id, w.office_code, o.id AS org_id,
                               DATE '{_EPOCH}' + g.signed AS signed_on, DATE '{_EPOCH}' + g.starts AS starts_on,
                               DATE '{_EPOCH}' + g.expires AS expires_on,
                               CASE WHEN g.ended >= 0 THEN DATE '{_EPOCH}' + g.ended END AS ended_on,
                               CASE WHEN g.cancelled >= 0 THEN DATE '{_EPOCH}' + g.cancelled END AS cancelled_on
                        FROM _bench_c g JOIN _bench_kinds kd ON kd.kind = g.kind
                        JOIN _bench_status st ON st.status = g.status
                        JOIN w ON w.r = CAST(floor(g.wreck_pick * w.n) AS BIGINT)
                        JOIN o ON o.r = CAST(floor(g.org_pick * o.n) AS BIGINT)""")
                tx.execute(
                    """INSERT INTO contracts (id, code, kind, act, act_number, organisation_id, wreck_id, office_code,
                                              requested_on, signed_on, starts_on, expires_on, work_ended_on, status,
                                              cancelled_on, cancel_reason, created_at)
                       SELECT id, printf('%s-%s-%d/%05d', office_code, abbr, year(signed_on), k + 1), kind_name, act,
                              printf('Ato nº %05d/%d', k + 1, year(signed_on)), org_id, wreck_id, office_code,
                              signed_on - 120, signed_on, starts_on, expires_on, ended_on, status_name, cancelled_on,
                              CASE WHEN cancelled_on IS NOT NULL THEN
                                   'Art. 22 II: descumprimento de cláusula do contrato (NORMAM-10 0305).' END,
                              CAST(signed_on - 120 AS TIMESTAMP) + INTERVAL 9 HOUR
                       FROM _bench_contracts ORDER BY id""")
                # Monthly reports: every month from the start to the last month owed; most delivered
                # within the 10 business days, a few late, some never (→ overdue).
                tx.execute(
                    f"""INSERT INTO deadline_events (kind, contract_id, event_date, reference, recorded_by, recorded_at)
                        WITH m AS (
                            SELECT c.id, c.delivered_p, c.k,
                                   unnest(generate_series(
                                       date_trunc('month', c.starts_on),
                                       date_trunc('month', least(coalesce(c.ended_on, DATE '{TODAY}'),
                                                                 coalesce(c.cancelled_on, DATE '{TODAY}'),
                                                                 c.expires_on, DATE '{TODAY}' - INTERVAL 40 DAY)),
                                       INTERVAL 1 MONTH)) AS month
                            FROM _bench_contracts c
                            WHERE c.kind_name IN ('pesquisa', 'exploração') OR c.expires_on - c.starts_on > 60),
                        r AS (SELECT *, (hash(id, month) % 1000) / 1000.0 AS u FROM m)
                        SELECT 'relatório_mensal_entregue', id,
                               CAST(month + INTERVAL 1 MONTH
                                    + INTERVAL (CASE WHEN u < 0.04 THEN 25      -- a few late
                                                     ELSE 3 + CAST(u * 100 AS INTEGER) % 9 END) DAY AS DATE),
                               strftime(month, '%Y-%m'), ?,
                               CAST(month + INTERVAL 1 MONTH + INTERVAL 12 DAY AS TIMESTAMP) + INTERVAL 10 HOUR
                        FROM r WHERE u < delivered_p
                          AND month + INTERVAL 1 MONTH + INTERVAL 25 DAY <= DATE '{TODAY}'
                        ORDER BY id, month""", [dpc_user])
                tx.execute(
                    f"""INSERT INTO deadline_events (kind, contract_id, event_date, reference, recorded_by, recorded_at)
                        SELECT 'operações_iniciadas', id, starts_on, NULL, ?,
                               CAST(starts_on AS TIMESTAMP) + INTERVAL 15 HOUR
                        FROM _bench_contracts WHERE started_rec AND starts_on <= DATE '{TODAY}'
                        UNION ALL
                        SELECT 'relatório_final_entregue', id, ended_on + 60, NULL, ?,
                               CAST(ended_on + 60 AS TIMESTAMP) + INTERVAL 15 HOUR
                        FROM _bench_contracts WHERE final_done AND ended_on IS NOT NULL
                          AND ended_on + 60 <= DATE '{TODAY}'
                        UNION ALL
                        SELECT 'prorrogação_requerida', id, expires_on - 75, CAST(expires_on AS VARCHAR), ?,
                               CAST(expires_on - 75 AS TIMESTAMP) + INTERVAL 15 HOUR
                        FROM _bench_contracts WHERE ext_asked AND status_name IN ('vigente', 'suspenso')
                          AND expires_on - 75 <= DATE '{TODAY}'""", [dpc_user, dpc_user, dpc_user])
                requested = _insert_requests(tx, plan, dpc_user)
                tx.execute("DROP TABLE _bench_contracts")
            finally:
                for name in ("_bench_c", "_bench_kinds", "_bench_status"):
                    tx.cur.unregister(name)
            tx.audit("bench.seed", "contracts", "*", None, {"rows": n, "seed": SEED + 2})
            return {"contracts": n, "events": int(tx.scalar("SELECT count(*) FROM deadline_events")), **requested}

        counts = store.write("bench", fill)
        store.checkpoint()
        _log(progress, f"deadline file: {n:,} contracts, {counts['events']:,} events, {counts['requests']:,} requests "
                       f"({counts['requests_pending']:,} pending), {counts['appeals']:,} appeals "
                       f"({time.perf_counter() - t0:.1f} s)")
        return counts
    finally:
        store.close()


# ======================================================================================
# The import file
# ======================================================================================
def import_csv(n_rows: int, prefix: str) -> bytes:
    """A CSV as Excel in Brazil writes it (';', decimal comma, dd/mm/aaaa, Windows-1252) with
    n_rows items whose codes start with `prefix` (so they are new in the contract)."""
    import pandas as pd

    rng = np.random.default_rng(SEED + 3)
    templates, p, keys = _template_table()
    tpl = {**demo.ITEM_TEMPLATES, **_EXTRA_TEMPLATES}
    pick = rng.choice(len(keys), size=n_rows, p=p)
    qty = 1 + np.floor(5 * rng.random(n_rows) ** 3).astype(np.int64)
    weight = np.round(qty * np.array([tpl[k][5] for k in keys])[pick] * rng.lognormal(0, 0.2, n_rows), 2)
    day = np.sort(rng.integers(0, 60, size=n_rows))
    dates = pd.to_datetime(pd.Timestamp(date(2026, 9, 1))) + pd.to_timedelta(day, unit="D")
    frame = pd.DataFrame({
        "Código do item": [f"{prefix}-{i + 1:06d}" for i in range(n_rows)],
        "Descrição": np.array([tpl[k][2] for k in keys], dtype=object)[pick],
        "Categoria": np.array([tpl[k][0] for k in keys], dtype=object)[pick],
        "Material": np.array([tpl[k][1] for k in keys], dtype=object)[pick],
        "Quantidade": qty,
        "Peso (g)": [f"{w:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".") for w in weight],
        "Data de recuperação": dates.strftime("%d/%m/%Y"),
        "Profundidade (m)": [f"{d:.2f}".replace(".", ",") for d in 38 + rng.normal(0, 1.2, n_rows)],
        "Lote": [f"{d:%Y/%m} · quadrícula {'ABCDEFGH'[g]}{h}" for d, g, h in
                 zip(dates, rng.integers(0, 8, n_rows), rng.integers(1, 13, n_rows))],
        "Condição": np.array(demo.CONDITIONS, dtype=object)[rng.choice(5, size=n_rows, p=demo.CONDITION_P)],
        "Observações": np.where(rng.random(n_rows) < 0.06, "Registro fotográfico completo.", ""),
    })
    text = frame.to_csv(sep=";", index=False, lineterminator="\r\n")
    return text.encode("cp1252")
