"""Issue 25's rules of the registry on the full demo (read-only: the session's `full_demo_db`) and on the
Naufrágios page (one AppTest on a copy): archaeological sites (Constituição art. 20 X), cessions (Lei 7.542
art. 8), vessel and cargo (arts. 13 §1 and 14)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
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
    # a read-write Store of its own: DuckDB refuses a read-only one beside the read-write Store a page of an
    # earlier file may hold in this process, and page_as closes that shared one (so it cannot be borrowed)
    with Store(full_demo_db, migrate=False) as s:
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


def test_the_wrecks_page_shows_the_site_and_the_parties(full_demo_db: Path, tmp_path: Path):
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    with Store(db, read_only=True) as s:   # before the page opens the file (one configuration per process)
        ids = {r["code"]: r["id"] for r in s.fetch("SELECT id, code FROM wrecks WHERE code IN ('ES-003', 'RJ-002')")}
    dpc = first_user(db, "dpc")
    at = page_as(db, dpc, "wrecks")
    next(s for s in at.selectbox if s.label == "Naufrágio").set_value(ids["ES-003"]).run()
    at = open_tab(at, "wrecks", "Sítio arqueológico")
    shown = _shown(at)
    assert not at.exception, at.exception
    assert "IPHAN nº CNSA ES-00087, registrado em 12/08/2019" in shown and "Constituição Federal art. 20 X" in shown
    # the same page: the responsible parties of RJ-002, vessel and cargo (arts. 8, 13 §1, 14)
    next(s for s in at.selectbox if s.label == "Naufrágio").set_value(ids["RJ-002"]).run()
    at = open_tab(at, "wrecks", "Responsáveis e carga")
    assert not at.exception, at.exception
    frames = [df for df in (e.value for e in at.dataframe) if "Papel" in df.columns]
    assert frames and "Petróleo Atlântico S.A. ◀ responsável" in set(frames[0]["Responsável"])
    assert any("art. 13 §1" in str(v) for v in frames[0]["Fundamento"])


def test_the_demo_cessions_and_cargo(demo_status):
    """ES-002: ceded to its insurer on 10/11/2022, communicated 25/11/2022; the insurer's request of 14/03/2023
    counts (art. 8 §2). AP-001: a cession never communicated, void against the Authority. RJ-002: the cargo's
    responsible declared it lost on 22/04/2024 — the cargo is the União's, the vessel stays private (arts. 13
    §1, 14)."""
    store, dpc, df = demo_status
    es = df.loc["ES-002"]
    assert es["owner_name"] == "Seguradora Marítima Capixaba S.A. (cessionário, Lei 7.542 art. 8)"
    assert es["licence_requested"] == D(2023, 3, 14) and es["owner"] == "private", es["steps"]
    ap = store.scalar("SELECT id FROM wrecks WHERE code = 'AP-001'")
    from valuation.registry.parties import responsible_parties
    rows = responsible_parties(store, dpc, int(ap), DEMO_TODAY)["rows"]
    assert rows[0]["responsible"] and rows[0]["name"] == "Pesqueira Oiapoque Ltda."
    assert "não vale perante a Autoridade Naval, que trata com o cedente" in rows[1]["role"]
    rj = df.loc["RJ-002"]
    assert (rj["owner"], rj["cargo_owner_pt"], rj["cargo_since"]) == ("private", "União", D(2024, 4, 22))


def test_the_demo_salvage_award_and_its_page(demo_status, full_demo_db: Path, tmp_path: Path):
    """DPC-RM-2016/04 (modality IV): the award of R$ 1.845.000,00 with the factors the Authority recorded
    (Lei 7.203/1984 art. 10), shown on Termos do contrato."""
    from valuation.partition.salvage import current_assessment, factor_rows

    store, _, _ = demo_status
    cid = store.scalar("SELECT id FROM contracts WHERE code = 'DPC-RM-2016/04'")
    a = current_assessment(store, int(cid))
    assert a is not None and a["award"] == "1845000.00" and a["act"] == "Portaria nº 27/2019-DPC"
    assert a["value_saved"] is None or Decimal(a["value_saved"]) >= Decimal(a["award"])
    assert [label for label, _ in factor_rows(a)][:2] == ["Remuneração fixada pela Autoridade Naval", "Resultado útil"]
    db = copy_database(full_demo_db, tmp_path / "terms.duckdb")
    at = page_as(db, first_user(db, "dpc"), "contract_terms")
    next(s for s in at.selectbox if s.label == "Contrato").set_value("DPC-RM-2016/04").run()
    assert not at.exception, at.exception
    shown = _shown(at) + "\n".join(str(df.value.to_dict()) for df in at.dataframe)
    assert "Lei 7.203/1984 art. 10" in shown and "Portaria nº 27/2019-DPC" in shown
