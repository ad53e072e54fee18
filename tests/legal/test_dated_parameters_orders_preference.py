"""Issue 15, second half — the pure rules, table-driven: (name, input, expected, article).

Dated NORMAM parameters (the rules take the value in force as a LegalValue), removal orders (Lei 7.542
arts. 5, 9 §2, 10), co-signature (art. 20 §1), preference (art. 16 §2), early closing (Lei 9.784 art.
66 §1) and the amounts typed the pt-BR way. Every expected date is worked out by hand next to its case.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from valuation.core.calendar import BusinessCalendar, yearly_early_closing
from valuation.core.law import LegalValue
from valuation.core.money import parse_amount
from valuation.deadlines import params
from valuation.deadlines import rules as dl
from valuation.registry.co_signatures import MISSING_TEXT, contract_state, needs_co_signature
from valuation.registry.preference import FORMER_OWNER, NONE, SURVEYOR, Request, rank_requests

D = date
NAT = BusinessCalendar(None)          # national holidays + the default pontos facultativos (Carnival, Corpus Christi)
REV = D(2026, 7, 1)


def revised(value: Any) -> LegalValue[Any]:
    return LegalValue(value, "Portaria DPC nº 12/2026", REV)


# -- dated NORMAM parameters: the rule takes the value in force ---------------------------------------------------
PARAMETER_CASES = [
    # name, call, expected due, article
    ("monthly report, NORMAM 10th business day (default)", lambda: dl.monthly_report(D(2025, 2, 1), NAT),
     D(2025, 3, 18), "NORMAM-10 0301 c"),   # March 2025: 3–4 Carnival; 5,6,7,10,11,12,13,14,17,18
    ("monthly report, revised to the 5th business day", lambda: dl.monthly_report(D(2025, 2, 1), NAT, revised(5)),
     D(2025, 3, 11), "Portaria DPC nº 12/2026"),   # 5, 6, 7, 10, 11
    ("final report, revised to 120 days", lambda: dl.final_report(D(2025, 1, 10), NAT, revised(120)),
     D(2025, 5, 12), "Portaria DPC nº 12/2026"),   # 10/01 + 120 = 10/05 (Saturday) → Monday 12/05
    ("extension request, revised to 45 days before", lambda: dl.extension_request(D(2025, 6, 30), NAT, revised(45)),
     D(2025, 5, 16), "Portaria DPC nº 12/2026"),   # 30/06 − 45 = 16/05 (Friday)
    ("tourism notice, revised to 15 business days", lambda: dl.tourism_notice(D(2025, 6, 2), NAT, revised(15)),
     D(2025, 5, 12), "Portaria DPC nº 12/2026"),   # 30, 29, 28, 27, 26, 23, 22, 21, 20, 19, 16, 15, 14, 13, 12/05
    ("wreck map, revised to 31 March", lambda: dl.wreck_map(2024, NAT, revised((3, 31))),
     D(2025, 3, 31), "Portaria DPC nº 12/2026"),   # Monday
    ("wreck map, NORMAM 15 February (default)", lambda: dl.wreck_map(2024, NAT),
     D(2025, 2, 17), "NORMAM-10 0404"),             # 15/02/2025 Saturday → Monday 17/02
]


@pytest.mark.parametrize("name, call, due, article", PARAMETER_CASES, ids=[c[0] for c in PARAMETER_CASES])
def test_normam_parameters_are_arguments_with_their_reference(name: str, call: Any, due: date, article: str) -> None:
    d = call()
    assert d.due == due, name
    assert article in d.basis, d.basis
    if article.startswith("Portaria"):
        assert "em vigor desde 01/07/2026" in d.basis and "em vigor desde 01/07/2026" in "\n".join(d.steps)


def test_a_removal_lasting_over_the_normam_minimum_owes_monthly_reports() -> None:
    """NORMAM-10 0302 b 2: over 60 days (the default); a revision to 90 days changes the answer."""
    assert dl.removal_monthly_reports(D(2025, 1, 1), D(2025, 3, 15)) is True       # 73 days
    assert dl.removal_monthly_reports(D(2025, 1, 1), D(2025, 3, 15), revised(90)) is False
    assert dl.removal_monthly_reports(None, D(2025, 3, 15)) is False
    assert params.DEFAULT["removal_monthly_report_min_days"].value == 60


# -- removal orders (Lei 7.542 arts. 5, 9 §2, 10) -----------------------------------------------------------------
REMOVAL_CASES = [
    ("edital of 15 days from Monday", dl.removal_edital, D(2025, 3, 3), D(2025, 3, 18), None, "art. 9 §2"),
    ("edital ending on a Saturday", dl.removal_edital, D(2025, 3, 7), D(2025, 3, 24), D(2025, 3, 22), "art. 9 §2"),
    ("start fixed on a Saturday is not moved", dl.removal_start, D(2025, 3, 22), D(2025, 3, 22), None, "art. 5"),
    ("end fixed on a holiday is not moved", dl.removal_end, D(2025, 4, 21), D(2025, 4, 21), None, "art. 10"),
]


@pytest.mark.parametrize("name, rule, start, due, moved, article", REMOVAL_CASES, ids=[c[0] for c in REMOVAL_CASES])
def test_removal_order_deadlines(name: str, rule: Any, start: date, due: date, moved: date | None,
                                 article: str) -> None:
    d = rule(start, NAT)
    assert (d.due, d.moved_from) == (due, moved), name
    assert article in d.basis


# -- early closing (Lei 9.784 art. 66 §1) as a policy ----------------------------------------------------------------
def test_the_early_closing_days_are_the_policys() -> None:
    """The default keeps 24 and 31 December; a policy with 19 March moves a due date off 19/03 and no longer
    off 24/12 (which then is an ordinary business day)."""
    policy = BusinessCalendar(None, yearly=yearly_early_closing(((3, 19),)))
    assert NAT.next_full_business_day(D(2025, 12, 24)) == D(2025, 12, 26)      # 25 is Christmas
    assert policy.next_full_business_day(D(2025, 12, 24)) == D(2025, 12, 24)
    assert policy.next_full_business_day(D(2025, 3, 19)) == D(2025, 3, 20)
    assert policy.is_business_day(D(2025, 3, 19))                              # it still counts as a business day
    assert dl.final_report(D(2024, 12, 19), policy).due == D(2025, 3, 20)       # 19/12 + 90 = 19/03 → 20/03


# -- co-signature (art. 20 §1, Lei 10.166/2000) ------------------------------------------------------------------------
CO_SIGNATURE_CASES = [
    # name, (kind, act, signed_on, historical_share, historical items), needed, article
    ("exploration with the historical reward", ("exploração", "contrato", D(2021, 3, 22), Decimal("0.30"), False), True,
     "art. 20 §1"),
    ("exploration signed before Lei 10.166", ("exploração", "contrato", D(1999, 5, 3), Decimal("0.30"), False), False,
     "Lei 10.166 in force 28/12/2000"),
    ("request not yet signed", ("remoção", "contrato", None, Decimal("0.10"), False), True, "art. 20 §1"),
    ("no reward, items classified historical", ("exploração", "autorização", D(2022, 1, 10), None, True), True,
     "art. 20 caput and §1"),
    ("no historical things at all", ("remoção", "contrato", D(2022, 1, 10), None, False), False, "art. 20 caput"),
    ("the owner's own licence", ("remoção", "licença", D(2022, 1, 10), Decimal("0.10"), True), False, "art. 4"),
    ("a demolition", ("demolição", "portaria", D(2022, 1, 10), None, True), False, "art. 27"),
    ("a survey removes nothing", ("pesquisa", "autorização", D(2022, 1, 10), None, True), False, "art. 18"),
]


@pytest.mark.parametrize("name, given, needed, article", CO_SIGNATURE_CASES, ids=[c[0] for c in CO_SIGNATURE_CASES])
def test_which_contracts_need_the_ministry_of_cultures_signature(name: str, given: tuple[Any, ...], needed: bool,
                                                                  article: str) -> None:
    assert needs_co_signature(*given) is needed, (name, article)


def test_the_contract_state_says_it_is_not_in_force_without_it() -> None:
    assert contract_state("vigente", True, None) == f"vigente — {MISSING_TEXT}"
    assert contract_state("vigente", True, D(2021, 3, 29)) == "vigente"
    assert contract_state("vigente", True, D(2021, 3, 29), as_of=D(2021, 3, 1)) == f"vigente — {MISSING_TEXT}"
    assert contract_state("solicitado", True, None).startswith("solicitado — coassinatura")
    assert contract_state("concluído", True, None) == "concluído"
    assert contract_state("vigente", False, None) == "vigente"


# -- preference among competing requests (art. 16 §2) -----------------------------------------------------------------
A = Request("X-1", 1, "Alfa", D(2026, 10, 1), "11222333000181")
B = Request("X-2", 2, "Beta", D(2026, 9, 20), "11444777000161")
C = Request("X-3", 3, "Gama", D(2026, 9, 15), "45723174000110")
LATE_A = Request("X-4", 1, "Alfa", D(2026, 11, 20), "11222333000181")
PREFERENCE_CASES = [
    # name, requests, surveyors, former owner docs, window end, expected [(code, preference)], article
    ("surveyor first, former owner second, others by date", [C, B, A], {1}, {"11444777000161"}, D(2026, 10, 16),
     [("X-1", SURVEYOR), ("X-2", FORMER_OWNER), ("X-3", NONE)], "art. 16 §2 I–II"),
    ("without a notice the preference is still to be claimed", [C, A], {1}, set(), None,
     [("X-1", SURVEYOR), ("X-3", NONE)], "art. 16 §§3–4"),
    ("a surveyor who asks after the 15 days loses the preference", [LATE_A, B], {1}, {"11444777000161"},
     D(2026, 10, 16), [("X-2", FORMER_OWNER), ("X-4", NONE)], "art. 16 §4"),
    ("nobody preferred: the order of the requests", [A, C], set(), set(), D(2026, 10, 16),
     [("X-3", NONE), ("X-1", NONE)], "art. 16 §2"),
]


@pytest.mark.parametrize("name, requests, surveyors, owners, window, expected, article", PREFERENCE_CASES,
                         ids=[c[0] for c in PREFERENCE_CASES])
def test_preference_ranking(name: str, requests: list[Request], surveyors: set[int], owners: set[str],
                            window: date | None, expected: list[tuple[str, str]], article: str) -> None:
    ranked = rank_requests(requests, surveyors, owners, window)
    assert [(r.request.contract_code, r.preference) for r in ranked] == expected, name
    assert [r.place for r in ranked] == list(range(1, len(ranked) + 1))
    assert all(r.basis.startswith("Lei 7.542/1986 art. 16 §2") for r in ranked)
    if any(p != NONE for _, p in expected):
        assert any("mesmas condições econômicas" in r.note for r in ranked if r.preference != NONE)
    if article == "art. 16 §4":
        assert "§4" in ranked[1].basis and "depois do fim do prazo do edital" in ranked[1].note


# -- amounts typed the pt-BR way: read exactly, never guessed ---------------------------------------------------------
AMOUNT_CASES = [
    ("grouped with a decimal comma", "84.300,00", Decimal("84300.00")),
    ("decimal comma", "1234,5", Decimal("1234.5")),
    ("currency sign and grouping", "R$ 1.234", Decimal("1234")),
    ("plain decimal point", "1234.56", Decimal("1234.56")),
    ("mixed separators read two ways", "1001.76,41", None),
    ("English grouping", "1,234.56", None),
    ("full-width digits", "１２３", None),
    ("a sign", "-5,00", None),
    ("three decimals after the comma", "1,234", None),
]


@pytest.mark.parametrize("name, typed, expected", AMOUNT_CASES, ids=[c[0] for c in AMOUNT_CASES])
def test_amounts_typed_the_brazilian_way(name: str, typed: str, expected: Decimal | None) -> None:
    assert parse_amount(typed) == expected, name
