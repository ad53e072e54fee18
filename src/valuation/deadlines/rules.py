"""Deadlines of rules.md §7, one pure function per rule, each with its article in the docstring.

Counting (Lei 9.784/1999 art. 66) lives in `valuation.deadlines.counting`; the five years of
arts. 6–7 and the owner's balance of art. 13 §2 in `valuation.deadlines.lapse` (both re-exported
here). The NORMAM-10 numbers are dated parameters (`valuation.deadlines.params`): each rule that
uses one takes it as a `LegalValue` — the value in force on the day its period starts — and
defaults to the NORMAM-10 text when none is given.

Each function returns a frozen `Deadline` (or `Window`) whose `steps` explain, in pt-BR, the raw
date and every move, so that a user can see why the date is what it is. Pure: no database, no clock.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.deadlines import params
from valuation.deadlines.counting import (
    ART66,
    MONTHS_PT,
    ONE_DAY,
    Deadline,
    Interval,
    Window,
    add_months,
    add_years,
    days_after,
    days_text,
    fixed_date,
    fmt,
    fmt_month,
    interval_days,
    join_basis,
    merge_intervals,
    months_after,
    months_text,
    move_back,
    move_forward,
    notice_period,
    notice_steps,
    with_edited,
)
from valuation.deadlines.lapse import (
    LapseCount,
    art32_applies,
    five_year_lapse,
    lapse_count,
    lapse_start,
    owner_balance,
)
from valuation.deadlines.states import STATE_LABELS, STATES

# the states `deadline_state` answers (a suspension is the engine's: valuation.deadlines.rows)
DEADLINE_STATES: tuple[str, ...] = tuple(s for s in STATES if s != "suspended")
_Param = law.LegalValue[int]


# -- NORMAM-10 (dated parameters) -------------------------------------------------------------------
def monthly_report(period: date, cal: BusinessCalendar,
                   business_day: _Param = params.DEFAULT["monthly_report_business_day"]) -> Deadline:
    """Monthly activity report for the month of `period` (any day of it): due on the
    `business_day`-th business day (NORMAM: the 10th) of the following month. NORMAM-10 0301 c,
    0303 e; 0302 b 2 (removal or demolition lasting over 60 days)."""
    n = business_day.value
    first, _ = add_months(date(period.year, period.month, 1), 1)
    nth = cal.nth_business_day_of_month(first.year, first.month, n)
    closed = [f"{fmt(d)} ({cal.reason_closed(d)})"
              for d in (first + timedelta(days=i) for i in range((nth - first).days))
              if not cal.is_business_day(d)]
    steps = [
        f"Mês de referência: {fmt_month(period)}; entrega até o {n}º dia útil de {fmt_month(first)} "
        f"({params.reference(business_day)})",
        "Dias sem expediente desconsiderados: " + (", ".join(closed) if closed else "nenhum"),
        f"{n}º dia útil de {fmt_month(first)}: {fmt(nth)}",
    ]
    due, moved = nth, None
    if cal.is_early_closing(nth):  # it counts as a business day, but the period cannot end on it
        due, moved, more = move_forward(nth, cal)
        steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    steps = with_edited(steps, cal, first, due)
    basis = params.reference(business_day) if moved is None else join_basis(params.reference(business_day),
                                                                             f"{ART66} §1")
    return Deadline("monthly_report", due, basis, moved, tuple(steps))


def final_report(work_ended: date, cal: BusinessCalendar,
                 days: _Param = params.DEFAULT["final_report_days"]) -> Deadline:
    """Final report: `days` (NORMAM: 90) days after the end of the work (NORMAM-10 0301 c; 0302 b 3)."""
    d = days_after("final_report", work_ended, days.value, cal, params.reference(days), "término dos trabalhos")
    head = f"Relatório final em {days_text(days.value)} do término dos trabalhos ({params.reference(days)})"
    return Deadline(d.rule, d.due, d.basis, d.moved_from, (head, *d.steps))


def extension_request(expires: date, cal: BusinessCalendar,
                      days: _Param = params.DEFAULT["extension_request_days"]) -> Deadline:
    """Latest day to ask for an extension: at least `days` (NORMAM: 60) days before the
    authorisation expires (NORMAM-10 0304), moved back to the previous business day."""
    n = days.value
    raw = expires - timedelta(days=n)
    steps = [
        f"A autorização expira em {fmt(expires)}; pedido com antecedência mínima de {days_text(n)} "
        f"({params.reference(days)})",
        f"{fmt(expires)} − {days_text(n)} corridos = {fmt(raw)} ({ART66}, contagem regressiva)",
    ]
    due, moved, more = move_back(raw, cal)
    steps += more
    steps.append(f"Último dia para pedir a prorrogação: {fmt(due)}")
    steps = with_edited(steps, cal, due, expires)
    return Deadline("extension_request", due, join_basis(params.reference(days), ART66), moved, tuple(steps))


def start_of_operations(fixed: date, cal: BusinessCalendar | None = None) -> Deadline:
    """Start of operations: the date fixed in the authorisation, not a period, so it is
    not moved; a late start cancels the authorisation (Lei 7.542 art. 22 I; NORMAM-10 0305 a)."""
    return fixed_date("start_of_operations", fixed, f"{law.L7542} art. 22 I; {law.normam_2002('0305 a')}",
                      "Data fixada na autorização", "Início após essa data: cancelamento da autorização "
                                                    "(NORMAM-10 (ed. 2002) 0305 a)")


def automatic_cancellation(reported_months: Iterable[date], authorised_from: date, authorised_to: date,
                           cal: BusinessCalendar,
                           business_day: _Param = params.DEFAULT["monthly_report_business_day"]) -> Deadline | None:
    """Automatic cancellation when the monthly report is not delivered for the second
    consecutive month (NORMAM-10 0305 f).

    `reported_months`: any day of each month whose report was delivered in time. Every
    month from `authorised_from`'s to `authorised_to`'s owes a report. Returns the
    candidate cancellation date — the day after the deadline of the second consecutive
    missing report — or None when no two consecutive reports are missing."""
    if authorised_to < authorised_from:
        raise ValueError("the authorisation ends before it starts")
    reported = {(d.year, d.month) for d in reported_months}
    month = date(authorised_from.year, authorised_from.month, 1)
    last = date(authorised_to.year, authorised_to.month, 1)
    previous_missing: date | None = None
    while month <= last:
        if (month.year, month.month) in reported:
            previous_missing = None
        elif previous_missing is None:
            previous_missing = month
        else:
            second = monthly_report(month, cal, business_day)
            first = monthly_report(previous_missing, cal, business_day)
            candidate = (second.due or month) + ONE_DAY
            steps = (
                f"Relatório de {fmt_month(previous_missing)} não entregue (vencia em {fmt(first.due)})",
                f"Relatório de {fmt_month(month)} não entregue (vencia em {fmt(second.due)}): "
                "segundo mês consecutivo",
                f"Cancelamento automático a partir de {fmt(candidate)} (NORMAM-10 (ed. 2002) 0305 f)",
            )
            return Deadline("automatic_cancellation", candidate,
                            join_basis(law.normam_2002("0305 f"), params.reference(business_day)), None, steps)
        month, _ = add_months(month, 1)
    return None


def tourism_notice(excursion: date, cal: BusinessCalendar,
                   business_days: _Param = params.DEFAULT["tourism_notice_business_days"]) -> Deadline:
    """Underwater tourism: notice at least `business_days` (NORMAM: 10) business days before the
    excursion (NORMAM-10 0307). The notice opens a period of that many business days, counted as Lei
    9.784 art. 66 counts (the notice's day excluded, the last day included), which must be complete on
    the excursion's day: the latest day to notify is the business day before the first of the last n
    business days on or before the excursion (`counting.notice_period`;
    docs/decisions/105-notices-of-minimum-antecedence.md) — a Saturday excursion 21/06/2025 gives 05/06."""
    n = business_days.value
    notice = notice_period(excursion, n, cal)
    steps = notice_steps(excursion, "Excursão", n, params.reference(business_days), notice,
                         "Último dia para comunicar", cal)
    return Deadline("tourism_notice", notice.due, join_basis(params.reference(business_days), ART66), None, steps)


def wreck_map(year: int, cal: BusinessCalendar,
              day: law.LegalValue[tuple[int, int]] = params.DEFAULT["wreck_map_day"]) -> Deadline:
    """Annual map of wrecks of `year`: due on `day` (NORMAM: 15 February) of the next year
    (NORMAM-10 0404), moved forward to a business day (art. 66 §1)."""
    month, dom = day.value
    raw = date(year + 1, month, dom)
    steps = [f"Mapa de embarcações naufragadas de {year}: até {fmt(raw)} ({dom} de {MONTHS_PT[month - 1]} do "
             f"ano seguinte, {params.reference(day)})"]
    due, moved, more = move_forward(raw, cal)
    steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    steps = with_edited(steps, cal, raw, due)
    return Deadline("wreck_map", due, join_basis(params.reference(day), ART66), moved, tuple(steps))


def removal_monthly_reports(starts_on: date | None, expires_on: date | None,
                            min_days: _Param = params.DEFAULT["removal_monthly_report_min_days"]) -> bool:
    """A removal or demolition owes monthly reports when it lasts over `min_days` (NORMAM: 60)
    days (NORMAM-10 0302 b 2)."""
    return starts_on is not None and expires_on is not None and (expires_on - starts_on).days > min_days.value


# -- Lei 7.542/1986 ---------------------------------------------------------------------------------------
def preference_notice(published: date, cal: BusinessCalendar) -> Deadline:
    """Preference notice (edital): 15 days from publication (Lei 7.542 art. 16 §4; art. 9 §2)."""
    return days_after("preference_notice", published, law.PREFERENCE_NOTICE_DAYS.value, cal,
                       law.PREFERENCE_NOTICE_DAYS.basis, "publicação do edital")


def owner_reclaim(recovered: date, cal: BusinessCalendar) -> Deadline:
    """Owner's reclaim of things removed on the owner's account: 30 days from the
    recovery (Lei 7.542 art. 12 §1)."""
    return days_after("owner_reclaim", recovered, law.OWNER_RECLAIM_DAYS.value, cal,
                       law.OWNER_RECLAIM_DAYS.basis, "resgate")


def found_unclaimed(collected: date, cal: BusinessCalendar) -> Deadline:
    """Things found and handed in: unclaimed 30 days after collection (Lei 7.542 art. 29 §2)."""
    return days_after("found_unclaimed", collected, law.FOUND_UNCLAIMED_DAYS.value, cal,
                       law.FOUND_UNCLAIMED_DAYS.basis, "recolhimento")


def found_proceeds(sold: date, cal: BusinessCalendar) -> Deadline:
    """Proceeds of sold found things: held 6 months from the sale, then União revenue
    (Lei 7.542 art. 29 §3). A period of substantive law: a missing day in the final month ends it
    on the first day after it (Lei 810/1949 art. 3; Código Civil art. 132 §3)."""
    return months_after("found_proceeds", sold, law.FOUND_PROCEEDS_MONTHS.value, cal,
                         law.FOUND_PROCEEDS_MONTHS.basis, "venda", substantive=True)


def removal_edital(published: date, cal: BusinessCalendar) -> Deadline:
    """Removal order by edital (owner of unknown whereabouts, abroad or unknown): the edital runs
    15 days from its publication (Lei 7.542 art. 9 II and §2); the order binds the owner after it."""
    return days_after("removal_edital", published, law.REMOVAL_EDITAL_DAYS.value, cal, law.REMOVAL_EDITAL_DAYS.basis,
                      "publicação do edital de remoção")


def removal_start(fixed: date, cal: BusinessCalendar | None = None) -> Deadline:
    """Start of a removal or demolition the Authority ordered: the date it fixed in the order (Lei
    7.542 art. 5 sole paragraph), not a period, so it is not moved. Without a start the Authority
    may take the operations over on the owner's account (art. 10)."""
    return fixed_date("removal_start", fixed, f"{law.REMOVAL_ORDER}; {law.REMOVAL_TAKEOVER}",
                      "Início fixado na determinação de remoção",
                      "Sem início nessa data: a Autoridade Naval pode assumir a remoção por conta do responsável "
                      "(art. 10)")


def removal_end(fixed: date, cal: BusinessCalendar | None = None) -> Deadline:
    """End of a removal or demolition the Authority ordered: the date it fixed (art. 5 sole
    paragraph; it may change it at its discretion), not moved; unfinished by then, the Authority
    may take the operations over on the owner's account (art. 10)."""
    return fixed_date("removal_end", fixed, f"{law.REMOVAL_ORDER}; {law.REMOVAL_TAKEOVER}",
                      "Término fixado na determinação de remoção",
                      "Não concluída nessa data: a Autoridade Naval pode assumir a remoção por conta do responsável "
                      "(art. 10)")


def court_inquiry_opening(known: date, cal: BusinessCalendar) -> Deadline:
    """Inquiry opened within 5 days of learning of the casualty (Lei 2.180 art. 33 §2)."""
    return days_after("court_inquiry_opening", known, law.COURT_INQUIRY_OPENING_DAYS.value, cal,
                       law.COURT_INQUIRY_OPENING_DAYS.basis, "conhecimento do acidente ou fato da navegação")


def court_inquiry_report(last_step: date, cal: BusinessCalendar) -> Deadline:
    """Inquiry report: 10 days after the last step (diligência) is concluded (Lei 2.180 art. 37)."""
    return days_after("court_inquiry_report", last_step, law.COURT_INQUIRY_REPORT_DAYS.value, cal,
                       law.COURT_INQUIRY_REPORT_DAYS.basis, "conclusão das diligências")


def court_prior_defence(notified: date, cal: BusinessCalendar) -> Deadline:
    """Prior defence: 10 days from notice of the report's conclusions (Lei 2.180 art. 38)."""
    return days_after("court_prior_defence", notified, law.COURT_PRIOR_DEFENCE_DAYS.value, cal,
                       law.COURT_PRIOR_DEFENCE_DAYS.basis, "ciência das conclusões do relatório")


def court_private_representation(occurred: date, cal: BusinessCalendar) -> Window:
    """Private representation to the Maritime Court when no inquiry has reached it: in the
    30 days following the 180-day period counted from the casualty's occurrence
    (Lei 2.180 art. 41 §1 a, as amended by Lei 5.056/1966). The window's end moves forward
    to a business day (art. 66 §1)."""
    first, span = law.COURT_PRIVATE_REPRESENTATION_DAYS.value
    day_180 = occurred + timedelta(days=first)
    start = day_180 + ONE_DAY
    raw_end = day_180 + timedelta(days=span)
    steps = [
        f"Ocorrência do acidente ou fato da navegação: {fmt(occurred)}",
        f"{fmt(occurred)} + {days_text(first)} = {fmt(day_180)} (fim do prazo de {days_text(first)})",
        f"Janela de {days_text(span)} subsequentes: {fmt(start)} a {fmt(raw_end)}",
    ]
    end, moved, more = move_forward(raw_end, cal)
    steps += more
    steps.append(f"Representação possível de {fmt(start)} a {fmt(end)}, se o inquérito não tiver "
                 f"entrado no Tribunal até o fim do prazo de {days_text(first)}")
    return Window("court_private_representation", start, end,
                  join_basis(law.COURT_PRIVATE_REPRESENTATION_DAYS.basis, ART66), moved, tuple(steps))


def appeal(notified: date, cal: BusinessCalendar) -> Deadline:
    """Request for reconsideration or appeal against a decision taken under Lei 7.542: 10
    days from the notification or official publication of the decision, without suspensive
    effect (Lei 7.542 art. 33; Lei 9.784/1999 art. 59 caput, which fixes the period the
    special law leaves open, art. 69)."""
    return days_after("appeal", notified, law.APPEAL_DAYS.value, cal, law.APPEAL_DAYS.basis,
                       "ciência ou divulgação oficial da decisão")


def appeal_decision(received: date, extended: bool, cal: BusinessCalendar) -> Deadline:
    """Decision on an appeal: 30 days from the receipt of the case by the deciding
    authority (Lei 9.784/1999 art. 59 §1), 60 when expressly extended by an equal period
    (art. 59 §2)."""
    days = law.APPEAL_DECISION_DAYS.value * (law.APPEAL_DECISION_EXTENSION.value if extended else 1)
    basis = join_basis(law.APPEAL_DECISION_DAYS.basis, law.APPEAL_DECISION_EXTENSION.basis if extended else "")
    return days_after("appeal_decision", received, days, cal, basis,
                       "recebimento dos autos pelo órgão competente")


def deadline_state(due: date, as_of: date, met_on: date | None = None, waived_reason: str | None = None, *,
                   due_soon_days: int) -> str:
    """State of a deadline on `as_of` (rules.md §7): waived, met (on or before as_of),
    overdue (as_of after due), due_soon (due within `due_soon_days` days: the policy, whose default
    is `valuation.policies.defaults`), upcoming."""
    if waived_reason:
        return "waived"
    if met_on is not None and met_on <= as_of:
        return "met"
    if as_of > due:
        return "overdue"
    if (due - as_of).days <= due_soon_days:
        return "due_soon"
    return "upcoming"


def open_standing(due: date, as_of: date, *, due_soon_days: int) -> dict[str, object]:
    """How an open deadline stands on `as_of`, as every owed-deadline row carries it: due, state
    (`deadline_state`), state_pt and days_late (0 when not overdue)."""
    state = deadline_state(due, as_of, due_soon_days=due_soon_days)
    return {"due": due, "state": state, "state_pt": STATE_LABELS[state], "days_late": max((as_of - due).days, 0)}


def cargo_lapse(casualty_date: date, suspensions: Iterable[Interval], cal: BusinessCalendar) -> Deadline:
    """Last day on which the cargo's responsible may still request a licence for the cargo (Lei 7.542
    arts. 4, 6 and 7, read for the cargo's own responsible: art. 14 II): the same count as
    `five_year_lapse` — the casualty and the suspensions are the wreck's — under its own key, because the
    cargo's right runs apart from the vessel's (README "Decisions")."""
    d = five_year_lapse(casualty_date, suspensions, cal)
    basis = d.basis + f"; {law.L7542} art. 14 II (o responsável pela carga pede a sua remoção ou recuperação " \
                      "independentemente do responsável pela embarcação)"
    return Deadline("cargo_lapse", d.due, basis, d.moved_from,
                    ("Prazo do responsável pela carga, contado como o do responsável pela embarcação", *d.steps))


__all__ = [
    "ART66", "DEADLINE_STATES", "ONE_DAY", "Deadline", "Interval", "LapseCount", "Window", "add_months", "add_years",
    "appeal", "appeal_decision", "art32_applies", "automatic_cancellation", "court_inquiry_opening",
    "court_inquiry_report", "court_prior_defence", "court_private_representation", "days_text", "deadline_state",
    "extension_request", "open_standing",
    "final_report", "five_year_lapse", "fmt", "fmt_month", "found_proceeds", "found_unclaimed", "interval_days",
    "lapse_count", "lapse_start", "merge_intervals", "monthly_report", "months_text", "move_back", "move_forward",
    "owner_balance", "owner_reclaim", "preference_notice", "removal_edital", "removal_end", "removal_monthly_reports",
    "removal_start", "start_of_operations", "tourism_notice", "wreck_map",
    "cargo_lapse",
]
