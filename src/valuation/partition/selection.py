"""The União's choice of the historical items handed over as reward (rules.md §3).

Law: Lei 7.542/1986 art. 20 §2 (the reward may be paid by adjudicating items worth
up to 40 % of the value attributed to the classified items) and §4 (the União
chooses which items are adjudicated). The same selection, stage 1 only, picks the
recovered items adjudicated under art. 21 III (`valuation.partition.rules`).

The choice, as an optimisation over the items the commission did not mark
*must keep* and the user did not lock *keep*:

1. items locked *give* are always handed over; if they alone exceed the target,
   or one of them is also *must keep*, the problem is **infeasible**;
2. stage 1: maximise Σ value subject to Σ value ≤ target;
3. stage 2: among the sets whose value is ≥ best − tolerance × target (and still
   ≤ target), minimise Σ significance (commission score 1 = ordinary … 5 =
   exceptional).

Amounts are scaled to exact integers (cents, or a finer unit when a value has more
decimals) and divided by their common divisor before any search; every sum is
compared exactly. Methods, cheapest first:

- heuristics with certified bounds: greedy, exchanges, and a large-neighbourhood
  search that re-solves a few dozen items at a time exactly (meet in the middle).
  Stage 1 is bounded by the target itself (the LP relaxation of a subset sum
  reaches it); stage 2 by the Lagrangian/LP-relaxation (Dantzig) bound of the
  covering problem, rounded up because significance is an integer. When the
  heuristic meets its bound the answer is proven optimal, whatever the number of
  items (typically so for thousands to 100 000+ items);
- exact when not yet proven: full enumeration (≤ 20 items), dynamic programming
  over the sums (when items × target units is small), meet in the middle for
  stage 1 (≤ 40 items), and scipy `milp` (HiGHS, `mip_rel_gap=0` — its default
  gap stops short of the optimum) in a separate Python process, started early so
  that its imports overlap the heuristics and killed at the time limit (HiGHS does
  not always honour its own), for up to `exact_limit` items;
- otherwise the heuristic answer stands with status "feasible" and its certified
  relative gap: max((bound − value)/bound, (significance − lower bound)/significance).
  When stage 1 is not proven, stage 2 keeps to value ≥ bound − tolerance × target
  whenever it can, so that the set is surely within the tolerance of the true best.

"optimal" is reported only when both stages are proven.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from typing import Any

import numpy as np

from valuation.core.law import L7542
from valuation.partition.selection_milp import MilpChild
from valuation.partition.selection_search import (
    band_low,
    cover_lower_bound,
    dp_select,
    enumerate_select,
    greedy1,
    greedy2,
    improve1,
    improve2,
    mitm1,
    polish,
)

EXACT_LIMIT = 5000          # largest candidate set handed to the exact MILP
TIME_LIMIT_S = 5.0          # wall-clock budget of the exact attempts
_ENUM_LIMIT = 20            # full enumeration up to 2**20 subsets
_MITM_LIMIT = 40            # meet-in-the-middle for stage 1
_DP_CELLS = 40_000_000      # items × (target units + 1) for the dynamic programme
_MAX_UNITS = 2 ** 53        # Σ values in scaled units must stay below this
_GAP_Q = Decimal("1e-12")

BASIS: tuple[str, ...] = (
    f"{L7542} art. 20 §2 (recompensa de até 40 % do valor atribuído)",
    f"{L7542} art. 20 §4 (escolha da União)",
)

# How the União exercises its choice (art. 20 §4), the rule this module computes
SELECTION_RULE = (f"{L7542} art. 20 §4 (escolha assegurada à União), exercida em duas etapas: etapa 1, o maior valor "
                  "que não excede o alvo (art. 20 §2: adjudicação de até 40 % do valor atribuído); etapa 2, entre os "
                  "conjuntos até a tolerância abaixo desse valor (política da DPC), o que entrega a menor "
                  "significância histórica (art. 20 caput: os bens de valor histórico permanecem no domínio da União)")

LOCKS = (None, "give", "keep")


@dataclass(frozen=True)
class SelItem:
    """An item that may be handed over. `significance` is the commission's heritage
    score (1 ordinary … 5 exceptional; 0 for items without heritage interest)."""

    id: str
    value: Decimal
    significance: int = 1
    must_keep: bool = False
    lock: str | None = None  # None | "give" | "keep"


@dataclass(frozen=True)
class SelectionResult:
    selected: tuple[str, ...]
    selected_value: Decimal
    residual: Decimal                 # target − selected_value
    significance_handed: int
    status: str                       # "optimal" | "feasible" | "infeasible"
    gap: Decimal                      # certified relative gap (0 when optimal)
    method: str
    stage1_best: Decimal              # best value found in stage 1 (≤ target)
    bound: Decimal                    # proven upper bound on the stage-1 value
    message: str
    significance_bound: int = 0       # proven lower bound on the significance handed
    basis: tuple[str, ...] = BASIS


@dataclass(frozen=True, eq=False)
class Pool:
    """The items as arrays, as the store reads them (no Python object per item): item `ids`
    (int64), their value in exact integer `units` of 10**-`decimals` (int64 ≥ 0: cents for
    DECIMAL(18,2)), `significance` (int64), `must_keep` (bool) and `lock` (int8: LOCK_NONE,
    LOCK_GIVE, LOCK_KEEP)."""

    ids: np.ndarray
    units: np.ndarray
    decimals: int
    significance: np.ndarray
    must_keep: np.ndarray
    lock: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


LOCK_NONE, LOCK_GIVE, LOCK_KEEP = 0, 1, 2
_LOCK_CODES = {None: LOCK_NONE, "give": LOCK_GIVE, "keep": LOCK_KEEP}


def pool_from_arrow(ids: Any, values: Any, significance: Any, must_keep: Any,
                    locks: Mapping[int, str | None] | None = None) -> Pool:
    """A Pool from Arrow columns (as DuckDB returns them): int64 ids, decimal128 values (their
    128-bit integers read as units, no Decimal per item), integer significance, boolean
    must_keep; `locks` (item id → 'give' | 'keep') by id."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def arr(col: Any) -> Any:
        return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col

    values = arr(values)
    if not pa.types.is_decimal128(values.type) or values.null_count:
        raise ValueError("pool values must be a decimal128 column without nulls")
    words = np.frombuffer(values.buffers()[1], dtype=np.int64)[2 * values.offset: 2 * (values.offset + len(values))]
    low, high = words[0::2], words[1::2]
    if len(low) and not np.array_equal(high, low >> 63):
        raise ValueError("amounts too large for exact selection")
    id_arr = np.asarray(arr(ids).to_numpy(zero_copy_only=False), dtype=np.int64)
    lock = np.zeros(len(id_arr), dtype=np.int8)
    if locks:
        keys = np.fromiter(locks.keys(), dtype=np.int64, count=len(locks))
        codes = np.array([_LOCK_CODES[v] for v in locks.values()], dtype=np.int8)
        order = np.argsort(id_arr, kind="stable")
        pos = np.searchsorted(id_arr, keys, sorter=order)
        pos = np.minimum(pos, max(len(id_arr) - 1, 0))
        hit = (len(id_arr) > 0) & (id_arr[order[pos]] == keys) if len(id_arr) else np.zeros(len(keys), bool)
        lock[order[pos[hit]]] = codes[hit]
    return Pool(ids=id_arr, units=low.copy(), decimals=int(values.type.scale),
                significance=np.asarray(pc.fill_null(arr(significance).cast(pa.int64()), 0)
                                        .to_numpy(zero_copy_only=False), dtype=np.int64),
                must_keep=np.asarray(pc.fill_null(arr(must_keep).cast(pa.bool_()), False)
                                     .to_numpy(zero_copy_only=False), dtype=bool),
                lock=lock)


# ---------------------------------------------------------------------------------
# public entry points
# ---------------------------------------------------------------------------------
def select_items(items: Sequence[SelItem], target: Decimal, tolerance: Decimal, *,
                 minimise_significance: bool = True, exact_limit: int = EXACT_LIMIT,
                 time_limit_s: float = TIME_LIMIT_S) -> SelectionResult:
    """Choose the items handed over (Lei 7.542 art. 20 §2 and §4; rules.md §3).

    Stage 1 maximises Σ value ≤ `target`; stage 2 (when `minimise_significance`)
    minimises Σ significance among sets with value ≥ best − `tolerance` × `target`.
    Raises ValueError for malformed arguments (duplicate ids, negative amounts…);
    contradictory locks give status "infeasible" with the reason in `message`.
    The same choice as `select_pool` over the same items as arrays.
    """
    target = Decimal(target)
    tolerance = Decimal(tolerance)
    _validate(items, target, tolerance)
    scale = _scale(items, target)
    units = np.array([_units(it.value, scale) for it in items], dtype=np.int64)
    sig = np.array([it.significance for it in items], dtype=np.int64)
    keep = np.array([it.must_keep for it in items], dtype=bool)
    lock = np.array([_LOCK_CODES[it.lock] for it in items], dtype=np.int8)
    return _select([it.id for it in items], units, scale, sig, keep, lock, target, tolerance,
                   minimise_significance, exact_limit, time_limit_s)


def select_pool(pool: Pool, target: Decimal, tolerance: Decimal, *, minimise_significance: bool = True,
                exact_limit: int = EXACT_LIMIT, time_limit_s: float = TIME_LIMIT_S) -> SelectionResult:
    """`select_items` over a `Pool` (the items as arrays): the same rules, checks and result
    (`selected` holds the chosen ids as text, in the pool's order)."""
    target = Decimal(target)
    tolerance = Decimal(tolerance)
    _check_amounts(target, tolerance)
    units, sig, keep, lock = _checked_pool(pool)
    k = max(2, int(pool.decimals), _decimals(target))
    if k > 8:
        raise ValueError("amounts with more than 8 decimal places are not supported")
    scale = 10 ** k
    factor = 10 ** (k - int(pool.decimals))
    # Σ values + target in units below 2**53, as `_scale` requires (float first: no int64 overflow)
    rough = float(units.sum(dtype=np.float64)) * factor + float(target * scale)
    if rough >= 0.99 * _MAX_UNITS and (rough >= 2 * _MAX_UNITS
                                        or sum(units.tolist()) * factor + _units(target, scale) >= _MAX_UNITS):
        raise ValueError("amounts too large for exact selection")
    units = units * factor
    return _select(pool.ids, units, scale, sig, keep, lock, target, tolerance, minimise_significance,
                   exact_limit, time_limit_s)


def _checked_pool(pool: Pool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = len(pool.ids)
    units = np.asarray(pool.units)
    sig = np.asarray(pool.significance)
    keep = np.asarray(pool.must_keep, dtype=bool)
    lock = np.asarray(pool.lock)
    if not all(len(a) == n for a in (units, sig, keep, lock)):
        raise ValueError("pool arrays must have the same length")
    if units.dtype.kind not in "iu" or sig.dtype.kind not in "iu" or lock.dtype.kind not in "iu":
        raise ValueError("pool units, significance and locks must be integers")
    if isinstance(pool.decimals, bool) or not isinstance(pool.decimals, (int, np.integer)) or pool.decimals < 0:
        raise ValueError("pool decimals must be a non-negative integer")
    if n and _has_duplicates(np.asarray(pool.ids)):
        raise ValueError("duplicate item id in the pool")
    if n and int(units.min()) < 0:
        raise ValueError("pool values must be non-negative")
    if n and (int(sig.min()) < 0 or int(sig.max()) > 100):
        raise ValueError("pool significance must be a small non-negative integer")
    if n and not np.isin(lock, (LOCK_NONE, LOCK_GIVE, LOCK_KEEP)).all():
        raise ValueError("pool locks must be LOCK_NONE, LOCK_GIVE or LOCK_KEEP")
    return units.astype(np.int64), sig.astype(np.int64), keep, lock.astype(np.int8)


def _has_duplicates(ids: np.ndarray) -> bool:
    """Whether an id repeats: one pass when the ids come sorted (as the store reads them),
    else a sort (numpy's hash-based unique is ~10× slower at 600 000 ids)."""
    if ids.dtype.kind in "iu" and bool(np.all(ids[1:] > ids[:-1])):
        return False
    ordered = np.sort(ids)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def _select(ids: Sequence[Any] | np.ndarray, units: np.ndarray, scale: int, sig: np.ndarray, keep: np.ndarray,
            lock: np.ndarray, target: Decimal, tolerance: Decimal, minimise_significance: bool,
            exact_limit: int, time_limit_s: float) -> SelectionResult:
    """The choice over exact integer `units` (value × `scale`), in item order."""
    deadline = time.perf_counter() + max(0.0, float(time_limit_s))
    give = lock == LOCK_GIVE
    contradictory = np.flatnonzero(give & keep)
    if len(contradictory):
        return _infeasible(target, "itens marcados 'manter' pela Comissão não podem ser travados para entrega: "
                           + ", ".join(str(ids[int(i)]) for i in contradictory))
    forced_units = int(units[give].sum())
    forced_value = _from_units(forced_units, scale)
    if forced_value > target:
        return _infeasible(target, f"os itens travados para entrega somam {forced_value} e excedem o alvo {target}: "
                           + ", ".join(str(ids[int(i)]) for i in np.flatnonzero(give)))
    U = _units(target, scale) - forced_units
    # never offered: must keep, locked keep; zero or over-target values never help
    cand = np.flatnonzero((lock == LOCK_NONE) & ~keep & (units > 0) & (units <= U))
    core = _solve(units[cand], sig[cand], U, tolerance * target * scale, minimise_significance, exact_limit,
                  deadline)
    chosen = give.copy()
    chosen[cand[core.x]] = True
    picked = np.flatnonzero(chosen)
    selected = tuple(str(ids[int(i)]) for i in picked)
    sel_value = _from_units(int(units[picked].sum()), scale)
    s_total = int(sig[picked].sum())
    forced_sig = int(sig[give].sum())
    best1 = forced_value + _from_units(core.best1, scale)
    bound = forced_value + _from_units(core.bound1, scale)
    gap = Decimal(0) if bound == 0 else (bound - best1) / bound
    sig_lb = forced_sig + core.sig_lb if minimise_significance else s_total
    if minimise_significance and s_total > 0:
        gap = max(gap, Decimal(s_total - sig_lb) / Decimal(s_total))
    gap = max(Decimal(0), gap).quantize(_GAP_Q, rounding=ROUND_CEILING)
    proven = core.proven1 and (core.proven2 or not minimise_significance)
    if proven:
        gap = Decimal(0)
    msg = "ótimo comprovado" if proven else f"solução viável; lacuna relativa certificada ≤ {_pct(gap)}"
    return SelectionResult(selected=selected, selected_value=sel_value, residual=target - sel_value,
                           significance_handed=s_total, status="optimal" if proven else "feasible", gap=gap,
                           method=core.method, stage1_best=best1, bound=bound, message=msg,
                           significance_bound=sig_lb)


def _from_units(units: int, scale: int) -> Decimal:
    """An exact Decimal from integer units of 1/scale (scale = 10**k)."""
    return Decimal(int(units)).scaleb(-(len(str(scale)) - 1))


def _pct(g: Decimal) -> str:
    return f"{(g * 100).quantize(Decimal('0.0001'), rounding=ROUND_CEILING)} %"


def _check_amounts(target: Decimal, tolerance: Decimal) -> None:
    if not target.is_finite() or target < 0:
        raise ValueError("target must be a non-negative decimal")
    if not tolerance.is_finite() or tolerance < 0:
        raise ValueError("tolerance must be a non-negative decimal")


def _validate(items: Sequence[SelItem], target: Decimal, tolerance: Decimal) -> None:
    _check_amounts(target, tolerance)
    seen: set[str] = set()
    for it in items:
        if it.id in seen:
            raise ValueError(f"duplicate item id {it.id!r}")
        seen.add(it.id)
        if not isinstance(it.value, Decimal) or not it.value.is_finite() or it.value < 0:
            raise ValueError(f"item {it.id!r}: value must be a non-negative Decimal")
        if isinstance(it.significance, bool) or not isinstance(it.significance, int) \
                or not 0 <= it.significance <= 100:
            raise ValueError(f"item {it.id!r}: significance must be a small non-negative integer")
        if it.lock not in LOCKS:
            raise ValueError(f"item {it.id!r}: lock must be None, 'give' or 'keep'")


def _infeasible(target: Decimal, message: str) -> SelectionResult:
    return SelectionResult(selected=(), selected_value=Decimal(0), residual=target, significance_handed=0,
                           status="infeasible", gap=Decimal(0), method="none", stage1_best=Decimal(0),
                           bound=Decimal(0), message=message, significance_bound=0)


def _decimals(d: Decimal) -> int:
    """The decimal places `d` needs ('1.500' needs 1)."""
    exp = d.as_tuple().exponent
    if isinstance(exp, int) and exp < 0:
        exp = d.normalize().as_tuple().exponent
        if isinstance(exp, int) and exp < 0:
            return -exp
    return 0


def _scale(items: Sequence[SelItem], target: Decimal) -> int:
    """10**k with k ≥ 2 the most decimals among the amounts (cents in practice)."""
    k = 2
    for d in [target, *(it.value for it in items)]:
        exp = d.as_tuple().exponent
        if isinstance(exp, int) and -exp > k:
            k = max(k, _decimals(d))
    if k > 8:
        raise ValueError("amounts with more than 8 decimal places are not supported")
    total = sum((it.value for it in items), target) * (10 ** k)
    if total >= _MAX_UNITS:
        raise ValueError("amounts too large for exact selection")
    return 10 ** k


def _units(d: Decimal, scale: int) -> int:
    return int(d * scale)  # exact: `scale` covers every decimal place


# ---------------------------------------------------------------------------------
# the integer core
# ---------------------------------------------------------------------------------
@dataclass
class _Core:
    x: np.ndarray
    best1: int
    bound1: int
    sig_lb: int
    proven1: bool
    proven2: bool
    method: str


def _solve(w: np.ndarray, s: np.ndarray, U: int, tol_units: Decimal, minimise: bool,
           exact_limit: int, deadline: float) -> _Core:
    n = len(w)
    if n == 0:
        return _Core(np.zeros(0, bool), 0, 0, 0, True, True, "trivial")
    g = int(np.gcd.reduce(w))
    if g > 1:  # every sum is a multiple of g: search in units of g
        w = w // g
        U = U // g
        tol_units = tol_units / g
    core = _solve_reduced(w, s, U, tol_units, minimise, exact_limit, deadline)
    core.best1 *= g
    core.bound1 *= g
    return core


def _exact_small(w: np.ndarray, s: np.ndarray, U: int, tol: Decimal, minimise: bool) -> _Core | None:
    """Both stages at once, exactly, when the pool is small: enumeration or dynamic programming."""
    n, total = len(w), int(w.sum())
    if n <= _ENUM_LIMIT:
        (x, best), method = enumerate_select(w, s, U, tol, minimise), "enumeration"
    elif n * (min(U, total) + 1) <= _DP_CELLS:
        (x, best), method = dp_select(w, s, min(U, total), tol, minimise), "dp"
    else:
        return None
    return _Core(x, best, best, int(s[x].sum()), True, True, method)


def _stage1(w: np.ndarray, s: np.ndarray, U: int, minimise: bool, exact_limit: int, deadline: float,
            rng: np.random.Generator, methods: list[str]) -> tuple[np.ndarray, int, int, bool]:
    """Stage 1 (maximise Σ value ≤ U): (chosen, best, bound, proven); appends the methods used."""
    n, total = len(w), int(w.sum())
    if total <= U:
        methods.append("all")
        return np.ones(n, bool), total, total, True
    by_w = np.argsort(w, kind="stable")
    x1 = greedy1(w, U, by_w)
    x1, proven1 = improve1(w, x1, U, rng, deadline_h=min(deadline, time.perf_counter() + 0.4), by_w=by_w)
    best1 = int(w[x1].sum())
    methods.append("greedy+exchange")
    if not proven1 and n <= _MITM_LIMIT:
        x1 = mitm1(w, U)
        best1, proven1 = int(w[x1].sum()), True
        methods.append("mitm")
    elif not proven1 and n <= exact_limit and time.perf_counter() < deadline:
        budget = (deadline - time.perf_counter()) * (0.5 if minimise else 1.0)
        res = MilpChild().solve(1, w, s, 0, U, budget)
        methods.append("milp")
        if res is not None:
            xm, opt = res
            if best1 <= int(w[xm].sum()) <= U:
                x1, best1 = xm, int(w[xm].sum())
            # HiGHS proved its answer optimal: ours is at least as good
            proven1 = (opt and int(w[xm].sum()) <= best1) or best1 == U
    return x1, best1, best1 if proven1 else U, proven1


def _stage2(w: np.ndarray, s: np.ndarray, U: int, L_lo: int, L_use: int, x1: np.ndarray, exact_limit: int,
            deadline: float, rng: np.random.Generator, methods: list[str]) -> tuple[np.ndarray, int, bool]:
    """Stage 2 (minimise Σ significance with L_use ≤ Σ value ≤ U): (chosen, lower bound, proven)."""
    by_ratio = np.lexsort((-w, s / w))            # significance per value, then the larger value first
    lb = cover_lower_bound(w, s, L_lo, by_ratio)
    # started now so that its imports overlap the heuristics; closed if they prove optimality
    child = MilpChild() if len(w) <= exact_limit and time.perf_counter() < deadline else None
    try:
        x2 = greedy2(w, s, L_use, U, x1, by_ratio)
        x2, whole = improve2(w, s, x2, L_use, U, lb, rng,
                              deadline_h=min(deadline, time.perf_counter() + 0.5))
        methods.append("lp-bound")
        proven2 = int(s[x2].sum()) <= lb or (whole and L_use == L_lo)
        if not proven2 and child is not None:
            res = child.solve(2, w, s, L_use, U, deadline - time.perf_counter())
            methods.append("milp")
            if res is not None:
                xm, opt = res
                if L_use <= int(w[xm].sum()) <= U and int(s[xm].sum()) <= int(s[x2].sum()):
                    x2 = xm
                proven2 = opt and L_use == L_lo and int(s[x2].sum()) <= int(s[xm].sum())
    finally:
        if child is not None:
            child.close()
    x2 = polish(w, s, x2, U)
    return x2, int(s[x2].sum()) if proven2 else lb, proven2


def _solve_reduced(w: np.ndarray, s: np.ndarray, U: int, tol: Decimal, minimise: bool,
                   exact_limit: int, deadline: float) -> _Core:
    exact = _exact_small(w, s, U, tol, minimise)
    if exact is not None:
        return exact
    methods: list[str] = []
    rng = np.random.default_rng(7542)
    x1, best1, bound1, proven1 = _stage1(w, s, U, minimise, exact_limit, deadline, rng, methods)
    if not minimise:
        return _Core(x1, best1, bound1, int(s[x1].sum()), proven1, True, "+".join(methods))
    L_lo = band_low(best1, tol)
    L_use = L_lo
    if not proven1:
        L_hi = band_low(bound1, tol)
        if L_hi <= best1:
            L_use = L_hi  # surely inside the true band, whatever the true best is
    x2, lb, proven2 = _stage2(w, s, U, L_lo, L_use, x1, exact_limit, deadline, rng, methods)
    return _Core(x2, best1, bound1, lb, proven1, proven2, "+".join(methods))


