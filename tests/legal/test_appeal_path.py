"""The appeal path as Lei 9.784/1999 draws it (issue 44, wrong items 1–3), in the pure rules and in the store.

1. Each appeal's 10 days run from the party's ciência or the official publication of the decision appealed against
   (art. 59: "contado a partir da ciência ou divulgação oficial da decisão recorrida"), an appeal's decision
   included: that decision has its own notification day, recorded on it (`appeal_records.record_appeal_notice`).

Worked by hand on the 2026 calendar of the CPRJ (Consciência Negra Fri 20/11): the first appeal decided on Friday
13/11/2026 and the party notified on Monday 16/11 → 16/11 + 10 = Thursday 26/11 (from the decision's own day it
would be Monday 23/11, and an appeal filed on 25/11 would be late and only "não conhecido").
"""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError
from valuation.proceedings import appeal_records as ar
from valuation.proceedings import appeals as ap
from valuation.proceedings import requests

D = date
RJ = BusinessCalendar("RJ")
DECIDED = D(2026, 11, 13)
NOTIFIED = D(2026, 11, 16)


def ids(cases):
    return [c[0] for c in cases]


# -- 1. the next appeal's 10 days run from the notification of the previous appeal's decision ----------------------
# input: the day the period runs from; expected: the last day to appeal
FILING = [
    ("from the notification of the appeal's decision, Mon 16/11: Thu 26/11", NOTIFIED, D(2026, 11, 26),
     "L9784 art. 59"),
    ("from the decision's own day, Fri 13/11, it would be Mon 23/11", DECIDED, D(2026, 11, 23), "L9784 art. 59"),
]


@pytest.mark.parametrize("name, start, due, article", FILING, ids=ids(FILING))
def test_the_next_appeal_period(name, start, due, article):
    end = ap.AppealStep("decided", DECIDED, "não provido")
    filing = ap.next_filing(start, RJ, 1, end)
    assert filing is not None and filing.deadline.due == due and filing.owed_by == "party"
    assert "art. 59" in filing.deadline.basis


def _decision(world: Any) -> int:
    return ar.record_decision(world.store, world.principal("dpc"), {
        "kind": "preference", "wreck_code": "NAU-1890-02", "organisation_id": world.ids["org_b"],
        "summary": "Preferência reconhecida ao pedido anterior.", "authority": "Capitão dos Portos do RJ",
        "decided_on": D(2026, 9, 30), "notice": "notificação", "notified_on": D(2026, 10, 1)})


def _appeal(world: Any, decision_id: int, filed: date) -> int:
    return ar.file_appeal(world.store, world.principal("dpc"), decision_id,
                          {"filed_on": filed, "appellant": "Empresa Beta", "grounds": "A preferência é nossa."})


def _step(world: Any, appeal_id: int, kind: str, day: date, **more: Any) -> int:
    return ar.record_appeal_step(world.store, world.principal("dpc"), appeal_id, {"kind": kind, "day": day, **more})


def _notice(world: Any, appeal_id: int, day: date, notice: str = "notificação") -> int:
    return ar.record_appeal_notice(world.store, world.principal("dpc"), appeal_id,
                                   {"notice": notice, "notified_on": day})


def _first_decided(world: Any) -> tuple[int, int]:
    decision = _decision(world)
    first = _appeal(world, decision, D(2026, 10, 8))
    _step(world, first, "forwarded", D(2026, 10, 13))
    _step(world, first, "decided", DECIDED, outcome="não provido")
    return decision, first


def _filing_rows(world: Any, as_of: date) -> list[dict[str, Any]]:
    rows = requests.authority_deadlines(world.store, world.principal("dpc"), as_of=as_of, owed_by=None)
    return [r for r in rows if r["rule"] == "appeal_filing"]


def test_the_second_appeal_runs_from_the_notification_of_the_first_ones_decision(small_world: Any) -> None:
    decision, first = _first_decided(small_world)
    assert _filing_rows(small_world, D(2026, 11, 20)) == []     # not notified yet: the period has not started
    _notice(small_world, first, NOTIFIED)
    (row,) = _filing_rows(small_world, D(2026, 11, 20))
    assert (row["due"], row["owed_by"], row["decision_id"]) == (D(2026, 11, 26), "party", decision)
    second = _appeal(small_world, decision, D(2026, 11, 25))
    assert small_world.store.fetch_one("SELECT on_time, instance FROM appeals WHERE id = ?", [second]) == {
        "on_time": True, "instance": 2}
    case = ar.appeals_of(small_world.store, small_world.principal("dpc"), as_of=D(2026, 11, 30))[0]
    assert case["appeals"][0]["notice_pt"] == "ciência da decisão: notificação em 16/11/2026"
    audit = small_world.store.fetch("SELECT action FROM audit_log WHERE entity = 'appeal' AND entity_id = ?",
                                    [str(first)])
    assert "record_appeal_notice" in [a["action"] for a in audit]


def test_a_filing_before_the_notification_is_recorded_is_on_time(small_world: Any) -> None:
    """Art. 26 §5: the party's appearance supplies a missing intimation — its appeal cannot be late."""
    decision, _ = _first_decided(small_world)
    second = _appeal(small_world, decision, D(2026, 12, 2))
    assert small_world.store.fetch_one("SELECT on_time FROM appeals WHERE id = ?", [second])["on_time"] is True


NOTICE_PROBLEMS = [
    ("before the appeal's decision", D(2026, 11, 12), "notified_on", "anterior à decisão do recurso"),
    ("in the future", D(2099, 1, 1), "notified_on", "não pode estar no futuro"),
]


@pytest.mark.parametrize("name, day, field, why", NOTICE_PROBLEMS, ids=ids(NOTICE_PROBLEMS))
def test_a_notice_is_checked_naming_the_field(small_world: Any, name, day, field, why) -> None:
    _, first = _first_decided(small_world)
    with pytest.raises(InputError) as refused:
        _notice(small_world, first, day)
    assert refused.value.problems[0].path == field and why in refused.value.problems[0].message
    assert small_world.store.scalar("SELECT count(*) FROM appeal_notices") == 0


def test_a_notice_needs_a_decided_appeal_and_is_recorded_once(small_world: Any) -> None:
    decision = _decision(small_world)
    running = _appeal(small_world, decision, D(2026, 10, 8))
    with pytest.raises(InputError) as refused:
        _notice(small_world, running, D(2026, 10, 20))
    assert refused.value.problems[0].path == "notified_on" and "ainda não foi decidido" in \
        refused.value.problems[0].message
    _step(small_world, running, "forwarded", D(2026, 10, 13))
    _step(small_world, running, "decided", DECIDED, outcome="não provido")
    _notice(small_world, running, NOTIFIED)
    with pytest.raises(InputError) as refused:
        _notice(small_world, running, D(2026, 11, 17), "publicação")
    assert "já está registrada" in refused.value.problems[0].message
