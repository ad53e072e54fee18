"""Issue 16 §7 under AppTest: where the photos, documents and comparables show.

The commission's entry form shows the principal photo, the item's physical data and its
comparables; the president sees the comparable flags with their reasons; the inventory shows
an item's gallery; the deadline page lists the events' reports; the documents page serves DPC
and explorers (each its own) and refuses the others."""
from __future__ import annotations

from typing import Any

import pytest

from tests.commission.test_comparables import _published_peers
from tests.support import attachments as F
from tests.support.commission import enter, full_panel, item_ids
from tests.support.ui import open_tab, page_as, page_direct, refused, set_date, texts
from valuation.attachments import records
from valuation.commission.rounds import close_round, open_round
from valuation.db import access

ROLE_KEYS = ("dpc", "commission", "commission_president", "explorer_a", "explorer_b", "admin")


def captions(at: Any) -> list[str]:
    return [i.proto.imgs[0].caption for i in at.get("image") if i.proto.imgs]


def cells(at: Any) -> set[str]:
    out: set[str] = set()
    for df in at.dataframe:
        out.update(str(c) for c in df.value.columns)
        for col in df.value.columns:
            out.update(str(v) for v in df.value[col].tolist())
    return out


@pytest.fixture
def world(small_world: Any) -> Any:
    """A-1's first item with two photos and its dimensions; six published 8-reales peers elsewhere."""
    w = small_world
    records.attach(w.store, w.principal("explorer_a"), "item", w.ids["A1-001"], "photo",
                   [records.Upload("A1-001.jpg", F.jpeg((400, 300))),
                    records.Upload("verso.png", F.png_with_metadata())],
                   principal=True)
    w.store.write("fixture", lambda tx: tx.execute("UPDATE items SET dimensions = 'Ø 39 mm', lot = 'Quadrícula B4', "
                                                   "condition = 'concrecionado' WHERE id = ?", [w.ids["A1-001"]]))
    _published_peers(w, ["900.00", "1000.00", "1000.00", "1100.00", "1200.00", "1300.00"])
    return w


def test_the_entry_form_shows_the_photo_the_item_data_and_the_comparables(world):
    w = world
    panel = full_panel(w)
    open_round(w.store, panel["pres"], "A-1")
    w.store.close()
    at = page_as(w.path, panel["navy1"], "commission")
    assert not at.exception and not at.error, [e.value for e in at.exception]
    shown = texts(at)
    assert captions(at) == ["★ A1-001.jpg"]                                 # the principal photo, one thumbnail
    assert any(b.label == "Ver fotos (2)" for b in at.button)              # … a click opens the gallery
    for fact in ("**Material:** prata", "**Dimensões:** Ø 39 mm", "**Condição:** concrecionado",
                 "**Lote:** Quadrícula B4", "**Profundidade (m):** 10,50", "**Recuperado em:** 10/02/2025",
                 "**Peso (g):** 27,05"):
        assert fact in shown, fact
    assert "**Comparáveis**" in shown and "moeda de prata, 8 real" in shown
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Decisões"] == "6" and metrics["Mediana"] == "R$ 1.050,00"
    assert metrics["1º quartil (Q1)"] == "R$ 1.000,00" and metrics["3º quartil (Q3)"] == "R$ 1.175,00"
    assert {"P-1", "P-5", "Valor decidido"} <= cells(at) and "P-0" not in cells(at)   # the five latest


def test_the_president_sees_the_items_outside_their_comparables_with_the_reason(world):
    w = world
    panel = full_panel(w)
    rnd = open_round(w.store, panel["pres"], "A-1")
    for m in panel.values():
        enter(w.store, m, rnd.id, item_ids(w)["A1-001"], historical=True, amount="9000")
    close_round(w.store, panel["pres"], rnd.id)
    w.store.close()
    at = page_as(w.path, panel["pres"], "commission")
    assert not at.exception and not at.error
    items = at.dataframe[0].value                                           # the Itens tab, open first
    open_tab(at, "commission", "Resultado")                                # the close's results (one view)
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Fora dos comparáveis"] == "1"
    table = at.dataframe[0].value
    assert table.loc[table["Código"] == "A1-001", "Fora dos comparáveis"].tolist() == ["sim"]
    reasons = [t.value for t in at.text]
    assert any(r.startswith("A1-001 — Consenso R$ 9.000,00 acima do limite superior R$ 1.437,50") for r in reasons)
    assert any("mediana R$ 1.050,00" in r for r in reasons)
    assert items.loc[items["Código"] == "A1-001", "Fora dos comparáveis"].tolist() == ["sim"]
    member = page_as(w.path, panel["navy1"], "commission")
    assert "Fora dos comparáveis" not in member.dataframe[0].value.columns    # the reason is the president's


def test_the_inventory_shows_an_items_gallery_to_whoever_may_see_the_item(world):
    w = world
    w.store.close()
    for key, sees in (("explorer_a", True), ("dpc", True), ("commission", True), ("explorer_b", False)):
        at = page_as(w.path, w.principal(key), "inventory")
        assert not at.exception and not at.error, (key, [e.value for e in at.exception])
        picker = [s for s in at.selectbox if s.label == "Item da página"]
        if not sees:
            assert "★ A1-001.jpg" not in captions(at)
            continue
        assert picker, key
        labels = list(picker[0].options)          # AppTest gives the labels the page shows
        assert any(label.startswith("A1-001") and "2 foto(s)" in label for label in labels), labels
        at = picker[0].set_value(w.ids["A1-001"]).run()
        assert not at.exception
        assert captions(at) == ["★ A1-001.jpg", "verso.png"], key


def test_the_deadline_events_list_their_reports(small_world):
    w = small_world
    exp = w.principal("explorer_a")
    from valuation.deadlines import events as deadline_events

    w.store._clock = lambda: __import__("datetime").datetime(2025, 4, 20, 12, 0)   # a known "today"
    event = deadline_events.record_event(w.store, exp, {"kind": "relatório_mensal_entregue", "contract_code": "A-1",
                                                        "reference": "2025-03"})      # dated by the service
    records.attach(w.store, exp, "deadline_event", event, "report", [records.Upload("relatorio_2025-03.pdf", F.pdf())])
    w.store.close()
    at = open_tab(page_as(w.path, exp, "deadlines"), "deadlines", "Registrar entrega")
    assert not at.exception, [e.value for e in at.exception]
    assert "Relatórios dos eventos" in texts(at) and "relatorio_2025-03.pdf" in cells(at)
    assert any(b.label == "Baixar arquivo" for b in at.get("download_button"))
    other = open_tab(page_as(w.path, w.principal("explorer_b"), "deadlines"), "deadlines", "Registrar entrega")
    assert not other.exception and "Últimos eventos" in texts(other)          # the same tab, drawn
    assert "relatorio_2025-03.pdf" not in cells(other)


def test_the_documents_page_serves_dpc_and_explorers_and_refuses_the_others(world):
    w = world
    records.attach(w.store, w.principal("dpc"), "wreck", w.ids["w1"], "document",
                   [records.Upload("ficha_w1.pdf", F.pdf())])
    w.store.close()
    for key in ROLE_KEYS:
        user = w.principal(key)
        if not access.may_view_page(user, "documents"):
            assert refused(page_direct(w.path, user, "documents")), key
            continue
        at = page_as(w.path, user, "documents")
        assert not at.exception and not at.error, (key, [e.value for e in at.exception])
        contracts = next(s for s in at.selectbox if s.label == "Contrato")
        shown = {label.split(" — ")[0] for label in contracts.options}
        assert shown == {"dpc": {"A-1", "B-1", "A-2", "P-1"}, "explorer_a": {"A-1", "A-2"}, "explorer_b": {"B-1"}}[key]
        tabs = [t.label for t in at.tabs]
        assert ("Naufrágios" in tabs) == (key == "dpc")
    assert {k for k in ROLE_KEYS if access.may_view_page(w.principal(k), "documents")} == {"dpc", "explorer_a",
                                                                                         "explorer_b"}


def test_an_explorer_attaches_its_monthly_report_to_the_deadline_it_meets(small_world):
    """The delivery and the report in one form; the report hangs on the event that meets the deadline."""
    from datetime import date

    from valuation.deadlines.engine import compute_deadlines

    w = small_world
    w.store.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET starts_on = DATE '2025-01-06', expires_on = DATE '2026-01-05' WHERE code = 'A-1'"))
    w.store.close()
    exp = w.principal("explorer_a")
    at = open_tab(page_as(w.path, exp, "deadlines"), "deadlines", "Registrar entrega")
    set_date(at, None, date(2025, 7, 20))
    assert not [t for t in at.text_input if t.label == "Data do evento"]     # the company dates nothing
    next(s for s in at.selectbox if s.label == "Contrato").set_value("A-1").run()   # never chosen for it
    next(t for t in at.text_input if t.label == "Mês de referência (MM/AAAA)").set_value("2025-06")
    uploader = next(f for f in at.get("file_uploader") if f.label.startswith("Relatório"))
    uploader.set_value(("relatorio_junho.pdf", F.pdf(), "application/pdf"))
    next(b for b in at.button if b.label == "Registrar").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("1 arquivo(s) anexado(s)" in s.value for s in at.success)
    from valuation.db.store import Store

    with Store(w.path) as s:
        event = s.fetch_one("SELECT id, kind, reference FROM deadline_events ORDER BY id DESC LIMIT 1")
        assert (event["kind"], event["reference"]) == ("relatório_mensal_entregue", "2025-06")
        [report] = records.list_attachments(s, exp, "deadline_event", int(event["id"]))
        assert (report.name, report.kind, report.media_type) == ("relatorio_junho.pdf", "report", "application/pdf")
        frame = compute_deadlines(s, exp, as_of=s.today())               # delivered today, the service's day
        met = frame[frame["key"].astype(str).str.startswith("monthly_report:") & frame["key"].astype(str)
                    .str.endswith("2025-06")]
        assert met["state"].tolist() == ["met"]                            # the deadline it meets


def test_an_explorer_attaches_a_photo_from_the_inventory(world):
    w = world
    w.store.close()
    exp = w.principal("explorer_a")
    at = page_as(w.path, exp, "inventory")
    next(s for s in at.selectbox if s.label == "Item da página").set_value(w.ids["A1-002"]).run()
    next(t for t in at.toggle if t.label == "Anexar fotos").set_value(True).run()
    uploader = next(f for f in at.get("file_uploader") if f.label.startswith("Arquivos (JPEG"))
    uploader.set_value([("mergulho.jpg", F.jpeg((300, 200)), "image/jpeg")])   # several files allowed
    next(b for b in at.button if b.label == "Anexar").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("1 arquivo(s) anexado(s)" in s.value for s in at.success)
    from valuation.db.store import Store

    with Store(w.path) as s:
        [photo] = records.list_attachments(s, exp, "item", w.ids["A1-002"])
        data = records.open_attachment(s, w.principal("dpc"), photo.id).data
        assert photo.name == "mergulho.jpg" and F.MODEL.encode() not in data and b"Exif" not in data


def test_a_zip_with_unmatched_names_is_refused_on_the_page_with_the_list(small_world):
    w = small_world
    w.store.close()
    exp = w.principal("explorer_a")
    at = open_tab(page_as(w.path, exp, "documents"), "documents", "Fotos em lote")
    archive = F.zip_of([("A1-001.jpg", F.jpeg()), ("A1-999.jpg", F.jpeg()), ("outro/ZZ.jpg", F.jpeg())])
    next(f for f in at.get("file_uploader") if f.label == "Arquivo ZIP de fotos").set_value(
        ("fotos.zip", archive, "application/zip"))
    next(b for b in at.button if b.label == "Anexar fotos").click()
    at.run()
    assert not at.exception
    assert any("Nada foi anexado: 2 problema(s)." in e.value for e in at.error)
    table = next(df.value for df in at.dataframe if "Motivo" in df.value.columns)
    assert table["Arquivo"].tolist() == ["A1-999.jpg", "outro/ZZ.jpg"]
    assert table["Motivo"].tolist() == ["nenhum item do contrato A-1 tem este código."] * 2
    from valuation.db.store import Store

    with Store(w.path) as s:
        assert s.scalar("SELECT count(*) FROM attachments") == 0
