"""Issue 25, rule 6 — the edital's publications (Lei 7.542 art. 9 §2): published once in each outlet the
paragraph names; its 15 days run from the last publication (counted by Lei 9.784 art. 66). The pure rule,
the store (record, refuse, the order's last publication), the deadline engine and the demo's page.
"""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from tests.support.ui import first_user, page_as
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import ConflictError, InputError
from valuation.deadlines import engine
from valuation.deadlines.edital import Publication, edital_start, removal_edital_from
from valuation.registry import removal_orders

D = date
RJ = BusinessCalendar("RJ")
P = Publication

# (name, publications, offshore, due, moved_from, missing) — dates worked out by hand
CASES = [
    ("the demo's three outlets: 24/01/2022 + 15 = 08/02/2022 (Tuesday)",
     [P("dou", D(2022, 1, 17)), P("capital", D(2022, 1, 19)), P("porto", D(2022, 1, 24))], False,
     D(2022, 2, 8), None, ()),
    ("from the last, not the first: 09/05/2025 + 15 = Saturday 24/05 → Monday 26/05",
     [P("capital", D(2025, 5, 9)), P("dou", D(2025, 5, 2))], False, D(2025, 5, 26), D(2025, 5, 24), ("porto",)),
    ("two outlets the same day: 02/06/2025 + 15 = 17/06/2025", [P("dou", D(2025, 6, 2)), P("porto", D(2025, 6, 2))],
     False, D(2025, 6, 17), None, ("capital",)),
    ("off the coast, the Rio newspaper too", [P("dou", D(2025, 6, 2))], True, D(2025, 6, 17), None,
     ("capital", "porto", "rio")),
]


@pytest.mark.parametrize("name, pubs, offshore, due, moved, missing", CASES, ids=[c[0] for c in CASES])
def test_the_period_runs_from_the_last_publication(name, pubs, offshore, due, moved, missing):
    d = removal_edital_from(pubs, RJ, offshore)
    assert (d.due, d.moved_from) == (due, moved), d.steps
    assert edital_start(pubs, offshore).missing == missing
    text = "\n".join(d.steps)
    assert "última publicação" in text and "art. 9 §2" in d.basis
    assert ("Ainda sem publicação" in text) == bool(missing)


@pytest.mark.parametrize("pubs, path", [
    ([], "publications"),
    ([P("dou", D(2025, 1, 2)), P("dou", D(2025, 1, 9))], "publications[1].outlet"),
    ([P("blog", D(2025, 1, 2))], "publications[0].outlet"),
])
def test_bad_publications_are_refused(pubs, path):
    with pytest.raises(InputError) as err:
        edital_start(pubs)
    assert [p.path for p in err.value.problems] == [path]


# -- the store and the engine ------------------------------------------------------------------------------------
def _order(world: Any, notice: str = "edital") -> int:
    world.store.write("test", lambda tx: tx.execute(
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, casualty_day, "
        "casualty_precision, casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
        "situation) VALUES ('NAU-2024-90', 'Balsa Itaipava', 'aço', 2024, 5, 10, 'day', 'naufrágio', 23, 1, 'S', 43, "
        "2, 'W', 'WGS-84', 'CPRJ', 'soçobrada')"))
    return removal_orders.record_removal_order(world.store, world.principal("dpc"), {
        "wreck_code": "NAU-2024-90", "kind": "remoção", "act": "Ofício nº 9/2026-CPRJ", "ordered_on": "02/03/2026",
        "notice": notice, "starts_by": "01/06/2026", "ends_by": "30/11/2026",
        "reason": "Casco no canal de acesso: obstáculo à navegação."})


def test_store_records_each_publication_and_the_engine_counts_from_the_last(small_world):
    dpc, store = small_world.principal("dpc"), small_world.store
    oid = _order(small_world)
    for outlet, day in (("dou", "05/03/2026"), ("porto", "12/03/2026"), ("capital", "10/03/2026")):
        removal_orders.record_edital_publication(store, dpc, oid, {"outlet": outlet, "published_on": day,
                                                                   "reference": "p. 3"})
    assert store.scalar("SELECT published_on FROM removal_orders WHERE id = ?", [oid]) == D(2026, 3, 12)
    assert [p["outlet"] for p in removal_orders.list_edital_publications(store, dpc, oid)] == ["dou", "capital",
                                                                                                "porto"]
    with pytest.raises(InputError) as err:       # once in each outlet
        removal_orders.record_edital_publication(store, dpc, oid, {"outlet": "dou", "published_on": "13/03/2026",
                                                                   "reference": "p. 9"})
    assert [p.path for p in err.value.problems] == ["outlet"] and "05/03/2026" in str(err.value)
    with pytest.raises(InputError) as err:       # not before the order
        removal_orders.record_edital_publication(store, dpc, oid, {"outlet": "rio", "published_on": "01/03/2026",
                                                                   "reference": "p. 9"})
    assert [p.path for p in err.value.problems] == ["published_on"]
    df = engine.compute_deadlines(store, dpc, as_of=D(2026, 6, 30))
    row = df[df["key"] == f"removal_edital:r{oid}"].iloc[0]
    assert row["due"] == D(2026, 3, 27)          # 12/03/2026 (Thursday) + 15 = 27/03/2026 (Friday)
    assert "última publicação, 12/03/2026" in row["steps"]
    personal = _personal(small_world)
    with pytest.raises(ConflictError):
        removal_orders.record_edital_publication(store, dpc, personal, {"outlet": "dou", "published_on": "05/03/2026",
                                                                        "reference": "p. 3"})


def _personal(world: Any) -> int:
    """A personal notice to the small world's Brazilian owner of known whereabouts (art. 9 I)."""
    world.store.write("test", lambda tx: tx.execute(
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, casualty_day, "
        "casualty_precision, casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
        "situation, owner_id) VALUES ('NAU-2024-91', 'Balsa Itaipava II', 'aço', 2024, 5, 10, 'day', 'naufrágio', 23, "
        "1, 'S', 43, 2, 'W', 'WGS-84', 'CPRJ', 'soçobrada', ?)", [world.ids["owner1"]]))
    return removal_orders.record_removal_order(world.store, world.principal("dpc"), {
        "wreck_code": "NAU-2024-91", "kind": "remoção", "act": "Ofício nº 10/2026-CPRJ", "ordered_on": "02/03/2026",
        "notice": "pessoal", "notified_on": "03/03/2026", "starts_by": "01/06/2026", "ends_by": "30/11/2026",
        "reason": "Casco no canal de acesso: obstáculo à navegação."})


def test_demo_page_lists_the_publications(full_demo_db):
    at = page_as(full_demo_db, first_user(full_demo_db, "dpc"), "domain")
    shown = " ".join(str(m.value) for m in at.markdown) + " ".join(str(d.value) for d in at.dataframe)
    assert "Publicações do edital" in shown and "art. 9 §2" in shown
    assert "Jornal do Porto de Vitória" in shown and "ES-002" in shown
