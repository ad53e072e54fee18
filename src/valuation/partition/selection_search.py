"""The search methods of the União's choice (`valuation.partition.selection`): exact ones for
small pools (enumeration, dynamic programming, meet in the middle), the stage-1 heuristics
(greedy, exchanges, large-neighbourhood search) and the stage-2 heuristics with the
Lagrangian/LP-relaxation bound that certifies them. Integer arrays in, integer arrays out:
the scaling, the locks and the result records live in `selection`.
"""
from __future__ import annotations

import time
from decimal import ROUND_CEILING, Decimal

import numpy as np

_LNS1_SIZE = 36           # items re-solved together by meet in the middle (stage 1)
_LNS2_SIZE = 28           # items re-solved together by meet in the middle (stage 2)
_INF = np.int32(1 << 29)


def band_low(best: int, tol: Decimal) -> int:
    """The lowest value stage 2 may keep: best − tol (in scaled units), rounded up, never below 0."""
    lo = (Decimal(best) - tol).to_integral_value(rounding=ROUND_CEILING)
    return max(0, int(lo))


# ---- exact methods ---------------------------------------------------------------
def _subset_sums(w: np.ndarray) -> np.ndarray:
    sums = np.zeros(1, np.int64)
    for wi in w:
        sums = np.concatenate((sums, sums + wi))
    return sums


def _bits(index: int, n: int) -> np.ndarray:
    return np.array([(index >> j) & 1 == 1 for j in range(n)], dtype=bool)


def enumerate_select(w: np.ndarray, s: np.ndarray, U: int, tol: Decimal, minimise: bool) -> tuple[np.ndarray, int]:
    """Exact, over every subset (≤ 20 items): (the chosen set, the best value ≤ U)."""
    n = len(w)
    sums = _subset_sums(w)
    sigs = _subset_sums(s)
    ok = sums <= U
    best = int(sums[ok].max())
    if not minimise:
        idx = int(np.flatnonzero(sums == best)[0])
        return _bits(idx, n), best
    band = ok & (sums >= band_low(best, tol))
    cand = np.flatnonzero(band)
    # minimal significance, then largest value
    order = np.lexsort((-sums[cand], sigs[cand]))
    idx = int(cand[order[0]])
    return _bits(idx, n), best


def dp_select(w: np.ndarray, s: np.ndarray, U: int, tol: Decimal, minimise: bool) -> tuple[np.ndarray, int]:
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
        lo = band_low(best, tol)
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


def mitm1(w: np.ndarray, U: int) -> np.ndarray:
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
def greedy1(w: np.ndarray, U: int, by_w: np.ndarray | None = None) -> np.ndarray:
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


def improve1(w: np.ndarray, x: np.ndarray, U: int, rng: np.random.Generator,
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
        y = mitm1(w[sub], now + r)
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
        moved, i_out, b_in, a_in, j_out = best
        x = x.copy()
        x[i_out] = False
        x[a_in] = True
        if b_in >= 0:
            x[b_in] = True
        if j_out >= 0:
            x[j_out] = False
        r -= moved
    return x, r


# ---- stage 2 heuristics and bound ---------------------------------------------------
def cover_lower_bound(w: np.ndarray, s: np.ndarray, L: int, order: np.ndarray | None = None) -> int:
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


def greedy2(w: np.ndarray, s: np.ndarray, L: int, U: int, fallback: np.ndarray,
            order: np.ndarray | None = None) -> np.ndarray:
    """Stage 2 greedy: the least significance per unit of value first, until the value reaches L
    (at most U); `fallback` when the items cannot reach L."""
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
    y = greedy1(w[sub], R)
    y, _ = improve1(w[sub], y, R, np.random.default_rng(21), deadline_h=time.perf_counter() + 0.2)
    if int(w[sub][y].sum()) >= d:
        x[sub] = y
        return x
    return fallback.copy()


def _best_move2(w: np.ndarray, s: np.ndarray, x: np.ndarray, S: int, L: int, U: int,
                levels: np.ndarray) -> tuple[int, int, int] | None:
    """The move that lowers the significance most while L ≤ Σ w ≤ U: (gain, item out of the
    set, item into it or -1) — drop one, or swap one for one with a less significant item."""
    inn, out = np.flatnonzero(x), np.flatnonzero(~x)
    best: tuple[int, int, int] | None = None  # (gain, in, out)
    can = inn[(S - w[inn] >= L) & (s[inn] > 0)]
    if len(can):
        k = can[int(np.argmax(s[can]))]
        best = (int(s[k]), int(k), -1)
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
    return best


def _lns2(w: np.ndarray, s: np.ndarray, x: np.ndarray, S: int, sig: int, L: int, U: int, lb: int,
          rng: np.random.Generator, deadline_h: float) -> tuple[np.ndarray, bool]:
    """Large-neighbourhood search: free a few dozen items (the chosen ones with the most
    significance per value, the unchosen with the least, and some at random) and re-solve that
    sub-problem exactly by meet in the middle. True when the whole problem was solved so."""
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


def improve2(w: np.ndarray, s: np.ndarray, x: np.ndarray, L: int, U: int, lb: int,
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
        best = _best_move2(w, s, x, S, L, U, levels)
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
    return _lns2(w, s, x, S, sig, L, U, lb, rng, deadline_h)


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


def polish(w: np.ndarray, s: np.ndarray, x: np.ndarray, U: int) -> np.ndarray:
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


