"""Panel-level agreement of the Commission (rules.md §2: "Show panel-level agreement,
e.g. Krippendorff's alpha for the votes, intraclass correlation for the values").

These are descriptive statistics for the dashboard, not money: they use floats
(numpy) and never feed a decision. Each returns None when the statistic is not
defined for the data given (too few data, no variation).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from decimal import Decimal
from itertools import permutations

import numpy as np
from numpy.typing import ArrayLike


def krippendorff_alpha_nominal(units: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's alpha for nominal data, any number of coders, missing data.

    `units` holds one row per item (unit) with one entry per coder (member): the
    vote True/False (any hashable category works), or None when that coder did not
    code the unit. Follows Krippendorff (2011), "Computing Krippendorff's
    Alpha-Reliability": units with fewer than two values are not pairable and are
    dropped; o_ck = Σ_u (c–k pairs in u) / (m_u − 1); n_c = Σ_k o_ck;
    alpha = 1 − (n − 1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c · n_k.

    None when there are no pairable values or no variation at all (expected
    disagreement 0: alpha is undefined).
    """
    coincidence: defaultdict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for unit in units:
        values = [v for v in unit if v is not None]
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, k in permutations(counts, 2):
            coincidence[(c, k)] += counts[c] * counts[k] / (m - 1)
        for c, nc in counts.items():
            coincidence[(c, c)] += nc * (nc - 1) / (m - 1)
    if not coincidence:
        return None
    n_c: defaultdict[Hashable, float] = defaultdict(float)
    for (c, _k), o in coincidence.items():
        n_c[c] += o
    n = sum(n_c.values())
    observed = sum(o for (c, k), o in coincidence.items() if c != k)
    expected = sum(n_c[c] * n_c[k] for c, k in permutations(n_c, 2))
    if expected == 0 or n <= 1:
        return None
    return float(1.0 - (n - 1) * observed / expected)


def icc_2_1(matrix: ArrayLike) -> float | None:
    """Shrout & Fleiss (1979) ICC(2,1): two-way random effects, absolute agreement,
    single rater.

    `matrix` has one row per target (item) and one column per judge (member), NaN
    (or None) where a judge gave no value. Only complete rows are used.
    ICC(2,1) = (BMS − EMS) / (BMS + (k − 1)·EMS + k·(JMS − EMS)/n),
    with BMS the between-targets, JMS the between-judges and EMS the residual mean
    squares of the two-way ANOVA without replication.

    None when fewer than 2 complete rows or fewer than 2 judges remain, or the
    denominator is 0 (no variation at all).
    """
    a = np.asarray(matrix, dtype=float)
    if a.ndim != 2:
        raise ValueError("icc_2_1 needs a 2-D matrix (targets × judges)")
    a = a[~np.isnan(a).any(axis=1)]
    n, k = a.shape
    if n < 2 or k < 2:
        return None
    grand = a.mean()
    ss_rows = k * ((a.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((a.mean(axis=0) - grand) ** 2).sum()
    ss_total = ((a - grand) ** 2).sum()
    ss_error = ss_total - ss_rows - ss_cols
    bms = ss_rows / (n - 1)
    jms = ss_cols / (k - 1)
    ems = ss_error / ((n - 1) * (k - 1))
    denominator = bms + (k - 1) * ems + k * (jms - ems) / n
    if not np.isfinite(denominator) or abs(denominator) < 1e-12 * max(1.0, abs(bms), abs(jms), abs(ems)):
        return None
    return float((bms - ems) / denominator)


def member_deviations(
    values_by_item: Mapping[str, Mapping[str, Decimal | float]],
) -> dict[str, dict[str, float]]:
    """Per member, per item: (member's value − item median) / item median.

    `values_by_item` maps item id → {member id → value in BRL}. The item median is
    the median of that item's values (as in the consensus rule). Items whose median
    is 0 are left out (a relative deviation is undefined there). For a chart: how far
    each member tends to sit from the panel.
    """
    out: dict[str, dict[str, float]] = {}
    for item_id, by_member in values_by_item.items():
        if not by_member:
            continue
        members = list(by_member)
        vals = np.array([float(by_member[m]) for m in members], dtype=float)
        median = float(np.median(vals))
        if median == 0:
            continue
        for m, v in zip(members, vals):
            out.setdefault(m, {})[item_id] = float((v - median) / median)
    return out
