"""Keeping `consensus_pivot` (migration 011) in step with the Commission's entries.

Every entry is written by `valuation.commission.entries` to `assessment_log` (the trail,
append-only) and `assessment_current` (the entry in force per member); in the same
transaction this module copies it into the member's slot of the item's pivot row (value
× 10⁸, vote_code, score_code), moves the row's `rev` to the new log id and brings the
item's consensus up to date:

- `bulk_entries`: a batch of one member's entries (a sheet, the bulk entry) — one UPDATE
  of the slots, then `consensus_sql.update_consensus` of the items touched (named, for a
  few; else the whole round, where exactly the rows touched are out of step);
- `one_entry`: one entry (a form) — the item decided in Python by the same rules as
  `valuation.commission.consensus.decide_item` (the rules the SQL mirrors), slot and consensus
  written by key.
"""
from __future__ import annotations

import weakref
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from valuation.commission.consensus import (
    classify,
    consensus_value,
    is_flagged,
    round_cents,
)
from valuation.commission.consensus_sql import INLINE_IDS, MAX_MEMBERS, SLOTS, insert_consensus, update_consensus
from valuation.commission.entry_codes import score_code, score_code_sql, stored_code, vote_code, vote_code_sql
from valuation.commission.fx import EXACT
from valuation.core.errors import StoreError

if TYPE_CHECKING:
    from valuation.db.store import Tx

# Every write here happens inside an entry's transaction, which the caller audits.
AUDITED_BY = ("commission/entries",)


# Slots read from the database, per store: a slot never changes once given (the ones given
# by a transaction still open are not kept here: it may roll back).
_SLOTS: weakref.WeakKeyDictionary[Any, dict[tuple[int, int], int | None]] = weakref.WeakKeyDictionary()


def member_slot(tx: Tx, round_id: int, member_id: int) -> int | None:
    """The member's slot in the round's pivot, given at the first entry (None: all six taken
    — the round is then computed from assessment_current)."""
    known = _SLOTS.setdefault(tx.store, {})
    if (round_id, member_id) in known:
        return known[(round_id, member_id)]
    rows = tx.cur.execute("SELECT member_id, slot FROM round_members WHERE round_id = ?", [round_id]).fetchall()
    for mid, slot in rows:
        if mid == member_id:
            known[(round_id, member_id)] = None if slot is None else int(slot)
            return known[(round_id, member_id)]
    if len(rows) >= MAX_MEMBERS:
        raise StoreError(f"round {round_id} has entries of {len(rows)} members; the consensus SQL packs per-item "
                         f"counts in 12 bits (at most {MAX_MEMBERS})")
    taken = {int(s) for _, s in rows if s is not None}
    free = next((k for k in range(SLOTS) if k not in taken), None)
    tx.cur.execute("INSERT INTO round_members (round_id, member_id, slot) VALUES (?, ?, ?)",
                   [round_id, member_id, free]).fetchall()
    return free


def _units(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """decimal128(·, 8) values as decimal128(38, 0) holding value × 10⁸: the same 128-bit
    integers, read without a scale (no arithmetic)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not pa.types.is_decimal(values.type) or values.type.scale != 8:
        values = values.cast(pa.decimal128(38, 8))
    return pa.Array.from_buffers(pa.decimal128(38, 0), len(values), values.buffers(), values.null_count,
                                 values.offset)


def bulk_entries(tx: Tx, rnd: Mapping[str, Any], member_id: int, written: pa.Table, item_ids: list[int]) -> None:
    """Copy a batch of one member's new entries (`written`: the assessment_log rows — id,
    round_id, item_id, member_id, historical, value_brl, significance, must_keep) into the
    pivot, then recompute the consensus of the items touched (`item_ids`)."""
    slot = member_slot(tx, int(rnd["id"]), member_id)
    stage = pa.table({"id": written["id"], "item_id": written["item_id"], "member_id": written["member_id"],
                      "historical": written["historical"], "u": _units(written["value_brl"]),
                      "significance": written["significance"], "must_keep": written["must_keep"]})
    view = f"_pivot_entries_{id(stage)}"
    tx.cur.register(view, stage)
    only = f" AND p.item_id IN ({', '.join(map(str, item_ids))})" if len(item_ids) <= INLINE_IDS else ""
    try:
        sets = "rev = l.id"
        if slot is not None:
            sets += (f", u{slot} = CAST(l.u AS HUGEINT), c{slot} = {vote_code_sql('l', rnd['president_id'])}, "
                     f"g{slot} = {score_code_sql('l')}")
        tx.execute(f"UPDATE consensus_pivot AS p SET {sets} FROM {view} l WHERE p.round_id = ? "
                   f"AND p.item_id = l.item_id{only}", [rnd["id"]])
    finally:
        tx.cur.unregister(view)
    if len(item_ids) <= INLINE_IDS:
        update_consensus(tx, int(rnd["id"]), item_ids)
    else:          # the rows touched are exactly the ones out of step: the round's recompute finds them
        update_consensus(tx, int(rnd["id"]))


# The spread as consensus_sql stores it: NULL below two values, 0 when min = max, NULL when v_lo + v_hi = 0 —
# decided here on the exact values — else a DOUBLE computed by DuckDB with the very expression of consensus_sql:
# max - min (exact, as the DECIMAL(27,8) their difference is there) and v_lo + v_hi as DECIMAL(27,8), each cast
# to DOUBLE, so that the stored double is the same bit for bit.
_SPREAD_SQL = "2.0 * CAST(CAST(? AS DECIMAL(27,8)) AS DOUBLE) / CAST(CAST(? AS DECIMAL(27,8)) AS DOUBLE)"


def _spread(n: int, mx: Decimal | None, mn: Decimal | None, pair: Decimal | None) -> tuple[str, list[Any]]:
    """The SQL of round_consensus.spread for one item and its parameters (see `_SPREAD_SQL`)."""
    if n < 2 or mx is None or mn is None or pair is None:
        return "?", [None]
    if mx == mn:
        return "?", [0.0]
    if pair == 0:
        return "?", [None]
    return _SPREAD_SQL, [EXACT.subtract(mx, mn), pair]


def _decide(rnd: Mapping[str, Any], rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    """The consensus of one item from its entries in force — (member_id, historical,
    value_brl, significance, must_keep) rows — by the rules of `valuation.commission.consensus`
    (classify, consensus_value, round_cents, is_flagged), as consensus_sql computes it."""
    votes_for = sum(1 for r in rows if r[1] is True)
    votes_against = sum(1 for r in rows if r[1] is False)
    president = rnd["president_id"]
    president_vote = next((r[1] for r in rows if president is not None and r[0] == int(president)), None)
    historical, decided_by, quorum_met = classify(votes_for, votes_against, president_vote, int(rnd["quorum"]))
    values = sorted(r[2] for r in rows if r[2] is not None)
    n = len(values)
    threshold = rnd["spread_threshold"]
    if not isinstance(threshold, Decimal):
        threshold = Decimal(str(threshold))
    exact = consensus_value(values, rnd["method"])
    mn = mx = pair = median_brl = None
    if n:
        mn, mx = values[0], values[-1]
        pair = EXACT.add(values[(n + 1) // 2 - 1], values[n // 2])          # v_lo + v_hi
        median_brl = round_cents(Fraction(pair) / 2)
    scores = sorted(int(r[3]) for r in rows if r[3] is not None)
    significance = None
    if scores:
        k = len(scores)
        significance = Decimal(scores[(k + 1) // 2 - 1] + scores[k // 2]) / 2
    return {"votes_for": votes_for, "votes_against": votes_against, "quorum_met": quorum_met,
            "historical": historical, "decided_by": decided_by, "n_values": n,
            "value_brl": None if exact is None else round_cents(exact),
            "spread": (n, mx, mn, pair),
            "flagged": is_flagged(values, threshold, votes_for, votes_against), "significance": significance,
            "must_keep_votes": sum(1 for r in rows if r[4] is True), "median_brl": median_brl}


def one_entry(tx: Tx, rnd: Mapping[str, Any], member_id: int, item_id: int, log_id: int, *,
              historical: bool | None, value_brl: Decimal | None, significance: int | None,
              must_keep: bool | None, in_force: list[tuple[Any, ...]] | None = None) -> None:
    """After one entry (already in assessment_log as `log_id` and in assessment_current):
    its slot and the row's rev (in step: basis too), and the item's consensus, by key.
    `in_force`: the item's entries in force now — (member_id, historical, value_brl, significance,
    must_keep), this one included — when the caller has them (else read from assessment_current)."""
    rows = in_force if in_force is not None else tx.cur.execute(
        "SELECT member_id, historical, value_brl, significance, must_keep FROM assessment_current "
        "WHERE round_id = ? AND item_id = ?", [rnd["id"], item_id]).fetchall()
    d = _decide(rnd, rows)
    slot = member_slot(tx, int(rnd["id"]), member_id)
    sets, params = "", []
    if slot is not None:
        is_president = rnd["president_id"] is not None and int(rnd["president_id"]) == member_id
        sets = f"u{slot} = CAST(? AS HUGEINT), c{slot} = ?, g{slot} = ?, "
        params = [_to_units(value_brl), vote_code(historical, must_keep, is_president), score_code(significance)]
    pivot = tx.execute(f"UPDATE consensus_pivot SET {sets}rev = ?, basis = ? WHERE round_id = ? AND item_id = ?",
                       [*params, log_id, log_id, rnd["id"], item_id])
    spread_sql, spread = _spread(*d.pop("spread"))
    value, median = d.pop("value_brl"), d["median_brl"]
    stored = tx.execute(
        f"UPDATE round_consensus SET code = ?, value_brl = ?, spread = {spread_sql}, computed_at = ?, median_brl = ? "
        f"WHERE round_id = ? AND item_id = ?",
        [stored_code(**{k: v for k, v in d.items() if k != "median_brl"}), None if value == median else value,
         *spread, tx.store.now(), median, rnd["id"], item_id])
    if not _updated(pivot) or not _updated(stored):      # no row yet (never after open_round)
        insert_consensus(tx, int(rnd["id"]), [item_id])


def _updated(rows: list[dict[str, Any]]) -> int:
    return int(next(iter(rows[0].values()))) if rows else 0


def _to_units(value: Decimal | None) -> int | None:
    """value_brl × 10⁸, exactly (value_brl has 8 decimal places)."""
    if value is None:
        return None
    units = value.scaleb(8, context=EXACT)
    if units != units.to_integral_value(context=EXACT):
        raise ValueError(f"value_brl {value} has more than 8 decimal places")
    return int(units)
