"""partition.pool_items (issue 17): without a search it cuts the page by value before joining the
items; every page, with ties at the cut and a lock filter, is the very page of the plain join."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tests.support.partition import prepare
from valuation.partition import choice

REFERENCE = ("SELECT iv.item_id, i.item_code FROM item_valuation iv JOIN items i ON i.id = iv.item_id "
             "JOIN contracts c ON c.id = iv.contract_id WHERE c.code = 'A-1' AND iv.historical "
             "ORDER BY iv.value_brl DESC, i.item_code")


@pytest.mark.parametrize("page_size", [1, 2, 3, 5])
def test_every_page_is_the_plain_join_s_page(small_world: Any, page_size: int) -> None:
    prepare(small_world)
    store = small_world.store
    # ties: A1-001 and A1-006 take A1-002's value, so the cut falls inside a group of three equal values
    store.write("t", lambda tx: tx.execute(
        "UPDATE item_valuation SET value_brl = ? WHERE item_id IN (?, ?)",
        [Decimal("5000.00"), small_world.ids["A1-001"], small_world.ids["A1-006"]]))
    expected = [r["item_code"] for r in store.fetch(REFERENCE)]
    assert len(expected) == 4
    dpc = small_world.principal("dpc")
    got: list[str] = []
    for page in range(1, 4 // page_size + 2):
        df, total = choice.pool_items(store, dpc, "A-1", page=page, page_size=page_size)
        assert total == 4
        got += df["item_code"].tolist()
    assert got == expected
    searched, n = choice.pool_items(store, dpc, "A-1", page=1, page_size=page_size, search="a1-00")
    assert n == 4 and searched["item_code"].tolist() == expected[:page_size]
