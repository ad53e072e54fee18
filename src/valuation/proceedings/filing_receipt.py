"""The receipt of a filing (recibo de protocolo, issue 42 item 1): a PDF with its verification code, issued in the
write that records the filing (`authenticity.registry.register`, kind 'filing_receipt') — the process's NUP, what
was filed, by whom, when (the service's clock; the day it reached the office for another channel), and each file's
name, size and sha256. It names no wreck position and no value. `receipt_file` serves the registered copy."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from valuation.attachments.kinds import size_text
from valuation.authenticity import registry
from valuation.core.errors import NotFound
from valuation.core.money import format_date_br
from valuation.db.access import Principal
from valuation.db.blobs import Staging
from valuation.exports import PdfReport, brasilia_text

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

KIND = "filing_receipt"
TABLE = "filings"
LAW = ("Lei 9.784/1999, art. 22 §1 (o ato indica a data em que foi praticado) e art. 6 parágrafo único (o "
       "servidor não pode recusar o recebimento de documentos); Decreto 8.539/2015 (processo administrativo "
       "eletrônico)")


def _facts(tx: Tx, filing_id: int) -> dict[str, Any]:
    row = tx.fetch_one(
        "SELECT f.*, g.name AS organisation, coalesce(u.full_name, f.filed_by) AS filed_by_name, w.code AS wreck_code, "
        "w.name AS wreck_name, q.matter FROM filings f JOIN requests q ON q.id = f.request_id "
        "JOIN wrecks w ON w.id = q.wreck_id LEFT JOIN organisations g ON g.id = f.organisation_id "
        "LEFT JOIN users u ON u.username = f.filed_by WHERE f.id = ?", [filing_id])
    assert row is not None
    files = tx.fetch("SELECT position, name, size_bytes, sha256 FROM filing_files WHERE filing_id = ? "
                     "ORDER BY position", [filing_id])
    return {**row, "files": files}


def _render(facts: dict[str, Any], nup: str | None, stamp: Any) -> bytes:
    from valuation.proceedings.filings import CHANNELS, KINDS, SYSTEM

    system = facts["channel"] == SYSTEM
    report = PdfReport("Recibo de protocolo", f"Requerimento nº {facts['request_id']}"
                       + (f" — NUP {nup}" if nup else ""), stamp=stamp)
    report.heading("1. Protocolo")
    report.key_values([
        ("NUP do processo", nup or "sem NUP (a OM não tem unidade protocolizadora cadastrada)"),
        ("Documento nº", f"{facts['document_no']} do processo"),
        ("O que foi protocolado", KINDS.get(facts["kind"], facts["kind"])),
        ("Assunto", facts["subject"]),
        ("Naufrágio", f"{facts['wreck_code']} — {facts['wreck_name']}"),
        ("Empresa", facts["organisation"] or "—"),
        ("Protocolado por" if system else "Registrado por", facts["filed_by_name"]),
        ("Meio", CHANNELS.get(facts["channel"], facts["channel"])),
        ("Data e hora do protocolo" if system else "Registrado em", brasilia_text(facts["filed_at"])),
        ("Recebido na OM em", format_date_br(facts["received_on"])),
        ("Organização Militar", facts["office_code"]),
    ])
    report.heading("2. Arquivos recebidos")
    report.table(["Nº", "Arquivo", "Tamanho", "SHA-256"],
                 [(f["position"], f["name"], size_text(int(f["size_bytes"])), f["sha256"]) for f in facts["files"]],
                 col_widths=[0.6, 4, 1.4, 7], align=["C", "L", "R", "L"])
    report.heading("3. Fundamento")
    report.paragraph("A data deste protocolo é a do relógio do sistema, não a informada por quem protocola"
                     if system else "Documento recebido por outro meio e registrado pela Organização Militar com a "
                                    "data em que ela o recebeu")
    report.paragraph(LAW)
    return report.bytes()


def _key(filing_id: int) -> str:
    """The receipt's content key (`registry.issue_once`): a filing's receipt is issued once, with the filing."""
    return registry.content_key({"filing": int(filing_id)})


def issue_receipt(tx: Tx, user: Principal, filing_id: int, staging: Staging) -> str:
    """Render and register the filing's receipt in the write that records it, its copy kept (`staging`, published by
    the caller before the commit) so every download serves the registered bytes; its code, as printed."""
    from valuation.process import numbers

    facts = _facts(tx, filing_id)
    nup = numbers.request_nups(tx, [int(facts["request_id"])]).get(int(facts["request_id"]))
    stamp = registry.new_stamp(nup)
    data = _render(facts, nup, stamp)
    registry.register_kept(tx, stamp, data, staging.put(data), content_key=_key(filing_id), kind=KIND,
                           record=(TABLE, filing_id), office=str(facts["office_code"]), actor=user.username)
    return str(stamp.printed_code)


def receipt_file(store: Store, user: Principal, filing_id: int) -> bytes:
    """The registered receipt of a filing the user may read; NotFound otherwise."""
    from valuation.proceedings.filings import filing

    filing(store, user, filing_id)
    data = registry.kept_copy(store, (TABLE, filing_id), KIND, _key(filing_id))
    if data is None:
        raise NotFound(f"Recibo do protocolo {filing_id} não encontrado.", what="filing", key=filing_id)
    return data
