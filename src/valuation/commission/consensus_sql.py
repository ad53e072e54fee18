"""The Commission's consensus for a whole round, vectorised in DuckDB SQL (rules.md §2).

This is the SQL twin of `valuation.commission.consensus` (rules 1–6 of its module docstring;
Lei 7.542/1986 art. 20 §3 and art. 21 §2; Lei 2.180/1954 arts. 70–71 by analogy)
and must agree with `consensus.decide_item` on the same data, item by item
(`tests/test_consensus_sql_agrees.py` checks it on random rounds):

1. Votes: `historical` TRUE / FALSE / NULL (did not vote) in `assessment_current`,
   counted through its per-row `vote_code` (historical, not historical, must keep,
   the president's vote — bit fields of 12 bits, summed per item; migration 007) and
   `score_code` (one 12-bit counter per significance score), both written by the store
   with every entry (`vote_code_sql`, `score_code_sql`).
2. Quorum first: voters = for + against ≥ the round's quorum, else undecided.
3. Majority; a tie is decided by the round's president's vote (`president_id`);
   no president or a president who did not vote → undecided.
4. Value over the n converted values (`value_brl`, exact DECIMAL(26,8)), by the
   round's method, rounded ONCE to the cent, half-up:
   * median: round((v_lo + v_hi) × 0.5, 2) — the sum and the halving are exact
     DECIMAL operations and DuckDB's `round` on a DECIMAL rounds half away from
     zero (values are never negative). v_lo / v_hi are picked from the sorted list
     of the item's values, so no interpolating `median` aggregate is involved;
   * mean / trimmed mean: the integer formula floor((200·S + n·10⁸) / (2·n·10⁸))
     cents, with S·10⁸ the sum scaled to an exact HUGEINT (DuckDB's `avg` and
     DECIMAL division return DOUBLE: never used for money). The trimmed mean drops
     one lowest and one highest copy (S − min − max over n − 2) and falls back to
     the mean when n ≤ 2.
5. Spread = (max − min) / median as a DOUBLE, 2·(max − min) / (v_lo + v_hi) (display
   only): NULL with < 2 values, 0 when all values are equal, NULL when the median is 0
   and max > min.
6. Flag = (n ≥ 2 AND 2·(max − min) > threshold·(v_lo + v_hi), compared exactly in
   DECIMAL) OR |for − against| ≤ 1.

v_lo / v_hi (the two middle values, equal for odd n), min and max come from the
item's values sorted by an ordered list aggregate — or, for a whole round whose
entries come from at most MAX_PIVOT_MEMBERS members, from a pivot (one column per
member: each member has one entry per item) and a rank network, which is cheaper;
both are exact and the tests run both against `decide_item`.

Every item of the round gets a row, also an item without any entry (0 votes, no
value, flagged). Besides the rule outputs the row stores `median_brl` (the anonymous
median the members see after the close), `significance` (median of the members'
1–5 scores, as DECIMAL(4,2)) and `must_keep_votes` (historical votes proposing
"must keep").

Writes: `open_round` inserts one row per item (`insert_consensus`); afterwards a
recomputation UPDATEs rows in place (`update_consensus`): an UPDATE of non-key
columns leaves the primary-key index alone, while DELETE + INSERT of a million keys
rebuilds it (measured ~4× slower here). Each entry recomputes only its item; a full
recompute (close, bulk entry) computes every item with entries into a temporary table
and writes only the rows whose result changed — the items without any entry keep
the row `open_round` gave them, which nothing can change (entries are never deleted;
the round's policy and president are fixed at its opening). `computed_at` is the
time of the last recomputation that wrote the row.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.commission.consensus import METHODS
from valuation.core.errors import NotFound, StoreError

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

# Up to this many item ids are written into the statement as an IN list of integers
# (DuckDB prunes row groups with it); more go through a registered Arrow table.
INLINE_IDS = 512
E8 = 100_000_000  # value_brl has 8 decimal places: S·10⁸ is an integer
# assessment_current carries two per-row counters (migration 007), summed per item: cheaper
# than nine conditional counts over a million-item round. Each count takes 12 bits, so at
# most this many members may enter one round (the Commission has 6).
MAX_MEMBERS = 4095


def vote_code_sql(t: str, president_id: int | None) -> str:
    """assessment_current.vote_code of the row alias `t`: 1 historical, 1 << 12 not
    historical, 1 << 24 must keep, and for the round's president 1 << 36 / 2 << 36 (voted
    historical / not) — the tie-break vote (rule 3)."""
    pres = "" if president_id is None else (
        f" + CASE WHEN {t}.member_id = {int(president_id)} THEN CASE WHEN {t}.historical THEN {1 << 36} "
        f"WHEN NOT {t}.historical THEN {2 << 36} ELSE 0 END ELSE 0 END")
    return (f"(CASE WHEN {t}.historical THEN 1 WHEN NOT {t}.historical THEN {1 << 12} ELSE 0 END"
            f" + CASE WHEN {t}.must_keep THEN {1 << 24} ELSE 0 END{pres})")


def score_code_sql(t: str) -> str:
    """assessment_current.score_code of the row alias `t`: 1 << 12·(significance − 1), or 0."""
    return f"coalesce(CAST(1 AS BIGINT) << (12 * ({t}.significance - 1)), 0)"


_VALUE_SQL = {
    # round((lo + hi) / 2, 2): exact DECIMAL, half away from zero (= half-up, values ≥ 0).
    "median": "CAST(round((a.mlo + a.mhi) * 0.5, 2) AS DECIMAL(18,2))",
    "mean": "{mean}",
    "trimmed_mean": "CASE WHEN a.n >= 3 THEN {trimmed} ELSE {mean} END",
}
# floor((200·S8 + n·10⁸) / (2·n·10⁸)) cents, in HUGEINT; S8 = S·10⁸ exact.
_MEAN_CENTS = ("CAST((200 * CAST({s} * {e8} AS HUGEINT) + CAST({n} AS HUGEINT) * {e8}) "
               "// (2 * CAST({n} AS HUGEINT) * {e8}) AS DECIMAL(18,0)) * 0.01")


def _value_sql(method: str) -> str:
    if method not in METHODS:
        raise StoreError(f"unknown consensus method {method!r}")
    if method == "median":
        return _VALUE_SQL["median"]     # the very expression of median_brl (computed once)
    mean = _MEAN_CENTS.format(s="a.s", n="a.n", e8=E8)
    trimmed = _MEAN_CENTS.format(s="(a.s - a.mn - a.mx)", n="(a.n - 2)", e8=E8)
    return "CAST(" + _VALUE_SQL[method].format(mean=mean, trimmed=trimmed) + " AS DECIMAL(18,2))"


def _sig_pick(p: str) -> str:
    """The p-th smallest significance score (1-based) from the per-score counts."""
    return (f"CASE WHEN a.s1 >= {p} THEN 1 WHEN a.s1 + a.s2 >= {p} THEN 2 "
            f"WHEN a.s1 + a.s2 + a.s3 >= {p} THEN 3 WHEN a.s1 + a.s2 + a.s3 + a.s4 >= {p} THEN 4 ELSE 5 END")


# Rounds whose entries come from at most this many members take the order statistics from
# a per-member pivot and a rank network (cheaper than an ordered list aggregate).
MAX_PIVOT_MEMBERS = 8


# Stands for "no value" in the pivot: above any value a member can enter (MAX_VALUE_BRL
# < 10¹⁶), so that missing values sort last and comparisons never meet a NULL.
_NO_VALUE = "CAST(100000000000000000 AS DECIMAL(26,8))"


def _order_stats_pivot(members: Sequence[int]) -> tuple[str, str]:
    """(aggregate columns, projection) giving mn, mx, mlo, mhi from one value per member.

    Each member's value v_k is pivoted out (a member has one entry per item; no value →
    a sentinel above every value); its rank is #{j < k: v_j ≤ v_k} + #{j > k: v_j < v_k}
    — a stable sort, so equal values get distinct ranks and the n real values take ranks
    0…n−1 — and min, v_lo, v_hi, max are the values of rank 0, (n+1)//2 − 1, n//2, n − 1."""
    k_all = range(len(members))
    agg = ",\n           ".join(
        f"coalesce(max(c.value_brl) FILTER (WHERE c.member_id = {int(m)}), {_NO_VALUE}) AS v{k}"
        for k, m in enumerate(members))

    def rank(k: int) -> str:
        terms = [f"(g.v{j} {'<=' if j < k else '<'} g.v{k})::INTEGER" for j in k_all if j != k]
        return " + ".join(terms) or "0"

    def pick(pos: str) -> str:
        whens = " ".join(f"WHEN r{k} = {pos} THEN g.v{k}" for k in k_all)
        return f"CASE WHEN g.n > 0 THEN CASE {whens} END END"

    ranks = ", ".join(f"{rank(k)} AS r{k}" for k in k_all)
    proj = (f"{pick('0')} AS mn, {pick('g.n - 1')} AS mx, "
            f"{pick('(g.n + 1) // 2 - 1')} AS mlo, {pick('g.n // 2')} AS mhi")
    return agg, f"{ranks}|{proj}"


def consensus_select(method: str, item_filter: str = "", *, members: Sequence[int] | None = None,
                     with_empty: bool = True) -> str:
    """The SELECT computing one item_consensus row per item.

    `item_filter`: an extra predicate on `{col}` (item ids, built by this module from
    integers only). `members`: the round's members when at most MAX_PIVOT_MEMBERS (the
    pivot + rank network); None → an ordered list aggregate (any number of members).
    `with_empty`: also the round's items without any entry (0 votes, no value); a full
    recompute leaves those rows as `open_round` inserted them (nothing can change them).

    Parameters (positional, in order): round_id, [round_id if with_empty],
    quorum ×3, spread_threshold, computed_at — see `_params`.
    """
    value = _value_sql(method)
    sum_agg = "NULL AS s" if method == "median" else "sum(c.value_brl) AS s"   # the sum costs; median needs none
    cur_filter = f" AND {item_filter.format(col='c.item_id')}" if item_filter else ""
    ri_filter = f" AND {item_filter.format(col='ri.item_id')}" if item_filter else ""
    p1, p2 = "((a.sn + 1) // 2)", "(a.sn // 2 + 1)"
    if members is not None and 0 < len(members) <= MAX_PIVOT_MEMBERS:
        pivot_agg, pivot_proj = _order_stats_pivot(members)
        ranks, stats = pivot_proj.split("|")
        values_agg = pivot_agg
        inner = f"SELECT g.*, {ranks} FROM agg g"
        stats_sql = stats
    else:
        values_agg = "list(c.value_brl ORDER BY c.value_brl) FILTER (WHERE c.value_brl IS NOT NULL) AS vs"
        inner = "SELECT g.* FROM agg g"
        stats_sql = "g.vs[1] AS mn, g.vs[g.n] AS mx, g.vs[(g.n + 1) // 2] AS mlo, g.vs[g.n // 2 + 1] AS mhi"
    if with_empty:
        source = (f"round_items ri LEFT JOIN ({inner}) g ON g.item_id = ri.item_id "
                  f"WHERE ri.round_id = ?{ri_filter}")
        keys = "ri.round_id, ri.item_id"
    else:
        source = f"({inner}) g"
        keys = "g.round_id, g.item_id"
    return f"""
WITH agg AS (
    SELECT any_value(c.round_id) AS round_id, c.item_id,
           sum(c.vote_code)::BIGINT AS vp,        -- vf | va << 12 | mk << 24 | president << 36
           sum(c.score_code)::BIGINT AS sp,       -- s1 | s2 << 12 | … | s5 << 48
           count(c.value_brl)::INTEGER AS n,
           {sum_agg},
           {values_agg}
    FROM assessment_current c
    WHERE c.round_id = ?{cur_filter}
    GROUP BY c.item_id
), a AS (
    SELECT {keys},
           coalesce(g.vp & 4095, 0) AS vf, coalesce((g.vp >> 12) & 4095, 0) AS va,
           CASE (g.vp >> 36) & 3 WHEN 1 THEN TRUE WHEN 2 THEN FALSE END AS pv,
           coalesce(g.n, 0) AS n, g.s, {stats_sql},
           coalesce((g.vp >> 24) & 4095, 0) AS mk,
           g.sp & 4095 AS s1, (g.sp >> 12) & 4095 AS s2, (g.sp >> 24) & 4095 AS s3, (g.sp >> 36) & 4095 AS s4,
           coalesce((g.sp & 4095) + ((g.sp >> 12) & 4095) + ((g.sp >> 24) & 4095) + ((g.sp >> 36) & 4095)
                    + ((g.sp >> 48) & 4095), 0) AS sn
    FROM {source}
)
SELECT a.round_id,
       a.item_id,
       a.vf AS votes_for,
       a.va AS votes_against,
       a.vf + a.va >= ? AS quorum_met,
       CASE WHEN a.vf + a.va < ? THEN NULL
            WHEN a.vf > a.va THEN TRUE
            WHEN a.va > a.vf THEN FALSE
            ELSE a.pv END AS historical,
       CASE WHEN a.vf + a.va < ? THEN 'undecided'
            WHEN a.vf <> a.va THEN 'majority'
            WHEN a.pv IS NULL THEN 'undecided'
            ELSE 'president' END AS decided_by,
       a.n AS n_values,
       CASE WHEN a.n > 0 THEN {value} END AS value_brl,
       CASE WHEN a.n < 2 THEN NULL
            WHEN a.mx = a.mn THEN 0.0::DOUBLE
            WHEN a.mlo + a.mhi = 0 THEN NULL
            ELSE 2.0 * CAST(a.mx - a.mn AS DOUBLE) / CAST(a.mlo + a.mhi AS DOUBLE) END AS spread,
       (a.n >= 2 AND 2 * (a.mx - a.mn) > CAST(? AS DECIMAL(9,4)) * (a.mlo + a.mhi))
           OR abs(a.vf - a.va) <= 1 AS flagged,
       CASE WHEN a.sn > 0 THEN CAST(({_sig_pick(p1)} + {_sig_pick(p2)}) * 0.5 AS DECIMAL(4,2)) END AS significance,
       a.mk AS must_keep_votes,
       CAST(? AS TIMESTAMP) AS computed_at,
       CASE WHEN a.n > 0 THEN {_VALUE_SQL["median"]} END AS median_brl
FROM a
"""


_COLUMNS = ("votes_for", "votes_against", "quorum_met", "historical", "decided_by", "n_values", "value_brl",
            "spread", "flagged", "significance", "must_keep_votes", "computed_at", "median_brl")


def _params(rnd: dict[str, Any], computed_at: datetime, *, with_empty: bool = True) -> list[Any]:
    q = int(rnd["quorum"])
    threshold = rnd["spread_threshold"]
    if not isinstance(threshold, Decimal):
        threshold = Decimal(str(threshold))
    rid = [rnd["id"], rnd["id"]] if with_empty else [rnd["id"]]
    return [*rid, q, q, q, threshold, computed_at]


def _members(tx: Tx, round_id: int) -> list[int]:
    return [int(r["member_id"]) for r in tx.execute(
        "SELECT DISTINCT member_id FROM assessment_current WHERE round_id = ? ORDER BY member_id", [round_id])]


def _round(tx: Tx, round_id: int) -> dict[str, Any]:
    row = tx.fetch_one("SELECT id, method, quorum, spread_threshold, president_id FROM assessment_rounds "
                       "WHERE id = ?", [round_id])
    if row is None:
        raise NotFound(f"Rodada de avaliação {round_id} não encontrada.", what="assessment_round", key=round_id)
    return row


def _count(rows: list[dict[str, Any]]) -> int:
    """The row count DuckDB returns for INSERT / UPDATE / DELETE."""
    return int(next(iter(rows[0].values()))) if rows else 0


class _Ids:
    """An item filter: None (all), a literal IN list, or a registered Arrow table."""

    def __init__(self, tx: Tx, item_ids: Sequence[int] | None):
        self.tx = tx
        self.view: str | None = None
        self.sql = ""
        if item_ids is None:
            return
        ids = sorted({int(i) for i in item_ids})
        if not ids:
            self.sql = "FALSE"
        elif len(ids) == 1:
            self.sql = "{col} = " + str(ids[0])
        elif len(ids) <= INLINE_IDS:
            self.sql = "{col} IN (" + ", ".join(str(i) for i in ids) + ")"
        else:
            import pyarrow as pa

            self.view = f"_consensus_ids_{id(self)}"
            tx.cur.register(self.view, pa.table({"item_id": pa.array(ids, type=pa.int64())}))
            self.sql = "{col} IN (SELECT item_id FROM " + self.view + ")"

    def close(self) -> None:
        if self.view is not None:
            self.tx.cur.unregister(self.view)
            self.view = None


def insert_consensus(tx: Tx, round_id: int, item_ids: Sequence[int] | None = None) -> int:
    """INSERT the consensus rows of a round's items that have none yet; returns how many."""
    rnd = _round(tx, round_id)
    ids = _Ids(tx, item_ids)
    try:
        sql = consensus_select(rnd["method"], ids.sql)
        cols = ", ".join(("round_id", "item_id", *_COLUMNS))
        rows = tx.execute(
            f"INSERT INTO item_consensus ({cols}) SELECT {cols} FROM ({sql}) q WHERE NOT EXISTS "
            f"(SELECT 1 FROM item_consensus ic WHERE ic.round_id = q.round_id AND ic.item_id = q.item_id)",
            _params(rnd, tx.store.now()))
        n = _count(rows)
        return int(n or 0)
    finally:
        ids.close()


def update_consensus(tx: Tx, round_id: int, item_ids: Sequence[int] | None = None) -> int:
    """Recompute and store the consensus of the round's items — all (a full recompute:
    one pass over the round's entries, the result materialised then written with one
    UPDATE) or only `item_ids` — and return how many items the round's stored rows now
    cover. Rows missing for some item (never after `open_round`) are inserted."""
    rnd = _round(tx, round_id)
    now = tx.store.now()
    sets = ", ".join(f"{c} = q.{c}" for c in _COLUMNS)
    if item_ids is None:
        members = _members(tx, round_id)
        if len(members) > MAX_MEMBERS:
            raise StoreError(f"round {round_id} has entries of {len(members)} members; the consensus SQL packs "
                             f"per-item counts in 12 bits (at most {MAX_MEMBERS})")
        sql = consensus_select(rnd["method"], members=members, with_empty=False)
        temp = f"_consensus_{id(tx)}"
        tx.execute(f"CREATE OR REPLACE TEMP TABLE {temp} AS {sql}", _params(rnd, now, with_empty=False))
        changed = " OR ".join(f"ic.{c} IS DISTINCT FROM q.{c}" for c in _COLUMNS if c != "computed_at")
        # Only the rows whose result changed are written: the stored rows are normally in
        # step already (every entry recomputes its item), and writing is the costly part.
        tx.execute(f"UPDATE item_consensus AS ic SET {sets} FROM {temp} q "
                   f"WHERE ic.round_id = q.round_id AND ic.item_id = q.item_id AND ({changed})")
        tx.execute(f"DROP TABLE {temp}")   # (a failed statement aborts the transaction: no finally)
        expected = int(tx.scalar("SELECT count(*) FROM round_items WHERE round_id = ?", [round_id]))
        stored = int(tx.scalar("SELECT count(*) FROM item_consensus WHERE round_id = ?", [round_id]))
        if stored < expected:
            insert_consensus(tx, round_id)
        return expected
    ids = _Ids(tx, item_ids)
    try:
        sql = consensus_select(rnd["method"], ids.sql)
        only = f" AND {ids.sql.format(col='ic.item_id')}" if ids.view is None else ""
        updated = _count(tx.execute(
            f"UPDATE item_consensus AS ic SET {sets} FROM ({sql}) q "
            f"WHERE ic.round_id = q.round_id AND ic.item_id = q.item_id AND ic.round_id = ?{only}",
            [*_params(rnd, now), round_id]))
        expected = int(tx.scalar(
            "SELECT count(*) FROM round_items ri WHERE ri.round_id = ?"
            + (f" AND {ids.sql.format(col='ri.item_id')}" if ids.sql else ""), [round_id]))
    finally:
        ids.close()
    if updated < expected:
        updated += insert_consensus(tx, round_id, item_ids)
    return updated


def compute_round_consensus(store: Store, round_id: int, item_ids: Sequence[int] | None = None, *,
                            actor: str = "sistema") -> int:
    """Recompute and store the consensus of a round (all items, or only `item_ids`) in one
    transaction, audited; returns the number of items computed (rules.md §2)."""

    def run(tx: Tx) -> int:
        n = update_consensus(tx, round_id, item_ids)
        tx.audit("consensus_computed", "assessment_round", round_id, None,
                 {"items": n, "scope": "round" if item_ids is None else "items"})
        return n

    return store.write(actor, run)
