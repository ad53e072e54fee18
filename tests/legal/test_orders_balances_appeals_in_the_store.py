"""Issue 15, second half, in the store (and issue 14's items in the deadlines and registry folders).

Dated NORMAM parameters in the engine, removal orders with the suspension they record, the owner's
balance, the co-signature of art. 20 §1, appeals, the preference of art. 16 §2, the offices' own
early-closing dates; then the hardening: the digest's --as-of, events in the explorer's own name,
answers that never tell another company's row from a missing one, ASCII digits only.

Uses `small_world` (tests/conftest.py); every expected date is worked out by hand beside its case.
"""
from __future__ import annotations

import re
import subprocess
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound
from valuation.deadlines import appeals, calendars, engine, events
from valuation.deadlines import vocabulary as v
from valuation.policies import values as policies
from valuation.registry import co_signatures, organisations, owner_balances, preference, removal_orders, wrecks
from valuation.registry.contracts import list_contracts

ROOT = Path(__file__).resolve().parents[2]
D = date
REF = "Portaria DPC nº 12/2026 (NORMAM-10, nova redação)"
REASON = "Revisão da NORMAM-10 publicada no Diário Oficial."


@pytest.fixture
def world(small_world):
    """A-1 (exploração, CPBA) and B-1 (remoção, CPRJ) running since 06/01/2025, as in test_deadline_engine."""
    small_world.store.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET starts_on = DATE '2025-01-06', expires_on = DATE '2026-01-05' "
        "WHERE code IN ('A-1', 'B-1')"))
    return small_world


def rows(world: Any, as_of: date, who: str = "dpc") -> Any:
    return engine.compute_deadlines(world.store, world.principal(who), as_of=as_of).set_index("key")


def _wreck(world: Any, code: str = "NAU-2023-77", owner: bool = True) -> int:
    return int(world.store.write("test", lambda tx: tx.scalar(
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, "
        "casualty_day, casualty_precision, "
        "casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, situation, owner_id) "
        "VALUES (?, 'Rebocador Tupã', 'aço', 2023, 5, 10, 'day', 'naufrágio', 22, 55, 'S', 43, 9, 'W', 'WGS-84', "
        "'CPRJ', 'soçobrada', ?) RETURNING id", [code, world.ids["owner1"] if owner else None])))


# -- dated NORMAM parameters -------------------------------------------------------------------------------------
def test_a_normam_revision_applies_only_to_periods_that_start_on_or_after_it(world):
    """Final report in 120 days from 01/03/2025 (was 90): B-1 ended 14/02/2025 keeps 14/02 + 90 = 15/05/2025;
    A-2 (a survey, CPSP) ended 10/03/2025 gets 10/03 + 120 = 08/07/2025 (Tuesday). Monthly report on the 5th
    business day from 01/04/2025: the March report (its month started before) stays on the 10th business day
    of April, 14/04/2025; April's is the 5th business day of May at CPBA (1/05 holiday): 2, 5, 6, 7, 8 → 08/05."""
    s, dpc = world.store, world.principal("dpc")
    s.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET work_ended_on = CASE code WHEN 'B-1' THEN DATE '2025-02-14' ELSE DATE '2025-03-10' END, "
        "status = CASE code WHEN 'A-2' THEN 'concluído' ELSE status END WHERE code IN ('B-1', 'A-2')"))
    before = rows(world, D(2025, 3, 20))
    assert before.loc["final_report:B-1", "due"] == D(2025, 5, 15)
    assert before.loc["final_report:A-2", "due"] == D(2025, 6, 9)        # 10/03 + 90 = 08/06 (Sunday) → 09/06
    policies.set_policy(s, dpc, "final_report_days", 120, REASON, effective_from=D(2025, 3, 1), basis=REF)
    policies.set_policy(s, dpc, "monthly_report_business_day", 5, REASON, effective_from=D(2025, 4, 1), basis=REF)
    after = rows(world, D(2025, 3, 20))
    assert after.loc["final_report:B-1", "due"] == D(2025, 5, 15)        # never rewritten
    assert after.loc["final_report:A-2", "due"] == D(2025, 7, 8)
    assert "Portaria DPC nº 12/2026" in after.loc["final_report:A-2", "basis"]
    assert "em vigor desde 01/03/2025" in after.loc["final_report:A-2", "basis"]
    later = rows(world, D(2025, 5, 1))
    assert later.loc["monthly_report:A-1:2025-03", "due"] == D(2025, 4, 14)
    assert later.loc["monthly_report:A-1:2025-04", "due"] == D(2025, 5, 8)


# -- removal orders (Lei 7.542 arts. 5, 9, 10; art. 6 sole paragraph II) ---------------------------------------------
ORDER = {"wreck_code": "NAU-2023-77", "kind": "remoção", "act": "Ofício nº 12/2024-CPRJ", "ordered_on": "01/03/2024",
         "notice": "pessoal", "notified_on": "04/03/2024", "starts_by": "01/04/2024", "ends_by": "30/09/2024",
         "reason": "Casco no canal de acesso: obstáculo à navegação."}


def test_a_removal_order_suspends_the_five_years_until_it_ends(world):
    """The order of 01/03/2024 is recorded as an open suspension (ground II): the five years stop. Ended on
    30/11/2024 it covers 275 days: 10/05/2023 + 5 years = 10/05/2028 + 275 days = 09/02/2029 (Friday)."""
    s, dpc = world.store, world.principal("dpc")
    wid = _wreck(world)
    order_id = removal_orders.record_removal_order(s, dpc, ORDER)
    susp = s.fetch_one("SELECT ground, starts_on, ends_on FROM wreck_suspensions WHERE removal_order_id = ?",
                       [order_id])
    assert susp == {"ground": "II", "starts_on": D(2024, 3, 1), "ends_on": None}
    at = rows(world, D(2024, 6, 30))
    lapse = at.loc["five_year_lapse:NAU-2023-77"]
    assert (lapse["state"], lapse["due"]) == ("suspended", None) and "art. 6 parágrafo único" in lapse["reason"]
    start = at.loc[f"removal_start:r{order_id}"]
    assert (start["due"], start["state"]) == (D(2024, 4, 1), "overdue") and "art. 10" in start["reason"]
    with pytest.raises(InputError) as err:   # the start it fixed has not passed yet
        removal_orders.record_takeover(s, dpc, order_id, {"day": "15/03/2024"})
    assert "art. 10" in str(err.value)
    removal_orders.record_takeover(s, dpc, order_id, {"day": "10/04/2024"})
    assert rows(world, D(2024, 6, 30)).loc[f"removal_start:r{order_id}", "state"] == "waived"
    removal_orders.end_order(s, dpc, order_id, {"day": "30/11/2024", "end_kind": "concluída"})
    assert s.scalar("SELECT ends_on FROM wreck_suspensions WHERE removal_order_id = ?", [order_id]) == D(2024, 11, 30)
    assert rows(world, D(2025, 6, 30)).loc["five_year_lapse:NAU-2023-77", "due"] == D(2029, 2, 9)
    with pytest.raises(ConflictError):
        removal_orders.end_order(s, dpc, order_id, {"day": "01/12/2024", "end_kind": "revogada"})
    assert s.scalar("SELECT count(*) FROM wreck_suspensions WHERE wreck_id = ?", [wid]) == 1
    assert {r["action"] for r in s.fetch("SELECT action FROM audit_log")} >= {
        "record_removal_order", "record_removal_takeover", "end_removal_order"}


def test_an_owner_of_unknown_whereabouts_is_notified_by_edital_of_15_days(world):
    """Art. 9 II and §2: no known owner → edital; published 07/03/2025 (Friday) + 15 = 22/03 (Saturday) → 24/03."""
    s, dpc = world.store, world.principal("dpc")
    _wreck(world, "NAU-2023-78", owner=False)
    with pytest.raises(InputError) as err:
        removal_orders.record_removal_order(s, dpc, {**ORDER, "wreck_code": "NAU-2023-78"})
    assert [p.path for p in err.value.problems] == ["notice"] and "edital" in str(err.value)
    order_id = removal_orders.record_removal_order(s, dpc, {
        **ORDER, "wreck_code": "NAU-2023-78", "notice": "edital", "notified_on": None, "ordered_on": "03/03/2025",
        "published_on": "07/03/2025", "starts_by": "01/04/2025", "ends_by": "30/06/2025"})
    row = rows(world, D(2025, 3, 20)).loc[f"removal_edital:r{order_id}"]
    assert (row["due"], row["moved_from"]) == (D(2025, 3, 24), D(2025, 3, 22)) and "art. 9 §2" in row["basis"]
    for who in ("explorer_a", "commission", "admin"):
        with pytest.raises(AccessDenied):
            removal_orders.record_removal_order(s, world.principal(who), ORDER)


# -- the owner's balance (art. 13 §2) ---------------------------------------------------------------------------------
def test_the_owners_balance_is_held_until_five_years_from_the_casualty(world):
    """Sale on the owner's account of 10/12/2024: R$ 84.300,00 − R$ 61.875,40 of the União's costs = R$ 22.424,60,
    held until 10/05/2023 + 5 years = 10/05/2028 (Wednesday), União revenue from 11/05/2028."""
    s, dpc = world.store, world.principal("dpc")
    _wreck(world)
    data = {"wreck_code": "NAU-2023-77", "disposed_on": "10/12/2024", "proceeds": "84.300,00",
            "union_costs": "61.875,40"}
    for bad, field in (({"proceeds": "61.875,40"}, "proceeds"), ({"proceeds": "1001.76,41"}, "proceeds"),
                       ({"union_costs": "１２３"}, "union_costs")):
        with pytest.raises(InputError) as err:
            owner_balances.record_owner_balance(s, dpc, {**data, **bad})
        assert [p.path for p in err.value.problems] == [field], bad
    balance_id = owner_balances.record_owner_balance(s, dpc, data)
    assert s.scalar("SELECT balance FROM owner_balances WHERE id = ?", [balance_id]) == Decimal("22424.60")
    held = rows(world, D(2025, 6, 30)).loc[f"owner_balance:b{balance_id}"]
    assert (held["due"], held["state"]) == (D(2028, 5, 10), "upcoming") and "R$ 22.424,60" in held["label_pt"]
    assert "art. 13 §2" in held["basis"]
    gone = rows(world, D(2028, 6, 1)).loc[f"owner_balance:b{balance_id}"]
    assert (gone["state"], gone["state_pt"]) == ("met", "encerrado — receita da União desde 11/05/2028")
    owner_balances.record_balance_paid(s, dpc, balance_id, {"day": "20/01/2025"})
    paid = rows(world, D(2028, 6, 1)).loc[f"owner_balance:b{balance_id}"]
    assert paid["state_pt"] == "encerrado" and "entregue ao responsável" in paid["reason"]
    with pytest.raises(AccessDenied):
        owner_balances.list_owner_balances(s, world.principal("explorer_a"))


# -- co-signature of the Ministry of Culture (art. 20 §1) ---------------------------------------------------------
def test_a_contract_over_historical_things_is_not_in_force_without_the_co_signature(world):
    s, dpc = world.store, world.principal("dpc")
    s.write("test", lambda tx: tx.execute("UPDATE contracts SET historical_share = 0.30 WHERE code = 'A-1'"))
    report = rows(world, D(2025, 3, 25)).loc["monthly_report:A-1:2025-02"]
    assert report["state"] == "suspended" and co_signatures.MISSING_TEXT in report["reason"]
    state = list_contracts(s, dpc).set_index("code").loc["A-1", "state_pt"]
    assert state == f"vigente — {co_signatures.MISSING_TEXT}"
    good = {"contract_code": "A-1", "signed_on": "05/02/2024", "act": "Termo nº 1/2024-MinC",
            "signatory": "Dra. Helena Ribeiro"}
    for bad, field in (({"contract_code": "B-1"}, "contract_code"), ({"signed_on": "01/01/2024"}, "signed_on"),
                       ({"contract_code": "ZZ-9"}, "contract_code")):
        with pytest.raises(InputError) as err:
            co_signatures.record_co_signature(s, dpc, {**good, **bad})
        assert [p.path for p in err.value.problems] == [field], bad
    with pytest.raises(AccessDenied):
        co_signatures.record_co_signature(s, world.principal("explorer_a"), good)
    co_signatures.record_co_signature(s, dpc, good)
    assert rows(world, D(2025, 3, 25)).loc["monthly_report:A-1:2025-02", "state"] == "overdue"
    assert list_contracts(s, dpc).set_index("code").loc["A-1", "state_pt"] == "vigente"
    with pytest.raises(ConflictError):
        co_signatures.record_co_signature(s, dpc, good)
    assert co_signatures.get_co_signature(s, world.principal("explorer_a"), "A-1")["signed_on"] == D(2024, 2, 5)
    with pytest.raises(NotFound):
        co_signatures.get_co_signature(s, world.principal("explorer_b"), "A-1")


# -- reconsideration and appeal (art. 33; Lei 9.784 arts. 56, 59) ---------------------------------------------------
def _event(world: Any, who: str, kind: str, day: str, ref: str = "cancelamento", code: str = "B-1",
           **extra: Any) -> int:
    """An event recorded by `who`: DPC gives the day it happened; a company dates nothing (the service's day)."""
    dated = {"event_date": day} if who == "dpc" else {}
    return events.record_event(world.store, world.principal(who), {"kind": kind, "contract_code": code,
                                                                   "reference": ref, **dated, **extra})


def test_an_appeal_against_a_cancellation_with_its_deadlines(world):
    """B-1 cancelled 03/03/2025, notified 05/03: 10 days → 15/03 (Saturday) → 17/03/2025. Beta appeals on
    12/03 (in time). Received 14/03: 30 days → 13/04 (Sunday) → 14/04/2025; extended: 60 days → 13/05/2025."""
    s = world.store
    s.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET status = 'cancelado', cancelled_on = DATE '2025-03-03' WHERE code = 'B-1'"))
    assert "cancelamento" in appeals.appealable_decisions(s, world.principal("dpc"), "B-1")["reference"].tolist()
    _event(world, "dpc", v.DECISION_NOTIFIED, "05/03/2025")
    appeal = rows(world, D(2025, 3, 10)).loc["appeal:B-1:cancelamento"]
    assert (appeal["due"], appeal["moved_from"], appeal["state"]) == (D(2025, 3, 17), D(2025, 3, 15), "due_soon")
    assert "art. 33" in appeal["basis"] and "art. 59" in appeal["basis"]
    with pytest.raises(InputError) as err:               # another company's contract: not found, like a missing one
        _event(world, "explorer_a", v.APPEAL_FILED, "12/03/2025")
    assert "Contrato não encontrado" in str(err.value)
    with pytest.raises(AccessDenied):                    # the receipt is the Authority's to record
        _event(world, "explorer_b", v.APPEAL_RECEIVED, "14/03/2025")
    # filed by the company in the product, the day is the service's; here the appeal reached the office on paper on
    # 12/03 and the office records it with that day (the company's own filing is tested beside)
    filed = _event(world, "dpc", v.APPEAL_FILED, "12/03/2025", organisation_id=world.ids["org_b"])
    assert s.scalar("SELECT organisation_id FROM deadline_events WHERE id = ?", [filed]) == world.ids["org_b"]
    mine = rows(world, D(2025, 3, 20), "explorer_b")
    assert mine.loc["appeal:B-1:cancelamento", "state_pt"] == "encerrado"
    assert mine.loc["appeal_decision:B-1:cancelamento", "due"] == D(2025, 4, 11)     # from the filing, 12/03 + 30
    assert "Recebimento dos autos não registrado" in mine.loc["appeal_decision:B-1:cancelamento", "steps"]
    assert not any(k.startswith("appeal") for k in rows(world, D(2025, 3, 20), "explorer_a").index)
    _event(world, "dpc", v.APPEAL_RECEIVED, "14/03/2025")
    assert rows(world, D(2025, 3, 20)).loc["appeal_decision:B-1:cancelamento", "due"] == D(2025, 4, 14)
    _event(world, "dpc", v.APPEAL_EXTENDED, "10/04/2025")
    assert rows(world, D(2025, 4, 20)).loc["appeal_decision:B-1:cancelamento", "due"] == D(2025, 5, 13)
    _event(world, "dpc", v.APPEAL_DECIDED, "02/05/2025")
    assert rows(world, D(2025, 5, 20)).loc["appeal_decision:B-1:cancelamento", "state"] == "met"
    with pytest.raises(InputError) as err:
        _event(world, "dpc", v.DECISION_NOTIFIED, "05/03/2025", ref="rodada:999")
    assert err.value.problems[0].path == "reference"


# -- preference among competing requests (art. 16 §2) -----------------------------------------------------------
def test_competing_requests_are_ranked_surveyor_then_former_owner(world):
    """w4 (Cabo Frio): Alfa surveyed and located it; its owner is the Companhia whose CNPJ is Beta's (the former
    owner); Gama has no preference. Without a notice the preference is still to be claimed (art. 16 §§3–4)."""
    s, w4 = world.store, world.ids["w4"]

    def add(tx: Any) -> None:
        tx.execute("UPDATE wrecks SET owner_id = ? WHERE id = ?", [world.ids["owner1"], w4])
        for code, kind, org, status, requested, signed in (
                ("P-4", "pesquisa", "org_a", "concluído", "2024-01-10", "2024-03-01"),
                ("R-1", "exploração", "org_b", "solicitado", "2025-05-01", None),
                ("R-2", "exploração", "org_a", "solicitado", "2025-05-10", None),
                ("R-3", "remoção", "org_c", "solicitado", "2025-04-20", None)):
            tx.execute("INSERT INTO contracts (code, kind, act, organisation_id, wreck_id, office_code, status, "
                       "requested_on, signed_on) VALUES (?, ?, 'autorização', ?, ?, 'CPRJ', ?, ?, ?)",
                       [code, kind, world.ids[org], w4, status, requested, signed])

    s.write("test", add)
    ranked = preference.preference_ranking(s, world.principal("dpc"), w4)
    assert [(r.place, r.request.contract_code, r.preference) for r in ranked] == [
        (1, "R-2", preference.SURVEYOR), (2, "R-1", preference.FORMER_OWNER), (3, "R-3", preference.NONE)]
    assert "art. 16 §2 I" in ranked[0].basis and "art. 16 §2 II" in ranked[1].basis
    assert "15 dias" in ranked[0].note and "mesmas condições econômicas" in ranked[0].note
    for who in ("explorer_a", "commission", "admin"):
        with pytest.raises(AccessDenied):
            preference.preference_ranking(s, world.principal(who), w4)


# -- the offices' own early-closing dates (Lei 9.784 art. 66 §1) -----------------------------------------------------
def test_an_office_early_closing_moves_a_due_date_and_is_validated(world):
    """B-1's final report: work ended 14/02/2025 + 90 = 15/05/2025; CPRJ closes early that day → 16/05/2025."""
    s, dpc = world.store, world.principal("dpc")
    s.write("test", lambda tx: tx.execute("UPDATE contracts SET work_ended_on = DATE '2025-02-14' WHERE code = 'B-1'"))
    calendars.add_early_closing(s, dpc, {"office_code": "CPRJ", "day": "15/05/2025", "name": "Expediente até 12h"})
    row = rows(world, D(2025, 3, 1)).loc["final_report:B-1"]
    assert (row["due"], row["moved_from"]) == (D(2025, 5, 16), D(2025, 5, 15))
    assert "encerrado antes da hora normal (Expediente até 12h)" in row["steps"]
    for bad in ({"office_code": "CPRJ", "day": "15/05/2025", "name": "De novo"},
                {"office_code": "CPRJ", "day": "21/04/2025", "name": "Tiradentes"}):
        with pytest.raises(InputError):
            calendars.add_early_closing(s, dpc, bad)
    with pytest.raises(AccessDenied):
        calendars.add_early_closing(s, world.principal("explorer_a"), {"office_code": "CPRJ", "day": "16/05/2025",
                                                                        "name": "x"})
    calendars.remove_early_closing(s, dpc, "CPRJ", D(2025, 5, 15))
    assert rows(world, D(2025, 3, 1)).loc["final_report:B-1", "due"] == D(2025, 5, 15)
    closed = calendars.closed_days(s, dpc, "CPRJ", 2025)
    assert set(closed.loc[closed["day"] == D(2025, 12, 24), "kind"]) == {calendars.EARLY}


# -- issue 14 in these folders ------------------------------------------------------------------------------------
CLI = ("import sys, valuation.cli.main as c; spec = 'valuation.cli.deadlines:register_cli'; "
       "c.EXTRA_COMMANDS = tuple(c.EXTRA_COMMANDS) + (() if spec in c.EXTRA_COMMANDS else (spec,)); "
       "sys.exit(c.main(sys.argv[1:]))")


def test_the_digest_refuses_an_as_of_beyond_the_calendars_with_exit_2(world):
    world.store.close()
    for day in ("9999-01-01", "1899-12-31"):
        done = subprocess.run([sys.executable, "-c", CLI, "deadlines", "--db", str(world.path), "--as-of", day],
                              capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr.startswith("--as-of: must be between 1900-01-01 and 2100-12-31") and "Traceback" not in \
            done.stderr


def test_the_engine_refuses_an_as_of_out_of_range_naming_the_field(world):
    with pytest.raises(InputError) as err:
        engine.compute_deadlines(world.store, world.principal("dpc"), as_of=D(9999, 1, 1))
    assert err.value.problems[0].path == "as_of" and err.value.problems[0].message.startswith("Data de referência")


def _same(a: str, b: str) -> bool:
    """Two messages equal once the numbers they quote are blanked."""
    return re.sub(r"[0-9]+", "N", a) == re.sub(r"[0-9]+", "N", b)


def test_an_explorer_records_only_in_its_own_name(world):
    s, explorer = world.store, world.principal("explorer_a")
    data = {"kind": v.MONTHLY_REPORT_DELIVERED, "contract_code": "A-1", "reference": "2025-01"}
    answers = []
    for org in (world.ids["org_b"], 99):
        with pytest.raises(InputError) as err:
            events.record_event(s, explorer, {**data, "organisation_id": org})
        answers.append(str(err.value))
        assert err.value.problems[0].path == "organisation_id"
    assert _same(*answers) and "não encontrada" in answers[0]
    new_id = events.record_event(s, explorer, {**data, "organisation_id": world.ids["org_a"]})
    assert s.scalar("SELECT organisation_id FROM deadline_events WHERE id = ?", [new_id]) == world.ids["org_a"]


def test_another_companys_event_or_company_reads_as_a_missing_one(world):
    s = world.store
    theirs = events.record_event(s, world.principal("dpc"), {
        "kind": v.MONTHLY_REPORT_DELIVERED, "contract_code": "B-1", "event_date": "10/02/2025", "reference": "2025-01"})
    data = {"kind": v.MONTHLY_REPORT_DELIVERED, "contract_code": "A-1", "reference": "2025-01"}
    answers = []
    for old in (theirs, 999_999):
        with pytest.raises(InputError) as err:
            events.record_event(s, world.principal("explorer_a"), {**data, "supersedes": old})
        answers.append(str(err.value))
    assert _same(*answers) and "não encontrado" in answers[0]
    found = []
    for org in (world.ids["org_b"], 99):
        with pytest.raises(NotFound) as err:
            organisations.get_organisation(s, world.principal("explorer_a"), org)
        found.append(str(err.value))
    assert _same(*found) and "não encontrada" in found[0]


@pytest.mark.parametrize("call, field", [
    (lambda w: events.record_event(w.store, w.principal("dpc"), {
        "kind": v.MONTHLY_REPORT_DELIVERED, "contract_code": "A-1", "event_date": "10/02/2025",
        "reference": "２０２５-01"}), "reference"),
    (lambda w: events.record_event(w.store, w.principal("dpc"), {
        "kind": v.MONTHLY_REPORT_DELIVERED, "contract_code": "A-1", "event_date": "１０/02/2025",
        "reference": "2025-01"}), "event_date"),
    (lambda w: calendars.add_local_holiday(w.store, w.principal("dpc"), {
        "office_code": "CPRJ", "day": "١٥/08/2025", "name": "Festa"}), "day"),
    (lambda w: policies.set_policy(w.store, w.principal("dpc"), "final_report_days", "١٢٠", REASON),
     "final_report_days"),
    (lambda w: wrecks.create_wreck(w.store, w.principal("dpc"), {
        "code": "NAU-X", "name": "X", "hull_material": "aço", "casualty_year": "１９９５", "casualty_type": "naufrágio",
        "latitude": "22°54,35' S", "longitude": "43°10,20' W", "datum": "WGS-84", "office_code": "CPRJ",
        "situation": "soçobrada", "depth_m": "１２"}), "casualty_year"),
])
def test_non_ascii_digits_are_refused(world, call, field):
    before = world.store.scalar("SELECT count(*) FROM audit_log")
    with pytest.raises(InputError) as err:
        call(world)
    assert field in [p.path for p in err.value.problems]
    assert world.store.scalar("SELECT count(*) FROM audit_log") == before
