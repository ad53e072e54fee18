"""Panel-level agreement of the Commission in one round (rules.md §2: "Show panel-level
agreement, e.g. Krippendorff's alpha for the votes, intraclass correlation for the
values") — store side, as plain data for the dashboard's charts.

Descriptive statistics: floats, never used in a decision. Computed over the entries in
force (`assessment_current`) with SQL doing the per-item work, so that a round of a
million items needs no Python loop over items: Krippendorff's alpha from the counts of
(votes for, votes against) patterns, ICC(2,1) of ln(value) through
`valuation.commission.agreement.icc_2_1` on the item × member matrix, each member's deviations from
the item medians as quantiles, and the flagged items.

Access: only after the round's close (before it the statistics would reveal the members'
values): dpc with the members named, Commission members with the other members under
per-round pseudonyms; explorers and the admin never.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from valuation.commission import agreement as stats
from valuation.commission.access import (
    PSEUDONYM_SQL,
    READERS,
    YOU,
    fetch_round,
    require_role,
)
from valuation.core.errors import AccessDenied
from valuation.db.access import Principal

if TYPE_CHECKING:
    from valuation.db.store import Store

__all__ = ["MemberDeviation", "RoundAgreement", "agreement", "alpha_from_vote_patterns"]

MAX_FLAGGED_LISTED = 1_000   # flagged items listed in full; the total is always given


@dataclass(frozen=True)
class MemberDeviation:
    """How far one member's values sit from the item medians: (v − median) / median."""

    member: str                 # name (dpc), 'Você' or 'Membro N' (members: anonymous)
    member_id: int | None       # None when anonymous
    n: int
    mean: float | None
    median: float | None
    p25: float | None
    p75: float | None
    minimum: float | None
    maximum: float | None


@dataclass(frozen=True, eq=False)
class RoundAgreement:
    """Panel-level agreement of a round (rules.md §2): descriptive, never used in a decision."""

    round_id: int
    alpha_votes: float | None        # Krippendorff's alpha (nominal) over the votes
    icc_log_values: float | None     # ICC(2,1) over ln(value in BRL), complete items only
    n_items: int
    n_members: int
    icc_items: int                   # items with a value of every member (used by the ICC)
    deviations: tuple[MemberDeviation, ...]
    flagged: pd.DataFrame            # up to MAX_FLAGGED_LISTED flagged items
    flagged_total: int


def alpha_from_vote_patterns(patterns: Sequence[tuple[int, int, int]]) -> float | None:
    """Krippendorff's alpha (nominal) from (votes for, votes against, number of items)
    patterns — the same statistic as `agreement.krippendorff_alpha_nominal` on the
    items themselves (Krippendorff 2011), computed from the coincidence matrix summed
    per pattern so that a round of a million items needs no Python loop over items."""
    o_tt = o_ff = o_tf = 0.0
    for t, f, w in patterns:
        m = t + f
        if m < 2 or w <= 0:
            continue
        o_tt += w * t * (t - 1) / (m - 1)
        o_ff += w * f * (f - 1) / (m - 1)
        o_tf += w * t * f / (m - 1)
    if o_tt + o_ff + o_tf == 0:
        return None
    n_t = o_tt + o_tf
    n_f = o_ff + o_tf
    n = n_t + n_f
    expected = 2 * n_t * n_f
    if expected == 0 or n <= 1:
        return None
    return float(1.0 - (n - 1) * (2 * o_tf) / expected)


def agreement(store: Store, user: Principal, round_id: int) -> RoundAgreement:
    """Panel-level agreement of a round (rules.md §2): Krippendorff's alpha of the votes,
    ICC(2,1) of the log-values (`valuation.commission.agreement.icc_2_1`; items with a value of every
    member, values > 0), each member's deviations from the item medians, and the flagged
    items. Only after the close, for the members and dpc alike (before it this would reveal
    the members' values)."""
    require_role(user, READERS, "consultar a concordância da Comissão")
    row = fetch_round(store, round_id)
    if row["status"] == "aberta":  # members and dpc alike (Delphi: no statistic of an open round)
        raise AccessDenied("A concordância da rodada só aparece depois do encerramento.",
                           user=user.username, action="agreement")
    patterns = store.fetch(
        "SELECT t, f, count(*) AS w FROM (SELECT item_id, count_if(historical) AS t, count_if(NOT historical) AS f "
        "FROM assessment_current WHERE round_id = ? GROUP BY item_id) GROUP BY t, f", [round_id])
    alpha = alpha_from_vote_patterns([(int(p["t"] or 0), int(p["f"] or 0), int(p["w"])) for p in patterns])

    members = [int(r["member_id"]) for r in store.fetch(
        "SELECT DISTINCT member_id FROM assessment_current WHERE round_id = ? AND value_brl IS NOT NULL "
        "ORDER BY member_id", [round_id])]
    icc = None
    icc_items = 0
    if len(members) >= 2:
        pivot = ", ".join(f"max(lv) FILTER (WHERE member_id = {m}) AS m{k}" for k, m in enumerate(members))
        cur = store.cursor()
        try:
            table = cur.sql(
                f"SELECT {pivot} FROM (SELECT item_id, member_id, CASE WHEN value_brl > 0 THEN "
                f"ln(CAST(value_brl AS DOUBLE)) END AS lv FROM assessment_current WHERE round_id = {int(round_id)}) "
                f"GROUP BY item_id HAVING count(lv) = {len(members)}").to_arrow_table()
        finally:
            cur.close()
        if table.num_rows:
            matrix = np.column_stack([table.column(k).to_numpy(zero_copy_only=False).astype(float)
                                      for k in range(len(members))])
            icc_items = int(matrix.shape[0])
            icc = stats.icc_2_1(matrix)

    deviations = _deviations(store, user, round_id)
    flagged_total = int(store.scalar("SELECT count(*) FROM item_consensus WHERE round_id = ? AND flagged",
                                     [round_id]))
    flagged = store.fetch_df(
        "SELECT ic.item_id, i.item_code, i.description, ic.n_values, ic.median_brl, ic.spread, ic.votes_for, "
        "ic.votes_against, ic.decided_by FROM item_consensus ic JOIN items i ON i.id = ic.item_id "
        "WHERE ic.round_id = ? AND ic.flagged ORDER BY i.item_code LIMIT ?", [round_id, MAX_FLAGGED_LISTED])
    n_members = int(store.scalar("SELECT count(DISTINCT member_id) FROM assessment_current WHERE round_id = ?",
                                 [round_id]))
    return RoundAgreement(round_id=round_id, alpha_votes=alpha, icc_log_values=icc, n_items=int(row["item_count"]),
                          n_members=n_members, icc_items=icc_items, deviations=deviations, flagged=flagged,
                          flagged_total=flagged_total)


def _deviations(store: Store, user: Principal, round_id: int) -> tuple[MemberDeviation, ...]:
    named = user.role == "dpc"
    rows = store.fetch(
        f"""WITH v AS (SELECT round_id, item_id, member_id, value_brl FROM assessment_current
                       WHERE round_id = ? AND value_brl IS NOT NULL),
                med AS (SELECT item_id, list(value_brl ORDER BY value_brl) AS vs, count(*) AS n
                        FROM v GROUP BY item_id),
                m AS (SELECT item_id, (vs[(n + 1) // 2] + vs[n // 2 + 1]) * 0.5 AS median FROM med),
                d AS (SELECT v.member_id, CAST(v.value_brl - m.median AS DOUBLE) / CAST(m.median AS DOUBLE) AS dev
                      FROM v JOIN m ON m.item_id = v.item_id WHERE m.median > 0),
                names AS (SELECT c.member_id, {PSEUDONYM_SQL} AS n
                          FROM (SELECT DISTINCT round_id, member_id FROM v) c)
           SELECT d.member_id, u.full_name, names.n AS pseudonym, count(*) AS n, avg(dev) AS mean,
                  quantile_cont(dev, 0.5) AS median, quantile_cont(dev, 0.25) AS p25,
                  quantile_cont(dev, 0.75) AS p75, min(dev) AS minimum, max(dev) AS maximum
           FROM d JOIN users u ON u.id = d.member_id JOIN names ON names.member_id = d.member_id
           GROUP BY d.member_id, u.full_name, names.n ORDER BY names.n""", [round_id])
    out = []
    for r in rows:
        if named:
            label, mid = r["full_name"], int(r["member_id"])
        elif int(r["member_id"]) == user.id:
            label, mid = YOU, int(r["member_id"])
        else:
            label, mid = f"Membro {int(r['pseudonym'])}", None
        out.append(MemberDeviation(member=label, member_id=mid, n=int(r["n"]), mean=r["mean"], median=r["median"],
                                   p25=r["p25"], p75=r["p75"], minimum=r["minimum"], maximum=r["maximum"]))
    return tuple(out)
