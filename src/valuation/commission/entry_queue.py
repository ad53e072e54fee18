"""A member's list of items still to assess in an open round (issue 23 item 8): how many remain and which
comes next after the one just saved, so that the entry form moves on item by item.

The list is the round's items in item-code order (`consensus_pivot.pos`, 1…N, the order of the Itens
table); an item is assessed once the member has an entry in force for it (a vote, a value or both)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    todo = store.fetch_one(
        """WITH todo AS (SELECT p.pos, i.item_code FROM consensus_pivot p JOIN items i ON i.id = p.item_id
                         WHERE p.round_id = ? AND NOT EXISTS (SELECT 1 FROM assessment_current c
                               WHERE c.round_id = p.round_id AND c.item_id = p.item_id AND c.member_id = ?))
           SELECT (SELECT count(*) FROM todo) AS remaining,
                  (SELECT pos FROM todo ORDER BY pos > ? DESC, pos LIMIT 1) AS next_pos,
                  (SELECT item_code FROM todo ORDER BY pos > ? DESC, pos LIMIT 1) AS next_code""",
        [round_id, user.id, after, after]) or {}
    pos = todo.get("next_pos")
    return EntryQueue(total=int(row["item_count"]), remaining=int(todo.get("remaining") or 0),
                      next_pos=None if pos is None else int(pos), next_code=todo.get("next_code"))
