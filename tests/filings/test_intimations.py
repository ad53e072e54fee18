"""Intimations with ciência (issue 42 item 3), on a real DuckDB file: the office intimates the company; the period the
act opens waits for the ciência — expressa when a representative opens it (Lei 11.419/2006 art. 5 §1), tácita at the
end of the days the rule gives (art. 5 §3, policy `intimation_tacit_days`), the AR's day for paper (Lei 9.784/1999 art.
26 §3) — and then runs from that day (art. 66).

Reproduction (issue 42): the ofício that asked for documents was written elsewhere and its ciência typed back by DPC."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.support.attachments import pdf
from valuation.attachments.records import Upload
from valuation.authenticity import registry
from valuation.core.errors import AccessDenied, InputError, NotFound
from valuation.proceedings import filings, intimations
from valuation.proceedings import requests as rq


def _request(world: Any) -> int:
    return filings.file_electronic(world.store, world.principal("explorer_b"), {
        "kind": "requerimento", "subject": "Pesquisa no Vapor Bahia", "wreck_code": "NAU-1890-02",
        "matter": "pesquisa"}, [Upload("pedido.pdf", pdf())]).request_id


def _intimate(world: Any, request_id: int, **extra: Any) -> intimations.Issued:
    data = {"act": "information_requested", "text": "Apresente as plantas do casco.", "delivery": "sistema", **extra}
    return intimations.issue_intimation(world.store, world.principal("office_rj"), request_id, data)


def _info_steps(world: Any, request_id: int) -> list[tuple[str, Any]]:
    steps = rq.request_history(world.store, world.principal("dpc"), request_id)["steps"]
    return [(s["kind"], s["day"]) for s in steps if s["kind"] == "information_requested"]


def _party_rows(world: Any, request_id: int) -> list[dict[str, Any]]:
    s = world.store
    return [r for r in rq.authority_deadlines(s, world.principal("dpc"), as_of=s.today(), owed_by=None)
            if r["request_id"] == request_id and r["rule"] == "process_information"]


def test_the_period_waits_for_the_ciencia_and_opening_is_the_ciencia_expressa(small_world: Any) -> None:
    s = small_world.store
    request_id = _request(small_world)
    issued = _intimate(small_world, request_id, fixed_day=s.today() + timedelta(days=20))
    answer = registry.lookup(s, issued.code)
    assert answer is not None and answer.kind == "intimation"
    notified = s.fetch("SELECT user_id FROM notices WHERE event_key LIKE 'intimation_issued:%'")
    assert {r["user_id"] for r in notified} == {small_world.ids["exp.beta"]}
    assert _info_steps(small_world, request_id) == [] and _party_rows(small_world, request_id) == []
    row = intimations.intimations_of(s, small_world.principal("explorer_b"))[0]
    tacit = intimations.tacit_day(s.today(), 10)
    assert row["ciencia_pt"] == f"aguardando ciência (tácita em {tacit:%d/%m/%Y})"
    # DPC reading it is no ciência; the representative's first opening is
    intimations.open_intimation(s, small_world.principal("dpc"), issued.intimation_id)
    assert _info_steps(small_world, request_id) == []
    data = intimations.open_intimation(s, small_world.principal("explorer_b"), issued.intimation_id)
    assert registry.same_bytes(s, issued.code, data) is True
    assert _info_steps(small_world, request_id) == [("information_requested", s.today())]
    due = _party_rows(small_world, request_id)[0]["due"]      # the fixed day, moved past a day without office hours
    assert s.today() + timedelta(days=20) <= due <= s.today() + timedelta(days=24) and due.weekday() < 5
    row = intimations.intimations_of(s, small_world.principal("dpc"), request_id)[0]
    assert row["ciencia_pt"] == f"ciência expressa em {s.today():%d/%m/%Y} (Fernanda Braga)"
    intimations.open_intimation(s, small_world.principal("explorer_b"), issued.intimation_id)
    assert s.scalar("SELECT count(*) FROM intimation_ciencias") == 1 and len(_info_steps(small_world, request_id)) == 1
    # another company reads nothing of it
    with pytest.raises(NotFound):
        intimations.open_intimation(s, small_world.principal("explorer_a"), issued.intimation_id)


def test_unopened_the_ciencia_is_tacit_on_the_last_day_of_the_period(small_world: Any) -> None:
    s = small_world.store
    request_id = _request(small_world)
    _intimate(small_world, request_id)
    today = s.today()
    assert intimations.record_tacit(s, today + timedelta(days=9)) == 0
    assert intimations.record_tacit(s, today + timedelta(days=12)) == 1
    assert _info_steps(small_world, request_id) == [("information_requested", today + timedelta(days=10))]
    assert s.scalar("SELECT kind FROM intimation_ciencias") == "tácita"
    assert intimations.record_tacit(s, today + timedelta(days=13)) == 0      # once


def test_a_paper_intimation_counts_from_its_postal_receipt(small_world: Any) -> None:
    s = small_world.store
    request_id = _request(small_world)
    issued = _intimate(small_world, request_id, act="instruction_end_notified", delivery="papel")
    officer = small_world.principal("office_rj")
    with pytest.raises(InputError, match="entre a emissão"):
        intimations.record_ar(s, officer, issued.intimation_id, s.today() - timedelta(days=1))
    intimations.record_ar(s, officer, issued.intimation_id, s.today())
    steps = rq.request_history(s, small_world.principal("dpc"), request_id)["steps"]
    assert ("instruction_end_notified", s.today()) in [(x["kind"], x["day"]) for x in steps]
    with pytest.raises(InputError, match="já foi registrada"):
        intimations.record_ar(s, officer, issued.intimation_id, s.today())
    electronic = _intimate(small_world, request_id)
    with pytest.raises(InputError, match="entregue no sistema"):
        intimations.record_ar(s, officer, electronic.intimation_id, s.today())
    assert intimations.record_tacit(s, s.today() + timedelta(days=30)) == 1     # the electronic one only


def test_bad_intimations_are_refused_by_their_field(small_world: Any) -> None:
    s = small_world.store
    request_id = _request(small_world)
    before = s.scalar("SELECT count(*) FROM audit_log")
    for extra, field in (({"fixed_day": s.today()}, "fixed_day"),
                         ({"act": "instruction_end_notified", "fixed_day": s.today() + timedelta(days=5)}, "fixed_day"),
                         ({"delivery": "pombo"}, "delivery"), ({"text": ""}, "text")):
        with pytest.raises(InputError) as err:
            _intimate(small_world, request_id, **extra)
        assert field in {p.path for p in err.value.problems}, (extra, err.value.problems)
    with pytest.raises(AccessDenied):
        intimations.issue_intimation(s, small_world.principal("explorer_b"), request_id,
                                     {"act": "information_requested", "text": "x", "delivery": "sistema"})
    with pytest.raises(InputError, match="não encontrado"):      # another office's process
        intimations.issue_intimation(s, small_world.principal("office_rj"), 9999,
                                     {"act": "information_requested", "text": "x", "delivery": "sistema"})
    assert s.scalar("SELECT count(*) FROM audit_log") == before


def test_the_days_job_records_the_tacit_ciencias(small_world: Any, tmp_path: Any) -> None:
    from datetime import UTC, datetime

    from valuation.jobs import notices_daily
    from valuation.jobs.settings import JobSettings

    request_id = _request(small_world)
    _intimate(small_world, request_id)
    cfg = JobSettings.from_env(str(small_world.path), {"VALUATION_JOB_RETRY_SECONDS": "0",
                                                       "VALUATION_BACKUP_EVERY": "off",
                                                       "VALUATION_BACKUP_DIR": str(tmp_path / "copias")})
    later = datetime.combine(small_world.store.today() + timedelta(days=11), datetime.min.time(), UTC) \
        + timedelta(hours=12)
    message = notices_daily.run(small_world.store, cfg, now=later)
    assert "1 ciência(s) tácita(s) de intimação registrada(s)." in message
    assert small_world.store.scalar("SELECT kind FROM intimation_ciencias") == "tácita"
