"""The demo's photographs and documents (issue 16), on top of the commission demo.

`seed_attachment_demo(store)`, run by `valuation.demo.suite` after the other steps, through the
product's own functions and users, with the store's clock held at plausible moments:

- dimensions for every demo item (a coin's diameter by its denomination, others from weight);
- photographs (drawn by `pictures.item_photo`, deterministic) of the items the Commission
  assesses — the 240 of DPC-EX-2015/01 and the 120 of DPC-EX-2021/02, a second view for one in
  six — uploaded by each contract's explorer as one ZIP per contract (`bulk.attach_photo_zip`);
  the camera's EXIF (GPS position of the wreck, make, model, serial number) goes in and none
  of it is stored;
- the monthly report (PDF) attached to the latest deliveries of each contract by its explorer,
  and a final report;
- the authorisation act (PDF) of the contracts with items and a survey document of two wrecks,
  attached by DPC.

Idempotent: nothing happens when the database already has attachments or is not the demo.
"""
from __future__ import annotations

import contextlib
import io
import zipfile
from collections.abc import Callable, Iterator
from datetime import datetime, time
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from fpdf import FPDF
from fpdf.enums import XPos, YPos

from valuation.attachments import bulk, records
from valuation.attachments.pictures import item_photo
from valuation.core.money import format_date_br
from valuation.db.access import Principal, users_of_organisation, users_with_roles
from valuation.deadlines.vocabulary import FINAL_REPORT_DELIVERED, MONTHLY_REPORT_DELIVERED
from valuation.demo.base import DEMO_SEED

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

PHOTO_CONTRACTS: dict[str, int] = {"DPC-EX-2015/01": 240, "DPC-EX-2021/02": 120}
SECOND_VIEW_EVERY = 6
REPORTS_PER_CONTRACT = 2
DEMO_ACTOR = "demo"
_UPLOADED: dict[str, datetime] = {"DPC-EX-2015/01": datetime(2026, 9, 10, 15, 20),
                                  "DPC-EX-2021/02": datetime(2026, 10, 15, 11, 5)}
_DIAMETER_MM: dict[str, int] = {"8 real": 39, "4 real": 33, "640 reis": 38, "4000 reis": 26, "40 reis": 37,
                                "2000 reis": 37, "soberano": 22, "leeuwendaalder": 41}
_DENSITY: dict[str, float] = {"ouro": 19.3, "prata": 10.5, "chumbo": 11.3, "cobre": 8.9, "bronze": 8.7,
                              "latão": 8.5, "ferro": 7.8, "aço": 7.9, "estanho": 7.3, "vidro": 2.5,
                              "madeira": 0.8, "pedra": 2.6, "osso": 1.9}


@contextlib.contextmanager
def _held_clock(store: Store) -> Iterator[Callable[[datetime], None]]:
    moment: list[datetime | None] = [None]
    original = getattr(store, "_clock", None)
    if original is None:
        yield lambda when: None
        return
    store._clock = lambda: moment[0] or original()
    try:
        yield lambda when: moment.__setitem__(0, when)
    finally:
        store._clock = original


def _principal(store: Store, username: str) -> Principal:
    row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                          "WHERE username = ?", [username])
    if row is None:
        raise LookupError(f"demo user {username} is missing")
    return Principal(**row)


def _explorer_of(store: Store, organisation_id: int) -> Principal | None:
    explorers, params = users_with_roles(("explorer",), "u")
    own, own_params = users_of_organisation(organisation_id, "u")
    row = store.fetch_one(f"SELECT u.username FROM users u WHERE {explorers} AND {own} AND u.active "
                          "ORDER BY u.id LIMIT 1", [*params, *own_params])
    return None if row is None else _principal(store, row["username"])


# -- dimensions ---------------------------------------------------------------------------------
def dimensions_text(item: dict[str, Any]) -> str | None:
    """A plausible measure for the demo: coins by denomination, other things from weight."""
    den, qty = item["denomination"], int(item["quantity"] or 1)
    if item["category"] == "moedas":
        d = _DIAMETER_MM.get(den or "", 30)
        return f"Ø {d} mm" + (f" (lote de {qty} peças)" if qty > 1 else "")
    weight = item["weight_g"]
    if weight is None:
        return None
    unit = float(weight) / qty / _DENSITY.get(item["material"], 2.0)     # cm³ of one piece
    side = max(unit, 0.05) ** (1 / 3)
    seed = int(item["id"]) % 7
    length, width, height = side * (1.6 + seed / 10), side * (0.9 + seed / 20), side * 0.55
    if length >= 100:
        text = f"{length / 100:.2f} × {width / 100:.2f} × {height / 100:.2f} m"
    else:
        text = f"{length:.1f} × {width:.1f} × {height:.1f} cm"
    return text.replace(".", ",") + (f" (cada; lote de {qty})" if qty > 1 else "")


def _seed_dimensions(store: Store) -> int:
    rows = store.fetch("SELECT i.id, i.category, i.material, i.quantity, i.weight_g, "
                       "comparable_denomination(i.description) AS denomination FROM items i "
                       "WHERE i.dimensions IS NULL ORDER BY i.id")
    table = pa.table({"id": pa.array([int(r["id"]) for r in rows], pa.int64()),
                      "dimensions": pa.array([dimensions_text(r) for r in rows], pa.string())})

    def write(tx: Tx) -> None:
        view = "_demo_dimensions"
        tx.cur.register(view, table)
        try:
            tx.execute(f"UPDATE items SET dimensions = d.dimensions FROM {view} d WHERE items.id = d.id")
        finally:
            tx.cur.unregister(view)
        tx.audit("demo.seed", "items", "*", None, {"dimensions": len(rows), "seed": DEMO_SEED})

    store.write(DEMO_ACTOR, write)
    return len(rows)


# -- photographs ---------------------------------------------------------------------------------
def _position(w: dict[str, Any]) -> tuple[float, float]:
    lat = (w["lat_deg"] + float(w["lat_min"]) / 60) * (-1 if w["lat_hem"] == "S" else 1)
    lon = (w["lon_deg"] + float(w["lon_min"]) / 60) * (-1 if w["lon_hem"] == "W" else 1)
    return lat, lon


def photo_zip(store: Store, contract_code: str, n: int) -> bytes:
    """The ZIP a diving team would send: `<code>.jpg` (and `<code>_2.jpg`), GPS in every EXIF."""
    items = store.fetch(
        "SELECT i.item_code, i.category, i.material, i.description, i.recovered_on, w.lat_deg, w.lat_min, "
        "w.lat_hem, w.lon_deg, w.lon_min, w.lon_hem FROM items i JOIN contracts c ON c.id = i.contract_id "
        "JOIN wrecks w ON w.id = c.wreck_id WHERE c.code = ? ORDER BY i.item_code LIMIT ?", [contract_code, n])
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as zf:
        for k, it in enumerate(items):
            name = bulk.code_key(it["item_code"])
            taken = datetime.combine(it["recovered_on"], time(10 + k % 6, (7 * k) % 60))
            views = 2 if k % SECOND_VIEW_EVERY == 0 else 1
            for view in range(views):
                data = item_photo(it["item_code"], it["category"], it["material"], it["description"],
                                  seed=DEMO_SEED, view=view, position=_position(it), taken=taken)
                info = zipfile.ZipInfo(f"fotos/{name}{'' if view == 0 else '_2'}.jpg", date_time=(2026, 9, 1, 9, 0, 0))
                zf.writestr(info, data)
    return out.getvalue()


# -- documents -----------------------------------------------------------------------------------
def _pdf(title: str, subtitle: str, paragraphs: list[str], when: datetime, organisation: str | None) -> bytes:
    """A simple document as a company would send it (fpdf2's core font: fast, Latin-1 text)."""
    pdf = FPDF(format="A4")
    pdf.set_creation_date(when)
    pdf.set_title(title)
    pdf.set_creator(organisation or "Diretoria de Portos e Costas")
    pdf.add_page()
    pdf.set_font("helvetica", "B", 9)
    pdf.cell(0, 6, _latin1((organisation or "Marinha do Brasil - Diretoria de Portos e Costas").upper()),
             new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font("helvetica", "B", 15)
    pdf.multi_cell(0, 8, _latin1(title), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font("helvetica", "", 11)
    pdf.multi_cell(0, 6, _latin1(subtitle), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(4)
    pdf.set_font("helvetica", "", 10)
    for text in paragraphs:
        pdf.multi_cell(0, 5, _latin1(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(2)
    pdf.ln(6)
    pdf.cell(0, 5, _latin1(f"Em {format_date_br(when)}."), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    return bytes(pdf.output())


def _latin1(text: str) -> str:
    return text.replace("—", "-").replace("·", "-").replace("“", '"').replace("”", '"') \
        .encode("latin-1", "replace").decode("latin-1")


def monthly_report_pdf(contract: dict[str, Any], month: str, when: datetime) -> bytes:
    year, mon = month.split("-")
    return _pdf(f"Relatório mensal de atividades — {mon}/{year}", f"Contrato {contract['code']} · "
                f"{contract['wreck_name']}", [
                    f"Empresa: {contract['organisation']}. Período: {mon}/{year} (NORMAM-10 0303 e).",
                    "Atividades: mergulhos de prospecção e registro, limpeza de concreções, recuperação dos bens "
                    "listados no inventário do mês, fotografados e entregues ao laboratório de conservação.",
                    "Segurança: sem incidentes. Condições de mar dentro dos limites do plano de trabalho.",
                    "A posição do sítio consta apenas do processo sigiloso (NORMAM-10 0105)."], when,
                contract["organisation"])


def final_report_pdf(contract: dict[str, Any], when: datetime) -> bytes:
    return _pdf("Relatório final", f"Contrato {contract['code']} · {contract['wreck_name']}", [
        f"Empresa: {contract['organisation']}. Relatório final das operações (NORMAM-10 0301 c, 0302 b 3).",
        "Inclui o inventário completo dos bens recuperados, o registro fotográfico de cada fase e o custo real "
        "das operações."], when, contract["organisation"])


def act_pdf(contract: dict[str, Any], when: datetime) -> bytes:
    return _pdf(contract["act_number"] or f"Ato do contrato {contract['code']}", contract["wreck_name"], [
        f"A Diretoria de Portos e Costas autoriza {contract['organisation']} a realizar as operações de "
        f"{contract['kind']} descritas no processo, nos termos da Lei 7.542/1986 e da NORMAM-10.",
        "As coisas e bens resgatados serão registrados e entregues à Autoridade Naval (art. 23)."], when, None)


def _contracts(store: Store) -> list[dict[str, Any]]:
    return store.fetch(
        "SELECT c.id, c.code, c.kind, c.act_number, c.organisation_id, c.signed_on, o.name AS organisation, "
        "w.name AS wreck_name FROM contracts c JOIN organisations o ON o.id = c.organisation_id "
        "JOIN wrecks w ON w.id = c.wreck_id ORDER BY c.code")


def _seed_reports(store: Store, clock: Callable[[datetime], None]) -> int:
    n = 0
    for c in _contracts(store):
        explorer = _explorer_of(store, int(c["organisation_id"]))
        if explorer is None:
            continue
        events = store.fetch(
            "SELECT id, kind, event_date, reference FROM deadline_events WHERE contract_id = ? AND kind IN (?, ?) "
            "AND NOT voided ORDER BY event_date DESC, id DESC LIMIT ?",
            [c["id"], MONTHLY_REPORT_DELIVERED, FINAL_REPORT_DELIVERED, REPORTS_PER_CONTRACT])
        for e in events:
            when = datetime.combine(e["event_date"], time(16, 40))
            clock(when)
            if e["kind"] == MONTHLY_REPORT_DELIVERED:
                data, name = monthly_report_pdf(c, e["reference"], when), f"relatorio_mensal_{e['reference']}.pdf"
            else:
                data, name = final_report_pdf(c, when), "relatorio_final.pdf"
            records.attach(store, explorer, "deadline_event", int(e["id"]), "report", [records.Upload(name, data)])
            n += 1
    return n


def _seed_documents(store: Store, dpc: Principal, clock: Callable[[datetime], None]) -> int:
    n = 0
    with_items = {int(r["contract_id"]) for r in store.fetch("SELECT DISTINCT contract_id FROM items")}
    for c in _contracts(store):
        if int(c["id"]) not in with_items or c["signed_on"] is None:
            continue
        when = datetime.combine(c["signed_on"], time(11, 0))
        clock(when)
        name = (c["act_number"] or c["code"]).replace("/", "-").replace(" ", "_").replace("º", "o") + ".pdf"
        records.attach(store, dpc, "contract", int(c["id"]), "authorisation", [records.Upload(name, act_pdf(c, when))])
        n += 1
    for w in store.fetch("SELECT id, code, name FROM wrecks WHERE id IN (SELECT wreck_id FROM contracts) "
                         "ORDER BY code LIMIT 2"):
        when = datetime(2026, 3, 2, 10, 0)
        clock(when)
        data = _pdf(f"Ficha do naufrágio {w['code']}", w["name"], [
            "Levantamento documental e histórico do naufrágio, com a planta do sítio e a bibliografia.",
            "Documento de uso interno da DPC: contém a posição (NORMAM-10 0105)."], when, None)
        records.attach(store, dpc, "wreck", int(w["id"]), "document",
                       [records.Upload(f"ficha_{w['code']}.pdf", data)])
        n += 1
    return n


def seed_attachment_demo(store: Store) -> dict[str, int]:
    """Attach the demo's photos and documents (module docstring); returns what was added."""
    if int(store.scalar("SELECT count(*) FROM attachments")):
        return {"photos": 0}
    contracts = {r["code"]: r for r in _contracts(store)}
    if not all(code in contracts for code in PHOTO_CONTRACTS):
        return {"photos": 0}          # not the demo data set
    dpc = _principal(store, "dpc.prado")
    counts = {"dimensions": _seed_dimensions(store), "photos": 0, "reports": 0, "documents": 0}
    with _held_clock(store) as clock:
        for code, n in PHOTO_CONTRACTS.items():
            explorer = _explorer_of(store, int(contracts[code]["organisation_id"]))
            clock(_UPLOADED[code])
            result = bulk.attach_photo_zip(store, explorer or dpc, code, photo_zip(store, code, n),
                                           f"fotos_{bulk.code_key(code)}.zip")
            counts["photos"] += result.attached
        counts["reports"] = _seed_reports(store, clock)
        counts["documents"] = _seed_documents(store, dpc, clock)
    store.checkpoint()
    return counts


__all__ = ["PHOTO_CONTRACTS", "dimensions_text", "photo_zip", "seed_attachment_demo"]
