"""The offices' directory ships with the product: `load_directory` (db init) adds what is missing and never
changes what an office corrected; an office is added, corrected or closed from a day — never deleted."""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from valuation.core.errors import AccessDenied, InputError
from valuation.registry import office_directory, offices


def test_the_directory_loads_once_and_a_correction_survives_a_later_load(store: Any, small_world: Any) -> None:
    loaded = offices.load_directory(store)
    assert loaded["offices"] == len(office_directory.OFFICES) >= 60
    assert loaded["local_holidays"] > 0
    codes = [o[0] for o in office_directory.OFFICES]
    assert len(codes) == len(set(codes))
    assert store.fetch_one("SELECT source FROM offices WHERE code = 'CPRJ'")["source"] == \
        office_directory.DIRECTORY_SOURCE
    assert offices.load_directory(store) == {"offices": 0, "local_holidays": 0}
    # the world's three offices: the load adds the others and leaves those three as they were
    before = small_world.store.fetch_one("SELECT name FROM offices WHERE code = 'CPRJ'")
    offices.load_directory(small_world.store)
    assert small_world.store.fetch_one("SELECT name FROM offices WHERE code = 'CPRJ'") == before


def test_an_office_is_added_corrected_and_closed_by_headquarters_or_the_administrator(small_world: Any) -> None:
    admin = small_world.principal("admin")
    data = {"code": "AGBUZIOS", "name": "Agência da Capitania dos Portos em Búzios", "kind": "AG", "state": "RJ",
            "city": "Armação dos Búzios", "naval_district": 1, "source": "Portaria nº 10/2026 do Comandante da Marinha"}
    assert offices.create_office(small_world.store, admin, data) == "AGBUZIOS"
    with pytest.raises(InputError) as err:
        offices.create_office(small_world.store, admin, data)
    assert [p.where for p in err.value.problems] == ["code"]
    assert offices.correct_office(small_world.store, admin, "AGBUZIOS", {**data, "closed_on": date(2026, 11, 30)},
                                  "Agência desativada pela Portaria nº 33/2026") == 2
    open_now = offices.list_offices(small_world.store, admin, include_closed=False)
    assert "AGBUZIOS" not in set(open_now["code"])
    assert "AGBUZIOS" in set(offices.list_offices(small_world.store, admin)["code"])
    history = offices.office_history(small_world.store, admin, "AGBUZIOS")
    assert [v.origin for v in history] == ["created", "corrected"]
    with pytest.raises(AccessDenied):
        offices.create_office(small_world.store, small_world.principal("office_rj"), {**data, "code": "AGX"})


@pytest.mark.parametrize("changes, field", [({"code": "cprj"}, "code"), ({"code": "1AB"}, "code"),
                                            ({"kind": "CF"}, "kind"), ({"state": "XX"}, "state"),
                                            ({"naval_district": 10}, "naval_district"), ({"source": ""}, "source"),
                                            ({"closed_on": "31/02/2026"}, "closed_on")])
def test_a_bad_office_field_is_named_and_nothing_is_written(small_world: Any, changes: dict[str, Any],
                                                            field: str) -> None:
    data = {"code": "AGNOVA", "name": "Agência nova", "kind": "AG", "state": "RJ", "city": "Rio",
            "naval_district": 1, "source": "Portaria"}
    before = small_world.store.scalar("SELECT count(*) FROM audit_log")
    with pytest.raises(InputError) as err:
        offices.create_office(small_world.store, small_world.principal("dpc"), {**data, **changes})
    assert field in [p.where for p in err.value.problems]
    assert small_world.store.scalar("SELECT count(*) FROM audit_log") == before
