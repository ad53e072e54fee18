"""Comparables at the bench's scale (issue 16 §10): one item's comparables, computed in SQL over a
million published decisions, beside a pandas group-by baseline.

    python bench/comparables_bench.py --items 1000000      # builds its own file, prints the figures
    (bench/run.py calls `measure` on its main file, whose N decisions are published by then)

`comparables_s`: `comparables.comparables_for_item` (count, exact quartiles, the five latest with
contract and date) for the demo item whose key has the most comparables — the worst case.
`comparables_pandas_s`: what a prototype would do per page view: read every published decision
with its item's category, material and description into pandas, extract the denomination with a
vectorised regex, group by (category, material, denomination) and take the quartiles, then look
the item's key up. `comparables_ratio` = pandas / SQL. Both results are checked to agree.
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parent / "src"), str(HERE.parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

KEYS: tuple[str, ...] = ("comparables_s", "comparables_pandas_s", "comparables_ratio")
LABELS: dict[str, str] = {
    "comparables_s": "one item's comparables in SQL (published decisions)",
    "comparables_pandas_s": "the same with a pandas group-by over every published decision",
    "comparables_ratio": "pandas / SQL",
}
LIMIT_S = 0.05
_NUMBER = (r"\b(\d{1,3}(?:[.$]\d{3}){1,4}|\d{1,12})\s*(reales|real|reis|escudos|escudo|dobras|dobra|cruzados|"
           r"cruzado|florins|florim|pesos|peso|ducados|ducado|libras|libra)\b")
_TYPE = r"\b(soberanos|soberano|patacas|pataca|dobroes|dobrao|leeuwendaalder|daalder|guineus|guineu|cruzados|cruzado)\b"


def targets(r: dict[str, Any]) -> dict[str, tuple[str, bool | None]]:
    return {"comparables_s": (f"≤ {LIMIT_S} s", r["comparables_s"] <= LIMIT_S),
            "comparables_pandas_s": ("baseline", None),
            "comparables_ratio": ("SQL faster than pandas by this factor", None)}


def _fold(s: Any) -> Any:
    return s.str.strip().str.normalize("NFKD").str.encode("ascii", "ignore").str.decode("ascii").str.lower()


def pandas_view(con: Any, key: tuple[str, str, str | None], own_contract: int) -> tuple[int, float]:
    """The prototype's page view (module docstring): (count, median) of the item's key."""
    df = con.execute("SELECT p.contract_id, i.category, i.material, i.description, p.value_brl FROM "
                     "published_comparables p JOIN items i ON i.id = p.item_id").df()
    df = df[df["contract_id"] != own_contract]
    desc = _fold(df["description"])
    num = desc.str.extract(_NUMBER)
    kind = desc.str.extract(_TYPE)[0]
    number = num[0].str.replace(r"[.$]", "", regex=True).str.lstrip("0")
    unit = num[1].str.replace(r"(es|s)$", "", regex=True).replace({"rei": "reis"})
    df["den"] = (number + " " + unit).fillna(kind.str.replace(r"(es|s)$", "", regex=True))
    df["ck"], df["mk"] = _fold(df["category"]), _fold(df["material"])
    ck, mk, dn = key
    groups = df.groupby(["ck", "mk", "den"] if dn else ["ck", "mk"])["value_brl"]
    stats = groups.quantile([0.25, 0.5, 0.75]).unstack()
    sizes = groups.size()
    at = (ck, mk, dn) if dn else (ck, mk)
    return int(sizes.loc[at]), float(stats.loc[at, 0.5])


def _worst_item(store: Any) -> dict[str, Any]:
    """The item whose key has the most published comparables in other contracts — the worst case
    (an item without a denomination compares with every denomination of its category and material)."""
    return store.fetch_one(
        """WITH g AS (SELECT category_key AS ck, material_key AS mk, denomination AS dn, contract_id, count(*) AS n
                      FROM published_comparables GROUP BY ALL),
                t AS (SELECT i.id, i.contract_id, comparable_key(i.category) AS ck, comparable_key(i.material) AS mk,
                             comparable_denomination(i.description) AS dn
                      FROM items i WHERE i.id IN (SELECT min(id) FROM items GROUP BY contract_id, description))
           SELECT t.id, t.contract_id, t.ck, t.mk, t.dn, sum(g.n) AS n
           FROM t JOIN g ON g.ck = t.ck AND g.mk = t.mk AND (t.dn IS NULL OR g.dn = t.dn)
                         AND g.contract_id <> t.contract_id
           GROUP BY ALL ORDER BY n DESC, t.id LIMIT 1""")


def _timed(fn: Any, repeat: int) -> tuple[list[float], Any]:
    runs, result = [], None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        result = fn()
        runs.append(time.perf_counter() - t)
    return runs, result


def measure(db_path: str | Path, repeat: int = 3, say: Any = print) -> dict[str, Any]:
    """The three figures (and their details) on a database with published decisions."""
    from valuation.commission import comparables
    from valuation.db.access import Principal
    from valuation.db.store import Store

    store = Store(str(db_path))      # the pandas baseline reads through it too: one connection per file
    try:
        target = _worst_item(store)
        if target is None:
            raise RuntimeError("no published decisions to compare with")
        row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                              "WHERE role = 'commission' AND active ORDER BY id LIMIT 1")
        member = Principal(**row)
        total = int(store.scalar("SELECT count(*) FROM published_comparables"))
        say(f"comparables: item {target['id']} ({target['ck']}/{target['mk']}/{target['dn']}), {int(target['n']):,} "
            f"of {total:,} published decisions")
        comparables.comparables_for_item(store, member, int(target["id"]))     # warm-up
        sql_runs, got = _timed(lambda: comparables.comparables_for_item(store, member, int(target["id"])), repeat)
        key = (target["ck"], target["mk"], target["dn"])
        con = store.cursor()
        try:
            pd_runs, (n, median) = _timed(lambda: pandas_view(con, key, int(target["contract_id"])), repeat)
        finally:
            con.close()
    finally:
        store.close()
    if n != got.count or abs(median - float(got.median)) > 0.01:
        raise RuntimeError(f"pandas and SQL disagree: {n} vs {got.count}, {median} vs {got.median}")
    sql_s, pd_s = statistics.median(sql_runs), statistics.median(pd_runs)
    return {"comparables_s": sql_s, "comparables_pandas_s": pd_s, "comparables_ratio": pd_s / sql_s if sql_s else 0.0,
            "details": {"runs": [round(x, 6) for x in sql_runs], "pandas_runs": [round(x, 6) for x in pd_runs],
                        "item_id": int(target["id"]), "key": list(key), "comparables": got.count,
                        "published": total, "median": str(got.median)}}


def build(path: Path, n_items: int, contracts: int = 40, seed: int = 7542) -> int:
    """A file of its own: the demo's base data set plus n published decisions over `contracts`
    generated contracts (items from the demo's templates, values lognormal around a per-kind level)."""
    import numpy as np
    import pyarrow as pa

    from valuation.commission.comparables import record_published
    from valuation.db.store import Store
    from valuation.demo import base as demo

    rng = np.random.default_rng(seed)
    keys = list(demo.ITEM_TEMPLATES)
    tpl = [demo.ITEM_TEMPLATES[k] for k in keys]
    level = rng.lognormal(6.0, 1.5, size=len(keys))
    store = Store(str(path), clock=lambda: datetime(2026, 11, 30, 10, 0))
    try:
        demo.seed_demo(store)

        def fill(tx: Any) -> None:
            base = tx.fetch_one("SELECT organisation_id, wreck_id, office_code FROM contracts ORDER BY id LIMIT 1")
            per = -(-n_items // contracts)
            for c in range(contracts):
                m = min(per, n_items - c * per)
                if m <= 0:
                    break
                cid = int(tx.scalar("INSERT INTO contracts (code, kind, act, organisation_id, wreck_id, office_code, "
                                    "status) VALUES (?, 'exploração', 'contrato', ?, ?, ?, 'concluído') RETURNING id",
                                    [f"BENCH-{c:03d}", base["organisation_id"], base["wreck_id"], base["office_code"]]))
                when = datetime(2020, 1, 1) + timedelta(days=30 * c)
                rid = int(tx.scalar("INSERT INTO assessment_rounds (contract_id, number, status, method, quorum, "
                                    "spread_threshold, opened_by, published_at) VALUES (?, 1, 'publicada', 'median', "
                                    "4, 0.5, 'bench', ?) RETURNING id", [cid, when]))
                pick = rng.integers(0, len(keys), size=m)
                cents = np.maximum(1, np.rint(level[pick] * rng.lognormal(0, 0.4, size=m) * 100)).astype(np.int64)
                first = int(tx.scalar(f"SELECT min(v) FROM (SELECT nextval('seq_items') AS v FROM range({m}))"))
                ids = np.arange(first, first + m, dtype=np.int64)
                items = pa.table({"id": ids, "contract_id": np.full(m, cid),
                                  "item_code": [f"B{c}-{k}" for k in range(m)],
                                  "description": [tpl[p][2] for p in pick], "category": [tpl[p][0] for p in pick],
                                  "material": [tpl[p][1] for p in pick], "quantity": np.ones(m, dtype=np.int32),
                                  "recovered_on": pa.array([when.date()] * m, pa.date32())})
                tx.insert_frame("items", items)
                dfirst = int(tx.scalar(f"SELECT min(v) FROM (SELECT nextval('seq_decisions') AS v FROM range({m}))"))
                dids = np.arange(dfirst, dfirst + m, dtype=np.int64)
                value = pa.array([f"{v // 100}.{v % 100:02d}" for v in cents.tolist()]).cast(pa.decimal128(18, 2))
                tx.insert_frame("decisions", pa.table({
                    "id": dids, "round_id": np.full(m, rid), "item_id": ids, "historical": np.ones(m, dtype=bool),
                    "value_brl": value, "must_keep": np.zeros(m, dtype=bool), "basis": ["bench"] * m,
                    "decided_by": ["bench"] * m, "decided_at": pa.array([when] * m, pa.timestamp("us"))}))
                tx.insert_frame("item_valuation", pa.table({
                    "item_id": ids, "contract_id": np.full(m, cid), "decision_id": dids, "round_id": np.full(m, rid),
                    "historical": np.ones(m, dtype=bool), "value_brl": value, "must_keep": np.zeros(m, dtype=bool),
                    "published": np.ones(m, dtype=bool)}))
                record_published(tx, rid)

        store.write("bench", fill)
        store.checkpoint()
        return int(store.scalar("SELECT count(*) FROM published_comparables"))
    finally:
        store.close()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"comparables_{args.items}.duckdb"
    for p in (path, Path(str(path) + ".wal")):
        p.unlink(missing_ok=True)
    t = time.perf_counter()
    n = build(path, args.items)
    print(f"built {n:,} published decisions in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    result = measure(path, args.repeat, say=lambda s: print(s, file=sys.stderr))
    for k in KEYS:
        text, ok = targets(result)[k]
        print(f"{k:24s} {result[k]:10.4f}  {text}  {'' if ok is None else ('met' if ok else 'MISSED')}")
    print(result["details"])
    return result


if __name__ == "__main__":
    main()
