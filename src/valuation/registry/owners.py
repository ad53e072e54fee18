"""Responsible parties (owners) of wrecks: Lei 7.542/1986 arts. 3–9. DPC only (a person's data).

`doc_kind` CPF/CNPJ requires a number whose check digits are right (stored
without punctuation); 'estrangeiro' takes a foreign document number as typed;
'desconhecido' takes none. `whereabouts_known` decides between personal
notice and public notice (edital), art. 9.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from valuation.core.errors import NotFound
from valuation.core.forms import Form
from valuation.core.ids import (
    cnpj_is_valid,
    cpf_is_valid,
    normalise_cnpj,
    normalise_digits,
)
from valuation.db.access import Principal, require
from valuation.db.search import search_clause

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

DOC_KINDS: tuple[str, ...] = ("CPF", "CNPJ", "estrangeiro", "desconhecido")
_COLS = "id, name, doc_kind, doc_number, nationality, whereabouts_known, address, notes"


def list_owners(store: Any, user: Principal, *, search: str | None = None) -> pd.DataFrame:
    """Every owner (DPC only), ordered by name, with `wrecks`: how many wrecks each answers for."""
    require(user, "read_owners")
    where, params = "", list[Any]()
    if search and search.strip():
        clause, params = search_clause(("ow.name", "ow.doc_number"), search)
        where = f" WHERE {clause}"
    return store.fetch_df(
        f"SELECT {', '.join('ow.' + c.strip() for c in _COLS.split(','))}, "
        "(SELECT count(*) FROM wrecks w WHERE w.owner_id = ow.id) AS wrecks "
        f"FROM owners ow{where} ORDER BY ow.name", params)


def get_owner(store: Any, user: Principal, owner_id: int) -> dict[str, Any]:
    require(user, "read_owners")
    row = store.fetch_one(f"SELECT {_COLS} FROM owners WHERE id = ?", [owner_id])
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
    rec = validate_owner(data)

    def insert(tx: Any) -> int:
        cols = list(rec)
        new_id = int(tx.scalar(f"INSERT INTO owners ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
                               "RETURNING id", [rec[c] for c in cols]))
        tx.audit("create", "owner", new_id, None, rec)
        return new_id

    return store.write(user.username, insert)
