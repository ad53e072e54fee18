"""The benchmark at treasure-wreck scale (issue 7).

    python bench/run.py                                  # N = 1 000 000; writes bench/README.md
    python bench/run.py --quick --json bench/out/quick.json   # N = 100 000, in under three minutes
    python bench/run.py --items 2000 --json out.json     # any N (the smoke test uses a tiny one)

Steps (the build steps run in child processes, so that neither their time nor their memory
enters the figures; `peak_rss_mb` is the ru_maxrss of this process, which runs the
measurements):

1. build (child): the full demo plus the treasure contract of N items, an open round with six
   members' values for each (6 N rows, entered through the product's bulk entry) and its
   stored consensus — `bench/generate.py`; and a second file with 5 000 generated contracts
   and their deadline events.
2. consensus, on the open round: `consensus_full_s` (the round's consensus recomputed and
   stored with every row stale, as after a bulk entry — the rows are reset to what
   `open_round` wrote before each run, untimed) and `consensus_incremental_s` (one member
   corrects one value through `record_assessment`: log row, current row, the item's
   consensus, audit).
3. decide (child): close, record the decisions (→ item_valuation), publish, store the
   União's choice and draft the statement — the product's functions.
4. naive baseline (child): what a quick prototype would do on every page view — read all
   value rows into pandas (`.df()`, floats: the cheap way), group-by median, total per
   contract. It runs in its own process (it is not the product); its memory is reported
   apart (`details.naive.peak_rss_mb`).
5. the rest, here: `statement_s` (compute_statement from stored results), the selection
   (`select_items`) over 1 000 and N/10 historical items of the contract, the deadline
   engine over the 5 000-contract file, a 100 000-row CSV import into the contract (the
   imported rows are deleted after each run, untimed), and the three pages through AppTest
   (`tests/ui_support.page_as`; one warm-up run, then `at.run()` timed).

Each figure is the median of `--repeat` runs (default 3); every run is in `details`.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(HERE), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def _load_generator() -> Any:
    """bench/generate.py under a name of its own (bench/ is not a package)."""
    import importlib.util

    name = "valuation_bench_generate"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "generate.py")
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {HERE / 'generate.py'}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


gen = _load_generator()

FULL_ITEMS = 1_000_000
QUICK_ITEMS = 100_000
DEADLINE_CONTRACTS = 5_000
IMPORT_ROWS = 100_000
EXACT_ITEMS = 1_000
REPEAT = 3

# The keys of the result, in the order of the table.
KEYS: tuple[str, ...] = (
    "items", "consensus_full_s", "consensus_incremental_s", "naive_view_s", "statement_s",
    "selection_exact_s", "selection_exact_gap", "selection_large_s", "selection_large_gap", "deadlines_s",
    "import_s", "import_rows", "page_inventory_s", "page_partition_s", "page_deadlines_s", "peak_rss_mb",
)
LABELS: dict[str, str] = {
    "items": "items in the treasure contract (N)",
    "consensus_full_s": "consensus of all N items, decided and stored",
    "consensus_incremental_s": "one member changes one value (record_assessment)",
    "naive_view_s": "naive page view: 6 N rows into pandas, group-by median, totals",
    "statement_s": "partition statement of the N-item contract from stored results",
    "selection_exact_s": "União's choice over 1 000 historical items",
    "selection_exact_gap": "certified gap, 1 000 items",
    "selection_large_s": "União's choice over N/10 historical items",
    "selection_large_gap": "certified gap, N/10 items",
    "deadlines_s": "deadline engine, 5 000 contracts",
    "import_s": "CSV import with validation",
    "import_rows": "rows imported",
    "page_inventory_s": "page Inventário (AppTest)",
    "page_partition_s": "page Demonstrativos (AppTest)",
    "page_deadlines_s": "page Prazos (AppTest)",
    "peak_rss_mb": "peak RSS of the measuring process (MB)",
}
import comparables_bench as cb  # noqa: E402  issue 16: one item's comparables (bench/ is on sys.path)

KEYS = KEYS[:-1] + cb.KEYS + KEYS[-1:]
LABELS.update(cb.LABELS)


# ======================================================================================
# Targets (issue 7, at N = 1 000 000 on this machine)
# ======================================================================================
def targets(r: dict[str, Any]) -> dict[str, tuple[str, bool | None]]:
    """key → (target text, met?) — None where the figure has no target of its own."""
    def le(key: str, limit: float) -> bool:
        return r[key] <= limit

    ratio = r["naive_view_s"] / r["statement_s"] if r["statement_s"] > 0 else math.inf
    return {
        "consensus_full_s": ("≤ 1.5 s", le("consensus_full_s", 1.5)),
        "consensus_incremental_s": ("≤ 0.05 s", le("consensus_incremental_s", 0.05)),
        "naive_view_s": (f"baseline ({ratio:,.0f}× the statement)", None),
        "statement_s": ("≤ 0.1 s and ≥ 10× faster than naive", le("statement_s", 0.1) and ratio >= 10),
        "selection_exact_s": ("≤ 2 s", le("selection_exact_s", 2.0)),
        "selection_exact_gap": ("= 0", r["selection_exact_gap"] == 0),
        "selection_large_s": ("≤ 2 s", le("selection_large_s", 2.0)),
        "selection_large_gap": ("≤ 0.1 %", le("selection_large_gap", 0.001)),
        "deadlines_s": ("≤ 2 s", le("deadlines_s", 2.0)),
        "import_s": ("≤ 10 s", le("import_s", 10.0)),
        "import_rows": ("100 000", None),
        "page_inventory_s": ("≤ 1 s", le("page_inventory_s", 1.0)),
        "page_partition_s": ("≤ 1 s", le("page_partition_s", 1.0)),
        "page_deadlines_s": ("≤ 1 s", le("page_deadlines_s", 1.0)),
        "peak_rss_mb": ("≤ 2048 MB", le("peak_rss_mb", 2048)),
        "items": ("1 000 000", None),
        **cb.targets(r),
    }


# ======================================================================================
# Plumbing
# ======================================================================================
_T0 = time.perf_counter()


class BenchError(RuntimeError):
    """A measured call gave a wrong result, or a page raised: the figure would mean nothing."""


def ensure(ok: object, message: str) -> None:
    if not ok:
        raise BenchError(message)


def say(text: str) -> None:
    print(f"[bench {time.perf_counter() - _T0:7.1f} s] {text}", file=sys.stderr, flush=True)


def peak_rss_mb() -> float:
    """Peak resident memory of this process (the measuring one): ru_maxrss (Linux: KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def own_peak_rss_mb() -> float:
    """The same for a child phase. After fork + exec, Linux's ru_maxrss still counts the
    parent's memory copied at the fork, so a child reports VmHWM (the high-water mark of its
    own address space) when /proc has it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    return peak_rss_mb()


class Timing:
    """The runs of one measurement: wall-clock seconds (the figure is their median) and the
    process CPU seconds of each run (all threads, DuckDB's included) — on a shared machine
    the CPU time shows the work done whatever else was running."""

    def __init__(self) -> None:
        self.runs: list[float] = []
        self.cpu: list[float] = []
        self.result: Any = None

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    def details(self, **extra: Any) -> dict[str, Any]:
        return {"runs": [round(x, 6) for x in self.runs], "cpu_runs": [round(x, 6) for x in self.cpu], **extra}


def timed(fn: Callable[[], Any], repeat: int, *, before: Callable[[], Any] | None = None,
          after: Callable[[Any], Any] | None = None) -> Timing:
    """Run fn `repeat` times, `before` and `after` (untimed) around each run."""
    t = Timing()
    for _ in range(repeat):
        if before is not None:
            before()
        gc.collect()
        c0, w0 = time.process_time(), time.perf_counter()
        t.result = fn()
        t.runs.append(time.perf_counter() - w0)
        t.cpu.append(time.process_time() - c0)
        if after is not None:
            after(t.result)
    return t


def child(phase: str, args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    """Run one phase of this script in a child process; returns the JSON it wrote."""
    out = Path(args.out) / f"phase_{phase}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--phase", phase, "--items", str(args.items),
           "--contracts", str(args.contracts), "--repeat", str(args.repeat), "--out", str(args.out),
           "--phase-json", str(out)]
    for k, v in extra.items():
        cmd += [f"--{k.replace('_', '-')}", str(v)]
    t = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=str(ROOT))
    data = json.loads(out.read_text(encoding="utf-8"))
    data["wall_s"] = round(time.perf_counter() - t, 3)
    return data


def paths(args: argparse.Namespace) -> tuple[Path, Path]:
    out = Path(args.out)
    return out / f"bench_{args.items}.duckdb", out / f"deadlines_{args.contracts}.duckdb"


def _remove(path: Path) -> None:
    for p in (path, Path(str(path) + ".wal")):
        if p.exists():
            p.unlink()


# ======================================================================================
# Phases run in child processes
# ======================================================================================
def phase_build(args: argparse.Namespace) -> dict[str, Any]:
    main_path, dl_path = paths(args)
    _remove(main_path)
    _remove(dl_path)
    t = time.perf_counter()
    info = gen.build_main(str(main_path), args.items, progress=say)
    t_main = time.perf_counter() - t
    t = time.perf_counter()
    counts = gen.build_deadlines(str(dl_path), args.contracts, progress=say)
    return {"round_id": info.round_id, "contract_code": info.contract_code, "value_rows": info.value_rows,
            "main_build_s": round(t_main, 2), "deadlines_build_s": round(time.perf_counter() - t, 2),
            "deadline_events": counts["events"], "peak_rss_mb": round(own_peak_rss_mb(), 1)}


def phase_decide(args: argparse.Namespace) -> dict[str, Any]:
    main_path, _ = paths(args)
    t = time.perf_counter()
    out = gen.decide_main(str(main_path), args.round_id, progress=say)
    out["decide_s"] = round(time.perf_counter() - t, 2)
    out["peak_rss_mb"] = round(own_peak_rss_mb(), 1)
    return out


NAIVE_SQL = ("SELECT c.item_id, i.contract_id, c.value_brl FROM assessment_current c "
             "JOIN items i ON i.id = c.item_id")


def naive_view(con: Any) -> Any:
    """The prototype's page view: every value row into pandas, the median per item, the total
    per contract. `.df()` turns DECIMAL into float — the cheap (and inexact) way."""
    df = con.execute(NAIVE_SQL).df()
    medians = df.groupby(["contract_id", "item_id"])["value_brl"].median()
    return medians.groupby(level="contract_id").sum()


def phase_naive(args: argparse.Namespace) -> dict[str, Any]:
    import duckdb

    main_path, _ = paths(args)
    con = duckdb.connect(str(main_path), read_only=True)
    try:
        t = timed(lambda: naive_view(con), args.repeat)
        rows = con.execute("SELECT count(*) FROM assessment_current").fetchall()[0][0]
    finally:
        con.close()
    return {"naive_view_s": t.median, **t.details(), "value_rows": int(rows), "contracts": int(len(t.result)),
            "peak_rss_mb": round(own_peak_rss_mb(), 1)}


# ======================================================================================
# Measurements run here
# ======================================================================================
def _consensus_fn() -> Callable[..., int]:
    """The function that recomputes and stores a whole round's consensus (its home may move)."""
    from valuation.commission import consensus_sql
    from valuation.commission import workflow as commission

    for module in (consensus_sql, commission):
        fn = getattr(module, "compute_round_consensus", None)
        if fn is not None:
            return fn
    raise RuntimeError("compute_round_consensus not found in valuation.commission.consensus_sql/commission")


def measure_consensus(args: argparse.Namespace, round_id: int) -> dict[str, Any]:
    from valuation.commission import workflow as commission
    from valuation.core.money import to_cents
    from valuation.db.store import Store

    main_path, _ = paths(args)
    store = Store(str(main_path))
    res: dict[str, Any] = {}
    try:
        users = gen.principals(store)
        compute = _consensus_fn()
        cols = [r["column_name"] for r in store.fetch(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index",
            [gen.SNAPSHOT_TABLE]) if r["column_name"] not in ("round_id", "item_id", "computed_at")]
        sets = ", ".join(f"{c} = s.{c}" for c in cols)
        differ = " OR ".join(f"ic.{c} IS DISTINCT FROM r.{c}" for c in cols)

        def sql(text: str, params: list[Any] | None = None) -> None:
            cur = store.cursor()
            try:
                cur.execute(text, params).fetchall()
            finally:
                cur.close()

        sql("CREATE OR REPLACE TABLE bench_reference AS SELECT * FROM item_consensus WHERE round_id = ?",
            [round_id])

        def reset() -> None:   # every row back to what open_round wrote: all N rows stale
            sql(f"UPDATE item_consensus AS ic SET {sets} FROM {gen.SNAPSHOT_TABLE} s "
                f"WHERE ic.round_id = s.round_id AND ic.item_id = s.item_id AND ic.round_id = ?", [round_id])
            store.checkpoint()

        def check(n: int) -> None:
            wrong = store.scalar(f"SELECT count(*) FROM item_consensus ic JOIN bench_reference r "
                                 f"ON r.round_id = ic.round_id AND r.item_id = ic.item_id WHERE {differ}")
            ensure(wrong == 0, f"the recomputed consensus differs from the stored one on {wrong} items")

        say("consensus_full: recompute and store a whole round (all rows stale)")
        t = timed(lambda: compute(store, round_id), args.repeat, before=reset, after=check)
        res["consensus_full_s"] = t.median
        res["details_full"] = t.details(items=t.result, function=f"{compute.__module__}.{compute.__name__}",
                                        matches_stored=True)
        say(f"consensus_full_s = {t.median:.3f}")
        t = timed(lambda: compute(store, round_id), args.repeat)
        res["details_full_unchanged"] = t.details(median_s=t.median, what="the same with every stored row already "
                                                  "in step (close_round after the entries): computed, nothing written")

        say("consensus_incremental: one member corrects one value")
        member = users["member1"]
        first_item = int(store.scalar("SELECT min(item_id) FROM round_items WHERE round_id = ?", [round_id]))
        picks = iter(range(args.items // 2, args.items))
        state: dict[str, Any] = {}

        def prepare() -> None:
            while True:
                item = first_item + next(picks)
                row = store.fetch_one(
                    "SELECT l.historical, l.amount, l.significance, l.must_keep, l.source FROM assessment_current c "
                    "JOIN assessment_log l ON l.id = c.log_id WHERE c.round_id = ? AND c.item_id = ? "
                    "AND c.member_id = ?", [round_id, item, member.id])
                if row is not None and row["amount"] is not None:
                    state.update(item=item, row=row)
                    return

        def change() -> Any:
            r = state["row"]
            return commission.record_assessment(
                store, member, round_id, state["item"], historical=r["historical"],
                amount=to_cents(r["amount"] * Decimal("1.25")), currency="BRL",
                price_date=gen.PRICE_DAY, significance=r["significance"], must_keep=r["must_keep"],
                source=r["source"], source_note=None)

        method = store.scalar("SELECT method FROM assessment_rounds WHERE id = ?", [round_id])

        def verify(_: Any) -> None:
            if method != "median":
                return
            vals = sorted(v["value_brl"] for v in store.fetch(
                "SELECT value_brl FROM assessment_current WHERE round_id = ? AND item_id = ? "
                "AND value_brl IS NOT NULL", [round_id, state["item"]]))
            k = len(vals)
            want = to_cents((vals[(k - 1) // 2] + vals[k // 2]) / 2)          # rounded once, half-up
            got = store.scalar("SELECT median_brl FROM item_consensus WHERE round_id = ? AND item_id = ?",
                               [round_id, state["item"]])
            ensure(got == want, f"item {state['item']}: stored median {got}, expected {want}")

        t = timed(change, args.repeat, before=prepare, after=verify)
        res["consensus_incremental_s"] = t.median
        res["details_incremental"] = t.details(member=member.username, median_checked=method == "median")
        say(f"consensus_incremental_s = {res['consensus_incremental_s']:.4f}")
        sql("DROP TABLE IF EXISTS bench_reference")
    finally:
        store.close()
    return res


def _sel_items(store: Any, contract_id: int, limit: int) -> tuple[list[Any], Decimal]:
    """The first `limit` decided historical items of the contract as SelItems, and the art. 20 §2
    target for them: round(0.40 × their total) (the contract's historical share)."""
    from valuation.core.money import to_cents
    from valuation.partition.selection import SelItem

    cur = store.cursor()
    try:
        t = cur.sql("SELECT item_id, value_brl, coalesce(significance, 1) AS significance, must_keep "
                    "FROM item_valuation WHERE contract_id = ? AND historical ORDER BY item_id LIMIT ?",
                    params=[contract_id, limit]).to_arrow_table()
    finally:
        cur.close()
    items = [SelItem(str(i), v, int(s), bool(k)) for i, v, s, k in
             zip(*(t.column(c).to_pylist() for c in ("item_id", "value_brl", "significance", "must_keep")))]
    total = sum((it.value for it in items), Decimal(0))
    share = Decimal(str(store.scalar("SELECT historical_share FROM contracts WHERE id = ?", [contract_id])))
    return items, to_cents(share * total)


def _pages(args: argparse.Namespace, db_path: Path, user: Any, code: str) -> dict[str, Any]:
    import logging

    from tests.ui_support import page_as

    out: dict[str, Any] = {}
    saved_env = os.environ.get("VALUATION_DB")
    # AppTest clears Streamlit's caches outside a runtime, which logs a warning per call.
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    try:
        _run_pages(args, db_path, user, code, page_as, out)
    finally:   # page_as points the app at db_path through the environment: put it back
        if saved_env is None:
            os.environ.pop("VALUATION_DB", None)
        else:
            os.environ["VALUATION_DB"] = saved_env
    return out


def _run_pages(args: argparse.Namespace, db_path: Path, user: Any, code: str, page_as: Any,
               out: dict[str, Any]) -> None:
    for key, page in (("page_inventory_s", "inventory"), ("page_partition_s", "statements"),
                      ("page_deadlines_s", "deadlines")):
        say(f"{key}: pages/{page}.py through AppTest")
        at = page_as(db_path, user, page, timeout=300)        # the app, then the page: the warm-up
        ensure(not at.exception, f"{page}: {at.exception}")
        if page == "statements":                             # open the treasure contract, warm it up
            box = next(b for b in at.selectbox if b.label == "Contrato")
            box.set_value(code)
            at.run()
            ensure(not at.exception, f"{page}: {at.exception}")

        def run_page() -> None:
            at.run()

        def ok(_: Any) -> None:
            ensure(not at.exception, f"{page}: {at.exception}")

        t = timed(run_page, args.repeat, after=ok)
        out[key] = t.median
        out[f"details_{page}"] = t.details(errors=[e.value for e in at.error], title=[x.value for x in at.title])
        say(f"{key} = {out[key]:.3f}")


def measure_rest(args: argparse.Namespace) -> dict[str, Any]:
    from valuation.db.store import Store
    from valuation.deadlines import engine as deadline_engine
    from valuation.inventory import queries as inventory
    from valuation.partition import workflow as P
    from valuation.partition.selection import select_items

    main_path, dl_path = paths(args)
    res: dict[str, Any] = {}
    details: dict[str, Any] = {}
    store = Store(str(main_path))
    try:
        users = gen.principals(store)
        dpc = users["dpc"]
        contract_id = int(store.scalar("SELECT id FROM contracts WHERE code = ?", [gen.TREASURE_CODE]))

        say("statement: compute_statement from stored results")
        t = timed(lambda: P.compute_statement(store, dpc, gen.TREASURE_CODE, as_of=gen.TODAY), args.repeat)
        res["statement_s"], doc = t.median, t.result
        details["statement"] = t.details(net=str(doc.net), gross=str(getattr(doc.result, "gross", None)),
                                         historical_items=doc.historical_items, other_items=doc.other_items,
                                         blockers=list(doc.blockers))
        say(f"statement_s = {res['statement_s']:.4f}")

        tol = P.selection_tolerance(store)
        for key, limit in (("selection_exact", min(EXACT_ITEMS, args.exact_items)),
                           ("selection_large", max(1, args.items // 10))):
            items, target = _sel_items(store, contract_id, limit)
            say(f"{key}: select_items over {len(items):,} historical items, target {target}")
            t = timed(lambda: select_items(items, target, tol, minimise_significance=True), args.repeat)
            r = t.result
            res[f"{key}_s"] = t.median
            res[f"{key}_gap"] = float(r.gap)
            details[key] = t.details(items=len(items), target=str(target), status=r.status, method=r.method,
                                     gap=str(r.gap), selected=len(r.selected), selected_value=str(r.selected_value))
            say(f"{key}_s = {t.median:.3f} ({r.status}, gap {r.gap})")

        say("import: a CSV of new items into the treasure contract")
        explorer = users["explorer"]
        data = gen.import_csv(args.import_rows, "CAMP-2026-09")
        state: dict[str, Any] = {}

        def do_import() -> Any:
            return inventory.import_items(store, explorer, gen.TREASURE_CODE, data, "campanha_2026_09.csv",
                                          today=gen.TODAY)

        def undo(result: Any) -> None:   # the next run imports the very same file into the same contract
            state["rows"] = result.rows
            state["in_contract"] = result.items_in_contract

            def delete(tx: Any) -> None:
                tx.execute("DELETE FROM items WHERE import_id = ?", [result.import_id])
                tx.execute("DELETE FROM imports WHERE id = ?", [result.import_id])

            store.write("bench", delete)
            store.checkpoint()

        t = timed(do_import, args.repeat, after=undo)
        res["import_s"] = t.median
        res["import_rows"] = int(state["rows"])
        details["import"] = t.details(bytes=len(data), items_in_contract_after=state["in_contract"],
                                      user=explorer.username)
        say(f"import_s = {res['import_s']:.3f} ({res['import_rows']:,} rows)")

        pages = _pages(args, main_path, dpc, gen.TREASURE_CODE)
        res.update({k: v for k, v in pages.items() if not k.startswith("details_")})
        details["pages"] = {k.removeprefix("details_"): v for k, v in pages.items() if k.startswith("details_")}
    finally:
        store.close()

    say(f"deadlines: compute_deadlines over {args.contracts:,} generated contracts (+ the demo)")
    dl_store = Store(str(dl_path))
    try:
        dpc = gen.principals(dl_store)["dpc"]
        t = timed(lambda: deadline_engine.compute_deadlines(dl_store, dpc, as_of=gen.TODAY), args.repeat)
        res["deadlines_s"], frame = t.median, t.result
        details["deadlines"] = t.details(rows=int(len(frame)),
                                         contracts=int(dl_store.scalar("SELECT count(*) FROM contracts")),
                                         states={str(k): int(v) for k, v in frame["state"].value_counts().items()})
        say(f"deadlines_s = {res['deadlines_s']:.3f} ({len(frame):,} deadlines)")
    finally:
        dl_store.close()
    res["details"] = details
    return res


def measure_comparables(args: argparse.Namespace) -> dict[str, Any]:
    """Issue 16: one item's comparables over the main file's N published decisions, beside a
    pandas group-by baseline (bench/comparables_bench.py says exactly what is timed)."""
    main_path, _ = paths(args)
    out = cb.measure(main_path, args.repeat, say=say)
    say(f"comparables_s = {out['comparables_s']:.4f} ({out['comparables_ratio']:,.0f}× the pandas baseline)")
    return out


# ======================================================================================
# The report
# ======================================================================================
def machine() -> dict[str, Any]:
    import duckdb

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024 ** 3
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(ram_gb, 1),
            "python": platform.python_version(), "duckdb": duckdb.__version__, "platform": platform.platform(),
            "load_avg_start": [round(x, 2) for x in os.getloadavg()]}


def _fmt(key: str, value: Any) -> str:
    if key in ("items", "import_rows"):
        return f"{int(value):,}".replace(",", " ")
    if key.endswith("_gap"):
        return "0" if value == 0 else f"{value * 100:.2g} %"
    if key == "peak_rss_mb":
        return f"{value:,.0f} MB"
    if key == "comparables_ratio":
        return f"{value:,.0f}×"
    return f"{value:.4f} s" if value < 1 else f"{value:.2f} s"


def table(result: dict[str, Any]) -> str:
    met = targets(result)
    lines = ["| figure | what | value | target | |", "|---|---|---:|---|---|"]
    for key in KEYS:
        text, ok = met[key]
        mark = "" if ok is None else ("met" if ok else "**missed**")
        lines.append(f"| `{key}` | {LABELS[key]} | {_fmt(key, result[key])} | {text} | {mark} |")
    return "\n".join(lines)


BEGIN, END = "<!-- bench:begin (written by bench/run.py) -->", "<!-- bench:end -->"


def write_readme(path: Path, result: dict[str, Any]) -> None:
    m = result["details"]["machine"]
    block = "\n".join([
        BEGIN,
        f"Run of {result['details']['date']} — `python bench/run.py"
        + ("" if result["items"] == FULL_ITEMS else f" --items {result['items']}") + "`, "
        f"median of {result['details']['repeat']} runs each.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; Python {m['python']}, "
        f"DuckDB {m['duckdb']}; {m['platform']}. Load average at the start "
        f"{', '.join(map(str, m['load_avg_start']))}, at the end {', '.join(map(str, m['load_avg_end']))} "
        "(the machine is shared: other work running meanwhile slows the figures down).",
        "",
        table(result),
        "",
        f"Build (not in the figures): main file {result['details']['build']['main_build_s']} s, deadline file "
        f"{result['details']['build']['deadlines_build_s']} s, decisions + choice + draft "
        f"{result['details']['decide']['decide_s']} s. Every run of every figure, and the checks made on the "
        f"results, are in `bench/out/last.json`.",
        END,
    ])
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = (text.rstrip() + "\n\n" if text.strip() else "# Benchmark\n\n") + block + "\n"
    path.write_text(text, encoding="utf-8")


# ======================================================================================
# Main
# ======================================================================================
def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help=f"N = {QUICK_ITEMS:,} (unless --items)")
    ap.add_argument("--items", type=int, default=None, help=f"N (default {FULL_ITEMS:,})")
    ap.add_argument("--json", type=Path, default=None, help="write the figures to this JSON file")
    ap.add_argument("--readme", type=Path, default=None,
                    help="write the table into this Markdown file (default bench/README.md for the full run)")
    ap.add_argument("--out", type=Path, default=HERE / "out", help="folder of the database files")
    ap.add_argument("--repeat", type=int, default=REPEAT, help="runs per figure (median reported)")
    ap.add_argument("--contracts", type=int, default=DEADLINE_CONTRACTS, help="contracts for the deadline engine")
    ap.add_argument("--import-rows", type=int, default=IMPORT_ROWS, help="rows of the imported CSV")
    ap.add_argument("--exact-items", type=int, default=EXACT_ITEMS, help="items of the exact selection")
    ap.add_argument("--phase", choices=("build", "decide", "naive"), help=argparse.SUPPRESS)
    ap.add_argument("--phase-json", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--round-id", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.items is None:
        args.items = QUICK_ITEMS if args.quick else FULL_ITEMS
    if args.items < 10 or args.repeat < 1 or args.contracts < 1 or args.import_rows < 1:
        ap.error("--items ≥ 10, --repeat, --contracts and --import-rows ≥ 1")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    args.out = Path(args.out).resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.phase:
        result = {"build": phase_build, "decide": phase_decide, "naive": phase_naive}[args.phase](args)
        args.phase_json.write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
        return result

    started = datetime.now(timezone.utc)
    mach = machine()
    say(f"N = {args.items:,}; building the files in a child process")
    build = child("build", args)
    consensus = measure_consensus(args, build["round_id"])
    say("deciding the round, storing the choice, drafting the statement (child process)")
    decide = child("decide", args, round_id=build["round_id"])
    say("naive baseline (child process)")
    naive = child("naive", args)
    say(f"naive_view_s = {naive['naive_view_s']:.3f}")
    rest = measure_rest(args)
    comparables = measure_comparables(args)

    details = rest.pop("details")
    details["comparables"] = comparables.pop("details")
    figures = {k: v for k, v in consensus.items() if not k.startswith("details")}
    result: dict[str, Any] = {"items": args.items, **figures,
                              "naive_view_s": naive["naive_view_s"], **rest, **comparables,
                              "peak_rss_mb": round(peak_rss_mb(), 1)}
    mach["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    details.update({
        "date": started.strftime("%Y-%m-%d %H:%M UTC"), "repeat": args.repeat, "machine": mach,
        "build": build, "decide": decide, "naive": naive,
        "consensus": {k.removeprefix("details_"): v for k, v in consensus.items() if k.startswith("details")},
        "deadline_contracts": args.contracts, "total_s": round(time.perf_counter() - _T0, 1),
    })
    result = {k: result[k] for k in KEYS} | {"targets": {k: {"target": t, "met": ok} for k, (t, ok)
                                                            in targets(result).items()}, "details": details}
    text = json.dumps(result, indent=2, default=str)
    (args.out / "last.json").write_text(text, encoding="utf-8")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text, encoding="utf-8")
    readme = args.readme if args.readme is not None else (HERE / "README.md" if not args.quick
                                                          and args.items == FULL_ITEMS else None)
    if readme is not None:
        write_readme(readme, result)
    print(table(result))
    say(f"done in {time.perf_counter() - _T0:.0f} s")
    return result


if __name__ == "__main__":
    main()
