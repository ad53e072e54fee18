"""A ZIP of photos named by item code, attached to a contract's items in one go (issue 16 §5).

`attach_photo_zip(store, user, contract_code, data, file_name)`: all or nothing. Every entry
is read in memory (never extracted to disk) with bounds: archive size MAX_ARCHIVE_BYTES,
entries MAX_ARCHIVE_ENTRIES, total inflated size MAX_ARCHIVE_UNCOMPRESSED, each entry's
inflation ratio MAX_ENTRY_RATIO and size MAX_FILE_BYTES (the declared sizes are checked
first and the actual bytes are read with a bound, since a ZIP may lie about them). Names with
a path that climbs (`..`), absolute paths and drive letters, encrypted entries and symbolic
links refuse the archive. Folders inside the archive are allowed (the base name counts);
`__MACOSX/`, `._*`, `.DS_Store`, `Thumbs.db` and `desktop.ini` are skipped.

Names: the item code, with '/' (not allowed in file names) written as '-', any case, followed
by the image extension; more photos of one item as `CODE_2.jpg`, `CODE (2).jpg`. The first
photo of an item that has no photo yet becomes its principal. When a name matches no item of
the contract, or an entry is refused (type, decompression bomb…), nothing is attached and the
error lists every unmatched name and every refused entry.
"""
from __future__ import annotations

import io
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from valuation.attachments.kinds import (
    IMAGE_TYPES,
    MAX_ARCHIVE_BYTES,
    MAX_ARCHIVE_ENTRIES,
    MAX_ARCHIVE_UNCOMPRESSED,
    MAX_ENTRY_RATIO,
    MAX_FILE_BYTES,
    megabytes,
)
from valuation.attachments.records import (
    Progress,
    Upload,
    audit_entry,
    finish_all,
    insert_rows,
    new_rows,
    plan,
    principal_roots,
    stage,
    write_principal,
)
from valuation.core.errors import InputError, NotFound, Problem
from valuation.db.access import Principal, organisation_cleared, require
from valuation.db.blobs import BlobStore, sha256_hex

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

_SKIP = re.compile(r"(^|/)(__MACOSX/|\._[^/]*$|\.DS_Store$|Thumbs\.db$|desktop\.ini$)", re.IGNORECASE)
_SUFFIX = re.compile(r"(?:_(\d{1,3})| \((\d{1,3})\))$")
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class BulkResult:
    contract_code: str
    attached: int
    items: int
    new_principals: int
    skipped: tuple[str, ...]
    batch: str


def code_key(text: str) -> str:
    """How a file stem and an item code are compared: case-insensitive, '/' and '\\' as '-'."""
    return text.strip().upper().replace("/", "-").replace("\\", "-")


def _refuse(file_name: str, message: str) -> InputError:
    return InputError(Problem(file_name, f"{file_name}: {message}"))


def _safe_name(name: str) -> bool:
    if name.startswith(("/", "\\")) or _DRIVE.match(name):
        return False
    return ".." not in re.split(r"[/\\]", name)


def read_entries(data: bytes, file_name: str) -> tuple[list[tuple[str, bytes]], list[str]]:
    """([(entry name, bytes)], skipped names) of the photo ZIP, within every bound."""
    if len(data) > MAX_ARCHIVE_BYTES:
        raise _refuse(file_name, f"tem {megabytes(len(data))}, acima do limite de {megabytes(MAX_ARCHIVE_BYTES)} "
                                 "por arquivo ZIP.")
    if not data.startswith(b"PK\x03\x04"):
        raise _refuse(file_name, "não é um arquivo ZIP.")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise _refuse(file_name, "arquivo ZIP corrompido.") from exc
    with zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
        if len(infos) > MAX_ARCHIVE_ENTRIES:
            raise _refuse(file_name, f"tem {len(infos)} arquivos, acima do limite de {MAX_ARCHIVE_ENTRIES}.")
        problems: list[Problem] = []
        for i in infos:
            if not _safe_name(i.filename):
                problems.append(Problem(i.filename, f"{i.filename}: caminho inválido dentro do ZIP (sai da pasta)."))
            elif i.flag_bits & 0x1:
                problems.append(Problem(i.filename, f"{i.filename}: arquivo protegido por senha."))
            elif stat.S_ISLNK(i.external_attr >> 16):
                problems.append(Problem(i.filename, f"{i.filename}: link simbólico não é aceito."))
        if problems:
            raise InputError(problems)
        if sum(i.file_size for i in infos) > MAX_ARCHIVE_UNCOMPRESSED:
            raise _refuse(file_name, f"descompactado passaria de {megabytes(MAX_ARCHIVE_UNCOMPRESSED)}: não foi "
                                     "aceito.")
        entries: list[tuple[str, bytes]] = []
        skipped: list[str] = []
        total = 0
        for i in infos:
            if _SKIP.search(i.filename):
                skipped.append(i.filename)
                continue
            limit = min(MAX_FILE_BYTES, MAX_ENTRY_RATIO * max(i.compress_size, 1))
            if i.file_size > limit:
                raise _refuse(file_name, f"{i.filename} descompactado seria grande demais ({megabytes(i.file_size)} "
                                         "para o tamanho compactado): arquivo suspeito, nada foi anexado.")
            try:
                with zf.open(i) as fh:
                    content = fh.read(limit + 1)
            except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError,
                    zlib.error) as exc:
                raise _refuse(file_name, f"{i.filename}: não foi possível ler a entrada do ZIP.") from exc
            total += len(content)
            if len(content) > limit or total > MAX_ARCHIVE_UNCOMPRESSED:
                raise _refuse(file_name, f"{i.filename} descompacta mais do que declara: arquivo suspeito, nada "
                                         "foi anexado.")
            entries.append((i.filename, content))
    return entries, skipped


def match_codes(names: list[str], codes: dict[str, str]) -> tuple[list[str | None], list[str]]:
    """The item code of each entry name (None when unmatched), and the unmatched names.
    `codes`: code_key(item_code) → item_code."""
    out: list[str | None] = []
    unmatched: list[str] = []
    for name in names:
        base = name.replace("\\", "/").rsplit("/", 1)[-1]
        stem = base.rsplit(".", 1)[0] if "." in base else base
        code = codes.get(code_key(stem))
        if code is None:
            m = _SUFFIX.search(stem)
            if m:
                code = codes.get(code_key(stem[:m.start()]))
        out.append(code)
        if code is None:
            unmatched.append(name)
    return out, unmatched


def _contract(store: Store | Tx, user: Principal, contract_code: str) -> dict[str, Any]:
    row = store.fetch_one("SELECT id, code, organisation_id, office_code FROM contracts WHERE code = ?",
                          [contract_code])
    foreign = row is not None and not organisation_cleared(user, row["organisation_id"], row["office_code"])
    if row is None or foreign:
        raise NotFound(f"Contrato {contract_code} não encontrado.", what="contract", key=contract_code)
    require(user, "attach_photos")
    return row


def attach_photo_zip(store: Store, user: Principal, contract_code: str, data: bytes, file_name: str, *,
                     progress: Progress | None = None) -> BulkResult:
    """Attach the photos of a ZIP to the contract's items by name (module docstring). Every entry is
    sniffed and measured first; the photos' pixels are charged to the user's budget before any is
    decoded (`budget`, issue 24 item 8); `progress(fraction, text)` as they are processed."""
    file_name = (file_name or "fotos.zip").replace("\\", "/").rsplit("/", 1)[-1]
    contract = _contract(store, user, (contract_code or "").strip())
    entries, skipped = read_entries(bytes(data), file_name)
    if not entries:
        raise _refuse(file_name, "nenhuma foto dentro do ZIP.")
    rows = store.fetch("SELECT id, item_code FROM items WHERE contract_id = ?", [contract["id"]])
    codes = {code_key(r["item_code"]): r["item_code"] for r in rows}
    ids = {r["item_code"]: int(r["id"]) for r in rows}
    matched, unmatched = match_codes([n for n, _ in entries], codes)
    problems = [Problem(n, f"{n}: nenhum item do contrato {contract['code']} tem este código.") for n in unmatched]
    planned = []
    for name, content in entries:
        try:
            planned.append(plan(Upload(name, content), IMAGE_TYPES))
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)
    prepared = finish_all(planned, budget=(store.path, user.username), progress=progress, label=file_name)
    owner_ids = [ids[c] for c in matched if c is not None]
    batch = sha256_hex(bytes(data))
    with BlobStore.for_database(store.path).staging() as staging:
        files = stage(staging, prepared)

        def write(tx: Tx) -> BulkResult:
            _contract(tx, user, contract["code"])
            had = principal_roots(tx, sorted(set(owner_ids)))
            new = new_rows(tx, user, "item", owner_ids, "photo", prepared, files, batch=batch)
            insert_rows(tx, new)
            principals = 0
            for row in new:
                if row["owner_id"] not in had:
                    had[row["owner_id"]] = row["root_id"]
                    write_principal(tx, user, row["owner_id"], row["root_id"])
                    principals += 1
            tx.audit("attachment_bulk_upload", "contract", contract["id"], None,
                     {"archive": file_name, "sha256": batch, "items": len(set(owner_ids)),
                      "files": [{**audit_entry(r), "item_id": r["owner_id"]} for r in new]})
            staging.publish()
            return BulkResult(contract_code=contract["code"], attached=len(new), items=len(set(owner_ids)),
                              new_principals=principals, skipped=tuple(skipped), batch=batch)

        return store.write(user.username, write)
