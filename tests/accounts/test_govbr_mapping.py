"""gov.br's Login Único mapped to local users (valuation.accounts.govbr): CPF (`sub`) first, then e-mail; an
unknown person refused in Portuguese; roles that sign acts need the account level of the dated policy in force.
The ID token's signature, issuer, audience and expiry are Authlib's checks in Streamlit's callback: the browser
test (test_govbr_login.py) proves those on real tokens."""
from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from tests.conftest import NOW
from valuation.accounts import govbr, users
from valuation.accounts.login import AuthenticationFailed
from valuation.core.ids import complete_cpf
from valuation.policies import values as policies

CPF_MEMBER = complete_cpf("529982247")
CPF_EXPLORER = complete_cpf("111444777")
CPF_NOBODY = complete_cpf("900100000")


def _claims(sub: str, *, level: Any = "silver", email: str | None = None, age: timedelta = timedelta(seconds=5),
            nonce: str = "n-1", **extra: Any) -> dict[str, Any]:
    claims: dict[str, Any] = {"iss": "https://sso.acesso.gov.br/", "sub": sub, "aud": "cliente",
                              "iat": int((NOW - age).timestamp()), "exp": int((NOW + timedelta(hours=1)).timestamp()),
                              "nonce": nonce, "amr": ["passwd"], **extra}
    if level is not None:
        claims["reliability_info"] = {"level": level, "reliabilities": [{"id": "801"}]}
    if email is not None:
        claims["email"] = email
    return claims


def _set_cpf(world: Any, key: str, cpf: str) -> None:
    users.set_cpf(world.store, world.principal("admin"), world.principal(key).id, cpf)


@pytest.fixture
def world(small_world: Any) -> Any:
    _set_cpf(small_world, "commission", CPF_MEMBER)
    _set_cpf(small_world, "explorer_a", CPF_EXPLORER)
    return small_world


def _login(world: Any, claims: dict[str, Any], book: govbr.IdentityBook | None = None):
    return govbr.principal_for_govbr(world.store, claims, now=NOW, client="203.0.113.7",
                                     book=book or govbr.IdentityBook())


# -- reading the claims (pure) ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "claims", "cpf", "email", "level"), [
    ("gov.br: CPF in sub, level in reliability_info", {"sub": CPF_MEMBER, "reliability_info": {"level": "gold"}},
     CPF_MEMBER, None, "gold"),
    ("the níveis API's ids", {"sub": CPF_MEMBER, "reliability_info": {"level": "2"}}, CPF_MEMBER, None, "silver"),
    ("pt-BR names, any case", {"sub": CPF_MEMBER, "reliability_info": {"level": "Ouro"}}, CPF_MEMBER, None, "gold"),
    ("an unknown level is no level", {"sub": CPF_MEMBER, "reliability_info": {"level": "platina"}}, CPF_MEMBER,
     None, None),
    ("no reliability_info (scope not granted)", {"sub": CPF_MEMBER}, CPF_MEMBER, None, None),
    ("amr is this login's factors, never the level", {"sub": CPF_MEMBER, "amr": ["x509"]}, CPF_MEMBER, None, None),
    ("wrong check digits: no CPF", {"sub": CPF_MEMBER[:10] + str((int(CPF_MEMBER[10]) + 1) % 10)}, None, None,
     None),
    ("punctuated sub is not gov.br's form", {"sub": "529.982.247-25"}, None, None, None),
    ("an opaque sub, e-mail lower-cased", {"sub": "abc-123", "email": " Membro@Marinha.EXAMPLE "}, None,
     "membro@marinha.example", None),
    ("an e-mail marked unverified is not used", {"sub": "x", "email": "a@b.example", "email_verified": False},
     None, None, None),
    ("huge claims are ignored", {"sub": "1" * 5000, "email": "a@" + "b" * 5000}, None, None, None),
    ("claims of the wrong type", {"sub": 52998224725, "email": ["a@b"], "reliability_info": "gold"}, None, None,
     None),
])
def test_identity_from_claims(name: str, claims: dict[str, Any], cpf: str | None, email: str | None,
                              level: str | None) -> None:
    identity = govbr.identity_from_claims(claims)
    assert (identity.cpf, identity.email, identity.level) == (cpf, email, level), name


@pytest.mark.parametrize(("level", "minimum", "meets"), [
    ("bronze", "bronze", True), ("bronze", "silver", False), ("silver", "silver", True), ("gold", "silver", True),
    ("silver", "gold", False), ("gold", "gold", True), (None, "bronze", False),
])
def test_levels_are_ordered_bronze_prata_ouro(level: str | None, minimum: str, meets: bool) -> None:
    assert govbr.level_meets(level, minimum) is meets


# -- mapping to the local user ---------------------------------------------------------------------------------
def test_the_cpf_in_sub_maps_to_the_local_user_and_its_role(world: Any) -> None:
    user = _login(world, _claims(CPF_MEMBER, email="someone-else@example.org"))
    assert user == world.principal("commission")
    audit = world.store.fetch_one("SELECT action, entity_id, after_json FROM audit_log ORDER BY id DESC LIMIT 1")
    assert audit["action"] == "login_govbr" and audit["entity_id"] == str(user.id)
    assert json.loads(audit["after_json"])["via"] == "cpf"


def test_without_a_known_cpf_the_email_maps(world: Any) -> None:
    store = world.store
    store.write("test", lambda tx: tx.execute("UPDATE users SET email = 'dpc@marinha.example' WHERE id = ?",
                                              [world.principal("dpc").id]))
    user = _login(world, _claims(CPF_NOBODY, email="DPC@Marinha.example"))
    assert user == world.principal("dpc")


def test_an_email_of_a_user_with_another_cpf_does_not_map(world: Any) -> None:
    """The e-mail of the member whose CPF is CPF_MEMBER, presented with another CPF: another person."""
    store = world.store
    store.write("test", lambda tx: tx.execute("UPDATE users SET email = 'membro@marinha.example' WHERE id = ?",
                                              [world.principal("commission").id]))
    with pytest.raises(AuthenticationFailed) as refused:
        _login(world, _claims(CPF_NOBODY, email="membro@marinha.example"))
    assert str(refused.value) == govbr.NO_USER_MESSAGE


def test_an_unknown_person_is_refused_in_portuguese_and_audited_without_the_cpf(world: Any) -> None:
    rows = world.store.scalar("SELECT count(*) FROM audit_log")
    with pytest.raises(AuthenticationFailed) as refused:
        _login(world, _claims(CPF_NOBODY, email="ninguem@example.org"))
    assert "não há usuário ativo neste sistema com o seu CPF" in str(refused.value)
    audit = world.store.fetch_one("SELECT action, entity_id, after_json FROM audit_log ORDER BY id DESC LIMIT 1")
    assert world.store.scalar("SELECT count(*) FROM audit_log") == rows + 1
    assert audit["action"] == "login_govbr_refused" and audit["entity_id"] is None
    assert CPF_NOBODY not in audit["after_json"] and "ninguem" not in audit["after_json"]


def test_a_deactivated_user_is_nobody(world: Any) -> None:
    users.set_active(world.store, world.principal("admin"), world.principal("commission").id, False)
    with pytest.raises(AuthenticationFailed):
        _login(world, _claims(CPF_MEMBER))


# -- the trust level of the roles that sign --------------------------------------------------------------------
@pytest.mark.parametrize(("key", "level", "admitted"), [
    ("commission", "bronze", False), ("commission", None, False), ("commission", "silver", True),
    ("explorer_a", "bronze", True), ("explorer_a", None, True),   # explorers sign nothing here
])
def test_signing_roles_need_the_default_level_prata(world: Any, key: str, level: str | None, admitted: bool) -> None:
    cpf = CPF_MEMBER if key == "commission" else CPF_EXPLORER
    if admitted:
        assert _login(world, _claims(cpf, level=level)) == world.principal(key)
        return
    with pytest.raises(govbr.LevelTooLow) as refused:
        _login(world, _claims(cpf, level=level))
    message = str(refused.value)
    assert "Membro da Comissão" in message or "Comissão" in message
    assert "nível prata ou superior" in message and "Decreto 10.543/2020" in message
    audit = world.store.fetch_one("SELECT action, after_json FROM audit_log ORDER BY id DESC LIMIT 1")
    assert audit["action"] == "login_govbr_refused" and json.loads(audit["after_json"])["reason"] == "level"


def test_the_minimum_level_is_a_dated_policy_of_the_dpc(world: Any) -> None:
    """DPC raises the minimum to ouro from a future day: prata still enters until that day, not from it."""
    store, dpc = world.store, world.principal("dpc")
    today = NOW.date()
    state = policies.set_policy(store, dpc, govbr.LEVEL_POLICY, "gold", "Portaria DPC nº 7/2026.",
                                effective_from=today + timedelta(days=10))
    assert state.text == "conta gov.br ouro ou superior" and "Decreto 10.543/2020" in state.basis
    assert _login(world, _claims(CPF_MEMBER, level="silver")).role == "commission"
    later = NOW + timedelta(days=10)
    with pytest.raises(govbr.LevelTooLow) as refused:
        govbr.principal_for_govbr(store, _claims(CPF_MEMBER, level="silver", age=timedelta(days=-10, seconds=5)),
                                  now=later, book=govbr.IdentityBook())
    assert "nível ouro ou superior" in str(refused.value) and "é de nível prata" in str(refused.value)


# -- one session per identity ----------------------------------------------------------------------------------
def test_an_identity_opens_one_session_and_not_when_old(world: Any) -> None:
    book = govbr.IdentityBook()
    claims = _claims(CPF_MEMBER)
    assert _login(world, claims, book).role == "commission"
    with pytest.raises(govbr.IdentitySpent):          # the identity cookie after "Sair": no second session
        _login(world, claims, book)
    assert _login(world, _claims(CPF_MEMBER, nonce="n-2"), book).role == "commission"   # a new gov.br login
    with pytest.raises(govbr.IdentitySpent) as old:
        _login(world, _claims(CPF_MEMBER, nonce="n-3", age=govbr.MAX_IDENTITY_AGE + timedelta(seconds=1)), book)
    assert "Entrar com gov.br" in str(old.value)
    with pytest.raises(govbr.IdentitySpent):          # issued in the future (beyond the clock skew allowed)
        _login(world, _claims(CPF_MEMBER, nonce="n-4", age=-timedelta(minutes=5)), book)
    with pytest.raises(govbr.IdentitySpent):          # no iat at all
        _login(world, {k: v for k, v in _claims(CPF_MEMBER, nonce="n-5").items() if k != "iat"}, book)


def test_user_by_cpf_gives_what_a_principal_is_built_from(world: Any) -> None:
    from valuation.accounts.login import principal_from_row

    row = users.user_by_cpf(world.store, CPF_MEMBER)
    assert row is not None and principal_from_row(row) == world.principal("commission")
    assert row["cpf"] == CPF_MEMBER and "password_hash" not in row
