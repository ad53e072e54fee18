"""The periods of Lei 9.784/1999 in a request's process, re-done by hand (name, input, expected, article).

Calendars: RJ (the state's holidays: São Jorge 23/04) and the national one. Worked by hand from the 2026
calendar: Tiradentes Tue 21/04; Easter 05/04; Consciência Negra Fri 20/11 (Lei 14.759/2023); Christmas Fri 25/12,
24/12 closes early (art. 66 §1); Confraternização Fri 01/01/2027.
"""
from __future__ import annotations

from datetime import date

import pytest

from valuation.core.calendar import BusinessCalendar
from valuation.core.law import LegalValue
from valuation.proceedings import periods as pr

RJ = BusinessCalendar("RJ")
NAT = BusinessCalendar(None)
D = date

# name, function, start, cal, extra kwargs, expected due, moved from, article that must be in the basis
CASES = [
    ("ato: 02/03 + 5 = sáb 07/03 → seg 09/03", pr.act_due, D(2026, 3, 2), RJ, {}, D(2026, 3, 9), D(2026, 3, 7),
     "art. 24"),
    ("ato dilatado ao dobro: 02/03 + 10 = qui 12/03", pr.act_due, D(2026, 3, 2), RJ,
     {"extension_reason": "Diligência no local do naufrágio"}, D(2026, 3, 12), None, "art. 24 parágrafo único"),
    ("parecer: 06/04 + 15 = ter 21/04 Tiradentes → qua 22/04", pr.opinion_due, D(2026, 4, 6), RJ, {},
     D(2026, 4, 22), D(2026, 4, 21), "art. 42"),
    ("parecer: 01/04 + 15 = qui 16/04, dia útil", pr.opinion_due, D(2026, 4, 1), RJ, {}, D(2026, 4, 16), None,
     "art. 42"),
    ("alegações: 10/12 + 10 = dom 20/12 → seg 21/12", pr.allegations_due, D(2026, 12, 10), RJ, {},
     D(2026, 12, 21), D(2026, 12, 20), "art. 44"),
    ("alegações: 14/12 + 10 = qui 24/12, expediente até 14h → 25/12 Natal, fim de semana → seg 28/12",
     pr.allegations_due, D(2026, 12, 14), RJ, {}, D(2026, 12, 28), D(2026, 12, 24), "art. 44"),
    ("decisão: 02/11 (Finados, excluído) + 30 = qua 02/12", pr.decision_due, D(2026, 11, 2), RJ, {},
     D(2026, 12, 2), None, "art. 49"),
    ("decisão: 21/10 + 30 = sex 20/11 Consciência Negra → seg 23/11", pr.decision_due, D(2026, 10, 21), RJ, {},
     D(2026, 11, 23), D(2026, 11, 20), "art. 49"),
    ("decisão prorrogada: 02/11 + 60 = sex 01/01/2027 → seg 04/01/2027", pr.decision_due, D(2026, 11, 2), RJ,
     {"extension_reason": "Aguardando laudo do IPHAN"}, D(2027, 1, 4), D(2027, 1, 1), "prorrogação por igual período"),
    ("intimação: audiência sex 13/03; qui 12 (1º), qua 11 (2º), ter 10 (3º)", pr.intimation_due, D(2026, 3, 13), RJ,
     {}, D(2026, 3, 10), None, "arts. 26 §2 e 41"),
    ("intimação RJ: audiência sex 24/04; 23/04 São Jorge e 21/04 Tiradentes não contam → sex 17/04",
     pr.intimation_due, D(2026, 4, 24), RJ, {}, D(2026, 4, 17), None, "arts. 26 §2 e 41"),
    ("intimação sem o feriado estadual: qui 23 (1º), qua 22 (2º), seg 20 (3º)", pr.intimation_due, D(2026, 4, 24),
     NAT, {}, D(2026, 4, 20), None, "arts. 26 §2 e 41"),
    # art. 39: the party's information or evidence, by the day the intimation fixed (the end of a period: art. 66
    # §1 moves it off a day without full office hours), or in the 5 days of art. 24 when it fixed none
    ("informações: intimado seg 02/03, data fixada sex 13/03, dia útil", pr.information_due, D(2026, 3, 2), RJ,
     {"fixed": D(2026, 3, 13)}, D(2026, 3, 13), None, "art. 39"),
    ("informações: data fixada sáb 21/03 → seg 23/03", pr.information_due, D(2026, 3, 2), RJ,
     {"fixed": D(2026, 3, 21)}, D(2026, 3, 23), D(2026, 3, 21), "art. 39"),
    ("informações: data fixada ter 21/04 Tiradentes → qua 22/04", pr.information_due, D(2026, 4, 6), RJ,
     {"fixed": D(2026, 4, 21)}, D(2026, 4, 22), D(2026, 4, 21), "art. 39"),
    ("informações: data fixada qui 24/12, expediente até 14h → 25/12 Natal, fim de semana → seg 28/12",
     pr.information_due, D(2026, 12, 14), RJ, {"fixed": D(2026, 12, 24)}, D(2026, 12, 28), D(2026, 12, 24),
     "art. 39"),
    ("informações sem prazo fixado: 02/03 + 5 (art. 24) = sáb 07/03 → seg 09/03", pr.information_due, D(2026, 3, 2),
     RJ, {}, D(2026, 3, 9), D(2026, 3, 7), "art. 24"),
    ("informações sem prazo fixado: seg 14/12 + 5 = sáb 19/12 → seg 21/12", pr.information_due, D(2026, 12, 14),
     RJ, {}, D(2026, 12, 21), D(2026, 12, 19), "art. 39"),
]


@pytest.mark.parametrize(("name", "fn", "start", "cal", "kw", "due", "moved", "article"), CASES,
                         ids=[c[0] for c in CASES])
def test_each_period_by_hand(name: str, fn, start: date, cal: BusinessCalendar, kw: dict, due: date,
                             moved: date | None, article: str) -> None:
    d = fn(start, cal, **kw)
    assert (d.due, d.moved_from) == (due, moved), name
    assert article in d.basis and "Lei 9.784/1999" in d.basis
    assert d.steps[-1].endswith(due.strftime("%d/%m/%Y"))


def test_a_period_revised_by_the_authority_is_the_value_in_force() -> None:
    """The dated policy: 4 days in force from 01/03/2026 → 02/03 + 4 = 06/03 (a Friday), with the act's basis."""
    revised = LegalValue(4, "Lei 9.784/1999 art. 24", date(2026, 3, 1))
    d = pr.act_due(date(2026, 3, 2), RJ, revised)
    assert d.due == date(2026, 3, 6) and "em vigor desde 01/03/2026" in d.basis


@pytest.mark.parametrize("fn", [pr.act_due, pr.decision_due])
def test_an_extension_without_a_written_reason_is_refused(fn) -> None:
    with pytest.raises(ValueError, match="motivação escrita"):
        fn(date(2026, 3, 2), RJ, extension_reason="   ")


def _steps(*items: tuple[str, date] | tuple[str, date, date | None, str | None]) -> list[pr.Step]:
    return [pr.Step(*i) for i in items]


def test_a_request_in_instruction_owes_its_opinion_and_its_intimation() -> None:
    """Filed 02/03 and acted on 05/03 (art. 24 met); an opinion asked 06/04 (due 22/04, art. 42); a hearing
    on Mon 13/04 set on 06/04: fri 10 (1º), thu 09 (2º), wed 08 (3º) → intimate by 08/04 (art. 41)."""
    got = pr.request_deadlines(date(2026, 3, 2), _steps(("instruction_opened", date(2026, 3, 5)),
                                                        ("opinion_requested", date(2026, 4, 6)),
                                                        ("hearing_set", date(2026, 4, 6), date(2026, 4, 13), None)),
                               RJ)
    assert [(g.kind, g.owed_by, g.deadline.due, g.met_on) for g in got] == [
        ("process_act", pr.AUTHORITY, date(2026, 3, 9), date(2026, 3, 5)),
        ("process_opinion", pr.AUTHORITY, date(2026, 4, 22), None),
        ("process_intimation", pr.AUTHORITY, date(2026, 4, 8), None),
    ]


def test_after_the_instruction_the_party_alleges_and_the_authority_decides_once_extended() -> None:
    filed = date(2026, 9, 1)
    steps = _steps(("instruction_opened", date(2026, 9, 3)), ("instruction_ended", date(2026, 11, 2)),
                   ("instruction_end_notified", date(2026, 11, 2)), ("allegations_filed", date(2026, 11, 10)),
                   ("decision_extended", date(2026, 11, 30), None, "Aguardando laudo do IPHAN"))
    got = {g.kind: g for g in pr.request_deadlines(filed, steps, RJ)}
    assert got["process_allegations"].owed_by == pr.PARTY and got["process_allegations"].met_on == date(2026, 11, 10)
    assert got["process_allegations"].deadline.due == date(2026, 11, 12)
    assert got["process_decision"].deadline.due == date(2027, 1, 4) and got["process_decision"].met_on is None
    assert pr.current_step(steps) == pr.STEP_LABELS["decision_extended"]


def test_a_step_is_refused_naming_its_field() -> None:
    filed = date(2026, 9, 1)
    steps = _steps(("instruction_ended", date(2026, 10, 1)))
    assert pr.step_problem("instruction_opened", date(2026, 8, 31), filed, None, None, [])[0] == "day"
    assert pr.step_problem("hearing_set", date(2026, 9, 5), filed, None, None, [])[0] == "reference_day"
    assert pr.step_problem("decision_extended", date(2026, 10, 5), filed, None, "", steps)[0] == "reason"
    assert pr.step_problem("decision_extended", date(2026, 10, 5), filed, None, "Laudo", []) is not None
    twice = [*steps, pr.Step("decision_extended", date(2026, 10, 5), None, "Laudo")]
    assert pr.step_problem("decision_extended", date(2026, 10, 6), filed, None, "Outro", twice)[0] == "kind"
    assert pr.step_problem("decision_extended", date(2026, 10, 5), filed, None, "Laudo", steps) is None


def test_information_asked_of_the_party_is_the_partys_and_met_when_provided() -> None:
    """Art. 39: filed 02/03; information asked on Mon 09/03 (the Authority's first act, art. 24 met) with no
    day fixed: 09/03 + 5 = sat 14/03 → mon 16/03, the party's; a second asked 23/03 by fri 10/04, met on 08/04.
    What the party provides is no act of the Authority."""
    steps = _steps(("information_requested", D(2026, 3, 9)), ("information_requested", D(2026, 3, 23),
                                                                D(2026, 4, 10), None),
                   ("information_provided", D(2026, 4, 8)))
    got = pr.request_deadlines(D(2026, 3, 2), steps, RJ)
    assert [(g.kind, g.owed_by, g.deadline.due, g.met_on) for g in got] == [
        ("process_act", pr.AUTHORITY, D(2026, 3, 9), D(2026, 3, 9)),
        ("process_information", pr.PARTY, D(2026, 3, 16), D(2026, 4, 8)),
        ("process_information", pr.PARTY, D(2026, 4, 10), D(2026, 4, 8)),
    ]
    only_party = pr.request_deadlines(D(2026, 3, 2), _steps(("information_provided", D(2026, 3, 5))), RJ)
    assert only_party[0].kind == "process_act" and only_party[0].met_on is None
    explained = "\n".join(got[1].deadline.steps)
    assert "art. 39 parágrafo único" in explained and "art. 40" in explained
    assert pr.current_step(steps) == pr.STEP_LABELS["information_provided"]


def test_the_day_an_intimation_fixed_is_after_it_and_only_some_steps_carry_a_day() -> None:
    filed = D(2026, 9, 1)
    assert pr.step_problem("information_requested", D(2026, 9, 10), filed, D(2026, 9, 10), None, [])[0] == \
        "reference_day"
    assert pr.step_problem("information_requested", D(2026, 9, 10), filed, D(2026, 9, 25), None, []) is None
    assert pr.step_problem("information_requested", D(2026, 9, 10), filed, None, None, []) is None
    assert pr.step_problem("opinion_requested", D(2026, 9, 10), filed, D(2026, 9, 25), None, [])[0] == \
        "reference_day"
    with pytest.raises(ValueError, match="art. 39"):
        pr.information_due(D(2026, 9, 10), RJ, D(2026, 9, 9))
