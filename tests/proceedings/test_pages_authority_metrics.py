"""Prazos, the overview metrics: beside the explorers' deadlines, how many of the Authority's own deadlines in
the requests (Lei 9.784/1999) are overdue and due soon, for the office chosen above the tabs, with the store's
scope (an explorer counts its own company's requests only).

The small world's w2 (CPRJ), dates worked by hand in tests/proceedings/test_requests.py: on 30/11/2026 the
opinion (due 25/09, art. 42) and the decision (due 03/11, art. 49) are overdue, the intimation for the hearing of
04/12 (due 01/12, arts. 26 §2 and 41) is due soon; the party's allegations (art. 44) are not the Authority's."""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from tests.support.ui import page_as, set_date
from valuation.deadlines.states import STATE_HEADINGS

AS_OF = date(2026, 11, 30)
OVERDUE, SOON = (f"{STATE_HEADINGS[s]} — a Autoridade deve" for s in ("overdue", "due_soon"))


def _filed(world: Any) -> None:
    from valuation.proceedings import requests

    dpc = world.principal("dpc")
    request_id = requests.file_request(world.store, dpc, {
        "wreck_code": "NAU-1890-02", "filed_on": date(2026, 9, 1), "matter": "pesquisa",
        "organisation_id": world.ids["org_b"]})
    for kind, day, ref in (("instruction_opened", date(2026, 9, 3), None),
                           ("opinion_requested", date(2026, 9, 10), None),
                           ("instruction_ended", date(2026, 10, 1), None),
                           ("hearing_set", date(2026, 11, 20), date(2026, 12, 4))):
        requests.record_step(world.store, dpc, request_id, {"kind": kind, "day": day, "reference_day": ref})


def _metrics(world: Any, who: str, office: str | None) -> dict[str, str]:
    at = page_as(world.path, world.principal(who), "deadlines")
    set_date(at, None, AS_OF)
    at.run()
    if office is not None:
        next(s for s in at.selectbox if s.label == "Capitania/Delegacia/Agência").set_value(office).run()
    assert not at.exception, at.exception
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("who, office, overdue, soon", [
    ("dpc", None, "2", "1"), ("dpc", "CPRJ", "2", "1"), ("dpc", "CPBA", "0", "0"),
    ("explorer_b", None, "2", "1"), ("explorer_a", None, "0", "0")])
def test_the_overview_counts_what_the_authority_owes(small_world: Any, who: str, office: str | None, overdue: str,
                                                     soon: str) -> None:
    _filed(small_world)
    shown = _metrics(small_world, who, office)
    assert (shown[OVERDUE], shown[SOON]) == (overdue, soon), shown
    assert "Vencidos" in shown   # the explorers' deadlines keep their metrics beside them
