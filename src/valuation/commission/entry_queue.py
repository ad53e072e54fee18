"""A member's list of items still to assess in an open round (issue 23 item 8): how many remain and which
comes next after the one just saved, so that the entry form moves on item by item.

The list is the round's items in item-code order (`consensus_pivot.pos`, 1…N, the order of the Itens
table); an item is assessed once the member has an entry in force for it (a vote, a value or both), which the
member's slot of the pivot mirrors (migration 011): at a million items the queue is one pass over the pivot's
rows, where the join of the pivot with the entries in force took 0.1–0.16 s, twice per save (issue 28)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from valuation.commission.rounds import fetch_round
from valuation.db.access import Principal, require

if TYPE_CHECKING:
    from valuation.db.store import Store


@dataclass(frozen=True)
class EntryQueue:
    """`remaining` of `total` items without the member's entry; the next of them after the item asked
    about (`next_pos`, 1-based place in the round's list, and its code), wrapping to the first; None
    when every item is assessed."""

    total: int
    remaining: int
    next_pos: int | None
    next_code: str | None


def entry_queue(store: Store, user: Principal, round_id: int, after_item_id: int | None = None) -> EntryQueue:
    """The member's items still to assess in round `round_id`, and the next after `after_item_id`."""
    require(user, "enter_assessments")
    row = fetch_round(store, round_id)
    after = 0
    if after_item_id is not None:
        after = int(store.scalar("SELECT coalesce(max(pos), 0) FROM consensus_pivot WHERE round_id = ? "
                                 "AND item_id = ?", [round_id, int(after_item_id)]) or 0)
    slot = store.fetch_one("SELECT slot FROM round_members WHERE round_id = ? AND member_id = ?",
                           [round_id, user.id])
    todo = _from_entries(store, round_id, user.id, after) if slot is not None and slot["slot"] is None \
        else _from_slot(store, round_id, None if slot is None else int(slot["slot"]), after)
    pos = todo.get("next_pos")
    return EntryQueue(total=int(row["item_count"]), remaining=int(todo.get("remaining") or 0),
                      next_pos=None if pos is None else int(pos), next_code=todo.get("next_code"))


def _from_slot(store: Store, round_id: int, slot: int | None, after: int) -> dict[str, Any]:
    """The queue from the member's slot of the pivot (None: no entry yet, every item is to do) — one pass over
    the round's pivot rows, no join: the slot mirrors the member's entry in force, and every entry has a vote
    (c_k ≠ 0) or a value (u_k not NULL) — an entry with neither is refused (`sheet.single_entry`)."""
    todo = "TRUE" if slot is None else f"u{int(slot)} IS NULL AND c{int(slot)} = 0"
    found = store.fetch_one(
        f"SELECT count(*) FILTER (WHERE {todo}) AS remaining, "
        f"coalesce(min(pos) FILTER (WHERE {todo} AND pos > ?), min(pos) FILTER (WHERE {todo})) AS next_pos "
        f"FROM consensus_pivot WHERE round_id = ?", [after, round_id]) or {}
    if found.get("next_pos") is not None:
        found["next_code"] = store.scalar(
            "SELECT i.item_code FROM consensus_pivot p JOIN items i ON i.id = p.item_id WHERE p.round_id = ? "
            "AND p.pos = ?", [round_id, int(found["next_pos"])])
    return found


def _from_entries(store: Store, round_id: int, member_id: int, after: int) -> dict[str, Any]:
    """The queue of a member without a slot (a seventh member: the pivot holds none of the member's entries),
    from assessment_current."""
    return store.fetch_one(
        """WITH todo AS (SELECT p.pos, i.item_code FROM consensus_pivot p JOIN items i ON i.id = p.item_id
                         WHERE p.round_id = ? AND NOT EXISTS (SELECT 1 FROM assessment_current c
                               WHERE c.round_id = p.round_id AND c.item_id = p.item_id AND c.member_id = ?))
           SELECT (SELECT count(*) FROM todo) AS remaining,
                  (SELECT pos FROM todo ORDER BY pos > ? DESC, pos LIMIT 1) AS next_pos,
                  (SELECT item_code FROM todo ORDER BY pos > ? DESC, pos LIMIT 1) AS next_code""",
        [round_id, member_id, after, after]) or {}


# -- the reminders of an open round (valuation.jobs.notices_daily) ---------------------------------------------
def rounds_open_since(db: Store, opened_before: datetime) -> list[int]:
    """The ids of the rounds still open that were opened before `opened_before` (a stored, naive UTC instant)."""
    return [int(r["id"]) for r in db.fetch("SELECT id FROM assessment_rounds WHERE status = 'aberta' AND opened_at < ? "
                                           "ORDER BY id", [opened_before])]


def members_behind(db: Store, round_id: int, member_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Of `member_ids`, those who have not assessed every item of round `round_id`: member id → (items without
    their entry in force, items of the round). Counts only, never a value."""
    total = int(fetch_round(db, round_id)["item_count"])
    if not member_ids or total == 0:
        return {}
    rows = db.fetch("SELECT m.id, count(c.item_id) AS entered FROM (SELECT UNNEST(?) AS id) m LEFT JOIN "
                    "assessment_current c ON c.member_id = m.id AND c.round_id = ? GROUP BY m.id",
                    [[int(i) for i in member_ids], int(round_id)])
    return {int(r["id"]): (total - int(r["entered"]), total) for r in rows if int(r["entered"]) < total}
