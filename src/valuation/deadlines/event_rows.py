"""Deadlines that one event or record starts, and the offices' own (DPC): the annual wreck map of each
office (NORMAM-10 0404), the preference notices, the recoveries on the owner's account and the
tourism excursions (Lei 7.542 arts. 9 §2, 12 §1, 16 §4; NORMAM-10 0307), and the things found
and handed in (art. 29 §§2–3).
"""
from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import law
from valuation.deadlines import rules as dl
from valuation.deadlines.rows import ParameterBook, Rows, Scope, fmt
from valuation.deadlines.rule_specs import RULE_LABELS
from valuation.deadlines.vocabulary import (
    CURRENT_EVENTS,
    EVENT_RULES,
    EXCURSION_NOTIFIED,
    WRECK_MAP_SENT,
)

if TYPE_CHECKING:
    from valuation.db.store import Store

_FOUND_SETTLED: dict[str, str] = {
    "reclaimed": "devolvida ao dono", "declared_lost": "declarada perdida", "sold": "vendida",
    "sent_to_revenue": "encaminhada à Receita Federal", "proceeds_claimed": "produto entregue ao dono",
    "proceeds_to_union": "produto recolhido à União",
}


def add_wreck_map_rows(rows: Rows, book: ParameterBook, store: Store, sc: Scope, as_of: date) -> None:
    """The annual map of each office: the previous year's and this year's (NORMAM-10 0404), each on the
    day and calendar in force on 1 January of the year it is due in."""
    sent = {(r["office_code"], r["reference"]): r["first"] for r in store.fetch(
        f"SELECT office_code, reference, min(event_date) AS first FROM {CURRENT_EVENTS} e WHERE kind = ? GROUP BY ALL",
        [WRECK_MAP_SENT])}
    for code in book.offices:
        if sc.office and code != sc.office:
            continue
        for year in (as_of.year - 1, as_of.year):
            start = date(year + 1, 1, 1)
            d, steps = book.deadline("wreck_map", year, code, start)
            rows.add(f"wreck_map:{code}:{year}", "wreck_map", f"Mapa anual de naufrágios de {year}", d, steps,
                     rows.subject(code), start, sent.get((code, str(year))))


def add_event_rows(rows: Rows, book: ParameterBook, store: Store, sc: Scope, *, wreck_level: bool) -> None:
    """Deadlines started by one event each: preference notices, recoveries, excursions (an explorer:
    the excursions it notified)."""
    kinds = list(EVENT_RULES) if wreck_level else [EXCURSION_NOTIFIED]
    clauses = [f"e.kind IN ({', '.join('?' for _ in kinds)})"]
    params: list[Any] = list(kinds)
    if sc.organisation_id is not None:
        clauses.append("e.organisation_id = ?")
        params.append(sc.organisation_id)
    events = store.fetch(
        "SELECT e.id, e.kind, e.event_date, e.reference, e.organisation_id, o.name AS organisation, "
        "w.id AS wreck_id, w.code AS wreck_code, w.name AS wreck_name, coalesce(e.office_code, "
        "w.office_code) AS office "
        f"FROM {CURRENT_EVENTS} e LEFT JOIN wrecks w ON w.id = e.wreck_id "
        f"LEFT JOIN organisations o ON o.id = e.organisation_id WHERE {' AND '.join(clauses)} ORDER BY e.id", params)
    offices = set(book.offices)
    for e in events:
        office = e["office"]
        if office not in offices or (sc.office and office != sc.office):
            continue
        name = EVENT_RULES[e["kind"]]
        subject = rows.subject(office, wreck=(e["wreck_id"], e["wreck_code"], e["wreck_name"]),
                               organisation=(e["organisation_id"], e["organisation"]))
        day = e["event_date"]
        if name == "tourism_notice":
            excursion = date.fromisoformat(e["reference"])
            d, steps = book.deadline("tourism_notice", excursion, office, day)
            rows.add(f"tourism_notice:e{e['id']}", name, f"{RULE_LABELS[name]} ({fmt(excursion)})", d, steps,
                     subject, day, day)
            continue
        label = RULE_LABELS[name] + (f" — {e['reference']}" if e["reference"] else "")
        d, steps = book.deadline(name, day, office, day)
        rows.add(f"{name}:e{e['id']}", name, label, d, steps, subject, day)


def add_found_rows(rows: Rows, book: ParameterBook, store: Store, sc: Scope, as_of: date) -> None:
    """Found things (Lei 7.542 art. 29 §§2–3): 30 days unclaimed from the collection, then 6 months
    of the proceeds from a sale; settled by the found-thing events of `valuation.inventory.found_things`."""
    if not store.has_table("found_things"):
        return
    where, params = ("AND f.office_code = ?", [sc.office]) if sc.office else ("", [])
    found = store.fetch(
        "WITH ev AS (SELECT found_id, kind, event_date FROM found_thing_events) "
        "SELECT f.id, f.office_code, f.description, f.collected_on, w.id AS wreck_id, w.code AS wreck_code, "
        "w.name AS wreck_name, s.settled_on, s.settled_kind, p.sold_on, q.closed_on, q.closed_kind "
        "FROM found_things f LEFT JOIN wrecks w ON w.id = f.wreck_id "
        "LEFT JOIN (SELECT found_id, min(event_date) AS settled_on, arg_min(kind, event_date) AS settled_kind FROM ev "
        "  WHERE kind IN ('reclaimed', 'declared_lost', 'sold', 'sent_to_revenue') GROUP BY found_id) s "
        "  ON s.found_id = f.id "
        "LEFT JOIN (SELECT found_id, min(event_date) AS sold_on FROM ev WHERE kind = 'sold' GROUP BY found_id) p "
        "  ON p.found_id = f.id "
        "LEFT JOIN (SELECT found_id, min(event_date) AS closed_on, arg_min(kind, event_date) AS closed_kind FROM ev "
        "  WHERE kind IN ('proceeds_claimed', 'proceeds_to_union') GROUP BY found_id) q ON q.found_id = f.id "
        f"WHERE f.collected_on <= ? {where} ORDER BY f.id", [as_of, *params])
    offices = set(book.offices)
    unclaimed = dl.days_text(law.FOUND_UNCLAIMED_DAYS.value)
    held = dl.months_text(law.FOUND_PROCEEDS_MONTHS.value)
    for f in found:
        office = f["office_code"]
        if office not in offices:
            continue
        subject = rows.subject(office, wreck=(f["wreck_id"], f["wreck_code"], f["wreck_name"]))
        what = f" — {f['description']}"
        d, steps = book.deadline("found_unclaimed", f["collected_on"], office, f["collected_on"])
        rows.add(f"found_unclaimed:f{f['id']}", "found_unclaimed", RULE_LABELS["found_unclaimed"] + what, d, steps,
                 subject, f["collected_on"], f["settled_on"], closed_by=_FOUND_SETTLED.get(f["settled_kind"] or ""),
                 overdue_reason=f"{unclaimed} sem reclamação: a coisa pode ser declarada perdida (art. 29 §2)")
        if f["sold_on"] is not None and f["sold_on"] <= as_of:
            d, steps = book.deadline("found_proceeds", f["sold_on"], office, f["sold_on"])
            rows.add(f"found_proceeds:f{f['id']}", "found_proceeds", RULE_LABELS["found_proceeds"] + what, d, steps,
                     subject, f["sold_on"], f["closed_on"], closed_by=_FOUND_SETTLED.get(f["closed_kind"] or ""),
                     overdue_reason=f"{held} da venda: o produto passa a receita da União (art. 29 §3)")
