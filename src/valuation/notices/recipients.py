"""Who a notice goes to: the people of a company, of an office, of the Commission — each chosen by db/access's
predicates (`users_of_organisation`, `users_of_office`, `users_allowed`), never by a role compared here. Every
helper returns the ids of active users, in id order, for `notify`.

    company_people(db, organisation_id)   the company's own logins (explorers) — never another company's
    office_people(db, office_code)        the office's officers, the DPC users who follow it (user_offices) and
                                          headquarters (the DPC users who answer for every office)
    commission_members(db)                the members who enter values (the Commission's panel, president included)
    contract_company(db, contract_id)     the organisation that holds a contract (whose people a notice goes to)
"""
from __future__ import annotations

from typing import Any

from valuation.db.access import national_users, users_allowed, users_of_office, users_of_organisation


def _ids(db: Any, where: str, params: list[Any]) -> list[int]:
    inbox, roles = users_allowed("read_own_notices", "u")
    return [int(r["id"]) for r in db.fetch(f"SELECT u.id FROM users u WHERE u.active AND {inbox} AND {where} "
                                           "ORDER BY u.id", [*roles, *params])]


def company_people(db: Any, organisation_id: int | None) -> list[int]:
    """The active people who act for `organisation_id` (none for None)."""
    if organisation_id is None:
        return []
    where, params = users_of_organisation(int(organisation_id), "u")
    return _ids(db, where, params)


def office_people(db: Any, office_code: str | None) -> list[int]:
    """The active people who answer for `office_code`: its officers, the DPC users following it and headquarters
    (who follow no office in particular), among those who may read the office's requests (what the Authority owes
    there)."""
    if not office_code:
        return []
    where, params = users_of_office(str(office_code), "u")
    national, nparams = national_users("u")
    allowed, roles = users_allowed("read_all_requests", "u")
    return _ids(db, f"({where} OR {national}) AND {allowed}", [*params, *nparams, *roles])


def commission_members(db: Any) -> list[int]:
    """The active members of the Commission's panel (those who enter values: the president too)."""
    where, roles = users_allowed("enter_assessments", "u")
    return _ids(db, where, roles)


def contract_company(db: Any, contract_id: int) -> int | None:
    """The organisation holding contract `contract_id` (None when there is no such contract)."""
    found = db.scalar("SELECT organisation_id FROM contracts WHERE id = ?", [int(contract_id)])
    return None if found is None else int(found)
