"""Issue 24, item 7 — "Custos de pesquisa" showed the surveyor a competitor's still-requested contract.

Reproduction (failed before the fix): on the full demo, exp.salvamar (the surveyor of ES-001) opened
the cost sheet of its survey CPES-PQ-2024/02 and read that its costs would be deducted from the
statement of CPES-EX-2026/02 (Oceanic) — a request for the same wreck still under analysis
('solicitado'). Who else asks for a wreck is DPC's to know (the preference of Lei 7.542 art. 16 §2 is
decided among the requests); the surveyor learns of a winner only once the contract is granted.
"""
from __future__ import annotations

from pathlib import Path

from tests.support.db_copies import copy_database
from tests.support.ui import page_as, texts
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.partition import survey_sheets

SURVEY, RIVAL, RIVAL_NAME = "CPES-PQ-2024/02", "CPES-EX-2026/02", "Oceanic"


def _principal(store: Store, username: str) -> Principal:
    row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                          "WHERE username = ?", [username])
    assert row is not None
    return Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"], role=row["role"],
                     organisation_id=row["organisation_id"], commission_body=row["commission_body"])


def test_the_surveyor_does_not_see_a_competitors_request(full_demo_db: Path, tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    with Store(db) as s:
        rival = s.fetch_one("SELECT c.status, o.name FROM contracts c JOIN organisations o ON o.id = c.organisation_id "
                            "WHERE c.code = ?", [RIVAL])
        assert rival is not None and rival["status"] == "solicitado" and RIVAL_NAME in rival["name"]
        explorer, dpc = _principal(s, "exp.salvamar"), _principal(s, "dpc.prado")
        seen = {w["code"] for w in survey_sheets.cost_sheet(s, explorer, SURVEY).winners}
        assert RIVAL not in seen
        assert RIVAL in {w["code"] for w in survey_sheets.cost_sheet(s, dpc, SURVEY).winners}   # DPC's to know
    at = page_as(db, explorer, "survey_costs")
    at.selectbox[0].set_value(SURVEY).run()
    assert not at.exception
    shown = texts(at)
    assert at.selectbox[0].value == SURVEY and "Previsto" in shown
    assert RIVAL not in shown and RIVAL_NAME not in shown and "outro concessionário" not in shown
