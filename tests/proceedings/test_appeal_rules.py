"""The path of an appeal (Lei 7.542/1986 art. 33; Lei 9.784/1999 arts. 56–63), re-done by hand from the 2026
calendar: Proclamação da República Sun 15/11, Consciência Negra Fri 20/11, Finados Mon 02/11, Tiradentes Tue
21/04, São Jorge Thu 23/04 (RJ only), Christmas Fri 25/12 with 24/12 closing early (art. 66 §1)."""
from __future__ import annotations

from datetime import date

import pytest

from valuation.core.calendar import BusinessCalendar
from valuation.proceedings import appeals as ap

RJ = BusinessCalendar("RJ")
NAT = BusinessCalendar(None)
D = date

# name, function, start, cal, extra kwargs, expected due, article that must be in the basis
CASES = [
    ("recurso: ciência sex 11/12 + 10 = seg 21/12", ap.filing_deadline, D(2026, 12, 11), RJ, {}, D(2026, 12, 21),
     "art. 59"),
    ("reconsideração: sex 13/11 + 5 = qua 18/11", ap.reconsideration_due, D(2026, 11, 13), RJ, {}, D(2026, 11, 18),
     "art. 56 §1"),
    ("reconsideração: dom 15/11 + 5 = sex 20/11 Consciência Negra → seg 23/11", ap.reconsideration_due,
     D(2026, 11, 15), RJ, {}, D(2026, 11, 23), "art. 56 §1"),
    ("alegações: seg 16/11 + 5 úteis = 17, 18, 19, (20), 23, 24 → ter 24/11", ap.allegations_due, D(2026, 11, 16),
     RJ, {}, D(2026, 11, 24), "art. 62"),
    ("alegações, nacional: sex 17/04 + 5 úteis = 20, (21), 22, 23, 24, 27 → seg 27/04", ap.allegations_due,
     D(2026, 4, 17), NAT, {}, D(2026, 4, 27), "art. 62"),
    ("alegações, RJ: sex 17/04 + 5 úteis = 20, (21), 22, (23 São Jorge), 24, 27, 28 → ter 28/04", ap.allegations_due,
     D(2026, 4, 17), RJ, {}, D(2026, 4, 28), "art. 62"),
    ("alegações: qui 17/12 + 5 úteis = 18, 21, 22, 23, 24 (encerra cedo, art. 66 §1) → seg 28/12",
     ap.allegations_due, D(2026, 12, 17), RJ, {}, D(2026, 12, 28), "art. 62"),
    ("decisão: qui 01/10 + 30 = sáb 31/10, seg 02/11 Finados → ter 03/11", ap.decision_due, D(2026, 10, 1), RJ, {},
     D(2026, 11, 3), "art. 59 §1"),
    ("decisão prorrogada: qui 01/10 + 60 = seg 30/11", ap.decision_due, D(2026, 10, 1), RJ,
     {"extension_reason": "Perícia complementar dos bens"}, D(2026, 11, 30), "art. 59 §2"),
]


@pytest.mark.parametrize(("name", "fn", "start", "cal", "kwargs", "due", "article"), CASES, ids=[c[0] for c in CASES])
def test_each_period_of_the_appeal(name, fn, start, cal, kwargs, due, article):
    d = fn(start, cal, **kwargs)
    assert d.due == due, "\n".join(d.steps)
    assert article in d.basis and "art. 66" in d.basis
    assert d.steps[-1].endswith(due.strftime("%d/%m/%Y"))


def test_business_days_are_listed_with_the_closed_days_passed_over():
    d = ap.allegations_due(D(2026, 11, 16), RJ)
    assert "20/11/2026" in d.steps[2] and "4º 23/11/2026" in d.steps[1]


def test_the_extension_needs_its_reason():
    with pytest.raises(ValueError, match="art. 59 §2"):
        ap.decision_due(D(2026, 10, 1), RJ, extension_reason="  ")
    assert ap.decision_due(D(2026, 10, 1), RJ, extension_reason="Perícia").steps[0] == "Prorrogado: Perícia"


@pytest.mark.parametrize(("filed", "on_time"), [(D(2026, 12, 21), True), (D(2026, 12, 11), True),
                                                (D(2026, 12, 22), False)])
def test_a_late_appeal_is_recorded_and_not_known(filed, on_time):
    a = ap.admissibility(D(2026, 12, 11), filed, RJ)
    assert a.on_time is on_time
    if on_time:
        assert a.reason is None and ap.outcome_problem("provido", True) is None
    else:
        assert "art. 63 I" in (a.reason or "") and "21/12/2026" in (a.reason or "")
        assert ap.outcome_problem("provido", False) is not None
        assert ap.outcome_problem("não conhecido", False) is None


@pytest.mark.parametrize(("instance", "previous", "refused"), [
    (1, None, False), (2, 1, False),
    (3, 2, False),       # recorded, to be declared not known (art. 63 IV: tests/legal/test_appeal_path.py)
    (4, 3, True),        # art. 57: never a fourth appeal
    (2, None, True),     # the second appeal comes after the first
    (1, 1, True),        # one appeal per number
    (3, 3, True),
])
def test_at_most_three_instances(instance, previous, refused):
    why = ap.instance_problem(instance, previous)
    assert (why is not None) is refused
    if instance == 4:
        assert "art. 57" in why and "art. 63 IV" in why


def test_suspensive_effect_only_granted_with_its_reason():
    assert ap.suspensive_problem(False, None) is None
    assert "art. 61" in ap.suspensive_problem(True, "")
    assert ap.suspensive_problem(True, "Remoção destruiria o sítio antes da decisão") is None
    assert ap.suspensive_problem(False, "razão sem concessão") is not None


def test_outcomes_and_their_effects_are_one_vocabulary():
    assert set(ap.OUTCOMES) == set(ap.EFFECTS)
    assert ap.outcome_problem("anulado", True) is not None
    basis = ap.path_basis()
    assert all(a in basis for a in ("art. 56 §1", "art. 57", "art. 59 §1", "art. 61", "art. 62", "art. 33"))
