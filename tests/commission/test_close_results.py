"""The results of a close in one view, on the full demo (issue 23 item 7): the president opens the closed
round of DPC-EX-2021/02 and finds, on one tab, how many items were decided, flagged, outside the comparables
and undecided (the counts stored by the close), each kind's items a click away, the reason of every item
outside the comparables, and the flag columns first after the item code, within the width a 1366 px screen
leaves beside the sidebar."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.db_copies import copy_database
from tests.support.ui import first_user, open_tab, page_as
from valuation.db.shared import using

CONTRACT = "DPC-EX-2021/02"   # the demo's closed round (rodada 1, encerrada)
FLAGS = ["Código", "Sinalizado", "Fora dos comparáveis", "Decisão"]
VISIBLE_PX = 905              # the main column at 1366 × 768 (Chromium screenshot of the demo)


def _stored(db: Path) -> dict[str, Any]:
    with using(db) as store:
        rid = store.scalar("SELECT r.id FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id "
                           "WHERE c.code = ? AND r.status = 'encerrada'", [CONTRACT])
        counts = store.fetch_one(
            "SELECT count(*) FILTER (WHERE decided_by <> 'undecided') AS decided, count(*) FILTER (WHERE flagged) "
            "AS flagged, count(*) FILTER (WHERE decided_by = 'undecided') AS undecided FROM item_consensus "
            "WHERE round_id = ?", [rid]) or {}
        counts["outside"] = {r["item_code"] for r in store.fetch(
            "SELECT i.item_code FROM comparable_flags f JOIN items i ON i.id = f.item_id WHERE f.round_id = ?", [rid])}
    return counts


def _widths(frame: Any) -> dict[str, int]:
    """column → the width in pixels the page gives it (st.dataframe's column configuration)."""
    config = json.loads(frame.proto.columns or "{}")
    return {spec.get("label", name): int(spec["width"]) for name, spec in config.items()
            if isinstance(spec.get("width"), int)}


def test_the_president_reads_the_close_results_in_one_view(full_demo_db: Path, tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    stored = _stored(db)
    assert stored["flagged"] and stored["outside"] and stored["undecided"]     # the demo has each kind
    at = page_as(db, first_user(db, "commission_president"), "commission", timeout=180)
    at.selectbox(key="cm_contract").set_value(CONTRACT).run()
    open_tab(at, "commission", "Resultado")
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Decididos"] == str(stored["decided"]) and metrics["Sinalizados"] == str(stored["flagged"])
    assert metrics["Fora dos comparáveis"] == str(len(stored["outside"]))
    assert metrics["Sem decisão"] == str(stored["undecided"])
    frame = at.dataframe[0]
    assert list(frame.value.columns[:4]) == FLAGS, list(frame.value.columns)
    widths = _widths(frame)
    assert sum(widths[c] for c in FLAGS) + widths["Valor (R$)"] <= VISIBLE_PX, widths

    show = at.radio(key=next(r.key for r in at.radio if r.label == "Mostrar"))
    show.set_value("outside").run()
    table = at.dataframe[0].value
    assert set(table["Código"]) == stored["outside"] and set(table["Fora dos comparáveis"]) == {"sim"}
    reasons = "\n".join(t.value for t in at.text)
    for code in stored["outside"]:
        assert f"{code} — Consenso R$ " in reasons, code
    show.set_value("undecided").run()
    undecided = at.dataframe[0].value
    assert len(undecided) == stored["undecided"] and set(undecided["Decisão"]) == {"sem decisão"}
    assert not at.exception


def test_a_member_reads_the_results_without_the_presidents_comparable_flags(full_demo_db: Path,
                                                                           tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    stored = _stored(db)
    at = page_as(db, first_user(db, "commission"), "commission", timeout=180)
    at.selectbox(key="cm_contract").set_value(CONTRACT).run()
    open_tab(at, "commission", "Resultado")
    assert not at.exception and not at.error, [e.message for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Sinalizados"] == str(stored["flagged"]) and "Fora dos comparáveis" not in metrics
    columns = list(at.dataframe[0].value.columns)
    assert columns[:3] == ["Código", "Sinalizado", "Decisão"] and "Fora dos comparáveis" not in columns
