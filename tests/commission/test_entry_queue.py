"""A member's items still to assess (issue 23 item 8), read from the member's slot of the round's pivot (issue 28:
the save and the form's count at a million items). The queue must be the same as the plain reading of the law's
record — the items of the round, in item-code order, without the member's entry in force in assessment_current —
for every member, after every item, whether the member holds a slot, has none yet, or is a seventh member
without one (then the pivot holds nothing of the member's entries)."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.support.db_copies import copy_database
from valuation.commission.entries import record_assessment
from valuation.commission.entry_queue import EntryQueue, entry_queue
from valuation.db.access import Principal
from valuation.db.store import Store

CONTRACT = "DPC-EX-2015/01"   # the demo's open round (rodada 2)


def _expected(store: Store, rid: int, member_id: int, after_item_id: int | None) -> EntryQueue:
    """The queue computed the long way: the round's items in item-code order, the member's entries in force."""
    items = store.fetch("SELECT ri.item_id, i.item_code FROM round_items ri JOIN items i ON i.id = ri.item_id "
                        "WHERE ri.round_id = ? ORDER BY i.item_code, ri.item_id", [rid])
    done = {int(r["item_id"]) for r in store.fetch(
        "SELECT item_id FROM assessment_current WHERE round_id = ? AND member_id = ?", [rid, member_id])}
    todo = [(k + 1, r["item_code"]) for k, r in enumerate(items) if int(r["item_id"]) not in done]
    after = next((k + 1 for k, r in enumerate(items) if int(r["item_id"]) == after_item_id), 0)
    nxt = next((t for t in todo if t[0] > after), todo[0] if todo else None)
    return EntryQueue(total=len(items), remaining=len(todo), next_pos=None if nxt is None else nxt[0],
                      next_code=None if nxt is None else nxt[1])


def _members(store: Store) -> list[Principal]:
    return [Principal(id=int(r["id"]), username=r["username"], full_name=r["full_name"], role=r["role"],
                      organisation_id=r["organisation_id"], commission_body=r["commission_body"])
            for r in store.fetch("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                                 "WHERE role = 'commission' AND active ORDER BY id")]


@pytest.fixture
def demo(full_demo_db: Path, tmp_path: Path) -> Path:
    return copy_database(full_demo_db, tmp_path / "demo.duckdb")


def _round(store: Store) -> tuple[int, list[int]]:
    rid = int(store.scalar("SELECT r.id FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id "
                           "WHERE c.code = ? AND r.status = 'aberta'", [CONTRACT]))
    items = [int(r["item_id"]) for r in store.fetch(
        "SELECT ri.item_id FROM round_items ri JOIN items i ON i.id = ri.item_id WHERE ri.round_id = ? "
        "ORDER BY i.item_code", [rid])]
    return rid, items


def _check_every_member(store: Store, rid: int, items: list[int]) -> int:
    checked = 0
    for member in _members(store):
        for after in (None, items[0], items[len(items) // 2], items[-1]):
            assert entry_queue(store, member, rid, after_item_id=after) == _expected(store, rid, member.id, after), \
                (member.username, after)
            checked += 1
    return checked


def test_the_queue_is_the_members_items_without_an_entry_in_force(demo: Path) -> None:
    with Store(demo) as store:
        rid, items = _round(store)
        slots = {int(r["member_id"]): r["slot"] for r in store.fetch(
            "SELECT member_id, slot FROM round_members WHERE round_id = ?", [rid])}
        members = _members(store)
        assert any(m.id in slots for m in members) and any(m.id not in slots for m in members), \
            "the demo's open round has members with entries (a slot) and members without any"
        assert _check_every_member(store, rid, items) == 4 * len(members)

        # A vote without a value and a value without a vote both count as assessed.
        newcomer = next(m for m in members if m.id not in slots)
        record_assessment(store, newcomer, rid, items[1], historical=True, amount=None, currency=None,
                          price_date=None, significance=3, must_keep=None, source=None)
        record_assessment(store, newcomer, rid, items[2], historical=None, amount=Decimal("10.00"), currency="BRL",
                          price_date=store.today(), significance=None, must_keep=None, source="catalogo")
        queue = entry_queue(store, newcomer, rid, after_item_id=items[0])
        assert queue.remaining == len(items) - 2 and queue.next_pos == 4
        _check_every_member(store, rid, items)


def test_a_member_without_a_slot_is_read_from_the_entries_in_force(demo: Path) -> None:
    """A seventh member of a round has no slot in the pivot (migration 011): the queue reads
    assessment_current for that member, and is the same."""
    with Store(demo) as store:
        rid, items = _round(store)
        member = next(m for m in _members(store) if store.scalar(
            "SELECT count(*) FROM assessment_current WHERE round_id = ? AND member_id = ?", [rid, m.id]))
        store.write("test", lambda tx: tx.execute("UPDATE round_members SET slot = NULL WHERE round_id = ? "
                                                  "AND member_id = ?", [rid, member.id]))
        for after in (None, items[0], items[-1]):
            assert entry_queue(store, member, rid, after_item_id=after) == _expected(store, rid, member.id, after)


def test_a_rounds_item_count_kept_per_store_is_its_items(demo: Path) -> None:
    """The item count of a round read from committed rows is kept per Store (its items never change after
    `open_round`): the same as counting, read again, inside a transaction, and for a round opened later."""
    from valuation.commission.rounds import fetch_round, get_round, open_round

    with Store(demo) as store:
        counts = {int(r["round_id"]): int(r["n"]) for r in store.fetch(
            "SELECT round_id, count(*) AS n FROM round_items GROUP BY round_id")}
        for _ in range(2):
            assert {rid: fetch_round(store, rid)["item_count"] for rid in counts} == counts
        assert store.write("test", lambda tx: {rid: fetch_round(tx, rid)["item_count"] for rid in counts}) == counts
        president = store.fetch_one(
            "SELECT r.president_id AS id, c.code FROM assessment_rounds r JOIN contracts c "
            "ON c.id = r.contract_id WHERE r.status = 'publicada' AND NOT EXISTS ("
            "SELECT 1 FROM assessment_rounds o WHERE o.contract_id = r.contract_id AND o.status <> 'publicada') "
            "ORDER BY r.id LIMIT 1")
        assert president is not None
        row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                              "WHERE id = ?", [president["id"]])
        assert row is not None
        user = Principal(**row)
        new = open_round(store, user, president["code"])
        assert get_round(store, user, new.id).item_count == store.scalar(
            "SELECT count(*) FROM round_items WHERE round_id = ?", [new.id]) == new.item_count > 0


def test_a_round_row_kept_for_the_revision_is_the_row_read_again(demo: Path) -> None:
    """The round rows read from committed data are kept for the Store's revision: the same as a plain read, a
    copy (changing what one caller got changes nothing for the next), and a commit — the round closed — is seen
    by the very next read; a read inside a transaction always reads."""
    from valuation.commission.rounds import ROUND_SQL, fetch_round

    def plain(store: Store, rid: int) -> dict:
        from valuation.commission.rounds import ITEM_COUNT_SQL, NUP_SQL

        row = store.fetch_one(ROUND_SQL.format(count=ITEM_COUNT_SQL, nup=NUP_SQL) + " WHERE r.id = ?", [rid])
        assert row is not None
        return row

    with Store(demo) as store:
        rid = int(store.scalar("SELECT r.id FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id "
                               "WHERE c.code = ? AND r.status = 'aberta'", [CONTRACT]))
        first = fetch_round(store, rid)
        assert first == plain(store, rid) and first["status"] == "aberta"
        first["status"] = "mexida"                                       # a caller's own copy
        assert fetch_round(store, rid) == plain(store, rid)
        before = store.revision
        store.write("test", lambda tx: tx.execute("UPDATE assessment_rounds SET status = 'encerrada' WHERE id = ?",
                                                  [rid]))
        assert store.revision != before
        assert fetch_round(store, rid)["status"] == "encerrada" == plain(store, rid)["status"]
        assert store.write("test", lambda tx: fetch_round(tx, rid)["status"]) == "encerrada"
