"""Who owns a wreck on a given day: the owner (private) or the União (rules.md §1).

The União acquires on the **earliest** of the events that happened by `as_of`
(cli.md, domain-status; Lei 7.542 arts. 3 I, 6, 7, 32): once the things are the
União's, a later event changes nothing.

- Art. 32 §1: wooden-hull wrecks sunk in the 16th–18th centuries (1501–1800) → União
  from the law's publication, 29/09/1986.
- Art. 32 caput: casualty more than 20 years before publication (before 29/09/1966)
  and no request within 1 year of publication (by 29/09/1987) → União from
  30/09/1987. A timely request keeps the things private (the five-year lapse of
  art. 6 does not apply to these old casualties: art. 32 is their transitional rule).
- The owner declares the thing lost → União from the declaration (art. 3 I; NORMAM-10
  0104 b), never before the law's entry into force (29/09/1986, art. 37).
- Five-year lapse (arts. 6 and 7; `valuation.deadlines.rules.five_year_lapse`): without a
  licence request on or before the due date, União from the next day. For a casualty
  before 29/09/1986 that art. 32 does not cover, the five years run from that day.
  While a suspension with no end is running (art. 6 sole paragraph I–II: a removal in
  progress, an Authority order) the clock is stopped: no due date, the lapse cannot
  complete and the things stay private (`lapse_suspended`).

- A site registered as an archaeological site → União from the registration (Constituição art. 20 X;
  Lei 3.924/1961; `valuation.core.archaeology`), whatever the five years: a timely request or a
  suspension still running does not keep it private.

Events after `as_of` have not happened yet. The Maritime Court suspension
(Lei 2.180 art. 20) is a policy (on by default in the store): pass `court_pending` to apply it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from valuation.core import law
from valuation.core.archaeology import SiteRegistration, site_acquisition
from valuation.core.calendar import BusinessCalendar
from valuation.core.casualty import is_wooden
from valuation.core.money import format_date_br as fmt
from valuation.deadlines.rules import Interval, five_year_lapse

PRIVATE, UNION = "private", "union"
HULLS: tuple[str, ...] = ("wood", "steel", "other")  # the CLI's enumeration (cli.md, domain-status)

_ONE = timedelta(days=1)
_LAPSE = law.years_text(law.LAPSE_YEARS.value)          # '5 anos' (arts. 6 e 7)
_B_ART32_1 = f"{law.L7542} art. 32 §1"
_B_ART32 = f"{law.L7542} art. 32 caput"
_B_LOSS = f"{law.L7542} art. 3 I; NORMAM-10 (ed. 2002) 0104 b"
_B_LICENCE = f"{law.L7542} art. 4 (licença requerida no prazo)"
# the earliest event decides; each event keeps its own article (art. 7 is the five-year presumption only)
_B_EARLIEST = (f"{law.L7542}: prevalece o evento mais antigo (declaração de perda, art. 3 I; renúncia "
               "presumida, arts. 6 e 7)")


@dataclass(frozen=True)
class DomainStatus:
    """Owner on `as_of`: 'private' or 'union'; `since` the day the União acquired (None
    while private); `lapse_due` the last day to request a licence when the five-year
    lapse was evaluated (None when its clock is stopped); `lapse_suspended` True while a
    suspension with no end stops that clock; `steps` explain it in pt-BR."""

    owner: str
    since: date | None
    basis: tuple[str, ...]
    lapse_due: date | None
    steps: tuple[str, ...]
    lapse_suspended: bool = False


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


@dataclass(frozen=True)
class _Event:
    """A way the União acquired: on `day`, for `basis`, described by `what` (pt-BR)."""

    day: date
    basis: tuple[str, ...]
    what: str


def union_from_art32_caput() -> date:
    """30/09/1987: the day after the last day of art. 32's one-year request period."""
    return law.ART32_REQUEST_LAST_DAY.value + _ONE


@dataclass
class _Lapse:
    due: date | None = None
    suspended: bool = False
    event: _Event | None = None
    basis: tuple[str, ...] = ()


def _court_interval(court_pending: tuple[date, date | None] | None, as_of: date,
                    steps: list[str]) -> Interval | None:
    if court_pending is None:
        return None
    c_start, c_end = court_pending
    if c_start > as_of:
        steps.append(f"Processo no Tribunal Marítimo iniciado em {fmt(c_start)}: "
                     "posterior à data de referência, desconsiderado")
        return None
    if c_end is None or c_end > as_of:
        steps.append(f"Tribunal Marítimo sem decisão definitiva desde {fmt(c_start)}: "
                     f"prescrição suspensa ({law.COURT_PENDING_SUSPENDS})")
        return (c_start, None)
    steps.append(f"Tribunal Marítimo pendente de {fmt(c_start)} a {fmt(c_end)}: "
                 f"prazo suspenso ({law.COURT_PENDING_SUSPENDS})")
    return (c_start, c_end)


def _five_years(as_of: date, casualty_date: date, requested: date | None, suspensions: Iterable[Interval],
                calendar: BusinessCalendar, court_pending: tuple[date, date | None] | None,
                steps: list[str]) -> _Lapse:
    """Arts. 6 and 7: the lapse's due date and, when it completed by `as_of` without a
    timely licence request, the acquisition event (the day after the due date)."""
    intervals = list(suspensions)
    extra: tuple[str, ...] = ()
    court = _court_interval(court_pending, as_of, steps)
    if court is not None:
        intervals.append(court)
        extra = (law.COURT_PENDING_SUSPENDS,)
    deadline = five_year_lapse(casualty_date, intervals, calendar)
    steps.extend(deadline.steps)
    basis = (deadline.basis,) + extra
    due = deadline.due
    if due is None:
        steps.append(f"O prazo de {_LAPSE} está suspenso (art. 6 parágrafo único), sem data final: "
                     "enquanto a suspensão durar, a propriedade continua do responsável")
        if requested is not None:
            steps.append(f"Licença requerida em {fmt(requested)}, dentro do prazo")
            basis += (_B_LICENCE,)
        return _Lapse(None, True, None, basis)
    if requested is not None and requested <= due:
        steps.append(f"Licença requerida em {fmt(requested)}, até o último dia ({fmt(due)}): "
                     "o responsável conserva a propriedade")
        return _Lapse(due, False, None, basis + (_B_LICENCE,))
    if requested is not None:
        steps.append(f"Licença requerida em {fmt(requested)}, depois do último dia ({fmt(due)}): intempestiva")
    since = due + _ONE
    if as_of >= since:
        return _Lapse(due, False, _Event(since, basis, f"prazo de {_LAPSE} esgotado em {fmt(due)} sem pedido de "
                                                        "licença: presunção legal de renúncia (art. 7)"), basis)
    steps.append(f"Prazo em curso: sem pedido de licença até {fmt(due)}, a União adquire em {fmt(since)}")
    return _Lapse(due, False, None, basis)


def _wooden_16_18(casualty_date: date, hull: str | None) -> bool:
    """Art. 32 §1: a wooden hull sunk in the 16th–18th centuries (1501–1800)."""
    lo, hi = law.ART32_WOODEN_HULL_YEARS.value
    return is_wooden(hull) and lo <= casualty_date.year <= hi


def _article_32(as_of: date, casualty_date: date, hull: str | None, requested: date | None,
                steps: list[str]) -> tuple[bool, _Event | None, tuple[str, ...]]:
    """(art. 32 governs this casualty, its acquisition event by as_of, basis)."""
    published: date = law.LAW_PUBLISHED.value
    lo, hi = law.ART32_WOODEN_HULL_YEARS.value
    if _wooden_16_18(casualty_date, hull):
        steps.append(f"Casco de madeira afundado em {casualty_date.year} (séculos XVI–XVIII, {lo}–{hi}): "
                     "incorporado automaticamente ao domínio da União (art. 32 §1)")
        basis = (_B_ART32_1, law.LAW_PUBLISHED.basis)
        if as_of >= published:
            return True, _Event(published, basis, "incorporação automática (art. 32 §1)"), basis
        steps.append(f"A Lei 7.542/1986 só foi publicada em {fmt(published)}: incorporação ainda não ocorrida")
        return True, None, basis
    if is_wooden(hull):
        steps.append(f"Casco de madeira, mas afundado em {casualty_date.year}, fora dos séculos XVI–XVIII: "
                     "art. 32 §1 não se aplica")
    threshold: date = law.ART32_OLD_CASUALTY_BEFORE.value
    last_request: date = law.ART32_REQUEST_LAST_DAY.value
    if casualty_date >= threshold:
        return False, None, ()
    steps.append(f"Sinistro anterior a {fmt(threshold)} (mais de 20 anos antes da publicação da lei): art. 32 caput")
    if requested is not None and requested <= last_request:
        steps.append(f"Autorização requerida em {fmt(requested)}, até {fmt(last_request)}: "
                     "não houve incorporação pelo art. 32")
        return True, None, (_B_ART32, _B_LICENCE)
    since = union_from_art32_caput()
    if as_of >= since:
        return True, _Event(since, (_B_ART32,), f"nenhum pedido até {fmt(last_request)} (art. 32 caput)"), (_B_ART32,)
    steps.append(f"Prazo de 1 ano para requerer ainda em curso (até {fmt(last_request)})")
    return True, None, (_B_ART32,)


def _declaration(declared: date | None, steps: list[str]) -> _Event | None:
    if declared is None:
        return None
    published: date = law.LAW_PUBLISHED.value
    steps.append(f"O responsável declarou a coisa perdida em {fmt(declared)} (art. 3 I; NORMAM-10 (ed. 2002) 0104 b)")
    if declared < published:
        steps.append(f"Declaração anterior à Lei 7.542/1986: por ela, a incorporação só se dá em {fmt(published)}")
        return _Event(published, (_B_LOSS, law.LAW_PUBLISHED.basis), "declaração de perda (art. 3 I)")
    return _Event(declared, (_B_LOSS,), "declaração de perda (art. 3 I)")


def _site(site: SiteRegistration | None, as_of: date, steps: list[str]) -> _Event | None:
    """Constituição art. 20 X; Lei 3.924/1961 (valuation.core.archaeology): a registered archaeological
    site is the União's, whatever the five years of art. 6."""
    if site is not None and site.registered_on > as_of:
        steps.append(f"Registro como sítio arqueológico em {fmt(site.registered_on)}: posterior à data de "
                     "referência, desconsiderado")
    acquired = site_acquisition(site, as_of)
    if acquired is None:
        return None
    steps.extend(acquired.steps)
    return _Event(acquired.day, (acquired.basis,), "registro como sítio arqueológico (Constituição art. 20 X)")


def domain_status(as_of: date, casualty_date: date, hull: str | None, owner_declared_lost: date | None,
                  owner_licence_requested: date | None, suspensions: Iterable[Interval],
                  calendar: BusinessCalendar,
                  court_pending: tuple[date, date | None] | None = None,
                  site: SiteRegistration | None = None) -> DomainStatus:
    """Owner of a wreck's things on `as_of` (Lei 7.542 arts. 3 I, 6, 7, 32; rules.md §1):
    the União acquires on the earliest event that happened by `as_of` (module docstring).

    `suspensions`: inclusive intervals of art. 6 sole paragraph, end None while still
    running. `court_pending`: the interval during which the Maritime Court had not decided
    the casualty (end None: still pending); applied only when given (policy
    `court_pending_suspends_lapse`, Lei 2.180 art. 20). `site`: the wreck site's registration as
    an archaeological site (Constituição art. 20 X), one more acquisition event that the five
    years cannot stop. ValueError when the casualty is after `as_of`."""
    if casualty_date > as_of:
        raise ValueError("the casualty is after as_of")
    steps: list[str] = [f"Situação em {fmt(as_of)}; sinistro em {fmt(casualty_date)}"]
    declared = owner_declared_lost if owner_declared_lost is not None and owner_declared_lost <= as_of else None
    requested = (owner_licence_requested
                 if owner_licence_requested is not None and owner_licence_requested <= as_of else None)
    if owner_declared_lost is not None and declared is None:
        steps.append(f"Declaração de perda em {fmt(owner_declared_lost)}: posterior à data de "
                     "referência, desconsiderada")
    if owner_licence_requested is not None and requested is None:
        steps.append(f"Pedido de licença em {fmt(owner_licence_requested)}: posterior à data de "
                     "referência, desconsiderado")

    governed, art32_event, basis = _article_32(as_of, casualty_date, hull, requested, steps)
    lapse = _Lapse()
    if governed and not _wooden_16_18(casualty_date, hull):
        # art. 32 caput: the last day to ask was 29/09/1987 (the `five_year_lapse` deadline says the same)
        lapse = _Lapse(due=law.ART32_REQUEST_LAST_DAY.value)
    if not governed:
        lapse = _five_years(as_of, casualty_date, requested, suspensions, calendar, court_pending, steps)
        basis = lapse.basis
    events = [e for e in (art32_event, lapse.event, _declaration(declared, steps), _site(site, as_of, steps))
              if e is not None and e.day <= as_of]
    if not events:
        return DomainStatus(PRIVATE, None, basis, lapse.due, tuple(steps), lapse.suspended)
    first = min(events, key=lambda e: e.day)
    steps.append(f"Incorporação ao domínio da União em {fmt(first.day)}: {first.what}")
    later = [e for e in events if e is not first]
    for e in later:
        steps.append(f"{e.what[0].upper()}{e.what[1:]} em {fmt(e.day)}: posterior à incorporação, não a altera")
    steps.append(f"Domínio da União desde {fmt(first.day)}")
    out_basis = first.basis + ((_B_EARLIEST,) if later else ())
    return DomainStatus(UNION, first.day, out_basis, lapse.due, tuple(steps), lapse.suspended)


def _thresholds() -> tuple[date, ...]:
    lo, hi = law.ART32_WOODEN_HULL_YEARS.value
    t: date = law.ART32_OLD_CASUALTY_BEFORE.value
    return (date(lo - 1, 12, 31), date(lo, 1, 1), date(hi, 12, 31), date(hi + 1, 1, 1), t - _ONE, t)


def domain_status_range(as_of: date, earliest: date, latest: date, hull: str | None,
                        owner_declared_lost: date | None, owner_licence_requested: date | None,
                        suspensions: Iterable[Interval], calendar: BusinessCalendar,
                        court_pending: tuple[date, date | None] | None = None,
                        site: SiteRegistration | None = None) -> DomainStatusRange:
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
                                       susp, calendar, court_pending, site)) for p in points)
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
    "DomainStatus", "DomainStatusRange", "HULLS", "PRIVATE", "UNION", "domain_status",
    "domain_status_range",
]
