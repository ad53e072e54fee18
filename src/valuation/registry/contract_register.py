"""Registering contracts and authorisations, correcting them, and the dated acts that change their state.

DPC elaborates, signs and issues the acts that authorise a survey, an exploration, a removal or a demolition
(NORMAM-10 (ed. 2002) 0301–0303: the request goes to DPC, which decides; an exploration contract is signed by the
requester, the Navy and the Ministry of Culture, then a Portaria authorises the works), so registering and
correcting them is headquarters' right (`register_contracts`, `correct_contracts`); the offices read their own
office's (docs/decisions/003-office-officer-role.md).

- `create_contract`: the act of every kind and form the store knows (pesquisa, exploração, remoção, demolição;
  autorização, licença, contrato, portaria) with the terms the computations read here — office, request, signing
  (the law of that date decides which text of arts. 20–21 applies), start of operations (art. 22 I), expiry,
  the surveyor who located the wreck (art. 16 §2 I) and the caução (art. 26). The payment terms are recorded on
  "Termos do contrato" (valuation.partition.terms), the co-signature of the Ministry of Culture (art. 20 §1) on
  the wreck's page, the survey's cost sheet on "Custos de pesquisa": each of those writes has its own rules.
- `correct_contract`: a new version with its reason (valuation.registry.versions); the code never changes
  (deadline keys and documents name it).
- `record_contract_act`: the state changes only through a dated act (`ACTS`), never by editing the status; the
  act sets what the deadlines read (work_ended_on, cancelled_on and its reason).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form, excerpt
from valuation.core.law import CONTRACT_KINDS
from valuation.core.money import format_date_br
from valuation.db.access import Principal, require
from valuation.registry import versions
from valuation.registry.contracts import ACTS, get_contract

CONTRACT_FIELDS: tuple[str, ...] = (
    "code", "kind", "act", "act_number", "organisation_id", "wreck_id", "office_code", "requested_on", "signed_on",
    "starts_on", "expires_on", "surveyor_organisation_id", "caution_amount",
)
LABELS: dict[str, str] = {
    "code": "Código do contrato", "kind": "Operação", "act": "Ato", "act_number": "Número do ato",
    "organisation_id": "Empresa autorizada", "wreck_id": "Naufrágio", "office_code": "Capitania/Delegacia/Agência",
    "requested_on": "Data do requerimento", "signed_on": "Data da assinatura",
    "starts_on": "Início das operações (art. 22 I)", "expires_on": "Vencimento",
    "surveyor_organisation_id": "Empresa que localizou o naufrágio (art. 16 §2 I)",
    "caution_amount": "Caução (R$) (art. 26)", "reason": versions.REASON_LABEL,
}
KIND_LABELS: dict[str, str] = {"pesquisa": "Pesquisa", "exploração": "Exploração", "remoção": "Remoção",
                               "demolição": "Demolição"}
ACT_FORM_LABELS: dict[str, str] = {"autorização": "Autorização", "licença": "Licença", "contrato": "Contrato",
                                   "portaria": "Portaria"}
FIRST_DAY = date(1900, 1, 1)
_CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")


@dataclass(frozen=True)
class StateAct:
    key: str
    label: str
    from_states: tuple[str, ...]
    to_state: str
    reason_required: bool
    basis: str


ACTS_BY_KEY: dict[str, StateAct] = {a.key: a for a in (
    StateAct("vigencia", "Entrada em vigor (assinatura do ato)", ("solicitado",), "vigente", False,
             "Lei 7.542/1986 arts. 4, 16 e 18; NORMAM-10 (ed. 2002) 0303 c"),
    StateAct("suspensao", "Suspensão", ("vigente",), "suspenso", True, "Lei 9.784/1999 art. 2º (motivação)"),
    StateAct("retomada", "Retomada após suspensão", ("suspenso",), "vigente", True,
             "Lei 9.784/1999 art. 2º (motivação)"),
    StateAct("conclusao", "Conclusão dos trabalhos", ("vigente", "suspenso"), "concluído", False,
             "NORMAM-10 (ed. 2002) 0301 c e 0302 b 3 (relatório final em 90 dias)"),
    StateAct("cancelamento", "Cancelamento", ("solicitado", "vigente", "suspenso"), "cancelado", True,
             "Lei 7.542/1986 art. 22; NORMAM-10 (ed. 2002) 0305"),
    StateAct("expiracao", "Expiração do prazo", ("vigente", "suspenso"), "expirado", False,
             "termo final do ato de autorização"),
)}
REGISTRATION = "registro"
ACT_LABELS: dict[str, str] = {REGISTRATION: "Registro do ato", **{k: a.label for k, a in ACTS_BY_KEY.items()}}
ACT_FIELDS: tuple[str, ...] = ("act", "effective_on", "reference", "reason")
ACT_LABELS_FORM: dict[str, str] = {"act": "Ato", "effective_on": "Data do ato", "reference": "Referência do ato",
                                   "reason": "Motivo"}
ACT_FORM_LABELS_ACT = ACT_LABELS_FORM["act"]


def _organisation(store: Any, f: Form, key: str, *, required: bool) -> int | None:
    org = f.integer(key, LABELS[key], required=required, minimum=1)
    if org is None:
        return None
    row = store.fetch_one("SELECT status FROM organisations WHERE id = ?", [org])
    if row is None:
        f.fail(key, f"{LABELS[key]}: desconhecida ({org}).")
    elif key == "organisation_id" and row["status"] != "ativo":
        f.fail(key, f"{LABELS[key]}: a empresa está {row['status']}; só uma empresa ativa recebe autorização.")
    return org


def _wreck_office(store: Any, f: Form) -> tuple[int | None, str | None]:
    wreck = f.integer("wreck_id", LABELS["wreck_id"], minimum=1)
    office = f.text("office_code", LABELS["office_code"], required=False, max_len=20)
    row = store.fetch_one("SELECT office_code FROM wrecks WHERE id = ?", [wreck]) if wreck is not None else None
    if wreck is not None and row is None:
        f.fail("wreck_id", f"{LABELS['wreck_id']}: desconhecido ({wreck}).")
    if office is None and row is not None:
        office = str(row["office_code"])          # the wreck's jurisdiction, unless another is named
    if office is not None and f.ok("office_code"):
        known = store.fetch_one("SELECT closed_on FROM offices WHERE code = ?", [office])
        if known is None:
            f.fail("office_code", f"{LABELS['office_code']}: desconhecida ({excerpt(office)}).")
    return wreck, office


def _days(store: Any, f: Form, rec: dict[str, Any]) -> None:
    today = store.today()
    for key in ("requested_on", "signed_on", "starts_on", "expires_on"):
        day = rec[key] = f.date(key, LABELS[key], required=False)
        if day is not None and day < FIRST_DAY:
            f.fail(key, f"{LABELS[key]}: informe uma data a partir de 01/01/1900.")
        elif day is not None and key in ("requested_on", "signed_on") and day > today:
            f.fail(key, f"{LABELS[key]}: não pode estar no futuro (hoje é {format_date_br(today)}).")
    order = (("requested_on", "signed_on"), ("signed_on", "starts_on"), ("starts_on", "expires_on"),
             ("signed_on", "expires_on"))
    for first, later in order:
        a, b = rec[first], rec[later]
        if a is not None and b is not None and b < a and f.ok(first, later):
            f.fail(later, f"{LABELS[later]}: não pode ser anterior a {LABELS[first].lower()} ({format_date_br(a)}).")


def validate_contract(store: Any, data: Mapping[str, Any], *, current: str | None = None) -> dict[str, Any]:
    """The row of a new contract (or the new state of contract `current`, whose code stays), or InputError naming
    every bad field."""
    f = Form(data, allowed=CONTRACT_FIELDS)
    rec: dict[str, Any] = {}
    if current is None:
        code = rec["code"] = f.text("code", LABELS["code"], max_len=40)
        if code is not None and not _CODE.match(code):
            f.fail("code", f"{LABELS['code']}: use letras, números, ponto, barra ou hífen (ex.: DPC-EX-2026/01).")
        elif code is not None and store.scalar("SELECT count(*) FROM contracts WHERE code = ?", [code]):
            f.fail("code", f"{LABELS['code']}: já existe um contrato {code}.")
    elif f.has("code") and f.data.get("code") != current:
        f.fail("code", f"{LABELS['code']}: o código não se corrige (prazos e documentos o citam).")
    rec["kind"] = f.choice("kind", LABELS["kind"], CONTRACT_KINDS, labels=KIND_LABELS)
    rec["act"] = f.choice("act", LABELS["act"], ACTS, labels=ACT_FORM_LABELS)
    rec["act_number"] = f.text("act_number", LABELS["act_number"], required=False, max_len=100)
    rec["organisation_id"] = _organisation(store, f, "organisation_id", required=True)
    rec["wreck_id"], rec["office_code"] = _wreck_office(store, f)
    _days(store, f, rec)
    rec["surveyor_organisation_id"] = _organisation(store, f, "surveyor_organisation_id", required=False)
    rec["caution_amount"] = f.money("caution_amount", LABELS["caution_amount"], required=False)
    f.done()
    return rec


def create_contract(store: Any, user: Principal, data: Mapping[str, Any]) -> str:
    """Register a contract or authorisation (DPC): in force ('vigente') when its act was signed, else requested
    ('solicitado'); version 1 and the registration act are written with it. Returns its code."""
    require(user, "register_contracts")
    rec = validate_contract(store, data)
    status = "vigente" if rec["signed_on"] is not None else "solicitado"
    row = {**rec, "status": status}
    day = rec["signed_on"] or rec["requested_on"] or store.today()

    def insert(tx: Any) -> str:
        new_id = int(tx.scalar(f"INSERT INTO contracts ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)}) "
                               "RETURNING id", list(row.values())))
        versions.created(tx, "contract", new_id, row)
        _act_row(tx, new_id, REGISTRATION, None, status, day, rec["act_number"], None)
        tx.audit("create", "contract", new_id, None, row)
        return str(rec["code"])

    return str(store.write(user.username, insert))


def _act_row(tx: Any, contract_id: int, act: str, before: str | None, after: str, day: date,
             reference: str | None, reason: str | None) -> None:
    tx.execute("INSERT INTO contract_acts (contract_id, act, from_status, to_status, effective_on, reference, reason, "
               "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               [contract_id, act, before, after, day, reference, reason, tx.actor, tx.store.now()])


_STORED = ", ".join(c for c in CONTRACT_FIELDS)


def contract_record(store: Any, user: Principal, code: str) -> dict[str, Any]:
    """The stored fields of a contract (with id and status), as the correction form starts from them; DPC."""
    require(user, "correct_contracts")
    row = store.fetch_one(f"SELECT id, status, {_STORED} FROM contracts WHERE code = ?",
                          [code]) if isinstance(code, str) else None
    if row is None:
        raise NotFound(f"Contrato {excerpt(code)} não encontrado.", what="contract", key=code)
    return row


def correct_contract(store: Any, user: Principal, code: str, data: Mapping[str, Any], reason: str) -> int:
    """Correct a contract's registration (`reason` required): a new version — who, when, why — that the row
    becomes; the deadlines read the new facts, an issued statement is not changed (it says a later fact exists).
    Returns the version number."""
    stored = contract_record(store, user, code)
    why = versions.checked_reason(reason)
    rec = validate_contract(store, data, current=code)
    before = {c: stored[c] for c in CONTRACT_FIELDS}
    after = {**rec, "code": code}
    changed = [c for c in CONTRACT_FIELDS if after[c] != before[c]]
    if not changed:
        raise InputError(Problem("reason", "Nada a corrigir: os dados informados são os que estão registrados."))
    cid = int(stored["id"])

    def update(tx: Any) -> int:
        tx.execute(f"UPDATE contracts SET {', '.join(f'{c} = ?' for c in changed)} WHERE id = ?",
                   [*(after[c] for c in changed), cid])
        version = versions.corrected(tx, "contract", cid, {**before, "status": stored["status"]},
                                     {**after, "status": stored["status"]}, reason=why)
        tx.audit("correct", "contract", cid, {c: before[c] for c in changed},
                 {**{c: after[c] for c in changed}, "reason": why, "version": version})
        return version

    return int(store.write(user.username, update))


def record_contract_act(store: Any, user: Principal, code: str, data: Mapping[str, Any]) -> str:
    """Record a dated act that changes a contract's state (`ACTS_BY_KEY`: which states it follows, whether it needs
    a reason); returns the new state. The act's day is not in the future, nor before the contract's last act."""
    stored = contract_record(store, user, code)
    f = Form(data, allowed=ACT_FIELDS)
    key = f.choice("act", ACT_FORM_LABELS_ACT, tuple(ACTS_BY_KEY), labels={k: a.label for k, a in
                                                                         ACTS_BY_KEY.items()})
    day = f.date("effective_on", ACT_LABELS_FORM["effective_on"])
    reference = f.text("reference", ACT_LABELS_FORM["reference"], required=False, max_len=200)
    act = ACTS_BY_KEY.get(key) if key else None
    reason = f.text("reason", ACT_LABELS_FORM["reason"], required=bool(act and act.reason_required), max_len=1000)
    if act is not None and stored["status"] not in act.from_states:
        f.fail("act", f"{ACT_FORM_LABELS_ACT}: {act.label.lower()} não cabe a um contrato {stored['status']}.")
    last = store.scalar("SELECT max(effective_on) FROM contract_acts WHERE contract_id = ?", [stored["id"]])
    floor = max(d for d in (last, stored["signed_on"] if key != "vigencia" else None, stored["requested_on"], FIRST_DAY)
                if d is not None)
    if day is not None and day > store.today():
        f.fail("effective_on", f"{ACT_LABELS_FORM['effective_on']}: não pode estar no futuro.")
    elif day is not None and day < floor:
        f.fail("effective_on", f"{ACT_LABELS_FORM['effective_on']}: não pode ser anterior a {format_date_br(floor)} "
                               "(o último ato ou a assinatura do contrato).")
    f.done()
    assert act is not None and day is not None
    sets: dict[str, Any] = {"status": act.to_state}
    if act.key == "vigencia" and stored["signed_on"] is None:
        sets["signed_on"] = day
    elif act.key == "conclusao":
        sets["work_ended_on"] = day
    elif act.key == "cancelamento":
        sets.update(cancelled_on=day, cancel_reason=reason)

    def write(tx: Any) -> str:
        tx.execute(f"UPDATE contracts SET {', '.join(f'{c} = ?' for c in sets)} WHERE id = ?",
                   [*sets.values(), stored["id"]])
        _act_row(tx, int(stored["id"]), act.key, stored["status"], act.to_state, day, reference, reason)
        tx.audit("contract_act", "contract", stored["id"], {"status": stored["status"]},
                 {**sets, "act": act.key, "effective_on": day, "reference": reference, "reason": reason})
        return act.to_state

    return str(store.write(user.username, write))


def contract_acts(store: Any, user: Principal, code: str) -> list[dict[str, Any]]:
    """The dated acts of a contract the user may read, oldest first: act, act_pt, from_status, to_status,
    effective_on, reference, reason, recorded_by (the person's name), recorded_at."""
    c = get_contract(store, user, code, counts=False)
    rows = store.fetch("SELECT a.act, a.from_status, a.to_status, a.effective_on, a.reference, a.reason, "
                       "coalesce(u.full_name, a.recorded_by) AS recorded_by, a.recorded_at FROM contract_acts a "
                       "LEFT JOIN users u ON u.username = a.recorded_by WHERE a.contract_id = ? ORDER BY a.id",
                       [c["id"]])
    return [{**r, "act_pt": ACT_LABELS.get(r["act"], r["act"])} for r in rows]


HISTORY_LABELS: dict[str, str] = {k: v for k, v in LABELS.items() if k not in ("reason",)}


def contract_history(store: Any, user: Principal, code: str) -> list[versions.Version]:
    """The versions of a contract's registration the user may read, oldest first."""
    c = get_contract(store, user, code, counts=False)
    return versions.history(store, "contract", int(c["id"]), HISTORY_LABELS)


def next_acts(status: str) -> list[str]:
    """The acts that may follow a contract in `status` (the form's choices)."""
    return [k for k, a in ACTS_BY_KEY.items() if status in a.from_states]


def caution_text(amount: Decimal | None) -> str:
    """The caução as a person reads it ('—' when none)."""
    from valuation.core.money import format_brl

    return "—" if amount is None else format_brl(amount)
