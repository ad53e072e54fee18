"""The Authority's own deadlines in the requests, as calendar events for a DPC user's subscription (issue 26,
section 1): one all-day event per open deadline of the Authority (Lei 9.784/1999 arts. 24, 26 §2, 41, 42, 49)
on its due day, of the subscription's office (or every office). `valuation.deadlines.feeds.feed_ics` takes
them from its caller (the service), so neither capability imports the other's feed."""
from __future__ import annotations

from datetime import date
from typing import Any

from valuation.core.money import format_date_br
from valuation.db.access import Principal, allowed
from valuation.exports import CalendarEvent
from valuation.proceedings.requests import authority_deadlines, case_title


def authority_events(store: Any, user: Principal, as_of: date, office: str | None) -> list[CalendarEvent]:
    """The events of the Authority's open deadlines the user answers for: DPC users only (a company's
    subscription gets none); the UID names the request and the period, so an app updates the event."""
    if not allowed(user, "read_all_requests") or not store.has_table("requests"):
        return []
    events = []
    for r in authority_deadlines(store, user, as_of=as_of, office=office):
        description = "\n".join([f"Situação em {format_date_br(as_of)}: {r['state_pt']}", f"Fundamento: {r['basis']}",
                                 "", *r["steps"]])
        case = (f"requerimento-{r['request_id']}" if r["request_id"] is not None else
                str(r["act"]) if r.get("act") else   # an act awaiting its signatures (signatures.pending)
                f"recurso-{r['appeal_id']}" if r["appeal_id"] is not None else f"decisao-{r['decision_id']}")
        events.append(CalendarEvent(f"{r['rule']}:{case}@valuation", r["due"],
                                    f"{r['label']} — {case_title(r)} — naufrágio {r['wreck']} — "
                                    f"{r['office_code']}", description))
    return events
