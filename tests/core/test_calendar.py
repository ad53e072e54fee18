"""Business days of an office: weekends, national/state/local holidays, policy days."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from valuation.core.calendar import BusinessCalendar

NAT = BusinessCalendar(None)
RJ = BusinessCalendar("RJ")


@pytest.mark.parametrize("state, day, business, reason", [
    (None, date(2025, 6, 7), False, "sábado"),
    (None, date(2025, 6, 8), False, "domingo"),
    (None, date(2025, 6, 9), True, None),
    (None, date(2025, 4, 21), False, "Tiradentes"),
    (None, date(2025, 4, 18), False, "Sexta-feira Santa"),
    (None, date(2025, 12, 25), False, "Natal"),
    (None, date(2025, 1, 1), False, "Confraternização Universal"),
    # Carnival (Easter − 48/−47) and Corpus Christi (Easter + 60) are policy days
    (None, date(2026, 2, 16), False, "ponto facultativo: Carnaval"),
    (None, date(2026, 2, 17), False, "ponto facultativo: Carnaval"),
    (None, date(2026, 2, 18), True, None),  # Ash Wednesday: offices open at 14h
    (None, date(2025, 3, 3), False, "ponto facultativo: Carnaval"),
    (None, date(2025, 6, 19), False, "ponto facultativo: Corpus Christi"),
    (None, date(2026, 6, 4), False, "ponto facultativo: Corpus Christi"),
    # state holidays
    ("RJ", date(2025, 4, 23), False, "São Jorge"),
    ("SP", date(2025, 4, 23), True, None),
    (None, date(2025, 4, 23), True, None),
    ("BA", date(2025, 7, 2), False, "Independência da Bahia"),
    ("RJ", date(2025, 7, 2), True, None),
    ("PE", date(2025, 3, 6), False, "Revolução Pernambucana de 1817"),
    ("SP", date(2025, 7, 9), False, "Revolução Constitucionalista"),
    ("rj", date(2025, 4, 23), False, "São Jorge"),
    # Carnival Tuesday is a state holiday in RJ (Lei estadual 5.243/2008)
    ("RJ", date(2026, 2, 17), False, "Carnaval"),
])
def test_closed_days_and_reasons(state, day, business, reason):
    cal = BusinessCalendar(state)
    assert cal.is_business_day(day) is business
    assert cal.reason_closed(day) == reason


@pytest.mark.parametrize("state, day, business", [
    (None, date(2023, 11, 20), True),   # not national before Lei 14.759/2023
    ("RJ", date(2023, 11, 20), False),  # but a state holiday in RJ until 2023
    ("SP", date(2023, 11, 20), True),
    (None, date(2024, 11, 20), False),  # national from 2024 on
    ("SP", date(2025, 11, 20), False),
    (None, date(2025, 11, 20), False),
])
def test_black_awareness_day_national_from_2024(state, day, business):
    assert BusinessCalendar(state).is_business_day(day) is business


def test_20_november_name_is_national_from_2024():
    assert "Consciência Negra" in NAT.reason_closed(date(2024, 11, 20))


def test_policy_days_are_a_parameter():
    none = BusinessCalendar(None, policy_days=())
    assert none.is_business_day(date(2026, 2, 16))
    assert none.is_business_day(date(2025, 6, 19))
    # in RJ Carnival Tuesday stays closed as a state holiday, Monday opens
    rj = BusinessCalendar("RJ", policy_days=())
    assert rj.is_business_day(date(2026, 2, 16))
    assert not rj.is_business_day(date(2026, 2, 17))
    ash = BusinessCalendar(None, policy_days=("ash_wednesday",))
    assert ash.reason_closed(date(2026, 2, 18)) == "ponto facultativo: Quarta-feira de Cinzas"
    assert ash.is_business_day(date(2026, 2, 16))


def test_local_holidays_dates_and_named():
    cal = BusinessCalendar("RJ", local_holidays=[date(2025, 1, 20), (date(2025, 11, 21), "Aniversário do município")])
    assert cal.reason_closed(date(2025, 1, 20)) == "feriado local"
    assert cal.reason_closed(date(2025, 11, 21)) == "Aniversário do município"
    assert "feriado local (Aniversário do município)" in cal.describe(date(2025, 11, 21))
    assert RJ.is_business_day(date(2025, 11, 21))  # other offices are not affected


@pytest.mark.parametrize("bad", ["XX", "São Paulo Capital", "BR", "R J"])
def test_unknown_state_rejected(bad):
    with pytest.raises(ValueError):
        BusinessCalendar(bad)


def test_unknown_policy_day_rejected():
    with pytest.raises(ValueError):
        BusinessCalendar(None, policy_days=("good_friday",))


@pytest.mark.parametrize("cal, start, nxt, prev", [
    (NAT, date(2026, 2, 14), date(2026, 2, 18), date(2026, 2, 13)),
    (NAT, date(2026, 2, 18), date(2026, 2, 18), date(2026, 2, 18)),
    (NAT, date(2025, 4, 18), date(2025, 4, 22), date(2025, 4, 17)),
    (RJ, date(2025, 4, 19), date(2025, 4, 22), date(2025, 4, 17)),
    (RJ, date(2025, 4, 23), date(2025, 4, 24), date(2025, 4, 22)),
])
def test_next_and_previous_business_day(cal, start, nxt, prev):
    assert cal.next_business_day(start) == nxt
    assert cal.previous_business_day(start) == prev


@pytest.mark.parametrize("cal, start, n, expected", [
    (NAT, date(2025, 4, 17), 1, date(2025, 4, 22)),   # Good Friday, weekend, Tiradentes
    (RJ, date(2025, 4, 17), 2, date(2025, 4, 24)),    # … and São Jorge
    (NAT, date(2025, 4, 22), -1, date(2025, 4, 17)),
    (NAT, date(2025, 6, 6), 5, date(2025, 6, 13)),
    (NAT, date(2025, 6, 6), 0, date(2025, 6, 6)),
    (NAT, date(2025, 6, 7), 1, date(2025, 6, 9)),     # from a Saturday
])
def test_add_business_days(cal, start, n, expected):
    assert cal.add_business_days(start, n) == expected


@settings(max_examples=150, deadline=None)
@given(d=st.dates(date(2020, 1, 1), date(2030, 12, 31)), n=st.integers(-40, 40),
       state=st.sampled_from([None, "RJ", "BA", "PE", "SP"]))
def test_add_business_days_counts_exactly_n_business_days(d, n, state):
    cal = BusinessCalendar(state)
    out = cal.add_business_days(d, n)
    if n == 0:
        assert out == d
        return
    assert cal.is_business_day(out)
    lo, hi = (d, out) if n > 0 else (out, d)
    # business days strictly after lo up to hi (n > 0), or from lo up to strictly before hi (n < 0)
    days = [lo + timedelta(days=i) for i in range(1, (hi - lo).days + 1)] if n > 0 else \
           [lo + timedelta(days=i) for i in range(0, (hi - lo).days)]
    assert sum(cal.is_business_day(x) for x in days) == abs(n)


def test_nth_business_day_of_month():
    assert RJ.nth_business_day_of_month(2025, 4, 1) == date(2025, 4, 1)
    assert RJ.nth_business_day_of_month(2025, 4, 10) == date(2025, 4, 14)
    # March 2025 opens with Carnival Monday and Tuesday
    assert NAT.nth_business_day_of_month(2025, 3, 1) == date(2025, 3, 5)
    with pytest.raises(ValueError):
        NAT.nth_business_day_of_month(2025, 3, 25)
    with pytest.raises(ValueError):
        NAT.nth_business_day_of_month(2025, 3, 0)


def test_closed_days_page():
    days = dict(NAT.closed_days(2025))
    # 2025 starts on a Wednesday: 104 weekend days; weekday closures: 1/1, Carnival ×2,
    # Good Friday, Tiradentes, 1/5, Corpus Christi, 20/11, 25/12
    assert len(days) == 113
    assert days[date(2025, 11, 15)] == "Proclamação da República"  # a Saturday holiday keeps its name
    assert days[date(2025, 3, 4)] == "ponto facultativo: Carnaval"
    assert date(2025, 3, 5) not in days
    rj = dict(RJ.closed_days(2025))
    assert rj[date(2025, 4, 23)] == "São Jorge"
    assert list(rj) == sorted(rj)


def test_years_outside_the_library_range():
    # after 2100 the same national rules apply
    assert NAT.reason_closed(date(2105, 12, 25)) == "Natal"
    # before 1890 (no holiday law) only weekends and policy days close
    for day in (date(1712, 12, 25), date(1712, 12, 26), date(1712, 9, 7), date(1712, 5, 2)):
        assert NAT.is_business_day(day) is (day.weekday() < 5)
    # Easter 1712 was 27 March: Carnival Monday 8 February
    assert NAT.reason_closed(date(1712, 2, 8)) == "ponto facultativo: Carnaval"
