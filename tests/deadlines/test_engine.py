"""The deadline engine over the store (issue 6): states over time, recomputation after events,
role scoping, automatic cancellation, office calendars, domain statuses, the annual wrecks map,
the iCalendar feeds and the daily digest CLI.

Expected dates are worked out by hand from the calendar (written next to each case), not
taken from the code: e.g. the February 2025 monthly report is due on the 10th business day
of March 2025 — 3 and 4 March are Carnival (policy days), so the days counted are 5, 6, 7,
10, 11, 12, 13, 14, 17, 18 → 18/03/2025.
"""
from __future__ import annotations

import io
import json
import subprocess
import sys
from datetime import date
from pathlib import Path

import openpyxl
import pypdf
import pytest

from valuation.core.errors import AccessDenied, InputError, NotFound, StoreError
from valuation.deadlines import calendars, engine, events, frames, wreck_map
from valuation.demo.deadlines import seed_deadline_demo
from valuation.policies import values as policies
from valuation.registry.domain.queries import domain_statuses

ROOT = Path(__file__).resolve().parents[2]
FEB_REPORT_A1 = "monthly_report:A-1:2025-02"     # A-1 is filed at CPBA (Bahia)
FEB_DUE = date(2025, 3, 18)


@pytest.fixture
def world(small_world):
    """small_world with the authorisation dates the engine needs: A-1 (exploração, CPBA) and
    B-1 (remoção for 364 days, so monthly reports are owed: NORMAM-10 0302 b 2, CPRJ)."""
    small_world.store.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET starts_on = DATE '2025-01-06', expires_on = DATE '2026-01-05' "
        "WHERE code IN ('A-1', 'B-1')"))
    return small_world


def deadline(world, key: str, as_of: date, who: str = "dpc") -> dict:
    df = engine.compute_deadlines(world.store, world.principal(who), as_of=as_of)
    rows = df[df["key"] == key]
    assert len(rows) == 1, f"{key} not found once in {df['key'].tolist()}"
    return rows.iloc[0].to_dict()


def deliver(world, code: str, month: str, day: date, who: str = "dpc") -> int:
    """A report delivered on `day` (recorded by DPC with that day), or by a company (dated by the service)."""
    dated = {"event_date": day} if who == "dpc" else {}
    return events.record_event(world.store, world.principal(who), {
        "kind": "relatório_mensal_entregue", "contract_code": code, "reference": month, **dated})


# -- states over time ------------------------------------------------------------------------------
@pytest.mark.parametrize("as_of, delivered, state, late, reason", [
    (date(2025, 2, 20), None, "upcoming", False, "vence em 26 dia(s)"),
    (date(2025, 3, 5), None, "due_soon", False, "vence em 13 dia(s)"),        # policy due_soon_days = 15
    (date(2025, 3, 18), None, "due_soon", False, "vence hoje"),
    (date(2025, 3, 19), None, "overdue", False, "vencido há 1 dia(s)"),
    (date(2025, 3, 19), date(2025, 3, 10), "met", False, "cumprido em 10/03/2025"),
    (date(2025, 3, 25), date(2025, 3, 20), "met", True, "cumprido em 20/03/2025, com atraso de 2 dia(s)"),
    (date(2025, 3, 19), date(2025, 3, 20), "overdue", False, "vencido há 1 dia(s)"),  # delivered after as_of
])
def test_monthly_report_state_over_time(world, as_of, delivered, state, late, reason):
    if delivered is not None:
        deliver(world, "A-1", "2025-02", delivered)
    row = deadline(world, FEB_REPORT_A1, as_of)
    assert row["due"] == FEB_DUE and row["raw_due"] == FEB_DUE and row["moved_from"] is None
    assert (row["state"], row["late"], row["reason"]) == (state, late, reason)
    assert row["met_on"] == (delivered if state == "met" else None)
    assert row["basis"].startswith("NORMAM-10 (ed. 2002) 0301 c")
    assert "03/03/2025 (ponto facultativo: Carnaval)" in row["steps"]
    assert row["office_code"] == "CPBA" and row["uf"] == "BA" and row["naval_district"] == 2


def test_moved_deadline_explains_every_move(world):
    """The 2024 wreck map is due 15/02/2025, a Saturday: moved to Monday 17/02/2025 (art. 66 §1)."""
    row = deadline(world, "wreck_map:CPRJ:2024", date(2025, 2, 1))
    assert (row["raw_due"], row["moved_from"], row["due"]) == (date(2025, 2, 15), date(2025, 2, 15),
                                                               date(2025, 2, 17))
    assert "15/02/2025 é sábado → 16/02/2025 é domingo → 17/02/2025 é dia útil" in row["steps"]


def test_recompute_after_event_correction_void_and_waiver(world):
    dpc, as_of = world.principal("dpc"), date(2025, 3, 25)
    assert deadline(world, FEB_REPORT_A1, as_of)["state"] == "overdue"
    first = deliver(world, "A-1", "2025-02", date(2025, 3, 17))
    assert deadline(world, FEB_REPORT_A1, as_of)["met_on"] == date(2025, 3, 17)
    # a correction supersedes the first row (append-only); the later date now counts
    events.record_event(world.store, dpc, {"kind": "relatório_mensal_entregue", "contract_code": "A-1",
                                           "reference": "2025-02", "event_date": date(2025, 3, 21),
                                           "supersedes": first})
    row = deadline(world, FEB_REPORT_A1, as_of)
    assert (row["met_on"], row["late"]) == (date(2025, 3, 21), True)
    current = events.list_events(world.store, dpc)
    assert not bool(current.set_index("id").loc[first, "current"])
    with pytest.raises(InputError):  # a superseded row cannot be corrected twice
        events.record_event(world.store, dpc, {"kind": "relatório_mensal_entregue", "contract_code": "A-1",
                                               "reference": "2025-02", "event_date": date(2025, 3, 19),
                                               "supersedes": first})
    latest = int(current["id"].max())
    # the correction annulled (issue 42 item 5): the event it corrected counts again; that one annulled, none
    events.annul_event(world.store, dpc, latest, "correção registrada por engano")
    assert (deadline(world, FEB_REPORT_A1, as_of)["met_on"], deadline(world, FEB_REPORT_A1, as_of)["late"]) == \
        (date(2025, 3, 17), False)
    events.annul_event(world.store, dpc, first, "registrado no contrato errado")
    assert deadline(world, FEB_REPORT_A1, as_of)["state"] == "overdue"
    events.waive_deadline(world.store, dpc, FEB_REPORT_A1, "Mar agitado: operações paralisadas em fevereiro")
    row = deadline(world, FEB_REPORT_A1, as_of)
    assert (row["state"], row["reason"]) == ("waived", "Mar agitado: operações paralisadas em fevereiro")
    events.revoke_waiver(world.store, dpc, FEB_REPORT_A1, "dispensa concedida por engano")
    assert deadline(world, FEB_REPORT_A1, as_of)["state"] == "overdue"
    actions = {r["action"] for r in world.store.fetch("SELECT action FROM audit_log")}
    assert {"record_deadline_event", "annul_deadline_event", "waive_deadline", "revoke_deadline_waiver"} <= actions


def test_suspended_contract_suspends_pending_deadlines(world):
    world.store.write("test", lambda tx: tx.execute("UPDATE contracts SET status = 'suspenso' WHERE code = 'A-1'"))
    row = deadline(world, FEB_REPORT_A1, date(2025, 3, 25))
    assert (row["state"], row["reason"]) == ("suspended", "contrato suspenso")


def test_duplicate_and_bad_events_are_refused_with_every_problem(world):
    dpc = world.principal("dpc")
    deliver(world, "A-1", "2025-02", date(2025, 3, 10))
    with pytest.raises(InputError) as dup:
        deliver(world, "A-1", "2025-02", date(2025, 3, 11))
    assert "já registrado em 10/03/2025" in str(dup.value)
    with pytest.raises(InputError) as bad:
        events.record_event(world.store, dpc, {"kind": "relatório_mensal_entregue", "contract_code": "ZZ-9",
                                               "reference": "2025-13", "event_date": "31/02/2025", "extra": 1})
    paths = {p.path for p in bad.value.problems}
    assert {"contract_code", "reference", "event_date", "extra"} <= paths
    with pytest.raises(InputError) as early:  # a month's report cannot be delivered before the month
        deliver(world, "A-1", "2025-04", date(2025, 3, 30))
    assert early.value.problems[0].path == "reference"
    assert world.store.scalar("SELECT count(*) FROM deadline_events") == 1


@pytest.mark.parametrize("event, rule, due, moved_from", [
    # published Fri 28/03/2025 + 15 days = Sat 12/04 → Mon 14/04 (art. 16 §4; art. 66 §1)
    ({"kind": "edital_de_preferência_publicado", "wreck_code": "NAU-1890-02", "event_date": date(2025, 3, 28)},
     "preference_notice", date(2025, 4, 14), date(2025, 4, 12)),
    # recovered 10/03/2025 + 30 days = Wed 09/04 (art. 12 §1)
    ({"kind": "resgate_por_conta_do_responsável", "wreck_code": "NAU-1890-02", "event_date": date(2025, 3, 10)},
     "owner_reclaim", date(2025, 4, 9), None),
])
def test_deadlines_started_by_an_event_and_closed_by_deadline_met(world, event, rule, due, moved_from):
    dpc = world.principal("dpc")
    event_id = events.record_event(world.store, dpc, event)
    key = f"{rule}:e{event_id}"
    row = deadline(world, key, event["event_date"])
    assert (row["due"], row["moved_from"], row["state"]) == (due, moved_from, "upcoming")
    events.record_event(world.store, dpc, {"kind": "prazo_cumprido", "reference": key, "event_date": due})
    closed = deadline(world, key, due)
    assert (closed["state"], closed["late"], closed["reason"]) == ("met", False, f"encerrado em {due:%d/%m/%Y}")
    with pytest.raises(InputError):
        events.record_event(world.store, dpc, {"kind": "prazo_cumprido", "reference": "no_such_rule:x",
                                               "event_date": due})


def test_found_things_unclaimed_and_proceeds(world):
    """A thing collected at CPBA on 01/03/2025: unclaimed after 30 days, 31/03 (art. 29 §2); sold on
    31/08/2025: proceeds held 6 months, to Sun 01/03/2026 (no 31/02: the first day after it, Lei 810/1949 art. 3)
    → Mon 02/03/2026 (art. 29 §3)."""
    store, dpc = world.store, world.principal("dpc")
    store.write("test", lambda tx: tx.execute(
        "INSERT INTO found_things (id, office_code, description, place, collected_on, finder_name, origin, "
        "recorded_by, recorded_at) VALUES (7, 'CPBA', 'Ânfora de barro', 'Praia', DATE '2025-03-01', 'Pescador', "
        "'nacional', 'test', TIMESTAMP '2025-03-01 10:00:00')"))
    assert deadline(world, "found_unclaimed:f7", date(2025, 3, 10))["due"] == date(2025, 3, 31)
    late = deadline(world, "found_unclaimed:f7", date(2025, 4, 5))
    assert late["state"] == "overdue" and "art. 29 §2" in late["reason"]

    def event(kind: str, day: str):
        store.write("test", lambda tx: tx.execute(
            "INSERT INTO found_thing_events (found_id, kind, event_date, recorded_by, recorded_at) "
            f"VALUES (7, ?, DATE '{day}', 'test', TIMESTAMP '{day} 10:00:00')", [kind]))

    event("sold", "2025-08-31")
    settled = deadline(world, "found_unclaimed:f7", date(2025, 9, 5))
    assert (settled["state"], settled["late"], settled["reason"]) == ("met", False, "encerrado em 31/08/2025 (vendida)")
    proceeds = deadline(world, "found_proceeds:f7", date(2025, 9, 5))
    assert (proceeds["due"], proceeds["moved_from"], proceeds["state"]) == (date(2026, 3, 2), date(2026, 3, 1),
                                                                            "upcoming")
    event("proceeds_to_union", "2026-03-03")
    assert deadline(world, "found_proceeds:f7", date(2026, 3, 4))["reason"] == (
        "encerrado em 03/03/2026 (produto recolhido à União)")
    with pytest.raises(InputError) as refused:  # closed on the found-things page, not by deadline_met
        events.record_event(store, dpc, {"kind": "prazo_cumprido", "reference": "found_unclaimed:f7",
                                         "event_date": date(2025, 4, 1)})
    assert refused.value.problems[0].path == "reference"


def test_excursion_notified_late_is_met_late(world):
    """Excursion on Fri 28/03/2025 at CPRJ: the 10th business day back from the 27th is 14/03."""
    events.record_event(world.store, world.principal("dpc"), {
        "kind": "excursão_comunicada", "wreck_code": "NAU-1890-02", "event_date": date(2025, 3, 20),
        "reference": "28/03/2025", "organisation_id": world.ids["org_b"]})
    df = engine.compute_deadlines(world.store, world.principal("explorer_b"), as_of=date(2025, 3, 25))
    row = df[df["rule"] == "tourism_notice"].iloc[0]
    assert (row["due"], row["state"], row["late"]) == (date(2025, 3, 14), "met", True)
    assert "atraso de 6 dia(s)" in row["reason"]
    other = engine.compute_deadlines(world.store, world.principal("explorer_a"), as_of=date(2025, 3, 25))
    assert not (other["rule"] == "tourism_notice").any()


# -- scoping -----------------------------------------------------------------------------------------------
def test_explorer_sees_only_its_own_contracts_deadlines(world):
    as_of = date(2025, 6, 30)
    for who, own, other in (("explorer_a", "A-1", "B-1"), ("explorer_b", "B-1", "A-1")):
        user = world.principal(who)
        df = engine.compute_deadlines(world.store, user, as_of=as_of)
        assert not df.empty and set(df["contract_code"]) == {own}
        assert set(df["organisation_id"]) == {user.organisation_id}
        assert not df["rule"].isin(("wreck_map", "five_year_lapse", *engine.COURT_RULES)).any()
        # asking for the other organisation gives its own deadlines, never the other's
        again = engine.compute_deadlines(world.store, user, as_of=as_of,
                                         organisation_id=world.ids["org_a" if who == "explorer_b" else "org_b"])
        assert other not in set(again["contract_code"])
    dpc = engine.compute_deadlines(world.store, world.principal("dpc"), as_of=as_of)
    assert {"A-1", "B-1"} <= set(dpc["contract_code"].dropna())


@pytest.mark.parametrize("who", ["commission", "commission_president", "admin"])
def test_other_roles_are_refused(world, who):
    user = world.principal(who)
    with pytest.raises(AccessDenied):
        engine.compute_deadlines(world.store, user, as_of=date(2025, 6, 30))
    with pytest.raises(AccessDenied):
        frames.deadlines_ics(world.store, user, as_of=date(2025, 6, 30))
    with pytest.raises(AccessDenied):
        domain_statuses(world.store, user, date(2025, 6, 30))


def test_explorer_records_only_its_own_reports(world):
    explorer = world.principal("explorer_a")
    deliver(world, "A-1", "2025-02", date(2025, 3, 10), who="explorer_a")     # dated by the service: today
    assert deadline(world, FEB_REPORT_A1, world.store.today(), "explorer_a")["state"] == "met"
    with pytest.raises(InputError) as other:
        deliver(world, "B-1", "2025-02", date(2025, 3, 10), who="explorer_a")
    assert other.value.problems[0].path == "contract_code"
    with pytest.raises(AccessDenied):
        events.record_event(world.store, explorer, {"kind": "operações_iniciadas", "contract_code": "A-1",
                                                    "event_date": date(2025, 1, 6)})
    with pytest.raises(AccessDenied):
        events.waive_deadline(world.store, explorer, FEB_REPORT_A1, "quero dispensa")
    b_event = deliver(world, "B-1", "2025-02", date(2025, 3, 10))
    with pytest.raises(AccessDenied):  # a company annuls nothing (issue 42 item 5): it records a correction
        events.annul_event(world.store, explorer, b_event, "não fui eu")


# -- automatic cancellation (NORMAM-10 0305 f) -------------------------------------------------------------
def test_automatic_cancellation_candidates(world):
    dpc, as_of = world.principal("dpc"), date(2025, 4, 20)
    deliver(world, "A-1", "2025-01", date(2025, 2, 10))   # February and March missing
    for month, day in (("2025-01", date(2025, 2, 10)), ("2025-03", date(2025, 4, 10))):
        deliver(world, "B-1", month, day)                   # B-1: only February missing
    cand = frames.cancellation_candidates(world.store, dpc, as_of=as_of)
    # March report due 14/04/2025 (10th business day of April at CPBA) → cancelled from 15/04
    assert cand[["contract_code", "due"]].values.tolist() == [["A-1", date(2025, 4, 15)]]
    assert "NORMAM-10 (ed. 2002) 0305 f" in cand.iloc[0]["steps"]
    deliver(world, "B-1", "2025-04", date(2025, 5, 9))
    later = frames.cancellation_candidates(world.store, dpc, as_of=date(2025, 6, 20))
    assert "B-1" not in set(later["contract_code"])  # one missing month is not two consecutive
    events.waive_deadline(world.store, dpc, "automatic_cancellation:A-1", "Relatórios entregues com justificativa")
    assert frames.cancellation_candidates(world.store, dpc, as_of=as_of).empty


# -- calendars from the database ----------------------------------------------------------------------------
def test_local_holiday_and_policy_days_move_deadlines(world):
    dpc, as_of = world.principal("dpc"), date(2025, 3, 1)
    calendars.add_local_holiday(world.store, dpc, {"office_code": "CPBA", "day": "18/03/2025",
                                                   "name": "Padroeiro municipal"})
    row = deadline(world, FEB_REPORT_A1, as_of)
    assert row["due"] == date(2025, 3, 19) and "18/03/2025 (Padroeiro municipal)" in row["steps"]
    assert deadline(world, "monthly_report:B-1:2025-02", as_of)["due"] == FEB_DUE  # CPRJ is not affected
    calendars.remove_local_holiday(world.store, dpc, "CPBA", date(2025, 3, 18))
    assert deadline(world, FEB_REPORT_A1, as_of)["due"] == FEB_DUE
    # without policy days from 01/02/2025 (the month reported starts then), Carnival is a business day:
    # 3, 4, 5, 6, 7, 10, 11, 12, 13, 14 → 14/03
    policies.set_policy(world.store, dpc, "policy_days", [], "Portaria sem pontos facultativos em 2025",
                        effective_from=date(2025, 2, 1))
    assert deadline(world, FEB_REPORT_A1, as_of)["due"] == date(2025, 3, 14)
    actions = [r["action"] for r in world.store.fetch("SELECT action FROM audit_log ORDER BY id")]
    assert actions[-3:] == ["add_local_holiday", "remove_local_holiday", "set_policy"]


def test_a_change_of_policy_days_never_rewrites_an_earlier_period(world):
    """Issue 15: the calendar is the one in force when the period starts. Removing the pontos
    facultativos from 02/02/2025 leaves the February report (period from 01/02) due on 18/03/2025,
    Carnival (03–04/03) still closed for it; the report of March 2025 (period from 01/03) is counted
    without them."""
    dpc, as_of = world.principal("dpc"), date(2025, 3, 1)
    march_before = deadline(world, "monthly_report:A-1:2025-03", date(2025, 4, 1))["due"]
    policies.set_policy(world.store, dpc, "policy_days", [], "Sem pontos facultativos a partir de 02/02/2025",
                        effective_from=date(2025, 2, 2))
    assert deadline(world, FEB_REPORT_A1, as_of)["due"] == FEB_DUE
    assert "03/03/2025 (ponto facultativo: Carnaval)" in deadline(world, FEB_REPORT_A1, as_of)["steps"]
    # April 2025 at CPBA: 1–4, 7–11, 14 are the first ten business days either way (no policy day in
    # April): the change shows on the calendar, not on this due date
    assert deadline(world, "monthly_report:A-1:2025-03", date(2025, 4, 1))["due"] == march_before


def test_local_holiday_validation(world):
    dpc = world.principal("dpc")
    calendars.add_local_holiday(world.store, dpc, {"office_code": "CPBA", "day": date(2025, 8, 15), "name": "N. Sra."})
    cases = [
        ({"office_code": "CPBA", "day": date(2025, 8, 15), "name": "Outro"}, "day"),       # already there
        ({"office_code": "CPBA", "day": date(2025, 4, 21), "name": "Tiradentes"}, "day"),  # national holiday
        ({"office_code": "XXXX", "day": date(2025, 8, 16), "name": "Festa"}, "office_code"),
        ({"office_code": "CPBA", "day": date(2025, 8, 18), "name": "  "}, "name"),
        ({"office_code": "CPBA", "day": date(1850, 8, 18), "name": "Antigo"}, "day"),
    ]
    for data, path in cases:
        with pytest.raises(InputError) as exc:
            calendars.add_local_holiday(world.store, dpc, data)
        assert [p.path for p in exc.value.problems] == [path], data
    with pytest.raises(AccessDenied):
        calendars.add_local_holiday(world.store, world.principal("explorer"),
                                    {"office_code": "CPBA", "day": date(2025, 9, 1), "name": "Festa"})
    with pytest.raises(NotFound):
        calendars.remove_local_holiday(world.store, dpc, "CPBA", date(2025, 9, 1))
    closed = calendars.closed_days(world.store, world.principal("explorer"), "CPBA", 2025)
    assert closed.set_index("day").loc[date(2025, 8, 15), "kind"] == "local"
    assert closed.set_index("day").loc[date(2025, 7, 2), "reason"] == "Independência da Bahia"


# -- domain status of every wreck --------------------------------------------------------------------------------
def test_domain_statuses_with_ranges_and_suspensions(world):
    store, dpc = world.store, world.principal("dpc")

    def add(tx):
        tx.execute("INSERT INTO wreck_suspensions (wreck_id, ground, starts_on, ends_on, reason) "
                   "VALUES (?, 'II', DATE '1996-01-10', DATE '1996-03-10', 'Remoção determinada')", [world.ids["w3"]])
        tx.execute(
            "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_precision, casualty_type, lat_deg, "
            "lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, situation, owner_licence_requested) "
            "VALUES ('NAU-1966-05', 'Rebocador', 'aço', 1966, 'year', 'naufrágio', 23, 1, 'S', 43, 2, 'W', 'WGS-84', "
            "'CPRJ', 'soçobrada', DATE '1987-06-01')")

    store.write("test", add)
    df = domain_statuses(store, dpc, date(2025, 6, 30)).set_index("code")
    # wooden hull of 1668: art. 32 §1, União from publication; iron hull of 1890: art. 32 caput
    assert (df.loc["NAU-1668-01", "owner"], df.loc["NAU-1668-01", "since"]) == ("union", date(1986, 9, 29))
    assert (df.loc["NAU-1890-02", "owner"], df.loc["NAU-1890-02", "since"]) == ("union", date(1987, 9, 30))
    # 1995 known to the year (SP): 01/01/1995 + 5 years + 61 suspended days = 02/03/2000 (Thursday) → União 03/03/2000;
    # 31/12/1995 + 5 years = 31/12/2000 + 61 days = 02/03/2001 (Friday) → União 03/03/2001
    w3 = df.loc["NAU-1995-03"]
    assert (w3["owner"], w3["since"], w3["since_max"], w3["differs"]) == ("union", date(2000, 3, 3),
                                                                          date(2001, 3, 3), True)
    assert "10/01/1996 a 10/03/1996" in w3["suspensions"] and "Remoção determinada" in w3["suspensions"]
    # 1966 known to the year: before 29/09/1966 a request by 29/09/1987 keeps it private (art. 32 caput);
    # after, the five years run from the law's entry into force (29/09/1986 to 30/09/1991, art. 37), so the
    # request of 01/06/1987 is timely too → private at both bounds (issue 15: never zero days for the owner)
    w5 = df.loc["NAU-1966-05"]
    assert (w5["owner"], w5["since"], w5["lapse_due"]) == ("private", None, date(1991, 9, 30))
    assert w5["differs"] is False and w5["lapse_suspended"] is False
    assert w5["earliest"] == date(1966, 1, 1) and w5["latest"] == date(1966, 12, 31)


def test_court_pending_suspension_counts_only_under_the_policy(world):
    """A stored 'tribunal' suspension (31 days of January 1997) is listed, but extends the lapse only
    when the policy court_pending_suspends_lapse is on (Lei 2.180 art. 20; on by default, here recorded off first)."""
    store, dpc = world.store, world.principal("dpc")
    store.write("test", lambda tx: tx.execute(
        "INSERT INTO wreck_suspensions (wreck_id, ground, starts_on, ends_on, reason) VALUES "
        "(?, 'II', DATE '1996-01-10', DATE '1996-03-10', 'Remoção determinada'), "
        "(?, 'tribunal', DATE '1997-01-01', DATE '1997-01-31', 'Inquérito pendente')",
        [world.ids["w3"], world.ids["w3"]]))
    store.write("test", lambda tx: tx.execute(
        "INSERT INTO policies (key, value_json, set_by, set_at, effective_from) VALUES "
        "('court_pending_suspends_lapse', 'false', 'test', TIMESTAMP '2020-01-01 10:00:00', DATE '1990-01-01')"))
    off = domain_statuses(store, dpc, date(2025, 6, 30)).set_index("code").loc["NAU-1995-03"]
    assert (off["since"], off["since_max"]) == (date(2000, 3, 3), date(2001, 3, 3))
    assert "Inquérito pendente (não considerada" in off["suspensions"]
    store.write("test", lambda tx: tx.execute(
        "INSERT INTO policies (key, value_json, set_by, effective_from) VALUES ('court_pending_suspends_lapse', "
        "'true', 'test', DATE '1990-01-01')"))   # in force on the day asked (a policy applies from its date)
    on = domain_statuses(store, dpc, date(2025, 6, 30)).set_index("code").loc["NAU-1995-03"]
    # + 31 days: 02/04/2000 is a Sunday → 03/04 → União 04/04/2000; 02/04/2001 (Monday) → União 03/04/2001
    assert (on["since"], on["since_max"]) == (date(2000, 4, 4), date(2001, 4, 3))
    assert "não considerada" not in on["suspensions"]


# -- the annual wrecks map (NORMAM-10 0404, Anexo 4-B) ----------------------------------------------------------------
def _pdf_text(data: bytes) -> str:
    assert data.startswith(b"%PDF-")
    return " ".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages)


def _xlsx_cells(data: bytes) -> list[object]:
    sheet = openpyxl.load_workbook(io.BytesIO(data)).active
    return [c for row in sheet.iter_rows(values_only=True) for c in row]


def test_wreck_map_negat_sinistro_and_rows(world):
    dpc = world.principal("dpc")
    empty = wreck_map.wreck_map(world.store, dpc, office="CPRJ", year=1995)
    assert empty.negative and empty.message == "NEGAT SINISTRO BT" and empty.rows.empty
    assert empty.deadline.due == date(1996, 2, 15)  # Thursday
    assert "NEGAT SINISTRO BT" in _pdf_text(wreck_map.wreck_map_pdf(world.store, dpc, office="CPRJ", year=1995))
    assert "NEGAT SINISTRO BT" in _xlsx_cells(wreck_map.wreck_map_xlsx(world.store, dpc, office="CPRJ", year=1995))

    full = wreck_map.wreck_map(world.store, dpc, office="CPSP", year=1995)   # w3 sank in 1995 at CPSP
    assert not full.negative and full.rows["Embarcação"].tolist() == ["Pesqueiro Três Irmãos"]
    row = full.rows.iloc[0]
    assert (row["Latitude"], row["Longitude"], row["Datum"]) == ("24°01,05' S", "46°18,75' W", "WGS-84")
    text = _pdf_text(wreck_map.wreck_map_pdf(world.store, dpc, office="CPSP", year=1995))
    assert "Pesqueiro Três Irmãos" in text and "NEGAT" not in text
    assert "Pesqueiro Três Irmãos" in _xlsx_cells(wreck_map.wreck_map_xlsx(world.store, dpc, office="CPSP", year=1995))
    with pytest.raises(AccessDenied):
        wreck_map.wreck_map(world.store, world.principal("explorer"), office="CPSP", year=1995)
    events.record_event(world.store, dpc, {"kind": "mapa_de_naufrágios_enviado", "office_code": "CPSP",
                                           "reference": "2024", "event_date": date(2025, 2, 12)})
    assert deadline(world, "wreck_map:CPSP:2024", date(2025, 3, 1))["state"] == "met"


# -- iCalendar feeds ----------------------------------------------------------------------------------------------
def _events(ics: bytes) -> dict[str, dict[str, str]]:
    text = ics.decode("utf-8")
    assert text.startswith("BEGIN:VCALENDAR\r\n") and text.endswith("END:VCALENDAR\r\n")
    lines = text.replace("\r\n ", "").split("\r\n")   # unfold (RFC 5545 §3.1)
    found, current = {}, None
    for line in lines:
        if line == "BEGIN:VEVENT":
            current = {}
        elif line == "END:VEVENT":
            found[current["UID"]] = current
            current = None
        elif current is not None and ":" in line:
            name, value = line.split(":", 1)
            current[name] = value
    return found


def test_ics_feed_of_an_explorer_has_its_pending_deadlines_on_their_due_days(world):
    deliver(world, "B-1", "2025-01", date(2025, 2, 12))
    ics = frames.deadlines_ics(world.store, world.principal("explorer_b"), as_of=date(2025, 3, 10))
    feed = _events(ics)
    # January is met (left out); February due 18/03 (Carnival 3–4 March), March due 14/04 (CPRJ);
    # start of operations fixed for 06/01/2025; extension asked by 06/11/2025 (05/01/2026 − 60 days)
    expected = {"monthly_report:B-1:2025-02@valuation": "20250318", "monthly_report:B-1:2025-03@valuation": "20250414",
                "start_of_operations:B-1@valuation": "20250106",
                "extension_request:B-1:2026-01-05@valuation": "20251106"}
    assert {uid: e["DTSTART;VALUE=DATE"] for uid, e in feed.items()} == expected
    assert feed["monthly_report:B-1:2025-02@valuation"]["DTEND;VALUE=DATE"] == "20250319"
    assert "A-1" not in ics.decode("utf-8")
    office = _events(frames.deadlines_ics(world.store, world.principal("dpc"), as_of=date(2025, 3, 10),
                                          office="CPBA"))
    assert "monthly_report:A-1:2025-02@valuation" in office and not any("B-1" in uid for uid in office)


# -- demo seeding ------------------------------------------------------------------------------------------------------
def test_seed_deadline_demo_shows_every_state_and_is_idempotent(world):
    as_of = date(2025, 7, 20)
    first = seed_deadline_demo(world.store, as_of=as_of)
    assert first["events"] > 0
    assert seed_deadline_demo(world.store, as_of=as_of) == {"events": 0}
    states = set(engine.compute_deadlines(world.store, world.principal("dpc"), as_of=as_of)["state"])
    assert {"overdue", "due_soon", "met", "upcoming"} <= states


# -- the daily digest CLI ----------------------------------------------------------------------------------------------
CLI = ("import sys, valuation.cli.main as c; spec = 'valuation.cli.deadlines:register_cli'; "
       "c.EXTRA_COMMANDS = tuple(c.EXTRA_COMMANDS) + (() if spec in c.EXTRA_COMMANDS else (spec,)); "
       "sys.exit(c.main(sys.argv[1:]))")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_digest_cli_json_ics_and_the_lock(world):
    path = str(world.path)
    held = run_cli("deadlines", "--db", path, "--as-of", "2025-03-25")   # this test process holds the file
    assert held.returncode == 3 and held.stdout == ""
    assert "in use by another process" in held.stderr and "Traceback" not in held.stderr
    world.store.close()

    done = run_cli("deadlines", "--db", path, "--as-of", "2025-03-25")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["as_of"] == "2025-03-25" and doc["office"] is None
    assert set(doc["counts"]) == set(engine.STATES) and doc["counts"]["overdue"] >= 2
    assert {d["state"] for d in doc["deadlines"]} <= {"overdue", "due_soon"}
    assert [d["due"] for d in doc["deadlines"]] == sorted(d["due"] for d in doc["deadlines"])
    feb = next(d for d in doc["deadlines"] if d["key"] == FEB_REPORT_A1)
    assert (feb["due"], feb["state"], feb["contract"], feb["office"]) == ("2025-03-18", "overdue", "A-1", "CPBA")
    assert {"key", "rule", "label", "due", "raw_due", "moved_from", "reason", "basis"} <= set(feb)

    office = json.loads(run_cli("deadlines", "--db", path, "--as-of", "2025-03-25", "--office", "CPRJ").stdout)
    assert office["deadlines"] and {d["office"] for d in office["deadlines"]} == {"CPRJ"}
    ics = run_cli("deadlines", "--db", path, "--as-of", "2025-03-25", "--format", "ics")
    assert ics.returncode == 0 and ics.stdout.startswith("BEGIN:VCALENDAR")
    bad = run_cli("deadlines", "--db", path, "--as-of", "25/03/2025")
    assert bad.returncode == 2 and bad.stderr.strip() == "--as-of: must be a date YYYY-MM-DD, got '25/03/2025'"


def test_engine_refuses_a_database_without_its_tables(tmp_path):
    from valuation.db.store import Store

    with Store(tmp_path / "old.duckdb") as store:
        store.write("test", lambda tx: tx.execute("DROP TABLE deadline_waivers; DROP TABLE deadline_events"))
        from valuation.db.access import Principal

        dpc = Principal(1, "dpc", "DPC", "dpc", None, None)
        with pytest.raises(StoreError, match="migration 004"):
            engine.compute_deadlines(store, dpc, as_of=date(2025, 1, 1))
