"""Issue 15, first half, in the store: the wreck registry and the deadline engine follow the pure
rules (the earliest event, open suspensions shown as "suspenso"), the final report only where
NORMAM asks for it, and no assessment round for a panel that breaks NORMAM-10 0303 c 1 I.

Uses `small_world` (tests/conftest.py). Expected dates are worked out by hand beside each case.
"""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from tests.support.commission import add_member, full_panel
from valuation.commission.rounds import open_round, panel_problems
from valuation.core.errors import ConflictError
from valuation.deadlines import engine, frames
from valuation.registry.domain.queries import domain_statuses

AS_OF = date(2025, 6, 30)


def _wreck(tx: Any, code: str, casualty: date, declared: date | None = None) -> int:
    return int(tx.scalar(
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, casualty_day, "
        "casualty_precision, casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
        "situation, owner_declared_lost) VALUES (?, 'Graneleiro', 'aço', ?, ?, ?, 'day', 'naufrágio', 23, 1, 'S', 43, "
        "2, 'W', 'WGS-84', 'CPRJ', 'soçobrada', ?) RETURNING id",
        [code, casualty.year, casualty.month, casualty.day, declared]))


def _registry(world: Any) -> Any:
    return domain_statuses(world.store, world.principal("dpc"), AS_OF).set_index("code")


def _lapse_row(world: Any, code: str) -> dict[str, Any]:
    df = engine.compute_deadlines(world.store, world.principal("dpc"), as_of=AS_OF)
    rows = df[df["key"] == f"five_year_lapse:{code}"]
    assert len(rows) == 1
    return rows.iloc[0].to_dict()


# -- 1. the earliest event, in the registry and the engine ------------------------------------------------------
def test_registry_takes_the_earliest_event(small_world):
    """Lost 10/01/2015, declared lost 01/03/2022: União since 11/01/2020 (the lapse; arts. 6–7), the later
    declaration (art. 3 I) changes nothing — and the engine's lapse row is closed by the lapse (a state,
    'encerrado — União desde 11/01/2020'), not waived by the declaration."""
    small_world.store.write("test", lambda tx: _wreck(tx, "NAU-2015-09", date(2015, 1, 10), date(2022, 3, 1)))
    row = _registry(small_world).loc["NAU-2015-09"]
    assert (row["owner"], row["owner_pt"], row["since"], row["lapse_due"]) == (
        "union", "União", date(2020, 1, 11), date(2020, 1, 10))
    lapse = _lapse_row(small_world, "NAU-2015-09")
    assert lapse["state"] == "met" and lapse["met_on"] == date(2020, 1, 11), lapse
    assert lapse["state_pt"] == "encerrado — União desde 11/01/2020" and "art. 7" in lapse["reason"], lapse


def test_a_declaration_before_the_lapse_still_waives_it(small_world):
    small_world.store.write("test", lambda tx: _wreck(tx, "NAU-2015-10", date(2015, 1, 10), date(2018, 3, 1)))
    assert _registry(small_world).loc["NAU-2015-10", "since"] == date(2018, 3, 1)
    assert _lapse_row(small_world, "NAU-2015-10")["state"] == "waived"


def test_casualty_before_1986_gets_five_years_from_the_law(small_world):
    """Casualty 01/05/1970 (after 29/09/1966: not art. 32): the five years run from 29/09/1986 →
    29/09/1991 Sunday → 30/09 → União 01/10/1991 (art. 37; issue 15.2)."""
    small_world.store.write("test", lambda tx: _wreck(tx, "NAU-1970-11", date(1970, 5, 1)))
    row = _registry(small_world).loc["NAU-1970-11"]
    assert (row["owner"], row["since"], row["lapse_due"]) == ("union", date(1991, 10, 1), date(1991, 9, 30))
    assert _lapse_row(small_world, "NAU-1970-11")["due"] == date(1991, 9, 30)


# -- 3. open suspensions (migration 008) -------------------------------------------------------------------------
def test_open_suspension_is_stored_and_shown_as_suspended(small_world):
    s = small_world.store

    def add(tx: Any) -> None:
        wid = _wreck(tx, "NAU-2015-12", date(2015, 1, 10))
        tx.execute("INSERT INTO wreck_suspensions (wreck_id, ground, starts_on, ends_on, reason) "
                   "VALUES (?, 'II', DATE '2019-06-01', NULL, 'Remoção determinada pela Autoridade Naval')", [wid])

    s.write("test", add)
    row = _registry(small_world).loc["NAU-2015-12"]
    assert (row["owner"], row["since"], row["lapse_due"], row["lapse_suspended"]) == ("private", None, None, True)
    assert "suspenso" in row["owner_pt"] and "União" not in row["owner_pt"]
    assert "desde 01/06/2019, em curso (sem data final)" in row["suspensions"]
    lapse = _lapse_row(small_world, "NAU-2015-12")
    assert (lapse["state"], lapse["state_pt"], lapse["due"]) == ("suspended", "suspenso", None)
    assert "art. 6 parágrafo único" in lapse["reason"]
    # the dashboard's derived views and the .ics feed leave a deadline without a due date out, never fail
    df = engine.compute_deadlines(s, small_world.principal("dpc"), as_of=AS_OF)
    assert frames.heatmap_frame(df, 2025).shape[1] == 4
    frames.timeline_frame(df)
    assert b"NAU-2015-12" not in frames.deadlines_ics(s, small_world.principal("dpc"), as_of=AS_OF, frame=df)
    # once it ends (01/06/2019–30/06/2020: 30 + 184 + 182 = 396 days, 2020 is a leap year), the lapse runs
    # again: 10/01/2020 + 396 days = 09/02/2021 (Tuesday) → União 10/02/2021
    s.write("test", lambda tx: tx.execute("UPDATE wreck_suspensions SET ends_on = DATE '2020-06-30' "
                                          "WHERE reason LIKE 'Remoção determinada pela%'"))
    row = _registry(small_world).loc["NAU-2015-12"]
    assert (row["owner"], row["since"], row["lapse_due"]) == ("union", date(2021, 2, 10), date(2021, 2, 9))


def test_migration_008_keeps_the_order_check(small_world):
    from valuation.core.errors import ValuationError

    with pytest.raises((ValuationError, Exception)):
        small_world.store.write("test", lambda tx: tx.execute(
            "INSERT INTO wreck_suspensions (wreck_id, ground, starts_on, ends_on, reason) "
            "VALUES (?, 'I', DATE '2020-02-01', DATE '2020-01-01', 'x')", [small_world.ids["w3"]]))
    assert small_world.store.schema_version() >= 8


# -- 5. the final report: surveys and removals/demolitions only -------------------------------------------------
@pytest.mark.parametrize("code, kind, owed", [
    ("A-1", "exploração", False),   # NORMAM-10 0303: monthly reports only
    ("B-1", "remoção", True),       # 0302 b 3
    ("A-1", "pesquisa", True),      # 0301 c
    ("B-1", "demolição", True),     # 0302 b 3
])
def test_final_report_only_where_normam_asks(small_world, code, kind, owed):
    small_world.store.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET kind = ?, starts_on = DATE '2025-01-06', expires_on = DATE '2026-01-05', "
        "work_ended_on = DATE '2025-05-10' WHERE code = ?", [kind, code]))
    df = engine.compute_deadlines(small_world.store, small_world.principal("dpc"), as_of=AS_OF)
    rows = df[df["key"] == f"final_report:{code}"]
    assert len(rows) == (1 if owed else 0)
    if owed:
        assert rows.iloc[0]["due"] == date(2025, 8, 8)  # 10/05 + 90 days = 08/08/2025 (Friday)


# -- 6. the panel's composition ------------------------------------------------------------------------------------
def test_a_lawful_panel_opens_a_round(small_world):
    panel = full_panel(small_world)
    assert panel_problems(small_world.store) == []
    assert open_round(small_world.store, panel["pres"], "A-1").status == "aberta"


@pytest.mark.parametrize("extra, words", [
    (("com.navy4", "Cap. Quarto Membro", "navy", "commission"), "mais de 3 membros indicados pela DPHCM (Marinha)"),
    (("com.cult4", "Dra. Quarta Membro", "culture", "commission"),
     "mais de 3 membros indicados pelo Ministério da Cultura"),
    (("com.pres2", "CMG Outro Presidente", "navy", "commission_president"), "mais de um presidente"),
    (("com.pres3", "Dra. Presidente da Cultura", "culture", "commission_president"), "mais de um presidente"),
])
def test_a_panel_that_breaks_normam_opens_no_round(small_world, extra, words):
    panel = full_panel(small_world)
    username, name, body, role = extra
    add_member(small_world.store, username, name, body)
    if role != "commission":
        small_world.store.write("test", lambda tx: tx.execute("UPDATE users SET role = ? WHERE username = ?",
                                                              [role, username]))
    before = int(small_world.store.scalar("SELECT count(*) FROM assessment_rounds"))
    with pytest.raises(ConflictError) as exc:
        open_round(small_world.store, panel["pres"], "A-1")
    assert words in str(exc.value) and "NORMAM-10 0303 c 1 I" in str(exc.value) and name in str(exc.value)
    assert int(small_world.store.scalar("SELECT count(*) FROM assessment_rounds")) == before
    # the member leaves the panel (deactivated): the round opens
    small_world.store.write("test", lambda tx: tx.execute("UPDATE users SET active = false WHERE username = ?",
                                                          [username]))
    assert open_round(small_world.store, panel["pres"], "A-1").status == "aberta"


def test_a_member_without_a_body_is_named(small_world):
    panel = full_panel(small_world)
    small_world.store.write("test", lambda tx: tx.execute(
        "INSERT INTO users (username, full_name, role, password_hash) VALUES ('com.x', 'Sr. Sem Órgão', "
        "'commission', 'x')"))
    with pytest.raises(ConflictError, match="Sr. Sem Órgão não tem órgão registrado"):
        open_round(small_world.store, panel["pres"], "A-1")
