"""The Commission's consensus for a whole round, vectorised in DuckDB SQL (rules.md §2).

This is the SQL twin of `valuation.commission.consensus` (rules 1–6 of its module docstring;
Lei 7.542/1986 art. 20 §3 and art. 21 §2; Lei 2.180/1954 arts. 70–71 by analogy)
and must agree with `consensus.decide_item` on the same data, item by item
(`tests/commission/test_consensus_sql.py` checks it on random rounds):

1. Votes: `historical` TRUE / FALSE / NULL (did not vote), counted through the per-entry
   `vote_code` (historical, not historical, must keep, the president's vote — bit fields
   of 12 bits, summed per item; migration 007) and `score_code` (one 12-bit counter per
   significance score), both written by the store with every entry
   (`valuation.commission.entry_codes`).
2. Quorum first: voters = for + against ≥ the round's quorum, else undecided.
3. Majority; a tie is decided by the round's president's vote (`president_id`);
   no president or a president who did not vote → undecided.
4. Value over the n converted values (`value_brl`, exact), by the round's method, rounded
   ONCE to the cent, half-up:
   * median: (v_lo + v_hi) / 2 to the cent, half-up — exact integer arithmetic on the
     values in units of 10⁻⁸ real (`value_brl × 10⁸`), or exact DECIMAL `round` (half away
     from zero; values are never negative). v_lo / v_hi are picked from the sorted values,
     so no interpolating `median` aggregate is involved;
   * mean / trimmed mean: the integer formula floor((200·S8 + n·10⁸) / (2·n·10⁸)) cents,
     with S8 = the sum in units of 10⁻⁸ as an exact HUGEINT (DuckDB's `avg` and DECIMAL
     division return DOUBLE: never used for money). The trimmed mean drops one lowest and
     one highest copy (S − min − max over n − 2) and falls back to the mean when n ≤ 2.
5. Spread = (max − min) / median as a DOUBLE, 2·(max − min) / (v_lo + v_hi) of the values
   as DECIMAL(·, 8) cast to DOUBLE (display only): NULL with < 2 values, 0 when all values
   are equal, NULL when the median is 0 and max > min.
6. Flag = (n ≥ 2 AND 2·(max − min) > threshold·(v_lo + v_hi), compared exactly) OR
   |for − against| ≤ 1.

Where the entries are read (migration 011):

* `consensus_pivot` keeps, per (round, item), the entry in force of each of the round's
  members in a slot (`round_members.slot`, 0–5, given at a member's first entry): the value
  in units of 10⁻⁸ (`u_k`, HUGEINT), its vote_code and score_code. A round's consensus is
  then a projection of its rows: min, v_lo, v_hi and max from a rank network over the six
  slots, the counts from two sums — no GROUP BY. The consensus is stored on the same row
  (`item_consensus` is a view of it), so a recompute writes in place.
* a round entered by more members than there are slots (a seventh member) is computed
  from `assessment_current` by a GROUP BY instead (`consensus_select`: a per-member pivot
  in the query for up to MAX_PIVOT_MEMBERS members, else an ordered list aggregate). Both
  ways give the same rows, to the bit (the tests run both against `decide_item`).

In step, exactly: each row carries `rev`, the newest `assessment_log` id among the item's
entries in force (set with each entry), and `basis`, the `rev` its consensus was computed
from. A whole-round recompute (`update_consensus(tx, round)`: the bulk entry, the close)
computes the rows with rev ≠ basis — all of them after a bulk entry of every item, none at
a close that follows entries each of which recomputed its item — and writes them without
comparing results (`force=True` recomputes every row). A recompute of listed items always
recomputes them.

Every item of the round has a row from `open_round` on (`insert_consensus`), also an item
without any entry (0 votes, no value, flagged). Besides the rule outputs the row stores
`median_brl` (the anonymous median the members see after the close), `significance`
(median of the members' 1–5 scores, as DECIMAL(4,2)) and `must_keep_votes` (historical
votes proposing "must keep"). `computed_at` is the time of the last recomputation that
wrote the row.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.errors import NotFound, StoreError
from valuation.policies.defaults import CONSENSUS_METHODS

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

# Up to this many item ids are written into the statement as an IN list of integers
# (DuckDB prunes row groups with it); more go through a registered Arrow table.
INLINE_IDS = 512
E8 = 100_000_000  # value_brl has 8 decimal places: value × 10⁸ is an integer
# Each count is packed in 12 bits of vote_code / score_code, so at most this many members
# may enter one round (the Commission has 6).
MAX_MEMBERS = 4095
SLOTS = 6                                   # member slots of consensus_pivot (migration 011)
CONSENSUS_TABLE = "round_consensus"        # the stored consensus (item_consensus is a view of it)
# Rounds computed from assessment_current with at most this many members take the order
# statistics from a per-member pivot in the query and a rank network (cheaper than an
# ordered list aggregate). 0 forces the list aggregate.
MAX_PIVOT_MEMBERS = 8

_COLUMNS = ("votes_for", "votes_against", "quorum_met", "historical", "decided_by", "n_values", "value_brl",
            "spread", "flagged", "significance", "must_keep_votes", "computed_at", "median_brl")
# How round_consensus stores them (migration 011, `_decide_select`): the small fields
# packed in `code`, value_brl only where it differs from median_brl — five columns written
# per row, not thirteen (item_consensus decodes them).
_STORED = ("code", "value_brl", "spread", "computed_at", "median_brl")
STORED_COLUMNS = _STORED                    # what a recompute writes
SLOT_COLUMNS = tuple(f"{p}{k}" for p in "ucg" for k in range(SLOTS))

# Stands for "no value": above any value a member can enter (MAX_VALUE_BRL < 10¹⁶), so that
# missing values sort last and comparisons never meet a NULL.
_NO_VALUE = "CAST(100000000000000000 AS DECIMAL(26,8))"
_NO_UNITS = "CAST(10000000000000000000000000 AS HUGEINT)"       # the same, × 10⁸
_BIGINT_SAFE = 9_000_000_000_000_000_000                         # below 2⁶³: BIGINT arithmetic


# ======================================================================================
# The decision: one SELECT over `a` (per item: votes, counts, order statistics)
# ======================================================================================
# floor((200·S8 + n·10⁸) / (2·n·10⁸)) cents, in HUGEINT; S8 = S·10⁸ exact.
_MEAN_CENTS = ("CAST((200 * {s8} + CAST({n} AS HUGEINT) * {e8}) "
               "// (2 * CAST({n} AS HUGEINT) * {e8}) AS DECIMAL(18,0)) * 0.01")


def _sig_pick(p: str) -> str:
    """The p-th smallest significance score (1-based) from the per-score counts."""
    return (f"CASE WHEN a.s1 >= {p} THEN 1 WHEN a.s1 + a.s2 >= {p} THEN 2 "
            f"WHEN a.s1 + a.s2 + a.s3 >= {p} THEN 3 WHEN a.s1 + a.s2 + a.s3 + a.s4 >= {p} THEN 4 ELSE 5 END")


def _units_dec(x: str) -> str:
    """A value in units of 10⁻⁸ as DECIMAL(·, 8) (exact; cheap: no division)."""
    return f"(CAST({x} AS DECIMAL(27,0)) * 0.00000001)"


def _money_sql(method: str, units: bool) -> tuple[str, str]:
    """(value_brl, median_brl) expressions over `a`, DECIMAL(18,2), rounded once, half-up.

    units: a.mn/mx/mlo/mhi/pair/s8 are exact HUGEINTs in units of 10⁻⁸ (the stored pivot);
    otherwise a.mn/mx/mlo/mhi/s are DECIMAL(26,8) (the GROUP BY over assessment_current)."""
    if method not in CONSENSUS_METHODS:
        raise StoreError(f"unknown consensus method {method!r}")
    if units:
        half_up = (f"CASE WHEN a.pair < {_BIGINT_SAFE} THEN (CAST(a.pair AS BIGINT) + 1000000) // 2000000 "
                   f"ELSE (a.pair + 1000000) // 2000000 END")
        median = f"CAST(CAST({half_up} AS DECIMAL(18,0)) * 0.01 AS DECIMAL(18,2))"
        s8, trimmed_s8 = "a.s8", "(a.s8 - a.mn - a.mx)"
    else:
        # round((lo + hi) / 2, 2): exact DECIMAL, half away from zero (= half-up, values ≥ 0).
        median = "CAST(round((a.mlo + a.mhi) * 0.5, 2) AS DECIMAL(18,2))"
        s8, trimmed_s8 = f"CAST(a.s * {E8} AS HUGEINT)", f"CAST((a.s - a.mn - a.mx) * {E8} AS HUGEINT)"
    if method == "median":
        return median, median            # the very same expression: computed once
    mean = _MEAN_CENTS.format(s8=s8, n="a.n", e8=E8)
    if method == "mean":
        return f"CAST({mean} AS DECIMAL(18,2))", median
    trimmed = _MEAN_CENTS.format(s8=trimmed_s8, n="(a.n - 2)", e8=E8)
    return f"CAST(CASE WHEN a.n >= 3 THEN {trimmed} ELSE {mean} END AS DECIMAL(18,2))", median


def _decide_select(method: str, *, units: bool, extra: str = "") -> str:
    """The final SELECT over the CTE `a`: one row per item (rules 2–6) in the form
    round_consensus stores it — round_id, item_id, code (the small fields packed, see
    migration 011 and `entry_codes.stored_code`), value_brl (only where it differs from the median),
    spread, computed_at, median_brl — plus `a.rev` and `extra` columns. Parameters
    (positional): quorum ×3, spread_threshold, computed_at."""
    value, median = _money_sql(method, units)
    if units:
        spread = (f"2.0 * CAST({_units_dec('a.mx - a.mn')} AS DOUBLE) / CAST({_units_dec('a.pair')} AS DOUBLE)")
        wide = "2 * (a.mx - a.mn) * 10000 > CAST(CAST(? AS DECIMAL(9,4)) * 10000 AS HUGEINT) * a.pair"
        pair = "a.pair"
    else:
        spread = "2.0 * CAST(a.mx - a.mn AS DOUBLE) / CAST(a.mlo + a.mhi AS DOUBLE)"
        wide = "2 * (a.mx - a.mn) > CAST(? AS DECIMAL(9,4)) * (a.mlo + a.mhi)"
        pair = "(a.mlo + a.mhi)"
    p1, p2 = "((a.sn + 1) // 2)", "(a.sn // 2 + 1)"
    # historical: 0 none (no quorum, or a tie the president did not break), 1 true, 2 false;
    # decided_by: 0 undecided, 1 majority, 2 president (rules 2 and 3)
    historical = ("CASE WHEN a.vf + a.va < ? THEN 0 WHEN a.vf > a.va THEN 1 WHEN a.va > a.vf THEN 2 "
                  "WHEN a.pv THEN 1 WHEN NOT a.pv THEN 2 ELSE 0 END")
    decided = "CASE WHEN a.vf + a.va < ? THEN 0 WHEN a.vf <> a.va THEN 1 WHEN a.pv IS NULL THEN 0 ELSE 2 END"
    value_stored = ("NULL::DECIMAL(18,2)" if method == "median" else
                    f"CASE WHEN a.n > 0 AND {value} IS DISTINCT FROM {median} THEN {value} END")
    return f"""
SELECT a.round_id,
       a.item_id,
       a.vf | (a.va::BIGINT << 12) | (a.mk::BIGINT << 24) | (a.n::BIGINT << 36)
         | ((a.vf + a.va >= ?)::BIGINT << 48) | (({historical})::BIGINT << 49) | (({decided})::BIGINT << 51)
         | (((a.n >= 2 AND {wide}) OR abs(a.vf - a.va) <= 1)::BIGINT << 53)
         | ((CASE WHEN a.sn > 0 THEN {_sig_pick(p1)} + {_sig_pick(p2)} ELSE 0 END)::BIGINT << 54) AS code,
       {value_stored} AS value_brl,
       CASE WHEN a.n < 2 THEN NULL
            WHEN a.mx = a.mn THEN 0.0::DOUBLE
            WHEN {pair} = 0 THEN NULL
            ELSE {spread} END AS spread,
       CAST(? AS TIMESTAMP) AS computed_at,
       CASE WHEN a.n > 0 THEN {median} END AS median_brl,
       a.rev{extra}
FROM a
"""


def _decode(vp: str, sp: str) -> str:
    """The vote and score counts of `a` from the summed codes (`vp`, `sp`: SQL expressions)."""
    return (f"coalesce({vp} & 4095, 0) AS vf, coalesce(({vp} >> 12) & 4095, 0) AS va, "
            f"CASE ({vp} >> 36) & 3 WHEN 1 THEN TRUE WHEN 2 THEN FALSE END AS pv, "
            f"coalesce(({vp} >> 24) & 4095, 0) AS mk, "
            f"{sp} & 4095 AS s1, ({sp} >> 12) & 4095 AS s2, ({sp} >> 24) & 4095 AS s3, ({sp} >> 36) & 4095 AS s4, "
            f"coalesce(({sp} & 4095) + (({sp} >> 12) & 4095) + (({sp} >> 24) & 4095) + (({sp} >> 36) & 4095) "
            f"+ (({sp} >> 48) & 4095), 0) AS sn")


def _rank_network(k_all: range, value: str, n: str) -> tuple[str, str]:
    """(ranks, picks) over the values `value.format(k)` of the slots, `n` of them real: the
    rank of slot k is #{j < k: v_j ≤ v_k} + #{j > k: v_j < v_k} — a stable sort, so equal
    values get distinct ranks and the n real values (missing ones are a sentinel above all)
    take ranks 0…n−1 — and min, v_lo, v_hi, max are the values of rank 0, (n+1)//2 − 1,
    n//2, n − 1."""
    def rank(k: int) -> str:
        terms = [f"({value.format(j)} {'<=' if j < k else '<'} {value.format(k)})::INTEGER" for j in k_all if j != k]
        return " + ".join(terms) or "0"

    def pick(pos: str) -> str:
        whens = " ".join(f"WHEN r{k} = {pos} THEN {value.format(k)}" for k in k_all)
        return f"CASE WHEN {n} > 0 THEN CASE {whens} END END"

    ranks = ", ".join(f"{rank(k)} AS r{k}" for k in k_all)
    picks = (f"{pick('0')} AS mn, {pick(f'{n} - 1')} AS mx, "
             f"{pick(f'({n} + 1) // 2 - 1')} AS mlo, {pick(f'{n} // 2')} AS mhi")
    return ranks, picks


# ======================================================================================
# From the stored pivot (consensus_pivot): a projection
# ======================================================================================
def pivot_select(method: str, source: str, *, keep: Sequence[str] = ()) -> str:
    """The consensus of the rows of `source` (a relation with consensus_pivot's round_id,
    item_id, u0…u5, c0…c5, g0…g5 and rev; aliased p), computed from the slots alone.

    Output: round_id, item_id, the stored columns (`_decide_select`), rev, then `keep`
    (columns of `source` passed through). Parameters (positional): quorum ×3,
    spread_threshold, computed_at (`_decide_params`)."""
    k_all = range(SLOTS)
    slots = ", ".join(f"coalesce(p.u{k}, {_NO_UNITS}) AS w{k}" for k in k_all)
    n = " + ".join(f"(p.u{k} IS NOT NULL)::INTEGER" for k in k_all)
    vp = " + ".join(f"p.c{k}" for k in k_all)
    sp = " + ".join(f"p.g{k}" for k in k_all)
    s8 = "NULL::HUGEINT" if method == "median" else " + ".join(f"coalesce(p.u{k}, 0)" for k in k_all)
    ranks, picks = _rank_network(k_all, "w{}", "n")
    kept = "".join(f", {c}" for c in keep)
    passed = "".join(f", p.{c}" for c in keep)
    return f"""
WITH g AS (
    SELECT p.round_id, p.item_id, p.rev, {slots}, {n} AS n, {vp} AS vp, {sp} AS sp, {s8} AS s8{passed}
    FROM {source}
), r AS (
    SELECT g.*, {ranks} FROM g
), s AS (
    SELECT round_id, item_id, rev, n, s8, {_decode('vp', 'sp')}, {picks}{kept}
    FROM r
), a AS (
    SELECT *, mlo + mhi AS pair FROM s
)""" + _decide_select(method, units=True, extra="".join(f", a.{c}" for c in keep))


# ======================================================================================
# From assessment_current: a GROUP BY (rounds with more members than slots)
# ======================================================================================
def _order_stats_pivot(members: Sequence[int]) -> tuple[str, str, str]:
    """(aggregate columns, ranks, picks) giving mn, mx, mlo, mhi from one value per member:
    each member's value v_k is pivoted out (a member has one entry per item; no value → a
    sentinel above every value), then the rank network of `_rank_network`."""
    agg = ",\n           ".join(
        f"coalesce(max(c.value_brl) FILTER (WHERE c.member_id = {int(m)}), {_NO_VALUE}) AS v{k}"
        for k, m in enumerate(members))
    ranks, picks = _rank_network(range(len(members)), "g.v{}", "g.n")
    return agg, ranks, picks


def consensus_select(method: str, item_filter: str = "", *, members: Sequence[int] | None = None,
                     with_empty: bool = True) -> str:
    """The SELECT computing one item_consensus row per item from `assessment_current`.

    `item_filter`: an extra predicate on `{col}` (item ids, built by this module from
    integers only). `members`: the round's members when at most MAX_PIVOT_MEMBERS (a
    pivot in the query + rank network); None → an ordered list aggregate (any number of
    members). `with_empty`: also the round's items without any entry (0 votes, no value).
    Output: round_id, item_id, the stored columns (`_decide_select`) and rev (the newest
    log id).

    Parameters (positional, in order): round_id, [round_id if with_empty],
    quorum ×3, spread_threshold, computed_at — see `_params`.
    """
    sum_agg = "NULL AS s" if method == "median" else "sum(c.value_brl) AS s"   # the sum costs; median needs none
    cur_filter = f" AND {item_filter.format(col='c.item_id')}" if item_filter else ""
    ri_filter = f" AND {item_filter.format(col='ri.item_id')}" if item_filter else ""
    if members is not None and 0 < len(members) <= MAX_PIVOT_MEMBERS:
        values_agg, ranks, stats_sql = _order_stats_pivot(members)
        inner = f"SELECT g.*, {ranks} FROM agg g"
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
           max(c.log_id) AS rev,
           {sum_agg},
           {values_agg}
    FROM assessment_current c
    WHERE c.round_id = ?{cur_filter}
    GROUP BY c.item_id
), a AS (
    SELECT {keys}, g.rev, coalesce(g.n, 0) AS n, g.s, {stats_sql}, {_decode('g.vp', 'g.sp')}
    FROM {source}
)""" + _decide_select(method, units=False)


def _params(rnd: dict[str, Any], computed_at: datetime, *, with_empty: bool = True) -> list[Any]:
    """The parameters of `consensus_select` (round id once or twice, then `_decide_params`)."""
    rid = [rnd["id"], rnd["id"]] if with_empty else [rnd["id"]]
    return [*rid, *_decide_params(rnd, computed_at)]


def _decide_params(rnd: dict[str, Any], computed_at: datetime) -> list[Any]:
    q = int(rnd["quorum"])
    threshold = rnd["spread_threshold"]
    if not isinstance(threshold, Decimal):
        threshold = Decimal(str(threshold))
    return [q, q, q, threshold, computed_at]


# ======================================================================================
# Writing
# ======================================================================================
def _round(tx: Tx, round_id: int) -> dict[str, Any]:
    row = tx.fetch_one("SELECT id, method, quorum, spread_threshold, president_id FROM assessment_rounds "
                       "WHERE id = ?", [round_id])
    if row is None:
        raise NotFound(f"Rodada de avaliação {round_id} não encontrada.", what="assessment_round", key=round_id)
    return row


def _count(rows: list[dict[str, Any]]) -> int:
    """The row count DuckDB returns for INSERT / UPDATE / DELETE."""
    return int(next(iter(rows[0].values()))) if rows else 0


def _uses_pivot(tx: Tx, round_id: int) -> tuple[bool, list[int]]:
    """(whether the stored slots hold every member of the round, the round's members)."""
    rows = tx.cur.execute("SELECT member_id, slot FROM round_members WHERE round_id = ? ORDER BY member_id",
                          [round_id]).fetchall()
    members = [int(m) for m, _ in rows]
    return (all(s is not None for _, s in rows) and len(rows) <= min(SLOTS, MAX_PIVOT_MEMBERS)), members


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

    def where(self, col: str) -> str:
        return f" AND {self.sql.format(col=col)}" if self.sql else ""

    def close(self) -> None:
        if self.view is not None:
            self.tx.cur.unregister(self.view)
            self.view = None


_SETS = ", ".join(f"{c} = q.{c}" for c in _STORED)
_INSERT = (f"INSERT INTO round_consensus (round_id, item_id, {', '.join(_STORED)}) "
           f"SELECT q.round_id, q.item_id, {', '.join('q.' + c for c in _STORED)} FROM ({{sql}}) q")
# A whole-round recompute with at least this share of the rows out of step rewrites the
# round's rows (delete + insert); with fewer it updates those rows by key.
REWRITE_SHARE = 1 / 3


def _slots_from_current(round_id: int, ids: _Ids) -> str:
    """The slot columns of a round's items pivoted out of assessment_current (round_members)."""
    cols = [f"max(CAST(c.value_brl * {E8} AS HUGEINT)) FILTER (WHERE m.slot = {k}) AS u{k}" for k in range(SLOTS)]
    cols += [f"coalesce(max(c.vote_code) FILTER (WHERE m.slot = {k}), 0) AS c{k}" for k in range(SLOTS)]
    cols += [f"coalesce(max(c.score_code) FILTER (WHERE m.slot = {k}), 0) AS g{k}" for k in range(SLOTS)]
    return (f"SELECT c.item_id, max(c.log_id) AS rev, {', '.join(cols)} FROM assessment_current c "
            f"JOIN round_members m ON m.round_id = c.round_id AND m.member_id = c.member_id "
            f"WHERE c.round_id = {int(round_id)}{ids.where('c.item_id')} GROUP BY c.item_id")


def insert_consensus(tx: Tx, round_id: int, item_ids: Sequence[int] | None = None) -> int:
    """INSERT the rows of a round's items that have none yet — the pivot rows (their slots
    from assessment_current: none at `open_round`) and the stored consensus rows — and
    return how many consensus rows were inserted."""
    rnd = _round(tx, round_id)
    rid = int(round_id)
    ids = _Ids(tx, item_ids)
    try:
        slots = ", ".join(f"s.u{k}" for k in range(SLOTS)) + ", " + ", ".join(
            f"coalesce(s.{p}{k}, 0)" for p in "cg" for k in range(SLOTS))
        last = int(tx.scalar(f"SELECT coalesce(max(pos), 0) FROM consensus_pivot WHERE round_id = {rid}"))
        tx.execute(f"INSERT INTO consensus_pivot (round_id, item_id, pos, {', '.join(SLOT_COLUMNS)}, rev, basis) "
                   f"SELECT ri.round_id, ri.item_id, {last} + row_number() OVER (ORDER BY i.item_code, ri.item_id), "
                   f"{slots}, s.rev, s.rev FROM round_items ri JOIN items i ON i.id = ri.item_id "
                   f"LEFT JOIN ({_slots_from_current(rid, ids)}) s ON s.item_id = ri.item_id "
                   f"WHERE ri.round_id = {rid}{ids.where('ri.item_id')} AND NOT EXISTS (SELECT 1 FROM consensus_pivot "
                   f"x WHERE x.round_id = ri.round_id AND x.item_id = ri.item_id) ORDER BY ri.item_id")
        source = (f"(SELECT * FROM consensus_pivot x WHERE x.round_id = {rid}{ids.where('x.item_id')} "
                  f"AND NOT EXISTS (SELECT 1 FROM round_consensus r WHERE r.round_id = x.round_id "
                  f"AND r.item_id = x.item_id)) p")
        n = _count(tx.execute(_INSERT.format(sql=pivot_select(rnd["method"], source)),
                              _decide_params(rnd, tx.store.now())))
    finally:
        ids.close()
    if n and not _uses_pivot(tx, round_id)[0]:
        update_consensus(tx, round_id, item_ids, force=True)     # more members than slots
    return n


def _computed(tx: Tx, rnd: dict[str, Any], pivot: bool, members: list[int], ids: _Ids, where: str,
              now: datetime) -> tuple[str, list[Any]]:
    """(SELECT, parameters): the consensus of the round's items passing `ids` and `where` (a
    predicate on the pivot row p), from the slots or from assessment_current."""
    rid = int(rnd["id"])
    if pivot:
        source = f"consensus_pivot p WHERE p.round_id = {rid}{ids.where('p.item_id')}{where}"
        return pivot_select(rnd["method"], source), _decide_params(rnd, now)
    if where:
        ids_sql = (f"{{col}} IN (SELECT p.item_id FROM consensus_pivot p WHERE p.round_id = {rid}"
                   f"{ids.where('p.item_id')}{where})")
    else:
        ids_sql = ids.sql
    return consensus_select(rnd["method"], ids_sql, members=members), _params(rnd, now)


def update_consensus(tx: Tx, round_id: int, item_ids: Sequence[int] | None = None, *,
                     force: bool = False) -> int:
    """Recompute and store the consensus of the round's items: all of them (a whole-round
    recompute: the rows out of step, every row with `force`) or the listed `item_ids`
    (always recomputed). Returns how many items the round's stored rows cover (a whole
    round) or how many listed items were written. Rows missing for some item (never after
    `open_round`) are inserted."""
    rnd = _round(tx, round_id)
    rid = int(round_id)
    now = tx.store.now()
    pivot, members = _uses_pivot(tx, round_id)
    ids = _Ids(tx, item_ids)
    try:
        total, stale = tx.cur.execute(
            f"SELECT count(*), count(*) FILTER (WHERE rev IS DISTINCT FROM basis) FROM consensus_pivot "
            f"WHERE round_id = {rid}{ids.where('item_id')}").fetchall()[0]
        if item_ids is None and (force or stale >= REWRITE_SHARE * max(total, 1)):
            sql, params = _computed(tx, rnd, pivot, members, ids, "", now)
            tx.execute(f"DELETE FROM round_consensus WHERE round_id = {rid}")
            written = _count(tx.execute(_INSERT.format(sql=sql), params))     # in item order, as scanned
        elif item_ids is not None or stale:
            where = " AND p.rev IS DISTINCT FROM p.basis" if item_ids is None else ""
            sql, params = _computed(tx, rnd, pivot, members, ids, where, now)
            written = _count(tx.execute(
                f"UPDATE round_consensus AS t SET {_SETS} FROM ({sql}) q WHERE t.round_id = {rid} "
                f"AND t.item_id = q.item_id{ids.where('t.item_id')}", params))
        else:
            written = 0
        if stale:
            tx.execute(f"UPDATE consensus_pivot SET basis = rev WHERE round_id = {rid}{ids.where('item_id')} "
                       f"AND rev IS DISTINCT FROM basis")
        expected = int(tx.scalar(f"SELECT count(*) FROM round_items WHERE round_id = {rid}{ids.where('item_id')}"))
        stored = int(tx.scalar(f"SELECT count(*) FROM round_consensus WHERE round_id = {rid}{ids.where('item_id')}"))
    finally:
        ids.close()
    if stored < expected:
        written += insert_consensus(tx, round_id, item_ids)
    return expected if item_ids is None else written


def recomputed_sql(db: Any, round_id: int) -> tuple[str, list[Any]]:
    """(SELECT, parameters) computing every stored consensus row of a round — round_id, item_id, the stored
    columns, rev — exactly as a whole-round recompute would write them now, from its pivot (or, for a round with
    more members than slots, from assessment_current); nothing written. `commission.derived` compares them with
    round_consensus (issue 45, item 2). `computed_at` is the epoch: when a row was computed is not re-derived."""
    rnd = db.fetch_one("SELECT id, method, quorum, spread_threshold, president_id FROM assessment_rounds "
                       "WHERE id = ?", [round_id])
    if rnd is None:
        raise NotFound(f"Rodada de avaliação {round_id} não encontrada.", what="assessment_round", key=round_id)
    rows = db.fetch("SELECT member_id, slot FROM round_members WHERE round_id = ? ORDER BY member_id", [round_id])
    members = [int(r["member_id"]) for r in rows]
    epoch = datetime(1970, 1, 1)
    if all(r["slot"] is not None for r in rows) and len(rows) <= min(SLOTS, MAX_PIVOT_MEMBERS):
        return pivot_select(rnd["method"], f"consensus_pivot p WHERE p.round_id = {int(round_id)}"), \
            _decide_params(rnd, epoch)
    return consensus_select(rnd["method"], members=members), _params(rnd, epoch)


def compute_round_consensus(store: Store, round_id: int, item_ids: Sequence[int] | None = None, *,
                            actor: str = "sistema", force: bool = False) -> int:
    """Recompute and store the consensus of a round (all items, or only `item_ids`) in one
    transaction, audited; returns the number of items it covers (rules.md §2). A whole
    round recomputes the rows whose entries changed since they were computed (`force`:
    every row)."""

    def run(tx: Tx) -> int:
        n = update_consensus(tx, round_id, item_ids, force=force)
        tx.audit("consensus_computed", "assessment_round", round_id, None,
                 {"items": n, "scope": "round" if item_ids is None else "items", "force": force})
        return n

    return store.write(actor, run)
