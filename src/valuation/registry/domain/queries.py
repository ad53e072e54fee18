"""Domain status of every wreck: who owns its things on a day, and since when (rules.md §1).

The rules are `valuation.registry.domain.status` (Lei 7.542 arts. 3 I, 6, 7, 32); this module
feeds them from the store: the casualty date with its precision (`valuation.core.casualty.casualty_bounds`:
a date known only to the month, year or century is computed at both bounds and at
the legal thresholds between them, `domain_status_range`), the hull, the owner's
declaration of loss and licence request, the suspensions of art. 6 sole paragraph
(`wreck_suspensions`), the office's business-day calendar, and — when the policy
`court_pending_suspends_lapse` is on (Lei 2.180 art. 20; on by default) — the Maritime
Court pending interval from `court_known_on` to the Maritime Court's decision event, and the
stored suspensions of ground 'tribunal' (listed but not counted while the policy is off).

Only DPC reads it: the owner is a person's data (as in `valuation.registry.wrecks`).
"""
from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import law
from valuation.core.archaeology import SiteRegistration
from valuation.core.casualty import casualty_bounds, casualty_text
from valuation.core.law import years_text
from valuation.core.money import format_date_br as fmt
from valuation.core.responsible import CARGO, GROUND_I_NOT_CARGO, suspends_part, vessel_and_cargo
from valuation.db.access import Principal, chosen_office, require
from valuation.deadlines.calendars import CalendarBook, calendar_book
from valuation.deadlines.rules import lapse_start
from valuation.deadlines.vocabulary import COURT_DECIDED, CURRENT_EVENTS
from valuation.policies.values import policy_in_force
from valuation.registry.domain.status import PRIVATE, UNION, domain_status_range
from valuation.registry.parties import facts
from valuation.registry.sites import registrations

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store

OWNER_LABELS: dict[str, str] = {PRIVATE: "particular (responsável)", UNION: "União", "uncertain": "incerto",
                                "future": "sinistro posterior à data", "unknown": "data do sinistro incompleta"}
# Shown for a private wreck whose five years are stopped by a suspension still running (art. 6
# sole paragraph): it is not the União's, and has no date on which it will be.
SUSPENDED_LABEL = f"suspenso (particular; prazo de {years_text(law.LAPSE_YEARS.value)} parado)"
GROUND_LABELS: dict[str, str] = {
    "I": "remoção/demolição pelo responsável (art. 6 par. único I)",
    "II": "remoção/demolição determinada pela Autoridade Naval (art. 6 par. único II)",
    "III": "interrompida por protesto judicial (art. 6 par. único III)",
    "tribunal": "processo no Tribunal Marítimo (Lei 2.180 art. 20)",
}
COLUMNS: tuple[str, ...] = (
    "wreck_id", "code", "name", "office_code", "uf", "naval_district", "hull_material", "casualty", "precision",
    "earliest", "latest", "owner", "owner_pt", "since", "since_max", "lapse_due", "differs", "owner_name",
    "declared_lost", "licence_requested", "suspensions", "court_pending", "basis", "steps", "lapse_suspended",
    "site", "cargo", "cargo_owner_pt", "cargo_since",
)


def _suspensions_text(susp: list[dict[str, Any]], court_policy: bool) -> str:
    return "\n".join((f"{fmt(s['starts_on'])} a {fmt(s['ends_on'])}" if s["ends_on"] is not None
                      else f"desde {fmt(s['starts_on'])}, em curso (sem data final)") + " — "
                     f"{GROUND_LABELS.get(s['ground'], s['ground'])}: {s['reason']}"
                     + ("" if s["ground"] != "tribunal" or court_policy else
                        " (não considerada: a política 'Tribunal Marítimo suspende o prazo' está desligada)")
                     for s in susp)


def _row(w: dict[str, Any], susp: list[dict[str, Any]], decided: date | None, book: CalendarBook, as_of: date,
         court_policy: bool, site: SiteRegistration | None = None) -> tuple[Any, ...]:
    """One wreck's row of COLUMNS (`site`: its registration as an archaeological site, Constituição art. 20 X)."""
    return (*_status(w, susp, decided, book, as_of, court_policy, site), site.text() if site is not None else "")


def _status(w: dict[str, Any], susp: list[dict[str, Any]], decided: date | None, book: CalendarBook, as_of: date,
            court_policy: bool, site: SiteRegistration | None) -> tuple[Any, ...]:
    # a 'tribunal' suspension counts only under the policy (Lei 2.180 art. 20; rules.md §1)
    intervals = [(s["starts_on"], s["ends_on"]) for s in susp if s["ground"] != "tribunal" or court_policy]
    court: tuple[date, date | None] | None = None
    court_text = ""
    known = w["court_known_on"]
    if court_policy and known is not None:
        court = (known, decided if decided is not None and decided <= as_of else None)
        court_text = f"desde {fmt(known)}" + (f" até {fmt(court[1])}" if court[1] else " (pendente)")
    base = (w["id"], w["code"], w["name"], w["office_code"], w["state"], w["naval_district"], w["hull_material"],
            casualty_text(w["casualty_year"], w["casualty_month"], w["casualty_day"], w["casualty_precision"]),
            w["casualty_precision"])
    tail = (w["owner_name"], w["owner_declared_lost"], w["owner_licence_requested"],
            _suspensions_text(susp, court_policy), court_text)
    try:
        earliest, latest = casualty_bounds(w["casualty_year"], w["casualty_month"], w["casualty_day"],
                                           w["casualty_precision"])
    except ValueError as exc:
        return (*base, None, None, "unknown", OWNER_LABELS["unknown"], None, None, None, False, *tail, "",
                f"Data do sinistro incompleta: {exc}", False)
    if earliest > as_of:
        return (*base, earliest, latest, "future", OWNER_LABELS["future"], None, None, None, False, *tail,
                "", f"O sinistro ({fmt(earliest)}) é posterior a {fmt(as_of)}", False)
    # the calendar in force when the five years start (a later change of the policy days rewrites nothing)
    cal = book.at(w["office_code"], lapse_start(latest))
    result = domain_status_range(as_of, earliest, latest, w["hull_material"], w["owner_declared_lost"],
                                 w["owner_licence_requested"], intervals, cal, court, site)
    basis = "; ".join(dict.fromkeys(b for _, o in result.outcomes for b in o.basis))
    if result.differs:
        steps = "\n\n".join(f"Se o sinistro foi em {fmt(p)}: {OWNER_LABELS[o.owner]}"
                            + (f" desde {fmt(o.since)}" if o.since else "") + "\n" + "\n".join(o.steps)
                            for p, o in result.outcomes)
    else:
        steps = "\n".join(result.latest.steps)
    if w.get("request_steps"):   # the responsible, the requests that do not count (Lei 7.542 arts. 8, 14)
        steps += "\n" + "\n".join(w["request_steps"])
    since_max = result.since_max if result.differs and result.since_max != result.since_min else None
    stopped = result.owner == PRIVATE and any(o.lapse_suspended for _, o in result.outcomes)
    label = SUSPENDED_LABEL if stopped else OWNER_LABELS[result.owner]
    return (*base, earliest, result.latest_casualty, result.owner, label, result.since_min, since_max,
            result.latest.lapse_due, result.differs, *tail, basis, steps, stopped)


def domain_statuses(store: Store, user: Principal, as_of: date, *, office: str | None = None) -> pd.DataFrame:
    """One row per wreck (ordered by code) with who owns it on `as_of` and since when.

    owner: 'private', 'union', 'uncertain' (the outcome differs within the casualty
    date's range), 'future' (the earliest possible casualty is after as_of) or
    'unknown' (precision without the month/day it needs); owner_pt its label; since
    (the earliest day the União may have acquired) and since_max (the latest, when the
    range differs); lapse_due (last day to request a licence, when the five-year lapse
    was evaluated; None while its clock is stopped); suspensions (text, one interval per
    line with its ground and reason; an open one reads "em curso"); lapse_suspended (True
    for a private wreck whose five years are stopped by a suspension still running:
    owner_pt then reads "suspenso", never "União");
    court_pending (text, when the policy applies); basis (articles); steps (the
    explanation; for a range, the outcome at each bound and threshold); site (the registration as
    an archaeological site, Constituição art. 20 X, or ''); owner_name (the responsible the Authority
    deals with on as_of: the cessionário of a communicated cession, Lei 7.542 art. 8 §2); cargo (text,
    '' without cargo), cargo_owner_pt and cargo_since (the cargo's own domain: its responsible's
    declaration and request, the same five years, arts. 13 §1 and 14).
    """
    import pandas as pd

    require(user, "read_domain_status")
    office = chosen_office(user, office)       # an office officer: its office's wrecks alone
    court_policy = policy_in_force(store, "court_pending_suspends_lapse", as_of=as_of).value is True
    where, params = ("WHERE w.office_code = ?", [office]) if office else ("", [])
    wrecks = store.fetch(
        "SELECT w.id, w.code, w.name, w.office_code, o.state, o.naval_district, w.hull_material, w.casualty_year, "
        "w.casualty_month, w.casualty_day, w.casualty_precision, w.owner_declared_lost, w.owner_licence_requested, "
        "w.court_known_on, ow.name AS owner_name FROM wrecks w JOIN offices o ON o.code = w.office_code "
        f"LEFT JOIN owners ow ON ow.id = w.owner_id {where} ORDER BY w.code", params)
    suspensions: dict[int, list[dict[str, Any]]] = {}
    for r in store.fetch("SELECT wreck_id, ground, starts_on, ends_on, reason FROM wreck_suspensions "
                         "ORDER BY wreck_id, starts_on"):
        suspensions.setdefault(r["wreck_id"], []).append(r)
    decided = {r["wreck_id"]: r["day"] for r in store.fetch(
        f"SELECT wreck_id, min(event_date) AS day FROM {CURRENT_EVENTS} e WHERE kind = ? "
        "AND wreck_id IS NOT NULL GROUP BY wreck_id", [COURT_DECIDED])}
    book = calendar_book(store)
    sites = registrations(store)
    parties = facts(store)
    names = {int(r["id"]): r["name"] for r in store.fetch("SELECT id, name FROM owners")}
    rows = []
    for w in wrecks:
        susp, day, site = suspensions.get(w["id"], []), decided.get(w["id"]), sites.get(w["id"])
        vessel, cargo = vessel_and_cargo(w, parties.get(w["id"]), names, as_of)
        row = list(_row(vessel, susp, day, book, as_of, court_policy, site))
        if cargo is None:
            row += ["", "", None]
        else:   # the cargo's own five years, declaration and request (arts. 13 §1, 14; README "Decisions")
            own = [s for s in susp if suspends_part(s["ground"], CARGO)]   # ground I is the vessel's own
            c = dict(zip(COLUMNS, _status(cargo, own, day, book, as_of, court_policy, site)))
            row += [cargo["cargo"], c["owner_pt"], c["since"]]
            i = COLUMNS.index("steps")
            notes = "".join(f"\n{GROUND_I_NOT_CARGO}: de {fmt(s['starts_on'])}"
                            + (f" a {fmt(s['ends_on'])}" if s["ends_on"] else ", em curso")
                            for s in susp if not suspends_part(s["ground"], CARGO))
            row[i] = f"{row[i]}\n\nCarga ({cargo['cargo']}):\n{c['steps']}{notes}"
        rows.append(tuple(row))
    return pd.DataFrame(rows, columns=list(COLUMNS), dtype=object)
