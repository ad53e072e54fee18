"""The custody and conservation costs of a found thing (Lei 7.542/1986 art. 29 §1; migration 031).

Art. 29 §1: things not yet sold by the Naval Authority "poderão ser reclamados e entregues aos seus
responsáveis, pagando o interessado as custas e despesas de guarda e conservação". The office records each
cost it incurs (kind: guarda, conservação or custas; the day; the amount; what it was); `costs_due` (pure)
is what the owner must pay to take the thing back on a given day: every cost incurred up to that day.
The reclaim itself is a found-thing event (`valuation.inventory.found_things`), refused when the amount
paid is less than the costs due on its day.

Who: dpc only (read and write), as the rest of the found things. Money is DECIMAL, to the cent.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.errors import NotFound
from valuation.core.forms import Form
from valuation.core.money import format_date_br
from valuation.db.access import Principal, office_match, require

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

    Db = Store | Tx

KINDS: dict[str, str] = {"guarda": "guarda", "conservação": "conservação", "custas": "custas"}
LABELS: dict[str, str] = {"kind": "Natureza da despesa", "incurred_on": "Data da despesa", "amount": "Valor (R$)",
                          "description": "Descrição da despesa", "reference": "Documento (nota, recibo, processo)"}
_COLS = "id, found_id, kind, incurred_on, amount, description, reference, recorded_by, recorded_at"


@dataclass(frozen=True)
class Cost:
    """One custody or conservation cost of a found thing."""

    kind: str
    incurred_on: date
    amount: Decimal


def costs_due(costs: Iterable[Cost], on: date) -> Decimal:
    """What the owner pays to reclaim the thing on `on` (art. 29 §1): every custody and conservation cost
    incurred up to that day, to the cent (Decimal(0) when none was recorded)."""
    return sum((c.amount for c in costs if c.incurred_on <= on), Decimal("0.00"))


def costs_of(db: Db, found_id: int) -> list[Cost]:
    """The recorded costs of a found thing (no access check: the caller read the thing)."""
    return [Cost(r["kind"], r["incurred_on"], r["amount"]) for r in db.fetch(
        "SELECT kind, incurred_on, amount FROM found_thing_costs WHERE found_id = ? ORDER BY incurred_on, id",
        [found_id])]


def costs_due_by_thing(db: Db, on: date) -> dict[int, Decimal]:
    """found_id → the costs due on `on`, for every thing with a cost (one query, for the list)."""
    return {int(r["found_id"]): r["due"] for r in db.fetch(
        "SELECT found_id, sum(amount) AS due FROM found_thing_costs WHERE incurred_on <= ? GROUP BY found_id", [on])}


def list_costs(store: Store, user: Principal, found_id: int) -> list[dict[str, Any]]:
    """The thing's cost rows, oldest first (for its detail)."""
    require(user, "read_found_things")
    office, params = office_match(user, "t.office_code")       # an office officer: its office's things alone
    return store.fetch(f"SELECT {_COLS} FROM found_thing_costs WHERE found_id = ? AND found_id IN "
                       f"(SELECT t.id FROM found_things t WHERE {office}) ORDER BY incurred_on, id",
                       [found_id, *params])


def record_found_cost(store: Store, user: Principal, found_id: int, data: Mapping[str, Any], *,
                      today: date) -> int:
    """Record a custody or conservation cost of a thing in custody (art. 29 §1). Returns its id. Refused
    (InputError naming the field, nothing written) for a day before the collection or after `today`, or a
    thing no longer kept by the office (returned, sold or sent to the Federal Revenue); audited."""
    from valuation.inventory.found_things import KEPT_STATES, current_state  # the thing's state (no cycle)

    require(user, "manage_found_things")
    f = Form(data, allowed=tuple(LABELS))
    rec: dict[str, Any] = {
        "kind": f.choice("kind", LABELS["kind"], tuple(KINDS)),
        "incurred_on": f.date("incurred_on", LABELS["incurred_on"]),
        "amount": f.money("amount", LABELS["amount"]),
        "description": f.text("description", LABELS["description"], max_len=500),
        "reference": f.text("reference", LABELS["reference"], required=False, max_len=200),
    }
    if rec["amount"] is not None and rec["amount"] <= 0:
        f.fail("amount", f"{LABELS['amount']}: informe um valor maior que zero.")
    if rec["incurred_on"] is not None and rec["incurred_on"] > today:
        f.fail("incurred_on", f"{LABELS['incurred_on']}: não pode ser futura (hoje é {format_date_br(today)}).")
    f.done()

    def run(tx: Tx) -> int:
        office, params = office_match(user, "office_code")
        thing = tx.fetch_one(f"SELECT collected_on FROM found_things WHERE id = ? AND {office}", [found_id, *params])
        if thing is None:
            raise NotFound(f"Coisa achada nº {found_id} não encontrada.", what="found_thing", key=found_id)
        state = current_state(tx, found_id)
        if rec["incurred_on"] < thing["collected_on"]:
            f.fail("incurred_on", f"{LABELS['incurred_on']}: não pode ser anterior ao recolhimento "
                                  f"({format_date_br(thing['collected_on'])}).")
        if state.state not in KEPT_STATES:
            f.fail("kind", "Despesa de guarda e conservação só de coisa ainda sob a guarda da Autoridade Naval "
                           "(art. 29 §1): esta já não está.")
        f.done()
        new_id = int(tx.scalar(
            "INSERT INTO found_thing_costs (found_id, kind, incurred_on, amount, description, reference, "
            "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [found_id, *rec.values(), user.username, tx.store.now()]))
        tx.audit("found_thing_cost", "found_thing", found_id, None, {"cost_id": new_id, **rec})
        return new_id

    return store.write(user.username, run)
