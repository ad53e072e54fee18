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


# -- 2. at most two appeals: three instances, the authority that decided and two above it (art. 57) -------------
# input: (the appeal's number, filed on time); expected: why it can only be "não conhecido" (the article), or None
ADMISSIBLE = [
    ("the 1st appeal (2nd instance), on time", (1, True), None),
    ("the 2nd appeal (3rd instance), on time", (2, True), None),
    ("a 3rd appeal: the administrative sphere is exhausted", (3, True), "art. 63 IV"),
    ("a 3rd appeal filed late: exhausted all the same", (3, False), "art. 63 IV"),
    ("the 2nd appeal filed late", (2, False), "art. 63 I"),
]


@pytest.mark.parametrize("name, given, article", ADMISSIBLE, ids=ids(ADMISSIBLE))
def test_which_appeals_can_be_known(name, given, article):
    why = ap.not_known_reason(*reversed(given))
    assert (why is None) is (article is None)
    if article is not None:
        assert article in why
        assert ap.outcome_problem("não provido", given[1], given[0]) is not None
        assert ap.outcome_problem("não conhecido", given[1], given[0]) is None


def test_the_appeals_are_named_by_number_and_instance():
    assert [ap.appeal_title(n) for n in (1, 2, 3)] == [
        "1º recurso (2ª instância)", "2º recurso (3ª instância)", "3º recurso (esfera administrativa exaurida)"]


def test_no_period_for_a_third_appeal():
    end = ap.AppealStep("decided", DECIDED, "não provido")
    assert ap.next_filing(NOTIFIED, RJ, 1, end) is not None
    assert ap.next_filing(NOTIFIED, RJ, 2, end) is None


def test_a_third_appeal_is_recorded_and_can_only_be_not_known(small_world: Any) -> None:
    decision = _decision(small_world)
    for filed, forwarded, decided in ((D(2026, 10, 5), D(2026, 10, 6), D(2026, 10, 20)),
                                      (D(2026, 10, 26), D(2026, 10, 27), D(2026, 11, 3))):
        appeal = _appeal(small_world, decision, filed)
        _step(small_world, appeal, "forwarded", forwarded)
        _step(small_world, appeal, "decided", decided, outcome="não provido")
        _notice(small_world, appeal, decided)
    third = _appeal(small_world, decision, D(2026, 11, 9))
    assert small_world.store.fetch_one("SELECT instance, on_time FROM appeals WHERE id = ?", [third]) == {
        "instance": 3, "on_time": True}
    for kind, more in (("forwarded", {}), ("reconsidered", {"outcome": "provido"}),
                       ("decided", {"outcome": "não provido"})):
        with pytest.raises(InputError) as refused:
            _step(small_world, third, kind, D(2026, 11, 10), **more)
        assert "art. 63 IV" in refused.value.problems[0].message, kind
    case = ar.appeals_of(small_world.store, small_world.principal("dpc"), as_of=D(2026, 11, 30))[0]
    assert "art. 63 IV" in case["appeals"][2]["late_pt"]
    assert case["appeals"][2]["stage_pt"].startswith("não cabe: esfera administrativa exaurida")
    rows = requests.authority_deadlines(small_world.store, small_world.principal("dpc"), as_of=D(2026, 11, 10))
    (owed,) = [r for r in rows if r["appeal_id"] == third]
    assert owed["rule"] == "appeal_decision" and "3º recurso" in owed["case_pt"]
    _step(small_world, third, "decided", D(2026, 11, 12), outcome="não conhecido")
    with pytest.raises(InputError) as refused:
        _appeal(small_world, decision, D(2026, 11, 13))
    assert refused.value.problems[0].path == "filed_on"
    assert small_world.store.scalar("SELECT count(*) FROM appeals") == 3


# -- 3. a partial reconsideration forwards the rest to the superior (art. 56 §1) ---------------------------------
PARTIAL = ap.AppealStep("reconsidered", D(2026, 10, 12), "parcialmente provido", "Reduzida a área negada.")
FILED = D(2026, 10, 8)
# input: the steps so far and the step asked; expected: refused (field) or None
PATH = [
    ("after a partial reconsideration the appeal goes on: forwarding allowed", [PARTIAL],
     ap.AppealStep("forwarded", D(2026, 10, 13)), None),
    ("a second reconsideration is not", [PARTIAL], ap.AppealStep("reconsidered", D(2026, 10, 13), "provido"), "kind"),
    ("nor is the superior's decision before the forwarding", [PARTIAL],
     ap.AppealStep("decided", D(2026, 10, 13), "não provido"), "kind"),
    ("a full reconsideration ends it: nothing after", [ap.AppealStep("reconsidered", D(2026, 10, 12), "provido")],
     ap.AppealStep("forwarded", D(2026, 10, 13)), "kind"),
]


@pytest.mark.parametrize("name, steps, asked, refused", PATH, ids=ids(PATH))
def test_what_may_follow_a_reconsideration(name, steps, asked, refused):
    problem = ap.step_problem(asked.kind, asked.day, FILED, True, asked.outcome, None, steps)
    assert (problem[0] if problem else None) == refused


def test_the_partial_reconsideration_neither_ends_the_appeal_nor_meets_the_five_days():
    assert ap.ending([PARTIAL]) is None
    (five,) = ap.appeal_deadlines(FILED, True, [PARTIAL], RJ)
    assert (five.kind, five.deadline.due, five.met_on) == ("appeal_reconsideration", D(2026, 10, 13), None)
    forwarded = [PARTIAL, ap.AppealStep("forwarded", D(2026, 10, 13))]
    got = {d.kind: d for d in ap.appeal_deadlines(FILED, True, forwarded, RJ)}
    assert got["appeal_reconsideration"].met_on == D(2026, 10, 13)
    assert got["appeal_decision"].deadline.due == D(2026, 11, 12)      # 13/10 + 30 (art. 59 §1)
    assert ap.stage(True, [PARTIAL]).startswith("decisão reconsiderada em parte em 12/10/2026; o restante aguarda")


def test_in_the_store_the_rest_goes_to_the_superior(small_world: Any) -> None:
    decision = _decision(small_world)
    appeal = _appeal(small_world, decision, FILED)
    _step(small_world, appeal, "reconsidered", PARTIAL.day, outcome="parcialmente provido", reason=PARTIAL.reason)
    case = ar.appeals_of(small_world.store, small_world.principal("dpc"), as_of=D(2026, 10, 12))[0]
    assert case["state_pt"].startswith("reconsiderada em parte em 12/10/2026; o restante em recurso")
    owed = [r for r in requests.authority_deadlines(small_world.store, small_world.principal("dpc"),
                                                    as_of=D(2026, 10, 12)) if r["appeal_id"] == appeal]
    assert [r["rule"] for r in owed] == ["appeal_reconsideration"]
    _step(small_world, appeal, "forwarded", D(2026, 10, 13))
    _step(small_world, appeal, "decided", D(2026, 11, 10), outcome="não provido")
    case = ar.appeals_of(small_world.store, small_world.principal("dpc"), as_of=D(2026, 11, 30))[0]
    assert case["state_pt"] == "reformada em parte: reconsiderada em parte pela autoridade que decidiu em " \
                               "12/10/2026 (art. 56 §1)"
    assert case["appeals"][0]["stage_pt"] == "decidido em 10/11/2026: não provido"
    reformed = small_world.store.fetch("SELECT after_json FROM audit_log WHERE action = 'decision_reformed_by_appeal'")
    assert len(reformed) == 1 and "parcialmente provido" in reformed[0]["after_json"]
