"""An explorer cannot date its own delivery or appeal (the acts that start the periods): the day of an event a
company records is the service's; a date sent anyway — a crafted widget value — is refused by its field and
nothing is written. DPC still records the day an act happened (a paper report received on its day)."""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from valuation.core.errors import InputError
from valuation.deadlines import events


def _report(world: Any, **extra: Any) -> dict[str, Any]:
    return {"kind": "relatório_mensal_entregue", "contract_code": "B-1", "reference": "2025-03", **extra}


def test_a_backdated_delivery_by_an_explorer_is_refused_and_nothing_written(small_world: Any) -> None:
    before = small_world.store.scalar("SELECT count(*) FROM deadline_events")
    with pytest.raises(InputError) as err:
        events.record_event(small_world.store, small_world.principal("explorer_b"),
                            _report(small_world, event_date=date(2025, 4, 2)))
    assert [p.where for p in err.value.problems] == ["event_date"]
    assert "não informa a data" in err.value.problems[0].message
    assert small_world.store.scalar("SELECT count(*) FROM deadline_events") == before


def test_the_explorers_delivery_is_dated_by_the_service(small_world: Any) -> None:
    new = events.record_event(small_world.store, small_world.principal("explorer_b"), _report(small_world))
    row = small_world.store.fetch_one("SELECT event_date, recorded_by FROM deadline_events WHERE id = ?", [new])
    assert row == {"event_date": small_world.store.today(), "recorded_by": "exp.beta"}


def test_dpc_still_records_the_day_a_paper_report_was_received(small_world: Any) -> None:
    day = small_world.store.today() - timedelta(days=3)
    new = events.record_event(small_world.store, small_world.principal("dpc"), _report(small_world, event_date=day))
    assert small_world.store.scalar("SELECT event_date FROM deadline_events WHERE id = ?", [new]) == day
