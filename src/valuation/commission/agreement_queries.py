"""Panel-level agreement of the Commission in one round (rules.md §2: "Show panel-level
agreement, e.g. Krippendorff's alpha for the votes, intraclass correlation for the
values") — store side, as plain data for the dashboard's charts.

Descriptive statistics: floats, never used in a decision. Computed over the entries in
force with SQL doing the per-item work — from the round's pre-pivoted entries
(`consensus_pivot`: one row per item, the members in slots) and stored consensus, or for a
round with more members than slots from `assessment_current` — so that a round of a
million items needs no Python loop over items: Krippendorff's alpha from the counts of
(votes for, votes against) patterns, ICC(2,1) of ln(value) through
`valuation.commission.agreement.icc_2_1` on the item × member matrix, each member's deviations from
the item medians as quantiles, and the flagged items.

Access: only after the round's close (before it the statistics would reveal the members'
values): dpc with the members named, Commission members with the other members under
per-round pseudonyms; explorers and the admin never.
"""
from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from valuation.commission import agreement as stats
from valuation.commission.rounds import PSEUDONYM_SQL, YOU, fetch_round
from valuation.core.errors import AccessDenied
from valuation.db.access import Principal, allowed, require

if TYPE_CHECKING:
    from valuation.db.store import Store

__all__ = ["MemberDeviation", "RoundAgreement", "agreement", "alpha_from_vote_patterns"]

MAX_FLAGGED_LISTED = 1_000   # flagged items listed in full; the total is always given


@dataclass(frozen=True)
class MemberDeviation:
    """How far one member's values sit from the item medians: (v − median) / median."""

    member: str                 # name (dpc), 'Você' or 'Membro N' (members: anonymous)
    member_id: int | None       # None when anonymous
    n: int                      # at least 1 (a member without a valued item has no row): every figure exists
    mean: float
    median: float
    p25: float
    p75: float
    minimum: float
    maximum: float


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
    the members' values: Delphi independence).

    Computed from the round's pre-pivoted entries (`consensus_pivot`, one row per item)
    and stored consensus; a round entered by more members than the pivot has slots is
    computed from assessment_current. The result is kept per store until the round's
    entries or consensus change (a page shows it again without recomputing it)."""
    require(user, "read_agreement")
    row = fetch_round(store, round_id)
    if row["status"] == "aberta":  # members and dpc alike (Delphi: no statistic of an open round)
        raise AccessDenied("A concordância da rodada só aparece depois do encerramento.",
                           user=user.username, action="agreement")
    state = store.fetch_one(
        "SELECT (SELECT max(rev) FROM consensus_pivot WHERE round_id = ?) AS rev, "
        "(SELECT max(computed_at) FROM round_consensus WHERE round_id = ?) AS computed, "
        "(SELECT count(*) FROM round_members WHERE round_id = ?) AS members, "
        "(SELECT count(*) FROM round_members WHERE round_id = ? AND slot IS NULL) AS unslotted",
        [round_id] * 4) or {}
    named = allowed(user, "read_member_names")
    key = (round_id, row["status"], state.get("rev"), state.get("computed"), named, None if named else user.id)
    memo = _MEMO.setdefault(store, {})
    if key not in memo:
        if len(memo) >= _MEMO_SIZE:
            memo.pop(next(iter(memo)))
        pivot = state.get("members") and not state.get("unslotted")
        memo[key] = (_from_pivot if pivot else _from_entries)(store, user, round_id, row)
    return memo[key]


# Agreement results per store (weakly: a closed store drops them), a few rounds' worth.
_MEMO: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], RoundAgreement]] = weakref.WeakKeyDictionary()
_MEMO_SIZE = 8


def _flagged(store: Store, round_id: int) -> tuple[pd.DataFrame, int]:
    total = int(store.scalar("SELECT count(*) FROM item_consensus WHERE round_id = ? AND flagged", [round_id]))
    listed = store.fetch_df(
        "SELECT ic.item_id, i.item_code, i.description, ic.n_values, ic.median_brl, ic.spread, ic.votes_for, "
        "ic.votes_against, ic.decided_by FROM item_consensus ic JOIN items i ON i.id = ic.item_id "
        "WHERE ic.round_id = ? AND ic.flagged ORDER BY i.item_code LIMIT ?", [round_id, MAX_FLAGGED_LISTED])
    return listed, total


def _from_pivot(store: Store, user: Principal, round_id: int, row: dict[str, Any]) -> RoundAgreement:
    """The statistics from consensus_pivot (the members' slots) and round_consensus: one row
    per item, no GROUP BY over the entries. Deviations are taken from the stored median."""
    patterns = store.fetch("SELECT votes_for AS t, votes_against AS f, count(*) AS w FROM item_consensus "
                           "WHERE round_id = ? GROUP BY ALL", [round_id])
    alpha = alpha_from_vote_patterns([(int(p["t"]), int(p["f"]), int(p["w"])) for p in patterns])
    slots = store.fetch("SELECT m.member_id, m.slot, u.full_name, n.n AS pseudonym FROM round_members m "
                        "JOIN users u ON u.id = m.member_id JOIN (SELECT c.member_id, "
                        f"{PSEUDONYM_SQL} AS n FROM round_members c WHERE c.round_id = ?) n "
                        "ON n.member_id = m.member_id WHERE m.round_id = ? ORDER BY m.member_id",
                        [round_id, round_id])
    counts = store.fetch_one("SELECT " + ", ".join(f"count(u{int(r['slot'])}) AS n{int(r['slot'])}" for r in slots)
                             + " FROM consensus_pivot WHERE round_id = ?", [round_id]) if slots else None
    counts = counts or {}
    valued = [r for r in slots if counts.get(f"n{int(r['slot'])}")]
    icc, icc_items = None, 0
    if len(valued) >= 2:
        cols = ", ".join(f"ln(CAST(u{int(r['slot'])} AS DOUBLE) / 1e8) AS m{k}" for k, r in enumerate(valued))
        where = " AND ".join(f"u{int(r['slot'])} > 0" for r in valued)
        cur = store.cursor()
        try:
            table = cur.sql(f"SELECT {cols} FROM consensus_pivot WHERE round_id = {int(round_id)} AND {where}"
                            ).to_arrow_table()
        finally:
            cur.close()
        if table.num_rows:
            matrix = np.column_stack([table.column(k).to_numpy(zero_copy_only=False) for k in range(len(valued))])
            icc_items = int(matrix.shape[0])
            icc = stats.icc_2_1(matrix)
    deviations = _slot_deviations(store, user, round_id, valued)
    flagged, flagged_total = _flagged(store, round_id)
    return RoundAgreement(round_id=round_id, alpha_votes=alpha, icc_log_values=icc, n_items=int(row["item_count"]),
                          n_members=len(slots), icc_items=icc_items, deviations=deviations, flagged=flagged,
                          flagged_total=flagged_total)


def _slot_deviations(store: Store, user: Principal, round_id: int,
                     valued: list[dict[str, Any]]) -> tuple[MemberDeviation, ...]:
    """(value − median) / median per member over the items with a median > 0, from the slots."""
    if not valued:
        return ()
    parts = []
    for r in valued:
        d = f"(CAST(p.u{int(r['slot'])} AS DOUBLE) / 1e8 - m) / m"
        k = int(r["slot"])
        parts.append(f"count({d}) AS n{k}, avg({d}) AS mean{k}, quantile_cont({d}, 0.5) AS median{k}, "
                     f"quantile_cont({d}, 0.25) AS p25_{k}, quantile_cont({d}, 0.75) AS p75_{k}, "
                     f"min({d}) AS min{k}, max({d}) AS max{k}")
    agg = store.fetch_one(
        f"SELECT {', '.join(parts)} FROM (SELECT p.*, CAST(r.median_brl AS DOUBLE) AS m FROM consensus_pivot p "
        f"JOIN round_consensus r ON r.round_id = p.round_id AND r.item_id = p.item_id "
        f"WHERE p.round_id = ? AND r.median_brl > 0) p", [round_id]) or {}
    out = []
    for r in sorted(valued, key=lambda r: int(r["pseudonym"])):
        k = int(r["slot"])
        if not agg.get(f"n{k}"):
            continue
        label, mid = _label(user, r)
        out.append(MemberDeviation(member=label, member_id=mid, n=int(agg[f"n{k}"]), mean=agg[f"mean{k}"],
                                   median=agg[f"median{k}"], p25=agg[f"p25_{k}"], p75=agg[f"p75_{k}"],
                                   minimum=agg[f"min{k}"], maximum=agg[f"max{k}"]))
    return tuple(out)


def _label(user: Principal, r: dict[str, Any]) -> tuple[str, int | None]:
    """How a member is shown: the name (dpc), 'Você', or the round's pseudonym 'Membro N'."""
    if allowed(user, "read_member_names"):
        return r["full_name"], int(r["member_id"])
    if int(r["member_id"]) == user.id:
        return YOU, int(r["member_id"])
    return f"Membro {int(r['pseudonym'])}", None


def _from_entries(store: Store, user: Principal, round_id: int, row: dict[str, Any]) -> RoundAgreement:
    """The statistics from assessment_current (GROUP BY per item): any number of members."""
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
    flagged, flagged_total = _flagged(store, round_id)
    n_members = int(store.scalar("SELECT count(DISTINCT member_id) FROM assessment_current WHERE round_id = ?",
                                 [round_id]))
    return RoundAgreement(round_id=round_id, alpha_votes=alpha, icc_log_values=icc, n_items=int(row["item_count"]),
                          n_members=n_members, icc_items=icc_items, deviations=deviations, flagged=flagged,
                          flagged_total=flagged_total)


def _deviations(store: Store, user: Principal, round_id: int) -> tuple[MemberDeviation, ...]:
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
        label, mid = _label(user, r)
        out.append(MemberDeviation(member=label, member_id=mid, n=int(r["n"]), mean=r["mean"], median=r["median"],
                                   p25=r["p25"], p75=r["p75"], minimum=r["minimum"], maximum=r["maximum"]))
    return tuple(out)
