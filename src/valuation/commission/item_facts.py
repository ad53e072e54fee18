"""What a member sees of the item being valued (issue 16 §7): its physical data and where and
when it was recovered — material, weight, dimensions, condition, lot, depth, recovery date.

Scoped like every item read (`scope.contract_scope`): dpc all, the commission the items under
assessment, an explorer its own contracts' items; another item is "não encontrado".
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING

from valuation.core.errors import InputError, NotFound, Problem
from valuation.db.access import Principal, contract_scope, require

if TYPE_CHECKING:
    from valuation.db.store import Store

LABELS: dict[str, str] = {
    "category": "Categoria", "material": "Material", "quantity": "Quantidade", "weight_g": "Peso (g)",
    "dimensions": "Dimensões", "condition": "Condição", "lot": "Lote", "depth_m": "Profundidade (m)",
    "recovered_on": "Recuperado em", "notes": "Observações",
}


@dataclass(frozen=True)
class ItemFacts:
    item_id: int
    contract_code: str
    item_code: str
    description: str
    category: str
    material: str
    quantity: int
    weight_g: Decimal | None
    dimensions: str | None
    condition: str | None
    lot: str | None
    depth_m: Decimal | None
    recovered_on: date
    notes: str | None


def item_facts(store: Store, user: Principal, item_id: int) -> ItemFacts:
    """The item's facts; NotFound outside the user's scope."""
    require(user, "read_items")
    if isinstance(item_id, bool) or not isinstance(item_id, int):
        raise InputError(Problem("item_id", "Item: identificador inválido."))
    scope, params = contract_scope(user, "c")
    row = store.fetch_one(
        "SELECT i.id AS item_id, c.code AS contract_code, i.item_code, i.description, i.category, i.material, "
        "i.quantity, i.weight_g, i.dimensions, i.condition, i.lot, i.depth_m, i.recovered_on, i.notes "
        f"FROM items i JOIN contracts c ON c.id = i.contract_id WHERE i.id = ? AND {scope}", [item_id, *params])
    if row is None:
        raise NotFound(f"Item {item_id} não encontrado.", what="item", key=item_id)
    return ItemFacts(**row)
