"""The deadlines of each wreck (DPC): the owner's five years (Lei 7.542 arts. 6–7), the Maritime Court
track (Lei 2.180 arts. 33 §2, 37, 38, 41 §1 a), the removal orders (Lei 7.542 arts. 5, 9, 10) and the
owner's balance after a disposal on the owner's account (art. 13 §2).

Each count uses the office's calendar in force on the day its period starts (the casualty for the
five years, the notice for the edital, …). The removal orders' running periods are suspensions of
ground II in `wreck_suspensions` (recorded by valuation.registry.removal_orders), counted as every other one.
"""
from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import law
from valuation.core.archaeology import SITE_BASIS, site_moots_lapse
from valuation.core.casualty import casualty_bounds, is_wooden
from valuation.core.law import years_text
from valuation.core.responsible import CARGO, GROUND_I_NOT_CARGO, VESSEL, suspends_part, vessel_and_cargo
from valuation.deadlines import parties as party_facts
from valuation.deadlines import rules as dl
from valuation.deadlines.edital import Publication, removal_edital_from
from valuation.deadlines.rows import ONE, ParameterBook, Rows, Scope, Subject, fmt
from valuation.deadlines.rule_specs import RULE_LABELS
from valuation.deadlines.states import CLOSED_LABEL
from valuation.deadlines.vocabulary import (
    COURT_DECIDED,
    COURT_DEFENCE_FILED,
    COURT_EVENT_KINDS,
    COURT_INQUIRY_OPENED,
    COURT_INQUIRY_SENT,
    COURT_PARTIES_NOTIFIED,
    COURT_REPORT_DONE,
    COURT_REPRESENTATION_FILED,
    COURT_STEPS_CONCLUDED,
    CURRENT_EVENTS,
)
from valuation.process import numbers

if TYPE_CHECKING:
    from valuation.db.store import Store

_PRECISION_PT = {"day": "o dia", "month": "o mês", "year": "o ano", "century": "o século"}
Suspension = tuple[date, "date | None", str, str]   # start, end (None: running), why, ground


def _suspensions(store: Store, court_suspends: bool) -> dict[int, list[Suspension]]:
    out: dict[int, list[Suspension]] = {}
    for r in store.fetch("SELECT wreck_id, ground, starts_on, ends_on, reason FROM wreck_suspensions "
                         "ORDER BY wreck_id, starts_on"):
        if r["ground"] == "tribunal" and not court_suspends:
            continue  # Maritime Court pending suspends the lapse only under the policy (rules.md §1)
        out.setdefault(r["wreck_id"], []).append((r["starts_on"], r["ends_on"], f"{r['ground']}: {r['reason']}",
                                                  r["ground"]))
    return out


def _court_events(store: Store) -> dict[tuple[str, int], tuple[date, date]]:
    marks = ", ".join("?" for _ in COURT_EVENT_KINDS)
    return {(r["kind"], r["wreck_id"]): (r["first"], r["last"]) for r in store.fetch(
        f"SELECT kind, wreck_id, min(event_date) AS first, max(event_date) AS last FROM {CURRENT_EVENTS} e "
        f"WHERE kind IN ({marks}) AND wreck_id IS NOT NULL GROUP BY ALL", list(COURT_EVENT_KINDS))}


def add_wreck_rows(rows: Rows, book: ParameterBook, store: Store, sc: Scope, as_of: date,
                   court_suspends: bool) -> None:
    where, params = ("WHERE w.office_code = ?", [sc.office]) if sc.office else ("", [])
    wrecks = store.fetch(
        "SELECT w.id, w.code, w.name, w.office_code, w.hull_material, w.casualty_year, w.casualty_month, "
        "w.casualty_day, w.casualty_precision, w.owner_declared_lost, w.owner_licence_requested, w.court_known_on, "
        "w.owner_id, s.registered_on AS site_registered_on "
        f"FROM wrecks w LEFT JOIN archaeological_sites s ON s.wreck_id = w.id {where} ORDER BY w.code", params)
    suspensions = _suspensions(store, court_suspends)
    events = _court_events(store)
    parties, names = party_facts.load(store)   # cessions and cargo (Lei 7.542 arts. 8, 13 §1, 14)
    by_id: dict[int, tuple[dict[str, Any], date]] = {}
    for w in wrecks:
        try:
            earliest, latest = casualty_bounds(w["casualty_year"], w["casualty_month"], w["casualty_day"],
                                               w["casualty_precision"])
        except ValueError:
            continue  # an incomplete casualty date: the wreck page shows it
        by_id[w["id"]] = (w, latest)
        subject = rows.subject(w["office_code"], wreck=(w["id"], w["code"], w["name"]))
        decided = events.get((COURT_DECIDED, w["id"]))
        decided_on = decided[0] if decided and decided[0] <= as_of else None
        vessel, cargo = vessel_and_cargo(w, parties.get(w["id"]), names, as_of)
        _lapse_row(rows, book, vessel, subject, earliest, latest, suspensions.get(w["id"], []), as_of,
                   court_suspends, decided_on)
        if cargo is not None:   # the cargo's own five years: its responsible's declaration and request
            _lapse_row(rows, book, cargo, subject, earliest, latest, suspensions.get(w["id"], []), as_of,
                       court_suspends, decided_on, rule="cargo_lapse")
        _court_rows(rows, book, w, subject, earliest, events, as_of, decided_on)
    _removal_rows(rows, book, store, sc, as_of)
    _balance_rows(rows, book, store, by_id, as_of, (parties, names))


def _lapse_row(rows: Rows, book: ParameterBook, w: dict[str, Any], subject: Subject, earliest: date, latest: date,
               suspensions: list[Suspension], as_of: date, court_suspends: bool, decided_on: date | None,
               rule: str = "five_year_lapse") -> None:
    """Five-year lapse (arts. 6 and 7), for casualties outside art. 32 (every casualty before 29/09/1966,
    the wooden hulls of 1501–1800 of §1 included)."""
    lo, hi = law.ART32_WOODEN_HULL_YEARS.value
    old: date = law.ART32_OLD_CASUALTY_BEFORE.value
    if latest < old or (is_wooden(w["hull_material"]) and lo <= earliest.year and latest.year <= hi):
        return
    if latest > as_of:
        return
    part = CARGO if rule == "cargo_lapse" else VESSEL
    skipped = [s for s in suspensions if not suspends_part(s[3], part)]   # ground I is the vessel's own
    suspensions = [s for s in suspensions if suspends_part(s[3], part)]
    intervals: list[tuple[date, date | None]] = [(s, e) for s, e, _, _ in suspensions]
    running = [why for s, e, why, _ in suspensions if s <= as_of and (e is None or as_of <= e)]
    if court_suspends and w["court_known_on"] is not None and w["court_known_on"] <= as_of:
        intervals.append((w["court_known_on"], decided_on))  # no end while pending: the clock is stopped
        if decided_on is None:
            running.append(f"processo pendente no Tribunal Marítimo ({law.COURT_PENDING_SUSPENDS})")
    count = dl.cargo_lapse if rule == "cargo_lapse" else dl.five_year_lapse
    d = count(latest, intervals, book.cal(w["office_code"], dl.lapse_start(latest)))
    steps = list(d.steps) + list(w.get("request_steps") or ())   # the responsible; requests that do not count
    steps += [f"{GROUND_I_NOT_CARGO}: de {fmt(s)}" + (f" a {fmt(e)}" if e else ", em curso") for s, e, _, _ in skipped]
    if w["casualty_precision"] != "day":
        steps.insert(0, f"Data do sinistro conhecida até {_PRECISION_PT[w['casualty_precision']]}: contado do último "
                        f"dia possível, {fmt(latest)} (o mais favorável ao responsável)")
    declared, requested = w["owner_declared_lost"], w["owner_licence_requested"]
    # the earliest event wins (arts. 3 I, 6, 7): a declaration after the lapse ended changes nothing
    moot = (f"o responsável declarou a coisa perdida em {fmt(declared)} (art. 3 I): domínio da União"
            if declared is not None and declared <= as_of and (d.due is None or declared <= d.due) else None)
    site = w.get("site_registered_on")
    if moot is None and site_moots_lapse(site, d.due, as_of):   # Constituição art. 20 X; Lei 3.924/1961
        moot = f"sítio arqueológico registrado em {fmt(site)}: bem da União ({SITE_BASIS})"
    published: date = law.LAW_PUBLISHED.value
    since = max(d.due + ONE, published) if d.due is not None else as_of
    timely = requested is not None and (d.due is None or requested <= d.due)
    late = f"; pedido de licença em {fmt(requested)}, fora do prazo" if requested is not None and not timely else ""
    rows.add(f"{rule}:{w['code']}", rule, RULE_LABELS[rule], d, "\n".join(steps),
             subject, latest, requested if timely else None, moot=moot,
             suspended=("prazo suspenso (art. 6 parágrafo único): " + "; ".join(running)) if running else None,
             lapses=(since, f"{CLOSED_LABEL} — União desde {fmt(since)}",
                     f"prazo esgotado sem pedido de licença (art. 7){late}"))


def _court_rows(rows: Rows, book: ParameterBook, w: dict[str, Any], subject: Subject, earliest: date,
                events: dict[tuple[str, int], tuple[date, date]], as_of: date, decided_on: date | None) -> None:
    """Maritime Court track (Lei 2.180 arts. 33 §2, 37, 38, 41 §1 a): casualties the office learned of,
    that happened under Lei 2.180 (a wreck of 1686 found today opens no inquiry deadline)."""
    known = w["court_known_on"]
    if known is None or earliest < law.L2180_DATE.value:
        return
    wid, code, office = w["id"], w["code"], w["office_code"]
    moot = f"o Tribunal Marítimo decidiu o caso em {fmt(decided_on)}" if decided_on else None

    def hit(kind: str, after: date | None = None, pick: int = 0) -> date | None:
        found = events.get((kind, wid))
        day = found[pick] if found is not None else None
        return day if day is not None and (after is None or day >= after) else None

    d, steps = book.deadline("court_inquiry_opening", known, office, known)
    rows.add(f"court_inquiry_opening:{code}", "court_inquiry_opening", RULE_LABELS["court_inquiry_opening"], d, steps,
             subject, known, hit(COURT_INQUIRY_OPENED), moot=moot,
             overdue_reason=f"inquérito não instaurado em {dl.days_text(law.COURT_INQUIRY_OPENING_DAYS.value)}: "
                            "providência pelo Comandante da Marinha ou pelo Tribunal Marítimo (art. 33 §2)")
    for start_kind, done_kind, name in ((COURT_STEPS_CONCLUDED, COURT_REPORT_DONE, "court_inquiry_report"),
                                        (COURT_PARTIES_NOTIFIED, COURT_DEFENCE_FILED, "court_prior_defence")):
        began = hit(start_kind, pick=1)
        if began is not None:
            d, steps = book.deadline(name, began, office, began)
            rows.add(f"{name}:{code}", name, RULE_LABELS[name], d, steps, subject, began, hit(done_kind, began, 1),
                     moot=moot)
    # art. 41 §1 a was included by Lei 5.056/1966: casualties from then on, dated to the day
    if w["casualty_precision"] == "day" and law.L5056_DATE.value <= earliest <= as_of:
        win = dl.court_private_representation(earliest, book.cal(office, earliest))
        sent = hit(COURT_INQUIRY_SENT)
        first, span = law.COURT_PRIVATE_REPRESENTATION_DAYS.value
        reached = (f"o inquérito entrou no Tribunal em {fmt(sent)}, dentro dos {first} dias: representação do "
                   "art. 41 §1 a não cabe") if sent is not None and sent <= win.start - ONE else None
        filed = hit(COURT_REPRESENTATION_FILED, win.start)
        rows.add(f"court_private_representation:{code}", "court_private_representation",
                 RULE_LABELS["court_private_representation"], win, "\n".join(win.steps), subject, win.start,
                 filed if filed is not None and filed <= win.end else None, moot=reached or moot,
                 overdue_reason=f"janela de {dl.days_text(span)} encerrada sem representação (art. 41 §1 a e §4)")


# -- removal orders (Lei 7.542 arts. 5, 9, 10) -------------------------------------------------------------------
def _publications(store: Store, as_of: date) -> dict[int, list[Publication]]:
    """The editais' publications known on `as_of`, per order (art. 9 §2)."""
    if not store.has_table("edital_publications"):
        return {}
    out: dict[int, list[Publication]] = {}
    for r in store.fetch("SELECT removal_order_id, outlet, published_on FROM edital_publications "
                         "WHERE published_on <= ? ORDER BY id", [as_of]):
        out.setdefault(r["removal_order_id"], []).append(Publication(r["outlet"], r["published_on"]))
    return out


def _removal_rows(rows: Rows, book: ParameterBook, store: Store, sc: Scope, as_of: date) -> None:
    if not store.has_table("removal_orders"):
        return
    where, params = ("AND w.office_code = ?", [sc.office]) if sc.office else ("", [])
    orders = store.fetch("SELECT r.*, w.code AS wreck_code, w.name AS wreck_name, w.office_code FROM removal_orders r "
                         f"JOIN wrecks w ON w.id = r.wreck_id WHERE r.ordered_on <= ? {where} ORDER BY r.id",
                         [as_of, *params])
    published = _publications(store, as_of)
    given = numbers.nups(store, "removal_order", [int(o["id"]) for o in orders])   # in lists, .ics and e-mails
    for o in orders:
        office = o["office_code"]
        subject = rows.subject(office, wreck=(o["wreck_id"], o["wreck_code"], o["wreck_name"]))
        number = f"; NUP {given[int(o['id'])]}" if int(o["id"]) in given else ""
        what = f" — {o['kind']} ({o['act']}{number})"
        ended = o["ended_on"] if o["ended_on"] is not None and o["ended_on"] <= as_of else None
        taken = o["taken_over_on"] if o["taken_over_on"] is not None and o["taken_over_on"] <= as_of else None
        moot = None
        if ended and o["end_kind"] == "revogada":
            moot = f"determinação revogada em {fmt(ended)}"
        elif taken:
            moot = (f"remoção assumida pela Autoridade Naval em {fmt(taken)}, por conta do responsável (Lei 7.542 "
                    "art. 10)" + (f"; concluída em {fmt(ended)}" if ended else ""))
        pubs = published.get(o["id"], [])
        if o["notice"] == "edital" and pubs:     # art. 9 §2: the 15 days run from the last publication
            last = max(p.published_on for p in pubs)
            d = removal_edital_from(pubs, book.cal(office, last), offshore=any(p.outlet == "rio" for p in pubs))
            steps = "\n".join(d.steps)
            rows.add(f"removal_edital:r{o['id']}", "removal_edital", RULE_LABELS["removal_edital"] + what, d, steps,
                     subject, last, closed_by=law.REMOVAL_NOTICE_LABELS["edital"])
        elif o["notice"] == "edital" and o["published_on"] is not None and o["published_on"] <= as_of:
            d, steps = book.deadline("removal_edital", o["published_on"], office, o["published_on"])
            rows.add(f"removal_edital:r{o['id']}", "removal_edital", RULE_LABELS["removal_edital"] + what, d, steps,
                     subject, o["published_on"], closed_by=law.REMOVAL_NOTICE_LABELS["edital"])
        overdue = ("o responsável não cumpriu: a Autoridade Naval pode assumir a remoção por sua conta "
                   f"({law.REMOVAL_TAKEOVER})")
        d, steps = book.deadline("removal_start", o["starts_by"], office, o["ordered_on"])
        started = o["started_on"] if o["started_on"] is not None and o["started_on"] <= as_of else None
        rows.add(f"removal_start:r{o['id']}", "removal_start", RULE_LABELS["removal_start"] + what, d, steps, subject,
                 o["ordered_on"], started, moot=moot, overdue_reason=overdue)
        d, steps = book.deadline("removal_end", o["ends_by"], office, o["ordered_on"])
        done = ended if o["end_kind"] == "concluída" and not taken else None
        rows.add(f"removal_end:r{o['id']}", "removal_end", RULE_LABELS["removal_end"] + what, d, steps, subject,
                 o["starts_by"], done, moot=moot, overdue_reason=overdue)


# -- the owner's balance (Lei 7.542 art. 13 §2) ------------------------------------------------------------------
def _balance_rows(rows: Rows, book: ParameterBook, store: Store, wrecks: dict[int, tuple[dict[str, Any], date]],
                  as_of: date, holders: tuple[dict[int, Any], dict[int, str]] = ({}, {})) -> None:
    if not store.has_table("owner_balances"):
        return
    from valuation.core.money import format_brl

    for b in store.fetch("SELECT * FROM owner_balances WHERE disposed_on <= ? ORDER BY id", [as_of]):
        if b["wreck_id"] not in wrecks:
            continue
        w, latest = wrecks[b["wreck_id"]]
        subject = rows.subject(w["office_code"], wreck=(w["id"], w["code"], w["name"]))
        d, steps = book.deadline("owner_balance", latest, w["office_code"], latest)
        steps = f"Alienação em {fmt(b['disposed_on'])}: produto {format_brl(b['proceeds'])} − despesas da União " \
                f"{format_brl(b['union_costs'])} (art. 13 II) = saldo {format_brl(b['balance'])}\n" + steps
        party = holders[0].get(b["wreck_id"])   # the cessionário of a communicated cession (art. 8 §2)
        holder = party.responsible("embarcação", as_of) if party is not None else None
        if holder in holders[1]:
            steps = f"À disposição de {holders[1][holder]} (o responsável perante a Autoridade Naval)\n" + steps
        paid = b["paid_on"] if b["paid_on"] is not None and b["paid_on"] <= as_of else None
        union_on = d.due + ONE if d.due is not None else as_of
        rows.add(f"owner_balance:b{b['id']}", "owner_balance",
                 f"{RULE_LABELS['owner_balance']} — {format_brl(b['balance'])}", d, steps, subject, b["disposed_on"],
                 paid, closed_by="entregue ao responsável",
                 lapses=(union_on, f"{CLOSED_LABEL} — receita da União desde {fmt(union_on)}",
                         f"saldo não reclamado em {years_text(law.OWNER_BALANCE_YEARS.value)} do "
                         "sinistro: receita da União "
                         "(art. 13 §2)"))
