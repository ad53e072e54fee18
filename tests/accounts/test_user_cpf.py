"""A user's CPF (issue 27: whose certificate must sign an act, whom a gov.br login is): check digits, one user
per CPF, audited and sealed — a CPF changed behind the application's back is caught by the seals."""
from __future__ import annotations

import pytest

from valuation.accounts import users
from valuation.core.errors import InputError
from valuation.core.ids import complete_cpf, cpf_is_valid
from valuation.db import seals
from valuation.db.access import Principal


def _admin(store) -> Principal:
    row = store.fetch_one("SELECT id, username, full_name FROM users WHERE role = 'admin' LIMIT 1")
    return Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"], role="admin",
                     organisation_id=None, commission_body=None)


@pytest.mark.parametrize("nine", ["529982247", "111444777", "000000019", "900100000"])
def test_complete_cpf_gives_valid_check_digits(nine):
    cpf = complete_cpf(nine)
    assert cpf.startswith(nine) and len(cpf) == 11 and cpf_is_valid(cpf)
    wrong = cpf[:10] + str((int(cpf[10]) + 1) % 10)
    assert not cpf_is_valid(wrong)


def test_known_public_example_cpf():
    # 529.982.247-25: the example CPF of the Receita Federal's own check-digit explanations
    assert complete_cpf("529982247") == "52998224725"


def test_set_cpf_validates_and_is_one_per_user(small_world):
    demo_store = small_world.store
    admin = _admin(demo_store)
    ids = [int(r["id"]) for r in demo_store.fetch("SELECT id FROM users ORDER BY id LIMIT 2")]
    with pytest.raises(InputError) as bad:
        users.set_cpf(demo_store, admin, ids[0], "529.982.247-26")
    assert bad.value.problems[0].path == "cpf" and "dígitos verificadores" in bad.value.problems[0].message
    users.set_cpf(demo_store, admin, ids[0], "529.982.247-25")
    assert users.user_by_cpf(demo_store, "52998224725")["id"] == ids[0]
    with pytest.raises(InputError) as taken:
        users.set_cpf(demo_store, admin, ids[1], "52998224725")
    assert "outro usuário" in taken.value.problems[0].message
    audit = demo_store.fetch_one("SELECT action, after_json FROM audit_log WHERE entity = 'user' ORDER BY id DESC "
                                 "LIMIT 1")
    assert audit["action"] == "set_cpf" and "52998224725" in audit["after_json"]
    assert seals.verify(demo_store)[0]


def test_a_cpf_changed_behind_the_application_is_caught(small_world):
    demo_store = small_world.store
    admin = _admin(demo_store)
    uid = int(demo_store.scalar("SELECT min(id) FROM users"))
    users.set_cpf(demo_store, admin, uid, "52998224725")
    assert seals.verify(demo_store)[0]
    cur = demo_store.cursor()
    try:
        cur.execute("UPDATE users SET cpf = ? WHERE id = ?", [complete_cpf("111444777"), uid])
    finally:
        cur.close()
    ok, why = seals.verify(demo_store)
    assert not ok and "CPF do usuário" in why
