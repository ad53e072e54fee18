"""The Commission, inventory, custody, partition and users pages as their users meet them on the
full demo database (`db init --demo`, not a fixture) — issue 11 items 3, 5 and 6: no exception, no
raw identifier (snake_case codes such as `commission_president`, `avaliacao_externa`,
`difficulty_weights`, `item_id`), no blank marker (None, nan, <NA>, NaT) in titles, captions,
metrics, options, table headers and cells, and numbers in pt-BR (no '1223771.71', '1582.4',
'33716,38 BRL').

Also the labels of the users page and the field names in the problems of its form."""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from tests.support.db_copies import copy_database
from tests.support.ui import each_tab, open_expander, page_as
from ui.forms import named
from valuation.db import access
from valuation.db.access import Principal
from valuation.db.store import Store

PAGES = ("commission", "rates", "decisions", "inventory", "custody", "selection", "contract_terms", "survey_costs",
         "statements", "users")
USERS = ("cf.rocha", "cmg.tavares", "minc.ferraz", "dpc.prado", "exp.arqueonautica", "admin")
RAW = re.compile(r"(?<![\w./:@-])[a-z]+(?:_[a-z0-9]+)+(?![\w./:@-])")
BLANKS = {"None", "nan", "NaN", "NaT", "<NA>", "empty"}
# a cell or a metric that is a number with a decimal point ('1223771.71', '1675.2') or an amount after
# its number ('33716,38 BRL')
ENGLISH_NUMBER = re.compile(r"^(R\$ )?-?(\d+\.\d{1,2}|\d{4,}\.\d+)$|^-?[\d.]+,\d+ [A-Z]{3}$")


@pytest.fixture(scope="module")
def demo_db(full_demo_db: Path) -> Path:
    """The full demo as `db init --demo` makes it (the session's, built once per run)."""
    return full_demo_db


@pytest.fixture
def demo(demo_db: Path, tmp_path: Path) -> Path:
    """A private copy of the demo database (pages may write)."""
    copy = tmp_path / "demo.duckdb"
    copy_database(demo_db, copy)
    return copy


def principal(db: Path, username: str) -> Principal:
    with Store(db) as s:
        r = s.fetch_one("SELECT * FROM users WHERE username = ?", [username])
    return Principal(id=int(r["id"]), username=r["username"], full_name=r["full_name"], role=r["role"],
                     organisation_id=r["organisation_id"], commission_body=r["commission_body"])


def seen(at) -> list[str]:  # type: ignore[no-untyped-def]
    out: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "success", "error"):
        out += [str(e.value) for e in getattr(at, kind)]
    out += [f"{m.label} {m.value}" for m in at.metric]
    for kind in ("selectbox", "multiselect", "radio"):
        for w in getattr(at, kind):
            out.append(str(w.label))
            out += [str(o) for o in (w.options or [])][:200]
    for d in at.dataframe:
        if isinstance(d.value, pd.DataFrame):
            out += [str(c) for c in d.value.columns]
            for c in d.value.columns:
                out += [str(x) for x in d.value[c].head(200).tolist()]
    return out


@pytest.mark.parametrize("username", USERS)
def test_my_pages_read_in_portuguese_on_the_demo(demo: Path, username: str) -> None:
    user = principal(demo, username)
    views = 0
    for key in PAGES:
        if not access.may_view_page(user, key):
            continue
        at = page_as(demo, user, key, timeout=120)
        views += 1
        for tab in each_tab(at, key):   # every tab of the page, opened in turn (only the open one is drawn)
            where = (key, tab)
            assert not at.exception, (where, at.exception)
            texts = seen(at)
            raw = sorted({m for t in texts for m in RAW.findall(t)})
            assert not raw, (where, raw)
            blanks = sorted({t for t in texts if t.strip() in BLANKS})
            assert not blanks, (where, blanks)
            cells = [str(m.value) for m in at.metric] + [str(x) for d in at.dataframe for c in d.value.columns
                                                          for x in d.value[c].head(200).tolist()]
            numbers = sorted({t for t in cells if ENGLISH_NUMBER.match(t.strip())})
            assert not numbers, (where, numbers)
            # a headline amount fits its card (at most 15 characters, 'R$ 1.484.623,16'; larger ones compact)
            cut = [m.value for m in at.metric if "…" in str(m.value) or (str(m.value).startswith("R$")
                                                                          and len(str(m.value)) > 15)]
            assert not cut, (where, cut)
    assert views >= 1


def test_users_page_shows_roles_and_bodies_by_their_labels(demo: Path) -> None:
    admin = principal(demo, "admin")
    at = open_expander(page_as(demo, admin, "users"), "Novo usuário")
    assert not at.exception
    table = at.dataframe[0].value
    assert "id" not in table.columns
    assert {"Presidente da Comissão", "Empresa exploradora", "Comissão"} <= set(table["Perfil"])
    assert {"Marinha (DPHCM)", "Ministério da Cultura"} <= set(table["Órgão"])
    assert not {"commission_president", "explorer", "navy", "culture"} & (set(table["Perfil"]) | set(table["Órgão"]))
    role = next(s for s in at.selectbox if s.label == "Perfil")
    assert "Presidente da Comissão" in role.options and "commission_president" not in role.options
    # a bad new user: every problem names the field as the form shows it
    next(t for t in at.text_input if t.label == "Usuário").input("x")
    next(s for s in at.selectbox if s.label == "Perfil").select("explorer")
    next(s for s in at.selectbox if s.label == "Órgão (Comissão)").select("navy")
    next(b for b in at.button if b.label == "Criar").click()
    at.run()
    shown = " ".join(e.value.replace("\\", "") for e in at.error)
    for label in ("Usuário:", "Nome completo:", "Empresa (exploradores):", "Órgão (Comissão):", "Senha inicial:"):
        assert label in shown, (label, shown)
    assert "commission_body" not in shown and "organisation_id" not in shown and "Órgão na Comissão" not in shown


@pytest.mark.parametrize("label, message, expected", [
    ("Valor (R$)", "Valor: deve ser um número.", "Valor (R$): deve ser um número."),
    ("Significância (voto histórico)", "Significância: obrigatória.", "Significância (voto histórico): obrigatória."),
    ("Órgão (Comissão)", "Órgão na Comissão: só para a Comissão.", "Órgão (Comissão): só para a Comissão."),
    ("Moeda", "Moeda: três letras.", "Moeda: três letras."),
    ("Códigos dos itens", "Itens não encontrados: X.", "Códigos dos itens: Itens não encontrados: X."),
])
def test_a_problem_names_the_field_by_the_forms_label(label: str, message: str, expected: str) -> None:
    assert named(label, message) == expected
