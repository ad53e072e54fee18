"""Issue 8.5 — access, by discovery (tests/access/test_roles.py lists the foundation's functions by hand;
this file covers every public `(store, user, …)` function of the package's capability modules, present and
future): called as admin, as each explorer with the OTHER company's identifiers (a guessed
contract code, wreck, organisation, round…), and as a commission member with a wreck that is
not under assessment, each call is refused or returns nothing that role may not read. What
may not be read is stated as marker texts taken from the data's construction (conftest).

Also: a page reached by URL by a role the navigation does not offer it to is refused (for
every page file), and cached results never cross users — statically (every `st.cache_data`
takes the user) and dynamically (explorer B's pages are the same whether or not explorer A's
ran just before in the same process, caches kept).
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import os
import zipfile
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.support.package_modules import store_functions
from tests.support.ui import ROOT, each_tab, glue_files, page_direct, refused, texts
from ui.session import SEEN_KEY, USER_KEY
from valuation.core.errors import AccessDenied, ValuationError
from valuation.db import access

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import MATRIX  # noqa: E402  (the calls are counted in the run's summary)

pytest_plugins = ["tests.support.fuzz_report"]

# -- what each role may not read (markers from conftest's construction) ----------------------------------
A_ITEMS = ("Moeda de prata de 8 reales", "Moeda de ouro de 4 escudos", "Prato de faiança portuguesa",
           "Canhão de bronze", "Botija de azeite", "Astrolábio náutico", "A1-00")
B_ITEMS = ("Sino de bordo", "Hélice", "Garrafa de vidro", "Moeda de 1000 réis", "B1-00")
SPOT = {w: (f"Marco secreto de {code}", f"Boia de {code}") for w, code in
        (("w1", "NAU-1668-01"), ("w2", "NAU-1890-02"), ("w3", "NAU-1995-03"), ("w4", "NAU-1750-04"))}
OWNER = ("Companhia de Navegação Bahiana",)
WRECK_NAMES = ("Galeão Santíssimo Sacramento", "Vapor Bahia", "Pesqueiro Três Irmãos",
               "Navio Desconhecido de Cabo Frio")
HASH = ("$argon2",)

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "explorer_a": (*B_ITEMS, *SPOT["w2"], *SPOT["w4"], *OWNER, *HASH, "Beta Salvatagem", "Gama Pesquisas",
                   "11444777000161", "45723174000110", "exp.beta", "Fernanda Braga"),
    "explorer_b": (*A_ITEMS, *SPOT["w1"], *SPOT["w3"], *SPOT["w4"], *OWNER, *HASH, "Alfa Arqueologia",
                   "Gama Pesquisas", "11222333000181", "45723174000110", "exp.alfa", "Eduardo Alves"),
    "commission": (*SPOT["w3"], *SPOT["w4"], *OWNER, *HASH),
    "admin": (*WRECK_NAMES, *A_ITEMS, *B_ITEMS, *[m for pair in SPOT.values() for m in pair], *OWNER, *HASH),
    # the officer of CPRJ: nothing of CPBA's or CPSP's records (A-1 in CPBA, A-2 in CPSP, their wrecks w1 and w3,
    # their company Alfa, which holds nothing in CPRJ) — docs/decisions/003-office-officer-role.md
    "office_rj": (*A_ITEMS, *SPOT["w1"], *SPOT["w3"], *HASH, "Galeão Santíssimo Sacramento", "Pesqueiro Três Irmãos",
                  "Alfa Arqueologia", "11222333000181"),
}
# The identifiers each role "guesses": another company's, or data outside its clearance.
FOREIGN = {
    "explorer_a": {"contract": "B-1", "wreck": "w2", "org": "org_b", "item": "B1-001", "office": "CPRJ"},
    "explorer_b": {"contract": "A-1", "wreck": "w1", "org": "org_a", "item": "A1-001", "office": "CPBA"},
    "commission": {"contract": "A-2", "wreck": "w4", "org": "org_c", "item": "A1-001", "office": "CPRJ"},
    "admin": {"contract": "A-1", "wreck": "w1", "org": "org_a", "item": "A1-001", "office": "CPBA"},
    "office_rj": {"contract": "A-1", "wreck": "w1", "org": "org_a", "item": "A1-001", "office": "CPBA"},
}
ROLES = tuple(FOREIGN)
DAY = date(2025, 6, 30)


def _discover() -> dict[str, Any]:
    return store_functions()


FUNCTIONS = _discover()


class Unfillable(Exception):
    pass


def _rounds(world: Any) -> dict[str, int]:
    """A round on A-1 and one on B-1 (round_id guesses)."""
    from valuation.commission.rounds import open_round

    pres = world.principal("commission_president")
    return {code: open_round(world.store, pres, code).id for code in ("A-1", "B-1")}


def _argument(world: Any, fn: Any, p: inspect.Parameter, role: str, rounds: dict[str, int],
              foreign: dict[str, str] | None = None) -> Any:
    f = foreign or FOREIGN[role]
    ids = world.ids
    ann = str(p.annotation)
    module = inspect.getmodule(fn)
    by_name: dict[str, Any] = {
        "contract_code": f["contract"], "wreck_id": ids[f["wreck"]], "organisation_id": ids[f["org"]],
        "item_id": ids[f["item"]], "owner_id": ids["owner1"], "user_id": ids["dpc.silva"],
        "office": f["office"], "office_code": f["office"], "year": 2025, "as_of": DAY, "day": DAY, "today": DAY,
        "start": date(2025, 1, 1), "end": DAY, "price_date": date(2025, 3, 10),
        "now": datetime(2025, 6, 30, 12, tzinfo=UTC),
        "generated_at": datetime(2025, 6, 30, 12), "key": f"monthly_report:{f['contract']}:2025-03",
        "reason": "motivo de teste de acesso", "note": "nota de teste de acesso", "currency": "USD", "brl": "5.10",
        "days": ["sábado"],
        "new_password": "senha-nova-123", "active": False, "role": "dpc", "fmt": "csv", "file_name": "x.csv",
        "historical": False, "amount": Decimal("10.00"), "significance": None, "must_keep": None,
        "source": "catalogo", "event_id": 1, "raw": "10",
        "round_id": rounds.get("B-1" if role == "explorer_a" else "A-1", 1),
    }
    if p.name == "code":
        return f["office"] if "office" in module.__name__ else f["contract"]
    if p.name == "data":
        return b"" if "bytes" in ann else {}
    if p.name in by_name:
        return by_name[p.name]
    if p.name in ("value", "values"):
        return Decimal("10.00")
    if p.name == "item_code":
        return f["item"]
    if p.name.endswith("_on"):
        return DAY
    if p.name.endswith("_id") or p.name.endswith("_no"):
        return 1                                    # a guessed number: the access check comes first
    target = getattr(module, ann.split("|")[0].strip(), None)
    if dataclasses.is_dataclass(target):      # every required field filled the same way (another company's ids)
        kwargs = {x.name: _argument(world, fn, inspect.Parameter(x.name, inspect.Parameter.KEYWORD_ONLY,
                                                                 annotation=str(x.type)), role, rounds, f)
                  for x in dataclasses.fields(target)
                  if x.default is dataclasses.MISSING and x.default_factory is dataclasses.MISSING}
        return target(**kwargs)
    if ann == "Form":                         # a form the function records its problems in (a fresh one)
        from valuation.core.forms import Form

        return Form({}, allowed=())
    if "DataFrame" in ann or "Table" in ann:
        return pd.DataFrame()
    if any(t in ann for t in ("Sequence", "list", "tuple", "Iterable", "Collection")):
        return [f["item"]] if "str" in ann else []
    if "Mapping" in ann or "dict" in ann:
        return {}
    for kind, value in (("Decimal", Decimal("10.00")), ("bool", False), ("datetime", datetime(2025, 6, 30, 12)),
                        ("date", DAY), ("int", 1), ("str", "texto de teste")):
        if kind in ann:
            return value
    raise Unfillable(p.name)


def _call(world: Any, fn: Any, role: str, rounds: dict[str, int], foreign: dict[str, str] | None = None) -> Any:
    args = {}
    for p in list(inspect.signature(fn).parameters.values())[2:]:
        if p.default is inspect.Parameter.empty:
            args[p.name] = _argument(world, fn, p, role, rounds, foreign)
    return fn(world.store, world.principal(role), **args)


def _text(value: Any, depth: int = 0) -> str:
    """Everything a result shows, as text (DataFrames, dataclasses, PDF and XLSX bytes included)."""
    if depth > 6:
        return repr(value)
    if isinstance(value, pd.DataFrame):
        return value.to_csv()
    if hasattr(value, "to_pandas") and callable(value.to_pandas):
        return value.to_pandas().to_csv()
    if isinstance(value, (bytes, bytearray)):
        data = bytes(value)
        if data.startswith(b"%PDF"):
            from pypdf import PdfReader

            return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)
        if data.startswith(b"PK"):
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                return "\n".join(z.read(n).decode("utf-8", "replace") for n in z.namelist() if n.endswith(".xml"))
        return data.decode("utf-8", "replace")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return "\n".join(_text(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_text(v, depth + 1)}" for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return "\n".join(_text(v, depth + 1) for v in value)
    return str(value)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, _world_template: tuple[Path, dict[str, int]]):
    """One small world for the whole matrix (as conftest's small_world, module-scoped for speed: the
    calls below change nothing that another call's expectations depend on), with a round per contract."""
    import shutil

    from tests.conftest import USER_OFFICES, USERS, World
    from valuation.db.access import Principal
    from valuation.db.store import Store

    template, ids = _world_template
    path = tmp_path_factory.mktemp("matrix") / "world.duckdb"
    shutil.copyfile(template, path)
    store = Store(path)
    principals = {key: Principal(id=ids[u], username=u, full_name=n, role=r, organisation_id=ids[o] if o else None,
                                 commission_body=b, office_code=USER_OFFICES.get(key))
                  for key, (u, n, r, o, b, _a) in USERS.items()}
    w = World(store=store, path=path, ids=dict(ids), principals=principals)
    w.rounds = _rounds(w)          # type: ignore[attr-defined]
    yield w
    store.close()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_store_function_refuses_or_scopes_for_admin_explorers_and_commission(world: Any, name: str) -> None:
    small_world = world
    fn = FUNCTIONS[name]
    rounds = world.rounds
    outcomes = {}
    for role in ROLES:
        try:
            result = _call(small_world, fn, role, rounds)
        except Unfillable as exc:
            pytest.fail(f"{name}: the matrix cannot fill the parameter {exc}: teach _argument its value")
        except AccessDenied as exc:
            assert "Acesso negado" in str(exc) or str(exc).strip()
            outcomes[role] = "refused"
            continue
        except ValuationError as exc:          # NotFound for another company's record, InputError…: nothing returned
            text = str(exc)
            leaked = [m for m in FORBIDDEN[role] if m.casefold() in text.casefold()]
            assert not leaked, (name, role, leaked, text)
            outcomes[role] = type(exc).__name__
            continue
        shown = _text(result)
        leaked = [m for m in FORBIDDEN[role] if m.casefold() in shown.casefold()]
        assert not leaked, f"{name} as {role} returned {leaked}"
        outcomes[role] = "scoped"
    assert set(outcomes) == set(ROLES), outcomes



# -- every explorer, with every identifier of the other companies -------------------------------------------
# Each explorer's foreign identifiers, all of them: the other companies' contracts, their wrecks and the
# wreck nobody holds, the other organisations, the first and last of the other companies' items. Variant i
# takes the i-th of each list (cycling), so every identifier is passed to every function at least once.
OTHERS = {
    "explorer_a": {"contract": ["B-1"], "wreck": ["w2", "w4"], "org": ["org_b", "org_c"],
                   "item": ["B1-001", "B1-004"], "office": ["CPRJ"]},
    "explorer_b": {"contract": ["A-1", "A-2"], "wreck": ["w1", "w3", "w4"], "org": ["org_a", "org_c"],
                   "item": ["A1-001", "A1-006"], "office": ["CPBA", "CPSP"]},
    "office_rj": {"contract": ["A-1", "A-2"], "wreck": ["w1", "w3"], "org": ["org_a"],
                  "item": ["A1-001", "A1-006"], "office": ["CPBA", "CPSP"]},
}


def _variants(role: str) -> list[dict[str, str]]:
    lists = OTHERS[role]
    return [{k: v[i % len(v)] for k, v in lists.items()} for i in range(max(len(v) for v in lists.values()))]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_store_function_as_each_explorer_with_every_other_companys_ids(world: Any, name: str) -> None:
    fn = FUNCTIONS[name]
    for role in OTHERS:
        for foreign in _variants(role):
            try:
                result = _call(world, fn, role, world.rounds, foreign)
            except Unfillable as exc:
                pytest.fail(f"{name}: cannot fill the parameter {exc}")
            except ValuationError as exc:      # refused, not found, bad input: the message leaks nothing
                leaked = [m for m in FORBIDDEN[role] if m.casefold() in str(exc).casefold()]
                assert not leaked, (name, role, foreign, leaked, str(exc))
                MATRIX.count(name.split(".", 1)[0], outcome="denied" if isinstance(exc, AccessDenied) else
                             "not found" if type(exc).__name__ == "NotFound" else "refused")
                continue
            shown = _text(result)
            leaked = [m for m in FORBIDDEN[role] if m.casefold() in shown.casefold()]
            assert not leaked, f"{name} as {role} with {foreign} returned {leaked}"
            MATRIX.count(name.split(".", 1)[0], outcome="scoped")

def test_discovery_reaches_every_module_and_the_markers_are_real(small_world: Any) -> None:
    """The markers occur in the data (so their absence above means something), and discovery found
    the foundation's functions and those of every store module that has role-scoped functions."""
    s = small_world.store
    everything = "\n".join(str(v) for t in ("wrecks", "items", "organisations", "owners", "users")
                           for row in s.fetch(f"SELECT * FROM {t}") for v in row.values())
    for role, markers in FORBIDDEN.items():
        for m in markers:
            assert m.casefold() in everything.casefold(), (role, m)
    assert {"registry.wrecks.list_wrecks", "registry.wrecks.get_wreck",
            "inventory.queries.page_items", "accounts.users.list_users", "db.audit_log.page_audit",
            "registry.organisations.get_organisation"} <= set(FUNCTIONS)
    assert len(FUNCTIONS) >= 40


# -- a guessed page URL ------------------------------------------------------------------------------------
PAGE_KEYS = sorted(p.stem for p in (ROOT / "pages").glob("*.py"))
GUESSES = [(role, key) for role in ("explorer", "admin", "commission") for key in PAGE_KEYS
           if key not in access.PAGES_BY_ROLE[role]]
ROLE_KEY = {"explorer": "explorer_a", "admin": "admin", "commission": "commission"}


@pytest.mark.parametrize("role, key", GUESSES, ids=[f"{r}-{k}" for r, k in GUESSES])
def test_a_page_reached_by_url_without_the_role_is_refused(small_world: Any, role: str, key: str) -> None:
    small_world.store.close()
    at = page_direct(small_world.path, small_world.principal(ROLE_KEY[role]), key)
    assert not at.exception, at.exception
    assert refused(at), f"{role} reached pages/{key}.py"
    shown = texts(at)
    leaked = [m for m in FORBIDDEN[ROLE_KEY[role]] if m.casefold() in shown.casefold()]
    assert not leaked, leaked


# -- caches never cross users ------------------------------------------------------------------------------
def _cached_functions() -> list[tuple[Path, ast.FunctionDef, str]]:
    found = []
    for path in glue_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in ("cache_data", "cache_resource"):
                    found.append((path, node, name))
    return found


USER_PARAMS = {"user", "principal", "username", "user_id", "viewer"}


def test_cached_results_are_keyed_by_the_user() -> None:
    """st.cache_data is shared by every session of the process: a cached function that reads the
    store must take the user (so two users never share an entry); st.cache_resource holds only the
    Store itself, never query results (the Store is the process's one Store: ui/session.store)."""
    problems = []
    for path, fn, kind in _cached_functions():
        params = {a.arg for a in [*fn.args.args, *fn.args.kwonlyargs]}
        body = ast.unparse(fn)
        reads_store = "store" in body or "valuation" in body
        where = f"{path.relative_to(ROOT)}:{fn.lineno} {fn.name}"
        if kind == "cache_data" and reads_store and not params & USER_PARAMS:
            problems.append(f"{where}: st.cache_data reads the store without the user among its parameters")
        if kind == "cache_resource" and (params & USER_PARAMS or "fetch" in body or "list_" in body):
            problems.append(f"{where}: st.cache_resource must hold the Store only")
    assert not problems, problems
    # the Store itself is the process's one Store (valuation.db.shared), not a cached resource
    assert "open_shared(" in (ROOT / "ui" / "session.py").read_text(encoding="utf-8")


EXPLORER_PAGES = [k for k in PAGE_KEYS if k in access.PAGES_BY_ROLE["explorer"]]


def _run_page(db: Path, user: Any, key: str) -> AppTest:
    """Like ui_support.page_as, but WITHOUT clearing Streamlit's caches."""
    os.environ["VALUATION_DB"] = str(db)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state[USER_KEY] = user
    at.session_state[SEEN_KEY] = datetime.now()
    at.run()
    at.switch_page(f"pages/{key}.py")
    at.run()
    return at


def test_two_explorers_sessions_never_share_results(small_world: Any) -> None:
    """Explorer A visits every page, then explorer B in the same process with the caches kept: B's
    pages (text and tables) hold nothing of A's company."""
    import streamlit as st

    small_world.store.close()
    a, b = small_world.principal("explorer_a"), small_world.principal("explorer_b")
    st.cache_resource.clear()
    st.cache_data.clear()                                   # caches kept from here on
    for k in EXPLORER_PAGES:
        at_a = _run_page(small_world.path, a, k)
        for tab in each_tab(at_a, k):      # A opens every tab (only the open one is drawn, and cached)
            assert not at_a.exception, (k, tab, at_a.exception)
        at_b = _run_page(small_world.path, b, k)
        for tab in each_tab(at_b, k):
            assert not at_b.exception, (k, tab, at_b.exception)
            after = texts(at_b) + "\n".join(str(d.value) for d in at_b.dataframe)
            leaked = [m for m in FORBIDDEN["explorer_b"] if m.casefold() in after.casefold()]
            assert not leaked, f"pages/{k}.py, aba {tab}, shows explorer B {leaked} after explorer A's visit"
    st.cache_resource.clear()
