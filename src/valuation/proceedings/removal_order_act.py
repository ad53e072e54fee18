"""The removal order as an issued, signed act (issue 43, item 15; decision: docs/decisions/140-removal-order-act.md).

The Naval Authority's determination to remove or demolish (Lei 7.542/1986 art. 5) is the act that opens the
responsible's periods (art. 5 sole paragraph: start and end fixed by the Authority; art. 9: notified personally or
by edital of 15 days) and, unmet, lets the Authority take the operations over on the responsible's account
(art. 10). The registry records it (`registry.removal_orders`); here it becomes a document: a PDF with its code,
CRC, QR and NUP, registered once (kind 'removal_order', `authenticity.registry.issue_once`) and signed by the
service's institutional A1 as it is issued (`signatures.issuing.sign_issued`), else by the issuing authority's
upload. Its signature, like every act's, is owed in `signature_days` (Prazos, the digest, the feed).

    act = order_act(store, user, order_id)           the order's issued act: code, and whether it still says the same
    code, signing = issue_removal_order(store, user, order_id)     issue (once) and sign
    data = removal_order_file(store, user, order_id)   its current file (the latest signed revision), None unissued

The PDF names the wreck by code and name — never its position — and the responsible the Authority deals with on
the order's day (art. 8 §2: a communicated cession's cessionário). Access: reading `read_removal_orders`, issuing
`manage_removal_orders` (DPC).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from valuation.authenticity import registry
from valuation.core import law
from valuation.core.errors import NotFound
from valuation.core.money import format_date_br
from valuation.db.access import Principal, require
from valuation.db.blobs import BlobStore
from valuation.exports import PdfReport
from valuation.registry import removal_orders
from valuation.registry.parties import responsible_name
from valuation.signatures import issuing, listing

if TYPE_CHECKING:
    from valuation.db.store import Store

KIND = "removal_order"
TABLE = "removal_orders"
ART_5 = ("A Autoridade Naval, a seu exclusivo critério, poderá determinar ao responsável por coisas ou bens, "
         "referidos no art. 1º desta lei, sua remoção ou demolição, no todo ou em parte, quando constituírem ou "
         "vierem a constituir perigo, obstáculo à navegação ou ameaça de danos a terceiros ou ao meio ambiente.")
ART_10 = ("A Autoridade Naval poderá assumir as operações de pesquisa, exploração, remoção ou demolição das coisas ou "
          "bens referidos no art. 1º desta lei, por conta e risco de seu responsável, caso este não tenha "
          "providenciado ou conseguido realizar estas operações dentro dos prazos legais estabelecidos.")
_SAID = ("wreck_code", "wreck_name", "office_code", "kind", "act", "ordered_on", "notice", "notified_on",
         "published_on", "starts_by", "ends_by", "reason")


@dataclass(frozen=True)
class OrderAct:
    code: str | None               # the latest issued act's code, as printed; None: never issued
    current: bool                  # that act still says what the order says (else a new issue is due)


def _plain(value: Any) -> Any:
    """A value of the registry's table as stored: a day as a date, a missing one as None (not NaT / NaN)."""
    if value is None or (isinstance(value, float) and value != value) or type(value).__name__ == "NaTType":
        return None
    return value.date() if isinstance(value, datetime) else value


def _order(store: Store, user: Principal, order_id: object) -> dict[str, Any]:
    require(user, "read_removal_orders")
    if not isinstance(order_id, int) or isinstance(order_id, bool):
        raise NotFound(f"Determinação de remoção {order_id} não encontrada.", what="removal_order", key=order_id)
    orders = removal_orders.list_removal_orders(store, user)
    found = orders[orders["id"] == order_id].to_dict("records")
    if not found:
        raise NotFound(f"Determinação de remoção {order_id} não encontrada.", what="removal_order", key=order_id)
    return {k: _plain(v) for k, v in found[0].items()}


def _said(store: Store, order: dict[str, Any]) -> dict[str, Any]:
    """What the act says: the order's fields (not its later events: start, takeover, end) and its responsible."""
    owner = responsible_name(store, int(order["wreck_id"]), order["ordered_on"])
    nup = order.get("nup")
    return {**{k: order.get(k) for k in _SAID}, "responsible": None if owner is None else owner["name"],
            "nup": None if nup in (None, "—") else nup}


def order_act(store: Store, user: Principal, order_id: int) -> OrderAct:
    """The order's latest issued act and whether it is still current (see the module)."""
    said = _said(store, _order(store, user, order_id))
    stamp = registry.stamp_of(store, TABLE, order_id)
    if stamp is None:
        return OrderAct(None, False)
    return OrderAct(stamp.printed_code, registry.kept_copy(store, (TABLE, order_id), KIND,
                                                           registry.content_key(said)) is not None)


def _when(day: date | None) -> str:
    return "—" if day is None else format_date_br(day)


def _render(said: dict[str, Any], order_id: int, issuer: str, stamp: Any) -> bytes:
    notice = law.REMOVAL_NOTICE_LABELS.get(str(said["notice"]), str(said["notice"]))
    report = PdfReport(f"Determinação de {said['kind']} nº {order_id}",
                       f"Naufrágio {said['wreck_code']} — {said['wreck_name']}" + (f" — NUP {said['nup']}"
                                                                                   if said["nup"] else ""),
                       stamp=stamp)
    report.heading("1. Identificação")
    report.key_values([("NUP", said["nup"] or "—"), ("Ato", said["act"]), ("Data da determinação",
                                                                           _when(said["ordered_on"])),
                       ("Naufrágio", f"{said['wreck_code']} — {said['wreck_name']}"),
                       ("Organização Militar", said["office_code"]),
                       ("Responsável", said["responsible"] or "desconhecido (intimação por edital, art. 9 II)")])
    report.heading("2. Determinação (Lei 7.542/1986, art. 5)")
    report.paragraph(f"A Autoridade Naval determina ao responsável a {said['kind']} das coisas ou bens do naufrágio "
                     f"acima. Motivo: {said['reason']}")
    report.key_values([("Início até", _when(said["starts_by"])), ("Término até", _when(said["ends_by"])),
                       ("Prazos", law.REMOVAL_ORDER)])
    report.heading("3. Intimação (art. 9)")
    report.key_values([("Forma", notice), ("Intimação pessoal em", _when(said["notified_on"])),
                       ("Edital publicado em", _when(said["published_on"]))])
    report.heading("4. Fundamento")
    report.paragraph(f"Lei 7.542/1986, art. 5: {ART_5}")
    report.paragraph(f"Lei 7.542/1986, art. 10: {ART_10}")
    report.paragraph(f"Enquanto vigora, fica suspenso o prazo de 5 anos do art. 6 ({law.REMOVAL_SUSPENDS_LAPSE}).")
    report.heading("5. Assinatura")
    report.signature_lines([(issuer, "Autoridade Naval — Diretoria de Portos e Costas")])
    return report.bytes()


def issue_removal_order(store: Store, user: Principal, order_id: int) -> tuple[str, issuing.Signing]:
    """Issue the order's act (once: while the order says the same, its kept copy is the act) and sign it with the
    institutional A1; (its code, what the signing did)."""
    require(user, "manage_removal_orders")
    said = _said(store, _order(store, user, order_id))
    key = registry.content_key(said)
    if registry.kept_copy(store, (TABLE, order_id), KIND, key) is None:
        stamp = registry.new_stamp(said["nup"])
        registry.issue_once(store, user.username, stamp, _render(said, order_id, user.full_name, stamp),
                            content_key=key, kind=KIND, record=(TABLE, order_id), office=registry.DPC)
    stamp_now = registry.stamp_of(store, TABLE, order_id)
    assert stamp_now is not None
    code = stamp_now.printed_code
    act = next((a for a in listing.documents_of(store, user, TABLE, order_id) if a.code == code), None)
    if act is not None and act.progress.signed:
        return code, issuing.Signing(True, f"A determinação já foi emitida e assinada: {act.progress.text}.")
    return code, issuing.sign_issued(store, user, code)


def removal_order_file(store: Store, user: Principal, order_id: int) -> bytes | None:
    """The order's latest issued act as it stands (its latest signed revision, else the registered copy); None when
    it was never issued."""
    _order(store, user, order_id)
    row = store.fetch_one("SELECT sha256 FROM issued_documents WHERE record_table = ? AND record_id = ? AND kind = ? "
                          "ORDER BY id DESC LIMIT 1", [TABLE, order_id, KIND])
    if row is None:
        return None
    data = BlobStore.for_database(store.path).read(str(row["sha256"]))
    return listing.current_copy(store, user, TABLE, order_id, data)


__all__ = ["KIND", "OrderAct", "issue_removal_order", "order_act", "removal_order_file"]
