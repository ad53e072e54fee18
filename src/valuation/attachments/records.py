"""Attaching, listing and reading files, always with the user (issue 16 §§1–4).

    attach(store, user, owner_kind, owner_id, kind, uploads)   → ids (all or nothing, audited)
    list_attachments(store, user, owner_kind, owner_id)        → the current versions
    counts(store, user, owner_kind, owner_ids)                 → {owner_id: files}
    principal_photo(store, user, item_id)                      → the item's principal photo or None
    open_attachment(store, user, attachment_id, variant)       → FileContent (audited download)
    set_principal / replace / withdraw                         → append-only changes (audited)

Files are identified to users by the attachment id only; no function takes a path or a
hash, and an id outside the user's scope reads "não encontrado" like an id that does not
exist. The stored file of an image is its clean derivative (`images.clean_image`); the
sha256 of the bytes as uploaded (`original_sha256`) is returned to DPC only and never
written to the audit log (the admin reads it).
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from valuation.attachments import owners
from valuation.attachments.budget import charge
from valuation.attachments.images import clean_image, declared_size
from valuation.attachments.kinds import (
    KIND_LABELS,
    MAX_FILES_PER_UPLOAD,
    MAX_UPLOAD_BYTES,
    TYPES_BY_KIND,
    VARIANTS,
    megabytes,
)
from valuation.attachments.sniff import TYPES, FileType, sniff
from valuation.core.errors import InputError, NotFound, Problem
from valuation.db.access import Principal, allowed, attachment_owner_scope, attachment_scope, require
from valuation.db.blobs import BlobStore, Staging, sha256_hex

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

Progress = Callable[[float, str], None]
MAX_NAME = 180
MAX_CAPTION = 300
MAX_NOTE = 500
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_MEDIA_TO_TYPE = {t.media_type: t for t in TYPES.values()}

COLUMNS = ("id, root_id, version, owner_kind, owner_id, kind, original_name, media_type, size_bytes, sha256, "
           "original_sha256, original_size, width, height, preview_sha256, thumb_sha256, caption, withdrawn, "
           "note, batch, uploaded_by, uploaded_at")


@dataclass(frozen=True)
class Upload:
    """One file as received: its name (only the base name is kept) and bytes."""

    name: str
    data: bytes
    caption: str | None = None


@dataclass(frozen=True)
class Prepared:
    name: str
    ftype: FileType
    stored: bytes
    original_sha256: str
    original_size: int
    width: int | None
    height: int | None
    preview: bytes | None
    thumb: bytes | None
    caption: str | None


@dataclass(frozen=True)
class Attachment:
    id: int
    root_id: int
    version: int
    owner_kind: str
    owner_id: int
    kind: str
    name: str
    media_type: str
    size_bytes: int
    sha256: str
    original_sha256: str | None     # DPC only
    width: int | None
    height: int | None
    has_preview: bool
    caption: str | None
    uploaded_by: str
    uploaded_at: datetime
    principal: bool = False

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def type_label(self) -> str:
        t = _MEDIA_TO_TYPE.get(self.media_type)
        return t.label if t else self.media_type

    @property
    def is_image(self) -> bool:
        return self.media_type.startswith("image/")


@dataclass(frozen=True)
class FileContent:
    name: str
    media_type: str
    data: bytes


# -- preparing uploads (no database) ----------------------------------------------------------
def clean_name(name: object) -> str:
    """The base name of an uploaded file, without control characters, at most MAX_NAME chars."""
    text = str(name or "")
    text = text.replace("\\", "/").rsplit("/", 1)[-1]
    text = unicodedata.normalize("NFC", _CONTROL.sub("", text)).strip()
    if len(text) > MAX_NAME:
        dot = text.rfind(".")
        ext = text[dot:] if 0 < dot and len(text) - dot <= 10 else ""
        text = text[:MAX_NAME - len(ext)] + ext
    return text or "arquivo"


def _caption(text: object) -> str | None:
    if text is None:
        return None
    value = _CONTROL.sub(" ", str(text)).strip()
    return value[:MAX_CAPTION] or None


@dataclass(frozen=True)
class Planned:
    """A file sniffed and (images) measured on its header — nothing decoded yet."""

    name: str
    data: bytes
    ftype: FileType
    pixels: int            # width × height an image declares (0 for documents)
    caption: str | None


def plan(upload: Upload, allowed: Sequence[str]) -> Planned:
    """Sniff one file and read an image's size from its header; InputError naming it when refused."""
    name = clean_name(upload.name)
    data = bytes(upload.data)
    ftype = sniff(data, name, allowed)
    pixels = 0
    if ftype.is_image:
        width, height = declared_size(data, name, ftype)
        pixels = width * height
    return Planned(name, data, ftype, pixels, _caption(upload.caption))


def finish(p: Planned) -> Prepared:
    """The stored form of a planned file: an image decoded, cleaned and re-encoded."""
    original = sha256_hex(p.data)
    if p.ftype.is_image:
        img = clean_image(p.data, p.name, p.ftype)
        return Prepared(p.name, p.ftype, img.data, original, len(p.data), img.width, img.height, img.preview,
                        img.thumb, p.caption)
    return Prepared(p.name, p.ftype, p.data, original, len(p.data), None, None, None, None, p.caption)


def prepare(upload: Upload, allowed: Sequence[str]) -> Prepared:
    """Sniff and (images) clean one file; InputError naming it when refused."""
    return finish(plan(upload, allowed))


def finish_all(planned: Sequence[Planned], *, budget: tuple[object, str] | None = None,
               progress: Progress | None = None, label: str = "Arquivos") -> list[Prepared]:
    """Charge the upload's pixels to `budget` (database, username) before any decoding (issue 24,
    item 8: `attachments.budget`), then decode the files one by one, reporting `progress(fraction,
    text)`; InputError listing every file refused."""
    if budget is not None:
        charge(budget[0], budget[1], [p.pixels for p in planned], file_name=label)
    out: list[Prepared] = []
    problems: list[Problem] = []
    for k, p in enumerate(planned):
        if progress is not None:
            progress(k / max(len(planned), 1), f"processando {p.name} ({k + 1} de {len(planned)})")
        try:
            out.append(finish(p))
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)
    if progress is not None:
        progress(1.0, f"{len(planned)} arquivo(s) processado(s)")
    return out


def prepare_all(uploads: Sequence[Upload], allowed: Sequence[str], *, budget: tuple[object, str] | None = None,
                progress: Progress | None = None) -> list[Prepared]:
    """Every file prepared, or InputError listing every refused one (nothing kept). Every file is sniffed
    and measured before any is decoded; `budget` and `progress`: `finish_all`."""
    if not uploads:
        raise InputError(Problem("files", "Arquivos: envie ao menos um arquivo."))
    if len(uploads) > MAX_FILES_PER_UPLOAD:
        raise InputError(Problem("files", f"Arquivos: no máximo {MAX_FILES_PER_UPLOAD} por envio "
                                          f"({len(uploads)} enviados)."))
    total = sum(len(u.data) for u in uploads)
    if total > MAX_UPLOAD_BYTES:
        raise InputError(Problem("files", f"Arquivos: {megabytes(total)} ao todo, acima do limite de "
                                          f"{megabytes(MAX_UPLOAD_BYTES)} por envio."))
    planned: list[Planned] = []
    problems: list[Problem] = []
    for upload in uploads:
        try:
            planned.append(plan(upload, allowed))
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)
    return finish_all(planned, budget=budget, progress=progress)


# -- writing -------------------------------------------------------------------------------
def stage(staging: Staging, items: Sequence[Prepared]) -> list[dict[str, Any]]:
    """Write the files to the staging folder; the rows' file columns."""
    rows = []
    for p in items:
        rows.append({"sha256": staging.put(p.stored), "size_bytes": len(p.stored),
                     "preview_sha256": staging.put(p.preview) if p.preview is not None else None,
                     "thumb_sha256": staging.put(p.thumb) if p.thumb is not None else None})
    return rows


def reserve_ids(tx: Tx, n: int) -> list[int]:
    rows = tx.cur.execute("SELECT nextval('seq_attachments') FROM range(?)", [n]).fetchall()
    return sorted(int(r[0]) for r in rows)


def insert_rows(tx: Tx, rows: list[dict[str, Any]]) -> None:
    """Bulk insert of attachment rows (every column of COLUMNS)."""
    cols = [c.strip() for c in COLUMNS.split(",")]
    types = {"id": pa.int64(), "root_id": pa.int64(), "version": pa.int32(), "owner_id": pa.int64(),
             "size_bytes": pa.int64(), "original_size": pa.int64(), "width": pa.int32(), "height": pa.int32(),
             "withdrawn": pa.bool_(), "uploaded_at": pa.timestamp("us")}
    table = pa.table({c: pa.array([r[c] for r in rows], type=types.get(c, pa.string())) for c in cols})
    tx.insert_frame("attachments", table)


def new_rows(tx: Tx, user: Principal, owner_kind: str, owner_ids: Sequence[int], kind: str,
             prepared: Sequence[Prepared], files: Sequence[dict[str, Any]], *, batch: str | None = None
             ) -> list[dict[str, Any]]:
    ids = reserve_ids(tx, len(prepared))
    now = tx.store.now()
    return [{"id": i, "root_id": i, "version": 1, "owner_kind": owner_kind, "owner_id": owner_id, "kind": kind,
             "original_name": p.name, "media_type": p.ftype.media_type, "original_sha256": p.original_sha256,
             "original_size": p.original_size, "width": p.width, "height": p.height, "caption": p.caption,
             "withdrawn": False, "note": None, "batch": batch, "uploaded_by": user.username, "uploaded_at": now, **f}
            for i, owner_id, p, f in zip(ids, owner_ids, prepared, files)]


def audit_entry(row: dict[str, Any]) -> dict[str, Any]:
    """What the audit log keeps of an attachment (never the original's sha256)."""
    return {"id": row["id"], "kind": row["kind"], "name": row["original_name"], "media_type": row["media_type"],
            "size": row["size_bytes"], "sha256": row["sha256"], "version": row["version"]}


def attach(store: Store, user: Principal, owner_kind: str, owner_id: int, kind: str,
           uploads: Sequence[Upload], *, principal: bool = False, progress: Progress | None = None) -> list[int]:
    """Attach files to one owner row (all or nothing); returns the new attachment ids.

    `principal` (photos of an item): the first of these becomes the item's principal photo. The images'
    pixels are charged to the user's budget before any is decoded (`budget`); `progress(f, text)`.
    """
    owner_kind = owners.check_owner_kind(owner_kind)
    owner_id = owners.check_id(owner_id, "owner_id", "Registro")
    owners.require_attach(store, user, owner_kind, owner_id, kind)
    prepared = prepare_all(uploads, TYPES_BY_KIND[kind], budget=(store.path, user.username), progress=progress)
    blobs = BlobStore.for_database(store.path)
    with blobs.staging() as staging:
        files = stage(staging, prepared)

        def write(tx: Tx) -> list[int]:
            owners.require_attach(tx, user, owner_kind, owner_id, kind)
            rows = new_rows(tx, user, owner_kind, [owner_id] * len(prepared), kind, prepared, files)
            insert_rows(tx, rows)
            if principal and owner_kind == "item" and kind == "photo":
                write_principal(tx, user, owner_id, rows[0]["root_id"])
            tx.audit("attachment_upload", owner_kind, owner_id, None,
                     {"files": [audit_entry(r) for r in rows], "principal": bool(principal)})
            staging.publish()           # the files are in place before the rows are committed
            return [r["id"] for r in rows]

        return store.write(user.username, write)


# -- reading -------------------------------------------------------------------------------
_CURRENT = f"""
SELECT * FROM (
    SELECT {COLUMNS} FROM attachments a WHERE {{where}}
    QUALIFY row_number() OVER (PARTITION BY root_id ORDER BY version DESC) = 1
) WHERE NOT withdrawn"""


def principal_roots(db: Store | Tx, item_ids: Sequence[int]) -> dict[int, int]:
    """item id → root id of its principal photo (the latest mark on a current photo, else the
    first current photo)."""
    if not item_ids:
        return {}
    marks = ", ".join("?" for _ in item_ids)
    current = _CURRENT.format(where=f"a.owner_kind = 'item' AND a.kind = 'photo' AND a.owner_id IN ({marks})")
    rows = db.fetch(
        f"""WITH cur AS ({current}),
                 marked AS (SELECT p.item_id, p.root_id FROM attachment_principals p
                            WHERE p.item_id IN ({marks}) AND p.root_id IN (SELECT root_id FROM cur)
                            QUALIFY row_number() OVER (PARTITION BY p.item_id ORDER BY p.id DESC) = 1)
            SELECT c.owner_id AS item_id, coalesce(max(m.root_id), min(c.root_id)) AS root_id
            FROM cur c LEFT JOIN marked m ON m.item_id = c.owner_id GROUP BY c.owner_id""",
        [*item_ids, *item_ids])
    return {int(r["item_id"]): int(r["root_id"]) for r in rows}


def _attachment(row: dict[str, Any], user: Principal, principal_root: int | None = None) -> Attachment:
    return Attachment(
        id=int(row["id"]), root_id=int(row["root_id"]), version=int(row["version"]), owner_kind=row["owner_kind"],
        owner_id=int(row["owner_id"]), kind=row["kind"], name=row["original_name"], media_type=row["media_type"],
        size_bytes=int(row["size_bytes"]), sha256=row["sha256"],
        original_sha256=row["original_sha256"] if allowed(user, "read_original_checksums") else None,
        width=row["width"], height=row["height"], has_preview=row["preview_sha256"] is not None,
        caption=row["caption"], uploaded_by=row["uploaded_by"], uploaded_at=row["uploaded_at"],
        principal=principal_root is not None and int(row["root_id"]) == principal_root)


def list_attachments(store: Store, user: Principal, owner_kind: str, owner_id: int, *,
                     kind: str | None = None) -> list[Attachment]:
    """The current version of every file of one owner row the user may read (principal photo
    first, then in upload order); NotFound when the owner is outside the user's scope."""
    owner_kind = owners.check_owner_kind(owner_kind)
    owner_id = owners.check_id(owner_id, "owner_id", "Registro")
    owners.require_readable_owner(store, user, owner_kind, owner_id)
    where, params = "a.owner_kind = ? AND a.owner_id = ?", [owner_kind, owner_id]
    if kind is not None:
        where += " AND a.kind = ?"
        params.append(kind)
    rows = store.fetch(_CURRENT.format(where=where) + " ORDER BY root_id", params)
    root = principal_roots(store, [owner_id]).get(owner_id) if owner_kind == "item" else None
    out = [_attachment(r, user, root if r["kind"] == "photo" else None) for r in rows]
    return sorted(out, key=lambda a: (not a.principal, a.root_id))


def counts(store: Store, user: Principal, owner_kind: str, owner_ids: Sequence[int]) -> dict[int, int]:
    """{owner_id: current files} over the given owners the user may read (others are absent)."""
    owner_kind = owners.check_owner_kind(owner_kind)
    ids = [owners.check_id(int(i), "owner_id", "Registro") for i in owner_ids][:5000]
    if not ids or not allowed(user, "read_attachments"):
        return {}
    scope, params = attachment_owner_scope(user, owner_kind)
    marks = ", ".join("?" for _ in ids)
    current = _CURRENT.format(where=f"a.owner_kind = ? AND a.owner_id IN ({marks})")
    rows = store.fetch(f"SELECT owner_id, count(*) AS n FROM ({current}) WHERE owner_id IN ({scope}) "
                       "GROUP BY owner_id", [owner_kind, *ids, *params])
    return {int(r["owner_id"]): int(r["n"]) for r in rows}


def principal_photo(store: Store, user: Principal, item_id: int) -> Attachment | None:
    """The item's principal photo (None when it has none); NotFound outside the user's scope."""
    photos = list_attachments(store, user, "item", item_id, kind="photo")
    return photos[0] if photos else None


def _readable_row(db: Store | Tx, user: Principal, attachment_id: int) -> dict[str, Any]:
    require(user, "read_attachments")
    attachment_id = owners.check_id(attachment_id, "attachment_id", "Arquivo")
    pred, params = attachment_scope(user, "a")
    row = db.fetch_one(f"SELECT {COLUMNS} FROM attachments a WHERE a.id = ? AND {pred}", [attachment_id, *params])
    if row is None:
        raise owners.attachment_not_found(attachment_id)
    return row


def _variant_name(name: str, variant: str) -> str:
    if variant == "file":
        return name
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return f"{stem}_{'miniatura' if variant == 'thumb' else 'visualizacao'}.jpg"


def open_attachment(store: Store, user: Principal, attachment_id: int, variant: str = "file") -> FileContent:
    """The bytes of one attachment the user may read ('file', or for images 'preview'/'thumb'),
    checked against their sha256; the download is audited. NotFound outside the user's scope."""
    if variant not in VARIANTS:
        raise InputError(Problem("variant", "Variante do arquivo: file, preview ou thumb."))
    row = _readable_row(store, user, attachment_id)
    sha = row["sha256"] if variant == "file" else row[f"{variant}_sha256"]
    if sha is None:
        raise NotFound(f"O arquivo {attachment_id} não é uma imagem: não tem miniatura.", what="attachment",
                       key=attachment_id)
    data = BlobStore.for_database(store.path).read(sha)
    store.write(user.username, lambda tx: tx.audit(          # the audit row alone: no sealed table (db/seals.py)
        "attachment_download", "attachment", row["id"], None,
        {"variant": variant, "owner_kind": row["owner_kind"], "owner_id": row["owner_id"],
         "name": row["original_name"], "sha256": sha}), sealed=())
    media = row["media_type"] if variant == "file" else "image/jpeg"
    return FileContent(name=_variant_name(row["original_name"], variant), media_type=media, data=data)


# -- append-only changes ---------------------------------------------------------------------
def _current_of(tx: Store | Tx, root_id: int) -> dict[str, Any]:
    return tx.fetch_one(f"SELECT {COLUMNS} FROM attachments WHERE root_id = ? ORDER BY version DESC LIMIT 1",
                        [root_id]) or {}


def _note(text: object, required: bool) -> str | None:
    value = _CONTROL.sub(" ", str(text or "")).strip()
    if required and len(value) < 5:
        raise InputError(Problem("note", "Motivo: explique em ao menos 5 caracteres."))
    return value[:MAX_NOTE] or None


def _changeable(tx: Store | Tx, user: Principal, attachment_id: int) -> dict[str, Any]:
    row = _readable_row(tx, user, attachment_id)
    owners.require_attach(tx, user, row["owner_kind"], int(row["owner_id"]), row["kind"])
    current = _current_of(tx, int(row["root_id"]))
    if current["withdrawn"]:
        raise owners.attachment_not_found(attachment_id)
    return current


def replace(store: Store, user: Principal, attachment_id: int, upload: Upload, note: str) -> int:
    """A new version of an attachment (the old one stays, readable by its id); returns its id."""
    text = _note(note, required=True)
    kind = _changeable(store, user, attachment_id)["kind"]     # the file's kind, for the type check
    prepared = prepare_all([upload], TYPES_BY_KIND[kind], budget=(store.path, user.username))
    with BlobStore.for_database(store.path).staging() as staging:
        files = stage(staging, prepared)

        def write(tx: Tx) -> int:
            cur = _changeable(tx, user, attachment_id)
            row = new_rows(tx, user, cur["owner_kind"], [int(cur["owner_id"])], cur["kind"], prepared, files)[0]
            row.update({"root_id": int(cur["root_id"]), "version": int(cur["version"]) + 1, "note": text,
                        "caption": row["caption"] or cur["caption"]})
            insert_rows(tx, [row])
            tx.audit("attachment_replace", cur["owner_kind"], cur["owner_id"], audit_entry(cur),
                     {**audit_entry(row), "note": text})
            staging.publish()
            return int(row["id"])

        return store.write(user.username, write)


def withdraw(store: Store, user: Principal, attachment_id: int, note: str) -> int:
    """Withdraw an attachment uploaded by mistake: a new version marked withdrawn, with the
    reason; the file and every earlier version stay (evidence). Returns the new row's id."""
    text = _note(note, required=True)

    def write(tx: Tx) -> int:
        cur = _changeable(tx, user, attachment_id)
        new_id = reserve_ids(tx, 1)[0]
        row = {**cur, "id": new_id, "version": int(cur["version"]) + 1, "withdrawn": True, "note": text,
               "uploaded_by": user.username, "uploaded_at": tx.store.now()}
        insert_rows(tx, [row])
        tx.audit("attachment_withdraw", cur["owner_kind"], cur["owner_id"], audit_entry(cur),
                 {"id": new_id, "root_id": cur["root_id"], "note": text})
        return new_id

    return store.write(user.username, write)


def write_principal(tx: Tx, user: Principal, item_id: int, root_id: int) -> None:
    """Mark `root_id` as the principal photo of item `item_id` (inside the caller's write; the caller
    checked the user's right to the item)."""
    tx.execute("INSERT INTO attachment_principals (item_id, root_id, set_by, set_at) VALUES (?, ?, ?, ?)",
               [item_id, root_id, user.username, tx.store.now()])


def set_principal(store: Store, user: Principal, attachment_id: int) -> None:
    """Make this photo its item's principal photo (audited)."""

    def write(tx: Tx) -> None:
        cur = _changeable(tx, user, attachment_id)
        if cur["owner_kind"] != "item" or cur["kind"] != "photo":
            raise InputError(Problem("attachment_id", "Foto principal: só uma foto de um bem resgatado."))
        write_principal(tx, user, int(cur["owner_id"]), int(cur["root_id"]))
        tx.audit("attachment_principal", "item", cur["owner_id"], None, {"attachment_id": cur["id"],
                                                                          "root_id": cur["root_id"]})

    store.write(user.username, write)
