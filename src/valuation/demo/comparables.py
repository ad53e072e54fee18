"""An earlier, published assessment for the demo's comparables (issue 16 §8).

The commission demo (`valuation.demo.commission`) publishes one contract, DPC-EX-2015/01,
whose round 2 is open: its items have no comparables of *other* contracts. This step plays,
through the store API and with the clock held in June–July 2026 (before that round 1), the
Commission's assessment of 200 items of DPC-EX-2017/02 (Galeão, colonial Portuguese cargo,
operations ended in 2021): the six members upload their sheets (BRL), the president closes,
adopts the consensus and publishes. Members valuing round 2 then see the decisions on
similar coins, faience and ceramics as comparables.

Idempotent: nothing happens when that contract already has rounds, or outside the demo.
"""
from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from valuation.commission.decisions import record_decisions
from valuation.commission.rounds import close_round, open_round, publish_round
from valuation.commission.sheet_import import import_assessments
from valuation.demo import commission as cd
from valuation.demo.base import DEMO_SEED

if TYPE_CHECKING:
    from valuation.db.store import Store

EARLIER_CONTRACT = "DPC-EX-2017/02"
EARLIER_ITEMS = 200
_CENT = Decimal("0.01")


def _sheet(entries: list[dict], price_day: date) -> bytes:
    lines = ["codigo;historico;valor;moeda;data_do_preco;significancia;manter;fonte;observacao"]
    for e in entries:
        vote = "" if e["historical"] is None else "sim" if e["historical"] else "não"
        sig = "" if e["significance"] is None else str(e["significance"])
        keep = ("sim" if e["must_keep"] else "não") if e["historical"] else ""
        amount = str(e["brl"].quantize(_CENT, ROUND_HALF_UP)).replace(".", ",")
        note = cd.SOURCE_NOTES[e["source"]] if e["source"] == "avaliacao_externa" else ""
        lines.append(f"{e['item']['item_code']};{vote};{amount};BRL;{price_day:%d/%m/%Y};{sig};{keep};{e['source']};"
                     f"{note}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def seed_comparables_demo(store: Store) -> dict[str, int]:
    """Assess, decide and publish 200 items of DPC-EX-2017/02 (module docstring)."""
    contract = store.fetch_one("SELECT id FROM contracts WHERE code = ?", [EARLIER_CONTRACT])
    if contract is None or store.scalar("SELECT count(*) FROM assessment_rounds WHERE contract_id = ?",
                                        [contract["id"]]):
        return {"rounds": 0}
    if not store.fetch_one("SELECT 1 AS x FROM users WHERE username = 'cmg.tavares'"):
        return {"rounds": 0}
    president, members = cd.demo_panel(store)
    rng = random.Random(DEMO_SEED * 5 + 16)
    items = cd.contract_items(store, EARLIER_CONTRACT, EARLIER_ITEMS)
    with cd.held_clock(store) as clock:
        clock(datetime(2026, 6, 1, 10, 0))
        rnd = open_round(store, president, EARLIER_CONTRACT, [int(i["id"]) for i in items])
        plan = cd.plan_round(items, members, rng)
        entries = 0
        for k, m in enumerate(members):
            day = date(2026, 6, 2) + timedelta(days=2 * k)
            clock(datetime.combine(day, time(9 + k, 30)))
            entries += import_assessments(store, m, rnd.id, _sheet(plan[m.id], day - timedelta(days=1)),
                                             f"avaliacao_{EARLIER_CONTRACT.replace('/', '-')}_{m.username}.csv").rows
        clock(datetime(2026, 6, 26, 17, 0))
        close_round(store, president, rnd.id)
        clock(datetime(2026, 7, 3, 10, 0))
        decided = record_decisions(store, president, rnd.id).written
        clock(datetime(2026, 7, 8, 15, 0))
        publish_round(store, president, rnd.id)
    store.checkpoint()
    return {"rounds": 1, "entries": entries, "decisions": decided}


__all__ = ["EARLIER_CONTRACT", "EARLIER_ITEMS", "seed_comparables_demo"]
