"""The party's 10 days to allege after the instruction (issue 44, wrong item 7): Lei 9.784/1999 art. 44 ("Encerrada a
instrução, o interessado terá o direito de manifestar-se no prazo máximo de dez dias") read with art. 66 caput ("Os
prazos começam a correr a partir da data da cientificação oficial"): they run from the party's ciência that the
instruction ended, recorded as its own step, never from the day it ended.

Worked by hand (RJ calendar, 2026; 1 November 2026 is a Sunday): the instruction ended on Friday 13/11/2026, the party
was notified on Monday 16/11/2026 → 16/11 + 10 = Thursday 26/11/2026 (from the end it would be Monday 23/11). The
decision's 30 days (art. 49) still run from the end: 13/11 + 30 = Sunday 13/12 → Monday 14/12/2026.
"""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError
from valuation.proceedings import periods as pr
from valuation.proceedings import requests

D = date
RJ = BusinessCalendar("RJ")
FILED = D(2026, 9, 1)
ENDED = pr.Step("instruction_ended", D(2026, 11, 13))
NOTIFIED = pr.Step("instruction_end_notified", D(2026, 11, 16))


def _by_kind(steps: list[pr.Step]) -> dict[str, pr.ProcessDeadline]:
    return {d.kind: d for d in pr.request_deadlines(FILED, steps, RJ)}


def ids(cases):
    return [c[0] for c in cases]


# input: the steps; expected: (allegations due or None when not started, met on, decision due)
CASES = [
    ("ended 13/11, notified 16/11: allegations until 26/11 (not 23/11)", [ENDED, NOTIFIED],
     (D(2026, 11, 26), None, D(2026, 12, 14)), "L9784 arts. 44, 66 caput"),
    ("ended 13/11, no ciência recorded: the party's period has not started", [ENDED],
     (None, None, D(2026, 12, 14)), "L9784 art. 66 caput"),
    ("allegations filed on 25/11 meet the period", [ENDED, NOTIFIED, pr.Step("allegations_filed", D(2026, 11, 25))],
     (D(2026, 11, 26), D(2026, 11, 25), D(2026, 12, 14)), "L9784 art. 44"),
    # notified on the day it ended: 13/11 + 10 = Monday 23/11
    ("notified the day it ended: 23/11", [ENDED, pr.Step("instruction_end_notified", D(2026, 11, 13))],
     (D(2026, 11, 23), None, D(2026, 12, 14)), "L9784 arts. 44, 66 caput"),
]


@pytest.mark.parametrize("name, steps, expected, article", CASES, ids=ids(CASES))
def test_allegations_run_from_the_ciencia(name, steps, expected, article):
    got = _by_kind(steps)
    allegations = got.get("process_allegations")
    assert (allegations.deadline.due if allegations else None, allegations.met_on if allegations else None,
            got["process_decision"].deadline.due) == expected
    if allegations is not None:
        assert "art. 44" in allegations.deadline.basis and allegations.owed_by == pr.PARTY
        assert any("ciência do encerramento da instrução" in s for s in allegations.deadline.steps)


STEP_PROBLEMS = [
    ("the ciência before any end of the instruction", [], pr.Step("instruction_end_notified", D(2026, 11, 16)),
     ("kind", "a ciência do encerramento da instrução segue o encerramento")),
    ("the ciência before the day the instruction ended", [ENDED],
     pr.Step("instruction_end_notified", D(2026, 11, 12)), ("day", "anterior ao encerramento da instrução")),
    ("the ciência twice", [ENDED, NOTIFIED], pr.Step("instruction_end_notified", D(2026, 11, 17)),
     ("kind", "a ciência do encerramento da instrução já foi registrada")),
]


@pytest.mark.parametrize("name, steps, step, expected", STEP_PROBLEMS, ids=ids(STEP_PROBLEMS))
def test_the_ciencia_follows_the_end_once(name, steps, step, expected):
    field, why = pr.step_problem(step.kind, step.day, FILED, None, None, steps)
    assert field == expected[0] and expected[1] in why


def _filed(world: Any) -> int:
    dpc = world.principal("dpc")
    request_id = requests.file_request(world.store, dpc, {
        "wreck_code": "NAU-1890-02", "requester_id": world.ids["owner1"], "filed_on": FILED,
        "matter": "remoção", "organisation_id": world.ids["org_b"]})
    requests.record_step(world.store, dpc, request_id, {"kind": "instruction_opened", "day": D(2026, 9, 3)})
    requests.record_step(world.store, dpc, request_id, {"kind": "instruction_ended", "day": ENDED.day})
    return request_id


def _allegations(world: Any) -> list[dict[str, Any]]:
    rows = requests.authority_deadlines(world.store, world.principal("dpc"), as_of=D(2026, 11, 20), owed_by=pr.PARTY)
    return [r for r in rows if r["rule"] == "process_allegations"]


def test_in_the_store_the_period_waits_for_the_ciencia(small_world: Any) -> None:
    request_id = _filed(small_world)
    assert _allegations(small_world) == []
    requests.record_step(small_world.store, small_world.principal("dpc"), request_id,
                         {"kind": "instruction_end_notified", "day": NOTIFIED.day})
    (row,) = _allegations(small_world)
    assert (row["due"], row["state"], row["request_id"]) == (D(2026, 11, 26), "due_soon", request_id)
    history = requests.request_history(small_world.store, small_world.principal("dpc"), request_id)
    assert [s["label"] for s in history["steps"]][-1] == pr.STEP_LABELS["instruction_end_notified"]
    with pytest.raises(InputError) as refused:
        requests.record_step(small_world.store, small_world.principal("dpc"), request_id,
                             {"kind": "instruction_end_notified", "day": D(2026, 11, 17)})
    assert refused.value.problems[0].path == "kind"
