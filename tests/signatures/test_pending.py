"""A missing signature is a deadline (issue 27 §2): the due date, table-driven and worked out by hand (Lei 9.784/1999
arts. 24 and 66), and the rows it adds to Prazos' "O que a Autoridade deve" (`proceedings.requests.
authority_deadlines`, which the digest and the feed read) for minutes issued by the product on a real DuckDB file."""
from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.support.commission import run_round
from tests.support.pki import TestPki, sign
from valuation.accounts import users
from valuation.commission import minutes
from valuation.core import clock, law
from valuation.core.calendar import BusinessCalendar
from valuation.deadlines.calendars import office_calendars
from valuation.policies.defaults import DEFAULT_BY_KEY
from valuation.proceedings.requests import authority_deadlines
from valuation.signatures import pending, records

NAT = BusinessCalendar(None)
ART24 = "Lei 9.784/1999 art. 24 (atos sem prazo específico: 5 dias)"

# (name, issued on, days, due worked out by hand)
CASES = [
    ("five days land on a Saturday: moved to Monday", date(2026, 3, 2), 5, date(2026, 3, 9)),
    ("five days land on a Monday", date(2026, 3, 4), 5, date(2026, 3, 9)),
    ("due on Tiradentes (21/04, national holiday): the next day", date(2026, 4, 16), 5, date(2026, 4, 22)),
    ("issued on a Saturday, counted from Sunday", date(2026, 3, 7), 5, date(2026, 3, 12)),
    ("a revised policy of 3 days", date(2026, 3, 2), 3, date(2026, 3, 5)),
    ("due on 24/12 (early closing), 25/12 holiday, weekend: Monday 28/12", date(2026, 12, 19), 5,
     date(2026, 12, 28)),
]


@pytest.mark.parametrize(("name", "issued", "days", "due"), CASES, ids=[c[0] for c in CASES])
def test_the_signature_is_due_days_after_the_issue(name: str, issued: date, days: int, due: date) -> None:
    deadline = pending.signature_due(issued, NAT, law.LegalValue(days, ART24))
    assert deadline.due == due, name
    assert "Lei 9.784/1999 art. 24" in deadline.basis and "art. 66" in deadline.basis


def test_the_default_is_the_five_days_of_article_24() -> None:
    spec = DEFAULT_BY_KEY["signature_days"]
    assert spec.value == 5 and spec.dated and "Lei 9.784/1999 art. 24" in spec.basis


@pytest.fixture
def issued(small_world: Any, pki: TestPki, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.delenv("VALUATION_TRUST_DIR", raising=False)
    panel, round_id = run_round(small_world)
    users.set_cpf(small_world.store, small_world.principal("admin"), panel["pres"].id, pki.person("ana").cpf)
    pki.install(Path(small_world.path).resolve().parent / "trust")
    data = minutes.round_minutes_pdf(small_world.store, panel["pres"], round_id)
    code = small_world.store.scalar("SELECT code FROM issued_documents WHERE kind = 'minutes' AND record_id = ? "
                                    "ORDER BY id DESC LIMIT 1", [round_id])
    return {"panel": panel, "round_id": round_id, "pdf": data, "code": code, "world": small_world}


def _rows(world: Any, as_of: date) -> list[dict[str, Any]]:
    return [r for r in authority_deadlines(world.store, world.principal("dpc"), as_of=as_of)
            if r["rule"] == pending.RULE]


def test_unsigned_minutes_are_owed_by_the_authority_from_their_first_issue(issued: dict[str, Any],
                                                                           pki: TestPki) -> None:
    world, store = issued["world"], issued["world"].store
    issued_on = clock.brasilia(store.scalar("SELECT min(issued_at) FROM issued_documents WHERE kind = 'minutes'")
                               ).date()
    rows = _rows(world, issued_on)
    assert len(rows) == 1
    row = rows[0]
    office = row["office_code"]
    expected = pending.signature_due(issued_on, office_calendars(store, [office], on=issued_on)[office],
                                     law.LegalValue(5, ART24)).due
    assert row["due"] == expected and row["owed_by"] == "authority" and row["owed_by_pt"] == "Autoridade Naval"
    assert row["case_pt"].startswith("ata da rodada nº 1 (código ") and "assinado por 0 de 6" in row["label"]
    assert row["request_id"] is None and row["appeal_id"] is None and row["decision_id"] is None
    assert any("falta:" in s for s in row["steps"])
    assert _rows(world, issued_on + timedelta(days=60))[0]["state"] == "overdue"
    # a second download issues the minutes again: the period still runs from the first issue
    minutes.round_minutes_pdf(store, issued["panel"]["pres"], issued["round_id"])
    assert [r["due"] for r in _rows(world, issued_on + timedelta(days=1))] == [expected]
    # the president signs the first issue: the row counts the best-signed issue
    done = records.record_signed_upload(store, issued["panel"]["pres"], issued["code"],
                                        sign(issued["pdf"], pki.person("ana")))
    assert done.valid, done.verification.reasons
    assert "assinado por 1 de 6" in _rows(world, issued_on + timedelta(days=1))[0]["label"]


def test_the_feed_names_each_unsigned_act_by_its_record(issued: dict[str, Any]) -> None:
    from valuation.proceedings.feeds import authority_events

    world = issued["world"]
    as_of = clock.brasilia(world.store.scalar("SELECT min(issued_at) FROM issued_documents")).date()
    events = authority_events(world.store, world.principal("dpc"), as_of, None)
    uids = [e.uid for e in events]
    assert f"{pending.RULE}:ata-rodada-{issued['round_id']}@valuation" in uids
    assert len(uids) == len(set(uids))


def test_an_explorer_is_owed_no_signature_row(issued: dict[str, Any]) -> None:
    world = issued["world"]
    assert pending.deadline_rows(world.store, world.principal("explorer_a"), as_of=date(2030, 1, 1)) == []
    assert pending.deadline_rows(world.store, world.principal("dpc"), as_of=date(2030, 1, 1), owed_by="party") == []


def test_minutes_issued_late_in_the_evening_count_from_that_day_in_brasilia(issued: dict[str, Any]) -> None:
    """23:30 in Brasília is 02:30 UTC the next day: the act is owed from the day it was issued in Brasília
    (the suite failed when it ran between 21:00 and 24:00 in Brasília)."""
    world, store = issued["world"], issued["world"].store
    with store.transaction("test") as tx:
        tx.execute("UPDATE issued_documents SET issued_at = TIMESTAMP '2026-03-10 02:30:00' WHERE kind = 'minutes'")
    rows = _rows(world, date(2026, 3, 9))
    assert len(rows) == 1
    cal = office_calendars(store, [rows[0]["office_code"]], on=date(2026, 3, 9))[rows[0]["office_code"]]
    assert rows[0]["due"] == pending.signature_due(date(2026, 3, 9), cal, law.LegalValue(5, ART24)).due
    assert _rows(world, date(2026, 3, 8)) == []
