"""Process numbers (NUP, Portaria Interministerial MJSP/ME nº 11/2019): every request, decision and issued
document of an office gets one, from its protocol unit's yearly sequence.

- `protocol_units`: each office's 5-digit protocol unit code (DPC maintains it, `set_protocol_unit`).
- `assign(tx, subject, id, office, on)`: inside the write that records the act (the store's one write funnel,
  so the next sequence number is read and taken in one transaction; writes of this process are serialised
  and `UNIQUE (unit_code, year, sequence)` refuses a number given twice). The year is the act's.
  An office without a protocol unit gives no NUP (the page says so) rather than refusing the act.
- `number_missing(tx)`: numbers every record of the subjects below that has none (a database from before
  migration 034; the demo), in the order of their dates.

The format and its check digits are valuation.core.nup's.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from valuation.core import clock, nup
from valuation.core.errors import ConflictError, InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.db.access import Principal, require
from valuation.db.store import Store, Tx


@dataclass(frozen=True)
class Subject:
    key: str
    label: str      # pt-BR, as the pages name the record
    rows_sql: str   # (id, office_code, act_on) of every record of this kind


SUBJECTS: dict[str, Subject] = {s.key: s for s in (
    Subject("licence_request", "Pedido do responsável (art. 4)",
            "SELECT r.id, w.office_code, r.requested_on AS act_on FROM licence_requests r "
            "JOIN wrecks w ON w.id = r.wreck_id"),
    Subject("removal_order", "Determinação de remoção ou demolição (art. 5)",
            "SELECT r.id, w.office_code, r.ordered_on AS act_on FROM removal_orders r "
            "JOIN wrecks w ON w.id = r.wreck_id"),
    Subject("round", "Decisão da Comissão (ata da rodada, art. 20 §3)",
            "SELECT r.id, c.office_code, " + clock.day_sql("r.decided_at") + " AS act_on FROM assessment_rounds r "
            "JOIN contracts c ON c.id = r.contract_id WHERE r.decided_at IS NOT NULL"),
    Subject("statement", "Demonstrativo de partilha emitido",
            "SELECT s.id, c.office_code, " + clock.day_sql("s.created_at") + " AS act_on FROM statements s "
            "JOIN contracts c ON c.id = s.contract_id WHERE s.status = 'emitido'"),
    # a request that is also the responsible's licence request carries that one's NUP (one document, one number)
    Subject("request", "Requerimento",
            "SELECT q.id, q.office_code, q.filed_on AS act_on FROM requests q WHERE q.licence_request_id IS NULL"),
    # issue 26 §2: a decision with no numbered record of its own (one on a request is a document of the
    # request's process: its NUP), and each appeal
    Subject("administrative_decision", "Decisão administrativa",
            "SELECT d.id, d.office_code, d.decided_on AS act_on FROM administrative_decisions d WHERE d.kind NOT IN "
            "('removal_order', 'round', 'statement', 'request')"),
    # an appeal numbered before issue 42 item 2 keeps its own NUP; since then an appeal is a document of its
    # decision's process (valuation.process.documents) and is not numbered on its own
    Subject("appeal", "Recurso administrativo (Lei 7.542/1986 art. 33)",
            "SELECT a.id, d.office_code, a.filed_on AS act_on FROM appeals a "
            "JOIN administrative_decisions d ON d.id = a.decision_id "
            "WHERE a.id NOT IN (SELECT subject_id FROM process_documents WHERE subject = 'appeal')"),
)}
FIRST_DAY = date(nup.FIRST_YEAR, 1, 1)     # the first day an act numbered by a NUP can bear (its year is the NUP's)
NO_UNIT_TEXT = "sem NUP: a unidade protocolizadora da {office} não está cadastrada"
UNIT_LABEL = "Código da unidade protocolizadora"


def unit_of(db: Store | Tx, office_code: str) -> str | None:
    """The office's 5-digit protocol unit code (None: not registered)."""
    return db.scalar("SELECT unit_code FROM protocol_units WHERE office_code = ?", [office_code])


def act_day_problem(day: date | None, label: str) -> str | None:
    """Why `day` cannot be the date of an act this module numbers — the NUP carries the act's year, 1900 to 9999
    (issue 45, item 7: a request dated 1899 reached `nup.make` and ended as "Algo deu errado") — or None.
    The form that reads the date refuses it by its field with this text (`Form.fail`)."""
    if day is None or nup.FIRST_YEAR <= day.year <= nup.LAST_YEAR:
        return None
    return (f"{label}: o ano {day.year} não pode ser o de um ato com número de processo (NUP, {nup.BASIS}), que "
            f"começa em {nup.FIRST_YEAR}; confira a data.")


def _subject(subject: str) -> Subject:
    if subject not in SUBJECTS:
        raise ValueError(f"not a numbered record: {subject!r}")
    return SUBJECTS[subject]


def assign(tx: Tx, subject: str, subject_id: int, office_code: str, on: date) -> str | None:
    """Give the record its NUP from the office's unit's sequence of the year of `on`, in this transaction;
    the 17 digits, or None when the office has no protocol unit. A record numbered already keeps its NUP."""
    _subject(subject)
    refused = act_day_problem(on, "Data do ato")
    if refused is not None:      # a caller that did not check its date's field: still a pt-BR refusal
        raise InputError(Problem("", refused))
    held = tx.scalar("SELECT nup FROM process_numbers WHERE subject = ? AND subject_id = ?", [subject, subject_id])
    if held is not None:
        return str(held)
    unit = unit_of(tx, office_code)
    if unit is None:
        return None
    # the unit's own sequence: a NUP a case brought from the protocol system (`adopt`) neither moves it nor is given
    sequence = int(tx.scalar("SELECT coalesce(max(sequence), 0) + 1 FROM process_numbers WHERE unit_code = ? "
                             "AND year = ? AND id NOT IN (SELECT process_number_id FROM adopted_numbers)",
                             [unit, on.year]))
    while tx.scalar("SELECT count(*) FROM process_numbers WHERE unit_code = ? AND year = ? AND sequence = ?",
                    [unit, on.year, sequence]):
        sequence += 1
    if sequence > nup.MAX_SEQUENCE:
        raise ConflictError(f"A unidade protocolizadora {unit} esgotou os {nup.MAX_SEQUENCE} números de {on.year}.")
    number = nup.make(unit, sequence, on.year).digits
    tx.execute("INSERT INTO process_numbers (nup, unit_code, year, sequence, subject, subject_id, office_code, act_on, "
               "assigned_by, assigned_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               [number, unit, on.year, sequence, subject, subject_id, office_code, on, tx.actor, tx.store.now()])
    tx.audit("nup_assigned", subject, subject_id, None, {"nup": nup.format_nup(number), "office": office_code})
    return number


ADOPT_LABEL = "NUP já dado pelo sistema de protocolo (SEI/SiGDEM), se houver"
ADOPT_HELP = (f"Um processo que começou no sistema de protocolo mantém o número que ele deu ({nup.EXAMPLE}, dígitos "
              f"verificados); em branco, a OM dá o próximo número da sua unidade ({nup.BASIS}).")


def read_adopted(db: Store | Tx, f: Form, key: str = "nup", label: str = ADOPT_LABEL) -> nup.Nup | None:
    """The optional NUP a form's `key` brings from the protocol system: None when blank; a malformed number, a wrong
    check digit or one another case holds fails the field (`f.fail`, in pt-BR)."""
    typed = f.text(key, label, required=False, max_len=nup.MAX_INPUT)
    if not typed:
        return None
    try:
        number = nup.parse(typed, field=key)
    except InputError as exc:
        f.fail(key, f"{label}: {exc.problems[0].message}")
        return None
    refused = adopt_problem(db, number, label)
    if refused is not None:
        f.fail(key, refused)
        return None
    return number


def adopt_problem(db: Store | Tx, number: nup.Nup | None, label: str) -> str | None:
    """Why `number` (parsed, check digits verified) cannot be taken as a new case's NUP — another case has it — or
    None. The form that reads it refuses it by its field with this text."""
    if number is None:
        return None
    other = db.fetch_one("SELECT subject, subject_id FROM process_numbers WHERE nup = ?", [number.digits])
    if other is None:
        return None
    what = SUBJECTS[other["subject"]].label if other["subject"] in SUBJECTS else str(other["subject"])
    return f"{label}: {number} já é o número de outro processo ({what.lower()} nº {other['subject_id']})."


def adopt(tx: Tx, subject: str, subject_id: int, office_code: str, on: date, number: nup.Nup) -> str:
    """Give the record the NUP the protocol system (SEI/SiGDEM) gave the case where it began, instead of one of the
    office's sequence (issue 42 item 2: one case, one number); its 17 digits. The caller parsed it (check digits) and
    checked `adopt_problem`; a number held by another case is refused here too (a conflict, in pt-BR)."""
    _subject(subject)
    refused = adopt_problem(tx, number, "NUP do processo")
    if refused is not None:
        raise ConflictError(refused)
    new_id = int(tx.scalar(
        "INSERT INTO process_numbers (nup, unit_code, year, sequence, subject, subject_id, office_code, act_on, "
        "assigned_by, assigned_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [number.digits, number.unit, number.year, number.sequence, subject, subject_id, office_code, on, tx.actor,
         tx.store.now()]))
    tx.execute("INSERT INTO adopted_numbers (process_number_id, recorded_by, recorded_at) VALUES (?, ?, ?)",
               [new_id, tx.actor, tx.store.now()])
    tx.audit("nup_adopted", subject, subject_id, None, {"nup": str(number), "office": office_code})
    return number.digits


def number_missing(tx: Tx) -> int:
    """Number every record of SUBJECTS that has no NUP (offices with a protocol unit), oldest act first;
    returns how many were numbered."""
    done = 0
    pending: list[tuple[date, str, int, str]] = []
    for s in SUBJECTS.values():
        rows = tx.execute(f"SELECT x.id, x.office_code, x.act_on FROM ({s.rows_sql}) x WHERE x.id NOT IN "
                          "(SELECT subject_id FROM process_numbers WHERE subject = ?) AND x.office_code IN "
                          "(SELECT office_code FROM protocol_units)", [s.key])
        pending += [(r["act_on"], s.key, int(r["id"]), r["office_code"]) for r in rows]
    for act_on, subject, subject_id, office in sorted(pending):
        done += assign(tx, subject, subject_id, office, act_on) is not None
    return done


def nups(db: Store | Tx, subject: str, ids: Iterable[int] | None = None) -> dict[int, str]:
    """{record id: formatted NUP} of one subject (every numbered record, or those of `ids`)."""
    _subject(subject)
    wanted = None if ids is None else [int(i) for i in ids]
    if wanted is not None and not wanted:
        return {}
    where, params = ("AND list_contains(?, subject_id)", [wanted]) if wanted is not None else ("", [])
    rows = db.fetch(f"SELECT subject_id, nup FROM process_numbers WHERE subject = ? {where}", [subject, *params])
    return {int(r["subject_id"]): nup.format_nup(r["nup"]) for r in rows}


def request_nups(db: Store | Tx, request_ids: Iterable[int]) -> dict[int, str]:
    """{request id: formatted NUP} of the numbered requests among `request_ids`: the request's own or, for a
    licence request of the responsible, the one its `licence_requests` row received (one document, one number)."""
    ids = [int(i) for i in request_ids]
    if not ids:
        return {}
    links = {int(r["id"]): int(r["licence_request_id"]) for r in db.fetch(
        "SELECT id, licence_request_id FROM requests WHERE licence_request_id IS NOT NULL AND list_contains(?, id)",
        [ids])}
    linked = nups(db, "licence_request", links.values()) if links else {}
    by_licence = {rid: linked[lid] for rid, lid in links.items() if lid in linked}
    return {**by_licence, **nups(db, "request", ids)}


def nup_of(db: Store | Tx, subject: str, subject_id: int) -> str | None:
    """The formatted NUP of one record (None: not numbered)."""
    return nups(db, subject, [subject_id]).get(int(subject_id))


def shown(db: Store | Tx, subject: str, subject_id: int, office_code: str | None) -> str:
    """What a page or document prints for a record's NUP: the number, or why it has none."""
    found = nup_of(db, subject, subject_id)
    if found is not None:
        return found
    return NO_UNIT_TEXT.format(office=office_code or "OM")


def set_protocol_unit(store: Store, user: Principal, office_code: str, unit_code: str) -> str:
    """Register (or, before it numbered anything, correct) an office's protocol unit code; returns it. dpc only."""
    require(user, "manage_protocol_units")
    code = (unit_code or "").strip()
    if len(code) != nup.UNIT_DIGITS or not code.isdigit():
        raise InputError(Problem("unit_code", f"{UNIT_LABEL}: informe os {nup.UNIT_DIGITS} dígitos."))
    if store.fetch_one("SELECT code FROM offices WHERE code = ?", [office_code]) is None:
        raise NotFound(f"Capitania/Delegacia/Agência {office_code} não encontrada.", what="office", key=office_code)

    def write(tx: Tx) -> None:
        before = unit_of(tx, office_code)
        if before is not None and tx.scalar("SELECT count(*) FROM process_numbers WHERE unit_code = ?", [before]):
            raise ConflictError(f"A unidade {before} da {office_code} já numerou processos: seu código não muda.")
        other = tx.scalar("SELECT office_code FROM protocol_units WHERE unit_code = ? AND office_code <> ?",
                          [code, office_code])
        if other is not None:
            raise InputError(Problem("unit_code", f"{UNIT_LABEL}: {code} já é o da {other}."))
        if before is None:
            tx.execute("INSERT INTO protocol_units VALUES (?, ?, ?, ?)", [office_code, code, user.username,
                                                                           tx.store.now()])
        else:
            tx.execute("UPDATE protocol_units SET unit_code = ?, recorded_by = ?, recorded_at = ? "
                       "WHERE office_code = ?", [code, user.username, tx.store.now(), office_code])
        tx.audit("protocol_unit_set", "office", office_code, {"unit_code": before}, {"unit_code": code})

    store.write(user.username, write)
    return code


def protocol_units(store: Store, user: Principal) -> list[dict[str, Any]]:
    """office_code, office_name, unit_code (None when not registered), for every office."""
    require(user, "read_offices")
    return store.fetch("SELECT o.code AS office_code, o.name AS office_name, u.unit_code FROM offices o "
                       "LEFT JOIN protocol_units u ON u.office_code = o.code ORDER BY o.state, o.code")
