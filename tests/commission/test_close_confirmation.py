"""Closing a round on the full demo (issue 23 item 6): before the close the president reads who has not
voted and whether the items reach the Commission's quorum (with its basis) and confirms that; after the
close every selector reads "Encerrada" at once, as the metric beside it does.

The browser shows, for a keyed selectbox, the label it was last sent for the chosen option: the new one
when the run sets the value (`set_value` in the widget's message), else the one it already shows (the
previous run's). `shown_choices` reads the selectors that way, as the person sees them (the Chromium
screenshot of the demo said "rodada 2 aberta" beside "Encerrada")."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.db_copies import copy_database
from tests.support.ui import first_user, open_tab, page_as, texts
from valuation.db.shared import using

CONTRACT = "DPC-EX-2015/01"   # the demo's open round (rodada 2)


def _open_round(db: Path) -> dict[str, Any]:
    with using(db) as store:
        row = store.fetch_one("SELECT r.id, r.number, r.quorum, (SELECT count(*) FROM round_items ri "
                              "WHERE ri.round_id = r.id) AS items FROM assessment_rounds r JOIN contracts c "
                              "ON c.id = r.contract_id WHERE c.code = ? AND r.status = 'aberta'", [CONTRACT])
        assert row is not None, "the demo has no open round on " + CONTRACT
        row["missing"] = {r["full_name"] for r in store.fetch(
            "SELECT u.full_name FROM users u WHERE u.active AND u.role IN ('commission', 'commission_president') "
            "AND (SELECT count(*) FROM assessment_current c WHERE c.member_id = u.id AND c.round_id = ? "
            "AND c.historical IS NOT NULL) < ?", [row["id"], row["items"]])}
        row["with_quorum"] = int(store.scalar(
            "SELECT count(*) FROM (SELECT item_id FROM assessment_current WHERE round_id = ? AND historical "
            "IS NOT NULL GROUP BY item_id HAVING count(*) >= ?)", [row["id"], row["quorum"]]))
    return row


def _presidency(db: Path) -> Any:
    at = page_as(db, first_user(db, "commission_president"), "commission", timeout=180)
    assert at.selectbox(key="cm_contract").value == CONTRACT
    return open_tab(at, "commission", "Presidência")


def shown_choices(at: Any, before: dict[str, str]) -> dict[str, str]:
    """label → the text each selectbox shows in the browser after the run (see the module docstring);
    `before` the texts shown before it (label → text)."""
    out = {}
    for box in at.selectbox:
        if box.proto.set_value:
            out[box.label] = box.proto.raw_value
        else:
            out[box.label] = before.get(box.label, box.options[box.index] if box.index is not None else "")
    return out


def test_before_closing_the_president_sees_who_has_not_voted_and_the_quorum(full_demo_db: Path,
                                                                            tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    rnd = _open_round(db)
    assert rnd["missing"] and rnd["with_quorum"] < rnd["items"]           # the demo's round 2 as it stands
    at = _presidency(db)
    assert not at.exception and not at.error
    shown = texts(at)
    assert f"Quórum da Comissão: {rnd['quorum']} membros votantes por item" in shown
    assert "Lei 2.180/1954 art. 71" in shown and "NORMAM-10 (ed. 2002) 0303 c 1 I" in shown
    assert f"{rnd['with_quorum']} de {rnd['items']} itens têm quórum" in shown
    short = rnd["items"] - rnd["with_quorum"]
    assert f"{short} não têm e ficarão sem decisão (sem quórum)" in shown
    table = next(d.value for d in at.dataframe if "Itens sem voto" in d.value.columns)
    assert set(table["Membro"]) == rnd["missing"]
    sure = [c for c in at.checkbox if c.label.startswith("Confirmo o encerramento")]
    assert len(sure) == 1 and f"com {short} item(ns) sem quórum e {len(rnd['missing'])} membro(s) sem votar" \
        in sure[0].label
    assert next(b for b in at.button if b.label == "Encerrar rodada").disabled   # not before the confirmation


def test_after_closing_every_selector_says_the_round_is_closed(full_demo_db: Path, tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    rnd = _open_round(db)
    at = _presidency(db)
    before = shown_choices(at, {})
    assert "aberta" in before["Contrato"] and "Aberta" in before["Rodada"]
    next(c for c in at.checkbox if c.label.startswith("Confirmo o encerramento")).check()
    at.run()
    before = shown_choices(at, before)
    next(b for b in at.button if b.label == "Encerrar rodada").click()
    at.run()
    assert not at.exception and not at.error
    with using(db) as store:
        assert store.scalar("SELECT status FROM assessment_rounds WHERE id = ?", [rnd["id"]]) == "encerrada"
    assert {m.label: m.value for m in at.metric}["Situação"] == "Encerrada"
    after = shown_choices(at, before)
    assert after["Rodada"].startswith(f"Rodada {rnd['number']} — Encerrada"), after
    assert not [t for t in after.values() if "aberta" in t.lower()], after
