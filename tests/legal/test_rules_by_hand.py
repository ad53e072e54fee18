"""Issue 15, first half — the rules of the law, table-driven: (name, input, expected, article).

Every expected value is worked out by hand from the law and the calendar (the reasoning is
in the case's name or the comment beside it), not taken from the code.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from valuation.commission.panel import (
    BODY_FULL,
    NOT_A_BODY,
    PRESIDENT_NOT_NAVY,
    QUORUM_HIGH,
    QUORUM_LOW,
    SECOND_PRESIDENT,
    Seat,
    composition_breaches,
)
from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError
from valuation.deadlines import rules as dl
from valuation.inventory.reclaim import reclaim, reclaim_price
from valuation.partition.rules import ContractTerms, PartitionItem, partition
from valuation.registry.domain.status import domain_status

D = date
NAT = BusinessCalendar(None)
RJ = BusinessCalendar("RJ")
AS_OF = D(2025, 6, 30)
PUBLISHED = D(1986, 9, 29)


def ids(cases):
    return [c[0] for c in cases]


# -- 1–3. Domain status: the earliest event; the five years from 1986; open suspensions ------------------
# input: (casualty, hull, declared, requested, suspensions); expected: (owner, since, lapse_due, lapse_suspended)
DOMAIN_CASES = [
    ("lapse before a later declaration: the declaration changes nothing (issue example)",
     (D(2015, 1, 10), "steel", D(2022, 3, 1), None, []), ("union", D(2020, 1, 11), D(2020, 1, 10), False),
     "L7542 arts. 3 I, 6, 7"),
    ("declaration before the lapse ends: União from the declaration",
     (D(2015, 1, 10), "steel", D(2018, 3, 1), None, []), ("union", D(2018, 3, 1), D(2020, 1, 10), False),
     "L7542 art. 3 I"),
    ("declaration after a timely licence request: União from the declaration",
     (D(2015, 1, 10), "steel", D(2022, 3, 1), D(2019, 5, 2), []), ("union", D(2022, 3, 1), D(2020, 1, 10), False),
     "L7542 arts. 3 I, 4"),
    ("art. 32 caput casualty declared lost before 30/09/1987: the declaration is earlier",
     (D(1950, 1, 1), "steel", D(1987, 3, 2), None, []), ("union", D(1987, 3, 2), D(1987, 9, 29), False),
     "L7542 arts. 3 I, 32 caput"),
    ("wooden hull of 1712 declared lost in 1990: art. 32 §1 already gave it in 1986",
     (D(1712, 5, 2), "wood", D(1990, 1, 5), None, []), ("union", PUBLISHED, None, False), "L7542 art. 32 §1"),
    # 1970 + the five years from 29/09/1986: 29/09/1991 is a Sunday → 30/09 → União 01/10/1991
    ("casualty of 1970: five years from the law's entry into force, not zero days",
     (D(1970, 5, 1), "steel", None, None, []), ("union", D(1991, 10, 1), D(1991, 9, 30), False), "L7542 arts. 6, 37"),
    ("casualty of 29/09/1966 (exactly 20 years: not art. 32): five years from 29/09/1986",
     (D(1966, 9, 29), "steel", None, None, []), ("union", D(1991, 10, 1), D(1991, 9, 30), False),
     "L7542 arts. 6, 32, 37"),
    ("casualty of 28/09/1986: the same start", (D(1986, 9, 28), "other", None, None, []),
     ("union", D(1991, 10, 1), D(1991, 9, 30), False), "L7542 arts. 6, 37"),
    ("casualty of 30/09/1986 counts from itself: 30/09/1991 is a Monday",
     (D(1986, 9, 30), "steel", None, None, []), ("union", D(1991, 10, 1), D(1991, 9, 30), False), "L7542 art. 6"),
    ("casualty of 1970, licence requested in 1990: timely under the five years from 1986",
     (D(1970, 5, 1), "steel", None, D(1990, 6, 1), []), ("private", None, D(1991, 9, 30), False),
     "L7542 arts. 4, 6, 37"),
    ("casualty of 1970 declared lost in 1980: the União acquires under the law from 29/09/1986",
     (D(1970, 5, 1), "steel", D(1980, 2, 1), None, []), ("union", PUBLISHED, D(1991, 9, 30), False),
     "L7542 arts. 3 I, 37"),
    ("suspension still running: the clock is stopped, no due date, the owner keeps it",
     (D(2015, 1, 10), "steel", None, None, [(D(2019, 6, 1), None)]), ("private", None, None, True),
     "L7542 art. 6 sole paragraph I–II"),
    ("open suspension that began after the lapse ended cannot revive it",
     (D(2015, 1, 10), "steel", None, None, [(D(2021, 1, 1), None)]), ("union", D(2020, 1, 11), D(2020, 1, 10), False),
     "L7542 arts. 6, 7"),
    ("open suspension and a declaration: the declaration still gives it to the União",
     (D(2015, 1, 10), "steel", D(2023, 4, 3), None, [(D(2019, 6, 1), None)]), ("union", D(2023, 4, 3), None, True),
     "L7542 art. 3 I"),
    ("a closed suspension then an open one merged with it", (D(2015, 1, 10), "steel", None, None,
                                                             [(D(2019, 6, 1), D(2019, 6, 30)), (D(2019, 6, 20), None)]),
     ("private", None, None, True), "L7542 art. 6 sole paragraph"),
]


@pytest.mark.parametrize("name, given, expected, article", DOMAIN_CASES, ids=ids(DOMAIN_CASES))
def test_domain_status(name, given, expected, article):
    casualty, hull, declared, requested, suspensions = given
    s = domain_status(AS_OF, casualty, hull, declared, requested, suspensions, NAT)
    assert (s.owner, s.since, s.lapse_due, s.lapse_suspended) == expected
    assert s.basis and s.steps


def test_domain_status_says_why_a_later_event_changes_nothing():
    s = domain_status(AS_OF, D(2015, 1, 10), "steel", D(2022, 3, 1), None, [], NAT)
    assert any("posterior à incorporação, não a altera" in x for x in s.steps)
    assert any("prevalece o evento mais antigo" in b for b in s.basis)


# -- 4, 10. Deadlines: early closing (L9784 art. 66 §1), appeals, owner's balance, the lapse -------------------
# input: (rule, args, calendar); expected: (due, moved_from)
EARLY_DEC = BusinessCalendar("RJ", early_closing=[D(2025, 4, 14), (D(2025, 8, 8), "Padroeira: expediente até 12h")])
DEADLINE_CASES = [
    ("90 days ending on 24/12 (Wednesday, offices close at 14h) → 25 is Christmas → 26/12",
     (dl.final_report, (D(2025, 9, 25),), RJ), (D(2025, 12, 26), D(2025, 12, 24)), "L9784 art. 66 §1"),
    ("30 days ending on 31/12/2025 (Wednesday, early closing) → 01/01 holiday → 02/01/2026",
     (dl.owner_reclaim, (D(2025, 12, 1),), RJ), (D(2026, 1, 2), D(2025, 12, 31)), "L7542 art. 12 §1; L9784 art. 66 §1"),
    ("the office's own early-closing date moves a forward deadline (08/08/2025 → Monday 11/08)",
     (dl.final_report, (D(2025, 5, 10),), EARLY_DEC), (D(2025, 8, 11), D(2025, 8, 8)), "L9784 art. 66 §1"),
    ("the 10th business day of April 2025 (14/04) closes early: the report is due 15/04",
     (dl.monthly_report, (D(2025, 3, 1),), EARLY_DEC), (D(2025, 4, 15), D(2025, 4, 14)), "NORMAM 0301 c; L9784 art. "
                                                                                         "66 §1"),
    ("minimum-notice rule: 60 days before 22/02/2026 is 24/12/2025, a business day: it stays",
     (dl.extension_request, (D(2026, 2, 22),), RJ), (D(2025, 12, 24), None), "NORMAM 0304"),
    # counting back from 08/01/2026: 8, 7, 6, 5, 2 Jan, 31, 30, 29, 26, 24 Dec (1 Jan and 25 Dec closed)
    ("tourism notice counts 24/12 and 31/12 as business days, never moves",
     (dl.tourism_notice, (D(2026, 1, 9),), RJ), (D(2025, 12, 24), None), "NORMAM 0307"),
    ("appeal: 10 days from notification; 21/04 is Tiradentes → 22/04",
     (dl.appeal, (D(2025, 4, 11),), RJ), (D(2025, 4, 22), D(2025, 4, 21)), "L7542 art. 33; L9784 art. 59"),
    ("appeal: 10 days ending on 24/12 → 26/12", (dl.appeal, (D(2025, 12, 14),), NAT),
     (D(2025, 12, 26), D(2025, 12, 24)), "L9784 arts. 59, 66 §1"),
    ("decision on an appeal: 30 days from receipt", (dl.appeal_decision, (D(2025, 3, 10), False), RJ),
     (D(2025, 4, 9), None), "L9784 art. 59 §1"),
    ("decision on an appeal, extended: 60 days; 09/05/2025 is a Friday",
     (dl.appeal_decision, (D(2025, 3, 10), True), RJ),
     (D(2025, 5, 9), None), "L9784 art. 59 §§1–2"),
    ("owner's balance: casualty + 5 years date to date (09/03/2024 Saturday → 11/03)",
     (dl.owner_balance, (D(2019, 3, 9),), RJ), (D(2024, 3, 11), D(2024, 3, 9)), "L7542 art. 13 §2"),
    ("owner's balance of a casualty of 1970: five years from 29/09/1986", (dl.owner_balance, (D(1970, 1, 1),), NAT),
     (D(1991, 9, 30), D(1991, 9, 29)), "L7542 arts. 13 §2, 37"),
    ("five-year lapse of a casualty of 1975: from 29/09/1986", (dl.five_year_lapse, (D(1975, 1, 1), []), NAT),
     (D(1991, 9, 30), D(1991, 9, 29)), "L7542 arts. 6, 37"),
    ("five-year lapse: a suspension wholly before 30/09/1986 does not count",
     (dl.five_year_lapse, (D(1975, 1, 1), [(D(1980, 1, 1), D(1980, 12, 31))]), NAT),
     (D(1991, 9, 30), D(1991, 9, 29)), "L7542 arts. 6 sole paragraph, 37"),
    # 10 suspended days after 29/09/1986: 29/09/1991 + 10 = 09/10/1991 (Wednesday)
    ("five-year lapse: a suspension straddling 29/09/1986 counts from 30/09/1986",
     (dl.five_year_lapse, (D(1975, 1, 1), [(D(1986, 9, 1), D(1986, 10, 9))]), NAT), (D(1991, 10, 9), None),
     "L7542 arts. 6 sole paragraph, 37"),
    ("five-year lapse with a suspension still running: no due date",
     (dl.five_year_lapse, (D(2015, 1, 10), [(D(2016, 1, 1), None)]), NAT), (None, None), "L7542 art. 6 sole paragraph"),
]


@pytest.mark.parametrize("name, given, expected, article", DEADLINE_CASES, ids=ids(DEADLINE_CASES))
def test_deadline_rules(name, given, expected, article):
    fn, args, cal = given
    d = fn(*args, cal)
    assert (d.due, d.moved_from) == expected
    assert d.basis and d.steps


def test_early_closing_is_a_business_day_but_not_a_due_day():
    assert RJ.is_business_day(D(2025, 12, 24)) and RJ.is_early_closing(D(2025, 12, 24))
    assert RJ.next_business_day(D(2025, 12, 24)) == D(2025, 12, 24)
    assert RJ.next_full_business_day(D(2025, 12, 24)) == D(2025, 12, 26)
    assert RJ.add_business_days(D(2025, 12, 23), 1) == D(2025, 12, 24)          # it counts
    assert RJ.is_early_closing(D(2027, 12, 31)) is True                           # Friday 31/12/2027
    assert not RJ.is_early_closing(D(2025, 12, 23))
    assert not RJ.is_early_closing(D(2022, 12, 24))                               # Saturday: simply closed
    # a policy day (ponto facultativo) is not an early closing: the office does not open at all
    closed = BusinessCalendar("RJ", policy_days=("christmas_eve",))
    assert not closed.is_business_day(D(2025, 12, 24)) and not closed.is_early_closing(D(2025, 12, 24))
    assert closed.add_business_days(D(2025, 12, 23), 1) == D(2025, 12, 26)
    # without the year-end early closings (a later policy may switch them off)
    plain = BusinessCalendar("RJ", year_end_early_closing=False)
    assert plain.next_full_business_day(D(2025, 12, 24)) == D(2025, 12, 24)
    assert "encerrado antes da hora normal" in RJ.describe(D(2025, 12, 24))


def test_early_closing_explained_in_the_steps():
    d = dl.final_report(D(2025, 9, 25), RJ)
    assert any("24/12/2025 tem expediente encerrado antes da hora normal (véspera de Natal)" in s for s in d.steps)


# -- 10. The owner's reclaim (art. 12 §§1–2) ----------------------------------------------------------------
# input: (invoice, insured, market, expenses, paid); expected: (value, basis, shortfall, price)
RECLAIM_CASES = [
    ("market value is the greatest; 4000 − 0 − 1500 still missing", ("1000.00", None, "1500.00", "4000.00", "0.00"),
     ("1500.00", "market", "2500.00", "4000.00"), "L7542 art. 12 §1"),
    ("insurance is the greatest", ("1000.00", "2000.00", "1500.00", "1000.00", "0.00"),
     ("2000.00", "insurance", "0.00", "2000.00"), "L7542 art. 12 §1"),
    ("tie between invoice and market: invoice (first of the order)", ("1500.00", None, "1500.00", "1500.00", "0.00"),
     ("1500.00", "invoice", "0.00", "1500.00"), "L7542 art. 12 §1"),
    ("expenses partly paid: only what is missing", ("800.00", "900.00", "700.00", "3000.00", "1500.00"),
     ("900.00", "insurance", "600.00", "1500.00"), "L7542 art. 12 §1"),
    # more paid than the expenses is inconsistent input since issue 25 (cli.md;
    # tests/legal/test_lapse_suspension_and_reclaim_corrections)
    ("expenses paid in full: nothing missing, never negative", (None, None, "500.00", "900.00", "900.00"),
     ("500.00", "market", "0.00", "500.00"), "L7542 art. 12 §1"),
]


@pytest.mark.parametrize("name, given, expected, article", RECLAIM_CASES, ids=ids(RECLAIM_CASES))
def test_reclaim_price(name, given, expected, article):
    p = reclaim_price(*(None if v is None else Decimal(v) for v in given))
    assert (str(p.value), p.value_basis, str(p.expenses_shortfall), str(p.price)) == expected


def test_reclaim_deadline_is_the_owner_reclaim_period():
    r = reclaim(D(2025, 12, 1), RJ, None, None, Decimal("10.00"), Decimal("0.00"), Decimal("0.00"))
    assert (r.deadline.due, r.deadline.moved_from) == (D(2026, 1, 2), D(2025, 12, 31))
    assert any("art. 12 §1" in b for b in r.basis) and any("art. 12 §2" in b for b in r.basis)


# -- 6. Panel composition (NORMAM-10 0303 c 1 I) --------------------------------------------------------------
N, C = "navy", "culture"
PANEL_CASES = [
    ("3 navy (one president) + 3 culture, quorum 4", ([Seat(N, True), Seat(N), Seat(N), Seat(C), Seat(C), Seat(C)], 4),
     [], "NORMAM 0303 c 1 I"),
    ("a smaller panel (absences) may still sit", ([Seat(N, True), Seat(C)], 2), [], "NORMAM 0303 c 1 I"),
    ("four navy members", ([Seat(N, True), Seat(N), Seat(N), Seat(N), Seat(C)], None), [(BODY_FULL, 3)],
     "NORMAM 0303 c 1 I (three by the DPHCM)"),
    ("four culture members", ([Seat(N, True), Seat(C), Seat(C), Seat(C), Seat(C)], None), [(BODY_FULL, 4)],
     "NORMAM 0303 c 1 I (three by the Ministry of Culture)"),
    ("a culture president", ([Seat(N), Seat(C, True)], None), [(PRESIDENT_NOT_NAVY, 1)],
     "NORMAM 0303 c 1 I (presidência de membro da MB)"),
    ("two presidents", ([Seat(N, True), Seat(N, True)], None), [(SECOND_PRESIDENT, 1)], "NORMAM 0303 c 1 I"),
    ("a member without a body", ([Seat(N, True), Seat(None)], None), [(NOT_A_BODY, 1)], "NORMAM 0303 c 1 I"),
    ("quorum 0", ([Seat(N, True), Seat(C)], 0), [(QUORUM_LOW, None)], "L2180 art. 71 by analogy"),
    ("quorum above the members", ([Seat(N, True), Seat(C)], 3), [(QUORUM_HIGH, None)], "L2180 art. 71 by analogy"),
]


@pytest.mark.parametrize("name, given, expected, article", PANEL_CASES, ids=ids(PANEL_CASES))
def test_panel_composition(name, given, expected, article):
    seats, quorum = given
    assert [(b.kind, b.index) for b in composition_breaches(seats, quorum)] == expected


def test_panel_uses_the_law_constant():
    assert law.COMMISSION_PER_BODY * len(law.COMMISSION_BODIES) == law.COMMISSION_SIZE.value == 6


# -- 7. Modality IV: the salvage award never exceeds the value saved --------------------------------------------
ITEMS = [PartitionItem("H-1", True, Decimal("5000.00")), PartitionItem("O-1", False, Decimal("80.00")),
         PartitionItem("O-2", False, Decimal("20.00"))]


def _iv(award: str) -> ContractTerms:
    return ContractTerms(id="C-IV", historical_share=Decimal("0.40"), historical_payment="cash", modality="IV",
                         salvage_award=Decimal(award), winner_is_surveyor=True)


SALVAGE_CASES = [
    ("award below the value saved", "99.99", "99.99", "L7542 art. 21 IV"),
    ("award equal to the value saved", "100.00", "100.00", "L7542 art. 21 IV"),
    ("award of 1.000.000 over items worth 100 (issue example)", "1000000.00", None, "L7542 art. 21 IV"),
    ("one cent above", "100.01", None, "L7542 art. 21 IV"),
]


@pytest.mark.parametrize("name, award, expected, article", SALVAGE_CASES, ids=ids(SALVAGE_CASES))
def test_salvage_award_ceiling(name, award, expected, article):
    if expected is None:
        with pytest.raises(InputError) as exc:
            partition(_iv(award), ITEMS)
        assert [p.path for p in exc.value.problems] == ["contract.salvage_award"]
        assert "must not exceed other_total 100.00" in exc.value.problems[0].message
    else:
        assert str(partition(_iv(award), ITEMS).other_payment) == expected


# -- 8. Lei 10.166/2000 ----------------------------------------------------------------------------------------
def test_lei_10166_in_force_on_publication():
    assert law.L10166_IN_FORCE == D(2000, 12, 28)        # Lei de 27/12/2000, DOU de 28/12/2000
    assert law.HISTORICAL_REWARD_CAP.effective_from == law.OTHER_SHARE_CAP.effective_from == law.L10166_IN_FORCE
