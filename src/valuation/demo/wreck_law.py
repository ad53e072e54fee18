"""The demo's records of issue 25's rules of the registry (call it after `valuation.demo.legal`).

`seed_wreck_law_demo(store)` adds, deterministically:

- archaeological sites (Constituição art. 20 X; Lei 3.924/1961): the Vapor Bahía Blanca (ES-003, 1908),
  private under art. 32 (its owner asked in time, 15/06/1987), is the União's from its registration
  (12/08/2019) whatever that request; the Galeão Santo Antônio de Pádua (BA-001, wooden hull of 1686) was
  the União's from 29/09/1986 by art. 32 §1 — its registration of 2014 changes nothing (the earliest event);
- cessions of the owner's rights (Lei 7.542 art. 8): Pesca Capixaba ceded the Pesqueiro Netuno II (ES-002) to
  its insurer, Seguradora Marítima Capixaba, on 10/11/2022, communicated on 25/11/2022 — the insurer is the
  responsible from then on, and its licence request of 14/03/2023 counts; Pesqueira Oiapoque ceded the
  Lagosteiro Estrela do Norte (AP-001) to Recuperadora Amapá on 10/06/2026 without communicating it — void
  against the Authority (art. 8 §2): the removal order's notices still go to Pesqueira Oiapoque;
- a vessel and its cargo (arts. 13 §1 and 14): the AHTS Atlântica Aurora (RJ-002) carried subsea equipment of
  Petróleo Atlântico S.A., who declared it lost on 22/04/2024 — the cargo is the União's from then, while the
  vessel stays private (its owner asked in time, 10/05/2023); the vessel's owner then asked to remove the
  cargo (art. 14 I, 02/09/2024), which does not count for the cargo's five years;
- the salvage award of the Cargueiro Tijuca's removal (DPC-RM-2016/04, modality IV, art. 21 IV) with the
  factors the Authority weighed (Lei 7.203/1984 art. 10), printed by the contract's statements;
- the valuation date of the Navío Nuestra Señora de Begoña's exploration (DPC-EX-2021/05, value fixed before
  the operations, which started on 01/11/2021): 29/10/2021 (art. 21 §3), with that day's USD/EUR/GBP rates —
  the Commission converts this contract's foreign prices at them, not at each price's date;
- a found thing declared lost and not yet sold (art. 29 §§1–2): a bronze bell handed in at the CPRJ on
  14/07/2026, declared lost on 02/09/2026, with R$ 3.650,00 of custody and conservation costs by 31/10/2026 —
  its owner may still reclaim it, paying them, until the Authority sells it.

Refuses nothing: it does nothing when its records exist already (idempotent).
"""
from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING

from valuation.core import ids
from valuation.core.valuation_date import valuation_date_problems
from valuation.demo.constants import DEMO_ACTOR, DEMO_TODAY
from valuation.partition.pools import aggregates

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


# key → (name, doc_kind, doc_number, nationality, whereabouts_known, address): the new parties
NEW_OWNERS: dict[str, tuple[str, str, str, str, bool, str]] = {
    "seguradora": ("Seguradora Marítima Capixaba S.A.", "CNPJ", "275910340001" + ids.cnpj_check_digits("275910340001"),
                   "brasileira", True, "Av. Nossa Senhora dos Navegantes 675, Enseada do Suá, Vitória-ES"),
    "recuperadora": ("Recuperadora Amapá Ltda.", "CNPJ", "158320470001" + ids.cnpj_check_digits("158320470001"),
                     "brasileira", True, "Rua São José 1450, Centro, Macapá-AP"),
    "petroleo": ("Petróleo Atlântico S.A.", "CNPJ", "331274060001" + ids.cnpj_check_digits("331274060001"),
                 "brasileira", True, "Av. República do Chile 330, Centro, Rio de Janeiro-RJ"),
}
# wreck → (cedent: the wreck's owner, cessionary key, ceded_on, communicated_on, act)
CESSIONS: tuple[tuple[str, str, date, date | None, str], ...] = (
    ("ES-002", "seguradora", _D(2022, 11, 10), _D(2022, 11, 25),
     "Termo de abandono e cessão de direitos à seguradora (perda total), 1º Ofício de Vitória"),
    ("AP-001", "recuperadora", _D(2026, 6, 10), None, "Contrato particular de cessão de direitos sobre o casco"),
)
CARGO = ("RJ-002", "Equipamentos submarinos: 2 manifolds e 3 km de umbilicais", "petroleo", _D(2024, 4, 22))
# wreck → (part, requester: a new owner key or 'owner' for the wreck's owner, day, note)
REQUESTS: tuple[tuple[str, str, str, date, str], ...] = (
    ("ES-002", "embarcação", "seguradora", _D(2023, 3, 14), "Pedido de licença para remoção do casco (art. 4)."),
    ("RJ-002", "carga", "owner", _D(2024, 9, 2),
     "Pedido de remoção da carga pelo responsável pela embarcação (art. 14 I)."),
)


# contract → (act, assessed_on, expenses, factors): the award is the contract's own (its terms)
SALVAGE = ("DPC-RM-2016/04", "Portaria nº 27/2019-DPC", _D(2019, 10, 15), "612400.00", {
    "success": "Carga de lingotes de cobre e estanho removida integralmente (1.500 volumes); casco aliviado e "
               "canal de acesso desobstruído.",
    "efforts": "Mergulho saturado a 34 m em visibilidade quase nula; corte e içamento de 14 porões sem perda de "
               "carga.",
    "danger": "Casco abalroado em 1961, em colapso progressivo sobre o canal de navegação do Porto do Rio.",
    "time_spent": "Operações de 09/01/2017 a 30/08/2019 (32 meses, 410 dias de mar).",
    "risk": "Risco de desabamento das anteparas durante o corte; dois incidentes de descompressão sem vítimas.",
    "equipment": "Balsa-guindaste de 300 t, sistema de mergulho saturado e ROV de inspeção (valor estimado R$ 42 "
                 "milhões).",
    "damage_avoided": "Remoção do óleo residual dos tanques (38 m³) e fim do obstáculo à navegação no canal.",
})

# contract → (valuation date, that day's rates: BRL per unit, a PTAX-style demo series)
VALUATION = ("DPC-EX-2021/05", _D(2021, 10, 29), {"USD": "5.6430", "EUR": "6.5393", "GBP": "7.7448"})

# (office, description, place, collected_on, finder, reference, declared lost on, costs: (kind, day, amount, text))
FOUND = ("CPRJ", "Sino de bronze com a inscrição \"Guarany 1911\", 38 cm", "Praia de Itaipu, Niterói",
         _D(2026, 7, 14), "Antônio Carlos Ribeiro (pescador)", "Termo de arrecadação nº 14/2026-CPRJ",
         _D(2026, 9, 2), (
             ("conservação", _D(2026, 7, 20), "850.00", "Dessalinização e estabilização do bronze (laboratório)"),
             ("guarda", _D(2026, 8, 31), "1200.00", "Guarda no depósito da CPRJ, 14/07 a 31/08/2026"),
             ("guarda", _D(2026, 10, 31), "1600.00", "Guarda no depósito da CPRJ, 01/09 a 31/10/2026")))


def _at(day: date, hour: int = 10) -> datetime:
    return datetime.combine(day, time(hour, 0))


def seed_wreck_law_demo(store: Store) -> dict[str, int]:
    """Insert the records listed in the module docstring; returns the rows added per kind."""
    if store.scalar("SELECT count(*) FROM archaeological_sites"):
        return {"archaeological_sites": 0, "cessions": 0, "wreck_cargoes": 0, "licence_requests": 0,
                "salvage_assessments": 0, "valuation_dates": 0,
                "found_things": 0}
    counts: dict[str, int] = {}

    def write(tx: Tx) -> None:
        counts["archaeological_sites"] = _sites(tx)
        counts.update(_parties(tx))
        counts["salvage_assessments"] = _salvage(tx)
        counts["valuation_dates"] = _valuation_date(tx)
        counts["found_things"] = _found_thing(tx)
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


def _parties(tx: Tx) -> dict[str, int]:
    wrecks = {r["code"]: (r["id"], r["owner_id"]) for r in tx.fetch("SELECT id, code, owner_id FROM wrecks")}
    if not all(code in wrecks for code in ("ES-002", "AP-001", "RJ-002")):
        return {"cessions": 0, "wreck_cargoes": 0, "licence_requests": 0}
    people = {key: int(tx.scalar(
        "INSERT INTO owners (name, doc_kind, doc_number, nationality, whereabouts_known, address) "
        "VALUES (?, ?, ?, ?, ?, ?) RETURNING id", list(row))) for key, row in NEW_OWNERS.items()}
    for code, to, ceded, communicated, act in CESSIONS:
        wreck_id, owner = wrecks[code]
        tx.execute("INSERT INTO cessions (wreck_id, part, cedent_id, cessionary_id, ceded_on, communicated_on, act, "
                   "recorded_by, recorded_at) VALUES (?, 'embarcação', ?, ?, ?, ?, ?, ?, ?)",
                   [wreck_id, owner, people[to], ceded, communicated, act, DEMO_ACTOR, _at(communicated or ceded)])
    code, description, holder, lost = CARGO
    tx.execute("INSERT INTO wreck_cargoes (wreck_id, description, owner_id, declared_lost, recorded_by, recorded_at) "
               "VALUES (?, ?, ?, ?, ?, ?)", [wrecks[code][0], description, people[holder], lost, DEMO_ACTOR, _at(lost)])
    for code, part, who, day, note in REQUESTS:
        wreck_id, owner = wrecks[code]
        tx.execute("INSERT INTO licence_requests (wreck_id, part, requester_id, requested_on, note, recorded_by, "
                   "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [wreck_id, part, owner if who == "owner" else people[who], day, note, DEMO_ACTOR, _at(day)])
    return {"owners": len(people), "cessions": len(CESSIONS), "wreck_cargoes": 1, "licence_requests": len(REQUESTS)}


def _salvage(tx: Tx) -> int:
    code, act, day, expenses, factors = SALVAGE
    c = tx.fetch_one("SELECT id, salvage_award FROM contracts WHERE code = ? AND modality = 'IV'", [code])
    if c is None or c["salvage_award"] is None:
        return 0
    agg = aggregates(tx, int(c["id"]))
    saved = agg.o_total if agg.o_n else None
    if saved is not None and c["salvage_award"] > saved:   # never an award above the value saved (art. 10 §1)
        return 0
    tx.execute("INSERT INTO salvage_assessments (contract_id, award, useful_result, value_saved, expenses, success, "
               "efforts, danger, time_spent, risk, equipment, damage_avoided, act, assessed_on, recorded_by, "
               "recorded_at) VALUES (?, ?, true, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               [c["id"], c["salvage_award"], saved, expenses, *factors.values(), act, day, DEMO_ACTOR, _at(day)])
    return 1


def _valuation_date(tx: Tx) -> int:
    """The contract's valuation date (art. 21 §3), checked by the rule the store applies, and that day's rates."""
    code, day, rates = VALUATION
    c = tx.fetch_one("SELECT id, value_fixed, starts_on, work_ended_on FROM contracts WHERE code = ?", [code])
    if c is None or valuation_date_problems(day, c["value_fixed"], c["starts_on"], c["work_ended_on"],
                                            today=DEMO_TODAY):
        return 0
    tx.execute("UPDATE contracts SET valuation_date = ? WHERE id = ?", [day, c["id"]])
    tx.cur.executemany("INSERT INTO fx_rates (currency, day, brl, source, recorded_by, recorded_at) "
                       "VALUES (?, ?, ?, 'PTAX (demo)', ?, ?) ON CONFLICT DO NOTHING",
                       [(cur, day, Decimal(brl), DEMO_ACTOR, _at(day, 13)) for cur, brl in rates.items()])
    return 1


def _found_thing(tx: Tx) -> int:
    """A found thing declared lost, not yet sold, with its custody and conservation costs (art. 29 §§1–2)."""
    office, description, place, collected, finder, reference, lost, costs = FOUND
    if tx.scalar("SELECT count(*) FROM offices WHERE code = ?", [office]) == 0:
        return 0
    found_id = int(tx.scalar(
        "INSERT INTO found_things (office_code, description, quantity, place, found_on, collected_on, finder_name, "
        "origin, reference, recorded_by, recorded_at) VALUES (?, ?, 1, ?, ?, ?, ?, 'nacional', ?, ?, ?) RETURNING id",
        [office, description, place, collected, collected, finder, reference, DEMO_ACTOR, _at(collected)]))
    tx.execute("INSERT INTO found_thing_events (found_id, kind, event_date, reference, note, recorded_by, "
               "recorded_at) VALUES (?, 'declared_lost', ?, 'Portaria nº 31/2026-CPRJ', ?, ?, ?)",
               [found_id, lost, "Não reclamado em 30 dias do recolhimento (art. 29 §2).", DEMO_ACTOR, _at(lost)])
    tx.cur.executemany("INSERT INTO found_thing_costs (found_id, kind, incurred_on, amount, description, recorded_by, "
                       "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [(found_id, kind, day, Decimal(amount), text, DEMO_ACTOR, _at(day, 16))
                        for kind, day, amount, text in costs])
    return 1
