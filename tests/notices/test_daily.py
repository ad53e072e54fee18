"""The day's notices (valuation.jobs.notices_daily): a member still missing values a week after a round opened is
reminded once per round; a company's deadline due soon tells the company's people, the Authority's the office's —
each once per deadline and state, however often the job runs."""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from tests.support.commission import enter, full_panel, item_ids
from valuation.commission.rounds import open_round
from valuation.jobs import notices_daily
from valuation.jobs.digest_mail import authority_rows, digest_rows
from valuation.proceedings import requests


def _kind(world: Any, kind: str) -> list[dict[str, Any]]:
    return world.store.fetch("SELECT u.username, n.event_key, n.title, n.body FROM notices n JOIN users u "
                             "ON u.id = n.user_id WHERE n.kind = ? ORDER BY n.id", [kind])


def test_a_week_after_the_opening_each_member_behind_is_reminded_once(small_world: Any) -> None:
    panel = full_panel(small_world)
    rnd = open_round(small_world.store, panel["pres"], "A-1")
    items = item_ids(small_world)
    for code in items:                        # navy1 has assessed every item; cult1 one of six
        enter(small_world.store, panel["navy1"], rnd.id, items[code], historical=False, amount="10")
    enter(small_world.store, panel["cult1"], rnd.id, items["A1-001"], historical=False, amount="10")
    today = small_world.store.today()
    assert notices_daily.values_missing(small_world.store, today + timedelta(days=6)) == 0   # not a week yet
    assert notices_daily.values_missing(small_world.store, today + timedelta(days=7)) == 5
    reminded = {r["username"]: r for r in _kind(small_world, "values_missing")}
    assert set(reminded) == {m.username for k, m in panel.items() if k != "navy1"}
    assert "em 5 de 6 itens" in reminded["com.culture"]["body"] and "em 6 de 6 itens" in reminded["com.pres"]["body"]
    assert notices_daily.values_missing(small_world.store, today + timedelta(days=9)) == 0   # once per round


def _first_day(rows_of: Any, store: Any, start: date) -> tuple[date, list[dict[str, Any]]]:
    """The first day from `start` (within two years) with a deadline due soon, and those deadlines."""
    for n in range(0, 730, 3):
        day = start + timedelta(days=n)
        near = [r for r in rows_of(store, day) if r["state"] == notices_daily.NEAR]
        if near:
            return day, near
    raise AssertionError("no deadline due soon in two years")


def test_a_companys_deadline_due_soon_tells_its_people_once(small_world: Any) -> None:
    day, near = _first_day(digest_rows, small_world.store, date(2025, 1, 1))
    companies = {int(r["organisation_id"]) for r in near if notices_daily.is_present(r.get("organisation_id"))}
    assert companies, near
    written = notices_daily.deadlines_near(small_world.store, day)
    rows = _kind(small_world, "deadline_near")
    assert written == len(rows) > 0
    explorers = [small_world.principal(k) for k in ("explorer_a", "explorer_b")]
    assert {r["username"] for r in rows} == {e.username for e in explorers if e.organisation_id in companies}
    assert all(r["title"].startswith("Prazo a vencer em ") for r in rows)
    assert notices_daily.deadlines_near(small_world.store, day) == 0


def test_the_authoritys_deadline_due_soon_tells_the_office(small_world: Any) -> None:
    requests.file_request(small_world.store, small_world.principal("dpc"), {
        "wreck_code": "NAU-1890-02", "organisation_id": small_world.ids["org_b"],
        "filed_on": small_world.store.today() - timedelta(days=1), "matter": "pesquisa"})
    day, near = _first_day(authority_rows, small_world.store, small_world.store.today())
    assert {r["office_code"] for r in near} == {"CPRJ"}
    assert notices_daily.authority_deadlines_near(small_world.store, day) > 0
    rows = _kind(small_world, "authority_deadline_near")
    assert {r["username"] for r in rows} == {"om.rio", "dpc.silva"}
    assert notices_daily.authority_deadlines_near(small_world.store, day) == 0


def test_the_days_job_says_what_it_did(small_world: Any, tmp_path: Any) -> None:
    from valuation.jobs import runs
    from valuation.jobs.settings import JobSettings

    cfg = JobSettings.from_env(str(small_world.path), {"VALUATION_JOB_RETRY_SECONDS": "0",
                                                       "VALUATION_BACKUP_EVERY": "off",
                                                       "VALUATION_BACKUP_DIR": str(tmp_path / "copias")})
    assert runs.run_job(small_world.store, "notices_daily", cfg)
    message = runs.recent_runs(small_world.store)[0]["message"]
    written = small_world.store.scalar("SELECT count(*) FROM notices")
    avisos = f"{written} aviso gerado" if written == 1 else f"{written} avisos gerados"
    assert message.startswith(f"{avisos} (0 de avaliações pendentes, ") and "Resumo diário: " in message
