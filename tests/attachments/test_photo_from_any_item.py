"""An explorer attaches a photo from the item's own detail, for any item of theirs — not only the rows of the
inventory page shown (issue 23 item 15), on the full demo: the item is found by its code in the detail,
the photo is attached to it, and another company's item is not found."""
from __future__ import annotations

from pathlib import Path

from tests.support import attachments as F
from tests.support.db_copies import copy_database
from tests.support.ui import first_user, page_as
from valuation.attachments import records
from valuation.db.store import Store


def test_an_explorer_attaches_a_photo_to_an_item_off_the_page(full_demo_db: Path, tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    explorer = first_user(db, "explorer")
    with Store(db, migrate=False) as s:
        mine = s.fetch("SELECT i.id, i.item_code FROM items i JOIN contracts c ON c.id = i.contract_id "
                       "WHERE c.organisation_id = ? ORDER BY i.item_code DESC LIMIT 1", [explorer.organisation_id])
        theirs = s.fetch("SELECT i.item_code FROM items i JOIN contracts c ON c.id = i.contract_id "
                         "WHERE c.organisation_id <> ? ORDER BY i.item_code LIMIT 1", [explorer.organisation_id])
    [target] = mine
    at = page_as(db, explorer, "inventory", timeout=120)
    assert not at.exception, at.exception
    page_items = next(s for s in at.selectbox if s.label == "Item da página")
    assert not any(str(target["item_code"]) in o for o in page_items.options), "the item is on the page already"
    find = next(t for t in at.text_input if t.label == "Outro item (código ou descrição)")
    find.input(str(target["item_code"])).run()
    found = next(s for s in at.selectbox if s.label.startswith("Item encontrado"))
    assert found.value == int(target["id"]), (found.options, target)
    next(t for t in at.toggle if t.label == "Anexar fotos").set_value(True).run()
    uploader = next(f for f in at.get("file_uploader") if f.label.startswith("Arquivos (JPEG"))
    uploader.set_value([("peca_no_deposito.jpg", F.jpeg((320, 240)), "image/jpeg")])
    next(b for b in at.button if b.label == "Anexar").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("1 arquivo(s) anexado(s)" in s.value for s in at.success)
    with Store(db, migrate=False) as s:
        names = [a.name for a in records.list_attachments(s, explorer, "item", int(target["id"]))]
    assert "peca_no_deposito.jpg" in names, names
    # another company's item: not found, nothing to attach to
    next(t for t in at.text_input if t.label == "Outro item (código ou descrição)").input(theirs[0]["item_code"]).run()
    assert any("Nenhum item seu" in i.value for i in at.info), [i.value for i in at.info]
    assert not [s for s in at.selectbox if s.label.startswith("Item encontrado")]
