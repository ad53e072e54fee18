"""Writing the deadline events and waivers (append-only, audited) that the engine reads.

    record_event(store, user, data) -> id     an event of EVENT_KINDS (delivered, published, notified…)
    annul_event(store, user, event_id, reason) annul one recorded by mistake (valuation.db.annulments)
    waive_deadline(store, user, key, reason)  dispensa/suspension of one deadline, with its reason
    revoke_waiver(store, user, key, reason)   end the waiver in force
    list_events(store, user, …)               the latest events, with whether each is current

Nothing is ever updated or deleted: a correction is a new row whose `supersedes` points at
the row it replaces (a waiver's `revoked` true to withdraw it; the `voided` events written before migration 080
still count as withdrawn), an event recorded by mistake is annulled by a row of `annulments` (issue 42 item 5),
so the trail the law needs is kept and every write is in the hash-chained audit log too.

Who (`valuation.db.access`): `manage_deadlines` (dpc) records every kind and waives;
`record_deadline_events` lets an explorer record (and correct) the kinds marked `explorer` — the
delivery of its own contracts' monthly and final reports (NORMAM-10 0301 c, 0303 e) and its own
requests for reconsideration or appeal (Lei 7.542 art. 33) — always in its own name: an event it
records is attributed to its own company, never to another one. Another company's contract, event
or organisation answers exactly as a missing one ("não encontrado"), so nothing tells them apart.
Bad input raises InputError naming every field (pt-BR), and nothing is written.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core.dates import parse_month
from valuation.core.errors import ConflictError, InputError, NotFound, Problem
from valuation.core.forms import Form, excerpt
from valuation.core.money import format_date_br
from valuation.db import annulments
from valuation.db.access import (
    Principal,
    allowed,
    chosen_organisation,
    contract_scope,
    office_match,
    own_organisation,
    require,
)
from valuation.deadlines import rules as dl
from valuation.deadlines.appeals import decision_exists
from valuation.deadlines.engine import require_schema
from valuation.deadlines.rule_specs import SPECS
from valuation.deadlines.vocabulary import (
    CURRENT_EVENTS,
    CURRENT_WAIVERS,
    DEADLINE_MET,
    EVENT_KIND_BY_KEY,
    EXCURSION_NOTIFIED,
    ONCE_KINDS,
    EventKind,
    month_key,
)

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store, Tx

EVENT_FIELDS: tuple[str, ...] = ("kind", "event_date", "contract_code", "wreck_code", "office_code",
                                 "organisation_id", "reference", "note", "supersedes")
FIELD_LABELS: dict[str, str] = {"kind": "Tipo de evento", "event_date": "Data do evento", "contract_code": "Contrato",
                                "wreck_code": "Naufrágio", "office_code": "Capitania/Delegacia/Agência",
                                "organisation_id": "Empresa", "note": "Observação", "supersedes": "Evento corrigido",
                                "reference": "Referência", "reason": "Motivo", "key": "Prazo"}
_YEAR = re.compile(r"^[0-9]{4}$")
_KEY = re.compile(r"^([a-z_]+):(.+)$")
_SUBJECT_LABEL = {k: FIELD_LABELS[k] for k in ("contract_code", "wreck_code", "office_code")}
MIN_REASON, MAX_REASON = 5, 500


def _parse_key(key: str) -> tuple[str, str] | None:
    m = _KEY.match(key or "")
    if m is None or m[1] not in SPECS:
        return None
    return m[1], m[2]


def _kind(user: Principal, f: Form) -> EventKind | None:
    """The event's kind; AccessDenied for a kind this user may not record."""
    raw = f.data.get("kind")
    kind = EVENT_KIND_BY_KEY.get(raw.strip()) if isinstance(raw, str) else None
    if kind is None:   # the choices are many and long: name the field, quote an excerpt, never list them all
        f.fail("kind", f"{FIELD_LABELS['kind']}: " + ("campo obrigatório." if raw in (None, "") else
                                                     f"desconhecido ({excerpt(raw)})."))
    if kind is not None and not kind.explorer:
        require(user, "manage_deadlines")        # an explorer records its own reports and appeals only
    return kind


def _organisation(store: Store, user: Principal, f: Form, kind: EventKind | None) -> int | None:
    """Who acted: an explorer always its own company (another id answers as a missing one); dpc any
    existing company."""
    org_id = f.integer("organisation_id", FIELD_LABELS["organisation_id"], required=False, minimum=1)
    if not allowed(user, "manage_deadlines"):
        if org_id is not None and not own_organisation(user, org_id):
            f.fail("organisation_id", f"{FIELD_LABELS['organisation_id']}: não encontrada ({org_id}).")
        return chosen_organisation(user, org_id, any_with="manage_deadlines")
    if org_id is not None and store.scalar("SELECT count(*) FROM organisations WHERE id = ?", [org_id]) == 0:
        f.fail("organisation_id", f"{FIELD_LABELS['organisation_id']}: não encontrada ({org_id}).")
    if kind is not None and kind.key == EXCURSION_NOTIFIED and org_id is None and f.ok("organisation_id"):
        f.fail("organisation_id", "Empresa: informe a empresa que comunicou a excursão.")
    return org_id


def _subject(store: Store, user: Principal, f: Form, kind: EventKind, data: Mapping[str, Any],
             row: dict[str, Any], event_date: date | None) -> None:
    """Fill the row's subject (contract, wreck or office) and reference from the form."""
    subject = kind.subject
    if kind.key == DEADLINE_MET:
        ref = f.text("reference", FIELD_LABELS["key"], max_len=300)
        parsed = _parse_key(ref or "") if ref else None
        if ref is not None and parsed is None:
            f.fail("reference", f"Prazo: chave não reconhecida ({excerpt(ref)}).")
        elif parsed is not None and SPECS[parsed[0]].subject == "found":
            f.fail("reference", "Prazo: os prazos de coisas achadas se encerram pelos eventos da página "
                                "Achados (art. 29).")
            parsed = None
        row["reference"] = ref
        if parsed is not None:
            subject, data = _subject_from_key(store, parsed, data)
    else:
        for extra in ("contract_code", "wreck_code", "office_code"):
            if extra != f"{subject}_code" and f.has(extra):
                f.fail(extra, f"{_SUBJECT_LABEL[extra]}: não se aplica a este tipo de evento.")
    contract: dict[str, Any] | None = None
    if subject == "contract":
        contract = _contract_for(store, user, f, data)
        row["contract_id"] = contract["id"] if contract else None
    elif subject == "wreck":
        row["wreck_id"] = _wreck_for(store, user, f, data)
    elif subject == "office":
        row["office_code"] = _office_for(store, user, f, data)
    if kind.key != DEADLINE_MET:
        row["reference"] = _reference(store, user, f, kind, event_date, contract)


def record_event(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """Record one deadline event (append-only; audited); returns its id.

    `data`: kind (EVENT_KINDS), event_date (the day it happened; not in the future), and the
    subject: contract_code (contract kinds), wreck_code (wreck kinds) or office_code (office
    kinds); reference when the kind needs one (EventKind.reference; for the deadline-met kind the
    deadline's key, whose subject is taken from the key; for the appeal kinds the decision);
    optional organisation_id (who acted; an explorer: itself), note, and `supersedes` (the id of
    the event this one corrects: same kind and subject)."""
    require(user, "record_deadline_events")
    require_schema(store)
    f = Form(data, allowed=EVENT_FIELDS)
    kind = _kind(user, f)
    if allowed(user, "manage_deadlines"):
        event_date = f.date("event_date", FIELD_LABELS["event_date"])
        if event_date is not None and event_date > store.today():
            f.fail("event_date", "Data do evento: não pode estar no futuro.")
            event_date = None
    else:   # a company files its own report or appeal: the day is the service's, never the filer's
        event_date = store.today()
        if f.has("event_date"):
            f.fail("event_date", f"{FIELD_LABELS['event_date']}: a empresa não informa a data da entrega; vale o dia "
                                 "em que o sistema a recebe (protocolo eletrônico).")
    row: dict[str, Any] = {"kind": kind.key if kind else None, "event_date": event_date, "contract_id": None,
                           "wreck_id": None, "office_code": None,
                           "organisation_id": _organisation(store, user, f, kind), "reference": None,
                           "note": f.text("note", FIELD_LABELS["note"], required=False, max_len=1000),
                           "supersedes": f.integer("supersedes", FIELD_LABELS["supersedes"], required=False,
                                                   minimum=1)}
    if kind is not None:
        _subject(store, user, f, kind, data, row, event_date)
    f.done()
    assert kind is not None and event_date is not None

    def write(tx: Tx) -> int:
        if row["supersedes"] is not None:
            _check_supersedes(tx, user, row, row["supersedes"])
        elif kind.key in ONCE_KINDS:
            _refuse_duplicate(tx, kind, row)
        new_id = int(tx.scalar(
            "INSERT INTO deadline_events (kind, contract_id, wreck_id, office_code, organisation_id, event_date, "
            "reference, note, supersedes, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING id",
            [kind.key, row["contract_id"], row["wreck_id"], row["office_code"], row["organisation_id"], event_date,
             row["reference"], row["note"], row["supersedes"], user.username, store.now()]))
        tx.audit("record_deadline_event", "deadline_event", new_id, None, row)
        return new_id

    return store.write(user.username, write)


def _refuse_duplicate(tx: Tx, kind: EventKind, row: Mapping[str, Any]) -> None:
    dup = tx.fetch_one(
        f"SELECT id, event_date FROM {CURRENT_EVENTS} e WHERE kind = ? AND contract_id IS NOT DISTINCT FROM ? "
        "AND office_code IS NOT DISTINCT FROM ? AND reference IS NOT DISTINCT FROM ?",
        [kind.key, row["contract_id"], row["office_code"], row["reference"]])
    if dup is not None:
        raise InputError(Problem("reference" if row["reference"] else "kind",
                                 f"{kind.label}: já registrado em {format_date_br(dup['event_date'])} (evento "
                                 f"{dup['id']}); para corrigir, registre uma correção desse evento."))


def _subject_from_key(store: Store, parsed: tuple[str, str], data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The subject of a deadline key: ('contract', {... contract_code}) and so on."""
    rule, rest = parsed
    subject = SPECS[rule].subject     # valuation.deadlines.rule_specs.SUBJECTS
    out = dict(data)
    for k in ("contract_code", "wreck_code", "office_code"):
        out.pop(k, None)
    if subject in ("contract", "decision"):
        out["contract_code"] = rest.split(":")[0]   # a contract code has no ':'; what follows it is the month, …
        return "contract", out
    if subject == "wreck":
        out["wreck_code"] = rest
        return "wreck", out
    if subject == "office":
        out["office_code"] = rest.split(":")[0]
        return "office", out
    if subject in ("removal", "balance"):
        table = "removal_orders" if subject == "removal" else "owner_balances"
        m = re.fullmatch(r"[rb]([0-9]+)", rest)
        code = store.scalar(f"SELECT w.code FROM {table} t JOIN wrecks w ON w.id = t.wreck_id WHERE t.id = ?",
                            [int(m[1])]) if m else None
        out["wreck_code"] = code
        return "wreck", out
    m = re.fullmatch(r"e([0-9]+)", rest)
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
        f.fail("contract_code", "Contrato: campo obrigatório.")
        return None
    scope, params = contract_scope(user, "c")
    row = store.fetch_one(f"SELECT c.id, c.code, c.status, c.starts_on, c.signed_on, c.expires_on, c.organisation_id "
                          f"FROM contracts c WHERE c.code = ? AND {scope}", [code.strip(), *params])
    if row is None:
        f.fail("contract_code", f"Contrato não encontrado: {excerpt(code.strip())}.")
        return None
    return row


def _wreck_for(store: Store, user: Principal, f: Form, data: Mapping[str, Any]) -> int | None:
    code = data.get("wreck_code")
    if not isinstance(code, str) or not code.strip():
        f.fail("wreck_code", "Naufrágio: campo obrigatório.")
        return None
    office, params = office_match(user, "office_code")     # an office officer: its office's wrecks
    wid = store.scalar(f"SELECT id FROM wrecks WHERE code = ? AND {office}", [code.strip(), *params])
    if wid is None:
        f.fail("wreck_code", f"Naufrágio não encontrado: {excerpt(code.strip())}.")
        return None
    return int(wid)


def _office_for(store: Store, user: Principal, f: Form, data: Mapping[str, Any]) -> str | None:
    code = data.get("office_code")
    if not isinstance(code, str) or not code.strip():
        f.fail("office_code", "Capitania/Delegacia/Agência: campo obrigatório.")
        return None
    office, params = office_match(user, "code")     # an office officer: its own office
    if store.scalar(f"SELECT count(*) FROM offices WHERE code = ? AND {office}", [code.strip(), *params]) == 0:
        f.fail("office_code", f"Capitania/Delegacia/Agência desconhecida: {excerpt(code.strip())}.")
        return None
    return code.strip()


def _month_reference(f: Form, label: str, text: object, event_date: date | None,
                     contract: Mapping[str, Any] | None) -> str | None:
    month = parse_month(text)        # 'MM/AAAA' (the Brazilian form) or 'AAAA-MM' (issue 23 item 11)
    if month is None:
        f.fail("reference", f"{label}: informe o mês como MM/AAAA (ex.: 06/2025) ou AAAA-MM.")
        return None
    if event_date is not None and month > date(event_date.year, event_date.month, 1):
        f.fail("reference", f"{label}: o relatório de {dl.fmt_month(month)} não pode ser entregue antes "
                            "do próprio mês.")
        return None
    begin = contract and (contract["starts_on"] or contract["signed_on"])
    if begin and month < date(begin.year, begin.month, 1):
        f.fail("reference", f"{label}: {dl.fmt_month(month)} é anterior ao início do contrato "
                            f"({format_date_br(begin)}).")
        return None
    return month_key(month)


def _reference(store: Store, user: Principal, f: Form, kind: EventKind, event_date: date | None,
               contract: Mapping[str, Any] | None) -> str | None:
    label = kind.reference_label
    raw = f.data.get("reference")
    text = raw.strip() if isinstance(raw, str) else raw
    if kind.reference is None:
        if text not in (None, ""):
            f.fail("reference", f"{label}: não se aplica a este tipo de evento.")
        return None
    if kind.reference == "month":
        return _month_reference(f, label, text, event_date, contract)
    if kind.reference == "year":
        value = str(text) if isinstance(text, int) and not isinstance(text, bool) else text
        if not isinstance(value, str) or not _YEAR.match(value) or not 1900 <= int(value) <= 9998:
            f.fail("reference", f"{label}: informe o ano com 4 dígitos.")
            return None
        if event_date is not None and int(value) >= event_date.year + 1:
            f.fail("reference", f"{label}: o mapa de {value} só pode ser enviado depois do fim do ano.")
            return None
        return value
    if kind.reference == "decision":
        if not isinstance(text, str) or not text:
            f.fail("reference", f"{label}: escolha a decisão do contrato.")
            return None
        if contract is not None and not decision_exists(store, user, contract["code"], text):
            f.fail("reference", f"{label}: não encontrada no contrato {contract['code']} ({excerpt(text)}).")
            return None
        return text
    if kind.reference == "date":
        day = f.date("reference", label)
        return None if day is None else day.isoformat()
    if kind.reference == "expiry":
        if text in (None, ""):
            if contract is not None and contract["expires_on"] is None:
                f.fail("reference", f"{label}: o contrato não tem data de vencimento registrada.")
                return None
            return None if contract is None else contract["expires_on"].isoformat()
        day = f.date("reference", label)
        return None if day is None else day.isoformat()
    return f.text("reference", label, required=kind.reference == "text", max_len=300)


def _visible_event(db: Store | Tx, user: Principal, event_id: int) -> dict[str, Any] | None:
    """The event, or None when it does not exist or the user may not touch it (the same answer:
    another company's event is reported exactly as a missing one)."""
    office, oparams = office_match(user, "coalesce(c.office_code, w.office_code, e.office_code)")
    old = db.fetch_one("SELECT e.*, EXISTS (SELECT 1 FROM deadline_events s WHERE s.supersedes = e.id AND "
                       f"{annulments.not_annulled('deadline_events', 's')}) AS replaced, "
                       f"NOT {annulments.not_annulled('deadline_events', 'e')} AS annulled "
                       "FROM deadline_events e LEFT JOIN contracts c ON c.id = e.contract_id "
                       f"LEFT JOIN wrecks w ON w.id = e.wreck_id WHERE e.id = ? AND {office}", [event_id, *oparams])
    if old is None or allowed(user, "manage_deadlines"):
        return old
    scope, params = contract_scope(user, "c")
    mine = old["contract_id"] is not None and db.scalar(
        f"SELECT count(*) FROM contracts c WHERE c.id = ? AND {scope}", [old["contract_id"], *params])
    kind = EVENT_KIND_BY_KEY.get(old["kind"])
    return old if mine and kind is not None and kind.explorer else None


def _check_supersedes(tx: Tx, user: Principal, row: Mapping[str, Any], old_id: int) -> None:
    old = _visible_event(tx, user, old_id)
    if old is None:
        raise InputError(Problem("supersedes", f"Evento corrigido: {old_id} não encontrado."))
    if old["replaced"] or old["voided"] or old["annulled"]:
        raise InputError(Problem("supersedes", f"Evento corrigido: {old_id} já foi corrigido ou anulado."))
    same = (old["kind"] == row["kind"] and old["contract_id"] == row["contract_id"]
            and old["wreck_id"] == row["wreck_id"] and old["office_code"] == row["office_code"])
    if not same:
        raise InputError(Problem("supersedes", f"Evento corrigido: {old_id} é de outro tipo ou de outro objeto."))


def _reason(reason: object, label: str = "Motivo") -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    if not MIN_REASON <= len(text) <= MAX_REASON:
        raise InputError(Problem("reason", f"{label}: obrigatório, de {MIN_REASON} a {MAX_REASON} caracteres."))
    return text


def annul_event(store: Store, user: Principal, event_id: int, reason: str) -> int:
    """Annul an event recorded by mistake (Lei 9.784/1999 art. 53), with its written reason (art. 50): a row of
    `annulments` (valuation.db.annulments; the event itself is never changed), audited; the deadlines it started
    are computed again without it, and `list_events` shows it with its annulment. DPC any event, an office
    officer its office's; never a company (AccessDenied) — a company corrects its own delivery by recording its
    correction. Another office's event reads "não encontrado"; one annulled, corrected or withdrawn already is
    refused in Portuguese. Returns the annulment's id."""
    require(user, "annul_records")
    require(user, "manage_deadlines")
    require_schema(store)
    text = annulments.reason_text(reason)
    old = _visible_event(store, user, event_id) if isinstance(event_id, int) and not isinstance(event_id, bool) \
        else None
    if old is None:
        raise NotFound(f"Evento {excerpt(event_id)} não encontrado.", what="deadline_event", key=event_id)

    def write(tx: Tx) -> int:
        now = _visible_event(tx, user, event_id)
        assert now is not None
        if not now["annulled"] and (now["replaced"] or now["voided"]):
            raise ConflictError(f"Evento nº {event_id}: já foi corrigido ou retirado; anule, se for o caso, o "
                                "registro que o substituiu.")
        before = {k: v for k, v in now.items() if k not in ("replaced", "annulled")}
        return annulments.annul(tx, user.username, "deadline_events", event_id, text, entity="deadline_event",
                                entity_id=event_id, before=before, now=store.now())

    return store.write(user.username, write)


def waive_deadline(store: Store, user: Principal, key: str, reason: str) -> int:
    """Waive (dispensar) or suspend one deadline with its reason (dpc only; audited);
    returns the waiver's id. The reason is shown as the deadline's `reason`."""
    require(user, "manage_deadlines")
    require_schema(store)
    problems = []
    if _parse_key(key) is None:
        problems.append(Problem("key", f"Prazo: chave não reconhecida ({excerpt(key)})."))
    try:
        text = _reason(reason)
    except InputError as exc:
        problems += exc.problems
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
    require(user, "manage_deadlines")
    require_schema(store)
    text = _reason(reason)

    def write(tx: Tx) -> int:
        current = tx.fetch_one(f"SELECT id, reason FROM {CURRENT_WAIVERS} w WHERE deadline_key = ? "
                               "ORDER BY id DESC LIMIT 1", [key])
        if current is None:
            raise NotFound(f"O prazo {excerpt(key)} não tem dispensa em vigor.", what="deadline_waiver", key=key)
        new_id = int(tx.scalar(
            "INSERT INTO deadline_waivers (deadline_key, reason, supersedes, revoked, waived_by, waived_at) "
            "VALUES (?, ?, ?, true, ?, ?) RETURNING id", [key, text, current["id"], user.username, store.now()]))
        tx.audit("revoke_deadline_waiver", "deadline", key, {"reason": current["reason"]}, {"revoked": text})
        return new_id

    return store.write(user.username, write)


def list_events(store: Store, user: Principal, *, contract_code: str | None = None, limit: int = 200) -> pd.DataFrame:
    """The latest events the user may read (newest first, at most `limit`), with whether each is
    still current: id, kind, kind_label, event_date, contract_code, wreck_code, office_code,
    reference, note, supersedes, voided, current, recorded_by, recorded_at, and its annulment (annulled_reason,
    annulled_by, annulled_at; None when it has none)."""
    require(user, "read_deadlines")
    require_schema(store)
    limit = max(1, min(int(limit), 1000))
    clauses, params = ["TRUE"], []
    if not allowed(user, "read_all_deadlines"):
        scope, sparams = contract_scope(user, "c")
        clauses.append(f"e.contract_id IN (SELECT c.id FROM contracts c WHERE {scope})")
        params += sparams
    else:        # an office officer: the events of its office (of its contracts, its wrecks, or itself)
        scope, sparams = office_match(user, "coalesce(c2.office_code, w.office_code, e.office_code)")
        clauses.append(scope)
        params += sparams
    if contract_code:
        clauses.append("c2.code = ?")
        params.append(contract_code)
    df = store.fetch_df(
        "SELECT e.id, e.kind, e.event_date, c2.code AS contract_code, w.code AS wreck_code, e.office_code, "
        "e.reference, e.note, e.supersedes, e.voided, "
        f"(e.id IN (SELECT ce.id FROM {CURRENT_EVENTS} ce)) AS current, "
        "e.recorded_by, e.recorded_at, a.reason AS annulled_reason, a.annulled_by, a.annulled_at "
        "FROM deadline_events e LEFT JOIN contracts c2 ON c2.id = e.contract_id "
        "LEFT JOIN annulments a ON a.record_table = 'deadline_events' AND a.record_id = e.id "
        f"LEFT JOIN wrecks w ON w.id = e.wreck_id WHERE {' AND '.join(clauses)} ORDER BY e.id DESC LIMIT {limit}",
        params)
    df.insert(2, "kind_label", [EVENT_KIND_BY_KEY[k].label if k in EVENT_KIND_BY_KEY else k for k in df["kind"]])
    return df
