"""Domain status of wrecks (rules.md §1; Lei 7.542 arts. 3, 6, 7, 32)."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from valuation.core.calendar import BusinessCalendar
from valuation.core.casualty import casualty_bounds, is_wooden
from valuation.deadlines.rules import five_year_lapse
from valuation.registry.domain.status import domain_status, domain_status_range

D = date
NAT = BusinessCalendar(None)
AS_OF = D(2025, 6, 30)
PUBLISHED = D(1986, 9, 29)
ART32_UNION = D(1987, 9, 30)


def status(casualty, hull=None, declared=None, requested=None, suspensions=(), as_of=AS_OF, court=None, cal=NAT):
    return domain_status(as_of, casualty, hull, declared, requested, list(suspensions), cal, court_pending=court)


@pytest.mark.parametrize("casualty, hull, owner, since", [
    (D(1712, 5, 2), "wood", "union", PUBLISHED),
    (D(1712, 5, 2), "Madeira", "union", PUBLISHED),
    (D(1712, 5, 2), " WOODEN ", "union", PUBLISHED),
    # centuries XVI–XVIII are 1501–1800
    (D(1500, 12, 31), "wood", "union", ART32_UNION),
    (D(1501, 1, 1), "wood", "union", PUBLISHED),
    (D(1800, 12, 31), "wood", "union", PUBLISHED),
    (D(1801, 1, 1), "wood", "union", ART32_UNION),
    # not wooden: only art. 32 caput
    (D(1712, 5, 2), "steel", "union", ART32_UNION),
    (D(1712, 5, 2), "aço", "union", ART32_UNION),
    (D(1712, 5, 2), None, "union", ART32_UNION),
])
def test_article_32(casualty, hull, owner, since):
    s = status(casualty, hull)
    assert (s.owner, s.since) == (owner, since)
    assert any("art. 32" in b for b in s.basis)


@pytest.mark.parametrize("hull, wooden", [("wood", True), ("madeira", True), ("Wooden", True),
                                          ("steel", False), ("woodstock", False), (None, False)])
def test_is_wooden(hull, wooden):
    assert is_wooden(hull) is wooden


def test_wooden_hull_wins_over_a_timely_request():
    s = status(D(1712, 5, 2), "wood", requested=D(1987, 1, 10))
    assert (s.owner, s.since) == ("union", PUBLISHED)


@pytest.mark.parametrize("casualty, requested, owner, since", [
    (D(1966, 9, 28), None, "union", ART32_UNION),          # more than 20 years before publication
    (D(1950, 1, 1), D(1987, 9, 29), "private", None),      # request on the last day of the year
    (D(1950, 1, 1), D(1987, 9, 30), "union", ART32_UNION), # one day late
    (D(1950, 1, 1), D(2030, 1, 1), "union", ART32_UNION),  # after as_of: not happened yet
])
def test_article_32_caput(casualty, requested, owner, since):
    s = status(casualty, "steel", requested=requested)
    assert (s.owner, s.since) == (owner, since)


def test_article_32_caput_before_the_year_ran_out():
    s = status(D(1950, 1, 1), "steel", as_of=D(1987, 6, 1))
    assert (s.owner, s.since) == ("private", None)
    s = status(D(1712, 5, 2), "wood", as_of=D(1980, 1, 1))
    assert (s.owner, s.since) == ("private", None)


def test_declaration_of_loss():
    s = status(D(2020, 3, 12), declared=D(2021, 5, 4))
    assert (s.owner, s.since) == ("union", D(2021, 5, 4))
    assert any("art. 3" in b for b in s.basis)
    # not yet declared on as_of
    s = status(D(2022, 3, 12), declared=D(2025, 7, 1))
    assert (s.owner, s.since) == ("private", None)
    assert s.lapse_due == D(2027, 3, 12)


@pytest.mark.parametrize("as_of, requested, owner, since", [
    (D(2025, 6, 30), None, "union", D(2024, 3, 13)),
    (D(2024, 3, 12), None, "private", None),           # last day to ask
    (D(2024, 3, 13), None, "union", D(2024, 3, 13)),
    (D(2025, 6, 30), D(2024, 3, 12), "private", None), # asked on the last day
    (D(2025, 6, 30), D(2024, 3, 13), "union", D(2024, 3, 13)),
    (D(2024, 1, 1), D(2024, 2, 1), "private", None),
])
def test_five_year_lapse(as_of, requested, owner, since):
    s = status(D(2019, 3, 12), requested=requested, as_of=as_of)
    assert (s.owner, s.since) == (owner, since)
    assert s.lapse_due == D(2024, 3, 12)


def test_lapse_uses_the_moved_due_date():
    s = status(D(2019, 3, 9))  # 09/03/2024 is a Saturday → last day Monday 11/03
    assert (s.lapse_due, s.since) == (D(2024, 3, 11), D(2024, 3, 12))


def test_lapse_with_merged_suspensions_matches_the_deadline():
    susp = [(D(2020, 1, 1), D(2020, 1, 10)), (D(2020, 1, 5), D(2020, 1, 20)), (D(2020, 1, 21), D(2020, 1, 25))]
    s = status(D(2019, 3, 12), suspensions=susp)
    assert s.lapse_due == five_year_lapse(D(2019, 3, 12), susp, NAT).due == D(2024, 4, 8)
    assert (s.owner, s.since) == ("union", D(2024, 4, 9))


def test_leap_day_casualty():
    """No 29/02/2025: the five years end on 01/03/2025 (Lei 810/1949 art. 3; CC art. 132 §3), a Saturday, moved
    past Carnival (03–04/03) to 05/03; the União's from 06/03/2025."""
    s = status(D(2020, 2, 29))
    assert (s.lapse_due, s.since) == (D(2025, 3, 5), D(2025, 3, 6))


def test_maritime_court_suspension_is_optional():
    casualty = D(2019, 3, 12)
    without = status(casualty, as_of=D(2025, 1, 1))
    assert (without.owner, without.since) == ("union", D(2024, 3, 13))
    court = (D(2019, 3, 20), D(2020, 3, 19))  # 366 days (2020 is a leap year)
    with_court = status(casualty, as_of=D(2025, 1, 1), court=court)
    assert (with_court.owner, with_court.lapse_due) == ("private", D(2025, 3, 13))
    assert any("2.180" in b for b in with_court.basis)
    still = status(casualty, as_of=D(2030, 1, 1), court=(D(2019, 4, 1), None))
    assert (still.owner, still.since, still.lapse_due) == ("private", None, None)
    # a Court case opened after as_of is ignored
    later = status(casualty, as_of=D(2025, 1, 1), court=(D(2026, 1, 1), None))
    assert (later.owner, later.since) == ("union", D(2024, 3, 13))


def test_lapse_of_an_older_casualty_runs_from_the_law():
    """Issue 15.2: the five years a new law creates for past facts run from its entry into force
    (29/09/1986, art. 37): 29/09/1991 is a Sunday → last day 30/09 → União 01/10/1991."""
    s = status(D(1970, 5, 1), "steel")
    assert s.lapse_due == D(1991, 9, 30)
    assert (s.owner, s.since) == ("union", D(1991, 10, 1))
    assert any("art. 37" in b for b in s.basis)


def test_casualty_after_as_of_is_an_error():
    with pytest.raises(ValueError):
        status(D(2026, 1, 1))


def test_steps_explain_in_portuguese():
    s = status(D(2019, 3, 12))
    text = " ".join(s.steps)
    assert "12/03/2019" in text and "Domínio da União desde 13/03/2024" in text


@settings(max_examples=80, deadline=None)
@given(casualty=st.dates(D(1990, 1, 1), D(2030, 12, 31)), after=st.integers(0, 4000))
def test_modern_casualty_passes_the_day_after_the_lapse(casualty, after):
    as_of = casualty + timedelta(days=after)
    s = status(casualty, as_of=as_of)
    due = five_year_lapse(casualty, [], NAT).due
    assert s.lapse_due == due
    if as_of > due:
        assert (s.owner, s.since) == ("union", due + timedelta(days=1))
    else:
        assert (s.owner, s.since) == ("private", None)


@pytest.mark.parametrize("args, bounds", [
    ((1712, None, None, "century"), (D(1701, 1, 1), D(1800, 12, 31))),
    ((1800, None, None, "century"), (D(1701, 1, 1), D(1800, 12, 31))),
    ((1801, None, None, "century"), (D(1801, 1, 1), D(1900, 12, 31))),
    ((1500, None, None, "century"), (D(1401, 1, 1), D(1500, 12, 31))),
    ((1712, None, None, "year"), (D(1712, 1, 1), D(1712, 12, 31))),
    ((2024, 2, None, "month"), (D(2024, 2, 1), D(2024, 2, 29))),
    ((2023, 2, None, "month"), (D(2023, 2, 1), D(2023, 2, 28))),
    ((2023, 2, 14, "day"), (D(2023, 2, 14), D(2023, 2, 14))),
])
def test_casualty_bounds(args, bounds):
    assert casualty_bounds(*args) == bounds


@pytest.mark.parametrize("args", [(1712, None, None, "decade"), (2023, None, None, "month"),
                                  (2023, 2, None, "day"), (2023, 2, 30, "day")])
def test_casualty_bounds_rejects(args):
    with pytest.raises(ValueError):
        casualty_bounds(*args)


def test_range_same_outcome():
    lo, hi = casualty_bounds(1712, precision="century")
    r = domain_status_range(AS_OF, lo, hi, "wood", None, None, [], NAT)
    assert (r.differs, r.owner, r.since_min, r.since_max) == (False, "union", PUBLISHED, PUBLISHED)


def test_range_since_differs_across_1800():
    r = domain_status_range(AS_OF, D(1790, 1, 1), D(1810, 12, 31), "wood", None, None, [], NAT)
    assert r.differs and r.owner == "union"
    assert (r.since_min, r.since_max) == (PUBLISHED, ART32_UNION)
    assert r.earliest.since == PUBLISHED and r.latest.since == ART32_UNION


def test_range_owner_uncertain():
    lo, hi = casualty_bounds(2020, 5, precision="month")
    r = domain_status_range(D(2025, 5, 15), lo, hi, None, None, None, [], NAT)
    # 01/05/2025 holiday → last day 02/05 → União 03/05; 31/05/2025 Saturday → 02/06: still private
    assert (r.earliest.owner, r.latest.owner) == ("union", "private")
    assert r.owner == "uncertain" and r.owners == ("private", "union") and r.differs
    assert (r.since_min, r.since_max) == (D(2025, 5, 3), D(2025, 5, 3))


def test_range_latest_bound_capped_at_as_of():
    r = domain_status_range(D(2025, 5, 15), D(2025, 1, 1), D(2025, 12, 31), None, None, None, [], NAT)
    assert r.latest_casualty == D(2025, 5, 15) and r.owner == "private"
