"""Issue 25, rule 5 — the valuation date (Lei 7.542/1986 art. 21 §3): the contract may fix the value before the
start or after the end of the operations; when it names the day, the Commission's foreign prices are converted
at that day's rate (the latest on or before it, never a later one), not at each price's own date. The pure
rule (table-driven), the store path (terms and both entry paths: one entry and a sheet), and the pages on the
full demo (Termos do contrato; the member's entry form of a round of the demo's contract with a valuation date).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.commission import full_panel, item_ids
from tests.support.db_copies import copy_database
from tests.support.ui import first_user, page_as
from valuation.commission.entries import record_assessment
from valuation.commission.rates import add_rate
from valuation.commission.rounds import open_round
from valuation.commission.sheet_import import import_assessments
from valuation.core.errors import ConflictError, InputError
from valuation.core.valuation_date import ART_21_3, conversion_rule, valuation_date_problems
from valuation.db.shared import using
from valuation.partition import terms
from valuation.partition.valuation_date import contract_valuation, set_valuation_date

D = date
TODAY = D(2025, 6, 30)
START, END = D(2024, 3, 1), D(2025, 2, 28)

# (name, valuation_date, value_fixed, starts_on, work_ended_on, paths of the problems expected)
PROBLEM_CASES = [
    ("no valuation date: nothing to check", None, None, None, None, []),
    ("before the start, the day before", D(2024, 2, 29), "antes", START, None, []),
    ("before the start, on the start day itself", START, "antes", START, None, ["valuation_date"]),
    ("before the start, but no start recorded", D(2024, 2, 1), "antes", None, None, ["valuation_date"]),
    ("after the end, the day after", D(2025, 3, 1), "depois", START, END, []),
    # art. 21 §3 times the fixing (after the end), not the prices' day: the day the works ended is the natural
    # reference of a value fixed after them, and its rates exist when it is fixed
    # (docs/decisions/101-valuation-date-reference-day.md)
    ("after the end, referring to the day the operations ended", END, "depois", START, END, []),
    ("after the end, referring to a day during the operations", D(2025, 2, 27), "depois", START, END,
     ["valuation_date"]),
    ("after the end, operations still running", D(2025, 3, 1), "depois", START, None, ["valuation_date"]),
    ("the contract does not say when the value is fixed", D(2025, 3, 1), None, START, END, ["value_fixed"]),
    ("a day to come: its rate does not exist", D(2025, 7, 1), "depois", START, END, ["valuation_date"]),
]


@pytest.mark.parametrize("name, day, fixed, starts, ended, paths", PROBLEM_CASES, ids=[c[0] for c in PROBLEM_CASES])
def test_when_a_contract_may_fix_its_valuation_date(name, day, fixed, starts, ended, paths):
    problems = valuation_date_problems(day, fixed, starts, ended, today=TODAY)
    assert [p.path for p in problems] == paths
    assert all("art. 21 §3" in p.message or "futura" in p.message for p in problems)


# (name, valuation_date, value_fixed, price_date, the day whose rate converts it, words of the text)
CONVERSION_CASES = [
    ("no valuation date: each price at its own date", None, None, D(2025, 3, 10), D(2025, 3, 10),
     "data de cada preço"),
    ("a valuation date after the end: that day, for an earlier price", D(2025, 3, 5), "depois", D(2025, 1, 2),
     D(2025, 3, 5), "cotação de 05/03/2025"),
    ("a valuation date after the end: that day, for a later price", D(2025, 3, 5), "depois", D(2025, 6, 1),
     D(2025, 3, 5), "depois do término das operações"),
    ("a valuation date before the start", D(2021, 10, 29), "antes", D(2026, 11, 2), D(2021, 10, 29),
     "antes do início das operações"),
]


@pytest.mark.parametrize("name, day, fixed, price, used, words", CONVERSION_CASES,
                         ids=[c[0] for c in CONVERSION_CASES])
def test_which_day_converts_the_price(name, day, fixed, price, used, words):
    rule = conversion_rule(day, fixed)
    assert rule.day == day and rule.day_for(price) == used
    assert words in rule.text and ART_21_3 in rule.text


# -- the store -------------------------------------------------------------------------------------------
def _ended(world: Any, code: str) -> None:
    world.store.write("fixture", lambda tx: tx.execute(
        "UPDATE contracts SET value_fixed = 'depois', starts_on = ?, work_ended_on = ? WHERE code = ?",
        [START, END, code]))


def _usd(store: Any, member: Any, round_id: int, item_id: int, day: date) -> Any:
    return record_assessment(store, member, round_id, item_id, historical=False, amount=Decimal("100.00"),
                             currency="USD", price_date=day, significance=None, must_keep=None, source="catalogo")


def test_prices_are_converted_at_the_contracts_valuation_date(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    panel, items = full_panel(small_world), item_ids(small_world)
    add_rate(s, dpc, "USD", D(2025, 3, 5), Decimal("5.0000"))
    add_rate(s, dpc, "USD", D(2025, 3, 10), Decimal("5.5000"))
    _ended(small_world, "A-1")
    with pytest.raises(InputError) as err:                 # during the operations: refused
        set_valuation_date(s, dpc, "A-1", {"valuation_date": "27/02/2025"}, today=TODAY)
    assert [p.path for p in err.value.problems] == ["valuation_date"]
    assert contract_valuation(s, dpc, "A-1")[0] is None
    assert set_valuation_date(s, dpc, "A-1", {"valuation_date": "07/03/2025"}, today=TODAY) == D(2025, 3, 7)
    day, rule = contract_valuation(s, dpc, "A-1")
    assert day == D(2025, 3, 7) and "07/03/2025" in rule.text
    with pytest.raises(InputError) as err:                 # the terms cannot drop the moment the date rests on
        terms.set_contract_terms(s, dpc, "A-1", {"modality": "I", "fixed_amount": "150000.10", "value_fixed": "antes"})
    assert [p.path for p in err.value.problems] == ["value_fixed"]
    assert s.scalar("SELECT count(*) FROM audit_log WHERE action = 'valuation_date_set'") == 1

    rnd = open_round(s, panel["pres"], "A-1")
    assert rnd.conversion.day == D(2025, 3, 7)
    # a price of 10/03 is converted at the valuation date's rate (05/03, the latest on or before 07/03), not 10/03's
    later = _usd(s, panel["navy1"], rnd.id, items["A1-001"], D(2025, 3, 10))
    assert (later.rate, later.value_brl, later.rate_date) == (Decimal("5"), Decimal("500"), None)
    assert (later.conversion_date, later.conversion_rate_date) == (D(2025, 3, 7), D(2025, 3, 5))
    # a price dated before any rate: the valuation date's rate still converts it
    early = _usd(s, panel["navy2"], rnd.id, items["A1-001"], D(2025, 1, 2))
    assert (early.rate, early.conversion_rate_date) == (Decimal("5"), D(2025, 3, 5))
    # the sheet (the batch path) converts the same way
    sheet = ("codigo;historico;valor;moeda;data_do_preco;significancia;manter;fonte;observacao\n"
             "A1-002;não;10,00;USD;10/03/2025;;;catalogo;\n").encode()
    import_assessments(s, panel["cult1"], rnd.id, sheet, "valores.csv")
    row = s.fetch_one("SELECT rate, rate_date, conversion_date, conversion_rate_date, value_brl FROM assessment_log "
                      "WHERE member_id = ? ORDER BY id DESC LIMIT 1", [panel["cult1"].id])
    assert row == {"rate": Decimal("5"), "rate_date": None, "conversion_date": D(2025, 3, 7),
                   "conversion_rate_date": D(2025, 3, 5), "value_brl": Decimal("50")}
    # values entered: the date can no longer change (they were converted by it)
    with pytest.raises(ConflictError):
        set_valuation_date(s, dpc, "A-1", {"valuation_date": None}, today=TODAY)
    assert contract_valuation(s, dpc, "A-1")[0] == D(2025, 3, 7)


def test_without_a_valuation_date_each_price_keeps_its_own_date(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    panel, items = full_panel(small_world), item_ids(small_world)
    add_rate(s, dpc, "USD", D(2025, 3, 5), Decimal("5.0000"))
    add_rate(s, dpc, "USD", D(2025, 3, 10), Decimal("5.5000"))
    rnd = open_round(s, panel["pres"], "A-1")
    entry = _usd(s, panel["navy1"], rnd.id, items["A1-001"], D(2025, 3, 10))
    assert (entry.rate, entry.rate_date, entry.conversion_date) == (Decimal("5.5"), D(2025, 3, 10), None)


def test_no_rate_on_or_before_the_valuation_date_names_it(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    panel, items = full_panel(small_world), item_ids(small_world)
    add_rate(s, dpc, "USD", D(2025, 3, 10), Decimal("5.5000"))
    _ended(small_world, "A-1")
    set_valuation_date(s, dpc, "A-1", {"valuation_date": D(2025, 3, 7)}, today=TODAY)
    rnd = open_round(s, panel["pres"], "A-1")
    with pytest.raises(InputError) as err:                 # only a later rate (10/03): never used
        _usd(s, panel["navy1"], rnd.id, items["A1-001"], D(2025, 3, 10))
    [problem] = err.value.problems
    assert "07/03/2025" in problem.message and "art. 21 §3" in problem.message
    assert s.scalar("SELECT count(*) FROM assessment_log") == 0


# -- the pages on the full demo ------------------------------------------------------------------------------
DEMO_CONTRACT, DEMO_DAY = "DPC-EX-2021/05", "29/10/2021"


def test_terms_page_shows_the_demo_contracts_valuation_date(full_demo_db: Path) -> None:
    at = page_as(full_demo_db, first_user(full_demo_db, "dpc"), "contract_terms")
    next(s for s in at.selectbox if s.label == "Contrato").set_value(DEMO_CONTRACT).run()
    assert not at.exception
    shown = " ".join(str(x.value) for x in at.info)
    assert f"cotação de {DEMO_DAY}" in shown and "antes do início das operações" in shown and ART_21_3 in shown
    box = next(t for t in at.text_input if t.label == "Data de avaliação (art. 21 §3)")
    assert box.value == DEMO_DAY


def test_the_entry_form_says_which_date_converts_the_price(full_demo_db: Path, tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    with using(db) as store:
        ids = [int(r["id"]) for r in store.fetch(
            "SELECT i.id FROM items i JOIN contracts c ON c.id = i.contract_id WHERE c.code = ? "
            "ORDER BY i.item_code LIMIT 3", [DEMO_CONTRACT])]
        assert ids, "the demo's contract with a valuation date has no items"
        open_round(store, _president(store), DEMO_CONTRACT, ids)
    member = first_user(db, "commission")
    at = page_as(db, member, "commission")
    next(s for s in at.selectbox if s.label == "Contrato").set_value(DEMO_CONTRACT).run()
    assert not at.exception
    said = " ".join(str(c.value) for c in at.caption)
    assert f"cotação de {DEMO_DAY}" in said and ART_21_3 in said and "não pela data de cada preço" in said


def _president(store: Any) -> Any:
    from valuation.demo.commission import demo_panel

    return demo_panel(store)[0]


def test_migrations_030_and_031_on_a_database_that_predates_them(tmp_path: Path, monkeypatch: Any) -> None:
    from valuation.db import store as dbmod
    from valuation.db.store import Store

    real = dbmod.available_migrations()
    before = [m for m in real if m.version < 30]
    monkeypatch.setattr(dbmod, "available_migrations", lambda: before)
    path = tmp_path / "old.duckdb"
    with Store(path) as old:
        assert not old.has_table("found_thing_costs")
    # a row the older version wrote (written raw: this code's write funnel seals the columns of migration 030)
    con = duckdb.connect(str(path))
    try:
        con.execute("INSERT INTO assessment_log (round_id, item_id, member_id, amount, currency, price_date, rate, "
                    "rate_date, value_brl, entered_by, entered_at) VALUES (1, 1, 1, 10, 'USD', DATE '2025-03-10', "
                    "5.5, DATE '2025-03-10', 55, 'x', TIMESTAMP '2025-03-10 10:00:00')")
    finally:
        con.close()
    monkeypatch.setattr(dbmod, "available_migrations", lambda: real)
    with Store(path) as new:
        assert [v for v in new.applied_now if v in (30, 31)] == [30, 31]
        row = new.fetch_one("SELECT rate_date, conversion_date, conversion_rate_date, value_brl FROM assessment_log")
        assert row == {"rate_date": D(2025, 3, 10), "conversion_date": None, "conversion_rate_date": None,
                       "value_brl": Decimal("55")}
        assert new.has_table("found_thing_costs")
        assert new.scalar("SELECT count(*) FROM information_schema.columns WHERE table_name = 'contracts' "
                          "AND column_name = 'valuation_date'") == 1
