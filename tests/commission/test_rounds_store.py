"""The Commission's assessment rounds in the store (issue 3): workflow, trail, access, rates.

Uses the shared `small_world` (tests/conftest.py): contract A-1 (organisation A, items
A1-001…A1-006) and B-1 (organisation B). The world has three commission users; the
`panel` fixture adds three more so that the panel has its six members
(NORMAM-10 0303 c 1 I) and the default quorum of 4 can be met.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.support.commission import full_panel, item_ids
from valuation.commission import agreement as stats
from valuation.commission import views as cv
from valuation.commission.agreement_queries import agreement, alpha_from_vote_patterns
from valuation.commission.decisions import DecisionInput, published_decisions, record_decisions
from valuation.commission.entries import (
    RecordedEntry,
    my_assessments,
    record_assessment,
    record_assessments_bulk,
    round_entries,
)
from valuation.commission.rates import add_rate, import_rates, list_rates
from valuation.commission.rounds import close_round, get_round, list_rounds, open_round, publish_round, round_overview
from valuation.commission.sheet_import import import_assessments
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound
from valuation.db.access import Principal
from valuation.db.store import Store

D = Decimal
PRICE_DAY = date(2025, 3, 10)


@pytest.fixture
def panel(small_world: Any) -> dict[str, Principal]:
    """Six members: pres (navy, president), navy1, navy2, cult1, cult2, cult3."""
    return full_panel(small_world)


def _enter(store: Store, user: Principal, round_id: int, item_id: int, *, historical: bool | None,
           amount: str | None, currency: str = "BRL", day: date = PRICE_DAY, significance: int | None = None,
           must_keep: bool | None = None, source: str = "catalogo", note: str | None = None) -> RecordedEntry:
    if historical is True and significance is None:
        significance = 3
    return record_assessment(
        store, user, round_id, item_id, historical=historical, amount=None if amount is None else D(amount),
        currency=currency if amount is not None else None, price_date=day if amount is not None else None,
        significance=significance, must_keep=must_keep, source=source if amount is not None else None,
        source_note=note)


def _consensus(store: Store, round_id: int) -> dict[int, dict[str, Any]]:
    return {int(r["item_id"]): r for r in store.fetch("SELECT * FROM item_consensus WHERE round_id = ?", [round_id])}


def _count(store: Store, table: str) -> int:
    return int(store.scalar(f"SELECT count(*) FROM {table}"))


# -- the whole workflow ---------------------------------------------------------------------
def test_workflow_open_enter_close_decide_publish(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    assert (rnd.status, rnd.number, rnd.item_count, rnd.method, rnd.quorum) == ("aberta", 1, 6, "median", 4)
    assert rnd.president_id == panel["pres"].id
    first = _consensus(s, rnd.id)
    assert set(first) == set(items.values())
    assert all(r["n_values"] == 0 and r["flagged"] and r["decided_by"] == "undecided" for r in first.values())

    coin, gold, plate = items["A1-001"], items["A1-002"], items["A1-003"]
    # Coin: 4 historical votes to 2, values 100…600 → median 350.00, spread 500/350.
    votes = {"pres": True, "navy1": True, "navy2": True, "cult1": True, "cult2": False, "cult3": False}
    for k, (member, vote) in enumerate(votes.items()):
        _enter(s, panel[member], rnd.id, coin, historical=vote, amount=str(100 * (k + 1)),
               significance=(k % 5) + 1 if vote else None, must_keep=member in ("pres", "navy1", "navy2"))
    # Gold coin: 3 to 3, the president votes historical → decided by the president's vote.
    for k, member in enumerate(panel):
        _enter(s, panel[member], rnd.id, gold, historical=k < 3, amount="1000.00")
    # Plate: only two members vote → no quorum, undecided; one value only.
    _enter(s, panel["cult1"], rnd.id, plate, historical=False, amount="80.5")
    _enter(s, panel["cult2"], rnd.id, plate, historical=False, amount=None)

    c = _consensus(s, rnd.id)
    assert (c[coin]["votes_for"], c[coin]["votes_against"], c[coin]["historical"], c[coin]["decided_by"]) == \
        (4, 2, True, "majority")
    assert c[coin]["value_brl"] == D("350.00") and c[coin]["median_brl"] == D("350.00")
    assert c[coin]["spread"] == pytest.approx(500 / 350)
    assert c[coin]["flagged"] is True                       # spread 1.43 > 0.5
    assert c[coin]["must_keep_votes"] == 3
    assert c[coin]["significance"] == D("2.50")             # scores 1,2,3,4 → (2+3)/2
    assert (c[gold]["historical"], c[gold]["decided_by"], c[gold]["spread"]) == (True, "president", 0.0)
    assert c[gold]["flagged"] is True                       # split 3–3
    assert (c[plate]["quorum_met"], c[plate]["decided_by"], c[plate]["n_values"]) == (False, "undecided", 1)
    assert c[plate]["value_brl"] == D("80.50") and c[plate]["spread"] is None

    # Entries stop at the close; only the president closes.
    with pytest.raises(AccessDenied):
        close_round(s, panel["navy1"], rnd.id)
    closed = close_round(s, panel["pres"], rnd.id)
    assert closed.status == "encerrada" and closed.closed_by == panel["pres"].username
    with pytest.raises(ConflictError):
        _enter(s, panel["navy1"], rnd.id, plate, historical=True, amount="1")

    # Explorers see nothing before publication.
    assert list_rounds(s, small_world.principal("explorer_a")) == []
    assert len(published_decisions(s, small_world.principal("explorer_a"), "A-1")) == 0

    result = record_decisions(s, panel["pres"], rnd.id)
    assert result.written == 2 and result.skipped == 4 and result.corrections == 0   # coin and gold coin
    dec = {int(r["item_id"]): r for r in s.fetch("SELECT * FROM decisions WHERE round_id = ?", [rnd.id])}
    assert dec[coin]["historical"] is True and dec[coin]["value_brl"] == D("350.00")
    assert dec[coin]["significance"] == 3                  # 2.50 rounded half-up
    assert dec[coin]["must_keep"] is True                  # 3 of the 4 historical votes proposed it
    assert dec[coin]["decided_by"] == panel["pres"].username and dec[coin]["decided_at"] is not None
    assert "maioria" in dec[coin]["basis"] and "empate" in dec[gold]["basis"]
    val = {int(r["item_id"]): r for r in s.fetch("SELECT * FROM item_valuation")}
    assert set(val) == {coin, gold} and not any(r["published"] for r in val.values())
    assert get_round(s, panel["pres"], rnd.id).status == "decidida"

    with pytest.raises(AccessDenied):
        publish_round(s, small_world.principal("dpc"), rnd.id)
    published = publish_round(s, panel["pres"], rnd.id)
    assert published.status == "publicada" and published.published_at is not None
    assert all(r["published"] for r in s.fetch("SELECT published FROM item_valuation"))

    # The explorer of A-1 now sees the decisions (not the names); the one of B-1 does not.
    exp_a = small_world.principal("explorer_a")
    rounds = list_rounds(s, exp_a)
    assert [r.id for r in rounds] == [rnd.id] and rounds[0].opened_by is None and rounds[0].president_id is None
    seen = published_decisions(s, exp_a, "A-1")
    assert sorted(seen["item_code"].tolist()) == ["A1-001", "A1-002"]
    assert set(seen["value_brl"].tolist()) == {D("350.00"), D("1000.00")}
    totals = cv.decision_totals(seen)                     # exact sums over the frame's Arrow columns
    by_hand = cv.decision_totals(pd.DataFrame({c: seen[c].tolist() for c in seen.columns}))
    assert totals == by_hand
    hist = [bool(h) for h in seen["historical"].tolist()]
    assert (totals.items, totals.historical, totals.other) == (2, sum(hist), 2 - sum(hist))
    assert totals.historical_value == sum((v for v, h in zip(seen["value_brl"].tolist(), hist) if h), D(0))
    assert totals.total_value == D("1350.00")
    assert cv.decisions_summary(s, exp_a, "A-1") == totals                 # the same, summed in SQL
    page, n = cv.decisions_page(s, exp_a, "A-1", page_size=1)
    assert n == 2 and page["item_code"].tolist() == ["A1-001"] and list(page.columns) == list(seen.columns)
    page2, _ = cv.decisions_page(s, exp_a, "A-1", page=2, page_size=1)
    assert page2["item_code"].tolist() == ["A1-002"]
    for flag in (True, False):
        got, n = cv.decisions_page(s, exp_a, "A-1", historical=flag)
        assert n == sum(h is flag for h in hist) == len(got)
    from ui import cache as ui_cache
    for flag in (None, True, False):   # the size from the totals (ui/cache, no search) is the counted one
        got, n = cv.decisions_page(s, exp_a, "A-1", historical=flag)
        assert cv.selection_size(totals, flag) == n
        ui_cache.clear()
        kept, kept_n = ui_cache.decisions_page(s, exp_a, "A-1", historical=flag, search="", page=1, page_size=100)
        assert kept_n == n and kept.equals(got)
    code = seen["item_code"].tolist()[1]
    found, n = cv.decisions_page(s, exp_a, "A-1", search=code.lower())
    assert n == 1 and found["item_code"].tolist() == [code]
    with pytest.raises(InputError):
        cv.decisions_page(s, exp_a, "A-1", page=0)
    exp_b = small_world.principal("explorer_b")
    assert list_rounds(s, exp_b) == []
    with pytest.raises(NotFound):
        published_decisions(s, exp_b, "A-1")
    with pytest.raises(NotFound):                       # another company's contract: not found either way
        cv.decisions_page(s, exp_b, "A-1")
    with pytest.raises(NotFound):
        cv.decisions_summary(s, exp_b, "A-1")
    with pytest.raises(NotFound):
        get_round(s, exp_b, rnd.id)
    with pytest.raises(AccessDenied):
        round_overview(s, exp_a, rnd.id)

    actions = {r["action"] for r in s.fetch("SELECT action FROM audit_log")}
    assert {"round_opened", "assessment_recorded", "round_closed", "decisions_recorded",
            "round_published"} <= actions


def test_next_round_takes_the_flagged_items(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    r1 = open_round(s, panel["pres"], "A-1", [items["A1-001"], items["A1-002"]])
    with pytest.raises(ConflictError):   # one open round per contract
        open_round(s, panel["pres"], "A-1")
    # A1-001: clear agreement (6–0, equal values) → not flagged; A1-002 gets nothing → flagged.
    for member in panel.values():
        _enter(s, member, r1.id, items["A1-001"], historical=True, amount="500")
    close_round(s, panel["pres"], r1.id)
    r2 = open_round(s, panel["pres"], "A-1", from_round=r1.id)
    assert r2.number == 2 and r2.previous_round_id == r1.id
    assert [r["item_id"] for r in s.fetch("SELECT item_id FROM round_items WHERE round_id = ?", [r2.id])] == \
        [items["A1-002"]]
    with pytest.raises(InputError):
        open_round(s, panel["pres"], "B-1", [items["A1-003"]])   # not an item of B-1


# -- the trail ---------------------------------------------------------------------------------
def test_a_correction_is_a_new_row_pointing_at_the_old_one(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    first = _enter(s, panel["navy1"], rnd.id, items["A1-004"], historical=False, amount="1000")
    second = _enter(s, panel["navy1"], rnd.id, items["A1-004"], historical=True, amount="1500", significance=5)
    assert second.supersedes == first.log_id and first.supersedes is None
    log = s.fetch("SELECT id, historical, amount, entered_by FROM assessment_log ORDER BY id")
    assert [(r["id"], r["historical"], r["amount"]) for r in log] == \
        [(first.log_id, False, D("1000.00")), (second.log_id, True, D("1500.00"))]
    assert all(r["entered_by"] == panel["navy1"].username for r in log)
    cur = s.fetch("SELECT * FROM assessment_current")
    assert len(cur) == 1 and cur[0]["log_id"] == second.log_id and cur[0]["value_brl"] == D("1500")
    assert _consensus(s, rnd.id)[items["A1-004"]]["value_brl"] == D("1500.00")
    mine = my_assessments(s, panel["navy1"], rnd.id, history=True)
    assert mine["log_id"].tolist() == [first.log_id, second.log_id]
    assert mine["in_force"].tolist() == [False, True]
    assert my_assessments(s, panel["navy1"], rnd.id)["log_id"].tolist() == [second.log_id]
    corrected = s.fetch("SELECT before_json, after_json FROM audit_log WHERE action = 'assessment_corrected'")
    assert len(corrected) == 1 and '"1000.00"' in corrected[0]["before_json"]


def test_decisions_are_appended_and_supersede(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1", [items["A1-005"], items["A1-006"]])
    for member in panel.values():
        _enter(s, member, rnd.id, items["A1-005"], historical=False, amount="20")
    close_round(s, panel["pres"], rnd.id)
    with pytest.raises(InputError) as bad:
        record_decisions(s, panel["pres"], rnd.id, [
            {"item_id": items["A1-005"], "historical": False, "value_brl": 20.5},
            {"item_id": items["A1-006"], "historical": False, "value_brl": D("1"), "significance": 3},
            {"item_id": items["A1-006"], "historical": True, "value_brl": D("1")},
        ])
    paths = [p.path for p in bad.value.problems]
    assert paths == ["decisions[0].value_brl", "decisions[1].significance", "decisions[2].item_id"]
    assert _count(s, "decisions") == 0
    with pytest.raises(InputError):   # an item outside the round
        record_decisions(s, panel["pres"], rnd.id, [DecisionInput(items["A1-001"], True, D("1"))])

    first = record_decisions(s, panel["pres"], rnd.id, [
        DecisionInput(items["A1-006"], True, D("7000.00"), significance=4, must_keep=True, basis="Laudo X")])
    assert first.written == 1
    again = record_decisions(s, panel["pres"], rnd.id, [
        DecisionInput(items["A1-006"], True, D("7500.00"), significance=4)])
    assert again.corrections == 1
    rows = s.fetch("SELECT id, value_brl, supersedes, basis FROM decisions ORDER BY id")
    assert [r["value_brl"] for r in rows] == [D("7000.00"), D("7500.00")]
    assert rows[1]["supersedes"] == rows[0]["id"] and rows[0]["basis"] == "Laudo X"
    iv = s.fetch_one("SELECT * FROM item_valuation WHERE item_id = ?", [items["A1-006"]])
    assert iv["decision_id"] == rows[1]["id"] and iv["value_brl"] == D("7500.00") and iv["must_keep"] is False
    # Default mode afterwards adds only the items still without a decision in this round.
    rest = record_decisions(s, panel["pres"], rnd.id)
    assert rest.written == 1
    assert s.scalar("SELECT value_brl FROM decisions WHERE item_id = ?", [items["A1-005"]]) == D("20.00")
    publish_round(s, panel["pres"], rnd.id)   # the correction in force: the totals' sizes are the counted ones
    dpc = small_world.principal("dpc")
    totals = cv.decisions_summary(s, dpc, "A-1")
    assert totals.items == 2 and totals.historical_value == D("7500.00")
    for flag in (None, True, False):
        assert cv.selection_size(totals, flag) == cv.decisions_page(s, dpc, "A-1", historical=flag)[1]


# -- access --------------------------------------------------------------------------------
def test_before_the_close_a_member_sees_only_own_values(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    _enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=True, amount="111")
    _enter(s, panel["cult1"], rnd.id, items["A1-001"], historical=False, amount="999")

    view = round_overview(s, panel["navy1"], rnd.id)
    assert view.visibility == "own"
    assert "median_brl" not in view.items.columns and "n_values" not in view.items.columns
    row = view.items[view.items["item_id"] == items["A1-001"]].iloc[0]
    assert row["my_amount"] == D("111.00")
    assert D("999.00") not in view.items["my_amount"].dropna().tolist()
    entries = round_entries(s, panel["navy1"], rnd.id)
    assert entries["amount"].tolist() == [D("111.00")] and entries["member"].tolist() == ["Você"]
    with pytest.raises(AccessDenied):
        agreement(s, panel["navy1"], rnd.id)
    with pytest.raises(AccessDenied):
        round_overview(s, panel["navy1"], rnd.id, flagged_only=True)
    # dpc follows the progress only while the round is open (tests/commission/test_delphi_dpc.py) ...
    with pytest.raises(AccessDenied):
        round_entries(s, small_world.principal("dpc"), rnd.id)

    close_round(s, panel["pres"], rnd.id)
    # ... and reads everything, names included, once it is closed.
    dpc = round_entries(s, small_world.principal("dpc"), rnd.id)
    assert sorted(dpc["amount"].tolist()) == [D("111.00"), D("999.00")]
    assert panel["cult1"].full_name in dpc["member"].tolist()
    assert "n_values" in round_overview(s, small_world.principal("dpc"), rnd.id).items.columns
    after = round_overview(s, panel["navy1"], rnd.id)
    assert after.visibility == "anonymous"
    row = after.items[after.items["item_id"] == items["A1-001"]].iloc[0]
    assert row["median_brl"] == D("555.00") and row["n_values"] == 2 and row["my_amount"] == D("111.00")
    entries = round_entries(s, panel["navy1"], rnd.id)
    assert sorted(entries["amount"].tolist()) == [D("111.00"), D("999.00")]
    names = entries.set_index("amount")["member"].to_dict()
    assert names[D("111.00")] == "Você" and names[D("999.00")] in {"Membro 1", "Membro 2"}
    assert panel["cult1"].full_name not in entries["member"].tolist()


@pytest.mark.parametrize("key", ["admin", "explorer_a"])
def test_admin_and_explorers_cannot_read_or_write_rounds(small_world: Any, panel: dict[str, Principal],
                                                         key: str) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    user = small_world.principal(key)
    for call in (lambda: round_overview(s, user, rnd.id), lambda: round_entries(s, user, rnd.id),
                 lambda: agreement(s, user, rnd.id), lambda: my_assessments(s, user, rnd.id),
                 lambda: open_round(s, user, "A-1"), lambda: close_round(s, user, rnd.id),
                 lambda: record_decisions(s, user, rnd.id),
                 lambda: _enter(s, user, rnd.id, items["A1-001"], historical=True, amount="1"),
                 lambda: list_rates(s, user)):
        with pytest.raises(AccessDenied):
            call()
    if key == "admin":
        with pytest.raises(AccessDenied):
            list_rounds(s, user)
        with pytest.raises(AccessDenied):
            published_decisions(s, user, "A-1")


def test_members_enter_only_their_own_entries(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    _enter(s, panel["cult2"], rnd.id, items["A1-001"], historical=True, amount="10")
    rows = s.fetch("SELECT member_id, entered_by FROM assessment_log")
    assert rows == [{"member_id": panel["cult2"].id, "entered_by": panel["cult2"].username}]
    with pytest.raises(AccessDenied):   # dpc reads everything but enters nothing
        _enter(s, small_world.principal("dpc"), rnd.id, items["A1-001"], historical=True, amount="1")


# -- validation -----------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, field", [
    ({"historical": None, "amount": None, "currency": None, "price_date": None, "source": None}, "historical"),
    ({"historical": False, "significance": 3}, "significance"),
    ({"historical": True, "significance": None}, "significance"),
    ({"historical": True, "significance": 6}, "significance"),
    ({"historical": False, "must_keep": True}, "must_keep"),
    ({"amount": 12.5}, "amount"),
    ({"amount": D("-1")}, "amount"),
    ({"amount": D("1.234")}, "amount"),
    ({"currency": None}, "currency"),
    ({"currency": "dollar"}, "currency"),
    ({"price_date": date(2099, 1, 1)}, "price_date"),
    ({"source": "palpite"}, "source"),
    ({"source": "avaliacao_externa", "source_note": None}, "source_note"),
    ({"amount": None}, "currency"),          # currency, date and source without a value
])
def test_an_entry_with_a_bad_field_is_refused_naming_the_field(small_world: Any, panel: dict[str, Principal],
                                                               kwargs: dict[str, Any], field: str) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    args: dict[str, Any] = {"historical": False, "amount": D("10"), "currency": "BRL", "price_date": PRICE_DAY,
                            "significance": None, "must_keep": None, "source": "catalogo", "source_note": None}
    args.update(kwargs)
    with pytest.raises(InputError) as exc:
        record_assessment(s, panel["navy1"], rnd.id, items["A1-001"], **args)
    assert field in [p.path for p in exc.value.problems]
    assert all(p.message and p.message[0].isupper() for p in exc.value.problems)   # "Rótulo: motivo."
    assert _count(s, "assessment_log") == 0 and _count(s, "assessment_current") == 0


def test_an_item_outside_the_round_is_refused(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1", [items["A1-001"]])
    with pytest.raises(InputError) as exc:
        _enter(s, panel["navy1"], rnd.id, items["A1-002"], historical=True, amount="1")
    assert [p.path for p in exc.value.problems] == ["item_id"]



def test_an_item_with_entries_is_in_the_round_and_one_without_is_still_checked(
        small_world: Any, panel: dict[str, Principal]) -> None:
    """`record_assessment` reads round_items only for an item nobody valued in the round yet: an entry in
    force proves the item is in it; an item outside the round is still refused once the round has entries."""
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1", [items["A1-001"]])
    _enter(s, panel["navy2"], rnd.id, items["A1-001"], historical=False, amount="10")
    mine = _enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="20")
    again = _enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="30")
    assert again.supersedes == mine.log_id
    with pytest.raises(InputError) as exc:
        _enter(s, panel["navy1"], rnd.id, items["A1-002"], historical=False, amount="1")
    assert [p.path for p in exc.value.problems] == ["item_id"]
    assert "não faz parte da rodada" in exc.value.problems[0].message
    assert s.scalar("SELECT count(*) FROM assessment_log WHERE round_id = ?", [rnd.id]) == 3

# -- exchange rates -----------------------------------------------------------------------------
def test_a_foreign_value_uses_the_rate_on_or_before_the_price_date(small_world: Any,
                                                                  panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    dpc = small_world.principal("dpc")
    add_rate(s, dpc, "USD", date(2025, 3, 5), D("5.0000"))
    add_rate(s, dpc, "usd", date(2025, 3, 10), "5,5")
    rnd = open_round(s, panel["pres"], "A-1")
    between = _enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="100.01",
                     currency="USD", day=date(2025, 3, 7))
    assert (between.rate, between.rate_date, between.value_brl) == (D("5"), date(2025, 3, 5), D("500.05"))
    same_day = _enter(s, panel["navy2"], rnd.id, items["A1-001"], historical=False, amount="0.03",
                      currency="USD", day=date(2025, 3, 10))
    assert (same_day.rate, same_day.rate_date, same_day.value_brl) == (D("5.5"), date(2025, 3, 10), D("0.165"))
    brl = _enter(s, panel["cult1"], rnd.id, items["A1-001"], historical=False, amount="3")
    assert (brl.rate, brl.rate_date) == (D("1"), None)

    before = _count(s, "assessment_log")
    with pytest.raises(InputError) as exc:   # only a LATER rate exists: never used
        _enter(s, panel["cult2"], rnd.id, items["A1-001"], historical=False, amount="1", currency="USD",
               day=date(2025, 3, 4))
    [problem] = exc.value.problems
    assert problem.path == "price_date" and "04/03/2025" in problem.message and "USD" in problem.message
    with pytest.raises(InputError) as exc:
        _enter(s, panel["cult2"], rnd.id, items["A1-001"], historical=False, amount="1", currency="EUR")
    assert [p.path for p in exc.value.problems] == ["currency"]
    assert _count(s, "assessment_log") == before

    with pytest.raises(InputError):           # a different rate for a stored day
        add_rate(s, dpc, "USD", date(2025, 3, 5), D("5.1"))
    assert add_rate(s, dpc, "USD", date(2025, 3, 5), D("5.1"), replace=True).brl == D("5.1")
    assert s.scalar("SELECT rate FROM assessment_log WHERE id = ?", [between.log_id]) == D("5")  # kept as used
    for bad in ({"currency": "BRL"}, {"day": date(2099, 1, 1)}, {"brl": D("0")}, {"brl": D("1.0000001")},
                {"brl": 5.5}):
        args = {"currency": "EUR", "day": date(2025, 1, 2), "brl": D("6")} | bad
        with pytest.raises(InputError):
            add_rate(s, dpc, **args)
    with pytest.raises(AccessDenied):
        add_rate(s, panel["navy1"], "EUR", date(2025, 1, 2), D("6"))
    listed = list_rates(s, panel["navy1"], "USD")
    assert listed["day"].tolist() == [date(2025, 3, 10), date(2025, 3, 5)]


def test_import_rates_ptax_series_all_or_nothing(small_world: Any) -> None:
    s = small_world.store
    dpc = small_world.principal("dpc")
    good = b"data;moeda;taxa\n03/01/2025;USD;6,1823\n03/01/2025;EUR;6,3520\n06/01/2025;USD;6,0987\n"
    res = import_rates(s, dpc, good, "ptax.csv")
    assert (res.rows, res.added, res.unchanged, res.currencies) == (3, 3, 0, ("EUR", "USD"))
    assert s.scalar("SELECT brl FROM fx_rates WHERE currency = 'USD' AND day = DATE '2025-01-06'") == D("6.0987")
    again = import_rates(s, dpc, good, "ptax.csv")
    assert (again.added, again.unchanged) == (0, 3)
    # Headerless series and the Central Bank's daily file layout (selling rate in column 6).
    import_rates(s, dpc, b"07/01/2025;GBP;7,5\n", "serie.csv")
    bcb = b"08/01/2025;220;A;USD;6,0500;6,0506;1,0000;1,0000\n08/01/2025;978;B;EUR;6,2500;6,2510;1,03;1,04\n"
    import_rates(s, dpc, bcb, "20250108.csv")
    assert s.scalar("SELECT brl FROM fx_rates WHERE currency = 'USD' AND day = DATE '2025-01-08'") == D("6.0506")
    assert s.scalar("SELECT brl FROM fx_rates WHERE currency = 'GBP'") == D("7.5")

    n = _count(s, "fx_rates")
    bad = (b"data;moeda;taxa\n09/01/2025;USD;6,01\n31/02/2025;USD;6\n10/01/2025;BRL;1\n10/01/2025;JPY;-1\n"
           b"03/01/2025;USD;7,00\n11/01/2025;CHF;6,9\n11/01/2025;CHF;7,0\n")
    with pytest.raises(InputError) as exc:
        import_rates(s, dpc, bad, "ruim.csv")
    paths = [p.path for p in exc.value.problems]
    assert paths == ["linha 3, coluna data", "linha 4, coluna moeda", "linha 5, coluna taxa",
                     "linha 6, coluna taxa", "linha 8, coluna taxa"]
    assert "já existe cotação" in exc.value.problems[3].message
    assert _count(s, "fx_rates") == n


# -- bulk entry ----------------------------------------------------------------------------------
def test_import_a_sheet_all_or_nothing_then_corrections(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    add_rate(s, small_world.principal("dpc"), "USD", date(2025, 3, 5), D("5.5"))
    rnd = open_round(s, panel["pres"], "A-1", [items[c] for c in ("A1-001", "A1-002", "A1-003", "A1-004")])
    bad = "\n".join([
        "Código do item;Histórico;Valor;Moeda;Data do preço;Significância;Manter;Fonte;Observação",
        "A1-001;sim;1.234,56;BRL;10/03/2025;4;sim;catálogo;",          # good
        "A1-002;talvez;10;BRL;10/03/2025;;;catalogo;",                  # 3: bad vote
        "A1-003;não;10;USD;01/03/2025;;;venda comparável;",            # 4: no USD rate on or before 01/03
        "A1-009;não;10;BRL;10/03/2025;;;catalogo;",                     # 5: not an item of the contract
        "A1-005;não;10;BRL;10/03/2025;;;catalogo;",                     # 6: item outside this round
        "A1-001;não;10;BRL;10/03/2025;;;catalogo;",                     # 7: repeated item
        "A1-004;não;12,345;BRL;10/03/2025;2;;avaliacao_externa;",       # 8: 3 decimals, score w/o vote, no note
    ]).encode("utf-8")
    with pytest.raises(InputError) as exc:
        import_assessments(s, panel["cult1"], rnd.id, bad, "valores.csv")
    listed = [(p.path, p.message) for p in exc.value.problems]
    paths = [p for p, _ in listed]
    assert paths == ["linha 3, coluna Histórico", "linha 4, coluna Data do preço", "linha 5, coluna Código do item",
                     "linha 6, coluna Código do item", "linha 7, coluna Código do item", "linha 8, coluna Valor",
                     "linha 8, coluna Significância", "linha 8, coluna Observação"]
    assert "talvez" in listed[0][1] and "01/03/2025" in listed[1][1] and "linha 2" in listed[4][1]
    assert _count(s, "assessment_log") == 0 and _count(s, "imports") == 0

    good = "\n".join([
        "codigo;historico;valor;moeda;data_do_preco;significancia;manter;fonte;observacao;comentário livre",
        "A1-001;sim;1.234,56;BRL;10/03/2025;4;sim;catálogo;;ok",
        "A1-002;;800;USD;07/03/2025;;;avaliação externa;Leiloeira X;",
        "A1-003;não;;;;;;;;",
    ]).encode("utf-8")
    res = import_assessments(s, panel["cult1"], rnd.id, good, "valores.csv")
    assert (res.rows, res.new, res.corrections, res.ignored_columns) == (3, 3, 0, ("comentário livre",))
    log = {int(r["item_id"]): r for r in s.fetch("SELECT * FROM assessment_log")}
    assert log[items["A1-001"]]["value_brl"] == D("1234.56") and log[items["A1-001"]]["must_keep"] is True
    assert log[items["A1-002"]]["historical"] is None and log[items["A1-002"]]["value_brl"] == D("4400")
    assert log[items["A1-002"]]["rate_date"] == date(2025, 3, 5)
    assert log[items["A1-003"]]["amount"] is None and log[items["A1-003"]]["historical"] is False
    assert all(r["import_id"] == res.import_id for r in log.values())
    assert _consensus(s, rnd.id)[items["A1-002"]]["median_brl"] == D("4400.00")

    again = import_assessments(s, panel["cult1"], rnd.id, good, "valores.csv")
    assert (again.new, again.corrections) == (0, 3)
    assert _count(s, "assessment_log") == 6 and _count(s, "assessment_current") == 3
    assert s.scalar("SELECT count(*) FROM assessment_log WHERE supersedes IS NOT NULL") == 3


def test_import_an_xlsx_sheet(small_world: Any, panel: dict[str, Principal]) -> None:
    import io

    import openpyxl

    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["codigo", "historico", "valor", "moeda", "data_do_preco", "significancia", "fonte"])
    ws.append(["A1-001", "sim", 1234.5, "BRL", date(2025, 3, 10), 5, "catalogo"])
    ws.append(["A1-002", "não", 99, "brl", date(2025, 3, 10), None, "venda_comparavel"])
    buf = io.BytesIO()
    wb.save(buf)
    res = import_assessments(s, panel["navy2"], rnd.id, buf.getvalue(), "valores.xlsx")
    assert res.rows == 2
    got = {int(r["item_id"]): r["value_brl"] for r in s.fetch("SELECT item_id, value_brl FROM assessment_current")}
    assert got == {items["A1-001"]: D("1234.5"), items["A1-002"]: D("99")}


# -- agreement -------------------------------------------------------------------------------------
def test_agreement_matches_the_reference_statistics(small_world: Any, panel: dict[str, Principal]) -> None:
    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    rng = np.random.default_rng(7)
    members = list(panel)
    votes: dict[int, list[bool | None]] = {}
    values: dict[int, dict[str, Decimal]] = {}
    for item in items.values():
        base = int(rng.integers(100, 10_000))
        votes[item] = []
        values[item] = {}
        for member in members:
            vote = [True, False, None][int(rng.integers(0, 3))]
            amount = D(base + int(rng.integers(-50, 50)))
            votes[item].append(vote)
            values[item][member] = amount
            _enter(s, panel[member], rnd.id, item, historical=vote, amount=str(amount))
    with pytest.raises(AccessDenied):
        agreement(s, panel["cult3"], rnd.id)
    close_round(s, panel["pres"], rnd.id)

    got = agreement(s, panel["cult3"], rnd.id)
    expected_alpha = stats.krippendorff_alpha_nominal(list(votes.values()))
    assert got.alpha_votes == pytest.approx(expected_alpha, abs=1e-12)
    matrix = np.array([[np.log(float(values[i][m])) for m in sorted(members, key=lambda k: panel[k].id)]
                       for i in values])
    assert got.icc_log_values == pytest.approx(stats.icc_2_1(matrix), abs=1e-9)
    assert (got.n_items, got.n_members, got.icc_items) == (6, 6, 6)
    assert got.flagged_total == int(s.scalar("SELECT count(*) FROM item_consensus WHERE flagged"))
    labels = [d.member for d in got.deviations]
    assert sorted(labels) == sorted(["Você"] + [f"Membro {k}" for k in range(1, 7)
                                                if f"Membro {k}" in labels])
    assert len(labels) == 6 and labels.count("Você") == 1
    mine = next(d for d in got.deviations if d.member == "Você")
    expected = [float((values[i]["cult3"] - _median(list(values[i].values()))) / _median(list(values[i].values())))
                for i in values]
    assert mine.n == 6 and mine.mean == pytest.approx(float(np.mean(expected)))
    named = agreement(s, small_world.principal("dpc"), rnd.id)
    assert {d.member for d in named.deviations} == {p.full_name for p in panel.values()}


def _median(xs: list[Decimal]) -> Decimal:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


@pytest.mark.parametrize("seed", range(5))
def test_alpha_from_vote_patterns_equals_the_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    units = [[[True, False, None][int(rng.integers(0, 3))] for _ in range(int(rng.integers(1, 7)))]
             for _ in range(int(rng.integers(5, 60)))]
    counts: dict[tuple[int, int], int] = {}
    for u in units:
        key = (sum(v is True for v in u), sum(v is False for v in u))
        counts[key] = counts.get(key, 0) + 1
    got = alpha_from_vote_patterns([(t, f, w) for (t, f), w in counts.items()])
    want = stats.krippendorff_alpha_nominal(units)
    assert (got is None) == (want is None)
    if want is not None:
        assert got == pytest.approx(want, abs=1e-12)


def test_bulk_entries_use_the_same_rules_all_or_nothing(small_world: Any, panel: dict[str, Principal]) -> None:
    import pyarrow as pa

    s = small_world.store
    items = item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1", [items["A1-001"], items["A1-002"], items["A1-003"]])
    table = pa.table({
        "item_id": [items["A1-001"], items["A1-002"], items["A1-002"], items["A1-005"]],
        "historical": [True, False, None, False],
        "amount": pa.array([D("10"), D("-1"), D("5"), D("1")], type=pa.decimal128(18, 2)),
        "currency": ["brl", "BRL", "BRL", "BRL"],
        "price_date": [PRICE_DAY] * 4,
        "significance": [None, None, None, None],
        "source": ["catalogo"] * 4,
    })
    with pytest.raises(InputError) as exc:
        record_assessments_bulk(s, panel["navy2"], rnd.id, table)
    assert [p.path for p in exc.value.problems] == [
        "linha 1, coluna significance",      # a historical vote needs its significance
        "linha 2, coluna amount",            # negative
        "linha 3, coluna item_code",         # the same item twice
        "linha 4, coluna item_code",         # not an item of this round
    ]
    assert _count(s, "assessment_log") == 0
    with pytest.raises(InputError):
        record_assessments_bulk(s, panel["navy2"], rnd.id, pa.table({"item_id": [items["A1-001"]],
                                                                          "amount": [10.5]}))
    ok = table.slice(0, 2).set_column(1, "historical", pa.array([False, False]))
    ok = ok.set_column(2, "amount", pa.array([D("10"), D("20")], type=pa.decimal128(18, 2)))
    res = record_assessments_bulk(s, panel["navy2"], rnd.id, ok)
    assert (res.rows, res.new) == (2, 2)
    assert _consensus(s, rnd.id)[items["A1-002"]]["median_brl"] == D("20.00")


def test_the_president_must_be_a_navy_member(small_world: Any, panel: dict[str, Principal]) -> None:
    culture_president = Principal(id=panel["cult1"].id, username=panel["cult1"].username, full_name="X",
                                  role="commission_president", organisation_id=None, commission_body="culture")
    with pytest.raises(AccessDenied, match=r"NORMAM-10 \(ed\. 2002\) 0303"):
        open_round(small_world.store, culture_president, "A-1")
    assert _count(small_world.store, "assessment_rounds") == 0
