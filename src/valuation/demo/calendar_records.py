"""The demo's calendar records (issue 44; `valuation.deadlines.calendar_records`): the days DPC fixed with their
source — the 2025 federal calendar's closure of 20/06 and the Dia do Servidor moved from 28/10 to 27/10 (Portaria MGI
nº 9.783/2024), for every office, and at the CPRJ the library's state holiday of 23/04/2026 switched off (Lei
9.093/1995 art. 1º II). Seeded first, so that the demo's deadlines are counted on them. Idempotent: does nothing
when records exist."""
from __future__ import annotations

from datetime import date, datetime, time
from typing import TYPE_CHECKING

from valuation.demo.constants import DEMO_ACTOR

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

MGI_2025 = "Portaria MGI nº 9.783/2024 (calendário de 2025 dos órgãos federais)"
# (scope, day, effect, moved_from, name, source, recorded on)
RECORDS: tuple[tuple[str, date, str, date | None, str, str, date], ...] = (
    ("BR", date(2025, 6, 20), "closed", None, "Ponto facultativo após Corpus Christi", MGI_2025, date(2025, 1, 6)),
    ("BR", date(2025, 10, 27), "closed", date(2025, 10, 28), "Dia do Servidor Público", MGI_2025, date(2025, 1, 6)),
    ("CPRJ", date(2026, 4, 23), "open", None, "São Jorge",
     "Lei 9.093/1995 art. 1º II (o Estado declara feriado só a sua data magna): expediente normal na CPRJ",
     date(2026, 1, 12)),
)


def seed_calendar_records_demo(store: Store) -> dict[str, int]:
    """Insert RECORDS (those whose office exists); returns {"calendar_records": n}."""
    if store.scalar("SELECT count(*) FROM calendar_records"):
        return {"calendar_records": 0}
    offices = {r["code"] for r in store.fetch("SELECT code FROM offices")} | {"BR"}
    rows = [r for r in RECORDS if r[0] in offices]

    def write(tx: Tx) -> None:
        tx.cur.executemany("INSERT INTO calendar_records (scope, day, effect, moved_from, name, source, recorded_by, "
                           "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           [[*r[:6], DEMO_ACTOR, datetime.combine(r[6], time(12, 0))] for r in rows])
        tx.audit("seed_calendar_records_demo", "demo", None, None, {"calendar_records": len(rows)})

    store.write(DEMO_ACTOR, write)
    return {"calendar_records": len(rows)}
