"""The registry of issued documents (issue 27, section 1; table `issued_documents`, migration 065).

    stamp = new_stamp(nup=None)                   a fresh code (before rendering) and the public address
    register(tx, stamp, data, kind=…, record=…, office=…, actor=…)   after rendering, in the write that issues
    issue(store, actor, stamp, data, …)           the same in a write of its own (a document rendered on demand)
    kept_copy(store, record, kind, content_key)   the registered copy of an act issued once, while it says the same
    issue_once(store, actor, stamp, data, content_key=…, …)   issue it and keep its copy (or serve one kept meanwhile)
    lookup(store, typed_code)                     the public answer of /verificar, or None
    same_bytes(store, typed_code, data)           True / False / None (unknown code)

What /verificar may tell (SECURITY.md, "Verificação de documentos"): the kind, the NUP, the issue date,
the issuing office, the sha256, the CRC and the signature status — never the contents, the positions,
the values or the company. `lookup` reads only those columns.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from valuation.authenticity.codes import Stamp, grouped, new_code, parse_code
from valuation.core import clock
from valuation.core.address import base_url
from valuation.db.blobs import BlobStore
from valuation.db.store import Store, Tx

KIND_LABELS = {"statement": "Demonstrativo de partilha", "minutes": "Ata da Comissão de Avaliação",
               "wreck_map": "Mapa anual de bens afundados (NORMAM-10, anexo 4-B)",
               "office_deadlines": "Relatório de prazos da Organização Militar",
               "photo_sheet": "Folha de fotografias",
               "case_history": "Histórico do processo administrativo (requerimento ou decisão e recursos)",
               "removal_order": "Determinação de remoção ou demolição (Lei 7.542/1986, art. 5)",
               "filing_receipt": "Recibo de protocolo", "intimation": "Intimação (Lei 9.784/1999 art. 26)"}
NO_SIGNATURE = "sem assinatura eletrônica registrada"
DPC = "Diretoria de Portos e Costas"


@dataclass(frozen=True)
class Answer:
    """What /verificar shows of one code (nothing else is read)."""
    code: str
    kind: str
    nup: str | None
    issued_on: date
    office: str
    sha256: str
    crc: str
    signature: str = NO_SIGNATURE
    standing: str | None = None      # a statement's: in force, or replaced by a later version (issue 43, item 12)

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)


def new_stamp(nup: str | None = None, *, env: Any = None) -> Stamp:
    """A fresh code for a document about to be rendered (its CRC is filled by the rendering)."""
    return Stamp(code=new_code(), base_url=base_url(env), nup=nup)


_RECORD_PT = {"statements": "demonstrativo nº", "assessment_rounds": "rodada nº", "offices": "OM",
              "items": "item nº", "contracts": "contrato nº", "wrecks": "naufrágio nº",
              "requests": "requerimento nº", "administrative_decisions": "decisão nº",
              "removal_orders": "determinação de remoção nº", "filings": "protocolo nº",
              "intimations": "intimação nº"}   # the audit's words


def register(tx: Tx, stamp: Stamp, data: bytes, *, kind: str, record: tuple[str, int | None, str | None],
             office: str, actor: str) -> int:
    """Record the issue of `data` (the final bytes) under `stamp`'s code; returns the registry row's id."""
    if stamp.crc is None:
        raise ValueError("the document was not rendered with its stamp")
    if kind not in KIND_LABELS:      # the one list of kinds (migration 083: no CHECK repeats it)
        raise ValueError(f"not a kind of issued document: {kind!r}")
    table, record_id, key = record
    new_id = int(tx.scalar("SELECT nextval('seq_issued_documents')"))
    tx.execute("INSERT INTO issued_documents (id, code, kind, record_table, record_id, record_key, office, nup, "
               "issued_at, crc, sha256, size, issued_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               [new_id, stamp.code, kind, table, record_id, key, office[:200], stamp.nup, clock.stored(clock.now_utc()),
                stamp.crc, hashlib.sha256(data).hexdigest(), len(data), actor])
    tx.audit("document_issued", "issued_document", new_id, None,
             {"code": grouped(stamp.code), "kind": kind,
              "record": f"{_RECORD_PT.get(table, 'registro')} {record_id or key}"})
    return new_id


def issue(store: Store, actor: str, stamp: Stamp, data: bytes, **where: Any) -> bytes:
    """`register` in a write of its own; returns `data` (for a document rendered on demand)."""
    store.write(actor, lambda tx: register(tx, stamp, data, actor=actor, **where))
    return data


# -- an act is issued once (issue 43, item 3) ----------------------------------------------------------------------
# An act rendered on demand (the Commission's minutes, a removal order) is registered at its first download and its
# bytes kept (table issued_copies, the file content-addressed beside the database): every later download serves that
# copy — one code, and the signatures add up on one document — until what the act says changes (`content_key`, the
# sha256 of its data, not of its rendering), which is a new issue with a new code.
def content_key(data: Any) -> str:
    """The sha256 of what an act says: `data` as canonical JSON (dataclasses as dicts; dates, decimals and anything
    else as text), so the same data always gives the same key."""
    def plain(value: Any) -> Any:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return str(value)

    return hashlib.sha256(json.dumps(data, default=plain, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _latest(db: Store | Tx, record: tuple[str, int], kind: str) -> dict[str, Any] | None:
    return db.fetch_one("SELECT d.id, d.sha256, c.content_key FROM issued_documents d LEFT JOIN issued_copies c "
                        "ON c.id = d.id WHERE d.record_table = ? AND d.record_id = ? AND d.kind = ? "
                        "ORDER BY d.id DESC LIMIT 1", [record[0], record[1], kind])


def kept_copy(store: Store, record: tuple[str, int], kind: str, key: str) -> bytes | None:
    """The kept registered bytes of the record's latest act of `kind` when it was issued saying `key`; None when
    there is none or the act has changed since (a new issue is due)."""
    row = _latest(store, record, kind)
    if row is None or row["content_key"] != key:
        return None
    return BlobStore.for_database(store.path).read(str(row["sha256"]))


def issue_once(store: Store, actor: str, stamp: Stamp, data: bytes, *, content_key: str, kind: str,
               record: tuple[str, int], office: str, issued: Callable[[Tx], object] | None = None) -> bytes:
    """Register `data` and keep its copy, in one write — unless a copy saying the same was kept meanwhile (two
    downloads at once): then that copy is served and `data` is dropped. Returns the bytes to serve. `issued(tx)`
    runs in that write when the act is registered (the minutes' notice to their signers)."""
    blobs = BlobStore.for_database(store.path)
    with blobs.staging() as staging:
        sha = staging.put(data)

        def write(tx: Tx) -> str | None:
            latest = _latest(tx, record, kind)
            if latest is not None and latest["content_key"] == content_key:
                return str(latest["sha256"])
            register_kept(tx, stamp, data, sha, content_key=content_key, kind=kind, record=record, office=office,
                          actor=actor)
            if issued is not None:
                issued(tx)
            staging.publish()
            return None

        other = store.write(actor, write)
    return data if other is None else blobs.read(other)


def register_kept(tx: Tx, stamp: Stamp, data: bytes, sha: str, *, content_key: str, kind: str,
                  record: tuple[str, int], office: str, actor: str) -> int:
    """`register` and keep the copy `sha` (the bytes of `data`, staged by the caller and published before the
    commit) in transaction `tx`; the registry row's id. `issue_once`; an act issued in the write that makes it
    (a filing's receipt)."""
    new_id = register(tx, stamp, data, kind=kind, record=(record[0], record[1], None), office=office, actor=actor)
    tx.execute("INSERT INTO issued_copies (id, content_key, sha256, kept_at) VALUES (?, ?, ?, ?)",
               [new_id, content_key, sha, clock.stored(clock.now_utc())])
    return new_id


_SUBJECT_OF = {"statements": "statement", "assessment_rounds": "round", "removal_orders": "removal_order",
               "licence_requests": "licence_request"}   # record table → process.numbers subject


def record_nup(db: Store | Tx, table: str, record_id: object) -> str | None:
    """The record's NUP as printed (process.numbers: the act's process number), None when it has none:
    the footer and /verificar print it then."""
    from valuation.process.numbers import nup_of

    subject = _SUBJECT_OF.get(table)
    if subject is None or record_id is None:
        return None
    return nup_of(db, subject, int(str(record_id)))


def stamp_of(db: Store | Tx, table: str, record_id: int) -> Stamp | None:
    """The stamp of the record's latest issued document (its code, CRC and NUP), None if it has none."""
    row = db.fetch_one("SELECT code, crc, nup FROM issued_documents WHERE record_table = ? AND record_id = ? "
                       "ORDER BY id DESC LIMIT 1", [table, record_id])
    if row is None:
        return None
    return Stamp(code=row["code"], base_url=base_url(), nup=row["nup"], crc=row["crc"])


def lookup(store: Store, typed: object) -> Answer | None:
    """The public answer for a typed code; None for a malformed or unknown one (the caller says the same)."""
    code = parse_code(typed)
    if code is None:
        return None
    row = store.fetch_one("SELECT code, kind, nup, issued_at, office, sha256, crc FROM issued_documents "
                          "WHERE code = ?", [code])
    if row is None:
        return None
    return Answer(code=row["code"], kind=row["kind"], nup=row["nup"],
                  issued_on=clock.brasilia(row["issued_at"]).date(), office=row["office"], sha256=row["sha256"],
                  crc=row["crc"])


def record_of(store: Store, code: str) -> tuple[str, int | None] | None:
    """(record table, record id) of the document issued under `code` (as stored, no separator), None if unknown."""
    row = store.fetch_one("SELECT record_table, record_id FROM issued_documents WHERE code = ?", [code])
    return None if row is None else (str(row["record_table"]), row["record_id"])


def same_bytes(store: Store, typed: object, data: bytes) -> bool | None:
    """Whether `data` are the registered bytes of the code (None: malformed or unknown code)."""
    answer = lookup(store, typed)
    return None if answer is None else hashlib.sha256(data).hexdigest() == answer.sha256
