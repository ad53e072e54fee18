"""The demo's records of issue 25's rules of the registry (call it after `valuation.demo.legal`).

`seed_wreck_law_demo(store)` adds, deterministically:

- archaeological sites (Constituição art. 20 X; Lei 3.924/1961): the Vapor Bahía Blanca (ES-003, 1908),
  private under art. 32 (its owner asked in time, 15/06/1987), is the União's from its registration
  (12/08/2019) whatever that request; the Galeão Santo Antônio de Pádua (BA-001, wooden hull of 1686) was
  the União's from 29/09/1986 by art. 32 §1 — its registration of 2014 changes nothing (the earliest event).

Refuses nothing: it does nothing when its records exist already (idempotent).
"""
from __future__ import annotations

from datetime import date, datetime, time
from typing import TYPE_CHECKING

from valuation.demo.constants import DEMO_ACTOR

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

_D = date
# wreck → (authority, number, registered_on, note)
SITES: dict[str, tuple[str, str, date, str]] = {
    "ES-003": ("IPHAN", "CNSA ES-00087", _D(2019, 8, 12),
               "Vapor argentino de 1908 com carga de época e restos do casco íntegros: sítio arqueológico "
               "subaquático."),
    "BA-001": ("IPHAN", "CNSA BA-01230", _D(2014, 5, 6),
               "Galeão português afundado em 1686 na Baía de Todos os Santos."),
}


def _at(day: date, hour: int = 10) -> datetime:
    return datetime.combine(day, time(hour, 0))


def seed_wreck_law_demo(store: Store) -> dict[str, int]:
    """Insert the records listed in the module docstring; returns the rows added per kind."""
    if store.scalar("SELECT count(*) FROM archaeological_sites"):
        return {"archaeological_sites": 0}
    counts: dict[str, int] = {}

    def write(tx: Tx) -> None:
        counts["archaeological_sites"] = _sites(tx)
        tx.audit("seed_wreck_law_demo", "demo", None, None, dict(counts))

    store.write(DEMO_ACTOR, write)
    return counts


def _sites(tx: Tx) -> int:
    wrecks = {r["code"]: r["id"] for r in tx.fetch("SELECT id, code FROM wrecks")}
    rows = [(wrecks[code], authority, number, day, note, DEMO_ACTOR, _at(day))
            for code, (authority, number, day, note) in SITES.items() if code in wrecks]
    if rows:
        tx.cur.executemany("INSERT INTO archaeological_sites (wreck_id, authority, number, registered_on, note, "
                           "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)
