"""Photo sheets (issue 16 §7): thumbnails of the items of a round's minutes or of a statement's
adjudicated items, as a PDF appendix within a size budget.

An issued statement's PDF is kept as issued (its sha256 is on record), and the minutes are a
document of their own: the thumbnails go in a separate appendix — "Anexo fotográfico" — that
names the round or the statement it belongs to. Each item contributes its principal photo's
thumbnail (JPEG, ≤ 320 px) while the embedded images stay within `budget` bytes; the items left
out (no photo, or past the budget) are counted on the last page. One audit row records the
sheet and the photos it read.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from valuation.attachments.kinds import MIB, megabytes
from valuation.attachments.records import principal_roots
from valuation.authenticity import registry
from valuation.core.errors import ConflictError, InputError, Problem
from valuation.db.access import Principal, attachment_scope, require
from valuation.db.blobs import BlobStore
from valuation.exports.pdf import PdfReport

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

DEFAULT_BUDGET = 4 * MIB
MAX_ITEMS = 2_000


def _thumbs(store: Store, user: Principal, items: Sequence[dict[str, Any]], budget: int
            ) -> tuple[list[tuple[bytes, str]], list[int], int, int]:
    """(images with captions, attachment ids read, items without photo, items past the budget)."""
    ids = [int(i["id"]) for i in items][:MAX_ITEMS]
    roots = principal_roots(store, ids)
    pred, params = attachment_scope(user, "a")
    rows = {}
    if roots:
        marks = ", ".join("?" for _ in roots)
        rows = {int(r["root_id"]): r for r in store.fetch(
            f"SELECT a.id, a.root_id, a.thumb_sha256 FROM attachments a WHERE a.root_id IN ({marks}) AND {pred} "
            "QUALIFY row_number() OVER (PARTITION BY a.root_id ORDER BY a.version DESC) = 1",
            [*roots.values(), *params])}
    blobs = BlobStore.for_database(store.path)
    images: list[tuple[bytes, str]] = []
    read: list[int] = []
    used = no_photo = over = 0
    for item in items[:MAX_ITEMS]:
        row = rows.get(roots.get(int(item["id"]), -1))
        if row is None or row["thumb_sha256"] is None:
            no_photo += 1
            continue
        data = blobs.read(row["thumb_sha256"])
        if used + len(data) > budget:
            over += 1
            continue
        used += len(data)
        images.append((data, f"{item['item_code']} — {item['description']}"))
        read.append(int(row["id"]))
    return images, read, no_photo, over + max(0, len(items) - MAX_ITEMS)


def photo_sheet_pdf(store: Store, user: Principal, title: str, subtitle: str, items: Sequence[dict[str, Any]], *,
                    subject: tuple[str, int], budget: int = DEFAULT_BUDGET) -> bytes:
    """The appendix for `items` (dicts with id, item_code, description), audited as `subject`."""
    if not all(isinstance(i, Mapping) and "id" in i for i in items) or not (
            isinstance(subject, tuple) and len(subject) == 2):
        raise InputError(Problem("items", "Anexo de fotos: informe os itens (com id) e o documento a que pertence."))
    images, read, no_photo, over = _thumbs(store, user, items, budget)
    stamp = registry.new_stamp()
    report = PdfReport(title, subtitle, stamp=stamp)
    report.paragraph(f"Miniaturas da foto principal de cada item ({len(images)} de {len(items)} itens). As fotos "
                     "são cópias sem metadados (sem posição GPS nem dados da câmera).")
    report.image_grid(images)
    notes = []
    if no_photo:
        notes.append(f"{no_photo} item(ns) sem foto anexada")
    if over:
        notes.append(f"{over} item(ns) fora deste anexo pelo limite de tamanho ({megabytes(budget)})")
    if notes:
        report.paragraph("Não incluídos: " + "; ".join(notes) + ".")
    pdf = report.bytes()

    def write(tx: Tx) -> None:
        registry.register(tx, stamp, pdf, kind="photo_sheet", record=(str(subject[0]), int(subject[1]), None),
                          office=registry.DPC, actor=user.username)
        tx.audit("attachment_photo_sheet", subject[0], subject[1], None,
                 {"attachments": read, "items": len(items), "bytes": len(pdf)})
    store.write(user.username, write)
    return pdf


def round_photo_sheet(store: Store, user: Principal, round_id: int, *, budget: int = DEFAULT_BUDGET) -> bytes:
    """The photo appendix of a round's minutes: its decided items (once the round is closed)."""
    from valuation.commission.rounds import fetch_round

    require(user, "read_minutes_photos")
    rnd = fetch_round(store, round_id, count=False)
    if rnd["status"] == "aberta":
        raise ConflictError("O anexo fotográfico da ata só existe depois do encerramento da rodada.")
    items = store.fetch("SELECT i.id, i.item_code, i.description FROM round_items ri JOIN items i ON i.id = ri.item_id "
                        "WHERE ri.round_id = ? ORDER BY i.item_code", [round_id])
    return photo_sheet_pdf(store, user, "Anexo fotográfico da ata", f"Contrato {rnd['contract_code']} · rodada "
                           f"{rnd['number']}", items, subject=("assessment_round", round_id), budget=budget)


def statement_photo_sheet(store: Store, user: Principal, statement_id: int, *, budget: int = DEFAULT_BUDGET) -> bytes:
    """The photo appendix of a statement: its adjudicated items, by value."""
    from valuation.partition import statement_reads

    doc = statement_reads.get_statement(store, user, statement_id, item_limit=0)     # NotFound outside the user's scope
    items = store.fetch("SELECT i.id, i.item_code, i.description FROM statement_items si "
                        "JOIN items i ON i.id = si.item_id WHERE si.statement_id = ? "
                        "ORDER BY si.value_brl DESC, i.item_code", [statement_id])
    return photo_sheet_pdf(store, user, "Anexo fotográfico do demonstrativo", f"{doc.label} · bens adjudicados", items,
                           subject=("statement", statement_id), budget=budget)
