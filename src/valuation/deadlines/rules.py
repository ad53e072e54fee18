"""Deadlines of rules.md §7, one pure function per rule.

Counting follows Lei 9.784/1999 art. 66:

- caput: a period starts on the day of the event, which is excluded; the last day is
  included;
- §1: a period ending on a day without office hours, or on a day on which the office
  closes before its normal hours (24 and 31 December, the office's early-closing
  dates), is extended to the next business day with normal hours
  (`BusinessCalendar.next_full_business_day`);
- §2: periods in days run continuously (calendar days);
- §3: periods in months or years run date to date; when the final month has no such
  day, the period ends on that month's last day.

A deadline that must be met *at least N days before* an event is counted backwards
from the event and moves BACK to the previous business day (moving it forward would
shorten the notice the law requires).

Each function returns a frozen `Deadline` whose `steps` explain, in pt-BR, the raw date
and every move, so that a user can see why the date is what it is.
"""
from __future__ import annotations

import calendar as _stdcal
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from valuation.core import law
from valuation.core.calendar import BusinessCalendar

ONE_DAY = timedelta(days=1)
ART66 = law.COUNTING_RULE  # "Lei 9.784/1999 art. 66"

DEADLINE_STATES: tuple[str, ...] = ("upcoming", "due_soon", "overdue", "met", "waived")
_MONTHS_PT = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
              "setembro", "outubro", "novembro", "dezembro")


@dataclass(frozen=True)
class Deadline:
    """A computed deadline: `due` is the last day to act (None only for the five-year lapse
    while a suspension with no end is running: the clock is stopped); `moved_from` the
    unadjusted date when a non-business day moved it (else None); `steps` explain it in pt-BR."""

    rule: str
    due: date | None
    basis: str
    moved_from: date | None
    steps: tuple[str, ...]


@dataclass(frozen=True)
class Window:
    """A period in which something may be done: from `start` to `end` (both inclusive);
    `moved_from` is the unadjusted end when it moved to a business day."""

    rule: str
    start: date
    end: date
    basis: str
    moved_from: date | None
    steps: tuple[str, ...]


Interval = tuple[date, "date | None"]  # inclusive; end None = still running (no end known yet)


@dataclass(frozen=True)
class LapseCount:
    """The arithmetic of the five-year lapse before the business-day move (arts. 6 and 7)."""

    casualty_date: date
    raw: date                                  # start + 5 years, date to date
    merged: tuple[Interval, ...]               # suspensions counted from the day after the start, merged
    effective: tuple[Interval, ...]            # those that began while the period was still running
    ignored: tuple[Interval, ...]              # those that began after it had already ended
    suspended_days: int                        # distinct days of the effective suspensions that ended
    extended: date | None                      # raw + suspended_days; None while a suspension runs
    steps: tuple[str, ...]
    start: date | None = None                  # the casualty, or 29/09/1986 for an older casualty
    open_since: date | None = None             # start of the effective suspension still running

    @property
    def stopped(self) -> bool:
        """True while an effective suspension with no end stops the clock (no due date yet)."""
        return self.open_since is not None


# -- formatting and date arithmetic -----------------------------------------------------
def fmt(d: date) -> str:
    """dd/mm/yyyy, zero-padded for any year."""
    return f"{d.day:02d}/{d.month:02d}/{d.year:04d}"


def fmt_month(d: date) -> str:
    return f"{_MONTHS_PT[d.month - 1]}/{d.year:04d}"


def add_months(d: date, months: int) -> tuple[date, bool]:
    """`d` + `months`, date to date (art. 66 §3); True when the day did not exist in the
    final month and the month's last day was taken."""
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    if not 1 <= year <= 9999:
        raise OverflowError("date out of range")
    last = _stdcal.monthrange(year, month)[1]
    return date(year, month, min(d.day, last)), d.day > last


def add_years(d: date, years: int) -> tuple[date, bool]:
    return add_months(d, 12 * years)


def merge_intervals(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """Merge inclusive [start, end] intervals that overlap or touch (end + 1 == next start).
    An end of None means "still running" and absorbs every interval after its start.

    ValueError when an interval ends before it starts."""
    items = sorted(intervals, key=lambda iv: (iv[0], iv[1] is None, iv[1] or iv[0]))
    for s, e in items:
        if e is not None and e < s:
            raise ValueError(f"interval ends ({e}) before it starts ({s})")
    out: list[Interval] = []
    for s, e in items:
        if out and (out[-1][1] is None or s <= out[-1][1] + ONE_DAY):
            last = out[-1][1]
            if last is not None and (e is None or e > last):
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return tuple(out)


def interval_days(s: date, e: date) -> int:
    """Days covered by the inclusive interval [s, e]."""
    return (e - s).days + 1


def _chain(start: date, end: date, cal: BusinessCalendar, step: timedelta) -> str:
    parts = []
    d = start
    while d != end:
        parts.append(f"{fmt(d)} {cal.describe(d)}")
        d += step
    parts.append(f"{fmt(end)} é dia útil")
    return " → ".join(parts)


def move_forward(raw: date, cal: BusinessCalendar) -> tuple[date, date | None, list[str]]:
    """Art. 66 §1: a deadline ending on a day without office hours, or on one on which the
    office closes before its normal hours (24 and 31 December, the office's early-closing
    dates), moves to the next business day with normal hours."""
    due = cal.next_full_business_day(raw)
    if due == raw:
        return due, None, [f"{fmt(raw)} é dia útil: sem prorrogação"]
    return due, raw, [_chain(raw, due, cal, ONE_DAY)
                      + f" (prorrogado para o primeiro dia útil seguinte, {ART66} §1)"]


def move_back(raw: date, cal: BusinessCalendar) -> tuple[date, date | None, list[str]]:
    """A deadline of minimum notice moves back to the previous business day."""
    due = cal.previous_business_day(raw)
    if due == raw:
        return due, None, [f"{fmt(raw)} é dia útil: sem antecipação"]
    return due, raw, [_chain(raw, due, cal, -ONE_DAY)
                      + " (antecipado para o dia útil anterior: prazo de antecedência mínima)"]


def _basis(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _days_after(rule: str, start: date, days: int, cal: BusinessCalendar, basis: str,
                event: str) -> Deadline:
    raw = start + timedelta(days=days)
    steps = [
        f"Termo inicial: {fmt(start)} ({event}), excluído da contagem ({ART66})",
        f"{fmt(start)} + {days} dias corridos = {fmt(raw)} ({ART66} §2)",
    ]
    due, moved, more = move_forward(raw, cal)
    steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    return Deadline(rule, due, _basis(basis, ART66), moved, tuple(steps))


def _months_after(rule: str, start: date, months: int, cal: BusinessCalendar, basis: str,
                  event: str) -> Deadline:
    raw, clamped = add_months(start, months)
    steps = [f"Termo inicial: {fmt(start)} ({event})"]
    line = f"{fmt(start)} + {months} meses, de data a data = {fmt(raw)} ({ART66} §3)"
    if clamped:
        line += f"; não há dia {start.day} em {fmt_month(raw)}: termo no último dia do mês"
    steps.append(line)
    due, moved, more = move_forward(raw, cal)
    steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    return Deadline(rule, due, _basis(basis, ART66), moved, tuple(steps))


# -- the rules of rules.md §7 -----------------------------------------------------------------
def monthly_report(period: date, cal: BusinessCalendar) -> Deadline:
    """Monthly activity report for the month of `period` (any day of it): due on the 10th
    business day of the following month. NORMAM-10 0301 c, 0303 e; 0302 b 2 (removal or
    demolition lasting over 60 days)."""
    n = law.MONTHLY_REPORT_BUSINESS_DAY.value
    first, _ = add_months(date(period.year, period.month, 1), 1)
    nth = cal.nth_business_day_of_month(first.year, first.month, n)
    closed = [f"{fmt(d)} ({cal.reason_closed(d)})"
              for d in (first + timedelta(days=i) for i in range((nth - first).days))
              if not cal.is_business_day(d)]
    steps = [
        f"Mês de referência: {fmt_month(period)}; entrega até o {n}º dia útil de {fmt_month(first)}",
        "Dias sem expediente desconsiderados: " + (", ".join(closed) if closed else "nenhum"),
        f"{n}º dia útil de {fmt_month(first)}: {fmt(nth)}",
    ]
    due, moved = nth, None
    if cal.is_early_closing(nth):  # it counts as a business day, but the period cannot end on it
        due, moved, more = move_forward(nth, cal)
        steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    basis = law.MONTHLY_REPORT_BUSINESS_DAY.basis if moved is None else _basis(
        law.MONTHLY_REPORT_BUSINESS_DAY.basis, f"{ART66} §1")
    return Deadline("monthly_report", due, basis, moved, tuple(steps))


def final_report(work_ended: date, cal: BusinessCalendar) -> Deadline:
    """Final report: 90 days after the end of the work (NORMAM-10 0301 c; 0302 b 3)."""
    return _days_after("final_report", work_ended, law.FINAL_REPORT_DAYS.value, cal,
                       law.FINAL_REPORT_DAYS.basis, "término dos trabalhos")


def extension_request(expires: date, cal: BusinessCalendar) -> Deadline:
    """Latest day to ask for an extension: at least 60 days before the authorisation
    expires (NORMAM-10 0304), moved back to the previous business day."""
    days = law.EXTENSION_REQUEST_DAYS_BEFORE.value
    raw = expires - timedelta(days=days)
    steps = [
        f"A autorização expira em {fmt(expires)}; pedido com antecedência mínima de {days} dias",
        f"{fmt(expires)} − {days} dias corridos = {fmt(raw)} ({ART66}, contagem regressiva)",
    ]
    due, moved, more = move_back(raw, cal)
    steps += more
    steps.append(f"Último dia para pedir a prorrogação: {fmt(due)}")
    return Deadline("extension_request", due, _basis(law.EXTENSION_REQUEST_DAYS_BEFORE.basis, ART66),
                    moved, tuple(steps))


def start_of_operations(fixed: date, cal: BusinessCalendar | None = None) -> Deadline:
    """Start of operations: the date fixed in the authorisation, not a period, so it is
    not moved; a late start cancels the authorisation (Lei 7.542 art. 22 I; NORMAM-10 0305 a)."""
    steps = (f"Data fixada na autorização: {fmt(fixed)} (data certa, sem prorrogação)",
             "Início após essa data: cancelamento da autorização (NORMAM-10 0305 a)",
             f"Vencimento: {fmt(fixed)}")
    return Deadline("start_of_operations", fixed, f"{law.L7542} art. 22 I; NORMAM-10 0305 a", None, steps)


def automatic_cancellation(reported_months: Iterable[date], authorised_from: date, authorised_to: date,
                           cal: BusinessCalendar) -> Deadline | None:
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
            second = monthly_report(month, cal)
            first = monthly_report(previous_missing, cal)
            candidate = second.due + ONE_DAY
            steps = (
                f"Relatório de {fmt_month(previous_missing)} não entregue (vencia em {fmt(first.due)})",
                f"Relatório de {fmt_month(month)} não entregue (vencia em {fmt(second.due)}): "
                "segundo mês consecutivo",
                f"Cancelamento automático a partir de {fmt(candidate)} (NORMAM-10 0305 f)",
            )
            return Deadline("automatic_cancellation", candidate,
                            _basis("NORMAM-10 0305 f", law.MONTHLY_REPORT_BUSINESS_DAY.basis), None, steps)
        month, _ = add_months(month, 1)
    return None


def preference_notice(published: date, cal: BusinessCalendar) -> Deadline:
    """Preference notice (edital): 15 days from publication (Lei 7.542 art. 16 §4; art. 9 §2)."""
    return _days_after("preference_notice", published, law.PREFERENCE_NOTICE_DAYS.value, cal,
                       law.PREFERENCE_NOTICE_DAYS.basis, "publicação do edital")


def owner_reclaim(recovered: date, cal: BusinessCalendar) -> Deadline:
    """Owner's reclaim of things removed on the owner's account: 30 days from the
    recovery (Lei 7.542 art. 12 §1)."""
    return _days_after("owner_reclaim", recovered, law.OWNER_RECLAIM_DAYS.value, cal,
                       law.OWNER_RECLAIM_DAYS.basis, "resgate")


def found_unclaimed(collected: date, cal: BusinessCalendar) -> Deadline:
    """Things found and handed in: unclaimed 30 days after collection (Lei 7.542 art. 29 §2)."""
    return _days_after("found_unclaimed", collected, law.FOUND_UNCLAIMED_DAYS.value, cal,
                       law.FOUND_UNCLAIMED_DAYS.basis, "recolhimento")


def found_proceeds(sold: date, cal: BusinessCalendar) -> Deadline:
    """Proceeds of sold found things: held 6 months from the sale, then União revenue
    (Lei 7.542 art. 29 §3)."""
    return _months_after("found_proceeds", sold, law.FOUND_PROCEEDS_MONTHS.value, cal,
                         law.FOUND_PROCEEDS_MONTHS.basis, "venda")


def tourism_notice(excursion: date, cal: BusinessCalendar) -> Deadline:
    """Underwater tourism: notice at least 10 business days before the excursion
    (NORMAM-10 0307; Lei 7.542 art. 32 §2). The latest day to notify is the 10th
    business day counted backwards from the day before the excursion (that day counts
    as the first when it is a business day; the excursion day never counts)."""
    n = law.TOURISM_NOTICE_BUSINESS_DAYS.value
    days: list[date] = []
    skipped: list[str] = []
    d = excursion
    while len(days) < n:
        d -= ONE_DAY
        if cal.is_business_day(d):
            days.append(d)
        else:
            skipped.append(f"{fmt(d)} ({cal.reason_closed(d)})")
    due = days[-1]
    steps = (
        f"Excursão em {fmt(excursion)}; comunicação com antecedência mínima de {n} dias úteis",
        f"Contagem regressiva a partir da véspera ({fmt(excursion - ONE_DAY)}), sem contar o dia da excursão",
        "Dias úteis contados: " + ", ".join(f"{i}º {fmt(x)}" for i, x in enumerate(days, 1)),
        "Dias sem expediente desconsiderados: " + (", ".join(skipped) if skipped else "nenhum"),
        f"Último dia para comunicar: {fmt(due)}",
    )
    return Deadline("tourism_notice", due, _basis(law.TOURISM_NOTICE_BUSINESS_DAYS.basis, ART66), None, steps)


def wreck_map(year: int, cal: BusinessCalendar) -> Deadline:
    """Annual map of wrecks of `year`: due 15 February of the next year (NORMAM-10 0404),
    moved forward to a business day (art. 66 §1)."""
    month, day = law.WRECK_MAP_DAY.value
    raw = date(year + 1, month, day)
    steps = [f"Mapa de embarcações naufragadas de {year}: até {fmt(raw)} (15 de fevereiro do ano seguinte)"]
    due, moved, more = move_forward(raw, cal)
    steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    return Deadline("wreck_map", due, _basis(law.WRECK_MAP_DAY.basis, ART66), moved, tuple(steps))


def court_inquiry_opening(known: date, cal: BusinessCalendar) -> Deadline:
    """Inquiry opened within 5 days of learning of the casualty (Lei 2.180 art. 33 §2)."""
    return _days_after("court_inquiry_opening", known, law.COURT_INQUIRY_OPENING_DAYS.value, cal,
                       law.COURT_INQUIRY_OPENING_DAYS.basis, "conhecimento do acidente ou fato da navegação")


def court_inquiry_report(last_step: date, cal: BusinessCalendar) -> Deadline:
    """Inquiry report: 10 days after the last step (diligência) is concluded (Lei 2.180 art. 37)."""
    return _days_after("court_inquiry_report", last_step, law.COURT_INQUIRY_REPORT_DAYS.value, cal,
                       law.COURT_INQUIRY_REPORT_DAYS.basis, "conclusão das diligências")


def court_prior_defence(notified: date, cal: BusinessCalendar) -> Deadline:
    """Prior defence: 10 days from notice of the report's conclusions (Lei 2.180 art. 38)."""
    return _days_after("court_prior_defence", notified, law.COURT_PRIOR_DEFENCE_DAYS.value, cal,
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
        f"{fmt(occurred)} + {first} dias = {fmt(day_180)} (fim do prazo de {first} dias)",
        f"Janela de {span} dias subsequentes: {fmt(start)} a {fmt(raw_end)}",
    ]
    end, moved, more = move_forward(raw_end, cal)
    steps += more
    steps.append(f"Representação possível de {fmt(start)} a {fmt(end)}, se o inquérito não tiver "
                 "entrado no Tribunal até o fim do prazo de 180 dias")
    return Window("court_private_representation", start, end,
                  _basis(law.COURT_PRIVATE_REPRESENTATION_DAYS.basis, ART66), moved, tuple(steps))


def lapse_start(casualty_date: date) -> date:
    """The day the five years start: the casualty (Lei 7.542 art. 6, "a contar da data do
    sinistro"), or the law's entry into force, 29/09/1986 (art. 37), for a casualty before
    it: a period that a new law creates for past facts runs from its entry into force,
    never before it (rules.md §1)."""
    published: date = law.LAW_PUBLISHED.value
    return max(casualty_date, published)


def _start_steps(casualty_date: date, start: date, years: int, raw: date, clamped: bool) -> list[str]:
    steps = [f"Data do sinistro: {fmt(casualty_date)}"]
    if start != casualty_date:
        steps.append(f"Sinistro anterior à entrada em vigor da Lei 7.542/1986 ({fmt(start)}, art. 37): "
                     "o prazo criado pela lei corre a partir dessa data, nunca antes dela")
    line = f"{fmt(start)} + {years} anos, de data a data = {fmt(raw)} ({ART66} §3)"
    if clamped:
        line += f"; não há dia {start.day} em {fmt_month(raw)}: termo no último dia do mês"
    steps.append(line)
    return steps


def _until(e: date | None) -> str:
    return "sem data final (em curso)" if e is None else fmt(e)


def lapse_count(casualty_date: date, suspensions: Iterable[Interval]) -> LapseCount:
    """The five years of Lei 7.542 arts. 6 and 7 before the business-day move.

    Start (`lapse_start`: the casualty, or 29/09/1986 for an older casualty) + 5 years date
    to date (art. 66 §3; 29 Feb → 28 Feb), plus the distinct days covered by the suspensions
    of art. 6 sole paragraph (inclusive intervals, merged where they overlap or touch). Only
    days after the start count (the start day is not in the period). A suspension that
    begins after the period has already ended cannot suspend it and is ignored (the right
    had already lapsed). A suspension with no end (end None: a removal in progress, an
    Authority order still running) stops the clock: `extended` is None, no due date yet."""
    years = law.LAPSE_YEARS.value
    start = lapse_start(casualty_date)
    raw, clamped = add_years(start, years)
    steps = _start_steps(casualty_date, start, years, raw, clamped)
    clipped: list[Interval] = []
    after = start + ONE_DAY
    for s, e in suspensions:
        if e is not None and e < s:
            raise ValueError(f"suspension ends ({e}) before it starts ({s})")
        if e is not None and e < after:
            steps.append(f"Suspensão de {fmt(s)} a {fmt(e)} anterior ao início do prazo: desconsiderada")
            continue
        if s < after:
            steps.append(f"Suspensão de {fmt(s)} a {_until(e)} contada a partir de {fmt(after)} "
                         "(o dia do início não integra o prazo)")
            s = after
        clipped.append((s, e))
    merged = merge_intervals(clipped)
    running = raw
    effective: list[Interval] = []
    ignored: list[Interval] = []
    open_since: date | None = None
    for s, e in merged:
        if s > running:
            ignored.append((s, e))
            steps.append(f"Suspensão de {fmt(s)} a {_until(e)} começou depois de {fmt(running)}, "
                         "quando o prazo já se esgotara: não o suspende")
            continue
        effective.append((s, e))
        if e is None:
            open_since = s
            break
        running += timedelta(days=interval_days(s, e))
    total = sum(interval_days(s, e) for s, e in effective if e is not None)
    if merged:
        listed = "; ".join(f"{fmt(s)} a {fmt(e)} ({interval_days(s, e)} dias)" if e is not None
                           else f"desde {fmt(s)}, em curso" for s, e in effective)
        if open_since is None:
            steps.append(f"Suspensões (art. 6 parágrafo único), unidas as sobrepostas: "
                         f"{listed or 'nenhuma eficaz'}; total {total} dias distintos")
        else:
            steps.append(f"Suspensões (art. 6 parágrafo único), unidas as sobrepostas: {listed}"
                         + (f"; {total} dias distintos antes da suspensão em curso" if total else ""))
        if open_since is None:
            steps.append(f"{fmt(raw)} + {total} dias = {fmt(running)}")
    else:
        steps.append("Sem suspensões (art. 6 parágrafo único)")
    if open_since is not None:
        steps.append(f"Suspensão em curso desde {fmt(open_since)}, sem data final: o prazo está parado "
                     "e não há vencimento enquanto ela durar")
    return LapseCount(casualty_date, raw, merged, tuple(effective), tuple(ignored), total,
                      None if open_since else running, tuple(steps), start, open_since)


def five_year_lapse(casualty_date: date, suspensions: Iterable[Interval],
                    cal: BusinessCalendar) -> Deadline:
    """Last day on which the owner may still request a licence (Lei 7.542 art. 4): the
    start (the casualty, or 29/09/1986 for an older casualty) + 5 years + suspended days
    (arts. 6 and 7; `lapse_count`), moved forward to a business day (art. 66 §1). The things
    pass to the União the next day (art. 7). While a suspension with no end is running the
    clock is stopped: `due` is None."""
    count = lapse_count(casualty_date, suspensions)
    steps = list(count.steps)
    basis = _basis(f"{law.L7542} arts. 6 e 7",
                   f"{law.L7542} art. 37" if count.start != casualty_date else "",
                   f"{law.L7542} art. 6 parágrafo único" if count.effective else "", ART66)
    if count.extended is None:
        steps.append("Último dia para requerer a licença: ainda sem data (prazo suspenso)")
        return Deadline("five_year_lapse", None, basis, None, tuple(steps))
    due, moved, more = move_forward(count.extended, cal)
    steps += more
    steps.append(f"Último dia para requerer a licença: {fmt(due)}")
    return Deadline("five_year_lapse", due, basis, moved, tuple(steps))


def appeal(notified: date, cal: BusinessCalendar) -> Deadline:
    """Request for reconsideration or appeal against a decision taken under Lei 7.542: 10
    days from the notification or official publication of the decision, without suspensive
    effect (Lei 7.542 art. 33; Lei 9.784/1999 art. 59 caput, which fixes the period the
    special law leaves open, art. 69)."""
    return _days_after("appeal", notified, law.APPEAL_DAYS.value, cal, law.APPEAL_DAYS.basis,
                       "ciência ou divulgação oficial da decisão")


def appeal_decision(received: date, extended: bool, cal: BusinessCalendar) -> Deadline:
    """Decision on an appeal: 30 days from the receipt of the case by the deciding
    authority (Lei 9.784/1999 art. 59 §1), 60 when expressly extended by an equal period
    (art. 59 §2)."""
    days = law.APPEAL_DECISION_DAYS.value * (2 if extended else 1)
    basis = law.APPEAL_DECISION_DAYS.basis + ("; §2 (prorrogado por igual período)" if extended else "")
    return _days_after("appeal_decision", received, days, cal, basis,
                       "recebimento dos autos pelo órgão competente")


def owner_balance(casualty_date: date, cal: BusinessCalendar) -> Deadline:
    """Balance owed to the owner after the Authority disposed of the things on the owner's
    account: held at the owner's disposal until 5 years from the casualty (date to date),
    then União revenue (Lei 7.542 art. 13 §2). For a casualty before the law's entry into
    force the five years run from 29/09/1986 (art. 37), as for the lapse of art. 6."""
    years = law.LAPSE_YEARS.value
    start = lapse_start(casualty_date)
    raw, clamped = add_years(start, years)
    steps = _start_steps(casualty_date, start, years, raw, clamped)
    due, moved, more = move_forward(raw, cal)
    steps += more
    steps.append(f"Saldo à disposição do responsável até {fmt(due)}; depois, receita da União")
    basis = _basis(law.OWNER_BALANCE_YEARS.basis, f"{law.L7542} art. 37" if start != casualty_date else "", ART66)
    return Deadline("owner_balance", due, basis, moved, tuple(steps))


def deadline_state(due: date, as_of: date, met_on: date | None = None, waived_reason: str | None = None,
                   due_soon_days: int = 15) -> str:
    """State of a deadline on `as_of` (rules.md §7): waived, met (on or before as_of),
    overdue (as_of after due), due_soon (due within `due_soon_days` days, a policy), upcoming."""
    if waived_reason:
        return "waived"
    if met_on is not None and met_on <= as_of:
        return "met"
    if as_of > due:
        return "overdue"
    if (due - as_of).days <= due_soon_days:
        return "due_soon"
    return "upcoming"
