"""Who owns a wreck on a given day: the owner (private) or the União (rules.md §1).

Order of the rules (cli.md, domain-status):

1. Lei 7.542 art. 32 §1: wooden-hull wrecks sunk in the 16th–18th centuries
   (1501–1800) → União from the law's publication, 29/09/1986.
2. Art. 32 caput: casualty more than 20 years before publication (before 29/09/1966)
   and no request within 1 year of publication (by 29/09/1987) → União from
   30/09/1987. A timely request keeps the things private (the five-year lapse of
   art. 6 does not apply to these old casualties: art. 32 is their transitional rule).
3. The owner declares the thing lost → União from the declaration (art. 3 I, art. 7).
4. Five-year lapse (arts. 6 and 7; `valuation.deadlines.five_year_lapse`): without a
   licence request on or before the due date, União from the next day. The União
   cannot acquire under this law before it was published, so that day is never
   earlier than 29/09/1986.

Events after `as_of` have not happened yet. The Maritime Court suspension
(Lei 2.180 art. 20) is a policy (default off): pass `court_pending` to apply it.
"""
from __future__ import annotations

import calendar as _stdcal
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from valuation import law
from valuation.calendar import BusinessCalendar
from valuation.deadlines import five_year_lapse, fmt, lapse_count

PRIVATE, UNION = "private", "union"
WOODEN_HULLS = frozenset({"wood", "wooden", "madeira", "casco de madeira", "de madeira"})
PRECISIONS: tuple[str, ...] = ("day", "month", "year", "century")

_ONE = timedelta(days=1)
_B_ART32_1 = f"{law.L7542} art. 32 §1"
_B_ART32 = f"{law.L7542} art. 32 caput"
_B_LOSS = f"{law.L7542} art. 3 I e art. 7; NORMAM-10 0104"
_B_LAPSE = f"{law.L7542} arts. 6 e 7"
_B_LICENCE = f"{law.L7542} art. 4 (licença requerida no prazo)"


@dataclass(frozen=True)
class DomainStatus:
    """Owner on `as_of`: 'private' or 'union'; `since` the day the União acquired (None
    while private); `lapse_due` the last day to request a licence when the five-year
    lapse was evaluated; `steps` explain it in pt-BR."""

    owner: str
    since: date | None
    basis: tuple[str, ...]
    lapse_due: date | None
    steps: tuple[str, ...]


@dataclass(frozen=True)
class DomainStatusRange:
    """Domain status for an uncertain casualty date, computed at both bounds (and at the
    legal thresholds between them). `owner` is 'private', 'union' or 'uncertain'."""

    earliest_casualty: date
    latest_casualty: date
    earliest: DomainStatus
    latest: DomainStatus
    differs: bool
    owner: str
    owners: tuple[str, ...]
    since_min: date | None
    since_max: date | None
    outcomes: tuple[tuple[date, DomainStatus], ...]


def is_wooden(hull: str | None) -> bool:
    """'wood', 'wooden', 'madeira' (any case) mean a wooden hull."""
    return hull is not None and hull.strip().lower() in WOODEN_HULLS


def union_from_art32_caput() -> date:
    """30/09/1987: the day after the last day of art. 32's one-year request period."""
    return law.ART32_REQUEST_LAST_DAY.value + _ONE


def domain_status(as_of: date, casualty_date: date, hull: str | None, owner_declared_lost: date | None,
                  owner_licence_requested: date | None, suspensions: Iterable[tuple[date, date]],
                  calendar: BusinessCalendar,
                  court_pending: tuple[date, date | None] | None = None) -> DomainStatus:
    """Owner of a wreck's things on `as_of` (Lei 7.542 arts. 3, 6, 7, 32; rules.md §1).

    `suspensions`: inclusive intervals of art. 6 sole paragraph. `court_pending`: the
    interval during which the Maritime Court had not decided the casualty (end None:
    still pending); applied only when given (policy `court_pending_suspends_lapse`,
    Lei 2.180 art. 20). ValueError when the casualty is after `as_of`."""
    if casualty_date > as_of:
        raise ValueError("the casualty is after as_of")
    steps: list[str] = [f"Situação em {fmt(as_of)}; sinistro em {fmt(casualty_date)}"]
    published: date = law.LAW_PUBLISHED.value
    declared = owner_declared_lost if owner_declared_lost is not None and owner_declared_lost <= as_of else None
    requested = (owner_licence_requested
                 if owner_licence_requested is not None and owner_licence_requested <= as_of else None)
    if owner_declared_lost is not None and declared is None:
        steps.append(f"Declaração de perda em {fmt(owner_declared_lost)}: posterior à data de referência, desconsiderada")
    if owner_licence_requested is not None and requested is None:
        steps.append(f"Pedido de licença em {fmt(owner_licence_requested)}: posterior à data de referência, desconsiderado")

    def private(basis: tuple[str, ...], lapse_due: date | None = None) -> DomainStatus:
        return DomainStatus(PRIVATE, None, basis, lapse_due, tuple(steps))

    def union(since: date, basis: tuple[str, ...], lapse_due: date | None = None) -> DomainStatus:
        steps.append(f"Domínio da União desde {fmt(since)}")
        return DomainStatus(UNION, since, basis, lapse_due, tuple(steps))

    def by_declaration() -> DomainStatus | None:
        if declared is None:
            return None
        steps.append(f"O responsável declarou a coisa perdida em {fmt(declared)} (art. 3 I, art. 7)")
        return union(declared, (_B_LOSS,))

    # 1. art. 32 §1 — wooden hulls sunk in the 16th, 17th and 18th centuries
    lo, hi = law.ART32_WOODEN_HULL_YEARS.value
    if is_wooden(hull) and lo <= casualty_date.year <= hi:
        steps.append(f"Casco de madeira afundado em {casualty_date.year} (séculos XVI–XVIII, {lo}–{hi}): "
                     "incorporado automaticamente ao domínio da União (art. 32 §1)")
        if as_of >= published:
            return union(published, (_B_ART32_1, law.LAW_PUBLISHED.basis))
        steps.append(f"A Lei 7.542/1986 só foi publicada em {fmt(published)}: incorporação ainda não ocorrida")
        return by_declaration() or private((_B_ART32_1, law.LAW_PUBLISHED.basis))
    if is_wooden(hull):
        steps.append(f"Casco de madeira, mas afundado em {casualty_date.year}, fora dos séculos XVI–XVIII: "
                     "art. 32 §1 não se aplica")

    # 2. art. 32 caput — casualties more than 20 years before publication
    threshold: date = law.ART32_OLD_CASUALTY_BEFORE.value
    last_request: date = law.ART32_REQUEST_LAST_DAY.value
    if casualty_date < threshold:
        steps.append(f"Sinistro anterior a {fmt(threshold)} (mais de 20 anos antes da publicação da lei): art. 32 caput")
        if requested is not None and requested <= last_request:
            steps.append(f"Autorização requerida em {fmt(requested)}, até {fmt(last_request)}: "
                         "não houve incorporação pelo art. 32")
            return by_declaration() or private((_B_ART32, _B_LICENCE))
        since = union_from_art32_caput()
        if as_of >= since:
            steps.append(f"Nenhum pedido até {fmt(last_request)} (1 ano da publicação)")
            return union(since, (_B_ART32,))
        steps.append(f"Prazo de 1 ano para requerer ainda em curso (até {fmt(last_request)})")
        return by_declaration() or private((_B_ART32,))

    # 3. declaration of loss
    found = by_declaration()
    if found is not None:
        return found

    # 4. five-year lapse
    intervals = list(suspensions)
    open_court = False
    basis: tuple[str, ...] = (_B_LAPSE,)
    if court_pending is not None and court_pending[0] > as_of:
        steps.append(f"Processo no Tribunal Marítimo iniciado em {fmt(court_pending[0])}: "
                     "posterior à data de referência, desconsiderado")
    elif court_pending is not None:
        c_start, c_end = court_pending
        if c_end is None:
            open_court = True
            c_end = as_of
            steps.append(f"Tribunal Marítimo sem decisão definitiva desde {fmt(c_start)}: "
                         f"prescrição suspensa ({law.COURT_PENDING_SUSPENDS})")
        else:
            steps.append(f"Tribunal Marítimo pendente de {fmt(c_start)} a {fmt(c_end)}: "
                         f"prazo suspenso ({law.COURT_PENDING_SUSPENDS})")
        intervals.append((c_start, c_end))
        basis += (law.COURT_PENDING_SUSPENDS,)
    deadline = five_year_lapse(casualty_date, intervals, calendar)
    steps.extend(deadline.steps)
    basis = (deadline.basis,) + basis[1:]
    if open_court:
        count = lapse_count(casualty_date, intervals)
        court_effective = any(s <= as_of <= e for s, e in count.effective)
        if court_effective:
            steps.append("Processo no Tribunal Marítimo ainda pendente: o prazo continua suspenso, "
                         "sem data final")
            if requested is not None:
                steps.append(f"Licença requerida em {fmt(requested)}, dentro do prazo")
                return private(basis + (_B_LICENCE,))
            return private(basis)
    due = deadline.due
    if requested is not None and requested <= due:
        steps.append(f"Licença requerida em {fmt(requested)}, até o último dia ({fmt(due)}): "
                     "o responsável conserva a propriedade")
        return private(basis + (_B_LICENCE,), due)
    if requested is not None:
        steps.append(f"Licença requerida em {fmt(requested)}, depois do último dia ({fmt(due)}): intempestiva")
    since = due + _ONE
    if since < published:
        steps.append(f"O prazo terminou antes da publicação da Lei 7.542/1986: a incorporação "
                     f"só se dá em {fmt(published)}")
        since = published
        basis += (law.LAW_PUBLISHED.basis,)
    if as_of >= since:
        steps.append("Presunção legal de renúncia à propriedade (art. 7)")
        return union(since, basis, due)
    steps.append(f"Prazo em curso: sem pedido de licença até {fmt(due)}, a União adquire em {fmt(since)}")
    return private(basis, due)


def casualty_bounds(year: int, month: int | None = None, day: int | None = None,
                    precision: str = "day") -> tuple[date, date]:
    """Earliest and latest possible casualty date for a date known to a `precision`
    (rules.md §1). Centuries are ordinal: 1712 → 1701-01-01 … 1800-12-31 (as art. 32 §1)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}")
    if not 1 <= year <= 9999:
        raise ValueError("year out of range")
    if precision == "century":
        c = (year - 1) // 100 + 1
        return date((c - 1) * 100 + 1, 1, 1), date(min(c * 100, 9999), 12, 31)
    if precision == "year":
        return date(year, 1, 1), date(year, 12, 31)
    if month is None:
        raise ValueError("month is required for precision day or month")
    if precision == "month":
        return date(year, month, 1), date(year, month, _stdcal.monthrange(year, month)[1])
    if day is None:
        raise ValueError("day is required for precision day")
    d = date(year, month, day)
    return d, d


def _thresholds() -> tuple[date, ...]:
    lo, hi = law.ART32_WOODEN_HULL_YEARS.value
    t: date = law.ART32_OLD_CASUALTY_BEFORE.value
    return (date(lo - 1, 12, 31), date(lo, 1, 1), date(hi, 12, 31), date(hi + 1, 1, 1), t - _ONE, t)


def domain_status_range(as_of: date, earliest: date, latest: date, hull: str | None,
                        owner_declared_lost: date | None, owner_licence_requested: date | None,
                        suspensions: Iterable[tuple[date, date]], calendar: BusinessCalendar,
                        court_pending: tuple[date, date | None] | None = None) -> DomainStatusRange:
    """Domain status when the casualty date is only known between `earliest` and `latest`
    (rules.md §1: compute with both bounds; show a range where the outcome differs).
    The latest bound is capped at `as_of`; the legal thresholds inside the range
    (1500/1501, 1800/1801, 28-29/09/1966) are evaluated too."""
    if latest < earliest:
        raise ValueError("latest casualty bound is before the earliest")
    if earliest > as_of:
        raise ValueError("the casualty is after as_of")
    latest = min(latest, as_of)
    susp = list(suspensions)
    points = sorted({earliest, latest, *(t for t in _thresholds() if earliest < t < latest)})
    outcomes = tuple((p, domain_status(as_of, p, hull, owner_declared_lost, owner_licence_requested,
                                       susp, calendar, court_pending)) for p in points)
    owners = tuple(sorted({o.owner for _, o in outcomes}))
    sinces = [o.since for _, o in outcomes if o.since is not None]
    differs = len({(o.owner, o.since) for _, o in outcomes}) > 1
    return DomainStatusRange(
        earliest_casualty=earliest, latest_casualty=latest,
        earliest=outcomes[0][1], latest=outcomes[-1][1], differs=differs,
        owner=owners[0] if len(owners) == 1 else "uncertain", owners=owners,
        since_min=min(sinces) if sinces else None, since_max=max(sinces) if sinces else None,
        outcomes=outcomes,
    )


__all__ = [
    "DomainStatus", "DomainStatusRange", "PRIVATE", "UNION", "casualty_bounds", "domain_status",
    "domain_status_range", "is_wooden",
]
