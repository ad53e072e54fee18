"""A wreck site registered as an archaeological site is the União's (Constituição art. 20 X; Lei
3.924/1961), whatever the owner's five years of Lei 7.542 art. 6. Pure: no database, no clock.

- Constituição Federal art. 20 X: "São bens da União: ... os sítios arqueológicos e pré-históricos".
- Lei 3.924/1961 art. 1º: the archaeological monuments and everything in them are under the guard and
  protection of the Public Power; sole paragraph: the ownership of the surface does not include them.
  Art. 27: the heritage authority (today IPHAN) keeps the register (Cadastro) of the archaeological
  monuments, in which the sites are registered.

Below the registry's domain status and the deadline engine's five years, which both read it (neither
imports the other; README "Architecture"). The reading the product takes (README "Decisions"): the
registration declares what the Constitution makes so; the product dates the União's domain from the
registration — the first day the Authority can show it — and never before the Constitution's entry into
force (05/10/1988). The earliest event still wins: a wooden hull of 1501–1800 was the União's from
29/09/1986 by Lei 7.542 art. 32 §1, and its registration changes nothing but adds a basis.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from valuation.core.money import format_date_br as fmt

CONSTITUTION_IN_FORCE = date(1988, 10, 5)   # Constituição Federal, promulgada e em vigor em 05/10/1988
SITE_BASIS = ("Constituição Federal art. 20 X (sítios arqueológicos são bens da União); "
              "Lei 3.924/1961 arts. 1º e 27 (guarda do Poder Público; cadastro dos sítios)")
SITE_OVERRIDES_LAPSE = "qualquer que seja o prazo de 5 anos do art. 6 da Lei 7.542/1986"


@dataclass(frozen=True)
class SiteRegistration:
    """The registration of a wreck site as an archaeological site: who registered it (the heritage
    authority, e.g. IPHAN), its number in the register and the day."""

    authority: str
    number: str
    registered_on: date

    def text(self) -> str:
        """'IPHAN nº SC-00412, registrado em 14/03/2019' (what the registry and the steps print)."""
        return f"{self.authority} nº {self.number}, registrado em {fmt(self.registered_on)}"


@dataclass(frozen=True)
class SiteAcquisition:
    """The União's domain by the site: since `day`, for `basis`; `steps` explain it (pt-BR)."""

    day: date
    basis: str
    steps: tuple[str, ...]


def site_acquisition(site: SiteRegistration | None, as_of: date) -> SiteAcquisition | None:
    """The União's domain of a registered archaeological site on `as_of` (Constituição art. 20 X; Lei
    3.924/1961): from the registration, never before 05/10/1988; None when there is no registration or it
    is after `as_of` (it has not happened yet). The five years of Lei 7.542 art. 6 — a timely licence
    request, a suspension still running — do not keep a registered site private."""
    if site is None or site.registered_on > as_of:
        return None
    day = max(site.registered_on, CONSTITUTION_IN_FORCE)
    steps = [f"Sítio arqueológico registrado ({site.text()}): bem da União (Constituição art. 20 X; "
             f"Lei 3.924/1961), {SITE_OVERRIDES_LAPSE}"]
    if day != site.registered_on:
        steps.append(f"Registro anterior à Constituição de 1988: domínio da União desde {fmt(day)}")
    return SiteAcquisition(day, SITE_BASIS, tuple(steps))


def site_moots_lapse(site_registered_on: date | None, lapse_due: date | None, as_of: date) -> bool:
    """Whether a registration ends the owner's five years before they ran out: registered by `as_of`
    and on or before the lapse's last day (or while its clock is stopped, `lapse_due` None). A
    registration after the lapse completed changes nothing: the União had the things already."""
    if site_registered_on is None or site_registered_on > as_of:
        return False
    return lapse_due is None or site_registered_on <= lapse_due


__all__ = ["CONSTITUTION_IN_FORCE", "SITE_BASIS", "SiteAcquisition", "SiteRegistration", "site_acquisition",
           "site_moots_lapse"]
