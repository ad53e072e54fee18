"""Writing the deadline events and waivers (append-only, audited) that the engine reads.

    record_event(store, user, data) -> id     an event of EVENT_KINDS (delivered, published, …)
    void_event(store, user, event_id, reason) withdraw one recorded by mistake (a superseding row)
    waive_deadline(store, user, key, reason)  dispensa/suspension of one deadline, with its reason
    revoke_waiver(store, user, key, reason)   end the waiver in force
    list_events(store, user, …)               the latest events, with whether each is current

Nothing is ever updated or deleted: a correction is a new row whose `supersedes` points at
the row it replaces (`voided`/`revoked` true to withdraw it), so the trail the law needs is
kept (architecture.md "Storage") and every write is in the hash-chained audit log too.

Who: dpc records every kind and waives; an explorer records (and corrects) only the
delivery of its own contracts' monthly and final reports (NORMAM-10 0301 c, 0303 e).
Bad input raises InputError naming every field (pt-BR), and nothing is written.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core.errors import AccessDenied, InputError, NotFound, Problem
from valuation.core.forms import Form, excerpt
from valuation.db.access import Principal, contract_scope
from valuation.deadlines import rules as dl
from valuation.deadlines.engine import (
    CONTRACT_RULES,
    CURRENT_EVENTS,
    CURRENT_WAIVERS,
    EVENT_KIND_BY_KEY,
    EVENT_KINDS,
    RULE_LABELS,
    WRECK_RULES,
    EventKind,
    month_key,
    require_reader,
    require_schema,
)

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store, Tx

EVENT_FIELDS: tuple[str, ...] = ("kind", "event_date", "contract_code", "wreck_code", "office_code",
                                 "organisation_id", "reference", "note", "supersedes")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_YEAR = re.compile(r"^\d{4}$")
_KEY = re.compile(r"^([a-z_]+):(.+)$")


def _fmt(d: date | None) -> str:
    return "—" if d is None else dl.fmt(d)


def _require_dpc(user: Principal, what: str) -> None:
    if user.role != "dpc":
        raise AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite {what}.",
                           user=user.username, action=what)


def _parse_key(key: str) -> tuple[str, str] | None:
    m = _KEY.match(key or "")
    if m is None or m[1] not in RULE_LABELS:
        return None
    return m[1], m[2]


def record_event(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """Record one deadline event (append-only; audited); returns its id.

    `data`: kind (EVENT_KINDS), event_date (the day it happened; not in the future), and
    the subject: contract_code (contract kinds), wreck_code (wreck kinds) or office_code
    (office kinds); reference when the kind needs one (see EventKind.reference; for
    `deadline_met` the deadline's key, whose subject is taken from the key); optional
    organisation_id (who acted), note, and `supersedes` (the id of the event this one
    corrects: same kind and subject). dpc may record every kind; an explorer only the
    delivery of its own contracts' monthly and final reports.
    """
    require_reader(user)
    require_schema(store)
    f = Form(data, allowed=EVENT_FIELDS)
    kind_key = f.choice("kind", "Tipo de evento", [k.key for k in EVENT_KINDS])
    kind = EVENT_KIND_BY_KEY.get(kind_key or "")
    if kind is not None and user.role != "dpc" and not kind.explorer:
        raise AccessDenied(f"Acesso negado: o perfil {user.role_label} só registra a entrega de relatórios "
                           "dos próprios contratos.", user=user.username, action=f"record_event:{kind.key}")
    today = store.now().date()
    event_date = f.date("event_date", "Data do evento")
    if event_date is not None and event_date > today:
        event_date = f.fail("event_date", "Data do evento: não pode estar no futuro.")
    note = f.text("note", "Observação", required=False, max_len=1000)
    org_id = f.integer("organisation_id", "Empresa", required=False, minimum=1)
    supersedes = f.integer("supersedes", "Evento corrigido", required=False, minimum=1)
    row: dict[str, Any] = {"kind": kind_key, "event_date": event_date, "contract_id": None, "wreck_id": None,
                           "office_code": None, "organisation_id": org_id, "reference": None, "note": note,
                           "supersedes": supersedes}
    contract: dict[str, Any] | None = None
    if kind is not None:
        subject = kind.subject
        if kind.key == "deadline_met":
            ref = f.text("reference", "Prazo", max_len=300)
            parsed = _parse_key(ref or "") if ref else None
            if ref is not None and parsed is None:
                f.fail("reference", f"Prazo: chave não reconhecida ({ref}).")
            elif parsed is not None and parsed[0] in ("found_unclaimed", "found_proceeds"):
                f.fail("reference", "Prazo: os prazos de coisas achadas se encerram pelos eventos da página "
                                    "Achados (art. 29).")
                parsed = None
            row["reference"] = ref
            if parsed is not None:
                subject, data = _subject_from_key(store, parsed, data)
        for extra in ("contract_code", "wreck_code", "office_code"):
            if extra != f"{subject}_code" and f.has(extra) and kind.key != "deadline_met":
                f.fail(extra, f"{_SUBJECT_LABEL[extra]}: não se aplica a este tipo de evento.")
        if subject == "contract":
            contract = _contract_for(store, user, f, data)
            row["contract_id"] = contract["id"] if contract else None
        elif subject == "wreck":
            row["wreck_id"] = _wreck_for(store, f, data)
        elif subject == "office":
            row["office_code"] = _office_for(store, f, data)
        if kind.key != "deadline_met":
            row["reference"] = _reference(f, kind, event_date, contract)
        if kind.key == "excursion_notified" and org_id is None:
            f.fail("organisation_id", "Empresa: informe a empresa que comunicou a excursão.")
    if org_id is not None and store.scalar("SELECT count(*) FROM organisations WHERE id = ?", [org_id]) == 0:
        f.fail("organisation_id", f"Empresa desconhecida: {org_id}.")
    f.done()
    if kind is None or event_date is None:  # f.done() has raised for both already
        raise InputError(Problem("kind", "Tipo de evento: campo obrigatório."))

    def write(tx: Tx) -> int:
        if supersedes is not None:
            _check_supersedes(tx, user, row, supersedes)
        elif kind.key in ("monthly_report_delivered", "final_report_delivered", "wreck_map_sent"):
            dup = tx.fetch_one(
                f"SELECT id, event_date FROM {CURRENT_EVENTS} e WHERE kind = ? AND contract_id IS NOT DISTINCT FROM ? "
                "AND office_code IS NOT DISTINCT FROM ? AND reference IS NOT DISTINCT FROM ?",
                [kind.key, row["contract_id"], row["office_code"], row["reference"]])
            if dup is not None:
                raise InputError(Problem("reference" if row["reference"] else "kind",
                                         f"{kind.label}: já registrado em {_fmt(dup['event_date'])} (evento "
                                         f"{dup['id']}); para corrigir, registre uma correção desse evento."))
        new_id = int(tx.scalar(
            "INSERT INTO deadline_events (kind, contract_id, wreck_id, office_code, organisation_id, event_date, "
            "reference, note, supersedes, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING id",
            [kind.key, row["contract_id"], row["wreck_id"], row["office_code"], row["organisation_id"], event_date,
             row["reference"], note, supersedes, user.username, store.now()]))
        tx.audit("record_deadline_event", "deadline_event", new_id, None, row)
        return new_id

    return store.write(user.username, write)


_SUBJECT_LABEL = {"contract_code": "Contrato", "wreck_code": "Naufrágio", "office_code": "Capitania/Delegacia/Agência"}


def _subject_from_key(store: Store, parsed: tuple[str, str], data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The subject of a deadline key: ('contract', {... contract_code}) and so on."""
    rule, rest = parsed
    out = dict(data)
    for k in ("contract_code", "wreck_code", "office_code"):
        out.pop(k, None)
    if rule in CONTRACT_RULES:
        out["contract_code"] = rest.split(":")[0] if rule in ("monthly_report", "extension_request") else rest
        return "contract", out
    if rule in WRECK_RULES:
        out["wreck_code"] = rest
        return "wreck", out
    if rule == "wreck_map":
        out["office_code"] = rest.split(":")[0]
        return "office", out
    m = re.fullmatch(r"e(\d+)", rest)
    source = store.fetch_one("SELECT e.office_code, w.code AS wreck_code FROM deadline_events e "
                             "LEFT JOIN wrecks w ON w.id = e.wreck_id WHERE e.id = ?", [int(m[1])]) if m else None
    if source is None:
        out["office_code"] = None
        return "office", out
    if source["wreck_code"]:
        out["wreck_code"] = source["wreck_code"]
        return "wreck", out
    out["office_code"] = source["office_code"]
    return "office", out


def _contract_for(store: Store, user: Principal, f: Form, data: Mapping[str, Any]) -> dict[str, Any] | None:
    code = data.get("contract_code")
    if not isinstance(code, str) or not code.strip():
        return f.fail("contract_code", "Contrato: campo obrigatório.")
    scope, params = contract_scope(user, "c")
    row = store.fetch_one(f"SELECT c.id, c.code, c.status, c.starts_on, c.signed_on, c.expires_on FROM contracts c "
                          f"WHERE c.code = ? AND {scope}", [code.strip(), *params])
    if row is None:
        return f.fail("contract_code", f"Contrato não encontrado: {excerpt(code.strip())}.")
    return row


def _wreck_for(store: Store, f: Form, data: Mapping[str, Any]) -> int | None:
    code = data.get("wreck_code")
    if not isinstance(code, str) or not code.strip():
        return f.fail("wreck_code", "Naufrágio: campo obrigatório.")
    wid = store.scalar("SELECT id FROM wrecks WHERE code = ?", [code.strip()])
    if wid is None:
        return f.fail("wreck_code", f"Naufrágio não encontrado: {excerpt(code.strip())}.")
    return int(wid)


def _office_for(store: Store, f: Form, data: Mapping[str, Any]) -> str | None:
    code = data.get("office_code")
    if not isinstance(code, str) or not code.strip():
        return f.fail("office_code", "Capitania/Delegacia/Agência: campo obrigatório.")
    if store.scalar("SELECT count(*) FROM offices WHERE code = ?", [code.strip()]) == 0:
        return f.fail("office_code", f"Capitania/Delegacia/Agência desconhecida: {code.strip()}.")
    return code.strip()


def _reference(f: Form, kind: EventKind, event_date: date | None,
               contract: Mapping[str, Any] | None) -> str | None:
    label = kind.reference_label
    raw = f.data.get("reference")
    text = raw.strip() if isinstance(raw, str) else raw
    if kind.reference is None:
        if text not in (None, ""):
            f.fail("reference", f"{label}: não se aplica a este tipo de evento.")
        return None
    if kind.reference == "month":
        if isinstance(text, date):
            text = month_key(text)
        m = _MONTH.match(text or "") if isinstance(text, str) else None
        if m is None or not 1 <= int(m[2]) <= 12:
            return f.fail("reference", f"{label}: informe o mês como AAAA-MM.")
        month = date(int(m[1]), int(m[2]), 1)
        if event_date is not None and month > date(event_date.year, event_date.month, 1):
            return f.fail("reference", f"{label}: o relatório de {dl.fmt_month(month)} não pode ser entregue antes "
                                       "do próprio mês.")
        begin = contract and (contract["starts_on"] or contract["signed_on"])
        if begin and month < date(begin.year, begin.month, 1):
            return f.fail("reference", f"{label}: {dl.fmt_month(month)} é anterior ao início do contrato "
                                       f"({_fmt(begin)}).")
        return month_key(month)
    if kind.reference == "year":
        value = str(text) if isinstance(text, int) else text
        if not isinstance(value, str) or not _YEAR.match(value) or not 1900 <= int(value) <= 9998:
            return f.fail("reference", f"{label}: informe o ano com 4 dígitos.")
        if event_date is not None and int(value) >= event_date.year + 1:
            return f.fail("reference", f"{label}: o mapa de {value} só pode ser enviado depois do fim do ano.")
        return value
    if kind.reference == "date":
        day = f.date("reference", label)
        return None if day is None else day.isoformat()
    if kind.reference == "expiry":
        if text in (None, ""):
            if contract is not None and contract["expires_on"] is None:
                return f.fail("reference", f"{label}: o contrato não tem data de vencimento registrada.")
            return None if contract is None else contract["expires_on"].isoformat()
        day = f.date("reference", label)
        return None if day is None else day.isoformat()
    required = kind.reference == "text"
    return f.text("reference", label, required=required, max_len=300)


def _check_supersedes(tx: Tx, user: Principal, row: Mapping[str, Any], old_id: int) -> None:
    old = tx.fetch_one(f"SELECT e.*, EXISTS (SELECT 1 FROM deadline_events s WHERE s.supersedes = e.id) AS replaced "
                       "FROM deadline_events e WHERE e.id = ?", [old_id])
    if old is None:
        raise InputError(Problem("supersedes", f"Evento corrigido: {old_id} não existe."))
    if old["replaced"] or old["voided"]:
        raise InputError(Problem("supersedes", f"Evento corrigido: {old_id} já foi corrigido ou anulado."))
    same = (old["kind"] == row["kind"] and old["contract_id"] == row["contract_id"]
            and old["wreck_id"] == row["wreck_id"] and old["office_code"] == row["office_code"])
    if not same:
        raise InputError(Problem("supersedes", f"Evento corrigido: {old_id} é de outro tipo ou de outro objeto."))


def void_event(store: Store, user: Principal, event_id: int, reason: str) -> int:
    """Withdraw an event recorded by mistake (append-only: a new row that supersedes it with
    `voided`; audited). dpc for every event; an explorer for its own contracts' reports."""
    require_reader(user)
    require_schema(store)
    reason = (reason or "").strip()
    if len(reason) < 5:
        raise InputError(Problem("reason", "Motivo: descreva o motivo da anulação (ao menos 5 caracteres)."))
    old = store.fetch_one("SELECT * FROM deadline_events WHERE id = ?", [event_id])
    if old is None:
        raise NotFound(f"Evento {event_id} não encontrado.", what="deadline_event", key=event_id)
    if user.role != "dpc":
        scope, params = contract_scope(user, "c")
        mine = old["contract_id"] is not None and store.scalar(
            f"SELECT count(*) FROM contracts c WHERE c.id = ? AND {scope}", [old["contract_id"], *params])
        if not mine or not EVENT_KIND_BY_KEY[old["kind"]].explorer:
            raise NotFound(f"Evento {event_id} não encontrado.", what="deadline_event", key=event_id)

    def write(tx: Tx) -> int:
        _check_supersedes(tx, user, old, event_id)
        new_id = int(tx.scalar(
            "INSERT INTO deadline_events (kind, contract_id, wreck_id, office_code, organisation_id, event_date, "
            "reference, note, supersedes, voided, recorded_by, recorded_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, true, ?, ?) RETURNING id",
            [old["kind"], old["contract_id"], old["wreck_id"], old["office_code"], old["organisation_id"],
             old["event_date"], old["reference"], reason, event_id, user.username, store.now()]))
        tx.audit("void_deadline_event", "deadline_event", event_id, dict(old), {"voided_by_event": new_id,
                                                                              "reason": reason})
        return new_id

    return store.write(user.username, write)


def waive_deadline(store: Store, user: Principal, key: str, reason: str) -> int:
    """Waive (dispensar) or suspend one deadline with its reason (dpc only; audited);
    returns the waiver's id. The reason is shown as the deadline's `reason`."""
    _require_dpc(user, "dispensar prazos")
    require_schema(store)
    problems = []
    if _parse_key(key) is None:
        problems.append(Problem("key", f"Prazo: chave não reconhecida ({key})."))
    text = (reason or "").strip()
    if not 5 <= len(text) <= 500:
        problems.append(Problem("reason", "Motivo: obrigatório, de 5 a 500 caracteres."))
    if problems:
        raise InputError(problems)

    def write(tx: Tx) -> int:
        current = tx.fetch_one(f"SELECT id FROM {CURRENT_WAIVERS} w WHERE deadline_key = ? ORDER BY id DESC LIMIT 1",
                               [key])
        new_id = int(tx.scalar(
            "INSERT INTO deadline_waivers (deadline_key, reason, supersedes, waived_by, waived_at) "
            "VALUES (?, ?, ?, ?, ?) RETURNING id",
            [key, text, current["id"] if current else None, user.username, store.now()]))
        tx.audit("waive_deadline", "deadline", key, None, {"waiver_id": new_id, "reason": text})
        return new_id

    return store.write(user.username, write)


def revoke_waiver(store: Store, user: Principal, key: str, reason: str) -> int:
    """Revoke the waiver in force for a deadline (dpc only; append-only; audited)."""
    _require_dpc(user, "revogar dispensas de prazos")
    require_schema(store)
    text = (reason or "").strip()
    if not 5 <= len(text) <= 500:
        raise InputError(Problem("reason", "Motivo: obrigatório, de 5 a 500 caracteres."))

    def write(tx: Tx) -> int:
        current = tx.fetch_one(f"SELECT id, reason FROM {CURRENT_WAIVERS} w WHERE deadline_key = ? "
                               "ORDER BY id DESC LIMIT 1", [key])
        if current is None:
            raise NotFound(f"O prazo {key} não tem dispensa em vigor.", what="deadline_waiver", key=key)
        new_id = int(tx.scalar(
            "INSERT INTO deadline_waivers (deadline_key, reason, supersedes, revoked, waived_by, waived_at) "
            "VALUES (?, ?, ?, true, ?, ?) RETURNING id", [key, text, current["id"], user.username, store.now()]))
        tx.audit("revoke_deadline_waiver", "deadline", key, {"reason": current["reason"]}, {"revoked": text})
        return new_id

    return store.write(user.username, write)


def list_events(store: Store, user: Principal, *, contract_code: str | None = None, limit: int = 200) -> pd.DataFrame:
    """The latest events the user may read (newest first, at most `limit`), with whether each is
    still current: id, kind, kind_label, event_date, contract_code, wreck_code, office_code,
    reference, note, supersedes, voided, current, recorded_by, recorded_at."""
    require_reader(user)
    require_schema(store)
    limit = max(1, min(int(limit), 1000))
    clauses, params = ["TRUE"], []
    if user.role != "dpc":
        scope, sparams = contract_scope(user, "c")
        clauses.append(f"e.contract_id IN (SELECT c.id FROM contracts c WHERE {scope})")
        params += sparams
    if contract_code:
        clauses.append("c2.code = ?")
        params.append(contract_code)
    df = store.fetch_df(
        "SELECT e.id, e.kind, e.event_date, c2.code AS contract_code, w.code AS wreck_code, e.office_code, "
        "e.reference, e.note, e.supersedes, e.voided, "
        "(NOT e.voided AND NOT EXISTS (SELECT 1 FROM deadline_events s WHERE s.supersedes = e.id)) AS current, "
        "e.recorded_by, e.recorded_at FROM deadline_events e LEFT JOIN contracts c2 ON c2.id = e.contract_id "
        f"LEFT JOIN wrecks w ON w.id = e.wreck_id WHERE {' AND '.join(clauses)} ORDER BY e.id DESC LIMIT {limit}",
        params)
    df.insert(2, "kind_label", [EVENT_KIND_BY_KEY[k].label if k in EVENT_KIND_BY_KEY else k for k in df["kind"]])
    return df
