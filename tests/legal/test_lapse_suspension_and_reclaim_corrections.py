"""Issue 25, "Wrong answers": the four rows of its table, each with its table of cases, in the pure
rules, the CLI (cli.md: `deadline` rule `five_year_lapse`, `domain-status`, `reclaim`), the store (the
registry's domain status and the deadline engine) and the pages (Domínio, Prazos' "Explicar um prazo").

1. A suspension counts when it starts on or before the period's last day as it stands with the
   suspensions before it, moved forward to a business day (Lei 7.542 art. 6 sole paragraph; Lei 9.784
   art. 66 §1): casualty 01/03/2010, raw end 01/03/2015 a Sunday → Monday 02/03; a suspension 02–11/03
   counts → due 11/03/2015.
2. The same suspension still running: no due date, still private (art. 6 sole paragraph II) — also
   when it is a removal order of 02/03/2015 still running, recorded in the store.
3. A casualty before 29/09/1966: art. 32 caput, the last day to ask was 29/09/1987, whatever the
   suspensions — consistent with domain-status (União since 30/09/1987).
4. reclaim with expenses_paid 3 000 > expenses 1 000: exit 2 naming expenses_paid.

Every expected date is worked out by hand beside its case (2015: Carnival on 16–17/02).
"""
from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import page_as
from valuation.cli.main import main
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError
from valuation.deadlines import engine
from valuation.deadlines.rules import five_year_lapse
from valuation.inventory.reclaim import reclaim_price
from valuation.registry import removal_orders
from valuation.registry.domain.queries import domain_statuses
from valuation.registry.domain.status import domain_status

D = date
RJ = BusinessCalendar("RJ")
AS_OF = D(2025, 6, 30)
CASUALTY = D(2010, 3, 1)     # + 5 years = 01/03/2015, a Sunday → Monday 02/03/2015

# (name, casualty, suspensions, due, moved_from, a word of the steps or basis)
LAPSE_CASES = [
    ("row 1: a suspension starting on the moved last day counts", CASUALTY, [(D(2015, 3, 2), D(2015, 3, 11))],
     D(2015, 3, 11), None, "a suspensão conta"),
    # 01/03 + 4 days = 05/03 (Thursday)
    ("a suspension starting on the raw last day (the Sunday) counts", CASUALTY, [(D(2015, 3, 1), D(2015, 3, 4))],
     D(2015, 3, 5), None, "4 dias"),
    ("one starting the day after the moved last day is ignored", CASUALTY, [(D(2015, 3, 3), D(2015, 3, 11))],
     D(2015, 3, 2), D(2015, 3, 1), "não o suspende"),
    # the first leaves the period ending on 11/03 (Wednesday); the second starts on 13/03: ignored
    ("a second suspension is measured against the period as the first left it", CASUALTY,
     [(D(2015, 3, 2), D(2015, 3, 11)), (D(2015, 3, 13), D(2015, 3, 17))], D(2015, 3, 11), None, "não o suspende"),
    # 01/03 + 5 days (02–06/02) = 06/03, a Friday: a suspension from Monday 09/03 comes too late
    ("after the extended last day, a business day, a suspension is ignored", CASUALTY,
     [(D(2015, 2, 2), D(2015, 2, 6)), (D(2015, 3, 9), D(2015, 3, 10))], D(2015, 3, 6), None, "não o suspende"),
    # 01/03 + 6 days (02–07/02) = 07/03, a Saturday: the period runs until Monday 09/03, so a suspension of
    # 09–10/03 counts: 07/03 + 2 days = 09/03 (Monday)
    ("an extended last day on a Saturday lets a suspension from Monday count", CASUALTY,
     [(D(2015, 2, 2), D(2015, 2, 7)), (D(2015, 3, 9), D(2015, 3, 10))], D(2015, 3, 9), None, "a suspensão conta"),
    ("row 2: the same suspension still running: no due date", CASUALTY, [(D(2015, 3, 2), None)],
     None, None, "não há vencimento"),
    ("row 3: a casualty in 1950 follows art. 32 caput", D(1950, 6, 1), [], D(1987, 9, 29), None, "art. 32"),
    ("row 3: whatever the suspensions", D(1950, 6, 1), [(D(1960, 1, 1), None)], D(1987, 9, 29), None,
     "não alteram"),
    ("the last day before the art. 32 threshold", D(1966, 9, 28), [], D(1987, 9, 29), None, "art. 32"),
    # 29/09/1966 is not "more than 20 years" before the law: five years from 29/09/1986 → 29/09/1991 (Sunday)
    ("the threshold day itself runs five years from the law", D(1966, 9, 29), [], D(1991, 9, 30), D(1991, 9, 29),
     "art. 37"),
]


def _ids(cases: list[tuple[Any, ...]]) -> list[str]:
    return [c[0] for c in cases]


@pytest.mark.parametrize("name, casualty, suspensions, due, moved, word", LAPSE_CASES, ids=_ids(LAPSE_CASES))
def test_five_year_lapse_rule(name, casualty, suspensions, due, moved, word):
    d = five_year_lapse(casualty, suspensions, RJ)
    assert (d.due, d.moved_from) == (due, moved), "\n".join(d.steps)
    assert word in "\n".join(d.steps) + d.basis
    if casualty < D(1966, 9, 29):
        assert "art. 32" in d.basis and "arts. 6 e 7" not in d.basis


# (name, casualty, hull, suspensions, owner, since, lapse_due, lapse_suspended)
DOMAIN_CASES = [
    ("row 1: the counted suspension delays the União to 12/03/2015", CASUALTY, "steel",
     [(D(2015, 3, 2), D(2015, 3, 11))], "union", D(2015, 3, 12), D(2015, 3, 11), False),
    ("row 2: a removal order of 02/03/2015 still running keeps it private", CASUALTY, "steel",
     [(D(2015, 3, 2), None)], "private", None, None, True),
    ("row 2: an order of 03/03/2015 came too late", CASUALTY, "steel", [(D(2015, 3, 3), None)],
     "union", D(2015, 3, 3), D(2015, 3, 2), False),
    ("row 3: a steel casualty of 1950: the last day to ask was 29/09/1987", D(1950, 6, 1), "steel", [],
     "union", D(1987, 9, 30), D(1987, 9, 29), False),
]


@pytest.mark.parametrize("name, casualty, hull, suspensions, owner, since, lapse_due, stopped", DOMAIN_CASES,
                         ids=_ids(DOMAIN_CASES))
def test_domain_status_rule(name, casualty, hull, suspensions, owner, since, lapse_due, stopped):
    s = domain_status(AS_OF, casualty, hull, None, None, suspensions, RJ)
    assert (s.owner, s.since, s.lapse_due, s.lapse_suspended) == (owner, since, lapse_due, stopped), s.steps


def test_reclaim_rule_refuses_more_paid_than_the_expenses():
    with pytest.raises(InputError) as err:
        reclaim_price(None, None, Decimal("1500.00"), Decimal("1000.00"), Decimal("3000.00"))
    assert [p.path for p in err.value.problems] == ["expenses_paid"]
    ok = reclaim_price(None, None, Decimal("1500.00"), Decimal("1000.00"), Decimal("1000.00"))  # all paid: fine
    assert (ok.expenses_shortfall, ok.price) == (Decimal("0.00"), Decimal("1500.00"))


# -- the CLI (cli.md): in-process (`valuation.cli.main.main`, the command's code path, exit status and
# streams included); one case through a real subprocess ---------------------------------------------------------
def _cli(kind: str, doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code = main(["compute", kind, "--input", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def _lapse(casualty: str, suspensions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"rule": "five_year_lapse", "casualty_date": casualty, "suspensions": suspensions,
            "office": {"state": "RJ", "local_holidays": []}}


def _domain(casualty: str, suspensions: list[dict[str, Any]], hull: str = "steel") -> dict[str, Any]:
    return {"as_of": "2025-06-30", "casualty_date": casualty, "hull": hull, "owner_declared_lost": None,
            "owner_licence_requested": None, "suspensions": suspensions, "office": {"state": "RJ"}}


CLI_CASES = [
    ("row 1", "deadline", _lapse("2010-03-01", [{"start": "2015-03-02", "end": "2015-03-11"}]),
     {"due": "2015-03-11", "moved_from": None, "suspended_days": 10}),
    ("row 2, deadline", "deadline", _lapse("2010-03-01", [{"start": "2015-03-02", "end": None}]),
     {"due": None, "moved_from": None, "suspended_since": "2015-03-02"}),
    ("row 2, domain-status", "domain-status", _domain("2010-03-01", [{"start": "2015-03-02", "end": None}]),
     {"owner": "private", "since": None, "lapse_due": None, "lapse_suspended": True}),
    ("row 3, deadline", "deadline", _lapse("1950-06-01", [{"start": "1951-01-01", "end": "1951-12-31"}]),
     {"due": "1987-09-29", "moved_from": None}),
    ("row 3, domain-status", "domain-status", _domain("1950-06-01", []),
     {"owner": "union", "since": "1987-09-30", "lapse_due": "1987-09-29"}),
]


@pytest.mark.parametrize("name, kind, doc, expected", CLI_CASES, ids=_ids(CLI_CASES))
def test_cli(name, kind, doc, expected, tmp_path, capsys):
    code, out, err = _cli(kind, doc, tmp_path, capsys)
    assert (code, err) == (0, ""), err
    got = json.loads(out)
    assert {k: got[k] for k in expected} == expected
    if doc.get("casualty_date", "").startswith("1950"):
        assert "art. 32" in got["basis"]


RECLAIM = {"recovered": "2025-03-10", "office": {"state": "RJ"}, "invoice_value": None, "insured_value": None,
           "market_value": "1500.00", "expenses": "1000.00", "expenses_paid": "3000.00"}


def test_cli_reclaim_refuses_more_paid_than_the_expenses_naming_the_field(tmp_path, capsys):
    p = subprocess.run([sys.executable, "-m", "valuation", "compute", "reclaim", "--input", "-"],
                       input=json.dumps(RECLAIM), capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr.strip().startswith("expenses_paid: ") and "Traceback" not in p.stderr
    code, out, _ = _cli("reclaim", {**RECLAIM, "expenses_paid": "1000.00"}, tmp_path, capsys)
    assert code == 0 and json.loads(out)["price"] == "1500.00"


# -- the store and the pages ----------------------------------------------------------------------------------
def _wreck(tx: Any, code: str, casualty: date, owner_id: int | None = None) -> int:
    return int(tx.scalar(
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, casualty_day, "
        "casualty_precision, casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
        "situation, owner_id) VALUES (?, 'Rebocador Caiçara', 'aço', ?, ?, ?, 'day', 'naufrágio', 23, 1, 'S', 43, 2, "
        "'W', 'WGS-84', 'CPRJ', 'soçobrada', ?) RETURNING id",
        [code, casualty.year, casualty.month, casualty.day, owner_id]))


def _suspended_wreck(world: Any) -> None:
    def add(tx: Any) -> None:
        wid = _wreck(tx, "NAU-2010-31", CASUALTY)
        tx.execute("INSERT INTO wreck_suspensions (wreck_id, ground, starts_on, ends_on, reason) VALUES "
                   "(?, 'I', DATE '2015-03-02', DATE '2015-03-11', 'Remoção pelo responsável')", [wid])
        _wreck(tx, "NAU-1950-32", D(1950, 6, 1))
    world.store.write("test", add)


def _ordered_wreck(world: Any) -> int:
    world.store.write("test", lambda tx: _wreck(tx, "NAU-2010-33", CASUALTY, world.ids["owner1"]))
    return removal_orders.record_removal_order(world.store, world.principal("dpc"), {
        "wreck_code": "NAU-2010-33", "kind": "remoção", "act": "Ofício nº 3/2015-CPRJ", "ordered_on": "02/03/2015",
        "notice": "pessoal", "notified_on": "03/03/2015", "starts_by": "01/04/2015", "ends_by": "30/09/2015",
        "reason": "Casco no canal de acesso: obstáculo à navegação."})


def _engine_row(world: Any, code: str) -> dict[str, Any]:
    df = engine.compute_deadlines(world.store, world.principal("dpc"), as_of=AS_OF)
    rows = df[df["key"] == f"five_year_lapse:{code}"]
    assert len(rows) == 1
    return dict(rows.iloc[0].to_dict())


def test_store_counts_the_suspension_that_starts_on_the_moved_last_day(small_world):
    _suspended_wreck(small_world)
    reg = domain_statuses(small_world.store, small_world.principal("dpc"), AS_OF).set_index("code")
    row = reg.loc["NAU-2010-31"]
    assert (row["owner"], row["since"], row["lapse_due"]) == ("union", D(2015, 3, 12), D(2015, 3, 11))
    assert "a suspensão conta" in row["steps"]
    lapse = _engine_row(small_world, "NAU-2010-31")
    assert (lapse["due"], lapse["state"], lapse["met_on"]) == (D(2015, 3, 11), "met", D(2015, 3, 12))
    assert "a suspensão conta" in lapse["steps"]
    old = reg.loc["NAU-1950-32"]   # row 3: art. 32 caput in the registry, the same last day as the CLI
    assert (old["owner"], old["since"], old["lapse_due"]) == ("union", D(1987, 9, 30), D(1987, 9, 29))
    assert "art. 32 caput" in old["basis"]


def test_store_keeps_private_a_wreck_under_a_running_removal_order_of_the_moved_last_day(small_world):
    _ordered_wreck(small_world)
    row = domain_statuses(small_world.store, small_world.principal("dpc"), AS_OF).set_index("code").loc["NAU-2010-33"]
    assert (row["owner"], row["since"], row["lapse_due"], row["lapse_suspended"]) == ("private", None, None, True)
    assert row["owner_pt"].startswith("suspenso")
    lapse = _engine_row(small_world, "NAU-2010-33")
    assert (lapse["state"], lapse["due"]) == ("suspended", None)
    assert "art. 6 parágrafo único" in lapse["reason"]


def _all_text(at: Any) -> str:
    return "\n".join([str(t.value) for t in at.text] + [str(m.value) for m in at.markdown]
                     + [str(s.value) for s in at.subheader])


def test_pages_explain_the_counted_suspension_and_the_running_order(small_world):
    _suspended_wreck(small_world)
    _ordered_wreck(small_world)
    small_world.store.close()
    dpc = small_world.principal("dpc")
    at = page_as(small_world.path, dpc, "domain")
    pick = next(s for s in at.selectbox if s.label == "Explicar um naufrágio")
    pick.set_value("NAU-2010-31").run()
    shown = _all_text(at)
    assert "Último dia para requerer a licença: 11/03/2015" in shown and "Domínio da União desde 12/03/2015" in shown
    next(s for s in at.selectbox if s.label == "Explicar um naufrágio").set_value("NAU-2010-33").run()
    shown = _all_text(at)
    assert "ainda sem data (prazo suspenso)" in shown and "Domínio da União desde" not in shown
    at = page_as(small_world.path, dpc, "deadlines", timeout=120)
    pick = next(s for s in at.selectbox if s.label == "Explicar um prazo")
    pick.set_value("five_year_lapse:NAU-2010-31").run()
    shown = _all_text(at)
    assert "Vencimento: 11/03/2015" in shown and "a suspensão conta" in shown
    next(s for s in at.selectbox if s.label == "Explicar um prazo").set_value("five_year_lapse:NAU-2010-33").run()
    shown = _all_text(at)
    assert "Situação: suspenso" in shown and "ainda sem data (prazo suspenso)" in shown
