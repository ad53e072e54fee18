"""Shared partition test data (issue 5) on top of `small_world`.

`prepare(world)` adds a survey contract C-0 of organisation C on wreck w1 (C located the wreck
that A explores under A-1, so C's survey costs are deducted in A-1's statement; B is the
surveyor of its own B-1) and writes the decisions in force as the commission store records them
(`decided`: a round, its decisions and `item_valuation` following them — issue 45, item 2: a statement
pays only an `item_valuation` its sealed decisions give) — all published. It also registers the Principal
"explorer_c" (organisation C; no login). `ready_a1(world)` records A-1's terms and C-0's cost
sheet; `issued_a1(world)` goes on to issue A-1's first statement.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from valuation.commission import comparables
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.partition import statements, terms
from valuation.partition import survey_sheets as S

D = Decimal
AS_OF = date(2026, 3, 2)
T0 = datetime(2026, 2, 20, 12, 0)       # when the fixture's rounds were decided and published
T1 = datetime(2026, 3, 10, 14, 0)
T2 = datetime(2026, 4, 2, 9, 30)

# item code → (contract, historical, value, significance, must_keep)
DECISIONS = {
    "A1-001": ("A-1", True, D("1000.00"), 2, False),
    "A1-002": ("A-1", True, D("5000.00"), 4, False),
    "A1-004": ("A-1", True, D("20000.00"), 5, True),
    "A1-006": ("A-1", True, D("8000.00"), 3, False),
    "A1-003": ("A-1", False, D("300.00"), None, False),
    "A1-005": ("A-1", False, D("1200.00"), None, False),
    "B1-001": ("B-1", True, D("45000.00"), 3, False),
    "B1-002": ("B-1", False, D("100000.00"), None, False),
    "B1-003": ("B-1", False, D("2400.00"), None, False),
    "B1-004": ("B-1", False, D("800.00"), None, False),
}
A1_TERMS = {"modality": "II", "historical_share": D("0.40"), "historical_payment": "adjudication_with_cash_balance",
            "other_share": D("0.50"), "value_fixed": "depois"}
# C-0's cost sheet: (line, planned, actual); the DPC approves 500.00 above the plan on line 1.
SHEET = [("Embarcação de apoio", D("5000.00"), D("6000.00")), ("Mergulho", D("2000.00"), D("1500.00"))]
A1_NET = D("7350.00")  # see tests/partition/test_store.py for the arithmetic


def prepare(w) -> None:
    ids = w.ids

    def fill(tx):
        ids["C-0"] = tx.scalar(
            "INSERT INTO contracts (code, kind, act, organisation_id, wreck_id, office_code, status, signed_on) "
            "VALUES ('C-0', 'pesquisa', 'autorização', ?, ?, 'CPBA', 'concluído', DATE '2023-01-10') RETURNING id",
            [ids["org_c"], ids["w1"]])
        tx.execute("UPDATE contracts SET surveyor_organisation_id = ? WHERE code = 'A-1'", [ids["org_c"]])
        tx.execute("UPDATE contracts SET surveyor_organisation_id = ? WHERE code = 'B-1'", [ids["org_b"]])
        for contract in ("A-1", "B-1"):
            decided(tx, ids[contract], [(ids[code], hist, value, sig, keep) for code, (c, hist, value, sig, keep)
                                        in DECISIONS.items() if c == contract])

    w.store.write("fixture", fill)
    w.principals["explorer_c"] = Principal(id=990, username="exp.gama", full_name="Gama", role="explorer",
                                           organisation_id=ids["org_c"], commission_body=None)


def decided(tx, contract_id: int, rows: list[tuple[int, bool, Decimal, int | None, bool]], *,
            published: bool = True) -> int:
    """Decisions in force for items of one contract — (item id, historical, value, significance, must keep) — as
    the commission store records them: a new round of the contract (published, or decided), one decision per
    item superseding the one in force, `item_valuation` following them and, once published, the comparables.
    Returns the round's id."""
    number = int(tx.scalar("SELECT coalesce(max(number), 0) + 1 FROM assessment_rounds WHERE contract_id = ?",
                           [contract_id]))
    round_id = int(tx.scalar(
        "INSERT INTO assessment_rounds (contract_id, number, status, method, quorum, spread_threshold, opened_by, "
        "decided_by, decided_at, published_at) VALUES (?, ?, ?, 'median', 4, 0.5, 'fixture', 'fixture', ?, ?) "
        "RETURNING id", [contract_id, number, "publicada" if published else "decidida", T0, T0 if published else None]))
    for item_id, hist, value, sig, keep in rows:
        before = tx.scalar("SELECT decision_id FROM item_valuation WHERE item_id = ?", [item_id])
        decision = int(tx.scalar(
            "INSERT INTO decisions (round_id, item_id, historical, value_brl, significance, must_keep, basis, "
            "supersedes, decided_by, decided_at) VALUES (?, ?, ?, ?, ?, ?, 'Lei 7.542/1986 art. 20 §3', ?, "
            "'fixture', ?) RETURNING id", [round_id, item_id, hist, value, sig, keep, before, T0]))
        tx.execute("DELETE FROM item_valuation WHERE item_id = ?", [item_id])
        tx.execute("INSERT INTO item_valuation VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [item_id, contract_id, decision, round_id, hist, value, sig, keep, published])
    if published:
        comparables.record_published(tx, round_id)      # as `rounds.publish_round` does
    return round_id


def decide(store: Store, code: str, value: Decimal, *, published: bool = True) -> None:
    """A new decision in force for one item, as the commission store records it (a new round and decision)."""
    def run(tx):
        iv = tx.fetch_one("SELECT iv.item_id, iv.contract_id, iv.historical, iv.significance, iv.must_keep "
                          "FROM item_valuation iv JOIN items i ON i.id = iv.item_id WHERE i.item_code = ?", [code])
        decided(tx, int(iv["contract_id"]), [(int(iv["item_id"]), iv["historical"], value, iv["significance"],
                                              iv["must_keep"])], published=published)
    store.write("commission", run)


def file_sheet(w, *, actual: bool = True, approve: bool = True) -> None:
    gama = w.principal("explorer_c")
    S.file_cost_sheet(w.store, gama, "C-0", [{"line": ln, "planned": p} for ln, p, _ in SHEET],
                      filed_on=date(2022, 11, 3))
    if actual:
        S.record_actual_costs(w.store, gama, "C-0", [{"line_no": i + 1, "actual": a} for i, (_, _, a) in
                                                     enumerate(SHEET)], reported_on=date(2023, 12, 1))
    if approve:
        S.approve_overrun(w.store, w.principal("dpc"), "C-0", 1, D("500.00"), "Mau tempo prolongou a campanha.")


def ready_a1(w) -> None:
    terms.set_contract_terms(w.store, w.principal("dpc"), "A-1", A1_TERMS)
    file_sheet(w)


def issued_a1(w):
    """A-1 ready and its first statement issued (DP-2026/0001 v1); returns the StatementDoc."""
    ready_a1(w)
    dpc = w.principal("dpc")
    draft = statements.create_draft(w.store, dpc, "A-1", as_of=AS_OF, now=T1)
    return statements.issue_statement(w.store, dpc, draft, now=T1)
