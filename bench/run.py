"""The benchmark at treasure-wreck scale (issues 7 and 17).

    python bench/run.py                                  # N = 1 000 000; writes bench/README.md
    python bench/run.py --quick --json bench/out/quick.json   # N = 100 000, in a few minutes
    python bench/run.py --items 2000 --json out.json     # any N (the smoke test uses a tiny one)

Steps (the build steps run in child processes, so that neither their time nor their memory
enters the figures; `peak_rss_mb` is the ru_maxrss of this process, which runs the
measurements):

1. build (child): the full demo plus the treasure contract of N items, an open round with six
   members' values for each (6 N rows, entered through the product's bulk entry) and its
   stored consensus — `bench/generate.py`; a second file with 5 000 generated contracts
   and their deadline events; and the CSV file of the large import.
2. consensus, on the open round: `consensus_full_s` (the round's consensus recomputed and
   stored with every row stale, as after a bulk entry — the rows are reset to what
   `open_round` wrote before each run, untimed), its baseline (the same consensus by a
   GROUP BY over the 6 N entry rows, what the store did before the pre-pivoted entries) and
   `consensus_incremental_s` (one member corrects one value through `record_assessment`:
   log row, current row, the item's consensus, audit).
3. decide (child): close, record the decisions (→ item_valuation), publish, store the
   União's choice and draft the statement — the product's functions.
4. naive baseline (child): what a quick prototype would do on every page view — read all
   value rows into pandas (`.df()`, floats: the cheap way), group-by median, total per
   contract. It runs in its own process (it is not the product); its memory is reported
   apart (`details.naive.peak_rss_mb`).
5. the large import (child): `import_items` of a CSV of `--big-import-rows` (1 000 000)
   rows into the treasure contract, with its own peak memory (the rows are deleted after
   each run, untimed); baseline: `pandas.read_csv` of the same bytes, no validation.
6. the rest, here: `statement_s` (compute_statement from stored results), the selection
   (`select_items`) over 1 000, N/10 and 600 000 historical items of the contract (baseline:
   a greedy fill in pure Python, no certificate), the deadline engine over the
   5 000-contract file, a 100 000-row CSV import into the contract (the imported rows are
   deleted after each run, untimed), and every page through AppTest as DPC and as the
   treasure contract's explorer (`tests/ui_support.page_as`; one warm-up run, then
   `at.run()` timed; a page over its target is profiled with pyinstrument).
7. what the user feels (children, unless `--no-live`): bench/browser.py — Debian's Chromium against
   `uvicorn service.asgi:app` serving a copy of the main file: the login and every role's pages,
   `--browser-passes` times — and bench/load.py — K people (`--load-k`, default 1, 4, 8) clicking
   through their pages without pause for `--load-seconds`, on a fresh demo database (`db init --demo`);
   then K = 8 with `--pin` and K = 32 thinking 5–15 s between clicks (`--think 5,15`, at least 60 s),
   each with the /verificar probe (issue 28).

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
from datetime import UTC, datetime
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
BIG_IMPORT_ROWS = 1_000_000
EXACT_ITEMS = 1_000
POOL_ITEMS = 600_000          # a treasure wreck's whole historical pool
REPEAT = 3
PAGE_TARGET_S = 0.3

# The keys of the result, in the order of the table.
KEYS: tuple[str, ...] = (
    "items", "consensus_full_s", "consensus_incremental_s", "naive_view_s", "statement_s",
    "selection_exact_s", "selection_exact_gap", "selection_large_s", "selection_large_gap",
    "selection_600k_s", "selection_600k_gap", "deadlines_s", "authority_deadlines_5k_s", "page_deadlines_requests_s",
    "import_s", "import_rows", "import_1m_s", "import_1m_rows", "import_1m_rss_mb",
    "page_inventory_s", "page_partition_s", "page_deadlines_s", "page_documents_s", "pages_slowest_s", "peak_rss_mb",
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
    "selection_600k_s": "União's choice over 600 000 historical items",
    "selection_600k_gap": "certified gap, 600 000 items",
    "deadlines_s": "deadline engine, 5 000 contracts",
    "authority_deadlines_5k_s": "what the Authority owes (authority_deadlines), 5 000 contracts' requests",
    "page_deadlines_requests_s": "Prazos, tab O que a Autoridade deve, 5 000 contracts' requests (AppTest, DPC)",
    "import_s": "CSV import with validation",
    "import_rows": "rows imported",
    "import_1m_s": "CSV import with validation, large file",
    "import_1m_rows": "rows imported, large file",
    "import_1m_rss_mb": "peak RSS of the process importing the large file (MB)",
    "page_inventory_s": "page Inventário as DPC (AppTest)",
    "page_partition_s": "page Demonstrativos as DPC (AppTest)",
    "page_deadlines_s": "page Prazos as DPC (AppTest)",
    "page_documents_s": "page Documentos e fotos as DPC (AppTest)",
    "pages_slowest_s": "slowest page of the pages table below",
    "peak_rss_mb": "peak RSS of the measuring process (MB)",
}
import comparables_bench as cb  # noqa: E402  issue 16: one item's comparables (bench/ is on sys.path)
import proceedings_bench as pb  # noqa: E402  issue 42: the inbox and the office's queue of filings
import signatures_bench as sb  # noqa: E402  issue 28: verifying a 50-page PDF with 6 signatures

KEYS = KEYS[:-1] + cb.KEYS + sb.KEYS + pb.KEYS + KEYS[-1:]
LABELS.update(cb.LABELS)
LABELS.update(sb.LABELS)
LABELS.update(pb.LABELS)
# What the user feels (bench/browser.py on the N-item file, bench/load.py on a fresh demo database), each
# run in a child process by `measure_live`; absent with --no-live (the smoke test), "not run" in the table.
LIVE_KEYS: tuple[str, ...] = ("browser_login_s", "browser_wrecks_s", "browser_pages_slowest_s",
                              "load_k1_server_p95_s", "load_k4_server_p95_s", "load_k8_server_p95_s",
                              "load_k8_pinned_server_p95_s", "load_k32_think_server_p95_s",
                              "load_k32_think_client_p95_s", "verify_k8_p95_s", "verify_k8_unpinned_p95_s")
LABELS.update({
    "browser_login_s": "browser: login → first page settled (Chromium, N-item file)",
    "browser_wrecks_s": "browser: wreck registry with its map, click → settled",
    "browser_pages_slowest_s": "browser: slowest other page, click → settled (median)",
    "load_k1_server_p95_s": "load, 1 person clicking without pause: server time p95 (demo)",
    "load_k4_server_p95_s": "load, 4 people: server time p95 (demo)",
    "load_k8_server_p95_s": "load, 8 people: server time p95 (demo), no error, no logout",
    "load_k8_pinned_server_p95_s": "load, 8 people without pause (first clicks over a 2 s ramp-up), service on "
                                   "core 0, browser on core 1 (--pin): server time p95, no error, no logout",
    "load_k32_think_server_p95_s": "load, 32 people thinking 5–15 s between clicks: server time p95, "
                                   "no error, no logout",
    "load_k32_think_client_p95_s": "load, 32 people thinking 5–15 s (28 of them light, bench/light.py): "
                                   "the 4 Chromium people's client time p95 (click → settled)",
    "verify_k8_p95_s": "/verificar p95 (≈ 2 requests/s, unknown and real code) under 8 people without pause, "
                       "generator pinned apart from the service (--pin)",
    "verify_k8_unpinned_p95_s": "/verificar p95 under 8 people without pause, the browser sharing the service's cores",
})
LOAD_PINNED_TARGET_S, LOAD_THINK_SERVER_TARGET_S, LOAD_THINK_CLIENT_TARGET_S = 0.5, 0.5, 1.0   # issue 28
VERIFY_P95_TARGET_S = 0.05                                                                      # issue 28
BROWSER_LOGIN_TARGET_S, BROWSER_PAGE_TARGET_S, LOAD_P95_TARGET_S = 2.0, 1.0, 1.0
# key → (baseline key in the result, what the baseline is, True when "value is N× faster")
BASELINES: dict[str, tuple[str, str]] = {
    "consensus_full_s": ("consensus_aggregate_s", "GROUP BY over the 6 N entry rows, not written"),
    "consensus_incremental_s": ("consensus_full_s", "the whole round recomputed"),
    "statement_s": ("naive_view_s", "naive page view"),
    "selection_large_s": ("selection_large_greedy_s", "greedy fill in Python, no certificate"),
    "selection_600k_s": ("selection_600k_greedy_s", "greedy fill in Python, no certificate"),
    "import_s": ("import_read_csv_s", "pandas.read_csv of the bytes, no validation"),
    "import_1m_s": ("import_1m_read_csv_s", "pandas.read_csv of the bytes, no validation"),
}


# ======================================================================================
# Targets (issues 17 and 28, at N = 1 000 000 on this machine)
# ======================================================================================
def targets(r: dict[str, Any]) -> dict[str, tuple[str, bool | None]]:
    """key → (target text, met?) — None where the figure has no target of its own."""
    def le(key: str, limit: float) -> bool:
        return r[key] <= limit

    ratio = r["naive_view_s"] / r["statement_s"] if r["statement_s"] > 0 else math.inf
    return {
        "consensus_full_s": ("≤ 1.0 s", le("consensus_full_s", 1.0)),
        "consensus_incremental_s": ("≤ 0.01 s", le("consensus_incremental_s", 0.01)),        # issue 28
        "naive_view_s": ("baseline", None),
        "statement_s": ("≤ 0.1 s and ≥ 10× faster than naive", le("statement_s", 0.1) and ratio >= 10),
        "selection_exact_s": ("≤ 2 s", le("selection_exact_s", 2.0)),
        "selection_exact_gap": ("= 0", r["selection_exact_gap"] == 0),
        "selection_large_s": ("≤ 0.5 s", le("selection_large_s", 0.5)),
        "selection_large_gap": ("≤ 0.001 %", le("selection_large_gap", 0.00001)),
        "selection_600k_s": ("≤ 1.0 s", le("selection_600k_s", 1.0)),
        "selection_600k_gap": ("≤ 0.001 %", le("selection_600k_gap", 0.00001)),
        "deadlines_s": ("≤ 2 s", le("deadlines_s", 2.0)),
        "authority_deadlines_5k_s": ("reported", None),                                     # issue 28
        "page_deadlines_requests_s": (f"≤ {PAGE_TARGET_S} s", le("page_deadlines_requests_s", PAGE_TARGET_S)),
        "import_s": ("≤ 2 s", le("import_s", 2.0)),
        "import_rows": ("100 000", None),
        "import_1m_s": ("≤ 5 s", le("import_1m_s", 5.0)),                                    # issue 28
        "import_1m_rows": ("1 000 000", None),
        "import_1m_rss_mb": ("≤ 1536 MB", le("import_1m_rss_mb", 1536)),
        "page_inventory_s": (f"≤ {PAGE_TARGET_S} s", le("page_inventory_s", PAGE_TARGET_S)),
        "page_partition_s": (f"≤ {PAGE_TARGET_S} s", le("page_partition_s", PAGE_TARGET_S)),
        "page_deadlines_s": (f"≤ {PAGE_TARGET_S} s", le("page_deadlines_s", PAGE_TARGET_S)),
        "page_documents_s": (f"≤ {PAGE_TARGET_S} s", le("page_documents_s", PAGE_TARGET_S)),   # issue 28
        "pages_slowest_s": (f"≤ {PAGE_TARGET_S} s", le("pages_slowest_s", PAGE_TARGET_S)),
        "peak_rss_mb": ("≤ 1024 MB", le("peak_rss_mb", 1024)),
        "items": ("1 000 000", None),
        **cb.targets(r),
        **sb.targets(r),
        **pb.targets(r),
        **live_targets(r),
    }


def live_targets(r: dict[str, Any]) -> dict[str, tuple[str, bool | None]]:
    def le(key: str, limit: float, *, clean: bool = True) -> bool | None:
        return None if r.get(key) is None else r[key] <= limit and clean

    def clean_of(run: dict[str, Any]) -> bool:
        return not run.get("errors") and not run.get("logouts")

    d = r.get("details", {})
    k8 = d.get("load", {}).get("8", {})
    clean = clean_of(k8)
    pinned, think = d.get("load_pinned", {}).get("8", {}), d.get("load_think", {}).get("32", {})
    k8_verify = pinned or k8        # the run verify_k8_p95_s was read from (run_live)
    verify_clean = not k8_verify.get("verify_unexpected") and not k8_verify.get("verify_429")
    return {
        "browser_login_s": (f"≤ {BROWSER_LOGIN_TARGET_S} s", le("browser_login_s", BROWSER_LOGIN_TARGET_S)),
        "browser_wrecks_s": (f"≤ {BROWSER_PAGE_TARGET_S} s", le("browser_wrecks_s", BROWSER_PAGE_TARGET_S)),
        "browser_pages_slowest_s": (f"≤ {BROWSER_PAGE_TARGET_S} s",
                                    le("browser_pages_slowest_s", BROWSER_PAGE_TARGET_S)),
        "load_k1_server_p95_s": ("reported", None),
        "load_k4_server_p95_s": ("reported", None),
        "load_k8_server_p95_s": (f"≤ {LOAD_P95_TARGET_S} s, no error, no logout",
                                 le("load_k8_server_p95_s", LOAD_P95_TARGET_S, clean=clean)),
        "load_k8_pinned_server_p95_s": (f"≤ {LOAD_PINNED_TARGET_S} s, no error, no logout",
                                        le("load_k8_pinned_server_p95_s", LOAD_PINNED_TARGET_S,
                                           clean=clean_of(pinned))),
        "load_k32_think_server_p95_s": (f"≤ {LOAD_THINK_SERVER_TARGET_S} s, no error, no logout",
                                        le("load_k32_think_server_p95_s", LOAD_THINK_SERVER_TARGET_S,
                                           clean=clean_of(think))),
        "load_k32_think_client_p95_s": (f"≤ {LOAD_THINK_CLIENT_TARGET_S} s",
                                        le("load_k32_think_client_p95_s", LOAD_THINK_CLIENT_TARGET_S,
                                           clean=clean_of(think))),
        "verify_k8_p95_s": (f"≤ {VERIFY_P95_TARGET_S} s, only the expected statuses",
                            le("verify_k8_p95_s", VERIFY_P95_TARGET_S, clean=verify_clean)),
        "verify_k8_unpinned_p95_s": ("reported", None),
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
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"[bench {time.perf_counter() - _T0:7.1f} s, peak {rss:5.0f} MB] {text}", file=sys.stderr, flush=True)


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


def reset_peak_rss() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux: `5` into /proc/self/clear_refs),
    so that a child measures the peak of one step, not of what it built before."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


class Peaks:
    """Peak memory of this process per phase (VmHWM reset at the start of each), and over
    the whole run: the highest of the phases' peaks and ru_maxrss (a reset lowers VmHWM,
    and with it ru_maxrss, so the overall peak is kept here)."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = {}
        self.overall = 0.0

    def start(self) -> None:
        self.overall = max(self.overall, own_peak_rss_mb(), peak_rss_mb())
        reset_peak_rss()

    def end(self, name: str) -> None:
        got = round(own_peak_rss_mb(), 1)
        self.phases[name] = max(self.phases.get(name, 0.0), got)
        self.overall = max(self.overall, got, peak_rss_mb())

    def peak(self) -> float:
        return round(max(self.overall, own_peak_rss_mb(), peak_rss_mb()), 1)


PEAKS = Peaks()


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
           "--big-import-rows", str(args.big_import_rows), "--big-import-repeat", str(args.big_import_repeat),
           "--phase-json", str(out)]
    if args.demo_file is not None:
        cmd += ["--demo-file", str(args.demo_file)]
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


def big_csv_path(args: argparse.Namespace) -> Path:
    return Path(args.out) / f"import_{args.big_import_rows}.csv"


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
    # the demo seeded once, copied into both files — or a demo database already made (`--demo-file`)
    own_template = args.demo_file is None
    template = Path(args.out) / "demo_seed.duckdb" if own_template else Path(args.demo_file)
    t = time.perf_counter()
    if own_template:
        _remove(template)
        gen.seed_template(str(template), progress=say)
    info = gen.build_main(str(main_path), args.items, progress=say, template=str(template))
    t_main = time.perf_counter() - t
    t = time.perf_counter()
    counts = gen.build_deadlines(str(dl_path), args.contracts, progress=say, template=str(template))
    t_dl = time.perf_counter() - t
    if own_template:
        _remove(template)
    t = time.perf_counter()
    csv_path = big_csv_path(args)
    if not csv_path.exists():
        tmp = csv_path.with_suffix(".part")
        tmp.write_bytes(gen.import_csv(args.big_import_rows, "CAMP-2026-10"))
        tmp.replace(csv_path)
    say(f"large import file: {args.big_import_rows:,} rows, {csv_path.stat().st_size / 1e6:.0f} MB")
    return {"round_id": info.round_id, "contract_code": info.contract_code, "value_rows": info.value_rows,
            "main_build_s": round(t_main, 2), "deadlines_build_s": round(t_dl, 2),
            "big_csv_s": round(time.perf_counter() - t, 2),
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
    """The baselines, in a process of their own (they are not the product: their memory must
    not count as the measuring process's): the naive page view, the consensus by a GROUP BY
    over the entry rows, and the greedy fill of the selection pools."""
    import duckdb

    main_path, _ = paths(args)
    con = duckdb.connect(str(main_path), read_only=True)
    try:
        t = timed(lambda: naive_view(con), args.repeat)
        rows = con.execute("SELECT count(*) FROM assessment_current").fetchall()[0][0]
        agg = timed(_aggregate_baseline(con, args.round_id), args.repeat)
        ensure(agg.result == args.items, f"the aggregate covered {agg.result} items, not {args.items}")
        greedy = _greedy_baselines(args, con)
    finally:
        con.close()
    return {"naive_view_s": t.median, **t.details(), "value_rows": int(rows), "contracts": int(len(t.result)),
            "consensus_aggregate_s": agg.median, "aggregate": agg.details(items=agg.result), **greedy,
            "peak_rss_mb": round(own_peak_rss_mb(), 1)}


def _greedy_baselines(args: argparse.Namespace, con: Any) -> dict[str, Any]:
    """greedy_fill over the pools of the selection figures (the same items and targets)."""
    from valuation.core.money import to_cents

    out: dict[str, Any] = {}
    cid = con.execute("SELECT id FROM contracts WHERE code = ?", [gen.TREASURE_CODE]).fetchall()[0][0]
    share = Decimal(str(con.execute("SELECT historical_share FROM contracts WHERE id = ?", [cid]).fetchall()[0][0]))
    for key, limit in (("selection_large", max(1, args.items // 10)), ("selection_600k", args.pool_items)):
        table = con.sql("SELECT item_id, value_brl, coalesce(significance, 1) AS significance, must_keep "
                        "FROM item_valuation WHERE contract_id = ? AND historical ORDER BY item_id LIMIT ?",
                        params=[cid, limit]).to_arrow_table()
        items = _sel_items(table)
        target = to_cents(share * sum((it.value for it in items), Decimal(0)))
        g = timed(lambda items=items, target=target: greedy_fill(items, target), args.repeat)
        out[f"{key}_greedy_s"] = g.median
        out[f"{key}_greedy"] = g.details(items=len(items), value=str(g.result))
    return out


def _read_csv_baseline(data: bytes) -> int:
    """pandas.read_csv of an import file as text columns: parsing only, nothing checked."""
    import io

    import pandas as pd

    return len(pd.read_csv(io.BytesIO(data), sep=";", encoding="cp1252", dtype=str, keep_default_na=False))


def _import_runs(store: Any, explorer: Any, data: bytes, name: str, repeat: int,
                 measure_rss: bool = False) -> tuple[Timing, dict[str, Any]]:
    """`import_items` of `data` into the treasure contract `repeat` times; the rows are
    deleted after each run (untimed). With `measure_rss`, the peak RSS of each run (VmHWM
    reset just before it)."""
    from valuation.inventory import item_import

    state: dict[str, Any] = {"rss": []}

    def before() -> None:
        gc.collect()
        if measure_rss:
            state["rss_reset"] = reset_peak_rss()

    def do_import() -> Any:
        return item_import.import_items(store, explorer, gen.TREASURE_CODE, data, name, today=gen.TODAY)

    def undo(result: Any) -> None:   # the next run imports the very same file into the same contract
        if measure_rss:
            state["rss"].append(round(own_peak_rss_mb(), 1))
        state["rows"] = result.rows
        state["in_contract"] = result.items_in_contract

        def delete(tx: Any) -> None:
            tx.execute("DELETE FROM items WHERE import_id = ?", [result.import_id])
            tx.execute("DELETE FROM imports WHERE id = ?", [result.import_id])

        store.write("bench", delete)
        store.checkpoint()

    return timed(do_import, repeat, before=before, after=undo), state


def phase_import_big(args: argparse.Namespace) -> dict[str, Any]:
    """The large import in a process of its own: its peak memory is the import's."""
    from valuation.db.store import Store

    main_path, _ = paths(args)
    data = big_csv_path(args).read_bytes()
    base = timed(lambda: _read_csv_baseline(data), 1)
    store = Store(str(main_path))
    try:
        explorer = gen.principals(store)["explorer"]
        t, state = _import_runs(store, explorer, data, "campanha_2026_10.csv", args.big_import_repeat,
                                measure_rss=True)
    finally:
        store.close()
    return {"import_1m_s": t.median, "import_1m_rows": int(state["rows"]),
            "import_1m_rss_mb": max(state["rss"]) if state.get("rss_reset") else round(own_peak_rss_mb(), 1),
            "import_1m_read_csv_s": base.median,
            **t.details(rss_runs=state["rss"], rss_reset=state.get("rss_reset", False), bytes=len(data),
                        items_in_contract_after=state["in_contract"], read_csv_runs=base.runs),
            "peak_rss_mb": round(own_peak_rss_mb(), 1)}


# ======================================================================================
# Measurements run here
# ======================================================================================
def _consensus_fn() -> Callable[..., int]:
    """The function that recomputes and stores a whole round's consensus."""
    from valuation.commission.consensus_sql import compute_round_consensus

    return compute_round_consensus


def _consensus_table() -> tuple[str, tuple[str, ...] | None]:
    """The table holding the stored consensus and the columns a recompute writes (None: every
    column of the snapshot but the keys and computed_at)."""
    from valuation.commission import consensus_sql

    table = getattr(consensus_sql, "CONSENSUS_TABLE", "item_consensus")
    stored = getattr(consensus_sql, "STORED_COLUMNS", None)
    return table, stored


def _aggregate_baseline(con: Any, round_id: int) -> Callable[[], int]:
    """The round's consensus computed by one GROUP BY over its 6 N entry rows
    (`consensus_sql.consensus_select` over assessment_current, the pivot in the query),
    every column summed, nothing written: what the recompute cost before the pre-pivoted
    entries, without its write."""
    from valuation.commission import consensus_sql as cs

    names = ("id", "method", "quorum", "spread_threshold", "president_id")
    rnd = dict(zip(names, con.execute(f"SELECT {', '.join(names)} FROM assessment_rounds WHERE id = ?",
                                      [round_id]).fetchall()[0]))
    members = [int(r[0]) for r in con.execute(
        "SELECT DISTINCT member_id FROM assessment_current WHERE round_id = ? ORDER BY member_id",
        [round_id]).fetchall()]
    sql = cs.consensus_select(rnd["method"], members=members, with_empty=False)
    params = cs._params(rnd, gen.ROUND_OPENED, with_empty=False)

    names = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM ({sql}) q", params).fetchall()]
    every = "count(*), " + ", ".join(f"count(q.{c})" if c in ("computed_at", "decided_by") else f"sum(q.{c})"
                                     for c in names if c not in ("round_id", "item_id"))

    def run() -> int:    # every column computed (a sum of each), nothing written
        return int(con.execute(f"SELECT {every} FROM ({sql}) q", params).fetchall()[0][0])

    return run


def measure_consensus(args: argparse.Namespace, round_id: int) -> dict[str, Any]:
    from valuation.commission.entries import record_assessment
    from valuation.core.money import to_cents
    from valuation.db.store import Store

    main_path, _ = paths(args)
    PEAKS.start()
    store = Store(str(main_path))
    res: dict[str, Any] = {}
    try:
        users = gen.principals(store)
        compute = _consensus_fn()
        table, stored = _consensus_table()
        cols = [r["column_name"] for r in store.fetch(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index",
            [gen.SNAPSHOT_TABLE]) if r["column_name"] not in ("round_id", "item_id", "computed_at")]
        if stored is not None:
            cols = [c for c in cols if c in stored]
        sets = ", ".join(f"{c} = s.{c}" for c in cols)
        def sql(text: str, params: list[Any] | None = None) -> None:
            cur = store.cursor()
            try:
                cur.execute(text, params).fetchall()
            finally:
                cur.close()

        sql("CREATE OR REPLACE TABLE bench_reference AS SELECT * FROM item_consensus WHERE round_id = ?",
            [round_id])
        compared = [r["column_name"] for r in store.fetch(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'bench_reference' ORDER BY column_index")
            if r["column_name"] not in ("round_id", "item_id", "computed_at")]
        differ = " OR ".join(f"ic.{c} IS DISTINCT FROM r.{c}" for c in compared)

        pivot = store.has_table("consensus_pivot")

        def reset() -> None:   # every row back to what open_round wrote: all N rows stale
            sql(f"UPDATE {table} AS ic SET {sets} FROM {gen.SNAPSHOT_TABLE} s "
                f"WHERE ic.round_id = s.round_id AND ic.item_id = s.item_id AND ic.round_id = ?", [round_id])
            if pivot:       # and marked out of step (migration 011)
                sql("UPDATE consensus_pivot SET basis = NULL WHERE round_id = ?", [round_id])
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
                                                  "in step (close_round after the entries)")

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
            return record_assessment(
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

        repeat = max(args.repeat, 5)        # a few milliseconds each: more runs for a steadier median
        t = timed(change, repeat, before=prepare, after=verify)
        res["consensus_incremental_s"] = t.median
        res["details_incremental"] = t.details(member=member.username, median_checked=method == "median")
        say(f"consensus_incremental_s = {res['consensus_incremental_s']:.4f}")
        sql("DROP TABLE IF EXISTS bench_reference")
    finally:
        store.close()
        PEAKS.end("consensus")
    return res


def _sel_table(store: Any, contract_id: int, limit: int) -> tuple[Any, Decimal]:
    """The first `limit` decided historical items of the contract (Arrow columns, as the
    store reads them), and the art. 20 §2 target for them: round(0.40 × their total) (the
    contract's historical share)."""
    import pyarrow.compute as pc

    from valuation.core.money import to_cents

    cur = store.cursor()
    try:
        t = cur.sql("SELECT item_id, value_brl, coalesce(significance, 1) AS significance, must_keep "
                    "FROM item_valuation WHERE contract_id = ? AND historical ORDER BY item_id LIMIT ?",
                    params=[contract_id, limit]).to_arrow_table()
    finally:
        cur.close()
    total = pc.sum(t.column("value_brl")).as_py() or Decimal(0)
    share = Decimal(str(store.scalar("SELECT historical_share FROM contracts WHERE id = ?", [contract_id])))
    return t, to_cents(share * total)


def _sel_items(t: Any) -> list[Any]:
    from valuation.partition.selection import SelItem

    return [SelItem(str(i), v, int(s), bool(k)) for i, v, s, k in
            zip(*(t.column(c).to_pylist() for c in ("item_id", "value_brl", "significance", "must_keep")))]


def _choice(t: Any, target: Decimal, tol: Decimal) -> Callable[[], Any]:
    """The timed call: what the store runs (`select_pool` over the Arrow columns, the
    conversion included), or `select_items` over SelItems where the code has no pool."""
    from valuation.partition import selection

    if hasattr(selection, "select_pool"):
        cols = [t.column(c) for c in ("item_id", "value_brl", "significance", "must_keep")]
        return lambda: selection.select_pool(selection.pool_from_arrow(*cols), target, tol,
                                             minimise_significance=True)
    items = _sel_items(t)
    return lambda: selection.select_items(items, target, tol, minimise_significance=True)


def greedy_fill(items: list[Any], target: Decimal) -> Decimal:
    """The naive choice: the offered items by value, largest first, while they fit (no second
    stage, no bound, no certificate) — the baseline of the selection figures."""
    left = target
    for it in sorted((it for it in items if not it.must_keep), key=lambda it: it.value, reverse=True):
        if it.value <= left:
            left -= it.value
    return target - left


def measure_selection(args: argparse.Namespace, store: Any, contract_id: int, res: dict[str, Any],
                      details: dict[str, Any]) -> None:
    from valuation.partition import terms

    tol = terms.selection_tolerance(store)
    for key, limit in (("selection_exact", min(EXACT_ITEMS, args.exact_items)),
                       ("selection_large", max(1, args.items // 10)),
                       ("selection_600k", args.pool_items)):
        table, target = _sel_table(store, contract_id, limit)
        say(f"{key}: the choice over {table.num_rows:,} historical items, target {target}")
        t = timed(_choice(table, target, tol), args.repeat)
        r = t.result
        res[f"{key}_s"] = t.median
        res[f"{key}_gap"] = float(r.gap)
        details[key] = t.details(items=table.num_rows, target=str(target), status=r.status, method=r.method,
                                 gap=str(r.gap), selected=len(r.selected), selected_value=str(r.selected_value),
                                 significance=r.significance_handed, significance_bound=r.significance_bound)
        say(f"{key}_s = {t.median:.3f} ({r.status}, gap {r.gap})")


# -- pages ------------------------------------------------------------------------------------
def _pick_contract(at: Any, code: str) -> bool:
    """Choose the treasure contract in the page's "Contrato" selector when it offers it."""
    for box in at.selectbox:
        if box.label in ("Contrato", "Contrato vigente") and any(str(o).startswith(code) for o in box.options):
            if box.value == code:
                return True
            try:   # only when the code is one of the box's values (some boxes hold ids behind labels)
                shown = str(box.format_func(code))
            except Exception:  # noqa: BLE001 - a page's own format function, given a value it does not hold
                return False
            if shown not in box.options:
                return False
            box.set_value(code)
            at.run()
            return True
    return False


def _profile_page(at: Any, path: Path) -> list[str]:
    """One more run with pyinstrument in the thread that runs the page script (AppTest runs it
    in a thread of its own); the text profile is written to `path`; returns its top lines."""
    try:
        from pyinstrument import Profiler
        from streamlit.testing.v1 import local_script_runner as lsr
    except ImportError:
        return ["pyinstrument is not installed"]
    original = lsr.LocalScriptRunner._run_script_thread
    texts: list[str] = []

    def profiled(runner: Any) -> None:
        profiler = Profiler(interval=0.001)
        profiler.start()
        try:
            original(runner)
        finally:
            profiler.stop()
            texts.append(profiler.output_text(unicode=True, color=False, show_all=False))

    lsr.LocalScriptRunner._run_script_thread = profiled
    try:
        at.run()
    finally:
        lsr.LocalScriptRunner._run_script_thread = original
    text = "\n".join(texts) or "no profile recorded"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text.splitlines()[:60]


def _exception_text(at: Any) -> str:
    """The page's exception as AppTest keeps it (message and stack trace)."""
    parts = []
    for e in at.exception:
        stack = getattr(e, "stack_trace", None) or []
        parts.append(str(getattr(e, "message", e)) + ("\n" + "\n".join(stack[-6:]) if stack else ""))
    return "\n".join(parts)


def measure_pages(args: argparse.Namespace, db_path: Path, users: dict[str, Any], code: str) -> dict[str, Any]:
    """Every page of the navigation as DPC, as the treasure contract's explorer and as its office's officer."""
    import logging

    from tests.support.ui import page_as
    from ui import cache as ui_cache
    from ui.registry import PAGES
    from valuation.db import access

    saved_env = os.environ.get("VALUATION_DB")
    # AppTest clears Streamlit's caches outside a runtime, which logs a warning per call.
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    table: dict[str, dict[str, Any]] = {}
    try:
        for role in ("dpc", "explorer", "officer"):
            user = users[role]
            for spec in PAGES:
                if not spec.exists() or not access.may_view_page(user, spec.key):
                    continue
                if args.pages and spec.key not in args.pages:   # --pages: a subset (the smoke test)
                    continue
                say(f"page {spec.key} as {role}")
                PEAKS.start()
                row = table.setdefault(spec.key, {"title": spec.title})
                at = page_as(db_path, user, spec.key, timeout=300)   # the app, then the page: the warm-up
                picked = not at.exception and _pick_contract(at, code)
                if not at.exception:
                    at.run()                                        # a second warm-up on the chosen contract
                if at.exception:   # a page that raises has no time: reported, the others still measured
                    row[f"{role}_error"] = _exception_text(at)
                    say(f"page {spec.key} as {role}: raised {row[f'{role}_error'][:200]}")
                    PEAKS.end(f"page {spec.key} ({role})")
                    continue

                def ok(_: Any, at: Any = at, key: str = spec.key, role: str = role) -> None:
                    ensure(not at.exception, f"{key} as {role}: {_exception_text(at)}")

                t = timed(at.run, args.repeat, after=ok)
                row[role] = t.median

                def cold(at: Any = at) -> None:   # the first view after a write: nothing kept (ui/cache)
                    ui_cache.clear()
                    at.run()
                row[f"{role}_cold"] = timed(cold, args.repeat, after=ok).median
                row[f"{role}_details"] = t.details(contract=code if picked else None,
                                                   errors=[e.value for e in at.error],
                                                   title=[x.value for x in at.title])
                if t.median > PAGE_TARGET_S and args.profile_pages:
                    prof = Path(args.out) / "profiles" / f"page_{spec.key}_{role}.txt"
                    row[f"{role}_profile"] = str(prof)
                    row[f"{role}_profile_top"] = _profile_page(at, prof)
                PEAKS.end(f"page {spec.key} ({role})")
                row[f"{role}_peak_mb"] = PEAKS.phases[f"page {spec.key} ({role})"]
                say(f"page {spec.key} as {role} = {t.median:.3f}")
    finally:   # page_as points the app at db_path through the environment: put it back
        if saved_env is None:
            os.environ.pop("VALUATION_DB", None)
        else:
            os.environ["VALUATION_DB"] = saved_env
    return table


REQUESTS_TAB = "O que a Autoridade deve"


def measure_requests_tab(args: argparse.Namespace, db_path: Path, dpc: Any) -> tuple[float, dict[str, Any]]:
    """Prazos' tab of what the Authority owes, on the deadline file (5 000 contracts and their requests), as the
    DPC: the tab opened as a click opens it (ui/tabs draws the open tab only), two warm-up runs, then the median
    of `repeat` runs; the cold figure clears ui/cache first (the first view after a write)."""
    import logging

    from tests.support.ui import open_tab, page_as
    from ui import cache as ui_cache

    saved_env = os.environ.get("VALUATION_DB")
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    try:
        at = page_as(db_path, dpc, "deadlines", timeout=300)
        open_tab(at, "deadlines", REQUESTS_TAB)
        at.run()
        ensure(not at.exception, f"Prazos ({REQUESTS_TAB}): {_exception_text(at)}")

        def ok(_: Any) -> None:
            ensure(not at.exception, f"Prazos ({REQUESTS_TAB}): {_exception_text(at)}")

        t = timed(at.run, args.repeat, after=ok)

        def cold() -> None:
            ui_cache.clear()
            at.run()
        detail = t.details(cold_s=timed(cold, args.repeat, after=ok).median, errors=[e.value for e in at.error],
                           subheaders=[x.value for x in at.subheader])
        if t.median > PAGE_TARGET_S and args.profile_pages:
            prof = Path(args.out) / "profiles" / "page_deadlines_requests_dpc.txt"
            detail["profile"], detail["profile_top"] = str(prof), _profile_page(at, prof)
        say(f"page_deadlines_requests_s = {t.median:.3f}")
        return t.median, detail
    finally:
        if saved_env is None:
            os.environ.pop("VALUATION_DB", None)
        else:
            os.environ["VALUATION_DB"] = saved_env


def measure_rest(args: argparse.Namespace) -> dict[str, Any]:
    from valuation.db.store import Store
    from valuation.deadlines import engine as deadline_engine
    from valuation.partition import statements
    from valuation.proceedings.requests import authority_deadlines

    main_path, dl_path = paths(args)
    res: dict[str, Any] = {}
    details: dict[str, Any] = {}
    PEAKS.start()
    store = Store(str(main_path))
    try:
        users = gen.principals(store)
        dpc = users["dpc"]
        contract_id = int(store.scalar("SELECT id FROM contracts WHERE code = ?", [gen.TREASURE_CODE]))

        PEAKS.end("open")
        PEAKS.start()
        say("statement: compute_statement from stored results")
        t = timed(lambda: statements.compute_statement(store, dpc, gen.TREASURE_CODE, as_of=gen.TODAY), args.repeat)
        res["statement_s"], doc = t.median, t.result
        details["statement"] = t.details(net=str(doc.net), gross=str(getattr(doc.result, "gross", None)),
                                         historical_items=doc.historical_items, other_items=doc.other_items,
                                         blockers=list(doc.blockers))
        say(f"statement_s = {res['statement_s']:.4f}")

        PEAKS.end("statement")
        PEAKS.start()
        measure_selection(args, store, contract_id, res, details)
        PEAKS.end("selection")
        PEAKS.start()

        say("import: a CSV of new items into the treasure contract")
        data = gen.import_csv(args.import_rows, "CAMP-2026-09")
        base = timed(lambda data=data: _read_csv_baseline(data), args.repeat)
        t, state = _import_runs(store, users["explorer"], data, "campanha_2026_09.csv", args.repeat)
        res["import_s"] = t.median
        res["import_rows"] = int(state["rows"])
        res["import_read_csv_s"] = base.median
        details["import"] = t.details(bytes=len(data), items_in_contract_after=state["in_contract"],
                                      user=users["explorer"].username, read_csv_runs=base.runs)
        say(f"import_s = {res['import_s']:.3f} ({res['import_rows']:,} rows)")
        del data
        PEAKS.end("import")

        pages = measure_pages(args, main_path, users, gen.TREASURE_CODE)
        details["pages"] = pages
        for figure, key in (("page_inventory_s", "inventory"), ("page_partition_s", "statements"),
                            ("page_deadlines_s", "deadlines"), ("page_documents_s", "documents")):
            if key in pages:                  # --pages may name others only
                res[figure] = pages[key]["dpc"]
        slowest = max((row[r], f"{k} ({r})") for k, row in pages.items() for r in ("dpc", "explorer", "officer")
                      if r in row)
        res["pages_slowest_s"], details["pages_slowest"] = slowest
    finally:
        store.close()

    say(f"deadlines: compute_deadlines over {args.contracts:,} generated contracts (+ the demo)")
    PEAKS.start()
    dl_store = Store(str(dl_path))
    try:
        dpc = gen.principals(dl_store)["dpc"]
        t = timed(lambda: deadline_engine.compute_deadlines(dl_store, dpc, as_of=gen.TODAY), args.repeat)
        res["deadlines_s"], frame = t.median, t.result
        details["deadlines"] = t.details(rows=int(len(frame)),
                                         contracts=int(dl_store.scalar("SELECT count(*) FROM contracts")),
                                         states={str(k): int(v) for k, v in frame["state"].value_counts().items()})
        say(f"deadlines_s = {res['deadlines_s']:.3f} ({len(frame):,} deadlines)")
        t = timed(lambda: authority_deadlines(dl_store, dpc, as_of=gen.TODAY), args.repeat)
        res["authority_deadlines_5k_s"] = t.median
        details["authority_deadlines_5k"] = t.details(
            rows=len(t.result), requests=int(dl_store.scalar("SELECT count(*) FROM requests")),
            overdue=sum(1 for r in t.result if r["state"] == "overdue"))
        say(f"authority_deadlines_5k_s = {t.median:.3f} ({len(t.result):,} rows)")
    finally:
        dl_store.close()
        PEAKS.end("deadlines")
    PEAKS.start()
    res["page_deadlines_requests_s"], details["page_deadlines_requests"] = measure_requests_tab(args, dl_path, dpc)
    PEAKS.end("page Prazos, requests")
    res["details"] = details
    return res


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


def phase_comparables(args: argparse.Namespace) -> dict[str, Any]:
    main_path, _ = paths(args)
    out = cb.measure(main_path, args.repeat, say=say)
    out["peak_rss_mb"] = round(own_peak_rss_mb(), 1)
    return out


def measure_comparables(args: argparse.Namespace) -> dict[str, Any]:
    """Issue 16: one item's comparables over the main file's N published decisions, beside a
    pandas group-by baseline (bench/comparables_bench.py says exactly what is timed) — in a child
    process: the baseline's frame of every published decision (~1.2 GB at N = 1 000 000) was the
    measuring process's peak."""
    from valuation.db.shared import close_shared

    close_shared()   # the pages' Store holds the main file (one process per DuckDB file)
    out = child("comparables", args)
    out.pop("wall_s", None)
    details = out.setdefault("details", {})
    if isinstance(details, dict):
        details["process_peak_rss_mb"] = out.pop("peak_rss_mb", None)
    say(f"comparables_s = {out['comparables_s']:.4f} ({out['comparables_ratio']:,.0f}× the pandas baseline)")
    return out


def _run_script(cmd: list[str], what: str) -> None:
    say(f"{what}: {' '.join(Path(c).name if c.endswith('.py') else c for c in cmd[1:])}")
    done = subprocess.run(cmd, cwd=ROOT, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"{what} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")


def measure_live(args: argparse.Namespace) -> dict[str, Any]:
    """What the user feels: bench/browser.py (Debian's Chromium, every role's pages, the login) against
    the service serving a copy of the N-item file, and bench/load.py (K people clicking without pause)
    against a fresh demo database (`db init --demo`, as the README's start command) — each its own
    child process, with the service its own (`uvicorn service.asgi:app`)."""
    from valuation.db.shared import close_shared

    close_shared()   # the service must own its file: nothing here may hold the main file
    main_path, _ = paths(args)
    out = Path(args.out)
    browser_json = out / "browser.json"
    _run_script([sys.executable, str(HERE / "browser.py"), "--db", str(main_path), "--treasure", gen.TREASURE_CODE,
                 "--label", f"N = {args.items:,}".replace(",", " "), "--passes", str(args.browser_passes),
                 "--scratch", str(out / "browser"), "--json", str(browser_json)], "browser (child process)")
    demo = out / "demo.duckdb"
    for suffix in ("", ".wal"):
        Path(str(demo) + suffix).unlink(missing_ok=True)
    _run_script([sys.executable, "-m", "valuation", "db", "init", "--db", str(demo), "--demo"], "demo database")

    def load(name: str, what: str, *extra: str, seconds: float = args.load_seconds) -> tuple[dict[str, Any],
                                                                                              dict[str, Any]]:
        """bench/load.py in a child process on the demo database: its JSON, and its runs by K without the
        people."""
        got = out / f"{name}.json"
        _run_script([sys.executable, str(HERE / "load.py"), "--db", str(demo), *extra, "--seconds", str(seconds),
                     "--scratch", str(out / name), "--json", str(got)], what)
        doc = json.loads(got.read_text(encoding="utf-8"))
        return doc, {str(r["k"]): {x: v for x, v in r.items() if x != "people"} for r in doc["runs"]}

    load_info, by_k = load("load", "load (child process)", "--k", args.load_k)
    pinned = (load("load_pinned", "load, pinned (child process)", "--k", "8", "--pin")[1]
              if len(os.sched_getaffinity(0)) >= 2 else {})   # --pin needs two cores: else the row says "not run"
    think = load("load_think", "load, thinking (child process)", "--k", "32", "--light", "28", "--think", "5,15",
                 seconds=max(args.load_seconds, 60))[1]
    browser = json.loads(browser_json.read_text(encoding="utf-8"))
    pages = browser["pages"]
    others = {k: p["median_s"] for k, p in pages.items() if k != "wrecks"}
    res: dict[str, Any] = {
        "browser_login_s": browser["login"]["median_s"],
        "browser_wrecks_s": pages["wrecks"]["median_s"] if "wrecks" in pages else None,
        "browser_pages_slowest_s": max(others.values()) if others else None,
        **{f"load_k{k}_server_p95_s": by_k[str(k)]["server_p95_s"] if str(k) in by_k else None for k in (1, 4, 8)},
        "load_k8_pinned_server_p95_s": pinned.get("8", {}).get("server_p95_s"),
        "load_k32_think_server_p95_s": think.get("32", {}).get("server_p95_s"),
        "load_k32_think_client_p95_s": think.get("32", {}).get("client_p95_s"),
        # under K = 8 as the issue measures K = 8: the generator pinned apart from the service (--pin); where
        # --pin could not run, the unpinned K = 8 run (its browser shares the service's cores)
        "verify_k8_p95_s": (pinned or by_k).get("8", {}).get("verify_p95_s"),
        "verify_k8_unpinned_p95_s": by_k.get("8", {}).get("verify_p95_s"),
    }
    slowest = max(others, key=lambda k: others[k]) if others else None
    say(f"browser: login {res['browser_login_s']} s, wrecks {res['browser_wrecks_s']} s, slowest other "
        f"{slowest} {res['browser_pages_slowest_s']} s; load p95 "
        + ", ".join(f"K={k} {r['server_p95_s']} s" for k, r in by_k.items()))
    details = {"browser": {k: browser[k] for k in ("date", "chromium", "passes", "login", "pages", "interactions",
                                                   "machine")},
               "browser_slowest_page": slowest,
               "load": by_k, "load_pinned": pinned, "load_think": think,
               "load_machine": load_info.get("machine"), "load_seconds": load_info.get("seconds")}
    return {**res, "details": details}


def _fmt(key: str, value: Any) -> str:
    if key == "comparables_ratio":
        return f"{value:,.0f}×"
    if key in ("items", "import_rows", "import_1m_rows"):
        return f"{int(value):,}".replace(",", " ")
    if key.endswith("_gap"):
        return "0" if value == 0 else f"{value * 100:.2g} %"
    if key.endswith("_mb"):
        return f"{value:,.0f} MB"
    return _secs(value)


def _secs(value: float) -> str:
    return f"{value:.4f} s" if value < 1 else f"{value:.2f} s"


def _baseline_cell(key: str, result: dict[str, Any]) -> str:
    if key not in BASELINES:
        return ""
    base_key, what = BASELINES[key]
    base = result.get("baselines", {}).get(base_key, result.get(base_key))
    value = result[key]
    if base is None or not value:
        return ""
    return f"{what}: {_secs(base)} ({base / value:.1f}×)"


def table(result: dict[str, Any]) -> str:
    met = targets(result)
    lines = ["| figure | what | value | target | | baseline, same run (× = baseline ÷ value) |",
             "|---|---|---:|---|---|---|"]
    for key in KEYS + LIVE_KEYS:
        text, ok = met[key]
        if result.get(key) is None:
            lines.append(f"| `{key}` | {LABELS[key]} | not run | {text} | | |")
            continue
        mark = "" if ok is None else ("met" if ok else "**missed**")
        lines.append(f"| `{key}` | {LABELS[key]} | {_fmt(key, result[key])} | {text} | {mark} | "
                     f"{_baseline_cell(key, result)} |")
    return "\n".join(lines)


def load_table(load: dict[str, dict[str, Any]]) -> str:
    lines = ["| K | views | server p50 | server p95 | server max | script CPU p95 | client p50 | client p95 "
             "| errors | logouts | service CPU (cores, mean / max) | browser CPU | service RSS (MB) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|"]
    for k, r in load.items():
        lines.append(f"| {k} | {r['views']} | {r['server_p50_s']:.2f} s | {r['server_p95_s']:.2f} s "
                     f"| {r['server_max_s']:.2f} s | {r['server_cpu_p95_s']:.3f} s | {r['client_p50_s']:.2f} s "
                     f"| {r['client_p95_s']:.2f} s | {len(r['errors'])} | {r['logouts']} "
                     f"| {r['cpu_cores_mean']} / {r['cpu_cores_max']} | {r['browser_cpu_cores_mean']} "
                     f"| {r['rss_mb_before']:.0f} → {r['rss_mb_peak']:.0f} ({r['rss_mb_per_session']} per session) |")
    lines.append("")
    for k, r in load.items():
        slow = list(r["by_page_p95_s"].items())[:5]
        lines.append(f"- K = {k}, slowest pages (server p95): " + ", ".join(f"`{p}` {v:.2f} s" for p, v in slow))
    return "\n".join(lines)


def pages_table(pages: dict[str, dict[str, Any]]) -> str:
    roles = ("dpc", "explorer", "officer")
    names = {"dpc": "DPC", "explorer": "explorer", "officer": "officer"}
    lines = ["| page | title | " + " | ".join(names[r] for r in roles) + " | | "
             + " | ".join(f"{names[r]}, first view after a write" for r in roles) + " | | peak RSS |",
             "|---|---|" + "---:|" * len(roles) + "---|" + "---:|" * len(roles) + "---|---:|"]

    def mark(times: list[float], errors: bool) -> str:
        return "**error**" if errors else "met" if times and max(times) <= PAGE_TARGET_S else "**missed**"

    for key, row in pages.items():
        errors = any(f"{r}_error" in row for r in roles)
        cells = [_secs(row[r]) if r in row else "raised" if f"{r}_error" in row else "—" for r in roles]
        cold = [_secs(row[f"{r}_cold"]) if f"{r}_cold" in row else "—" for r in roles]
        peak = max((row[f"{r}_peak_mb"] for r in roles if f"{r}_peak_mb" in row), default=0)
        lines.append(f"| `pages/{key}.py` | {row['title']} | " + " | ".join(cells)
                     + f" | {mark([row[r] for r in roles if r in row], errors)} | " + " | ".join(cold)
                     + f" | {mark([row[r + '_cold'] for r in roles if r + '_cold' in row], errors)} | {peak:,.0f} MB |")
    return "\n".join(lines)


def browser_table(browser: dict[str, Any]) -> str:
    lines = ["| page | roles | click → settled, median | first visit | worst | server (script run), median |",
             "|---|---|---:|---:|---:|---:|"]
    for key, p in browser["pages"].items():
        server = "—" if p["server_median_s"] != p["server_median_s"] else _secs(p["server_median_s"])
        lines.append(f"| `{key}` | {', '.join(p['roles'])} | {_secs(p['median_s'])} | {_secs(p['first_median_s'])} "
                     f"| {_secs(p['max_s'])} | {server} |")
    for name, secs in browser.get("interactions", {}).items():
        lines.append(f"| {name} | | {_secs(secs)} | | | |")
    return "\n".join(lines)


def live_section(d: dict[str, Any]) -> list[str]:
    if "browser" not in d:
        return ["The browser and load runs were not run (`--no-live`).", ""]
    b = d["browser"]
    return [
        f"In the browser ({b['chromium']}, bench/browser.py, {b['passes']} passes per role over a copy of the "
        f"N-item file served by `uvicorn service.asgi:app`): login → first page median "
        f"{_secs(b['login']['median_s'])} (worst {_secs(b['login']['max_s'])}; credentials typed at "
        f"{b['login'].get('typing_ms_per_key')} ms per key; pasted at once, with no time for the login page to "
        f"fetch the first page's code: {_secs(b['login'].get('pasted_median_s', float('nan')))}); every page "
        "from the click on its sidebar link to settled:",
        "",
        browser_table(b),
        "",
        f"Under load (bench/load.py on a fresh demo database, {d.get('load_seconds')} s per K, one Chromium with "
        "K contexts of different roles clicking through their pages without pause; server time = the script run "
        "of each page view as the service logged it):",
        "",
        load_table(d["load"]),
        "",
        *(["The same, K = 8 with `--pin` (the service on core 0, the browser on core 1):", "",
           load_table(d["load_pinned"]), ""] if d.get("load_pinned") else []),
        *(["The same, K = 32 people thinking 5–15 s between settled page and next click (`--think 5,15`; "
           "client time without the thinking):", "", load_table(d["load_think"]), ""] if d.get("load_think") else []),
        "`/verificar` while each K ran (≈ 2 requests/s, alternately an unknown code and a real one, each from an "
        "address of its own): " + "; ".join(
            f"K = {k}: p50 {r.get('verify_p50_s')} s, p95 {r.get('verify_p95_s')} s, max {r.get('verify_max_s')} s, "
            f"{r.get('verify_n')} requests, 429: {r.get('verify_429')}, "
            f"other statuses: {len(r.get('verify_unexpected') or [])}"
            for k, r in d["load"].items()),
        "",
    ]


BEGIN, END = "<!-- bench:begin (written by bench/run.py) -->", "<!-- bench:end -->"


def write_readme(path: Path, result: dict[str, Any]) -> None:
    m = result["details"]["machine"]
    d = result["details"]
    block = "\n".join([
        BEGIN,
        f"Run of {d['date']} — `python bench/run.py"
        + ("" if result["items"] == FULL_ITEMS else f" --items {result['items']}") + "`, "
        f"median of {d['repeat']} runs each (of {d['big_import_repeat']} for the large import, "
        f"of {max(d['repeat'], 5)} for the one-value change).",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; Python {m['python']}, "
        f"DuckDB {m['duckdb']}; {m['platform']}. Load average at the start "
        f"{', '.join(map(str, m['load_avg_start']))}, at the end {', '.join(map(str, m['load_avg_end']))} "
        "(the machine is shared: other work running meanwhile slows the figures down).",
        "",
        table(result),
        "",
        f"Every page (AppTest server time of `at.run()` after two warm-up runs, median of {d['repeat']}; "
        "the treasure contract chosen where the page has a contract selector; target ≤ "
        f"{PAGE_TARGET_S} s). The first columns are a view of the page again (another user's click, a widget "
        "changed elsewhere): what the page reads through `ui/cache.py` is kept until the next write; the "
        "*first view after a write* is the same run with that cache emptied first:",
        "",
        pages_table(d["pages"]),
        "",
        *live_section(d),
        "Peak RSS of the measuring process by phase (VmHWM reset at each phase's start; the pages' peaks are in "
        "their table, each including what the pages before it left allocated): "
        + ", ".join(f"{k} {v:,.0f} MB" for k, v in d["peaks_mb"].items() if not k.startswith("page ")) + ".",
        "",
        f"Build (not in the figures): main file {d['build']['main_build_s']} s, deadline file "
        f"{d['build']['deadlines_build_s']} s, large import file {d['build']['big_csv_s']} s, decisions + "
        f"choice + draft {d['decide']['decide_s']} s. Every run of every figure (wall and CPU time), and the "
        f"checks made on the results, are in `bench/out/last.json`.",
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
    ap.add_argument("--big-import-rows", type=int, default=None,
                    help=f"rows of the large imported CSV (default {BIG_IMPORT_ROWS:,}; --quick: N)")
    ap.add_argument("--big-import-repeat", type=int, default=1, help="runs of the large import")
    ap.add_argument("--exact-items", type=int, default=EXACT_ITEMS, help="items of the exact selection")
    ap.add_argument("--pool-items", type=int, default=POOL_ITEMS, help="items of the whole-pool selection")
    ap.add_argument("--pages", type=lambda s: {k for k in s.split(",") if k}, default=set(),
                    help="measure only these page keys, comma-separated (default: every page)")
    ap.add_argument("--no-live", dest="live", action="store_false",
                    help="skip the browser and the load runs (bench/browser.py, bench/load.py)")
    ap.add_argument("--browser-passes", type=int, default=3, help="passes over every role's pages in the browser")
    ap.add_argument("--load-k", default="1,4,8", help="the K of the load runs")
    ap.add_argument("--load-seconds", type=float, default=60, help="seconds of each load run")
    ap.add_argument("--no-profile-pages", dest="profile_pages", action="store_false",
                    help="do not profile the pages over their target")
    ap.add_argument("--demo-file", type=Path, default=None,
                    help="a demo database already made by `db init --demo` (closed), copied with its files "
                         "instead of seeding the demo again")
    ap.add_argument("--phase", choices=("build", "decide", "naive", "import_big", "comparables"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--phase-json", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--round-id", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.items is None:
        args.items = QUICK_ITEMS if args.quick else FULL_ITEMS
    if args.big_import_rows is None:
        args.big_import_rows = BIG_IMPORT_ROWS if args.items >= FULL_ITEMS else args.items
    if args.items < 10 or args.repeat < 1 or args.contracts < 1 or args.import_rows < 1 \
            or args.big_import_rows < 1 or args.big_import_repeat < 1:
        ap.error("--items ≥ 10, --repeat, --contracts, --import-rows and --big-import-* ≥ 1")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    args.out = Path(args.out).resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.phase:
        phases = {"build": phase_build, "decide": phase_decide, "naive": phase_naive, "import_big": phase_import_big,
                  "comparables": phase_comparables}
        result = phases[args.phase](args)
        args.phase_json.write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
        return result

    started = datetime.now(UTC)
    mach = machine()
    say(f"N = {args.items:,}; building the files in a child process")
    build = child("build", args)
    consensus = measure_consensus(args, build["round_id"])
    say("deciding the round, storing the choice, drafting the statement (child process)")
    decide = child("decide", args, round_id=build["round_id"])
    say("baselines: the naive view, the GROUP BY consensus, the greedy fills (child process)")
    naive = child("naive", args, round_id=build["round_id"])
    say(f"naive_view_s = {naive['naive_view_s']:.3f}")
    say(f"large import: {args.big_import_rows:,} rows (child process)")
    big = child("import_big", args)
    say(f"import_1m_s = {big['import_1m_s']:.2f}, peak {big['import_1m_rss_mb']:.0f} MB")
    rest = measure_rest(args)
    comparables = measure_comparables(args)
    signature = sb.measure(args.repeat, say=say)
    say("the inbox and the queue of filings (notices and filings added to the N-item file)")
    proceedings = pb.measure_on(paths(args)[0], args.items, args.repeat, say)
    live = measure_live(args) if args.live else {"details": {}}

    details = rest.pop("details")
    details["comparables"] = comparables.pop("details")
    details.update(signature.pop("details"))
    details.update(proceedings.pop("details"))
    details.update(live.pop("details"))
    baselines = {k: rest.pop(k) for k in list(rest) if k.endswith("_read_csv_s")}
    baselines.update({k: naive[k] for k in ("consensus_aggregate_s", "selection_large_greedy_s",
                                            "selection_600k_greedy_s")})
    baselines["import_1m_read_csv_s"] = big["import_1m_read_csv_s"]
    figures = {k: v for k, v in consensus.items() if not k.startswith("details")}
    result: dict[str, Any] = {"items": args.items, **figures,
                              "naive_view_s": naive["naive_view_s"], **rest, **comparables, **signature, **proceedings,
                              **{k: big[k] for k in ("import_1m_s", "import_1m_rows", "import_1m_rss_mb")},
                              **live,
                              "peak_rss_mb": PEAKS.peak()}
    mach["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    details.update({
        "date": started.strftime("%Y-%m-%d %H:%M UTC"), "repeat": args.repeat,
        "big_import_repeat": args.big_import_repeat, "machine": mach,
        "build": build, "decide": decide, "naive": naive, "import_1m": big,
        "consensus": {k.removeprefix("details_"): v for k, v in consensus.items() if k.startswith("details")},
        "deadline_contracts": args.contracts, "total_s": round(time.perf_counter() - _T0, 1),
        "peaks_mb": PEAKS.phases,
    })
    result = {k: result[k] for k in KEYS} | {k: result.get(k) for k in LIVE_KEYS} | {
        "baselines": baselines,
        "targets": {k: {"target": t, "met": ok} for k, (t, ok) in targets({**result, "details": details}).items()},
        "details": details}
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
    print()
    print(pages_table(details["pages"]))
    say(f"done in {time.perf_counter() - _T0:.0f} s")
    return result


if __name__ == "__main__":
    main()
