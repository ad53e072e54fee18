"""Delphi independence towards the DPC (issue 11 item 10): while a round is open the DPC sees how
far the assessment has gone — how many items each member has assessed, how many members assessed
each item — but never a member's value, vote or the running median; the values reach the DPC when
the round closes, as they reach the members. Enforced in the store's read functions, and the page
shows the progress instead of the values."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tests.support.commission import ROUND_PLAN, run_round
from tests.support.ui import open_tab, page_as, texts
from valuation.commission import views as cv
from valuation.commission.agreement_queries import agreement
from valuation.commission.entries import round_entries
from valuation.commission.rounds import round_overview
from valuation.core.errors import AccessDenied, ConflictError

VALUE_COLUMNS = {"n_values", "votes_for", "votes_against", "median_brl", "spread", "flagged", "historical",
                 "decided_by", "value_brl"}


def test_while_open_the_store_gives_dpc_progress_not_values(small_world: Any) -> None:
    panel, rid = run_round(small_world, until="open")
    s, dpc = small_world.store, small_world.principal("dpc")

    ov = round_overview(s, dpc, rid, page_size=50)
    assert ov.visibility == "progress"
    assert not VALUE_COLUMNS & set(ov.items.columns)
    # how many members assessed each item: every member sent a row for every item of the plan
    assert ov.items.set_index("item_code")["entries"].to_dict() == {code: 6 for code in ROUND_PLAN}
    with pytest.raises(AccessDenied):
        round_entries(s, dpc, rid)
    with pytest.raises(AccessDenied):
        round_entries(s, dpc, rid, item_id=int(ov.items["item_id"].iloc[0]))
    with pytest.raises(AccessDenied):
        agreement(s, dpc, rid)
    with pytest.raises(AccessDenied):
        round_overview(s, dpc, rid, flagged_only=True)
    # the progress per member: counts only
    progress = cv.round_progress(s, dpc, rid)
    assert set(progress.columns) == {"member", "body", "entries", "items"}
    assert progress.set_index("member")["entries"].to_dict()[panel["cult1"].full_name] == len(ROUND_PLAN)


def test_after_the_close_dpc_sees_the_values_with_names(small_world: Any) -> None:
    panel, rid = run_round(small_world, until="closed")
    s, dpc = small_world.store, small_world.principal("dpc")
    ov = round_overview(s, dpc, rid, page_size=50)
    assert ov.visibility == "full" and VALUE_COLUMNS <= set(ov.items.columns)
    medians = ov.items.set_index("item_code")["median_brl"].to_dict()
    assert medians["A1-001"] == Decimal("1025.00")
    entries = round_entries(s, dpc, rid)
    assert panel["cult3"].full_name in set(entries["member"])
    assert agreement(s, dpc, rid).n_members == 6


def test_the_page_shows_dpc_the_progress_of_an_open_round(small_world: Any) -> None:
    panel, rid = run_round(small_world, until="open")
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal("dpc"), "commission")
    assert not at.exception
    shown = texts(at)                                         # the Itens tab, open first …
    frames = [d.value for d in at.dataframe]
    open_tab(at, "commission", "Andamento")                   # … and the Andamento tab
    assert not at.exception
    shown += "\n" + texts(at)
    frames += [d.value for d in at.dataframe]
    cells = " ".join(str(v) for f in frames for c in f.columns for v in f[c].tolist())
    headers = {str(c) for f in frames for c in f.columns}
    # no value, vote or median of any member: neither the amounts of the plan nor their columns
    assert "1.025,00" not in cells and "R$ 5.000,00" not in cells and "700.000" not in cells
    assert not {"Mediana (R$)", "Valor (R$)", "Votos sim / não", "Valor"} & headers
    assert {"Membro", "Itens avaliados"} <= headers
    assert panel["cult1"].full_name in cells          # the progress names who has assessed how much
    assert "andamento" in shown.lower()
    with pytest.raises(ConflictError):   # nor the minutes, which only exist after the close
        from valuation.commission.minutes import minutes_data
        from valuation.db.store import Store
        with Store(small_world.path) as s:
            minutes_data(s, small_world.principal("dpc"), rid)
