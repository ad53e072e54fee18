"""Entering values item by item, on the full demo (issue 23 item 8): a member who has not yet assessed the
open round types the value, the price date and the vote of the item shown — fields in that order, in one
form, so that Enter submits — and saving opens the next item of the member's list, saying how many remain."""
from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.support.db_copies import copy_database
from tests.support.ui import page_as, set_date, texts
from ui import run_timing
from valuation.db.access import Principal
from valuation.db.shared import using

CONTRACT = "DPC-EX-2015/01"   # the demo's open round (rodada 2)


def _member_with_nothing_entered(db: Path) -> tuple[Principal, int, list[str]]:
    """A member without any entry in the open round, the round's id and its item codes in list order."""
    with using(db) as store:
        rid = int(store.scalar("SELECT r.id FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id "
                               "WHERE c.code = ? AND r.status = 'aberta'", [CONTRACT]))
        row = store.fetch_one(
            "SELECT id, username, full_name, role, organisation_id, commission_body FROM users u WHERE u.active "
            "AND u.role = 'commission' AND NOT EXISTS (SELECT 1 FROM assessment_current c WHERE c.round_id = ? "
            "AND c.member_id = u.id) ORDER BY id LIMIT 1", [rid])
        codes = [r["item_code"] for r in store.fetch(
            "SELECT i.item_code FROM round_items ri JOIN items i ON i.id = ri.item_id WHERE ri.round_id = ? "
            "ORDER BY i.item_code", [rid])]
    assert row is not None, "every demo member has entries in the open round"
    user = Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"], role=row["role"],
                     organisation_id=row["organisation_id"], commission_body=row["commission_body"])
    return user, rid, codes


def _labels_in_order(node: Any) -> list[str]:
    """The labels of the widgets under `node`, in the order the page draws them (the Tab key's order)."""
    out: list[str] = []
    for child in getattr(node, "children", {}).values():
        label = getattr(child, "label", None)
        if isinstance(label, str) and getattr(child, "type", "") not in ("tab", "expandable"):
            out.append(label)
        out += _labels_in_order(child)
    return out


def _item_shown(at: Any) -> str:
    box = next(s for s in at.selectbox if s.label == "Item")
    return str(box.options[box.index]).split(" — ")[0]


def test_saving_an_item_opens_the_next_one_and_says_how_many_remain(full_demo_db: Path, tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    member, rid, codes = _member_with_nothing_entered(db)
    at = page_as(db, member, "commission", timeout=180)
    assert not at.exception and _item_shown(at) == codes[0]
    assert f"Faltam {len(codes)} de {len(codes)} itens para você avaliar nesta rodada." in texts(at)
    forms = [f for f in at.get("form") if "Gravar avaliação" in _labels_in_order(f)]
    assert len(forms) == 1, "the entry is not one form (Enter would not submit it)"
    order = _labels_in_order(forms[0])
    assert order[:4] == ["Valor", "Data do preço", "Voto", "Fonte do valor (art. 21 §2)"], order

    for n, code in enumerate(codes[:2], start=1):
        assert _item_shown(at) == code
        next(t for t in at.text_input if t.label == "Valor").set_value("1.234,56")
        set_date(at, "Data do preço", date(2026, 11, 2))
        next(r for r in at.radio if r.label == "Voto").set_value(n == 1)              # historical, then not
        next(s for s in at.selectbox if s.label == "Fonte do valor (art. 21 §2)").set_value("catalogo")
        if n == 1:
            next(s for s in at.selectbox if s.label == "Significância (voto histórico)").set_value(3)
        next(b for b in at.button if b.label == "Gravar avaliação").click()
        at.run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        said = [s.value for s in at.success]
        assert any(f"Avaliação do item {code} gravada. Faltam {len(codes) - n} de {len(codes)} itens; a seguir, "
                   f"o item {codes[n]}." in s for s in said), said
        assert _item_shown(at) == codes[n]                                     # the next item is open
        assert f"Faltam {len(codes) - n} de {len(codes)} itens para você avaliar" in texts(at)
    with using(db) as store:
        saved = [r["item_code"] for r in store.fetch(
            "SELECT i.item_code FROM assessment_current c JOIN items i ON i.id = c.item_id WHERE c.round_id = ? "
            "AND c.member_id = ? ORDER BY i.item_code", [rid, member.id])]
    assert saved == codes[:2]


def _runs(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def test_one_click_on_save_is_one_run_of_the_page(full_demo_db: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: the save wrote in the run the click started, then ran the whole page again to show the new
    state (two runs, 0.52 + 0.37 s on the 1M file). The button's callback writes before the page is drawn: one
    click, one run — which already shows the entry saved, the count down by one and the next item open. A
    refused entry is one run too: its problems under the form, nothing written."""
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    log = tmp_path / "runs.jsonl"
    monkeypatch.setenv(run_timing.ENV, str(log))
    member, rid, codes = _member_with_nothing_entered(db)
    at = page_as(db, member, "commission", timeout=180)
    assert not at.exception and _item_shown(at) == codes[0]

    next(t for t in at.text_input if t.label == "Valor").set_value("12,34,5")      # not an amount
    before = len(_runs(log))
    next(b for b in at.button if b.label == "Gravar avaliação").click()
    at.run()
    runs = _runs(log)[before:]
    assert [r["outcome"] for r in runs] == ["ok"], runs
    assert any("Nada foi gravado" in e.value and "Valor" in e.value for e in at.error), [e.value for e in at.error]
    assert _item_shown(at) == codes[0]
    with using(db) as store:
        assert store.scalar("SELECT count(*) FROM assessment_current WHERE round_id = ? AND member_id = ?",
                            [rid, member.id]) == 0

    next(t for t in at.text_input if t.label == "Valor").set_value("1.234,56")
    next(r for r in at.radio if r.label == "Voto").set_value(False)
    next(s for s in at.selectbox if s.label == "Fonte do valor (art. 21 §2)").set_value("catalogo")
    before = len(_runs(log))
    next(b for b in at.button if b.label == "Gravar avaliação").click()
    at.run()
    runs = _runs(log)[before:]
    assert [r["outcome"] for r in runs] == ["ok"], runs
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(f"Avaliação do item {codes[0]} gravada." in s.value for s in at.success)
    assert _item_shown(at) == codes[1]
    assert f"Faltam {len(codes) - 1} de {len(codes)} itens para você avaliar" in texts(at)
