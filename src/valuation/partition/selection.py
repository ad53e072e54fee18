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

import os
import pickle
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from typing import Any

import numpy as np

from valuation.core.law import L7542

EXACT_LIMIT = 5000          # largest candidate set handed to the exact MILP
TIME_LIMIT_S = 5.0          # wall-clock budget of the exact attempts
_ENUM_LIMIT = 20            # full enumeration up to 2**20 subsets
_MITM_LIMIT = 40            # meet-in-the-middle for stage 1
_DP_CELLS = 40_000_000      # items × (target units + 1) for the dynamic programme
_MAX_UNITS = 2 ** 53        # Σ values in scaled units must stay below this
_LNS1_SIZE = 36           # items re-solved together by meet in the middle (stage 1)
_LNS2_SIZE = 28           # items re-solved together by meet in the middle (stage 2)
_GAP_Q = Decimal("1e-12")
_INF = np.int32(1 << 29)

BASIS: tuple[str, ...] = (
    f"{L7542} art. 20 §2 (recompensa de até 40 % do valor atribuído)",
    f"{L7542} art. 20 §4 (escolha da União)",
)

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
                           + ", ".join(str(ids[i]) for i in contradictory))
    forced_units = int(units[give].sum())
    forced_value = _from_units(forced_units, scale)
    if forced_value > target:
        return _infeasible(target, f"os itens travados para entrega somam {forced_value} e excedem o alvo {target}: "
                           + ", ".join(str(ids[i]) for i in np.flatnonzero(give)))
    U = _units(target, scale) - forced_units
    # never offered: must keep, locked keep; zero or over-target values never help
    cand = np.flatnonzero((lock == LOCK_NONE) & ~keep & (units > 0) & (units <= U))
    core = _solve(units[cand], sig[cand], U, tolerance * target * scale, minimise_significance, exact_limit,
                  deadline)
    chosen = give.copy()
    chosen[cand[core.x]] = True
    picked = np.flatnonzero(chosen)
    selected = tuple(str(ids[i]) for i in picked)
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


def _band_low(best: int, tol: Decimal) -> int:
    lo = (Decimal(best) - tol).to_integral_value(rounding=ROUND_CEILING)
    return max(0, int(lo))


def _solve_reduced(w: np.ndarray, s: np.ndarray, U: int, tol: Decimal, minimise: bool,
                   exact_limit: int, deadline: float) -> _Core:
    n = len(w)
    total = int(w.sum())
    methods: list[str] = []
    rng = np.random.default_rng(7542)

    # ---- exact small cases: both stages at once ---------------------------------
    exact = None
    if n <= _ENUM_LIMIT:
        exact = _enumerate(w, s, U, tol, minimise), "enumeration"
    elif n * (min(U, total) + 1) <= _DP_CELLS:
        exact = _dp(w, s, min(U, total), tol, minimise), "dp"
    if exact is not None:
        (x, best), method = exact
        sig = int(s[x].sum())
        return _Core(x, best, best, sig, True, True, method)

    # ---- stage 1 -----------------------------------------------------------------
    if total <= U:
        x1 = np.ones(n, bool)
        best1, bound1, proven1 = total, total, True
        methods.append("all")
    else:
        bound1 = U
        by_w = np.argsort(w, kind="stable")
        x1 = _greedy1(w, U, by_w)
        x1, proven1 = _improve1(w, x1, U, rng, deadline_h=min(deadline, time.perf_counter() + 0.4), by_w=by_w)
        best1 = int(w[x1].sum())
        methods.append("greedy+exchange")
        if not proven1 and n <= _MITM_LIMIT:
            x1 = _mitm1(w, U)
            best1, proven1 = int(w[x1].sum()), True
            methods.append("mitm")
        elif not proven1 and n <= exact_limit and time.perf_counter() < deadline:
            budget = (deadline - time.perf_counter()) * (0.5 if minimise else 1.0)
            res = _MilpChild().solve(1, w, s, 0, U, budget)
            methods.append("milp")
            if res is not None:
                xm, opt = res
                if best1 <= int(w[xm].sum()) <= U:
                    x1, best1 = xm, int(w[xm].sum())
                # HiGHS proved its answer optimal: ours is at least as good
                proven1 = (opt and int(w[xm].sum()) <= best1) or best1 == U
        if proven1:
            bound1 = best1
    if not minimise:
        return _Core(x1, best1, bound1, int(s[x1].sum()), proven1, True, "+".join(methods))

    # ---- stage 2 -----------------------------------------------------------------
    L_lo = _band_low(best1, tol)
    L_use = L_lo
    if not proven1:
        L_hi = _band_low(bound1, tol)
        if L_hi <= best1:
            L_use = L_hi  # surely inside the true band, whatever the true best is
    by_ratio = np.lexsort((-w, s / w))            # significance per value, then the larger value first
    lb = _cover_lower_bound(w, s, L_lo, by_ratio)
    # started now so that its imports overlap the heuristics; closed if they prove optimality
    child = _MilpChild() if n <= exact_limit and time.perf_counter() < deadline else None
    try:
        x2 = _greedy2(w, s, L_use, U, x1, by_ratio)
        x2, whole = _improve2(w, s, x2, L_use, U, lb, rng,
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
    x2 = _polish(w, s, x2, U)
    if proven2:
        lb = int(s[x2].sum())
    return _Core(x2, best1, bound1, lb, proven1, proven2, "+".join(methods))


# ---- exact methods ---------------------------------------------------------------
def _subset_sums(w: np.ndarray) -> np.ndarray:
    sums = np.zeros(1, np.int64)
    for wi in w:
        sums = np.concatenate((sums, sums + wi))
    return sums


def _bits(index: int, n: int) -> np.ndarray:
    return np.array([(index >> j) & 1 == 1 for j in range(n)], dtype=bool)


def _enumerate(w: np.ndarray, s: np.ndarray, U: int, tol: Decimal, minimise: bool) -> tuple[np.ndarray, int]:
    n = len(w)
    sums = _subset_sums(w)
    sigs = _subset_sums(s)
    ok = sums <= U
    best = int(sums[ok].max())
    if not minimise:
        idx = int(np.flatnonzero(sums == best)[0])
        return _bits(idx, n), best
    band = ok & (sums >= _band_low(best, tol))
    cand = np.flatnonzero(band)
    # minimal significance, then largest value
    order = np.lexsort((-sums[cand], sigs[cand]))
    idx = int(cand[order[0]])
    return _bits(idx, n), best


def _dp(w: np.ndarray, s: np.ndarray, U: int, tol: Decimal, minimise: bool) -> tuple[np.ndarray, int]:
    """0/1 knapsack over sums 0..U: dp[x] = least significance reaching exactly x."""
    n = len(w)
    dp = np.full(U + 1, _INF, dtype=np.int32)
    dp[0] = 0
    choose = np.zeros((n, (U + 8) // 8), dtype=np.uint8)
    mark = np.zeros(U + 1, dtype=bool)
    sv = s if minimise else np.zeros_like(s)
    for i in range(n):
        wi = int(w[i])
        cand = dp[: U + 1 - wi] + np.int32(sv[i])
        better = cand < dp[wi:]
        np.minimum(dp[wi:], cand, out=dp[wi:])
        mark[:wi] = False
        mark[wi:] = better
        choose[i] = np.packbits(mark)
    reach = np.flatnonzero(dp < _INF)
    best = int(reach[-1])
    if minimise:
        lo = _band_low(best, tol)
        seg = dp[lo: best + 1]
        m = seg.min()
        xsum = lo + int(np.flatnonzero(seg == m)[-1])  # least significance, then most value
    else:
        xsum = best
    x = np.zeros(n, bool)
    rest = xsum
    for i in range(n - 1, -1, -1):
        if rest == 0:
            break
        if (choose[i, rest >> 3] >> (7 - (rest & 7))) & 1:
            x[i] = True
            rest -= int(w[i])
    assert rest == 0
    return x, best


def _mitm1(w: np.ndarray, U: int) -> np.ndarray:
    """Exact stage 1 by meet in the middle (≤ 40 items)."""
    n = len(w)
    h = n // 2
    a, b = _subset_sums(w[:h]), _subset_sums(w[h:])
    bo = np.argsort(b, kind="stable")
    bs = b[bo]
    okA = np.flatnonzero(a <= U)
    j = np.searchsorted(bs, U - a[okA], side="right") - 1
    tot = a[okA] + bs[j]
    k = int(np.argmax(tot))
    ia, ib = int(okA[k]), int(bo[j[k]])
    return np.concatenate((_bits(ia, h), _bits(ib, n - h)))


# ---- stage 1 heuristics ----------------------------------------------------------
def _greedy1(w: np.ndarray, U: int, by_w: np.ndarray | None = None) -> np.ndarray:
    """Largest first while they fit, then the largest that fits the rest (`by_w`: argsort of w)."""
    n = len(w)
    order = np.argsort(-w, kind="stable") if by_w is None else by_w[::-1]
    ws = w[order]
    cum = np.cumsum(ws)
    k = int(np.searchsorted(cum, U, side="right"))
    x = np.zeros(n, bool)
    x[order[:k]] = True
    r = U - (int(cum[k - 1]) if k else 0)
    neg = -ws
    pos = k
    while r > 0 and pos < n:
        j = max(pos, int(np.searchsorted(neg, -r, side="left")))
        if j >= n:
            break
        x[order[j]] = True
        r -= int(ws[j])
        pos = j + 1
    return x


def _pool(idx: np.ndarray, size: int, rng: np.random.Generator, prefer: np.ndarray | None = None) -> np.ndarray:
    if len(idx) <= size:
        return idx
    if prefer is None:
        return rng.choice(idx, size, replace=False)
    half = size // 2
    best = idx[np.argpartition(prefer, half)[:half]]
    others = np.setdiff1d(idx, best, assume_unique=True)
    return np.concatenate((best, rng.choice(others, size - half, replace=False)))


def _improve1(w: np.ndarray, x: np.ndarray, U: int, rng: np.random.Generator,
              deadline_h: float, by_w: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """Close the residual U − Σ by exchanging items: additions and 1-for-1 swaps over
    all items, then a large-neighbourhood search. The flag is True when the answer
    is proven optimal (residual 0, or the whole problem solved exactly)."""
    x = x.copy()
    r = U - int(w[x].sum())
    if by_w is None:                              # once: the unchosen in value order is a filter of it
        by_w = np.argsort(w, kind="stable")
    for _ in range(50):
        if r == 0:
            return x, True
        inn = np.flatnonzero(x)
        oo = by_w[~x[by_w]]
        if len(oo) == 0:
            return x, True
        ows = w[oo]
        # add one
        j = int(np.searchsorted(ows, r, side="right")) - 1
        if j >= 0:
            x[oo[j]] = True
            r -= int(ows[j])
            continue
        if len(inn) == 0:
            return x, False
        idx = np.searchsorted(ows, w[inn] + r, side="right") - 1
        valid = idx >= 0
        delta = np.where(valid, ows[np.maximum(idx, 0)] - w[inn], 0)
        k = int(np.argmax(delta))
        if delta[k] <= 0:
            break
        x[inn[k]] = False
        x[oo[idx[k]]] = True
        r -= int(delta[k])
    x, r = _pair_moves(w, x, r, rng, by_w)
    # large-neighbourhood search: free a random handful of items (half chosen, half
    # not) and re-solve that sub-problem exactly by meet in the middle
    rounds = 0
    while r > 0 and time.perf_counter() < deadline_h and rounds < 60:
        rounds += 1
        inn, out = np.flatnonzero(x), np.flatnonzero(~x)
        ki = min(len(inn), _LNS1_SIZE // 2)
        ko = min(len(out), _LNS1_SIZE - ki)
        ki = min(len(inn), _LNS1_SIZE - ko)
        sub = np.concatenate((rng.choice(inn, ki, replace=False) if ki else inn[:0],
                              rng.choice(out, ko, replace=False) if ko else out[:0]))
        now = int(w[sub[:ki]].sum())
        y = _mitm1(w[sub], now + r)
        got = int(w[sub][y].sum())
        if got > now:
            x[sub] = y
            r -= got - now
        if len(sub) == len(w):
            return x, True  # the whole problem was solved exactly
    return x, r == 0


_PAIR_SAMPLE = 512          # chosen × unchosen items tried per move of `_pair_moves`


def _pair_moves(w: np.ndarray, x: np.ndarray, r: int, rng: np.random.Generator, by_w: np.ndarray,
                tries: int = 8) -> tuple[np.ndarray, int]:
    """Close a residual r > 0 that no addition or 1-for-1 swap closes by 2-for-1 moves: take
    one chosen item out and two unchosen in (w_a + w_b − w_i ∈ (0, r]), or two out and one in
    (w_a − w_i − w_j ∈ (0, r]), over random samples of the chosen and unchosen items, each
    time the move that gains the most. With many items of varied values the gap of a cent
    or two left by the exchanges is usually closed at once (the answer is then proven)."""
    for _ in range(tries):
        if r <= 0:
            break
        inn, out = np.flatnonzero(x), np.flatnonzero(~x)
        if len(inn) == 0 or len(out) < 2:
            break
        si = rng.choice(inn, min(len(inn), _PAIR_SAMPLE), replace=False)
        so = rng.choice(out, min(len(out), _PAIR_SAMPLE), replace=False)
        best = (0, -1, -1, -1, -1)            # (gain, out1, in-from-out b, in1, in2)
        # one out (i), two in (a, b): b = the largest unchosen with w_b ≤ w_i − w_a + r
        oo = by_w[~x[by_w]]                      # the unchosen, by value (`by_w`: argsort of w)
        ows = w[oo]
        t = w[si][:, None] - w[so][None, :] + r
        k = np.searchsorted(ows, t, side="right") - 1
        gain = np.where(k >= 0, w[so][None, :] + ows[np.maximum(k, 0)] - w[si][:, None], 0)
        gain = np.where((gain > 0) & (oo[np.maximum(k, 0)] != so[None, :]), gain, 0)
        p = int(np.argmax(gain))
        if gain.flat[p] > best[0]:
            a, b = divmod(p, gain.shape[1])
            best = (int(gain.flat[p]), int(si[a]), int(oo[k[a, b]]), int(so[b]), -1)
        # two out (i, j), one in (a): j = the smallest chosen with w_j ≥ w_a − w_i − r
        io = by_w[x[by_w]]
        iws = w[io]
        t = w[so][:, None] - w[si][None, :] - r
        k = np.searchsorted(iws, t, side="left")
        ok = k < len(io)
        kk = np.minimum(k, len(io) - 1)
        gain = np.where(ok, w[so][:, None] - w[si][None, :] - iws[kk], 0)
        gain = np.where((gain > 0) & (gain <= r) & (io[kk] != si[None, :]), gain, 0)
        p = int(np.argmax(gain))
        if gain.flat[p] > best[0]:
            a, b = divmod(p, gain.shape[1])
            best = (int(gain.flat[p]), int(si[b]), -1, int(so[a]), int(io[kk[a, b]]))
        if best[0] <= 0:
            continue
        gain, i_out, b_in, a_in, j_out = best
        x = x.copy()
        x[i_out] = False
        x[a_in] = True
        if b_in >= 0:
            x[b_in] = True
        if j_out >= 0:
            x[j_out] = False
        r -= gain
    return x, r


# ---- stage 2 heuristics and bound ---------------------------------------------------
def _cover_lower_bound(w: np.ndarray, s: np.ndarray, L: int, order: np.ndarray | None = None) -> int:
    """Certified lower bound on min Σ s·x subject to Σ w·x ≥ L, x ∈ {0,1}.

    Lagrangian dual of the LP relaxation (Dantzig): for any λ ≥ 0,
    λ·L − Σ max(0, λ·w_i − s_i) ≤ optimum; λ = the critical ratio s_c/w_c makes it
    the LP value. Computed exactly with integers, then rounded up (integer objective).
    """
    if L <= 0:
        return 0
    if order is None:   # any order by s/w gives the same LP value (ties are interchangeable)
        order = np.argsort(s / w, kind="stable")
    cum = np.cumsum(w[order])
    c = int(np.searchsorted(cum, L, side="left"))
    if c >= len(w):
        return int(s.sum())  # cannot even cover; any bound ≤ optimum is fine
    p, q = int(s[order[c]]), int(w[order[c]])  # λ = p / q
    terms = p * w - q * s
    pos = terms[terms > 0]
    num = p * L - sum(pos.tolist())  # bound = num / q
    return max(0, -((-num) // q))


def _greedy2(w: np.ndarray, s: np.ndarray, L: int, U: int, fallback: np.ndarray,
             order: np.ndarray | None = None) -> np.ndarray:
    n = len(w)
    x = np.zeros(n, bool)
    if L <= 0:
        return x
    if order is None:
        order = np.lexsort((-w, s / w))
    cum = np.cumsum(w[order])
    c = int(np.searchsorted(cum, L, side="left"))
    if c >= n:
        return fallback.copy()
    x[order[:c]] = True
    P = int(cum[c - 1]) if c else 0
    d, R = L - P, U - P
    rest = order[c:]
    wr = w[rest]
    fit = (wr >= d) & (wr <= R)
    if fit.any():
        cand = rest[fit]
        k = int(np.lexsort((-w[cand], s[cand]))[0])
        x[cand[k]] = True
        return x
    # no single item closes the band: fill U − P with the other items as in stage 1
    sub = np.asarray(rest)
    y = _greedy1(w[sub], R)
    y, _ = _improve1(w[sub], y, R, np.random.default_rng(21), deadline_h=time.perf_counter() + 0.2)
    if int(w[sub][y].sum()) >= d:
        x[sub] = y
        return x
    return fallback.copy()


def _improve2(w: np.ndarray, s: np.ndarray, x: np.ndarray, L: int, U: int, lb: int,
              rng: np.random.Generator, deadline_h: float) -> tuple[np.ndarray, bool]:
    """Lower the significance by moves that keep L ≤ Σ w ≤ U: drops and 1-for-1
    swaps over all items, then a large-neighbourhood search. The flag is True when
    the whole problem was enumerated (the answer is then exact)."""
    x = x.copy()
    S = int(w[x].sum())
    sig = int(s[x].sum())
    levels = np.unique(s)
    for _ in range(200):
        if sig <= lb or time.perf_counter() > deadline_h:
            return x, False
        inn, out = np.flatnonzero(x), np.flatnonzero(~x)
        best: tuple[int, int, int] | None = None  # (gain, in, out)
        # drop one
        can = inn[(S - w[inn] >= L) & (s[inn] > 0)]
        if len(can):
            k = can[int(np.argmax(s[can]))]
            best = (int(s[k]), int(k), -1)
        # swap one for one with a less significant item
        for b in levels:
            ob = out[s[out] == b]
            if len(ob) == 0:
                continue
            ia = inn[s[inn] > b]
            if len(ia) == 0:
                continue
            oo = ob[np.argsort(w[ob], kind="stable")]
            ows = w[oo]
            lo = np.searchsorted(ows, w[ia] + (L - S), side="left")
            hi = np.searchsorted(ows, w[ia] + (U - S), side="right")
            okk = hi > lo
            if not okk.any():
                continue
            gains = np.where(okk, s[ia] - b, -1)
            k = int(np.argmax(gains))
            if best is None or gains[k] > best[0]:
                best = (int(gains[k]), int(ia[k]), int(oo[hi[k] - 1]))
        if best is None or best[0] <= 0:
            break
        _, i, o = best
        x[i] = False
        S -= int(w[i])
        sig -= int(s[i])
        if o >= 0:
            x[o] = True
            S += int(w[o])
            sig += int(s[o])
    # large-neighbourhood search: free a few dozen items (the chosen ones with the
    # most significance per value, the unchosen with the least, and some at random)
    # and re-solve that sub-problem exactly by meet in the middle
    rounds = 0
    while sig > lb and time.perf_counter() < deadline_h and rounds < 80:
        rounds += 1
        inn, out = np.flatnonzero(x), np.flatnonzero(~x)
        ki = min(len(inn), _LNS2_SIZE // 2)
        ko = min(len(out), _LNS2_SIZE - ki)
        ki = min(len(inn), _LNS2_SIZE - ko)
        pi = _pool(inn, ki, rng, prefer=-(s[inn] / w[inn]))
        po = _pool(out, ko, rng, prefer=s[out] / w[out])
        sub = rng.permutation(np.concatenate((pi, po)))
        fw = S - int(w[pi].sum())
        fs = sig - int(s[pi].sum())
        y = _mitm2(w[sub], s[sub], L - fw, U - fw)
        if y is not None and fs + int(s[sub][y].sum()) < sig:
            x[sub] = y
            S = fw + int(w[sub][y].sum())
            sig = fs + int(s[sub][y].sum())
        if len(sub) == len(w):
            return x, True  # the whole problem was solved exactly
    return x, False


def _mitm2(w: np.ndarray, s: np.ndarray, lo: int, hi: int) -> np.ndarray | None:
    """Exact min Σ s subject to lo ≤ Σ w ≤ hi over ≤ ~32 items, by meet in the middle
    (then the largest Σ w among the least significant); None when infeasible."""
    n = len(w)
    h = n // 2
    sa, ga = _subset_sums(w[:h]), _subset_sums(s[:h])
    sb, gb = _subset_sums(w[h:]), _subset_sums(s[h:])
    best: tuple[int, int, int, int] | None = None  # (sig, -sum, ia, ib)
    for g in np.unique(gb):
        if best is not None and g + int(ga.min()) > best[0]:
            break
        idx = np.flatnonzero(gb == g)
        idx = idx[np.argsort(sb[idx], kind="stable")]
        sbs = sb[idx]
        left = np.searchsorted(sbs, lo - sa, side="left")
        right = np.searchsorted(sbs, hi - sa, side="right")
        ok = np.flatnonzero(right > left)
        if len(ok) == 0:
            continue
        tot = ga[ok] + g
        top = sa[ok] + sbs[right[ok] - 1]
        k = int(np.lexsort((-top, tot))[0])
        cand = (int(tot[k]), -int(top[k]), int(ok[k]), int(idx[right[ok[k]] - 1]))
        if best is None or cand[:2] < best[:2]:
            best = cand
    if best is None:
        return None
    return np.concatenate((_bits(best[2], h), _bits(best[3], n - h)))


def _polish(w: np.ndarray, s: np.ndarray, x: np.ndarray, U: int) -> np.ndarray:
    """Add items of significance 0 that still fit: more value, same significance."""
    free = np.flatnonzero(~x & (s == 0))
    if len(free) == 0:
        return x
    x = x.copy()
    r = U - int(w[x].sum())
    for i in free[np.argsort(-w[free], kind="stable")]:
        wi = int(w[i])
        if wi <= r:
            x[i] = True
            r -= wi
    return x


# ---------------------------------------------------------------------------------
# scipy milp (HiGHS) in a child process that can be killed
# ---------------------------------------------------------------------------------
def _child_main() -> None:
    """Entry point of the solver process. It imports scipy first (while the parent
    is still busy with its heuristics), then reads a pickled request on stdin and
    writes a pickled (x, proven) on stdout. HiGHS prints to the C-level stdout, so
    the answer goes to a duplicate of the original descriptor and fds 1 and 2 go to
    /dev/null."""
    out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    answer: tuple[Any, bool] = (None, False)
    try:
        from scipy.optimize import Bounds, LinearConstraint, milp
        req = pickle.load(sys.stdin.buffer)
        w, s = req["w"], req["s"]
        wf = w.astype(float)
        if req["stage"] == 1:
            c, lo = -wf, 0.0
        else:
            c, lo = s.astype(float), float(req["L"])
        r = milp(c, constraints=LinearConstraint(wf[None, :], lo, float(req["U"])),
                 integrality=np.ones(len(w)), bounds=Bounds(0, 1),
                 options={"mip_rel_gap": 0, "time_limit": max(0.05, req["limit"]), "presolve": True})
        answer = (None if r.x is None else (r.x > 0.5), r.status == 0)
    finally:
        pickle.dump(answer, out)
        out.close()


class _MilpChild:
    """scipy `milp` (HiGHS, mip_rel_gap=0) in a separate Python process, started
    early so that its imports overlap the parent's heuristics, and killed when its
    budget is spent (HiGHS does not always honour its own time limit)."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-c", "from valuation.partition.selection import _child_main; _child_main()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        except OSError:
            self.proc = None

    def solve(self, stage: int, w: np.ndarray, s: np.ndarray, L: int, U: int,
              budget: float) -> tuple[np.ndarray | None, bool] | None:
        """(x, proven) or None when it failed or ran out of time."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if budget <= 0.2:
            _kill(proc)
            return None
        req = pickle.dumps({"stage": stage, "w": w, "s": s, "L": L, "U": U,
                            "limit": max(0.05, budget - 1.0)})
        try:
            data, _ = proc.communicate(req, timeout=budget)
        except subprocess.TimeoutExpired:
            _kill(proc)
            return None
        except OSError:
            _kill(proc)
            return None
        if proc.returncode != 0:
            return None
        try:
            x, proven = pickle.loads(data)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError):
            return None
        if x is None or len(x) != len(w):
            return None
        return np.asarray(x, dtype=bool), bool(proven)

    def close(self) -> None:
        if self.proc is not None:
            _kill(self.proc)
            self.proc = None


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    try:
        proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, OSError, ValueError):
        pass
