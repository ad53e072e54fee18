"""Responsible parties (owners) of wrecks: Lei 7.542/1986 arts. 3–9. DPC and the offices (a person's data):
an office officer reads the parties it registered and those of its office's wrecks.

`doc_kind` CPF/CNPJ requires a number whose check digits are right (stored
without punctuation); 'estrangeiro' takes a foreign document number as typed;
'desconhecido' takes none. `whereabouts_known` decides between personal
notice and public notice (edital), art. 9.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.core.ids import (
    cnpj_is_valid,
    cpf_is_valid,
    normalise_cnpj,
    normalise_digits,
)
from valuation.db.access import Principal, office_of, require
from valuation.db.search import search_clause
from valuation.registry import versions

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

DOC_KINDS: tuple[str, ...] = ("CPF", "CNPJ", "estrangeiro", "desconhecido")
_COLS = "id, name, doc_kind, doc_number, nationality, whereabouts_known, address, notes"


def _scope(user: Principal) -> tuple[str, list[Any]]:
    """(predicate over owners `ow`, params): every party for headquarters; for an office officer those it
    registered and those of its office's wrecks."""
    office = office_of(user)
    if office is None:
        return "TRUE", []
    return ("(ow.office_code = ? OR ow.id IN (SELECT owner_id FROM wrecks WHERE office_code = ? AND owner_id IS "
            "NOT NULL))", [office, office])


def list_owners(store: Any, user: Principal, *, search: str | None = None) -> pd.DataFrame:
    """The owners the user may read (DPC every one), ordered by name, with `wrecks`: how many wrecks each answers
    for."""
    require(user, "read_owners")
    scope, params = _scope(user)
    where = f" WHERE {scope}"
    if search and search.strip():
        clause, extra = search_clause(("ow.name", "ow.doc_number"), search)
        where += f" AND {clause}"
        params += extra
    return store.fetch_df(
        f"SELECT {', '.join('ow.' + c.strip() for c in _COLS.split(','))}, "
        "(SELECT count(*) FROM wrecks w WHERE w.owner_id = ow.id) AS wrecks "
        f"FROM owners ow{where} ORDER BY ow.name", params)


def get_owner(store: Any, user: Principal, owner_id: int) -> dict[str, Any]:
    require(user, "read_owners")
    scope, params = _scope(user)
    ok = isinstance(owner_id, int) and not isinstance(owner_id, bool) and 0 < owner_id < 2 ** 63
    row = store.fetch_one(f"SELECT {_COLS} FROM owners ow WHERE ow.id = ? AND {scope}",
                          [owner_id, *params]) if ok else None
    if row is None:
        raise NotFound(f"Responsável {owner_id} não encontrado.", what="owner", key=owner_id)
    return row


OWNER_FIELDS: tuple[str, ...] = ("name", "doc_kind", "doc_number", "nationality", "whereabouts_known",
                                 "address", "notes")


def validate_owner(data: Mapping[str, Any]) -> dict[str, Any]:
    """The row for a new owner, or InputError naming every bad field (pt-BR)."""
    f = Form(data, allowed=OWNER_FIELDS)
    rec: dict[str, Any] = {}
    rec["name"] = f.text("name", "Nome", max_len=200)
    kind = rec["doc_kind"] = f.choice("doc_kind", "Tipo de documento", DOC_KINDS)
    number = f.text("doc_number", "Número do documento", required=kind in ("CPF", "CNPJ", "estrangeiro"),
                    max_len=40)
    if number is not None:
        if kind == "CPF":
            if not cpf_is_valid(number):
                f.fail("doc_number", f"CPF inválido: {number} (dígitos verificadores não conferem).")
            number = normalise_digits(number)
        elif kind == "CNPJ":
            if not cnpj_is_valid(number):
                f.fail("doc_number", f"CNPJ inválido: {number} (dígitos verificadores não conferem).")
            number = normalise_cnpj(number)
        elif kind == "desconhecido":
            f.fail("doc_number", "Número do documento: deixe em branco quando o documento é desconhecido.")
    rec["doc_number"] = number
    rec["nationality"] = f.text("nationality", "Nacionalidade", max_len=100)
    rec["whereabouts_known"] = f.boolean("whereabouts_known", "Paradeiro conhecido")
    rec["address"] = f.text("address", "Endereço", required=rec["whereabouts_known"], max_len=300)
    rec["notes"] = f.text("notes", "Observações", required=False, max_len=4000)
    f.done()
    return rec


def create_owner(store: Any, user: Principal, data: Mapping[str, Any]) -> int:
    """Register an owner (DPC only); returns its id. Bad input → InputError; nothing written."""
    require(user, "create_owner")
    rec = {**validate_owner(data), "office_code": office_of(user)}

    def insert(tx: Any) -> int:
        cols = list(rec)
        new_id = int(tx.scalar(f"INSERT INTO owners ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
                               "RETURNING id", [rec[c] for c in cols]))
        versions.created(tx, "owner", new_id, rec)
        tx.audit("create", "owner", new_id, None, rec)
        return new_id

    return store.write(user.username, insert)


def correct_owner(store: Any, user: Principal, owner_id: int, data: Mapping[str, Any], reason: str) -> int:
    """Correct a responsible party (`reason` required): a new version — who, when, why — that the row becomes
    (a party whose whereabouts became known is then intimated in person, art. 9); returns the version number."""
    require(user, "correct_registry")
    before = {k: v for k, v in get_owner(store, user, owner_id).items() if k in OWNER_FIELDS}
    why = versions.checked_reason(reason)
    rec = validate_owner(data)
    changed = [c for c in OWNER_FIELDS if rec[c] != before[c]]
    if not changed:
        raise InputError(Problem("reason", "Nada a corrigir: os dados informados são os que estão registrados."))

    def update(tx: Any) -> int:
        tx.execute(f"UPDATE owners SET {', '.join(f'{c} = ?' for c in changed)} WHERE id = ?",
                   [*(rec[c] for c in changed), owner_id])
        version = versions.corrected(tx, "owner", owner_id, before, rec, reason=why)
        tx.audit("correct", "owner", owner_id, {c: before[c] for c in changed},
                 {**{c: rec[c] for c in changed}, "reason": why, "version": version})
        return version

    return int(store.write(user.username, update))


HISTORY_LABELS: dict[str, str] = {"name": "Nome", "doc_kind": "Tipo de documento", "doc_number": "Número do documento",
                                  "nationality": "Nacionalidade", "whereabouts_known": "Paradeiro conhecido",
                                  "address": "Endereço", "notes": "Observações"}


def owner_history(store: Any, user: Principal, owner_id: int) -> list[versions.Version]:
    """The versions of a responsible party the user may read, oldest first."""
    get_owner(store, user, owner_id)
    return versions.history(store, "owner", owner_id, HISTORY_LABELS)
