"""The União's choice of items (rules.md §3; Lei 7.542 art. 20 §2 and §4):
optimality against an independent brute force, properties, locks, scale."""
from __future__ import annotations

import itertools
import math
import random
from decimal import Decimal as D
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import valuation.partition.selection as sel_mod
import valuation.partition.selection_search as search_mod
from valuation.partition.selection import SelItem, select_items


# ---- independent oracle -------------------------------------------------------------
def brute(items: list[SelItem], target: D, tol: D) -> tuple[D, int] | None:
    """(best value ≤ target, least significance within tolerance) by trying every subset."""
    usable = [i for i in items if not i.must_keep and i.lock != "keep"]
    forced = [i for i in usable if i.lock == "give"]
    if any(i.must_keep for i in items if i.lock == "give"):
        return None
    free = [i for i in usable if i.lock is None]
    sets = []
    for r in range(len(free) + 1):
        for combo in itertools.combinations(free, r):
            chosen = list(combo) + forced
            v = sum((i.value for i in chosen), D(0))
            if v <= target:
                sets.append((v, sum(i.significance for i in chosen)))
    if not sets:
        return None
    best = max(v for v, _ in sets)
    return best, min(g for v, g in sets if v >= best - tol * target)


def random_case(rng: random.Random, n_max: int = 11):
    n = rng.randint(0, n_max)
    items = []
    for k in range(n):
        lock = rng.choice([None] * 8 + ["give", "keep"])
        must_keep = rng.random() < 0.1 and lock != "give"
        items.append(SelItem(f"I{k}", D(rng.randint(0, 5000)) / 100, rng.randint(0, 5), must_keep, lock))
    target = D(rng.randint(0, 15000)) / 100
    tol = D(rng.choice(["0", "0.01", "0.05", "0.25"]))
    return items, target, tol


def check_against_brute(items, target, tol, res, *, require_optimal: bool) -> None:
    expected = brute(items, target, tol)
    if expected is None:
        assert res.status == "infeasible"
        return
    best, least_sig = expected
    by_id = {i.id: i for i in items}
    chosen = [by_id[i] for i in res.selected]
    assert sum((i.value for i in chosen), D(0)) == res.selected_value <= target
    assert res.residual == target - res.selected_value
    assert res.significance_handed == sum(i.significance for i in chosen)
    if require_optimal:
        assert res.status == "optimal", res
    if res.status == "optimal":
        assert res.gap == 0
        assert res.stage1_best == best
        assert res.selected_value >= best - tol * target
        assert res.significance_handed == least_sig
    else:  # certified bounds must hold against the true optimum
        assert res.bound >= best
        assert res.significance_bound <= least_sig
        assert res.gap > 0


SOLVER_PATHS = {
    "enumeration": {},
    "dp": {"_ENUM_LIMIT": 0},
    "heuristic+mitm": {"_ENUM_LIMIT": 0, "_DP_CELLS": 0},
}


@pytest.mark.parametrize("path", SOLVER_PATHS)
def test_optimal_against_brute_force(path, monkeypatch):
    for name, value in SOLVER_PATHS[path].items():
        monkeypatch.setattr(sel_mod, name, value)
    rng = random.Random(f"selection-{path}")
    for _ in range(120 if path != "heuristic+mitm" else 60):
        items, target, tol = random_case(rng)
        # at this size every path is exact (the neighbourhood searches cover the whole set)
        check_against_brute(items, target, tol, select_items(items, target, tol), require_optimal=True)


def test_milp_path_against_brute_force(monkeypatch):
    """Force the scipy milp child process (no enumeration, DP, meet in the middle,
    and tiny neighbourhoods so the heuristics cannot prove optimality)."""
    for name, value in {"_ENUM_LIMIT": 0, "_DP_CELLS": 0, "_MITM_LIMIT": 0}.items():
        monkeypatch.setattr(sel_mod, name, value)
    for name in ("_LNS1_SIZE", "_LNS2_SIZE"):   # the neighbourhood searches live beside the solver
        monkeypatch.setattr(search_mod, name, 2)
    rng = random.Random("milp")
    used_milp = 0
    for _ in range(3):
        items, target, tol = random_case(random.Random(rng.random()), n_max=11)
        items = items + [SelItem(f"X{k}", D(rng.randint(1, 9000)) / 100, rng.randint(1, 5)) for k in range(4)]
        res = select_items(items, target, tol, time_limit_s=20)
        used_milp += "milp" in res.method
        check_against_brute(items, target, tol, res, require_optimal=False)
    assert used_milp > 0


def test_public_example_selection():
    items = [SelItem("B-1", D("600.00"), 5), SelItem("B-2", D("400.00"), 1), SelItem("B-3", D("395.00"), 1),
             SelItem("B-4", D("205.00"), 1), SelItem("B-5", D("990.00"), 2, must_keep=True)]
    res = select_items(items, D("1000.00"), D("0.01"))
    assert res.status == "optimal"
    assert set(res.selected) == {"B-2", "B-3", "B-4"}
    assert res.selected_value == D("1000.00") and res.residual == 0 and res.significance_handed == 3


def test_stage2_trades_value_for_significance_within_tolerance():
    # best value 1000 (A+B, significance 10); 995 (C+D) is within 1 % and hands over only 2
    items = [SelItem("A", D("500.00"), 5), SelItem("B", D("500.00"), 5),
             SelItem("C", D("600.00"), 1), SelItem("D", D("395.00"), 1)]
    res = select_items(items, D("1000.00"), D("0.01"))
    assert set(res.selected) == {"C", "D"} and res.significance_handed == 2
    assert res.stage1_best == D("1000.00")
    # with no tolerance the exact best must be kept
    res0 = select_items(items, D("1000.00"), D("0"))
    assert set(res0.selected) == {"A", "B"} and res0.selected_value == D("1000.00")
    # stage 1 only ignores significance
    res1 = select_items(items, D("1000.00"), D("0.01"), minimise_significance=False)
    assert res1.selected_value == D("1000.00")


def test_exact_decimal_sums():
    items = [SelItem("a", D("0.10"), 1), SelItem("b", D("0.20"), 1), SelItem("c", D("0.25"), 1)]
    res = select_items(items, D("0.30"), D("0"))
    assert set(res.selected) == {"a", "b"} and res.selected_value == D("0.30") and res.residual == 0
    fine = [SelItem("a", D("0.001"), 1), SelItem("b", D("0.002"), 1), SelItem("c", D("0.0025"), 1)]
    res = select_items(fine, D("0.003"), D("0"))
    assert res.selected_value == D("0.003") and set(res.selected) == {"a", "b"}


# ---- locks and infeasibility --------------------------------------------------------------
def test_give_locks_exceeding_target_are_infeasible():
    items = [SelItem("a", D("600.00"), 1, lock="give"), SelItem("b", D("500.00"), 1, lock="give"),
             SelItem("c", D("10.00"), 1)]
    res = select_items(items, D("1000.00"), D("0.01"))
    assert res.status == "infeasible"
    assert res.selected == () and res.residual == D("1000.00")
    assert "a" in res.message and "b" in res.message


def test_give_lock_on_must_keep_is_infeasible():
    items = [SelItem("a", D("10.00"), 1, must_keep=True, lock="give"), SelItem("b", D("5.00"), 1)]
    res = select_items(items, D("100.00"), D("0.01"))
    assert res.status == "infeasible" and "a" in res.message


def test_locks_are_respected_even_against_value():
    items = [SelItem("big", D("990.00"), 1, lock="keep"), SelItem("small", D("100.00"), 5, lock="give"),
             SelItem("mid", D("800.00"), 1), SelItem("keepme", D("900.00"), 1, must_keep=True)]
    res = select_items(items, D("1000.00"), D("0.01"))
    assert res.status == "optimal"
    assert "small" in res.selected and "big" not in res.selected and "keepme" not in res.selected
    assert res.selected_value == D("900.00")


def test_zero_target_and_no_items():
    assert select_items([], D("100.00"), D("0.01")).selected == ()
    res = select_items([SelItem("a", D("1.00"), 1), SelItem("z", D("0.00"), 0)], D("0.00"), D("0.01"))
    assert res.status == "optimal" and res.selected_value == 0


@pytest.mark.parametrize("bad", [
    lambda: select_items([SelItem("a", D("1")), SelItem("a", D("2"))], D("5"), D("0")),
    lambda: select_items([SelItem("a", D("-1"))], D("5"), D("0")),
    lambda: select_items([SelItem("a", D("1"), lock="maybe")], D("5"), D("0")),
    lambda: select_items([SelItem("a", D("1"))], D("-5"), D("0")),
    lambda: select_items([SelItem("a", D("1"))], D("5"), D("-0.1")),
])
def test_malformed_arguments_raise_value_error(bad):
    with pytest.raises(ValueError):
        bad()


# ---- properties ------------------------------------------------------------------------
item_st = st.builds(
    SelItem,
    id=st.just(""),
    value=st.integers(0, 200_000).map(lambda c: D(c) / 100),
    significance=st.integers(0, 5),
    must_keep=st.booleans(),
    lock=st.sampled_from([None, None, None, "give", "keep"]),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=st.lists(item_st, max_size=30), target_c=st.integers(0, 2_000_000),
       tol=st.sampled_from([D("0"), D("0.01"), D("0.1")]))
def test_properties(raw, target_c, tol):
    items = [SelItem(f"P{k}", i.value, i.significance, i.must_keep and i.lock != "give", i.lock)
             for k, i in enumerate(raw)]
    target = D(target_c) / 100
    res = select_items(items, target, tol, exact_limit=0)  # no MILP child: keep it fast
    forced = sum((i.value for i in items if i.lock == "give"), D(0))
    if forced > target:
        assert res.status == "infeasible"
        return
    by_id = {i.id: i for i in items}
    chosen = [by_id[k] for k in res.selected]
    assert len(set(res.selected)) == len(res.selected)
    assert res.selected_value == sum((i.value for i in chosen), D(0)) <= target
    assert not any(i.must_keep or i.lock == "keep" for i in chosen)
    assert all(i.id in res.selected for i in items if i.lock == "give")
    assert res.gap >= 0 and res.status in ("optimal", "feasible")
    assert res.bound >= res.stage1_best >= res.selected_value >= res.stage1_best - tol * target
    assert res.significance_bound <= res.significance_handed
    if res.status == "optimal":
        assert res.gap == 0 and res.bound == res.stage1_best


def test_deterministic():
    rng = random.Random(5)
    items = [SelItem(f"I{k}", D(rng.randint(100, 10**7)) / 100, rng.randint(1, 5)) for k in range(3000)]
    target = (sum(i.value for i in items) * D("0.4")).quantize(D("0.01"))
    a = select_items(items, target, D("0.01"))
    b = select_items(items, target, D("0.01"))
    assert a.selected == b.selected and a.status == b.status


# ---- scale -------------------------------------------------------------------------------
def lp_cover_bound(items: list[SelItem], need: D) -> Fraction:
    """Independent LP (Dantzig) lower bound on the significance needed to reach `need`."""
    order = sorted((i for i in items if i.value > 0), key=lambda i: Fraction(i.significance) / Fraction(i.value))
    got, cost = Fraction(0), Fraction(0)
    for i in order:
        v = Fraction(i.value)
        if got + v >= Fraction(need):
            return cost + (Fraction(need) - got) / v * i.significance
        got += v
        cost += i.significance
    return cost


def test_thousand_items_exact():
    rng = random.Random(1000)
    items = [SelItem(f"I{k}", D(rng.randint(100, 10**7)) / 100, rng.randint(1, 5)) for k in range(1000)]
    target = (sum(i.value for i in items) * D("0.4")).quantize(D("0.01"))
    res = select_items(items, target, D("0.01"))
    assert res.status == "optimal" and res.gap == 0
    assert res.selected_value <= target
    # independent certificates: a subset sum cannot beat the target, and no set within the
    # band can hand over less than the LP bound, rounded up
    assert res.stage1_best == target
    assert res.significance_handed >= math.ceil(lp_cover_bound(items, target - D("0.01") * target))


@pytest.mark.slow
def test_hundred_thousand_items_certified_gap():
    rng = random.Random(100_000)
    items = [SelItem(f"I{k}", D(rng.randint(100, 10**7)) / 100, rng.randint(1, 5), rng.random() < 0.02)
             for k in range(100_000)]
    target = (sum(i.value for i in items) * D("0.3")).quantize(D("0.01"))
    res = select_items(items, target, D("0.01"))
    assert res.status in ("optimal", "feasible")
    assert res.gap <= D("0.001")
    assert res.selected_value <= target
    assert res.selected_value >= res.stage1_best - D("0.01") * target
    # the reported gap is backed by its bounds
    assert (res.bound - res.stage1_best) / res.bound <= res.gap
    assert D(res.significance_handed - res.significance_bound) / res.significance_handed <= res.gap
    by_id = {i.id: i for i in items}
    assert not any(by_id[k].must_keep for k in res.selected)


# ---- the items as arrays (select_pool, pool_from_arrow) -----------------------------------
def _as_pool(items: list[SelItem], ids: list[int]) -> sel_mod.Pool:
    import pyarrow as pa

    codes = {None: 0, "give": 1, "keep": 2}
    values = pa.array([i.value for i in items], type=pa.decimal128(18, 2))
    pool = sel_mod.pool_from_arrow(pa.array(ids, type=pa.int64()), values,
                                   pa.array([i.significance for i in items], type=pa.int64()),
                                   pa.array([i.must_keep for i in items]),
                                   {k: i.lock for k, i in zip(ids, items) if i.lock})
    assert pool.lock.tolist() == [codes[i.lock] for i in items]
    return pool


def test_the_pool_gives_the_very_choice_of_the_items():
    rng = random.Random("pool")
    for _ in range(80):
        items, target, tol = random_case(rng, n_max=40)
        ids = rng.sample(range(1, 10**6), len(items))
        items = [SelItem(str(k), i.value, i.significance, i.must_keep, i.lock) for k, i in zip(ids, items)]
        a = select_items(items, target, tol, exact_limit=0)
        b = sel_mod.select_pool(_as_pool(items, ids), target, tol, exact_limit=0)
        assert (a.selected, a.selected_value, a.residual, a.status, a.gap, a.significance_handed, a.bound,
                a.stage1_best, a.significance_bound, a.message) == \
            (b.selected, b.selected_value, b.residual, b.status, b.gap, b.significance_handed, b.bound,
             b.stage1_best, b.significance_bound, b.message)


def test_pool_from_arrow_reads_exact_units_of_a_sliced_column():
    import pyarrow as pa

    values = pa.array([D("0.01"), D("12345678901234.56"), D("7.50"), D("0.00")], type=pa.decimal128(18, 2))
    pool = sel_mod.pool_from_arrow(pa.array([4, 3, 2, 1]).slice(1), values.slice(1), pa.array([1, None, 3]),
                                   pa.array([False, None, True]), {1: "keep", 99: "give"})
    assert pool.units.tolist() == [1234567890123456, 750, 0] and pool.decimals == 2
    assert pool.ids.tolist() == [3, 2, 1] and pool.significance.tolist() == [1, 0, 3]
    assert pool.must_keep.tolist() == [False, False, True] and pool.lock.tolist() == [0, 0, 2]


@pytest.mark.parametrize("change", [
    {"units": [5, -1]}, {"ids": [1, 1]}, {"significance": [1, 101]}, {"lock": [0, 3]}, {"decimals": -1},
    {"units": [1.5, 2.0]}, {"must_keep": [False]},
])
def test_malformed_pools_raise_value_error(change):
    import numpy as np

    base = {"ids": [1, 2], "units": [5, 7], "decimals": 2, "significance": [1, 2], "must_keep": [False, False],
            "lock": [0, 0]}
    base.update(change)
    pool = sel_mod.Pool(**{k: (np.array(v) if isinstance(v, list) else v) for k, v in base.items()})
    with pytest.raises(ValueError):
        sel_mod.select_pool(pool, D("10.00"), D("0.01"))


@pytest.mark.parametrize("w, chosen, U, after", [
    # one out (10), two in (4 + 7): +1; no addition or 1-for-1 swap gains exactly 1
    ([10, 20, 4, 7, 40], [True, True, False, False, False], 31, {20, 4, 7}),
    # two out (10 + 20), one in (31): +1
    ([10, 20, 31, 50], [True, True, False, False], 31, {31}),
])
def test_two_for_one_moves_close_a_residual_the_swaps_cannot(w, chosen, U, after):
    import numpy as np

    w = np.array(w, dtype=np.int64)
    x = np.array(chosen)
    x2, proven = search_mod.improve1(w, x, U, np.random.default_rng(1), deadline_h=0.0)   # no LNS
    assert proven and int(w[x2].sum()) == U
    assert {int(v) for v in w[x2]} == after
