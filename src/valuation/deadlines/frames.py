"""What the dashboard, the calendar feeds and the daily digest derive from a deadlines frame
(`valuation.deadlines.engine.compute_deadlines`): cancellation candidates, counts per office, the
heat map and the timeline, the iCalendar feed and the digest document.
"""
from __future__ import annotations

from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from valuation.db.access import Principal, allowed, chosen_organisation
from valuation.deadlines.engine import compute_deadlines
from valuation.deadlines.rows import ONE, fmt
from valuation.deadlines.states import DIGEST_STATES, PENDING_STATES, STATES

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from valuation.db.store import Store
    from valuation.exports import CalendarEvent

# -- derived views for the dashboard -------------------------------------------------------------------------
def cancellation_candidates(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                            frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Contracts automatically cancelled for a second consecutive missing monthly report
    (NORMAM-10 0305 f) and not waived: contract_code, organisation, office_code, due (the
    cancellation date), reason, steps. Pass `frame` (a compute_deadlines result) to reuse it."""
    df = frame if frame is not None else compute_deadlines(store, user, as_of=as_of, office=office)
    if df.empty:
        return df
    sel = df[(df["rule"] == "automatic_cancellation") & (df["state"] != "waived")]
    return sel[["key", "contract_code", "organisation", "office_code", "uf", "naval_district", "due", "state",
                "reason", "steps"]].reset_index(drop=True)


def summary_by_office(frame: pd.DataFrame) -> pd.DataFrame:
    """Counts per office and naval district of overdue and due-soon deadlines (for the dashboard)."""
    import pandas as pd

    cols = ["naval_district", "office_code", "uf", *STATES]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    counts = (frame.groupby(["naval_district", "office_code", "uf", "state"], dropna=False).size()
              .unstack("state", fill_value=0))
    for s in STATES:
        if s not in counts.columns:
            counts[s] = 0
    out = counts.reset_index()[cols]
    return out.sort_values(["overdue", "due_soon", "office_code"], ascending=[False, False, True], ignore_index=True)


def heatmap_frame(frame: pd.DataFrame, year: int) -> pd.DataFrame:
    """Pending deadlines due in `year` counted per day, with ISO week and weekday (calendar heat map)."""
    import pandas as pd

    cols = ["day", "week", "weekday", "count"]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    pending = frame[frame["state"].isin(PENDING_STATES)]
    days = [d for d in pending["due"].tolist() if d is not None and d.year == year]
    if not days:
        return pd.DataFrame(columns=cols)
    counts = pd.Series(days).value_counts().sort_index()
    return pd.DataFrame({
        "day": list(counts.index),
        "week": [(d - date(year, 1, 1)).days // 7 + 1 for d in counts.index],
        "weekday": [d.weekday() for d in counts.index],
        "count": counts.to_numpy(),
    })


def timeline_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows for a Gantt chart (plotly `px.timeline`): task, start and finish as timestamps
    (finish is the day after `due`, so that a bar covers the due day), state_pt."""
    import pandas as pd

    cols = ["task", "start", "finish", "state", "state_pt", "contract_code", "key"]
    frame = frame[frame["due"].notna()] if not frame.empty else frame  # no bar without a due date
    if frame.empty:
        return pd.DataFrame(columns=cols)
    starts = [s if s is not None and not pd.isna(s) and s <= d else d for s, d in zip(frame["start"], frame["due"])]
    return pd.DataFrame({
        "task": frame["label_pt"].to_numpy(),
        "start": pd.to_datetime(starts),
        "finish": pd.to_datetime([d + ONE for d in frame["due"]]),
        "state": frame["state"].to_numpy(),
        "state_pt": frame["state_pt"].to_numpy(),
        "contract_code": frame["contract_code"].to_numpy(),
        "key": frame["key"].to_numpy(),
    })


# -- iCalendar feeds -------------------------------------------------------------------------------------------
def deadlines_ics(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                  organisation_id: int | None = None, now: datetime | None = None,
                  frame: pd.DataFrame | None = None, alarm_days: tuple[int, ...] = (),
                  extra: Sequence[CalendarEvent] = ()) -> bytes:
    """An iCalendar (.ics) feed of the pending deadlines (not met, not waived) the user may
    read: per office (`office`) or per explorer (`organisation_id`; an explorer always gets
    its own). One all-day event per deadline on its due day; the UID is the deadline's key,
    so a calendar app updates an event rather than duplicating it. `extra`: events of another
    capability the caller adds (the Authority's own deadlines in the requests, valuation.proceedings.feeds)."""
    from valuation.exports import CalendarEvent, to_ics

    df = frame if frame is not None else compute_deadlines(store, user, as_of=as_of, office=office,
                                                            organisation_id=organisation_id)
    events: list[CalendarEvent] = list(extra)
    if not df.empty:
        for r in df[df["state"].isin(PENDING_STATES) & df["due"].notna()].itertuples(index=False):
            who = " — ".join(x for x in (r.contract_code and f"contrato {r.contract_code}",
                                         r.wreck and f"naufrágio {r.wreck}", r.office_code) if x)
            description = "\n".join([f"Situação em {fmt(as_of)}: {r.state_pt} ({r.reason})",
                                     f"Fundamento: {r.basis}", "", r.steps])
            events.append(CalendarEvent(f"{r.key}@valuation", r.due, f"{r.label_pt} — {who}", description))
    stamp = now or store.now()
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)  # the store's clock is naive UTC
    if office:
        name = f"Prazos — {office}"
    elif not allowed(user, "read_all_deadlines") or organisation_id is not None:
        org = chosen_organisation(user, organisation_id, any_with="read_all_deadlines")
        row = store.fetch_one("SELECT name FROM organisations WHERE id = ?", [org])
        name = f"Prazos — {row['name'] if row else org}"
    else:
        name = "Prazos — DPC"
    return to_ics(events, calendar_name=name, dtstamp=stamp, alarm_days=alarm_days)


def digest(store: Store, user: Principal, *, as_of: date, office: str | None = None) -> dict[str, Any]:
    """The daily digest (JSON-ready): counts per state and the overdue and due-soon deadlines,
    plus the automatic-cancellation candidates, for a scheduler (see deadline_digest)."""
    df = compute_deadlines(store, user, as_of=as_of, office=office)
    counts = {s: int((df["state"] == s).sum()) if not df.empty else 0 for s in STATES}
    items = []
    if not df.empty:
        for r in df[df["state"].isin(DIGEST_STATES)].itertuples(index=False):
            items.append({
                "key": r.key, "rule": r.rule, "label": r.label_pt, "state": r.state, "due": r.due.isoformat(),
                "raw_due": r.raw_due.isoformat(), "moved_from": r.moved_from.isoformat() if r.moved_from else None,
                "contract": r.contract_code, "organisation": r.organisation, "wreck": r.wreck,
                "office": r.office_code, "naval_district": None if r.naval_district is None else int(r.naval_district),
                "reason": r.reason, "basis": r.basis,
            })
    cancel = cancellation_candidates(store, user, as_of=as_of, office=office, frame=df)
    return {
        "as_of": as_of.isoformat(),
        "office": office,
        "counts": counts,
        "deadlines": items,
        "cancellation_candidates": [{"contract": r.contract_code, "office": r.office_code, "since": r.due.isoformat()}
                                    for r in cancel.itertuples(index=False)] if not cancel.empty else [],
    }


