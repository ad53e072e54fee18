"""Prazos → Recursos on the full demo (issue 26 §2): the DPC reads every office's decisions with their NUP and
state, a case's whole history (two appeals not granted, a third declared not known: Lei 9.784/1999 arts. 57 and
63 IV), and a fourth appeal is refused naming the field with nothing written; the Authority's appeal deadlines join
"O que a Autoridade deve"; an explorer reads its own company's cases only and sees no form."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.support.db_copies import copy_database
from tests.support.ui import first_user, open_expanders, open_tab, page_as, page_problems
from valuation.db.store import Store

TAB = "Recursos"


@pytest.fixture(scope="module")
def demo(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_database(full_demo_db, tmp_path_factory.mktemp("appeals") / "demo.duckdb")


def _tab(path: Path, role: str, tab: str = TAB) -> Any:
    at = page_as(path, first_user(path, role), "deadlines", timeout=180)
    assert not at.exception, at.exception
    open_tab(at, "deadlines", tab)
    open_expanders(at)      # the forms (ui/expanders.lazy_expander), as the DPC opens them
    assert not page_problems(at), page_problems(at)
    return at


def _table(at: Any, column: str) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if column in d.value.columns]
    assert found, f"no table with {column!r}"
    return pd.concat(found, ignore_index=True)


def _count(path: Path, sql: str) -> int:
    store = Store(path, migrate=False)
    try:
        return int(store.scalar(sql))
    finally:
        store.close()


def test_the_dpc_reads_every_case_and_its_history(demo: Path) -> None:
    at = _tab(demo, "dpc")
    cases = _table(at, "NUP")
    assert cases["OM"].nunique() > 10
    assert cases["NUP"].str.fullmatch(r"\d{5}\.\d{6}/\d{4}-\d{2}").all()
    states = set(cases["Situação"])
    assert any(s.startswith("em recurso: 1º recurso (2ª instância)") for s in states)
    assert any(s.startswith("reconsiderada pela autoridade") for s in states) and "mantida" in states
    box = next(s for s in at.selectbox if s.label == "Ver o caso")
    # the demo's case of three appeals was notified 150 days before its today (03/07/2026)
    three = next(i for i, o in enumerate(box.options) if "ciência 03/07/2026" in o)
    box.set_value(three).run()
    assert not at.exception, at.exception
    history = "\n".join(str(t.value) for t in at.text)
    assert "2º recurso (3ª instância)" in history and history.count("Decisão do recurso: Não provido") == 2
    assert "3º recurso (esfera administrativa exaurida)" in history and "Decisão do recurso: Não conhecido" in history
    assert "art. 63 IV" in history and "Ciência da decisão: notificação em" in history
    assert "Situação: mantida" in history


def test_a_fourth_instance_is_refused_in_the_form_and_nothing_is_written(demo: Path) -> None:
    at = _tab(demo, "dpc")
    before = _count(demo, "SELECT count(*) FROM appeals")
    decision = _count(demo, "SELECT min(decision_id) FROM appeals WHERE instance = 3")
    form = next(s for s in at.selectbox if s.label == "Decisão recorrida")
    form.set_value(decision)
    next(t for t in at.text_input if t.label == "Data da interposição").set_value("20/11/2026")
    next(t for t in at.text_input if t.label == "Recorrente").set_value("Empresa de teste")
    next(t for t in at.text_area if t.label == "Razões do recurso").set_value("Quarta tentativa.")
    next(b for b in at.button if b.label == "Interpor recurso").click().run()
    errors = " ".join(str(e.value) for e in at.error).replace("\\", "")
    assert "Recurso: as 3 instâncias já se esgotaram: não cabe o 4º recurso" in errors and "art. 57" in errors
    assert _count(demo, "SELECT count(*) FROM appeals") == before


def test_the_authoritys_appeal_deadlines_are_owed_in_its_tab(demo: Path) -> None:
    at = _tab(demo, "dpc", "O que a Autoridade deve")
    owed = _table(at, "O que fazer")
    appeals = owed[owed["Processo"].str.startswith("recurso ")]
    assert not appeals.empty
    assert appeals["Fundamento"].str.contains("art. 56 §1").any()
    assert appeals["Fundamento"].str.contains("art. 59").any()


def test_an_explorer_reads_its_own_companys_cases_only(demo: Path) -> None:
    explorer = first_user(demo, "explorer")
    at = _tab(demo, "explorer")
    own = _count(demo, f"SELECT count(*) FROM administrative_decisions WHERE organisation_id = "
                       f"{explorer.organisation_id}")
    name = Store(demo, migrate=False)
    try:
        org = name.scalar("SELECT name FROM organisations WHERE id = ?", [explorer.organisation_id])
    finally:
        name.close()
    cases = _table(at, "NUP")
    assert len(cases) == own and set(cases["Empresa"]) == {org}
    assert not [b for b in at.button if b.label in ("Registrar decisão", "Interpor recurso", "Registrar etapa")]
