"""A company's logins are made by its office (or DPC): the CPF checked, tied to the company, disabled by them; an
office officer reaches only the companies of its office. The office officer's own login names its office."""
from __future__ import annotations

from typing import Any

import pytest

from valuation.accounts import login, users
from valuation.core.errors import AccessDenied, InputError, NotFound
from valuation.registry import organisations

REP = {"username": "rep.beta", "full_name": "Rita Beta Representante", "email": "rita@beta.example",
       "cpf": "529.982.247-25", "password": "senha-inicial-forte-1"}


def test_the_office_creates_a_representatives_login_that_sees_only_its_company(small_world: Any) -> None:
    officer = small_world.principal("office_rj")            # CPRJ: Beta holds B-1 there
    new_id = users.create_company_user(small_world.store, officer, small_world.ids["org_b"], REP)
    listed = users.company_users(small_world.store, officer, small_world.ids["org_b"])
    assert [u["username"] for u in listed if u["id"] == new_id] == ["rep.beta"]
    rep = login.authenticate(small_world.store, "rep.beta", REP["password"], now=small_world.store.now_utc())
    assert (rep.role, rep.organisation_id) == ("explorer", small_world.ids["org_b"])
    seen = organisations.list_organisations(small_world.store, rep)
    assert list(seen["id"]) == [small_world.ids["org_b"]]
    users.set_company_user_active(small_world.store, officer, small_world.ids["org_b"], new_id, False)
    assert small_world.store.scalar("SELECT active FROM users WHERE id = ?", [new_id]) is False


@pytest.mark.parametrize("changes, field", [({"cpf": ""}, "cpf"), ({"cpf": "123.456.789-00"}, "cpf"),
                                            ({"username": "A B"}, "username"), ({"password": "curta"}, "password"),
                                            ({"role": "dpc"}, "role")])
def test_a_bad_representative_is_refused_by_field_and_nothing_is_written(small_world: Any, changes: dict[str, Any],
                                                                         field: str) -> None:
    before = small_world.store.scalar("SELECT count(*) FROM users")
    with pytest.raises(InputError) as err:
        users.create_company_user(small_world.store, small_world.principal("dpc"), small_world.ids["org_b"],
                                  {**REP, **changes})
    assert field in [p.where for p in err.value.problems]
    assert small_world.store.scalar("SELECT count(*) FROM users") == before


def test_an_office_officer_cannot_reach_another_offices_company_and_an_explorer_makes_no_login(
        small_world: Any) -> None:
    with pytest.raises(NotFound):          # Alfa holds contracts in CPBA and CPSP only
        users.create_company_user(small_world.store, small_world.principal("office_rj"), small_world.ids["org_a"],
                                  REP)
    with pytest.raises(AccessDenied):
        users.create_company_user(small_world.store, small_world.principal("explorer_b"), small_world.ids["org_b"],
                                  REP)


def test_an_office_officer_login_names_its_office_and_the_role_requires_it(small_world: Any) -> None:
    admin = small_world.principal("admin")
    base = {"username": "om.santos", "full_name": "CT Paulo Santos (CPSP)", "role": "officer",
            "password": "senha-da-capitania-1"}
    with pytest.raises(InputError) as err:
        users.create_user(small_world.store, admin, base)
    assert [p.where for p in err.value.problems] == ["office_code"]
    with pytest.raises(InputError) as err:
        users.create_user(small_world.store, admin, {**base, "role": "dpc", "office_code": "CPSP"})
    assert [p.where for p in err.value.problems] == ["office_code"]
    users.create_user(small_world.store, admin, {**base, "office_code": "CPSP"})
    p = login.authenticate(small_world.store, "om.santos", base["password"], now=small_world.store.now_utc())
    assert (p.role, p.office_code) == ("officer", "CPSP")
