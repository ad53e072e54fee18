"""The five years of Lei 7.542 arts. 6 and 7 (the owner's right to a licence lapses) and the
owner's balance of art. 13 §2, both counted from the casualty (or, for a casualty before the law,
from its entry into force: art. 37), date to date. They are periods of substantive law, not of the
administrative process: a missing day in the final month ends them on the first day after it (Lei
810/1949 art. 3; Código Civil art. 132 §3 — 29/02/2020 + 5 years is 01/03/2025), and an end on a
day without office hours moves to the next business day (CC art. 132 §1;
docs/decisions/106-periods-of-substantive-law.md).

Pure: no database, no clock. `valuation.registry.domain.status` decides the domain from them.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.deadlines.counting import (
    ONE_DAY,
    Deadline,
    Interval,
    add_years_substantive,
    days_text,
    fmt,
    interval_days,
    join_basis,
    merge_intervals,
    month_end_step,
    move_forward,
    with_edited,
)

COUNTING = law.SUBSTANTIVE_COUNTING     # Lei 810/1949 art. 3; Código Civil art. 132 §§1 e 3


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
    line = f"{fmt(start)} + {years} anos, de data a data = {fmt(raw)} ({law.SUBSTANTIVE_MONTH_END})"
    if clamped:
        line += "; " + month_end_step(start, raw, substantive=True)
    steps.append(line)
    return steps


def _span(s: date, e: date | None) -> str:
    """'de 02/03/2015 a 11/03/2015', or 'desde 02/03/2015 (em curso, sem data final)'."""
    return f"desde {fmt(s)} (em curso, sem data final)" if e is None else f"de {fmt(s)} a {fmt(e)}"


def _clip(suspensions: Iterable[Interval], after: date, steps: list[str]) -> list[Interval]:
    """The suspensions from `after` (the day after the start) on; those that ended before it dropped."""
    clipped: list[Interval] = []
    for s, e in suspensions:
        if e is not None and e < s:
            raise ValueError(f"suspension ends ({e}) before it starts ({s})")
        if e is not None and e < after:
            steps.append(f"Suspensão de {fmt(s)} a {fmt(e)} anterior ao início do prazo: desconsiderada")
            continue
        if s < after:
            steps.append(f"Suspensão {_span(s, e)} contada a partir de {fmt(after)} "
                         "(o dia do início não integra o prazo)")
            s = after
        clipped.append((s, e))
    return clipped


def _summary(raw: date, running: date, merged: tuple[Interval, ...], effective: list[Interval], total: int,
             open_since: date | None) -> list[str]:
    if not merged:
        return ["Sem suspensões (art. 6 parágrafo único)"]
    listed = "; ".join(f"{fmt(s)} a {fmt(e)} ({days_text(interval_days(s, e))})" if e is not None
                       else f"desde {fmt(s)}, em curso" for s, e in effective)
    if open_since is not None:
        return [f"Suspensões (art. 6 parágrafo único), unidas as sobrepostas: {listed}"
                + (f"; {total} dias distintos antes da suspensão em curso" if total else "")]
    return [f"Suspensões (art. 6 parágrafo único), unidas as sobrepostas: {listed or 'nenhuma eficaz'}; "
            f"total {total} dias distintos", f"{fmt(raw)} + {days_text(total)} = {fmt(running)}"]


def _standing(running: date, cal: BusinessCalendar) -> date:
    """The period's last day as it stands (`running`, the raw end plus the days already
    suspended), moved forward to a business day (art. 66 §1): the period still runs on it."""
    return cal.next_full_business_day(running)


def lapse_count(casualty_date: date, suspensions: Iterable[Interval], cal: BusinessCalendar) -> LapseCount:
    """The five years of Lei 7.542 arts. 6 and 7 before the final business-day move.

    Start (`lapse_start`: the casualty, or 29/09/1986 for an older casualty) + 5 years date
    to date (Lei 810/1949 art. 3; 29 Feb → 1 Mar), plus the distinct days covered by the suspensions
    of art. 6 sole paragraph (inclusive intervals, merged where they overlap or touch). Only
    days after the start count (the start day is not in the period). A suspension counts when
    it begins on or before the period's last day as it stands with the suspensions before it,
    moved forward to a business day (CC art. 132 §1: the period still runs on that day);
    one that begins later cannot suspend a period already over and is ignored. A suspension
    with no end (end None: a removal in progress, an Authority order still running) stops the
    clock: `extended` is None, no due date yet."""
    years = law.LAPSE_YEARS.value
    start = lapse_start(casualty_date)
    raw, clamped = add_years_substantive(start, years)
    steps = _start_steps(casualty_date, start, years, raw, clamped)
    merged = merge_intervals(_clip(suspensions, start + ONE_DAY, steps))
    running = raw
    effective: list[Interval] = []
    ignored: list[Interval] = []
    open_since: date | None = None
    for s, e in merged:
        standing = _standing(running, cal)
        if s > standing:
            ignored.append((s, e))
            steps.append(f"Suspensão {_span(s, e)} começou depois de {fmt(standing)}, último dia do "
                         f"prazo, quando ele já se esgotara: não o suspende")
            continue
        if s > running:
            steps.append(f"Suspensão {_span(s, e)}: o prazo terminaria em {fmt(running)}, dia sem "
                         f"expediente normal, e corria até {fmt(standing)} ({law.SUBSTANTIVE_MOVE}): a suspensão conta")
        effective.append((s, e))
        if e is None:
            open_since = s
            break
        running += timedelta(days=interval_days(s, e))
    total = sum(interval_days(s, e) for s, e in effective if e is not None)
    steps += _summary(raw, running, merged, effective, total, open_since)
    if open_since is not None:
        steps.append(f"Suspensão em curso desde {fmt(open_since)}, sem data final: o prazo está parado "
                     "e não há vencimento enquanto ela durar")
    return LapseCount(casualty_date, raw, merged, tuple(effective), tuple(ignored), total,
                      None if open_since else running, tuple(steps), start, open_since)


def art32_applies(casualty_date: date) -> bool:
    """True for a casualty more than 20 years before the law's publication (before
    29/09/1966): Lei 7.542 art. 32 caput, not the five years of art. 6, is its rule."""
    old: date = law.ART32_OLD_CASUALTY_BEFORE.value
    return casualty_date < old


def _art32_request(casualty_date: date, suspensions: Iterable[Interval]) -> Deadline:
    """Art. 32 caput: the owner of things lost more than 20 years before the law could ask for an
    authorisation within 1 year of its publication, until 29/09/1987 — a fixed day, whatever the
    suspensions (art. 6 sole paragraph suspends art. 6's five years, not art. 32's year)."""
    last: date = law.ART32_REQUEST_LAST_DAY.value
    threshold: date = law.ART32_OLD_CASUALTY_BEFORE.value
    steps = [f"Data do sinistro: {fmt(casualty_date)}",
             f"Sinistro anterior a {fmt(threshold)}, mais de 20 anos antes da publicação da Lei 7.542/1986 "
             f"({fmt(law.LAW_PUBLISHED.value)}): vale o art. 32 caput, não o prazo de "
             f"{law.years_text(law.LAPSE_YEARS.value)} do art. 6",
             f"Prazo de 1 ano a contar da publicação, de data a data: até {fmt(last)}"]
    if any(True for _ in suspensions):
        steps.append("As suspensões do art. 6 parágrafo único não alteram o prazo do art. 32: desconsideradas")
    steps.append(f"Último dia para requerer a autorização: {fmt(last)}; sem pedido, as coisas se consideram "
                 f"incorporadas ao domínio da União em {fmt(last + ONE_DAY)}")
    return Deadline("five_year_lapse", last, law.ART32_REQUEST_LAST_DAY.basis, None, tuple(steps))


def five_year_lapse(casualty_date: date, suspensions: Iterable[Interval],
                    cal: BusinessCalendar) -> Deadline:
    """Last day on which the owner may still request a licence (Lei 7.542 art. 4): the
    start (the casualty, or 29/09/1986 for an older casualty) + 5 years + suspended days
    (arts. 6 and 7; `lapse_count`), moved forward to a business day (CC art. 132 §1). The things
    pass to the União the next day (art. 7). While a suspension with no end is running the
    clock is stopped: `due` is None. A casualty before 29/09/1966 follows art. 32 caput: the
    last day was 29/09/1987, whatever the suspensions."""
    if art32_applies(casualty_date):
        return _art32_request(casualty_date, suspensions)
    count = lapse_count(casualty_date, suspensions, cal)
    steps = list(count.steps)
    basis = join_basis(f"{law.L7542} arts. 6 e 7",
                   f"{law.L7542} art. 37" if count.start != casualty_date else "",
                   f"{law.L7542} art. 6 parágrafo único" if count.effective else "", COUNTING)
    if count.extended is None:
        steps.append("Último dia para requerer a licença: ainda sem data (prazo suspenso)")
        return Deadline("five_year_lapse", None, basis, None, tuple(steps))
    due, moved, more = move_forward(count.extended, cal, law.SUBSTANTIVE_MOVE)
    steps += more
    steps.append(f"Último dia para requerer a licença: {fmt(due)}")
    steps = with_edited(steps, cal, count.extended, due)
    return Deadline("five_year_lapse", due, basis, moved, tuple(steps))


def owner_balance(casualty_date: date, cal: BusinessCalendar) -> Deadline:
    """Balance owed to the owner after the Authority disposed of the things on the owner's
    account: held at the owner's disposal until 5 years from the casualty (date to date),
    then União revenue (Lei 7.542 art. 13 §2). For a casualty before the law's entry into
    force the five years run from 29/09/1986 (art. 37), as for the lapse of art. 6; a missing day in the final
    month ends them on the first day after it (Lei 810/1949 art. 3)."""
    years = law.OWNER_BALANCE_YEARS.value
    start = lapse_start(casualty_date)
    raw, clamped = add_years_substantive(start, years)
    steps = _start_steps(casualty_date, start, years, raw, clamped)
    due, moved, more = move_forward(raw, cal, law.SUBSTANTIVE_MOVE)
    steps += more
    steps.append(f"Saldo à disposição do responsável até {fmt(due)}; depois, receita da União")
    steps = with_edited(steps, cal, raw, due)
    basis = join_basis(law.OWNER_BALANCE_YEARS.basis, f"{law.L7542} art. 37" if start != casualty_date else "",
                       COUNTING)
    return Deadline("owner_balance", due, basis, moved, tuple(steps))
