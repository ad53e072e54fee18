"""The demo's records of issue 15, second half, on top of the base data, the deadline events, the
Commission's rounds and the partition statements (call it last).

`seed_legal_demo(store)` adds, deterministically:

- the Ministry of Culture's co-signature (Lei 7.542 art. 20 §1) of the contracts over historical
  things, except the suspended DPC-EX-2021/05, which therefore reads "sem coassinatura";
- three removal orders (art. 5): ES-002's of 2022 by edital (art. 9 II), published in three outlets
  (art. 9 §2: its 15 days run from the last publication), revoked after the judicial protest;
  AP-001's (15/09/2025, personal notice, the owner did not start, the Authority took over on
  20/04/2026: art. 10; still running, so the five years stay suspended —
  the base data's open suspension of ground II is linked to it) and CE-002's (10/01/2025, taken
  over, concluded 15/07/2025), whose disposal left a balance for the owner held until five years
  from the casualty (art. 13 §2);
- a preference notice for the galera ES-001 (art. 16 §4), for which Salvamar (the surveyor who
  located it, art. 16 §2 I) and Oceanic compete;
- appeals (art. 33; Lei 9.784 art. 59): against the cancellation of DPC-EX-2018/03 (decided in
  2020) and against the latest issued statement (filed by the explorer, the decision still due);
- a NORMAM revision scheduled for 01/01/2027 (15 business days of notice for tourism, NORMAM-10
  0307), shown on the policies page and applied to excursions notified from that day.

Refuses nothing: it does nothing when its records exist already (idempotent).
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core import clock
from valuation.core.statuses import STATEMENT_ISSUED
from valuation.deadlines import vocabulary as v
from valuation.demo.constants import DEMO_ACTOR, DEMO_TODAY
from valuation.demo.parties import DEMO_USERNAMES_BY_ROLE
from valuation.registry.co_signatures import annotate
from valuation.registry.removal_orders import SUSPENSION_REASON

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

_D = date
CO_SIGNATURES: dict[str, tuple[date, str, str]] = {   # contract → (signed_on, act, signatory)
    "DPC-EX-2015/01": (_D(2015, 2, 2), "Termo de coassinatura nº 03/2015-MinC", "Dra. Helena Bastos Ribeiro (IPHAN)"),
    "DPC-EX-2017/02": (_D(2017, 6, 12), "Termo de coassinatura nº 11/2017-MinC", "Dr. Otávio Lins Cavalcanti (IPHAN)"),
    "DPC-EX-2018/03": (_D(2018, 4, 16), "Termo de coassinatura nº 05/2018-MinC", "Dra. Helena Bastos Ribeiro (IPHAN)"),
    "DPC-EX-2021/02": (_D(2021, 3, 29), "Termo de coassinatura nº 02/2021-MinC", "Dra. Lúcia Fontes Amaral (IPHAN)"),
}
# wreck → (kind, act, ordered, notice, notified/published, starts_by, ends_by, started, taken over, ended, reason)
ORDERS: tuple[tuple[Any, ...], ...] = (
    ("AP-001", "remoção", "Ofício nº 214/2025-AgOiapoque", _D(2025, 9, 15), "pessoal", _D(2025, 9, 18),
     _D(2025, 11, 3), _D(2026, 3, 31), None, _D(2026, 4, 20), None,
     "Casco soçobrado no canal de acesso ao porto: obstáculo à navegação (art. 5)."),
    ("CE-002", "remoção", "Ofício nº 031/2025-CPCE", _D(2025, 1, 10), "pessoal", _D(2025, 1, 13),
     _D(2025, 2, 10), _D(2025, 5, 30), None, _D(2025, 3, 5), _D(2025, 7, 15),
     "Casco incendiado com óleo combustível a bordo: ameaça de dano ao meio ambiente (art. 5)."),
    # the base data's suspension of ES-002 (ground II, 10/01–30/09/2022) is this order's; the owner evaded the
    # personal notice, so it went by edital (art. 9 II), published in three outlets (art. 9 §2: EDITAL_PUBLICATIONS)
    ("ES-002", "remoção", "Ofício nº 007/2022-CPES", _D(2022, 1, 10), "edital", None,
     _D(2022, 3, 7), _D(2022, 9, 30), _D(2022, 3, 14), None, _D(2022, 9, 30),
     "Casco soçobrado a 0,1 milha do canal de acesso: obstáculo à navegação (art. 5); o responsável se furtou à "
     "intimação pessoal (art. 9 II)."),
)
ORDER_END_KINDS = {"ES-002": "revogada"}   # revoked after the judicial protest (art. 6 sole paragraph III)
# art. 9 §2: once in each outlet; the 15 days run from the last (24/01/2022 → 08/02/2022, a Tuesday)
EDITAL_PUBLICATIONS: dict[str, tuple[tuple[str, date, str], ...]] = {
    "ES-002": (("dou", _D(2022, 1, 17), "DOU, Seção 3, p. 58"),
               ("capital", _D(2022, 1, 19), "A Gazeta (Vitória), caderno de editais, p. 12"),
               ("porto", _D(2022, 1, 24), "Jornal do Porto de Vitória, p. 7")),
}
BALANCE = ("CE-002", _D(2025, 9, 10), Decimal("84300.00"), Decimal("61875.40"),
           "Casco e equipamentos vendidos em hasta pública (art. 12 §2); despesas da remoção reembolsadas à União "
           "(art. 13 II).")
NOTICE = ("ES-001", _D(2026, 10, 1), "Diário Oficial da União — edital de preferência (art. 16 §§3–4)")
SCHEDULED = ("tourism_notice_business_days", "15",
             "Portaria DPC nº 91/2026 (nova redação do item 0307 da NORMAM-10 em vigor)",
             _D(2027, 1, 1), "Revisão da NORMAM-10: comunicação de excursões com 15 dias úteis de antecedência.")


def _at(day: date, hour: int = 10) -> datetime:
    return datetime.combine(day, time(hour, 0))


def seed_legal_demo(store: Store) -> dict[str, int]:
    """Insert the records listed in the module docstring; returns the rows added per kind."""
    if store.scalar("SELECT count(*) FROM removal_orders"):
        return {"co_signatures": 0, "removal_orders": 0, "owner_balances": 0, "events": 0, "policies": 0}
    counts: dict[str, int] = {}

    def write(tx: Tx) -> None:
        counts["co_signatures"] = _co_signatures(tx)
        counts["removal_orders"] = _orders(tx)
        counts["owner_balances"] = _balance(tx)
        counts["events"] = _events(tx)
        counts["policies"] = _scheduled(tx)
        tx.audit("seed_legal_demo", "demo", None, None, dict(counts))

    store.write(DEMO_ACTOR, write)
    return counts


def _co_signatures(tx: Tx) -> int:
    ids = {r["code"]: r["id"] for r in tx.fetch("SELECT id, code FROM contracts")}
    rows = [(ids[code], *sig, DEMO_ACTOR, _at(sig[0], 15)) for code, sig in CO_SIGNATURES.items() if code in ids]
    if rows:
        tx.cur.executemany("INSERT INTO co_signatures (contract_id, signed_on, act, signatory, recorded_by, "
                           "recorded_at) VALUES (?, ?, ?, ?, ?, ?)", rows)
    return len(rows)


def _orders(tx: Tx) -> int:
    wrecks = {r["code"]: r["id"] for r in tx.fetch("SELECT id, code FROM wrecks")}
    n = 0
    for code, kind, act, ordered, notice, notified, starts, ends, started, taken, ended, reason in ORDERS:
        if code not in wrecks:
            continue
        order_id = int(tx.scalar(
            "INSERT INTO removal_orders (wreck_id, kind, act, ordered_on, notice, notified_on, starts_by, ends_by, "
            "started_on, taken_over_on, ended_on, end_kind, reason, recorded_by, recorded_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [wrecks[code], kind, act, ordered, notice, notified, starts, ends, started, taken, ended,
             ORDER_END_KINDS.get(code, "concluída") if ended else None, reason, DEMO_ACTOR, _at(ordered)]))
        for outlet, day, ref in EDITAL_PUBLICATIONS.get(code, ()):
            tx.execute("INSERT INTO edital_publications (removal_order_id, outlet, published_on, reference, "
                       "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?)", [order_id, outlet, day, ref, DEMO_ACTOR,
                                                                                _at(day, 16)])
            tx.execute("UPDATE removal_orders SET published_on = greatest(coalesce(published_on, ?), ?) WHERE id = ?",
                       [day, day, order_id])
        linked = tx.scalar("SELECT id FROM wreck_suspensions WHERE wreck_id = ? AND ground = 'II' AND starts_on = ?",
                           [wrecks[code], ordered])
        if linked is not None:   # the base data's suspension is this order's (art. 6 sole paragraph II)
            tx.execute("UPDATE wreck_suspensions SET removal_order_id = ? WHERE id = ?", [order_id, linked])
        else:
            tx.execute("INSERT INTO wreck_suspensions (wreck_id, ground, starts_on, ends_on, reason, removal_order_id) "
                       "VALUES (?, 'II', ?, ?, ?, ?)",
                       [wrecks[code], ordered, ended, SUSPENSION_REASON.format(act=act), order_id])
        n += 1
    return n


def _balance(tx: Tx) -> int:
    code, disposed, proceeds, costs, note = BALANCE
    row = tx.fetch_one("SELECT r.id, r.wreck_id FROM removal_orders r JOIN wrecks w ON w.id = r.wreck_id "
                       "WHERE w.code = ?", [code])
    if row is None:
        return 0
    tx.execute("INSERT INTO owner_balances (wreck_id, removal_order_id, disposed_on, proceeds, union_costs, balance, "
               "note, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               [row["wreck_id"], row["id"], disposed, proceeds, costs, proceeds - costs, note, DEMO_ACTOR,
                _at(disposed, 16)])
    return 1


def _events(tx: Tx) -> int:
    events: list[tuple[Any, ...]] = []
    wreck = tx.scalar("SELECT id FROM wrecks WHERE code = ?", [NOTICE[0]])
    if wreck is not None:
        events.append((v.NOTICE_PUBLISHED, None, wreck, None, NOTICE[1], NOTICE[2]))
    cancelled = tx.fetch_one("SELECT id, organisation_id, cancelled_on FROM contracts WHERE code = 'DPC-EX-2018/03'")
    if cancelled is not None:
        day = cancelled["cancelled_on"]
        for kind, offset in ((v.DECISION_NOTIFIED, 2), (v.APPEAL_FILED, 9), (v.APPEAL_RECEIVED, 12),
                             (v.APPEAL_DECIDED, 36)):
            events.append((kind, cancelled["id"], None, cancelled["organisation_id"] if kind == v.APPEAL_FILED
                           else None, day + timedelta(days=offset), "cancelamento"))
    statement = tx.fetch_one("SELECT s.contract_id, s.number, c.organisation_id, "
                             + clock.day_sql("s.created_at") + " AS day "
                             "FROM statements s JOIN contracts c ON c.id = s.contract_id WHERE s.status = ? "
                             "ORDER BY s.created_at DESC, s.id DESC LIMIT 1", [STATEMENT_ISSUED])
    if statement is not None:
        notified = min(max(statement["day"], DEMO_TODAY - timedelta(days=12)), DEMO_TODAY)
        ref = f"demonstrativo:{statement['number']}"
        events.append((v.DECISION_NOTIFIED, statement["contract_id"], None, None, notified, ref))
        filed = min(notified + timedelta(days=6), DEMO_TODAY)
        events.append((v.APPEAL_FILED, statement["contract_id"], None, statement["organisation_id"], filed, ref))
    rows = [(*e, DEMO_ACTOR, _at(DEMO_TODAY, 12)) for e in events if e[4] <= DEMO_TODAY]
    if rows:
        tx.cur.executemany("INSERT INTO deadline_events (kind, contract_id, wreck_id, organisation_id, event_date, "
                           "reference, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)


def _scheduled(tx: Tx) -> int:
    key, value, basis, starts, reason = SCHEDULED
    dpc = DEMO_USERNAMES_BY_ROLE["dpc"][0]
    tx.execute("INSERT INTO policies (key, value_json, basis, set_by, set_at, reason, effective_from) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)", [key, value, basis, dpc, _at(DEMO_TODAY - timedelta(days=10), 14),
                                                reason, starts])
    return 1


def missing_co_signatures(tx: Tx) -> list[str]:
    """The contracts that need the co-signature and lack it (for the demo's checks)."""
    rows = annotate(tx, tx.fetch("SELECT id, code, kind, act, status, signed_on, historical_share FROM contracts"))
    return sorted(r["code"] for r in rows if r["co_signature_missing"])
