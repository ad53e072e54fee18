"""Notices of minimum antecedence in business days (issue 44, wrong item 4): the tourism notice of NORMAM-10 0307
("com antecedência mínima de 10 dias úteis") and the intimation of Lei 9.784/1999 arts. 26 §2 and 41 ("antecedência
mínima de três dias úteis quanto à data de comparecimento").

The reading (docs/decisions/105-notices-of-minimum-antecedence.md): the notice opens a period in business days
counted as art. 66 counts every period — the notice's day excluded, the last day included — which must be complete
on the event's day; so the latest day to notify is the last business day from which n business days end on or before
the event. A weekday excursion and a weekend one follow the same count: the excursion's day is the period's last day
when it is a business day, and simply no business day when it is not.

Table-driven (name, input, expected, article); each expected day is counted by hand, the count written beside it.
Closed days used: Corpus Christi 19/06/2025 and Carnival 16–17/02/2026 (default policy days), Good Friday
18/04/2025, Tiradentes 21/04/2025, São Jorge 23/04 (RJ only), Christmas and New Year's Day.
"""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from valuation.core.calendar import BusinessCalendar
from valuation.deadlines import rules as dl
from valuation.proceedings import periods as pr

D = date
NAT = BusinessCalendar(None)
RJ = BusinessCalendar("RJ")


def ids(cases):
    return [c[0] for c in cases]


# input: (excursion, calendar); expected: the latest day to notify
TOURISM = [
    # from 05/06: 06, 09, 10, 11, 12, 13, 16, 17, 18, 20 (19 Corpus Christi) = 10 by Friday 20/06 — from 06/06 only 9
    ("Saturday excursion 21/06/2025: 05/06 (from 06/06 only nine business days pass)", (D(2025, 6, 21), NAT),
     D(2025, 6, 5), "NORMAM-10 0307; L9784 art. 66"),
    # from 04/02: 05, 06, 09, 10, 11, 12, 13, 18, 19, 20 (16–17 Carnival) = 10 by Friday 20/02 — from 05/02 only 9
    ("Saturday excursion 21/02/2026: 04/02", (D(2026, 2, 21), NAT), D(2026, 2, 4), "NORMAM-10 0307; L9784 art. 66"),
    # from 04/06: 05, 06, 09, 10, 11, 12, 13, 16, 17, 18 = the 10th is the excursion's own day
    ("Wednesday excursion 18/06/2025: 04/06 (the excursion's day is the period's last)", (D(2025, 6, 18), NAT),
     D(2025, 6, 4), "NORMAM-10 0307; L9784 art. 66"),
    # from 10/04: 11, 14, 15, 16, 17, 22, 23, 24, 25, 28 (18 Good Friday, 21 Tiradentes)
    ("Monday excursion 28/04/2025: 10/04", (D(2025, 4, 28), NAT), D(2025, 4, 10), "NORMAM-10 0307"),
    ("the same in RJ, São Jorge (23/04) skipped too: 09/04", (D(2025, 4, 28), RJ), D(2025, 4, 9), "NORMAM-10 0307"),
    # by Friday 13/06: 13, 12, 11, 10, 09, 06, 05, 04, 03, 02 → the notice on the business day before 02/06: 30/05
    ("Saturday excursion 14/06/2025: 30/05", (D(2025, 6, 14), NAT), D(2025, 5, 30), "NORMAM-10 0307"),
    # excursion on Tiradentes (Monday 21/04/2025, closed): by 17/04: 17, 16, 15, 14, 11, 10, 09, 08, 07, 04 → 03/04
    ("excursion on a holiday (Tiradentes 21/04/2025): 03/04", (D(2025, 4, 21), NAT), D(2025, 4, 3), "NORMAM-10 0307"),
    # from 11/02: 12, 13, 18, 19, 20, 23, 24, 25, 26, 27 (16–17 Carnival)
    ("Friday excursion 27/02/2026 after Carnival: 11/02", (D(2026, 2, 27), NAT), D(2026, 2, 11), "NORMAM-10 0307"),
    # from 24/12: 26, 29, 30, 31, 02, 05, 06, 07, 08, 09 (24 and 31 December count: they have office hours)
    ("Friday excursion 09/01/2026: 24/12/2025, the early-closing days counting", (D(2026, 1, 9), RJ), D(2025, 12, 24),
     "NORMAM-10 0307; L9784 art. 66 §1"),
]


@pytest.mark.parametrize("name, given_, expected, article", TOURISM, ids=ids(TOURISM))
def test_tourism_notice(name, given_, expected, article):
    excursion, cal = given_
    d = dl.tourism_notice(excursion, cal)
    assert (d.due, d.moved_from) == (expected, None)
    assert "NORMAM-10" in d.basis and "0307" in d.basis


def test_the_tourism_steps_list_the_period_forward_from_the_notice():
    d = dl.tourism_notice(D(2025, 6, 21), NAT)
    text = "\n".join(d.steps)
    assert ("Dias úteis do prazo: 1º 06/06/2025, 2º 09/06/2025, 3º 10/06/2025, 4º 11/06/2025, 5º 12/06/2025, "
            "6º 13/06/2025, 7º 16/06/2025, 8º 17/06/2025, 9º 18/06/2025, 10º 20/06/2025") in text
    assert "19/06/2025 (ponto facultativo: Corpus Christi)" in text and "21/06/2025 (sábado)" in text
    assert "Último dia para comunicar: 05/06/2025" in text


# input: (hearing, calendar); expected: the latest day to intimate (three business days)
INTIMATION = [
    # from 17/06: 18, 20, 23 (19 Corpus Christi) — the hearing's day is the 3rd
    ("hearing on Monday 23/06/2025: 17/06", (D(2025, 6, 23), NAT), D(2025, 6, 17), "L9784 arts. 26 §2, 41, 66"),
    # a diligence on board on Saturday 21/06/2025: by Friday 20/06 — 20, 18, 17 → the business day before 17: 16/06
    ("a diligence on Saturday 21/06/2025: 16/06 (as for the tourism notice)", (D(2025, 6, 21), NAT), D(2025, 6, 16),
     "L9784 arts. 26 §2, 41, 66"),
    # from 10/03: 11, 12, 13
    ("hearing on Friday 13/03/2026: 10/03", (D(2026, 3, 13), RJ), D(2026, 3, 10), "L9784 arts. 26 §2, 41"),
]


@pytest.mark.parametrize("name, given_, expected, article", INTIMATION, ids=ids(INTIMATION))
def test_intimation_before_a_hearing(name, given_, expected, article):
    hearing, cal = given_
    d = pr.intimation_due(hearing, cal)
    assert (d.due, d.moved_from) == (expected, None)
    assert "arts. 26 §2 e 41" in d.basis


@settings(max_examples=120, deadline=None)
@given(excursion=st.dates(D(2020, 1, 1), D(2030, 12, 31)), cal=st.sampled_from([NAT, RJ]))
def test_the_period_from_the_notice_ends_on_or_before_the_excursion_and_no_later_notice_would(excursion, cal):
    """Weekday or weekend, the same construction: n business days counted from the notice (its day excluded) end on
    or before the excursion, and from the next business day they would not."""
    d = dl.tourism_notice(excursion, cal)
    assert d.due is not None and cal.is_business_day(d.due)
    assert cal.add_business_days(d.due, 10) <= excursion
    assert cal.add_business_days(cal.add_business_days(d.due, 1), 10) > excursion
    after = [d.due + timedelta(days=i) for i in range(1, (excursion - d.due).days + 1)]
    assert sum(cal.is_business_day(x) for x in after) == 10
