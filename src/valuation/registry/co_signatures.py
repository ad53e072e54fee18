"""The Ministry of Culture's co-signature of contracts over historical things (Lei 7.542 art. 20 §1).

Which contracts need it (`needs_co_signature`) and when it is missing is the pure rule of
`valuation.core.co_signature`, below the registry and the deadline engine, which both read it: the
contract's state (`contract_state`) of such a contract without the co-signature reads "sem
coassinatura do Ministério da Cultura", and the engine suspends its deadlines.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import law
from valuation.core.co_signature import MISSING_TEXT, co_signature_missing, needs_co_signature
from valuation.core.errors import ConflictError, NotFound
from valuation.core.forms import Form, excerpt
from valuation.core.money import format_date_br
from valuation.db.access import Principal, contract_scope, require

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

CO_SIGNATURE_FIELDS: tuple[str, ...] = ("contract_code", "signed_on", "act", "signatory")
LABELS: dict[str, str] = {"contract_code": "Contrato", "signed_on": "Data da coassinatura",
                          "act": "Ato (termo de coassinatura)", "signatory": "Representante do Ministério da Cultura"}


def contract_state(status: str, required: bool, co_signed_on: date | None, as_of: date | None = None) -> str:
    """The contract's state in pt-BR: its status, qualified when a required co-signature is missing
    (or recorded for a later day than `as_of`)."""
    if not required or status not in ("vigente", "suspenso", "solicitado"):
        return status
    if co_signed_on is not None and (as_of is None or co_signed_on <= as_of):
        return status
    if status == "solicitado":
        return "solicitado — coassinatura do Ministério da Cultura pendente (art. 20 §1)"
    return f"{status} — {MISSING_TEXT}"


def historical_contract_ids(db: Store | Tx) -> set[int]:
    """Contracts with an item the Commission classified as historical (its decision in force)."""
    return {int(r["contract_id"]) for r in db.fetch(
        "SELECT DISTINCT contract_id FROM item_valuation WHERE historical")}


def co_signed(db: Store | Tx) -> dict[int, dict[str, Any]]:
    """contract id → its co-signature (signed_on, act, signatory)."""
    return {int(r["contract_id"]): r for r in db.fetch("SELECT contract_id, signed_on, act, signatory "
                                                       "FROM co_signatures")}


def annotate(db: Store | Tx, contracts: list[dict[str, Any]], as_of: date | None = None) -> list[dict[str, Any]]:
    """Each contract row (with id, kind, act, status, signed_on, historical_share) with
    co_signature_required, co_signed_on, co_signature_act, co_signature_missing and state_pt."""
    historical = historical_contract_ids(db)
    signed = co_signed(db)
    for c in contracts:
        required = needs_co_signature(c["kind"], c["act"], c["signed_on"], c.get("historical_share"),
                                      int(c["id"]) in historical)
        sig = signed.get(int(c["id"]))
        on = sig["signed_on"] if sig else None
        c["co_signature_required"] = required
        c["co_signed_on"] = on
        c["co_signature_act"] = sig["act"] if sig else None
        c["co_signature_missing"] = co_signature_missing(required, on, as_of)
        c["state_pt"] = contract_state(c["status"], required, on, as_of)
    return contracts


def record_co_signature(store: Store, user: Principal, data: Mapping[str, Any]) -> dict[str, Any]:
    """Record the Ministry of Culture's co-signature of a contract (dpc only; validated, audited):
    contract_code, signed_on (not in the future, not before the contract's own signature), act,
    signatory. Refused for a contract that does not need it and for one already co-signed."""
    require(user, "record_co_signature")
    f = Form(data, allowed=CO_SIGNATURE_FIELDS)
    code = f.text("contract_code", LABELS["contract_code"], max_len=60)
    signed_on = f.date("signed_on", LABELS["signed_on"])
    act = f.text("act", LABELS["act"], max_len=200)
    signatory = f.text("signatory", LABELS["signatory"], max_len=200)
    contract = None
    if code is not None:
        scope, params = contract_scope(user, "c")
        contract = store.fetch_one(f"SELECT c.id, c.code, c.kind, c.act, c.status, c.signed_on, c.historical_share "
                                   f"FROM contracts c WHERE c.code = ? AND {scope}", [code, *params])
        if contract is None:
            f.fail("contract_code", f"{LABELS['contract_code']}: não encontrado ({excerpt(code)}).")
    today = store.today()
    if signed_on is not None and signed_on > today:
        f.fail("signed_on", f"{LABELS['signed_on']}: não pode estar no futuro.")
    if contract is not None:
        c = annotate(store, [dict(contract)])[0]
        if not c["co_signature_required"]:
            f.fail("contract_code", f"{LABELS['contract_code']}: {code} não trata de bens de valor histórico "
                                    "(art. 20 §1 não se aplica).")
        elif signed_on is not None and contract["signed_on"] is not None and signed_on < contract["signed_on"]:
            f.fail("signed_on", f"{LABELS['signed_on']}: anterior à assinatura do contrato "
                                f"({format_date_br(contract['signed_on'])}).")
    f.done()
    assert contract is not None and signed_on is not None
    row = {"contract_id": int(contract["id"]), "signed_on": signed_on, "act": act, "signatory": signatory}

    def write(tx: Tx) -> None:
        if tx.scalar("SELECT count(*) FROM co_signatures WHERE contract_id = ?", [row["contract_id"]]):
            raise ConflictError(f"O contrato {code} já tem a coassinatura do Ministério da Cultura registrada.")
        tx.execute("INSERT INTO co_signatures (contract_id, signed_on, act, signatory, recorded_by, recorded_at) "
                   "VALUES (?, ?, ?, ?, ?, ?)", [row["contract_id"], signed_on, act, signatory, user.username,
                                                 store.now()])
        tx.audit("record_co_signature", "contract", code, None, row)

    store.write(user.username, write)
    return row


def get_co_signature(store: Store, user: Principal, contract_code: str) -> dict[str, Any]:
    """The co-signature state of one contract the user may read: required, signed_on, act,
    signatory, state_pt. NotFound outside the user's scope (never 'forbidden')."""
    scope, params = contract_scope(user, "c")
    row = store.fetch_one(f"SELECT c.id, c.code, c.kind, c.act, c.status, c.signed_on, c.historical_share "
                          f"FROM contracts c WHERE c.code = ? AND {scope}", [contract_code, *params])
    if row is None:
        raise NotFound(f"Contrato {contract_code} não encontrado.", what="contract", key=contract_code)
    c = annotate(store, [dict(row)])[0]
    sig = co_signed(store).get(int(row["id"]))
    return {"contract_code": row["code"], "required": c["co_signature_required"], "signed_on": c["co_signed_on"],
            "act": c["co_signature_act"], "signatory": sig["signatory"] if sig else None, "state_pt": c["state_pt"],
            "basis": law.CO_SIGNATURE.basis}
