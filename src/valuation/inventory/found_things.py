"""Things found and handed in by third parties (Lei 7.542/1986 arts. 28–30; NORMAM-10 0405).

Law
    art. 28     whoever finds such things, their owner absent, must not alter them (save to make
                them safe) and must report the find at once to the Naval Authority and hand in
                what they hold.
    art. 29     the things are collected (arrecadados) and kept in the custody of the Naval
                Authority, which may hand them, when national or nationalised, to their owners;
        §1      things not yet sold may be reclaimed by their owner, who pays the costs of custody and
                conservation (`valuation.inventory.found_costs`) — also after a declaration of loss;
        §2      not reclaimed within 30 days of the collection → the Authority may declare them
                lost (`valuation.deadlines.rules.found_unclaimed`, office calendar);
        §3      things hard to keep may be sold at auction or tender; the proceeds are held
                6 months for the owner, then become União revenue (`deadlines.found_proceeds`).
    art. 30     things identified as of foreign origin (and not the União's under art. 32) are
                sent to the Federal Revenue.

Model: `found_things` holds the registration (never updated); `found_thing_events` the
append-only history. The state is derived from the events (`derive_state`), and which
event may come next, with what, is checked by the pure `event_problems`:

    sob_custodia ──reclaimed──────────→ devolvido ←─reclaimed─┐   (not of foreign origin)
        │  ├──declared_lost (after the 30 days)──→ declarado_perdido ─┤
        │  ├──sent_to_revenue (foreign origin)───→ encaminhado_receita│
        │  └──sold (hard to keep: reason, tender) → vendido ←──────────┘ (also sent_to_revenue)
        │                                             ├─proceeds_claimed (within 6 months)→ produto_devolvido
        │                                             └─proceeds_to_union (after 6 months)→ receita_uniao
        └──origin_identified (any time while held: nacional / estrangeira)

Reclaim (§1) is allowed while the thing is not yet sold: in custody, and also after the
declaration of loss of §2 (issue 25: the declaration lets the Authority dispose of the thing; only
the sale ends the owner's claim on it, §3 then covers the proceeds). The owner pays at least the
custody and conservation costs incurred up to the reclaim's day (`reclaim_terms` says how much and
why). Who: dpc only (read and write). Money (costs paid, proceeds) is DECIMAL, to the cent.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.core.money import format_brl
from valuation.db.access import Principal, chosen_office, office_cleared, office_match, require
from valuation.deadlines import rules as dl
from valuation.deadlines.calendars import office_calendars
from valuation.inventory.found_costs import costs_due, costs_due_by_thing, costs_of

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store, Tx

ORIGINS: tuple[str, ...] = ("nacional", "estrangeira", "a_identificar")
ORIGIN_LABELS: dict[str, str] = {"nacional": "nacional ou nacionalizada", "estrangeira": "estrangeira",
                                 "a_identificar": "a identificar"}
EVENT_KINDS: tuple[str, ...] = ("origin_identified", "reclaimed", "declared_lost", "sold", "proceeds_claimed",
                                "proceeds_to_union", "sent_to_revenue")
EVENT_LABELS: dict[str, str] = {
    "origin_identified": "Procedência identificada (art. 29 / art. 30)",
    "reclaimed": "Devolvida ao responsável, pagas as custas de guarda e conservação (art. 29 §1)",
    "declared_lost": "Declarada perdida (art. 29 §2)",
    "sold": "Alienada por ser de difícil guarda (art. 29 §3)",
    "proceeds_claimed": "Produto da venda entregue ao responsável (art. 29 §3)",
    "proceeds_to_union": "Produto convertido em receita da União (art. 29 §3)",
    "sent_to_revenue": "Encaminhada à Receita Federal (art. 30)",
}
STATE_LABELS: dict[str, str] = {
    "sob_custodia": "sob custódia",
    "devolvido": "devolvida ao responsável",
    "declarado_perdido": "declarada perdida",
    "vendido": "vendida — produto guardado",
    "produto_devolvido": "produto entregue ao responsável",
    "receita_uniao": "produto convertido em receita da União",
    "encaminhado_receita": "encaminhada à Receita Federal",
}
# state → the events that may follow it
NEXT_EVENTS: dict[str, tuple[str, ...]] = {
    "sob_custodia": ("origin_identified", "reclaimed", "declared_lost", "sold", "sent_to_revenue"),
    "declarado_perdido": ("origin_identified", "reclaimed", "sold", "sent_to_revenue"),   # §1: until the sale
    "vendido": ("proceeds_claimed", "proceeds_to_union"),
    "devolvido": (),
    "produto_devolvido": (),
    "receita_uniao": (),
    "encaminhado_receita": (),
}
# the states in which the office still keeps the thing (costs accrue; the owner may reclaim it, art. 29 §1)
KEPT_STATES: tuple[str, ...] = ("sob_custodia", "declarado_perdido")
_STATE_AFTER: dict[str, str] = {
    "reclaimed": "devolvido", "declared_lost": "declarado_perdido", "sold": "vendido",
    "proceeds_claimed": "produto_devolvido", "proceeds_to_union": "receita_uniao",
    "sent_to_revenue": "encaminhado_receita",
}


# -- pure rules ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class FoundEvent:
    """One row of a found thing's history."""

    kind: str
    event_date: date
    amount: Decimal | None = None
    party: str | None = None
    origin: str | None = None
    reference: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class FoundState:
    """Where a found thing stands: `state` (a key of STATE_LABELS), its current `origin`,
    the sale day and proceeds when sold, and the date of the last event (or collection)."""

    state: str
    origin: str
    last_date: date
    sold_on: date | None = None
    proceeds: Decimal | None = None


def derive_state(collected_on: date, origin: str, events: Sequence[FoundEvent]) -> FoundState:
    """Fold the history (in recording order) into the current state (arts. 29–30)."""
    state, current_origin, last = "sob_custodia", origin, collected_on
    sold_on: date | None = None
    proceeds: Decimal | None = None
    for e in events:
        if e.kind == "origin_identified" and e.origin:
            current_origin = e.origin
        if e.kind == "sold":
            sold_on, proceeds = e.event_date, e.amount
        state = _STATE_AFTER.get(e.kind, state)
        last = max(last, e.event_date)
    return FoundState(state, current_origin, last, sold_on, proceeds)


def unclaimed_deadline(collected_on: date, cal: BusinessCalendar) -> dl.Deadline:
    """Last day for the owner to reclaim before the thing may be declared lost (art. 29 §2)."""
    return dl.found_unclaimed(collected_on, cal)


def proceeds_deadline(sold_on: date, cal: BusinessCalendar) -> dl.Deadline:
    """Last day the proceeds are held for the owner; after it they are União revenue (art. 29 §3)."""
    return dl.found_proceeds(sold_on, cal)


def _due(deadline: dl.Deadline) -> date:
    """The last day of a found-thing deadline (30 days, 6 months: never open-ended)."""
    assert deadline.due is not None
    return deadline.due


@dataclass(frozen=True)
class ReclaimTerms:
    """Whether the owner may still reclaim the thing (art. 29 §1) and, if so, the custody and conservation
    costs due; `text` is what the page prints (pt-BR, with the article)."""

    open: bool
    costs_due: Decimal
    text: str


def reclaim_terms(current: FoundState, costs_due: Decimal) -> ReclaimTerms:
    """Lei 7.542 art. 29 §1: things not yet sold may be reclaimed by their owner, who pays the costs of
    custody and conservation — in custody or declared lost (§2), until the sale (§3: then only the proceeds,
    for 6 months); never a thing of foreign origin (art. 29 caput; art. 30)."""
    due = format_brl(costs_due)
    if current.state in KEPT_STATES and current.origin == "estrangeira":
        return ReclaimTerms(False, costs_due, "Procedência estrangeira: não é devolvida ao responsável, vai à Receita "
                                              "Federal (art. 29 caput; art. 30).")
    if current.state == "sob_custodia":
        return ReclaimTerms(True, costs_due, f"O responsável pode reclamá-la até a alienação, pagando as custas e "
                                             f"despesas de guarda e conservação: {due} até hoje (art. 29 §1).")
    if current.state == "declarado_perdido":
        return ReclaimTerms(True, costs_due, f"Declarada perdida (art. 29 §2), mas ainda não alienada: o responsável "
                                             f"ainda pode reclamá-la, pagando as custas e despesas de guarda e "
                                             f"conservação: {due} até hoje (art. 29 §1).")
    if current.state == "vendido":
        return ReclaimTerms(False, costs_due, "Alienada: a coisa já não pode ser reclamada; o produto da venda fica "
                                              "6 meses à disposição do responsável (art. 29 §§1 e 3).")
    return ReclaimTerms(False, costs_due, "Não pode mais ser reclamada.")


def _reclaimed_problems(current: FoundState, event: FoundEvent, costs_due: Decimal) -> list[Problem]:
    """Return to the owner (art. 29 caput and §1), paying at least the costs due on the reclaim's day."""
    problems: list[Problem] = []
    if current.origin == "estrangeira":
        problems.append(Problem("kind", "Coisa de procedência estrangeira não é devolvida ao responsável: é "
                                        "encaminhada à Receita Federal (Lei 7.542/1986, art. 30; art. 29 "
                                        "caput: só nacionais ou nacionalizadas)."))
    if not event.party:
        problems.append(Problem("party", "Responsável: informe quem recebeu a coisa."))
    if event.amount is None:
        problems.append(Problem("amount", "Custas e despesas de guarda e conservação pagas (art. 29 §1): "
                                          "informe o valor (0 se nada foi cobrado)."))
    elif event.amount < costs_due:
        problems.append(Problem("amount", f"Custas e despesas de guarda e conservação pagas (art. 29 §1): "
                                          f"{format_brl(event.amount)} é menos que o devido até "
                                          f"{dl.fmt(event.event_date)}, {format_brl(costs_due)}: o responsável "
                                          "as paga para receber a coisa."))
    return problems


def _lost_problems(collected_on: date, event: FoundEvent, cal: BusinessCalendar) -> list[Problem]:
    """Declared lost only after the owner's 30 days (art. 29 §2)."""
    due = _due(unclaimed_deadline(collected_on, cal))
    if event.event_date <= due:
        return [Problem("event_date", f"A coisa só pode ser declarada perdida depois de {dl.fmt(due)}"
                                      f": o responsável tem 30 dias do recolhimento ({dl.fmt(collected_on)}"
                                      ") para reclamá-la (art. 29 §2).")]
    return []


def _sold_problems(event: FoundEvent) -> list[Problem]:
    """Sale of a thing hard to keep, by public auction (art. 29 §3)."""
    problems: list[Problem] = []
    if event.amount is None:
        problems.append(Problem("amount", "Produto da alienação: informe o valor apurado."))
    if not event.reference:
        problems.append(Problem("reference", "Licitação ou hasta pública: informe o edital ou processo "
                                             "(art. 29 §3)."))
    if not event.note:
        problems.append(Problem("note", "Motivo: diga por que a coisa é de difícil guarda e conservação "
                                        "(art. 29 §3)."))
    return problems


def _proceeds_problems(current: FoundState, event: FoundEvent, cal: BusinessCalendar) -> list[Problem]:
    """The sale's proceeds: the owner's for 6 months, then União revenue (art. 29 §3)."""
    if current.sold_on is None:
        return []
    due, day = _due(proceeds_deadline(current.sold_on, cal)), event.event_date
    problems: list[Problem] = []
    if event.kind == "proceeds_claimed":
        if day > due:
            problems.append(Problem("event_date", f"O produto ficou à disposição do responsável até "
                                                  f"{dl.fmt(due)}; depois disso é receita da União "
                                                  "(art. 29 §3)."))
        if not event.party:
            problems.append(Problem("party", "Responsável: informe quem recebeu o produto da venda."))
    elif day <= due:
        problems.append(Problem("event_date", f"O produto fica guardado à disposição do responsável até "
                                              f"{dl.fmt(due)} (6 meses da venda, art. 29 §3); só depois "
                                              "vira receita da União."))
    return problems


def _revenue_problems(current: FoundState, event: FoundEvent) -> list[Problem]:
    """A foreign thing goes to the Receita Federal (art. 30)."""
    problems: list[Problem] = []
    if current.origin != "estrangeira":
        problems.append(Problem("kind", "Só coisa identificada como de procedência estrangeira vai à Receita "
                                        "Federal (art. 30): registre antes a procedência."))
    if not event.reference:
        problems.append(Problem("reference", "Ofício ou processo de encaminhamento à Receita Federal: informe."))
    return problems


def event_problems(collected_on: date, current: FoundState, event: FoundEvent, cal: BusinessCalendar, *,
                   today: date, costs_due: Decimal = Decimal(0)) -> list[Problem]:
    """Why `event` may not follow `current` (empty when it may). Pure: the office calendar, `today` and
    the custody costs due on the event's day are parameters. Implements art. 29 caput and §§1–3 and art. 30."""
    kind, day = event.kind, event.event_date
    if kind not in NEXT_EVENTS.get(current.state, ()):
        return [Problem("kind", f"{EVENT_LABELS.get(kind, kind)}: não se aplica a uma coisa "
                                f"{STATE_LABELS[current.state]}.")]
    problems: list[Problem] = []
    if day > today:
        problems.append(Problem("event_date", f"Data: não pode ser futura (hoje é {dl.fmt(today)})."))
    if day < current.last_date:
        problems.append(Problem("event_date", f"Data: não pode ser anterior a {dl.fmt(current.last_date)} "
                                              "(recolhimento ou último registro)."))
    if kind == "origin_identified" and event.origin not in ("nacional", "estrangeira"):
        problems.append(Problem("origin", "Procedência: informe nacional ou estrangeira."))
    if kind == "reclaimed":
        problems += _reclaimed_problems(current, event, costs_due)
    elif kind == "declared_lost":
        problems += _lost_problems(collected_on, event, cal)
    elif kind == "sold":
        problems += _sold_problems(event)
    elif kind in ("proceeds_claimed", "proceeds_to_union"):
        problems += _proceeds_problems(current, event, cal)
    elif kind == "sent_to_revenue":
        problems += _revenue_problems(current, event)
    return problems


def next_step(collected_on: date, current: FoundState, cal: BusinessCalendar, as_of: date) -> str:
    """What is due next, in pt-BR, for the list."""
    if current.state == "sob_custodia":
        due = _due(unclaimed_deadline(collected_on, cal))
        if as_of <= due:
            return f"aguardando o responsável até {dl.fmt(due)} ({(due - as_of).days} dias)"
        if current.origin == "estrangeira":
            return "procedência estrangeira: encaminhar à Receita Federal (art. 30)"
        return f"prazo de 30 dias vencido em {dl.fmt(due)}: pode ser declarada perdida (art. 29 §2)"
    if current.state == "vendido" and current.sold_on is not None:
        due = _due(proceeds_deadline(current.sold_on, cal))
        if as_of <= due:
            return f"produto guardado para o responsável até {dl.fmt(due)}"
        return f"6 meses vencidos em {dl.fmt(due)}: converter o produto em receita da União (art. 29 §3)"
    if current.state == "declarado_perdido":
        return ("declarada perdida: destinação pela DPC (NORMAM-10 (ed. 2002) 0405); até a alienação o responsável "
                "ainda pode reclamá-la (art. 29 §1)")
    return "encerrado"


# -- store ---------------------------------------------------------------------------------------
_THING_COLS = ("id, office_code, description, quantity, place, found_on, collected_on, finder_name, finder_document, "
               "finder_contact, origin, wreck_id, reference, notes, recorded_by, recorded_at")
_EVENT_COLS = "id, found_id, kind, event_date, amount, party, origin, reference, note, recorded_by, recorded_at"


def _events_by_thing(rows: list[dict[str, Any]]) -> dict[int, list[FoundEvent]]:
    out: dict[int, list[FoundEvent]] = {}
    for r in rows:
        out.setdefault(int(r["found_id"]), []).append(FoundEvent(
            r["kind"], r["event_date"], r["amount"], r["party"], r["origin"], r["reference"], r["note"]))
    return out


def list_found_things(store: Store, user: Principal, *, as_of: date, state: str | None = None,
                      office_code: str | None = None) -> pd.DataFrame:
    """Found things, newest collection first, with their derived state and deadlines:
    id, office_code, description, quantity, place, collected_on, finder_name, origin, state,
    state_label, unclaimed_due (art. 29 §2), costs_due (custody and conservation costs to `as_of` while the
    office keeps it, art. 29 §1; else None), proceeds, proceeds_due (art. 29 §3), next_step."""
    import pandas as pd

    require(user, "read_found_things")
    if state is not None and state not in STATE_LABELS:
        raise InputError(Problem("state", f"Situação desconhecida: {state}."))
    office_code = chosen_office(user, office_code)      # an office officer: its office's things alone
    where, params = ("WHERE office_code = ?", [office_code]) if office_code else ("", [])
    things = store.fetch(f"SELECT {_THING_COLS} FROM found_things {where} ORDER BY collected_on DESC, id DESC", params)
    events = _events_by_thing(store.fetch(
        f"SELECT {_EVENT_COLS} FROM found_thing_events WHERE found_id IN (SELECT id FROM found_things {where}) "
        "ORDER BY id", params))
    cals = office_calendars(store, sorted({t["office_code"] for t in things})) if things else {}
    due_by_thing = costs_due_by_thing(store, as_of) if things else {}
    rows = []
    for t in things:
        cal = cals.get(t["office_code"]) or BusinessCalendar()
        cur = derive_state(t["collected_on"], t["origin"], events.get(int(t["id"]), []))
        if state is not None and cur.state != state:
            continue
        rows.append({
            "id": int(t["id"]), "office_code": t["office_code"], "description": t["description"],
            "quantity": t["quantity"], "place": t["place"], "collected_on": t["collected_on"],
            "finder_name": t["finder_name"], "origin": ORIGIN_LABELS[cur.origin], "state": cur.state,
            "state_label": STATE_LABELS[cur.state], "unclaimed_due": unclaimed_deadline(t["collected_on"], cal).due,
            "proceeds": cur.proceeds,
            "costs_due": due_by_thing.get(int(t["id"]), Decimal("0.00")) if cur.state in KEPT_STATES else None,
            "proceeds_due": proceeds_deadline(cur.sold_on, cal).due if cur.sold_on else None,
            "next_step": next_step(t["collected_on"], cur, cal, as_of),
        })
    columns = ["id", "office_code", "description", "quantity", "place", "collected_on", "finder_name", "origin",
               "state", "state_label", "unclaimed_due", "costs_due", "proceeds", "proceeds_due", "next_step"]
    return pd.DataFrame(rows, columns=columns)


def get_found_thing(store: Store, user: Principal, found_id: int, *, as_of: date) -> dict[str, Any]:
    """One found thing: its registration fields, `events` (dicts, recording order), `state`,
    `state_label`, `origin` (current), `unclaimed` and `proceeds_deadline` (Deadline or None, with
    the steps that explain the date), `next_events` (what may be recorded now), `next_step`, `costs`
    (the custody and conservation cost rows) and `reclaim` (ReclaimTerms on `as_of`, art. 29 §1)."""
    require(user, "read_found_things")
    office, oparams = office_match(user, "office_code")
    row = store.fetch_one(f"SELECT {_THING_COLS} FROM found_things WHERE id = ? AND {office}", [found_id, *oparams])
    if row is None:
        raise NotFound(f"Coisa achada nº {found_id} não encontrada.", what="found_thing", key=found_id)
    event_rows = store.fetch(f"SELECT {_EVENT_COLS} FROM found_thing_events WHERE found_id = ? ORDER BY id",
                             [found_id])
    cal = office_calendars(store, [row["office_code"]]).get(row["office_code"]) or BusinessCalendar()
    cur = derive_state(row["collected_on"], row["origin"], _events_by_thing(event_rows).get(int(found_id), []))
    cost_rows = store.fetch("SELECT id, kind, incurred_on, amount, description, reference, recorded_by, recorded_at "
                            "FROM found_thing_costs WHERE found_id = ? ORDER BY incurred_on, id", [found_id])
    due = costs_due(costs_of(store, found_id), as_of)
    return {
        "costs": cost_rows, "reclaim": reclaim_terms(cur, due),
        **row, "events": event_rows, "state": cur.state, "state_label": STATE_LABELS[cur.state],
        "current_origin": cur.origin, "proceeds": cur.proceeds, "sold_on": cur.sold_on,
        "unclaimed": unclaimed_deadline(row["collected_on"], cal),
        "proceeds_deadline": proceeds_deadline(cur.sold_on, cal) if cur.sold_on else None,
        "next_events": NEXT_EVENTS[cur.state], "next_step": next_step(row["collected_on"], cur, cal, as_of),
    }


_THING_FIELDS = ("office_code", "description", "quantity", "place", "found_on", "collected_on", "finder_name",
                 "finder_document", "finder_contact", "origin", "wreck_code", "reference", "notes")


def register_found_thing(store: Store, user: Principal, data: Mapping[str, Any], *, today: date) -> int:
    """Register a thing found and handed in by a third party (art. 28 II; art. 29 caput: collected
    into the custody of the office). Returns its id. InputError names every bad field."""
    require(user, "manage_found_things")
    f = Form(data, allowed=_THING_FIELDS)
    rec: dict[str, Any] = {
        "office_code": f.text("office_code", "Capitania/Delegacia/Agência", max_len=20),
        "description": f.text("description", "Descrição", max_len=2000),
        "quantity": f.integer("quantity", "Quantidade", required=False, minimum=1, maximum=2_147_483_647) or 1,
        "place": f.text("place", "Local do achado", max_len=500),
        "found_on": f.date("found_on", "Data do achado", required=False),
        "collected_on": f.date("collected_on", "Data do recolhimento (arrecadação)"),
        "finder_name": f.text("finder_name", "Quem achou", max_len=200),
        "finder_document": f.text("finder_document", "Documento de quem achou", required=False, max_len=40),
        "finder_contact": f.text("finder_contact", "Contato de quem achou", required=False, max_len=200),
        "origin": f.choice("origin", "Procedência", ORIGINS, required=False) or "a_identificar",
        "reference": f.text("reference", "Termo de arrecadação / ofício", required=False, max_len=200),
        "notes": f.text("notes", "Observações", required=False, max_len=2000),
    }
    wreck_code = f.text("wreck_code", "Naufrágio", required=False, max_len=100)
    collected, found = rec["collected_on"], rec["found_on"]
    if collected is not None and collected > today:
        f.fail("collected_on", f"Data do recolhimento (arrecadação): não pode ser futura (hoje é {dl.fmt(today)}).")
    if found is not None and collected is not None and found > collected:
        f.fail("found_on", "Data do achado: não pode ser posterior ao recolhimento.")
    if rec["office_code"] and not store.scalar("SELECT count(*) FROM offices WHERE code = ?", [rec["office_code"]]):
        f.fail("office_code", f"Capitania/Delegacia/Agência desconhecida: {rec['office_code']}.")
    elif rec["office_code"] and not office_cleared(user, rec["office_code"]):
        f.fail("office_code", "Capitania/Delegacia/Agência: o seu perfil registra achados da sua Capitania apenas.")
    rec["wreck_id"] = None
    if wreck_code:
        wreck_office, wparams = office_match(user, "office_code")
        rec["wreck_id"] = store.scalar(f"SELECT id FROM wrecks WHERE code = ? AND {wreck_office}",
                                       [wreck_code, *wparams])
        if rec["wreck_id"] is None:
            f.fail("wreck_code", f"Naufrágio desconhecido: {wreck_code}.")
    f.done()

    def run(tx: Tx) -> int:
        columns = list(rec)
        new_id = int(tx.scalar(
            f"INSERT INTO found_things ({', '.join(columns)}, recorded_by, recorded_at) "
            f"VALUES ({', '.join('?' for _ in columns)}, ?, ?) RETURNING id",
            [rec[c] for c in columns] + [user.username, tx.store.now()]))
        tx.audit("found_thing_registered", "found_thing", new_id, None, rec)
        return new_id

    return store.write(user.username, run)


_EVENT_FIELDS = ("kind", "event_date", "amount", "party", "origin", "reference", "note")


def record_found_event(store: Store, user: Principal, found_id: int, data: Mapping[str, Any], *,
                       today: date) -> int:
    """Append what happened to a found thing (see the module docstring for what may follow
    what, and why). Returns the event id. InputError names every problem; nothing is written."""
    require(user, "manage_found_things")
    f = Form(data, allowed=_EVENT_FIELDS)
    kind = f.choice("kind", "Registro", EVENT_KINDS)
    event_date = f.date("event_date", "Data")
    amount = f.money("amount", "Valor (R$)", required=False)
    event = {
        "party": f.text("party", "Responsável / adquirente", required=False, max_len=200),
        "origin": f.choice("origin", "Procedência", ("nacional", "estrangeira"), required=False),
        "reference": f.text("reference", "Documento (edital, processo, ofício)", required=False, max_len=200),
        "note": f.text("note", "Observação", required=False, max_len=2000),
    }
    f.done()

    def run(tx: Tx) -> int:
        office, oparams = office_match(user, "office_code")
        thing = tx.fetch_one("SELECT id, office_code, collected_on, origin FROM found_things "
                             f"WHERE id = ? AND {office}", [found_id, *oparams])
        if thing is None:
            raise NotFound(f"Coisa achada nº {found_id} não encontrada.", what="found_thing", key=found_id)
        history = _events_by_thing(tx.execute(
            f"SELECT {_EVENT_COLS} FROM found_thing_events WHERE found_id = ? ORDER BY id", [found_id]))
        cur = derive_state(thing["collected_on"], thing["origin"], history.get(int(found_id), []))
        cal = office_calendars(tx.store, [thing["office_code"]]).get(thing["office_code"]) or BusinessCalendar()
        candidate = FoundEvent(str(kind), event_date, amount, event["party"],  # type: ignore[arg-type]
                               event["origin"], event["reference"], event["note"])
        due = costs_due(costs_of(tx, found_id), event_date) if event_date else Decimal(0)
        problems = event_problems(thing["collected_on"], cur, candidate, cal, today=today, costs_due=due)
        if problems:
            raise InputError(problems)
        new_id = int(tx.scalar(
            "INSERT INTO found_thing_events (found_id, kind, event_date, amount, party, origin, reference, note, "
            "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [found_id, kind, event_date, amount, event["party"], event["origin"], event["reference"],
             event["note"], user.username, tx.store.now()]))
        after = derive_state(thing["collected_on"], thing["origin"], [*history.get(int(found_id), []), candidate])
        tx.audit("found_thing_event", "found_thing", found_id, {"state": cur.state},
                 {"state": after.state, "event_id": new_id, "kind": kind, "event_date": event_date,
                  "amount": amount, **event})
        return new_id

    return store.write(user.username, run)


def current_state(db: Store | Tx, found_id: int) -> FoundState:
    """The derived state of a found thing (no access check; the thing must exist)."""
    thing = db.fetch_one("SELECT collected_on, origin FROM found_things WHERE id = ?", [found_id])
    assert thing is not None
    events = _events_by_thing(db.fetch(f"SELECT {_EVENT_COLS} FROM found_thing_events WHERE found_id = ? ORDER BY id",
                                       [found_id]))
    return derive_state(thing["collected_on"], thing["origin"], events.get(int(found_id), []))
