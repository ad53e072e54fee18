"""Demo process numbers (issue 26 §3): a protocol unit code for every office, then a NUP (Portaria
Interministerial MJSP/ME nº 11/2019) for every request, decision, issued statement and removal order.

The unit codes are made up for the demo (5 digits, one per office, in the order of
`registry.office_directory.OFFICES`); the real ones are those of the Cadastro Nacional de Unidades
Protocolizadoras. `seed_protocol_units` runs before the steps that record acts (their NUPs are given as they
are written); `number_demo_records` after them, for the records the demo loads as plain rows.
"""
from __future__ import annotations

from typing import Any

from valuation.demo.constants import DEMO_ACTOR
from valuation.process import documents, numbers
from valuation.registry.office_directory import OFFICES

FIRST_DEMO_UNIT = 64101


def demo_units() -> dict[str, str]:
    """office code → its demo protocol unit code."""
    return {office[0]: f"{FIRST_DEMO_UNIT + i:05d}" for i, office in enumerate(OFFICES)}


def seed_protocol_units(store: Any) -> dict[str, int]:
    units = demo_units()
    if store.scalar("SELECT count(*) FROM protocol_units"):
        return {"protocol_units": 0}

    def write(tx: Any) -> int:
        at = tx.store.now()
        tx.cur.executemany("INSERT INTO protocol_units VALUES (?, ?, ?, ?)",
                           [[office, unit, DEMO_ACTOR, at] for office, unit in units.items()])
        tx.audit("demo.seed", "protocol_units", "*", None, {"rows": len(units)})
        return len(units)

    return {"protocol_units": store.write(DEMO_ACTOR, write)}


def number_demo_records(store: Any) -> dict[str, int]:
    """The plain rows' places in their processes (issue 42 item 2: an appeal is a document of its decision's process,
    not numbered on its own), then their NUPs."""
    filed = store.write(DEMO_ACTOR, documents.document_missing)
    return {"process_documents": filed, "process_numbers": store.write(DEMO_ACTOR, numbers.number_missing)}
