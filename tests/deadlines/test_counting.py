"""Deadlines of rules.md §7 counted per Lei 9.784/1999 art. 66."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from valuation.core.calendar import BusinessCalendar
from valuation.deadlines import rules as dl

NAT = BusinessCalendar(None)
RJ = BusinessCalendar("RJ")
BA = BusinessCalendar("BA")
PE = BusinessCalendar("PE")
SP = BusinessCalendar("SP")
D = date


@pytest.mark.parametrize("fn, start, cal, due, moved_from", [
    # art. 66: the start day is excluded, the last included
    (dl.final_report, D(2025, 5, 10), RJ, D(2025, 8, 8), None),
    (dl.preference_notice, D(2025, 6, 2), NAT, D(2025, 6, 17), None),
    (dl.owner_reclaim, D(2025, 5, 1), NAT, D(2025, 5, 31) + timedelta(days=2), D(2025, 5, 31)),
    # lands on a Sunday → Monday
    (dl.final_report, D(2025, 5, 12), NAT, D(2025, 8, 11), D(2025, 8, 10)),
    # lands on a Saturday before Carnival → Ash Wednesday
    (dl.court_inquiry_opening, D(2026, 2, 9), NAT, D(2026, 2, 18), D(2026, 2, 14)),
    # Corpus Christi
    (dl.found_unclaimed, D(2025, 5, 20), NAT, D(2025, 6, 20), D(2025, 6, 19)),
    # state holidays: RJ São Jorge, BA 2 de julho, PE data magna
    (dl.preference_notice, D(2025, 4, 8), RJ, D(2025, 4, 24), D(2025, 4, 23)),
    (dl.preference_notice, D(2025, 4, 8), SP, D(2025, 4, 23), None),
    (dl.owner_reclaim, D(2025, 6, 2), BA, D(2025, 7, 3), D(2025, 7, 2)),
    (dl.owner_reclaim, D(2025, 6, 2), RJ, D(2025, 7, 2), None),
    (dl.court_prior_defence, D(2025, 2, 24), PE, D(2025, 3, 7), D(2025, 3, 6)),
    (dl.court_prior_defence, D(2025, 2, 24), NAT, D(2025, 3, 6), None),
    # 20 November: national only from 2024 (Lei 14.759/2023)
    (dl.found_unclaimed, D(2023, 10, 21), NAT, D(2023, 11, 20), None),
    (dl.found_unclaimed, D(2024, 10, 21), NAT, D(2024, 11, 21), D(2024, 11, 20)),
    # Christmas
    (dl.court_inquiry_report, D(2025, 12, 15), NAT, D(2025, 12, 26), D(2025, 12, 25)),
])
def test_periods_in_days(fn, start, cal, due, moved_from):
    d = fn(start, cal)
    assert (d.due, d.moved_from) == (due, moved_from)
    assert d.basis and "Lei 9.784/1999 art. 66" in d.basis
    assert d.steps[-1].endswith(dl.fmt(due))


def test_period_is_calendar_days_from_the_day_after():
    d = dl.final_report(D(2025, 5, 10), NAT)
    assert (d.due - D(2025, 5, 10)).days == 90
    assert any("excluído da contagem" in s for s in d.steps)


def test_local_holiday_moves_the_deadline():
    cal = BusinessCalendar("RJ", [(D(2025, 8, 8), "Padroeira do município")])
    d = dl.final_report(D(2025, 5, 10), cal)
    assert (d.due, d.moved_from) == (D(2025, 8, 11), D(2025, 8, 8))
    assert any("feriado local (Padroeira do município)" in s for s in d.steps)


@pytest.mark.parametrize("start, months, expected, clamped", [
    (D(2025, 1, 31), 1, D(2025, 2, 28), True),
    (D(2024, 1, 31), 1, D(2024, 2, 29), True),
    (D(2025, 3, 31), 1, D(2025, 4, 30), True),
    (D(2025, 1, 15), 1, D(2025, 2, 15), False),
    (D(2025, 12, 31), 2, D(2026, 2, 28), True),
    (D(2024, 2, 29), 60, D(2029, 2, 28), True),
    (D(2024, 2, 29), 48, D(2028, 2, 29), False),
])
def test_add_months_date_to_date(start, months, expected, clamped):
    assert dl.add_months(start, months) == (expected, clamped)


@pytest.mark.parametrize("sold, due, moved_from", [
    # substantive law (Lei 810/1949 art. 3): no 31 February → 01/03/2025 (Saturday) → past Carnival 03–04/03
    (D(2024, 8, 31), D(2025, 3, 5), D(2025, 3, 1)),
    (D(2023, 8, 31), D(2024, 3, 1), None),            # no 31 February 2024 either: Friday 01/03/2024
    (D(2025, 3, 31), D(2025, 10, 1), None),           # no 31 September: the first day after it
    (D(2025, 2, 15), D(2025, 8, 15), None),
    (D(2025, 3, 9), D(2025, 9, 9), None),
    (D(2025, 3, 7), D(2025, 9, 8), D(2025, 9, 7)),    # 7 Sep 2025 is a Sunday and a holiday
])
def test_found_proceeds_six_months(sold, due, moved_from):
    d = dl.found_proceeds(sold, NAT)
    assert (d.due, d.moved_from) == (due, moved_from)


@pytest.mark.parametrize("period, cal, due", [
    (D(2025, 3, 1), RJ, D(2025, 4, 14)),
    (D(2025, 4, 30), NAT, D(2025, 5, 15)),   # 1 May
    (D(2025, 2, 1), NAT, D(2025, 3, 18)),    # Carnival on 3-4 March
    (D(2025, 2, 1), BusinessCalendar(None, policy_days=()), D(2025, 3, 14)),
    (D(2025, 2, 1), BusinessCalendar("RJ", policy_days=()), D(2025, 3, 17)),
    (D(2025, 12, 1), NAT, D(2026, 1, 15)),   # 1 January
])
def test_monthly_report_tenth_business_day(period, cal, due):
    d = dl.monthly_report(period, cal)
    assert d.due == due and d.moved_from is None
    assert "NORMAM" in d.basis


@pytest.mark.parametrize("expires, due, moved_from", [
    (D(2025, 9, 30), D(2025, 8, 1), None),
    (D(2025, 10, 1), D(2025, 8, 1), D(2025, 8, 2)),     # Saturday → back to Friday
    (D(2025, 6, 20), D(2025, 4, 17), D(2025, 4, 21)),   # Tiradentes, weekend, Good Friday
])
def test_extension_request_moves_back(expires, due, moved_from):
    d = dl.extension_request(expires, NAT)
    assert (d.due, d.moved_from) == (due, moved_from)
    assert d.due <= expires - timedelta(days=60)
    assert "0304" in d.basis


@pytest.mark.parametrize("excursion, cal, due", [
    (D(2025, 4, 28), NAT, D(2025, 4, 10)),
    (D(2025, 4, 28), RJ, D(2025, 4, 9)),      # São Jorge also skipped
    # a Saturday excursion: the period from the notice must end by Friday 13/06 (13, 12, 11, 10, 9, 6, 5, 4, 3, 2):
    # the notice on the business day before 02/06 (docs/decisions/105-notices-of-minimum-antecedence.md)
    (D(2025, 6, 14), NAT, D(2025, 5, 30)),
    (D(2026, 2, 27), NAT, D(2026, 2, 11)),    # Carnival skipped
])
def test_tourism_notice_counts_business_days_backwards(excursion, cal, due):
    d = dl.tourism_notice(excursion, cal)
    assert d.due == due and d.moved_from is None
    assert "0307" in d.basis


@settings(max_examples=80, deadline=None)
@given(excursion=st.dates(D(2020, 1, 1), D(2030, 12, 31)))
def test_tourism_notice_leaves_ten_business_days(excursion):
    """Ten business days after the notice (its day excluded, art. 66), the excursion's day included."""
    d = dl.tourism_notice(excursion, RJ)
    assert RJ.is_business_day(d.due)
    span = [d.due + timedelta(days=i) for i in range(1, (excursion - d.due).days + 1)]
    assert sum(RJ.is_business_day(x) for x in span) == 10


@pytest.mark.parametrize("year, due, moved_from", [
    (2025, D(2026, 2, 18), D(2026, 2, 15)),   # Sunday, Carnival Monday and Tuesday
    (2024, D(2025, 2, 17), D(2025, 2, 15)),   # Saturday
    (2026, D(2027, 2, 15), None),
])
def test_wreck_map(year, due, moved_from):
    d = dl.wreck_map(year, RJ)
    assert (d.due, d.moved_from) == (due, moved_from)


def test_wreck_map_steps_explain_every_move():
    steps = " ".join(dl.wreck_map(2025, NAT).steps)
    assert "15/02/2026 é domingo" in steps
    assert "16/02/2026 é ponto facultativo (Carnaval)" in steps
    assert "18/02/2026" in steps


def test_start_of_operations_is_a_fixed_date():
    d = dl.start_of_operations(D(2025, 6, 8), NAT)  # a Sunday: not moved
    assert (d.due, d.moved_from) == (D(2025, 6, 8), None)
    assert "art. 22" in d.basis


def test_court_private_representation_window():
    w = dl.court_private_representation(D(2025, 1, 10), NAT)
    assert (w.start, w.end, w.moved_from) == (D(2025, 7, 10), D(2025, 8, 8), None)
    assert (w.start - D(2025, 1, 10)).days == 181
    w = dl.court_private_representation(D(2025, 1, 12), NAT)  # raw end Sunday 10/08
    assert (w.start, w.end, w.moved_from) == (D(2025, 7, 12), D(2025, 8, 11), D(2025, 8, 10))
    assert "art. 41" in w.basis


@pytest.mark.parametrize("reported, start, end, expected", [
    ([D(2025, 1, 1), D(2025, 2, 1), D(2025, 4, 1)], D(2025, 1, 10), D(2025, 6, 30), D(2025, 7, 15)),
    ([D(2025, 1, 1), D(2025, 2, 1), D(2025, 5, 1)], D(2025, 1, 10), D(2025, 6, 30), D(2025, 5, 16)),
    ([D(2025, 1, 1), D(2025, 2, 1), D(2025, 4, 1), D(2025, 5, 1)], D(2025, 1, 10), D(2025, 6, 30), None),
    ([], D(2025, 1, 10), D(2025, 1, 31), None),
])
def test_automatic_cancellation(reported, start, end, expected):
    d = dl.automatic_cancellation(reported, start, end, NAT)
    assert (d.due if d else None) == expected
    if d:
        assert "0305 f" in d.basis


@pytest.mark.parametrize("intervals, merged", [
    ([], ()),
    ([(D(2020, 1, 1), D(2020, 1, 10)), (D(2020, 1, 5), D(2020, 1, 20))], ((D(2020, 1, 1), D(2020, 1, 20)),)),
    ([(D(2020, 1, 11), D(2020, 1, 12)), (D(2020, 1, 1), D(2020, 1, 10))], ((D(2020, 1, 1), D(2020, 1, 12)),)),
    ([(D(2020, 1, 1), D(2020, 1, 31)), (D(2020, 1, 5), D(2020, 1, 6))], ((D(2020, 1, 1), D(2020, 1, 31)),)),
    ([(D(2020, 1, 1), D(2020, 1, 2)), (D(2020, 1, 4), D(2020, 1, 5))],
     ((D(2020, 1, 1), D(2020, 1, 2)), (D(2020, 1, 4), D(2020, 1, 5)))),
])
def test_merge_intervals(intervals, merged):
    assert dl.merge_intervals(intervals) == merged


def test_merge_intervals_rejects_inverted():
    with pytest.raises(ValueError):
        dl.merge_intervals([(D(2020, 1, 2), D(2020, 1, 1))])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.dates(D(2020, 1, 1), D(2020, 12, 31)), st.integers(0, 40)), max_size=6))
def test_merged_length_is_the_number_of_distinct_days(raw):
    intervals = [(s, s + timedelta(days=n)) for s, n in raw]
    days = {s + timedelta(days=i) for s, e in intervals for i in range((e - s).days + 1)}
    merged = dl.merge_intervals(intervals)
    assert sum(dl.interval_days(s, e) for s, e in merged) == len(days)
    for (_, e1), (s2, _) in zip(merged, merged[1:]):
        assert (s2 - e1).days > 1  # neither overlapping nor adjacent


@pytest.mark.parametrize("casualty, suspensions, due, moved_from", [
    (D(2019, 3, 12), [], D(2024, 3, 12), None),
    # leap day + 5 years: 01/03/2025 (Lei 810/1949 art. 3), a Saturday → past Carnival 03–04/03
    (D(2020, 2, 29), [], D(2025, 3, 5), D(2025, 3, 1)),
    (D(2019, 3, 9), [], D(2024, 3, 11), D(2024, 3, 9)),      # Saturday
    # overlapping and adjacent suspensions: 25 distinct days (a plain sum would give 31)
    (D(2019, 3, 12), [(D(2020, 1, 1), D(2020, 1, 10)), (D(2020, 1, 5), D(2020, 1, 20)),
                      (D(2020, 1, 21), D(2020, 1, 25))], D(2024, 4, 8), D(2024, 4, 6)),
    # a suspension straddling the end of the period: all its 91 days count
    (D(2015, 1, 7), [(D(2019, 12, 1), D(2020, 2, 29))], D(2020, 4, 7), None),
    # a suspension that began after the period ended does not revive it
    (D(2015, 1, 7), [(D(2021, 1, 1), D(2021, 1, 31))], D(2020, 1, 7), None),
    # a later suspension counts once an earlier one has pushed the end past its start
    (D(2015, 1, 7), [(D(2016, 1, 1), D(2016, 1, 31)), (D(2020, 2, 1), D(2020, 2, 5))], D(2020, 2, 12), None),
])
def test_five_year_lapse(casualty, suspensions, due, moved_from):
    d = dl.five_year_lapse(casualty, suspensions, NAT)
    assert (d.due, d.moved_from) == (due, moved_from)
    assert "arts. 6 e 7" in d.basis


def test_five_year_lapse_suspension_from_casualty_day_counts_days_after_it():
    d = dl.five_year_lapse(D(2019, 3, 12), [(D(2019, 3, 12), D(2019, 3, 21))], NAT)
    # 10 days listed, 9 of them inside the period (the casualty day is excluded)
    assert d.due == D(2024, 3, 21)
    assert dl.lapse_count(D(2019, 3, 12), [(D(2019, 3, 12), D(2019, 3, 21))], NAT).suspended_days == 9


@pytest.mark.parametrize("due, as_of, met_on, waived, soon, state", [
    (D(2025, 7, 1), D(2025, 6, 1), None, None, 15, "upcoming"),
    (D(2025, 7, 1), D(2025, 6, 16), None, None, 15, "due_soon"),
    (D(2025, 7, 1), D(2025, 6, 15), None, None, 15, "upcoming"),
    (D(2025, 7, 1), D(2025, 7, 1), None, None, 15, "due_soon"),
    (D(2025, 7, 1), D(2025, 7, 2), None, None, 15, "overdue"),
    (D(2025, 7, 1), D(2025, 7, 2), D(2025, 6, 30), None, 15, "met"),
    (D(2025, 7, 1), D(2025, 6, 20), D(2025, 6, 30), None, 15, "due_soon"),  # met later than as_of
    (D(2025, 7, 1), D(2025, 8, 1), None, "dispensado pela CP", 15, "waived"),
    (D(2025, 7, 1), D(2025, 6, 1), None, None, 30, "due_soon"),
])
def test_deadline_state(due, as_of, met_on, waived, soon, state):
    assert dl.deadline_state(due, as_of, met_on, waived, due_soon_days=soon) == state
    assert state in dl.DEADLINE_STATES


@settings(max_examples=100, deadline=None)
@given(start=st.dates(D(2000, 1, 1), D(2040, 12, 31)),
       fn=st.sampled_from([dl.final_report, dl.preference_notice, dl.owner_reclaim,
                           dl.court_inquiry_opening, dl.found_proceeds]))
def test_forward_deadlines_land_on_the_first_business_day(start, fn):
    """Art. 66 §1: on the first business day with normal hours (24 and 31 December close early)."""
    def full(day):
        return RJ.is_business_day(day) and not RJ.is_early_closing(day)
    d = fn(start, RJ)
    assert full(d.due)
    raw = d.moved_from or d.due
    assert raw > start
    assert all(not full(raw + timedelta(days=i)) for i in range((d.due - raw).days))
    assert (d.moved_from is None) == full(raw)


@pytest.mark.parametrize("fn", [dl.final_report, dl.preference_notice, dl.owner_reclaim, dl.found_unclaimed,
                                dl.court_inquiry_opening, dl.appeal, dl.found_proceeds])
def test_no_forward_deadline_ends_on_an_early_closing_day(fn):
    """Every start day of 2024–2026: a forward due date never falls on 24 or 31 December."""
    for n in range((D(2026, 12, 31) - D(2024, 1, 1)).days):
        due = fn(D(2024, 1, 1) + timedelta(days=n), RJ).due
        assert (due.month, due.day) not in ((12, 24), (12, 31)), (fn.__name__, n)
