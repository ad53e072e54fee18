"""The periods of substantive law in months or years (issue 44, wrong item 5): the five years of Lei 7.542 arts. 6–7
and 13 §2 and the six months of art. 29 §3 end, when the final month lacks the day, on the first day after it
(Lei 810/1949 art. 3; Código Civil art. 132 §3) — not on the month's last day, which is Lei 9.784/1999 art. 66 §3's
rule for the periods of the administrative process — and then move to the next business day (CC art. 132 §1).

Table-driven (name, input, expected, article); every expected date is worked out by hand with the calendar written
beside it, not taken from the code. Carnival: 2025 Monday 03/03 and Tuesday 04/03 (Easter 20/04/2025); 2027 Monday
08/02 and Tuesday 09/02 (Easter 28/03/2027) — the default policy days; Ash Wednesday is a business day.
"""
from __future__ import annotations

from datetime import date

import pytest

from valuation.core.calendar import BusinessCalendar
from valuation.deadlines import counting
from valuation.deadlines import rules as dl
from valuation.registry.domain.status import domain_status

D = date
NAT = BusinessCalendar(None)
RJ = BusinessCalendar("RJ")


def ids(cases):
    return [c[0] for c in cases]


# input: (rule, args, calendar); expected: (due, moved_from)
CASES = [
    # 29/02/2020 + 5 years: no 29/02/2025 → 01/03/2025 (Saturday) → Sunday 02/03 → Carnival 03–04/03 → Wednesday 05/03
    ("five years from 29/02/2020 end on 01/03/2025, moved past the weekend and Carnival to 05/03/2025",
     (dl.five_year_lapse, (D(2020, 2, 29), []), NAT), (D(2025, 3, 5), D(2025, 3, 1)),
     "L7542 arts. 6–7; Lei 810/1949 art. 3; CC art. 132 §§1, 3"),
    ("the same in Rio de Janeiro (no state holiday in early March)",
     (dl.five_year_lapse, (D(2020, 2, 29), []), RJ), (D(2025, 3, 5), D(2025, 3, 1)),
     "L7542 arts. 6–7; Lei 810/1949 art. 3"),
    # 29/02/2016 + 5 years: 01/03/2021 (Monday); + 10 suspended days (10–19/06/2017) = 11/03/2021, a Thursday
    ("a suspension's days are added to the first day after the missing 29/02",
     (dl.five_year_lapse, (D(2016, 2, 29), [(D(2017, 6, 10), D(2017, 6, 19))]), NAT), (D(2021, 3, 11), None),
     "L7542 art. 6 sole paragraph; Lei 810/1949 art. 3"),
    ("the cargo's own five years follow the same count (01/03/2025 → 05/03/2025)",
     (dl.cargo_lapse, (D(2020, 2, 29), []), NAT), (D(2025, 3, 5), D(2025, 3, 1)), "L7542 arts. 6–7, 14 II"),
    ("the owner's balance is held until 01/03/2025, moved to 05/03/2025",
     (dl.owner_balance, (D(2020, 2, 29),), NAT), (D(2025, 3, 5), D(2025, 3, 1)),
     "L7542 art. 13 §2; Lei 810/1949 art. 3"),
    # 31/03/2025 + 6 months: no 31/09 → 01/10/2025, a Wednesday: no move (art. 66 §3 would give 30/09)
    ("six months from a sale on 31/03/2025 end on 01/10/2025",
     (dl.found_proceeds, (D(2025, 3, 31),), NAT), (D(2025, 10, 1), None), "L7542 art. 29 §3; CC art. 132 §3"),
    # 31/08/2026 + 6 months: no 31/02/2027 → 01/03/2027, a Monday: no move (the month's last day, a Sunday, would move)
    ("six months from 31/08/2026 end on Monday 01/03/2027, not on Sunday 28/02",
     (dl.found_proceeds, (D(2026, 8, 31),), NAT), (D(2027, 3, 1), None), "L7542 art. 29 §3; CC art. 132 §3"),
    ("a day the month has is not touched: 15/01/2021 + 5 years = 15/01/2026, a Thursday",
     (dl.five_year_lapse, (D(2021, 1, 15), []), NAT), (D(2026, 1, 15), None), "L7542 arts. 6–7"),
]


@pytest.mark.parametrize("name, given, expected, article", CASES, ids=ids(CASES))
def test_substantive_periods_end_on_the_first_day_after_the_missing_one(name, given, expected, article):
    fn, args, cal = given
    d = fn(*args, cal)
    assert (d.due, d.moved_from) == expected
    assert "Lei 810/1949 art. 3" in d.basis and "Código Civil art. 132" in d.basis
    assert "Lei 9.784/1999 art. 66" not in d.basis        # the administrative process's rule is not theirs


def test_the_steps_say_which_rule_ended_the_period():
    d = dl.five_year_lapse(D(2020, 2, 29), [], NAT)
    text = "\n".join(d.steps)
    assert "não há dia 29 em fevereiro/2025: termo no primeiro dia subsequente, 01/03/2025" in text
    assert "Lei 810/1949 art. 3" in text and "Código Civil art. 132 §1" in text
    assert "01/03/2025 é sábado → 02/03/2025 é domingo → 03/03/2025 é ponto facultativo (Carnaval)" in text


def test_the_process_periods_keep_the_months_last_day():
    """Lei 9.784 art. 66 §3: a process period in months ends on the month's last day when it lacks the day."""
    assert counting.add_months(D(2025, 1, 31), 1) == (D(2025, 2, 28), True)
    assert counting.add_months_substantive(D(2025, 1, 31), 1) == (D(2025, 3, 1), True)
    assert counting.add_years_substantive(D(2024, 2, 29), 1) == (D(2025, 3, 1), True)
    assert counting.add_years_substantive(D(2024, 2, 29), 4) == (D(2028, 2, 29), False)


# domain status on the edge of the count: the owner may ask until 05/03/2025; the União acquires on 06/03/2025
DOMAIN = [
    ("04/03/2025 (Carnival): still the owner's", D(2025, 3, 4), ("private", None)),
    ("05/03/2025: the last day to ask, still the owner's", D(2025, 3, 5), ("private", None)),
    ("06/03/2025: the União's since that day", D(2025, 3, 6), ("union", D(2025, 3, 6))),
]


@pytest.mark.parametrize("name, as_of, expected", DOMAIN, ids=ids(DOMAIN))
def test_domain_status_of_a_casualty_on_29_february(name, as_of, expected):
    s = domain_status(as_of, D(2020, 2, 29), "steel", None, None, [], NAT)
    assert (s.owner, s.since) == expected
    assert s.lapse_due == D(2025, 3, 5)
