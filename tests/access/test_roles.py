"""The access policy, proved per role over every query function (architecture.md "Roles and access").

Expectations come from the data's construction (conftest: EXPECTED_CLEARED,
EXPECTED_CONTRACTS, ITEMS), never from the code under test.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

from tests.conftest import (
    CONTRACTS,
    EXPECTED_CLEARED,
    EXPECTED_CONTRACTS,
    ITEMS,
    ORGANISATIONS,
    WRECKS,
    World,
)
from valuation.accounts import users
from valuation.core.errors import AccessDenied, NotFound
from valuation.db import access, audit_log
from valuation.db.access import position_cleared
from valuation.deadlines import feeds
from valuation.inventory import queries as items
from valuation.inventory.queries import ItemFilter
from valuation.oversight import overview
from valuation.registry import contracts, offices, organisations, owners, wrecks
from valuation.registry.wrecks import list_wrecks

KEYS = ("dpc", "commission", "commission_culture", "commission_president", "explorer_a", "explorer_b", "admin")
READERS = {"dpc", "commission", "commission_culture", "commission_president", "explorer_a", "explorer_b"}
POSITION_COLUMNS = ("lat_deg", "lat_min", "lat_hem", "lon_deg", "lon_min", "lon_hem", "datum",
                    "position_approximate", "depth_m", "lat", "lon")

NEW_WRECK = {"code": "NAU-2020-77", "name": "Balsa", "hull_material": "aço", "casualty_year": 2020,
             "casualty_type": "naufrágio", "lat_deg": 1, "lat_min": 0, "lat_hem": "S", "lon_deg": 40,
             "lon_min": 0, "lon_hem": "W", "datum": "WGS-84", "office_code": "CPRJ", "situation": "soçobrada"}
NEW_ORG = {"name": "Épsilon Ltda", "cnpj": "33.000.167/0001-01", "nationality": "brasileira", "address": "Rua C",
           "city": "Santos", "state": "SP", "representative_name": "Zé", "registered_on": "2024-01-01"}
NEW_OWNER = {"name": "Dono", "doc_kind": "desconhecido", "nationality": "brasileira", "whereabouts_known": False}

# Every role-scoped function of the store, called as the given user; and who may call it.
CALLS: dict[str, tuple[Callable[[World, Any], Any], set[str]]] = {
    "list_offices": (lambda w, p: offices.list_offices(w.store, p), set(KEYS)),
    "get_office": (lambda w, p: offices.get_office(w.store, p, "CPRJ"), set(KEYS)),
    "list_wrecks": (lambda w, p: wrecks.list_wrecks(w.store, p), READERS),
    "get_wreck": (lambda w, p: wrecks.get_wreck(w.store, p, w.ids["w4"]), READERS),
    "create_wreck": (lambda w, p: wrecks.create_wreck(w.store, p, NEW_WRECK), {"dpc"}),
    "list_organisations": (lambda w, p: organisations.list_organisations(w.store, p), READERS),
    "create_organisation": (lambda w, p: organisations.create_organisation(w.store, p, NEW_ORG), {"dpc"}),
    "list_owners": (lambda w, p: owners.list_owners(w.store, p), {"dpc"}),
    "get_owner": (lambda w, p: owners.get_owner(w.store, p, w.ids["owner1"]), {"dpc"}),
    "create_owner": (lambda w, p: owners.create_owner(w.store, p, NEW_OWNER), {"dpc"}),
    "list_contracts": (lambda w, p: contracts.list_contracts(w.store, p), READERS),
    "count_items": (lambda w, p: items.count_items(w.store, p), READERS),
    "page_items": (lambda w, p: items.page_items(w.store, p), READERS),
    "filter_options": (lambda w, p: items.filter_options(w.store, p)["category"], READERS),
    "overview_figures": (lambda w, p: overview.overview_figures(w.store, p), set(KEYS)),
    "list_users": (lambda w, p: users.list_users(w.store, p), {"admin"}),
    "get_user": (lambda w, p: users.get_user(w.store, p, w.ids["dpc.silva"]), {"admin"}),
    "organisation_choices": (lambda w, p: users.organisation_choices(w.store, p), {"admin"}),
    "office_choices": (lambda w, p: users.office_choices(w.store, p), {"admin"}),
    "feed_office_choices": (lambda w, p: feeds.office_choices(w.store, p), {"dpc", "explorer_a", "explorer_b"}),
    "create_user": (lambda w, p: users.create_user(w.store, p, {"username": "novo", "full_name": "N", "role": "dpc",
                                                                 "password": "senha-longa-9"}), {"admin"}),
    "set_role": (lambda w, p: users.set_role(w.store, p, w.ids["com.navy"], "commission", commission_body="culture"),
                 {"admin"}),
    "set_active": (lambda w, p: users.set_active(w.store, p, w.ids["com.navy"], False), {"admin"}),
    "unlock_user": (lambda w, p: users.unlock_user(w.store, p, w.ids["com.navy"]), {"admin"}),
    "reset_password": (lambda w, p: users.reset_password(w.store, p, w.ids["com.navy"], "nova-senha-123"),
                       {"admin"}),
    "count_audit": (lambda w, p: audit_log.count_audit(w.store, p), {"admin"}),
    "page_audit": (lambda w, p: audit_log.page_audit(w.store, p), {"admin"}),
}


def _data_snapshot(w: World) -> tuple:
    return tuple(w.store.scalar(f"SELECT count(*) FROM {t}") for t in
                 ("wrecks", "organisations", "owners", "users", "audit_log"))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_who_may_call_what(small_world, name):
    """Every role is tried on every function: the others are refused with nothing written."""
    fn, allowed = CALLS[name]
    for key in sorted(set(KEYS) - allowed):
        before = _data_snapshot(small_world)
        with pytest.raises(AccessDenied) as err:
            fn(small_world, small_world.principal(key))
        assert "Acesso negado" in str(err.value), key
        assert _data_snapshot(small_world) == before, key        # nothing written
    for key in sorted(allowed):
        fn(small_world, small_world.principal(key))            # no exception


# -- positions ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(READERS))
def test_list_wrecks_shows_positions_only_where_cleared(small_world, key):
    df = list_wrecks(small_world.store, small_world.principal(key))
    code_to_key = {v[0]: k for k, v in WRECKS.items()}
    assert len(df) == 4            # every reader lists the register; only the position is confidential
    for _, row in df.iterrows():
        wkey = code_to_key[row["code"]]
        cleared = wkey in EXPECTED_CLEARED[key]
        assert bool(row["position_cleared"]) is cleared, (key, wkey)
        if cleared:
            assert not any(pd.isna(row[c]) for c in POSITION_COLUMNS if c != "depth_m")   # w4 has no depth
            assert row["lat_deg"] == WRECKS[wkey][5][0] and row["lat_min"] == WRECKS[wkey][5][1]
        else:
            assert all(pd.isna(row[c]) for c in POSITION_COLUMNS), (key, wkey)
            assert row["office_code"] == WRECKS[wkey][9] and not pd.isna(row["state"])   # jurisdiction only


@pytest.mark.parametrize("key", sorted(READERS))
def test_get_wreck_hides_position_and_spot_descriptions(small_world, key):
    for wkey in WRECKS:
        w = wrecks.get_wreck(small_world.store, small_world.principal(key), small_world.ids[wkey])
        cleared = wkey in EXPECTED_CLEARED[key]
        secret = f"Marco secreto de {WRECKS[wkey][0]}"
        if cleared:
            assert w["position"] is not None and w["notes"] == secret
            assert w["position"].latitude.degrees == WRECKS[wkey][5][0]
        else:
            assert w["position"] is None and w["notes"] is None and w["signalling"] is None
            assert all(w[c] is None for c in POSITION_COLUMNS)
            assert "sigilosa" in w["position_text"]
            assert str(WRECKS[wkey][5][1]).replace(".", ",") not in w["position_text"]
            assert secret not in repr(w)


def test_no_reader_but_dpc_sees_the_owner(small_world):
    w2 = small_world.ids["w2"]
    assert wrecks.get_wreck(small_world.store, small_world.principal("dpc"), w2)["owner_name"]
    for key in READERS - {"dpc"}:
        assert "owner_name" not in wrecks.get_wreck(small_world.store, small_world.principal(key), w2)


@pytest.mark.parametrize("key", KEYS)
def test_sql_clearance_agrees_with_the_policy_function(small_world, key):
    """auth.position_cleared (the rule) and the store's SQL give the same answer for every wreck."""
    user = small_world.principal(key)
    items_by_contract = {c for c, *_ in ITEMS}
    for wkey in WRECKS:
        holders = {small_world.ids[c[3]] for c in CONTRACTS.values() if c[4] == wkey}
        assessed = any(code in items_by_contract for code, c in CONTRACTS.items() if c[4] == wkey)
        rule = position_cleared(user, contract_organisation_ids=holders, under_assessment=assessed)
        assert rule is (wkey in EXPECTED_CLEARED[key])
        if key != "admin":
            row = wrecks.get_wreck(small_world.store, user, small_world.ids[wkey])
            assert bool(row["position_cleared"]) is rule


def test_a_new_contract_with_items_clears_the_position_for_the_commission(small_world):
    s, com = small_world.store, small_world.principal("commission")
    w4 = small_world.ids["w4"]
    assert not wrecks.get_wreck(s, com, w4)["position_cleared"]

    def add(tx):
        cid = tx.scalar("INSERT INTO contracts (code, kind, act, organisation_id, wreck_id, office_code, status) "
                        "VALUES ('C-9', 'exploração', 'contrato', ?, ?, 'CPRJ', 'vigente') RETURNING id",
                        [small_world.ids["org_c"], w4])
        tx.execute("INSERT INTO items (contract_id, item_code, description, category, material, quantity, "
                   "recovered_on) VALUES (?, 'C9-1', 'x', 'moeda', 'ouro', 1, DATE '2025-01-01')", [cid])

    s.write("t", add)
    assert wrecks.get_wreck(s, com, w4)["position_cleared"]


def test_admin_reads_no_position_even_through_the_audit_log(small_world):
    s = small_world.store
    wrecks.create_wreck(s, small_world.principal("dpc"), {**NEW_WRECK, "lat_min": "12.34"})
    log = audit_log.page_audit(s, small_world.principal("admin"))
    text = json.dumps(log.astype(str).to_dict("records"))
    assert "Balsa" in text and "12.34" not in text and "sigilosa" in text


# -- contracts, items, organisations ---------------------------------------------------------


@pytest.mark.parametrize("key", sorted(READERS))
def test_contracts_in_scope(small_world, key):
    s, user = small_world.store, small_world.principal(key)
    assert set(contracts.list_contracts(s, user)["code"]) == EXPECTED_CONTRACTS[key]
    for code in CONTRACTS:
        if code in EXPECTED_CONTRACTS[key]:
            assert contracts.get_contract(s, user, code)["code"] == code
        else:
            with pytest.raises(NotFound):
                contracts.get_contract(s, user, code)


@pytest.mark.parametrize("key", sorted(READERS))
def test_contract_choices_in_scope(small_world, key):
    """The light list a page chooses a contract from (Documentos e fotos) shows the same contracts."""
    s, user = small_world.store, small_world.principal(key)
    choices = contracts.contract_choices(s, user, with_items=True)
    assert list(choices["code"]) == sorted(EXPECTED_CONTRACTS[key])
    full = contracts.list_contracts(s, user)
    assert dict(zip(choices["code"], choices["has_items"])) == {c: n > 0 for c, n in zip(full["code"], full["items"])}
    assert "has_items" not in contracts.contract_choices(s, user).columns


@pytest.mark.parametrize("key", sorted(READERS))
def test_items_in_scope(small_world, key):
    s, user = small_world.store, small_world.principal(key)
    expected = {code for contract, code, *_ in ITEMS if contract in EXPECTED_CONTRACTS[key]}
    df = items.page_items(s, user, page_size=500)
    assert set(df["item_code"]) == expected
    assert items.count_items(s, user) == len(expected)
    for contract in CONTRACTS:            # asking for another company's contract by code yields nothing
        n = items.count_items(s, user, ItemFilter(contract_code=contract))
        page = items.page_items(s, user, ItemFilter(contract_code=contract))
        if contract not in EXPECTED_CONTRACTS[key]:
            assert n == 0 and page.empty
    expected_categories = sorted({cat for contract, _, _, cat, *_ in ITEMS if contract in EXPECTED_CONTRACTS[key]})
    assert items.filter_options(s, user)["category"] == expected_categories


def test_explorer_reads_only_its_own_organisation(small_world):
    s = small_world.store
    for key, own in (("explorer_a", "org_a"), ("explorer_b", "org_b")):
        user = small_world.principal(key)
        df = organisations.list_organisations(s, user)
        assert list(df["name"]) == [ORGANISATIONS[own][0]]
        assert organisations.get_organisation(s, user, small_world.ids[own])["representative_cpf"] == "52998224725"
        for other in set(ORGANISATIONS) - {own}:
            with pytest.raises(NotFound):
                organisations.get_organisation(s, user, small_world.ids[other])
        assert organisations.list_organisations(s, user, search="beta" if own == "org_a" else "alfa").empty


@pytest.mark.parametrize("key", ["commission", "commission_president", "dpc"])
def test_management_and_commission_see_every_organisation(small_world, key):
    df = organisations.list_organisations(small_world.store, small_world.principal(key))
    assert len(df) == 3
    cpfs = set(df["representative_cpf"].dropna())
    assert cpfs == ({"52998224725"} if key == "dpc" else set())      # a person's CPF: dpc only
    counts = dict(zip(df["name"], df["contracts"]))
    if key != "dpc":   # the commission counts only contracts under assessment
        assert counts[ORGANISATIONS["org_a"][0]] == 1


# -- overview ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(READERS))
def test_overview_counts_only_what_the_role_may_read(small_world, key):
    f = overview.overview_figures(small_world.store, small_world.principal(key))
    visible = [it for it in ITEMS if it[0] in EXPECTED_CONTRACTS[key]]
    assert f["contracts"] == len(EXPECTED_CONTRACTS[key])
    assert f["items"] == len(visible)
    assert f["items_undelivered"] == sum(1 for it in visible if it[7] is None)
    assert f["wrecks_position_cleared"] == len(EXPECTED_CLEARED[key])
    assert sum(f["items_by_category"].values()) == len(visible)
    assert f["contracts_by_status"] == {
        st: n for st in {CONTRACTS[c][6] for c in EXPECTED_CONTRACTS[key]}
        for n in [sum(1 for c in EXPECTED_CONTRACTS[key] if CONTRACTS[c][6] == st)]}
    if key.startswith("explorer"):
        assert f["organisations"] == 1 and f["wrecks"] == len(EXPECTED_CLEARED[key])
    else:
        assert f["wrecks"] == 4


def test_admin_overview_has_no_wreck_data(small_world):
    f = overview.overview_figures(small_world.store, small_world.principal("admin"))
    assert f["users"] == 9 and f["users_active"] == 8 and f["users_by_role"]["dpc"] == 2
    assert not {"wrecks", "contracts", "items", "wrecks_by_state"} & set(f)


# -- the one access module ----------------------------------------------------------------------


def test_every_permission_names_its_action_in_portuguese():
    """`require` says what was refused by the action's label, never by its key."""
    assert set(access.PERMISSIONS) == set(access.ACTION_LABELS)
    assert all(label and "_" not in label for label in access.ACTION_LABELS.values())


def test_each_permission_is_one_record_of_one_table():
    """Key, roles and label of an action are one row of PERMISSION_TABLE: no key twice (the derived
    dicts would keep only the last), no role that does not exist, no action without a role."""
    keys = [p.key for p in access.PERMISSION_TABLE]
    assert len(keys) == len(set(keys)) == len(access.PERMISSIONS)
    assert all(p.roles and set(p.roles) <= set(access.ROLES) for p in access.PERMISSION_TABLE)
    assert all(access.PERMISSIONS[p.key] == p.roles and access.ACTION_LABELS[p.key] == p.label
               for p in access.PERMISSION_TABLE)


def test_own_company_helpers_answer_from_the_users_organisation(small_world):
    """An explorer's own rows are its organisation's; another company's row, or a row without one,
    is nobody's own; dpc owns none but is cleared for all; `chosen_organisation` ignores what an
    explorer asks for. The SQL twin selects exactly the contracts of CONTRACTS held by the company."""
    w = small_world
    alfa, beta, dpc = w.principal("explorer_a"), w.principal("explorer_b"), w.principal("dpc")
    org_a, org_b = w.ids["org_a"], w.ids["org_b"]
    assert access.own_organisation(alfa, org_a) and not access.own_organisation(alfa, org_b)
    assert not access.own_organisation(alfa, None) and not access.own_organisation(dpc, None)
    assert access.organisation_cleared(dpc, org_b) and not access.organisation_cleared(alfa, org_b)
    missing = NotFound("Contrato X não encontrado.", what="contract", key="X")
    access.require_own(alfa, org_a, missing)
    for org in (org_b, None):
        with pytest.raises(NotFound) as caught:
            access.require_own(alfa, org, missing)
        assert caught.value is missing
    assert access.chosen_organisation(alfa, org_b, any_with="read_all_deadlines") == org_a
    assert access.chosen_organisation(dpc, org_b, any_with="read_all_deadlines") == org_b
    assert access.chosen_organisation(dpc, None, any_with="read_all_deadlines") is None
    for user, org in ((alfa, "org_a"), (beta, "org_b")):
        sql, params = access.own_scope(user, "c")
        got = {r["code"] for r in w.store.fetch(f"SELECT c.code FROM contracts c WHERE {sql}", params)}
        assert got == {k for k, c in CONTRACTS.items() if c[3] == org}
    assert access.own_scope(dpc, "c") == ("FALSE", [])


def test_user_predicates_select_the_users_by_role_and_company(small_world):
    """`users_allowed` / `users_with_roles` / `users_of_organisation` over the real users table."""
    w = small_world

    def names(sql: str, params: list[Any]) -> set[str]:
        return {r["username"] for r in w.store.fetch(f"SELECT u.username FROM users u WHERE {sql}", params)}

    assert names(*access.users_allowed("manage_users")) == {w.username("admin")}
    assert names(*access.users_with_roles(access.COMMISSION_ROLES)) == {
        w.username(k) for k in ("commission", "commission_culture", "commission_president")}
    assert names(*access.users_of_organisation(w.ids["org_b"])) == {w.username("explorer_b")}
    assert names(*access.users_with_roles(())) == set()
    assert [r for r in access.ROLES if access.presides(r)] == ["commission_president"]
    assert [r for r in access.ROLES if access.answers_for_offices(r)] == ["dpc"]
    assert all(access.is_role(r) for r in access.ROLES) and not access.is_role("root") and not access.is_role(None)


def test_attachment_scopes_follow_the_roles():
    """dpc reads every owner kind; the commission only items; the admin nothing; explorers no wreck."""
    def none(user, kind):
        return "WHERE FALSE" in access.attachment_owner_scope(user, kind)[0]

    roles = {r: access.Principal(1, r, r, r, 7 if r == "explorer" else None, None) for r in access.ROLES}
    assert not any(none(roles["dpc"], k) for k in access.ATTACHMENT_OWNER_TABLES)
    assert [k for k in access.ATTACHMENT_OWNER_TABLES if not none(roles["commission"], k)] == ["item"]
    assert all(none(roles["admin"], k) for k in access.ATTACHMENT_OWNER_TABLES)
    assert none(roles["explorer"], "wreck") and not none(roles["explorer"], "contract")
    assert access.may_attach(roles["explorer"], "item", "photo") and not access.may_attach(roles["explorer"], "wreck")
    assert not access.may_attach(roles["commission"], "item")


def test_the_roles_table_holds_exactly_the_declared_roles(store) -> None:
    """users.role references the lookup table `roles` (migration 071): a role declared in db/access.ROLES must be a
    row there (a new role is an INSERT in a migration, never a rebuild of users), and no other row exists."""
    from valuation.db.access import ROLES

    assert {r["code"] for r in store.fetch("SELECT code FROM roles")} == set(ROLES)
