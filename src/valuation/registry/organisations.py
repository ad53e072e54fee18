"""Explorer organisations (NORMAM-10 0401, registration sheet Anexo 4-A).

Readers: dpc and commission roles see every organisation; an explorer only its
own. The representative's CPF (a person's data) is shown to dpc and to the
organisation itself only. Registration: dpc only; CNPJ and CPF check digits are
validated (ids.py) and stored without punctuation.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form, excerpt
from valuation.core.ids import (
    cnpj_is_valid,
    cpf_is_valid,
    normalise_cnpj,
    normalise_digits,
)
from valuation.db.access import Principal, allowed, contract_scope, office_of, organisation_scope, require
from valuation.db.search import search_clause
from valuation.registry import versions

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

STATUSES: tuple[str, ...] = ("ativo", "suspenso", "cancelado")
BRAZIL = "Brasil"
_COLS = ("id", "name", "trade_name", "cnpj", "nationality", "address", "city", "state", "country", "email",
         "phone", "representative_name", "experience", "registered_on", "status", "office_code")


def _columns(user: Principal) -> str:
    cols = [f"o.{c}" for c in _COLS]
    if allowed(user, "read_representative_cpf"):  # explorers see only their own row anyway
        cols.append("o.representative_cpf")
    else:
        cols.append("CAST(NULL AS VARCHAR) AS representative_cpf")
    return ", ".join(cols)


def list_organisations(store: Any, user: Principal, *, status: str | None = None,
                       search: str | None = None) -> pd.DataFrame:
    """Organisations the user may read, ordered by name, with `contracts`: how many of their
    contracts this user may read."""
    scope, params = organisation_scope(user, "o")
    cscope, cparams = contract_scope(user, "c")
    params = [*cparams, *params]
    clauses = [scope]
    if status:
        clauses.append("o.status = ?")
        params.append(status)
    if search and search.strip():
        clause, extra = search_clause(("o.name", "o.trade_name", "o.cnpj", "o.city"), search)
        clauses.append(clause)
        params += extra
    return store.fetch_df(
        f"SELECT {_columns(user)}, "
        f"(SELECT count(*) FROM contracts c WHERE c.organisation_id = o.id AND {cscope}) AS contracts "
        f"FROM organisations o WHERE {' AND '.join(clauses)} ORDER BY o.name", params)


def _is_id(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 < v < 2 ** 63


def get_organisation(store: Any, user: Principal, organisation_id: int) -> dict[str, Any]:
    """One organisation as a dict; NotFound for one the user may not read (explorers: another company)."""
    scope, params = organisation_scope(user, "o")
    row = store.fetch_one(f"SELECT {_columns(user)} FROM organisations o WHERE o.id = ? AND {scope}",
                          [organisation_id, *params]) if _is_id(organisation_id) else None
    if row is None:  # another company's row and a missing one answer the same (no existence oracle)
        raise NotFound(f"Empresa {excerpt(organisation_id)} não encontrada.", what="organisation",
                       key=organisation_id)
    return row


ORGANISATION_FIELDS: tuple[str, ...] = (
    "name", "trade_name", "cnpj", "nationality", "address", "city", "state", "country", "email", "phone",
    "representative_name", "representative_cpf", "experience", "registered_on", "status", "office_code",
)
OFFICE_LABEL = "Capitania de inscrição"


def _office(store: Any, user: Principal | None, f: Form) -> str | None:
    """The office where the company registers (NORMAM-10 (ed. 2002) 0401): an office officer's own, whatever the
    form says; headquarters may name one or none."""
    code = f.text("office_code", OFFICE_LABEL, required=False, max_len=20)
    bound = office_of(user) if user is not None else None
    if bound is not None:
        if code is not None and code != bound:
            f.fail("office_code", f"{OFFICE_LABEL}: o seu perfil inscreve empresas na sua Capitania apenas.")
        return bound
    if code is not None and store.scalar("SELECT count(*) FROM offices WHERE code = ?", [code]) == 0:
        f.fail("office_code", f"{OFFICE_LABEL}: desconhecida ({excerpt(code)}).")
    return code


def validate_organisation(store: Any, data: Mapping[str, Any], *, user: Principal | None = None,
                          current_id: int | None = None) -> dict[str, Any]:
    """The row for a new organisation (or the new state of organisation `current_id`), or InputError naming every
    bad field (pt-BR)."""
    f = Form(data, allowed=ORGANISATION_FIELDS)
    rec: dict[str, Any] = {}
    rec["name"] = f.text("name", "Razão social", max_len=200)
    rec["trade_name"] = f.text("trade_name", "Nome fantasia", required=False, max_len=200)
    country = rec["country"] = f.text("country", "País", required=False, max_len=100) or BRAZIL
    in_brazil = country.strip().lower() == BRAZIL.lower()
    rec["nationality"] = f.text("nationality", "Nacionalidade", max_len=100)
    cnpj = f.text("cnpj", "CNPJ", required=in_brazil, max_len=20)
    if cnpj is not None:
        if not cnpj_is_valid(cnpj):
            f.fail("cnpj", f"CNPJ inválido: {excerpt(cnpj)} (dígitos verificadores não conferem; "
                           "ex.: 12.345.678/0001-95).")
        else:
            cnpj = normalise_cnpj(cnpj)
            if store.scalar("SELECT count(*) FROM organisations WHERE cnpj = ? AND id IS DISTINCT FROM ?",
                            [cnpj, current_id]):
                f.fail("cnpj", f"CNPJ: já existe uma empresa cadastrada com o CNPJ {cnpj}.")
    rec["cnpj"] = cnpj
    rec["address"] = f.text("address", "Endereço", max_len=300)
    rec["city"] = f.text("city", "Cidade", max_len=100)
    rec["state"] = f.uf("state", "UF/Estado", required=in_brazil) if in_brazil else \
        f.text("state", "UF/Estado", required=False, max_len=100)
    rec["email"] = f.email("email")
    rec["phone"] = f.text("phone", "Telefone", required=False, max_len=40)
    rec["representative_name"] = f.text("representative_name", "Representante legal", max_len=200)
    cpf = f.text("representative_cpf", "CPF do representante", required=False, max_len=20)
    if cpf is not None and not cpf_is_valid(cpf):
        f.fail("representative_cpf", f"CPF do representante inválido: {cpf} (dígitos verificadores não conferem).")
        cpf = None
    rec["representative_cpf"] = normalise_digits(cpf) if cpf else None
    rec["experience"] = f.text("experience", "Experiência comprovada", required=False, max_len=4000)
    rec["registered_on"] = f.date("registered_on", "Data de inscrição")
    rec["status"] = f.choice("status", "Situação", STATUSES, required=False) or "ativo"
    rec["office_code"] = _office(store, user, f)
    f.done()
    return rec


def create_organisation(store: Any, user: Principal, data: Mapping[str, Any]) -> int:
    """Register an organisation (DPC only); returns its id. Bad input → InputError; nothing written."""
    require(user, "create_organisation")
    rec = validate_organisation(store, data, user=user)

    def insert(tx: Any) -> int:
        cols = list(rec)
        new_id = int(tx.scalar(f"INSERT INTO organisations ({', '.join(cols)}) VALUES "
                               f"({', '.join('?' for _ in cols)}) RETURNING id", [rec[c] for c in cols]))
        versions.created(tx, "organisation", new_id, rec)
        tx.audit("create", "organisation", new_id, None, rec)
        return new_id

    return store.write(user.username, insert)


def organisation_record(store: Any, user: Principal, organisation_id: int) -> dict[str, Any]:
    """The stored fields of a company the user may correct (an office officer: those of its scope), as the
    correction form starts from them; NotFound otherwise."""
    require(user, "correct_registry")
    scope, params = organisation_scope(user, "o")
    row = store.fetch_one(f"SELECT {', '.join(ORGANISATION_FIELDS)} FROM organisations o WHERE o.id = ? AND "
                          f"{scope}", [organisation_id, *params]) if _is_id(organisation_id) else None
    if row is None:
        raise NotFound(f"Empresa {excerpt(organisation_id)} não encontrada.", what="organisation",
                       key=organisation_id)
    return row


def correct_organisation(store: Any, user: Principal, organisation_id: int, data: Mapping[str, Any],
                         reason: str) -> int:
    """Correct a company's registration sheet (`reason` required): a new version — who, when, why — that the row
    becomes; returns the version number. Bad input → InputError naming each field; nothing written."""
    before = organisation_record(store, user, organisation_id)
    why = versions.checked_reason(reason)
    rec = validate_organisation(store, data, user=user, current_id=organisation_id)
    if office_of(user) is not None:         # an officer keeps the company's office as it was
        rec["office_code"] = before["office_code"]
    changed = [c for c in ORGANISATION_FIELDS if rec.get(c) != before[c]]
    if not changed:
        raise InputError(Problem("reason", "Nada a corrigir: os dados informados são os que estão registrados."))

    def update(tx: Any) -> int:
        tx.execute(f"UPDATE organisations SET {', '.join(f'{c} = ?' for c in changed)} WHERE id = ?",
                   [*(rec[c] for c in changed), organisation_id])
        version = versions.corrected(tx, "organisation", organisation_id, before,
                                     {c: rec.get(c) for c in ORGANISATION_FIELDS}, reason=why)
        tx.audit("correct", "organisation", organisation_id, {c: before[c] for c in changed},
                 {**{c: rec[c] for c in changed}, "reason": why, "version": version})
        return version

    return int(store.write(user.username, update))


HISTORY_LABELS: dict[str, str] = {
    "name": "Razão social", "trade_name": "Nome fantasia", "cnpj": "CNPJ", "nationality": "Nacionalidade",
    "address": "Endereço", "city": "Cidade", "state": "UF/Estado", "country": "País", "email": "E-mail",
    "phone": "Telefone", "representative_name": "Representante legal", "representative_cpf": "CPF do representante",
    "experience": "Experiência comprovada", "registered_on": "Data de inscrição", "status": "Situação",
    "office_code": OFFICE_LABEL,
}


def organisation_history(store: Any, user: Principal, organisation_id: int) -> list[versions.Version]:
    """The versions of a company's sheet the user may read (get_organisation's rule), oldest first; the
    representative's CPF only for a reader allowed it."""
    get_organisation(store, user, organisation_id)
    labels = dict(HISTORY_LABELS)
    if not allowed(user, "read_representative_cpf"):
        labels.pop("representative_cpf")
    return versions.history(store, "organisation", organisation_id, labels)
