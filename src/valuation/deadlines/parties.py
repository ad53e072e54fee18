"""The registry's facts about a wreck's responsible parties, read by the deadline engine (which imports
nothing of `registry/`: README "Deadlines sit above the registry"): the vessel's owner, the cargo and its
responsible, the cessions (Lei 7.542 art. 8) and the named requests, as `valuation.core.responsible`'s
types; that module's rules decide whose request counts and who answers."""
from __future__ import annotations

from typing import TYPE_CHECKING

from valuation.core.responsible import Cession, Request, WreckParties

if TYPE_CHECKING:
    from valuation.db.store import Store


def load(store: Store) -> tuple[dict[int, WreckParties], dict[int, str]]:
    """(every wreck's parties by wreck id, every owner's name by id)."""
    out = {int(r["id"]): WreckParties(r["owner_id"]) for r in store.fetch("SELECT id, owner_id FROM wrecks")}
    for r in store.fetch("SELECT wreck_id, description, owner_id, declared_lost FROM wreck_cargoes"):
        if r["wreck_id"] in out:
            out[r["wreck_id"]].cargo = r
    for r in store.fetch("SELECT wreck_id, part, cedent_id, cessionary_id, ceded_on, communicated_on FROM cessions "
                         "ORDER BY id"):
        if r["wreck_id"] in out:
            out[r["wreck_id"]].cessions.append(Cession(r["part"], r["cedent_id"], r["cessionary_id"], r["ceded_on"],
                                                       r["communicated_on"]))
    for r in store.fetch("SELECT wreck_id, part, requester_id, requested_on FROM licence_requests "
                         "ORDER BY requested_on, id"):
        if r["wreck_id"] in out:
            out[r["wreck_id"]].requests.append(Request(r["part"], r["requester_id"], r["requested_on"]))
    names = {int(r["id"]): r["name"] for r in store.fetch("SELECT id, name FROM owners")}
    return out, names
