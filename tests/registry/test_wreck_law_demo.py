"""Issue 25's rules of the registry on the full demo (read-only: the session's `full_demo_db`) and on the
Naufrágios page (one AppTest on a copy): archaeological sites (Constituição art. 20 X), cessions (Lei 7.542
art. 8), vessel and cargo (arts. 13 §1 and 14)."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tests.support.db_copies import copy_database
from tests.support.ui import first_user, open_tab, page_as, texts
from valuation.db.store import Store
from valuation.demo.constants import DEMO_TODAY
from valuation.registry.domain.queries import domain_statuses

D = date


@pytest.fixture(scope="module")
def demo_status(full_demo_db: Path):
    dpc = first_user(full_demo_db, "dpc")
    with Store(full_demo_db, read_only=True) as s:
        yield s, dpc, domain_statuses(s, dpc, DEMO_TODAY).set_index("code")


def test_the_demo_sites(demo_status):
    """ES-003 (1908): its owner asked in time under art. 32 (15/06/1987), so it stayed private — until its
    registration as an archaeological site on 12/08/2019. BA-001 (wooden hull, 1686): the União's since
    29/09/1986 (art. 32 §1), its registration of 2014 later."""
    _, _, df = demo_status
    es = df.loc["ES-003"]
    assert (es["owner"], es["since"]) == ("union", D(2019, 8, 12)), es["steps"]
    assert es["site"] == "IPHAN nº CNSA ES-00087, registrado em 12/08/2019"
    ba = df.loc["BA-001"]
    assert (ba["owner"], ba["since"]) == ("union", D(1986, 9, 29))
    assert "posterior à incorporação" in ba["steps"] and "CNSA BA-01230" in ba["site"]


def _shown(at) -> str:
    return texts(at) + "\n" + "\n".join(str(t.value) for t in at.text)


def _wreck_page(db: Path, code: str):
    with Store(db, read_only=True) as s:
        wreck_id = s.scalar("SELECT id FROM wrecks WHERE code = ?", [code])
    at = page_as(db, first_user(db, "dpc"), "wrecks")
    next(s for s in at.selectbox if s.label == "Naufrágio").set_value(wreck_id).run()
    return at


def test_the_wrecks_page_shows_the_site(full_demo_db: Path, tmp_path: Path):
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    at = open_tab(_wreck_page(db, "ES-003"), "wrecks", "Sítio arqueológico")
    shown = _shown(at)
    assert not at.exception, at.exception
    assert "IPHAN nº CNSA ES-00087, registrado em 12/08/2019" in shown and "Constituição Federal art. 20 X" in shown
