"""The União's choice (Lei 7.542/1986 art. 20 §4; art. 21 III; rules.md §3).

Locks in/out, and stored runs of `valuation.partition.selection.select_pool` with their
status, certified gap and chosen items. A run is *current* while its fingerprint still matches
the stored data: the pool's count and total, the newest decision in force (decisions are
append-only and `item_valuation` follows them, so any new decision moves it), the target and
the locks. The pool sums are exact SQL sums over `item_valuation`, memoised per store while
the decisions are unchanged (`cached_aggregates`).

Access: `choose_items` (dpc).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np

from valuation.core.errors import (
    ConflictError,
    InputError,
    Problem,
)
from valuation.db.access import Principal, require
from valuation.db.paging import MAX_PAGE_SIZE, check_page
from valuation.db.search import fold
from valuation.partition.pools import (
    POOLS,
    SelectionRun,
    aggregates,
    check_pool,
    current_run,
    pool_context,
    pool_fingerprint,
    pool_targets,
    run_from_row,
    stored_locks,
)
from valuation.partition.selection import (
    EXACT_LIMIT,
    TIME_LIMIT_S,
    Pool,
    SelectionResult,
    pool_from_arrow,
    select_pool,
)
from valuation.partition.terms import (
    compensation_of,
    contract_for,
    selection_tolerance,
    stored_terms,
)

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

    Db = Store | Tx

POOL_LABELS: dict[str, str] = {"historical": "bens históricos (art. 20 §4)",
                               "other": "demais bens (art. 21 III / art. 22 p.u.)"}
STATUS_PT: dict[str, str] = {"optimal": "ótima (comprovada)", "feasible": "viável", "infeasible": "inviável"}
# the steps `valuation.partition.selection` records in a result's method ('greedy+exchange+mitm'), in words
METHOD_STEPS_PT: dict[str, str] = {
    "enumeration": "enumeração completa", "dp": "programação dinâmica", "all": "todos os itens cabem no alvo",
    "greedy": "heurística gulosa", "exchange": "trocas", "mitm": "busca exata por metades",
    "milp": "programação inteira (HiGHS)", "lp-bound": "limite da relaxação linear", "none": "nenhum",
}


def method_pt(method: str | None) -> str:
    """'greedy+exchange+milp' → 'heurística gulosa, trocas, programação inteira (HiGHS)'."""
    if not method:
        return "—"
    return ", ".join(METHOD_STEPS_PT.get(step, step) for step in method.split("+"))


def percent(fraction: Decimal, places: int = 2) -> str:
    """A fraction as the choice pages and statements print it: 0.01 → '1,00 %'; a gap with 4 places."""
    return f"{fraction * 100:.{places}f}".replace(".", ",") + " %"


@dataclass(frozen=True)
class PoolSummary:
    contract_code: str
    pool: str
    applicable: bool
    reason: str | None                 # why the choice does not apply (pt-BR)
    items: int
    total: Decimal
    must_keep: int
    locks_give: int
    locks_keep: int
    target: Decimal | None
    tolerance_policy: Decimal
    current_run: SelectionRun | None


@dataclass(frozen=True)
class SelectionOutcome:
    contract_code: str
    pool: str
    target: Decimal
    tolerance: Decimal
    items: int
    locks: dict[int, str]
    result: SelectionResult
    selected_ids: tuple[int, ...]
    by_significance: tuple[tuple[int, int, Decimal], ...]   # (significance, items, value) handed over
    fingerprint: str
    run_id: int | None = None



def pool_summary(store: Store, user: Principal, code: str, pool: str = "historical") -> PoolSummary:
    """The pool the União chooses from: its decided items, total, locks, target and current run."""
    require(user, "choose_items")
    c, agg, targets, locks = pool_context(store, user, code, pool)
    target = targets.historical if pool == "historical" else targets.other
    reason = targets.historical_reason if pool == "historical" else targets.other_reason
    fp = pool_fingerprint(pool, agg, target, locks)
    return PoolSummary(
        contract_code=c["code"], pool=pool, applicable=target is not None, reason=reason,
        items=agg.h_n if pool == "historical" else agg.o_n,
        total=agg.h_total if pool == "historical" else agg.o_total,
        must_keep=int(store.scalar("SELECT count(*) FROM item_valuation WHERE contract_id = ? AND historical = ? "
                                   "AND must_keep", [c["id"], pool == "historical"])),
        locks_give=sum(1 for v in locks.values() if v == "give"),
        locks_keep=sum(1 for v in locks.values() if v == "keep"),
        target=target, tolerance_policy=selection_tolerance(store),
        current_run=current_run(store, c["id"], pool, fp) if target is not None else None)


def pool_items(store: Store, user: Principal, code: str, *, pool: str = "historical", page: int = 1,
               page_size: int = 50, search: str | None = None, locked_only: bool = False) -> tuple[pd.DataFrame, int]:
    """One page of the pool's decided items (item_id, item_code, description, value_brl,
    significance, must_keep, lock), by value descending; and the number of matching items."""
    require(user, "choose_items")
    check_pool(pool)
    check_page(page, page_size, MAX_PAGE_SIZE)
    c = contract_for(store, user, code)
    where = ["iv.contract_id = ?", "iv.historical = ?"]
    params: list[Any] = [c["id"], pool == "historical"]
    if search and search.strip():
        where.append("(contains(lower(i.item_code), ?) OR contains(lower(strip_accents(i.description)), ?))")
        params += [search.strip().lower(), fold(search)]
    if locked_only:
        where.append("l.lock IS NOT NULL")
    base = (f"FROM item_valuation iv JOIN items i ON i.id = iv.item_id LEFT JOIN selection_locks l "
            f"ON l.contract_id = iv.contract_id AND l.item_id = iv.item_id WHERE {' AND '.join(where)}")
    # Without a search the count needs no item row (a million-row join less).
    counted = base if search and search.strip() else base.replace("JOIN items i ON i.id = iv.item_id ", "", 1)
    total = int(store.scalar(f"SELECT count(*) {counted}", params))
    cut = page * page_size - 1
    if counted != base and total > cut:
        # Issue 17: the page's lowest value first (a top-N of one column, no item row), then only the
        # items worth at least that are joined to their codes; the ties at the cut stay in, so the
        # order by (value, code) and the page are exactly those of the whole join.
        lowest = store.scalar(f"SELECT iv.value_brl {counted} ORDER BY iv.value_brl DESC LIMIT 1 OFFSET ?",
                              [*params, cut])
        if lowest is not None:
            base += " AND iv.value_brl >= ?"
            params = [*params, lowest]
    df = store.fetch_df(
        f"SELECT iv.item_id, i.item_code, i.description, iv.value_brl, iv.significance, iv.must_keep, l.lock "
        f"{base} ORDER BY iv.value_brl DESC, i.item_code LIMIT ? OFFSET ?",
        [*params, page_size, (page - 1) * page_size])
    return df, total


def item_ids_for_codes(store: Store, user: Principal, code: str, codes: Sequence[str], *,
                       pool: str = "historical") -> dict[str, int]:
    """Item codes of the pool → item ids; InputError listing the codes that are not in it."""
    require(user, "choose_items")
    check_pool(pool)
    c = contract_for(store, user, code)
    wanted = list(dict.fromkeys(s.strip() for s in codes if isinstance(s, str) and s.strip()))
    if not wanted:
        return {}
    import pyarrow as pa
    cur = store.cursor()
    try:
        cur.register("_wanted_codes", pa.table({"code": pa.array(wanted, pa.string())}))
        rows = cur.execute(
            "SELECT i.item_code, i.id FROM _wanted_codes w JOIN items i ON i.item_code = w.code AND i.contract_id = ? "
            "JOIN item_valuation iv ON iv.item_id = i.id AND iv.historical = ?", [c["id"], pool == "historical"]
        ).fetchall()
    finally:
        cur.close()
    found = {r[0]: int(r[1]) for r in rows}
    missing = [w for w in wanted if w not in found]
    if missing:
        shown = ", ".join(missing[:20]) + (" …" if len(missing) > 20 else "")
        raise InputError(Problem("codes", f"Itens fora dos {POOL_LABELS[pool]} decididos do contrato {code}: {shown}."))
    return found


def set_locks(store: Store, user: Principal, code: str, locks: Mapping[int, str | None], *,
              now: datetime | None = None) -> int:
    """Lock decided items in ('give') or out ('keep') of the choice, or unlock (None).
    An item the commission marked must keep cannot be locked give. Returns the rows changed."""
    require(user, "choose_items")
    c = contract_for(store, user, code)
    clean: dict[int, str | None] = {}
    problems: list[Problem] = []
    for k, v in locks.items():
        if isinstance(k, bool) or not isinstance(k, int) or v not in (None, "give", "keep"):
            problems.append(Problem(f"locks.{k}", f"Trava do item {k}: use entregar, manter ou nenhuma."))
        else:
            clean[k] = v
    if problems:
        raise InputError(problems)
    if not clean:
        return 0
    ids = list(clean)
    marks = ", ".join("?" for _ in ids)
    rows = {int(r["item_id"]): r for r in store.fetch(
        f"SELECT iv.item_id, iv.must_keep, i.item_code FROM item_valuation iv JOIN items i ON i.id = iv.item_id "
        f"WHERE iv.contract_id = ? AND iv.item_id IN ({marks})", [c["id"], *ids])}
    for k, v in clean.items():
        if k not in rows:
            problems.append(Problem(f"locks.{k}", f"Item {k}: não é um bem decidido do contrato {code}."))
        elif v == "give" and rows[k]["must_keep"]:
            problems.append(Problem(f"locks.{k}", f"Item {rows[k]['item_code']}: a Comissão o marcou para "
                                                  "permanecer com a União (must keep); não pode ser travado para "
                                                  "entrega."))
    if problems:
        raise InputError(problems)
    moment = now or store.now()

    def run(tx: Tx) -> int:
        before = {int(r["item_id"]): r["lock"] for r in tx.fetch(
            f"SELECT item_id, lock FROM selection_locks WHERE contract_id = ? AND item_id IN ({marks})",
            [c["id"], *ids])}
        changed = {k: v for k, v in clean.items() if before.get(k) != v}
        for k, v in changed.items():
            tx.execute("DELETE FROM selection_locks WHERE contract_id = ? AND item_id = ?", [c["id"], k])
            if v is not None:
                tx.execute("INSERT INTO selection_locks VALUES (?, ?, ?, ?, ?)", [c["id"], k, v, user.username, moment])
        if changed:
            tx.audit("selection_locks_set", "contract", c["code"],
                     {str(k): before.get(k) for k in changed}, {str(k): v for k, v in changed.items()})
        return len(changed)

    return store.write(user.username, run)


def _pool_arrays(store: Store, contract_id: int, pool: str, locks: Mapping[int, str]) -> Pool:
    """The pool's decided items as arrays (read through Arrow: exact integer cents, no Python
    object per item). A historical item without a significance score counts as 1 (ordinary);
    the other pool has no significance (0)."""
    cur = store.cursor()
    try:
        t = cur.sql("SELECT item_id, value_brl, CASE WHEN historical THEN coalesce(significance, 1) ELSE 0 END "
                    "AS significance, must_keep FROM item_valuation WHERE contract_id = ? AND historical = ? "
                    "ORDER BY item_id", params=[contract_id, pool == "historical"]).to_arrow_table()
    finally:
        cur.close()
    return pool_from_arrow(t.column("item_id"), t.column("value_brl"), t.column("significance"),
                           t.column("must_keep"), locks)


def compute_selection(store: Store, user: Principal, code: str, *, pool: str = "historical",
                      tolerance: Decimal | None = None, lock_overrides: Mapping[int, str | None] | None = None,
                      exact_limit: int = EXACT_LIMIT, time_limit_s: float = TIME_LIMIT_S) -> SelectionOutcome:
    """Run the União's choice (Lei 7.542 art. 20 §4; rules.md §3) over the pool's decided
    items with the stored locks (`lock_overrides` on top: None unlocks) — nothing is written.
    The historical pool minimises the significance handed over (stage 2); the other pool
    (art. 21 III, art. 22 p.u.) only maximises the value (stage 1)."""
    require(user, "choose_items")
    c, agg, targets, stored = pool_context(store, user, code, pool)
    target = targets.historical if pool == "historical" else targets.other
    if target is None:
        reason = targets.historical_reason if pool == "historical" else targets.other_reason
        raise InputError(Problem("pool", f"Contrato {code}: {reason}."))
    tol = selection_tolerance(store) if tolerance is None else tolerance
    if not isinstance(tol, Decimal) or not tol.is_finite() or not 0 <= tol <= 1:
        raise InputError(Problem("tolerance", "Tolerância: uma fração entre 0 e 1 (por exemplo 0,01 = 1 %)."))
    locks = dict(stored)
    for k, v in (lock_overrides or {}).items():
        if v is None:
            locks.pop(int(k), None)
        elif v in ("give", "keep"):
            locks[int(k)] = v
        else:
            raise InputError(Problem(f"locks.{k}", f"Trava do item {k}: use entregar, manter ou nenhuma."))
    items = _pool_arrays(store, c["id"], pool, locks)
    keys = np.fromiter(locks, dtype=np.int64, count=len(locks))
    strays = keys[~np.isin(keys, items.ids)].tolist()
    if strays:
        raise InputError(Problem("locks", f"Itens travados fora dos {POOL_LABELS[pool]} decididos: "
                                          f"{', '.join(map(str, strays[:20]))}."))
    result = select_pool(items, target, tol, minimise_significance=pool == "historical",
                         exact_limit=exact_limit, time_limit_s=time_limit_s)
    selected = np.array([int(i) for i in result.selected], dtype=np.int64)
    chosen = np.isin(items.ids, selected)
    by_sig = []
    for level in np.unique(items.significance[chosen]):
        mask = chosen & (items.significance == level)
        by_sig.append((int(level), int(mask.sum()),
                       Decimal(int(items.units[mask].sum())).scaleb(-items.decimals)))
    return SelectionOutcome(
        contract_code=c["code"], pool=pool, target=target, tolerance=tol, items=len(items), locks=locks,
        result=result, selected_ids=tuple(int(i) for i in selected),
        by_significance=tuple(by_sig), fingerprint=pool_fingerprint(pool, agg, target, locks))


def save_selection(store: Store, user: Principal, code: str, *, pool: str = "historical",
                   tolerance: Decimal | None = None, lock_overrides: Mapping[int, str | None] | None = None,
                   label: str | None = None, now: datetime | None = None,
                   exact_limit: int = EXACT_LIMIT, time_limit_s: float = TIME_LIMIT_S) -> SelectionOutcome:
    """Compute the choice and store it as the contract's run (and the locks it used as the
    contract's locks). An infeasible choice is refused (InputError), nothing written; a
    change of the data meanwhile is a ConflictError."""
    out = compute_selection(store, user, code, pool=pool, tolerance=tolerance, lock_overrides=lock_overrides,
                            exact_limit=exact_limit, time_limit_s=time_limit_s)
    res = out.result
    if res.status == "infeasible":
        raise InputError(Problem("locks", f"Escolha inviável com estas travas: {res.message}."))
    moment = now or store.now()

    def run(tx: Tx) -> int:
        import pyarrow as pa

        c, agg, targets, stored = pool_context(tx, user, code, pool)
        for k, v in (lock_overrides or {}).items():
            k = int(k)
            if stored.get(k) == v:
                continue
            tx.execute("DELETE FROM selection_locks WHERE contract_id = ? AND item_id = ?", [c["id"], k])
            if v is not None:
                tx.execute("INSERT INTO selection_locks VALUES (?, ?, ?, ?, ?)",
                           [c["id"], k, v, user.username, moment])
        locks = stored_locks(tx, c["id"])[pool]
        target = targets.historical if pool == "historical" else targets.other
        if pool_fingerprint(pool, agg, target, locks) != out.fingerprint:
            raise ConflictError("As decisões, os termos ou as travas mudaram durante o cálculo; calcule de novo.")
        run_id = int(tx.scalar(
            """INSERT INTO selection_runs (contract_id, pool, label, target, tolerance, minimise_significance,
                   candidates, locks_give, locks_keep, status, gap, method, message, selected_count, selected_value,
                   residual, significance_handed, significance_bound, fingerprint, ran_by, ran_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
            [c["id"], pool, label, out.target, out.tolerance, pool == "historical", out.items,
             sum(1 for v in locks.values() if v == "give"), sum(1 for v in locks.values() if v == "keep"),
             res.status, res.gap, res.method, res.message, len(out.selected_ids), res.selected_value, res.residual,
             res.significance_handed, res.significance_bound, out.fingerprint, user.username, moment]))
        if out.selected_ids:
            tx.insert_frame("selection_run_items", pa.table({
                "run_id": pa.array([run_id] * len(out.selected_ids), pa.int64()),
                "item_id": pa.array(out.selected_ids, pa.int64())}))
        tx.audit("selection_saved", "contract", c["code"], None,
                 {"run_id": run_id, "pool": pool, "target": out.target, "tolerance": out.tolerance,
                  "status": res.status, "gap": res.gap, "selected": len(out.selected_ids),
                  "selected_value": res.selected_value})
        return run_id

    run_id = store.write(user.username, run)
    return replace(out, run_id=run_id)


def selection_runs(store: Store, user: Principal, code: str, pool: str | None = None) -> list[SelectionRun]:
    """The stored runs of a contract, newest first; `current` marks the run the statement uses."""
    require(user, "choose_items")
    c = contract_for(store, user, code)
    rows = store.fetch("SELECT * FROM selection_runs WHERE contract_id = ? AND (? IS NULL OR pool = ?) "
                       "ORDER BY id DESC", [c["id"], pool, pool])
    currents: set[int] = set()
    if rows:
        agg = aggregates(store, c["id"])
        targets = pool_targets(stored_terms(c, compensation_of(store, c["id"])), agg)
        locks = stored_locks(store, c["id"])
        for p in POOLS:
            t = targets.historical if p == "historical" else targets.other
            if t is not None:
                cur = current_run(store, c["id"], p, pool_fingerprint(p, agg, t, locks[p]))
                if cur is not None:
                    currents.add(cur.id)
    return [run_from_row(r, current=int(r["id"]) in currents) for r in rows]


def run_breakdown(store: Store, user: Principal, run_id: int) -> pd.DataFrame:
    """Items and value handed over per significance level in a stored run (for the charts)."""
    require(user, "choose_items")
    return store.fetch_df(
        "SELECT coalesce(iv.significance, 1) AS significance, count(*) AS items, sum(iv.value_brl) AS value_brl "
        "FROM selection_run_items ri JOIN item_valuation iv ON iv.item_id = ri.item_id WHERE ri.run_id = ? "
        "GROUP BY ALL ORDER BY 1", [run_id])

